"""LEGAL (P-legal): every legal action now, choices included, in canonical form: the candidate
actions of the step, each kept when its rows of P-reasons pass, with one entry of `choose`
per ability that needs a choice right after its move."""

from __future__ import annotations

import itertools
from typing import Any

from .base import Refusal
from .checks import CheckRules
from .model import GameState, other
from .moves import MoveRules


class LegalRules(CheckRules, MoveRules):
    """The `legal` command."""

    def candidate_actions(self, g: GameState) -> list[dict[str, Any]]:
        """A superset of the legal actions, without `choose`."""
        if g.step == "over":
            return []
        out: list[dict[str, Any]] = []
        if g.step == "block":
            defender = g.priority
            assert defender is not None
            out += [
                {"do": "block", "player": defender, "blocker": c.id}
                for c in g.zone(defender, "battle")
            ]
            return out + [{"do": "pass", "player": defender}]
        p = self.acting_player(g)
        assert p is not None
        hand = g.zone(p, "hand")
        for c in g.cards.values():
            if c.owner == p and c.in_play:
                out += [
                    {"do": "activate", "player": p, "card": c.id, "ability": i}
                    for i in range(len(c.card.abilities))
                ]
        out += [{"do": "play", "player": p, "card": c.id} for c in hand]
        if g.step == "quick":
            for c in hand:
                out.append({"do": "interrupt", "player": p, "card": c.id, "pay": "energy"})
                out += [
                    {
                        "do": "interrupt",
                        "player": p,
                        "card": c.id,
                        "pay": "discard",
                        "discard": d.id,
                    }
                    for d in hand
                    if d.id != c.id
                ]
            return out + [{"do": "pass", "player": p}]
        out += [{"do": "deploy", "player": p, "card": c.id} for c in hand]
        for pal in g.zone(p, "battle"):
            out += [
                {"do": "assign", "player": p, "card": pal.id, "structure": s.id}
                for s in g.zone(p, "structures")
            ]
            out += [
                {"do": "attack", "player": p, "attacker": pal.id, "target": t}
                for t in ["master"] + [c.id for c in g.zone(other(p), "battle")]
            ]
        return out + [{"do": "end-turn", "player": p}]

    def legal(self) -> list[dict[str, Any]]:
        """Every legal action now, choices included, in the canonical form of LEGAL."""
        g = self.state
        result: list[dict[str, Any]] = []
        for action in self.candidate_actions(g):
            try:  # a candidate is well formed: its shape needs no check
                do = action["do"].replace("-", "_")
                if next(iter(getattr(self, "check_" + do)(g, action)), None) is not None:
                    continue
                trial = g.copy()
                pending = getattr(self, "move_" + do)(trial, action)
            except Refusal:
                continue
            options = [o for o in (self.choice_options(trial, p.effect) for p in pending) if o]
            if not options:
                result.append(action)
                continue
            for combo in itertools.product(*options):
                result.append({**action, "choose": list(combo)})
        return result
