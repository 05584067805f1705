"""Differential fuzzing (generators.differential, .lockstep, .shrinking, .formatting,
generators.export, `palconf fuzz`).

Engines: the oracle in-process and through `palconf serve`; the oracle with one keyword
misread (tests/engines/misread.py), in-process and as a child process; and small fake
engines below, one per kind of difference (reason, verdict, LEGAL only, crash).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from palconf import paths
from palconf.cases.loader import load_case
from palconf.cli import main as cli_main
from palconf.commands import fuzz_campaign as fuzz_command
from palconf.core import MISSING, Diff
from palconf.engines import EngineCrash, OracleEngine
from palconf.engines.process import ProcessEngine
from palconf.generators.differential import (
    Difference,
    format_difference,
    fuzz,
    relabel,
    run_game,
    simplify,
)
from palconf.generators.export import _keys, as_case_action, case_from_difference, write_case
from palconf.generators.game import play
from palconf.generators.lockstep import diff_observed
from palconf.oracle import Refusal, Rules
from palconf.registry import load as load_registry
from palconf.running.runner import run_case

from .engines.misread import MISREADINGS

ROOT = Path(__file__).resolve().parent.parent
MISREAD = ROOT / "tests" / "engines" / "misread.py"
SERVE = f"{sys.executable} -m palconf.cli serve"
REGISTRY = load_registry()


def started(engine: Any) -> Any:
    engine.start()
    return engine


def check_export(diff: Difference, wrong: Any, tmp_path: Path) -> Any:
    """Export `diff`, load the case, and run it on the oracle (must pass) and on the wrong
    engine; returns the wrong engine's result."""
    path = write_case(case_from_difference(diff, seed=0), tmp_path)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("#:schema ")  # the schema palconf carries, from where it is
    assert (path.parent / first.removeprefix("#:schema ")).resolve() == paths.CASE_SCHEMA
    case, errors = load_case(path)
    assert case is not None, errors
    on_oracle = run_case(started(OracleEngine()), case)
    assert on_oracle.outcome == "pass", on_oracle.message
    return run_case(wrong, case)


# --------------------------------------------------------------------------- comparing


def test_values_are_compared_with_their_json_types() -> None:
    assert diff_observed({"a": 1}, {"a": True}) == [Diff("a", 1, True)]
    assert diff_observed({"a": 1}, {"a": 1.0}) == [Diff("a", 1, 1.0)]
    assert diff_observed({"a": None}, {"a": 0}) == [Diff("a", None, 0)]
    assert diff_observed({"a": [1]}, {"a": [1]}) == []
    assert diff_observed({"a": ["1"]}, {"a": [1]}) == [Diff("a", ["1"], [1])]
    assert diff_observed({"a": 1}, {"a": 1, "b": 2}) == [Diff("b", MISSING, 2)]
    assert diff_observed({"a": 1, "b": 2}, {"a": 1}) == [Diff("b", 2, MISSING)]
    assert diff_observed({"a": None}, {}) != diff_observed({"a": None}, {"a": None}) == []


def test_zone_lists_are_compared_as_sets_and_nothing_else_is() -> None:
    game = play(
        Rules,
        {
            "players": {
                "A": {
                    "life": 5,
                    "hand": [
                        {"id": "a1", "kind": "pal", "power": 1},
                        {"id": "a2", "kind": "pal", "power": 1},
                    ],
                },
                "B": {"life": 5},
            }
        },
        [],
    )
    theirs = json.loads(json.dumps(game.start))
    theirs["players"]["A"]["hand"].reverse()
    assert diff_observed(game.start, theirs) == []
    theirs["players"]["A"]["hand"].append("a1")  # a multiset: a card twice is a difference
    assert [f.path for f in diff_observed(game.start, theirs)] == ["players.A.hand"]
    theirs["players"]["A"]["hand"].pop()
    theirs["cards"]["a1"]["power"] = 2
    assert [f.path for f in diff_observed(game.start, theirs)] == ["cards.a1.power"]


class IntIdsEngine(OracleEngine):
    """Shows a card whose id is all digits as a number in its zone list (`[1]` for
    `["1"]`), as an engine that parses ids might."""

    def request(self, msg: dict[str, Any]) -> Any:
        reply = super().request(msg)
        if msg.get("cmd") == "observe" and reply.get("ok"):
            state = json.loads(json.dumps(reply["state"]))
            for pdata in state["players"].values():
                pdata["hand"] = [int(c) if c.isdigit() else c for c in pdata["hand"]]
            reply = {**reply, "state": state}
        return reply


def test_the_fuzzer_and_the_runner_compare_zone_lists_alike(tmp_path: Path) -> None:
    """`["1"]` is not `[1]`, for the fuzzer and for a case alike (the runner once compared
    lists as strings, and passed this engine)."""
    state = {
        "players": {
            "A": {"life": 5, "hand": [{"id": "1", "kind": "pal", "power": 1}]},
            "B": {"life": 5},
        }
    }
    diff = run_game(started(IntIdsEngine()), play(Rules, state, []))
    assert diff is not None and diff.kind == "observed"
    assert diff.fields == [Diff("players.A.hand", ["1"], [1])]
    path = write_case(
        {
            "id": "fuzz-int-ids",
            "title": "A card in hand is listed by its id",
            "clauses": [],
            "rules": ["B-2"],
            "setup": state,
            "actions": [],
            "expect": [{"after": 0, "observed": {"players": {"A": {"hand": ["1"]}}}}],
        },
        tmp_path,
    )
    case, errors = load_case(path)
    assert case is not None, errors
    assert run_case(started(OracleEngine()), case).outcome == "pass"
    result = run_case(started(IntIdsEngine()), case)
    assert result.outcome == "fail" and list(result.diffs) == diff.fields


def test_legal_is_compared_as_a_set() -> None:
    engine = started(ListsNoEndTurnEngine())
    game = play(Rules, {"players": {"A": {"life": 5}, "B": {"life": 5}}}, [])
    diff = run_game(engine, game)
    assert diff is not None and diff.kind == "legal"
    assert diff.fields == [Diff("legal", {"do": "end-turn", "player": "A"}, MISSING)]
    assert run_game(started(ReversedLegalEngine()), game) is None


def test_a_differing_path_is_found_in_the_oracles_observed() -> None:
    observed = {"cards": {"a.1": {"power": 3}, "a": {"1": {"power": 4}}}}
    assert _keys(observed, "cards.a.1.power") in (
        ("cards", "a.1", "power"),
        ("cards", "a", "1", "power"),
    )
    assert _keys({"cards": {"a.1": {"power": 3}}}, "cards.a.1.power") == ("cards", "a.1", "power")
    assert _keys(observed, "cards.b1") is None


# --------------------------------------------------------------------------- in-process runs


@pytest.mark.slow  # a campaign
def test_the_oracle_against_itself_shows_no_difference() -> None:
    report = fuzz(started(OracleEngine()), examples=60, seed=3)
    assert report.difference is None and report.examples == 60 and report.actions > 60


@pytest.mark.slow
def test_a_misread_keyword_is_found_shrunk_and_exported(tmp_path: Path) -> None:
    wrong = started(OracleEngine(MISREADINGS["nocturnal-200"], name="nocturnal-200"))
    report = fuzz(wrong, examples=300, seed=0)
    diff = report.difference
    assert diff is not None and diff.kind == "observed" and diff.step == 0
    # shrunk to one Nocturnal Pal at night, nothing else
    cards = [
        c
        for p in diff.game.state["players"].values()
        for zone in ("battle", "structures")
        for c in p.get(zone, [])
    ]
    assert diff.game.state.get("night") is True and len(cards) == 1
    nocturnal = cards[0].get("assigned", [cards[0]])[0]["id"]  # on a structure, or in battle
    assert [f.path for f in diff.fields] == [f"cards.{nocturnal}.power"]
    result = check_export(diff, wrong, tmp_path)
    assert result.outcome == "fail" and result.step == 0


@pytest.mark.slow
def test_the_same_seed_gives_the_same_run() -> None:
    def run(engine: Any, seed: int) -> tuple[Any, ...]:
        # the directed sweep comes first and takes no seed: the generated games do
        r = fuzz(started(engine), examples=30, seed=seed, max_actions=10, directed=False)
        d = r.difference
        return (
            r.examples,
            r.actions,
            r.first_found_at,
            d and (d.kind, d.game.state, d.game.actions),
        )

    assert run(OracleEngine(), 5) == run(OracleEngine(), 5)
    assert run(OracleEngine(), 5) != run(OracleEngine(), 6)
    first = run(ReasonEngine(), 7)  # found, shrunk and simplified the same way twice
    assert first[2] is not None and run(ReasonEngine(), 7) == first


class ReasonEngine(OracleEngine):
    """Says `wrong-timing` where the oracle says `wrong-player`."""

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        reply = super().request(msg)
        if reply.get("reason") == "wrong-player":
            reply = {**reply, "reason": "wrong-timing"}
        return reply


class NoBlocksEngine(OracleEngine):
    """Refuses every legal block (as if every attacker had Stealth), though it lists them."""

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        action = msg.get("action")
        game = self.session.game
        if (
            msg.get("cmd") == "act"
            and isinstance(action, dict)
            and action.get("do") == "block"
            and game is not None
            and action in game.legal()
        ):
            return {"ok": False, "error": "illegal", "reason": "cannot-block", "message": "no"}
        return super().request(msg)


class ListsNoEndTurnEngine(OracleEngine):
    """Plays like the oracle but leaves `end-turn` out of LEGAL."""

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        reply = super().request(msg)
        if msg.get("cmd") == "legal":
            reply = {**reply, "actions": [a for a in reply["actions"] if a["do"] != "end-turn"]}
        return reply


class ReversedLegalEngine(OracleEngine):
    """Lists LEGAL in the reverse order (a set: no difference)."""

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        reply = super().request(msg)
        if msg.get("cmd") == "legal":
            reply = {**reply, "actions": list(reversed(reply["actions"]))}
        return reply


class CrashOnAssignEngine(OracleEngine):
    """Breaks (as a crashed process would) when asked to assign."""

    restarts = 0

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        action = msg.get("action")
        if msg.get("cmd") == "act" and isinstance(action, dict) and action.get("do") == "assign":
            raise EngineCrash(
                "the engine exited with status 3 while answering `act`",
                stderr="Traceback …\x1b[31mboom",
            )
        return super().request(msg)

    def restart(self) -> None:
        CrashOnAssignEngine.restarts += 1
        super().restart()


@pytest.mark.parametrize(
    "engine_class, kind, outcome",
    [
        (ReasonEngine, "reason", "fail"),
        (NoBlocksEngine, "verdict", "fail"),
        (CrashOnAssignEngine, "engine-error", "error"),
    ],
)
@pytest.mark.slow
def test_each_kind_of_difference_is_found_and_exported(
    engine_class: type, kind: str, outcome: str, tmp_path: Path
) -> None:
    engine = started(engine_class())
    # not shrunk (test_a_misread_keyword_is_found_shrunk_and_exported shrinks): faster
    report = fuzz(engine, examples=300, seed=1, max_actions=10, shrink=False)
    diff = report.difference
    assert diff is not None and diff.kind == kind, diff and diff.summary
    assert check_export(diff, engine, tmp_path).outcome == outcome


def test_a_legal_only_difference_is_exported_with_a_probe_action(tmp_path: Path) -> None:
    engine = started(ListsNoEndTurnEngine())
    diff = fuzz(engine, examples=50, seed=0).difference
    assert diff is not None and diff.kind == "legal" and diff.step == 0
    case = case_from_difference(diff)
    assert case["actions"][-1]["do"] == "end-turn"  # the action only the oracle lists
    # it plays end-turn like the oracle: the case cannot catch it, and says so by passing
    assert check_export(diff, engine, tmp_path).outcome == "pass"


def test_simplify_removes_what_the_difference_does_not_need() -> None:
    wrong = started(OracleEngine(MISREADINGS["nocturnal-200"]))
    state = {
        "night": True,
        "turn": 5,
        "players": {
            "A": {
                "life": 3,
                "energy": 2,
                "hand": [{"id": "a1", "kind": "event", "effect": {"op": "energy", "amount": 1}}],
                "battle": [
                    {
                        "id": "a2",
                        "kind": "pal",
                        "power": 2000,
                        "strike": 2,
                        "cost": 1,
                        "keywords": ["Taunt", "Nocturnal"],
                        "state": "rest",
                    }
                ],
            },
            "B": {"life": 5, "battle": [{"id": "b1", "kind": "pal", "power": 5000}]},
        },
    }
    game = play(Rules, state, [{"do": "play", "player": "A", "card": "a1"}])
    diff = run_game(wrong, game)
    assert diff is not None and diff.step == 0
    small = simplify(wrong, diff)
    assert small.game.state == {
        "night": True,
        "players": {
            "A": {
                "life": 5,
                "battle": [
                    {
                        "id": "a1",
                        "kind": "pal",
                        "power": 3000,
                        "strike": 1,
                        "keywords": ["Nocturnal"],
                    }
                ],
            },
            "B": {"life": 5},
        },
    }


def test_simplify_starts_on_the_other_turn_rather_than_pass_it() -> None:
    """A game that opens by passing the turn shrinks to one that starts on the other
    player's turn: removing the pass alone leaves the next action refused (not its turn)."""
    wrong = started(OracleEngine(MISREADINGS["nocturnal-200"]))
    night = {"id": "a1", "kind": "event", "effect": {"op": "night", "value": True}}
    pal = {"id": "a2", "kind": "pal", "power": 3000, "strike": 1, "keywords": ["Nocturnal"]}
    state = {
        "active": "B",
        "players": {"A": {"life": 5, "hand": [night], "battle": [pal]}, "B": {"life": 5}},
    }
    actions = [{"do": "end-turn", "player": "B"}, {"do": "play", "player": "A", "card": "a1"}]
    diff = run_game(wrong, play(Rules, state, actions))
    assert diff is not None and diff.step == 2
    small = simplify(wrong, diff)
    assert small.game.actions == [{"do": "play", "player": "A", "card": "a1"}]
    assert small.game.state.get("active", "A") == "A" and small.step == 1


def test_relabel_renumbers_cards_and_actions_alike() -> None:
    state = {
        "players": {
            "A": {"life": 5, "battle": [{"id": "a3", "kind": "pal", "power": 1}]},
            "B": {"life": 5, "battle": [{"id": "b7", "kind": "pal", "power": 1}]},
        }
    }
    s, actions = relabel(
        state, [{"do": "attack", "player": "A", "attacker": "a3", "target": "b7", "choose": ["b7"]}]
    )
    assert [c["id"] for p in s["players"].values() for c in p["battle"]] == ["a1", "b1"]
    assert actions == [
        {"do": "attack", "player": "A", "attacker": "a1", "target": "b1", "choose": ["b1"]}
    ]


def test_malformed_actions_are_exported_wrapped() -> None:
    assert as_case_action({"do": "pass", "player": "A"}) == {"do": "pass", "player": "A"}
    assert as_case_action({"do": "fly", "player": "A"}) == {
        "malformed": {"do": "fly", "player": "A"}
    }
    assert as_case_action({"do": "block", "player": "B", "blocker": "b1", "choose": []}) == {
        "malformed": {"do": "block", "player": "B", "blocker": "b1", "choose": []}
    }


def test_the_printout_escapes_what_the_engine_said() -> None:
    engine = started(CrashOnAssignEngine())
    game = play(
        Rules,
        {
            "players": {
                "A": {
                    "life": 5,
                    "battle": [{"id": "a1", "kind": "pal", "power": 1}],
                    "structures": [{"id": "a2", "kind": "structure"}],
                },
                "B": {"life": 5},
            }
        },
        [{"do": "assign", "player": "A", "card": "a1", "structure": "a2"}],
    )
    diff = run_game(engine, game)
    assert diff is not None
    diff.engine[-1].message = "bad \x1b[31mred\x1b[0m\nnext line"
    text = format_difference(diff)
    assert "\x1b" not in text and "\\x1b[31mred" in text and "\\x0anext line" in text
    assert "ERROR" in text and "(setup)" in text
    # the action is shown whole, last on its line: its last field is not cut off
    row = next(line for line in text.splitlines() if line.startswith("    1  "))
    assert row.endswith('"structure": "a2"}') and "…" not in row
    # a differing value too wide for its column gets lines of its own, uncut
    long_path = "cards.a1.abilities"
    diff.fields = [Diff(long_path, ["x" * 50], ["y" * 80])]
    text = format_difference(diff)
    assert f'\n  {long_path}\n      oracle  ["{"x" * 50}"]\n      engine  ["{"y" * 80}"]' in text


# --------------------------------------------------------------------------- the command


@pytest.mark.slow
def test_fuzz_command_against_palconf_serve(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(["fuzz", "--engine-cmd", SERVE, "--examples", "40", "--seed", "2"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "no difference in 40 game(s)" in out and "LEGAL" in out


@pytest.mark.slow
def test_fuzz_command_finds_the_misread_engine_and_exports_a_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cmd = f"{sys.executable} {MISREAD} nocturnal-200"
    rc = cli_main(
        [
            "fuzz",
            "--engine-cmd",
            cmd,
            "--examples",
            "300",
            "--seed",
            "0",
            "-q",
            "--export",
            str(tmp_path),
            "--transcript",
            str(tmp_path / "difference.jsonl"),
        ]
    )
    out = capsys.readouterr().out
    assert rc == 1, out
    # the transcript replays: the same on the engine it came from, not on the oracle
    transcript = str(tmp_path / "difference.jsonl")
    assert cli_main(["replay", transcript, "--engine-cmd", cmd]) == 0
    assert cli_main(["replay", transcript]) == 1
    assert "DIFFERS" in capsys.readouterr().out
    # after the setup or an action: the draws follow the modules already imported too
    # (Hypothesis's local constants), so the tests that ran before in this process
    assert re.search(r"^DIFFERENCE \(observed\) (after setup|at action 1):", out, re.M), out
    assert "on the oracle: pass" in out and "on the engine: fail" in out
    (path,) = tmp_path.glob("*/*-fuzz-*.toml")  # into its group's folder
    case, errors = load_case(path)
    assert case is not None, errors
    assert run_case(started(OracleEngine()), case).outcome == "pass"
    wrong = ProcessEngine(cmd)
    try:
        wrong.start()
        assert run_case(wrong, case).outcome == "fail"
    finally:
        wrong.close()


def test_fuzz_command_shows_progress(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(fuzz_command, "PROGRESS_EVERY", 0.0)
    assert cli_main(["fuzz", "--engine-cmd", SERVE, "--examples", "5"]) == 0
    err = capsys.readouterr().err
    assert "fuzz: 5 example(s) of 5" in err and "action(s) compared" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--examples", "0"], "--examples: must be a whole number from 1 to 10000000"),
        (["--timeout", "0"], "--timeout: must be a number from more than 0 to 86400 seconds"),
    ],
)
def test_fuzz_command_bad_arguments(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:  # argparse itself refuses some (SystemExit 2), the command others
        status = cli_main(["fuzz", "--engine-cmd", SERVE, *argv])
    except SystemExit as e:
        status = e.code  # type: ignore[assignment]
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_fuzz_command_engine_that_does_not_start(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["fuzz", "--engine-cmd", "/nonexistent/engine --flag"]) == 2
    assert "cannot start the engine" in capsys.readouterr().err


def test_an_exported_case_points_at_a_schema_that_exists(tmp_path: Path) -> None:
    from palconf import paths
    from palconf.generators.export import SCHEMA_LINE, schema_line

    # in a checkout's cases/<group>/: the suite's own line (palconf lint asks for it)
    assert schema_line(paths.ROOT / "cases" / "taunt") == SCHEMA_LINE
    # anywhere else: a path from that folder to the schema this palconf carries
    folder = tmp_path / "exported" / "deep"
    folder.mkdir(parents=True)
    line = schema_line(folder)
    assert line.startswith("#:schema ") and line.endswith("\n")
    assert (folder / line[len("#:schema ") :].strip()).resolve() == paths.CASE_SCHEMA


class OtherPlayerReading(Rules):
    """Reads a `player` other than "A" or "B" as a player who may not act now (I-25): the
    table's answer for the player who may not act, not invalid-action."""

    def try_action(self, state: Any, action: Any) -> Any:
        if isinstance(action, dict) and isinstance(action.get("player"), str):
            if action["player"] not in ("A", "B"):
                bystander = "B" if (state.priority or state.active) == "A" else "A"
                action = {**action, "player": bystander}
        return super().try_action(state, action)


class UnknownPlayerNotFound(Rules):
    """Gives not-found for a `player` other than "A" or "B": neither reading of I-25."""

    def try_action(self, state: Any, action: Any) -> Any:
        if isinstance(action, dict) and action.get("player") == "C":
            raise Refusal("not-found", "no such player")
        return super().try_action(state, action)


def test_a_reason_the_protocol_leaves_open_is_no_difference(tmp_path: Path) -> None:
    """I-25: for a player "C", the fuzzer takes invalid-action or the reason of a player who
    may not act; any other reason is a difference, exported as a case that accepts the two."""
    state = {
        "players": {
            "A": {"life": 5, "battle": [{"id": "a1", "kind": "pal", "power": 3000}]},
            "B": {"life": 5},
        }
    }
    actions = [
        {"do": "pass", "player": "C"},  # main: wrong-timing, read as a player
        {"do": "end-turn", "player": "C"},  # main: wrong-player, read as a player
    ]
    game = play(Rules, state, actions)
    assert [s.open for s in game.steps] == [
        ("invalid-action", "wrong-timing"),
        ("invalid-action", "wrong-player"),
    ]
    assert run_game(started(OracleEngine(OtherPlayerReading)), game) is None
    wrong = started(OracleEngine(UnknownPlayerNotFound))
    diff = run_game(wrong, game)
    assert diff is not None and diff.kind == "reason" and diff.step == 1
    case = case_from_difference(diff)
    assert case["expect"][0]["refused"] == ["invalid-action", "wrong-timing"]
    assert case["interpretations"] == ["I-25"]
    assert check_export(diff, wrong, tmp_path).outcome == "fail"


# ------------------------------------------- an export that cites and lints (issue 35)

BRAVE_BOARD = {
    "active": "A",
    "players": {
        "A": {
            "life": 5,
            "battle": [
                {"id": "a1", "kind": "pal", "power": 3000, "strike": 1, "keywords": ["Brave 100"]}
            ],
        },
        "B": {"life": 5, "battle": [{"id": "b1", "kind": "pal", "power": 3100, "state": "rest"}]},
    },
}
END_TURN_B = {"do": "end-turn", "player": "B"}  # breaks one REASON row: wrong-player
ATTACK_B = {"do": "attack", "player": "B", "attacker": "b1", "target": "a1"}  # breaks three
ATTACK_A = {"do": "attack", "player": "A", "attacker": "a1", "target": "b1"}


@pytest.mark.parametrize(
    "actions, folder, rules",
    [
        ([END_TURN_B, ATTACK_A], "brave", ["B-6", "B-11", "B-18", "B-21"]),
        (
            [ATTACK_B, END_TURN_B, ATTACK_A],
            "protocol",
            ["B-6", "B-11", "B-18", "B-21", "P-reasons"],
        ),
    ],
)
def test_an_export_cites_what_it_touches_gives_reasons_and_passes_lint(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    actions: list[dict[str, Any]],
    folder: str,
    rules: list[str],
) -> None:
    game = play(Rules, BRAVE_BOARD, actions)
    n = len(actions)  # the engine left out Brave: a1 stayed at 3000
    diff = Difference(game, n, "observed", "1 field", [Diff("cards.a1.power", 3100, 3000)])
    case = case_from_difference(diff, seed=0)
    brave = [c.id for c in REGISTRY.clauses_in(REGISTRY.current) if c.keyword == "brave"]
    assert case["clauses"] == [c for c in brave if REGISTRY.clauses[c].testable] != []
    assert case["rules"] == rules and case["id"].startswith(f"{folder}-fuzz-")
    refused = {e["after"]: e.get("refused") for e in case["expect"]}
    assert refused[n - 1] == "wrong-player"  # the oracle's reason, not `true`
    if n == 3:  # wrong-player, then cannot-attack and illegal-target: the first, P-reasons cited
        assert refused[1] == "wrong-player"
        assert game.steps[0].broken[:2] == ("wrong-player", "cannot-attack")
    # written into a suite's cases folder (one beside a palconf/schemas/ of its own), it lints
    schema = tmp_path / "palconf" / "schemas" / "case.schema.json"
    schema.parent.mkdir(parents=True)
    schema.write_bytes(paths.CASE_SCHEMA.read_bytes())
    monkeypatch.setattr(paths, "CASE_SCHEMA", schema)
    written = write_case(case, tmp_path / "cases" / folder)
    capsys.readouterr()
    assert cli_main(["lint", "--cases", str(tmp_path / "cases")]) == 0, capsys.readouterr()
    assert run_case(started(OracleEngine()), load_case(written)[0]).outcome == "pass"


def test_a_fuzz_run_that_finds_nothing_says_to_raise_examples(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["fuzz", "--engine-cmd", SERVE, "--examples", "3", "--no-directed", "-q"]
    assert cli_main([*argv, "--max-actions", "4"]) == 0
    out = capsys.readouterr().out
    assert "no difference in 3 game(s)" in out
    assert "palconf fuzz: to look further, raise --examples (this run: 3)" in out
