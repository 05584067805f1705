"""Mutants of attack targets: Taunt (taunt.1–4), Assault (assault.1–2) and declaring an attack
(B-11), assigned Pals as targets (B-8)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from oracle.keywords import Assault, Taunt
from oracle.model import CardState, GameState, KeywordInstance, other
from oracle.rules import Pending, Rules

from . import keyword_mutant, mutant


def taunt_count(card: CardState) -> int:
    return len(card.card.instances("taunt"))


def choose_among(rules: Rules, g: GameState, pals: list[str]) -> list[str]:
    """The oracle's Taunt rule over a (mutated) list of targetable Pals: the Taunt Pals among
    them, or else the master and all of them."""
    taunting = [cid for cid in pals if rules.has(g.cards[cid], "is_taunting")]
    return taunting or ["master"] + pals


def with_assault(attacker: CardState) -> CardState:
    """A copy of `attacker` that has Assault too."""
    return replace(attacker, card=replace(attacker.card, keywords=attacker.card.keywords
                                          + (KeywordInstance("assault", None, "Assault"),)))


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


@mutant("taunt-only-protects-master", "taunt.1",
        "Taunt is read as \"the master cannot be attacked while this card can be\", so past "
        "a Taunt Pal any other legal Pal target may still be chosen.")
class TauntOnlyProtectsMaster(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        if "master" in targets:
            return targets
        return targets + [cid for cid in self.targetable(g, attacker) if cid not in targets]


@mutant("taunt-binds-own-attackers", "taunt.1",
        "\"Must target this card\" is read as binding every attacker, its own controller's too, "
        "so a player's own rested Taunt Pal leaves their attackers no legal target.")
class TauntBindsOwnAttackers(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        assault = self.has(attacker, "may_target_standing")
        own = [c for c in g.zone(attacker.owner, "battle") if c.id != attacker.id
               and self.has(c, "is_taunting") and (c.state == "rest" or assault)]
        return [] if own and "master" in targets else targets


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


@mutant("assault-aura", "assault.1",
        "Assault is read as a continuous ability for its side, so every Pal of a player with an "
        "Assault Pal in the battle area may target standing Pals.")
class AssaultAura(Rules):
    def _attacker(self, g: GameState, attacker: CardState) -> CardState:
        aura = any(self.has(c, "may_target_standing") for c in g.zone(attacker.owner, "battle"))
        return with_assault(attacker) if aura else attacker

    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return super().targetable(g, self._attacker(g, attacker))

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        return super().legal_targets(g, self._attacker(g, attacker))


@mutant("assault-read-on-target", "assault.1",
        "\"Can choose a Pal in the stand state\" is read as \"can be chosen in the stand "
        "state\", so a standing Pal with Assault may be targeted by any attacker.")
class AssaultReadOnTarget(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        pals = super().targetable(g, attacker)
        return pals + [c.id for c in g.zone(other(attacker.owner), "battle")
                       if c.id not in pals and self.has(c, "may_target_standing")]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        return choose_among(self, g, self.targetable(g, attacker))


@mutant("assault-targets-assigned-pals", "assault.1",
        "\"Can choose a Pal in the stand state\" is read as any standing Pal in play, so an "
        "Assault attacker may target an opposing Pal on a structure.")
class AssaultTargetsAssignedPals(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        pals = super().targetable(g, attacker)
        if not self.has(attacker, "may_target_standing"):
            return pals
        return pals + [c.id for c in g.zone(other(attacker.owner), "assigned")]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        if "master" not in targets:
            return targets
        return targets + [cid for cid in self.targetable(g, attacker) if cid not in targets]


@mutant("assault-attacks-while-rested", "assault.1",
        "Assault's \"stand state\" is read as the attacker's own: an Assault Pal may attack "
        "while it is rested.")
class AssaultAttacksWhileRested(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        attacker = g.cards.get(a["attacker"])
        if attacker is not None and attacker.state == "rest" \
                and self.has(attacker, "may_target_standing"):
            g = g.copy()
            g.cards[attacker.id].state = "stand"
        super().check_attack(g, a)


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


@mutant("attack-rests-target", "B-11",
        "Declaring an attack rests its target as well as the attacker (seen only on a standing "
        "target, that is with Assault).")
class AttackRestsTarget(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        if a["target"] != "master":
            g.cards[a["target"]].state = "rest"
        return pending


@mutant("own-rested-pal-targetable", "B-11",
        "The target's side is not checked: a rested Pal of the attacking player's own may be "
        "chosen as the target.")
class OwnRestedPalTargetable(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return super().targetable(g, attacker) + [
            c.id for c in g.zone(attacker.owner, "battle") if c.state == "rest"]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        if "master" not in targets:
            return targets
        return targets + [c.id for c in g.zone(attacker.owner, "battle") if c.state == "rest"]


@mutant("assigned-pal-targetable", "B-8",
        "An assigned Pal is still in play, so a rested opposing Pal on a structure may be "
        "chosen as an attack target.")
class AssignedPalTargetable(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return super().targetable(g, attacker) + [
            c.id for c in g.zone(other(attacker.owner), "assigned") if c.state == "rest"]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        if "master" not in targets:
            return targets
        return targets + [c.id for c in g.zone(other(attacker.owner), "assigned")
                          if c.state == "rest"]
