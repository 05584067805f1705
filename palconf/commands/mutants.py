"""`palconf mutants`: run the case suite against every mutant engine and show what it kills.

A mutant is the oracle with one deliberate misreading of the rules (`palconf.mutants`). The
suite is strong where every mutant is killed (some case fails against it) by more than one
case. Exit 0 when every mutant is killed, 1 when one survives (or its engine could not run),
2 for bad arguments or broken case files.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import shlex
import sys
from collections.abc import Callable

from palconf import mutants as mutant_registry
from palconf.commands import (
    add_case_options,
    add_rules_option,
    chosen_rules,
    registry_or_exit,
    select_cases,
    split_by_standing,
    warn_unfit,
)
from palconf.core import Engine
from palconf.core.errors import UsageError
from palconf.engines.options import (
    PLACEHOLDER,
    add_engine_options,
    make_engine,
    numbers_help,
    process_count,
)
from palconf.engines.process import EngineCommandError, split_command
from palconf.mutants import Mutant
from palconf.mutants.sweep import (
    Sweep,
    cover,
    in_process,
    keyword_scores,
    minimal_killing_set,
    own_interpreter,
    sweep,
    thin_clauses,
    to_json,
)
from palconf.oracle.rules import Rules
from palconf.registry import Registry

SHOWN_KILLERS = 3


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "mutants",
        help="run the cases against every mutant engine",
        description="Run the case suite against every mutant (the oracle with "
        "one deliberate misreading of the rules) and print, for "
        "each, whether it was killed and by which cases, its "
        "minimal killing set, the thin clauses and the mutation "
        "score per keyword. --keyword and --case restrict the cases "
        "(a mutant only other cases kill then survives). Exit 0 when "
        "every mutant is killed, 1 when one survives, 2 for bad "
        "arguments or case files. With --rules V the mutants are misreadings of V's "
        "oracle and only the cases that hold for V are run (with "
        "--engine-cmd-template, the command must serve V's mutants: "
        '"palconf serve --rules V --mutant {mutant}").',
    )
    add_case_options(p)
    add_rules_option(p)
    p.add_argument(
        "--mutant",
        "-m",
        action="append",
        default=[],
        metavar="NAME",
        help="only the mutant NAME (glob patterns allowed); repeatable",
    )
    add_engine_options(
        p,
        required=False,
        template=True,
        command_help=f"run each mutant as a child process: CMD with {PLACEHOLDER} replaced "
        f'by the mutant\'s name, e.g. "palconf serve --mutant {PLACEHOLDER}" '
        f"(default: in-process, much faster). A CMD whose program is `palconf` runs this "
        f"palconf's own interpreter (python -m palconf.cli ...), so it works without the "
        f"virtual environment activated; any other program is run as written",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=process_count,
        default=1,
        metavar="N|auto",
        help=numbers_help(
            "run N mutants at once, one per worker: forked processes in-process, palconf "
            "run -j's workers with --engine-cmd-template (default 1)",
            process_count,
        ),
    )
    p.add_argument(
        "--prune",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run a mutant only on the cases where palconf's own mutant was seen to "
        "do otherwise than the oracle (same verdicts, much faster). Default: on "
        "in-process, off with --engine-cmd-template (the command may serve "
        "other mutants than palconf's; --prune is sound for \"palconf serve "
        '--mutant {mutant}")',
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="print the whole sweep as JSON; with --list, the mutants: "
        '{"mutants": [{"name", "clause", "keyword", "how", "misreading"}]} (by name)',
    )
    p.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="list every killing case, and the cases of the cover",
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the mutants (name, clause, misreading, how it is built) and exit",
    )
    p.set_defaults(func=main)


def select_mutants(patterns: list[str]) -> list[Mutant] | None:
    every = list(mutant_registry.load_all().values())
    if not patterns:
        return every
    chosen = [m for m in every if any(fnmatch.fnmatchcase(m.name, p) for p in patterns)]
    unmatched = [p for p in patterns if not any(fnmatch.fnmatchcase(m.name, p) for m in every)]
    if unmatched:
        print(
            f"palconf: no mutant matches {', '.join(map(repr, unmatched))} "
            f"(`palconf mutants --list` lists them)",
            file=sys.stderr,
        )
        return None
    return chosen


def engine_factory(args: argparse.Namespace) -> Callable[[Mutant], Engine] | None:
    template = args.engine_cmd_template
    if template is None:
        return in_process
    if PLACEHOLDER not in template:
        print(
            f"palconf: --engine-cmd-template needs {PLACEHOLDER} where the mutant's name "
            f'goes, e.g. "palconf serve --mutant {PLACEHOLDER}"',
            file=sys.stderr,
        )
        return None
    try:
        command = own_interpreter(split_command(template))
    except EngineCommandError as e:
        print(f"palconf: {e}", file=sys.stderr)
        return None
    options = argparse.Namespace(**{**vars(args), "engine_cmd_template": shlex.join(command)})

    def make(m: Mutant) -> Engine:
        return make_engine(options, mutant=m.name)

    return make


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    oracle = registry.oracle(version)
    chosen = select_mutants(args.mutant)
    if chosen is None:
        return 2
    chosen = of_version(chosen, oracle, version)
    if args.list and args.json:
        rows = [
            {
                "name": m.name,
                "clause": m.clause,
                "keyword": m.keyword,
                "how": m.how,
                "misreading": m.misreading,
            }
            for m in sorted(chosen, key=lambda m: m.name)
        ]
        print(json.dumps({"mutants": rows}, indent=2, sort_keys=True))
        return 0
    if args.list:
        for m in chosen:
            print(f"{m.name}  [{m.clause}]  {m.how}\n    {m.misreading}")
        print(f"\n{len(chosen)} mutant(s)")
        return 0
    factory = engine_factory(args)
    if factory is None:
        return 2
    cases, unfit, _others = split_by_standing(select_cases(args, registry), registry, version)
    warn_unfit(unfit, version)
    if not cases:
        raise UsageError(f"none of the cases selected is run for rules {version}")
    prune = args.prune if args.prune is not None else args.engine_cmd_template is None
    s = sweep(
        chosen,
        cases,
        engine_for=factory,
        jobs=args.jobs,
        exhaustive=not prune,
        engine=args.engine_cmd_template or "in-process",
        oracle=oracle,
    )
    if args.json:
        print(json.dumps(to_json(s, registry), indent=2))
    else:
        print(render(s, registry, verbose=args.verbose))
    return 1 if s.survivors else 0


def of_version(chosen: list[Mutant], oracle: type[Rules], version: str) -> list[Mutant]:
    """The mutants as misreadings of `oracle`, rules `version`'s (`mutants.for_rules`); a
    keyword mutant of a keyword the version does not have is left out, with a warning."""
    kept = []
    for m in chosen:
        try:
            kept.append(mutant_registry.for_rules(m, oracle))
        except ValueError as e:
            print(f"warning: not a mutant of rules {version}: {e}", file=sys.stderr)
    return kept


def render(s: Sweep, registry: Registry, verbose: bool = False) -> str:
    """The text report: the table of mutants, thin clauses, score per keyword, survivors."""
    by_id = {c.id: c for c in s.cases}
    lines = [
        f"palconf mutants: {len(s.outcomes)} mutant(s) × {len(s.cases)} case(s), "
        f"{len(s.counted)} of them passing against the oracle; engine: {s.engine}; "
        f"{sum(o.ran for o in s.outcomes)} case runs"
        + (
            " (pruned: each mutant only where it does otherwise than the oracle)"
            if s.pruned
            else ""
        )
    ]
    if s.not_counted:
        ids = [r.id for r in s.not_counted]
        lines.append(
            f"  {len(ids)} case(s) do not pass against the oracle and kill nothing: "
            + ", ".join(ids[:10])
            + (" …" if len(ids) > 10 else "")
        )
    wn = max([len(o.mutant.name) for o in s.outcomes] + [6])
    wc = max([len(o.mutant.clause) for o in s.outcomes] + [6])
    head = f"{'mutant':<{wn}}  {'clause':<{wc}}  {'result':<8}  {'kills':>5}  minimal killing set"
    lines += ["", head, "-" * len(head)]
    for o in s.outcomes:
        minimal = minimal_killing_set(o, by_id)
        note = minimal[0] if minimal else (f"engine fault: {o.fault}" if o.fault else "-")
        others = [cid for cid in o.killed_by if cid not in minimal]
        if others and not verbose:
            shown = others[:SHOWN_KILLERS]
            note += f"  (+ {', '.join(shown)}{' …' if len(others) > len(shown) else ''})"
        if o.thin:
            note += "  [thin]"
        lines.append(
            f"{o.mutant.name:<{wn}}  {o.mutant.clause:<{wc}}  "
            f"{o.status.upper() if not o.killed else o.status:<8}  "
            f"{len(o.kills):>5}  {note}"
        )
        if verbose and others:
            lines.append(f"{'':<{wn}}    killed also by: {', '.join(others)}")
    thin = thin_clauses(s.outcomes)
    if thin:
        lines += [
            "",
            "thin clauses (a mutant of theirs is killed by one case only; delete "
            "that case and it survives):",
        ]
        for clause, names in sorted(thin.items()):
            for name in names:
                o = next(x for x in s.outcomes if x.mutant.name == name)
                lines.append(f"  {clause:<{wc}}  {name}: only {o.killed_by[0]}")
    lines += [
        "",
        "mutation score per keyword:",
        f"  {'keyword':<14}{'mutants':>8}{'killed':>8}{'score':>9}",
    ]
    for kid, row in keyword_scores(s.outcomes, registry).items():
        if not row["mutants"]:
            continue
        lines.append(f"  {kid:<14}{row['mutants']:>8}{row['killed']:>8}{100 * row['score']:>8.1f}%")
    killed = sum(o.killed for o in s.outcomes)
    total = len(s.outcomes)
    lines.append(
        f"  {'all':<14}{total:>8}{killed:>8}{(100 * killed / total if total else 0):>8.1f}%"
    )
    chosen = cover(s.outcomes)
    lines += [
        "",
        f"{len(chosen)} case(s) together kill every killed mutant"
        + (f": {', '.join(chosen)}" if verbose else " (-v lists them)"),
    ]
    if s.survivors:
        lines += ["", f"{len(s.survivors)} mutant(s) not killed:"]
        for o in s.survivors:
            lines.append(
                f"  {o.status.upper()} {o.mutant.name} [{o.mutant.clause}]: {o.mutant.misreading}"
            )
            if o.fault:
                lines.append(f"    engine fault: {o.fault}")
    else:
        lines += ["", f"every mutant is killed ({total})"]
    return "\n".join(lines)
