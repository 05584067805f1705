"""`palconf site`'s figures, printed (not asserted):

- foreign ids (issue 36): one results file of N case ids that are not in the suite (a
  foreign suite, or ids made up), a fail or a pass each, through `palconf site`: seconds,
  peak memory of the child, files and bytes written.

    python -m benchmarks.site_bench foreign [N]        # N = 100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def foreign_results(path: Path, n: int) -> None:
    """A results file of `n` made-up case ids, every other one failing."""
    from palconf.core.results_file import meta_line

    meta = {"engine": {"name": "foreign", "version": "1"}, "rules_version": "1.00"}
    with path.open("w", encoding="utf-8") as f:
        f.write(meta_line(meta))
        for i in range(n):
            outcome = "fail" if i % 2 else "pass"
            f.write(
                json.dumps(
                    {
                        "id": f"foreign-{i:06d}",
                        "keywords": ["taunt"],
                        "clauses": ["taunt.1"],
                        "outcome": outcome,
                        "message": "made up" if outcome == "fail" else "",
                    }
                )
                + "\n"
            )


def site_run(results: Path, out: Path) -> dict[str, Any]:
    """`palconf site results --out out` in a child: seconds, peak RSS, files and bytes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from palconf.cli import entry; sys.exit(entry())",
            "site",
            str(results),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    files = [q for q in out.rglob("*") if q.is_file()]
    return {
        "status": p.returncode,
        "seconds": round(seconds, 2),
        "maxrss_mb": round(max(rss, before) / 1024, 1),
        "files": len(files),
        "mb_written": round(sum(q.stat().st_size for q in files) / 1e6, 1),
        "warnings": [w for w in p.stderr.splitlines() if "warning" in w][:3],
    }


def foreign(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        results.mkdir()
        foreign_results(results / "foreign.jsonl", n)
        return {"ids": n, **site_run(results, Path(tmp) / "site")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.site_bench")
    p.add_argument("what", choices=["foreign"])
    p.add_argument("n", type=int, nargs="?", default=100_000)
    args = p.parse_args(argv)
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    print(json.dumps(foreign(args.n), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
