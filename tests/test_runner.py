"""The runner's outcomes and `palconf run`'s exit codes, with small fake engines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from oracle.rules import Refusal, Rules
from palconf.cases import load_cases
from palconf.cli import main
from palconf.engines import Engine, EngineInfo, OracleEngine, ProtocolViolation
from palconf.runner import match, run_case

from .test_loader import GOOD, write

REFUSAL = GOOD.replace(
    'observed = { cards = { a1 = { power = 3200 } }, attack = { target = "master" }, winner = "null" }',
    'refused = "illegal-target"').replace('target = "master"', 'target = "a1"')
assert "refused" in REFUSAL


def case_from(tmp: Path, text: str = GOOD) -> Any:
    write(tmp, text)
    return load_cases(tmp)[0]


class NoBrave(Rules):
    """Forgets Brave's pump."""

    def triggered_effects(self, card: Any, event: str) -> list[Any]:
        return [e for e in super().triggered_effects(card, event) if e.target != "self"]


class RefuseEverything(Rules):
    def try_action(self, state: Any, action: Any) -> Any:
        raise Refusal("wrong-timing", "no")


class RefusesButRests(Rules):
    """Refuses an illegal attack but rests the attacker anyway (B-21 broken)."""

    def check_attack(self, g: Any, a: Any) -> None:
        try:
            super().check_attack(g, a)
        except Refusal:
            g.cards[a["attacker"]].state = "rest"
            raise


class WrongReason(Rules):
    def check_attack(self, g: Any, a: Any) -> None:
        try:
            super().check_attack(g, a)
        except Refusal as r:
            raise Refusal("not-found", r.message)


class Scripted(Engine):
    """Answers every request from a function: for protocol faults."""

    def __init__(self, answer: Any, keywords: frozenset[str] = frozenset({"brave"})) -> None:
        self.answer = answer
        self.info = EngineInfo("scripted", "0", keywords)

    def start(self) -> EngineInfo:
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        return self.answer(msg)  # type: ignore[no-any-return]


def run_with(engine: Engine, case: Any) -> Any:
    engine.start()
    return run_case(engine, case)


def test_pass_on_the_oracle(tmp_path: Path) -> None:
    r = run_with(OracleEngine(), case_from(tmp_path))
    assert (r.outcome, r.message) == ("pass", "")


def test_fail_shows_expected_against_observed(tmp_path: Path) -> None:
    r = run_with(OracleEngine(NoBrave), case_from(tmp_path))
    assert r.outcome == "fail" and r.step == 1
    assert r.diffs == [{"path": "cards.a1.power", "expected": 3200, "observed": 3000}]


def test_accepted_action_refused_is_a_failure(tmp_path: Path) -> None:
    r = run_with(OracleEngine(RefuseEverything), case_from(tmp_path))
    assert r.outcome == "fail" and "must be accepted" in r.message


def test_refusal_must_leave_state_unchanged(tmp_path: Path) -> None:
    r = run_with(OracleEngine(RefusesButRests), case_from(tmp_path, REFUSAL))
    assert r.outcome == "fail" and "changed the state" in r.message
    assert {"path": "cards.a1.state", "expected": "stand", "observed": "rest"} in r.diffs


def test_refusal_reason_is_checked_when_demanded(tmp_path: Path) -> None:
    assert run_with(OracleEngine(), case_from(tmp_path, REFUSAL)).outcome == "pass"
    r = run_with(OracleEngine(WrongReason), case_from(tmp_path, REFUSAL))
    assert r.outcome == "fail" and "'not-found', expected 'illegal-target'" in r.message
    any_reason = REFUSAL.replace('refused = "illegal-target"', "refused = true")
    tmp2 = tmp_path / "any"
    assert run_with(OracleEngine(WrongReason), case_from(tmp2, any_reason)).outcome == "pass"


def test_accepting_an_illegal_action_fails(tmp_path: Path) -> None:
    class AcceptAll(Rules):
        def check_attack(self, g: Any, a: Any) -> None:
            pass
    r = run_with(OracleEngine(AcceptAll), case_from(tmp_path, REFUSAL))
    assert r.outcome == "fail" and "must be refused (illegal-target)" in r.message


def test_skip_when_the_engine_lacks_a_keyword(tmp_path: Path) -> None:
    engine = Scripted(lambda m: {"ok": True}, keywords=frozenset())
    r = run_with(engine, case_from(tmp_path))
    assert r.outcome == "skip" and "brave" in r.message


def test_unsupported_setup_is_a_skip_and_other_refusals_an_error(tmp_path: Path) -> None:
    case = case_from(tmp_path)
    r = run_with(Scripted(lambda m: {"ok": False, "error": "unsupported", "message": "x"}), case)
    assert r.outcome == "skip"
    r = run_with(Scripted(lambda m: {"ok": False, "error": "invalid-state", "message": "x"}), case)
    assert r.outcome == "error" and "refused the case's setup" in r.message


@pytest.mark.parametrize("reply, words", [
    ([], "not a JSON object"),
    ({"yes": 1}, "no boolean `ok`"),
    ({"ok": False}, "no string `error`"),
])
def test_replies_of_the_wrong_shape_are_errors(tmp_path: Path, reply: Any, words: str) -> None:
    r = run_with(Scripted(lambda m: reply), case_from(tmp_path))
    assert r.outcome == "error" and words in r.message


def test_observe_without_fields_is_an_error(tmp_path: Path) -> None:
    def answer(m: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "state": {"step": "main"}} if m["cmd"] == "observe" else {"ok": True}
    r = run_with(Scripted(answer), case_from(tmp_path))
    assert r.outcome == "error" and "lacks" in r.message


def test_engine_fault_is_an_error_not_a_failure(tmp_path: Path) -> None:
    def answer(m: dict[str, Any]) -> dict[str, Any]:
        raise ProtocolViolation("junk on stdout")
    r = run_with(Scripted(answer), case_from(tmp_path))
    assert (r.outcome, r.message) == ("error", "junk on stdout")


def test_match_semantics() -> None:
    assert match({"a": [1, 2]}, {"a": [2, 1], "b": 3}) == []
    assert match({"x": True}, {"x": 1})  # a bool is not an int
    assert match({"x": None}, {"x": None}) == []
    assert [d.path for d in match({"p": {"A": {"life": 3}}}, {"p": {"A": {"life": 4}}})] == ["p.A.life"]


def test_run_exit_codes_and_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, GOOD)
    results = tmp_path / "r.jsonl"
    assert main(["run", "--cases", str(tmp_path), "--results", str(results)]) == 0
    line = json.loads(results.read_text().splitlines()[-1])
    assert {k: line[k] for k in ("id", "keywords", "clauses", "outcome")} == {
        "id": "brave-sample", "keywords": ["brave"], "clauses": ["brave.1"], "outcome": "pass"}
    assert "message" in line and "duration_ms" in line
    out = capsys.readouterr().out
    assert "brave" in out and "all cases" in out
    write(tmp_path, GOOD.replace("power = 3200", "power = 3300"))
    assert main(["run", "--cases", str(tmp_path)]) == 1
    assert "expected 3300, observed 3200" in capsys.readouterr().out
    assert main(["run", "--cases", str(tmp_path), "--keyword", "nope"]) == 2
    with pytest.raises(SystemExit) as e:
        main(["run", "--no-such-option"])
    assert e.value.code == 2


def test_the_suite_passes_on_the_oracle(capsys: pytest.CaptureFixture[str]) -> None:
    """The whole shipped corpus loads and passes on the reference oracle."""
    assert main(["run"]) == 0, capsys.readouterr().out
