"""Mutants of games in sequence (P-state's defaults, P-errors): what a new `setup` keeps of
the game before, where every game must start from its STATE alone.

Each is a `session_mutant`: a subclass of the protocol layer `Session` (oracle/protocol.py)
whose `new_game` carries one thing of `self.game` (the game before, None before the first
`setup`) into the game the STATE starts, when the STATE leaves that field out (a STATE that
writes it gets what it writes, as the oracle does). Only a case that loads a second game on
the same engine (a `{ setup = STATE }` step) can kill one; such a case fails when run alone.
"""

from __future__ import annotations

from typing import Any

from palconf.mutants import session_mutant
from palconf.oracle.protocol import Session
from palconf.oracle.rules import Rules


def _leaves_out(state: Any, key: str) -> bool:
    return isinstance(state, dict) and key not in state


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
