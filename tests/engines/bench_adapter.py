"""Benchmark: what the subprocess adapter costs. Prints figures; asserts nothing.

    python tests/engines/bench_adapter.py [--rounds 3] [--requests 3000]

1. Request round trips against the null engine (tests/engines/null_engine.py), which answers
   at once: a bare `os.write` / `os.read` loop (the floor: pipes and two processes), then
   `ProcessEngine.request` with and without the schema checks. The ratio of adapter to floor
   throughput is the adapter's efficiency.
2. The whole case set through `run_cases`: the oracle in-process, the null engine in a
   process (the harness's own cost: its verdicts are meaningless), and `palconf serve`.

Each figure is the best of `--rounds` (the machine's noise only ever slows a round down).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from palconf.adapter import ProcessEngine
from palconf.cases import load_cases
from palconf.engines import Engine, OracleEngine
from palconf.runner import run_cases

NULL = [sys.executable, str(Path(__file__).with_name("null_engine.py"))]
ACT = {"cmd": "act", "action": {"do": "pass", "player": "A"}}


def best(rounds: int, fn: Callable[[], float]) -> float:
    return min(fn() for _ in range(rounds))


def raw_round_trips(n: int) -> float:
    proc = subprocess.Popen(NULL, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert proc.stdin and proc.stdout
    fin, fout = proc.stdin.fileno(), proc.stdout.fileno()
    line = b'{"cmd":"act","action":{"do":"pass","player":"A"}}\n'
    os.write(fin, b'{"cmd":"hello","protocol":1}\n')
    os.read(fout, 65536)
    start = time.perf_counter()
    for _ in range(n):
        os.write(fin, line)
        buf = os.read(fout, 65536)
        while not buf.endswith(b"\n"):
            buf += os.read(fout, 65536)
    elapsed = time.perf_counter() - start
    proc.kill()
    proc.wait()
    return elapsed / n


def adapter_round_trips(n: int, check: bool) -> float:
    engine = ProcessEngine(NULL, check_replies=check)
    engine.start()
    start = time.perf_counter()
    for _ in range(n):
        engine.request(ACT)
    elapsed = time.perf_counter() - start
    engine.close()
    return elapsed / n


def suite(make: Callable[[], Engine], cases: list) -> float:  # type: ignore[type-arg]
    engine = make()
    engine.start()
    start = time.perf_counter()
    for _ in run_cases(engine, cases):
        pass
    elapsed = time.perf_counter() - start
    engine.close()
    return len(cases) / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=3000)
    args = parser.parse_args()
    n, rounds = args.requests, args.rounds
    floor = best(rounds, lambda: raw_round_trips(n))
    checked = best(rounds, lambda: adapter_round_trips(n, True))
    unchecked = best(rounds, lambda: adapter_round_trips(n, False))
    print(f"round trips against the null engine ({n} requests, best of {rounds}):")
    print(f"  bare os.write/os.read        {floor * 1e6:7.1f} us  {1 / floor:9.0f} req/s")
    print(f"  ProcessEngine, unchecked     {unchecked * 1e6:7.1f} us  {1 / unchecked:9.0f} req/s"
          f"  {floor / unchecked:6.1%} of bare")
    print(f"  ProcessEngine, schema checks {checked * 1e6:7.1f} us  {1 / checked:9.0f} req/s"
          f"  {floor / checked:6.1%} of bare")
    cases = load_cases()
    print(f"\nthe whole case set ({len(cases)} cases) through run_cases, best of {rounds}:")
    figures = {
        "oracle in-process": best(rounds, lambda: suite(OracleEngine, cases)),
        "null engine process": best(rounds, lambda: suite(lambda: ProcessEngine(NULL), cases)),
        "palconf serve process": best(rounds, lambda: suite(
            lambda: ProcessEngine([sys.executable, "-m", "palconf.cli", "serve"]), cases)),
    }
    null = figures["null engine process"]
    for name, rate in figures.items():
        print(f"  {name:<24} {rate:8.0f} cases/s  {rate / null:6.1%} of the null engine's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
