"""Mutants that add a rule (issue 27, families 1 and 2): over-reading — a restriction, a
forced choice or a side effect the text does not state — and no-op transitions — an effect
that sets what is already so, read as doing something else or as not allowed.

Each asks of one B-n or clause "what could a careful but wrong reader add here?": the
freedoms that follow from the rules' silence (who may be chosen, which card may act, what an
action costs) and the effects whose pre-state is already their post-state (`rest` on a
rested Pal, `night` true at night).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.keywords import Battle, BattleTrigger
from palconf.oracle.model import CardState, Effect, GameState, Pump
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- over-reading: restrictions


@mutant(
    "attack-must-target-pal-when-able",
    "B-11",
    "The master is read as a target of last resort: while a Pal is a legal target, the "
    "attacker may not choose the opposing master.",
)
class AttackMustTargetPal(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        pals = [t for t in targets if t != "master"]
        return pals or targets


@mutant(
    "defender-must-block-when-able",
    "B-13",
    'The block step is read as forcing a block: "may block" taken for "must block when it '
    'can", so the defender cannot pass while it has a Pal that may block.',
)
class DefenderMustBlock(Rules):
    def check_pass(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_pass(g, a)
        if g.step == "block" and any(self.can_block(g, c.id) for c in g.battle_pals()):
            yield Refusal("cannot-block", "a Pal that can block must block")


@mutant(
    "activate-needs-standing-card",
    "B-9a",
    "An activated ability is read as needing its card standing (as a tap cost would): a "
    "rested card's abilities cannot be activated.",
)
class ActivateNeedsStanding(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_activate(g, a)
        card = g.cards.get(a["card"])
        if card is not None and card.in_play and card.state == "rest":
            yield Refusal("wrong-kind", f"{card.id!r} is rested")


@mutant(
    "activate-rests-card",
    "B-9a",
    "Activating an ability is read as resting its card as part of the cost (a side effect "
    "the text does not state), so a Pal that activated cannot attack.",
)
class ActivateRestsCard(Rules):
    def move_activate(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_activate(g, a)
        g.cards[a["card"]].state = "rest"
        return pending


@mutant(
    "activate-only-in-battle-area",
    "B-8",
    "Only the cards in the battle area may activate abilities: a Pal on a structure and a "
    "structure itself cannot, though both are in play.",
)
class ActivateOnlyInBattle(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if card is not None and card.owner == a["player"] and card.zone != "battle":
            a = {**a, "card": "\u0000not-in-battle"}  # as if not found
        yield from super().check_activate(g, a)


def _refuse_choices(g: GameState, pending: list[Pending], op: str, own: bool, message: str) -> None:
    """Refuse (illegal-target) a bound choice of an `op` effect that names a Pal of the
    effect's controller (`own`) or of the opponent (not `own`)."""
    for p in pending:
        if p.effect.op == op and p.choice is not None:
            if (g.cards[p.choice].owner == p.controller) == own:
                raise Refusal("illegal-target", f"{p.choice!r} {message}")


@mutant(
    "destroy-chooses-only-opposing-pals",
    "B-19",
    "A `destroy` effect is read as aimed at the opponent: it may choose only the opposing "
    "player's Pals, never its controller's own.",
)
class DestroyOnlyOpposing(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        _refuse_choices(g, pending, "destroy", True, "is your own Pal")


@mutant(
    "pump-chooses-only-own-pals",
    "B-19",
    "A `pump` effect is read as helping its controller: it may choose only the controller's "
    "own Pals (Serious too), never the opponent's.",
)
class PumpOnlyOwn(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        _refuse_choices(g, pending, "pump", False, "is not your Pal")


@mutant(
    "block-only-attacks-on-master",
    "B-13",
    "Blocking is read as protecting the master: an attack on a Pal cannot be blocked.",
)
class BlockOnlyMaster(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        assert g.attack is not None
        return g.attack.target == "master" and super().can_block(g, blocker_id)


# ---------------------------------------------------------------- over-reading: once a turn
#
# Nothing in the rules limits how often a Pal stood again may block, or its keywords work, in
# one turn. A mutant that adds such a limit remembers what was done this turn: the accepted
# actions (`_AcceptedThisTurn`, kept by `apply`, so LEGAL's trial moves leave no trace), or a
# mark among the state's pumps, which end with the turn (`TurnMark`).


class _AcceptedThisTurn(Rules):
    """Remembers each accepted action with its turn (no misreading by itself)."""

    def apply(self, action: Any) -> Refusal | None:
        turn = self.state.turn
        refusal = super().apply(action)
        if refusal is None:
            self.__dict__.setdefault("accepted", []).append((turn, dict(action)))
        return refusal

    def accepted_this_turn(self, g: GameState, do: str) -> list[dict[str, Any]]:
        return [a for t, a in self.__dict__.get("accepted", []) if t == g.turn and a["do"] == do]


@mutant(
    "block-once-per-turn",
    "B-13",
    "A Pal may block only once a turn, even when an effect stands it again.",
)
class BlockOncePerTurn(_AcceptedThisTurn):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        blocked = any(a["blocker"] == blocker_id for a in self.accepted_this_turn(g, "block"))
        return not blocked and super().can_block(g, blocker_id)


@mutant(
    "stealth-once-per-turn",
    "stealth.1",
    "Stealth is read as protecting only its card's first attack of a turn, so a second "
    "attack that turn (after an effect stood it) may be blocked.",
)
class StealthOncePerTurn(_AcceptedThisTurn):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        attack = g.attack
        assert attack is not None
        attacks = self.accepted_this_turn(g, "attack")
        if sum(a["attacker"] == attack.attacker for a in attacks) >= 2:
            g = g.copy()
            attacker = g.cards[attack.attacker]
            keywords = tuple(k for k in attacker.card.keywords if k.id != "stealth")
            attacker.card = replace(attacker.card, keywords=keywords)
        return super().can_block(g, blocker_id)


@dataclass(frozen=True, slots=True)
class TurnMark(Pump):
    """A pump of 0 that marks what its card did this turn (`what`): it changes no power and
    ends, like every pump, at the end of the turn (B-6)."""

    what: str = ""


@mutant(
    "breakthrough-once-per-turn",
    "breakthrough.1",
    "A Breakthrough Pal is read as dealing its Breakthrough damage at most once a turn, so "
    "on a second kill that turn (after an effect stood it) it deals nothing.",
)
class BreakthroughOncePerTurn(Rules):
    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        dealt = {p.card for p in g.pumps if isinstance(p, TurnMark) and p.what == "breakthrough"}
        queue = [t for t in queue if t.kind != "damage" or t.source not in dealt]
        g.pumps += [TurnMark(t.source, 0, "breakthrough") for t in queue if t.kind == "damage"]
        super().resolve_battle_triggers(g, battle, queue)


# ---------------------------------------------------------------- no-op transitions


@mutant(
    "rest-stand-effects-toggle",
    "B-19",
    "The `rest` and `stand` effects are read as turning the card over: on a rested Pal, `rest` "
    "stands it (and `stand` rests a standing one).",
)
class RestStandToggle(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.op in ("rest", "stand"):
            target = self.effect_target(g, p)
            if target is not None:
                target.state = "stand" if target.state == "rest" else "rest"
            return
        super().resolve_effect(g, p)


@mutant(
    "night-effect-toggles",
    "B-5",
    "A `night` effect is read as switching day and night: `value` true at night makes it day.",
)
class NightToggles(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.op == "night":
            g.night = not g.night if g.night == p.effect.value else p.effect.value
            return
        super().resolve_effect(g, p)


@mutant(
    "rest-stand-choose-only-changeable",
    "B-17",
    "A `rest` effect may choose only a standing Pal and a `stand` effect only a rested one: "
    "a choice that would change nothing is refused (and with no such Pal, none is needed).",
)
class ChooseOnlyChangeable(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if effect.op in ("rest", "stand"):
            return [o for o in options if g.cards[o].state != effect.op]
        return options


# ---------------------------------------------------------------- over-reading: keywords
#
# Taunt says what the opponent's attackers must do, Assault what its card may choose, Interrupt
# what becomes of one attack: none of them says anything of what the card itself may do, or of
# the attacks after.


@mutant(
    "taunt-pal-cannot-attack",
    "taunt.1",
    '"Forces the card to be attacked" is read as a defender\'s ability (as "Defender" '
    "elsewhere): a Taunt Pal may not attack.",
)
class TauntPalCannotAttack(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_attack(g, a)
        attacker = g.cards.get(a["attacker"])
        if attacker is not None and attacker.zone == "battle" and attacker.has("taunt"):
            yield Refusal("cannot-attack", f"{attacker.id!r} has Taunt")


@mutant(
    "taunt-pal-cannot-block",
    "taunt.1",
    "Taunt is read as making its Pal the one to be attacked, not one that defends: a Taunt "
    "Pal may not block.",
)
class TauntPalCannotBlock(Rules):
    def can_block(self, g: GameState, blocker_id: str) -> bool:
        blocker = g.cards.get(blocker_id)
        return not (blocker is not None and blocker.has("taunt")) and super().can_block(
            g, blocker_id
        )


@mutant(
    "assault-attacks-only-pals",
    "assault.1",
    '"Can choose a Pal in the stand state as an attack target" is read as what the card '
    "attacks: while a Pal is a legal target, an Assault attacker may not target the master.",
)
class AssaultAttacksOnlyPals(Rules):
    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        targets = super().legal_targets(g, attacker)
        pals = [t for t in targets if t != "master"]
        return pals if attacker.has("assault") and pals else targets


@mutant(
    "interrupt-ends-attacks-for-the-turn",
    "interrupt.4",
    "\"Nullify the opponent's attack\" is read as the opponent's attacking for the turn: once "
    "an attack of theirs is nullified, that player may declare no other attack this turn.",
)
class InterruptEndsAttacks(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        attacker = g.cards[g.attack.attacker]
        g.pumps.append(TurnMark(attacker.id, 0, "nullified:" + attacker.owner))
        return super().move_interrupt(g, a)

    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_attack(g, a)
        mark = "nullified:" + a["player"]
        if any(isinstance(p, TurnMark) and p.what == mark for p in g.pumps):
            yield Refusal("cannot-attack", "an attack of yours was nullified this turn")


@mutant(
    "vigilance-stands-only-attackers",
    "vigilance.1",
    'Vigilance is read through its reminder ("can attack and still be standing"): at the end '
    "of its controller's turn it stands its card only if that card attacked this turn, so a "
    "Vigilance Pal rested otherwise (by an effect) stays rested.",
)
class VigilanceStandsOnlyAttackers(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        g.pumps.append(TurnMark(a["attacker"], 0, "attacked"))
        return super().move_attack(g, a)

    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        attacked = {p.card for p in g.pumps if isinstance(p, TurnMark) and p.what == "attacked"}
        kept = [
            c
            for c in self.in_play_by_id(g, g.active)
            if c.state == "rest" and c.has("vigilance") and c.id not in attacked
        ]
        pending = super().move_end_turn(g, a)
        for c in kept:  # the ending player's cards: the turn that starts stands none of them
            c.state = "rest"
        return pending
