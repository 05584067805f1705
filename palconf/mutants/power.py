"""Mutants of power and life: Nocturnal (nocturnal.1–2, I-3), the power total (B-18) and losing
the game (B-20)."""

from __future__ import annotations

from typing import Iterable

from oracle.keywords import Nocturnal
from oracle.model import CardState, GameState, KeywordInstance, Player
from oracle.rules import Pending, Rules

from . import keyword_mutant, mutant
from .triggers import first_instance

# ---------------------------------------------------------------- Nocturnal (nocturnal.1–2)


@keyword_mutant("nocturnal-always-on", "nocturnal.2",
                "The night condition is missed: a Nocturnal card always has 300 more power.")
class NocturnalAlwaysOn(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return self.BONUS


@keyword_mutant("nocturnal-bonus-3000", "nocturnal.1",
                "The bonus is taken to be on the scale of printed powers (thousands): 3000, "
                "not 300.")
class NocturnalBonus3000(Nocturnal):
    BONUS = 3000


@keyword_mutant("nocturnal-first-instance-only", "nocturnal.1",
                "Nocturnal is treated as not cumulative: two instances add 300 only (against "
                "I-3).")
class NocturnalFirstInstanceOnly(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return super().power_bonus(game, card, instance) if first_instance(card, instance) else 0


# ---------------------------------------------------------------- the power total (B-18)


@mutant("power-floor-per-step", "B-18",
        "The floor at 0 is applied after each change rather than to the total, so 1000, then "
        "-2000, then +1500 gives 1500.")
class PowerFloorPerStep(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        if card.card.kind != "pal":
            return None
        if not card.in_play:
            return card.card.power
        total = card.card.power
        for inst in card.card.keywords:
            total = max(0, total + self.kw(inst.id).power_bonus(g, card, inst))
        for p in g.pumps:
            if p.card == card.id:
                total = max(0, total + p.amount)
        return total


@mutant("power-not-floored", "B-18",
        "Power is not floored at 0: a large enough decrease leaves it negative.")
class PowerNotFloored(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        if card.card.kind != "pal" or not card.in_play:
            return super().power(g, card)
        return (card.card.power
                + sum(self.kw(i.id).power_bonus(g, card, i) for i in card.card.keywords)
                + sum(p.amount for p in g.pumps if p.card == card.id))


# ---------------------------------------------------------------- life and the end (B-20)


@mutant("life-clamped-at-zero", "B-20",
        "Life is shown clamped at 0 instead of as it is.")
class LifeClampedAtZero(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        super().lose_life(g, player, amount)
        g.life[player] = max(0, g.life[player])


@mutant("master-loses-below-zero-only", "B-20",
        "A master is taken to lose only below 0 life; at exactly 0 the game goes on.")
class LosesBelowZeroOnly(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        if g.life[player] - amount == 0:
            g.life[player] = 0
            return
        super().lose_life(g, player, amount)


@mutant("abilities-resolve-after-loss", "B-20",
        "The loss is checked only once the action's abilities have all resolved, so the "
        "abilities after a lethal one still resolve.")
class AbilitiesResolveAfterLoss(Rules):
    def resolve(self, g: GameState, pending: Iterable[Pending]) -> None:
        pending = list(pending)
        for p in pending:
            self.resolve_effect(g, p)
        for p in pending:
            card = g.cards[p.source]
            if card.zone == "resolving":
                card.zone = "graveyard"
