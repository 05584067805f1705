"""P-observed's own rules, checked on every OBSERVED the runner sees (palconf.core.observed_rules):
the oracle keeps them on generated games; each broken one is named; and a case fails an engine
that breaks one even where the case's own expectations name nothing of it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from palconf.core import Diff
from palconf.core.compare import MISSING
from palconf.core.observed_rules import observed_problems, printed_cards
from palconf.engines.oracle_engine import OracleEngine
from palconf.generators import Game, games
from palconf.mutants import get
from palconf.oracle import Rules

from .test_loader import GOOD, write

STATE: dict[str, Any] = {
    "active": "A",
    "players": {
        "A": {
            "life": 5,
            "hand": [
                {"id": "a3", "kind": "pal", "power": 2000},
                {"id": "s2", "kind": "structure"},
            ],
            "battle": [{"id": "a1", "kind": "pal", "power": 3000, "strike": 1}],
            "structures": [
                {
                    "id": "s1",
                    "kind": "structure",
                    "slots": 2,
                    "assigned": [{"id": "a2", "kind": "pal", "power": 1000}],
                }
            ],
            "graveyard": [{"id": "e1", "kind": "event", "effect": {"op": "energy", "amount": 1}}],
        },
        "B": {"life": 5, "battle": [{"id": "b1", "kind": "pal", "power": 2500, "state": "rest"}]},
    },
}


def observed() -> dict[str, Any]:
    return Rules.from_state(copy.deepcopy(STATE)).observe()


def problems(o: dict[str, Any]) -> list[Diff]:
    return observed_problems(o, printed_cards(STATE))


def test_the_oracles_observed_keeps_every_rule() -> None:
    assert set(printed_cards(STATE)) == {"a1", "a2", "a3", "s1", "s2", "e1", "b1"}
    assert problems(observed()) == []


@settings(max_examples=40, deadline=None)
@given(games(max_actions=12))
def test_every_observed_of_a_generated_game_keeps_the_rules(game: Game) -> None:
    cards = printed_cards(game.state)
    for step in game.steps:
        if step.is_setup and step.accepted:
            cards = printed_cards(step.action["setup"])
        assert observed_problems(step.observed, cards) == [], step.action


def _edit(change: Any) -> list[str]:
    o = observed()
    change(o)
    return [d.path for d in problems(o)]


@pytest.mark.parametrize(
    "what, change, path",
    [
        ("a card the game lacks", lambda o: o["cards"].pop("e1"), "cards.e1"),
        (
            "an invented card",
            lambda o: o["cards"].update(x9={**o["cards"]["a3"]}),
            "cards.x9",
        ),
        ("a card changes hands", lambda o: o["cards"]["b1"].update(owner="A"), "cards.b1.owner"),
        ("a state in hand", lambda o: o["cards"]["a3"].update(state="stand"), "cards.a3.state"),
        ("no state in play", lambda o: o["cards"]["a1"].update(state=None), "cards.a1.state"),
        ("an event's power", lambda o: o["cards"]["e1"].update(power=0), "cards.e1.power"),
        ("a structure's strike", lambda o: o["cards"]["s1"].update(strike=0), "cards.s1.strike"),
        ("a Pal without power", lambda o: o["cards"]["a1"].update(power=None), "cards.a1.power"),
        ("a pumped power in hand", lambda o: o["cards"]["a3"].update(power=2100), "cards.a3.power"),
        (
            "a structure in hand in the structures map",
            lambda o: o["players"]["A"]["structures"].update(s2=[]),
            "players.A.structures",
        ),
        (
            "an assigned Pal in the battle list too",
            lambda o: o["players"]["A"]["battle"].append("a2"),
            "players.A.battle",
        ),
        (
            "a listed id with no card",
            lambda o: o["players"]["B"]["graveyard"].append("zz"),
            "players.B.graveyard",
        ),
        (
            "a card listed nowhere",
            lambda o: o["players"]["A"]["hand"].remove("a3"),
            "players.A.hand",
        ),
        (
            "a card in the other player's list",
            lambda o: (
                o["players"]["A"]["battle"].append("b1") or o["players"]["B"]["battle"].clear()
            ),
            "players.A.battle",
        ),
        ("priority in the main step", lambda o: o.update(priority="A"), "priority"),
        ("a block step with no attack", lambda o: o.update(step="block", priority="B"), "attack"),
        ("a winner while playing", lambda o: o.update(winner="A"), "winner"),
        ("game over with no winner", lambda o: o.update(step="over"), "winner"),
    ],
)
def test_each_broken_rule_is_named(what: str, change: Any, path: str) -> None:
    assert path in _edit(change), what


def test_a_missing_card_and_an_unlisted_one_say_what_p_observed_asks() -> None:
    o = observed()
    o["cards"].pop("e1")
    assert Diff("cards.e1", "a card of the game", MISSING) in problems(o)


def test_a_case_fails_an_engine_that_breaks_p_observed_where_it_names_nothing(
    tmp_path: Path,
) -> None:
    """GOOD (tests/test_loader.py) names only a1's power and the attack; an engine whose
    OBSERVED lists a Pal twice fails it all the same, at the step where it happens."""
    from palconf.cases.loader import load_cases
    from palconf.running.runner import run_case

    text = GOOD.replace(
        'battle = [{ id = "a1", kind = "pal", power = 3000, keywords = ["Brave 200"] }]',
        'battle = [{ id = "a1", kind = "pal", power = 3000, keywords = ["Brave 200"] }]\n'
        'structures = [{ id = "s1", kind = "structure", assigned = [{ id = "a2", kind = "pal", '
        "power = 1 }] }]",
    )
    assert "a2" in text
    write(tmp_path, text)
    case = load_cases(tmp_path)[0]
    engine = OracleEngine(rules=Rules)
    engine.start()
    assert run_case(engine, case).outcome == "pass"
    # lists an assigned Pal in its owner's battle list too
    wrong = OracleEngine(rules=get("observed-assigned-pal-stays-in-battle-list").rules)
    wrong.start()
    result = run_case(wrong, case)
    assert result.outcome == "fail" and result.step == 0
    assert "breaks P-observed" in result.message
    assert Diff("players.A.battle", "not a2 (its zone is A's assigned)", "a2") in result.diffs
