"""One engine for a whole run, one case per call: the restart policy in one place.

`Supervisor.run(case)` plays one case (`runner.run_case`) and keeps the engine usable for
the next: after a timeout, or an error that left the engine unusable (its `broken` flag),
the engine is restarted before the next case it must run (not for a case skipped for a
keyword it lacks). A restart that fails is tried again. When `max_restarts` restarts in a
row have not brought a case to an end without a fault, `RunStopped` is raised instead of
restarting once more; results already given stand, and the cases not run are left for
`--resume`. `palconf run`, the pytest plugin, `palconf mutants` and `palconf explain` all
run cases through it (`run_cases` is the same loop as a generator).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable

from palconf.cases.loader import Case
from palconf.core import Engine, EngineFault, Outcome, Result, collector
from palconf.core.errors import PalconfError
from palconf.running.runner import run_case

__all__ = ["DEFAULT_MAX_RESTARTS", "RunStopped", "Supervisor", "abort", "is_stop", "run_cases"]

#: restarts in a row (without a case brought to an end) before the run stops
DEFAULT_MAX_RESTARTS = 5


class RunStopped(PalconfError):
    """The engine broke too many times in a row: the run stops. Results already given
    stand; the cases not run are left for `--resume`."""


def is_stop(e: BaseException) -> bool:
    """Is this palconf being stopped (^C, SIGTERM, `sys.exit`: what is not an `Exception`),
    rather than a fault or a generator closed by its reader?"""
    return not isinstance(e, (Exception, GeneratorExit))


def abort(engine: Engine) -> None:
    """Kill the engine where it stands, from any thread, for a run being stopped (an
    engine without `abort`, in-process, ends its case by itself)."""
    kill = getattr(engine, "abort", None)
    if callable(kill):
        kill()


class Supervisor:
    """Owns the restarts of one started engine; `run` plays one case on it."""

    def __init__(self, engine: Engine, max_restarts: int = DEFAULT_MAX_RESTARTS) -> None:
        self.engine = engine
        self.max_restarts = max_restarts
        self._in_a_row = 0  # restarts since a case last came to an end without a fault
        self._needs_restart = False
        self._last_fault = ""

    def run(self, case: Case) -> Result:
        if self._needs_restart and case.needs <= self.engine.info.keywords:
            self._restart()
        result = run_case(self.engine, case)
        if result.outcome in (Outcome.ERROR, Outcome.TIMEOUT) and (
            self.engine.broken or result.outcome == Outcome.TIMEOUT
        ):
            self._needs_restart = True
            self._last_fault = f"{case.id}: {result.outcome}: {result.message}"
        elif result.outcome != Outcome.SKIP:
            self._in_a_row = 0
        return result

    def results(self, cases: Iterable[Case]) -> Generator[Result, None, None]:
        """Each case in turn, its result as soon as it is known. The objects that exist
        when it starts (the suite among them) are left out of the run's garbage
        collections (palconf.core.collector)."""
        with collector.settled():
            for case in cases:
                yield self.run(case)

    def interrupt(self) -> list[Result]:
        """^C or SIGTERM: the results not yet given (none: each is given as it comes; the
        engine, killed as the exception unwinds, is closed by the run)."""
        return []

    def _restart(self) -> None:
        while True:
            if self._in_a_row >= self.max_restarts:
                raise RunStopped(
                    f"the engine broke {self._in_a_row + 1} time(s) in a row and "
                    f"{self.max_restarts} restart(s) in a row is the limit; last fault: "
                    f"{self._last_fault}"
                )
            self._in_a_row += 1
            try:
                self.engine.restart()
                break
            except EngineFault as e:
                self._last_fault = f"restarting: {e.message}"
        self._needs_restart = False


def run_cases(
    engine: Engine, cases: Iterable[Case], max_restarts: int = DEFAULT_MAX_RESTARTS
) -> Generator[Result, None, None]:
    """Run each case through one `Supervisor`, yielding its result as soon as it is known."""
    yield from Supervisor(engine, max_restarts).results(cases)
