"""Mutants of fields that are accepted and ignored (issue 27, family 3), and of P-state and
P-reasons rules that hold on every card kind and zone but are read as holding on one.

`P-state` checks `power`, `strike`, `cost`, `slots`, `state`, the keyword texts … on every card
that writes them, whatever its kind and zone (I-18, I-19); a valid value on a kind or in a
zone that does not use it is accepted and changes nothing (`P-observed`: an event's `power` is
null). Each mutant here is right on one kind or zone and wrong on the others, so only a
case or a fuzzer edge aimed at that kind or zone finds it (generators/_cells.py crosses the
STATE edges with card kind × zone × state for that reason).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from palconf.mutants import mutant
from palconf.mutants.protocol_state import _cards, _effects, _is_int
from palconf.oracle.checks import ACTION_FIELDS, OPTIONAL_FIELDS, CheckRules
from palconf.oracle.model import GameState, StateError
from palconf.oracle.rules import Refusal, Rules

#: the integer fields P-state checks on every card (I-19), and their defaults
INTEGER_FIELDS = {"power": 0, "strike": 0, "cost": 0, "slots": 1}
#: the fields a kind gives no meaning to, with a valid value an engine must accept (I-19)
UNUSED = {
    "event": ("power", "strike", "slots"),
    "structure": ("power", "strike"),
    "pal": ("slots",),
}


def _valid_count(v: Any) -> bool:
    return _is_int(v) and v >= 0


@mutant(
    "state-integer-rules-only-on-pals",
    "P-state",
    "The integer rules (`power`, `strike`, `cost`, `slots`: an integer of at least 0) are "
    "checked on Pals only; on an event or a structure a bad value is taken as the default.",
)
class IntegerRulesOnlyOnPals(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, _ in _cards(data):
            if card.get("kind") in ("event", "structure"):
                for field, default in INTEGER_FIELDS.items():
                    if field in card and not _valid_count(card[field]):
                        card[field] = default
        return super().from_state(data)


@mutant(
    "state-assigned-pals-unchecked",
    "P-state",
    "The Pals on a structure's `assigned` list are read with less care than the cards of a "
    "zone: a bad `power`, `strike` or `cost` there is taken as the default.",
)
class AssignedPalsUnchecked(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, zone in _cards(data):
            if zone == "assigned":
                for field in ("power", "strike", "cost"):
                    if field in card and not _valid_count(card[field]):
                        card[field] = 1000 if field == "power" else 0
        return super().from_state(data)


@mutant(
    "state-assigned-state-unchecked",
    "P-state",
    "The `state` of a Pal on a structure's `assigned` list is not checked: a value other "
    'than stand or rest ("tapped") is taken as stand.',
)
class AssignedStateUnchecked(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, zone in _cards(data):
            if zone == "assigned" and card.get("state") not in (None, "stand", "rest"):
                card["state"] = "stand"
        return super().from_state(data)


@mutant(
    "state-assigned-pal-extra-fields-ignored",
    "P-state",
    "A Pal on a structure's `assigned` list may carry an `assigned` or `effect` field: it "
    "is ignored there rather than refused.",
)
class AssignedPalExtraFieldsIgnored(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, zone in _cards(data):
            if zone == "assigned" and card.get("kind") == "pal":
                card.pop("assigned", None)
                card.pop("effect", None)
        return super().from_state(data)


@mutant(
    "state-assigned-keyword-texts-unchecked",
    "P-state",
    "The keyword texts of a Pal on a structure's `assigned` list are read leniently: an "
    "unknown or malformed one (`Haste`, `Brave` without its number) is dropped.",
)
class AssignedKeywordTextsUnchecked(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, zone in _cards(data):
            words = card.get("keywords")
            if zone == "assigned" and isinstance(words, list):
                card["keywords"] = [w for w in words if _keyword_loads(w)]
        return super().from_state(data)


@mutant(
    "state-unchecked-out-of-play",
    "P-state",
    "A card's `state` is read only for cards in play: in hand or graveyard any value is "
    'accepted, "tapped" too (against I-18).',
)
class StateUncheckedOutOfPlay(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, zone in _cards(data):
            if zone in ("hand", "graveyard") and card.get("state") not in (None, "stand", "rest"):
                card["state"] = "stand"
        return super().from_state(data)


@mutant(
    "state-keyword-texts-checked-only-on-pals",
    "P-state",
    "The keyword texts (`Brave` without its number, `Taunt 200`) are checked on Pals only; "
    "on an event or a structure, where Brave and Taunt do nothing, such a text is dropped.",
)
class KeywordTextsOnlyOnPals(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, _ in _cards(data):
            words = card.get("keywords")
            if card.get("kind") in ("event", "structure") and isinstance(words, list):
                card["keywords"] = [w for w in words if _keyword_ok(w)]
        return super().from_state(data)


def _keyword_ok(word: Any) -> bool:
    """Whether `word` is a well-formed keyword text (or one P-state refuses as unsupported,
    or leaves open: those are left to the loader)."""
    if not isinstance(word, str):
        return True
    try:
        Rules.from_state({"players": {"A": {"life": 1, "hand": [_probe(word)]}, "B": {"life": 1}}})
    except StateError as e:
        return e.code != "invalid-state"
    return True


def _probe(word: str) -> dict[str, Any]:
    return {"id": "k", "kind": "pal", "power": 0, "keywords": [word]}


def _keyword_loads(word: Any) -> bool:
    """Whether `word` is a keyword text P-state accepts."""
    try:
        Rules.from_state({"players": {"A": {"life": 1, "hand": [_probe(word)]}, "B": {"life": 1}}})
    except StateError:
        return False
    return True


@mutant(
    "state-unused-field-refused",
    "P-state",
    "A field the card's kind gives no meaning to (an event's `power` or `strike`, a Pal's "
    "`slots`) is taken for a malformed card and refused, though its value is valid (I-19).",
)
class UnusedFieldRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        for card, _ in _cards(data):
            for field in UNUSED.get(str(card.get("kind")), ()):
                if field in card and _valid_count(card[field]):
                    raise StateError("invalid-state", f"a {card['kind']} has no `{field}`")
        return super().from_state(data)


@mutant(
    "state-empty-assigned-outside-refused",
    "P-state",
    "A structure outside `structures` with an `assigned` field is refused even when the "
    "list is empty: the rule against holding Pals out of play read as one against the field.",
)
class EmptyAssignedOutsideRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        for card, zone in _cards(data):
            if card.get("kind") == "structure" and zone != "structures" and "assigned" in card:
                raise StateError("invalid-state", "a structure out of play has no `assigned`")
        return super().from_state(data)


@mutant(
    "state-zero-amount-refused",
    "P-state",
    "An effect `amount` of 0 is refused as an effect that does nothing, though P-state asks "
    "only for an integer of at least 0.",
)
class ZeroAmountRefused(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        if any(e.get("amount") == 0 and _is_int(e.get("amount")) for e in _effects(data)):
            raise StateError("invalid-state", "an effect with `amount` 0 does nothing")
        return super().from_state(data)


@mutant(
    "observed-written-power-off-pals",
    "P-observed",
    "An event or a structure that writes `power` or `strike` shows the written value, "
    "rather than null: an accepted and ignored field leaks into OBSERVED.",
)
class WrittenPowerOffPals(Rules):
    written: dict[str, tuple[Any, Any]]

    @classmethod
    def from_state(cls, data: Any) -> Rules:
        game = super().from_state(data)
        assert isinstance(game, WrittenPowerOffPals)
        game.written = {
            card["id"]: (card.get("power"), card.get("strike"))
            for card, _ in _cards(data)
            if card.get("kind") != "pal" and ("power" in card or "strike" in card)
        }
        return game

    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, (power, strike) in getattr(self, "written", {}).items():
            if cid in out["cards"]:
                out["cards"][cid]["power"] = power
                out["cards"][cid]["strike"] = strike
        return out


# ---------------------------------------------------------------- P-reasons, by kind and zone


@mutant(
    "reasons-structure-cannot-pay-before-wrong-kind",
    "P-reasons",
    "Playing a structure as an event checks its cost before its kind: an unaffordable "
    "structure gives cannot-pay, not wrong-kind (a Pal is right).",
)
class StructureCannotPayFirst(Rules):
    def check_play(self, g: Any, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = list(CheckRules.check_play(self, g, a))
        card = g.cards.get(a["card"])
        codes = [r.reason for r in found]
        if card is not None and card.card.kind == "structure" and "cannot-pay" in codes:
            pay = found[codes.index("cannot-pay")]
            found = [r for r in found if r is not pay]
            found.insert(codes.index("wrong-kind") if "wrong-kind" in codes else 0, pay)
        yield from found


@mutant(
    "reasons-assigned-attacker-cannot-attack",
    "P-reasons",
    "A rested Pal on a structure named as attacker gives cannot-attack: the rest is checked "
    "before the zone for assigned Pals (not-found is right: it is not in battle).",
)
class AssignedAttackerCannotAttack(Rules):
    def check_attack(self, g: Any, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["attacker"])
        if (
            g.step == "main"
            and a["player"] == g.active
            and card is not None
            and card.owner == a["player"]
            and card.zone == "assigned"
            and card.state == "rest"
        ):
            yield Refusal("cannot-attack", f"{card.id!r} is rested")
        yield from super().check_attack(g, a)


@mutant(
    "reasons-foreign-field-refused",
    "B-17",
    "A field the ACTION table does not give the action's kind (`choose` on end-turn, pass, "
    "block or interrupt) is refused as malformed even when its type is right, though "
    "surplus entries are ignored (I-26).",
)
class ForeignFieldRefused(Rules):
    def check_shape(self, action: Any) -> str:
        do = super().check_shape(action)
        own = {"do", "player", *ACTION_FIELDS[do], *OPTIONAL_FIELDS.get(do, ())}
        foreign = sorted(set(action) - own)
        if foreign:
            raise Refusal("invalid-action", f"`{do}` has no field `{foreign[0]}`")
        return do


# ------------------------------------------------------ quick and cost on triggered abilities
#
# I-30: `quick` and `cost` are checked on every ability that writes them; on a triggered
# ability (On Deploy, On Attack, On Assign) a valid value changes nothing, as "a triggered
# ability has no Quick" (P-reasons) and only B-9a pays an ability's cost.


@mutant(
    "triggered-quick-ability-activatable",
    "B-9a",
    'A triggered ability written with `"quick": true` is read as a Quick activated ability '
    "as well: it may be activated, paying its written cost, at the timing of a Quick ability "
    "(against I-30).",
)
class TriggeredQuickAbilityActivatable(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        rules = super().from_state(data)
        for raw, _ in _cards(data):  # the loader keeps `quick` on activated abilities only
            card = rules.state.cards.get(raw.get("id", ""))
            flags = [a.get("quick") is True for a in raw.get("abilities", [])]
            if card is not None and any(flags):
                abilities = tuple(
                    replace(a, quick=a.quick or flag)
                    for a, flag in zip(card.card.abilities, flags, strict=True)
                )
                card.card = replace(card.card, abilities=abilities)
        return rules

    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = list(super().check_activate(g, a))
        card = g.cards.get(a["card"])
        if card is None or [r.reason for r in found] != ["wrong-kind"]:
            return iter(found)
        ability = card.card.abilities[a["ability"]]
        if not ability.quick:
            return iter(found)
        if ability.cost > g.energy[a["player"]]:
            return iter([Refusal("cannot-pay", f"costs {ability.cost}")])
        return iter(())


@mutant(
    "reasons-triggered-ability-cost-checked",
    "P-reasons",
    "A triggered ability's written `cost` is read as a cost to pay when it is activated: with "
    "too little energy, activating it gives cannot-pay before wrong-kind (against I-30).",
)
class ReasonsTriggeredAbilityCostChecked(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = list(super().check_activate(g, a))
        card = g.cards.get(a["card"])
        if card is not None and [r.reason for r in found] == ["wrong-kind"]:
            ability = card.card.abilities[a["ability"]]
            if ability.cost > g.energy[a["player"]]:
                return iter([Refusal("cannot-pay", f"costs {ability.cost}"), *found])
        return iter(found)
