"""Directed fuzzing against the project's own mutants of `P-state` and `P-reasons`: for
each, the game at which `palconf fuzz` first saw a difference (the issue's bar: within 300).

    python -m benchmarks.directed [--examples N] [--seed S]

Each mutant runs in-process (`OracleEngine` with the mutant's rules), without shrinking.
Games 1 to ~150 are the directed sweep (generators/directed.py), the rest Hypothesis's.
Prints one line per mutant and a last line `found: K of N within E games`; exit 1 when one
was not found. tests/test_directed.py holds the same bar.
"""

from __future__ import annotations

import argparse
import sys
import time

from palconf.engines.oracle_engine import OracleEngine
from palconf.generators.differential import fuzz
from palconf.mutants import load_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.directed")
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    mutants = sorted(
        (m for m in load_all().values() if m.clause in ("P-state", "P-reasons")),
        key=lambda m: (m.clause, m.name),
    )
    found = 0
    started = time.perf_counter()
    print(f"{'mutant':<48} {'rule':<10} {'found at game':>13}  kind")
    for m in mutants:
        engine = OracleEngine(m.rules, name=m.name)
        engine.start()
        report = fuzz(engine, examples=args.examples, seed=args.seed, shrink=False)
        d = report.difference
        at = str(report.first_found_at) if d is not None else "-"
        found += d is not None
        print(f"{m.name:<48} {m.clause:<10} {at:>13}  {d.kind if d else 'NOT FOUND'}", flush=True)
    seconds = time.perf_counter() - started
    print(f"found: {found} of {len(mutants)} within {args.examples} games ({seconds:.0f} s)")
    return 0 if found == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
