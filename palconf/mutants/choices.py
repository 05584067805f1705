"""Mutants of choices and what they find (B-17, B-19), of what an effect affects (`self`, whose
energy, whose life, an ability whose card is gone: B-19, I-13, I-15), and of the order
triggered abilities resolve in (B-17); also deploying (B-7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.model import CardState, Effect, GameState, other
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- choices (B-17, B-19), B-7


@mutant(
    "choices-checked-before-move",
    "B-17",
    "Choices are checked against the state before the action's own move, so a deployed "
    "Pal cannot choose itself and an assigned Pal can.",
)
class ChoicesBeforeMove(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(self.state, pending, choose)


@mutant(
    "no-legal-choice-refuses",
    "B-17",
    "An ability that needs a choice and has no legal option makes the whole action illegal.",
)
class NoLegalChoiceRefuses(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        for p in pending:
            if p.effect.needs_choice and not self.choice_options(g, p.effect):
                raise Refusal("illegal-target", f"an ability of {p.source!r} has nothing to choose")
        super().bind_choices(g, pending, choose)


@mutant(
    "surplus-choices-refused",
    "B-17",
    "An action with more `choose` entries than its abilities need is refused.",
)
class SurplusChoicesRefused(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        needed = sum(1 for p in pending if self.choice_options(g, p.effect))
        if len(choose) > needed:
            raise Refusal("illegal-target", f"{len(choose)} choices for {needed} ability(ies)")
        super().bind_choices(g, pending, choose)


@mutant(
    "surplus-choice-must-name-pal",
    "B-17",
    "A surplus `choose` entry is checked instead of ignored, so an action whose surplus "
    "entry names no Pal that could be chosen is refused.",
)
class SurplusChoiceMustNamePal(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        if not pending:
            return
        needed = sum(1 for p in pending if self.choice_options(g, p.effect))
        pals = {c.id for c in g.battle_pals()}
        for entry in choose[needed:]:
            if entry not in pals:
                raise Refusal("illegal-target", f"surplus entry {entry!r} names no Pal")


@mutant(
    "choices-matched-sorted",
    "B-17",
    "The `choose` entries are matched to the abilities in sorted id order (as if kept in a "
    "set), not in the order given.",
)
class ChoicesMatchedSorted(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, sorted(choose))


@mutant(
    "choose-any-pal-in-play",
    "serious.1",
    '"Choose 1 Pal" is read as any Pal in play, so a Pal on a structure (the assigned '
    "card itself among them) may be chosen.",
)
class ChooseAnyPalInPlay(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        if not effect.needs_choice:
            return []
        return sorted(
            c.id
            for c in g.cards.values()
            if c.card.kind == "pal" and c.zone in ("battle", "assigned")
        )


@mutant(
    "deploy-enters-rested",
    "B-7",
    "A deployed card enters play rested, as if it needed a turn to get ready.",
)
class DeployEntersRested(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        g.cards[a["card"]].state = "rest"
        return pending


@mutant(
    "missing-choice-accepted",
    "B-17",
    "An action that lacks a choice is accepted, and the ability that needed it does nothing.",
)
class MissingChoiceAccepted(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        needed = sum(1 for p in pending if self.choice_options(g, p.effect))
        if len(choose) >= needed:
            return super().bind_choices(g, pending, choose)
        entries = iter(choose)
        for p in pending:
            options = self.choice_options(g, p.effect)
            if not options:
                continue
            entry = next(entries, None)
            if entry is None:
                return
            if entry not in options:
                raise Refusal("illegal-target", f"{entry!r} cannot be chosen")
            p.choice = entry


@mutant(
    "choice-excludes-source",
    "B-19",
    '"Choose 1 Pal" is read as "choose another Pal", so an ability may not choose the '
    "card it is on.",
)
class ChoiceExcludesSource(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        entries = iter(choose)
        for p in pending:
            options = [o for o in self.choice_options(g, p.effect) if o != p.source]
            if not options:
                continue
            entry = next(entries, None)
            if entry is None or entry not in options:
                raise Refusal("illegal-target", f"one of {', '.join(options)} must be chosen")
            p.choice = entry


@mutant(
    "choice-own-side-only",
    "B-19",
    '"Choose 1 Pal" is read as one of your own Pals, so a Pal in the opponent\'s battle '
    "area may not be chosen.",
)
class ChoiceOwnSideOnly(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        entries = iter(choose)
        for p in pending:
            options = [
                o for o in self.choice_options(g, p.effect) if g.cards[o].owner == p.controller
            ]
            if not options:
                continue
            entry = next(entries, None)
            if entry is None or entry not in options:
                raise Refusal("illegal-target", f"one of {', '.join(options)} must be chosen")
            p.choice = entry


@mutant(
    "pump-zero-needs-no-choice",
    "B-17",
    "A `pump` of 0 is read as changing nothing, so it has no legal option and takes no "
    "`choose` entry (against I-24).",
)
class PumpZeroNeedsNoChoice(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        if effect.op == "pump" and effect.amount == 0:
            return []
        return super().choice_options(g, effect)


@mutant(
    "negative-pump-skips-zero-power",
    "B-17",
    "A decrease is read as unable to choose a Pal whose power is already 0, since it would "
    "change nothing (against I-24).",
)
class NegativePumpSkipsZeroPower(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if effect.op == "pump" and effect.amount < 0:
            options = [o for o in options if self.power(g, g.cards[o])]
        return options


@dataclass
class Deferred(Pending):
    """An ability whose `choose` entry (`choice`, None if there was none) is checked against
    its `options` (those right after the move) only when it comes to resolve."""

    options: tuple[str, ...] = ()


class _ChoicesCheckedWhenResolving(Rules):
    def resolve_in_order(self, g: GameState, pending: list[Pending]) -> None:
        for p in pending:
            if g.step == "over":
                break
            if isinstance(p, Deferred):
                if p.choice is None:
                    raise Refusal("illegal-target", f"an ability of {p.source!r} needs a choice")
                if p.choice not in p.options:
                    raise Refusal("illegal-target", f"{p.choice!r} cannot be chosen")
            self.resolve_effect(g, p)


def defer(pending: list[Pending], i: int, entry: str | None, options: list[str]) -> None:
    p = pending[i]
    pending[i] = Deferred(
        p.source, p.controller, p.effect, p.source_is_card_in_play, entry, tuple(options)
    )


@mutant(
    "choices-bound-when-resolving",
    "B-17",
    "Each ability takes its `choose` entry only when it comes to resolve, so an ability the "
    "game's end keeps from resolving needs no entry and its entry is not checked.",
)
class ChoicesBoundWhenResolving(_ChoicesCheckedWhenResolving):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        entries = iter(choose)
        for i, p in enumerate(pending):
            options = self.choice_options(g, p.effect)
            if options:
                defer(pending, i, next(entries, None), options)


@mutant(
    "choices-checked-when-resolving",
    "B-17",
    "The `choose` entries are counted when the action is taken but each is checked only when "
    "its ability resolves, so a bad entry for an ability the game's end cuts off is accepted.",
)
class ChoicesCheckedWhenResolving(_ChoicesCheckedWhenResolving):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        entries = iter(choose)
        for i, p in enumerate(pending):
            options = self.choice_options(g, p.effect)
            if options:
                entry = next(entries, None)
                if entry is None:
                    raise Refusal("illegal-target", f"an ability of {p.source!r} needs a choice")
                defer(pending, i, entry, options)


@mutant(
    "chosen-pal-gone-refuses",
    "B-17",
    "A chosen Pal that has left the battle area by the time its ability resolves makes the "
    "whole action illegal, instead of going unaffected.",
)
class ChosenPalGoneRefuses(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.needs_choice and p.choice is not None and g.cards[p.choice].zone != "battle":
            raise Refusal("illegal-target", f"{p.choice!r} has left the battle area")
        super().resolve_effect(g, p)


@mutant(
    "abilities-before-keywords",
    "B-17",
    "A card's written abilities are taken to resolve before its keyword abilities.",
)
class AbilitiesBeforeKeywords(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        effects = super().triggered_effects(card, event)
        keyword = len(
            [
                e
                for inst in card.card.keywords
                for e in self.kw(inst.id).triggered(card, event, inst)
            ]
        )
        return effects[keyword:] + effects[:keyword]


@mutant(
    "triggers-resolve-last-first",
    "B-17",
    "A card's triggered abilities are taken to resolve like a stack, the last written "
    "first (choices are still given in resolution order).",
)
class TriggersResolveLastFirst(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        return list(reversed(super().triggered_effects(card, event)))


@mutant(
    "keyword-instances-resolve-sorted-as-text",
    "B-17",
    "The rule that abilities are sorted as text is applied to a card's keyword instances too, "
    "so they resolve (and take choices) in the text order of the keywords, not as written.",
)
class KeywordInstancesSortedAsText(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        effects = super().triggered_effects(card, event)
        written = [
            (inst.text, e)
            for inst in card.card.keywords
            for e in self.kw(inst.id).triggered(card, event, inst)
        ]
        ordered = [e for _, e in sorted(written, key=lambda x: x[0])]
        return ordered + effects[len(written) :]


@mutant(
    "self-finds-only-battle-area",
    "B-19",
    'An effect on `self` is read as "this Pal in the battle area", so an ability of a '
    "Pal on a structure finds nothing when it affects `self`.",
)
class SelfFindsOnlyBattleArea(Rules):
    def effect_target(self, g: GameState, p: Pending) -> CardState | None:
        target = super().effect_target(g, p)
        if target is not None and target.card.kind == "pal" and target.zone != "battle":
            return None
        return target


# ------------------------------------------------------------ whose energy and life (B-19, I-15)


@mutant(
    "energy-effect-to-active-player",
    "B-19",
    "An `energy` effect gives its energy to the player whose turn it is, not to the "
    "ability's controller (against I-15).",
)
class EnergyEffectToActivePlayer(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.op == "energy":
            g.energy[g.active] += p.effect.amount
            return
        super().resolve_effect(g, p)


@mutant(
    "damage-self-to-active-player",
    "B-19",
    'A `damage` effect with player "self" hits the player whose turn it is, not the '
    "ability's controller (against I-15).",
)
class DamageSelfToActivePlayer(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.op == "damage" and p.effect.player == "self":
            self.lose_life(g, g.active, p.effect.amount)
            return
        super().resolve_effect(g, p)


@mutant(
    "battle-triggers-by-id-number",
    "B-17",
    "Abilities that trigger together are ordered by the number in their card id, without "
    "putting the active player's first.",
)
class BattleTriggersByIdNumber(Rules):
    def trigger_order(self, g: GameState, card: CardState) -> tuple[bool, str]:
        digits = "".join(ch for ch in card.id if ch.isdigit())
        return (False, digits.zfill(12))


@mutant(
    "damage-opponent-is-non-active-player",
    "B-19",
    'A `damage` effect\'s "opponent" is read as the player whose turn it is not, so a Quick '
    "card of the defending player that damages the opponent hits its own master.",
)
class DamageOpponentIsNonActive(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.op == "damage" and p.effect.player == "opponent":
            self.lose_life(g, other(g.active), p.effect.amount)
            return
        super().resolve_effect(g, p)
