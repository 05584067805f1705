"""Directed fuzzing (generators/_edges.py, generators/directed.py): STATEs at every edge of
`P-state`, actions that break several REASON rows at once, the hit-count table, keep-going.

The strongest check: every mutant of the project that is wrong only in one `P-state`
condition or only in the order of REASON rows is found within 300 games."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf.cases.loader import load_case
from palconf.cli import main as cli_main
from palconf.engines.oracle_engine import OracleEngine
from palconf.generators._boards import states
from palconf.generators._cells import CELLS, cards, cell_of
from palconf.generators._edges import CROSSED, EDGE_NAMES, edge_at, edge_state
from palconf.generators.differential import REASONS, fuzz, signature
from palconf.generators.directed import BOARD, directed_games, found_per_kind, restrict
from palconf.generators.export import case_from_difference, write_case
from palconf.generators.formatting import _short, format_hits
from palconf.mutants import get, load_all
from palconf.mutants.sweep import in_process
from palconf.oracle import Rules, StateError
from palconf.oracle.keywords import KEYWORD_IDS
from palconf.running.runner import run_case

EMPTY = {"players": {"A": {"life": 5}, "B": {"life": 5}}}
DIRECTED_MUTANTS = sorted(
    m.name for m in load_all().values() if m.clause in ("P-state", "P-reasons")
)


def verdict(state: Any) -> str:
    try:
        Rules.from_state(state)
    except StateError as e:
        return e.code
    return "accepted"


def expected_verdict(edge: str) -> str:
    """What docs/protocol.md says of each edge, by its name."""
    if edge.startswith("ok-"):
        return "accepted"
    return "unsupported" if edge.startswith("unsupported-") else "invalid-state"


@pytest.mark.parametrize("edge", EDGE_NAMES)
@pytest.mark.parametrize("board", [EMPTY, BOARD], ids=["empty", "rich"])
def test_every_edge_applies_to_any_board_and_means_what_its_name_says(
    edge: str, board: dict[str, Any]
) -> None:
    for k in range(4):
        state, name = edge_state(random.Random(k), board, edge)
        assert name == edge
        assert verdict(state) == expected_verdict(edge), (edge, state)


@settings(max_examples=60, deadline=None)
@given(board=states(), seed=st.integers(0, 10**6))
def test_edges_of_generated_boards_are_judged_as_named(board: dict[str, Any], seed: int) -> None:
    state, name = edge_state(random.Random(seed), board)
    assert verdict(state) == expected_verdict(name), (name, state)


@pytest.mark.parametrize("edge", sorted(CROSSED))
@pytest.mark.parametrize("board", [EMPTY, BOARD], ids=["empty", "rich"])
def test_a_crossed_edge_rewrites_a_card_in_each_of_its_cells(
    edge: str, board: dict[str, Any]
) -> None:
    for k, cell in enumerate(CROSSED[edge]):
        state, name, at = edge_at(random.Random(k), board, edge, cell)
        assert (name, at) == (edge, cell)
        assert verdict(state) == expected_verdict(edge), (edge, cell, state)
        # the rewrite touched a card in that cell and no other
        before = {json.dumps(c, sort_keys=True) for c, _, _ in cards(board)}
        changed = [
            (c, z) for c, z, _ in cards(state) if json.dumps(c, sort_keys=True) not in before
        ]
        zone = cell.split("/")[1]
        loose = edge in ("state-bad", "kind-bad", "missing-kind")  # the edge rewrites the cell
        assert any(cell_of(c, z) == cell or (loose and z == zone) for c, z in changed), (
            edge,
            cell,
            changed,
        )


def test_the_cells_are_every_kind_in_every_zone_it_may_be_in() -> None:
    assert len(CELLS) == 12 and len(set(CELLS)) == 12
    assert {c.split("/")[0] for c in CELLS} == {"pal", "event", "structure"}
    assert "pal/assigned/rest" in CELLS and "event/battle/stand" not in CELLS
    board = restrict(BOARD, KEYWORD_IDS)
    held = {cell_of(c, z) for c, z, _ in cards(board)}
    assert held == set(CELLS)  # the sweep's board has a card in every cell, for the probes


@pytest.mark.slow
def test_the_sweep_visits_every_edge_in_every_cell_and_many_pairs_of_rows() -> None:
    games = list(directed_games(Rules, KEYWORD_IDS))
    edges = {e for g in games for e in g.edges}
    assert {e.split("@")[0] for e in edges} == set(EDGE_NAMES)
    assert {e for e in edges if "@" in e} == {
        f"{name}@{cell}" for name, cells in CROSSED.items() for cell in cells
    }
    pairs = {(a, b) for g in games for s in g.steps for a in s.broken for b in s.broken if a != b}
    assert ("illegal-target", "taunt-required") in pairs
    assert ("wrong-kind", "cannot-pay") in pairs and ("wrong-timing", "wrong-player") in pairs
    assert len(games) < 150  # a sweep leaves half of a 300-game campaign to Hypothesis


def test_restrict_takes_off_what_an_engine_does_not_implement() -> None:
    board = restrict(BOARD, ("brave",))
    words = {
        w
        for p in board["players"].values()
        for zone in p.values()
        if isinstance(zone, list)
        for c in zone
        for w in c.get("keywords", [])
    }
    assert words == set()
    Rules.from_state(board)  # still a legal STATE


@pytest.mark.slow
def test_the_oracle_against_itself_shows_no_difference_in_the_sweep() -> None:
    engine = OracleEngine()
    engine.start()
    report = fuzz(engine, examples=160, seed=0, shrink=False)
    assert report.difference is None and report.examples == 160
    assert report.hits["edge not-object-state"] >= 1


@pytest.mark.parametrize("name", DIRECTED_MUTANTS)
@pytest.mark.slow
def test_a_misreading_of_p_state_or_p_reasons_is_found_within_300_games(name: str) -> None:
    engine = in_process(get(name))
    engine.start()
    report = fuzz(engine, examples=300, seed=0, shrink=False)
    assert report.difference is not None, f"{name}: no difference in 300 games"
    assert report.first_found_at is not None and report.first_found_at <= 300


class TwoMisreadings(
    get("reasons-taunt-before-illegal-target").rules,  # type: ignore[misc]
    get("state-turn-zero-accepted").rules,
):
    """Wrong in the REASON order and in one P-state condition at once."""


@pytest.mark.slow
def test_keep_going_collects_distinct_differences_each_shrunk(tmp_path: Path) -> None:
    engine = OracleEngine(TwoMisreadings, name="two-misreadings")
    engine.start()
    one = fuzz(engine, examples=300, seed=0)
    assert len(one.differences) == 1
    many = fuzz(engine, examples=300, seed=0, max_differences=5)
    kinds = {signature(d) for d in many.differences}
    assert len(many.differences) == len(kinds) >= 2
    assert {d.kind for d in many.differences} >= {"reason", "verdict"}
    for d in many.differences:
        assert len(d.game.steps) <= 3  # shrunk
        case = case_from_difference(d, seed=0)
        path = write_case(case, tmp_path)
        loaded, errors = load_case(path)
        assert loaded is not None, errors
        oracle = OracleEngine()
        oracle.start()
        assert run_case(oracle, loaded).outcome == "pass"
        assert run_case(engine, loaded).outcome == "fail"


def test_the_hit_table_names_every_reason_and_edge_and_what_was_never_hit() -> None:
    hits = {
        "reason wrong-player": 3,
        "rows wrong-timing + wrong-player": 2,
        "edge turn-bad": 1,
        "edge power-bad@event/graveyard": 4,
        "cell cannot-pay structure/hand": 7,
    }
    text = format_hits(hits, REASONS, EDGE_NAMES)
    assert "REASON given (1 of 12):" in text and "wrong-player 3" in text
    assert "wrong-timing + wrong-player 2" in text and "never: wrong-timing + not-found" in text
    assert f"P-state edges sent with `setup` (1 of {len(EDGE_NAMES)}):" in text
    assert "never: ok-defaults-written" in text
    lines = text.splitlines()
    head = next(line.split() for line in lines if line.split()[:3] == ["P-state", "edge", "P.h"])
    assert head[2:] == [_short(c) for c in CELLS]  # one column per cell
    power = next(line.split() for line in lines if line.strip().startswith("power-bad"))
    assert power[1:] == ["." if c != "event/graveyard" else "4" for c in CELLS]
    missing = next(line.split() for line in lines if line.strip().startswith("missing-power"))
    assert missing[1:] == ["." if c.startswith("pal/") else "-" for c in CELLS]
    pay = next(line.split() for line in lines if line.strip().startswith("cannot-pay"))
    assert pay[1:] == ["7" if c == "structure/hand" else "." for c in (*CELLS, "none")]


@pytest.mark.slow  # a whole directed sweep
def test_the_fuzzer_counts_edges_by_cell_and_reasons_by_acting_card() -> None:
    engine = OracleEngine()
    engine.start()
    report = fuzz(engine, examples=130, seed=0, shrink=False)
    hits = report.hits
    for name, cells in CROSSED.items():
        assert hits[f"edge {name}"] >= len(cells)
        assert all(hits[f"edge {name}@{c}"] >= 1 for c in cells), name
    # the rows the old sweep hit thinly: each now at every kind of card that can break it
    assert hits["cell cannot-pay structure/hand"] >= 1 and hits["cell cannot-pay event/hand"] >= 1
    assert hits["cell cannot-attack pal/battle/rest"] >= 5
    assert hits["cell not-found pal/assigned/rest"] >= 5
    assert hits["cell wrong-kind event/hand"] >= 5 and hits["cell wrong-kind structure/hand"] >= 1


KIND_SPECIFIC = {
    # a rule that holds on every kind, misread on some: found on those, not on the others
    "state-integer-rules-only-on-pals": {"event", "structure"},
    "state-keyword-texts-checked-only-on-pals": {"event", "structure"},
    "state-assigned-pals-unchecked": {"pal"},
    "state-empty-assigned-outside-refused": {"structure"},
    "reasons-structure-cannot-pay-before-wrong-kind": {"structure"},
    "reasons-assigned-attacker-cannot-attack": {"pal"},
    # misread on every kind: found on every kind
    "state-booleans-are-integers": {"pal", "event", "structure"},
    "state-unchecked-out-of-play": {"pal", "event", "structure"},
    "state-unused-field-refused": {"pal", "event", "structure"},
    "state-master-id-accepted": {"pal", "event", "structure"},
}


@pytest.mark.slow  # a whole directed sweep
def test_the_sweep_alone_finds_each_card_misreading_on_every_kind_it_shows_on() -> None:
    games = list(directed_games(Rules, KEYWORD_IDS))
    for name, kinds in KIND_SPECIFIC.items():
        found = found_per_kind(get(name).rules, games)
        assert set(found) == kinds, (name, found)
        assert max(found.values()) <= len(games)
    assert found_per_kind(Rules, games) == {}


@pytest.mark.slow
def test_fuzz_prints_the_hit_table_and_keeps_going(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    cmd = f"{sys.executable} -m palconf.cli serve --mutant state-turn-zero-accepted"
    argv = ["fuzz", "--engine-cmd", cmd, "--examples", "120", "-q", "--keep-going"]
    status = cli_main([*argv, "--stats"])
    out = capsys.readouterr().out
    assert status == 1
    assert "DIFFERENCE (verdict)" in out and "what the games hit" in out
    assert f"P-state edges sent with `setup` ({len(EDGE_NAMES)} of {len(EDGE_NAMES)})" in out
    # the statistics come before the finding; the finding ends the output
    assert out.index("what the games hit") < out.index("DIFFERENCE (verdict)")
    assert out.rstrip().splitlines()[-1].startswith("palconf fuzz: ")
    assert cli_main(argv) == 1  # without --stats: no statistics at all
    assert "what the games hit" not in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        cli_main(["fuzz", "--engine-cmd", cmd, "--max-differences", "0"])
    assert e.value.code == 2
    assert "--max-differences: must be a whole number from 1 to 1000" in capsys.readouterr().err


def test_probes_send_a_wrong_typed_field_only_where_the_action_has_that_field() -> None:
    """I-26: an engine may ignore a field its action does not have (`choose` on end-turn),
    so no probe gives such a field the wrong JSON type; the action's own fields do get one."""
    from palconf.generators._probes import probe_actions
    from palconf.oracle.checks import ACTION_FIELDS, OPTIONAL_FIELDS

    game = Rules.from_state(json.loads(json.dumps(BOARD)))

    def well_typed(name: str, value: Any) -> bool:  # the oracle checks every field it sees
        found = game.reasons({"do": "end-turn", "player": "B", name: value})
        return not found or found[0].reason != "invalid-action"

    probes = probe_actions(random.Random(0), game, game.legal(), 3000)
    wrong_own = 0
    for a in probes:
        do = a.get("do")
        if not isinstance(do, str) or do not in ACTION_FIELDS:
            continue
        own = {"do", "player", *ACTION_FIELDS[do], *OPTIONAL_FIELDS.get(do, ())}
        for name, value in a.items():
            if name not in own:
                assert well_typed(name, value), a
            elif name not in ("do", "player") and not well_typed(name, value):
                wrong_own += 1
    assert wrong_own > 100, wrong_own
