"""Running cases on an engine and saying what came of it.

- `runner`: `run_case` plays one case on one engine and decides its `Result`; the one place
  where an engine's answers are matched against a case's expectations (`check_step`), used
  by `palconf explain` too;
- `supervisor`: one engine for a whole run, one case per call, and the restart policy
  (`Supervisor`, `run_cases`, `RunStopped`);
- `parallel`: `palconf run -j N`, N engines on one queue of cases (`Workers`), and
  `palconf mutants -j N`'s workers (`in_order`);
- `session`: a run of many cases as an object with events (a result arrives, the run
  finishes) that the terminal output, the results file and the report subscribe to;
- `expectations`: known failures (an expectations file: xfail, xpass);
- `blocks`: the blocks of the results not as expected, grouped by what they share, and
  the failing case `Next:` suggests;
- `summary`: the end of a run (the per-group table, the skip reasons, where the failures
  are, the verdict line);
- `terminal`: colour and progress;
- `output`: the results file of a run (`--results`, `--resume`) and the report after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.running.expectations import Expectations, ExpectationsError
    from palconf.running.parallel import Workers
    from palconf.running.runner import run_case
    from palconf.running.supervisor import DEFAULT_MAX_RESTARTS, RunStopped, Supervisor, run_cases

_EXPORTS = {
    "run_case": ".runner",
    "DEFAULT_MAX_RESTARTS": ".supervisor",
    "RunStopped": ".supervisor",
    "Supervisor": ".supervisor",
    "run_cases": ".supervisor",
    "Expectations": ".expectations",
    "Workers": ".parallel",
    "ExpectationsError": ".expectations",
}
__all__ = [
    "DEFAULT_MAX_RESTARTS",
    "Expectations",
    "ExpectationsError",
    "RunStopped",
    "Supervisor",
    "Workers",
    "run_case",
    "run_cases",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
