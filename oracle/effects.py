"""Effects (B-17, B-19, B-20, B-10): choosing their targets right after the move, resolving
them in order, and the primitives they use (to the graveyard, losing life)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Pending, Refusal, RulesBase
from .model import CardState, Effect, GameState, Player, Pump, other


class EffectRules(RulesBase):
    """Choices and the resolution of pending effects."""

    def put_into_graveyard(self, g: GameState, card: CardState) -> None:
        """B-10: the card leaves play; every effect on it ends."""
        card.zone = "graveyard"
        card.state = "stand"
        card.host = None
        g.pumps = [p for p in g.pumps if p.card != card.id]

    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        g.life[player] -= amount
        if g.life[player] <= 0:  # B-20: loses at once
            g.winner = other(player)
            g.step = "over"
            g.attack = None
            g.priority = None

    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        """B-17, B-19: the Pals a `chosen` target may be, checked right after the move."""
        return sorted(c.id for c in g.battle_pals()) if effect.needs_choice else []

    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        """The last row of P-reasons: each ability that needs a choice takes the next `choose`
        entry, which must be one of its options (illegal-target); surplus entries are
        ignored."""
        entries = iter(choose)
        for p in pending:
            options = self.choice_options(g, p.effect)
            if not options:
                continue  # no legal option: takes no entry, does nothing
            entry = next(entries, None)
            if entry is None:
                raise Refusal(
                    "illegal-target",
                    f"an ability of {p.source!r} needs a choice (one of {', '.join(options)})",
                )
            if entry not in options:
                raise Refusal(
                    "illegal-target", f"{entry!r} cannot be chosen (one of {', '.join(options)})"
                )
            p.choice = entry

    def resolve(self, g: GameState, pending: Iterable[Pending]) -> None:
        pending = list(pending)
        self.resolve_in_order(g, pending)
        for p in pending:  # a played event goes to the graveyard, game over or not (B-20)
            card = g.cards[p.source]
            if card.zone == "resolving":
                card.zone = "graveyard"

    def resolve_in_order(self, g: GameState, pending: list[Pending]) -> None:
        for p in pending:
            if g.step == "over":
                break  # B-20: what has not resolved yet never does
            self.resolve_effect(g, p)

    def effect_target(self, g: GameState, p: Pending) -> CardState | None:
        if p.effect.target == "self":
            card = g.cards[p.source]
            return card if p.source_is_card_in_play and card.in_play else None
        if p.effect.target == "chosen" and p.choice is not None:
            card = g.cards[p.choice]
            return card if card.zone == "battle" else None  # left the battle area: unaffected
        return None

    def resolve_effect(self, g: GameState, p: Pending) -> None:
        e = p.effect
        if e.op in ("pump", "rest", "stand", "destroy"):
            target = self.effect_target(g, p)
            if target is None:
                return
            if e.op == "pump":
                if target.card.kind == "pal":
                    g.pumps.append(Pump(target.id, e.amount))
            elif e.op == "destroy":
                self.put_into_graveyard(g, target)
            else:
                target.state = "rest" if e.op == "rest" else "stand"
        elif e.op == "damage":
            self.lose_life(g, p.controller if e.player == "self" else other(p.controller), e.amount)
        elif e.op == "night":
            g.night = e.value
        elif e.op == "energy":
            g.energy[p.controller] += e.amount
