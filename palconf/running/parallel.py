"""`palconf run -j N`: N engines, each taking the next case from one queue.

Each worker is a thread that owns one engine (made by the engine factory, so one process
per worker for a `--engine-cmd` engine) and runs its cases through its own `Supervisor`:
the restart policy, the timeouts and the stderr capture are the one-engine run's, per
worker. The engine waits rather than computes, so threads are enough: the worker blocks in
`poll` while its engine thinks (an in-process engine gains nothing: it computes under the
GIL).

`Workers` stands in for the one engine and the `Supervisor` of a run (`CaseRun` takes it as
its case source): `start` starts every engine at once and fails, with every engine closed
again, when any of them cannot start; `results` yields the results in the suite's order (a
result waits until those before it are in), so a `-j 4` run's results file and terminal
read like a `-j 1` run's. Closing `results`' generator (the caller stopped: `-x`,
`--max-fail`) lets each worker end its current case and stop; the results that came in
past that point are dropped, as a `-j 1` run would not have run those cases (`--resume`
runs them). When a worker's engine breaks `max_restarts` times in a row the whole run
stops: the other workers end their current case, every result that came in is yielded (in
order), then `RunStopped` is raised, as the `Supervisor` does.

^C and SIGTERM (any exception that is not an `Exception`: `is_stop`) stop every worker at
once: `interrupt` kills every engine where it stands (`abort`: no worker waits for its
case's timeout), ends the workers, and returns every result that came in and was not yet
yielded, past a case still running included; a case the kill cut short (its `error` or
`timeout`) is not kept, for `--resume` to run it. The session calls it (`CaseRun`), wherever
the signal lands.

`-j auto` (`Workers(..., auto=True)`): one engine starts; its worker runs the first cases
alone and measures them (palconf.running.auto_jobs), then the workers the measure chooses
join it on the same queue, each starting its own engine (one that does not start ends its
worker, and the others go on). The results are those of any `-j`: the measure uses the
cases the worker runs anyway.

An engine started in a thread dies with that thread on Linux (the parent-death signal
follows the thread that forks, `palconf.engines.processes.die_with_parent`); each worker
says so (`outlives_its_engines`): it closes its engine before it ends, and lives as long as
its engine, so the engine dies with palconf however palconf ends, SIGKILL included.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from palconf.cases.loader import Case
from palconf.core import Engine, EngineInfo, Outcome, Result
from palconf.engines.processes import outlives_its_engines
from palconf.running.auto_jobs import Choice, Probe
from palconf.running.supervisor import DEFAULT_MAX_RESTARTS, RunStopped, Supervisor, abort, is_stop

__all__ = ["Workers", "in_order"]

T = TypeVar("T")
R = TypeVar("R")


def in_order(items: Sequence[T], jobs: int, work: Callable[[T], R]) -> Iterator[R]:
    """`work` on each item, in `jobs` threads that each take the next item from one queue
    (`palconf mutants -j N` with an engine command: one mutant at a time per worker, each
    with its own engine process); the results in the items' order."""
    with ThreadPoolExecutor(
        max_workers=jobs, thread_name_prefix="palconf-worker", initializer=outlives_its_engines
    ) as pool:
        yield from pool.map(work, items)


class _Worker(threading.Thread):
    """One engine, and the cases it takes from the shared queue."""

    def __init__(self, pool: Workers, engine: Engine, probe: bool = False) -> None:
        super().__init__(name=f"palconf-worker-{len(pool.workers)}", daemon=True)
        self.pool = pool
        self.engine = engine
        self.current = -1  # the index of the case this worker took last
        self.probe: Probe | None = None  # `-j auto`: the first worker measures its engine
        self.measures = probe

    def run(self) -> None:
        pool = self.pool
        outlives_its_engines()  # the engine is closed below, before the thread ends
        try:
            try:
                self.engine.start()
            except BaseException as e:  # noqa: B036 (handed to the main thread, raised there)
                pool.started.put((self, e))
                return
            pool.started.put((self, None))
            if self.measures:
                self.probe = Probe(self.engine, cap=pool.jobs)
            pool.go.wait()
            if pool.stop.is_set():
                return
            try:
                supervisor = Supervisor(self.engine, pool.max_restarts)
                for r in supervisor.results(self.take()):
                    if pool.aborted.is_set() and r.outcome in (Outcome.ERROR, Outcome.TIMEOUT):
                        continue  # cut short by the kill (`abort`): left for --resume
                    pool.done.put(("result", self.current, r))
            except RunStopped as e:
                pool.stop.set()
                pool.done.put(("stopped", self.current, str(e)))
            except BaseException as e:  # noqa: B036 (palconf's own failure: raised by `run`)
                pool.stop.set()
                pool.done.put(("crashed", self.current, e))
        finally:
            try:
                self.engine.close()
            finally:
                pool.done.put(("ended", self.current, None))

    def take(self) -> Iterator[Case]:
        """The next cases of the shared queue, until it is empty or the run stops."""
        while not self.pool.stop.is_set():
            with self.pool.lock:
                item = next(self.pool.queue, None)
            if self.probe is not None and not self.probe.done:
                choice = self.probe.tick(ended=item is None)
                if choice is not None:
                    self.pool.done.put(("chosen", -1, choice))
            if item is None:
                return
            self.current, case = item
            yield case


class Workers:
    """`jobs` engines made by `make_engine`, started together, running one queue of cases.

    With `auto` (`-j auto`), `jobs` is the most workers: one engine starts, its worker runs
    the first cases alone and measures them (palconf.running.auto_jobs), and the workers
    the measure chooses join it then, each starting its own engine (one that does not start
    leaves the run to the others). `on_choice` is told the choice, from the thread that
    reads `results`; `choice` keeps it."""

    def __init__(
        self,
        make_engine: Callable[[], Engine],
        jobs: int,
        max_restarts: int = DEFAULT_MAX_RESTARTS,
        *,
        auto: bool = False,
        on_choice: Callable[[Choice], None] | None = None,
    ) -> None:
        self.make_engine = make_engine
        self.jobs = jobs
        self.max_restarts = max_restarts
        self.auto = auto
        self.on_choice = on_choice
        self.choice: Choice | None = None
        self.workers: list[_Worker] = []
        self.started: queue.Queue[tuple[_Worker, BaseException | None]] = queue.Queue()
        self.done: queue.Queue[tuple[str, int, Any]] = queue.Queue()
        self.go = threading.Event()
        self.stop = threading.Event()
        self.aborted = threading.Event()  # ^C or SIGTERM: every engine killed where it stands
        self.pending: dict[int, Result] = {}  # results in, not yet yielded (by index)
        self.lock = threading.Lock()
        self.queue: Iterator[tuple[int, Case]] = iter(())
        self.failed: Engine | None = None  # the engine that did not start (its stderr)

    @property
    def info(self) -> EngineInfo:
        return self.workers[0].engine.info

    def take_stderr(self) -> str:
        return self.failed.take_stderr() if self.failed is not None else ""

    def start(self) -> EngineInfo:
        """Start every engine at once; the first fault (every engine closed again) is
        raised as the one engine's would be."""
        faults = []
        try:
            for _ in range(1 if self.auto else self.jobs):
                worker = _Worker(self, self.make_engine(), probe=self.auto)
                self.workers.append(worker)
                worker.start()
            for _ in self.workers:
                worker, fault = self.started.get()
                if fault is not None:
                    faults.append((worker, fault))
        except BaseException as e:
            if is_stop(e):
                self.abort()
            self.close()
            raise
        if faults:
            self.failed = faults[0][0].engine
            self.close()
            raise faults[0][1]
        return self.info

    def results(self, cases: Iterable[Case]) -> Generator[Result, None, None]:
        """Every case on the started engines; the results in the order of `cases`."""
        self.queue = iter(list(enumerate(cases)))
        self.go.set()
        pending = self.pending
        next_index, running = 0, len(self.workers)
        stopped, crashed = "", None
        try:
            while running:
                kind, index, value = self.done.get()
                if kind == "result":
                    pending[index] = value
                elif kind == "stopped":
                    stopped = stopped or value
                elif kind == "crashed":
                    crashed = crashed or value
                elif kind == "chosen":
                    running += self._chosen(value)
                else:
                    running -= 1
                while next_index in pending and not crashed:
                    yield pending.pop(next_index)
                    next_index += 1
            if crashed is not None:
                raise crashed
            for index in sorted(pending):  # past a case a stopped worker did not end
                yield pending.pop(index)
            if stopped:
                raise RunStopped(stopped)
        except BaseException as e:
            if is_stop(e):  # ^C or SIGTERM while waiting: no worker waits for its case
                self.abort()
            raise
        finally:
            self.close()

    def _chosen(self, choice: Choice) -> int:
        """`-j auto` chose: tell `on_choice`, start the workers that join the first one; how
        many were started."""
        self.choice = choice
        if self.on_choice is not None:
            self.on_choice(choice)
        joined = 0
        while not self.stop.is_set() and len(self.workers) < choice.jobs:
            worker = _Worker(self, self.make_engine())
            self.workers.append(worker)
            worker.start()
            joined += 1
        return joined

    def close(self) -> None:
        """Stop taking cases; every worker ends its case and closes its engine."""
        self.stop.set()
        self.go.set()
        for worker in self.workers:
            worker.join()

    def abort(self) -> None:
        """Stop taking cases and kill every engine where it stands (from the main thread,
        at ^C or SIGTERM); each worker then ends at once and closes its engine."""
        self.aborted.set()  # first: the kill's own faults are not results
        self.stop.set()
        self.go.set()
        for worker in self.workers:
            abort(worker.engine)

    def interrupt(self) -> list[Result]:
        """^C or SIGTERM: every engine killed, every worker ended; the results that came in
        and were not yielded, in the suite's order (each finished case's, for the results
        file: `--resume` runs the others)."""
        self.abort()
        self.close()
        while True:
            try:
                kind, index, value = self.done.get_nowait()
            except queue.Empty:
                break
            if kind == "result":
                self.pending[index] = value
        return [self.pending.pop(index) for index in sorted(self.pending)]
