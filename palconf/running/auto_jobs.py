"""`palconf run -j auto`: how many workers pay, measured on the run's own first cases.

The first worker runs the first cases alone (the cases it runs anyway: no extra request,
the results and transcripts are a `-j 1` run's) and measures, over `PROBE_SECONDS` (at
least `PROBE_CASES` cases, after the first), per case:

- `wall`: the wall time;
- `own`: palconf's busy time: its worker thread on a core or waiting for one (building
  requests, reading and checking replies, comparing), and `own_cpu`, on a core only;
- `engine`: the engine's CPU time (its threads on a core).

They come from the kernel's schedstats (palconf.engines.processes.core_seconds). Where the
kernel does not say, `own` is the thread's CPU time and every moment palconf did not compute
is taken for the engine's CPU time.

The model. palconf's own work runs under one interpreter lock: N workers do not make it
faster, so a case takes at least `own` (time waiting for a core included: on a machine busy
elsewhere, palconf's threads wait for it in turn). What palconf and the engines compute
together is shared by the cores: at least `(own_cpu + engine) / cores` a case. The rest of
the wall time (the engine waiting: on a sleep, a network, a disk, a lock, or for a core)
overlaps across workers. So N workers can at best bring a case to
`max(own, (own_cpu + engine) / cores)`. That best is not reached (each reply hands the
interpreter lock over, threads switch, every engine is a process of its own), so the model
counts on two thirds of it (`EFFICIENCY`):

    speed-up at best  S = wall / max(own, (own_cpu + engine) / cores)
    workers           N = floor(S × 2/3), from 1 to `cap` (default 4 per core)

A fast engine (it answers in a fraction of a millisecond) gets S under 3 however busy the
machine is: a case's wall time is palconf's busy time and the engine's, one after the
other, and the engine's is not twice palconf's. So 1 worker: more would only add thread
switches. An engine that waits gets as many workers as its waiting covers: more than the
cores when it waits rather than computes. `choose_jobs` is the rule, `Probe` the measuring;
`palconf run` prints the choice in one line (`Choice.line`).
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

from palconf.core import Engine
from palconf.engines.processes import core_seconds, cpu_count

__all__ = [
    "EFFICIENCY",
    "PER_CORE",
    "PROBE_CASES",
    "PROBE_SECONDS",
    "Choice",
    "Probe",
    "auto_cap",
    "choose_jobs",
]

#: how long the first worker measures alone (seconds of its cases), and at least how many cases
PROBE_SECONDS = 0.25
PROBE_CASES = 5
#: workers per core at most (an engine that waits uses no core while it waits)
PER_CORE = 4
#: the share of the best speed-up the model counts on
EFFICIENCY = 2 / 3


def auto_cap(cores: int | None = None) -> int:
    """The most workers `-j auto` chooses: `PER_CORE` per core this process may run on."""
    return PER_CORE * (cores if cores is not None else cpu_count())


def choose_jobs(
    wall: float,
    own: float,
    engine: float | None,
    cores: int,
    cap: int | None = None,
    *,
    own_cpu: float | None = None,
) -> int:
    """The workers that pay for cases that take `wall` seconds each on one worker, of which
    palconf is busy `own` (`own_cpu` of it on a core; default all of it) and the engine
    computes `engine` (None: not known, taken as all the time palconf was not busy). The
    module's docstring has the model."""
    cap = auto_cap(cores) if cap is None else cap
    if wall <= 0:
        return 1
    own = max(own, 0.0)
    own_cpu = own if own_cpu is None else max(own_cpu, 0.0)
    engine = max(wall - own, 0.0) if engine is None else max(engine, 0.0)
    best = max(own, (own_cpu + engine) / max(cores, 1))
    if best <= 0:
        return 1
    return max(1, min(cap, math.floor(wall / best * EFFICIENCY + 1e-9)))


@dataclass(frozen=True)
class Choice:
    """What `-j auto` chose, and from what."""

    jobs: int
    cases: int  # the cases measured
    wall: float  # seconds a case, on one worker
    own: float  # palconf's busy seconds a case (on a core or waiting for one)
    engine: float | None  # the engine's CPU seconds a case (None: not known)
    latency: float | None  # seconds an engine's reply took, on average
    ended: bool = False  # the cases ran out while measuring

    @property
    def line(self) -> str:
        """`-j auto: 1 worker (the engine answers in 0.11 ms; a case takes 1.9 ms: palconf
        busy 0.9 ms, the engine computes 0.8 ms)`."""
        workers = f"{self.jobs} worker{'' if self.jobs == 1 else 's'}"
        if self.cases == 0:
            return f"-j auto: {workers} (too few cases to measure the engine)"
        answers = f"the engine answers in {_ms(self.latency)}; " if self.latency is not None else ""
        engine = f", the engine computes {_ms(self.engine)}" if self.engine is not None else ""
        why = f"{answers}a case takes {_ms(self.wall)}: palconf busy {_ms(self.own)}{engine}"
        if self.ended:
            return f"-j auto: {workers} (the cases ran out while measuring: {why})"
        return f"-j auto: {workers} ({why})"


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.2g} ms" if ms < 10 else f"{ms:.0f} ms"


class Probe:
    """Measures one started engine's first cases, from the worker thread that runs them:
    `tick()` before each case; `done` once the measure is taken (`choice`)."""

    def __init__(self, engine: Engine, cores: int | None = None, cap: int | None = None) -> None:
        self.engine = engine
        self.cores = cores if cores is not None else cpu_count()
        self.cap = auto_cap(self.cores) if cap is None else cap
        self.cases = -1  # the first case is not measured (an engine warming up)
        self.choice: Choice | None = None
        self._thread = threading.get_ident()
        #: at the start of the measure: wall, own, own_cpu, engine, waited, replies, starts
        self._start = self._now()

    def _now(self) -> tuple[float, float, float, float | None, float, int, int]:
        mine = core_seconds()
        if mine is None:
            own = own_cpu = time.thread_time()
            engine = None
        else:
            own, own_cpu = mine[0] + mine[1], mine[0]
            of_engine = getattr(self.engine, "core_seconds", None)
            times = of_engine() if callable(of_engine) else None
            engine = times[0] if times is not None else None
        return (
            time.perf_counter(),
            own,
            own_cpu,
            engine,
            float(getattr(self.engine, "waited", 0.0)),
            int(getattr(self.engine, "replies", 0)),
            int(getattr(self.engine, "starts", 0)),
        )

    @property
    def done(self) -> bool:
        return self.choice is not None

    def tick(self, ended: bool = False) -> Choice | None:
        """Before each case (`ended`: there is none left): the choice once it is made."""
        if self.choice is not None:
            return self.choice
        assert threading.get_ident() == self._thread, "a Probe measures one thread"
        self.cases += 1
        restarted = int(getattr(self.engine, "starts", 0)) != self._start[6]
        if self.cases <= 0 or restarted:  # the first case, or a restart: measure from here
            self._start, self.cases = self._now(), 0
            if not ended:
                return None
        # (the kernel's figures are read at the two ends only: reading them costs)
        if not ended and (
            self.cases < PROBE_CASES or time.perf_counter() - self._start[0] < PROBE_SECONDS
        ):
            return None
        now, start = self._now(), self._start
        wall = now[0] - start[0]
        n = max(self.cases, 1)
        own, own_cpu = (now[1] - start[1]) / n, (now[2] - start[2]) / n
        engine = (now[3] - start[3]) / n if now[3] is not None and start[3] is not None else None
        replies = now[5] - start[5]
        latency = (now[4] - start[4]) / replies if replies else None
        jobs = (
            1
            if ended
            else choose_jobs(wall / n, own, engine, self.cores, self.cap, own_cpu=own_cpu)
        )
        self.choice = Choice(jobs, self.cases, wall / n, own, engine, latency, ended)
        return self.choice
