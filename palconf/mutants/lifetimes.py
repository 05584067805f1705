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


@dataclass(frozen=True, slots=True)
class SourcedPump(Pump):
    """A pump with the id of the card whose ability gave it."""

    source: str = ""


class _Sourced(Rules):
    """Records the source of every pump a card in play gave."""

    def resolve_effect(self, g: GameState, p: Pending) -> None:
        before = len(g.pumps)
        super().resolve_effect(g, p)
        if p.source_is_card_in_play and len(g.pumps) > before:
            pump = g.pumps.pop()
            g.pumps.append(SourcedPump(pump.card, pump.amount, p.source))


@mutant(
    "pumps-end-with-their-source",
    "B-10",
    "An increase a card's ability gave to another Pal is read as lasting only while the card "
    "that gave it is in play: it ends when that card is put into the graveyard.",
)
class PumpsEndWithSource(_Sourced):
    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        super().put_into_graveyard(g, card)
        g.pumps = [p for p in g.pumps if not (isinstance(p, SourcedPump) and p.source == card.id)]


@mutant(
    "orphan-pumps-outlast-turn",
    "B-6",
    '"Until end of turn" is ended by the card that gave the effect, at the end of the turn: '
    "an increase whose source has left play is never ended.",
)
class OrphanPumpsOutlastTurn(_Sourced):
    def end_until_end_of_turn(self, g: GameState) -> None:
        orphans = [
            p for p in g.pumps if isinstance(p, SourcedPump) and not g.cards[p.source].in_play
        ]
        super().end_until_end_of_turn(g)
        g.pumps += orphans


#: the `source` of the record (a pump of 0 on the card that made it night) of who made night
NIGHT = "\u0000night"


@mutant(
    "night-ends-with-its-source",
    "B-5",
    "Night made by a card's ability is read as an effect on that card, like an increase: "
    "when the card is put into the graveyard that turn, it is day again.",
)
class NightEndsWithSource(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        night = g.night
        super().resolve_effect(g, p)
        if p.effect.op == "night" and g.night and not night and p.source_is_card_in_play:
            g.pumps.append(SourcedPump(p.source, 0, NIGHT))

    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        if any(
            isinstance(p, SourcedPump) and p.source == NIGHT for p in g.pumps if p.card == card.id
        ):
            g.night = False
        super().put_into_graveyard(g, card)


class _GoneSourceSkips(Rules):
    """An ability of a card that has left play does nothing when its effect is `op` (and
    `player`, if given)."""

    op: str = ""
    player: str | None = None

    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if (
            p.effect.op == self.op
            and (self.player is None or p.effect.player == self.player)
            and p.source_is_card_in_play
            and not g.cards[p.source].in_play
        ):
            return
        super().resolve_effect(g, p)


@mutant(
    "ability-of-gone-source-fizzles",
    "B-19",
    "An ability whose card has left play before it resolves does nothing at all, not only "
    "its effects on `self` (against I-13).",
)
class AbilityOfGoneSourceFizzles(Rules):
    def resolve_in_order(self, g: GameState, pending: list[Pending]) -> None:
        for p in pending:
            if g.step == "over":
                break
            if p.source_is_card_in_play and not g.cards[p.source].in_play:
                continue
            self.resolve_effect(g, p)


@mutant(
    "ability-of-gone-source-affects-no-pal",
    "on-deploy.1",
    "An ability whose card has left play before it resolves still deals damage and gives "
    "energy but no longer affects any Pal, a chosen one included (against I-13).",
)
class AbilityOfGoneSourceAffectsNoPal(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if (
            p.source_is_card_in_play
            and not g.cards[p.source].in_play
            and p.effect.op in ("pump", "destroy", "rest", "stand")
        ):
            return
        super().resolve_effect(g, p)


@mutant(
    "ability-of-gone-source-deals-no-self-damage",
    "B-19",
    "The rule that `self` of a card no longer in play finds nothing is read to cover `damage` "
    'to "self", so once the card has left play its self-damage does nothing.',
)
class GoneSourceDealsNoSelfDamage(_GoneSourceSkips):
    op, player = "damage", "self"


@mutant(
    "ability-of-gone-source-gives-no-energy",
    "B-19",
    "An `energy` effect of an ability whose card has left play is read as giving nothing, as "
    "no card in play has a controller to gain it (against I-13).",
)
class GoneSourceGivesNoEnergy(_GoneSourceSkips):
    op = "energy"


@mutant(
    "ability-of-gone-source-sets-no-night",
    "B-19",
    "A `night` effect of an ability whose card has left play is read as doing nothing "
    "(against I-13).",
)
class GoneSourceSetsNoNight(_GoneSourceSkips):
    op = "night"
