"""Directed generation, private: use `generators`. Card kind × zone × state: the cells a
rule that names no kind, zone or state must hold in, and finding (or adding) a card in one.

A cell is written `kind/zone` out of play and `kind/zone/state` in play: `pal/hand`,
`pal/battle/rest`, `pal/assigned/stand`, `event/graveyard`, `structure/structures/rest` …
(`CELLS`). A misreading that shows only on one kind or in one zone (the integer rules checked
on Pals only, the Pals on a structure read with less care) is found only by an input aimed at
that cell, so the STATE edges (generators._edges) are sent once per cell their rule allows,
and the sweep's board (generators.directed.BOARD) holds a card in every cell for the probes.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

ZONES = ("hand", "battle", "structures", "graveyard")
State = dict[str, Any]
Test = Callable[[dict[str, Any], str], bool]

#: where each kind of card may be (P-state), and whether it has a state there
_WHERE = {
    "pal": ("hand", "battle", "assigned", "graveyard"),
    "event": ("hand", "graveyard"),
    "structure": ("hand", "structures", "graveyard"),
}
IN_PLAY = frozenset({"battle", "assigned", "structures"})
#: every cell: card kind × zone (× state, in play)
CELLS: tuple[str, ...] = tuple(
    f"{kind}/{zone}/{state}" if zone in IN_PLAY else f"{kind}/{zone}"
    for kind, zones in _WHERE.items()
    for zone in zones
    for state in (("stand", "rest") if zone in IN_PLAY else ("",))
)
PALS = tuple(c for c in CELLS if c.startswith("pal/"))
EVENTS = tuple(c for c in CELLS if c.startswith("event/"))
STRUCTURES = tuple(c for c in CELLS if c.startswith("structure/"))
OUT_OF_PLAY = tuple(c for c in CELLS if c.count("/") == 1)


def cards(state: State) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(card, zone, player) of every card, assigned Pals as zone `assigned`."""
    for p, pdata in state.get("players", {}).items():
        for zone in ZONES:
            for card in pdata.get(zone, []) or []:
                yield card, zone, p
                held = card.get("assigned") if isinstance(card, dict) else None
                for pal in held if isinstance(held, list) else []:
                    if isinstance(pal, dict):
                        yield pal, "assigned", p


def cell_of(card: Any, zone: str) -> str:
    """The cell of a card object written in `zone` (`?` for what is no card of a known kind)."""
    kind = card.get("kind") if isinstance(card, dict) else None
    if not isinstance(kind, str) or kind not in _WHERE:
        return "?"
    if zone not in IN_PLAY:
        return f"{kind}/{zone}"
    state = card.get("state", "stand")
    return f"{kind}/{zone}/{state if state in ('stand', 'rest') else '?'}"


#: cards an edge may need and a drawn board may lack (Hypothesis draws many small boards):
#: `add` puts one into A's hand (a structure into A's structures) when none is there
KIT: dict[str, dict[str, Any]] = {
    "pal": {"kind": "pal", "power": 3000, "strike": 1},
    "event": {"kind": "event", "effect": {"op": "energy", "amount": 1}},
    "structure": {"kind": "structure", "slots": 1},
    "pal-activate": {
        "kind": "pal",
        "power": 3000,
        "abilities": [
            {"when": "activate", "quick": True, "cost": 0, "effect": {"op": "energy", "amount": 1}}
        ],
    },
    "pal-deploy": {
        "kind": "pal",
        "power": 3000,
        "abilities": [
            {"when": "deploy", "effect": {"op": "pump", "target": "self", "amount": 300}}
        ],
    },
    "event-pump": {"kind": "event", "effect": {"op": "pump", "target": "chosen", "amount": 300}},
    "event-damage": {
        "kind": "event",
        "effect": {"op": "damage", "player": "opponent", "amount": 1},
    },
    "event-energy": {"kind": "event", "effect": {"op": "energy", "amount": 1}},
    "event-destroy": {"kind": "event", "effect": {"op": "destroy", "target": "chosen"}},
    "event-rest": {"kind": "event", "effect": {"op": "rest", "target": "chosen"}},
    "event-stand": {"kind": "event", "effect": {"op": "stand", "target": "self"}},
    "event-night": {"kind": "event", "effect": {"op": "night", "value": True}},
}


def _new_id(state: State, prefix: str = "x") -> str:
    taken = {c.get("id") for c, _, _ in cards(state)}
    n = 1
    while f"{prefix}{n}" in taken:
        n += 1
    return f"{prefix}{n}"


def add(state: State, need: str) -> dict[str, Any]:
    """A card of the kit put into A's hand (a structure into A's structures)."""
    card = {"id": _new_id(state), **copy.deepcopy(KIT[need])}
    zone = "structures" if card["kind"] == "structure" else "hand"
    state["players"]["A"].setdefault(zone, []).append(card)
    return card


def add_at(state: State, cell: str) -> dict[str, Any]:
    """A plain card of the kit put into `cell` of A (a Pal on a structure: on a new one)."""
    kind, zone, *rest = cell.split("/")
    card = {"id": _new_id(state), **copy.deepcopy(KIT[kind])}
    if rest:
        card["state"] = rest[0]
    pdata = state["players"]["A"]
    if zone == "assigned":
        host = {"id": _new_id(state, "xs"), **KIT["structure"], "assigned": [card]}
        pdata.setdefault("structures", []).append(host)
    else:
        pdata.setdefault(zone, []).append(card)
    return card


def some_card(
    state: State,
    rng: random.Random,
    test: Test = lambda c, z: True,
    need: str = "pal",
    cell: str | None = None,
) -> dict[str, Any]:
    """A card matching `test` (and in `cell`, if given); one of the kit (`need`, or a plain
    card in `cell`) is added when there is none."""
    found = [c for c, z, _ in cards(state) if test(c, z) and cell in (None, cell_of(c, z))]
    if found:
        return rng.choice(found)
    return add(state, need) if cell is None else add_at(state, cell)
