"""A run of many cases as an object with events: the loop of `palconf run`.

`CaseRun` takes the cases still to run (and those an expectations file skips), runs each
through one `Supervisor` (or `palconf run -j`'s `Workers`, each with its own), judges each
result against the expectations once, and tells its listeners: `on_result(result)` as each
result arrives (in the suite's order), and `on_finish(end)` once, when the run is over,
however it ended (every case run, `--max-fail` reached, the engine stopped for good, or
^C or SIGTERM: then the source is asked for the results that finished and were not yet
given, `interrupt`, which stops every engine at once). The terminal's progress, the results file and
the report are listeners; none of them needs to know how the loop works, and what a result
means against the expectations (`mismatched`) is decided in one place, here.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from palconf.cases.loader import Case
from palconf.core import Outcome, Result
from palconf.running.expectations import Expectations
from palconf.running.supervisor import RunStopped, is_stop

__all__ = ["CaseRun", "Listener", "RunEnd"]


class CaseSource(Protocol):
    """What runs the cases: a `Supervisor`, or `Workers` (palconf.running.parallel)."""

    def results(self, cases: Iterable[Case]) -> Generator[Result, None, None]: ...

    def interrupt(self) -> list[Result]:
        """^C or SIGTERM: stop at once; the finished results not yet given."""
        ...


class Listener(Protocol):
    def on_result(self, result: Result) -> None: ...

    def on_finish(self, end: RunEnd) -> None: ...


@dataclass
class RunEnd:
    """How a run ended: every result (resumed ones first), the ids not as expected, and why
    it stopped early, if it did."""

    results: list[Result]
    mismatched: set[str]
    total: int  # the cases selected, resumed ones included
    stopped: str = ""  # the engine broke too often (RunStopped)
    max_failed: str = ""  # --max-fail reached
    interrupted: bool = False  # ^C

    @property
    def not_run(self) -> int:
        return self.total - len(self.results)

    @property
    def bad(self) -> bool:
        return bool(self.mismatched or self.stopped or self.max_failed or self.interrupted)


@dataclass
class CaseRun:
    supervisor: CaseSource
    expectations: Expectations
    total: int
    max_fail: int | None = None
    #: results read back for --resume: judged again, counted, not sent to listeners
    resumed: Sequence[Result] = ()
    listeners: list[Listener] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.results: list[Result] = []
        self.mismatched: set[str] = set()
        for r in self.resumed:
            self._judge(r)
            self.results.append(r)
        self._unexpected_now = 0  # this run's results not as expected (for --max-fail)

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _judge(self, result: Result) -> bool:
        ok = self.expectations.judge(result)
        if not ok:
            self.mismatched.add(result.id)
        return ok

    def add(self, result: Result) -> bool:
        """Record one result and tell the listeners; False once `--max-fail` is reached."""
        if not self._judge(result):
            self._unexpected_now += 1
        self.results.append(result)
        for listener in self.listeners:
            listener.on_result(result)
        return self.max_fail is None or self._unexpected_now < self.max_fail

    def run(
        self,
        todo: Iterable[Case],
        skipped: Iterable[tuple[Case, str]] = (),
        skip_result: Callable[[Case, str], Result] | None = None,
    ) -> RunEnd:
        """Run `todo` (after recording `skipped`, each with its reason) and end the run."""
        end = RunEnd(self.results, self.mismatched, self.total)
        results: Generator[Result, None, None] | None = None
        try:
            going = True
            for case, reason in skipped:
                assert skip_result is not None
                going = self.add(skip_result(case, reason)) and going
            results = self.supervisor.results(todo if going else ())
            for result in results:
                if not self.add(result):
                    break
            if self.max_fail is not None and self._unexpected_now >= self.max_fail:
                end.max_failed = f"{self._unexpected_now} result(s) not as expected (--max-fail)"
        except RunStopped as e:
            end.stopped = str(e)
        except BaseException as e:
            if not is_stop(e):
                raise
            # ^C or SIGTERM, wherever it landed: every engine stopped at once, and every
            # result that finished recorded (a -j run's, past a case still running)
            end.interrupted = True
            for result in self.supervisor.interrupt():
                self.add(result)
            self._finish(end)
            raise
        finally:
            if results is not None:
                results.close()  # the workers of a -j run stop taking cases
        self._finish(end)
        return end

    def _finish(self, end: RunEnd) -> None:
        for listener in self.listeners:
            listener.on_finish(end)


def is_news(result: Result, mismatched: set[str]) -> bool:
    """Whether a result is shown as a FAIL block: not as expected, or a failure at all."""
    return (
        result.outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT, Outcome.XPASS)
        or result.id in mismatched
    )
