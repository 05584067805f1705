"""Mutants of what `P-state` allows (issue 34): a `setup` that refuses, bounds or reads
differently a STATE the page accepts (any non-empty id but "master", counts with no ceiling,
any `name`, lists of any length, an object read by key). The `protocol-state-allows-*` cases
send such a STATE as a setup step, so a refusal fails them. Each overrides `from_state` only.
"""

from __future__ import annotations

import copy
import re
import unicodedata
from typing import Any

from palconf.mutants import mutant
from palconf.mutants.protocol_state import _abilities, _cards, _effects, _is_int, _players
from palconf.oracle.model import StateError
from palconf.oracle.rules import Rules

_NUMBERED = re.compile(r"^(Brave|Serious) ([0-9]+)$")


def _refuse_if(bad: bool, message: str) -> None:
    if bad:
        raise StateError("invalid-state", message)


def _ids(data: Any) -> list[str]:
    return [c["id"] for c, _ in _cards(data) if isinstance(c.get("id"), str)]


def _all(data: Any) -> list[dict[str, Any]]:
    return [c for c, _ in _cards(data)]


def _numbered(k: Any) -> re.Match[str] | None:
    return _NUMBERED.match(k) if isinstance(k, str) else None


def _keywords(card: dict[str, Any]) -> list[Any]:
    return card["keywords"] if isinstance(card.get("keywords"), list) else []


def _over(obj: dict[str, Any], key: str, ceiling: int) -> bool:
    return _is_int(obj.get(key)) and obj[key] > ceiling


@mutant(
    "state-id-charset-refused",
    "P-state",
    "A card id must look like the examples (`a1`): lowercase letters and digits only.",
)
class IdCharsetRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(not re.fullmatch("[a-z0-9]+", i) for i in _ids(data)), "bad card id")
        return super().from_state(data)


@mutant(
    "state-id-length-capped",
    "P-state",
    "A card id is bounded like a database key: one longer than 64 characters is refused.",
)
class IdLengthCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(len(i) > 64 for i in _ids(data)), "a card id has at most 64 characters")
        return super().from_state(data)


@mutant(
    "state-id-digits-refused",
    "P-state",
    "A card id of digits only is taken for a number, not a string, and refused.",
)
class IdDigitsRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(i.isdigit() for i in _ids(data)), "a card id must be a string, not a number")
        return super().from_state(data)


@mutant(
    "state-id-master-any-case",
    "P-state",
    'The reserved id "master" is compared without regard to case: "Master" is refused too.',
)
class IdMasterAnyCase(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(i.lower() == "master" for i in _ids(data)), 'a card id may not be "master"')
        return super().from_state(data)


@mutant(
    "state-id-null-refused",
    "P-state",
    'A card id "null" is read as JSON null, a missing id, and refused.',
)
class IdNullRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if("null" in _ids(data), "`id` must be a non-empty string")
        return super().from_state(data)


@mutant(
    "state-id-player-name-refused",
    "P-state",
    'The player names "A" and "B" are reserved like "master": no card may have one as id.',
)
class IdPlayerNameRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(bool({"A", "B"} & set(_ids(data))), "a card id may not be a player's name")
        return super().from_state(data)


@mutant(
    "state-id-compared-loosely",
    "P-state",
    'Card ids are compared trimmed and case-blind: "p1" and "P1", "h1" and "h1 " are one id.',
)
class IdComparedLoosely(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        ids = _ids(data)
        _refuse_if(len({i.strip().lower() for i in ids}) < len(set(ids)), "duplicate card id")
        return super().from_state(data)


@mutant(
    "state-id-unicode-normalised",
    "P-state",
    "Card ids are compared in Unicode normal form (as Swift does): é and e + accent are one id.",
)
class IdUnicodeNormalised(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        ids = _ids(data)
        _refuse_if(len({unicodedata.normalize("NFC", i) for i in ids}) < len(set(ids)), "twice")
        return super().from_state(data)


@mutant(
    "state-owner-from-id",
    "P-state",
    "A card's owner is read from its id as the examples write it (`a1` A's, `b1` B's).",
)
class OwnerFromId(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        game = super().from_state(data)
        for cs in game.state.cards.values():
            first = cs.id[:1].upper()
            if first in ("A", "B"):
                cs.owner = first  # type: ignore[assignment]
        return game


@mutant(
    "state-power-capped",
    "P-state",
    "Power is bounded like a printed value of at most five digits: power above 99999 is refused.",
)
class PowerCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(_over(c, "power", 99999) for c in _all(data)), "power above 99999")
        return super().from_state(data)


@mutant(
    "state-life-capped",
    "P-state",
    "Life is bounded like a life counter: a master with more than 99 life is refused.",
)
class LifeCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(_over(p, "life", 99) for _, p in _players(data)), "life above 99")
        return super().from_state(data)


@mutant(
    "state-strike-capped",
    "P-state",
    "Strike is a single digit, as on a card: a strike above 9 is refused.",
)
class StrikeCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(_over(c, "strike", 9) for c, _ in _cards(data)), "`strike` is at most 9")
        return super().from_state(data)


@mutant(
    "state-energy-capped",
    "P-state",
    "The energy pool is bounded like a mana pool: energy above 10 is refused.",
)
class EnergyCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(_over(p, "energy", 10) for _, p in _players(data)), "energy above 10")
        return super().from_state(data)


@mutant(
    "state-cost-capped",
    "P-state",
    "A cost (of a card, of an activated ability) above 10, the largest pool, is refused.",
)
class CostCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        cards = [c for c, _ in _cards(data)]
        costs = cards + [a for c in cards for a in _abilities(c)]
        _refuse_if(any(_over(c, "cost", 10) for c in costs), "`cost` is at most 10")
        return super().from_state(data)


@mutant(
    "state-turn-capped",
    "P-state",
    "A game is taken to last at most 99 turns: a STATE at turn 100 or later is refused.",
)
class TurnCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(isinstance(data, dict) and _over(data, "turn", 99), "`turn` is at most 99")
        return super().from_state(data)


@mutant(
    "state-slots-capped",
    "P-state",
    "A structure has at most 3 slots: `slots` above 3 is refused.",
)
class SlotsCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(_over(c, "slots", 3) for c, _ in _cards(data)), "`slots` is at most 3")
        return super().from_state(data)


@mutant(
    "state-keyword-number-capped",
    "P-state",
    "The N of `Brave N` and `Serious N` has at most four digits: `Brave 99999` is refused.",
)
class KeywordNumberCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        numbers = [m.group(2) for c, _ in _cards(data) for k in _keywords(c) if (m := _numbered(k))]
        _refuse_if(any(len(n) > 4 for n in numbers), "N has at most four digits")
        return super().from_state(data)


@mutant(
    "state-pump-amount-bounded",
    "P-state",
    "A `pump` amount is bounded like a power: one beyond -99999 to 99999 is refused.",
)
class PumpAmountBounded(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        pumps = [e for e in _effects(data) if e.get("op") == "pump" and _is_int(e.get("amount"))]
        _refuse_if(any(abs(e["amount"]) > 99999 for e in pumps), "a pump is at most 99999")
        return super().from_state(data)


@mutant(
    "state-damage-amount-capped",
    "P-state",
    "A `damage` amount is bounded like life: one above 99 is refused.",
)
class DamageAmountCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        damages = [e for e in _effects(data) if e.get("op") == "damage"]
        _refuse_if(any(_over(e, "amount", 99) for e in damages), "damage above 99")
        return super().from_state(data)


@mutant(
    "state-one-number-per-card",
    "P-state",
    "A card keeps one keyword number, its first: `Brave 200, Serious 300` gives Serious 200.",
)
class OneNumberPerCard(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, _ in _cards(data):
            found = [m.group(2) for k in _keywords(card) if (m := _numbered(k))]
            if found:
                card["keywords"] = [
                    f"{m.group(1)} {found[0]}" if (m := _numbered(k)) else k
                    for k in _keywords(card)
                ]
        return super().from_state(data)


@mutant(
    "state-zero-keyword-dropped",
    "P-state",
    "A numbered keyword of N 0 (`Serious 0`) is read as no keyword: it asks for no choice.",
)
class ZeroKeywordDropped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, _ in _cards(data):
            if isinstance(card.get("keywords"), list):
                card["keywords"] = [
                    k for k in _keywords(card) if not ((m := _numbered(k)) and m.group(2) == "0")
                ]
        return super().from_state(data)


@mutant(
    "state-pump-zero-refused",
    "P-state",
    "A `pump` of amount 0 is refused as an effect that does nothing.",
)
class PumpZeroRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        pumps = [e.get("amount") for e in _effects(data) if e.get("op") == "pump"]
        _refuse_if(any(_is_int(n) and n == 0 for n in pumps), "a `pump` of 0 does nothing")
        return super().from_state(data)


@mutant(
    "state-empty-name-refused",
    "P-state",
    "A card's `name`, like its id, must be a non-empty string: an empty name is refused.",
)
class EmptyNameRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(c.get("name") == "" for c, _ in _cards(data)), "`name` may not be empty")
        return super().from_state(data)


@mutant(
    "state-rest-on-event-refused",
    "P-state",
    "An event never stands or rests, so an event written with a `state` is refused.",
)
class RestOnEventRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(c.get("kind") == "event" and "state" in c for c in _all(data)), "state")
        return super().from_state(data)


@mutant(
    "state-hand-size-capped",
    "P-state",
    "A hand holds at most 10 cards, as a hand limit: a STATE with a larger hand is refused.",
)
class HandSizeCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        hands = [p["hand"] for _, p in _players(data) if isinstance(p.get("hand"), list)]
        _refuse_if(any(len(h) > 10 for h in hands), "a hand holds at most 10 cards")
        return super().from_state(data)


@mutant(
    "state-abilities-capped",
    "P-state",
    "A card has at most 8 abilities, as a fixed table: a card with more is refused.",
)
class AbilitiesCapped(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        _refuse_if(any(len(_abilities(c)) > 8 for c in _all(data)), "more than 8 abilities")
        return super().from_state(data)


@mutant(
    "state-activated-only-on-pals",
    "P-state",
    "Only a Pal may carry an activated ability: a structure or an event with one is refused.",
)
class ActivatedOnlyOnPals(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        others = [c for c, _ in _cards(data) if c.get("kind") != "pal"]
        whens = [a.get("when") for c in others for a in _abilities(c)]
        _refuse_if("activate" in whens, "only a Pal has activated abilities")
        return super().from_state(data)


@mutant(
    "state-players-by-position",
    "P-state",
    "The `players` object is read in order: the first player written is A, whatever its key.",
)
class PlayersByPosition(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        if isinstance(data, dict) and isinstance(data.get("players"), dict):
            players = data["players"]
            if set(players) == {"A", "B"}:
                data = {**data, "players": dict(zip(("A", "B"), players.values(), strict=True))}
        return super().from_state(data)


@mutant(
    "state-empty-assigned-in-play-refused",
    "P-state",
    "A structure in play with an empty `assigned` is refused: it is written only to hold Pals.",
)
class EmptyAssignedInPlayRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        held = [c.get("assigned") for c, z in _cards(data) if z == "structures"]
        _refuse_if([] in held, "an empty `assigned` in play")
        return super().from_state(data)


@mutant(
    "state-self-target-on-event-refused",
    "P-state",
    'An event\'s own effect on "self" is refused: an event is never in play to be its target.',
)
class SelfTargetOnEventRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        effects = [c.get("effect") for c in _all(data) if c.get("kind") == "event"]
        _refuse_if(any(isinstance(e, dict) and e.get("target") == "self" for e in effects), "self")
        return super().from_state(data)


@mutant(
    "state-name-unique",
    "P-state",
    "A card's `name` is taken for a key like its id: two cards with the same name are refused.",
)
class NameUnique(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        names = [c["name"] for c in _all(data) if isinstance(c.get("name"), str)]
        _refuse_if(len(set(names)) < len(names), "two cards with the same name")
        return super().from_state(data)
