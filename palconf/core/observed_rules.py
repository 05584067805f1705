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
from dataclasses import dataclass
from typing import Any

from .compare import MISSING, Diff

IN_PLAY = ("battle", "structures", "assigned")
PLAYER_ZONES = ("hand", "battle", "graveyard")


@dataclass(frozen=True)
class Printed:
    """A card as the STATE wrote it: what OBSERVED must keep (owner) or show (printed power)."""

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
    engine said."""
    return list(_cards(observed, game)) + list(_lists(observed)) + list(_steps(observed))


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
