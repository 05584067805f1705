"""`palconf site`'s figures, printed (not asserted):

- foreign ids (issue 36): one results file of N case ids that are not in the suite (a
  foreign suite, or ids made up), a fail or a pass each, through `palconf site`: seconds,
  peak memory of the child, files and bytes written.

- many results files (issue 33): the oracle run once, copied as E engines × V versions,
  each version with other cases failing; `palconf site` over all of them into a new
  folder (the full build), then again after one more results file is added (a new version
  of an engine: the nightly case), after one more engine is added, and with nothing
  added: seconds (wall and CPU: on a busy machine the CPU seconds are the steadier
  figure), peak memory of the child, files written, and the ratios to the full build.
  The targets (issue 33): full build under 60 s and 300 MB; one file added under a tenth.

    python -m benchmarks.site_bench foreign [N]        # N = 100000
    python -m benchmarks.site_bench many [V]           # 4 engines × V versions, V = 250
    python -m benchmarks.site_bench many 250 --python OTHER/.venv/bin/python
                                                       # another checkout's palconf (before)
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

#: Issue 33: a results file added and the site built again in under a tenth of the full build.
ADD_ONE_TARGET = 0.1


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


def site_run(results: Path, out: Path, python: str = sys.executable) -> dict[str, Any]:
    """`palconf site results --out out` in a child: seconds (wall and CPU), peak RSS, files
    and bytes, and how many files it wrote (its last line says)."""
    t = time.perf_counter()
    before = {q: q.stat().st_mtime_ns for q in out.rglob("*") if q.is_file()}
    with tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(
            [
                python,
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
    written = [q for q in files if before.get(q) != q.stat().st_mtime_ns]
    return {
        "status": p.returncode,
        "seconds": round(seconds, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "maxrss_mb": round(rss / 1024, 1),
        "files": len(files),
        "files_written": len(written),
        "mb_written": round(sum(q.stat().st_size for q in written) / 1e6, 1),
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


def many(versions: int, python: str = sys.executable) -> dict[str, Any]:
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
        copies(src, results, 4, versions + 1)
        newest = results / f"engine-0-1.{versions}.jsonl"
        kept = Path(tmp) / newest.name
        newest.rename(kept)  # held back: the one added
        site = Path(tmp) / "site"
        full = site_run(results, site, python)
        kept.rename(newest)
        version_added = site_run(results, site, python)
        copies(src, results, 5, 1)  # one more engine: engine-4 1.0 (the others: as they were)
        engine_added = site_run(results, site, python)
        nothing = site_run(results, site, python)

        def ratio(run: dict[str, Any], key: str) -> float | None:
            return round(run[key] / full[key], 3) if full[key] else None

        return {
            "python": python,
            "results_files": 4 * versions,
            "full": full,
            "one_version_added": version_added,
            "one_engine_added": engine_added,
            "nothing_added": nothing,
            "ratio_seconds": {
                "version_added": ratio(version_added, "seconds"),
                "engine_added": ratio(engine_added, "seconds"),
            },
            "ratio_cpu_seconds": {
                "version_added": ratio(version_added, "cpu_seconds"),
                "engine_added": ratio(engine_added, "cpu_seconds"),
            },
            "target_version_added": _target(ratio(version_added, "cpu_seconds")),
        }


def _target(r: float | None) -> str:
    """One results file added against issue 33's target: under a tenth of the full build."""
    if r is None:
        return "one file added: no figure (the full build took no time)"
    verdict = "met" if r < ADD_ONE_TARGET else "NOT met"
    return f"one file added: {r} of the full build's CPU seconds (< {ADD_ONE_TARGET}: {verdict})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.site_bench")
    p.add_argument("what", choices=["foreign", "many"])
    p.add_argument("n", type=int, nargs="?", help="ids (foreign: 100000), versions (many: 250)")
    p.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter whose palconf runs `site` (another checkout's, for a before)",
    )
    args = p.parse_args(argv)
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    if args.what == "foreign":
        print(json.dumps(foreign(args.n or 100_000), indent=2))
    else:
        print(json.dumps(many(args.n or 250, args.python), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
