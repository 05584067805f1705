"""`palconf rules review` (sign off a clause's change, once for every case that cites it) and
`palconf rules bless` (record a case as reviewed for a version, after it passes on that
version's oracle)."""

from __future__ import annotations

import argparse
import fnmatch
import sys
from pathlib import Path

from palconf import paths
from palconf.authoring.review import (
    REVIEWED,
    Verdict,
    bless_refusal,
    clauses_file,
    mark_change,
    verdicts,
)
from palconf.authoring.rulesdiff import bless_text
from palconf.cases.loader import Case
from palconf.cases.standing import standing
from palconf.commands import cases_help, chosen_rules, registry_or_exit, select_cases
from palconf.core import json_read
from palconf.core.errors import UsageError
from palconf.core.safe_write import write_text_atomic
from palconf.registry import Registry, clause_hash
from palconf.registry import load as load_registry

__all__ = ["add_parsers", "cmd_bless", "cmd_review"]


def add_parsers(rsub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = rsub.add_parser(
        "review",
        help="sign off a clause's change in a version: editorial or substantive",
        description="Record, in rules/VERSION/clauses.toml, what the change of each named "
        "clause in rules VERSION is: --editorial (the meaning is unchanged: every case citing "
        "the clause holds on for VERSION, with no edit to the case) or --substantive (the "
        "rule changed: each case citing it must be read again, then blessed for VERSION or "
        "given an `until`). A clause merged into another ([removed], merged_into) is "
        "reviewed the same way. One review settles the clause for every case citing it. "
        "CLAUSE may be a glob (`brave.*`). Exit 0; 2 when a clause is unknown or did not "
        "change in VERSION (nothing is written then).",
    )
    r.add_argument("clause", nargs="+", help="clause ids or globs (brave.1, 'brave.*')")
    kind = r.add_mutually_exclusive_group(required=True)
    kind.add_argument("--editorial", action="store_true", help="the meaning is unchanged")
    kind.add_argument("--substantive", action="store_true", help="the rule changed")
    r.add_argument("--rules", metavar="VERSION", help="the version (default: current)")
    r.add_argument(
        "--summary",
        metavar="TEXT",
        help="the clause's one-line summary from this version on (what `palconf list "
        "clauses --rules VERSION` shows), for a clause whose rule changed",
    )
    r.set_defaults(func=cmd_review)

    b = rsub.add_parser(
        "bless",
        help="record cases as reviewed for a version (each must pass on its oracle)",
        description="Record in each named case file that it was reviewed for rules VERSION "
        "(`rules_version`, keeping the earlier versions it still passes on, in order of "
        "publication) and the hash of each clause it cites (`clause_hashes`). Do it after "
        "reading the case against VERSION's text. Each case is first run on VERSION's "
        "oracle: one that does not pass is refused, as is a case outside its since..until "
        "or citing a clause VERSION does not have (give it `until` and a successor). Exit "
        "0 when every named case was blessed; 1 when any was refused (the others are "
        "blessed); 2 when no case is named or none matches.",
    )
    b.add_argument("case", nargs="*", help="case ids or globs (default: none; see --all)")
    b.add_argument("--all", action="store_true", help="every case of the version's suite")
    b.add_argument("--rules", metavar="VERSION", help="the version (default: current)")
    b.add_argument("--cases", default=None, metavar="DIR", help=cases_help())
    b.set_defaults(func=cmd_bless)


# ---------------------------------------------------------------- review


def cmd_review(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    change = "editorial" if args.editorial else "substantive"
    assert change in REVIEWED
    chosen: dict[str, str] = {}  # clause → its table: clauses, or removed (a merge)
    for pattern in args.clause:
        matched = [cid for cid in registry.clauses if fnmatch.fnmatchcase(cid, pattern)]
        if not matched:
            raise UsageError(f"no clause matches {pattern!r}")
        changed = [cid for cid in matched if _table(registry, cid, version)]
        if not changed:
            raise UsageError(
                f"{', '.join(matched)}: not changed in rules {version} (nothing to review)"
            )
        for cid in changed:
            chosen[cid] = _table(registry, cid, version)
    path = clauses_file(registry, version)
    text = json_read.read_text(path, UsageError, "a clauses file")
    if args.summary is not None and (len(chosen) != 1 or "removed" in chosen.values()):
        raise UsageError("--summary is for one changed clause at a time (not a merge)")
    for cid, table in chosen.items():
        text = mark_change(text, cid, change, table, args.summary)
    cases = select_cases(_all(args), registry)
    before = {c.id: standing(c, registry, version).state for c in cases}
    write_text_atomic(path, text)
    load_registry.cache_clear()
    after_registry = registry_or_exit()
    moved = sum(1 for c in cases if standing(c, after_registry, version).state != before[c.id])
    for cid, table in chosen.items():
        what = (
            "merge into " + registry.clauses[cid].merged_into[version]
            if table == "removed"
            else "change"
        )
        print(f"{cid}: {what} reviewed as {change} in rules {version}")
    print(
        f"reviewed {len(chosen)} clause(s) of rules {version}; {moved} case(s) changed "
        f"standing (see `palconf rules status --rules {version}`)"
    )
    return 0


def _table(registry: Registry, cid: str, version: str) -> str:
    """Where clause `cid`'s change in `version` is recorded: `clauses` (its text changed),
    `removed` (merged into another), or "" (nothing to review)."""
    clause = registry.clauses[cid]
    if clause.changed_in(version):
        return "clauses"
    if version in clause.merged_into:
        return "removed"
    return ""


def _all(args: argparse.Namespace) -> argparse.Namespace:
    cases = getattr(args, "cases", None)
    return argparse.Namespace(cases=Path(cases) if cases else None, keyword=[], case=[], exclude=[])


# ---------------------------------------------------------------- bless


def cmd_bless(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    if not args.case and not args.all:
        raise UsageError("name case ids (or globs), or --all")
    cases = select_cases(_all(args), registry)
    chosen = [
        c
        for c in cases
        if (args.all and standing(c, registry, version).in_suite)
        or any(fnmatch.fnmatchcase(c.id, p) for p in args.case)
    ]
    if not chosen:
        raise UsageError("no case matches " + ", ".join(args.case or ["--all"]))
    root = Path(args.cases) if args.cases else paths.CASES
    on = {version: verdicts(chosen, registry, version)}
    refused: list[tuple[Case, str]] = []
    blessed = 0
    for case in chosen:
        why = bless_refusal(case, registry, version, on[version][case.id])
        if why:
            refused.append((case, why))
            continue
        versions = _versions(case, registry, version, on)
        last = versions[-1]
        hashes = {cid: clause_hash(registry.clauses[cid].text[last]) for cid in case.clauses}
        path = root / case.path
        write_text_atomic(
            path,
            bless_text(json_read.read_text(path, UsageError, "a clauses file"), versions, hashes),
        )
        blessed += 1
    for case, why in refused:
        print(f"{case.path}: not blessed for rules {version}: {why}", file=sys.stderr)
    print(f"blessed {blessed} case(s) for rules {version}")
    if refused:
        print(f"refused {len(refused)} case(s) (listed above, on stderr)")
        return 1
    return 0


def _versions(
    case: Case, registry: Registry, version: str, on: dict[str, dict[str, Verdict]]
) -> list[str]:
    """The versions `case` stands reviewed for once blessed for `version`: `version`, and
    each other version it was reviewed for that has every clause it cites and on whose
    oracle it still passes; in order of publication."""
    keep = {version}
    for other in case.reviewed:
        if other == version or other not in registry.versions:
            continue
        if not all(other in registry.clauses[cid].text for cid in case.clauses):
            continue
        if other not in on:
            on[other] = {}
        if case.id not in on[other]:
            on[other].update(verdicts([case], registry, other))
        if on[other][case.id].outcome == "pass":
            keep.add(other)
    return [v for v in registry.versions if v in keep]
