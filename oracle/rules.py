"""The rules engine: checking and applying actions, battle, turns, and the legal actions.

`Rules` holds a `GameState` and speaks the shapes of protocol v1 in-process:
`apply(action)` → None (accepted) or a `Refusal` (reason code + message, state unchanged);
`observe()` → OBSERVED; `legal()` → LEGAL.

An action goes through three stages, each a method so that a mutant can override one:
1. `check_<do>`: the refusals that need no trial, in the protocol's reason order; no change.
2. `move_<do>`: on a copy of the state, the action's own move (pay, move, rest) and the
   abilities it triggers, as a list of `Pending`.
3. the choices of the pending abilities are checked against the copy (B-17); if one is
   missing or illegal the copy is dropped (illegal-target); else they resolve and the copy
   becomes the state.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from .keywords import KEYWORDS, Battle, BattleTrigger, Keyword
from .model import (
    PLAYERS, Attack, CardState, Effect, GameState, Player, Pump, WHEN_KEYWORD, load_state, other,
)

ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "deploy": ("card",),
    "assign": ("card", "structure"),
    "play": ("card",),
    "activate": ("card", "ability"),
    "attack": ("attacker", "target"),
    "block": ("blocker",),
    "interrupt": ("card", "pay"),
    "pass": (),
    "end-turn": (),
}


@dataclass(frozen=True)
class Refusal(Exception):
    reason: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"ok": False, "error": "illegal", "reason": self.reason, "message": self.message}


@dataclass
class Pending:
    """A triggered or played effect waiting to resolve, with its source and controller."""

    source: str
    controller: Player
    effect: Effect
    source_is_card_in_play: bool = True  # False for an event: its `self` finds nothing
    choice: str | None = None


def _refuse(reason: str, message: str) -> Refusal:
    return Refusal(reason, message)


class Rules:
    """A game under the rules. Subclass and override one method to make a mutant."""

    keywords: Mapping[str, Keyword] = KEYWORDS

    def __init__(self, state: GameState) -> None:
        self.state = state

    @classmethod
    def from_state(cls, data: Any) -> "Rules":
        return cls(load_state(data))

    # ------------------------------------------------------------------ derived values

    def kw(self, keyword: str) -> Keyword:
        return self.keywords[keyword]

    def has(self, card: CardState, hook: str) -> bool:
        """Whether any keyword instance of `card` answers the hook (a `Keyword` method name,
        e.g. "is_taunting") with True. I-3: one instance or several is the same for these."""
        return any(getattr(self.kw(k.id), hook)() for k in card.card.keywords)

    def power(self, g: GameState, card: CardState) -> int | None:
        """B-18: printed power + continuous bonuses + until-end-of-turn effects, floor 0.
        Out of play, a Pal's power is its printed power."""
        if card.card.kind != "pal":
            return None
        if not card.in_play:
            return card.card.power
        total = card.card.power
        for inst in card.card.keywords:
            total += self.kw(inst.id).power_bonus(g, card, inst)
        total += sum(p.amount for p in g.pumps if p.card == card.id)
        return max(0, total)

    def is_quick_event(self, card: CardState) -> bool:
        return card.card.kind == "event" and self.has(card, "makes_event_quick")

    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        """B-17: a card's keyword abilities in the order written, then its `abilities`."""
        effects: list[Effect] = []
        for inst in card.card.keywords:
            effects += self.kw(inst.id).triggered(card, event, inst)
        when = {"deploy": "deploy", "attack": "attack", "assign": "assign"}.get(event)
        if when and WHEN_KEYWORD[when] in self.keywords:
            effects += [a.effect for a in card.card.abilities if a.when == when]
        return effects

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        """B-11 with Assault and Taunt: the targets this attacker may choose now."""
        opponent = other(attacker.owner)
        assault = self.has(attacker, "may_target_standing")
        pals = [c for c in g.zone(opponent, "battle") if c.state == "rest" or assault]
        taunting = [c.id for c in pals if self.has(c, "is_taunting")]
        if taunting:
            return taunting
        return ["master"] + [c.id for c in pals]

    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        """B-11 and Assault, before Taunt: the Pals this attacker could choose at all."""
        opponent = other(attacker.owner)
        assault = self.has(attacker, "may_target_standing")
        return [c.id for c in g.zone(opponent, "battle") if c.state == "rest" or assault]

    def can_block(self, g: GameState, blocker_id: str) -> bool:
        attack = g.attack
        assert attack is not None
        attacker = g.cards.get(attack.attacker)
        if attacker is not None and self.has(attacker, "prevents_block"):
            return False
        blocker = g.cards.get(blocker_id)
        return (blocker is not None and blocker.owner == attack.defender
                and blocker.zone == "battle" and blocker.state == "stand"
                and blocker.id != attack.target)

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
        """The state after `action`, or raise Refusal. `state` is never changed."""
        if state.step == "over":
            raise _refuse("game-over", "the game is over")
        do = self.check_shape(action)
        getattr(self, "check_" + do.replace("-", "_"))(state, action)
        g = state.copy()
        pending = getattr(self, "move_" + do.replace("-", "_"))(g, action)
        self.bind_choices(g, pending, action.get("choose", []))
        self.resolve(g, pending)
        if g.step != "over":
            getattr(self, "after_" + do.replace("-", "_"), lambda g, a: None)(g, action)
        return g

    def observe(self) -> dict[str, Any]:
        g = self.state
        # one pass over the cards (not one per zone): the ids by owner and zone, and the
        # Pals on each structure
        ids: dict[tuple[str, str], list[str]] = defaultdict(list)
        held: dict[str | None, list[str]] = defaultdict(list)
        for c in g.cards.values():
            ids[c.owner, c.zone].append(c.id)
            if c.zone == "assigned":
                held[c.host].append(c.id)
        players: dict[str, Any] = {}
        for p in PLAYERS:
            players[p] = {
                "life": g.life[p], "energy": g.energy[p],
                "hand": sorted(ids[p, "hand"]),
                "battle": sorted(ids[p, "battle"]),
                "structures": {s: sorted(held[s]) for s in ids[p, "structures"]},
                "graveyard": sorted(ids[p, "graveyard"]),
            }
        cards = {
            cid: {"zone": c.zone, "owner": c.owner,
                  "state": c.state if c.in_play else None,
                  "power": self.power(g, c),
                  "strike": c.card.strike if c.card.kind == "pal" else None}
            for cid, c in sorted(g.cards.items())
        }
        attack = None
        if g.attack is not None:
            attack = {"attacker": g.attack.attacker, "target": g.attack.target,
                      "blocked": g.attack.blocked}
        return {"active": g.active, "turn": g.turn, "night": g.night, "winner": g.winner,
                "step": g.step, "priority": g.priority, "attack": attack,
                "players": players, "cards": cards}

    # ------------------------------------------------------------------ shape and timing

    def check_shape(self, action: Any) -> str:
        if not isinstance(action, dict):
            raise _refuse("invalid-action", "an action must be an object")
        do = action.get("do")
        if do not in ACTION_FIELDS:
            raise _refuse("invalid-action", f"unknown action `do` = {do!r}")
        if action.get("player") not in PLAYERS:
            raise _refuse("invalid-action", "`player` must be \"A\" or \"B\"")
        for name in ACTION_FIELDS[do]:
            if name not in action:
                raise _refuse("invalid-action", f"`{do}` needs `{name}`")
        for name in ("card", "structure", "attacker", "target", "blocker"):
            if name in action and not isinstance(action[name], str):
                raise _refuse("invalid-action", f"`{name}` must be a string")
        if do == "activate" and (not isinstance(action["ability"], int)
                                 or isinstance(action["ability"], bool)):
            raise _refuse("invalid-action", "`ability` must be an integer")
        if do == "interrupt":
            if action["pay"] not in ("energy", "discard"):
                raise _refuse("invalid-action", "`pay` must be \"energy\" or \"discard\"")
            if "discard" in action and not isinstance(action["discard"], str):
                raise _refuse("invalid-action", "`discard` must be a string")
        choose = action.get("choose", [])
        if not isinstance(choose, list) or not all(isinstance(c, str) for c in choose):
            raise _refuse("invalid-action", "`choose` must be a list of card ids")
        return do

    def check_main_phase(self, g: GameState, action: Mapping[str, Any]) -> None:
        """B-7/B-8/B-11/B-6: the active player's main phase, no attack under way."""
        if g.step != "main":
            raise _refuse("wrong-timing", f"`{action['do']}` is only possible in a main phase "
                                          f"with no attack under way (now: {g.step} step)")
        if action["player"] != g.active:
            raise _refuse("wrong-player", f"it is {g.active}'s main phase")

    def check_quick_timing(self, g: GameState, action: Mapping[str, Any],
                           is_quick: Callable[[], bool | None]) -> None:
        """B-9, B-9a, B-14: main phase (active player) or, if Quick, the quick step (the
        player with priority). `is_quick()` is None when the card cannot be found."""
        if g.step == "block":
            raise _refuse("wrong-timing", "only `block` or `pass` in the block step")
        if g.step == "main":
            if action["player"] != g.active:
                raise _refuse("wrong-player", f"it is {g.active}'s main phase")
            return
        if action["player"] != g.priority:
            raise _refuse("wrong-player", f"{g.priority} is to act in the quick step")
        if is_quick() is False:
            raise _refuse("wrong-timing", "without Quick it cannot be used in the quick step")

    # ------------------------------------------------------------------ deploy (B-7)

    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.check_main_phase(g, a)
        card = g.cards.get(a["card"])
        if card is None or card.owner != a["player"] or card.zone != "hand":
            raise _refuse("not-found", f"{a['card']!r} is not in {a['player']}'s hand")
        if card.card.kind == "event":
            raise _refuse("wrong-kind", "an event is played, not deployed")
        if card.card.cost > g.energy[a["player"]]:
            raise _refuse("cannot-pay", f"costs {card.card.cost}, energy is {g.energy[a['player']]}")

    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        g.energy[card.owner] -= card.card.cost
        card.zone = "battle" if card.card.kind == "pal" else "structures"
        card.state = "stand"
        return self.pending_for(card, "deploy")

    def pending_for(self, card: CardState, event: str) -> list[Pending]:
        return [Pending(card.id, card.owner, e) for e in self.triggered_effects(card, event)]

    # ------------------------------------------------------------------ assign (B-8)

    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.check_main_phase(g, a)
        pal = g.cards.get(a["card"])
        if pal is None or pal.owner != a["player"] or pal.zone != "battle":
            raise _refuse("not-found", f"{a['card']!r} is not a Pal of {a['player']} in battle")
        if pal.state != "stand":
            raise _refuse("cannot-assign", f"{pal.id!r} is rested")
        structure = g.cards.get(a["structure"])
        if structure is None or structure.owner != a["player"] or structure.zone != "structures":
            raise _refuse("cannot-assign", f"{a['structure']!r} is not a structure of "
                                           f"{a['player']} in play")
        held = sum(1 for c in g.cards.values() if c.host == structure.id and c.zone == "assigned")
        if held >= structure.card.slots:
            raise _refuse("cannot-assign", f"{structure.id!r} has no free slot")

    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pal = g.cards[a["card"]]
        pal.zone = "assigned"
        pal.host = a["structure"]
        return self.pending_for(pal, "assign")

    # ------------------------------------------------------------------ play an event (B-9)

    def check_play(self, g: GameState, a: Mapping[str, Any]) -> None:
        card = g.cards.get(a["card"])
        mine = card is not None and card.owner == a["player"] and card.zone == "hand"
        self.check_quick_timing(g, a, lambda: self.is_quick_event(card) if mine else None)
        if not mine:
            raise _refuse("not-found", f"{a['card']!r} is not in {a['player']}'s hand")
        assert card is not None
        if card.card.kind != "event":
            raise _refuse("wrong-kind", f"{card.id!r} is a {card.card.kind}: deploy it")
        if card.card.cost > g.energy[a["player"]]:
            raise _refuse("cannot-pay", f"costs {card.card.cost}, energy is {g.energy[a['player']]}")

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

    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> None:
        card = g.cards.get(a["card"])
        index = a["ability"]
        found = (card is not None and card.owner == a["player"] and card.in_play
                 and 0 <= index < len(card.card.abilities))
        self.check_quick_timing(
            g, a, lambda: (card.card.abilities[index].quick if found and card else None))
        if not found:
            raise _refuse("not-found", f"no ability {index} of a card {a['card']!r} of "
                                       f"{a['player']} in play")
        assert card is not None
        ability = card.card.abilities[index]
        if ability.when != "activate":
            raise _refuse("wrong-kind", f"ability {index} of {card.id!r} is not activated")
        if ability.cost > g.energy[a["player"]]:
            raise _refuse("cannot-pay", f"costs {ability.cost}, energy is {g.energy[a['player']]}")

    def move_activate(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        card = g.cards[a["card"]]
        ability = card.card.abilities[a["ability"]]
        g.energy[card.owner] -= ability.cost
        return [Pending(card.id, card.owner, ability.effect)]

    def after_activate(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.after_quick_action(g)

    # ------------------------------------------------------------------ attack (B-11, B-12)

    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.check_main_phase(g, a)
        attacker = g.cards.get(a["attacker"])
        if attacker is None or attacker.owner != a["player"] or attacker.zone != "battle":
            raise _refuse("not-found", f"{a['attacker']!r} is not a Pal of {a['player']} in battle")
        if attacker.state != "stand":
            raise _refuse("cannot-attack", f"{attacker.id!r} is rested")
        target = a["target"]
        if target != "master" and target not in self.targetable(g, attacker):
            raise _refuse("illegal-target", f"{target!r} is not a legal attack target")
        allowed = self.legal_targets(g, attacker)
        if target not in allowed:
            raise _refuse("taunt-required", f"a Taunt Pal must be targeted: {', '.join(allowed)}")

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

    def check_block(self, g: GameState, a: Mapping[str, Any]) -> None:
        if g.step != "block":
            raise _refuse("wrong-timing", "`block` only in the block step")
        if a["player"] != g.priority:
            raise _refuse("wrong-player", f"{g.priority} is the defending player")
        if not self.can_block(g, a["blocker"]):
            raise _refuse("cannot-block", f"{a['blocker']!r} cannot block this attack")

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

    def check_pass(self, g: GameState, a: Mapping[str, Any]) -> None:
        if g.step not in ("block", "quick"):
            raise _refuse("wrong-timing", "`pass` only in the block or quick step")
        if a["player"] != g.priority:
            raise _refuse("wrong-player", f"{g.priority} is to act")

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

    # ------------------------------------------------------------------ interrupt (interrupt.1–4)

    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> None:
        if g.step != "quick":
            raise _refuse("wrong-timing", "Interrupt only in the quick step of an attack")
        assert g.attack is not None
        if a["player"] != g.priority:
            raise _refuse("wrong-player", f"{g.priority} is to act in the quick step")
        if a["player"] != g.attack.defender:
            raise _refuse("wrong-player", "Interrupt nullifies the opponent's attack, not your own")
        card = g.cards.get(a["card"])
        if card is None or card.owner != a["player"] or card.zone != "hand":
            raise _refuse("not-found", f"{a['card']!r} is not in {a['player']}'s hand")
        if not self.has(card, "is_interrupt"):
            raise _refuse("wrong-kind", f"{card.id!r} has no Interrupt")
        if a["pay"] == "energy":
            if g.energy[a["player"]] < 1:
                raise _refuse("cannot-pay", "Interrupt's first way costs 1 energy")
        else:
            other_card = g.cards.get(a.get("discard", ""))
            if (other_card is None or other_card.id == card.id or other_card.owner != a["player"]
                    or other_card.zone != "hand"):
                raise _refuse("cannot-pay", "Interrupt's second way discards another card "
                                            "from your hand")

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

    def check_end_turn(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.check_main_phase(g, a)

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

    @staticmethod
    def in_play_by_id(g: GameState, player: Player) -> list[CardState]:
        return sorted((c for c in g.cards.values() if c.owner == player and c.in_play),
                      key=lambda c: c.id)

    # ------------------------------------------------------------------ battle (B-15, B-16)

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
        battle = Battle(attacker=attacker.id, defender_pal=target.id, dead=frozenset(dead),
                        strike={c.id: c.card.strike for c in combat},
                        owner={c.id: c.owner for c in combat})
        for cid in sorted(dead):
            self.put_into_graveyard(g, g.cards[cid])
        triggers = [t for c in sorted(combat, key=lambda c: self.trigger_order(g, c))
                    for inst in c.card.keywords
                    for t in self.kw(inst.id).after_battle(battle, c, inst)]
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

    def resolve_battle_triggers(self, g: GameState, battle: Battle,
                                queue: list[BattleTrigger]) -> None:
        while queue and g.step != "over":
            t = queue.pop(0)
            if t.kind == "damage":
                assert t.player is not None
                self.lose_life(g, t.player, t.amount)
            elif t.kind == "retaliate":
                foe = g.cards[t.foe]
                if foe.zone == "battle":  # I-2: a Pal already in the graveyard is not moved again
                    self.put_into_graveyard(g, foe)
                    queue += [u for inst in foe.card.keywords
                              for u in self.kw(inst.id).died_after_battle(battle, foe, inst)]

    def end_attack(self, g: GameState) -> None:
        """The attack ends and main phase resumes, unless the game is over (B-20)."""
        g.attack = None
        g.priority = None
        if g.step != "over":
            g.step = "main"

    # ------------------------------------------------------------------ effects (B-19, B-20)

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
        entries = iter(choose)
        for p in pending:
            options = self.choice_options(g, p.effect)
            if not options:
                continue  # no legal option: takes no entry, does nothing
            entry = next(entries, None)
            if entry is None:
                raise _refuse("illegal-target", f"an ability of {p.source!r} needs a choice "
                                                f"(one of {', '.join(options)})")
            if entry not in options:
                raise _refuse("illegal-target", f"{entry!r} cannot be chosen "
                                                f"(one of {', '.join(options)})")
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
                target.state = e.op
        elif e.op == "damage":
            self.lose_life(g, p.controller if e.player == "self" else other(p.controller), e.amount)
        elif e.op == "night":
            g.night = e.value
        elif e.op == "energy":
            g.energy[p.controller] += e.amount

    # ------------------------------------------------------------------ LEGAL

    def candidate_actions(self, g: GameState) -> list[dict[str, Any]]:
        """A superset of the legal actions, without `choose`."""
        if g.step == "over":
            return []
        out: list[dict[str, Any]] = []
        if g.step == "block":
            assert g.priority is not None
            p = g.priority
            out += [{"do": "block", "player": p, "blocker": c.id} for c in g.zone(p, "battle")]
            return out + [{"do": "pass", "player": p}]
        p = g.active if g.step == "main" else g.priority
        assert p is not None
        hand = g.zone(p, "hand")
        for c in g.cards.values():
            if c.owner == p and c.in_play:
                out += [{"do": "activate", "player": p, "card": c.id, "ability": i}
                        for i in range(len(c.card.abilities))]
        out += [{"do": "play", "player": p, "card": c.id} for c in hand]
        if g.step == "quick":
            for c in hand:
                out.append({"do": "interrupt", "player": p, "card": c.id, "pay": "energy"})
                out += [{"do": "interrupt", "player": p, "card": c.id, "pay": "discard",
                         "discard": d.id} for d in hand if d.id != c.id]
            return out + [{"do": "pass", "player": p}]
        out += [{"do": "deploy", "player": p, "card": c.id} for c in hand]
        for pal in g.zone(p, "battle"):
            out += [{"do": "assign", "player": p, "card": pal.id, "structure": s.id}
                    for s in g.zone(p, "structures")]
            out += [{"do": "attack", "player": p, "attacker": pal.id, "target": t}
                    for t in ["master"] + [c.id for c in g.zone(other(p), "battle")]]
        return out + [{"do": "end-turn", "player": p}]

    def legal(self) -> list[dict[str, Any]]:
        """Every legal action now, choices included, in the canonical form of LEGAL."""
        g = self.state
        result: list[dict[str, Any]] = []
        for action in self.candidate_actions(g):
            try:
                self.check_shape(action)
                do = action["do"].replace("-", "_")
                getattr(self, "check_" + do)(g, action)
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
