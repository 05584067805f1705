"""Mutants of `P-state` (docs/protocol.md, STATE): what `setup` accepts and how it refuses.

Each overrides `from_state` (a classmethod; such a mutant cannot be probed, so the sweep runs it
on every case), rarely with one more method (`__init__`, `move_deploy`). The STATE is
rewritten before the oracle's loader sees it (on a deep copy; any shape the rewrite does not
understand is left for the loader to refuse), or the loaded game is adjusted after it, or a
refusal's code is changed.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from palconf.mutants import mutant
from palconf.oracle.keywords import KEYWORD_NAMES
from palconf.oracle.model import CardState, GameState, StateError
from palconf.oracle.rules import Pending, Rules

PLAYER_ZONES = ("hand", "battle", "structures", "graveyard")
#: The effect ops and ability timings the protocol page lists.
LISTED_OPS = frozenset({"pump", "damage", "destroy", "rest", "stand", "night", "energy"})
LISTED_WHENS = frozenset({"deploy", "attack", "assign", "activate"})
#: A stand-in id the loader accepts, for a card whose written id a mutant lets through.
_PLACEHOLDER = "\u0000mutant:"


# ---------------------------------------------------------------- walking a raw STATE


def _players(data: Any) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(data, dict) or not isinstance(data.get("players"), dict):
        return []
    return [(p, v) for p, v in data["players"].items() if isinstance(v, dict)]


def _card_slots(data: Any) -> Iterator[tuple[list[Any], int, str]]:
    """Every card object of a raw STATE as (its list, its index, its zone), in the order the
    oracle's loader reads them (a structure's `assigned` Pals right after it)."""
    for _, pdata in _players(data):
        for zone in PLAYER_ZONES:
            items = pdata.get(zone)
            if not isinstance(items, list):
                continue
            for i, card in enumerate(items):
                if not isinstance(card, dict):
                    continue
                yield items, i, zone
                held = card.get("assigned")
                if zone == "structures" and isinstance(held, list):
                    yield from (
                        (held, j, "assigned") for j, c in enumerate(held) if isinstance(c, dict)
                    )


def _cards(data: Any) -> Iterator[tuple[dict[str, Any], str]]:
    for items, i, zone in _card_slots(data):
        yield items[i], zone


def _effects(data: Any) -> Iterator[dict[str, Any]]:
    """Every effect object of a raw STATE: events' effects and abilities' effects."""
    for card, _ in _cards(data):
        if isinstance(card.get("effect"), dict):
            yield card["effect"]
        for ability in _abilities(card):
            if isinstance(ability.get("effect"), dict):
                yield ability["effect"]


def _abilities(card: dict[str, Any]) -> list[dict[str, Any]]:
    abilities = card.get("abilities")
    return [a for a in abilities if isinstance(a, dict)] if isinstance(abilities, list) else []


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _rename(g: GameState, old: str, new: str) -> None:
    """Give the card `old` the id `new` (its definition, the cards map, the Pals it holds)."""
    cs = g.cards.pop(old)
    g.cards[new] = CardState(replace(cs.card, id=new), cs.owner, cs.zone, cs.state, cs.host)
    for c in g.cards.values():
        if c.host == old:
            c.host = new


# ---------------------------------------------------------------- P-state


@mutant(
    "state-master-at-zero-life-accepted",
    "P-state",
    "Life is checked as an integer of at least 0 like the other counts, so a STATE with a "
    "master at 0 life is accepted.",
)
class MasterAtZeroLifeAccepted(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        zero = [
            p for p, pdata in _players(data) if _is_int(pdata.get("life")) and pdata["life"] == 0
        ]
        for p, pdata in _players(data):
            if p in zero:
                pdata["life"] = 1
        game = super().from_state(data)
        for p in zero:
            game.state.life[p] = 0  # type: ignore[index]
        return game


@mutant(
    "state-master-id-accepted",
    "P-state",
    'Any non-empty string is taken as a card id, "master" too.',
)
class MasterIdAccepted(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        renamed = False
        for card, _ in _cards(data):
            if card.get("id") == "master":
                card["id"] = _PLACEHOLDER + "master"
                renamed = True
        game = super().from_state(data)
        if renamed:
            _rename(game.state, _PLACEHOLDER + "master", "master")
        return game


@mutant(
    "state-duplicate-id-replaces",
    "P-state",
    "Cards are kept in a map by id, so a duplicate id is not refused: the card read last "
    "replaces the earlier one.",
)
class DuplicateIdReplaces(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        seen: dict[str, tuple[list[Any], int]] = {}
        drop: list[tuple[list[Any], int]] = []
        for items, i, _ in _card_slots(data):
            cid = items[i].get("id")
            if isinstance(cid, str):
                if cid in seen:
                    drop.append(seen[cid])
                seen[cid] = (items, i)
        for items, i in sorted(drop, key=lambda d: -d[1]):
            del items[i]
        return super().from_state(data)


def _recoded(data: Any, load: Callable[[Any], Rules], unknown: Callable[[Any], bool]) -> Rules:
    """`load(data)`, but an `unsupported` refusal of a STATE where `unknown` finds something
    unlisted is answered `invalid-state`."""
    try:
        return load(data)
    except StateError as e:
        if e.code == "unsupported" and unknown(data):
            raise StateError("invalid-state", e.message) from None
        raise


def _unknown_op(data: Any) -> bool:
    return any(isinstance(e.get("op"), str) and e["op"] not in LISTED_OPS for e in _effects(data))


def _unknown_keyword(data: Any) -> bool:
    for card, _ in _cards(data):
        kws = card.get("keywords")
        for k in kws if isinstance(kws, list) else []:
            if isinstance(k, str) and k.split(" ")[0] not in KEYWORD_NAMES:
                return True
    return False


def _unknown_when(data: Any) -> bool:
    return any(
        isinstance(a.get("when"), str) and a["when"] not in LISTED_WHENS
        for card, _ in _cards(data)
        for a in _abilities(card)
    )


@mutant(
    "state-unknown-op-invalid",
    "P-state",
    "An effect `op` the engine does not know is taken for a malformed STATE: "
    "`invalid-state`, not `unsupported`.",
)
class UnknownOpInvalid(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        return _recoded(data, super().from_state, _unknown_op)


@mutant(
    "state-unknown-keyword-invalid",
    "P-state",
    "A keyword name the engine does not know is taken for a malformed card: "
    "`invalid-state`, not `unsupported`.",
)
class UnknownKeywordInvalid(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        return _recoded(data, super().from_state, _unknown_keyword)


@mutant(
    "state-unknown-when-invalid",
    "P-state",
    "An ability `when` the engine does not know is taken for a malformed ability: "
    "`invalid-state`, not `unsupported`.",
)
class UnknownWhenInvalid(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        return _recoded(data, super().from_state, _unknown_when)


@mutant(
    "state-empty-assigned-on-pal-accepted",
    "P-state",
    "Only a card that is not a structure holding Pals is refused, so an empty `assigned` "
    "on a Pal or an event is accepted.",
)
class EmptyAssignedAccepted(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, _ in list(_cards(data)):
            if card.get("kind") != "structure" and card.get("assigned") == []:
                del card["assigned"]
        return super().from_state(data)


@mutant(
    "state-overfull-structure-accepted",
    "P-state",
    "Slots are taken to limit only the `assign` action, so a STATE with more Pals on a "
    "structure than its `slots` is accepted.",
)
class OverfullStructureAccepted(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        widened: dict[str, int] = {}
        for card, zone in _cards(data):
            held, slots = card.get("assigned"), card.get("slots", 1)
            if (
                zone == "structures"
                and isinstance(held, list)
                and _is_int(slots)
                and len(held) > slots
                and isinstance(card.get("id"), str)
            ):
                widened[card["id"]] = slots
                card["slots"] = len(held)
        game = super().from_state(data)
        for cid, slots in widened.items():
            cs = game.state.cards[cid]
            cs.card = replace(cs.card, slots=slots)
        return game


@mutant(
    "state-active-defaults-to-b",
    "P-state",
    "An omitted `active` is taken as B, the player who did not start the game.",
)
class ActiveDefaultsToB(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        if isinstance(data, dict) and "active" not in data:
            data = {**data, "active": "B"}
        return super().from_state(data)


@mutant(
    "state-slots-default-unlimited",
    "P-state",
    "An omitted `slots` is taken as no limit, so a structure without `slots` holds any "
    "number of Pals.",
)
class SlotsDefaultUnlimited(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)
        for card, zone in _cards(data):
            if zone == "structures" and card.get("kind") == "structure" and "slots" not in card:
                card["slots"] = 1_000_000
        return super().from_state(data)


@mutant(
    "state-hand-rest-deploys-rested",
    "B-7",
    'A card written in hand with `"state": "rest"` keeps that state and enters play '
    "rested when deployed.",
)
class HandRestDeploysRested(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        game = super().from_state(data)
        for card, zone in _cards(data):
            if zone == "hand" and card.get("state") == "rest":
                game.state.cards[card["id"]].state = "rest"
        return game

    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        was = g.cards[a["card"]].state
        pending = super().move_deploy(g, a)
        g.cards[a["card"]].state = was
        return pending


@mutant(
    "state-booleans-are-integers",
    "P-state",
    "The booleans true and false are taken as the integers 1 and 0, as Python and "
    "JavaScript allow.",
)
class BooleansAreIntegers(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        data = copy.deepcopy(data)

        def fix(obj: dict[str, Any], *keys: str) -> None:
            for k in keys:
                if isinstance(obj.get(k), bool):
                    obj[k] = int(obj[k])

        if isinstance(data, dict):
            fix(data, "turn")
        for _, pdata in _players(data):
            fix(pdata, "life", "energy")
        for card, _ in _cards(data):
            fix(card, "power", "strike", "cost", "slots")
            for ability in _abilities(card):
                fix(ability, "cost")
        for effect in _effects(data):
            fix(effect, "amount")
        return super().from_state(data)


@mutant(
    "state-turn-zero-accepted",
    "P-state",
    "The turn number is checked as an integer of at least 0 like the other counts, so "
    "turn 0 is accepted.",
)
class TurnZeroAccepted(Rules):
    @classmethod
    def from_state(cls, data: Any) -> Rules:
        if not (isinstance(data, dict) and _is_int(data.get("turn")) and data["turn"] == 0):
            return super().from_state(data)
        game = super().from_state({**data, "turn": 1})
        game.state.turn = 0
        return game


@mutant(
    "state-refused-setup-restarts-game",
    "P-state",
    'A refused `setup` reloads the last accepted STATE ("the previous game" read as the '
    "previous setup), so the moves made since are lost.",
)
class RefusedSetupRestartsGame(Rules):
    """The misreading lives in the session, which keeps the game across `setup` requests; a
    `Rules` class cannot see it. So each game of this class keeps its starting state, and a
    refused `setup` (always through `from_state`) puts every live game of the class back to
    it. An engine process (`palconf serve`, an in-process `OracleEngine`) holds one game at a
    time, so that is its game. Overriding `__init__` makes the sweep run it on every case."""

    _games: ClassVar[weakref.WeakSet[Rules]] = weakref.WeakSet()

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        self._start = state.copy()
        RefusedSetupRestartsGame._games.add(self)

    @classmethod
    def from_state(cls, data: Any) -> Rules:
        try:
            return super().from_state(data)
        except StateError:
            for game in list(RefusedSetupRestartsGame._games):
                if isinstance(game, RefusedSetupRestartsGame):
                    game.state = game._start.copy()
            raise
