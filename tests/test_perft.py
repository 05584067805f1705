"""Perft (generators.perft, `palconf perft`): counting legal action sequences on the oracle
and on an engine, and walking down to where the counts split."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from palconf.cli import main as cli_main
from palconf.core import ProtocolViolation
from palconf.engines.oracle_engine import OracleEngine
from palconf.generators.perft import (
    EngineNavigator,
    OracleNavigator,
    PositionError,
    find_split,
    load_position,
    load_positions,
    perft,
)

from .engines.misread import MISREADINGS

ROOT = Path(__file__).resolve().parent.parent


def test_bare_position_counts_by_hand() -> None:
    """bare: A's one standing Pal a1, B nothing. By hand:
    1: attack master, end-turn = 2.
    2: after the attack B can only pass (block step); after end-turn B can only end-turn = 2.
    3: attack, pass → B passes (quick step); end, end → A attacks or ends = 1 + 2 = 3.
    4: attack, pass, pass → A passes; end, end, attack → B passes; end, end, end → B ends = 3.
    5: attack ×3 passes → battle, A can only end (a1 rested); e,e,attack,pass → B passes;
       e,e,e,e → A attacks or ends = 1 + 1 + 2 = 4."""
    (bare,) = [p for p in load_positions() if p.id == "bare"]
    nav = OracleNavigator(bare.state)
    assert [perft(nav, d) for d in range(1, 6)] == [2, 2, 3, 3, 4]


@pytest.mark.parametrize("position", load_positions(), ids=lambda p: p.id)
def test_stored_counts_are_the_oracles(position: Any) -> None:
    assert position.counts, "a position without counts"
    for depth, nodes in sorted(position.counts.items()):
        if nodes > 3000:
            continue  # tests/test_perft.py::test_deep_stored_counts (slow)
        assert perft(OracleNavigator(position.state), depth) == nodes, (position.id, depth)


@pytest.mark.slow
def test_deep_stored_counts() -> None:
    for position in load_positions():
        for depth, nodes in position.counts.items():
            if nodes > 3000:
                assert perft(OracleNavigator(position.state), depth) == nodes


def test_engine_navigator_counts_like_the_oracle() -> None:
    engine = OracleEngine()
    engine.start()
    for position in load_positions():
        nav = EngineNavigator(engine, position.state)
        assert perft(nav, 3) == position.counts[3], position.id


def test_find_split_walks_down_to_the_misread_keyword() -> None:
    (pos,) = [p for p in load_positions() if p.id == "night-battle"]
    wrong = OracleEngine(MISREADINGS["stealth-blockable"])
    wrong.start()
    assert perft(EngineNavigator(wrong, pos.state), 4) != pos.counts[4]
    split = find_split(OracleNavigator(pos.state), EngineNavigator(wrong, pos.state), 4)
    assert split is not None and not split.only_oracle
    assert split.only_engine and all(a["do"] == "block" for a in split.only_engine)
    assert split.path[-1]["do"] == "attack"
    right = OracleEngine()
    right.start()
    assert find_split(OracleNavigator(pos.state), EngineNavigator(right, pos.state), 4) is None


def _engine_cmd(*args: str) -> str:
    return " ".join([sys.executable, *args])


def test_perft_command_agrees_with_palconf_serve(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(
        ["perft", "--engine-cmd", _engine_cmd("-m", "palconf.cli", "serve"), "--depth", "2"]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.count(" ok ") == len(load_positions())


def test_perft_command_shows_where_counts_split(capsys: pytest.CaptureFixture[str]) -> None:
    cmd = _engine_cmd(str(ROOT / "tests" / "engines" / "misread.py"), "stealth-blockable")
    rc = cli_main(["perft", "--engine-cmd", cmd, "--depth", "4", "--position", "night-battle"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "SPLIT" in out and "<- split" in out
    assert 'only the engine lists: {"blocker": "a1", "do": "block", "player": "A"}' in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--depth", "0"], "--depth: must be a whole number from 1 to"),
        (["--depth", "2", "--position", "nowhere"], "unknown position(s) nowhere"),
    ],
)
def test_perft_command_bad_arguments(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:  # argparse itself refuses some (SystemExit 2), the command others
        rc = cli_main(["perft", "--engine-cmd", _engine_cmd("-m", "palconf.cli", "serve"), *argv])
    except SystemExit as e:
        rc = int(e.code or 0)
    assert rc == 2 and message in capsys.readouterr().err


def test_perft_command_needs_legal(capsys: pytest.CaptureFixture[str]) -> None:
    cmd = _engine_cmd(str(ROOT / "tests" / "engines" / "null_engine.py"))
    assert cli_main(["perft", "--engine-cmd", cmd, "--depth", "1"]) == 2
    assert "does not offer `legal`" in capsys.readouterr().err


class UnsupportedEngine(OracleEngine):
    """Answers `unsupported` to every setup."""

    def request(self, msg: dict[str, Any]) -> Any:
        if msg.get("cmd") == "setup":
            return {"ok": False, "error": "unsupported", "message": "no such keyword"}
        return super().request(msg)


def test_an_engine_answering_unsupported_is_a_protocol_violation_not_a_skip() -> None:
    engine = UnsupportedEngine()
    engine.start()
    (bare,) = [p for p in load_positions() if p.id == "bare"]
    with pytest.raises(ProtocolViolation, match="cannot play this position: .*no such keyword"):
        perft(EngineNavigator(engine, bare.state), 1)


def test_a_position_whose_state_is_not_a_table(tmp_path: Path) -> None:
    path = tmp_path / "odd.toml"
    path.write_text('id = "odd"\nstate = 3\n', encoding="utf-8")
    with pytest.raises(PositionError, match="`state` must be a table"):
        load_position(path)
