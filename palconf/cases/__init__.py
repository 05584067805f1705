"""Reading cases: a case file becomes a `Case`, or a `file:line: field: message` error.

The way a folder is read, in order (each step a module): `finding` (every `*.toml` entry,
without reading it) → `reading` (bytes, UTF-8 text, TOML with line and column) → `depth`
(nesting too deep, with its line) → `checks` (the compiled schema check — the compiler is
`palconf.core.schema` —, the cross-checks, the oracle's STATE check of `setup`) →
`messages` (a schema error in words; jsonschema is imported only here, for a file that
already failed) → `loader` (building the `Case`, loading a folder). `errors`: `CaseError`
and `CaseLoadError` (a `UsageError`: exit 2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.cases.checks import locate
    from palconf.cases.errors import CaseError, CaseLoadError
    from palconf.cases.finding import case_files, find_case_files
    from palconf.cases.loader import (
        SETUP_ERRORS,
        Case,
        Expectation,
        LegalExpectation,
        Step,
        build_case,
        load_case,
        load_cases,
    )

_EXPORTS = {
    "CaseError": ".errors",
    "locate": ".checks",
    "SETUP_ERRORS": ".loader",
    "Case": ".loader",
    "CaseLoadError": ".errors",
    "Expectation": ".loader",
    "LegalExpectation": ".loader",
    "Step": ".loader",
    "build_case": ".loader",
    "case_files": ".finding",
    "find_case_files": ".finding",
    "load_case": ".loader",
    "load_cases": ".loader",
}
__all__ = [
    "Case",
    "CaseError",
    "CaseLoadError",
    "Expectation",
    "LegalExpectation",
    "SETUP_ERRORS",
    "Step",
    "build_case",
    "case_files",
    "find_case_files",
    "load_case",
    "load_cases",
    "locate",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
