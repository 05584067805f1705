"""Mutants of attack targets: Taunt (taunt.1–4), Assault (assault.1–2) and declaring an attack
(B-11)."""

from __future__ import annotations

from typing import Any, Mapping

from oracle.keywords import Assault, Taunt
from oracle.model import CardState, GameState, other
from oracle.rules import Pending, Rules

from . import keyword_mutant, mutant


def taunt_count(card: CardState) -> int:
    return len(card.card.instances("taunt"))


# ---------------------------------------------------------------- Taunt (taunt.1–4)


@keyword_mutant("taunt-ignored", "taunt.1",
                "Taunt is taken for flavour text: it restricts no attacker.")
class TauntIgnored(Taunt):
    def is_taunting(self) -> bool:
        return False


@mutant("taunt-allows-master", "taunt.1",
        "Taunt is read as \"attack this Pal before other Pals\", so the opposing master may "
        "still be attacked past a Taunt Pal.")
class TauntAllowsMaster(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        return targets if "master" in targets else ["master"] + targets


@mutant("taunt-binds-only-when-rested", "taunt.1",
        "Only a rested Taunt Pal is taken to force the attack, so a standing Taunt Pal does not "
        "bind an Assault attacker.")
class TauntBindsOnlyWhenRested(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        pals = self.targetable(g, attacker)
        taunting = [cid for cid in pals
                    if g.cards[cid].state == "rest" and self.has(g.cards[cid], "is_taunting")]
        return taunting or ["master"] + pals


@mutant("taunt-first-one-only", "taunt.2",
        "With several Taunt Pals the attacker must attack one particular of them (the first "
        "by card id), not any one.")
class TauntFirstOneOnly(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        return targets if "master" in targets else sorted(targets)[:1]


@mutant("taunt-most-instances-wins", "taunt.3",
        "Taunt instances are counted: among several Taunt Pals the one with the most instances "
        "must be attacked.")
class TauntMostInstancesWins(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        if "master" in targets:
            return targets
        most = max(taunt_count(g.cards[t]) for t in targets)
        return [t for t in targets if taunt_count(g.cards[t]) == most]


@mutant("taunt-double-binds-when-standing", "taunt.3",
        "Two instances of Taunt are read as a stronger Taunt that forces attacks even while "
        "its Pal stands, locking other targets out.")
class DoubleTauntBindsWhenStanding(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        double = [c for c in g.zone(other(attacker.owner), "battle")
                  if taunt_count(c) >= 2 and c.id not in targets]
        if not double:
            return targets
        return [t for t in targets if t != "master" and self.has(g.cards[t], "is_taunting")]


@mutant("taunt-standing-locks-out", "taunt.4",
        "Every Taunt Pal in the battle area forces the attack, even one that cannot be "
        "targeted, so a standing Taunt Pal forbids every other target.")
class TauntStandingLocksOut(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        taunting = [c.id for c in g.zone(other(attacker.owner), "battle")
                    if self.has(c, "is_taunting")]
        if not taunting:
            return super().legal_targets(g, attacker)
        pals = self.targetable(g, attacker)
        return [t for t in taunting if t in pals]


@mutant("taunt-assigned-pal-counts", "taunt.4",
        "A Taunt Pal assigned to a structure is still in play and is taken to force the "
        "attack, though it cannot be targeted.")
class TauntAssignedPalCounts(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        assault = self.has(attacker, "may_target_standing")
        assigned = [c for c in g.zone(other(attacker.owner), "assigned")
                    if self.has(c, "is_taunting") and (c.state == "rest" or assault)]
        if not assigned:
            return targets
        return [t for t in targets if t != "master" and self.has(g.cards[t], "is_taunting")]


# ---------------------------------------------------------------- Assault (assault.1–2)


@keyword_mutant("assault-ignored", "assault.1",
                "Assault is taken for flavour text: its Pal may not target a standing Pal.")
class AssaultIgnored(Assault):
    def may_target_standing(self) -> bool:
        return False


@mutant("standing-pals-targetable", "assault.2",
        "The rule that a standing Pal cannot be attacked is missed, so every attacker may "
        "target standing Pals, as if it had Assault.")
class StandingPalsTargetable(Rules):
    def has(self, card: CardState, hook: str) -> bool:
        return hook == "may_target_standing" or super().has(card, hook)


@mutant("assault-ignores-taunt", "taunt.1",
        "Assault is read as a free choice of target, so an Assault attacker is not bound by "
        "Taunt.")
class AssaultIgnoresTaunt(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        if self.has(attacker, "may_target_standing"):
            return ["master"] + self.targetable(g, attacker)
        return super().legal_targets(g, attacker)


# ---------------------------------------------------------------- declaring an attack (B-11)


@mutant("rested-attacker-may-attack", "B-11",
        "Resting is read as an effect of attacking, not a condition of it, so a rested Pal may "
        "attack again.")
class RestedAttackerMayAttack(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        attacker = g.cards.get(a["attacker"])
        if attacker is not None and attacker.state == "rest":
            g = g.copy()
            g.cards[attacker.id].state = "stand"
        super().check_attack(g, a)


@mutant("attack-does-not-rest", "B-11",
        "Declaring an attack leaves the attacker standing.")
class AttackDoesNotRest(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        g.cards[a["attacker"]].state = "stand"
        return pending
