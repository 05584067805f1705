"""Wire steps (`send`, `request`), cases with no `setup` and `bye` (P-errors;
docs/case-format.md, "Wire steps"): what the loader refuses, how the runner reads the
answers, in-process engines with no wire, transcripts and replay of raw lines, smoke's
pointers into the suite, and session mutants killed only by cases that fail alone.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from palconf.cases.loader import CaseLoadError, load_cases
from palconf.cli import main
from palconf.core import BaseEngine, EngineInfo, Outcome, parse_hello
from palconf.engines.oracle_engine import OracleEngine
from palconf.mutants import get
from palconf.mutants.sweep import alone, in_process, run_mutant
from palconf.oracle import Session
from palconf.running.runner import run_case

ENGINES = Path(__file__).parent / "engines"
HEAD = '#:schema ../../palconf/schemas/case.schema.json\ntitle = "A wire case for the tests only"\n'
FRESH = 'rules = ["P-errors"]\n'
GAME = """
[setup.players.A]
life = 5
battle = [{ id = "a1", kind = "pal", power = 3000, strike = 1 }]
[setup.players.B]
life = 5
"""


def write(root: Path, cid: str, body: str) -> Path:
    folder = root / "protocol"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{cid}.toml"
    path.write_text(HEAD + f'id = "{cid}"\n' + textwrap.dedent(body), encoding="utf-8")
    return path


def problems(root: Path) -> str:
    with pytest.raises(CaseLoadError) as e:
        load_cases(root)
    return str(e.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            FRESH + "actions = [{ request = { cmd = 'observe' } }]\n"
            "[[expect]]\nafter = 1\nobserved = { turn = 1 }\n",
            "no game yet at this point",
        ),
        (
            FRESH + "actions = [{ request = { cmd = 'bye' } }, { send = 'x' }]\n"
            "[[expect]]\nafter = 2\nrefused = 'bad-json'\n",
            "`bye` ends the session: it must be the last step",
        ),
        (
            FRESH + "actions = [{ request = { cmd = 'bye' } }]\n[[expect]]\nafter = 1\n"
            "refused = 'unknown-command'\n",
            "after `bye` the engine is gone",
        ),
        (
            FRESH + "actions = [{ request = { cmd = 'setup', state = {} } }]\n"
            "[[expect]]\nafter = 1\nrefused = 'invalid-state'\n",
            "a `setup` request is written as a setup step",
        ),
        (
            FRESH + "actions = [{ send = 'x' }]\n[[expect]]\nafter = 1\n"
            "refused = 'taunt-required'\n",
            "step 1 is a wire step: `refused` must be one of bad-json",
        ),
        (
            FRESH + "actions = [{ send = 'x' }]\n[[expect]]\nafter = 0\nrefused = 'bad-json'\n",
            "`refused` needs `after` to name an action",
        ),
        (
            FRESH + "actions = [{ do = 'end-turn', player = 'A' }]\n[[expect]]\nafter = 1\n"
            "refused = 'no-game'\n[setup]\n" + GAME,
            "'no-game' is an error (P-errors); step 1 is an action",
        ),
        (
            FRESH + 'actions = [{ send = "two\\nlines" }]\n[[expect]]\nafter = 1\n'
            "refused = 'bad-json'\n",
            "actions[0]",
        ),
        (
            FRESH + 'actions = [{ send = "one line\\n" }]\n[[expect]]\nafter = 1\n'
            "refused = 'bad-json'\n",
            "actions[0]",
        ),
        (
            FRESH + "actions = [{ send = \"  \" }]\n[[expect]]\nafter = 1\nrefused = 'bad-json'\n",
            "actions[0]",
        ),
    ],
    ids=[
        "observed-before-a-game",
        "bye-not-last",
        "bye-refused",
        "setup-request",
        "reason-on-wire-step",
        "after-0",
        "wire-code-on-action",
        "line-break",
        "line-break-at-the-end",
        "blank-line",
    ],
)
def test_the_loader_refuses_what_a_wire_case_cannot_say(
    tmp_path: Path, body: str, message: str
) -> None:
    write(tmp_path, "protocol-errors-bad", body)
    assert message in problems(tmp_path)


def test_a_case_with_no_setup_runs_on_a_fresh_engine_after_a_game(tmp_path: Path) -> None:
    """The engine had a game from the case before: the fresh case still sees no-game."""
    write(
        tmp_path,
        "protocol-errors-a-game",
        FRESH + "actions = [{ do = 'end-turn', player = 'A' }]\n"
        "[[expect]]\nafter = 1\nobserved = { turn = 2 }\n[setup]\n" + GAME,
    )
    write(
        tmp_path,
        "protocol-errors-then-none",
        FRESH + "actions = [{ request = { cmd = 'observe' } }]\n"
        "[[expect]]\nafter = 1\nrefused = 'no-game'\n",
    )
    engine = OracleEngine()
    engine.start()
    outcomes = [run_case(engine, c).outcome for c in load_cases(tmp_path)]
    assert outcomes == [Outcome.PASS, Outcome.PASS]


def test_a_wrong_error_code_is_a_failure_not_an_error() -> None:
    case = next(c for c in load_cases() if c.id == "protocol-errors-bad-json-plain-word")
    engine = in_process(get("errors-not-json-as-bad-request"))
    engine.start()
    r = run_case(engine, case)
    assert r.outcome == Outcome.FAIL and r.step == 1
    assert "wire step 1 was refused with error 'bad-request', expected 'bad-json'" in r.message


def test_observe_answering_no_game_after_a_step_is_a_failure() -> None:
    case = next(
        c for c in load_cases() if c.id == "protocol-errors-bad-json-mid-attack-changes-nothing"
    )
    engine = in_process(get("errors-bad-line-ends-the-game"))
    engine.start()
    r = run_case(engine, case)
    assert r.outcome == Outcome.FAIL and "the game it had was lost" in r.message


class ValuesOnly(BaseEngine):
    """An in-process engine with no wire: it takes requests as values (`request` only)."""

    def start(self) -> EngineInfo:
        self.session = Session()
        self.info = parse_hello(self.session.handle({"cmd": "hello", "protocol": 1}))
        return self.info

    def request(self, msg: Any) -> Any:
        return self.session.handle(msg)


def test_an_engine_with_no_wire_skips_lines_that_are_not_json_and_gets_the_rest() -> None:
    cases = {c.id: c for c in load_cases()}
    engine = ValuesOnly()
    engine.start()
    skipped = run_case(engine, cases["protocol-errors-bad-json-plain-word"])
    assert skipped.outcome == Outcome.SKIP and "this line is not JSON" in skipped.message
    assert run_case(engine, cases["protocol-errors-bad-request-array"]).outcome == Outcome.PASS
    assert run_case(engine, cases["protocol-errors-unknown-command-missing-cmd"]).outcome == "pass"


def test_an_engine_that_stays_after_bye_fails_the_bye_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    engine = f"{sys.executable} {ENGINES / 'fake.py'} ignore-eof-at-bye --at bye"
    argv = ["run", "--progress", "none", "--results", str(results), "--timeout", "5"]
    code = main([*argv, "--engine-cmd", engine, "--case", "protocol-errors-bye-mid-attack"])
    assert code == 1
    (row,) = [json.loads(line) for line in results.read_text().splitlines()[1:]]
    assert row["outcome"] == "fail" and "had not exited 2 s later" in row["message"]


def test_a_raw_line_is_recorded_and_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = tmp_path / "t.jsonl"
    case = "protocol-errors-bad-json-single-quotes"
    assert main(["explain", case, "--transcript", str(transcript)]) == 0
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    sent = [e for e in lines if "line" in e]
    assert (
        sent == [{"line": "{'cmd': 'observe'}", "reply": sent[0]["reply"]}]
        and sent[0]["reply"]["error"] == "bad-json"
    )
    capsys.readouterr()
    assert main(["replay", str(transcript), "--requests"]) == 0
    assert "{'cmd': 'observe'}\n" in capsys.readouterr().out
    serve = f"{sys.executable} -m palconf.cli serve"
    assert main(["replay", str(transcript), "--engine-cmd", serve]) == 0


def test_smoke_names_the_cases_that_test_each_check_in_full(
    capsys: pytest.CaptureFixture[str],
) -> None:
    serve = f"{sys.executable} -m palconf.cli serve"
    assert main(["smoke", "--engine-cmd", serve, "--format", "json"]) == 0
    checks = {c["name"]: c["cases"] for c in json.loads(capsys.readouterr().out)["checks"]}
    assert "protocol-errors-bad-json-plain-word" in checks["bad json"]
    assert "protocol-errors-bad-request-array" in checks["bad request"]
    assert "protocol-errors-no-game-observe-before-setup" in checks["before setup"]
    assert checks["bye"] and checks["unknown command"]
    assert checks["hello"] == []


def test_a_session_mutant_is_killed_only_by_a_case_that_fails_alone(tmp_path: Path) -> None:
    """Night written in the first case's game leaks into the second under one engine: run
    alone, the second passes, so it does not count as a kill."""
    write(
        tmp_path,
        "protocol-session-a-night",
        'rules = ["P-state"]\nactions = []\n[[expect]]\nafter = 0\nobserved = { night = true }\n'
        "[setup]\nnight = true\n" + GAME,
    )
    write(
        tmp_path,
        "protocol-session-b-day",
        'rules = ["P-state"]\nactions = []\n[[expect]]\nafter = 0\nobserved = { night = false }\n'
        "[setup]\n" + GAME,
    )
    first, second = load_cases(tmp_path)
    mutant = get("session-night-kept")
    assert alone(mutant) and not alone(get("brave-static-bonus"))
    engine = in_process(mutant)
    engine.start()
    assert run_case(engine, first).outcome == "pass"
    assert run_case(engine, second).outcome == "fail"  # by order only
    outcome = run_mutant(mutant, [first, second], {first.id, second.id}, in_process(mutant))
    assert outcome.kills == []
