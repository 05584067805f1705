"""Issue 33: a replayed game is pipelined through the wire (generators.pipeline): the same
requests in the same order, the same verdicts, faults laid to the same request."""

from __future__ import annotations

import sys
from itertools import islice
from typing import Any

from palconf.engines.process import ProcessEngine
from palconf.generators.directed import directed_games
from palconf.generators.lockstep import run_game
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
