"""Running cases on an engine and saying what came of it.

- `runner`: `run_case` plays one case on one engine and decides its `Result`; `run_cases`
  runs many, restarting a broken engine between cases;
- `expectations`: known failures (an expectations file: xfail, xpass);
- `summary`: the end of a run (the per-group table, the skip reasons, the verdict line);
- `terminal`: colour and progress;
- `output`: the results file of a run (`--results`, `--resume`) and the report after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.running.expectations import Expectations, ExpectationsError
    from palconf.running.runner import DEFAULT_MAX_RESTARTS, RunStopped, run_case, run_cases

_EXPORTS = {
    "DEFAULT_MAX_RESTARTS": ".runner",
    "RunStopped": ".runner",
    "run_case": ".runner",
    "run_cases": ".runner",
    "Expectations": ".expectations",
    "ExpectationsError": ".expectations",
}
__all__ = [
    "DEFAULT_MAX_RESTARTS",
    "Expectations",
    "ExpectationsError",
    "RunStopped",
    "run_case",
    "run_cases",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
