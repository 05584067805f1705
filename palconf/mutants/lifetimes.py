"""Mutants of how long an effect lasts once its source is gone (issue 27, family 4).

B-10 says when an effect ends: when the card it is *on* leaves play, and B-6 ends every
"until end of turn" effect at the end of the turn; nothing ends an effect when the card that
*gave* it leaves play. These engines tie an effect to its source: the pump or the night a
Pal's ability gave ends with that Pal (by battle, destroy or Retaliate), or, its source
gone, is never ended at all.

The oracle does not record who gave a pump; a mutant does, in a `SourcedPump` (a `Pump` with
its source's id) that copies of the state share like any pump.
"""

from __future__ import annotations

from dataclasses import dataclass

from palconf.mutants import mutant
from palconf.oracle.model import CardState, GameState, Pump
from palconf.oracle.rules import Pending, Rules

#: the stand-in card id of the record of who made it night (no card has it: it pumps nothing)
NIGHT = "\u0000night"


@dataclass(frozen=True, slots=True)
class SourcedPump(Pump):
    """A pump with the id of the card whose ability gave it."""

    source: str = ""


class _Sourced(Rules):
    """Records the source of every pump (and of the night) a card in play gave."""

    def resolve_effect(self, g: GameState, p: Pending) -> None:
        before = len(g.pumps)
        night = g.night
        super().resolve_effect(g, p)
        if not p.source_is_card_in_play:
            return
        if len(g.pumps) > before:
            pump = g.pumps.pop()
            g.pumps.append(SourcedPump(pump.card, pump.amount, p.source))
        if p.effect.op == "night" and g.night and not night:
            g.pumps.append(SourcedPump(NIGHT, 0, p.source))


def _given_by(g: GameState, card: CardState) -> list[Pump]:
    return [p for p in g.pumps if isinstance(p, SourcedPump) and p.source == card.id]


@mutant(
    "pumps-end-with-their-source",
    "B-10",
    "An increase a card's ability gave to another Pal is read as lasting only while the card "
    "that gave it is in play: it ends when that card is put into the graveyard.",
)
class PumpsEndWithSource(_Sourced):
    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        super().put_into_graveyard(g, card)
        gone = _given_by(g, card)
        g.pumps = [p for p in g.pumps if p not in gone or p.card == NIGHT]


@mutant(
    "orphan-pumps-outlast-turn",
    "B-6",
    '"Until end of turn" is ended by the card that gave the effect, at the end of the turn: '
    "an increase whose source has left play is never ended.",
)
class OrphanPumpsOutlastTurn(_Sourced):
    def end_until_end_of_turn(self, g: GameState) -> None:
        orphans = [
            p
            for p in g.pumps
            if isinstance(p, SourcedPump) and p.card != NIGHT and not g.cards[p.source].in_play
        ]
        super().end_until_end_of_turn(g)
        g.pumps += orphans


@mutant(
    "night-ends-with-its-source",
    "B-5",
    "Night made by a card's ability is read as lasting while that card is in play: when it "
    "is put into the graveyard, it is day again.",
)
class NightEndsWithSource(_Sourced):
    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        super().put_into_graveyard(g, card)
        if any(p.card == NIGHT for p in _given_by(g, card)):
            g.night = False
        g.pumps = [p for p in g.pumps if not (p.card == NIGHT and p in _given_by(g, card))]

    def end_until_end_of_turn(self, g: GameState) -> None:
        kept = [p for p in g.pumps if p.card == NIGHT]
        super().end_until_end_of_turn(g)
        g.pumps += kept
