"""Mutants of the turn (B-6: start, end, "until end of turn") and of Vigilance (vigilance.1–2)."""

from __future__ import annotations

from typing import Any, Mapping

from oracle.keywords import Vigilance
from oracle.model import PLAYERS, CardState, Effect, GameState, KeywordInstance
from oracle.rules import Pending, Rules

from . import keyword_mutant, mutant

# ---------------------------------------------------------------- end of turn (B-6)


@mutant("pumps-never-expire", "B-6",
        "\"Until end of turn\" effects are never removed: the power changes stay for the rest "
        "of the game.")
class PumpsNeverExpire(Rules):
    def end_until_end_of_turn(self, g: GameState) -> None:
        pass


@mutant("pumps-expire-at-owner-next-turn", "B-6",
        "An increase is read as lasting until its card's owner's next turn starts, so a pump on "
        "the active player's own Pal lasts through the opponent's turn.")
class PumpsExpireAtOwnersTurn(Rules):
    def end_until_end_of_turn(self, g: GameState) -> None:
        # called while the ending player is still active: the other player's turn starts now
        g.pumps = [p for p in g.pumps if g.cards[p.card].owner == g.active]


@mutant("stand-at-end-of-own-turn", "B-6",
        "Cards stand at the end of their controller's turn rather than at the start of it, so "
        "a Pal rested on the opponent's turn stays rested into its own.")
class StandAtEndOfOwnTurn(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        ending = g.active
        rested = [c for c in g.cards.values()
                  if c.owner != ending and c.in_play and c.state == "rest"]
        pending = super().move_end_turn(g, a)
        for c in rested:
            c.state = "rest"
        for c in self.in_play_by_id(g, ending):
            c.state = "stand"
        return pending


@mutant("turn-start-stands-both-players", "B-6",
        "At the start of a turn every card in play stands, both players' alike.")
class StartStandsBothPlayers(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_end_turn(g, a)
        for p in PLAYERS:
            for c in self.in_play_by_id(g, p):
                c.state = "stand"
        return pending


# ---------------------------------------------------------------- Vigilance (vigilance.1–2)


@keyword_mutant("vigilance-ignored", "vigilance.1",
                "Vigilance is taken for flavour text: nothing happens at the end of its "
                "controller's turn.")
class VigilanceIgnored(Vigilance):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []


@mutant("vigilance-attacks-without-resting", "vigilance.1",
        "Vigilance is read as in other card games: attacking does not rest the card at all.")
class VigilanceNoRest(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        attacker = g.cards[a["attacker"]]
        if attacker.has("vigilance"):
            attacker.state = "stand"
        return pending


@mutant("vigilance-stands-every-card", "vigilance.2",
        "Vigilance is read as a game-wide \"stand step\": at the end of its controller's turn "
        "every card in play stands, both players' alike.")
class VigilanceStandsEverything(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        if any(c.has("vigilance") for c in self.in_play_by_id(g, g.active)):
            for p in PLAYERS:
                for c in self.in_play_by_id(g, p):
                    c.state = "stand"
        return super().move_end_turn(g, a)
