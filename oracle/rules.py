"""The rules engine: `Rules`, the one class a mutant subclasses, made of mixins by area.

`Rules` holds a `GameState` and speaks the shapes of protocol v1 in-process:
`apply(action)` → None (accepted) or a `Refusal` (reason code + message, state unchanged);
`reasons(action)` → every row of P-reasons the action breaks; `observe()` → OBSERVED;
`legal()` → LEGAL.

Where things are (each a mixin of `Rules`, each method overridable by a mutant):

- `oracle.base`: `Refusal`, `Pending`; derived values (power, triggers, attack targets,
  blocks, Quick, Interrupt), and the one place each keyword hook is asked.
- `oracle.checks`: the rows of P-reasons before the move, `check_shape` and `check_<do>`.
- `oracle.moves`: `move_<do>` and `after_<do>`: what each action does; the block and quick
  steps; the end of a turn.
- `oracle.battle`: the battle and what its outcome triggers; the end of an attack.
- `oracle.effects`: choices, resolving effects, the graveyard, life.
- `oracle.legal`: LEGAL.

An action goes through three stages:
1. `check_<do>`: the refusals that need no trial, in the protocol's reason order; no change.
2. `move_<do>`: on a copy of the state, the action's own move (pay, move, rest) and the
   abilities it triggers, as a list of `Pending`.
3. the choices of the pending abilities are checked against the copy (B-17); if one is
   missing or illegal the copy is dropped (illegal-target); else they resolve and the copy
   becomes the state.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .base import Pending, Refusal
from .checks import ACTION_FIELDS
from .legal import LegalRules
from .model import PLAYERS, GameState, Lexicon
from .model import load_state as _load_state

__all__ = ["ACTION_FIELDS", "Pending", "Refusal", "Rules", "load_state"]


class Rules(LegalRules):
    """A game under the rules. Subclass and override one method to make a mutant."""

    @classmethod
    def from_state(cls, data: Any) -> Rules:
        return cls(_load_state(data, cls.lexicon()))

    # ------------------------------------------------------------------ protocol surface

    def apply(self, action: Any) -> Refusal | None:
        """Apply an ACTION. Returns None if accepted, else the Refusal (state unchanged)."""
        try:
            g = self.try_action(self.state, action)
        except Refusal as refusal:
            return refusal
        self.state = g
        return None

    def try_action(self, state: GameState, action: Any) -> GameState:
        """The state after `action`, or raise Refusal (the first row of P-reasons it breaks,
        naming the others it breaks before the move in `also`). `state` is never changed."""
        if state.step == "over":
            raise Refusal("game-over", "the game is over")
        do = self.check_shape(action).replace("-", "_")
        refusals = iter(getattr(self, "check_" + do)(state, action))
        first = next(refusals, None)
        if first is not None:
            also = tuple(r.reason for r in refusals)
            raise Refusal(first.reason, first.message, also) if also else first
        g = state.copy()
        pending = getattr(self, "move_" + do)(g, action)
        self.bind_choices(g, pending, action.get("choose", []))
        self.resolve(g, pending)
        if g.step != "over":
            getattr(self, "after_" + do, lambda g, a: None)(g, action)
        return g

    def reasons(self, action: Any) -> list[Refusal]:
        """Every row of P-reasons that `action` breaks now, in the table's order: `[]` exactly
        when `apply(action)` would accept it, and else its first is the refusal `apply`
        gives. A row that cannot be evaluated because an earlier one failed is not listed:
        after `game-over` or `invalid-action` nothing is; after `not-found` nothing about
        the card; and the choices (the last row), checked against the state right after the
        action's own move, only when no earlier row fails, since a move those rows forbid
        has no such state."""
        state = self.state
        if state.step == "over":
            return [Refusal("game-over", "the game is over")]
        try:
            do = self.check_shape(action).replace("-", "_")
        except Refusal as refusal:
            return [refusal]
        found = list(getattr(self, "check_" + do)(state, action))
        if found:
            return found
        try:
            self.try_action(state, action)
        except Refusal as refusal:
            return [refusal]
        return []

    def observe(self) -> dict[str, Any]:
        g = self.state
        # one pass over the cards in id order (not one per zone, nor a sort per list): each
        # card's entry, the ids by owner and zone and the Pals on each structure, each list
        # in id order as it is filled
        cards: dict[str, dict[str, Any]] = {}
        ids: dict[tuple[str, str], list[str]] = defaultdict(list)
        held: dict[str | None, list[str]] = defaultdict(list)
        for cid, c in sorted(g.cards.items()):
            cards[cid] = {
                "zone": c.zone,
                "owner": c.owner,
                "state": c.state if c.in_play else None,
                "power": self.power(g, c),
                "strike": c.card.strike if c.card.kind == "pal" else None,
            }
            ids[c.owner, c.zone].append(cid)
            if c.zone == "assigned":
                held[c.host].append(cid)
        players: dict[str, Any] = {}
        for p in PLAYERS:
            players[p] = {
                "life": g.life[p],
                "energy": g.energy[p],
                "hand": ids[p, "hand"],
                "battle": ids[p, "battle"],
                "structures": {s: held[s] for s in ids[p, "structures"]},
                "graveyard": ids[p, "graveyard"],
            }
        attack = None
        if g.attack is not None:
            attack = {
                "attacker": g.attack.attacker,
                "target": g.attack.target,
                "blocked": g.attack.blocked,
            }
        return {
            "active": g.active,
            "turn": g.turn,
            "night": g.night,
            "winner": g.winner,
            "step": g.step,
            "priority": g.priority,
            "attack": attack,
            "players": players,
            "cards": cards,
        }


def load_state(data: Any, lexicon: Lexicon | None = None) -> GameState:
    """A STATE loaded as a game (`oracle.model.load_state`), with the keywords of `lexicon`,
    by default those of `Rules` (the base game). Raises StateError."""
    return _load_state(data, lexicon or Rules.lexicon())
