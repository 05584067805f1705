"""Directed generation, private: use `generators`. Inputs at the edges where engines break.

STATEs (`P-state`): `EDGES` is a catalogue of named rewrites of a valid board, one per
condition of docs/protocol.md's STATE section: each `invalid-state` condition, each
`unsupported` one, and the accepted edges (defaults written out or left out, a written
`state` on a card in hand or graveyard, a negative pump, `Brave 0`). The oracle decides the
verdict of the rewritten STATE; the generator only aims. No rewrite produces a STATE the
page leaves open (`Brave -200`, `taunt`, a missing `op`: "may be refused with either
code") or a field the page does not name.

An edge whose rule names no card kind, zone or state (`power-bad`, `state-bad`,
`missing-id` …) is crossed with the cells it allows (`CROSSED`, generators._cells): `edge_at`
rewrites a card in the cell asked for (or one drawn), so a misreading that shows on one kind
or zone only is found; a step records the visit as `name@cell`.

ACTIONs (`P-reasons`): `generators._probes`.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ._allows import ALLOWS
from ._cells import CELLS, EVENTS, OUT_OF_PLAY, PALS, STRUCTURES, ZONES, State, some_card
from ._cells import add as _add
from ._cells import cards as _cards

#: a rewrite: the board (a deep copy, changed in place), a random source and, for an edge
#: crossed with card kind × zone × state (`CROSSED`), the cell of the card to rewrite → the
#: STATE to send (the board itself, or something made of it); a board that lacks what the
#: edge needs gets it from `KIT` (or a plain card in the cell) first
Rewrite = Callable[..., Any]


def _player(state: State, rng: random.Random) -> dict[str, Any]:
    p: dict[str, Any] = state["players"][rng.choice(["A", "B"])]
    return p


def _set_card(
    field: str,
    values: tuple[Any, ...],
    test: Callable[[dict[str, Any], str], bool],
    need: str = "pal",
) -> Rewrite:
    def rewrite(state: State, rng: random.Random, cell: str | None = None) -> Any:
        card = some_card(state, rng, test, need, cell)
        card[field] = rng.choice(values)
        return state

    return rewrite


def _drop_card_field(
    field: str, test: Callable[[dict[str, Any], str], bool], need: str = "pal"
) -> Rewrite:
    def rewrite(state: State, rng: random.Random, cell: str | None = None) -> Any:
        card = some_card(state, rng, lambda c, z: field in c and test(c, z), need, cell)
        card.pop(field, None)
        return state

    return rewrite


def _is_pal(c: dict[str, Any], z: str) -> bool:
    return c.get("kind") == "pal"


def _any(c: dict[str, Any], z: str) -> bool:
    return True


def _effects(state: State) -> list[dict[str, Any]]:
    out = []
    for card, _, _ in _cards(state):
        if isinstance(card.get("effect"), dict):
            out.append(card["effect"])
        for ab in card.get("abilities", []) or []:
            if isinstance(ab, dict) and isinstance(ab.get("effect"), dict):
                out.append(ab["effect"])
    return out


def _abilities(state: State) -> list[dict[str, Any]]:
    return [
        ab
        for card, _, _ in _cards(state)
        for ab in card.get("abilities", []) or []
        if isinstance(ab, dict)
    ]


def _move_card(
    to_zone: str, test: Callable[[dict[str, Any], str], bool], need: str = "pal"
) -> Rewrite:
    """Put a card matching `test` into `to_zone` of its player (a kind where it may not be)."""

    def rewrite(state: State, rng: random.Random) -> Any:
        found = [
            (c, z, p) for c, z, p in _cards(state) if test(c, z) and z not in (to_zone, "assigned")
        ]
        if not found:
            _add(state, need)
            return rewrite(state, rng)
        card, zone, p = rng.choice(found)
        state["players"][p][zone].remove(card)
        state["players"][p].setdefault(to_zone, []).append(card)
        return state

    return rewrite


def _structure_in_hand_holding(state: State, rng: random.Random) -> Any:
    pal = some_card(state, rng, lambda c, z: c.get("kind") == "pal" and z != "assigned")
    for pdata in state["players"].values():
        for zone in ZONES:
            if pal in pdata.get(zone, []):
                pdata[zone].remove(pal)
                hand = pdata.setdefault("hand", [])
                hand.append({"id": pal["id"] + "s", "kind": "structure", "assigned": [pal]})
                return state
    raise AssertionError("the Pal was found in no zone")  # _some_card found or added it


def _overfull(state: State, rng: random.Random) -> Any:
    s = some_card(state, rng, lambda c, z: z == "structures", "structure")
    held = s.setdefault("assigned", [])
    s["slots"] = len(held)
    held.append({"id": f"{s['id']}p{len(held)}", "kind": "pal", "power": 1000})
    return state


def _duplicate_id(state: State, rng: random.Random) -> Any:
    while len(cards := [c for c, _, _ in _cards(state)]) < 2:
        _add(state, "pal")
    a = rng.choice(cards)
    b = rng.choice([c for c in cards if c is not a])
    b["id"] = a["id"]
    return state


def _players_keys(state: State, rng: random.Random) -> Any:
    if rng.random() < 0.5:
        state["players"]["C"] = {"life": 5}
    else:
        del state["players"]["B"]
    return state


def _not_object(where: str) -> Rewrite:
    def rewrite(state: State, rng: random.Random) -> Any:
        if where == "players":
            state["players"] = [state["players"]["A"], state["players"]["B"]]
            return state
        if where == "player":
            state["players"]["B"] = [5]
            return state
        if where == "card":
            pdata = _player(state, rng)
            pdata.setdefault("hand", []).append("a card")
            return state
        if where == "ability":
            card = some_card(state, rng)
            card.setdefault("abilities", []).append("On Deploy: win")
            return state
        effects = [c for c, _, _ in _cards(state) if c.get("kind") == "event"]
        if not effects:
            effects = [_add(state, "event-damage")]
        rng.choice(effects)["effect"] = "pump self 300"
        return state

    return rewrite


def _set_top(field: str, values: tuple[Any, ...]) -> Rewrite:
    def rewrite(state: State, rng: random.Random) -> Any:
        state[field] = rng.choice(values)
        return state

    return rewrite


def _set_player(field: str, values: tuple[Any, ...]) -> Rewrite:
    def rewrite(state: State, rng: random.Random) -> Any:
        _player(state, rng)[field] = rng.choice(values)
        return state

    return rewrite


def _drop_life(state: State, rng: random.Random) -> Any:
    _player(state, rng).pop("life", None)
    return state


def _zone_not_list(state: State, rng: random.Random) -> Any:
    pdata = _player(state, rng)
    zone = rng.choice(list(ZONES))
    pdata[zone] = {"cards": pdata.get(zone, [])}
    return state


def _effect_field(field: str, values: tuple[Any, ...], ops: tuple[str, ...]) -> Rewrite:
    def rewrite(state: State, rng: random.Random) -> Any:
        found = [e for e in _effects(state) if e.get("op") in ops]
        if not found:
            found = [_add(state, f"event-{rng.choice(ops)}")["effect"]]
        effect = rng.choice(found)
        value = rng.choice(values)
        if value is _DROP:
            effect.pop(field, None)
        else:
            effect[field] = value
        return state

    return rewrite


def _ability_field(field: str, values: tuple[Any, ...], when: str | None = None) -> Rewrite:
    def rewrite(state: State, rng: random.Random) -> Any:
        found = [a for a in _abilities(state) if when is None or a.get("when") == when]
        if not found:
            kit = (
                "pal-activate" if when == "activate" else rng.choice(["pal-activate", "pal-deploy"])
            )
            found = _add(state, kit)["abilities"]
        rng.choice(found)[field] = rng.choice(values)
        return state

    return rewrite


def _keyword(values: tuple[str, ...]) -> Rewrite:
    def rewrite(state: State, rng: random.Random, cell: str | None = None) -> Any:
        card = some_card(state, rng, cell=cell)
        card.setdefault("keywords", []).append(rng.choice(values))
        return state

    return rewrite


def _defaults_written(state: State, rng: random.Random) -> Any:
    state.setdefault("active", "A")
    state.setdefault("turn", 1)
    state.setdefault("night", False)
    for pdata in state["players"].values():
        pdata.setdefault("energy", 0)
        for zone in ZONES:
            pdata.setdefault(zone, [])
    for card, _, _ in _cards(state):
        card.setdefault("cost", 0)
        card.setdefault("strike", 0)
        card.setdefault("state", "stand")
        card.setdefault("keywords", [])
        card.setdefault("abilities", [])
        if card.get("kind") == "structure":
            card.setdefault("slots", 1)
            card.setdefault("assigned", [])
        for ab in card["abilities"]:
            if isinstance(ab, dict) and ab.get("when") == "activate":
                ab.setdefault("cost", 0)
                ab.setdefault("quick", False)
    return state


def _defaults_left_out(state: State, rng: random.Random) -> Any:
    for key, default in (("active", "A"), ("turn", 1), ("night", False)):
        if state.get(key) == default:
            del state[key]
    for pdata in state["players"].values():
        if pdata.get("energy") == 0:
            del pdata["energy"]
        for zone in ZONES:
            if pdata.get(zone) == []:
                del pdata[zone]
    for card, _, _ in _cards(state):
        for key, default in (("cost", 0), ("strike", 0), ("state", "stand"), ("slots", 1)):
            if card.get(key) == default:
                del card[key]
    return state


def _written_state_out_of_play(state: State, rng: random.Random, cell: str | None = None) -> Any:
    card = some_card(state, rng, lambda c, z: z in ("hand", "graveyard"), cell=cell)
    card["state"] = "rest"
    return state


#: fields a kind gives no meaning to, and valid values of them (I-19: accepted and ignored)
_UNUSED = {
    "pal": ("slots",),
    "event": ("power", "strike", "slots"),
    "structure": ("power", "strike"),
}


def _ignored_fields(state: State, rng: random.Random, cell: str | None = None) -> Any:
    """Valid values of the fields a card's kind does not use (an event's `power`, a Pal's
    `slots`), and a `cost` on a card in play: accepted, shown as if not written."""
    card = some_card(state, rng, cell=cell)
    for field in _UNUSED.get(str(card.get("kind")), ()):
        card[field] = rng.choice((0, 2, 3000))
    if cell is not None and cell.count("/") == 2:
        card["cost"] = rng.choice((0, 9))
    return state


def _empty_assigned_out_of_play(state: State, rng: random.Random, cell: str | None = None) -> Any:
    test = lambda c, z: c.get("kind") == "structure" and z in ("hand", "graveyard")  # noqa: E731
    some_card(state, rng, test, "structure", cell)["assigned"] = []
    return state


_DROP = object()
ALL_OPS = ("pump", "damage", "destroy", "rest", "stand", "night", "energy")
NOT_INTEGERS = (True, -1, 1.5, "3")  # no null: a case (TOML) cannot hold one

#: name → rewrite. Names say the condition (docs/protocol.md, STATE); `ok-…` are accepted.
EDGES: dict[str, Rewrite] = {
    "ok-defaults-written": _defaults_written,
    "ok-defaults-left-out": _defaults_left_out,
    "ok-state-written-out-of-play": _written_state_out_of_play,
    "ok-pump-negative": _effect_field("amount", (-300, -5000), ("pump",)),
    "ok-brave-0": _keyword(("Brave 0", "Serious 0")),
    "ok-zero-values": _set_card("strike", (0,), _any),
    "ok-zero-amounts": _effect_field("amount", (0,), ("pump", "damage", "energy")),
    "ok-ignored-fields": _ignored_fields,
    "ok-empty-assigned-out-of-play": _empty_assigned_out_of_play,
    "ok-life-1": _set_player("life", (1,)),
    "not-object-state": lambda s, r: [s],  # the whole STATE a list
    "not-object-players": _not_object("players"),
    "not-object-player": _not_object("player"),
    "not-object-card": _not_object("card"),
    "not-object-ability": _not_object("ability"),
    "not-object-effect": _not_object("effect"),
    "players-keys": _players_keys,
    "active-bad": _set_top("active", ("C", "a", 1)),
    "turn-bad": _set_top("turn", (0, True, -1, 1.5, "1")),
    "night-bad": _set_top("night", (1, 0, "yes")),
    "zone-not-list": _zone_not_list,
    "missing-id": _drop_card_field("id", _any),
    "missing-kind": _drop_card_field("kind", _any),
    "missing-power": _drop_card_field("power", _is_pal),
    "missing-life": _drop_life,
    "life-bad": _set_player("life", (0, True, -1, "5", 2.5)),
    "energy-bad": _set_player("energy", NOT_INTEGERS),
    "power-bad": _set_card("power", NOT_INTEGERS, _any),  # on every kind (I-19)
    "strike-bad": _set_card("strike", NOT_INTEGERS, _any),
    "cost-bad": _set_card("cost", NOT_INTEGERS, _any),
    "slots-bad": _set_card("slots", NOT_INTEGERS, _any, "structure"),
    "amount-bad": _effect_field("amount", NOT_INTEGERS, ("damage", "energy")),
    "id-bad": _set_card("id", ("master", "", 7), _any),
    "id-duplicate": _duplicate_id,
    "kind-bad": _set_card("kind", ("spell", "Pal", 1), _any),
    "state-bad": _set_card("state", ("tapped", "Rest", True), _any),
    "non-pal-in-battle": _move_card("battle", lambda c, z: c.get("kind") != "pal", "event-energy"),
    "non-structure-in-structures": _move_card(
        "structures", lambda c, z: c.get("kind") != "structure"
    ),
    "assigned-on-non-structure": _set_card(
        "assigned", ([],), lambda c, z: c.get("kind") != "structure"
    ),
    "structure-outside-holds-pals": _structure_in_hand_holding,
    "structure-overfull": _overfull,
    "event-without-effect": _drop_card_field(
        "effect", lambda c, z: c.get("kind") == "event", "event-damage"
    ),
    "non-event-with-effect": _set_card(
        "effect", ({"op": "energy", "amount": 1},), lambda c, z: c.get("kind") != "event"
    ),
    "target-bad": _effect_field("target", (_DROP, "opponent", "all"), ("pump", "rest", "stand")),
    "destroy-target-bad": _effect_field("target", (_DROP, "self"), ("destroy",)),
    "damage-player-bad": _effect_field("player", (_DROP, "both", "A"), ("damage",)),
    "night-value-bad": _effect_field("value", (_DROP, 1, "true"), ("night",)),
    "quick-bad": _ability_field("quick", (1, "yes"), "activate"),
    "keyword-number-missing": _keyword(("Brave", "Serious")),
    "keyword-number-extra": _keyword(("Taunt 200", "Stealth 1", "Quick 0")),
    # wrong JSON types of fields the list does not name one by one (I-22)
    "name-bad": _set_card("name", (7, True, ["Test Pal"]), _any),
    "keywords-not-list": _set_card("keywords", ("Taunt", {"Taunt": True}), _any),
    "keyword-not-string": _set_card("keywords", ([5], [True], [["Taunt"]]), _any),
    "abilities-not-list": _set_card(
        "abilities", ({"when": "deploy", "effect": {"op": "energy", "amount": 1}}, "none"), _any
    ),
    "assigned-not-list": _set_card(
        "assigned",
        ({"id": "zp", "kind": "pal", "power": 1000}, "zp"),
        lambda c, z: c.get("kind") == "structure",
        "structure",
    ),
    "unsupported-keyword": _keyword(("Flying", "Haste")),
    "unsupported-op": _effect_field("op", ("draw", "heal", "swap"), ALL_OPS),
    "unsupported-when": _ability_field("when", ("discard", "end", "block")),
    **ALLOWS,  # what P-state allows, read as written (generators._allows)
}

EDGE_NAMES: tuple[str, ...] = tuple(EDGES)
#: the edges a random draw chooses among: generators._allows's are the sweep's alone (so the
#: games a seed draws stay those they were)
DRAWN: tuple[str, ...] = tuple(n for n in EDGE_NAMES if n not in ALLOWS)

#: the edges whose rule names no card kind, zone or state (or names only some), each with the
#: cells (generators._cells) it is sent in: a rule that holds on every card is tried on each
CROSSED: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        """ok-brave-0 ok-zero-values ok-ignored-fields missing-id missing-kind power-bad
        strike-bad cost-bad slots-bad id-bad kind-bad state-bad keyword-number-missing
        keyword-number-extra name-bad keywords-not-list keyword-not-string abilities-not-list
        unsupported-keyword""".split(),
        CELLS,
    ),
    "ok-state-written-out-of-play": OUT_OF_PLAY,
    "ok-empty-assigned-out-of-play": ("structure/hand", "structure/graveyard"),
    "missing-power": PALS,
    "assigned-on-non-structure": PALS + EVENTS,
    "event-without-effect": EVENTS,
    "non-event-with-effect": PALS + STRUCTURES,
    "assigned-not-list": STRUCTURES,
}


def edge_at(
    rng: random.Random, board: State, name: str | None = None, cell: str | None = None
) -> tuple[Any, str, str]:
    """`board` rewritten at one edge, `name` or one chosen uniformly (of `DRAWN`), on a card
    in `cell` (or one chosen uniformly of the cells the edge is crossed with): (the STATE,
    the edge's name, the cell, "" for an edge not crossed). A board that lacks what the
    edge needs gets it from `KIT`, or a plain card in the cell."""
    if name is None:
        name = DRAWN[rng.randrange(len(DRAWN))]
    cells = CROSSED.get(name, ())
    if not cells:
        return EDGES[name](copy.deepcopy(board), rng), name, ""
    if cell is None:
        cell = cells[rng.randrange(len(cells))]
    return EDGES[name](copy.deepcopy(board), rng, cell), name, cell


def edge_state(rng: random.Random, board: State, name: str | None = None) -> tuple[Any, str]:
    """`edge_at` without the cell: (the STATE, the edge's name)."""
    state, name, _ = edge_at(rng, board, name)
    return state, name


def label(name: str, cell: str) -> str:
    """How a visit of edge `name` in `cell` is recorded (`Step.edge`): `name@cell`."""
    return f"{name}@{cell}" if cell else name
