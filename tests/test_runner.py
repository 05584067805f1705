"""The runner (palconf/runner.py): outcomes with small fake engines, the restart policy, and
`palconf run`'s exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from palconf.cases.loader import Case, load_cases
from palconf.cli import main
from palconf.core import (
    MISSING,
    BaseEngine,
    Diff,
    Engine,
    EngineCrash,
    EngineInfo,
    ProtocolViolation,
    compare,
)
from palconf.engines.oracle_engine import OracleEngine
from palconf.oracle.rules import Refusal, Rules
from palconf.running.runner import run_case
from palconf.running.supervisor import RunStopped, run_cases

from .harness import fingerprint
from .test_loader import GOOD, write

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

REFUSAL = GOOD.replace(
    'observed = { cards = { a1 = { power = 3200 } }, attack = { target = "master" }, winner = "null" }',  # noqa: E501
    'refused = "illegal-target"',
).replace('target = "master"', 'target = "a1"')
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

    def check_attack(self, g: Any, a: Any) -> Iterator[Refusal]:
        refusals = list(super().check_attack(g, a))
        if refusals:
            g.cards[a["attacker"]].state = "rest"
        yield from refusals


class WrongReason(Rules):
    def check_attack(self, g: Any, a: Any) -> Iterator[Refusal]:
        for r in super().check_attack(g, a):
            yield Refusal("not-found", r.message)


class Scripted(BaseEngine):
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
    assert r.diffs == (Diff("cards.a1.power", 3200, 3000),)


def test_accepted_action_refused_is_a_failure(tmp_path: Path) -> None:
    r = run_with(OracleEngine(RefuseEverything), case_from(tmp_path))
    assert r.outcome == "fail" and "must be accepted" in r.message


def test_refusal_must_leave_state_unchanged(tmp_path: Path) -> None:
    r = run_with(OracleEngine(RefusesButRests), case_from(tmp_path, REFUSAL))
    assert r.outcome == "fail" and "changed the state" in r.message
    assert Diff("cards.a1.state", "stand", "rest") in r.diffs


def test_refusal_reason_is_checked_when_demanded(tmp_path: Path) -> None:
    assert run_with(OracleEngine(), case_from(tmp_path, REFUSAL)).outcome == "pass"
    r = run_with(OracleEngine(WrongReason), case_from(tmp_path, REFUSAL))
    assert r.outcome == "fail" and "'not-found', expected 'illegal-target'" in r.message
    any_reason = REFUSAL.replace('refused = "illegal-target"', "refused = true")
    tmp2 = tmp_path / "any"
    assert run_with(OracleEngine(WrongReason), case_from(tmp2, any_reason)).outcome == "pass"


class CannotAttack(Rules):
    """Gives `cannot-attack` for every refused attack."""

    def check_attack(self, g: Any, a: Any) -> Iterator[Refusal]:
        for r in super().check_attack(g, a):
            yield Refusal("cannot-attack", r.message)


def test_a_list_of_reasons_accepts_any_one_of_them(tmp_path: Path) -> None:
    listed = REFUSAL.replace(
        'refused = "illegal-target"', 'refused = ["illegal-target", "not-found"]'
    ).replace('rules = ["B-12"]', 'rules = ["B-11"]\ninterpretations = ["I-25"]')
    assert "refused = [" in listed
    for rules in (Rules, WrongReason):  # illegal-target, not-found: either passes
        case = case_from(tmp_path / rules.__name__, listed)
        assert run_with(OracleEngine(rules), case).outcome == "pass"
    r = run_with(OracleEngine(CannotAttack), case_from(tmp_path / "other", listed))
    assert r.outcome == "fail"
    assert "'cannot-attack', expected 'illegal-target' or 'not-found'" in r.message
    assert r.diffs == (Diff("reason", ["illegal-target", "not-found"], "cannot-attack"),)

    class AcceptAll(Rules):
        def check_attack(self, g: Any, a: Any) -> Iterator[Refusal]:
            yield from ()

    r = run_with(OracleEngine(AcceptAll), case_from(tmp_path / "accept", listed))
    assert r.outcome == "fail"
    assert "must be refused (illegal-target or not-found)" in r.message


def test_accepting_an_illegal_action_fails(tmp_path: Path) -> None:
    class AcceptAll(Rules):
        def check_attack(self, g: Any, a: Any) -> Iterator[Refusal]:
            yield from ()

    r = run_with(OracleEngine(AcceptAll), case_from(tmp_path, REFUSAL))
    assert r.outcome == "fail" and "must be refused (illegal-target)" in r.message


def test_skip_when_the_engine_lacks_a_keyword(tmp_path: Path) -> None:
    engine = Scripted(lambda m: {"ok": True}, keywords=frozenset())
    r = run_with(engine, case_from(tmp_path))
    assert r.outcome == "skip" and "brave" in r.message


def test_a_refused_setup_is_a_skip_a_failure_or_an_error_by_its_code(tmp_path: Path) -> None:
    """`unsupported`: the engine lacks something (skip); `invalid-state` for the case's STATE,
    which is valid: a wrong reading of P-state (fail, at step 0); any other code: the
    engine broke (error)."""
    case = case_from(tmp_path)
    r = run_with(Scripted(lambda m: {"ok": False, "error": "unsupported", "message": "x"}), case)
    assert r.outcome == "skip"
    r = run_with(Scripted(lambda m: {"ok": False, "error": "invalid-state", "message": "x"}), case)
    assert r.outcome == "fail" and r.step == 0 and "a valid STATE (P-state)" in r.message
    assert [(d.path, d.observed) for d in r.diffs] == [("error", "invalid-state")]
    r = run_with(Scripted(lambda m: {"ok": False, "error": "internal", "message": "x"}), case)
    assert r.outcome == "error" and "refused the case's setup: internal" in r.message


@pytest.mark.parametrize(
    "reply, words",
    [
        ([], "not a JSON object"),
        ({"yes": 1}, "no boolean `ok`"),
        ({"ok": False}, "no string `error`"),
    ],
)
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


def match(expected: Any, observed: Any) -> list[Diff]:
    return compare(expected, observed, subset=True)


def test_match_semantics() -> None:
    assert match({"a": [1, 2]}, {"a": [2, 1], "b": 3}) == []
    assert match({"x": True}, {"x": 1})  # a bool is not an int
    assert match({"x": None}, {"x": None}) == []
    assert [d.path for d in match({"p": {"A": {"life": 3}}}, {"p": {"A": {"life": 4}}})] == [
        "p.A.life"
    ]
    # a field the engine leaves out is MISSING, not null
    assert match({"x": None}, {}) == [Diff("x", None, MISSING)]


def test_run_exit_codes_and_results_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, GOOD)
    results = tmp_path / "r.jsonl"
    assert main(["run", "--cases", str(tmp_path), "--results", str(results)]) == 0
    line = json.loads(results.read_text().splitlines()[-1])
    assert {k: line[k] for k in ("id", "keywords", "clauses", "outcome")} == {
        "id": "brave-sample",
        "keywords": ["brave"],
        "clauses": ["brave.1"],
        "outcome": "pass",
    }
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


# ---------------------------------------------------------------- restart policy (in-process)


class Flaky(BaseEngine):
    """The oracle, except that it crashes (and needs a restart) on chosen cases."""

    def __init__(
        self, crash_on: set[str], failing_starts: int = 0, keywords: frozenset[str] | None = None
    ) -> None:
        self.oracle = OracleEngine()
        self.keywords = keywords
        self.crash_on = crash_on
        self.failing_starts = failing_starts
        self.starts = 0
        self.broken = False

    def start(self) -> EngineInfo:
        self.starts += 1
        if self.starts > 1 and self.failing_starts:
            self.failing_starts -= 1
            raise EngineCrash("exited at hello")
        self.broken = False
        self.info = self.oracle.start()
        if self.keywords is not None:
            self.info = EngineInfo("flaky", "0", self.keywords)
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg["cmd"] == "setup" and fingerprint(msg["state"]) in self.crash_on:
            self.broken = True
            raise EngineCrash("boom")
        return self.oracle.request(msg)


def outcomes(engine: Engine, cases: list[Case], **kw: Any) -> list[str]:
    engine.start()
    return [r.outcome for r in run_cases(engine, cases, **kw)]


def test_a_crash_restarts_the_engine_and_the_run_goes_on(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(cases[1].setup)})
    assert outcomes(engine, cases) == ["pass", "error"] + ["pass"] * 4
    assert engine.starts == 2


def test_too_many_restarts_in_a_row_stop_the_run(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(c.setup) for c in cases})
    engine.start()
    seen: list[str] = []
    with pytest.raises(RunStopped, match="3 time\\(s\\) in a row"):
        for r in run_cases(engine, cases, max_restarts=2):
            seen.append(r.outcome)
    assert seen == ["error"] * 3 and engine.starts == 3


def test_a_completed_case_resets_the_count(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(cases[i].setup) for i in (0, 1, 3, 4)})
    assert outcomes(engine, cases, max_restarts=2) == [
        "error",
        "error",
        "pass",
        "error",
        "error",
        "pass",
    ]


def test_a_failed_restart_is_tried_again(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(cases[0].setup)}, failing_starts=2)
    assert outcomes(engine, cases, max_restarts=3) == ["error"] + ["pass"] * 5
    assert engine.starts == 4
    engine = Flaky({fingerprint(cases[0].setup)}, failing_starts=5)
    engine.start()
    with pytest.raises(RunStopped, match="restarting: exited at hello"):
        list(run_cases(engine, cases, max_restarts=3))


def test_skipped_cases_need_no_restart(
    small: tuple[Path, list[Case]], all_cases: list[Case]
) -> None:
    _, cases = small
    known = frozenset().union(*(c.needs for c in cases))
    keyworded = [c for c in all_cases if not c.needs <= known][:2]
    engine = Flaky({fingerprint(cases[0].setup)}, keywords=known)
    assert outcomes(engine, [cases[0], *keyworded]) == ["error", "skip", "skip"]
    assert engine.starts == 1  # the skips needed no engine
    assert outcomes(engine, [cases[0], *keyworded, cases[1]]) == ["error", "skip", "skip", "pass"]
    assert engine.starts == 3  # restarted once for the last case
