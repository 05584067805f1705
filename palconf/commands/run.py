"""`palconf run`: run the cases against an engine and print the per-keyword table."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import IO

from palconf import paths
from palconf.cases.loader import Case
from palconf.commands import (
    add_case_options,
    add_display_options,
    add_strict_option,
    case_file,
    registry_or_exit,
    select_cases,
    warn_stale,
)
from palconf.core import EngineFault, Outcome, Result, terminal_safe
from palconf.core.results_file import ResultsError, ResultsFile, ResultsWriter, run_meta
from palconf.core.safe_write import UnsafeWrite
from palconf.engines.options import (
    add_engine_options,
    fail_count,
    make_engine,
    numbers_help,
    restart_count,
)
from palconf.engines.process import EngineCommandError
from palconf.running.expectations import Expectations, ExpectationsError
from palconf.running.output import report_after_run
from palconf.running.runner import DEFAULT_MAX_RESTARTS, RunStopped, run_cases
from palconf.running.summary import render_table, skip_reasons, verdict_line
from palconf.running.terminal import Paint, Progress, progress_mode, use_color


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "run",
        help="run the cases against the oracle or an engine",
        description="Run the rule cases and print a per-keyword table. "
        "Exit 0 when every result is as expected (no failure, "
        "error or timeout, or only those --expectations lists), "
        "1 otherwise or when the run had to stop, 2 for bad "
        "arguments or broken case files.",
    )
    add_case_options(p)
    add_strict_option(p)
    p.add_argument(
        "--results", type=Path, metavar="FILE", help="write one JSON object per case (JSON Lines)"
    )
    p.add_argument("--verbose", "-v", action="store_true", help="print every case's outcome")
    p.add_argument(
        "--max-fail",
        type=fail_count,
        default=None,
        metavar="N",
        help=numbers_help(
            "stop after N results that are not as expected (fail, error, timeout, xpass); "
            "the cases not run can be run with --resume",
            fail_count,
        ),
    )
    p.add_argument(
        "-x",
        "--exitfirst",
        dest="max_fail",
        action="store_const",
        const=1,
        help="stop at the first result that is not as expected (--max-fail 1)",
    )
    add_display_options(p)
    add_engine_options(p, required=False)
    p.add_argument(
        "--max-restarts",
        type=restart_count,
        default=DEFAULT_MAX_RESTARTS,
        metavar="N",
        help=numbers_help(
            f"stop the run when the engine has been restarted N times in a row "
            f"without completing a case (default {DEFAULT_MAX_RESTARTS})",
            restart_count,
        ),
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the results already in --results FILE and run only the other "
        "cases (after an interrupted run)",
    )
    p.add_argument(
        "--resume-other-engine",
        action="store_true",
        help="with --resume: go on even when the results file's results were made by "
        "another engine (name or version) or against other rules",
    )
    p.add_argument(
        "--expectations",
        type=Path,
        metavar="FILE",
        help="a TOML file of the outcomes this engine is known to have; known "
        "failures count as xfail, listed cases that now pass as xpass",
    )
    p.add_argument(
        "--update-expectations",
        action="store_true",
        help="rewrite --expectations FILE from this run (created if missing)",
    )
    p.add_argument(
        "--report",
        type=Path,
        metavar="DIR",
        help="write the compliance report into DIR at the end (see palconf report)",
    )
    p.set_defaults(func=main)


def load_expectations(args: argparse.Namespace, cases: list[Case]) -> Expectations:
    """The --expectations file; none, or a missing file with --update-expectations, is an
    empty one (every case expected to pass)."""
    path = args.expectations
    if path is None or (args.update_expectations and not path.exists()):
        return Expectations(path=path)
    expectations = Expectations.load(path)
    if not args.case and not args.keyword:
        for entry in expectations.unmatched(c.id for c in cases):
            print(
                f"palconf: warning: {path}: cases.{entry.pattern!r} matches no case",
                file=sys.stderr,
            )
    return expectations


def _skip_result(case: Case, why: str) -> Result:
    return Result(
        id=case.id,
        outcome=Outcome.SKIP,
        keywords=case.keywords,
        clauses=case.clauses,
        path=case.path,
        message=f"skipped by the expectations file: {why}",
        interpretations=case.interpretations,
        rules=case.rules,
        title=case.title,
    )


def print_failure(r: Result, out: IO[str], paint: Paint, cases: Path | None = None) -> None:
    """A result that is not as expected: what the case is and where its file is, what went
    wrong, the engine's stderr. The engine's (and the files') text goes through
    `terminal_safe`."""
    head = paint.outcome(r.outcome, r.outcome.upper())
    print(f"\n{head} {r.id}: {terminal_safe(r.title)}", file=out)
    if r.path:
        print(f"  file: {terminal_safe(case_file(r.path, cases))}", file=out)
    if r.clauses:
        print(f"  clauses: {', '.join(r.clauses)}", file=out)
    print(f"  {terminal_safe(r.message, 2000)}", file=out)
    if r.expected or r.outcome == Outcome.XPASS:
        note = f" ({terminal_safe(r.note)})" if r.note else ""
        print(f"  expectations: {' or '.join(r.expected) or 'pass'}{note}", file=out)
    for d in r.diffs:
        print(f"    {terminal_safe(d, 2000)}", file=out)
    if r.stderr:
        print("  engine stderr (last lines):", file=out)
        for line in r.stderr.splitlines()[-5:]:
            print(f"    | {terminal_safe(line, 300)}", file=out)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    cases = select_cases(args, registry)
    if cases is None:
        return 2
    if args.resume and not args.results:
        print("palconf: --resume needs --results FILE (the file to resume)", file=sys.stderr)
        return 2
    if args.update_expectations and not args.expectations:
        print("palconf: --update-expectations needs --expectations FILE", file=sys.stderr)
        return 2
    try:
        expectations = load_expectations(args, cases)
        engine = make_engine(args)
        out = (  # locked for the run; with --resume, what it holds (results_file's one rule)
            ResultsWriter.open(args.results, resume=args.resume, mixed_ok=args.resume_other_engine)
            if args.results
            else None
        )
    except (ExpectationsError, ResultsError, EngineCommandError) as e:
        print(f"palconf: {terminal_safe(e, 2000, keep_newlines=True)}", file=sys.stderr)
        return 2
    resumed = out.resumed if out else ResultsFile("", [])
    selected = {c.id for c in cases}
    results = [r for r in resumed.results if r.id in selected]
    done = {r.id for r in results}
    mismatched = {r.id for r in results if not expectations.judge(r)}
    todo = [c for c in cases if c.id not in done]
    skipped = [(c, entry) for c in todo if (entry := expectations.skipped(c.id)) is not None]
    todo = [c for c in todo if expectations.skipped(c.id) is None]

    paint = Paint(use_color(sys.stdout, args.color))
    progress = Progress(
        len(todo) + len(skipped),
        mode=progress_mode(args.progress, sys.stderr),
        paint=Paint(use_color(sys.stderr, args.color)),
    )

    unexpected_now = 0  # this run's results that are not as expected (for --max-fail)

    def record(r: Result) -> None:
        nonlocal unexpected_now
        if not expectations.judge(r):
            mismatched.add(r.id)
            unexpected_now += 1
        results.append(r)
        if out:
            out.write_result(r)
        progress.add(r.outcome)
        if args.verbose:
            progress.above(f"{paint.outcome(r.outcome, f'{r.outcome:<8}')} {r.id}", sys.stdout)

    stopped = max_failed = ""
    try:
        try:
            engine.start()
        except EngineCommandError as e:
            print(f"palconf: {e}", file=sys.stderr)
            return 2
        except EngineFault as e:
            print(
                f"palconf: the engine did not start: {terminal_safe(e.message, 2000)}",
                file=sys.stderr,
            )
            for line in (e.stderr or engine.take_stderr()).splitlines()[-10:]:
                print(f"  | {terminal_safe(line, 300)}", file=sys.stderr)
            print(
                f"palconf: check the engine with: palconf smoke --engine-cmd "
                f"{shlex.quote(args.engine_cmd or '')}",
                file=sys.stderr,
            )
            return 2  # no case ran: the run did not take place (docs/INTERPRETING.md)
        mismatch = resumed.mismatch(engine.info.name, engine.info.version, registry.current)
        if mismatch is not None and not args.resume_other_engine:
            print(
                f"palconf: will not resume {args.results}: {mismatch}; run without --resume "
                f"(or with another --results FILE) to start afresh, or add "
                f"--resume-other-engine to mix them",
                file=sys.stderr,
            )
            return 2
        if args.resume:
            print(
                f"palconf: resuming {args.results}: {len(done)} case(s) done, "
                f"{len(cases) - len(done)} to run"
            )
        if out:  # the meta line first; a resumed file keeps its own
            info = engine.info
            out.write_meta(
                run_meta(info.name, info.version, info.keywords, registry.current, len(cases))
            )
        print(
            f"palconf: {len(cases)} case(s) against {terminal_safe(engine.info.name, 200)} "
            f"{terminal_safe(engine.info.version, 100)}",
            flush=True,
        )
        for case, entry in skipped:
            record(_skip_result(case, entry.describe() or f"listed as {entry.pattern!r}"))
        runs = run_cases(engine, todo, max_restarts=args.max_restarts)
        try:
            for r in runs:
                record(r)
                if args.max_fail is not None and unexpected_now >= args.max_fail:
                    max_failed = f"{unexpected_now} result(s) not as expected (--max-fail)"
                    break
        except RunStopped as e:
            stopped = str(e)
        finally:
            runs.close()
            progress.close()
    finally:
        engine.close()
        if out:
            out.close()
    for r in results:
        if (
            r.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT, Outcome.XPASS)
            or r.id in mismatched
        ):
            print_failure(r, sys.stdout, paint, args.cases or paths.CASES)
    if max_failed:
        print(
            f"\npalconf: stopped after {max_failed}; {len(cases) - len(results)} case(s) "
            f"were not run" + (" (run again with --resume to run them)" if args.results else "")
        )
    if stopped:
        not_run = len(cases) - len(results)
        print(
            f"\npalconf: the run stopped: {stopped}\n  {not_run} case(s) were not run. Fix "
            f"the engine (palconf smoke --engine-cmd ...), then run again with --resume "
            f"to run only those, or raise --max-restarts.",
            file=sys.stderr,
        )
    news = [r.id for r in results if r.outcome == Outcome.XPASS]
    if news:
        print(
            f"\npalconf: {len(news)} case(s) listed as failing now pass: "
            f"{', '.join(news[:10])}{' …' if len(news) > 10 else ''}"
        )
    if args.update_expectations:
        unfiltered = not args.case and not args.keyword
        new = expectations.updated(results, known_ids=selected if unfiltered else None)
        try:
            new.write(args.expectations)
        except UnsafeWrite as e:
            print(f"palconf: {e}", file=sys.stderr)
            return 2
        print(
            f"palconf: wrote {args.expectations}: {len(new.entries)} entr"
            f"{'y' if len(new.entries) == 1 else 'ies'} (was {len(expectations.entries)})"
        )
        mismatched = {r.id for r in results if not new.judge(r)}
    elif mismatched and args.expectations:
        print(
            f"palconf: {len(mismatched)} result(s) differ from {args.expectations}; "
            f"--update-expectations records them"
        )
    if args.report:  # the compliance report (as `palconf report` writes it)
        readable = args.results if out is not None and out.regular else None
        if report_after_run(
            readable,
            args.report,
            engine.info,
            results,
            registry,
            len(cases),
            mixed_ok=args.resume_other_engine,
        ):
            return 2
    stale = warn_stale(cases, registry)
    bad = bool(mismatched or stopped or max_failed)
    skips = skip_reasons(results)
    if skips:
        print("\nskipped:")
        for line in skips:
            print(f"  {line}")
    print()
    print(render_table(results, registry, paint))
    print(verdict_line(results, len(cases), bad, registry, paint))
    return 1 if bad or (args.strict and stale) else 0
