"""Reading results files, for the reports: the format, the meta line, the one "whose results"
rule and the reader all live in palconf.core.results_file (below both the harness and the
reports); this module gives the reports their names for them."""

from __future__ import annotations

from palconf.core.outcomes import BASE, Result
from palconf.core.results_file import (
    FORMAT,
    FORMAT_VERSION,
    META_KEY,
    ResultsError,
    ResultsFile,
    from_json_objects,
    is_meta,
    meta_line,
    parse_lines,
    read_results,
    run_meta,
    utc_now,
)

__all__ = [
    "BASE",
    "FORMAT",
    "FORMAT_VERSION",
    "META_KEY",
    "Result",
    "ResultsError",
    "ResultsFile",
    "from_json_objects",
    "is_meta",
    "meta_line",
    "parse_lines",
    "read_results",
    "run_meta",
    "utc_now",
]
