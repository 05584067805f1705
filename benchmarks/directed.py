"""Directed fuzzing against the project's own mutants of `P-state` and `P-reasons`: for
each, the game at which `palconf fuzz` first saw a difference (the issue's bar: within 300),
and the first game of the directed sweep that shows it on a card of each kind.

    python -m benchmarks.directed [--examples N] [--seed S]

Each mutant runs in-process (`OracleEngine` with the mutant's rules), without shrinking.
The first ~120 games are the directed sweep (generators/directed.py), the rest Hypothesis's.
The columns `pal`, `event`, `structure` give, from the sweep alone, the first game in which
the mutant answers a step aimed at a card of that kind otherwise than the oracle
(`generators.directed.found_per_kind`: a STATE edge sent in that kind's cells, an action
whose acting card is of that kind); `-` where it never does: a misreading not about cards
(`turn`, `life`), or one that shows only on some kinds (`state-integer-rules-only-on-pals`
shows on events and structures, not on Pals). Prints one line per mutant, the sweep's size
and time, and a last line `found: K of N within E games`; exit 1 when one was not found.
tests/test_directed.py holds the same bar.
"""

from __future__ import annotations

import argparse
import sys
import time

from palconf.engines.oracle_engine import OracleEngine
from palconf.generators.differential import fuzz
from palconf.generators.directed import KINDS, directed_games, found_per_kind
from palconf.mutants import load_all
from palconf.oracle import Rules
from palconf.oracle.keywords import KEYWORD_IDS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.directed")
    parser.add_argument("--examples", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    mutants = sorted(
        (m for m in load_all().values() if m.clause in ("P-state", "P-reasons")),
        key=lambda m: (m.clause, m.name),
    )
    started = time.perf_counter()
    sweep = list(directed_games(Rules, KEYWORD_IDS))
    steps = sum(len(g.steps) for g in sweep)
    print(
        f"the directed sweep: {len(sweep)} games, {steps} steps, "
        f"{time.perf_counter() - started:.1f} s on the oracle"
    )
    found = 0
    kinds = "".join(f"{k:>10}" for k in KINDS)
    print(f"{'mutant':<48} {'rule':<10} {'found at game':>13}{kinds}  kind")
    for m in mutants:
        engine = OracleEngine(m.rules, name=m.name)
        engine.start()
        report = fuzz(engine, examples=args.examples, seed=args.seed, shrink=False)
        d = report.difference
        at = str(report.first_found_at) if d is not None else "-"
        found += d is not None
        per = found_per_kind(m.rules, sweep)
        by_kind = "".join(f"{per.get(k, '-'):>10}" for k in KINDS)
        print(
            f"{m.name:<48} {m.clause:<10} {at:>13}{by_kind}  {d.kind if d else 'NOT FOUND'}",
            flush=True,
        )
    seconds = time.perf_counter() - started
    print(f"found: {found} of {len(mutants)} within {args.examples} games ({seconds:.0f} s)")
    return 0 if found == len(mutants) else 1


if __name__ == "__main__":
    sys.exit(main())
