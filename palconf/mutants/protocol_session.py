"""Mutants of games in sequence (P-state's defaults, P-errors): what a new `setup` keeps of
the game before, where every game must start from its STATE alone.

Each is a `session_mutant`: a subclass of the protocol layer `Session` (oracle/protocol.py)
whose `new_game` carries one thing of `self.game` (the game before, None before the first
`setup`) into the game the STATE starts, when the STATE leaves that field out (a STATE that
writes it gets what it writes, as the oracle does). What no STATE can write (an attack under
way, a winner, until-end-of-turn pumps) is carried whenever the game before had it; life, which
every STATE writes, is read as a counter of life lost. Only a case that loads a second game on
the same engine (a `{ setup = STATE }` step) can kill one; such a case fails when run alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from palconf.mutants import session_mutant
from palconf.oracle.model import PLAYERS, Player
from palconf.oracle.protocol import Session, error
from palconf.oracle.rules import Rules


def _leaves_out(state: Any, key: str) -> bool:
    return isinstance(state, dict) and key not in state


def _raw_cards(state: Any) -> dict[str, Any]:
    """Every CARD object of a (loaded, so valid) STATE by id, assigned Pals included."""
    found: dict[str, Any] = {}
    for pdata in state["players"].values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in pdata.get(zone, []):
                found[card["id"]] = card
                found.update((pal["id"], pal) for pal in card.get("assigned", []))
    return found


def _reused(session: Session, state: Any, game: Rules, key: str) -> Iterator[tuple[Any, Any]]:
    """(old, new) CardState of each card id both games have whose new CARD leaves out `key`."""
    if session.game is None:
        return
    old = session.game.state.cards
    for cid, raw in _raw_cards(state).items():
        if cid in old and key not in raw:
            yield old[cid], game.state.cards[cid]


def _keep_card_field(session: Session, state: Any, game: Rules, key: str) -> Rules:
    """`game` with the old card's `key` on each reused id whose new CARD leaves it out."""
    for old, new in _reused(session, state, game, key):
        new.card = replace(new.card, **{key: getattr(old.card, key)})
    return game


@session_mutant(
    "session-night-kept",
    "P-state",
    "A new setup whose STATE leaves out night keeps the night of the game before.",
)
class NightKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None and _leaves_out(state, "night"):
            game.state.night = self.game.state.night
        return game


@session_mutant(
    "session-turn-kept",
    "P-state",
    "A new setup whose STATE leaves out turn goes on counting from the turn of the game before.",
)
class TurnKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None and _leaves_out(state, "turn"):
            game.state.turn = self.game.state.turn
        return game


@session_mutant(
    "session-active-kept",
    "P-state",
    "A new setup whose STATE leaves out active keeps the active player of the game before.",
)
class ActiveKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None and _leaves_out(state, "active"):
            game.state.active = self.game.state.active
        return game


@session_mutant(
    "session-energy-kept",
    "P-state",
    "A player whose new STATE leaves out energy keeps the energy of the game before.",
)
class EnergyKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None:
            for p in PLAYERS:
                if _leaves_out(state["players"][p], "energy"):
                    game.state.energy[p] = self.game.state.energy[p]
        return game


@session_mutant(
    "session-life-lost-kept",
    "P-state",
    "Life lost in the game before stays lost: a master starts below the life its new STATE writes.",
)
class LifeLostKept(Session):
    written_life: dict[Player, int]  # the life the STATE of the game before wrote

    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        written = dict(game.state.life)
        if self.game is not None:
            for p in PLAYERS:
                game.state.life[p] -= max(self.written_life[p] - self.game.state.life[p], 0)
        self.written_life = written
        return game


@session_mutant(
    "session-pumps-kept",
    "P-state",
    "Until-end-of-turn power changes of the game before stay on new cards that reuse their ids.",
)
class PumpsKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None:
            game.state.pumps = [p for p in self.game.state.pumps if p.card in game.state.cards]
        return game


@session_mutant(
    "session-attack-kept",
    "P-state",
    "A setup sent during an attack keeps the attack, its step and who has priority.",
)
class AttackKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        old = self.game.state if self.game is not None else None
        if old is not None and old.step in ("block", "quick") and old.attack is not None:
            game.state.step, game.state.priority = old.step, old.priority
            game.state.attack = replace(old.attack)
        return game


@session_mutant(
    "session-priority-kept",
    "P-state",
    "A setup sent in a block or quick step starts in the main phase but keeps who had priority.",
)
class PriorityKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None and self.game.state.step in ("block", "quick"):
            game.state.priority = self.game.state.priority
        return game


@session_mutant(
    "session-winner-kept",
    "P-state",
    "A setup after a game over keeps that game over and its winner.",
)
class WinnerKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is not None and self.game.state.step == "over":
            game.state.step, game.state.winner = "over", self.game.state.winner
        return game


@session_mutant(
    "session-card-state-kept",
    "P-state",
    "A card id in play in both games whose new CARD leaves out state keeps its stand or rest.",
)
class CardStateKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        for old, new in _reused(self, state, game, "state"):
            if old.in_play and new.in_play:
                new.state = old.state
        return game


@session_mutant(
    "session-zones-kept",
    "P-state",
    "A zone the new STATE leaves out keeps the cards that zone held in the game before.",
)
class ZonesKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        if self.game is None:
            return game
        cards = game.state.cards
        for c in self.game.state.cards.values():
            zone = "structures" if c.zone == "assigned" else c.zone
            if c.id not in cards and _leaves_out(state["players"][c.owner], zone):
                cards[c.id] = c.copy()
        return game


@session_mutant(
    "session-assigned-kept",
    "P-state",
    "A structure id in play in both games whose new CARD leaves out assigned keeps its Pals.",
)
class AssignedKept(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        cards = game.state.cards
        for old, new in _reused(self, state, game, "assigned"):
            if old.zone == new.zone == "structures" and old.owner == new.owner:
                assert self.game is not None  # _reused yields only when there was a game
                for c in self.game.state.cards.values():
                    if c.host == old.id and c.id not in cards:
                        cards[c.id] = c.copy()
        return game


@session_mutant(
    "session-keywords-kept",
    "P-state",
    "A card id both games have whose new CARD leaves out keywords keeps the old card's keywords.",
)
class KeywordsKept(Session):
    def new_game(self, state: Any) -> Rules:
        return _keep_card_field(self, state, super().new_game(state), "keywords")


@session_mutant(
    "session-abilities-kept",
    "P-state",
    "A card id both games have whose new CARD leaves out abilities keeps the old card's abilities.",
)
class AbilitiesKept(Session):
    def new_game(self, state: Any) -> Rules:
        return _keep_card_field(self, state, super().new_game(state), "abilities")


@session_mutant(
    "session-strike-kept",
    "P-state",
    "A Pal id both games have whose new CARD leaves out strike keeps the old card's strike.",
)
class StrikeKept(Session):
    def new_game(self, state: Any) -> Rules:
        return _keep_card_field(self, state, super().new_game(state), "strike")


@session_mutant(
    "session-cost-kept",
    "P-state",
    "A card id both games have whose new CARD leaves out cost keeps the old card's cost.",
)
class CostKept(Session):
    def new_game(self, state: Any) -> Rules:
        return _keep_card_field(self, state, super().new_game(state), "cost")


@session_mutant(
    "session-slots-kept",
    "P-state",
    "A structure id both games have whose new CARD leaves out slots keeps the old card's slots.",
)
class SlotsKept(Session):
    def new_game(self, state: Any) -> Rules:
        return _keep_card_field(self, state, super().new_game(state), "slots")


@session_mutant(
    "session-old-cards-observed",
    "P-state",
    "OBSERVED's `cards` is read from a card table kept for the session: the cards of the "
    "game before that the new STATE does not have are still listed there, as they last "
    "were (the zone lists are the new game's).",
)
class OldCardsObserved(Session):
    def new_game(self, state: Any) -> Rules:
        game = super().new_game(state)
        before = self.game
        old: dict[str, Any] = dict(getattr(before, "old_cards", {})) if before else {}
        if before is not None:
            old.update(before.observe()["cards"])
        game.__dict__["old_cards"] = {k: v for k, v in old.items() if k not in game.state.cards}
        return game

    def handle(self, request: Any) -> dict[str, Any]:
        response = super().handle(request)
        if isinstance(request, dict) and request.get("cmd") == "observe" and response["ok"]:
            old = getattr(self.game, "old_cards", {})
            response["state"]["cards"] = {**old, **response["state"]["cards"]}
        return response


@session_mutant(
    "errors-setup-refused-after-game-over",
    "P-errors",
    "Once the game is over every request but observe is refused, a new setup too.",
)
class SetupRefusedAfterGameOver(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if (
            isinstance(request, dict)
            and request.get("cmd") == "setup"
            and self.game is not None
            and self.game.state.step == "over"
        ):
            return error("invalid-state", "the game is over")
        return super().handle(request)
