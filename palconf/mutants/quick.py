"""Mutants of Quick (quick.1–3) and its timing (B-9, B-9a), of the block and quick steps as
quick actions see them (B-13, B-14), and of playing an event and activating an ability (B-9,
B-9a: whose card, which ability, when the cost is paid)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.oracle.keywords import Quick
from palconf.oracle.model import CardState, GameState, Player, other
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- Quick (quick.1–3)


@keyword_mutant(
    "quick-events-not-quick",
    "quick.2",
    "Quick is read as a mark of activated abilities only, so a Quick event card "
    "cannot be played in the quick step.",
)
class QuickForAbilitiesOnly(Quick):
    def makes_quick(self, card: CardState) -> bool:
        return False


@mutant(
    "quick-ability-flag-ignored",
    "quick.1",
    "An activated ability's own Quick flag is not looked at, so no activated ability can "
    "be used in the quick step.",
)
class AbilityQuickFlagIgnored(Rules):
    def check_quick_timing(
        self, g: GameState, action: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        if action["do"] == "activate":
            found = is_quick()
            is_quick = lambda: None if found is None else False  # noqa: E731
        return super().check_quick_timing(g, action, is_quick)


@mutant(
    "quick-step-allows-any-event",
    "quick.3",
    "Quick is read as a reminder rather than a permission, so any event may be played in "
    "the quick step.",
)
class AnyEventInQuickStep(Rules):
    def is_quick_event(self, card: CardState) -> bool:
        return card.card.kind == "event"


@mutant(
    "quick-step-allows-any-ability",
    "quick.3",
    "Activated abilities are treated as usable at any time, so an ability without Quick "
    "may be activated in the quick step.",
)
class AnyAbilityInQuickStep(Rules):
    def check_quick_timing(
        self, g: GameState, action: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        if action["do"] == "activate":
            found = is_quick()
            is_quick = lambda: None if found is None else True  # noqa: E731
        return super().check_quick_timing(g, action, is_quick)


@mutant(
    "quick-event-only-in-quick-step",
    "quick.2",
    '"Playable during the quick step" is read as "only during the quick step", so a '
    "Quick event is refused in its owner's main phase (against I-5).",
)
class QuickEventOnlyInQuickStep(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        refusals = list(super().check_play(g, a))
        yield from refusals
        if not refusals and g.step == "main" and self.is_quick_event(g.cards[a["card"]]):
            yield Refusal("wrong-timing", "a Quick event is played in the quick step")


# ---------------------------------------------------------------- the quick step (B-14)


@mutant(
    "quick-step-attacker-acts-first",
    "B-14",
    "The active (attacking) player is given priority first in the quick step.",
)
class AttackerActsFirst(Rules):
    def enter_quick_step(self, g: GameState) -> None:
        super().enter_quick_step(g)
        assert g.attack is not None
        g.priority = other(g.attack.defender)


@mutant(
    "quick-step-one-pass-ends",
    "B-14",
    "A single pass ends the quick step, and the battle follows at once.",
)
class OnePassEndsQuickStep(Rules):
    def move_pass(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        if g.step == "quick" and g.attack is not None:
            g.attack.passes = max(g.attack.passes, 1)
        return super().move_pass(g, a)


@mutant(
    "quick-action-keeps-pass-count",
    "B-14",
    "A quick action hands priority over but does not start the passes again, so a pass "
    "before it and a pass after it end the step.",
)
class ActionKeepsPassCount(Rules):
    def after_quick_action(self, g: GameState) -> None:
        passes = g.attack.passes if g.attack is not None else 0
        super().after_quick_action(g)
        if g.step == "quick" and g.attack is not None:
            g.attack.passes = passes


@mutant(
    "quick-action-keeps-priority",
    "B-14",
    "After a quick action the same player keeps priority and may act again until they pass.",
)
class ActionKeepsPriority(Rules):
    def after_quick_action(self, g: GameState) -> None:
        if g.step == "quick" and g.attack is not None:
            g.attack.passes = 0


@mutant(
    "quick-step-ends-when-combatant-leaves",
    "B-14",
    "The quick step (and the attack) ends as soon as the attacker or its target Pal leaves "
    "the battle area, without waiting for two passes.",
)
class EndsWhenCombatantLeaves(Rules):
    def after_quick_action(self, g: GameState) -> None:
        super().after_quick_action(g)
        attack = g.attack
        if g.step == "quick" and attack is not None:
            gone = g.cards[attack.attacker].zone != "battle" or (
                attack.target != "master" and g.cards[attack.target].zone != "battle"
            )
            if gone:
                self.end_attack(g)


@mutant(
    "quick-step-only-after-block",
    "B-14",
    "The quick step is read as part of a block, so when the defender passes in the block "
    "step the battle follows at once.",
)
class QuickStepOnlyAfterBlock(Rules):
    def move_pass(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        if g.step == "block":
            self.battle(g)
            return []
        return super().move_pass(g, a)


@mutant(
    "block-step-pass-counts-in-quick-step",
    "B-14",
    "The defending player's pass in the block step is counted toward the two passes that "
    "end the quick step, so their next pass ends it before the attacking player may act.",
)
class BlockPassCountsInQuickStep(Rules):
    def enter_quick_step(self, g: GameState) -> None:
        super().enter_quick_step(g)
        assert g.attack is not None
        if not g.attack.blocked:
            g.attack.passes = 1


@mutant(
    "quick-step-ignores-priority",
    "B-14",
    "Either player may use a Quick card or ability at any moment of the quick step, "
    "whoever is to act.",
)
class QuickStepIgnoresPriority(Rules):
    def check_quick_timing(
        self, g: GameState, action: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        if g.step == "quick" and action["player"] != g.priority:
            g = g.copy()
            g.priority = action["player"]
        return super().check_quick_timing(g, action, is_quick)


@mutant(
    "quick-actions-in-block-step",
    "B-13",
    "The block step is read as the first quick step, so the defending player may play a "
    "Quick event or use a Quick ability there instead of blocking or passing.",
)
class QuickActionsInBlockStep(Rules):
    def check_quick_timing(
        self, g: GameState, action: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        if g.step == "block":
            g = g.copy()
            g.step = "quick"
        return super().check_quick_timing(g, action, is_quick)


@mutant(
    "quick-step-ends-when-attacker-leaves",
    "B-14",
    "The quick step (and the attack) ends as soon as the attacker leaves the battle area, "
    "without waiting for two passes.",
)
class EndsWhenAttackerLeaves(Rules):
    def after_quick_action(self, g: GameState) -> None:
        super().after_quick_action(g)
        attack = g.attack
        if g.step == "quick" and attack is not None and g.cards[attack.attacker].zone != "battle":
            self.end_attack(g)


@mutant(
    "quick-step-ends-when-target-leaves",
    "B-14",
    "The quick step (and the attack) ends as soon as the target Pal leaves the battle "
    "area, without waiting for two passes.",
)
class EndsWhenTargetLeaves(Rules):
    def after_quick_action(self, g: GameState) -> None:
        super().after_quick_action(g)
        attack = g.attack
        if (
            g.step == "quick"
            and attack is not None
            and attack.target != "master"
            and g.cards[attack.target].zone != "battle"
        ):
            self.end_attack(g)


# ---------------------------------------------------------------- Quick timing (quick.1–3, B-9)


@mutant(
    "quick-in-opponents-main-phase",
    "B-9",
    'Quick is read as "usable at any time", so the non-active player may play a Quick '
    "event or use a Quick ability in the opponent's main phase.",
)
class QuickInOpponentsMainPhase(Rules):
    def check_quick_timing(
        self, g: GameState, action: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        if g.step == "main" and action["player"] != g.active and is_quick():
            return iter(())
        return super().check_quick_timing(g, action, is_quick)


@mutant(
    "quick-ability-only-in-quick-step",
    "quick.1",
    '"May be played during the quick step" is read as "only during the quick step", so '
    "a Quick activated ability is refused in its owner's main phase (against I-5).",
)
class QuickAbilityOnlyInQuickStep(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        refusals = list(super().check_activate(g, a))
        yield from refusals
        if (
            not refusals
            and g.step == "main"
            and g.cards[a["card"]].card.abilities[a["ability"]].quick
        ):
            yield Refusal("wrong-timing", "a Quick ability is used in the quick step")


def _abilities_made_quick(g: GameState, card_id: str) -> GameState:
    """A copy of `g` in which every activated ability of `card_id` is Quick."""
    g = g.copy()
    card = g.cards[card_id]
    card.card = replace(
        card.card,
        abilities=tuple(
            replace(ab, quick=True) if ab.when == "activate" else ab for ab in card.card.abilities
        ),
    )
    return g


@mutant(
    "quick-keyword-on-pal-makes-abilities-quick",
    "quick.1",
    "The Quick keyword written on a Pal or structure is read as making all of that card's "
    "activated abilities Quick (the protocol ignores it there).",
)
class QuickKeywordOnCardMakesAbilitiesQuick(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if g.step == "quick" and card is not None and card.has("quick"):
            g = _abilities_made_quick(g, card.id)
        return super().check_activate(g, a)


@mutant(
    "one-quick-ability-makes-card-quick",
    "quick.1",
    "Quick is read as a mark of the card rather than of one ability, so a card with one "
    "Quick activated ability may use any of its activated abilities in the quick step.",
)
class OneQuickAbilityMakesCardQuick(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if g.step == "quick" and card is not None and any(ab.quick for ab in card.card.abilities):
            g = _abilities_made_quick(g, card.id)
        return super().check_activate(g, a)


@keyword_mutant(
    "quick-two-instances-not-quick",
    "quick.2",
    "Quick is checked as exactly one instance, so an event written with Quick twice is not "
    "Quick (against I-3).",
)
class QuickExactlyOnce(Quick):
    def makes_quick(self, card: CardState) -> bool:
        return card.card.kind == "event" and len(card.card.instances(self.id)) == 1


def _quick_card_in_hand(g: GameState, a: Mapping[str, Any], kinds: tuple[str, ...]) -> bool:
    """Whether the `deploy` names a card of one of `kinds` with Quick in the player's hand."""
    card = g.cards.get(a["card"])
    return (
        card is not None
        and card.zone == "hand"
        and card.owner == a["player"]
        and card.card.kind in kinds
        and card.has("quick")
    )


# ------------------------------------------------------------- playing and activating (B-9, B-9a)


@mutant(
    "activate-opponents-card",
    "B-9a",
    "An activated ability of the opponent's card in play may be activated too, paid from "
    "the activating player's energy.",
)
class ActivateOpponentsCard(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if card is not None and card.in_play and card.owner != a["player"]:
            g = g.copy()
            g.cards[card.id].owner = a["player"]
        return super().check_activate(g, a)

    def move_activate(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        owner, card.owner = card.owner, a["player"]  # pays, and controls the ability
        pending = super().move_activate(g, a)
        card.owner = owner
        return pending


def _index_among_activated(g: GameState, a: Mapping[str, Any]) -> Mapping[str, Any]:
    """`a` with its `ability` index, read as counting the activated abilities only, turned
    into the index in `abilities` (one past the activated ones: past them all, not-found)."""
    card = g.cards.get(a["card"])
    if card is None:
        return a
    abilities = card.card.abilities
    activated = [i for i, ab in enumerate(abilities) if ab.when == "activate"]
    index = a["ability"]
    return {**a, "ability": activated[index] if 0 <= index < len(activated) else len(abilities)}


@mutant(
    "activate-index-among-activated",
    "B-9a",
    "The `ability` index is read as counting the card's activated abilities only, skipping "
    "its triggered ones.",
)
class ActivateIndexAmongActivated(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return super().check_activate(g, _index_among_activated(g, a))

    def move_activate(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        return super().move_activate(g, _index_among_activated(g, a))


def _with_energy(g: GameState, player: Player, cost: int, gain: int) -> GameState:
    """`g`, or a copy of it in which `player` can pay `cost` when the `gain` of energy the
    effect gives would pay it."""
    if g.energy[player] < cost <= g.energy[player] + gain:
        g = g.copy()
        g.energy[player] = cost
    return g


@mutant(
    "play-pays-after-effect",
    "B-9",
    "An event's cost is taken to be paid once its effect has resolved, so the energy it "
    "gives can pay for the event itself.",
)
class PlayPaysAfterEffect(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if card is not None and card.card.effect is not None and card.card.effect.op == "energy":
            g = _with_energy(g, a["player"], card.card.cost, card.card.effect.amount)
        return super().check_play(g, a)


@mutant(
    "activate-pays-after-effect",
    "B-9a",
    "An activated ability's cost is taken to be paid once its effect has resolved, so the "
    "energy it gives can pay for the ability itself.",
)
class ActivatePaysAfterEffect(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if card is not None and 0 <= a["ability"] < len(card.card.abilities):
            ability = card.card.abilities[a["ability"]]
            if ability.effect.op == "energy":
                g = _with_energy(g, a["player"], ability.cost, ability.effect.amount)
        return super().check_activate(g, a)
