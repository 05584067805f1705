"""`palconf site`'s figures, printed (not asserted):

- foreign ids (issue 36): one results file of N case ids that are not in the suite (a
  foreign suite, or ids made up), a fail or a pass each, through `palconf site`: seconds,
  peak memory of the child, files and bytes written.

- many results files (issue 33): the oracle run once, copied as E engines × V versions,
  each version with other cases failing; `palconf site` over all of them, then again
  after one more results file is added: seconds, peak memory, files and bytes each time.

    python -m benchmarks.site_bench foreign [N]        # N = 100000
    python -m benchmarks.site_bench many [V]           # 4 engines × V versions, V = 250
"""

from __future__ import annotations

import argparse
import json
import os
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
    t = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from palconf.cli import entry; sys.exit(entry())",
                "site",
                str(results),
                "--out",
                str(out),
            ],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(p.pid, 0)  # this child's own peak memory
        p.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t
        err.seek(0)
        stderr = err.read()
    rss = usage.ru_maxrss
    files = [q for q in out.rglob("*") if q.is_file()]
    return {
        "status": p.returncode,
        "seconds": round(seconds, 2),
        "maxrss_mb": round(rss / 1024, 1),
        "files": len(files),
        "mb_written": round(sum(q.stat().st_size for q in files) / 1e6, 1),
        "warnings": [w for w in stderr.splitlines() if "warning" in w][:3],
    }


def foreign(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        results.mkdir()
        foreign_results(results / "foreign.jsonl", n)
        return {"ids": n, **site_run(results, Path(tmp) / "site")}


def copies(src: Path, folder: Path, engines: int, versions: int) -> None:
    """`src` (a results file) as `engines` × `versions` results files: version v of an
    engine fails a different few percent of the cases."""
    import random

    lines = src.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])["meta"]
    body = [json.loads(line) for line in lines[1:]]
    for e in range(engines):
        for v in range(versions):
            rng = random.Random(e * 100_003 + v)
            name = f"engine-{e}"
            m = {**meta, "engine": {**meta["engine"], "name": name, "version": f"1.{v}"}}
            out = [json.dumps({"meta": m}, sort_keys=True)]
            for r in body:
                if rng.random() < 0.03:
                    r = {**r, "outcome": "fail", "message": f"made to fail in 1.{v}"}
                out.append(json.dumps(r))
            (folder / f"{name}-1.{v}.jsonl").write_text("\n".join(out) + "\n", "utf-8")


def many(versions: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "oracle.jsonl"
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from palconf.cli import entry; sys.exit(entry())",
                "run",
                "--results",
                str(src),
                "--progress",
                "none",
            ],
            capture_output=True,
            check=False,
        )
        results = Path(tmp) / "results"
        results.mkdir()
        copies(src, results, 4, versions)
        site = Path(tmp) / "site"
        full = site_run(results, site)
        copies(src, results, 5, 1)  # one more: engine-4 1.0
        again = site_run(results, site)
        ratio = round(again["seconds"] / full["seconds"], 3) if full["seconds"] else None
        return {
            "results_files": 4 * versions,
            "full": full,
            "one_added": again,
            "ratio_seconds": ratio,
        }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.site_bench")
    p.add_argument("what", choices=["foreign", "many"])
    p.add_argument("n", type=int, nargs="?", help="ids (foreign: 100000), versions (many: 250)")
    args = p.parse_args(argv)
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    if args.what == "foreign":
        print(json.dumps(foreign(args.n or 100_000), indent=2))
    else:
        print(json.dumps(many(args.n or 250), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
