"""Directed generation, private: use `generators`. STATEs at the edges of what `P-state`
allows: rewrites of a valid board that every engine must accept and read as written (ids of
any shape, numbers with no ceiling, any name, keys in any order, a number of cards with no
limit, keyword numbers of any size). Each is an accepted edge (`ok-…`) of the catalogue
`generators._edges.EDGES`, sent as a setup step: the game goes on from it, so the actions
after it play on those ids and numbers.

Ids stay within what a case file can name (letters, digits, `.`, `_`, `-`, at most 64
characters), so that a difference exports to a valid case.
"""

from __future__ import annotations

import random
import re
from typing import Any

from ._cells import State
from ._cells import cards as _cards

#: ids a careful engine could refuse or misread, all valid (P-state: a non-empty string, not
#: "master", unique)
ODD_IDS = (
    "7",
    "007",
    "10",
    "Master",
    "A",
    "B",
    "x.1",
    "a_b-c",
    "P1",
    "p1",
    "null",
    "0",
    "Z" * 64,
    "card-with-a-long-name-" + "9" * 30,
)
_NUMBER = re.compile(r"^(Brave|Serious) ([0-9]+)$")


def _odd_ids(state: State, rng: random.Random) -> State:
    """Every card renamed to one of `ODD_IDS` (then `ODD_IDS` with a suffix), in a random
    order: nothing else refers to a card id inside a STATE."""
    pool = list(ODD_IDS)
    rng.shuffle(pool)
    for n, (card, _, _) in enumerate(_cards(state)):
        if isinstance(card, dict) and "id" in card:
            card["id"] = pool[n] if n < len(pool) else f"{pool[n % len(pool)]}.{n}"
    return state


def _large(state: State, rng: random.Random) -> State:
    """Numbers far above any a test board uses: the text sets floors, never a ceiling."""
    big = rng.choice((1000, 99_999, 1_000_000))
    state["turn"] = rng.choice((500, 10_000))
    for pdata in state["players"].values():
        pdata["life"] = rng.choice((1000, 99_999))
        pdata["energy"] = rng.choice((99, 1000))
    for card, _, _ in _cards(state):
        if card.get("kind") == "pal":
            card["power"] = card.get("power", 0) + big
            card["strike"] = rng.choice((50, 1000))
        card["cost"] = rng.choice((40, 999))
        if card.get("kind") == "structure":
            card["slots"] = max(card.get("slots", 1), len(card.get("assigned", []))) + 4
        card["keywords"] = [
            _NUMBER.sub(lambda m: f"{m.group(1)} {big}", k) if isinstance(k, str) else k
            for k in card.get("keywords", [])
        ]
        for effect in _effects(card):
            if effect.get("op") in ("pump", "damage", "energy") and "amount" in effect:
                effect["amount"] = big
    return state


def _effects(card: dict[str, Any]) -> list[dict[str, Any]]:
    out = [card["effect"]] if isinstance(card.get("effect"), dict) else []
    out += [a["effect"] for a in card.get("abilities", []) if isinstance(a.get("effect"), dict)]
    return out


def _names(state: State, rng: random.Random) -> State:
    """Names of every shape: empty, blank, `null`, very long, not ASCII, one name for all."""
    names = ("", " ", "null", "N" * 500, "Pal ★ ünï", "same")
    one = rng.random() < 0.5
    for n, (card, _, _) in enumerate(_cards(state)):
        card["name"] = "same" if one else names[n % len(names)]
    return state


def _reordered(value: Any) -> Any:
    """Every object's keys in reverse order (players B before A, a card's fields backwards)."""
    if isinstance(value, dict):
        return {k: _reordered(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reordered(v) for v in value]
    return value


def _many_cards(state: State, rng: random.Random) -> State:
    """Thirty more Pals in a hand: no zone has a size limit."""
    pdata = state["players"][rng.choice(["A", "B"])]
    pdata["hand"] = [
        *pdata.get("hand", []),
        *({"id": f"many{n}", "kind": "pal", "power": 1000 + n} for n in range(30)),
    ]
    return state


#: name → rewrite, each accepted (P-state allows it)
ALLOWS = {
    "ok-ids-odd": _odd_ids,
    "ok-numbers-large": _large,
    "ok-names-any": _names,
    "ok-keys-reordered": lambda state, rng: _reordered(state),
    "ok-many-cards": _many_cards,
}
