"""The runner's protocol expectations: LEGAL (exactly / includes / excludes), setup steps and
their refusals, and engines without `legal` (docs/case-format.md, "Protocol cases")."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from palconf.cases.loader import build_case
from palconf.core import BaseEngine, EngineInfo, Outcome
from palconf.engines.oracle_engine import OracleEngine
from palconf.registry import load as load_registry
from palconf.running.runner import run_case

Hook = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


class Scripted(BaseEngine):
    """The oracle, with one hook that may rewrite each reply (a wrong engine on purpose)."""

    def __init__(self, hook: Hook | None = None, commands: frozenset[str] | None = None) -> None:
        self.inner = OracleEngine()
        self.hook = hook
        self.commands = commands

    def start(self) -> EngineInfo:
        info = self.inner.start()
        if self.commands is not None:
            info = EngineInfo(info.name, info.version, info.keywords, self.commands)
        self.info = info
        return info

    def request(self, msg: dict[str, Any]) -> Any:
        reply = self.inner.request(copy.deepcopy(msg))
        return self.hook(msg, reply) if self.hook else reply


BOARD: dict[str, Any] = {
    "players": {
        "A": {
            "life": 5,
            "battle": [
                {"id": "a1", "kind": "pal", "power": 3000, "strike": 1},
                {"id": "a2", "kind": "pal", "power": 1000, "state": "rest"},
            ],
        },
        "B": {"life": 5, "battle": [{"id": "b1", "kind": "pal", "power": 2000, "state": "rest"}]},
    }
}
MAIN_LEGAL = [
    {"do": "attack", "player": "A", "attacker": "a1", "target": "master"},
    {"do": "attack", "player": "A", "attacker": "a1", "target": "b1"},
    {"do": "end-turn", "player": "A"},
]


def case(
    expect: list[dict[str, Any]],
    actions: list[dict[str, Any]] | None = None,
    setup: dict[str, Any] | None = None,
) -> Any:
    data = {
        "id": "protocol-x",
        "title": "a case built by a test of the runner",
        "rules": ["P-legal"],
        "setup": setup or BOARD,
        "actions": actions or [],
        "expect": expect,
    }
    return build_case(data, "protocol/protocol-x.toml", load_registry())


def run(c: Any, engine: BaseEngine | None = None) -> Any:
    engine = engine or OracleEngine()
    engine.start()
    return run_case(engine, c)


def drop(action: dict[str, Any]) -> Hook:
    def hook(msg: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        if msg["cmd"] == "legal":
            return {**reply, "actions": [a for a in reply["actions"] if a != action]}
        return reply

    return hook


def add(action: dict[str, Any]) -> Hook:
    def hook(msg: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        if msg["cmd"] == "legal":
            return {**reply, "actions": [*reply["actions"], action]}
        return reply

    return hook


def test_exact_legal_passes_on_the_oracle_in_any_order() -> None:
    r = run(case([{"after": 0, "legal": {"exactly": MAIN_LEGAL[::-1]}}]))
    assert r.outcome == Outcome.PASS, r.message
    assert r.path == "protocol/protocol-x.toml"


@pytest.mark.parametrize(
    "hook",
    [
        drop({"do": "end-turn", "player": "A"}),
        add({"do": "attack", "player": "A", "attacker": "a2", "target": "master"}),
        add({"do": "end-turn", "player": "A", "choose": []}),
    ],
)
def test_exact_legal_fails_an_engine_with_one_action_more_or_less(hook: Hook) -> None:
    r = run(case([{"after": 0, "legal": {"exactly": MAIN_LEGAL}}]), Scripted(hook))
    assert r.outcome == Outcome.FAIL and r.step == 0
    assert [d.path for d in r.diffs] == ["legal"]


def test_includes_and_excludes() -> None:
    c = case(
        [
            {
                "after": 0,
                "legal": {
                    "includes": [MAIN_LEGAL[2]],
                    "excludes": [{"do": "attack", "attacker": "a2"}],
                },
            }
        ]
    )
    assert run(c).outcome == Outcome.PASS
    assert run(c, Scripted(drop(MAIN_LEGAL[2]))).outcome == Outcome.FAIL
    rested = {"do": "attack", "player": "A", "attacker": "a2", "target": "b1"}
    bad = run(c, Scripted(add(rested)))
    assert bad.outcome == Outcome.FAIL and bad.diffs[0].observed == rested


def test_legal_after_an_action_is_asked_at_that_step() -> None:
    c = case(
        [{"after": 1, "legal": {"exactly": [{"do": "pass", "player": "B"}]}}],
        actions=[{"do": "attack", "player": "A", "attacker": "a1", "target": "master"}],
    )
    assert run(c).outcome == Outcome.PASS


def test_an_engine_without_legal_skips_the_case_with_the_reason() -> None:
    c = case([{"after": 0, "legal": {"exactly": MAIN_LEGAL}}])
    r = run(c, Scripted(commands=frozenset({"setup", "act", "observe"})))
    assert r.outcome == Outcome.SKIP and "legal" in r.message


def test_without_legal_the_rest_of_the_case_still_runs_and_can_fail() -> None:
    c = case(
        [
            {
                "after": 0,
                "legal": {"exactly": MAIN_LEGAL},
                "observed": {"players": {"A": {"life": 4}}},
            }
        ]
    )
    r = run(c, Scripted(commands=frozenset({"setup", "act", "observe"})))
    assert r.outcome == Outcome.FAIL


BAD_STATE = {"players": {"A": {"life": 0}, "B": {"life": 5}}}
SETUP_STEP_CASE = dict(
    actions=[
        {"setup": BAD_STATE},
        {"do": "attack", "player": "A", "attacker": "a1", "target": "master"},
    ],
    expect=[
        {"after": 1, "refused": "invalid-state"},
        {"after": 2, "observed": {"step": "block", "attack": {"attacker": "a1"}}},
    ],
)


def test_a_refused_setup_step_keeps_the_previous_game() -> None:
    c = case(SETUP_STEP_CASE["expect"], SETUP_STEP_CASE["actions"])
    assert run(c).outcome == Outcome.PASS


def test_an_engine_that_accepts_an_invalid_state_fails() -> None:
    def accept(msg: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True} if msg["cmd"] == "setup" else reply

    c = case(SETUP_STEP_CASE["expect"], SETUP_STEP_CASE["actions"])
    r = run(c, Scripted(accept))
    assert r.outcome == Outcome.FAIL and r.step == 1 and "accepted" in r.message


@pytest.mark.parametrize("error", ["unsupported", "internal", "bad-request"])
def test_a_setup_step_refused_with_the_wrong_error_fails(error: str) -> None:
    def wrong(msg: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        if msg["cmd"] == "setup" and not reply["ok"]:
            return {**reply, "error": error}
        return reply

    c = case(SETUP_STEP_CASE["expect"], SETUP_STEP_CASE["actions"])
    r = run(c, Scripted(wrong))
    assert r.outcome == Outcome.FAIL and r.diffs[0].path == "error"


def test_an_engine_that_forgets_the_game_after_a_refused_setup_fails() -> None:
    class Forgetful(Scripted):
        def request(self, msg: dict[str, Any]) -> Any:
            reply = super().request(msg)
            if msg["cmd"] == "setup" and not reply["ok"]:
                self.inner.session.game = None  # the previous game is gone
            return reply

    c = case(SETUP_STEP_CASE["expect"], SETUP_STEP_CASE["actions"])
    r = run(c, Forgetful())
    assert r.outcome != Outcome.PASS


def test_demanded_unsupported_is_an_answer_not_a_skip() -> None:
    odd = copy.deepcopy(BOARD)
    odd["players"]["A"]["battle"][0]["keywords"] = ["Flying"]
    c = case([{"after": 1, "refused": "unsupported"}], [{"setup": odd}])
    assert run(c).outcome == Outcome.PASS
    c = case([{"after": 1, "refused": "invalid-state"}], [{"setup": odd}])
    assert run(c).outcome == Outcome.FAIL


def test_an_unsupported_reply_to_an_accepted_setup_step_skips() -> None:
    def unsupported(msg: dict[str, Any], reply: dict[str, Any]) -> dict[str, Any]:
        if msg["cmd"] == "setup" and msg["state"] is not BOARD and "turn" in msg["state"]:
            return {"ok": False, "error": "unsupported", "message": "no"}
        return reply

    c = case([{"observed": {"turn": 3}}], [{"setup": {**BOARD, "turn": 3}}])
    assert run(c).outcome == Outcome.PASS
    assert run(c, Scripted(unsupported)).outcome == Outcome.SKIP
