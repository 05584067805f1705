"""Mutants of the block step (B-13, B-8; Assault and the block, I-4) and of Stealth (stealth.1)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.oracle.keywords import Battle, BattleTrigger, Stealth
from palconf.oracle.model import Attack, CardState, GameState
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- the block step (B-13)


@mutant("blocker-not-rested", "B-13", "Blocking is free: the blocker stays standing.")
class BlockerNotRested(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_block(g, a)
        g.cards[a["blocker"]].state = "stand"
        return pending


@mutant(
    "blocker-not-target",
    "B-13",
    "A block is recorded but the attack still battles the original target (or hits the master).",
)
class BlockerNotTarget(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        target = g.attack.target
        pending = super().move_block(g, a)
        g.attack.target = target
        return pending


@mutant(
    "target-may-block",
    "B-13",
    "Any standing Pal of the defender may block, the attacked Pal itself included.",
)
class TargetMayBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        if g.attack is not None and blocker_id == g.attack.target:
            g = g.copy()
            assert g.attack is not None
            g.attack.target = "master"
        return super().can_block(g, blocker_id)


@mutant(
    "rested-pal-may-block",
    "B-13",
    "Resting is read as the effect of blocking, not a condition of it, so a rested Pal may block.",
)
class RestedPalMayBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        card = g.cards.get(blocker_id)
        if card is not None and card.state == "rest":
            g = g.copy()
            g.cards[blocker_id].state = "stand"
        return super().can_block(g, blocker_id)


@mutant(
    "assigned-pal-may-block", "B-8", "An assigned Pal is still in play, so it is allowed to block."
)
class AssignedPalMayBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        card = g.cards.get(blocker_id)
        if card is not None and card.zone == "assigned":
            g = g.copy()
            g.cards[blocker_id].zone = "battle"
        return super().can_block(g, blocker_id)


@mutant(
    "block-step-skipped-when-no-blocker",
    "B-13",
    "When the defender has no Pal that can block, the block step is skipped and the quick "
    "step begins at once.",
)
class BlockStepSkipped(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        super().after_attack(g, a)
        assert g.attack is not None
        if not any(self.can_block(g, c.id) for c in g.zone(g.attack.defender, "battle")):
            self.enter_quick_step(g)


@mutant(
    "blocked-master-attack-still-hits-master",
    "B-13",
    "A block is read as adding a battle, not as changing the target: a blocked attack on "
    "the master battles the blocker and still takes the master's life.",
)
class BlockedMasterAttackStillHitsMaster(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        if g.attack.target == "master":
            marked: set[tuple[int, str]] = self.__dict__.setdefault("blocked_master", set())
            marked.add((g.turn, g.attack.attacker))
        return super().move_block(g, a)

    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        marked: set[tuple[int, str]] = self.__dict__.get("blocked_master", set())
        key = (g.turn, attack.attacker)
        attacker = g.cards[attack.attacker]
        if key in marked:
            marked.discard(key)
            if attacker.zone == "battle":
                self.lose_life(g, attack.defender, attacker.card.strike)
                if g.step == "over":
                    return
        super().battle(g)


@mutant(
    "block-in-quick-step",
    "B-13",
    "A block may still be declared in the quick step, as long as the attack is not blocked yet.",
)
class BlockInQuickStep(Rules):
    def check_block(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if (
            g.step == "quick"
            and g.attack is not None
            and not g.attack.blocked
            and a["player"] == g.attack.defender
        ):
            g = g.copy()
            g.step = "block"
            g.priority = a["player"]
        return super().check_block(g, a)


@mutant(
    "assault-attack-ignores-block",
    "assault.1",
    'Assault is read as "this card chooses what it fights", so a block is recorded but '
    "the Assault attacker still battles its chosen target (against I-4).",
)
class AssaultAttackIgnoresBlock(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        target = g.attack.target
        pending = super().move_block(g, a)
        if g.cards[g.attack.attacker].has("assault"):
            g.attack.target = target
        return pending


@mutant(
    "stealth-skips-block-step",
    "B-13",
    "When the attacker has Stealth there is nothing to decide in the block step, so it is "
    'skipped and the quick step begins at once (against "the block step always '
    'happens").',
)
class StealthSkipsBlockStep(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        super().after_attack(g, a)
        assert g.attack is not None
        if g.cards[g.attack.attacker].has("stealth"):
            self.enter_quick_step(g)


@mutant(
    "blockers-fixed-at-declaration",
    "B-13",
    "The Pals that may block are those standing when the attack is declared, so a Pal that "
    "the attacker's On Attack abilities stand may not block.",
)
class BlockersFixedAtDeclaration(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        # LEGAL's trial attacks set it too, but only before the real attack, never during it
        self.__dict__["standing"] = {c.id for c in g.battle_pals() if c.state == "stand"}
        return super().move_attack(g, a)

    def can_block(self, g: GameState, blocker_id: str) -> bool:
        standing: set[str] | None = self.__dict__.get("standing")
        return (standing is None or blocker_id in standing) and super().can_block(g, blocker_id)


@mutant(
    "block-refused-when-attacker-gone",
    "B-13",
    "Once the attacker has left the battle area (by its own On Attack ability) there is "
    "nothing to block, so a block is refused and the defender may only pass.",
)
class BlockRefusedWhenAttackerGone(Rules):
    def check_block(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_block(g, a)
        if g.attack is not None and g.cards[g.attack.attacker].zone != "battle":
            yield Refusal("cannot-block", f"{g.attack.attacker!r} has left the battle area")


class BlockOfGoneTarget(Attack):
    """An attack blocked after its declared target Pal had left the battle area: a plain
    subclass, whose copies (`Attack.copy`, for each copy of the state) keep the mark."""

    __slots__ = ()

    def copy(self) -> BlockOfGoneTarget:
        return BlockOfGoneTarget(
            self.attacker, self.target, self.defender, self.blocked, self.passes
        )


@mutant(
    "block-after-target-gone-no-battle",
    "B-13",
    "When the declared target Pal has left the battle area before the block, a block only "
    "rests the blocker (which still becomes the target) and no battle follows.",
)
class BlockAfterTargetGoneNoBattle(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        attack = g.attack
        assert attack is not None
        gone = attack.target != "master" and g.cards[attack.target].zone != "battle"
        pending = super().move_block(g, a)
        if gone:
            g.attack = BlockOfGoneTarget(
                attack.attacker, attack.target, attack.defender, attack.blocked, attack.passes
            )
        return pending

    def battle(self, g: GameState) -> None:
        if isinstance(g.attack, BlockOfGoneTarget):
            return self.end_attack(g)
        super().battle(g)


@mutant(
    "taunt-only-taunt-pals-block",
    "taunt.1",
    "Taunt is read as making its Pal the defender's blocker: while a Taunt Pal of the "
    "defender can block, no other Pal may.",
)
class TauntOnlyTauntPalsBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        can = super().can_block
        if not can(g, blocker_id):
            return False
        taunting = [c.id for c in g.battle_pals() if c.has("taunt") and can(g, c.id)]
        return not taunting or blocker_id in taunting


# ---------------------------------------------------------------- Stealth (stealth.1)
#
# `Stealth.forbids_block` is asked, whenever a card in play has Stealth, whether the blocker
# (None for an unknown id) may not block the attacker's attack.


@keyword_mutant(
    "stealth-ignored", "stealth.1", "Stealth is taken for flavour text: its Pal can be blocked."
)
class StealthIgnored(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return False


@keyword_mutant(
    "stealth-pal-cannot-block",
    "stealth.1",
    '"Cannot be blocked" is read as "cannot block": a Stealth Pal may not '
    "block, while it may be blocked.",
)
class StealthPalCannotBlock(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return blocker is not None and blocker.has(self.id)


@keyword_mutant(
    "stealth-on-target-prevents-block",
    "stealth.1",
    "Stealth is read as protecting its Pal's fights, so an attack on a Stealth Pal "
    "cannot be blocked either.",
)
class StealthOnTargetPreventsBlock(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        assert game.attack is not None
        target = game.cards.get(game.attack.target)
        return (target is not None and target.has(self.id)) or super().forbids_block(
            game, attacker, blocker
        )


@mutant(
    "stealth-pal-cannot-be-attacked",
    "stealth.1",
    "Stealth is read as hiding its Pal, so a Stealth Pal cannot be targeted by an attack either.",
)
class StealthPalCannotBeAttacked(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        return [cid for cid in super().targetable(g, attacker) if not g.cards[cid].has("stealth")]

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        # only the choice is refused (illegal-target): Taunt still counts a Stealth Pal
        return self.restricted(g, attacker, ["master"] + super().targetable(g, attacker))


@keyword_mutant(
    "stealth-pal-cannot-block-either",
    "stealth.1",
    "Stealth is read as both hiding and keeping out of fights: a Stealth Pal cannot "
    "be blocked and cannot block.",
)
class StealthPalCannotBlockEither(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return (blocker is not None and blocker.has(self.id)) or super().forbids_block(
            game, attacker, blocker
        )


@keyword_mutant(
    "stealth-aura",
    "stealth.1",
    "Stealth is read as a continuous ability for its side, so no attack by a player "
    "with a Stealth Pal in the battle area can be blocked.",
)
class StealthAura(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return super().forbids_block(game, attacker, blocker) or any(
            c.has(self.id) for c in game.zone(attacker.owner, "battle")
        )


@keyword_mutant(
    "stealth-blockable-by-stealth",
    "stealth.1",
    "Stealth is read like the Shadow of other games: a Stealth attacker cannot be "
    "blocked except by a Stealth Pal.",
)
class StealthBlockableByStealth(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return super().forbids_block(game, attacker, blocker) and not (
            blocker is not None and blocker.has(self.id)
        )


@mutant(
    "stealth-dodges-retaliate",
    "retaliate.1",
    "Stealth is read as hiding its Pal from the opponent's abilities, so Retaliate does not "
    "take a Stealth Pal.",
)
class StealthDodgesRetaliate(Rules):
    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        queue[:] = [
            t for t in queue if not (t.kind == "retaliate" and g.cards[t.foe].has("stealth"))
        ]
        super().resolve_battle_triggers(g, battle, queue)
