"""The moves of the actions, once they are allowed: `move_<do>` makes the action's own move on
a copy of the state and returns the abilities it triggers (`Pending`); `after_<do>` (where
there is one) sets the step that follows, once those have resolved. Also the block and quick
steps (B-13, B-14) and the end of a turn (B-6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Pending
from .battle import BattleRules
from .model import Attack, GameState, other


class MoveRules(BattleRules):
    """What each action does (B-6 … B-14, interrupt.2–4)."""

    # ------------------------------------------------------------------ deploy (B-7)

    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        g.energy[card.owner] -= card.card.cost
        card.zone = "battle" if card.card.kind == "pal" else "structures"
        card.state = "stand"
        return self.pending_for(card, "deploy")

    # ------------------------------------------------------------------ assign (B-8)

    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pal = g.cards[a["card"]]
        pal.zone = "assigned"
        pal.host = a["structure"]
        return self.pending_for(pal, "assign")

    # ------------------------------------------------------------------ play an event (B-9)

    def move_play(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        g.energy[card.owner] -= card.card.cost
        card.zone = "resolving"
        assert card.card.effect is not None
        return [Pending(card.id, card.owner, card.card.effect, source_is_card_in_play=False)]

    def after_play(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.after_quick_action(g)

    def after_quick_action(self, g: GameState) -> None:
        """B-14: after a quick action the other player is to act; the passes start again."""
        if g.step == "quick" and g.attack is not None and g.priority is not None:
            g.priority = other(g.priority)
            g.attack.passes = 0

    # ------------------------------------------------------------------ activate (B-9a)

    def move_activate(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        ability = card.card.abilities[a["ability"]]
        g.energy[card.owner] -= ability.cost
        return [Pending(card.id, card.owner, ability.effect)]

    def after_activate(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.after_quick_action(g)

    # ------------------------------------------------------------------ attack (B-11, B-12)

    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        attacker = g.cards[a["attacker"]]
        attacker.state = "rest"
        g.attack = Attack(attacker=attacker.id, target=a["target"], defender=other(attacker.owner))
        return self.pending_for(attacker, "attack")

    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        """B-13: the block step always happens; the defending player is to act."""
        assert g.attack is not None
        g.step = "block"
        g.priority = g.attack.defender

    # ------------------------------------------------------------------ block (B-13)

    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None
        blocker = g.cards[a["blocker"]]
        blocker.state = "rest"
        g.attack.target = blocker.id
        g.attack.blocked = True
        self.enter_quick_step(g)
        return []

    def enter_quick_step(self, g: GameState) -> None:
        """B-14: the quick step; the defending player acts first."""
        assert g.attack is not None
        g.step = "quick"
        g.priority = g.attack.defender
        g.attack.passes = 0

    # ------------------------------------------------------------------ pass (B-13, B-14)

    def move_pass(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        assert g.attack is not None and g.priority is not None
        if g.step == "block":
            self.enter_quick_step(g)
            return []
        g.attack.passes += 1
        if g.attack.passes >= 2:
            self.battle(g)
        else:
            g.priority = other(g.priority)
        return []

    # ------------------------------------------------------------------ interrupt (interrupt.2–4)

    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        if a["pay"] == "energy":
            g.energy[card.owner] -= 1  # interrupt.2: exactly 1, whatever the printed cost
        else:
            g.cards[a["discard"]].zone = "graveyard"
        card.zone = "graveyard"
        self.end_attack(g)  # interrupt.4, B-14: the attack ends at once; nothing is undone
        return []

    # ------------------------------------------------------------------ end of turn (B-6)

    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        ending = g.active
        for card in self.in_play_by_id(g, ending):
            self.resolve(g, self.pending_for(card, "end-of-turn"))
        self.end_until_end_of_turn(g)
        g.active = other(ending)
        g.turn += 1
        for card in self.in_play_by_id(g, g.active):
            card.state = "stand"
        return []

    def end_until_end_of_turn(self, g: GameState) -> None:
        g.pumps.clear()
