"""Strategies for CARDs and STATEs of protocol v1 (docs/protocol.md), private: use `generators`.

What is drawn, and why it shrinks well:

- Every choice is a `sampled_from` / `integers` / `lists` whose simplest value comes first:
  a Pal of power 3000 and strike 1, no keywords, no abilities, cost 0, standing; zones empty;
  life 5, energy 0, A active, day. A shrunk board therefore reads like a hand-written case.
- Powers come from a short list with near and equal values (3000, 3000, 2900, 3100 …) so
  that ties and "one point more" battles are common, not rare.
- Card ids are not drawn: they are given afterwards in reading order (`a1`, `a2` … for A's
  cards, hand first, then battle, structures with their assigned Pals, graveyard), so a
  board never shrinks into odd ids and two equal boards have equal ids.
- Fields at their protocol default (`turn` 1, `night` false, `energy` 0, `cost` 0,
  `strike` 0, `state` "stand", empty lists) are left out, as a case author would.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from palconf.oracle.keywords import KEYWORD_IDS

KINDS: tuple[str, ...] = ("pal", "event", "structure")
POWERS: tuple[int, ...] = (3000, 2000, 1000, 2900, 3100, 0, 5000)
STRIKES: tuple[int, ...] = (1, 0, 2)
COSTS: tuple[int, ...] = (0, 1, 2)
NUMBERS: tuple[int, ...] = (200, 300, 1000, 0)  # N of Brave N / Serious N
PUMPS: tuple[int, ...] = (300, 1000, -500, -3000, -5000)
LIVES: tuple[int, ...] = (5, 1, 2, 3)
SLOTS: tuple[int, ...] = (1, 2, 0)

#: Keywords worth writing on each kind of card, most telling first (what a board shrinks to).
#: Quick on a Pal or structure is ignored by the rules; it is kept, rarely, to test that.
KIND_KEYWORDS: dict[str, tuple[str, ...]] = {
    "pal": (
        "taunt",
        "brave",
        "stealth",
        "assault",
        "retaliate",
        "breakthrough",
        "nocturnal",
        "vigilance",
        "serious",
        "interrupt",
        "quick",
    ),
    "event": ("quick", "interrupt", "taunt"),
    "structure": ("vigilance", "interrupt", "taunt", "quick"),
}
_WORD = {
    "quick": "Quick",
    "brave": "Brave",
    "serious": "Serious",
    "interrupt": "Interrupt",
    "vigilance": "Vigilance",
    "taunt": "Taunt",
    "stealth": "Stealth",
    "retaliate": "Retaliate",
    "nocturnal": "Nocturnal",
    "breakthrough": "Breakthrough",
    "assault": "Assault",
}
_TRIGGER_KEYWORD = {"deploy": "on-deploy", "attack": "on-attack", "assign": "on-assign"}


# --------------------------------------------------------------------------- argument checks


def check_count(name: str, value: object, *, minimum: int = 0, maximum: int = 50) -> int:
    """A bound given to a strategy: an int within [minimum, maximum], checked at once."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not {value!r}")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be between {minimum} and {maximum}, not {value}")
    return value


def check_keywords(value: Iterable[str]) -> tuple[str, ...]:
    """Keyword ids (`"taunt"`, `"on-deploy"` …): a subset of the fourteen, in rules order."""
    if isinstance(value, str):
        raise TypeError("keywords must be an iterable of keyword ids, not a string")
    if value is KEYWORD_IDS:
        return KEYWORD_IDS
    ids = set(value)
    unknown = sorted(str(k) for k in ids - set(KEYWORD_IDS))
    if unknown:
        raise ValueError(f"unknown keyword id(s) {unknown}; known: {', '.join(KEYWORD_IDS)}")
    chosen = tuple(k for k in KEYWORD_IDS if k in ids)
    return KEYWORD_IDS if chosen == KEYWORD_IDS else chosen  # the default shows as such in reprs


# --------------------------------------------------------------------------- effects and abilities

#: EFFECT objects; the first alternative (a +300 pump on self) is what shrinking reaches.
#: Pumps, which power and battles turn on, come in two alternatives of seven (raising and
#: lowering), so that powers pushed below 0 (B-18's floor) are not rare.
#: (Strategies are built once, here or in the `lru_cache`d builders below: building one per
#: draw costs Hypothesis a validation each time, and made drawing ten times slower.)
EFFECTS: st.SearchStrategy[dict[str, Any]] = st.one_of(
    st.builds(
        lambda t, n: {"op": "pump", "target": t, "amount": n},
        st.sampled_from(("self", "chosen")),
        st.sampled_from([n for n in PUMPS if n > 0]),
    ),
    st.builds(
        lambda t, n: {"op": "pump", "target": t, "amount": n},
        st.sampled_from(("self", "chosen")),
        st.sampled_from([n for n in PUMPS if n < 0]),
    ),
    st.builds(
        lambda p, n: {"op": "damage", "player": p, "amount": n},
        st.sampled_from(("opponent", "self")),
        st.integers(0, 2),
    ),
    st.just({"op": "destroy", "target": "chosen"}),
    st.builds(
        lambda op, t: {"op": op, "target": t},
        st.sampled_from(("rest", "stand")),
        st.sampled_from(("chosen", "self")),
    ),
    st.builds(lambda v: {"op": "night", "value": v}, st.booleans()),
    st.builds(lambda n: {"op": "energy", "amount": n}, st.integers(1, 2)),
)
_POWERS, _STRIKES = st.sampled_from(POWERS), st.sampled_from(STRIKES)
_COSTS = st.sampled_from(COSTS)
_STATES = st.sampled_from(("stand", "rest"))
_SLOTS = st.sampled_from(SLOTS)
_PLAYERS, _TURNS = st.sampled_from(("A", "B")), st.sampled_from((1, 2, 5))
_LIVES, _ENERGY = st.sampled_from(LIVES), st.integers(0, 3)


def slots(item: st.SearchStrategy[Any], n: int) -> st.SearchStrategy[list[Any]]:
    """Up to n items, drawn as n slots that are each empty or hold one item.

    Each slot is filled one time in three. Not `st.lists`: Hypothesis shrinks a list by
    deleting an element's span of choices, and with composite elements that often fails
    (it kept two plain Pals in front of the one a failure needed); shrinking a slot to
    empty is lowering one choice to its first alternative, which it always tries."""
    return _slots(item, n)


#: Whether a slot holds an item: one time in three (boards of about six cards); empty is
#: what shrinking reaches.
_OCCUPIED = st.sampled_from((False, False, True))


@st.composite
def _slots(draw: st.DrawFn, item: st.SearchStrategy[Any], n: int) -> list[Any]:
    return [draw(item) for _ in range(n) if draw(_OCCUPIED)]


@lru_cache(maxsize=64)
def _abilities(
    keywords: tuple[str, ...], max_abilities: int
) -> st.SearchStrategy[list[dict[str, Any]]]:
    whens = st.sampled_from(
        ["activate"] + [w for w, k in _TRIGGER_KEYWORD.items() if k in keywords]
    )
    return slots(_ability(keywords, whens), max_abilities)


@st.composite
def _ability(
    draw: st.DrawFn, keywords: tuple[str, ...], whens: st.SearchStrategy[str]
) -> dict[str, Any]:
    when = draw(whens)
    ability: dict[str, Any] = {"when": when, "effect": draw(EFFECTS)}
    if when == "activate":
        if "quick" in keywords and draw(st.booleans()):
            ability["quick"] = True
        cost = draw(_COSTS)
        if cost:
            ability["cost"] = cost
    return ability


def _keyword_text(kid: str, number: int) -> str:
    return f"{_WORD[kid]} {number}" if kid in ("brave", "serious") else _WORD[kid]


@lru_cache(maxsize=256)
def card_bodies(
    kind: str, keywords: tuple[str, ...], max_keywords: int, max_abilities: int, zone: str = "hand"
) -> st.SearchStrategy[dict[str, Any]]:
    """A CARD without its `id` (given later). `zone` says where it will lie: only a card in
    play is drawn rested; only a structure in play holds Pals (not drawn here)."""
    allowed = [k for k in KIND_KEYWORDS[kind] if k in keywords]
    kws = (
        slots(st.tuples(st.sampled_from(allowed), st.sampled_from(NUMBERS)), max_keywords)
        if allowed and max_keywords
        else st.just([])
    )
    abilities = _abilities(keywords, max_abilities) if max_abilities else st.just([])
    return _card_body(kind, zone in ("battle", "structures", "assigned"), kws, abilities)


@st.composite
def _card_body(
    draw: st.DrawFn,
    kind: str,
    in_play: bool,
    kws: st.SearchStrategy[list[tuple[str, int]]],
    abilities: st.SearchStrategy[list[dict[str, Any]]],
) -> dict[str, Any]:
    card: dict[str, Any] = {"kind": kind}
    if kind == "pal":
        card["power"] = draw(_POWERS)
        strike = draw(_STRIKES)
        if strike:
            card["strike"] = strike
    cost = draw(_COSTS)
    if cost:
        card["cost"] = cost
    if in_play and draw(_STATES) == "rest":
        card["state"] = "rest"
    drawn_kws = draw(kws)
    if drawn_kws:
        card["keywords"] = [_keyword_text(k, n) for k, n in drawn_kws]
    drawn_abilities = draw(abilities)
    if drawn_abilities:
        card["abilities"] = drawn_abilities
    if kind == "event":
        card["effect"] = draw(EFFECTS)
    if kind == "structure":
        slots = draw(_SLOTS)
        if slots != 1:
            card["slots"] = slots
    return card


@lru_cache(maxsize=64)
def _one_card(
    kinds: tuple[str, ...],
    keywords: tuple[str, ...],
    max_keywords: int,
    max_abilities: int,
    zone: str,
) -> st.SearchStrategy[dict[str, Any]]:
    """One card body of one of `kinds` (the first is what shrinking reaches)."""
    return st.one_of([card_bodies(k, keywords, max_keywords, max_abilities, zone) for k in kinds])


@lru_cache(maxsize=64)
def _zone_cards(
    kinds: tuple[str, ...],
    keywords: tuple[str, ...],
    max_keywords: int,
    max_abilities: int,
    zone: str,
    n: int,
) -> st.SearchStrategy[list[dict[str, Any]]]:
    """Up to n card bodies of the given kinds for one zone."""
    return slots(_one_card(kinds, keywords, max_keywords, max_abilities, zone), n)


def _draw_cards(
    draw: st.DrawFn,
    *,
    kinds: tuple[str, ...] = KINDS,
    id: str = "c1",
    keywords: tuple[str, ...] = KEYWORD_IDS,
    max_keywords: int = 2,
    max_abilities: int = 1,
) -> dict[str, Any]:
    return {"id": id, **draw(_one_card(kinds, keywords, max_keywords, max_abilities, "hand"))}


_draw_cards.__name__ = _draw_cards.__qualname__ = "cards"
_cards = st.composite(_draw_cards)


def cards(
    *,
    kinds: Iterable[str] = KINDS,
    id: str = "c1",
    keywords: Iterable[str] = KEYWORD_IDS,
    max_keywords: int = 2,
    max_abilities: int = 1,
) -> st.SearchStrategy[dict[str, Any]]:
    """One CARD of protocol v1, as in a hand: a Pal, an event or a structure.

    `kinds`: which of "pal", "event", "structure" may be drawn (the first is what shrinking
    reaches). `id`: the card's id. `keywords`: the keyword ids that may appear, on the card
    or as an ability's timing (e.g. the ones an engine implements). `max_keywords`,
    `max_abilities`: how many keyword instances (repeats allowed: two Brave) and abilities.
    """
    kinds_t = tuple(kinds) if not isinstance(kinds, str) else (kinds,)
    if not kinds_t or any(k not in KINDS for k in kinds_t):
        raise ValueError(f"kinds must be a non-empty selection of {KINDS}, not {kinds!r}")
    if not isinstance(id, str) or not id or id == "master":
        raise ValueError(f"id must be a non-empty string other than 'master', not {id!r}")
    return _cards(
        kinds=kinds_t,
        id=id,
        keywords=check_keywords(keywords),
        max_keywords=check_count("max_keywords", max_keywords, maximum=8),
        max_abilities=check_count("max_abilities", max_abilities, maximum=4),
    )


# --------------------------------------------------------------------------- states


def _draw_states(
    draw: st.DrawFn,
    *,
    keywords: tuple[str, ...] = KEYWORD_IDS,
    max_hand: int = 3,
    max_battle: int = 3,
    max_structures: int = 1,
    max_graveyard: int = 1,
    max_keywords: int = 2,
    max_abilities: int = 1,
) -> dict[str, Any]:
    def bodies(kinds: tuple[str, ...], zone: str, n: int) -> list[dict[str, Any]]:
        return draw(_zone_cards(kinds, keywords, max_keywords, max_abilities, zone, n))

    state: dict[str, Any] = {}
    active = draw(_PLAYERS)
    if active != "A":
        state["active"] = active
    turn = draw(_TURNS)
    if turn != 1:
        state["turn"] = turn
    if draw(st.booleans()):
        state["night"] = True
    players: dict[str, Any] = {}
    for p in ("A", "B"):
        zones: dict[str, list[dict[str, Any]]] = {
            "hand": bodies(KINDS, "hand", max_hand),
            "battle": bodies(("pal",), "battle", max_battle),
            "structures": bodies(("structure",), "structures", max_structures),
            "graveyard": bodies(KINDS, "graveyard", max_graveyard),
        }
        for s in zones["structures"]:
            held = bodies(("pal",), "assigned", s.get("slots", 1))
            if held:
                s["assigned"] = held
        pdata: dict[str, Any] = {"life": draw(_LIVES)}
        energy = draw(_ENERGY)
        if energy:
            pdata["energy"] = energy
        n = 0

        def named(body: dict[str, Any], prefix: str = p.lower()) -> dict[str, Any]:
            nonlocal n
            n += 1  # the id first, so that a printed board reads "id, kind, …"
            card = {"id": f"{prefix}{n}", **body}
            if "assigned" in body:
                card["assigned"] = [named(pal, prefix) for pal in body["assigned"]]
            return card

        for zone in ("hand", "battle", "structures", "graveyard"):
            if zones[zone]:
                pdata[zone] = [named(body) for body in zones[zone]]
        players[p] = pdata
    state["players"] = players
    return state


_draw_states.__name__ = _draw_states.__qualname__ = "states"
_states = st.composite(_draw_states)


def states(
    *,
    keywords: Iterable[str] = KEYWORD_IDS,
    max_hand: int = 3,
    max_battle: int = 3,
    max_structures: int = 1,
    max_graveyard: int = 1,
    max_keywords: int = 2,
    max_abilities: int = 1,
) -> st.SearchStrategy[dict[str, Any]]:
    """A legal STATE of protocol v1 (what `setup` loads): both players, any mix of the
    keywords allowed, several instances, near and equal powers, day or night, either player
    active, hands with Interrupt and Quick cards, structures with free and full slots.

    Every drawn STATE loads in the oracle (`oracle.load_state`) and is schema-valid as a
    case's `setup`. The `max_*` bounds are per player and zone; `keywords` as for `cards()`.
    """
    return _states(
        keywords=check_keywords(keywords),
        max_hand=check_count("max_hand", max_hand, maximum=10),
        max_battle=check_count("max_battle", max_battle, maximum=10),
        max_structures=check_count("max_structures", max_structures, maximum=5),
        max_graveyard=check_count("max_graveyard", max_graveyard, maximum=10),
        max_keywords=check_count("max_keywords", max_keywords, maximum=8),
        max_abilities=check_count("max_abilities", max_abilities, maximum=4),
    )
