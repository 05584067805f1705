"""Tools for the people who write the suite: its own rules and its rules versions.

- `lint`: the suite's own rules (folders, titles, boards, the order of reasons, every case
  passing on the oracle), `palconf lint`;
- `rulesdiff`: rules texts compared clause by clause, `palconf rules diff|import`;
- `review`: a version's changes signed off, cases blessed for it, the verdicts its oracle
  changes (`palconf rules review|bless|status`; a case's standing is
  `palconf.cases.standing`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.authoring.lint import Problem, lint_cases
    from palconf.authoring.rulesdiff import diff_versions, load_version

_EXPORTS = {
    "Problem": ".lint",
    "lint_cases": ".lint",
    "diff_versions": ".rulesdiff",
    "load_version": ".rulesdiff",
}
__all__ = [
    "Problem",
    "diff_versions",
    "lint_cases",
    "load_version",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
