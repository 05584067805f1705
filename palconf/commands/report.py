"""`palconf report`: compliance reports from results files, and the difference between two runs.

    palconf report RESULTS.jsonl [RESULTS2.jsonl ...] --out DIR [--mutants FILE.json]
    palconf report --compare OLD.jsonl NEW.jsonl [--format text|markdown|json] [--out DIR]

The first writes index.html, report.md, results.json, junit.xml and badges/ into DIR, one
engine per results file, side by side (see reports/build.py). Exit 0 once written.

The second prints what regressed, what was fixed and what is new; with --out it also writes
compare.md and compare.json there. Exit 1 when some case regressed, else 0.

Exit 2 for bad arguments or a results file that cannot be read (the message says where).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from palconf.commands import registry_or_exit
from palconf.core import terminal_json
from palconf.core.errors import UsageError
from palconf.core.results_file import (
    ResultsError,
    ResultsFile,
    duplicates_warning,
    read_results,
)
from palconf.core.safe_write import UnsafeWrite, write_files
from palconf.running.output import write_report


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help="HTML/Markdown/JSON/JUnit reports and badges from results files",
        description="Write a compliance report for one or more results files (from "
        "`palconf run --results FILE`), one engine per file, side by side; or, "
        "with --compare, show what changed between two runs.",
    )
    p.add_argument(
        "results",
        nargs="*",
        type=Path,
        metavar="RESULTS.jsonl",
        help="results files (JSON Lines), one per engine",
    )
    p.add_argument(
        "--out",
        "-o",
        type=Path,
        metavar="DIR",
        help="the folder to write the report into (created if needed)",
    )
    p.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("OLD", "NEW"),
        help="compare two results files instead: regressed, fixed, new, removed",
    )
    p.add_argument(
        "--format",
        choices=("text", "markdown", "json"),
        default="text",
        help="with --compare: what to print (default text)",
    )
    p.add_argument(
        "--mutants",
        type=Path,
        metavar="FILE.json",
        help="output of `palconf mutants --json`: adds a suite-strength section",
    )
    p.add_argument(
        "--allow-mixed",
        action="store_true",
        help="read a results file that mixes runs (two files joined, meta lines of different "
        "engines or rules): its first meta line is the file's",
    )
    p.add_argument("--title", default="Pal keyword rules compliance", help="the report's heading")
    p.set_defaults(func=main)


def _fail(message: str) -> int:
    raise UsageError(f"{message}")


def main(args: argparse.Namespace) -> int:
    try:
        if args.compare:
            if args.results:
                return _fail("--compare takes exactly two files (OLD NEW); give no others")
            if args.mutants:
                return _fail("--mutants goes with a report, not with --compare")
            old, new = (read_results(p, mixed_ok=args.allow_mixed) for p in args.compare)
            return compare_main(args, old, new)
        if not args.results:
            return _fail("give one or more results files (from `palconf run --results FILE`)")
        if args.out is None:
            return _fail("--out DIR is required: the folder to write the report into")
        runs = [read_results(path, mixed_ok=args.allow_mixed) for path in args.results]
        return write_report(runs, args.out, registry_or_exit(), args.mutants, args.title)
    except ResultsError as e:
        return _fail(str(e))


def compare_main(args: argparse.Namespace, old: ResultsFile, new: ResultsFile) -> int:
    from palconf.reports.compare import compare, render_markdown, render_text

    for run in (old, new):
        warning = duplicates_warning(run)
        if warning:
            print(f"palconf report: {warning}", file=sys.stderr)
    c = compare(old, new)
    if args.format == "json":
        print(terminal_json(c.to_json(), indent=2))
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(c))
    else:
        sys.stdout.write(render_text(c))
    if args.out is not None:
        files = {
            "compare.md": render_markdown(c),
            "compare.json": json.dumps(c.to_json(), indent=2, ensure_ascii=False) + "\n",
        }
        try:
            write_files(args.out, files)
        except UnsafeWrite as e:
            return _fail(str(e))
    return 1 if c.regressed else 0
