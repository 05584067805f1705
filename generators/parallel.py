"""Differential fuzzing on several cores: `fuzz_parallel` runs `fuzz()` in N worker processes.

Each worker starts its OWN engine (`engine_factory()`, e.g. the same `--engine-cmd`, or the
oracle in-process) and plays its share of the examples with its own seed (`seed + i *
SEED_STRIDE`: worker 0 has the single-process seed); the directed sweep runs once, in
worker 0. The parent merges what the workers send (`Event`s on one queue): the counts for
one live progress line, the hits, and the differences. A difference is shrunk in the worker
that found it, with its engine; its signatures are sent to the other workers, which pass
over games of the same signature (keep-going), so each distinct difference is shrunk and
reported once. Once enough distinct differences are in (`max_differences`), the others are
told to stop (at the next game; never while shrinking). A worker whose parent is gone
(killed) stops too, at its next game.

An engine that cannot start in a worker ends the run: `WorkerFailed` with the engine's
message, every other worker stopped and joined (each worker's engine dies with it:
`palconf.engines.processes.die_with_parent`). Workers are forked where the platform can (Linux),
else spawned (then `engine_factory` and `database_factory` must be picklable).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis.database import ExampleDatabase

from palconf.core import Engine, EngineFault
from palconf.core.errors import PalconfError
from palconf.engines.processes import cpu_count

from .differential import FuzzReport, fuzz, signature

__all__ = ["SEED_STRIDE", "WorkerFailed", "cpu_count", "fuzz_parallel", "shares"]

#: worker i's seed is `seed + i * SEED_STRIDE` (keep-going uses `seed + round` in a worker)
SEED_STRIDE = 1_000_003
#: seconds between a worker's progress messages
WORKER_EVERY = 0.25


def shares(examples: int, workers: int) -> list[int]:
    """`examples` split as evenly as can be: the first ones get one more."""
    base, extra = divmod(examples, workers)
    return [base + (i < extra) for i in range(workers)]


class WorkerFailed(PalconfError):
    """A worker could not go on: its engine did not start (or could not be restarted)."""

    def __init__(self, worker: int, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.worker, self.message, self.stderr = worker, message, stderr


@dataclass
class _Live:
    """What the parent knows of one worker so far."""

    examples: int = 0
    actions: int = 0
    skipped: int = 0
    report: FuzzReport | None = None
    done: bool = False


@dataclass
class _Config:
    examples: int
    seed: int
    directed: bool
    kwargs: dict[str, Any] = field(default_factory=dict)
    parent: int = 0  # the parent's pid


def _context() -> Any:
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def fuzz_parallel(
    engine_factory: Callable[[], Engine],
    *,
    workers: int,
    examples: int = 200,
    seed: int = 0,
    directed: bool = True,
    max_differences: int = 1,
    database_factory: Callable[[], ExampleDatabase | None] | None = None,
    progress: Callable[[FuzzReport, str], None] | None = None,
    **kwargs: Any,
) -> FuzzReport:
    """`fuzz()` in `workers` processes, merged into one FuzzReport (see the module).
    `kwargs` go to each worker's `fuzz()` (max_actions, setup_share, probe_share, shrink,
    keywords, rules). `progress(report, event)` is called in this process with the merged
    report: "example" (at most every WORKER_EVERY seconds per worker), "found" and
    "difference". Raises WorkerFailed when a worker's engine cannot be started."""
    if workers < 1:
        raise ValueError(f"workers must be 1 or more, not {workers}")
    ctx = _context()
    events = ctx.Queue()
    stop = ctx.Event()
    inboxes = [ctx.Queue() for _ in range(workers)]
    procs = []
    for i, share in enumerate(shares(examples, workers)):
        config = _Config(share, seed + i * SEED_STRIDE, directed and i == 0, kwargs, os.getpid())
        proc = ctx.Process(
            target=_worker,
            args=(i, config, max_differences, engine_factory, database_factory),
            kwargs={"events": events, "inbox": inboxes[i], "stop": stop},
            name=f"palconf-fuzz-{i}",
            daemon=True,
        )
        procs.append(proc)
    live = [_Live() for _ in range(workers)]
    merged = FuzzReport()
    seen: set[tuple[str, ...]] = set()
    started = time.perf_counter()
    try:
        for proc in procs:
            proc.start()
        while not all(w.done for w in live):
            try:
                event = events.get(timeout=0.5)
            except queue.Empty:
                event = None
            if event is None:
                for i, proc in enumerate(procs):
                    if not live[i].done and not proc.is_alive():
                        raise WorkerFailed(i, f"worker {i} died (exit status {proc.exitcode})")
                continue
            kind, i = event[0], event[1]
            if kind == "failed":
                raise WorkerFailed(i, event[2], event[3])
            w = live[i]
            if kind == "done":
                w.report, w.done = event[2], True
                w.examples, w.actions, w.skipped = (
                    w.report.examples,
                    w.report.actions,
                    w.report.skipped,
                )
            else:
                w.examples, w.actions, w.skipped = event[2], event[3], event[4]
            _counts(merged, live)
            if kind == "found" and merged.first_found_at is None:
                merged.first_found_at = merged.examples
                if progress:
                    progress(merged, "found")
            elif kind == "difference":
                diff, signatures = event[5], event[6]
                for k, inbox in enumerate(inboxes):
                    if k != i:
                        inbox.put(signatures)
                if signature(diff) not in seen and len(merged.differences) < max_differences:
                    merged.differences.append(diff)
                    merged.difference = merged.difference or diff
                    if progress:
                        progress(merged, "difference")
                seen.update(signatures)
                if len(merged.differences) >= max_differences:
                    stop.set()
            elif kind == "example" and progress:
                progress(merged, "example")
    finally:
        stop.set()
        _end(procs)
        for q in (events, *inboxes):
            q.close()
            q.join_thread()
    for w in live:
        assert w.report is not None
        merged.hits.update(w.report.hits)
        merged.flaky = merged.flaky or w.report.flaky
    merged.seconds = time.perf_counter() - started
    return merged


def _counts(merged: FuzzReport, live: list[_Live]) -> None:
    merged.examples = sum(w.examples for w in live)
    merged.actions = sum(w.actions for w in live)
    merged.skipped = sum(w.skipped for w in live)


def _end(procs: list[Any], grace: float = 5.0) -> None:
    """Join every worker: a stopped one ends at its next game; one that does not in
    `grace` seconds is terminated, then killed (its engine dies with it)."""
    deadline = time.monotonic() + grace
    for proc in procs:
        if proc.pid is None:
            continue
        proc.join(max(0.0, deadline - time.monotonic()))
    for proc in procs:
        if proc.pid is not None and proc.is_alive():
            proc.terminate()
            proc.join(2.0)
            if proc.is_alive():
                proc.kill()
                proc.join()


def _worker(
    i: int,
    config: _Config,
    max_differences: int,
    engine_factory: Callable[[], Engine],
    database_factory: Callable[[], ExampleDatabase | None] | None,
    *,
    events: Any,
    inbox: Any,
    stop: Any,
) -> None:
    """One worker: its own engine, its share of the examples, its events to the parent."""
    try:
        engine = engine_factory()
        engine.start()
    except EngineFault as e:
        message = (
            e.message if "cannot start" in e.message else f"cannot start the engine: {e.message}"
        )
        events.put(("failed", i, message, e.stderr or ""))
        return
    except Exception as e:  # a command that cannot be split, …: said, not a traceback
        events.put(("failed", i, str(getattr(e, "message", e)), ""))
        return
    known: set[tuple[str, ...]] = set()
    last = [0.0]

    def counts(report: FuzzReport) -> tuple[int, int, int]:
        return report.examples, report.actions, report.skipped

    def on_progress(report: FuzzReport, event: str) -> None:
        if event == "found":
            events.put(("found", i, *counts(report)))
        elif event == "difference":
            diff = report.differences[-1]
            sigs = {signature(d) for d in report.differences} | known
            events.put(("difference", i, *counts(report), diff, sigs))
        elif event == "example":
            now = time.monotonic()
            if now - last[0] >= WORKER_EVERY:
                last[0] = now
                events.put(("example", i, *counts(report)))

    def should_stop() -> bool:
        while True:
            try:
                known.update(inbox.get_nowait())
            except queue.Empty:
                break
        # told to, or the parent is gone (killed: nobody would read what this finds)
        return bool(stop.is_set()) or os.getppid() != config.parent

    try:
        report = fuzz(
            engine,
            examples=config.examples,
            seed=config.seed,
            directed=config.directed,
            max_differences=max_differences,
            database=database_factory() if database_factory else None,
            progress=on_progress,
            should_stop=should_stop,
            known=known,
            **config.kwargs,
        )
    except EngineFault as e:  # a restart after a crash failed
        events.put(("failed", i, f"the engine cannot be restarted: {e.message}", ""))
        return
    except KeyboardInterrupt:  # Ctrl-C reaches every worker: the parent says it once
        return
    finally:
        engine.close()
    report.differences = []  # already sent, one by one
    report.difference = None
    events.put(("done", i, report))
