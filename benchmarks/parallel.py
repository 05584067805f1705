"""`palconf run -j N` on a slow engine: the speed-up of 1, 2 and 4 workers.

    python -m benchmarks.parallel [--delay-ms 4] [--cases 300] [--jobs 1,2,4]

Every worker drives its own benchmarks/slow_engine.py (the oracle served with a fixed
sleep before each reply), through `ProcessEngine`, as `palconf run --engine-cmd ... -j N`
does (`palconf.running.parallel.Workers`; `-j 1` is the one-engine loop, `run_cases`).
The sample is `--cases` cases spread over the suite. Engines are started before the clock
starts. Prints the wall time per `-j`, the requests per second, the speed-up over `-j 1`
(target: ≥ 3× for `-j 4` at 4 ms a request, on a 2-core machine too: the engine waits
rather than computes) and whether every `-j` gave the same verdicts. Asserts nothing.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence

from palconf.cases.loader import Case, load_cases
from palconf.core import Engine, Result
from palconf.engines.process import ProcessEngine
from palconf.running.parallel import Workers
from palconf.running.supervisor import run_cases

TARGET = 3.0  # -j 4 over -j 1 at 4 ms a request


def engine_command(delay_ms: float) -> str:
    return shlex.join([sys.executable, "-m", "benchmarks.slow_engine", str(delay_ms)])


def timed(cases: Sequence[Case], jobs: int, command: str) -> tuple[float, list[Result]]:
    if jobs == 1:
        engine: Engine = ProcessEngine(command, timeout=30)
        engine.start()
        try:
            start = time.perf_counter()
            results = list(run_cases(engine, cases))
            return time.perf_counter() - start, results
        finally:
            engine.close()
    workers = Workers(lambda: ProcessEngine(command, timeout=30), jobs)
    workers.start()
    start = time.perf_counter()
    results = list(workers.results(cases))
    return time.perf_counter() - start, results


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.parallel", description=__doc__)
    p.add_argument("--delay-ms", type=float, default=4.0)
    p.add_argument("--cases", type=int, default=300, help="cases in the sample (0: all)")
    p.add_argument("--jobs", default="1,2,4", help="the -j values, comma-separated")
    args = p.parse_args(argv)
    every = load_cases()
    step = max(1, len(every) // args.cases) if args.cases else 1
    cases = every[::step][: args.cases or None]
    command = engine_command(args.delay_ms)
    jobs = [int(j) for j in args.jobs.split(",")]
    print(
        f"palconf run -j N: {len(cases)} case(s) of {len(every)}, an engine that waits "
        f"{args.delay_ms:g} ms before each reply"
    )
    print(f"  {'-j':>3}  {'seconds':>8}  {'cases/s':>8}  {'speed-up':>8}")
    first: tuple[float, list[Result]] | None = None
    same = True
    for n in jobs:
        seconds, results = timed(cases, n, command)
        if first is None:
            first = (seconds, results)
        verdicts = [(r.id, r.outcome, r.message) for r in results]
        same = same and verdicts == [(r.id, r.outcome, r.message) for r in first[1]]
        print(
            f"  {n:>3}  {seconds:>8.2f}  {len(cases) / seconds:>8.1f}  {first[0] / seconds:>7.2f}×"
        )
        if n == 4 and args.delay_ms == 4.0:
            ok = first[0] / seconds >= TARGET
            print(f"       target ≥ {TARGET:g}× for -j 4 at 4 ms: {'met' if ok else 'NOT met'}")
    print(f"  the same verdicts, case by case, for every -j: {'yes' if same else 'NO'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
