"""`palconf coverage`: which cases cite each testable clause."""

from __future__ import annotations

import argparse
import json

from . import add_case_options, registry_or_exit, select_cases

MIN_CASES = 2


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("coverage", help="the cases citing each testable clause",
                       description="For every testable clause, the cases that cite it. Exit 1 "
                                   f"if a testable clause has fewer than --min cases.")
    add_case_options(p)
    p.add_argument("--json", action="store_true", help='print {"clauses": {id: [case ids]}}')
    p.add_argument("--min", type=int, default=MIN_CASES, metavar="N",
                   help=f"cases each testable clause needs (default {MIN_CASES})")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    cases = select_cases(args, registry)
    if cases is None:
        return 2
    clauses = {c.id: [] for c in registry.testable}  # type: dict[str, list[str]]
    for case in cases:
        for cid in case.clauses:
            clauses.setdefault(cid, []).append(case.id)
    thin = [cid for cid, ids in clauses.items() if len(ids) < args.min]
    if args.json:
        print(json.dumps({"clauses": clauses}, indent=2))
    else:
        width = max(map(len, clauses), default=10)
        for cid, ids in clauses.items():
            mark = "  <-- too few" if cid in thin else ""
            print(f"{cid:<{width}} {len(ids):>4}{mark}")
        print(f"\n{len(clauses)} testable clauses, {len(cases)} cases; "
              f"{len(thin)} clause(s) with fewer than {args.min} case(s)")
    return 1 if thin else 0
