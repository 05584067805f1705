"""What P-observed decides of every OBSERVED, whatever a case names: the checks the runner
makes on each `observe` reply beside the case's own expectations (docs/INTERPRETING.md).

A case's `observed` is matched as a subset, so it cannot see a card the engine invents, a
structure listed in a player's `structures` while it lies in the hand, or an OBSERVED whose
two views of the game (the players' zone lists and `cards`) disagree. P-observed decides all
of these:

- `cards` lists every card of the game (the STATE last loaded), no other;
- each card keeps its `owner` (B-1: no card changes hands);
- `zone` and the players' lists say the same: `hand`, `battle`, `graveyard` list the cards of
  that zone, `structures` maps each structure card in play to the Pals assigned to it;
- `state` is null out of play (hand, graveyard) and "stand" or "rest" in play;
- `power` and `strike` are null for events and structures, integers for Pals, and out of play
  a Pal's `power` is its printed power;
- `priority` is null in the main step and at game over, and names a player in the block and
  quick steps; `attack` is under way exactly in the block and quick steps; `winner` names a
  player exactly when `step` is "over".

The reply has passed the protocol's schema already (types, the five fields of a card).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

from .compare import MISSING, Diff

IN_PLAY = ("battle", "structures", "assigned")
PLAYER_ZONES = ("hand", "battle", "graveyard")


class Printed(NamedTuple):
    """A card as the STATE wrote it: what OBSERVED must keep (owner) or show (printed power).
    (A named tuple: made for every card of every STATE a run loads, and a frozen dataclass
    is three times slower to make.)"""

    owner: str
    kind: str
    power: Any


def printed_cards(state: Any) -> dict[str, Printed]:
    """Every card of a STATE (one that `setup` accepted), by id."""
    out: dict[str, Printed] = {}

    def add(card: Any, owner: str) -> None:
        if isinstance(card, dict) and isinstance(card.get("id"), str):
            out[card["id"]] = Printed(owner, str(card.get("kind")), card.get("power"))
            for held in card.get("assigned") or []:
                add(held, owner)

    players = state.get("players") if isinstance(state, dict) else None
    for owner, pdata in (players or {}).items():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in (pdata or {}).get(zone) or []:
                add(card, owner)
    return out


def observed_problems(observed: Mapping[str, Any], game: Mapping[str, Printed]) -> list[Diff]:
    """Where `observed` breaks P-observed, for the game whose cards are `game`; `[]` when it
    keeps every rule above. Each `Diff` names the field, what P-observed asks and what the
    engine said. (`keeps_the_rules` answers first: the walks below, which sort and name
    what they find, run only for an OBSERVED it does not vouch for.)"""
    if keeps_the_rules(observed, game):
        return []
    return list(_cards(observed, game)) + list(_lists(observed)) + list(_steps(observed))


def keeps_the_rules(observed: Mapping[str, Any], game: Mapping[str, Printed]) -> bool:
    """The fast path of `observed_problems`: True only when the full walks would find
    nothing (the same tests in one pass, unsorted, no `Diff` made); False when they may find
    something, or raise: on any value the full walks could not sort or read the same way
    (keys that are not strings, a `cards` or `structures` that is not a dict, a field
    missing), it says False and leaves the answer to them. tests/test_run_fast_paths.py
    holds it to them."""
    try:
        return _keeps_the_rules(observed, game)
    except Exception:  # (the full walks meet the same value: theirs is the answer)
        return False


def _keeps_the_rules(observed: Mapping[str, Any], game: Mapping[str, Printed]) -> bool:
    cards = observed["cards"]
    if type(cards) is not dict or len(cards) != len(game):
        return False
    for cid, card in cards.items():  # `_cards`
        printed = game.get(cid)
        if type(cid) is not str or printed is None or type(card) is not dict:
            return False
        if card["owner"] != printed.owner:
            return False
        in_play = card["zone"] in IN_PLAY
        if in_play != (card["state"] is not None):
            return False
        power = card["power"]
        if printed.kind == "pal":
            if power is None or card["strike"] is None:
                return False
            if not in_play and power != printed.power:
                return False
        elif power is not None or card["strike"] is not None:
            return False
    placed: set[str] = set()  # `_lists`
    place = placed.add
    for player, pdata in observed["players"].items():
        if type(player) is not str or type(pdata) is not dict:
            return False
        for zone in PLAYER_ZONES:
            for cid in pdata[zone]:
                card = cards.get(cid)
                if card is None or cid in placed:
                    return False
                if not (card["owner"] == player and card["zone"] == zone):
                    return False
                place(cid)
        structures = pdata["structures"]
        if type(structures) is not dict:
            return False
        for sid, held in structures.items():
            card = cards.get(sid)
            if type(sid) is not str or card is None or sid in placed:
                return False
            if not (card["owner"] == player and card["zone"] == "structures"):
                return False
            place(sid)
            for cid in held:
                card = cards.get(cid)
                if card is None or cid in placed:
                    return False
                if not (card["owner"] == player and card["zone"] == "assigned"):
                    return False
                place(cid)
    if len(placed) != len(cards):
        return False
    step = observed["step"]  # `_steps`
    attacking = step in ("block", "quick")
    return (
        attacking == (observed["attack"] is not None)
        and attacking == (observed["priority"] is not None)
        and (step == "over") == (observed["winner"] is not None)
    )


def _cards(observed: Mapping[str, Any], game: Mapping[str, Printed]) -> Iterator[Diff]:
    cards = observed["cards"]
    for cid in sorted(game.keys() - cards.keys()):
        yield Diff(f"cards.{cid}", "a card of the game", MISSING)
    for cid in sorted(cards):
        card = cards[cid]
        printed = game.get(cid)
        if printed is None:
            yield Diff(f"cards.{cid}", MISSING, card)
            continue
        if card["owner"] != printed.owner:
            yield Diff(f"cards.{cid}.owner", printed.owner, card["owner"])
        in_play = card["zone"] in IN_PLAY
        if in_play != (card["state"] is not None):
            yield Diff(
                f"cards.{cid}.state", '"stand" or "rest"' if in_play else None, card["state"]
            )
        pal = printed.kind == "pal"
        for field in ("power", "strike"):
            if pal != (card[field] is not None):
                yield Diff(f"cards.{cid}.{field}", "an integer" if pal else None, card[field])
        if pal and not in_play and card["power"] is not None and card["power"] != printed.power:
            yield Diff(f"cards.{cid}.power", printed.power, card["power"])


def _lists(observed: Mapping[str, Any]) -> Iterator[Diff]:
    """The players' zone lists and `cards` describe one game: each listed id is a card of
    that player in that zone, listed once; each card is listed where its `zone` says."""
    cards = observed["cards"]
    entries: list[tuple[str, str, str]] = []  # (id, player, zone) as the lists say
    add = entries.append
    for player, pdata in sorted(observed["players"].items()):
        for zone in PLAYER_ZONES:
            for cid in pdata[zone]:
                add((cid, player, zone))
        for sid, held in sorted(pdata["structures"].items()):
            add((sid, player, "structures"))
            for cid in held:
                add((cid, player, "assigned"))
    placed: set[str] = set()  # the ids listed where `cards` says they are
    for cid, player, zone in entries:
        card = cards.get(cid)
        if card is not None and card["owner"] == player and card["zone"] == zone:
            if cid not in placed:
                placed.add(cid)
                continue
        where = f"players.{player}.{_list_name(zone)}"  # (made only for a Diff: the hot path)
        if card is None:
            yield Diff(where, "ids of cards in `cards`", cid)
        elif (card["owner"], card["zone"]) != (player, zone):
            yield Diff(where, f"not {cid} (its zone is {card['owner']}'s {card['zone']})", cid)
        else:
            yield Diff(where, f"{cid} listed once", cid)
    for cid in sorted(cards.keys() - placed):
        card = cards[cid]
        yield Diff(f"players.{card['owner']}.{_list_name(card['zone'])}", f"lists {cid}", MISSING)


def _list_name(zone: str) -> str:
    return "structures" if zone == "assigned" else zone


def _steps(observed: Mapping[str, Any]) -> Iterator[Diff]:
    step = observed["step"]
    attacking = step in ("block", "quick")
    if attacking != (observed["attack"] is not None):
        yield Diff("attack", "the attack under way" if attacking else None, observed["attack"])
    if attacking != (observed["priority"] is not None):
        yield Diff("priority", "the player to act" if attacking else None, observed["priority"])
    if (step == "over") != (observed["winner"] is not None):
        yield Diff("winner", "the winner" if step == "over" else None, observed["winner"])
