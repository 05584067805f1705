"""Mutants of who an effect may choose (B-19: "a Pal that an effect chooses is a Pal in either
player's battle area, unless the effect says otherwise"; B-17: checked right after the action's
own move): a restriction the text does not state, tied to the kind of ability that chooses
(On Deploy, On Attack, Serious, an activated ability, an event), to its effect, or to the
state or keywords of the Pal chosen.

`choice_options(g, effect)` is told the effect, not the ability: a mutant restricting one kind
of ability finds the card whose ability of that kind carries that very effect object (card
data is immutable and shared by every copy of a game, so the tracer's probes see the same),
and Serious, whose effect the keyword makes anew, marks its own (`SeriousPump`).
"""

from __future__ import annotations

from dataclasses import dataclass

from palconf.mutants import mutant
from palconf.oracle.model import CardState, Effect, GameState, Player
from palconf.oracle.rules import Pending, Refusal, Rules


def carrier(g: GameState, effect: Effect, when: str) -> Player | None:
    """The owner of the card whose ability of kind `when` (`deploy`, `attack`, `activate`; or
    `event`: the card's own effect) is `effect` itself, else None."""
    for c in g.cards.values():
        if when == "event":
            if c.card.effect is effect:
                return c.owner
        elif any(a.when == when and a.effect is effect for a in c.card.abilities):
            return c.owner
    return None


def _owned(g: GameState, options: list[str], player: Player | None, own: bool) -> list[str]:
    """`options` kept to `player`'s Pals (`own`) or to the others' (not `own`); all of them
    when `player` is None."""
    if player is None:
        return options
    return [o for o in options if (g.cards[o].owner == player) == own]


def _refuse_choice_of(g: GameState, pending: list[Pending], op: str, own: bool, why: str) -> None:
    """Refuse the action if a `choose` entry of an `op` effect names a Pal of its controller
    (`own`) or of the opponent (not `own`)."""
    for p in pending:
        if p.choice is not None and p.effect.op == op:
            if (g.cards[p.choice].owner == p.controller) == own:
                raise Refusal("illegal-target", f"{p.choice!r} {why}")


# ---------------------------------------------------------------- by the kind of ability


@mutant(
    "on-deploy-choice-only-own-pals",
    "on-deploy.1",
    "An On Deploy ability is read as acting on its own side as the card arrives: its choice "
    "is among its controller's Pals only.",
)
class OnDeployChoiceOwn(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        return _owned(g, options, carrier(g, effect, "deploy"), own=True)


@mutant(
    "on-attack-choice-only-opposing-pals",
    "on-attack.1",
    "An On Attack ability is read as part of the assault: its choice is among the opposing "
    "Pals only.",
)
class OnAttackChoiceOpposing(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        return _owned(g, options, carrier(g, effect, "attack"), own=False)


@mutant(
    "on-attack-choice-excludes-target",
    "on-attack.1",
    "The Pal under attack is read as engaged: an On Attack ability may not choose the "
    "attack's own target.",
)
class OnAttackChoiceExcludesTarget(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if g.attack is None or carrier(g, effect, "attack") is None:
            return options
        return [o for o in options if o != g.attack.target]


@dataclass(frozen=True, slots=True)
class SeriousPump(Effect):
    """Serious's effect, told apart from any other `pump` (no misreading by itself)."""


@mutant(
    "serious-chooses-only-standing-pals",
    "serious.1",
    "Serious is read as readying a Pal for battle: its choice is among the standing Pals of "
    "either battle area only.",
)
class SeriousChoosesOnlyStanding(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        effects = super().triggered_effects(card, event)
        if event != "assign":
            return effects
        # B-17: a card's keyword abilities come first, and Serious is the one keyword that
        # triggers on assigning
        serious = len(card.card.instances("serious"))
        marked: list[Effect] = [
            SeriousPump(e.op, target=e.target, amount=e.amount) for e in effects[:serious]
        ]
        return marked + effects[serious:]

    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if isinstance(effect, SeriousPump):
            return [o for o in options if g.cards[o].state == "stand"]
        return options


@mutant(
    "activate-choice-only-own-pals",
    "B-9a",
    "An activated ability is read as acting for its controller: its choice is among the "
    "controller's own Pals only.",
)
class ActivateChoiceOwn(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        return _owned(g, options, carrier(g, effect, "activate"), own=True)


@mutant(
    "event-choice-only-opposing-pals",
    "B-9",
    "An event is read as played against the opponent: its choice is among the opposing Pals only.",
)
class EventChoiceOpposing(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        return _owned(g, options, carrier(g, effect, "event"), own=False)


# ---------------------------------------------------------------- by the effect, or the Pal


@mutant(
    "destroy-chooses-only-rested-pals",
    "B-19",
    "A `destroy` effect is read by analogy with attacks (B-11): it may choose only a rested Pal.",
)
class DestroyOnlyRested(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if effect.op == "destroy":
            return [o for o in options if g.cards[o].state == "rest"]
        return options


@mutant(
    "pump-chooses-only-standing-pals",
    "B-19",
    "A `pump` is read as readying a Pal for battle: it may choose only a standing Pal.",
)
class PumpOnlyStanding(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if effect.op == "pump":
            return [o for o in options if g.cards[o].state == "stand"]
        return options


@mutant(
    "rest-chooses-only-opposing-pals",
    "B-19",
    "A `rest` effect is read as aimed at the opponent: it may choose only opposing Pals.",
)
class RestOnlyOpposing(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        _refuse_choice_of(g, pending, "rest", True, "is your own Pal")


@mutant(
    "stand-chooses-only-own-pals",
    "B-19",
    "A `stand` effect is read as helping its controller: it may choose only their own Pals.",
)
class StandOnlyOwn(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        _refuse_choice_of(g, pending, "stand", False, "is not your Pal")


@mutant(
    "quick-step-choice-excludes-combat-pals",
    "B-14",
    "The attacker and its target are read as locked in the attack: a card used in the quick "
    "step may not choose either of them.",
)
class QuickStepChoiceExcludesCombat(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        options = super().choice_options(g, effect)
        if g.step == "quick" and g.attack is not None:
            locked = {g.attack.attacker, g.attack.target}
            return [o for o in options if o not in locked]
        return options


@mutant(
    "stealth-pal-cannot-be-chosen",
    "stealth.1",
    "Stealth is read as hiding its Pal from effects as well: a Stealth Pal cannot be chosen "
    "by the opponent's abilities.",
)
class StealthPalCannotBeChosen(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        for p in pending:
            if p.choice is not None:
                card = g.cards[p.choice]
                if card.owner != p.controller and card.has("stealth"):
                    raise Refusal("illegal-target", f"{card.id!r} has Stealth")
