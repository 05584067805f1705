"""Mutants of Interrupt (interrupt.1–4, I-5, I-6)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.oracle.keywords import Interrupt
from palconf.oracle.model import Attack, CardState, GameState
from palconf.oracle.rules import Pending, Refusal, Rules


@mutant(
    "interrupt-pays-printed-cost",
    "interrupt.2",
    "The first way's ① is read as \"pay the card's cost\", so the Interrupt card's printed "
    "cost is paid instead of exactly 1 energy.",
)
class InterruptPaysPrintedCost(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_interrupt(g, a)
        if a["pay"] == "energy":
            g.energy[a["player"]] += 1 - g.cards[a["card"]].card.cost
        return pending


@mutant(
    "interrupt-discard-way-costs-energy",
    "interrupt.3",
    "The ① is read as applying to both ways, so the second way (discarding another card) "
    "also costs 1 energy.",
)
class DiscardWayCostsEnergy(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_interrupt(g, a)
        if a["pay"] == "discard":
            g.energy[a["player"]] -= 1
        return pending


@mutant(
    "interrupt-discard-may-name-itself",
    "interrupt.3",
    '"Discard this card and 1 other card" is read loosely: naming the Interrupt card '
    "itself as the other card is accepted.",
)
class DiscardMayNameItself(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if a["pay"] == "discard" and a.get("discard") == a["card"]:
            a = {**a, "pay": "energy"}
            g = g.copy()
            g.energy[a["player"]] = max(g.energy[a["player"]], 1)
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-event-effect-resolves",
    "interrupt.4",
    "An event card with Interrupt is played as an event: the attack is nullified and the "
    "event's own effect resolves too.",
)
class InterruptEventEffectResolves(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_interrupt(g, a)
        card = g.cards[a["card"]]
        if card.card.effect is not None:
            pending.append(
                Pending(card.id, card.owner, card.card.effect, source_is_card_in_play=False)
            )
        return pending


@mutant(
    "interrupt-undoes-on-attack-pumps",
    "interrupt.4",
    "Nullifying is read as undoing the attack, so the attacker loses the power its On "
    "Attack abilities (Brave) gave it (against I-6).",
)
class InterruptUndoesPumps(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        attacker = g.attack.attacker
        g.pumps = [p for p in g.pumps if p.card != attacker]
        return super().move_interrupt(g, a)


@mutant(
    "interrupt-stands-attacker",
    "interrupt.4",
    "Nullifying is read as undoing the attack, so the attacker stands again (against I-6).",
)
class InterruptStandsAttacker(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        attacker = g.cards[g.attack.attacker]
        pending = super().move_interrupt(g, a)
        if attacker.zone == "battle":
            attacker.state = "stand"
        return pending


@mutant(
    "interrupt-rests-stood-attacker",
    "interrupt.4",
    "A nullified attack is read as ending like any attack, with its attacker rested, so an "
    "attacker that its own On Attack abilities stood is rested again (against I-6).",
)
class InterruptRestsStoodAttacker(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        attacker = g.cards[g.attack.attacker]
        pending = super().move_interrupt(g, a)
        if attacker.zone == "battle":
            attacker.state = "rest"
        return pending


@mutant(
    "interrupt-on-own-attack",
    "interrupt.1",
    "Interrupt is treated as any Quick ability, so the attacking player may use it to "
    "nullify their own attack.",
)
class InterruptOnOwnAttack(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step == "quick" and g.attack is not None and a["player"] == g.priority:
            g = g.copy()
            assert g.attack is not None
            g.attack.defender = a["player"]
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-in-block-step",
    "interrupt.1",
    "Interrupt may be used as soon as the attack is declared, in the block step too.",
)
class InterruptInBlockStep(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step == "block":
            g = g.copy()
            g.step = "quick"
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-in-main-phase",
    "interrupt.1",
    "Interrupt is Quick, and Quick cards may also be used in the main phase (I-5 read "
    "without its exception), so it may be used there with nothing to nullify.",
)
class InterruptInMainPhase(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step == "main" and a["player"] == g.active:
            g = g.copy()
            g.step = "quick"
            g.priority = a["player"]
            g.attack = Attack(attacker="", target="master", defender=a["player"])
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-energy-way-free",
    "interrupt.2",
    'The ① in "[①, discard this card]" is read as a label numbering the first way, not '
    "as a cost, so the first way costs no energy.",
)
class InterruptEnergyWayFree(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if a["pay"] == "energy":
            g = g.copy()
            g.energy[a["player"]] = max(g.energy[a["player"]], 1)
        return super().check_interrupt(g, a)

    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_interrupt(g, a)
        if a["pay"] == "energy":
            g.energy[a["player"]] += 1
        return pending


@mutant(
    "interrupt-discard-way-keeps-other-card",
    "interrupt.3",
    'The second way\'s "1 other card" is checked but not discarded: only the Interrupt '
    "card goes to the graveyard.",
)
class DiscardWayKeepsOtherCard(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        if a["pay"] != "discard":
            return super().move_interrupt(g, a)
        other_card = g.cards[a["discard"]]
        zone = other_card.zone
        pending = super().move_interrupt(g, a)
        other_card.zone = zone
        return pending


@mutant(
    "interrupt-discard-from-anywhere",
    "interrupt.3",
    'The second way\'s "1 other card" is read as any other card of yours, not only one in '
    "hand, so a card in play or in the graveyard may be named for it.",
)
class DiscardFromAnywhere(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        other_card = g.cards.get(a.get("discard", "")) if a["pay"] == "discard" else None
        if other_card is not None and other_card.owner == a["player"] and other_card.zone != "hand":
            g = g.copy()
            g.cards[other_card.id].zone = "hand"
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-stands-blocker",
    "interrupt.4",
    "Nullifying is read as undoing the attack, so a Pal that blocked it stands again "
    "(against B-14 and I-6).",
)
class InterruptStandsBlocker(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        blocker = g.cards[g.attack.target] if g.attack.blocked else None
        pending = super().move_interrupt(g, a)
        if blocker is not None and blocker.zone == "battle":
            blocker.state = "stand"
        return pending


@mutant(
    "interrupt-without-priority",
    "interrupt.1",
    "Interrupt is read as usable at any moment of the quick step, so the defending player "
    "may use it while the attacking player is to act.",
)
class InterruptWithoutPriority(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step == "quick" and a["player"] != g.priority:
            g = g.copy()
            g.priority = a["player"]
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-any-card",
    "interrupt.1",
    "The card used with `interrupt` is not checked for the keyword: any card in hand "
    "nullifies the attack when discarded that way.",
)
class InterruptAnyCard(Rules):
    def is_interrupt(self, card: CardState) -> bool:
        return True


@mutant(
    "interrupt-from-play",
    "interrupt.1",
    "Interrupt is treated as any activated ability, usable from play as well, so an "
    "Interrupt Pal in the battle area may be discarded from there to nullify.",
)
class InterruptFromPlay(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if card is not None and card.owner == a["player"] and card.in_play:
            g = g.copy()
            g.cards[card.id].zone = "hand"
        return super().check_interrupt(g, a)


@mutant(
    "interrupt-nullify-waits-for-passes",
    "interrupt.4",
    "A nullified attack is only marked as such: the quick step goes on until both players "
    "pass, and then no battle happens (against B-14: it ends at once).",
)
class NullifyWaitsForPasses(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        card = g.cards[a["card"]]
        if a["pay"] == "energy":
            g.energy[card.owner] -= 1
        else:
            g.cards[a["discard"]].zone = "graveyard"
        card.zone = "graveyard"
        nullified: set[tuple[int, str]] = self.__dict__.setdefault("nullified", set())
        nullified.add((g.turn, g.attack.attacker))
        self.after_quick_action(g)
        return []

    def battle(self, g: GameState) -> None:
        assert g.attack is not None
        nullified: set[tuple[int, str]] = self.__dict__.get("nullified", set())
        if (g.turn, g.attack.attacker) in nullified:
            nullified.discard((g.turn, g.attack.attacker))
            return self.end_attack(g)
        super().battle(g)


# ---------------------------------------------------------------- Interrupt on its carriers (I-10)


@keyword_mutant(
    "interrupt-two-instances-not-interrupt",
    "interrupt.1",
    "Interrupt is checked as exactly one instance, so a card written with Interrupt twice "
    "cannot be used with `interrupt` (against I-3).",
)
class InterruptExactlyOnce(Interrupt):
    def makes_interrupt(self, card: CardState) -> bool:
        return len(card.card.instances(self.id)) == 1


@mutant(
    "interrupt-event-not-for-attacker",
    "quick.2",
    "A card with Interrupt is read as a defender's card, so the attacking player may not play "
    "a Quick event that also has Interrupt in the quick step (against I-10).",
)
class InterruptEventNotForAttacker(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if (
            g.step == "quick"
            and g.attack is not None
            and a["player"] == g.priority != g.attack.defender
            and card is not None
            and card.zone == "hand"
            and card.owner == a["player"]
            and card.has("interrupt")
        ):
            yield Refusal("wrong-player", "Interrupt cards nullify the opponent's attack")
            return
        yield from super().check_play(g, a)


# ---------------------------------------------------------------- nullifying read as undoing (I-6)


@dataclass(slots=True)
class SnapshotAttack(Attack):
    """An attack that keeps the game as it was at one moment of it (copies share it)."""

    before: GameState | None = None

    def copy(self) -> SnapshotAttack:
        """`Attack.copy` makes a plain `Attack`: a copy of the state keeps this one's kind
        and its (shared) snapshot."""
        return replace(self)


def snapshot(g: GameState) -> None:
    """Keep a copy of `g` in its attack, for an undoing nullify."""
    assert g.attack is not None
    g.attack = SnapshotAttack(**{f.name: getattr(g.attack, f.name) for f in fields(Attack)})
    g.attack.before = g.copy()


def snapshot_of(g: GameState) -> GameState | None:
    return g.attack.before if isinstance(g.attack, SnapshotAttack) else None


def restore_states(g: GameState, before: GameState, keep: frozenset[str] = frozenset()) -> None:
    """Every card in play that is in the same zone as in `before` (but those in `keep`) gets
    its state of then back."""
    for cid, c in before.cards.items():
        now = g.cards[cid]
        if cid not in keep and c.in_play and now.zone == c.zone:
            now.state = c.state


@mutant(
    "interrupt-undoes-on-attack-rest-stand",
    "interrupt.4",
    "Nullifying is read as undoing the attack, so the Pals other than the attacker and its "
    "target that its On Attack abilities rested or stood go back as they were (against I-6).",
)
class InterruptUndoesOnAttackRestStand(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        snapshot(g)  # the attacker rested, its On Attack abilities not resolved yet
        return pending

    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        before = snapshot_of(g)
        if before is not None:
            assert g.attack is not None
            restore_states(g, before, frozenset({g.attack.attacker, g.attack.target}))
        return super().move_interrupt(g, a)


class _UndoesQuickStep(Rules):
    """Keeps the game as the quick step found it; a nullify gives back `undo`'s part of it."""

    def enter_quick_step(self, g: GameState) -> None:
        super().enter_quick_step(g)
        snapshot(g)

    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        before = snapshot_of(g)
        if before is not None:
            self.undo(g, before)
        return super().move_interrupt(g, a)

    def undo(self, g: GameState, before: GameState) -> None:
        raise NotImplementedError


@mutant(
    "interrupt-undoes-quick-step-night",
    "interrupt.4",
    "Nullifying is read as undoing the attack's quick step, so a night change made by a Quick "
    "card during it is undone (against I-6).",
)
class InterruptUndoesQuickStepNight(_UndoesQuickStep):
    def undo(self, g: GameState, before: GameState) -> None:
        g.night = before.night


@mutant(
    "interrupt-undoes-quick-step-damage",
    "interrupt.4",
    "Nullifying is read as undoing the attack's quick step, so life lost to Quick cards "
    "during it is given back (against I-6).",
)
class InterruptUndoesQuickStepDamage(_UndoesQuickStep):
    def undo(self, g: GameState, before: GameState) -> None:
        g.life = dict(before.life)


@mutant(
    "interrupt-undoes-quick-step-rest-stand",
    "interrupt.4",
    "Nullifying is read as undoing the attack's quick step, so the Pals rested or stood by "
    "Quick cards during it go back as they were (against I-6).",
)
class InterruptUndoesQuickStepRestStand(_UndoesQuickStep):
    def undo(self, g: GameState, before: GameState) -> None:
        restore_states(g, before)
