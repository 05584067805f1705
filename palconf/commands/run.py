"""`palconf run`: run the cases against an engine and print the per-keyword table."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from palconf import paths
from palconf.cases.loader import Case
from palconf.commands import (
    add_case_options,
    add_display_options,
    add_rules_option,
    add_strict_option,
    case_file,
    chosen_rules,
    registry_or_exit,
    select,
    split_by_standing,
    suite_ids,
    warn_unfit,
)
from palconf.core import Engine, EngineFault, EngineInfo, Outcome, Result, terminal_safe
from palconf.core.errors import ExitCode, UsageError
from palconf.core.results_file import ResultsFile, ResultsWriter, run_meta
from palconf.core.results_meta import completeness
from palconf.core.safe_write import check_folder
from palconf.core.text import stderr_tail
from palconf.engines.options import (
    AUTO,
    add_engine_options,
    add_jobs_option,
    fail_count,
    make_engine,
    numbers_help,
    restart_count,
)
from palconf.registry import Registry
from palconf.running.auto_jobs import auto_cap
from palconf.running.blocks import print_failures, simplest
from palconf.running.expectations import Expectations, update_file
from palconf.running.listeners import ProgressListener, ResultsFileListener
from palconf.running.output import recorded_info, report_after_run
from palconf.running.parallel import Workers
from palconf.running.session import CaseRun, RunEnd, is_news
from palconf.running.summary import (
    render_table,
    skip_reasons,
    verdict_line,
    where_line,
    xpass_hint,
)
from palconf.running.supervisor import DEFAULT_MAX_RESTARTS, Supervisor
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
    add_rules_option(p)
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
    add_jobs_option(p)
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
        "--engine-version",
        metavar="VERSION",
        help="the engine version to record in the results file's meta line, in place of "
        "the one its hello gives (reports and sites order runs by it)",
    )
    p.add_argument(
        "--label",
        metavar="TEXT",
        help="a free label recorded in the results file's meta line (shown by reports)",
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
    """A case not run: `why` is the whole message."""
    return Result(
        id=case.id,
        outcome=Outcome.SKIP,
        keywords=case.keywords,
        clauses=case.clauses,
        path=case.path,
        message=why,
        interpretations=case.interpretations,
        rules=case.rules,
        title=case.title,
    )


def _start(engine: Engine | Workers, args: argparse.Namespace) -> None:
    """Start the engine; one that does not start is a `UsageError` with its stderr's tail and
    the `smoke` line to check it with (no case ran: the run did not take place)."""
    try:
        engine.start()
    except EngineFault as e:
        tail = stderr_tail(e.stderr or engine.take_stderr())
        raise UsageError(
            f"the engine did not start: {terminal_safe(e.message, 2000)}{tail}\n"
            f"palconf: check the engine with: palconf smoke --engine-cmd "
            f"{shlex.quote(args.engine_cmd or '')}"
        ) from None


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    selection = select(args, registry)
    cases = selection.cases
    if args.resume and not args.results:
        raise UsageError("--resume needs --results FILE (the file to resume)")
    if args.update_expectations and not args.expectations:
        raise UsageError("--update-expectations needs --expectations FILE")
    expectations = load_expectations(args, cases)
    if args.report:  # before the run: an --report that cannot be a folder, at once
        check_folder(args.report)
    asked = chosen_rules(registry, args.rules) if args.rules else None
    oracle_rules = asked or registry.current  # (an --engine-cmd engine says its own)
    paint = Paint(use_color(sys.stdout, args.color))
    auto = args.jobs == AUTO
    engine: Engine | Workers = (
        make_engine(args, rules=oracle_rules)
        if args.jobs == 1 or (auto and not args.engine_cmd)
        else Workers(
            lambda: make_engine(args, rules=oracle_rules),
            auto_cap() if auto else args.jobs,
            args.max_restarts,
            auto=auto,
            on_choice=lambda choice: progress.above(f"palconf: {choice.line}", sys.stdout),
        )
    )
    out: ResultsWriter | None = None
    try:
        _start(engine, args)
        info = recorded_info(engine.info, args.engine_version)
        rules = chosen_rules(registry, asked, engine.info.rules)
        runnable, unfit, others = split_by_standing(cases, registry, rules)
        if not runnable and not unfit:
            raise UsageError(
                f"none of the {len(cases)} case(s) selected is of rules {rules} "
                f"(they hold for other versions: see `palconf list cases --rules {rules}`)"
            )
        not_fit = {c.id: why for c, why in unfit}
        suite = {c.id for c in runnable} | set(not_fit)
        as_of = {c.id: c for c in runnable}  # (as cases of `rules`: palconf.cases.standing)
        cases = [as_of.get(c.id, c) for c in cases if c.id in suite]
        if args.results:  # locked for the run; with --resume, what it holds (one rule)
            out = ResultsWriter.open(
                args.results, resume=args.resume, mixed_ok=args.resume_other_engine
            )
        resumed = out.resumed if out else ResultsFile("", [])
        mismatch = resumed.mismatch(info.name, info.version, rules)
        if args.resume_other_engine:  # another engine may add; another rules version not
            mismatch = resumed.rules_mismatch(rules)
        if mismatch is not None:
            mix = (
                ", or add --resume-other-engine to mix them"
                if resumed.rules_mismatch(rules) is None
                else " (results of two rules versions never share a file)"
            )
            raise UsageError(
                f"will not resume {args.results}: {mismatch}; run without --resume "
                f"(or with another --results FILE) to start afresh{mix}"
            )
        selected = {c.id for c in cases}
        earlier = [r for r in resumed.results if r.id in selected]
        done = {r.id for r in earlier}
        todo = [c for c in cases if c.id not in done]
        skipped = [
            (c, f"not for rules {rules} as it stands: {not_fit[c.id]}")
            for c in todo
            if c.id in not_fit
        ] + [
            (
                c,
                "skipped by the expectations file: "
                + (entry.describe() or f"listed as {entry.pattern!r}"),
            )
            for c in todo
            if c.id not in not_fit and (entry := expectations.skipped(c.id)) is not None
        ]
        todo = [c for c in todo if c.id not in not_fit and expectations.skipped(c.id) is None]
        if args.resume:
            print(
                f"palconf: resuming {args.results}: {len(done)} case(s) done, "
                f"{len(cases) - len(done)} to run"
            )
        run = CaseRun(
            engine if isinstance(engine, Workers) else Supervisor(engine, args.max_restarts),
            expectations,
            len(cases),
            max_fail=args.max_fail,
            resumed=earlier,
        )
        meta = run_meta(
            info.name,
            info.version,
            info.keywords,
            rules,
            len(cases),
            # the suite: the selected cases of it, and those of it the selection left out
            suite=suite | set(suite_ids(selection.rest, registry, rules)),
            selected=selected,
            by=selection.by,
        )
        meta["rules_unfit"] = len(unfit)  # the cases of rules `rules` not run (skipped)
        if info.version != engine.info.version:
            meta["engine"]["hello_version"] = engine.info.version
        if args.label:
            meta["label"] = args.label
        if out is not None:  # the meta line first; a resumed file keeps its own
            out.write_meta(meta)
            run.subscribe(ResultsFileListener(out))
        print(
            f"palconf: {len(cases)} case(s) of rules {rules} against "
            f"{terminal_safe(info.name, 200)} {terminal_safe(info.version, 100)}"
            + (f" ({selection.excluded} left out by --exclude)" if selection.excluded else "")
            + (f" ({others} of other rules versions only)" if others else ""),
            flush=True,
        )
        if auto and not isinstance(engine, Workers):
            print("palconf: -j auto: 1 worker (the oracle in-process: workers gain nothing)")
        progress = Progress(
            len(todo) + len(skipped),
            mode=progress_mode(args.progress, sys.stderr),
            paint=Paint(use_color(sys.stderr, args.color)),
        )
        run.subscribe(ProgressListener(progress, paint, args.verbose))
        try:
            end = run.run(todo, skipped, _skip_result)
        except KeyboardInterrupt:
            _interrupted(args, run, registry, paint)
            raise
    finally:
        engine.close()
        if out is not None:
            out.close()
    return _finish(args, end, cases, expectations, info, registry, paint, out, (rules, unfit), meta)


def _interrupted(args: argparse.Namespace, run: CaseRun, registry: Registry, paint: Paint) -> None:
    """^C: the table of what did run, and how to run the rest."""
    print()
    print(render_table(run.results, registry, paint))
    rest = run.total - len(run.results)
    hint = (
        f"palconf run ... --results {args.results} --resume runs them"
        if args.results
        else "with --results FILE, --resume runs them later"
    )
    print(f"palconf: interrupted: {len(run.results)} result(s); {rest} case(s) not run ({hint})")


def _finish(
    args: argparse.Namespace,
    end: RunEnd,
    cases: list[Case],
    expectations: Expectations,
    info: EngineInfo,
    registry: Registry,
    paint: Paint,
    out: ResultsWriter | None,
    version: tuple[str, list[tuple[Case, str]]],
    meta: dict[str, Any],
) -> int:
    """What a finished run prints after its results: the FAIL blocks, why it stopped, the
    expectations' news, the report, the table and the verdict (marked when the selection
    left cases of the suite out); the exit status."""
    results, mismatched = end.results, set(end.mismatched)
    news = [r for r in results if is_news(r, mismatched)]
    folder = args.cases or paths.CASES
    print_failures(news, sys.stdout, paint, lambda p: case_file(p, folder), args.verbose)
    if end.max_failed:
        print(
            f"\npalconf: stopped after {end.max_failed}; {end.not_run} case(s) "
            f"were not run" + (" (run again with --resume to run them)" if args.results else "")
        )
    if end.stopped:
        print(
            f"\npalconf: the run stopped: {end.stopped}\n  {end.not_run} case(s) were not run. "
            f"Fix the engine (palconf smoke --engine-cmd ...), then run again with --resume "
            f"to run only those, or raise --max-restarts.",
            file=sys.stderr,
        )
    xpassed = [r.id for r in results if r.outcome == Outcome.XPASS]
    if xpassed:
        print(
            f"\npalconf: {len(xpassed)} case(s) listed as failing now pass: "
            f"{terminal_safe(', '.join(xpassed[:10]), 2000)}{' …' if len(xpassed) > 10 else ''}"
        )
    if args.update_expectations:
        unfiltered = not args.case and not args.keyword
        selected = {c.id for c in cases}
        # locked, on the file as it is now (another run may have updated it meanwhile);
        # an UnsafeWrite is a UsageError: exit 2
        was, new = update_file(args.expectations, results, selected if unfiltered else None)
        print(
            f"palconf: wrote {args.expectations}: {len(new.entries)} entr"
            f"{'y' if len(new.entries) == 1 else 'ies'} (was {len(was.entries)})"
        )
        mismatched = {r.id for r in results if not new.judge(r)}
    elif mismatched and args.expectations:
        print(
            f"palconf: {len(mismatched)} result(s) differ from {args.expectations}; "
            f"--update-expectations records them"
        )
    if args.report:  # the compliance report (as `palconf report` writes it)
        readable = out.path if out is not None and out.regular else None
        if report_after_run(
            readable,
            args.report,
            results,
            registry,
            meta,
            mixed_ok=args.resume_other_engine,
        ):
            return ExitCode.USAGE
    rules, unfit = version
    stale = warn_unfit(unfit, rules)
    bad = bool(mismatched or end.stopped or end.max_failed)
    skips = skip_reasons(results)
    if skips:
        print("\nskipped:")
        for line in skips:
            print(f"  {line}")
    print()
    print(render_table(results, registry, paint))
    listed = str(args.expectations) if args.expectations else None
    for hint in (where_line(results, registry), xpass_hint(results, listed)):
        if hint is not None:
            print(f"palconf: {hint}")
    if bad:
        print(_next_hint(args, results, cases))
    partial = completeness(meta, len(results)).partial_words
    print(
        verdict_line(results, len(cases), bad, registry, paint)
        + f" (rules {rules})"
        + (f" · {terminal_safe(partial, 2000)}" if partial else "")
    )
    return ExitCode.FAILED if bad or (args.strict and stale) else ExitCode.OK


def _next_hint(args: argparse.Namespace, results: list[Result], cases: list[Case]) -> str:
    """Where to look next, as `smoke` says: one failing case step by step beside the oracle,
    the simplest (`simplest`)."""
    first = simplest([r for r in results if r.failed or r.outcome == Outcome.XPASS], cases)
    if first is None:
        return "Next: fix the engine (palconf smoke --engine-cmd …), then run again with --resume"
    engine = f" --engine-cmd {shlex.quote(args.engine_cmd)}" if args.engine_cmd else ""
    return terminal_safe(f"Next: palconf explain {shlex.quote(first.id)}{engine}")
