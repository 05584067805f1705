"""`palconf explain CASE`: one case, step by step, with the rules it cites, the board, and at
each step what the case expects beside what the engine (and the oracle) answered."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path
from typing import Any

from palconf import paths
from palconf.cases.loader import Case, CaseLoadError, load_cases
from palconf.commands import (
    add_display_options,
    add_rules_option,
    case_file,
    cases_help,
    chosen_rules,
    registry_or_exit,
)
from palconf.core import EngineFault, Result, terminal_safe
from palconf.core.compare import show
from palconf.core.errors import UsageError
from palconf.core.text import stderr_lines, stderr_tail, terminal_block
from palconf.engines.options import add_engine_options, make_engine
from palconf.engines.oracle_engine import OracleEngine, oracle_of
from palconf.explain.board import render_board
from palconf.explain.side_by_side import StepView, explain_steps
from palconf.explain.transcript import Recorder
from palconf.registry import Registry
from palconf.running.runner import run_case
from palconf.running.terminal import Paint, use_color

LIMIT = 2000


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "explain",
        help="show one case step by step against an engine (default: the oracle)",
        description="Show one case: its title and file, the clauses and rules it cites with "
        "their text, the board, then each step with what the case expects beside the "
        "engine's answer (and the oracle's), the fields that differ, the engine's whole "
        "OBSERVED against the oracle's, and what changed. Every step is played, also after "
        "the first that goes wrong; the verdict at the end is `palconf run`'s. Exit 0 when "
        "the case passes (or is skipped), 1 when not, 2 for an unknown case, a case that "
        "does not hold for the rules version (--rules, else the engine's hello, else the "
        "current one) or an engine that cannot be started.",
    )
    p.add_argument("case", metavar="CASE", help="a case id (a glob matching one), or a case file")
    p.add_argument("--cases", type=Path, default=None, metavar="DIR", help=cases_help())
    p.add_argument(
        "--transcript",
        type=Path,
        metavar="FILE",
        help="write the exact exchange with the engine (JSON lines) for `palconf replay`",
    )
    add_engine_options(p, required=False)
    add_rules_option(p)
    add_display_options(p)
    p.set_defaults(func=main)


def find_case(spec: str, folder: Path | None, registry: Registry) -> Case | str:
    """The case `spec` names, or a message saying why there is none."""
    as_file = Path(spec)
    try:
        if as_file.suffix == ".toml" and as_file.is_file():
            cases = load_cases(as_file.parent, registry, files=[as_file])
            return cases[0]
        cases = load_cases(folder or paths.CASES, registry)
    except CaseLoadError as e:
        return "the case files do not load:\n  " + "\n  ".join(str(x) for x in e.errors[:10])
    found = [c for c in cases if fnmatch.fnmatchcase(c.id, spec)]
    if len(found) == 1:
        return found[0]
    if not found:
        near = [c.id for c in cases if spec.strip("*") in c.id][:5]
        hint = f"; did you mean: {', '.join(near)}" if near else ""
        return f"no case {spec!r}{hint}"
    return f"{spec!r} matches {len(found)} cases ({', '.join(c.id for c in found[:5])} …)"


def _block(text: str, indent: str = "      ") -> str:
    """Rules or engine text for the terminal: control characters escaped, its line breaks
    kept (each further line indented under the first), never shown as `\\x0a`."""
    return terminal_block(text, LIMIT, indent)


def _json(value: Any) -> str:
    return terminal_safe(json.dumps(value, separators=(",", ":"), ensure_ascii=False), LIMIT)


def print_header(
    case: Case, registry: Registry, folder: Path | None, paint: Paint, version: str | None = None
) -> None:
    version = version or registry.current
    print(paint(case.id, "bold"))
    print(f"  {terminal_safe(case.title, LIMIT)}")
    print(f"  file: {terminal_safe(case_file(case.path, folder))}")
    if case.clauses:
        print("\nclauses")
        for cid in case.clauses:
            clause = registry.clauses.get(cid)
            text = clause.text.get(version, registry.summary_in(cid, version)) if clause else ""
            print(f"  {cid}  {_block(text)}")
    if case.rules:
        print("\nrules")
        for rid in case.rules:
            print(f"  {rid}  {_block(registry.rule_text(rid))}")
    if case.interpretations:
        print("\nrulings")
        for iid in case.interpretations:
            text = str(registry.interpretations.get(iid, {}).get("text", ""))
            print(f"  {iid}  {_block(text)}")
    if case.setup is None:
        print("\nno setup: the case starts on a fresh engine, that has had no game")
        return
    print("\nboard (the case's setup)")
    for line in render_board(case.setup):
        print(line)


def print_step(view: StepView, paint: Paint) -> None:
    if view.n == 0:
        label = "setup"
        print(f"\n{paint(label, 'bold')}")
    else:
        assert view.step is not None
        label = f"{view.step.label} {view.n}"
        print(f"\n{paint(label, 'bold')}  {_json(view.step.body)}")
    print(f"  expected  {terminal_safe(view.expected, LIMIT)}")
    ok = view.as_expected
    verdict = paint(_block(view.engine.verdict, " " * 12), "green" if ok else "red")
    print(f"  engine    {verdict}")
    if view.oracle is not None:
        print(f"  oracle    {_block(view.oracle.verdict, ' ' * 12)}")
    if view.engine.fault is not None and view.engine.answered:
        print(f"  {paint('then it broke: ' + _block(view.engine.fault), 'red')}")
    for line in stderr_lines(view.engine.stderr):
        print(line)
    wrong_answer = view.problem is not None
    if view.problem is not None:
        if view.after is None:
            head = "what went wrong" if view.first_wrong else "the answer is not the case's"
            print(f"  {paint(head + ': ' + _block(view.problem), 'red')}")
        else:
            print(
                f"  the answer is not the case's either: {_block(view.problem)} "
                f"(after the step that went wrong, {_step_name(view.after)})"
            )
    elif view.first_wrong:
        what = (
            f"the engine broke at {label}"
            if view.engine.fault is not None
            else f"what the engine shows after {label} (below)"
        )
        print(f"  {paint('what went wrong: ' + what, 'red')}")
    # after a wrong answer, what differs follows from it: counted, not listed (what the
    # engine did is in "changed since the step before")
    follows = " (they follow from the answer above)" if wrong_answer else ""
    if view.expected_diffs:
        print(f"  the case's OBSERVED: {len(view.expected_diffs)} field(s) differ{follows}")
        for d in [] if wrong_answer else view.expected_diffs:
            print(f"    {terminal_safe(d, LIMIT)}")
    if view.legal_diffs:
        print(f"  LEGAL: {len(view.legal_diffs)} difference(s){follows}")
        for d in [] if wrong_answer else view.legal_diffs:
            print(f"    {terminal_safe(d, LIMIT)}")
    if view.oracle is not None and view.oracle.observed is not None:
        if view.oracle_diffs:
            print(
                f"  whole OBSERVED against the oracle's: {len(view.oracle_diffs)} field(s) "
                f"differ{follows}"
            )
            for d in [] if wrong_answer else view.oracle_diffs:
                print(
                    f"    {terminal_safe(d.path, 300)}: oracle {_show(d.expected)}, "
                    f"engine {_show(d.observed)}"
                )
        elif view.engine.observed is not None:
            print("  whole OBSERVED: the same as the oracle's")
    if view.changes:
        print("  changed since the step before:")
        for d in view.changes:
            print(f"    {terminal_safe(d.path, 300)}: {_show(d.expected)} -> {_show(d.observed)}")


def _step_name(n: int) -> str:
    return "the setup" if n == 0 else f"step {n}"


def _show(value: Any) -> str:
    return terminal_safe(show(value), 300)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    found = find_case(args.case, args.cases, registry)
    if isinstance(found, str):
        raise UsageError(f"{terminal_safe(found, 3000, keep_newlines=True)}") from None
    case = found
    paint = Paint(use_color(sys.stdout, args.color))
    asked = chosen_rules(registry, args.rules) if args.rules else None
    engine = make_engine(args, rules=asked or registry.current)
    is_oracle = isinstance(engine, OracleEngine)
    try:
        engine.start()
        version = chosen_rules(registry, asked, engine.info.rules)
        unfit = not_for(case, registry, version)
        if unfit:
            engine.close()
            raise UsageError(unfit)
        result = run_case(engine, case)
        engine.close()
        recorder = Recorder(engine)
        recorder.start()
    except EngineFault as e:
        tail = stderr_tail(e.stderr or engine.take_stderr())  # as `palconf run` shows it
        engine.close()
        raise UsageError(f"the engine did not start: {terminal_safe(e.message)}{tail}") from None
    oracle = None if is_oracle else oracle_of(version, registry)
    try:
        if oracle is not None:
            oracle.start()
        print_header(case, registry, args.cases, paint, version)
        info = engine.info
        print(
            f"\nengine: {terminal_safe(info.name, 200)} {terminal_safe(info.version, 100)} "
            f"(rules {version}"
            + ("" if oracle is None else f"; oracle beside it: {registry.oracle(version).__name__}")
            + ")"
        )
        missing = sorted(case.needs - info.keywords)
        if missing:
            print(f"  it does not implement {', '.join(missing)}: the case is skipped")
        else:
            for view in explain_steps(case, recorder, oracle):
                print_step(view, paint)
    finally:
        recorder.close()
        if oracle is not None:
            oracle.close()
    if args.transcript is not None:
        recorder.transcript(case.id, f"palconf explain {case.id}").write(args.transcript)
        print(f"\nwrote the exchange to {args.transcript} (palconf replay {args.transcript} ...)")
    print_verdict(result, paint)
    return 0 if result.outcome in ("pass", "skip") else 1


def not_for(case: Case, registry: Registry, version: str) -> str:
    """Why `case` is not run against rules `version` ("" when it is)."""
    from palconf.cases.standing import standing

    s = standing(case, registry, version)
    if s.runs:
        return ""
    if not s.in_suite:
        return f"{case.id} is not a case of rules {version}: it {s.reason()}"
    return (
        f"{case.id} does not hold for rules {version} as it stands: {s.reason()} "
        f"(see `palconf rules status --rules {version}`)"
    )


def print_verdict(result: Result, paint: Paint) -> None:
    print(
        "\nverdict (as palconf run judges it): "
        + paint.outcome(result.outcome, result.outcome.upper())
    )
    if result.message:
        print(f"  {_block(result.message, '    ')}")
    for d in result.diffs:
        print(f"    {terminal_safe(d, LIMIT)}")
    for line in stderr_lines(result.stderr):  # as `palconf run` shows it
        print(line)
