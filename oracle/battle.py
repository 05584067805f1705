"""The battle (B-15, B-16) at the end of an unnullified attack, the abilities its outcome
triggers (Retaliate, Breakthrough: their hooks `after_battle`, `died_after_battle`), and the
end of an attack."""

from __future__ import annotations

from .effects import EffectRules
from .keywords import Battle, BattleTrigger
from .model import CardState, GameState


class BattleRules(EffectRules):
    """B-15, B-16: who battles, who loses, what triggers."""

    def battle(self, g: GameState) -> None:
        attack = g.attack
        assert attack is not None
        attacker = g.cards[attack.attacker]
        if attacker.zone != "battle":
            return self.end_attack(g)
        if attack.target == "master":
            self.lose_life(g, attack.defender, attacker.card.strike)
            return self.end_attack(g)
        target = g.cards[attack.target]
        if target.zone != "battle":
            return self.end_attack(g)
        dead = self.battle_losers(g, attacker, target)
        combat = (attacker, target)
        battle = Battle(
            attacker=attacker.id,
            defender_pal=target.id,
            dead=frozenset(dead),
            strike={c.id: c.card.strike for c in combat},
            owner={c.id: c.owner for c in combat},
        )
        for cid in sorted(dead):
            self.put_into_graveyard(g, g.cards[cid])
        triggers = [
            t
            for c in sorted(combat, key=lambda c: self.trigger_order(g, c))
            for inst in c.card.keywords
            for t in self.kw(inst.id).after_battle(battle, c, inst)
        ]
        self.resolve_battle_triggers(g, battle, triggers)
        self.end_attack(g)

    def battle_losers(self, g: GameState, attacker: CardState, target: CardState) -> list[str]:
        """B-15: the one with lower power is put into the graveyard; on equal power both."""
        pa, pt = self.power(g, attacker), self.power(g, target)
        assert pa is not None and pt is not None
        if pa < pt:
            return [attacker.id]
        if pt < pa:
            return [target.id]
        return [attacker.id, target.id]

    def trigger_order(self, g: GameState, card: CardState) -> tuple[bool, str]:
        """B-17: the active player's abilities first; each player's by card id."""
        return (card.owner != g.active, card.id)

    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        while queue and g.step != "over":
            t = queue.pop(0)
            if t.kind == "damage":
                assert t.player is not None
                self.lose_life(g, t.player, t.amount)
            elif t.kind == "retaliate":
                foe = g.cards[t.foe]
                if foe.zone == "battle":  # I-2: a Pal already in the graveyard is not moved again
                    self.put_into_graveyard(g, foe)
                    queue += [
                        u
                        for inst in foe.card.keywords
                        for u in self.kw(inst.id).died_after_battle(battle, foe, inst)
                    ]

    def end_attack(self, g: GameState) -> None:
        """The attack ends and main phase resumes, unless the game is over (B-20)."""
        g.attack = None
        g.priority = None
        if g.step != "over":
            g.step = "main"
