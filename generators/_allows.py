"""Directed generation, private: use `generators`. STATEs at the edges of what `P-state`
allows: rewrites of a valid board that every engine must accept and read as written (ids of
any shape, numbers with no ceiling, any name, keys in any order, a number of cards with no
limit, keyword numbers of any size). Each is an accepted edge (`ok-…`) of the catalogue
`generators._edges.EDGES`, sent as a setup step: the game goes on from it, so the actions
after it play on those ids and numbers.

Most ids stay within what a case file's actions can name (letters, digits, `.`, `_`, `-`, at
most 64 characters); a few are not (a space, one word in two Unicode forms): a setup step
writes any STATE, and a difference they make shows at that step.
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
    "my pal",
    "caf\u00e9",  # é as one code point …
    "cafe\u0301",  # … and as e with a combining accent: two ids
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
    numbered = False
    for card, _, _ in _cards(state):
        if card.get("kind") == "pal":
            card["power"] = card.get("power", 0) + big
            card["strike"] = rng.choice((50, 1000))
            if not numbered:  # a keyword number as large as the rest
                card["keywords"] = [*card.get("keywords", []), "Brave 1"]
                numbered = True
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


def _keywords_together(state: State, rng: random.Random) -> State:
    """A Pal with Brave and Serious at once, each with its own number, in either order."""
    pals = [c for c, _, _ in _cards(state) if c.get("kind") == "pal"]
    if not pals:
        return state
    pal = rng.choice(pals)
    both = [f"Brave {rng.choice((100, 700))}", f"Serious {rng.choice((200, 500))}"]
    rng.shuffle(both)
    kept = [k for k in pal.get("keywords", []) if not _NUMBER.match(str(k))]
    pal["keywords"] = [*kept, *both]
    return state


def _many_abilities(state: State, rng: random.Random) -> State:
    """A card with a dozen activated abilities, the last one the cheapest: no list has a
    size limit."""
    card = rng.choice([c for c, _, _ in _cards(state)] or [{}])
    if not card:
        return state
    pump = {"op": "pump", "target": "self", "amount": 100}
    card["abilities"] = [
        *card.get("abilities", []),
        *({"when": "activate", "cost": 9 - n % 9, "effect": pump} for n in range(11)),
        {"when": "activate", "cost": 0, "effect": {"op": "energy", "amount": 1}},
    ]
    return state


def _zero_numbers_in_use(state: State, rng: random.Random) -> State:
    """`Serious 0` and `Brave 0` on the active player's standing Pals in battle, with a
    structure of one free slot beside them: N of 0 is a keyword all the same (an assign
    asks its choice, an attack triggers)."""
    pdata = state["players"][state.get("active", "A")]
    for n, pal in enumerate(p for p in pdata.get("battle", []) if p.get("state") != "rest"):
        pal["keywords"] = [
            *(k for k in pal.get("keywords", []) if not _NUMBER.match(str(k))),
            ("Serious 0", "Brave 0")[(n + rng.randrange(2)) % 2],
        ]
    pdata.setdefault("structures", []).append({"id": "free-slot", "kind": "structure"})
    return state


#: name → rewrite, each accepted (P-state allows it)
ALLOWS = {
    "ok-ids-odd": _odd_ids,
    "ok-numbers-large": _large,
    "ok-names-any": _names,
    "ok-keys-reordered": lambda state, rng: _reordered(state),
    "ok-many-cards": _many_cards,
    "ok-keywords-together": _keywords_together,
    "ok-many-abilities": _many_abilities,
    "ok-zero-numbers-in-use": _zero_numbers_in_use,
}
