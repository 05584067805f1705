"""`palconf summary RESULTS.jsonl …`: the end of a run again, from its results files, with no
engine and nothing written: per file, the per-keyword table, the failures grouped by the
clause they share, where the failures are, and the verdict line (`palconf.running.summary`,
as `palconf run` prints them; counted as `palconf report` and `palconf site` count). Each
file's first line names the rules version it was judged against (its meta line's, "unknown"
when it names none, never the checkout's); files of different rules versions are told so at
the end.

Exit 0 when every file's results are as expected (no fail, error, timeout or xpass, and
every selected case has a result), 1 otherwise, 2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from palconf.commands import add_color_option, registry_or_exit
from palconf.engines.options import group_count, numbers_help

if TYPE_CHECKING:
    from palconf.core.results_file import ResultsFile
    from palconf.registry import Registry
    from palconf.running.terminal import Paint


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "summary",
        help="the per-keyword table, failures by clause and verdict of results files",
        description="Print, for each results file (from `palconf run --results FILE`), "
        "the per-keyword table, the failures grouped by the clause they share and the "
        "verdict, as `palconf run` ends. No engine is started and nothing is written. "
        "Exit 0 when every result is as expected, 1 otherwise, 2 for a file that "
        "cannot be read.",
    )
    p.add_argument("results", nargs="+", type=Path, metavar="RESULTS.jsonl", help="results files")
    add_color_option(p)
    p.add_argument(
        "--groups",
        type=group_count,
        default=12,
        metavar="N",
        help=numbers_help("show at most N clauses of failures per file (default 12)", group_count),
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from palconf.core import terminal_safe
    from palconf.core.results_file import (
        ResultsError,
        duplicates_warning,
        read_results,
        summary_only,
    )
    from palconf.running.terminal import Paint, use_color

    try:
        # a stream, keeping of each result only what is printed: memory flat in the size
        runs = [read_results(path, keep=summary_only) for path in args.results]
    except ResultsError as e:
        print(f"palconf summary: {terminal_safe(e, keep_newlines=True)}", file=sys.stderr)
        return 2
    for run in runs:
        warning = duplicates_warning(run)
        if warning:
            print(f"palconf summary: {warning}", file=sys.stderr)
    registry = registry_or_exit()
    paint = Paint(use_color(sys.stdout, args.color))
    bad = False
    for n, run in enumerate(runs):
        if n:
            print()
        bad |= print_summary(run, registry, paint, max(1, args.groups))
    note = mixed_rules_note(runs)
    if note:
        print(f"\n{note}")
    return 1 if bad else 0


def mixed_rules_note(runs: list[ResultsFile]) -> str:
    """A line saying that the files are of different rules versions; "" when they are not."""
    from palconf.core import terminal_safe

    versions = sorted({run.rules_version for run in runs})
    if len(versions) < 2:
        return ""
    each = ", ".join(
        f"{terminal_safe(run.path, 300)}: rules {terminal_safe(run.rules_version, 50)}"
        for run in runs
    )
    return (
        f"note: these results files are of different rules versions ({each}): cases and "
        f"verdicts may differ between them because the rules differ"
    )


def print_summary(run: ResultsFile, registry: Registry, paint: Paint, groups: int) -> bool:
    """One file's summary; True when its results are not all as expected."""
    from palconf.core import Outcome, terminal_safe
    from palconf.running.summary import (
        failures_by_clause,
        render_table,
        skip_reasons,
        verdict_line,
        where_line,
        xpass_hint,
    )

    results = run.results
    whole = run.completeness
    selected = len(results) if whole.selected is None else whole.selected
    who = " ".join(p for p in (run.engine_name, run.engine_version) if p)
    extra = [x for x in (run.label, run.date) if x]
    print(
        paint(terminal_safe(run.path, 300), "bold")
        + f": {terminal_safe(who, 200)}"
        + (f" ({terminal_safe(' · '.join(extra), 200)})" if extra else "")
        + f" · rules {terminal_safe(run.rules_version, 50)}"
        + f" · {len(results)} result(s)"
        + (f" of {selected} selected: unfinished" if whole.unfinished else "")
        + (f" · {terminal_safe(whole.partial_words, 2000)}" if whole.partial else "")
    )
    print(render_table(results, registry, paint))
    reasons = skip_reasons(results)
    if reasons:
        print("\nskipped:")
        print("\n".join(f"  {line}" for line in reasons))
    lines = failures_by_clause(results, registry, groups=groups)
    if lines:
        print("\nfailures by clause:")
        print("\n".join(f"  {line}" for line in lines))
    bad = whole.unfinished or any(
        r.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT, Outcome.XPASS) for r in results
    )
    for line in (where_line(results, registry), xpass_hint(results)):
        if line:
            print(line)
    print(verdict_line(results, selected, bad, registry, paint))
    return bad
