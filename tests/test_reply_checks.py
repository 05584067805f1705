"""Issue 33: through the wire, a reply to `observe` or `legal` that is the oracle's own is
not checked against the protocol's schema again (generators.replies); any other is, first,
with the same `ProtocolViolation` and message as every reply had before."""

from __future__ import annotations

import json
import sys
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

import palconf.engines.process as process
from palconf.engines.process import ProcessEngine
from palconf.engines.schemas import check_reply_shape
from palconf.generators.differential import fuzz
from palconf.generators.directed import directed_games
from palconf.generators.lockstep import run_game
from palconf.oracle import Rules
from palconf.oracle.keywords import KEYWORD_IDS

SERVE = [sys.executable, "-m", "palconf.cli", "serve"]


def test_the_oracles_own_replies_are_not_checked_again(monkeypatch: Any) -> None:
    checked: list[str] = []

    def counting(cmd: str, reply: Any) -> str | None:
        checked.append(cmd)
        return check_reply_shape(cmd, reply)

    monkeypatch.setattr(process, "check_reply_shape", counting)
    engine = ProcessEngine(SERVE)
    engine.start()
    try:
        report = fuzz(engine, examples=10, seed=2, directed=False, shrink=False)
    finally:
        engine.close()
    assert report.difference is None and report.actions > 50
    assert "act" in checked  # (other replies are checked as before)
    assert checked.count("observe") == checked.count("legal") == 0


BAD = {
    "observe": {"ok": True, "state": {"turn": 1}},
    "legal": {"ok": True, "actions": [7]},
}


def malformed(tmp_path: Path, cmd: str, nth: int) -> list[str]:
    """An engine that answers as the oracle, but its `nth` reply to `cmd` is `BAD[cmd]`."""
    script = tmp_path / "malformed.py"
    script.write_text(
        "import sys, json\n"
        "from palconf.oracle import Session, Rules\n"
        "s, n = Session(Rules), 0\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    reply = s.handle(req)\n"
        f"    if req.get('cmd') == {cmd!r}:\n"
        "        n += 1\n"
        f"        if n == {nth}:\n"
        f"            reply = {BAD[cmd]!r}\n"
        "    print(json.dumps(reply), flush=True)\n",
        encoding="utf-8",
    )
    return [sys.executable, str(script)]


@pytest.mark.parametrize("cmd", ["observe", "legal"])
def test_a_malformed_reply_gets_the_protocols_message(tmp_path: Path, cmd: str) -> None:
    message = (
        f"ProtocolViolation: the reply to `{cmd}` does not follow the protocol: "
        f"{check_reply_shape(cmd, json.loads(json.dumps(BAD[cmd])))}"
    )
    game = next(
        g for g in islice(directed_games(Rules, tuple(KEYWORD_IDS)), 40) if len(g.steps) > 3
    )
    argv = malformed(tmp_path, cmd, 3)
    for pipeline in (False, True):
        with ProcessEngine(argv) as engine:
            found = run_game(engine, game, pipeline=pipeline)
        assert found is not None
        assert (found.kind, found.summary) == ("engine-error", message)
    with ProcessEngine(argv) as engine:  # a campaign, following the games as drawn
        found = fuzz(engine, examples=5, seed=2, directed=False, shrink=False).difference
    assert found is not None
    assert (found.kind, found.summary) == ("engine-error", message)
