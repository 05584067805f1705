"""`palconf lint`: the suite's own checks (palconf.lint)."""

from __future__ import annotations

import argparse

from .. import paths
from ..lint import lint_cases
from ..rulesdiff import staleness
from . import add_case_options, add_strict_option, registry_or_exit, select_cases


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "lint",
        help="check the case files themselves",
        description="Schema-valid, unique ids, known clauses, right folder, legal "
        "setup, passing on the oracle, no duplicate boards, unique "
        "descriptive titles. Exit 1 on any problem, 2 if files do "
        "not load.",
    )
    add_case_options(p)
    add_strict_option(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    cases = select_cases(args, registry)
    if cases is None:
        return 2
    problems = lint_cases(cases, registry, args.cases or paths.CASES)
    for p in problems:
        print(p)
    stale = [s for s in (staleness(c, registry) for c in cases) if s.problem]
    for s in stale:
        print(f"{'' if args.strict else 'warning: '}{s}")
    print(
        f"palconf lint: {len(cases)} case(s), {len(problems)} problem(s), {len(stale)} stale "
        f"or not blessed against rules {registry.current}"
    )
    return 1 if problems or (args.strict and stale) else 0
