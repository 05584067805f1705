"""`palconf rules status`: where a rules version stands — each case's standing under it, the
changes still to review, keywords without clauses, and the cases whose verdict changed
between the version before's oracle and its own, whether or not they cite a changed
clause."""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from typing import Any

from palconf.authoring.review import BehaviourChange, behaviour_changes, version_keywords
from palconf.cases.standing import STATES, Standing, standing
from palconf.commands import add_case_options, chosen_rules, registry_or_exit, select_cases
from palconf.registry import Registry

__all__ = ["add_parser", "cmd_status", "pending"]


def add_parser(rsub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    s = rsub.add_parser(
        "status",
        help="where a rules version stands: cases, changes to review, changed verdicts",
        description="For rules VERSION (default: current): each case's standing (valid, "
        "or why it does not hold: orphaned, stale, unreviewed, unblessed; out-of-range "
        "cases belong to other versions), the clause changes still pending review, "
        "keywords of its text that have no clause, and every case whose verdict on "
        "VERSION's oracle differs from its verdict on the version before's — also the "
        "cases that cite no changed clause (a Brave card on a protocol case's board): "
        "those are not run for VERSION until re-read and blessed. Exit 0 (with --strict: "
        "1 when a case of the suite does not hold, a change is pending, a keyword has no "
        'clause or a verdict changed unnoticed); 2 for broken case files. --json: {"rules_'
        'version", "previous", "counts" (state → cases), "pending" (clause ids), '
        '"keywords_untested", "keywords_removed", "cases": [{"id", "path", "status" (the '
        'state), "reason", "blessed_against", "reviewed", "stale", "orphaned", '
        '"unblessed", "unreviewed" ([clause, version, change])}], "behaviour_changed": '
        '[{"id", "path", "status", "cites_changed", "unnoticed", "before", "after" '
        '({"outcome", "message"})}], "seconds"}.',
    )
    add_case_options(s)
    s.add_argument("--rules", metavar="VERSION", help="the version (default: current)")
    s.add_argument("--strict", action="store_true", help="exit 1 when anything is to do")
    s.add_argument(
        "--no-oracles",
        action="store_true",
        help="leave out the run of the suite on both oracles (the changed verdicts)",
    )
    s.add_argument("--json", action="store_true", help="one JSON document (shape above)")
    s.set_defaults(func=cmd_status)


def pending(registry: Registry, version: str) -> list[str]:
    """The clauses whose change (or merge) in `version` nobody has reviewed yet."""
    return [
        c.id
        for c in registry.clauses.values()
        if c.changed_in(version) == "pending" or c.merge_change.get(version) == "pending"
    ]


def cmd_status(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    cases = select_cases(args, registry)
    every = [standing(c, registry, version) for c in cases]
    suite = [s for s in every if s.in_suite]
    problems = [s for s in suite if s.state != "valid"]
    todo = pending(registry, version)
    untested, removed = version_keywords(registry, version)
    start = time.perf_counter()
    previous, changed = (
        (None, []) if args.no_oracles else behaviour_changes(cases, registry, version)
    )
    seconds = time.perf_counter() - start
    unnoticed = [b for b in changed if b.unnoticed]
    failed = bool(args.strict and (problems or todo or untested or unnoticed))
    if args.json:
        print(
            json.dumps(
                _document(version, previous, every, todo, untested, removed, changed, seconds),
                indent=2,
                sort_keys=True,
            )
        )
        return 1 if failed else 0
    for s in problems:
        print(f"{s.path}: {s.state}: {s.reason()}")
    if todo:
        print(
            f"pending review in rules {version}: {', '.join(todo)} (`palconf rules review "
            f"CLAUSE… --editorial|--substantive --rules {version}`)"
        )
    for k in untested:
        print(f"keyword {k!r} of rules {version} has no clause ids: untested")
    for k in removed:
        print(f"keyword {k!r} is not in rules {version}: its cases need an `until`")
    if changed:
        print(
            f"\n{len(changed)} case(s) whose verdict on the oracle of rules {version} is not "
            f"the one on the oracle of rules {previous}:"
        )
        for b in changed:
            print("  " + _change_line(b, version))
    counts = Counter(s.state for s in suite)
    said = ", ".join(f"{counts[state]} {state}" for state in reversed(STATES) if counts[state])
    line = f"rules {version}: {len(suite)} case(s) in its suite: {said or 'none'}"
    if todo:
        line += f"; {len(todo)} change(s) pending review"
    if not args.no_oracles and previous is not None:
        line += (
            f"; {len(changed)} verdict(s) changed from {previous}'s oracle, {len(unnoticed)} "
            f"in valid cases (not run for {version} until re-read and blessed)"
        )
    print(line)
    return 1 if failed else 0


def _change_line(b: BehaviourChange, version: str) -> str:
    if b.unnoticed:
        why = f"valid for {version} by an earlier review, cites no changed clause: not run"
    elif b.cites_changed:
        why = f"{b.standing.state}: cites a changed clause"
    else:
        why = b.standing.state
    return f"{b.case.id}: {b.before.outcome} → {b.after} ({why})"


def _document(
    version: str,
    previous: str | None,
    every: list[Standing],
    todo: list[str],
    untested: list[str],
    removed: list[str],
    changed: list[BehaviourChange],
    seconds: float,
) -> dict[str, Any]:
    counts = Counter(s.state for s in every)
    return {
        "rules_version": version,
        "previous": previous,
        "counts": {state: counts[state] for state in STATES},
        "pending": todo,
        "keywords_untested": untested,
        "keywords_removed": removed,
        "cases": [
            {
                "id": s.case,
                "path": s.path,
                "status": s.state,
                "reason": s.reason(),
                "blessed_against": s.blessed,
                "reviewed": list(s.reviewed),
                "stale": list(s.stale),
                "orphaned": list(s.orphaned),
                "unblessed": list(s.unblessed),
                "unreviewed": [list(u) for u in s.unreviewed],
            }
            for s in sorted(every, key=lambda s: s.case)
        ],
        "behaviour_changed": [b.to_json() for b in changed],
        "seconds": round(seconds, 3),
    }
