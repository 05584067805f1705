"""`palconf explain` (one case step by step), transcripts and `palconf replay`, against the
oracle, a mutant served as a process, and a non-Python engine (Node, when present)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from palconf.cases.loader import Case
from palconf.cli import main
from palconf.explain.transcript import read_transcript

from .harness import ENGINES, PY, ROOT, broken

pytest_plugins = ["tests.harness_fixtures"]

CASE = "brave-100-ties-3100-and-both-die"
MUTANT = f"{PY} -m palconf.cli serve --mutant brave-ignored"
NODE = shutil.which("node")


def explain(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["explain", "--color", "never", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def by_id(cases: list[Case], cid: str) -> Case:
    return next(c for c in cases if c.id == cid)


def test_explain_on_the_oracle_shows_rules_board_steps_and_verdict(
    capsys: pytest.CaptureFixture[str], all_cases: list[Case]
) -> None:
    case = by_id(all_cases, CASE)
    status, out, _ = explain(capsys, CASE)
    assert status == 0
    assert out.startswith(f"{CASE}\n  {case.title}\n  file: cases/brave/{CASE}.toml\n")
    assert '  brave.1  "Brave N" means' in out and "  B-12  " in out
    assert "      a1  pal  3000  strike 1  stand  [Brave 100]" in out
    assert out.count("\naction ") == len(case.steps)
    assert "oracle    " not in out  # the engine is the oracle: no second column
    assert '    cards.a1.state: "stand" -> "rest"' in out
    assert out.rstrip().endswith("verdict (as palconf run judges it): PASS")


def test_explain_against_a_mutant_plays_every_step_and_shows_the_differences(
    capsys: pytest.CaptureFixture[str], all_cases: list[Case]
) -> None:
    case = by_id(all_cases, CASE)
    status, out, _ = explain(capsys, CASE, "--engine-cmd", MUTANT)
    assert status == 1
    assert out.count("\naction ") == len(case.steps)  # also after the first failure
    assert (
        "the case's OBSERVED: 1 field(s) differ\n    cards.a1.power: expected 3100, observed 3000"
        in out
    )
    assert "whole OBSERVED against the oracle's: 1 field(s) differ" in out
    assert "    cards.a1.power: oracle 3100, engine 3000" in out
    assert "verdict (as palconf run judges it): FAIL\n  after action 1: 1 field(s) differ" in out


def test_explain_finds_a_case_by_file_and_refuses_unknown_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = explain(capsys, str(ROOT / "cases" / "brave" / f"{CASE}.toml"))
    assert status == 0 and out.startswith(CASE)
    status, _, err = explain(capsys, "brave-100-tie")
    assert status == 2 and "no case 'brave-100-tie'; did you mean: " + CASE in err
    status, _, err = explain(capsys, "brave-*")
    assert status == 2 and "matches" in err


def test_a_transcript_replays_the_same_on_its_engine_and_differs_on_another(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    assert explain(capsys, CASE, "--engine-cmd", MUTANT, "--transcript", str(path))[0] == 1
    transcript = read_transcript(path)
    assert transcript.meta["engine"]["name"] == "palconf-mutant:brave-ignored"
    assert transcript.entries[0].request == {"cmd": "hello", "protocol": 1}
    assert transcript.entries[1].request["cmd"] == "setup"
    assert main(["replay", str(path), "--engine-cmd", MUTANT]) == 0
    assert "same: palconf-mutant:brave-ignored gave the recorded replies" in capsys.readouterr().out
    assert main(["replay", str(path), "--color", "never"]) == 1  # the oracle
    out = capsys.readouterr().out
    assert '    5 DIFFERS {"cmd":"observe"}' in out
    assert "state.cards.a1.power: recorded 3000, now 3100" in out


def test_the_requests_of_a_transcript_go_through_a_pipe(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "t.jsonl"
    explain(capsys, CASE, "--transcript", str(path))
    assert main(["replay", str(path), "--requests"]) == 0
    lines = capsys.readouterr().out.splitlines()
    entries = read_transcript(path).entries
    assert [json.loads(line) for line in lines] == [e.request for e in entries]
    served = subprocess.run(
        [sys.executable, "-m", "palconf.cli", "serve"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    replies = [json.loads(line) for line in served.stdout.splitlines()]
    assert replies == [e.reply for e in entries]


@pytest.mark.parametrize(
    "text,words",
    [
        ("", "no request in the file"),
        ("not json\n", ":1: not JSON"),
        ('{"request": {"cmd": "observe"}}\n', ":1: a line needs `request` and `reply`"),
        ('{"transcript": {"format": "other"}}\n', ":1: not a palconf transcript"),
    ],
)
def test_a_broken_transcript_is_a_message_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    assert main(["replay", str(path)]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.skipif(NODE is None, reason="node is not installed: the Node engine cannot run")
def test_explain_and_replay_against_a_node_engine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    engine = f"{NODE} {ENGINES / 'tiny.js'}"
    path = tmp_path / "t.jsonl"
    case = "base-battle-blocker-wins-attacker-dies"
    status, out, _ = explain(capsys, case, "--engine-cmd", engine, "--transcript", str(path))
    assert status == 1 and "engine: tiny-node 1" in out
    assert "  engine    refused: wrong-timing (tiny engine refuses everything)" in out
    assert "  what went wrong: action 1 was refused (wrong-timing: tiny engine refuses" in out
    assert main(["replay", str(path), "--engine-cmd", engine]) == 0
    assert main(["replay", str(path)]) == 1  # the oracle accepts what tiny refuses
    capsys.readouterr()


def test_explain_keeps_the_line_breaks_of_rules_text(capsys: pytest.CaptureFixture[str]) -> None:
    cid = "protocol-legal-assign-opponents-structure-is-not-listed"
    status, out, _ = explain(capsys, cid)
    assert status == 0
    assert "\\x0a" not in out  # a line break is a line break, not an escape
    head = out.split("\nboard (the case's setup)")[0]
    rule = head.split("\nrules\n")[1]
    assert rule.startswith("  P-legal  ") and "\n      " in rule  # later lines indented


# ---------------------------------------------- explain tells the story `run` tells (issue 35)

REFUSES_LIFE_ZERO = "protocol-state-refused-setup-keeps-observed"


def oracle_engine(tmp_path: Path, adjust: str) -> str:
    """An engine command: the oracle's protocol session, each reply passed through `adjust`
    (Python statements that may change `reply`, or replace `session`, given `req`)."""
    path = tmp_path / "engine.py"
    path.write_text(
        "import json, sys\n"
        "from palconf.oracle import Session\n"
        "session = Session(name='t')\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    reply = session.handle(req)\n"
        + "".join(f"    {s}\n" for s in adjust.splitlines())
        + "    print(json.dumps(reply), flush=True)\n"
        "    if req.get('cmd') == 'bye':\n"
        "        break\n",
        encoding="utf-8",
    )
    return f"{PY} {path}"


def run_cli_out(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(["run", "--color", "never", "--progress", "none", *argv])
    return status, capsys.readouterr().out


def test_explain_shows_a_crashing_engines_stderr_as_run_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    engine = broken("crash")
    block = "  engine stderr (last lines):\n    | broken engine: crashing on purpose at `act`\n"
    status, out = run_cli_out(capsys, "--case", CASE, "--engine-cmd", engine)
    assert status == 1 and block in out
    status, out, _ = explain(capsys, CASE, "--engine-cmd", engine)
    assert status == 1
    verdict = out.split("\nverdict (as palconf run judges it): ERROR\n")[1]
    assert block in verdict  # under the verdict, as in run's block
    assert "the engine broke at action 1" in out
    # an engine that does not start: its stderr under the message, as `run` prints it
    for command in (["run", "--case", CASE], ["explain", CASE]):
        assert main([*command, "--engine-cmd", broken("exit-at-hello")]) == 2
        err = capsys.readouterr().err
        assert "the engine did not start: the engine exited with status 4" in err
        assert "\n  | broken engine: exiting at hello\n" in err


def test_explain_names_the_setup_that_had_to_be_refused_not_what_follows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    mutant = f"{PY} -m palconf.cli serve --mutant state-master-at-zero-life-accepted"
    status, out, _ = explain(capsys, REFUSES_LIFE_ZERO, "--engine-cmd", mutant)
    assert status == 1
    step = out.split("\nsetup step 1  ")[1].split("\nverdict")[0]
    assert (
        "  what went wrong: setup step 1 was accepted; it must be refused (invalid-state)" in step
    )
    assert "the case's OBSERVED: 12 field(s) differ (they follow from the answer above)" in step
    assert '    active: expected "B", observed "A"' not in step  # counted, not listed
    assert '    active: "B" -> "A"' in step  # what the engine did with the STATE


def test_a_setup_accepted_then_forgotten_is_the_setup_in_run_and_explain(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # says ok to a STATE it cannot load (and forgets the game it had): `observe` then answers
    # no-game, but what went wrong is the answer to the setup
    engine = oracle_engine(
        tmp_path,
        "if req.get('cmd') == 'setup' and not reply['ok']:\n"
        "    session, reply = Session(name='t'), {'ok': True}",
    )
    said = "setup step 1 was accepted; it must be refused (invalid-state)"
    status, out = run_cli_out(capsys, "--case", REFUSES_LIFE_ZERO, "--engine-cmd", engine)
    assert status == 1 and f"\nFAIL {REFUSES_LIFE_ZERO}: " in out and said in out
    assert "answered no-game" not in out
    status, out, _ = explain(capsys, REFUSES_LIFE_ZERO, "--engine-cmd", engine)
    assert status == 1
    assert "  engine    loaded\n" in out.split("\nsetup step 1  ")[1]
    assert f"  what went wrong: {said}" in out
    assert f"verdict (as palconf run judges it): FAIL\n  {said}" in out


def test_an_engines_line_breaks_are_lines_in_run_and_explain(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    engine = oracle_engine(
        tmp_path,
        "if req.get('cmd') == 'act':\n"
        "    reply = {'ok': False, 'error': 'illegal', 'reason': 'not-found',\n"
        "             'message': 'no such card\\nlooked in: hand\\tbattle\\x1b[31m\\r'}",
    )
    status, out = run_cli_out(capsys, "--case", CASE, "--engine-cmd", engine)
    assert status == 1 and "\\x0a" not in out and "\\x09" not in out
    assert "(not-found: no such card\n    looked in: hand\tbattle\\x1b[31m\\x0d); it must" in out
    status, out, _ = explain(capsys, CASE, "--engine-cmd", engine)
    assert status == 1 and "\\x0a" not in out and "\x1b" not in out
    assert "  engine    refused: not-found (no such card\n            looked in: hand\t" in out
    assert (
        "verdict (as palconf run judges it): FAIL\n"
        "  action 1 was refused (not-found: no such card\n    looked in:" in out
    )
