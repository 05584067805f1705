"""One cold in-process run, in a fresh interpreter: import, load every case, run them all on
the oracle. Prints one JSON object (seconds for each part, wall and CPU, the time the cyclic
garbage collector took during the two and its collections, the case count, the outcomes,
peak RSS). Run by benchmarks/run.py in a child process, so that no cache is warm.

    python -m benchmarks.cold --repeat N

runs it in N fresh interpreters (as benchmarks/run.py does, bytecode cached) and prints the
best and the median of each part against the target "load + run under 0.5 s" (wall time; the
CPU time beside it is what other work on the machine moves least)."""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections import Counter
from typing import Any


class _Collections:
    """The collector's collections and the time they took, from `gc.callbacks`."""

    def __init__(self) -> None:
        self.count = 0
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.count += 1
            self.seconds += time.perf_counter() - self._started


def main() -> int:
    t0 = time.perf_counter()
    from palconf.cases.loader import load_cases
    from palconf.engines.oracle_engine import OracleEngine
    from palconf.running.supervisor import run_cases

    collections = _Collections()
    gc.callbacks.append(collections)
    t1, c1 = time.perf_counter(), time.process_time()
    cases = load_cases()
    t2, c2 = time.perf_counter(), time.process_time()
    engine = OracleEngine()
    engine.start()
    outcomes = Counter(r.outcome for r in run_cases(engine, cases))
    t3, c3 = time.perf_counter(), time.process_time()
    gc.callbacks.remove(collections)
    print(
        json.dumps(
            {
                "import_s": t1 - t0,
                "load_s": t2 - t1,
                "run_s": t3 - t2,
                "load_cpu_s": c2 - c1,
                "run_cpu_s": c3 - c2,
                "gc_s": collections.seconds,
                "gc_collections": collections.count,
                "cases": len(cases),
                "outcomes": dict(outcomes),
                "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            }
        )
    )
    return 0


def repeat(n: int) -> int:
    """`main` in `n` fresh interpreters: each part's best and median, and the target."""
    from .run import ROOT, TARGET_LOAD_AND_RUN_S, child_env

    rounds: list[dict[str, Any]] = []
    for _ in range(n):
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks.cold"],
            cwd=ROOT,
            env=child_env(keep=False),
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(out.stdout)
        figures["load_run_s"] = figures["load_s"] + figures["run_s"]
        figures["load_run_cpu_s"] = figures["load_cpu_s"] + figures["run_cpu_s"]
        rounds.append(figures)
    print(f"{rounds[0]['cases']} cases, {n} fresh interpreter(s), load average {os.getloadavg()}")
    print(f"{'part':<24} {'best':>8} {'median':>8}   (seconds)")
    for key, label in (
        ("import_s", "import palconf"),
        ("load_s", "load the cases"),
        ("run_s", "run them (oracle)"),
        ("load_run_s", "load + run"),
        ("load_cpu_s", "load, CPU time"),
        ("run_cpu_s", "run, CPU time"),
        ("load_run_cpu_s", "load + run, CPU time"),
        ("gc_s", "of it, garbage collector"),
    ):
        values = [r[key] for r in rounds]
        print(f"{label:<24} {min(values):8.3f} {statistics.median(values):8.3f}")
    best = min(r["load_run_s"] for r in rounds)
    median = statistics.median(r["load_run_s"] for r in rounds)
    met = "met" if best < TARGET_LOAD_AND_RUN_S else "NOT MET"
    print(
        f"[{met}] load + run under {TARGET_LOAD_AND_RUN_S} s: best {best:.3f} s, "
        f"median {median:.3f} s"
    )
    if any(r["outcomes"] != {"pass": r["cases"]} for r in rounds):
        print(f"warning: outcomes {[r['outcomes'] for r in rounds]}")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cold", description=__doc__)
    parser.add_argument("--repeat", type=int, metavar="N", help="N fresh interpreters")
    args = parser.parse_args()
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sys.exit(main() if args.repeat is None else repeat(args.repeat))
