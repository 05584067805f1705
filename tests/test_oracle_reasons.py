"""`Rules.reasons` (every row of P-reasons an action breaks, in the table's order), the shape
rules of P-reasons, and the keyword hook contract (oracle.keywords)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from palconf import paths
from palconf.cases.loader import load_cases
from palconf.oracle import KEYWORDS, Refusal, Rules
from palconf.oracle.keywords import Taunt
from palconf.registry import load as load_registry

#: The REASON table of docs/protocol.md, in order (a code may appear twice).
TABLE = [
    "game-over",
    "invalid-action",
    "wrong-timing",
    "wrong-player",
    "wrong-timing",
    "not-found",
    "wrong-kind",
    "cannot-pay",
    "cannot-attack",
    "cannot-assign",
    "illegal-target",
    "taunt-required",
    "cannot-block",
    "illegal-target",
]


def pal(cid: str, power: int = 1000, state: str = "stand", **kw: Any) -> dict[str, Any]:
    return {"id": cid, "kind": "pal", "power": power, "strike": 1, "state": state, **kw}


def game(a: dict[str, Any] | None = None, b: dict[str, Any] | None = None) -> Rules:
    return Rules.from_state(
        {"players": {"A": {"life": 5, **(a or {})}, "B": {"life": 5, **(b or {})}}}
    )


def codes(g: Rules, **action: Any) -> list[str]:
    return [r.reason for r in g.reasons(action)]


def in_table_order(found: list[str]) -> bool:
    """Whether `found` is a subsequence of TABLE (each row listed at most once, in order)."""
    rows = iter(TABLE)
    return all(any(code == row for row in rows) for code in found)


def agrees(g: Rules, action: Any) -> None:
    """reasons() == [] exactly when apply() accepts; else its first is apply()'s refusal;
    neither changes the game when refusing; the codes come in table order."""
    trial = Rules(g.state.copy())
    found = trial.reasons(action)
    before = trial.observe()
    refusal = trial.apply(copy.deepcopy(action))
    if refusal is None:
        assert found == [], (action, found)
    else:
        assert found and found[0] == refusal, (action, found, refusal)
        assert list(refusal.also) == [r.reason for r in found[1:]], (action, found, refusal)
        assert trial.observe() == before
    assert in_table_order([r.reason for r in found]), (action, found)


# ---------------------------------------------------------------- every row it breaks


def test_a_deploy_in_the_block_step_lists_each_row_it_breaks() -> None:
    event = {"id": "e1", "kind": "event", "cost": 2, "effect": {"op": "night", "value": True}}
    g = game({"battle": [pal("a1")], "hand": [pal("a2"), event]})
    assert g.apply({"do": "attack", "player": "A", "attacker": "a1", "target": "master"}) is None
    # step block, priority B: A deploys an event it cannot pay
    assert codes(g, do="deploy", player="A", card="e1") == [
        "wrong-timing",
        "wrong-player",
        "wrong-kind",
        "cannot-pay",
    ]
    # not-found: nothing about the card is listed after it
    assert codes(g, do="deploy", player="A", card="zz") == [
        "wrong-timing",
        "wrong-player",
        "not-found",
    ]
    refusal = g.apply({"do": "deploy", "player": "A", "card": "e1"})
    assert refusal is not None and refusal.reason == "wrong-timing"
    assert refusal.to_json()["message"].endswith(
        "; also breaks: wrong-player, wrong-kind, cannot-pay"
    )


def test_assign_lists_a_bad_structure_even_when_the_pal_is_not_found() -> None:
    g = game({"battle": [pal("a1", state="rest")], "hand": [pal("a2")]})
    assert codes(g, do="assign", player="A", card="a2", structure="s9") == [
        "not-found",
        "cannot-assign",
    ]
    assert codes(g, do="assign", player="A", card="a1", structure="s9") == ["cannot-assign"]


def test_attack_lists_illegal_target_and_taunt_required_together() -> None:
    g = game(
        {"battle": [pal("a1", state="rest")]},
        {"battle": [pal("b1", state="rest", keywords=["Taunt"]), pal("b2")]},
    )
    assert codes(g, do="attack", player="A", attacker="a1", target="b2") == [
        "cannot-attack",
        "illegal-target",
        "taunt-required",
    ]
    assert codes(g, do="attack", player="A", attacker="a1", target="master") == [
        "cannot-attack",
        "taunt-required",
    ]
    plain = game({"battle": [pal("a1")]}, {"battle": [pal("b2")]})
    assert codes(plain, do="attack", player="A", attacker="a1", target="b2") == ["illegal-target"]


def test_choices_are_the_last_row_and_listed_only_when_nothing_else_fails() -> None:
    on_attack = {"when": "attack", "effect": {"op": "pump", "target": "chosen", "amount": 100}}
    g = game(
        {"battle": [pal("a1", abilities=[on_attack])]},
        {"battle": [pal("b1", state="rest", keywords=["Taunt"]), pal("b2", state="rest")]},
    )
    # breaks Taunt: taunt-required, whatever its choose says (the move is not allowed)
    assert codes(g, do="attack", player="A", attacker="a1", target="b2", choose=["zz"]) == [
        "taunt-required"
    ]
    assert codes(g, do="attack", player="A", attacker="a1", target="b1", choose=["zz"]) == [
        "illegal-target"
    ]
    assert codes(g, do="attack", player="A", attacker="a1", target="b1", choose=["b2"]) == []


def test_game_over_and_malformed_actions_list_one_row() -> None:
    g = game()
    assert codes(g, do="play", player="A") == ["invalid-action"]
    g.state.step = "over"
    assert codes(g, do="fly") == ["game-over"]


# ---------------------------------------------------------------- the shape rules (P-reasons)


@pytest.mark.parametrize(
    "action",
    [
        {"do": ["attack"], "player": "A"},  # an unhashable `do` is not a crash
        {"do": {"x": 1}, "player": "A"},
        {"do": "end-turn", "player": "C"},
        {"do": "end-turn", "player": "A", "discard": 5},  # a field's type, whatever the `do`
        {"do": "end-turn", "player": "A", "ability": True},
        {"do": "end-turn", "player": "A", "ability": "0"},
        {"do": "end-turn", "player": "A", "pay": "life"},
        {"do": "end-turn", "player": "A", "choose": ["a1", 2]},
        {"do": "end-turn", "player": "A", "target": 0},
        "end-turn",
    ],
)
def test_a_field_of_the_wrong_type_is_invalid_action(action: Any) -> None:
    g = game()
    assert [r.reason for r in g.reasons(action)] == ["invalid-action"]
    refusal = g.apply(action)
    assert refusal is not None and refusal.reason == "invalid-action"
    assert g.observe()["turn"] == 1


def test_a_well_typed_value_naming_the_wrong_thing_gets_its_fields_code() -> None:
    ability = {"when": "activate", "effect": {"op": "energy", "amount": 1}}
    g = game({"battle": [pal("a1", abilities=[ability])]}, {"battle": [pal("b1")]})
    assert codes(g, do="activate", player="A", card="a1", ability=-1) == ["not-found"]
    assert codes(g, do="activate", player="A", card="a1", ability=1) == ["not-found"]
    assert codes(g, do="attack", player="A", attacker="a1", target="a1") == ["illegal-target"]
    assert codes(g, do="assign", player="A", card="a1", structure="b1") == ["cannot-assign"]


# ---------------------------------------------------------------- agreement with apply, at scale


def _variants(g: Rules) -> list[Any]:
    """The candidate actions of the state, and each with a field changed to break a row."""
    out: list[Any] = []
    ids = sorted(g.state.cards) + ["zz", "master"]
    for action in g.candidate_actions(g.state):
        out.append(action)
        out.append({**action, "player": "B" if action["player"] == "A" else "A"})
        for field in ("card", "attacker", "target", "blocker", "structure", "discard"):
            if field in action:
                out += [{**action, field: i} for i in ids[::3]]
        if action["do"] == "interrupt":
            out.append({**action, "pay": "discard"})
        out.append({**action, "choose": ids[:2]})
    for do in ("deploy", "play", "block", "pass", "interrupt", "end-turn", "attack", "assign"):
        out.append(
            {
                "do": do,
                "player": g.state.active,
                "card": ids[0],
                "attacker": ids[0],
                "target": "master",
                "blocker": ids[0],
                "structure": ids[0],
                "pay": "energy",
            }
        )
    return out


@pytest.mark.slow
def test_reasons_agree_with_apply_along_every_case() -> None:
    cases = load_cases(paths.CASES, load_registry())
    checked = 0
    for case in cases[::3]:
        try:
            g = Rules.from_state(case.setup)
        except Exception:  # a case of a refused setup: no game
            continue
        for action in [None, *case.actions]:
            if action is not None and g.apply(copy.deepcopy(action)) is not None:
                continue
            for variant in _variants(g):
                agrees(g, variant)
                checked += 1
    assert checked > 5000


# ---------------------------------------------------------------- the hook contract


def test_keyword_hooks_are_asked_once_per_keyword_id(monkeypatch: pytest.MonkeyPatch) -> None:
    """I-3: a Pal with Taunt twice makes `restrict_targets` asked once, and only while a card
    in play has Taunt."""
    calls: list[list[str]] = []

    class Spy(Taunt):
        def restrict_targets(self, game: Any, attacker: Any, targets: list[str]) -> list[str]:
            calls.append(list(targets))
            return super().restrict_targets(game, attacker, targets)

    class Spied(Rules):
        keywords = {**KEYWORDS, "taunt": Spy()}

    g = Spied.from_state(
        {
            "players": {
                "A": {"life": 5, "battle": [pal("a1")]},
                "B": {
                    "life": 5,
                    "battle": [
                        pal("b1", state="rest", keywords=["Taunt", "Taunt"]),
                        pal("b2", state="rest"),
                    ],
                    "hand": [pal("b3", keywords=["Taunt"])],
                },
            }
        }
    )
    assert g.legal_targets(g.state, g.state.cards["a1"]) == ["b1"]
    assert calls == [["master", "b1", "b2"]]
    calls.clear()
    g.state.cards["b1"].zone = "graveyard"
    assert g.legal_targets(g.state, g.state.cards["a1"]) == ["master", "b2"]
    assert calls == []  # Taunt only in hand and graveyard: not asked


def test_every_taunt_rule_lives_in_class_taunt() -> None:
    """Replacing the Taunt class alone removes Taunt from the game: targets, refusals, LEGAL."""

    class NoTaunt(Taunt):
        def restrict_targets(self, game: Any, attacker: Any, targets: list[str]) -> list[str]:
            return targets

    state = {
        "players": {
            "A": {"life": 5, "battle": [pal("a1")]},
            "B": {"life": 5, "battle": [pal("b1", state="rest", keywords=["Taunt"])]},
        }
    }

    class Plain(Rules):
        keywords = {**KEYWORDS, "taunt": NoTaunt()}

    attack = {"do": "attack", "player": "A", "attacker": "a1", "target": "master"}
    assert [r.reason for r in Rules.from_state(state).reasons(attack)] == ["taunt-required"]
    assert Plain.from_state(state).reasons(attack) == []


def test_refusal_equality_ignores_also() -> None:
    assert Refusal("cannot-pay", "x", also=("a",)) == Refusal("cannot-pay", "x")
