"""`palconf coverage`: the cases citing each testable clause, and the interaction matrix."""

from __future__ import annotations

import argparse
import json
from typing import Any

import tomli

from palconf import paths
from palconf.authoring.lint import interaction_pairs, pair_cases, pair_key
from palconf.cases.loader import Case
from palconf.commands import (
    add_case_options,
    add_rules_option,
    chosen_rules,
    registry_or_exit,
    select_cases,
    split_by_standing,
)
from palconf.core import json_read
from palconf.core.errors import UsageError
from palconf.engines.options import Number, numbers_help
from palconf.registry import Registry

MIN_CASES = 6
CASES_NEEDED = Number(0, 1000)
MATRIX = "interactions.toml"


def load_matrix(args: argparse.Namespace) -> dict[str, str]:
    """Pairs judged unable to interact, with the reason (`cases/interactions.toml`)."""
    path = (args.cases or paths.CASES) / MATRIX
    if not path.exists():
        return {}
    text = json_read.read_text(path, UsageError, "the interactions matrix")
    return dict(tomli.loads(text).get("none", {}))


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "coverage",
        help="cases per clause, and the interaction matrix",
        description="For every testable clause, the cases that cite it; for "
        "every interpretation, the cases that depend on it; for every "
        "keyword pair, the cases that exercise it or why the two "
        "cannot interact; for every protocol rule (P-state, "
        "P-reasons, P-observed, P-legal), the cases that cite it. "
        "Exit 1 if a testable clause has fewer than --min cases, a "
        "protocol rule fewer than its registry minimum, an "
        "interpretation has none, an interacting pair has none, or a keyword of the "
        "version's rules text has no clause in the registry. With --rules V: V's clauses "
        "and keywords only, and only the cases that hold for V (`palconf rules status`).",
    )
    add_case_options(p)
    add_rules_option(p)
    p.add_argument(
        "--json", action="store_true", help='print {"clauses": {id: [case ids]}, "pairs": {...}}'
    )
    p.add_argument(
        "--min",
        type=CASES_NEEDED,
        default=MIN_CASES,
        metavar="N",
        help=numbers_help(f"cases each testable clause needs (default {MIN_CASES})", CASES_NEEDED),
    )
    p.add_argument("--no-pairs", action="store_true", help="leave the interaction matrix out")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    selected = select_cases(args, registry)
    cases, unfit, _others = split_by_standing(selected, registry, version)
    clauses: dict[str, list[str]] = {c.id: [] for c in registry.clauses_in(version) if c.testable}
    for case in cases:
        for cid in dict.fromkeys(as_clause_of(registry, c, version) for c in case.clauses):
            if cid in clauses:
                clauses[cid].append(case.id)
    not_counted = {case.id: why for case, why in unfit}
    uncounted: dict[str, int] = {}  # clause → citing cases of the version not counted
    for case, _why in unfit:
        for cid in dict.fromkeys(as_clause_of(registry, c, version) for c in case.clauses):
            if cid in clauses:
                uncounted[cid] = uncounted.get(cid, 0) + 1
    clauseless = keywords_without_clauses(registry, version)
    thin = [cid for cid, ids in clauses.items() if len(ids) < args.min]
    rulings: dict[str, list[str]] = {
        i: [] for i in registry.interpretations if i not in registry.retired
    }
    untestable = registry.caseless  # no case can test these (each says why)
    for case in cases:
        for iid in case.interpretations:
            rulings.setdefault(iid, []).append(case.id)
    untested = [iid for iid, ids in rulings.items() if not ids and iid not in untestable]
    protocol: dict[str, list[str]] = {pid: [] for pid in registry.protocol}
    for case in cases:
        for rid in case.rules:
            if rid in protocol:
                protocol[rid].append(case.id)
    thin_protocol = [pid for pid, ids in protocol.items() if len(ids) < registry.protocol_min[pid]]
    matrix = load_matrix(args)
    exercised = pair_cases(cases, registry)
    every_pair = {pair_key(a, b) for a, b in interaction_pairs(registry)}
    unknown = sorted(set(matrix) - every_pair)
    pairs: dict[str, Any] = {}
    missing: list[str] = []
    for a, b in [] if args.no_pairs else version_pairs(registry, version):
        key = pair_key(a, b)
        ids = exercised.get(key, [])
        pairs[key] = {"cases": ids, "none": matrix.get(key)}
        if not ids and key not in matrix:
            missing.append(key)
    if args.json:
        print(
            json.dumps(
                {
                    "rules_version": version,
                    "clauses": clauses,
                    "not_counted": not_counted,
                    "keywords_without_clauses": clauseless,
                    "protocol": protocol,
                    "interpretations": rulings,
                    "pairs": pairs,
                },
                indent=2,
            )
        )
    else:
        width = max(map(len, clauses), default=10)
        for cid, ids in clauses.items():
            mark = "  <-- too few" if cid in thin else ""
            if uncounted.get(cid):
                mark += f"  ({uncounted[cid]} citing case(s) not counted)"
            print(f"{cid:<{width}} {len(ids):>4}{mark}")
        print(
            f"\n{len(clauses)} testable clauses of rules {version}, {len(cases)} cases; "
            f"{len(thin)} clause(s) with fewer than {args.min} case(s)"
        )
        print_not_counted(unfit, registry, version)
        for kid in clauseless:
            print(
                f"  keyword {kid!r} of the rules {version} text has no clause in the "
                f"registry (rules/registry.toml)"
            )
        print("\nprotocol v1 rules (docs/protocol.md) and the cases that cite them")
        for pid, ids in protocol.items():
            need = registry.protocol_min[pid]
            mark = f"  <-- too few (needs {need})" if pid in thin_protocol else ""
            print(f"{pid:<{width}} {len(ids):>4}{mark}")
        print("\ninterpretations (rulings) and the cases that depend on them")
        for iid, ids in rulings.items():
            print(
                f"{iid:<6} {len(ids):>4}  {', '.join(ids[:4])}{' …' if len(ids) > 4 else ''}"
                + (
                    "  (no case can test it)"
                    if iid in untestable
                    else "  <-- no case"
                    if not ids
                    else ""
                )
            )
        if pairs:
            print_matrix(registry, pairs, version)
            print(
                f"{len(pairs)} keyword pairs: {sum(1 for p in pairs.values() if p['cases'])} "
                f"with cases, {sum(1 for p in pairs.values() if not p['cases'] and p['none'])} "
                f"judged unable to interact, {len(missing)} with neither"
            )
            for key in missing:
                print(f"  no case and no reason: {key}")
    for key in unknown:
        print(f"  {MATRIX} names an unknown pair: {key}")
    return 1 if thin or thin_protocol or missing or unknown or untested or clauseless else 0


def keywords_without_clauses(registry: Registry, version: str) -> list[str]:
    """The keywords whose section is in rules `version`'s text but that have no clause of
    that version in the registry: coverage cannot ask for cases of what it does not know."""
    from palconf.authoring.rulesdiff import parse_rules_text

    have = set(registry.keywords_in(version))
    return [k for k in parse_rules_text(registry.rules_text(version)) if k not in have]


def version_pairs(registry: Registry, version: str) -> list[tuple[str, str]]:
    """The keyword pairs of rules `version`: both keywords have a clause in it."""
    kws = set(registry.keywords_in(version))
    return [(a, b) for a, b in interaction_pairs(registry) if a in kws and b in kws]


def print_not_counted(unfit: list[tuple[Case, str]], registry: Registry, version: str) -> None:
    """How many cases of rules `version`'s suite were not counted, by state, and a few."""
    from palconf.cases.standing import standing

    if not unfit:
        return
    states: dict[str, int] = {}
    for case, _why in unfit:
        state = standing(case, registry, version).state
        states[state] = states.get(state, 0) + 1
    said = ", ".join(f"{n} {state}" for state, n in states.items())
    print(
        f"{len(unfit)} case(s) of rules {version} not counted, as they do not hold for it "
        f"as they stand ({said}; see `palconf rules status --rules {version}`)"
    )
    for case, why in unfit[:5]:
        print(f"  {case.id}: {why}")


def print_matrix(registry: Any, pairs: dict[str, Any], version: str | None = None) -> None:
    """Keywords × keywords (of rules `version`): the number of cases, '-' for a pair that
    cannot interact, '!' for a pair with neither."""
    kws = list(registry.keywords_in(version or registry.current))
    abbrev = [k.replace("on-", "o")[:5] for k in kws]
    print("\ninteraction matrix (cases per pair; - cannot interact; ! missing)")
    print(" " * 13 + "".join(f"{a:>6}" for a in abbrev))
    for i, a in enumerate(kws):
        cells = []
        for j, b in enumerate(kws):
            if j < i:
                cells.append(" " * 6)
                continue
            p = pairs[pair_key(a, b)]
            cell = str(len(p["cases"])) if p["cases"] else ("-" if p["none"] else "!")
            cells.append(f"{cell:>6}")
        print(f"{a:<13}" + "".join(cells))


def as_clause_of(registry: Registry, cid: str, version: str) -> str:
    """The clause of rules `version` that clause `cid` stands for: itself, or the clause it
    was merged into (a merge followed up to `version`)."""
    names = list(registry.versions)
    upto = names[: names.index(version) + 1]
    seen = {cid}
    while version not in registry.clauses[cid].text:
        into = next(
            (
                registry.clauses[cid].merged_into[v]
                for v in upto
                if v in registry.clauses[cid].merged_into
            ),
            None,
        )
        if into is None or into in seen or into not in registry.clauses:
            return cid
        seen.add(into)
        cid = into
    return cid
