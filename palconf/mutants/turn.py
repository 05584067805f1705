"""Mutants of the turn (B-6: start, end, "until end of turn"), of night (B-5) and of Vigilance
(vigilance.1–2)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.oracle.keywords import Vigilance
from palconf.oracle.model import PLAYERS, CardState, Effect, GameState, KeywordInstance, other
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- end of turn (B-6)


@mutant(
    "pumps-never-expire",
    "B-6",
    '"Until end of turn" effects are never removed: the power changes stay for the rest '
    "of the game.",
)
class PumpsNeverExpire(Rules):
    def end_until_end_of_turn(self, g: GameState) -> None:
        pass


@mutant(
    "pumps-expire-at-owner-next-turn",
    "B-6",
    "An increase is read as lasting until its card's owner's next turn starts, so a pump on "
    "the active player's own Pal lasts through the opponent's turn.",
)
class PumpsExpireAtOwnersTurn(Rules):
    def end_until_end_of_turn(self, g: GameState) -> None:
        # called while the ending player is still active: the other player's turn starts now
        g.pumps = [p for p in g.pumps if g.cards[p.card].owner == g.active]


@mutant(
    "stand-at-end-of-own-turn",
    "B-6",
    "Cards stand at the end of their controller's turn rather than at the start of it, so "
    "a Pal rested on the opponent's turn stays rested into its own.",
)
class StandAtEndOfOwnTurn(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        ending = g.active
        rested = [
            c for c in g.cards.values() if c.owner != ending and c.in_play and c.state == "rest"
        ]
        pending = super().move_end_turn(g, a)
        for c in rested:
            c.state = "rest"
        for c in self.in_play_by_id(g, ending):
            c.state = "stand"
        return pending


@mutant(
    "turn-start-stands-both-players",
    "B-6",
    "At the start of a turn every card in play stands, both players' alike.",
)
class StartStandsBothPlayers(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_end_turn(g, a)
        for p in PLAYERS:
            for c in self.in_play_by_id(g, p):
                c.state = "stand"
        return pending


class _StartLeavesZoneRested(Rules):
    """At the start of a turn, the starting player's cards in `zone` stay as they were."""

    zone: str

    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        starting = other(g.active)
        rested = [
            c
            for c in g.cards.values()
            if c.owner == starting and c.zone == self.zone and c.state == "rest"
        ]
        pending = super().move_end_turn(g, a)
        for c in rested:
            c.state = "rest"
        return pending


@mutant(
    "start-stands-only-battle-area",
    "B-6",
    "Only the Pals in the battle area stand at the start of a turn, so a Pal rested on a "
    "structure stays rested (against I-9).",
)
class StartStandsOnlyBattleArea(_StartLeavesZoneRested):
    zone = "assigned"


@mutant(
    "start-stands-only-pals",
    "B-6",
    '"The active player\'s cards in play stand" is read as their Pals, so a rested structure '
    "stays rested when its controller's turn starts.",
)
class StartStandsOnlyPals(_StartLeavesZoneRested):
    zone = "structures"


@mutant(
    "pumps-expire-at-end-of-attack",
    "B-6",
    '"Until end of turn" is read as "until the end of the attack": every increase ends '
    "when an attack ends.",
)
class PumpsExpireAtEndOfAttack(Rules):
    def end_attack(self, g: GameState) -> None:
        super().end_attack(g)
        g.pumps.clear()


@mutant(
    "pumps-last-until-owners-turn-ends",
    "B-6",
    '"Until end of turn" is read as "until the end of its card\'s controller\'s turn", so '
    "an increase given to the opponent's Pal lasts through the opponent's next turn.",
)
class PumpsLastUntilOwnersTurnEnds(Rules):
    def end_until_end_of_turn(self, g: GameState) -> None:
        # called while the ending player is still active
        g.pumps = [p for p in g.pumps if g.cards[p.card].owner != g.active]


@mutant(
    "night-ends-at-end-of-turn",
    "B-5",
    'Night is read as an "until end of turn" effect, so it ends at the end of the turn '
    "it was set in.",
)
class NightEndsAtEndOfTurn(Rules):
    def end_until_end_of_turn(self, g: GameState) -> None:
        super().end_until_end_of_turn(g)
        g.night = False


@mutant(
    "night-ends-at-setters-next-turn",
    "B-5",
    "Night is read as lasting until the start of the next turn of the player whose effect "
    "made it night.",
)
class NightEndsAtSettersNextTurn(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        super().resolve_effect(g, p)
        if p.effect.op == "night" and p.effect.value:
            # never reset: `move_end_turn` also runs on LEGAL's trial copies
            self.__dict__["night_setter"] = p.controller

    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_end_turn(g, a)
        if self.__dict__.get("night_setter") == g.active:
            g.night = False
        return pending


# ---------------------------------------------------------------- Vigilance (vigilance.1–2)


@keyword_mutant(
    "vigilance-ignored",
    "vigilance.1",
    "Vigilance is taken for flavour text: nothing happens at the end of its controller's turn.",
)
class VigilanceIgnored(Vigilance):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []


@mutant(
    "vigilance-attacks-without-resting",
    "vigilance.1",
    "Vigilance is read as in other card games: attacking does not rest the card at all.",
)
class VigilanceNoRest(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        attacker = g.cards[a["attacker"]]
        if attacker.has("vigilance"):
            attacker.state = "stand"
        return pending


@mutant(
    "vigilance-stands-every-card",
    "vigilance.2",
    'Vigilance is read as a game-wide "stand step": at the end of its controller\'s turn '
    "every card in play stands, both players' alike.",
)
class VigilanceStandsEverything(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        if any(c.has("vigilance") for c in self.in_play_by_id(g, g.active)):
            for p in PLAYERS:
                for c in self.in_play_by_id(g, p):
                    c.state = "stand"
        return super().move_end_turn(g, a)


@keyword_mutant(
    "vigilance-only-in-battle-area",
    "vigilance.1",
    "Vigilance is read as a battle-area ability, so a Vigilance Pal rested on a "
    "structure does not stand at the end of its controller's turn (against I-9).",
)
class VigilanceOnlyInBattleArea(Vigilance):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, event, instance) if card.zone == "battle" else []


@mutant(
    "vigilance-stands-after-attack",
    "vigilance.1",
    'Vigilance is read as "this card stands again after its fight": a Vigilance Pal that '
    "attacked or was attacked stands as soon as the attack ends.",
)
class VigilanceStandsAfterAttack(Rules):
    def end_attack(self, g: GameState) -> None:
        attack = g.attack
        if attack is not None:
            for cid in (attack.attacker, attack.target):
                card = g.cards.get(cid)
                if card is not None and card.zone == "battle" and card.has("vigilance"):
                    card.state = "stand"
        super().end_attack(g)


@mutant(
    "vigilance-pal-untargetable",
    "vigilance.2",
    '"Standing — and therefore untargetable" is read as Vigilance making its Pal '
    "untargetable, rested or not, except by an attacker with Assault.",
)
class VigilancePalUntargetable(Rules):
    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        # `legal_targets` (Taunt among these) follows, as it asks `targetable`
        pals = super().targetable(g, attacker)
        if attacker.has("assault"):
            return pals
        return [cid for cid in pals if not g.cards[cid].has("vigilance")]


@mutant(
    "end-turn-during-attack",
    "B-6",
    "Ending the turn is read as always open to the active player: sent in the block or quick "
    "step of their own attack, it drops the attack (no battle) and the turn ends.",
)
class EndTurnDuringAttack(Rules):
    def check_end_turn(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step in ("block", "quick") and a["player"] == g.active:
            return iter(())
        return super().check_end_turn(g, a)

    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        if g.attack is not None:
            self.end_attack(g)
        return super().move_end_turn(g, a)


def _stand_at_end_of_turn(g: GameState, cards: list[CardState]) -> None:
    for c in cards:
        c.state = "stand"


@mutant(
    "vigilance-pal-ignores-rest-effects",
    "vigilance.1",
    "Vigilance is read as keeping its card standing: a `rest` effect does nothing to a "
    "Vigilance Pal.",
)
class VigilanceIgnoresRest(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.op == "rest":
            target = self.effect_target(g, p)
            if target is not None and target.has("vigilance"):
                return
        super().resolve_effect(g, p)
