"""What a run leaves behind besides its table and its results file (which
palconf.core.results_file writes, locks and reads back): the compliance report
(`palconf report`, `palconf run --report DIR`). `write_report` builds and writes it
(reports/build.py, through palconf.core.safe_write), `report_after_run` from the run just
made.

`reports` (jinja2 …) is imported only when a report is made.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from palconf.core import EngineInfo, Result, terminal_safe
from palconf.core.errors import UsageError
from palconf.core.results_file import (
    duplicates_warning,
    from_json_objects,
    read_results,
)
from palconf.core.safe_write import check_folder

if TYPE_CHECKING:
    from palconf.core.results_file import ResultsFile
    from palconf.registry import Registry

__all__ = ["recorded_info", "report_after_run", "write_report"]


def recorded_info(info: EngineInfo, version: str | None) -> EngineInfo:
    """The engine as a run records it: `run --engine-version` in place of hello's version."""
    return info if not version else replace(info, version=version)


# ---------------------------------------------------------------- the report


def _fail(message: str) -> int:
    print(f"palconf report: {terminal_safe(message, keep_newlines=True)}", file=sys.stderr)
    return 2


def write_report(
    runs: list[ResultsFile],
    out: Path,
    registry: Registry,
    mutants_path: Path | None = None,
    title: str = "Pal keyword rules compliance",
    quiet: bool = False,
) -> int:
    """Build and write the report of `runs` into `out`. Returns the exit status (2, with a
    message, when an input or the folder is unusable)."""
    from palconf.reports import build
    from palconf.reports import write_report as write_files
    from palconf.reports.boards import load_suite
    from palconf.reports.mutants import read_mutants

    try:
        check_folder(out)  # before the work: an --out that cannot be a folder, at once
        mutants = None
        if mutants_path is not None:
            mutants = read_mutants(
                mutants_path, {cid: c.keyword for cid, c in registry.clauses.items()}
            )
        report = build(runs, registry, mutants, title=title, suite=load_suite(registry))
        written = write_files(report, out)
    except UsageError as e:  # an input that cannot be read, an output that cannot be written
        return _fail(str(e))
    for run in runs:
        warning = duplicates_warning(run)
        if warning:
            print(f"palconf report: {warning}", file=sys.stderr)
    if not quiet:
        engines = terminal_safe(", ".join(e.label for e in report.engines))
        print(
            f"palconf report: {len(report.cases)} case(s), {len(report.engines)} engine(s) "
            f"({engines}): wrote {len(written)} files into {out}"
        )
        print(f"  {out / 'index.html'}")
    return 0


def report_after_run(
    results_path: Path | None,
    report_dir: Path,
    results: Sequence[Result],
    registry: Registry,
    meta: dict[str, Any],
    mixed_ok: bool = False,
) -> int:
    """`palconf run --report DIR`: write the report once every case has run. With a results
    file (a regular one) the report is read back from it (its meta line, and a resumed run's
    earlier results too); without one it is built from `results` in memory and the run's
    `meta` (`palconf.core.results_file.run_meta`).
    Returns 0, or 2 after printing why the report could not be written."""
    try:
        if results_path is not None:
            run = read_results(results_path, mixed_ok=mixed_ok)
        else:
            run = from_json_objects((r.to_json() for r in results), meta)
    except UsageError as e:
        return _fail(str(e))
    return write_report([run], report_dir, registry)
