"""Issue 33: a replayed game is pipelined through the wire (generators.pipeline): the same
requests in the same order, the same verdicts, faults laid to the same request."""

from __future__ import annotations

import sys
import time
from itertools import islice
from typing import Any

import pytest

from palconf.engines.process import ProcessEngine
from palconf.generators.differential import fuzz
from palconf.generators.directed import directed_games
from palconf.generators.lockstep import LAG, Trailing, run_game
from palconf.generators.pipeline import Ahead, planned
from palconf.oracle import Rules
from palconf.oracle.keywords import KEYWORD_IDS

SERVE = [sys.executable, "-m", "palconf.cli", "serve"]


def games(n: int) -> list[Any]:
    return list(islice(directed_games(Rules, tuple(KEYWORD_IDS)), n))


class Recording:
    """An engine that records every request it is sent (posted or plain)."""

    def __init__(self, inner: ProcessEngine) -> None:
        self.inner = inner
        self.info = inner.info
        self.sent: list[Any] = []

    def request(self, msg: dict[str, Any]) -> Any:
        self.sent.append(msg)
        return self.inner.request(msg)

    def request_line(self, line: bytes, label: str) -> Any:
        self.sent.append(line)
        return self.inner.request_line(line, label)

    def post(self, msg: dict[str, Any]) -> int:
        self.sent.append(msg)
        return self.inner.post(msg)

    def post_line(self, line: bytes, label: str) -> int:
        self.sent.append(line)
        return self.inner.post_line(line, label)

    def collect(self) -> Any:
        return self.inner.collect()

    @property
    def broken(self) -> bool:
        return self.inner.broken


def test_a_pipelined_replay_sends_exactly_the_requests_of_a_plain_one() -> None:
    engine = ProcessEngine(SERVE)
    engine.start()
    try:
        for game in games(12):
            plain, piped = Recording(engine), Recording(engine)
            assert run_game(plain, game) is None
            assert run_game(piped, game, pipeline=True) is None
            assert piped.sent == plain.sent
            assert len(plain.sent) == len(list(planned(game, True)))
    finally:
        engine.close()


@pytest.mark.slow  # 40 sweep games of 150 actions, each played twice
def test_a_difference_found_pipelined_is_the_plain_runs_and_the_stream_stays_in_step() -> None:
    mutant = [*SERVE, "--mutant", "taunt-ignored"]
    engine, other = ProcessEngine(mutant), ProcessEngine(mutant)
    engine.start()
    other.start()
    try:
        found = 0
        for game in games(40):
            a = run_game(engine, game)
            b = run_game(other, game, pipeline=True)
            assert (a is None) == (b is None)
            if a is not None and b is not None:
                found += 1
                assert (a.step, a.kind, a.summary, a.fields) == (
                    b.step,
                    b.kind,
                    b.summary,
                    b.fields,
                )
        assert found, "the mutant differs on none of the games"
        assert other.request({"cmd": "observe"})["ok"] in (True, False)  # nothing left over
    finally:
        engine.close()
        other.close()


def test_a_crash_is_laid_to_the_request_it_happened_on(tmp_path: Any) -> None:
    script = tmp_path / "dies.py"
    script.write_text(
        "import sys, json\n"
        "from palconf.oracle import Session, Rules\n"
        "s = Session(Rules)\n"
        "n = 0\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    if req.get('cmd') == 'act':\n"
        "        n += 1\n"
        "        if n == 3:\n"
        "            sys.exit(7)\n"
        "    print(json.dumps(s.handle(req)), flush=True)\n",
        encoding="utf-8",
    )
    game = next(g for g in games(40) if sum(not s.is_setup and not s.is_wire for s in g.steps) > 4)
    results = []
    for pipeline in (False, True):
        engine = ProcessEngine([sys.executable, str(script)])
        engine.start()
        try:
            results.append(run_game(engine, game, pipeline=pipeline))
        finally:
            engine.close()
    plain, piped = results
    assert plain is not None and piped is not None
    assert plain.kind == piped.kind == "engine-error"
    assert (plain.step, plain.summary) == (piped.step, piped.summary)
    assert "exited with status 7" in piped.summary


def test_ahead_keeps_its_window_within_the_pipe() -> None:
    engine = ProcessEngine(SERVE)
    engine.start()
    try:
        game = max(games(20), key=lambda g: len(g.steps))
        ahead = Ahead(engine, planned(game, True))
        ahead.request({"cmd": "setup", "state": game.state})
        assert 0 < engine.in_flight <= 24
        assert ahead.drain() > 0
        assert engine.in_flight == 0
    finally:
        engine.close()


# ------------------------------------------------------------ Trailing: fuzzing while drawing


class Counting(ProcessEngine):
    """`palconf serve`, counting the writes to its stdin."""

    writes = 0

    def _send(self, data: bytes, label: str, deadline: float) -> bool:
        self.writes += 1
        return super()._send(data, label, deadline)


class Plain:
    """An engine that cannot pipeline: a campaign follows it with a plain `Lockstep`."""

    def __init__(self, inner: ProcessEngine) -> None:
        self.inner = inner
        self.info = inner.info

    def request(self, msg: dict[str, Any]) -> Any:
        return self.inner.request(msg)

    def request_line(self, line: bytes, label: str) -> Any:
        return self.inner.request_line(line, label)

    def restart(self) -> Any:
        return self.inner.restart()


def test_a_campaign_through_the_wire_writes_a_few_steps_at_a_time() -> None:
    """Issue 33: the games drawn by Hypothesis are followed `LAG` steps behind, their
    requests written a batch at a time (not one write and one wait per request)."""
    engine = Counting(SERVE)
    engine.start()
    try:
        report = fuzz(engine, examples=15, seed=3, directed=False, shrink=False)
        assert report.difference is None
        assert report.actions > 100
        assert engine.writes * 2 <= report.actions, (engine.writes, report.actions)
        assert engine.in_flight == 0
    finally:
        engine.close()


def test_a_campaign_finds_through_the_wire_what_a_plain_lockstep_finds() -> None:
    """The same difference (step, kind, fields, game), trailing or not, and nothing left in
    flight after it."""
    mutant = [*SERVE, "--mutant", "deploy-enters-rested"]
    engine, other = ProcessEngine(mutant), ProcessEngine(mutant)
    engine.start()
    other.start()
    try:
        kw: dict[str, Any] = {"examples": 30, "seed": 1, "directed": False, "shrink": False}
        trailing = fuzz(engine, **kw).difference
        plain = fuzz(Plain(other), **kw).difference  # type: ignore[arg-type]
        assert trailing is not None and plain is not None
        assert (trailing.step, trailing.kind, trailing.summary, trailing.fields) == (
            plain.step,
            plain.kind,
            plain.summary,
            plain.fields,
        )
        assert trailing.game == plain.game
        assert len(trailing.game.steps) == trailing.step  # the game ends where it differed
        assert engine.in_flight == 0
        assert engine.request({"cmd": "observe"})["ok"] is True  # the stream is in step
    finally:
        engine.close()
        other.close()


def test_a_game_cut_short_leaves_nothing_in_flight_for_the_next() -> None:
    engine = ProcessEngine(SERVE)
    engine.start()
    try:
        first, second = games(2)
        follow = Trailing(engine)
        assert follow.begin(first.state, first.start, first.start_legal) is None
        for s in first.steps[: 3 * LAG]:  # drawing stops there (Hypothesis gave up on it)
            assert follow.step(s) is None
        assert engine.in_flight > 0
        assert follow.begin(second.state, second.start, second.start_legal) is None
        assert engine.in_flight == 0
        for s in second.steps:
            assert follow.step(s) is None
        assert follow.finish() is None
        assert len(follow.steps) == len(second.steps)
        assert engine.in_flight == 0
    finally:
        engine.close()


def test_a_reply_waits_its_timeout_from_when_its_request_was_written() -> None:
    """A request posted long before its reply is read: its timeout runs from when it was
    written (and the reply before it read), and a reply that is there is never late."""
    engine = ProcessEngine(SERVE, timeout=1.0)
    engine.start()
    try:
        engine.post({"cmd": "observe"})
        time.sleep(1.5)  # posted, not yet written: the engine has not seen it
        assert engine.collect()["ok"] is False  # (no game yet: `no-game`)
        engine.post({"cmd": "observe"})
        engine.flush()
        time.sleep(1.5)  # written, answered long ago
        assert engine.collect()["ok"] is False
    finally:
        engine.close()
