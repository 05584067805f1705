"""Mutants of battle (B-15, B-16, B-17), Retaliate (retaliate.1–2) and Breakthrough
(breakthrough.1–2, I-1, I-3, I-7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.mutants.pumps import first_instance
from palconf.oracle.keywords import Battle, BattleTrigger, Breakthrough, Retaliate
from palconf.oracle.model import CardState, GameState, KeywordInstance, Pump
from palconf.oracle.rules import Pending, Rules

# ---------------------------------------------------------------- battle (B-15)


@mutant(
    "tie-attacker-dies",
    "B-15",
    "On equal power the defender holds: only the attacker is put into the graveyard.",
)
class TieAttackerDies(Rules):
    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        dead = super().battle_losers(g, attacker, target)
        return [attacker.id] if len(dead) == 2 else dead


@mutant(
    "tie-defender-dies",
    "B-15",
    "On equal power the attacker wins: only the defending Pal is put into the graveyard.",
)
class TieDefenderDies(Rules):
    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        dead = super().battle_losers(g, attacker, target)
        return [target.id] if len(dead) == 2 else dead


@mutant(
    "tie-nobody-dies",
    "B-15",
    "On equal power neither Pal has lower power, so neither is put into the graveyard.",
)
class TieNobodyDies(Rules):
    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        dead = super().battle_losers(g, attacker, target)
        return [] if len(dead) == 2 else dead


@mutant(
    "battle-uses-printed-power",
    "B-15",
    "Battle compares the printed powers, ignoring Nocturnal and until-end-of-turn increases.",
)
class BattleUsesPrintedPower(Rules):
    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        pa, pt = attacker.card.power, target.card.power
        if pa != pt:
            return [attacker.id] if pa < pt else [target.id]
        return [attacker.id, target.id]


@mutant(
    "master-loses-one-life",
    "B-15",
    "An attack that reaches the master takes 1 life, whatever the attacker's strike.",
)
class MasterLosesOneLife(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        if attack.target == "master" and g.cards[attack.attacker].zone == "battle":
            self.lose_life(g, attack.defender, 1)
            if g.step != "over":
                self.end_attack(g)
            return
        super().battle(g)


@mutant(
    "attack-on-master-after-attacker-left",
    "B-15",
    "An attack on the master deals the attacker's (last known) strike even when the "
    "attacker has left the battle area during the quick step.",
)
class MasterHitByGoneAttacker(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        if attack.target == "master" and attacker.zone != "battle":
            self.lose_life(g, attack.defender, attacker.card.strike)
            if g.step != "over":
                self.end_attack(g)
            return
        super().battle(g)


@mutant(
    "master-loses-attacker-power",
    "B-15",
    "An attack that reaches the master takes life equal to the attacker's power, as in "
    "games where power is damage, instead of its strike.",
)
class MasterLosesAttackerPower(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        if attack.target == "master" and attacker.zone == "battle":
            self.lose_life(g, attack.defender, self.power(g, attacker) or 0)
            if g.step != "over":
                self.end_attack(g)
            return
        super().battle(g)


@mutant(
    "strike-hits-master-in-every-battle",
    "B-15",
    "The attacker's strike is read as always reaching the defending master: an attack on "
    "a Pal battles it and also takes the strike from its master's life.",
)
class StrikeHitsMasterInEveryBattle(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        battles = (
            attack.target != "master"
            and attacker.zone == "battle"
            and g.cards[attack.target].zone == "battle"
        )
        defender = attack.defender
        super().battle(g)
        if battles and g.step != "over":
            self.lose_life(g, defender, attacker.card.strike)


@mutant(
    "battle-with-gone-target-uses-last-known",
    "B-15",
    "B-16's last known values are applied to B-15: when the target Pal has left the "
    "battle area, the attacker still battles its last known power (and is put into the "
    "graveyard unless it is higher).",
)
class BattleWithGoneTarget(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        if (
            attack.target != "master"
            and attacker.zone == "battle"
            and g.cards[attack.target].zone != "battle"
        ):
            gone = g.cards[attack.target]
            if (self.power(g, attacker) or 0) <= (self.power(g, gone) or 0):
                self.put_into_graveyard(g, attacker)
            return self.end_attack(g)
        super().battle(g)


@mutant(
    "battle-triggers-defender-first",
    "B-17",
    "Abilities triggered by a battle resolve with the defending player's first.",
)
class BattleTriggersDefenderFirst(Rules):
    def trigger_order(self, g: GameState, card: CardState) -> tuple[bool, str]:
        return (card.owner == g.active, card.id)


# ---------------------------------------------------------------- Retaliate (retaliate.1–2)


@keyword_mutant(
    "retaliate-only-when-defending",
    "retaliate.1",
    "Retaliate is read as a defence: it triggers for an attacked or blocking Pal, "
    "not for a Pal that dies attacking.",
)
class RetaliateOnlyWhenDefending(Retaliate):
    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        if card.id == battle.attacker:
            return []
        return super().after_battle(battle, card, instance)


@mutant(
    "retaliate-on-any-graveyard-move",
    "retaliate.2",
    '"When this card is put into the graveyard" is read without "if it battled": a '
    "Retaliate Pal in an attack that is put into the graveyard by any means (an effect in "
    "the quick step) takes the opposing Pal of that attack with it.",
)
class RetaliateOnAnyGraveyardMove(Rules):
    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        super().put_into_graveyard(g, card)
        attack = g.attack
        if (
            attack is None
            or attack.target == "master"
            or not card.has("retaliate")
            or card.id not in (attack.attacker, attack.target)
        ):
            return
        foe = g.cards[attack.target if card.id == attack.attacker else attack.attacker]
        if foe.zone == "battle":
            super().put_into_graveyard(g, foe)


@mutant(
    "retaliate-guards-defending-side",
    "retaliate.1",
    "Retaliate is read as guarding its side during an attack: a Retaliate Pal of the "
    "defending player put into the graveyard by any means while the attack is under way "
    "takes the attacker with it.",
)
class RetaliateGuardsDefendingSide(Rules):
    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        super().put_into_graveyard(g, card)
        attack = g.attack
        if attack is None or card.owner != attack.defender or not card.has("retaliate"):
            return
        attacker = g.cards[attack.attacker]
        if attacker.zone == "battle":
            super().put_into_graveyard(g, attacker)


@mutant(
    "retaliate-hits-original-target",
    "retaliate.1",
    '"The opposing combat Pal" is read as the Pal the attack was declared on, so a '
    "blocked attacker's Retaliate takes the original target instead of the blocker.",
)
class RetaliateHitsOriginalTarget(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        original: dict[tuple[int, str], str] = self.__dict__.setdefault("original", {})
        original[(g.turn, g.attack.attacker)] = g.attack.target
        return super().move_block(g, a)

    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        target = self.__dict__.get("original", {}).get((g.turn, battle.attacker), "master")
        if target != "master":
            queue = [
                replace(t, foe=target)
                if t.kind == "retaliate" and t.source == battle.attacker
                else t
                for t in queue
            ]
        super().resolve_battle_triggers(g, battle, queue)


@dataclass(frozen=True, slots=True)
class Engaged(Pump):
    """A mark (a pump of 0 on the blocker, so that it lasts until end of turn) that `foe`
    attacked `card` and was blocked by it."""

    foe: str = ""


@mutant(
    "retaliate-engaged-at-block",
    "retaliate.2",
    "A block is read as pairing the blocker and the attacker as combat Pals for the turn, so a "
    "Retaliate Pal of such a pair put into the graveyard later that turn, after the attack "
    "(nullified or not), takes the other.",
)
class RetaliateEngagedAtBlock(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_block(g, a)
        assert g.attack is not None
        g.pumps.append(Engaged(a["blocker"], 0, foe=g.attack.attacker))
        return pending

    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        was_in_battle = card.zone == "battle"
        pairs = [(p.card, p.foe) for p in g.pumps if isinstance(p, Engaged)]
        super().put_into_graveyard(g, card)
        if not was_in_battle or not card.has("retaliate") or g.attack is not None:
            return
        for x, y in pairs:
            foe = y if x == card.id else x if y == card.id else None
            if foe is not None and g.cards[foe].zone == "battle":
                super().put_into_graveyard(g, g.cards[foe])


# ---------------------------------------------------------------- Breakthrough (breakthrough.1–2)


@keyword_mutant(
    "breakthrough-needs-surviving-attacker",
    "breakthrough.1",
    'Breakthrough is read as "the winner\'s excess goes through", so it deals '
    "nothing when the attacker dies in the same battle (against I-1).",
)
class BreakthroughNeedsSurvivor(Breakthrough):
    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        if card.id in battle.dead:
            return []
        return super().after_battle(battle, card, instance)


@keyword_mutant(
    "breakthrough-first-instance-only",
    "breakthrough.1",
    "Breakthrough is treated as not cumulative: two instances deal the strike once (against I-3).",
)
class BreakthroughFirstInstanceOnly(Breakthrough):
    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        if not first_instance(card, instance):
            return []
        return super().after_battle(battle, card, instance)


@keyword_mutant(
    "breakthrough-also-when-defending",
    "breakthrough.2",
    "Breakthrough is read as working in any battle the card wins, so a blocking or "
    "attacked Breakthrough Pal damages the attacking master.",
)
class BreakthroughWhenDefending(Breakthrough):
    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        if card.id == battle.defender_pal and battle.attacker in battle.dead:
            return [
                BattleTrigger(
                    card.id,
                    card.owner,
                    "damage",
                    player=battle.owner[battle.attacker],
                    amount=battle.strike[card.id],
                )
            ]
        return super().after_battle(battle, card, instance)


@mutant(
    "breakthrough-deals-power-difference",
    "breakthrough.2",
    '"Converts an overkill into damage" is read literally: Breakthrough deals the '
    "difference of the two powers instead of the strike.",
)
class BreakthroughPowerDifference(Rules):
    overkill = 0

    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        pa, pt = self.power(g, attacker), self.power(g, target)
        assert pa is not None and pt is not None
        self.overkill = abs(pa - pt)
        return super().battle_losers(g, attacker, target)

    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        queue = [replace(t, amount=self.overkill) if t.kind == "damage" else t for t in queue]
        super().resolve_battle_triggers(g, battle, queue)


@mutant(
    "breakthrough-counts-retaliate-kill",
    "breakthrough.1",
    "Breakthrough counts any way the opposing combat Pal goes to the graveyard during the "
    "attack, its own Retaliate too (against I-7).",
)
class BreakthroughCountsRetaliate(Rules):
    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        defender = g.cards[battle.defender_pal]
        survived_battle = defender.zone == "battle"
        super().resolve_battle_triggers(g, battle, queue)
        if not survived_battle or defender.zone != "graveyard":
            return
        attacker = g.cards[battle.attacker]
        for _ in attacker.card.instances("breakthrough"):
            if g.step == "over":
                break
            self.lose_life(g, battle.owner[defender.id], battle.strike[attacker.id])


@mutant(
    "breakthrough-on-master-attack",
    "breakthrough.1",
    "Breakthrough is read as extra damage whenever the attack gets through, so an attack on "
    "the master deals the strike once more for each Breakthrough.",
)
class BreakthroughOnMasterAttack(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        extra = (
            len(attacker.card.instances("breakthrough"))
            if attack.target == "master" and attacker.zone == "battle"
            else 0
        )
        defender = attack.defender
        super().battle(g)
        for _ in range(extra):
            if g.step == "over":
                break
            self.lose_life(g, defender, attacker.card.strike)


@mutant(
    "breakthrough-counts-target-removed-before-battle",
    "breakthrough.1",
    '"Put into the graveyard when this card is attacking" is read without the battle: a '
    "target Pal destroyed by an effect during the attack also lets Breakthrough deal its "
    "strike (against I-7).",
)
class BreakthroughCountsTargetRemoved(Rules):
    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        if (
            attack.target != "master"
            and attacker.zone == "battle"
            and g.cards[attack.target].zone == "graveyard"
        ):
            for _ in attacker.card.instances("breakthrough"):
                self.lose_life(g, attack.defender, attacker.card.strike)
                if g.step == "over":
                    return
        super().battle(g)
