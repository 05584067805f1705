"""P-state in the oracle: what `load_state` refuses (and with which code), the defaults it
fills in, and that a refused `setup` keeps the previous game (docs/protocol.md, P-state)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from palconf.oracle import Rules, Session, StateError, load_state


def pal(cid: str, power: int = 1000, **kw: Any) -> dict[str, Any]:
    return {"id": cid, "kind": "pal", "power": power, **kw}


def event(cid: str, effect: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
    return {"id": cid, "kind": "event", "effect": effect or {"op": "energy", "amount": 1}, **kw}


def structure(cid: str, **kw: Any) -> dict[str, Any]:
    return {"id": cid, "kind": "structure", **kw}


def base() -> dict[str, Any]:
    """A valid STATE that every refusal below breaks in exactly one place."""
    return {
        "active": "A",
        "turn": 1,
        "night": False,
        "players": {
            "A": {
                "life": 5,
                "energy": 1,
                "hand": [event("e1")],
                "battle": [pal("a1")],
                "structures": [structure("s1", assigned=[pal("a2")])],
                "graveyard": [],
            },
            "B": {
                "life": 5,
                "energy": 0,
                "hand": [],
                "battle": [pal("b1")],
                "structures": [],
                "graveyard": [],
            },
        },
    }


Edit = Callable[[dict[str, Any]], Any]


def A(s: dict[str, Any]) -> dict[str, Any]:
    return s["players"]["A"]  # type: ignore[no-any-return]


def a1(s: dict[str, Any]) -> dict[str, Any]:
    return A(s)["battle"][0]  # type: ignore[no-any-return]


def e1(s: dict[str, Any]) -> dict[str, Any]:
    return A(s)["hand"][0]  # type: ignore[no-any-return]


def s1(s: dict[str, Any]) -> dict[str, Any]:
    return A(s)["structures"][0]  # type: ignore[no-any-return]


def ability(s: dict[str, Any], **ab: Any) -> None:
    a1(s)["abilities"] = [ab]


def replace_state(s: dict[str, Any], new: Any) -> Any:
    return new


INVALID: dict[str, Edit] = {
    "state-not-object": lambda s: replace_state(s, [s]),
    "players-not-object": lambda s: s.update(players=[]),
    "players-missing": lambda s: s.pop("players"),
    "player-not-object": lambda s: s["players"].update(B=5),
    "players-extra-key": lambda s: s["players"].update(C={"life": 5}),
    "players-missing-b": lambda s: s["players"].pop("B"),
    "card-not-object": lambda s: A(s)["hand"].append("a9"),
    "ability-not-object": lambda s: a1(s).update(abilities=["deploy"]),
    "effect-not-object": lambda s: e1(s).update(effect="energy"),
    "ability-effect-not-object": lambda s: ability(s, when="deploy", effect=[1]),
    "active-c": lambda s: s.update(active="C"),
    "active-lowercase": lambda s: s.update(active="a"),
    "turn-0": lambda s: s.update(turn=0),
    "turn-float": lambda s: s.update(turn=1.5),
    "turn-bool": lambda s: s.update(turn=True),
    "turn-string": lambda s: s.update(turn="1"),
    "night-string": lambda s: s.update(night="false"),
    "night-int": lambda s: s.update(night=0),
    "zone-not-list": lambda s: A(s).update(graveyard={}),
    "zone-string": lambda s: A(s).update(hand="e1"),
    "missing-life": lambda s: A(s).pop("life"),
    "missing-id": lambda s: a1(s).pop("id"),
    "missing-kind": lambda s: a1(s).pop("kind"),
    "missing-power": lambda s: a1(s).pop("power"),
    "missing-power-assigned": lambda s: s1(s)["assigned"][0].pop("power"),
    "life-0": lambda s: A(s).update(life=0),
    "life-negative": lambda s: A(s).update(life=-3),
    "life-float": lambda s: A(s).update(life=2.5),
    "life-bool": lambda s: A(s).update(life=True),
    "energy-negative": lambda s: A(s).update(energy=-1),
    "energy-float": lambda s: A(s).update(energy=0.5),
    "energy-bool": lambda s: A(s).update(energy=False),
    "energy-string": lambda s: A(s).update(energy="1"),
    "power-negative": lambda s: a1(s).update(power=-1),
    "power-string": lambda s: a1(s).update(power="1000"),
    "power-bool": lambda s: a1(s).update(power=True),
    "strike-negative": lambda s: a1(s).update(strike=-1),
    "strike-float": lambda s: a1(s).update(strike=1.5),
    "cost-negative": lambda s: e1(s).update(cost=-1),
    "cost-bool": lambda s: e1(s).update(cost=True),
    "slots-negative": lambda s: s1(s).update(slots=-1),
    "slots-string": lambda s: s1(s).update(slots="2"),
    "event-power-negative": lambda s: e1(s).update(power=-1),
    "structure-strike-negative": lambda s: s1(s).update(strike=-2),
    "pal-slots-negative": lambda s: a1(s).update(slots=-1),
    "ability-cost-negative": lambda s: ability(
        s, when="activate", cost=-1, effect={"op": "energy", "amount": 1}
    ),
    "damage-amount-negative": lambda s: e1(s).update(
        effect={"op": "damage", "player": "opponent", "amount": -1}
    ),
    "damage-amount-bool": lambda s: e1(s).update(
        effect={"op": "damage", "player": "opponent", "amount": True}
    ),
    "energy-amount-negative": lambda s: e1(s).update(effect={"op": "energy", "amount": -2}),
    "energy-amount-float": lambda s: e1(s).update(effect={"op": "energy", "amount": 1.5}),
    "pump-amount-string": lambda s: e1(s).update(
        effect={"op": "pump", "target": "chosen", "amount": "300"}
    ),
    "id-empty": lambda s: a1(s).update(id=""),
    "id-int": lambda s: a1(s).update(id=1),
    "id-master": lambda s: a1(s).update(id="master"),
    "id-twice-zones": lambda s: e1(s).update(id="a1"),
    "id-twice-players": lambda s: s["players"]["B"]["battle"][0].update(id="a1"),
    "id-twice-assigned": lambda s: s1(s)["assigned"][0].update(id="a1"),
    "id-structure-and-its-pal": lambda s: s1(s)["assigned"][0].update(id="s1"),
    "kind-unknown": lambda s: a1(s).update(kind="spell"),
    "kind-capitalised": lambda s: a1(s).update(kind="Pal"),
    "state-unknown": lambda s: a1(s).update(state="tapped"),
    "state-in-hand-unknown": lambda s: e1(s).update(state="rested"),
    "event-in-battle": lambda s: A(s)["battle"].append(event("e9")),
    "structure-in-battle": lambda s: A(s)["battle"].append(structure("s9")),
    "event-assigned": lambda s: s1(s)["assigned"].__setitem__(0, event("e9")),
    "pal-in-structures": lambda s: A(s)["structures"].append(pal("a9")),
    "event-in-structures": lambda s: A(s)["structures"].append(event("e9")),
    "pal-with-assigned": lambda s: a1(s).update(assigned=[]),
    "event-with-assigned": lambda s: e1(s).update(assigned=[]),
    "structure-in-hand-holds-pal": lambda s: A(s)["hand"].append(
        structure("s9", assigned=[pal("a9")])
    ),
    "structure-in-graveyard-holds-pal": lambda s: A(s)["graveyard"].append(
        structure("s9", assigned=[pal("a9")])
    ),
    "more-pals-than-slots": lambda s: s1(s)["assigned"].append(pal("a9")),
    "slots-0-holds-pal": lambda s: s1(s).update(slots=0),
    "event-without-effect": lambda s: e1(s).pop("effect"),
    "pal-with-effect": lambda s: a1(s).update(effect={"op": "energy", "amount": 1}),
    "structure-with-effect": lambda s: s1(s).update(effect={"op": "energy", "amount": 1}),
    "pump-no-target": lambda s: e1(s).update(effect={"op": "pump", "amount": 300}),
    "pump-bad-target": lambda s: e1(s).update(
        effect={"op": "pump", "target": "opponent", "amount": 300}
    ),
    "rest-no-target": lambda s: e1(s).update(effect={"op": "rest"}),
    "stand-bad-target": lambda s: e1(s).update(effect={"op": "stand", "target": "all"}),
    "destroy-self": lambda s: e1(s).update(effect={"op": "destroy", "target": "self"}),
    "destroy-no-target": lambda s: e1(s).update(effect={"op": "destroy"}),
    "damage-no-player": lambda s: e1(s).update(effect={"op": "damage", "amount": 1}),
    "damage-bad-player": lambda s: e1(s).update(
        effect={"op": "damage", "player": "both", "amount": 1}
    ),
    "night-no-value": lambda s: e1(s).update(effect={"op": "night"}),
    "night-string-value": lambda s: e1(s).update(effect={"op": "night", "value": "true"}),
    "quick-not-bool": lambda s: ability(
        s, when="activate", quick="yes", effect={"op": "energy", "amount": 1}
    ),
    "quick-int-on-trigger": lambda s: ability(
        s, when="deploy", quick=1, effect={"op": "energy", "amount": 1}
    ),
    "brave-without-number": lambda s: a1(s).update(keywords=["Brave"]),
    "serious-without-number": lambda s: a1(s).update(keywords=["Serious"]),
    "taunt-with-number": lambda s: a1(s).update(keywords=["Taunt 1"]),
    "quick-with-number": lambda s: e1(s).update(keywords=["Quick 0"]),
}

UNSUPPORTED: dict[str, Edit] = {
    "keyword-name": lambda s: a1(s).update(keywords=["Flying"]),
    "keyword-name-with-number": lambda s: a1(s).update(keywords=["Flying 200"]),
    "effect-op": lambda s: e1(s).update(effect={"op": "draw", "amount": 1}),
    "ability-effect-op": lambda s: ability(s, when="deploy", effect={"op": "heal", "amount": 1}),
    "ability-when": lambda s: ability(s, when="block", effect={"op": "energy", "amount": 1}),
}


def edited(edit: Edit) -> Any:
    s = base()
    out = edit(s)
    return out if isinstance(out, list) else s  # replace_state returns the new STATE


def test_base_is_valid() -> None:
    load_state(base())


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_state(name: str) -> None:
    with pytest.raises(StateError) as e:
        load_state(edited(INVALID[name]))
    assert e.value.code == "invalid-state", e.value.message
    assert e.value.message


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported(name: str) -> None:
    with pytest.raises(StateError) as e:
        load_state(edited(UNSUPPORTED[name]))
    assert e.value.code == "unsupported", e.value.message


@pytest.mark.parametrize(
    "state",
    [
        # allowed by P-state: a negative pump, Brave 0, an empty assigned on a structure out of
        # play, a structure with 0 slots holding nothing, a rested card in hand, a Pal's slots
        (
            "pump-negative",
            lambda s: e1(s).update(effect={"op": "pump", "target": "chosen", "amount": -300}),
        ),
        ("brave-0", lambda s: a1(s).update(keywords=["Brave 0", "Serious 300"])),
        (
            "structure-in-hand-empty-assigned",
            lambda s: A(s)["hand"].append(structure("s9", assigned=[])),
        ),
        ("slots-0", lambda s: A(s)["structures"].append(structure("s9", slots=0))),
        ("rest-in-hand", lambda s: e1(s).update(state="rest")),
        ("event-power-strike", lambda s: e1(s).update(power=0, strike=3)),
        ("pal-slots", lambda s: a1(s).update(slots=2)),
        ("quick-on-pal", lambda s: a1(s).update(keywords=["Quick"])),
    ],
    ids=lambda p: p[0] if isinstance(p, tuple) else "",
)
def test_valid_edge_states(state: tuple[str, Edit]) -> None:
    load_state(edited(state[1]))


def test_defaults() -> None:
    g = load_state(
        {
            "players": {
                "A": {
                    "life": 3,
                    "battle": [
                        pal(
                            "a1",
                            abilities=[
                                {"when": "activate", "effect": {"op": "energy", "amount": 1}}
                            ],
                        )
                    ],
                    "structures": [structure("s1")],
                },
                "B": {"life": 4},
            }
        }
    )
    assert (g.active, g.turn, g.night) == ("A", 1, False)
    assert g.energy == {"A": 0, "B": 0}
    c = g.cards["a1"]
    assert (c.state, c.card.strike, c.card.cost, c.card.keywords) == ("stand", 0, 0, ())
    assert (c.card.abilities[0].cost, c.card.abilities[0].quick) == (0, False)
    assert g.cards["s1"].card.slots == 1
    assert (g.step, g.attack, g.priority, g.winner) == ("main", None, None, None)


def test_card_in_hand_or_graveyard_written_rested_is_standing_when_deployed() -> None:
    r = Rules.from_state(
        {
            "players": {
                "A": {
                    "life": 5,
                    "hand": [pal("a1", state="rest"), structure("s1", state="rest")],
                    "graveyard": [pal("a2", state="rest")],
                },
                "B": {"life": 5},
            }
        }
    )
    obs = r.observe()["cards"]
    assert obs["a1"]["state"] is None and obs["a2"]["state"] is None
    assert r.apply({"do": "deploy", "player": "A", "card": "a1"}) is None
    assert r.apply({"do": "deploy", "player": "A", "card": "s1"}) is None
    obs = r.observe()["cards"]
    assert obs["a1"]["state"] == "stand" and obs["s1"]["state"] == "stand"


def test_quick_keyword_on_pal_or_structure_is_ignored() -> None:
    r = Rules.from_state(
        {
            "players": {
                "A": {"life": 5, "battle": [pal("a1", 3000)]},
                "B": {
                    "life": 5,
                    "battle": [
                        pal(
                            "b1",
                            keywords=["Quick"],
                            abilities=[
                                {"when": "activate", "effect": {"op": "energy", "amount": 1}}
                            ],
                        )
                    ],
                },
            }
        }
    )
    assert r.apply({"do": "attack", "player": "A", "attacker": "a1", "target": "master"}) is None
    assert r.apply({"do": "pass", "player": "B"}) is None
    refusal = r.apply({"do": "activate", "player": "B", "card": "b1", "ability": 0})
    assert refusal is not None and refusal.reason == "wrong-timing"


def test_refused_setup_keeps_the_previous_game() -> None:
    s = Session()
    assert s.handle({"cmd": "observe"})["error"] == "no-game"
    reply = s.handle({"cmd": "setup", "state": {"players": {"A": {"life": 0}, "B": {"life": 5}}}})
    assert reply["ok"] is False and reply["error"] == "invalid-state" and reply["message"]
    assert s.handle({"cmd": "legal"})["error"] == "no-game"  # still no game
    good = base()
    assert s.handle({"cmd": "setup", "state": good}) == {"ok": True}
    before = s.handle({"cmd": "observe"})
    legal_before = s.handle({"cmd": "legal"})
    for name in sorted(INVALID) + sorted(UNSUPPORTED):
        bad = edited({**INVALID, **UNSUPPORTED}[name])
        reply = s.handle({"cmd": "setup", "state": bad})
        assert reply["ok"] is False and reply["error"] in ("invalid-state", "unsupported"), name
        assert s.handle({"cmd": "observe"}) == before, name
    assert s.handle({"cmd": "legal"}) == legal_before
    # and the previous game still plays
    assert s.handle({"cmd": "act", "action": {"do": "end-turn", "player": "A"}}) == {"ok": True}
    assert s.handle({"cmd": "observe"})["state"]["turn"] == 2


def test_setup_without_state_is_invalid_state() -> None:
    assert Session().handle({"cmd": "setup"})["error"] == "invalid-state"


def test_refusal_does_not_touch_the_input() -> None:
    s = base()
    a1(s)["keywords"] = ["Brave"]
    before = copy.deepcopy(s)
    with pytest.raises(StateError):
        load_state(s)
    assert s == before
