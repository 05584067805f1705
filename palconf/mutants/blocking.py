"""Mutants of the block step (B-13, B-8) and of Stealth (stealth.1)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from oracle.keywords import Stealth
from oracle.model import CardDef, CardState, GameState
from oracle.rules import Pending, Rules

from . import keyword_mutant, mutant


def _without_keyword(card: CardState, keyword: str) -> CardDef:
    return replace(card.card, keywords=tuple(k for k in card.card.keywords if k.id != keyword))

# ---------------------------------------------------------------- the block step (B-13)


@mutant("blocker-not-rested", "B-13",
        "Blocking is free: the blocker stays standing.")
class BlockerNotRested(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_block(g, a)
        g.cards[a["blocker"]].state = "stand"
        return pending


@mutant("blocker-not-target", "B-13",
        "A block is recorded but the attack still battles the original target (or hits the "
        "master).")
class BlockerNotTarget(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        target = g.attack.target
        pending = super().move_block(g, a)
        g.attack.target = target
        return pending


@mutant("target-may-block", "B-13",
        "Any standing Pal of the defender may block, the attacked Pal itself included.")
class TargetMayBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        if g.attack is not None and blocker_id == g.attack.target:
            g = g.copy()
            assert g.attack is not None
            g.attack.target = "master"
        return super().can_block(g, blocker_id)


@mutant("rested-pal-may-block", "B-13",
        "Resting is read as the effect of blocking, not a condition of it, so a rested Pal "
        "may block.")
class RestedPalMayBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        card = g.cards.get(blocker_id)
        if card is not None and card.state == "rest":
            g = g.copy()
            g.cards[blocker_id].state = "stand"
        return super().can_block(g, blocker_id)


@mutant("assigned-pal-may-block", "B-8",
        "An assigned Pal is still in play, so it is allowed to block.")
class AssignedPalMayBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        card = g.cards.get(blocker_id)
        if card is not None and card.zone == "assigned":
            g = g.copy()
            g.cards[blocker_id].zone = "battle"
        return super().can_block(g, blocker_id)


@mutant("block-step-skipped-when-no-blocker", "B-13",
        "When the defender has no Pal that can block, the block step is skipped and the quick "
        "step begins at once.")
class BlockStepSkipped(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        super().after_attack(g, a)
        assert g.attack is not None
        if not any(self.can_block(g, c.id) for c in g.zone(g.attack.defender, "battle")):
            self.enter_quick_step(g)


# ---------------------------------------------------------------- Stealth (stealth.1)


@keyword_mutant("stealth-ignored", "stealth.1",
                "Stealth is taken for flavour text: its Pal can be blocked.")
class StealthIgnored(Stealth):
    def prevents_block(self) -> bool:
        return False


@mutant("stealth-pal-cannot-block", "stealth.1",
        "\"Cannot be blocked\" is read as \"cannot block\": a Stealth Pal may not block, while "
        "it may be blocked.")
class StealthPalCannotBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        attack = g.attack
        assert attack is not None
        attacker, blocker = g.cards.get(attack.attacker), g.cards.get(blocker_id)
        if blocker is not None and self.has(blocker, "prevents_block"):
            return False
        if attacker is not None and self.has(attacker, "prevents_block"):
            g = g.copy()
            g.cards[attacker.id].card = _without_keyword(attacker, "stealth")
        return super().can_block(g, blocker_id)


@mutant("stealth-on-target-prevents-block", "stealth.1",
        "Stealth is read as protecting its Pal's fights, so an attack on a Stealth Pal cannot "
        "be blocked either.")
class StealthOnTargetPreventsBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        attack = g.attack
        assert attack is not None
        target = g.cards.get(attack.target)
        if target is not None and self.has(target, "prevents_block"):
            return False
        return super().can_block(g, blocker_id)


@mutant("stealth-pal-cannot-be-attacked", "stealth.1",
        "Stealth is read as hiding its Pal, so a Stealth Pal cannot be targeted by an attack "
        "either.")
class StealthPalCannotBeAttacked(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return [cid for cid in super().targetable(g, attacker)
                if not self.has(g.cards[cid], "prevents_block")]
