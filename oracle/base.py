"""The base of `Rules`: the refusal and pending-effect types, and the values the rules derive
from a state and the keywords (power, triggers, attack targets, blocks, Quick, Interrupt).

Every keyword rule here is asked of the keyword classes through their hooks (the contract is
in `oracle.keywords`); this module only says *where* each hook is asked, once each:
`targetable` (widen_targets), `restricted` (restrict_targets, for `legal_targets`), `can_block`
(forbids_block), `is_quick_event` (makes_quick), `is_interrupt` (makes_interrupt),
`power` (power_bonus), `triggered_effects` (triggered).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .keywords import KEYWORDS, Keyword, lexicon_of
from .model import CardState, Effect, GameState, Lexicon, Player, other

#: keyword mapping's id → (the mapping, its lexicon): one lexicon per `Rules` class's keywords
_LEXICONS: dict[int, tuple[Mapping[str, Keyword], Lexicon]] = {}


@dataclass(frozen=True)
class Refusal(Exception):
    """A refused action: its P-reasons code and a message. `also` names the codes of the
    other rows the action breaks (`Rules.reasons`), shown after the message; it does not
    take part in comparisons."""

    reason: str
    message: str
    also: tuple[str, ...] = field(default=(), compare=False)

    def text(self) -> str:
        return self.message + (f"; also breaks: {', '.join(self.also)}" if self.also else "")

    def to_json(self) -> dict[str, Any]:
        return {"ok": False, "error": "illegal", "reason": self.reason, "message": self.text()}


@dataclass
class Pending:
    """A triggered or played effect waiting to resolve, with its source and controller."""

    source: str
    controller: Player
    effect: Effect
    source_is_card_in_play: bool = True  # False for an event: its `self` finds nothing
    choice: str | None = None


class RulesBase:
    """A game under the rules: the state, the keyword objects, and what they derive."""

    keywords: Mapping[str, Keyword] = KEYWORDS
    #: the rules version this class implements (a version's class overrides it: `oracle.versions`)
    rules_version: str = "1.00"

    def __init__(self, state: GameState) -> None:
        self.state = state

    @classmethod
    def lexicon(cls) -> Lexicon:
        """What a STATE may write of this class's keywords (`oracle.keywords.lexicon_of`)."""
        found = _LEXICONS.get(id(cls.keywords))
        if found is None or found[0] is not cls.keywords:
            found = _LEXICONS[id(cls.keywords)] = (cls.keywords, lexicon_of(cls.keywords))
        return found[1]

    def kw(self, keyword: str) -> Keyword:
        return self.keywords[keyword]

    # ------------------------------------------------------------------ which keywords are asked

    def keywords_of(self, card: CardState) -> list[Keyword]:
        """The keyword objects of `card`, one per keyword id (I-3), in the order written."""
        seen: list[str] = []
        for inst in card.card.keywords:
            if inst.id not in seen:
                seen.append(inst.id)
        return [self.kw(k) for k in seen]

    def keywords_in_play(self, g: GameState, also: CardState | None = None) -> list[Keyword]:
        """The keyword objects carried by some card in play, or by `also` wherever it is, one
        per id (I-3), in the order of the `keywords` mapping: those whose continuous rules of
        attacks apply now. `also`: the attacker of the attack under way, whose own Stealth
        still holds once it has left play (I-27)."""
        ids = {
            inst.id
            for c in g.cards.values()
            if c.card.keywords and (c.in_play or c is also)
            for inst in c.card.keywords
        }
        return [k for kid, k in self.keywords.items() if kid in ids] if ids else []

    # ------------------------------------------------------------------ derived values

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
        if g.pumps:  # most states have none: no generator to start then
            total += sum(p.amount for p in g.pumps if p.card == card.id)
        return max(0, total)

    def is_quick_event(self, card: CardState) -> bool:
        """quick.2: whether the card may be played in the quick step (`Keyword.makes_quick`)."""
        return any(k.makes_quick(card) for k in self.keywords_of(card))

    def is_interrupt(self, card: CardState) -> bool:
        """interrupt.1: whether the card may be used with `interrupt`
        (`Keyword.makes_interrupt`)."""
        return any(k.makes_interrupt(card) for k in self.keywords_of(card))

    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        """B-17: a card's keyword abilities in the order written, then its `abilities`."""
        effects: list[Effect] = []
        for inst in card.card.keywords:
            effects += self.kw(inst.id).triggered(card, event, inst)
        if event in self.lexicon().whens:  # an On Deploy / On Attack / On Assign ability
            effects += [a.effect for a in card.card.abilities if a.when == event]
        return effects

    def pending_for(self, card: CardState, event: str) -> list[Pending]:
        return [Pending(card.id, card.owner, e) for e in self.triggered_effects(card, event)]

    def targetable(self, g: GameState, attacker: CardState) -> list[str]:
        """B-11, widened by keywords (Assault), before Taunt: the Pals this attacker could
        choose at all. B-11 allows the rested Pals of the opponent's battle area."""
        pals = [c.id for c in g.zone(other(attacker.owner), "battle") if c.state == "rest"]
        for k in self.keywords_in_play(g):
            pals = k.widen_targets(g, attacker, pals)
        return pals

    def restricted(self, g: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        """`targets` narrowed by the keywords' restrictions (Taunt)."""
        for k in self.keywords_in_play(g):
            targets = k.restrict_targets(g, attacker, targets)
        return targets

    @staticmethod
    def acting_player(g: GameState) -> Player | None:
        """Who acts now: the active player in main, else the player with priority."""
        return g.active if g.step == "main" else g.priority

    def legal_targets(self, g: GameState, attacker: CardState) -> list[str]:
        """B-11 with Assault and Taunt: the targets this attacker may choose now: the master
        and the targetable Pals, narrowed by the keywords' restrictions."""
        return self.restricted(g, attacker, ["master"] + self.targetable(g, attacker))

    def can_block(self, g: GameState, blocker_id: str) -> bool:
        """B-13: a standing Pal of the defender in battle other than the target, unless a
        keyword forbids the block (Stealth)."""
        attack = g.attack
        assert attack is not None
        attacker = g.cards.get(attack.attacker)
        blocker = g.cards.get(blocker_id)
        if attacker is not None and any(
            k.forbids_block(g, attacker, blocker) for k in self.keywords_in_play(g, attacker)
        ):
            return False
        return (
            blocker is not None
            and blocker.owner == attack.defender
            and blocker.zone == "battle"
            and blocker.state == "stand"
            and blocker.id != attack.target
        )

    @staticmethod
    def in_play_by_id(g: GameState, player: Player) -> list[CardState]:
        return sorted(
            (c for c in g.cards.values() if c.owner == player and c.in_play), key=lambda c: c.id
        )
