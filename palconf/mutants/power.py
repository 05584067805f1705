"""Mutants of power and life: Nocturnal (nocturnal.1–2, I-3), the power total (B-18) and losing
the game (B-20)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.mutants.pumps import first_instance
from palconf.oracle.keywords import Battle, BattleTrigger, Nocturnal
from palconf.oracle.model import CardState, GameState, KeywordInstance, Player
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- Nocturnal (nocturnal.1–2)


@keyword_mutant(
    "nocturnal-always-on",
    "nocturnal.2",
    "The night condition is missed: a Nocturnal card always has 300 more power.",
)
class NocturnalAlwaysOn(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return self.BONUS


@keyword_mutant(
    "nocturnal-bonus-3000",
    "nocturnal.1",
    "The bonus is taken to be on the scale of printed powers (thousands): 3000, not 300.",
)
class NocturnalBonus3000(Nocturnal):
    BONUS = 3000


@keyword_mutant(
    "nocturnal-first-instance-only",
    "nocturnal.1",
    "Nocturnal is treated as not cumulative: two instances add 300 only (against I-3).",
)
class NocturnalFirstInstanceOnly(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return super().power_bonus(game, card, instance) if first_instance(card, instance) else 0


@keyword_mutant(
    "nocturnal-ignored",
    "nocturnal.1",
    "Nocturnal is taken for flavour text: its card gets nothing at night.",
)
class NocturnalIgnored(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return 0


@keyword_mutant(
    "nocturnal-only-on-own-turn",
    "nocturnal.1",
    'Nocturnal is read as "attacks better at night": the bonus applies only on its '
    "controller's turn.",
)
class NocturnalOnlyOnOwnTurn(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return super().power_bonus(game, card, instance) if card.owner == game.active else 0


@keyword_mutant(
    "nocturnal-not-on-structures",
    "nocturnal.1",
    "Nocturnal is read as a battle-area bonus, so a Nocturnal Pal assigned to a "
    "structure does not get it at night (against I-9).",
)
class NocturnalNotOnStructures(Nocturnal):
    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return 0 if card.zone == "assigned" else super().power_bonus(game, card, instance)


@mutant(
    "nocturnal-out-of-play",
    "nocturnal.1",
    "Nocturnal is applied to its card wherever it is, so at night a Nocturnal Pal in hand "
    "or in the graveyard shows 300 more than its printed power.",
)
class NocturnalOutOfPlay(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        total = super().power(g, card)
        if total is None or card.in_play:
            return total
        return total + sum(self.kw(i.id).power_bonus(g, card, i) for i in card.card.keywords)


# ---------------------------------------------------------------- the power total (B-18)


@mutant(
    "power-floor-per-step",
    "B-18",
    "The floor at 0 is applied after each change rather than to the total, so 1000, then "
    "-2000, then +1500 gives 1500.",
)
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


@mutant(
    "power-not-floored",
    "B-18",
    "Power is not floored at 0: a large enough decrease leaves it negative.",
)
class PowerNotFloored(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        if card.card.kind != "pal" or not card.in_play:
            return super().power(g, card)
        return (
            card.card.power
            + sum(self.kw(i.id).power_bonus(g, card, i) for i in card.card.keywords)
            + sum(p.amount for p in g.pumps if p.card == card.id)
        )


@mutant(
    "power-floor-before-continuous-bonus",
    "B-18",
    "The floor at 0 is applied to the printed power and the until-end-of-turn changes, and "
    "continuous bonuses (Nocturnal) are added after it.",
)
class PowerFloorBeforeContinuousBonus(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        if card.card.kind != "pal" or not card.in_play:
            return super().power(g, card)
        base = max(0, card.card.power + sum(p.amount for p in g.pumps if p.card == card.id))
        return base + sum(self.kw(i.id).power_bonus(g, card, i) for i in card.card.keywords)


@mutant(
    "battle-uses-unfloored-power",
    "B-18",
    "The floor at 0 is applied only to the power shown: battle compares the unfloored "
    "totals, so a Pal brought below 0 loses to a Pal of power 0.",
)
class BattleUsesUnflooredPower(Rules):
    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        def raw(c: CardState) -> int:
            return (
                c.card.power
                + sum(self.kw(i.id).power_bonus(g, c, i) for i in c.card.keywords)
                + sum(p.amount for p in g.pumps if p.card == c.id)
            )

        pa, pt = raw(attacker), raw(target)
        if pa != pt:
            return [attacker.id] if pa < pt else [target.id]
        return [attacker.id, target.id]


# ---------------------------------------------------------------- life and the end (B-20)


@mutant("life-clamped-at-zero", "B-20", "Life is shown clamped at 0 instead of as it is.")
class LifeClampedAtZero(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        super().lose_life(g, player, amount)
        g.life[player] = max(0, g.life[player])


@mutant(
    "master-loses-below-zero-only",
    "B-20",
    "A master is taken to lose only below 0 life; at exactly 0 the game goes on.",
)
class LosesBelowZeroOnly(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        if g.life[player] - amount == 0:
            g.life[player] = 0
            return
        super().lose_life(g, player, amount)


@mutant(
    "abilities-resolve-after-loss",
    "B-20",
    "The loss is checked only once the action's abilities have all resolved, so the "
    "abilities after a lethal one still resolve.",
)
class AbilitiesResolveAfterLoss(Rules):
    def resolve_in_order(self, g: GameState, pending: list[Pending]) -> None:
        for p in pending:
            self.resolve_effect(g, p)


@mutant(
    "battle-triggers-resolve-after-loss",
    "B-20",
    "The loss is checked only once a battle's triggered abilities have all resolved, so a "
    "Retaliate or a second Breakthrough after a lethal one still resolves.",
)
class BattleTriggersResolveAfterLoss(Rules):
    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        while queue:
            t = queue.pop(0)
            if t.kind == "damage":
                assert t.player is not None
                self.lose_life(g, t.player, t.amount)
            elif t.kind == "retaliate" and g.cards[t.foe].zone == "battle":
                foe = g.cards[t.foe]
                self.put_into_graveyard(g, foe)
                queue += [
                    u
                    for inst in foe.card.keywords
                    for u in self.kw(inst.id).died_after_battle(battle, foe, inst)
                ]


@mutant(
    "actions-accepted-after-game-over",
    "B-20",
    "Winning is recorded but does not stop the game: actions are still accepted after a "
    "master has lost, and the game goes on from there.",
)
class ActionsAcceptedAfterGameOver(Rules):
    def try_action(self, state: GameState, action: Any) -> GameState:
        if state.step == "over":
            state = state.copy()
            state.step = "main"
        return super().try_action(state, action)


@mutant(
    "active-player-wins-on-loss",
    "B-20",
    "The player whose turn it is is taken to have won whenever a master reaches 0 life, as "
    "if only their own attacks could end the game, so a master who brings their own life "
    "to 0 wins.",
)
class ActivePlayerWinsOnLoss(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        super().lose_life(g, player, amount)
        if g.step == "over":
            g.winner = g.active


@mutant(
    "battle-powers-fixed-at-declaration",
    "B-15",
    "The powers a battle compares are taken as they stood once the attack was declared and "
    "its On Attack abilities resolved: what the quick step changes (a pump, night) is not "
    "counted.",
)
class BattlePowersFixedAtDeclaration(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.__dict__["declared"] = {c.id: self.power(g, c) for c in g.battle_pals()}
        super().after_attack(g, a)

    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        declared = self.__dict__.get("declared", {})
        pa = declared.get(attacker.id, self.power(g, attacker))
        pt = declared.get(target.id, self.power(g, target))
        if pa < pt:
            return [attacker.id]
        if pt < pa:
            return [target.id]
        return [attacker.id, target.id]


@mutant(
    "nocturnal-night-read-at-turn-start",
    "nocturnal.1",
    'Nocturnal\'s "if it is night" is read once, at the start of the turn: night made during '
    "a turn gives the bonus only from the next turn on, and day made during a night turn "
    "leaves it until then.",
)
class NocturnalNightAtTurnStart(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        start = self.__dict__.setdefault("night_at_start", {}).get(g.turn)
        if start is None or start == g.night:
            return super().power(g, card)
        seen = g.copy()
        seen.night = start
        return super().power(seen, card)

    def apply(self, action: Any) -> Refusal | None:
        self.__dict__.setdefault("night_at_start", {}).setdefault(self.state.turn, self.state.night)
        refusal = super().apply(action)
        self.__dict__["night_at_start"].setdefault(self.state.turn, self.state.night)
        return refusal
