"""Mutant engines (palconf.mutants) and `palconf mutants`: the registry's promises, the sweep's
verdicts, minimality, pruning, and the command's output and exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from palconf import paths
from palconf.cases.loader import Case, build_case, load_cases
from palconf.cli import main
from palconf.mutants import Mutant, get, load_all, overridden_methods
from palconf.mutants.sweep import (
    MutantOutcome,
    Tracer,
    cover,
    keyword_scores,
    minimal_killing_set,
    own_interpreter,
    sweep,
    thin_clauses,
    to_json,
    touches,
    tracing_rules,
)
from palconf.oracle.keywords import KEYWORDS
from palconf.oracle.protocol import Session
from palconf.oracle.rules import Rules
from palconf.registry import BASE
from palconf.registry import load as load_registry
from palconf.running.runner import Result

MUTANTS = load_all()
REGISTRY = load_registry()


# ---------------------------------------------------------------- small cases, built in memory


def make_case(
    cid: str,
    setup: dict[str, Any],
    actions: list[dict[str, Any]],
    expect: list[dict[str, Any]],
    clauses: list[str] | None = None,
    rules: list[str] | None = None,
) -> Case:
    data = {
        "id": cid,
        "title": cid,
        "clauses": clauses or [],
        "rules": rules or ["B-15"],
        "setup": setup,
        "actions": actions,
        "expect": expect,
    }
    return build_case(data, f"base/{cid}.toml", REGISTRY)


def battle_setup(power_a: int, power_b: int) -> dict[str, Any]:
    return {
        "active": "A",
        "players": {
            "A": {
                "life": 5,
                "battle": [{"id": "a1", "kind": "pal", "power": power_a, "strike": 1}],
            },
            "B": {
                "life": 5,
                "battle": [{"id": "b1", "kind": "pal", "power": power_b, "state": "rest"}],
            },
        },
    }


ATTACK = [
    {"do": "attack", "player": "A", "attacker": "a1", "target": "b1"},
    {"do": "pass", "player": "B"},
    {"do": "pass", "player": "B"},
    {"do": "pass", "player": "A"},
]

#: Equal power: both Pals die (B-15). Kills the three tie mutants.
TIE = make_case(
    "base-t-tie",
    battle_setup(3000, 3000),
    ATTACK,
    [{"observed": {"players": {"A": {"graveyard": ["a1"]}, "B": {"graveyard": ["b1"]}}}}],
)
#: Lower power loses. Kills none of the tie mutants.
LOWER = make_case(
    "base-t-lower",
    battle_setup(3000, 2000),
    ATTACK,
    [{"observed": {"players": {"A": {"graveyard": []}, "B": {"graveyard": ["b1"]}}}}],
)
#: A case the oracle fails (a wrong expectation): it must not count as a kill.
WRONG = make_case(
    "base-t-wrong",
    battle_setup(3000, 2000),
    ATTACK,
    [{"observed": {"players": {"B": {"graveyard": []}}}}],
)


@pytest.fixture(scope="module")
def suite() -> list[Case]:
    """The project's case suite, loaded once for the tests that sweep it."""
    return load_cases(paths.CASES, REGISTRY)


def names(*ns: str) -> list[Mutant]:
    return [MUTANTS[n] for n in ns]


# ---------------------------------------------------------------- the registry's promises


def test_at_least_forty_mutants_with_unique_kebab_names() -> None:
    assert len(MUTANTS) >= 40
    assert all(name == m.name for name, m in MUTANTS.items())


def test_every_clause_is_known_and_every_testable_clause_has_a_mutant() -> None:
    for m in MUTANTS.values():
        assert (
            m.clause in REGISTRY.clauses
            or m.clause in REGISTRY.base
            or m.clause in REGISTRY.protocol
        ), m.name
        if m.clause in REGISTRY.clauses:
            assert REGISTRY.clauses[m.clause].testable, m.name
    broken = {m.clause for m in MUTANTS.values()}
    assert [c.id for c in REGISTRY.testable if c.id not in broken] == []
    # each of the protocol's four rule-like parts has a mutant
    assert {"P-state", "P-reasons", "P-observed", "P-legal"} <= set(REGISTRY.protocol)
    assert [p for p in ("P-state", "P-reasons", "P-observed", "P-legal") if p not in broken] == []


def test_base_rules_engines_get_wrong_have_mutants() -> None:
    broken = {m.clause for m in MUTANTS.values()}
    # block step, quick step, battle and ties, end of turn, targets, power, life, refusals
    assert {"B-6", "B-11", "B-13", "B-14", "B-15", "B-17", "B-18", "B-20", "B-21"} <= broken


def test_each_misreading_is_one_line_sentence() -> None:
    for m in MUTANTS.values():
        assert m.misreading and "\n" not in m.misreading, m.name
        assert m.misreading.lstrip('"')[0].isupper() and m.misreading.endswith("."), m.name


def test_each_mutant_is_a_small_override_out_of_the_oracle() -> None:
    """One keyword replaced (same keys), or at most two `Rules` methods overridden, or (a
    session mutant) at most two `Session` methods on the oracle's own game, never two of
    these; the oracle's own classes are untouched."""
    for m in MUTANTS.values():
        if m.session is not Session:
            assert m.rules is Rules and issubclass(m.session, Session), m.name
            assert 1 <= len(overridden_methods(m.session, Session)) <= 2, m.name
            assert m.how.startswith("overrides Session."), m.name
            continue
        assert issubclass(m.rules, Rules) and m.rules is not Rules, m.name
        changed = [k for k in KEYWORDS if m.rules.keywords[k] is not KEYWORDS[k]]
        assert set(m.rules.keywords) == set(KEYWORDS), m.name
        methods = [
            n
            for cls in m.rules.__mro__[: m.rules.__mro__.index(Rules)]
            for n in overridden_methods(cls, Rules)
            if n != "keywords"
        ]
        if changed:
            assert len(changed) == 1 and not methods, m.name
            assert type(m.rules.keywords[changed[0]]) is not type(KEYWORDS[changed[0]])
            assert m.how.startswith("replaces keyword"), m.name
        else:
            assert 1 <= len(methods) <= 2, (m.name, methods)
            assert m.how.startswith("overrides Rules."), m.name
    assert Rules.keywords is KEYWORDS


def test_every_mutant_says_hello_with_all_keywords() -> None:
    """A mutant lacking a keyword would have its cases skipped, never failed."""
    oracle = Session().hello()["keywords"]
    for m in MUTANTS.values():
        assert m.session(m.rules).hello()["keywords"] == oracle, m.name


def test_get_unknown_mutant_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="no mutant 'nope'"):
        get("nope")


# ---------------------------------------------------------------- the sweep's verdicts


def test_sweep_kills_with_the_right_cases_and_ignores_cases_the_oracle_fails() -> None:
    s = sweep(
        names("tie-nobody-dies", "tie-attacker-dies", "pumps-never-expire"),
        [TIE, LOWER, WRONG],
        exhaustive=True,
    )
    assert s.counted == ["base-t-tie", "base-t-lower"]
    assert [r.id for r in s.not_counted] == ["base-t-wrong"]
    by_name = {o.mutant.name: o for o in s.outcomes}
    assert by_name["tie-nobody-dies"].killed_by == ["base-t-tie"]
    assert by_name["tie-attacker-dies"].killed_by == ["base-t-tie"]
    assert by_name["pumps-never-expire"].status == "survived"
    assert [o.mutant.name for o in s.survivors] == ["pumps-never-expire"]
    assert all(r.outcome == "fail" for o in s.outcomes for r in o.kills)


def test_pruning_skips_cases_that_cannot_tell_the_mutant_apart() -> None:
    s = sweep(
        names(
            "tie-nobody-dies",
            "tie-defender-dies",
            "interrupt-pays-printed-cost",
            "blocker-not-rested",
        ),
        [TIE, LOWER],
    )
    ran = {o.mutant.name: o.ran for o in s.outcomes}
    # both cases battle, but only the tie makes battle_losers answer otherwise
    assert ran["tie-nobody-dies"] == ran["tie-defender-dies"] == 1
    assert ran["interrupt-pays-printed-cost"] == 0  # no Interrupt is ever used
    assert ran["blocker-not-rested"] == 0  # no one blocks


def test_tracer_records_calls_and_mutants_that_do_otherwise() -> None:
    tracer = Tracer(
        names("tie-nobody-dies", "taunt-ignored", "attack-does-not-rest", "blocker-not-rested")
    )
    game = tracing_rules(tracer).from_state(TIE.setup)
    for action in ATTACK:
        assert game.apply(dict(action)) is None
    assert {"check_attack", "move_attack", "legal_targets", "battle_losers"} <= tracer.touched
    assert "keyword:taunt" not in tracer.touched  # no card has a keyword
    # a pure method (battle_losers) and a move (move_attack) that do otherwise are seen;
    # a move never called (move_block) is not
    assert tracer.diverged == {"tie-nobody-dies", "attack-does-not-rest"}
    assert game.observe()["players"]["B"]["graveyard"] == ["b1"]  # the oracle's own result
    assert touches(MUTANTS["taunt-ignored"]) == frozenset({"keyword:taunt"})
    assert touches(MUTANTS["tie-nobody-dies"]) == frozenset({"battle_losers"})


@pytest.mark.slow
def test_pruned_and_exhaustive_sweeps_agree_on_the_corpus(suite: list[Case]) -> None:
    """The soundness of pruning, checked on every twentieth case of the suite."""
    cases = suite[::20]
    pruned = sweep(MUTANTS.values(), cases)
    full = sweep(MUTANTS.values(), cases, exhaustive=True)
    assert [(o.mutant.name, o.killed_by) for o in pruned.outcomes] == [
        (o.mutant.name, o.killed_by) for o in full.outcomes
    ]
    assert sum(o.ran for o in pruned.outcomes) < sum(o.ran for o in full.outcomes)


def test_parallel_sweep_gives_the_same_verdicts() -> None:
    chosen = names("tie-nobody-dies", "tie-defender-dies", "pumps-never-expire")
    one = sweep(chosen, [TIE, LOWER])
    two = sweep(chosen, [TIE, LOWER], jobs=2)
    assert [(o.mutant.name, o.killed_by, o.ran) for o in one.outcomes] == [
        (o.mutant.name, o.killed_by, o.ran) for o in two.outcomes
    ]


@pytest.mark.slow
def test_every_mutant_is_killed_by_the_case_suite(suite: list[Case]) -> None:
    """The suite's strength: what `palconf mutants` gates CI on. A mutant killed only by an
    engine error would be a broken mutant, not a misreading: every kill is a `fail`, but for
    the few whose misreading is an answer the contract counts as `error` (`killed_as`)."""
    s = sweep(MUTANTS.values(), suite)
    assert [o.mutant.name for o in s.survivors] == []
    errors = [
        (o.mutant.name, r.id, r.outcome)
        for o in s.outcomes
        for r in o.kills
        if r.outcome != o.mutant.killed_as
    ]
    assert errors == []
    assert {m.name for m in MUTANTS.values() if m.killed_as != "fail"} == {
        "errors-action-not-object-bad-request"
    }


# ---------------------------------------------------------------- minimality and scores


def outcome(name: str, *killers: str, status: str = "fail") -> MutantOutcome:
    return MutantOutcome(
        MUTANTS[name], [Result(id=k, keywords=[], clauses=[], outcome=status) for k in killers]
    )


def test_minimal_killing_set_prefers_a_case_citing_the_clause() -> None:
    cited = make_case(
        "base-t-cites",
        battle_setup(3000, 3000),
        ATTACK[:1],
        [{"observed": {"step": "block"}}],
        rules=["B-15"],
    )
    other = make_case(
        "base-t-other",
        battle_setup(3000, 3000),
        ATTACK[:1],
        [{"observed": {"step": "block"}}],
        rules=["B-11"],
    )
    cases = {c.id: c for c in (cited, other, TIE)}
    o = outcome("tie-nobody-dies", "base-t-other", "base-t-cites", "base-t-tie")
    assert minimal_killing_set(o, cases) == ["base-t-cites"]  # cites B-15, fewest actions
    assert minimal_killing_set(outcome("tie-nobody-dies"), cases) == []


def test_thin_clauses_and_cover() -> None:
    outcomes = [
        outcome("tie-nobody-dies", "c1"),
        outcome("tie-attacker-dies", "c1", "c2"),
        outcome("taunt-ignored", "c3", "c2"),
        outcome("pumps-never-expire"),
    ]
    assert thin_clauses(outcomes) == {"B-15": ["tie-nobody-dies"]}
    assert cover(outcomes) == ["c1", "c2"]


def test_keyword_scores() -> None:
    outcomes = [
        outcome("tie-nobody-dies", "c1"),
        outcome("pumps-never-expire"),
        outcome("taunt-ignored", "c3"),
    ]
    scores = keyword_scores(outcomes, REGISTRY)
    assert scores[BASE] == {
        "mutants": 2,
        "killed": 1,
        "score": 0.5,
        "survivors": ["pumps-never-expire"],
    }
    assert scores["taunt"]["score"] == 1.0
    assert scores["brave"] == {"mutants": 0, "killed": 0, "score": None, "survivors": []}


# ---------------------------------------------------------------- the command

CASE_FILE = """#:schema ../../palconf/schemas/case.schema.json
id = "base-t-tie"
title = "Equal power: both Pals are put into the graveyard"
clauses = []
rules = ["B-15"]
actions = [
  { do = "attack", player = "A", attacker = "a1", target = "b1" },
  { do = "pass", player = "B" },
  { do = "pass", player = "B" },
  { do = "pass", player = "A" },
]

[setup]
active = "A"
[setup.players.A]
life = 5
battle = [{ id = "a1", kind = "pal", power = 3000, strike = 1 }]
[setup.players.B]
life = 5
battle = [{ id = "b1", kind = "pal", power = 3000, state = "rest" }]

[[expect]]
observed = { players = { A = { graveyard = ["a1"] }, B = { graveyard = ["b1"] } } }
"""


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "base-t-tie.toml").write_text(CASE_FILE, encoding="utf-8")
    return tmp_path


def test_cli_exit_0_when_all_killed(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "--cases", str(corpus), "-m", "tie-*"]) == 0
    out = capsys.readouterr().out
    assert "tie-nobody-dies" in out and "base-t-tie" in out and "[thin]" in out
    assert "every mutant is killed (3)" in out


def test_cli_exit_1_and_json_when_one_survives(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "mutants",
                "--cases",
                str(corpus),
                "-m",
                "tie-nobody-dies",
                "-m",
                "pumps-never-expire",
                "--json",
            ]
        )
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert data["survivors"] == ["pumps-never-expire"]
    tie = next(m for m in data["mutants"] if m["name"] == "tie-nobody-dies")
    assert (tie["name"], tie["status"], tie["killed_by"], tie["minimal"], tie["thin"]) == (
        "tie-nobody-dies",
        "killed",
        ["base-t-tie"],
        ["base-t-tie"],
        True,
    )
    assert data["thin"] == {"B-15": ["tie-nobody-dies"]}
    assert data["keywords"]["base"]["score"] == 0.5
    assert data["total"] == {"mutants": 2, "killed": 1, "score": 0.5}
    assert data["cover"] == ["base-t-tie"]


def test_cli_child_processes_agree_with_in_process(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template = f"{sys.executable} -m palconf.cli serve --mutant {{mutant}}"
    args = [
        "mutants",
        "--cases",
        str(corpus),
        "-m",
        "tie-nobody-dies",
        "-m",
        "pumps-never-expire",
        "--json",
    ]
    assert main(args + ["--engine-cmd-template", template]) == 1
    child = json.loads(capsys.readouterr().out)
    # palconf run -j's workers: one mutant at a time per worker, each its own engine process
    assert main(args + ["--engine-cmd-template", template, "-j", "2"]) == 1
    assert json.loads(capsys.readouterr().out) == child
    main(args)
    here = json.loads(capsys.readouterr().out)
    assert child["engine"] == template and child["pruned"] is False and here["pruned"] is True
    assert [(m["name"], m["status"], m["killed_by"]) for m in child["mutants"]] == [
        (m["name"], m["status"], m["killed_by"]) for m in here["mutants"]
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-m", "nope"], "no mutant matches 'nope'"),
        (["--engine-cmd-template", "palconf serve"], "needs {mutant}"),
        (["--engine-cmd-template", "'unclosed {mutant}"], "cannot parse"),
        (["--jobs", "0"], "--jobs/-j: must be a whole number from 1 to 256, or auto, not '0'"),
    ],
)
def test_cli_bad_arguments_exit_2(
    corpus: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    try:  # argparse itself refuses some (SystemExit 2), the command others
        status = main(["mutants", "--cases", str(corpus)] + argv)
    except SystemExit as e:
        status = int(e.code or 0)
    assert status == 2
    assert message in capsys.readouterr().err


def test_cli_jobs_must_be_a_count_or_auto(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:  # argparse's own exit: the usage line, then 2
        main(["mutants", "--cases", str(corpus), "--jobs", "0"])
    assert stop.value.code == 2
    message = "--jobs/-j: must be a whole number from 1 to 256, or auto, not '0'"
    assert message in capsys.readouterr().err


def test_cli_engine_that_cannot_start_is_a_fault_not_a_kill(
    corpus: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "mutants",
                "--cases",
                str(corpus),
                "-m",
                "tie-nobody-dies",
                "--json",
                "--engine-cmd-template",
                "/nonexistent/engine {mutant}",
            ]
        )
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert data["mutants"][0]["status"] == "fault"
    assert "not found" in data["mutants"][0]["fault"]


def test_cli_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "--list", "-m", "taunt-*"]) == 0
    out = capsys.readouterr().out
    assert (
        "taunt-standing-locks-out  [taunt.4]  replaces keyword Taunt by "
        "TauntStandingLocksOut (overrides Taunt.restrict_targets)"
    ) in out
    assert main(["mutants", "--list", "-m", "assault-targets-*"]) == 0
    out = capsys.readouterr().out
    assert (
        "assault-targets-assigned-pals  [assault.1]  overrides Rules.targetable, "
        "Rules.legal_targets"
    ) in out


def test_cli_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mutants", "--list", "--json", "-m", "tie-*", "-m", "taunt-standing-*"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["mutants"]
    names = [m["name"] for m in data["mutants"]]
    assert names == sorted(names) and "tie-nobody-dies" in names
    taunt = next(m for m in data["mutants"] if m["name"] == "taunt-standing-locks-out")
    mutant = MUTANTS["taunt-standing-locks-out"]
    assert taunt == {
        "name": mutant.name,
        "clause": "taunt.4",
        "keyword": "taunt",
        "how": mutant.how,
        "misreading": mutant.misreading,
    }
    assert main(["mutants", "--list", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["mutants"]) == len(MUTANTS)


def test_own_interpreter_rewrites_only_palconf() -> None:
    assert own_interpreter(["palconf", "serve", "--mutant", "{mutant}"]) == [
        sys.executable,
        "-m",
        "palconf.cli",
        "serve",
        "--mutant",
        "{mutant}",
    ]
    for argv in (
        ["python3", "-m", "palconf.cli", "serve"],
        ["python", "engine.py", "{mutant}"],
        ["/opt/other/bin/palconf", "serve"],
        ["./palconf", "serve"],
        ["palconf-engine", "{mutant}"],
    ):
        assert own_interpreter(argv) == argv


def test_cli_template_palconf_works_without_the_venv_on_path(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no `palconf` to be found
    template = "palconf serve --mutant {mutant}"
    argv = ["mutants", "--cases", str(corpus), "-m", "tie-nobody-dies", "--json"]
    assert main([*argv, "--engine-cmd-template", template]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["engine"] == template
    assert [(m["status"], m["killed_by"]) for m in data["mutants"]] == [("killed", ["base-t-tie"])]
    assert main([*argv, "--engine-cmd-template", "palconf-nope {mutant}"]) == 1
    assert "'palconf-nope' not found" in json.loads(capsys.readouterr().out)["mutants"][0]["fault"]


def test_cli_help_says_palconf_runs_as_its_own_interpreter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["mutants", "--help"])
    assert "palconf's own interpreter" in " ".join(capsys.readouterr().out.split())


def test_serve_mutant(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO('{"cmd": "hello"}\n{"cmd": "bye"}\n'))
    assert main(["serve", "--mutant", "tie-nobody-dies"]) == 0
    hello = json.loads(capsys.readouterr().out.splitlines()[0])
    assert hello["engine"]["name"] == "palconf-mutant:tie-nobody-dies"
    assert main(["serve", "--mutant", "nope"]) == 2
    assert "no mutant 'nope'" in capsys.readouterr().err


def test_to_json_shape() -> None:
    s = sweep(names("tie-nobody-dies"), [TIE])
    data = to_json(s, REGISTRY)
    assert set(data) == {
        "engine",
        "pruned",
        "cases",
        "counted",
        "not_counted",
        "mutants",
        "keywords",
        "thin",
        "cover",
        "survivors",
        "total",
    }
    assert set(data["mutants"][0]) == {
        "name",
        "clause",
        "keyword",
        "misreading",
        "how",
        "status",
        "killed_by",
        "minimal",
        "thin",
        "kills",
        "ran",
        "skipped",
        "fault",
    }
