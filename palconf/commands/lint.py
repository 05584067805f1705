"""`palconf lint`: the suite's own checks (palconf.authoring.lint)."""

from __future__ import annotations

import argparse
import json

from palconf import paths
from palconf.authoring.lint import lint_cases
from palconf.cases.errors import CaseError
from palconf.cases.standing import standing
from palconf.commands import (
    BrokenCaseFiles,
    add_case_options,
    add_rules_option,
    add_strict_option,
    chosen_rules,
    registry_or_exit,
    select_cases,
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "lint",
        help="check the case files themselves",
        description="Schema-valid, unique ids, known clauses, right folder, legal "
        "setup, passing on the oracle, no duplicate boards, unique "
        "descriptive titles. Exit 1 on any problem, 2 if files do "
        "not load. --json prints one document instead of lines: "
        '{"rules_version": V, "cases": N, "problems": [{"file", "line" (a number or '
        'null), "message"}], "stale": [{"case", "path", "status", "reason", "stale", '
        '"orphaned", "unblessed", "unreviewed"}]} (the cases of V\'s suite that do not hold '
        "for it; clause ids), keys and lists sorted; the exit status is the same. Case "
        'files that do not load: {"rules_version": V, "load_errors": [{"file", "line", '
        '"column", "field" (each a number, a string or null), "message"}]}, exit 2. With '
        "--rules V, the cases are judged as cases of V, on V's oracle (default: current).",
    )
    add_case_options(p)
    add_strict_option(p)
    add_rules_option(p)
    p.add_argument(
        "--json", action="store_true", help="the problems as one JSON document (shape above)"
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    try:
        cases = select_cases(args, registry)
    except BrokenCaseFiles as e:
        if not args.json:
            raise
        broken = {"rules_version": version, "load_errors": _load_errors(e.errors)}
        print(json.dumps(broken, indent=2, sort_keys=True))
        return int(e.exit_code)
    problems = lint_cases(cases, registry, args.cases or paths.CASES, version)
    every = (standing(c, registry, version) for c in cases)
    stale = [s for s in every if s.in_suite and s.state != "valid"]
    failed = bool(problems or (args.strict and stale))
    if args.json:
        document = {
            "rules_version": version,
            "cases": len(cases),
            "problems": sorted(
                ({"file": p.file, "line": p.line, "message": p.message} for p in problems),
                key=lambda p: (p["file"], p["line"] or 0, p["message"]),
            ),
            "stale": [
                {
                    "case": s.case,
                    "path": s.path,
                    "status": s.state,
                    "reason": s.reason(),
                    "stale": list(s.stale),
                    "orphaned": list(s.orphaned),
                    "unblessed": list(s.unblessed),
                    "unreviewed": [list(u) for u in s.unreviewed],
                }
                for s in sorted(stale, key=lambda s: s.case)
            ],
        }
        print(json.dumps(document, indent=2, sort_keys=True))
        return 1 if failed else 0
    for p in problems:
        print(p)
    for s in stale:
        print(f"{'' if args.strict else 'warning: '}{s.path}: {s.state}: {s.reason()}")
    print(
        f"palconf lint: {len(cases)} case(s), {len(problems)} problem(s), {len(stale)} that "
        f"do not hold for rules {version} as they stand"
    )
    return 1 if failed else 0


def _load_errors(errors: list[CaseError]) -> list[dict[str, object]]:
    """Each error's parts, in file and line order (printed as ASCII JSON: no raw control or
    bidi character reaches the terminal)."""
    return [
        {"file": e.file, "line": e.line, "column": e.column, "field": e.field, "message": e.message}
        for e in sorted(errors, key=lambda e: (e.file, e.line or 0, e.message))
    ]
