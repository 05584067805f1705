"""Mutants of refusals (B-21): an illegal action that is refused but still changes the state,
as an engine does when it changes the game before it has finished checking the action."""

from __future__ import annotations

from typing import Any

from palconf.mutants import mutant
from palconf.oracle.rules import Refusal, Rules


@mutant(
    "refused-attack-rests-attacker",
    "B-21",
    "The attacker is rested as the attack is declared, before the target is checked, and "
    "stays rested when the target is refused.",
)
class RefusedAttackRestsAttacker(Rules):
    def apply(self, action: Any) -> Refusal | None:
        refusal = super().apply(action)
        if (
            refusal is not None
            and refusal.reason in ("illegal-target", "taunt-required")
            and action.get("do") == "attack"
        ):
            attacker = self.state.cards.get(action["attacker"])
            if (
                attacker is not None
                and attacker.owner == action["player"]
                and attacker.zone == "battle"
            ):
                attacker.state = "rest"
        return refusal


@mutant(
    "refused-choice-keeps-payment",
    "B-21",
    "The cost is paid before the choices are checked and is not given back when a missing "
    "or illegal choice refuses the deploy, play or activation.",
)
class RefusedChoiceKeepsPayment(Rules):
    def apply(self, action: Any) -> Refusal | None:
        refusal = super().apply(action)
        if (
            refusal is not None
            and refusal.reason == "illegal-target"
            and action.get("do") in ("deploy", "play", "activate")
        ):
            card = self.state.cards[action["card"]]
            if action["do"] == "activate":
                cost = card.card.abilities[action["ability"]].cost
            else:
                cost = card.card.cost
            self.state.energy[card.owner] -= cost
        return refusal


@mutant(
    "refused-interrupt-discards-card",
    "B-21",
    "The Interrupt card is discarded before the second way's other card is checked, and "
    "stays in the graveyard when that payment is refused.",
)
class RefusedInterruptDiscards(Rules):
    def apply(self, action: Any) -> Refusal | None:
        refusal = super().apply(action)
        if (
            refusal is not None
            and refusal.reason == "cannot-pay"
            and action.get("do") == "interrupt"
            and action.get("pay") == "discard"
        ):
            card = self.state.cards[action["card"]]
            card.zone = "graveyard"
        return refusal


@mutant(
    "refused-end-turn-ends-pumps",
    "B-21",
    'The "until end of turn" effects are ended before the end-turn is checked, so an '
    "end-turn refused for its timing or player still ends them.",
)
class RefusedEndTurnEndsPumps(Rules):
    def apply(self, action: Any) -> Refusal | None:
        refusal = super().apply(action)
        if (
            refusal is not None
            and refusal.reason in ("wrong-timing", "wrong-player")
            and action.get("do") == "end-turn"
        ):
            self.end_until_end_of_turn(self.state)
        return refusal
