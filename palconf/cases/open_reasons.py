"""The refusals whose REASON protocol v1 leaves open: where a case may accept a list of
reasons (docs/case-format.md), `palconf lint` asks for exactly that list, and `palconf fuzz`
takes any of them from an engine.

One point is open (I-25): an action whose `player` is a string other than "A" or "B" is
malformed (`invalid-action`, the oracle's reading) or a player who may not act now, whose
reason is then what the REASON table gives the player who may not act (`wrong-player`, or a
row checked before it, `wrong-timing`). The oracle gives one answer; this module says which
others are faithful, so the oracle itself stays one reading of the rules.
"""

from __future__ import annotations

from typing import Any

from palconf.oracle import Rules
from palconf.oracle.model import PLAYERS

#: The interpretation that leaves a refusal's reason open: what a case with a list cites.
OPEN_REASONS_RULING = "I-25"


def open_reasons(game: Rules, action: Any, own: str | None = None) -> tuple[str, ...]:
    """Every REASON a faithful engine may give for refusing `action` in `game` now: the
    oracle's own first (`game.reasons(action)[0]`), then any other the protocol leaves open;
    `()` when the action is legal. `own`: the oracle's reason, when the caller has it."""
    if own is None:
        found = game.reasons(action)
        if not found:
            return ()
        own = found[0].reason
    player = action.get("player") if isinstance(action, dict) else None
    if not isinstance(player, str) or player in PLAYERS or own == "game-over":
        return (own,)
    may_act = game.state.priority or game.state.active
    bystander = next(p for p in PLAYERS if p != may_act)
    other = game.reasons({**action, "player": bystander})
    return tuple(dict.fromkeys([own, *(r.reason for r in other[:1])]))
