"""Mutants of attack targets: Taunt (taunt.1–4; and choices, which it does not bind), Assault
(assault.1–2) and declaring an attack (B-11), assigned Pals as targets (B-8)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.oracle.keywords import Assault, Taunt
from palconf.oracle.model import CardState, GameState, KeywordInstance, other
from palconf.oracle.rules import Pending, Refusal, Rules


def taunt_count(card: CardState) -> int:
    return len(card.card.instances("taunt"))


def with_assault(attacker: CardState) -> CardState:
    """A copy of `attacker` that has Assault too."""
    return replace(
        attacker,
        card=replace(
            attacker.card,
            keywords=attacker.card.keywords + (KeywordInstance("assault", None, "Assault"),),
        ),
    )


# ---------------------------------------------------------------- Taunt (taunt.1–4)
#
# `Taunt.restrict_targets` gets "master" + the Pals the attacker may target (B-11, Assault)
# and returns the legal targets; it is asked whenever a card in play has Taunt.


@keyword_mutant(
    "taunt-ignored", "taunt.1", "Taunt is taken for flavour text: it restricts no attacker."
)
class TauntIgnored(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        return targets


@keyword_mutant(
    "taunt-allows-master",
    "taunt.1",
    'Taunt is read as "attack this Pal before other Pals", so the opposing master '
    "may still be attacked past a Taunt Pal.",
)
class TauntAllowsMaster(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        return narrowed if "master" in narrowed else ["master"] + narrowed


@keyword_mutant(
    "taunt-binds-only-when-rested",
    "taunt.1",
    "Only a rested Taunt Pal is taken to force the attack, so a standing Taunt Pal "
    "does not bind an Assault attacker.",
)
class TauntBindsOnlyWhenRested(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        taunting = [
            t
            for t in targets
            if t != "master" and game.cards[t].state == "rest" and game.cards[t].has(self.id)
        ]
        return taunting or targets


@keyword_mutant(
    "taunt-first-one-only",
    "taunt.2",
    "With several Taunt Pals the attacker must attack one particular of them (the "
    "first by card id), not any one.",
)
class TauntFirstOneOnly(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        return narrowed if "master" in narrowed else sorted(narrowed)[:1]


@keyword_mutant(
    "taunt-most-instances-wins",
    "taunt.3",
    "Taunt instances are counted: among several Taunt Pals the one with the most "
    "instances must be attacked.",
)
class TauntMostInstancesWins(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        if "master" in narrowed:
            return narrowed
        most = max(taunt_count(game.cards[t]) for t in narrowed)
        return [t for t in narrowed if taunt_count(game.cards[t]) == most]


@keyword_mutant(
    "taunt-double-binds-when-standing",
    "taunt.3",
    "Two instances of Taunt are read as a stronger Taunt that forces attacks even "
    "while its Pal stands, locking other targets out.",
)
class DoubleTauntBindsWhenStanding(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        double = [
            c
            for c in game.zone(other(attacker.owner), "battle")
            if taunt_count(c) >= 2 and c.id not in narrowed
        ]
        if not double:
            return narrowed
        return [t for t in narrowed if t != "master" and game.cards[t].has(self.id)]


@keyword_mutant(
    "taunt-standing-locks-out",
    "taunt.4",
    "Every Taunt Pal in the battle area forces the attack, even one that cannot be "
    "targeted, so a standing Taunt Pal forbids every other target.",
)
class TauntStandingLocksOut(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        taunting = [c.id for c in game.zone(other(attacker.owner), "battle") if c.has(self.id)]
        if not taunting:
            return super().restrict_targets(game, attacker, targets)
        return [t for t in taunting if t in targets]


@keyword_mutant(
    "taunt-assigned-pal-counts",
    "taunt.4",
    "A Taunt Pal assigned to a structure is still in play and is taken to force the "
    "attack, though it cannot be targeted.",
)
class TauntAssignedPalCounts(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        assault = attacker.has("assault")
        assigned = [
            c
            for c in game.zone(other(attacker.owner), "assigned")
            if c.has(self.id) and (c.state == "rest" or assault)
        ]
        if not assigned:
            return narrowed
        return [t for t in narrowed if t != "master" and game.cards[t].has(self.id)]


@keyword_mutant(
    "taunt-only-protects-master",
    "taunt.1",
    'Taunt is read as "the master cannot be attacked while this card can be", so '
    "past a Taunt Pal any other legal Pal target may still be chosen.",
)
class TauntOnlyProtectsMaster(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        if "master" in narrowed:
            return narrowed
        return narrowed + [t for t in targets if t != "master" and t not in narrowed]


@keyword_mutant(
    "taunt-binds-own-attackers",
    "taunt.1",
    '"Must target this card" is read as binding every attacker, its own '
    "controller's too, so a player's own rested Taunt Pal leaves their attackers no "
    "legal target.",
)
class TauntBindsOwnAttackers(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        narrowed = super().restrict_targets(game, attacker, targets)
        assault = attacker.has("assault")
        own = [
            c
            for c in game.zone(attacker.owner, "battle")
            if c.id != attacker.id and c.has(self.id) and (c.state == "rest" or assault)
        ]
        return [] if own and "master" in narrowed else narrowed


@mutant(
    "taunt-binds-effect-choices",
    "taunt.1",
    '"The opponent must target this card" is read as binding every choice too, so an '
    "effect that chooses a Pal of the Taunt Pal's controller must choose a Taunt Pal.",
)
class TauntBindsEffectChoices(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        for p in pending:
            chosen = g.cards[p.choice] if p.choice is not None else None
            if chosen is None or chosen.owner == p.controller or chosen.has("taunt"):
                continue
            if any(c.has("taunt") for c in g.zone(chosen.owner, "battle")):
                raise Refusal("illegal-target", f"a Taunt Pal of {chosen.owner} must be chosen")


# ---------------------------------------------------------------- Assault (assault.1–2)
#
# `Assault.widen_targets` gets the Pals the attacker may target so far (B-11: the rested
# opposing Pals in battle) and returns them widened; asked whenever a card in play has Assault.


@keyword_mutant(
    "assault-ignored",
    "assault.1",
    "Assault is taken for flavour text: its Pal may not target a standing Pal.",
)
class AssaultIgnored(Assault):
    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        return targets


@mutant(
    "standing-pals-targetable",
    "assault.2",
    "The rule that a standing Pal cannot be attacked is missed, so every attacker may "
    "target standing Pals, as if it had Assault.",
)
class StandingPalsTargetable(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return [c.id for c in g.zone(other(attacker.owner), "battle")]


@keyword_mutant(
    "assault-ignores-taunt",
    "taunt.1",
    "Assault is read as a free choice of target, so an Assault attacker is not bound by Taunt.",
)
class AssaultIgnoresTaunt(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        if attacker.has("assault"):
            return targets
        return super().restrict_targets(game, attacker, targets)


@keyword_mutant(
    "assault-aura",
    "assault.1",
    "Assault is read as a continuous ability for its side, so every Pal of a player "
    "with an Assault Pal in the battle area may target standing Pals.",
)
class AssaultAura(Assault):
    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        if any(c.has(self.id) for c in game.zone(attacker.owner, "battle")):
            attacker = with_assault(attacker)
        return super().widen_targets(game, attacker, targets)


@keyword_mutant(
    "assault-read-on-target",
    "assault.1",
    '"Can choose a Pal in the stand state" is read as "can be chosen in the stand '
    'state", so a standing Pal with Assault may be targeted by any attacker.',
)
class AssaultReadOnTarget(Assault):
    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        pals = super().widen_targets(game, attacker, targets)
        return pals + [
            c.id
            for c in game.zone(other(attacker.owner), "battle")
            if c.id not in pals and c.has(self.id)
        ]


@mutant(
    "assault-targets-assigned-pals",
    "assault.1",
    '"Can choose a Pal in the stand state" is read as any standing Pal in play, so an '
    "Assault attacker may target an opposing Pal on a structure.",
)
class AssaultTargetsAssignedPals(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        pals = super().targetable(g, attacker)
        if not attacker.has("assault"):
            return pals
        return pals + [c.id for c in g.zone(other(attacker.owner), "assigned")]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        # Taunt among the Pals in battle only; the Pals on structures come on top
        targets = self.restricted(g, attacker, ["master"] + super().targetable(g, attacker))
        if "master" not in targets:
            return targets
        return targets + [cid for cid in self.targetable(g, attacker) if cid not in targets]


@mutant(
    "assault-attacks-while-rested",
    "assault.1",
    "Assault's \"stand state\" is read as the attacker's own: an Assault Pal may attack "
    "while it is rested.",
)
class AssaultAttacksWhileRested(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        attacker = g.cards.get(a["attacker"])
        if attacker is not None and attacker.state == "rest" and attacker.has("assault"):
            g = g.copy()
            g.cards[attacker.id].state = "stand"
        return super().check_attack(g, a)


# ---------------------------------------------------------------- declaring an attack (B-11)


@mutant(
    "rested-attacker-may-attack",
    "B-11",
    "Resting is read as an effect of attacking, not a condition of it, so a rested Pal may "
    "attack again.",
)
class RestedAttackerMayAttack(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        attacker = g.cards.get(a["attacker"])
        if attacker is not None and attacker.state == "rest":
            g = g.copy()
            g.cards[attacker.id].state = "stand"
        return super().check_attack(g, a)


@mutant("attack-does-not-rest", "B-11", "Declaring an attack leaves the attacker standing.")
class AttackDoesNotRest(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        g.cards[a["attacker"]].state = "stand"
        return pending


@mutant(
    "attack-rests-target",
    "B-11",
    "Declaring an attack rests its target as well as the attacker (seen only on a standing "
    "target, that is with Assault).",
)
class AttackRestsTarget(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        if a["target"] != "master":
            g.cards[a["target"]].state = "rest"
        return pending


@mutant(
    "own-rested-pal-targetable",
    "B-11",
    "The target's side is not checked: a rested Pal of the attacking player's own may be "
    "chosen as the target.",
)
class OwnRestedPalTargetable(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return super().targetable(g, attacker) + [
            c.id for c in g.zone(attacker.owner, "battle") if c.state == "rest"
        ]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        # Taunt among the opposing Pals only; the own rested Pals come on top
        targets = self.restricted(g, attacker, ["master"] + super().targetable(g, attacker))
        if "master" not in targets:
            return targets
        return targets + [c.id for c in g.zone(attacker.owner, "battle") if c.state == "rest"]


@mutant(
    "assigned-pal-targetable",
    "B-8",
    "An assigned Pal is still in play, so a rested opposing Pal on a structure may be "
    "chosen as an attack target.",
)
class AssignedPalTargetable(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return super().targetable(g, attacker) + [
            c.id for c in g.zone(other(attacker.owner), "assigned") if c.state == "rest"
        ]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        # Taunt among the Pals in battle only; the Pals on structures come on top
        targets = self.restricted(g, attacker, ["master"] + super().targetable(g, attacker))
        if "master" not in targets:
            return targets
        return targets + [
            c.id for c in g.zone(other(attacker.owner), "assigned") if c.state == "rest"
        ]


@keyword_mutant(
    "stealth-attacker-ignores-taunt",
    "taunt.1",
    "Stealth is read as letting its Pal slip past the defenders, so a Stealth attacker is not "
    "bound by Taunt and may target the master or any other legal Pal.",
)
class StealthAttackerIgnoresTaunt(Taunt):
    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        if attacker.has("stealth"):
            return targets
        return super().restrict_targets(game, attacker, targets)
