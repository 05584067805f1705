"""The oracle's rules one by one: each base rule and keyword on a minimal board."""

from __future__ import annotations

from typing import Any

import pytest

from palconf.oracle import Rules, Session, StateError


def pal(
    cid: str, power: int = 1000, strike: int = 1, state: str = "stand", **kw: Any
) -> dict[str, Any]:
    return {"id": cid, "kind": "pal", "power": power, "strike": strike, "state": state, **kw}


def game(a: dict[str, Any] | None = None, b: dict[str, Any] | None = None, **top: Any) -> Rules:
    players = {"A": {"life": 5, **(a or {})}, "B": {"life": 5, **(b or {})}}
    return Rules.from_state({"players": players, **top})


def act(g: Rules, **action: Any) -> None:
    refusal = g.apply(action)
    assert refusal is None, refusal


def refused(g: Rules, reason: str, **action: Any) -> None:
    before = g.observe()
    refusal = g.apply(action)
    assert refusal is not None and refusal.reason == reason, refusal
    assert g.observe() == before  # B-21


def attack_through(g: Rules, attacker: str, target: str, player: str = "A") -> None:
    """Declare, pass the block step and both quick passes."""
    defender = "B" if player == "A" else "A"
    act(g, do="attack", player=player, attacker=attacker, target=target)
    act(g, do="pass", player=defender)
    act(g, do="pass", player=defender)
    act(g, do="pass", player=player)


def card(g: Rules, cid: str) -> dict[str, Any]:
    return g.observe()["cards"][cid]


# ------------------------------------------------------------------ base rules


def test_attack_on_master_costs_strike_not_power() -> None:  # B-15
    g = game({"battle": [pal("a1", 5000, strike=2)]})
    attack_through(g, "a1", "master")
    assert g.observe()["players"]["B"]["life"] == 3
    assert card(g, "a1")["state"] == "rest"


def test_lower_power_dies_and_equal_power_both() -> None:  # B-15
    g = game(
        {"battle": [pal("a1", 3000), pal("a2", 2000)]},
        {"battle": [pal("b1", 2999, state="rest"), pal("b2", 2000, state="rest")]},
    )
    attack_through(g, "a1", "b1")
    assert card(g, "b1")["zone"] == "graveyard" and card(g, "a1")["zone"] == "battle"
    attack_through(g, "a2", "b2")
    assert card(g, "a2")["zone"] == "graveyard" and card(g, "b2")["zone"] == "graveyard"


def test_standing_pal_is_not_a_target_and_own_pal_neither() -> None:  # B-11
    g = game({"battle": [pal("a1"), pal("a2", state="rest")]}, {"battle": [pal("b1")]})
    refused(g, "illegal-target", do="attack", player="A", attacker="a1", target="b1")
    refused(g, "illegal-target", do="attack", player="A", attacker="a1", target="a2")
    refused(g, "cannot-attack", do="attack", player="A", attacker="a2", target="master")
    refused(g, "wrong-player", do="attack", player="B", attacker="b1", target="master")


def test_block_step_blocker_rests_and_becomes_target() -> None:  # B-13
    g = game(
        {"battle": [pal("a1", 3000)]}, {"battle": [pal("b1", 1000, state="rest"), pal("b2", 4000)]}
    )
    act(g, do="attack", player="A", attacker="a1", target="b1")
    obs = g.observe()
    assert (obs["step"], obs["priority"]) == ("block", "B")
    refused(g, "cannot-block", do="block", player="B", blocker="b1")  # the target itself
    act(g, do="block", player="B", blocker="b2")
    obs = g.observe()
    assert obs["attack"] == {"attacker": "a1", "target": "b2", "blocked": True}
    assert obs["cards"]["b2"]["state"] == "rest" and (obs["step"], obs["priority"]) == (
        "quick",
        "B",
    )
    act(g, do="pass", player="B")
    act(g, do="pass", player="A")
    assert card(g, "a1")["zone"] == "graveyard" and card(g, "b1")["zone"] == "battle"


def test_quick_step_needs_two_passes_in_a_row() -> None:  # B-14
    quick_event = {
        "id": "e1",
        "kind": "event",
        "keywords": ["Quick"],
        "effect": {"op": "energy", "amount": 2},
    }
    g = game({"battle": [pal("a1")]}, {"hand": [quick_event]})
    act(g, do="attack", player="A", attacker="a1", target="master")
    act(g, do="pass", player="B")
    refused(g, "wrong-player", do="pass", player="A")  # the defender acts first
    act(g, do="pass", player="B")
    obs = g.observe()
    assert (obs["step"], obs["priority"]) == ("quick", "A")
    g2 = game({"battle": [pal("a1")]}, {"hand": [quick_event]})
    act(g2, do="attack", player="A", attacker="a1", target="master")
    act(g2, do="pass", player="B")
    act(g2, do="play", player="B", card="e1")
    assert g2.observe()["priority"] == "A"
    act(g2, do="pass", player="A")
    assert g2.observe()["step"] == "quick"  # one pass after an action does not end it
    act(g2, do="pass", player="B")
    assert g2.observe()["step"] == "main" and g2.observe()["players"]["B"]["life"] == 4


def test_end_turn_stands_new_active_and_ends_pumps() -> None:  # B-6
    g = game({"battle": [pal("a1", keywords=["Brave 300"])]}, {"battle": [pal("b1", state="rest")]})
    attack_through(g, "a1", "master")
    assert card(g, "a1")["power"] == 1300
    act(g, do="end-turn", player="A")
    obs = g.observe()
    assert (obs["active"], obs["turn"]) == ("B", 2)
    assert obs["cards"]["a1"] == {**obs["cards"]["a1"], "power": 1000, "state": "rest"}
    assert obs["cards"]["b1"]["state"] == "stand"


def test_power_floor_applies_to_the_total() -> None:  # B-18
    drop = {
        "id": "e1",
        "kind": "event",
        "effect": {"op": "pump", "target": "chosen", "amount": -2000},
    }
    rise = {
        "id": "e2",
        "kind": "event",
        "effect": {"op": "pump", "target": "chosen", "amount": 1500},
    }
    g = game({"battle": [pal("a1", 1000)], "hand": [drop, rise]})
    act(g, do="play", player="A", card="e1", choose=["a1"])
    assert card(g, "a1")["power"] == 0
    act(g, do="play", player="A", card="e2", choose=["a1"])
    assert card(g, "a1")["power"] == 500


def test_game_over_stops_everything() -> None:  # B-20
    g = game({"battle": [pal("a1", strike=7)]})
    attack_through(g, "a1", "master")
    obs = g.observe()
    assert (obs["step"], obs["winner"], obs["players"]["B"]["life"]) == ("over", "A", -2)
    refused(g, "game-over", do="end-turn", player="A")
    assert g.legal() == []


def test_refusal_reasons_follow_the_protocol_order() -> None:
    g = game(
        {
            "hand": [
                {"id": "e1", "kind": "event", "cost": 3, "effect": {"op": "night", "value": True}}
            ]
        }
    )
    refused(g, "invalid-action", do="fly", player="A")
    refused(g, "invalid-action", do="play", player="A")
    refused(g, "wrong-player", do="play", player="B", card="e1")
    refused(g, "not-found", do="play", player="A", card="zz")
    refused(g, "wrong-kind", do="deploy", player="A", card="e1")
    refused(g, "cannot-pay", do="play", player="A", card="e1")
    refused(g, "wrong-timing", do="pass", player="A")


def test_choices_are_checked_after_the_move() -> None:  # B-17
    serious = pal("a1", keywords=["Serious 300"])
    g = game({"battle": [serious, pal("a2")], "structures": [{"id": "s1", "kind": "structure"}]})
    refused(g, "illegal-target", do="assign", player="A", card="a1", structure="s1", choose=["a1"])
    refused(g, "illegal-target", do="assign", player="A", card="a1", structure="s1")
    act(g, do="assign", player="A", card="a1", structure="s1", choose=["a2", "surplus"])
    assert card(g, "a2")["power"] == 1300 and card(g, "a1")["zone"] == "assigned"
    alone = game({"battle": [serious], "structures": [{"id": "s1", "kind": "structure"}]})
    act(alone, do="assign", player="A", card="a1", structure="s1")  # no option: no entry


# ------------------------------------------------------------------ keywords


def test_brave_pumps_only_the_attacker() -> None:
    g = game(
        {"battle": [pal("a1", 3000, keywords=["Brave 100", "Brave 200"])]},
        {"battle": [pal("b1", 3200, state="rest"), pal("b2", 3000, keywords=["Brave 900"])]},
    )
    act(g, do="attack", player="A", attacker="a1", target="b1")
    assert card(g, "a1")["power"] == 3300  # I-3
    act(g, do="block", player="B", blocker="b2")
    assert card(g, "b2")["power"] == 3000  # brave.3


def test_taunt_forces_the_target_unless_it_cannot_be_chosen() -> None:
    g = game(
        {"battle": [pal("a1"), pal("a2", keywords=["Assault"])]},
        {"battle": [pal("b1", keywords=["Taunt"]), pal("b2", state="rest")]},
    )
    act(g, do="attack", player="A", attacker="a1", target="b2")  # taunt.4: b1 stands
    g = game(
        {"battle": [pal("a2", keywords=["Assault"])]},
        {"battle": [pal("b1", keywords=["Taunt", "Taunt"]), pal("b2", state="rest")]},
    )
    refused(g, "taunt-required", do="attack", player="A", attacker="a2", target="b2")
    refused(g, "taunt-required", do="attack", player="A", attacker="a2", target="master")
    act(g, do="attack", player="A", attacker="a2", target="b1")


def test_stealth_forbids_blocks() -> None:
    g = game({"battle": [pal("a1", keywords=["Stealth"])]}, {"battle": [pal("b1")]})
    act(g, do="attack", player="A", attacker="a1", target="master")
    refused(g, "cannot-block", do="block", player="B", blocker="b1")
    assert g.legal() == [{"do": "pass", "player": "B"}]


def test_vigilance_stands_at_its_controllers_end_of_turn() -> None:
    g = game(
        {"battle": [pal("a1", keywords=["Vigilance"]), pal("a2")]},
        {
            "battle": [
                pal("b1", keywords=["Vigilance"], state="rest"),
                pal("b2", keywords=["Assault"]),
            ]
        },
    )
    act(g, do="attack", player="A", attacker="a1", target="master")
    act(g, do="pass", player="B")
    act(g, do="pass", player="B")
    act(g, do="pass", player="A")
    act(g, do="attack", player="A", attacker="a2", target="master")
    act(g, do="pass", player="B")
    act(g, do="pass", player="B")
    act(g, do="pass", player="A")
    act(g, do="end-turn", player="A")
    assert card(g, "a1")["state"] == "stand" and card(g, "a2")["state"] == "rest"
    refused(g, "illegal-target", do="attack", player="B", attacker="b1", target="a1")
    act(g, do="attack", player="B", attacker="b2", target="a1")  # vigilance.2: Assault may


def test_retaliate_and_breakthrough_after_battle() -> None:
    g = game(
        {"battle": [pal("a1", 3000, strike=2, keywords=["Breakthrough"])]},
        {"battle": [pal("b1", 3000, state="rest", keywords=["Retaliate"])]},
    )
    attack_through(g, "a1", "b1")  # equal power: both die; I-1 damage still dealt
    obs = g.observe()
    assert obs["players"]["B"]["life"] == 3
    assert obs["cards"]["a1"]["zone"] == obs["cards"]["b1"]["zone"] == "graveyard"
    g = game(
        {"battle": [pal("a1", 1000, strike=2, keywords=["Breakthrough", "Retaliate"])]},
        {"battle": [pal("b1", 3000, state="rest")]},
    )
    attack_through(g, "a1", "b1")  # I-7: taken by Retaliate, not the battle
    obs = g.observe()
    assert obs["players"]["B"]["life"] == 5 and obs["cards"]["b1"]["zone"] == "graveyard"


def test_retaliate_needs_a_battle() -> None:
    kill = {"id": "e1", "kind": "event", "effect": {"op": "destroy", "target": "chosen"}}
    g = game(
        {"battle": [pal("a1")], "hand": [kill]}, {"battle": [pal("b1", keywords=["Retaliate"])]}
    )
    act(g, do="play", player="A", card="e1", choose=["b1"])
    assert card(g, "a1")["zone"] == "battle" and card(g, "b1")["zone"] == "graveyard"


def test_nocturnal_counts_each_instance_at_night_only() -> None:
    g = game(
        {
            "battle": [pal("a1", 1000, keywords=["Nocturnal", "Nocturnal"])],
            "hand": [pal("a2", 1000, keywords=["Nocturnal"])],
        },
        night=True,
    )
    assert card(g, "a1")["power"] == 1600 and card(g, "a2")["power"] == 1000
    day = game({"battle": [pal("a1", 1000, keywords=["Nocturnal"])]})
    assert card(day, "a1")["power"] == 1000


def test_interrupt_costs_exactly_one_and_nullifies() -> None:
    interrupt = {
        "id": "i1",
        "kind": "event",
        "cost": 4,
        "keywords": ["Interrupt"],
        "effect": {"op": "damage", "player": "opponent", "amount": 3},
    }
    g = game({"battle": [pal("a1", keywords=["Brave 500"])]}, {"hand": [interrupt], "energy": 1})
    act(g, do="attack", player="A", attacker="a1", target="master")
    refused(g, "wrong-timing", do="interrupt", player="B", card="i1", pay="energy")  # block step
    act(g, do="pass", player="B")
    act(g, do="interrupt", player="B", card="i1", pay="energy")
    obs = g.observe()
    assert obs["step"] == "main" and obs["attack"] is None
    assert obs["players"]["B"]["energy"] == 0 and obs["players"]["A"]["life"] == 5  # interrupt.4
    assert obs["cards"]["a1"] == {**obs["cards"]["a1"], "state": "rest", "power": 1500}  # I-6


def test_interrupt_second_way_and_own_attack() -> None:
    interrupt = {"id": "i1", "kind": "pal", "power": 1, "keywords": ["Interrupt"]}
    g = game(
        {"battle": [pal("a1")], "hand": [dict(interrupt, id="i2")]},
        {"hand": [interrupt, pal("x1")]},
    )
    act(g, do="attack", player="A", attacker="a1", target="master")
    act(g, do="pass", player="B")
    refused(g, "cannot-pay", do="interrupt", player="B", card="i1", pay="discard", discard="i1")
    refused(g, "cannot-pay", do="interrupt", player="B", card="i1", pay="energy")
    act(g, do="pass", player="B")
    refused(g, "wrong-player", do="interrupt", player="A", card="i2", pay="energy")


def test_quick_timing() -> None:
    plain = {"id": "e1", "kind": "event", "effect": {"op": "energy", "amount": 1}}
    ability = {"when": "activate", "quick": True, "effect": {"op": "energy", "amount": 1}}
    g = game({"battle": [pal("a1")]}, {"hand": [plain], "battle": [pal("b1", abilities=[ability])]})
    act(g, do="attack", player="A", attacker="a1", target="master")
    act(g, do="pass", player="B")
    refused(g, "wrong-timing", do="play", player="B", card="e1")  # quick.3
    act(g, do="activate", player="B", card="b1", ability=0)  # quick.1
    assert g.observe()["players"]["B"]["energy"] == 1


def test_on_deploy_triggers_on_deploy_only() -> None:
    deployer = pal(
        "a1",
        abilities=[
            {"when": "deploy", "effect": {"op": "damage", "player": "opponent", "amount": 1}}
        ],
    )
    g = game({"hand": [deployer], "structures": [{"id": "s1", "kind": "structure"}]})
    act(g, do="deploy", player="A", card="a1")
    assert g.observe()["players"]["B"]["life"] == 4
    act(g, do="assign", player="A", card="a1", structure="s1")
    assert g.observe()["players"]["B"]["life"] == 4


# ------------------------------------------------------------------ loading and the protocol layer


@pytest.mark.parametrize(
    "state, code",
    [
        ({"players": {"A": {"life": 0}, "B": {"life": 5}}}, "invalid-state"),
        (
            {"players": {"A": {"life": 5, "battle": [pal("x"), pal("x")]}, "B": {"life": 5}}},
            "invalid-state",
        ),
        (
            {"players": {"A": {"life": 5, "battle": [pal("master")]}, "B": {"life": 5}}},
            "invalid-state",
        ),
        (
            {
                "players": {
                    "A": {"life": 5, "battle": [pal("a", keywords=["Flying"])]},
                    "B": {"life": 5},
                }
            },
            "unsupported",
        ),
        (
            {
                "players": {
                    "A": {
                        "life": 5,
                        "structures": [
                            {
                                "id": "s",
                                "kind": "structure",
                                "slots": 1,
                                "assigned": [pal("p"), pal("q")],
                            }
                        ],
                    },
                    "B": {"life": 5},
                }
            },
            "invalid-state",
        ),
        ({"players": {"A": {"life": 5}}}, "invalid-state"),
    ],
)
def test_bad_states_are_refused(state: dict[str, Any], code: str) -> None:
    with pytest.raises(StateError) as e:
        Rules.from_state(state)
    assert e.value.code == code
    assert Session().handle({"cmd": "setup", "state": state})["error"] == code


def test_session_errors() -> None:
    s = Session()
    assert s.handle([])["error"] == "bad-request"
    assert s.handle({"cmd": "observe"})["error"] == "no-game"
    assert s.handle({"cmd": "nope"})["error"] == "unknown-command"
    hello = s.handle({"cmd": "hello", "protocol": 1})
    assert hello["ok"] and len(hello["keywords"]) == 14


def test_legal_matches_apply_on_a_small_board() -> None:
    g = game(
        {
            "battle": [pal("a1", keywords=["Serious 100"]), pal("a2", state="rest")],
            "structures": [{"id": "s1", "kind": "structure"}],
            "hand": [
                {"id": "e1", "kind": "event", "effect": {"op": "destroy", "target": "chosen"}}
            ],
        },
        {"battle": [pal("b1", state="rest", keywords=["Taunt"]), pal("b2", state="rest")]},
    )
    legal = g.legal()
    assert {"do": "attack", "player": "A", "attacker": "a1", "target": "b1"} in legal
    assert {"do": "attack", "player": "A", "attacker": "a1", "target": "b2"} not in legal
    assert sum(1 for a in legal if a["do"] == "play") == 4  # one per Pal in a battle area
    for action in legal:
        trial = Rules(g.state.copy())
        assert trial.apply(action) is None, action


def test_a_gone_stealth_attackers_block_verdict_does_not_depend_on_a_bystander() -> None:
    """I-27: the attacker's own Stealth decides, wherever the attacker is; another card in
    play with Stealth changes nothing (the oracle once asked Stealth only when some card in
    play carried it, so the verdict hung on a bystander)."""

    def block_after_self_destroy(bystander: list[dict[str, Any]]) -> Any:
        rules = Rules.from_state(
            {
                "players": {
                    "A": {
                        "life": 5,
                        "battle": [
                            {
                                "id": "a1",
                                "kind": "pal",
                                "power": 3000,
                                "keywords": ["Stealth"],
                                "abilities": [
                                    {
                                        "when": "attack",
                                        "effect": {"op": "destroy", "target": "chosen"},
                                    }
                                ],
                            },
                            *bystander,
                        ],
                    },
                    "B": {
                        "life": 5,
                        "battle": [
                            {"id": "b1", "kind": "pal", "power": 1000},
                            {"id": "b2", "kind": "pal", "power": 1000, "state": "rest"},
                        ],
                    },
                }
            }
        )
        attack = {"do": "attack", "player": "A", "attacker": "a1", "target": "b2"}
        assert rules.apply({**attack, "choose": ["a1"]}) is None
        assert rules.state.cards["a1"].zone == "graveyard"
        refusal = rules.apply({"do": "block", "player": "B", "blocker": "b1"})
        listed = {"do": "block", "player": "B", "blocker": "b1"} in rules.legal()
        return (refusal and refusal.reason, listed)

    alone = block_after_self_destroy([])
    beside = block_after_self_destroy(
        [{"id": "a2", "kind": "pal", "power": 1, "keywords": ["Stealth"]}]
    )
    assert alone == beside == ("cannot-block", False)
