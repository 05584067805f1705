"""Pipelining a lockstep replay through the wire (issue 33).

A replayed `Game` (`lockstep.run_game`) is known in full before it is sent, and so are the
requests a run that finds no difference sends: `setup`, `observe`, `legal`, then for each
step its request (an `act`, a setup step's `setup`, a wire step's line), `observe`, and
`legal` unless nothing can have changed it (`planned`). Protocol v1 answers one reply per
request, in order, so these can be written ahead of their turn (`Ahead`): the engine
works on the next requests while palconf reads and compares the replies before them, and
a round trip is paid once per window, not once per request.

`Ahead` stands for the engine in `Lockstep`, which runs unchanged: each request it sends
must be the next one planned, and gets the reply read for it, in order, with the faults
of that reply (a crash, a timeout, a line that is not a reply) raised then, for it. A
request that was not planned (never, short of a bug) is sent plainly after what is in
flight. `drain` reads the replies to what was written past the point where the replay
stopped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from palconf.core import EngineFault

from .game import Game, Step, wire_line

#: At most this many requests, and this many bytes of them, in flight: the bytes well
#: inside a pipe's 64 KiB, so that writing ahead never waits on an engine busy writing.
AHEAD = 24
AHEAD_BYTES = 24 * 1024

OBSERVE: dict[str, Any] = {"cmd": "observe"}
LEGAL: dict[str, Any] = {"cmd": "legal"}

#: A planned request: the request object (None for a raw line), the raw line, its label.
Planned = tuple[dict[str, Any] | None, bytes | None, str]


def can_pipeline(engine: Any) -> bool:
    """Does `engine` take requests written ahead (`post`, `post_line`, `collect`)?"""
    return all(callable(getattr(engine, m, None)) for m in ("post", "post_line", "collect"))


def planned(game: Game, compare_legal: bool) -> Iterator[Planned]:
    """The requests `Lockstep` sends replaying `game` when it finds no difference, in
    order (its rule for when `legal` is asked again: `Lockstep._compare_state`)."""
    yield {"cmd": "setup", "state": game.state}, None, "setup"
    yield OBSERVE, None, "observe"
    seen = None
    if compare_legal:
        yield LEGAL, None, "legal"
        seen = game.start_legal
    for n, s in enumerate(game.steps, 1):
        requests, seen = step_requests(n, s, compare_legal, seen)
        yield from requests


def step_requests(
    n: int, s: Step, compare_legal: bool, seen: list[dict[str, Any]] | None
) -> tuple[list[Planned], list[dict[str, Any]] | None]:
    """The requests `Lockstep` sends for step `n`, `s`, when it finds no difference, and
    the LEGAL list last compared after it (`seen`: the one before: `legal` is not asked
    again after a refusal in the position it was last compared at)."""
    if s.is_setup:
        first: Planned = ({"cmd": "setup", "state": s.action["setup"]}, None, "setup")
    elif s.is_wire:
        first = (None, wire_line(s.action), f"wire step {n}")
    else:
        first = ({"cmd": "act", "action": s.action}, None, "act")
    if compare_legal and not (s.legal is seen and not s.accepted):
        return [first, (OBSERVE, None, "observe"), (LEGAL, None, "legal")], s.legal
    return [first, (OBSERVE, None, "observe")], seen


class Ahead:
    """`engine` (one that can pipeline: `can_pipeline`) with the `plan`ned requests written
    ahead of their turn; what `Lockstep` needs of an engine (`info`, `request`,
    `request_line`)."""

    def __init__(self, engine: Any, plan: Iterable[Planned]) -> None:
        self.engine = engine
        self.info = getattr(engine, "info", None)
        #: the engine's shape check of a reply, for `request_unchecked`'s (None: it has none)
        self.checked = getattr(engine, "checked", None)
        self._plan: deque[Planned] = deque(plan)
        self._posted: deque[tuple[dict[str, Any] | None, bytes | None, str, int]] = deque()
        self._bytes = 0

    @property
    def broken(self) -> bool:
        return bool(getattr(self.engine, "broken", False))

    def request(self, msg: dict[str, Any]) -> Any:
        return self._take(msg, None, str(msg.get("cmd")))

    def request_unchecked(self, msg: dict[str, Any]) -> Any:
        """The reply, its shape unchecked (the engine's `checked` checks it)."""
        return self._take(msg, None, str(msg.get("cmd")), check=False)

    def request_line(self, line: bytes, label: str) -> Any:
        return self._take(None, line, label)

    def _take(
        self, msg: dict[str, Any] | None, line: bytes | None, label: str, check: bool = True
    ) -> Any:
        if len(self._posted) <= AHEAD // 2:  # refilled by halves: a write per many replies
            self._fill()
        if self._posted:
            m, raw, lab, size = self._posted[0]
            if lab == label and raw == line and (m is msg or m == msg):
                self._posted.popleft()
                self._bytes -= size
                return self.engine.collect() if check else self.engine.collect(check=False)
        self.drain()  # not the planned request: sent plainly, after what is in flight
        if line is None:
            assert msg is not None
            return self.engine.request(msg) if check else self.engine.request_unchecked(msg)
        return self.engine.request_line(line, label)

    def extend(self, plan: Iterable[Planned]) -> None:
        """More requests planned, after those planned so far."""
        self._plan.extend(plan)

    def send(self) -> None:
        """Write what fits in the window now, for the engine to work on meanwhile (else it
        is written before the next reply is read)."""
        self._fill()
        flush = getattr(self.engine, "flush", None)
        if self._posted and callable(flush):
            flush()

    def _fill(self) -> None:
        engine = self.engine
        plan = self._plan
        while plan and len(self._posted) < AHEAD and self._bytes < AHEAD_BYTES:
            if self.broken:
                return
            msg, line, label = plan.popleft()
            size = engine.post(msg) if line is None else engine.post_line(line, label)
            self._posted.append((msg, line, label, size))
            self._bytes += size

    def drain(self) -> int:
        """Read and drop the replies to the requests written but not taken; stop writing
        ahead. How many there were (a fault while reading them leaves the engine broken)."""
        self._plan.clear()
        drained = len(self._posted)
        while self._posted and not self.broken:
            self._posted.popleft()
            try:
                self.engine.collect()
            except EngineFault:
                continue  # a reply of the wrong shape leaves the stream in step; else broken
        self._posted.clear()
        self._bytes = 0
        return drained
