"""The fourteen keywords of section 12: one class each, one home per rule.

Each keyword is a small object with the hooks below; the rules engine (`oracle.rules` and its
mixins) calls the hooks and never tests for a keyword by name, so a reader who wants Taunt
reads `Taunt` here, and a mutant (a deliberate misreading, `palconf.mutants`) replaces one
class.

The hook contract: what each hook is asked, when, and what the engine does with the answer.
A hook only answers; it changes nothing (no argument, no game).

Triggered and power hooks, asked once per *instance* of the keyword on a card:

- `triggered(card, event, instance)` → effects that trigger for one instance when `event`
  happens to its card: "deploy", "attack", "assign", "end-of-turn". The engine resolves a
  card's keyword instances in the order written on the card, then its `abilities` in order
  (B-17). Asked by `Rules.triggered_effects`.
- `power_bonus(game, card, instance)` → a continuous change of power (B-18). Asked by
  `Rules.power`.
- `after_battle(battle, card, instance)` → abilities that trigger on the battle's outcome
  (B-16): each a `BattleTrigger` the engine resolves in B-17 order; `died_after_battle` the
  same for a combat Pal put into the graveyard while those resolve. Asked by `Rules.battle`
  and `Rules.resolve_battle_triggers`.

Continuous rules of attacks, asked once per keyword *id* carried by some card in play (I-3:
one instance or several is the same), in the order of the `keywords` mapping; the keyword
itself finds the card(s) that carry it (`card.has(self.id)`), so a restriction, the cards it
protects and the cards it ignores are all in its class:

- `widen_targets(game, attacker, targets)` → the Pals (ids) `attacker` may choose as its
  attack target, given those allowed so far; starts from B-11's rested opposing Pals in
  battle. Assault. Asked by `Rules.targetable` (the `illegal-target` row of P-reasons).
- `restrict_targets(game, attacker, targets)` → the legal targets (ids and "master") of
  `attacker`, narrowed from `targets` = "master" + the targetable Pals. Taunt. Asked by
  `Rules.legal_targets` (the `taunt-required` row).
- `forbids_block(game, attacker, blocker)` → True when `blocker` (a card, or None for an
  unknown id) may not block `attacker`'s attack. Stealth. Asked by `Rules.can_block` (the
  `cannot-block` row).

What a card may be used as, asked once per keyword id on that card (I-3):

- `makes_quick(card)` → True when the card (in hand) is a Quick card that may be played in
  the quick step (quick.2). Quick. Asked by `Rules.is_quick_event`.
- `makes_interrupt(card)` → True when the card (in hand) may be used with the `interrupt`
  action (interrupt.1). Interrupt. Asked by `Rules.is_interrupt` (the `wrong-kind` row of
  `interrupt`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from .model import CardState, Effect, GameState, KeywordInstance, Lexicon, Player, other


@dataclass(frozen=True)
class Battle:
    """What happened in one battle (B-15), with last known values (B-16)."""

    attacker: str
    defender_pal: str
    dead: frozenset[str]  # combat Pals put into the graveyard by the battle itself
    strike: dict[str, int]  # last known strike of each combat Pal
    owner: dict[str, Player]


@dataclass(frozen=True)
class BattleTrigger:
    """An ability triggered by a battle: `retaliate` (put `foe` into the graveyard) or
    `damage` (`amount` to `player`)."""

    source: str
    controller: Player
    kind: str
    foe: str = ""
    player: Player | None = None
    amount: int = 0


class Keyword:
    """How a keyword is written (`name` on the card, with a number when `numbered`; or, when
    `when` is set, as an ability with that `when` and not on the card), and its hooks."""

    id: ClassVar[str]
    name: ClassVar[str]
    numbered: ClassVar[bool] = False
    when: ClassVar[str | None] = None

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return 0

    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        return targets

    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        return targets

    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return False

    def makes_quick(self, card: CardState) -> bool:
        return False

    def makes_interrupt(self, card: CardState) -> bool:
        return False

    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        return []

    def died_after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        """A combat Pal put into the graveyard while the battle's triggers resolve."""
        return []


class Quick(Keyword):
    """quick.1–3: a Quick event (and, by its own flag, a Quick activated ability) may be played
    in the quick step. The keyword is ignored on a Pal or a structure (protocol)."""

    id, name = "quick", "Quick"

    def makes_quick(self, card: CardState) -> bool:
        """quick.2: an event with Quick may be played in the quick step; on a Pal or a
        structure the keyword does nothing (protocol, P-state)."""
        return card.card.kind == "event"


class OnDeploy(Keyword):
    """on-deploy.1–2: abilities with `when = "deploy"` trigger when their card is deployed
    (B-7), and on no other move. Written as abilities, not as a keyword on the card."""

    id, name, when = "on-deploy", "On Deploy", "deploy"


class OnAttack(Keyword):
    """on-attack.1–2: abilities with `when = "attack"` trigger when their card attacks (B-12),
    not when it blocks or is attacked."""

    id, name, when = "on-attack", "On Attack", "attack"


class OnAssign(Keyword):
    """on-assign.1: abilities with `when = "assign"` trigger when their card is assigned (B-8)."""

    id, name, when = "on-assign", "On Assign", "assign"


class Brave(Keyword):
    """brave.1–3: "Brave N" means "[On Attack], this card's power increases by N until end of
    turn"."""

    id, name, numbered = "brave", "Brave", True

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "attack":
            return [Effect("pump", target="self", amount=instance.number or 0)]
        return []


class Serious(Keyword):
    """serious.1–2: "Serious N" means "[On Assign] choose 1 Pal; its power increases by N until
    end of turn"."""

    id, name, numbered = "serious", "Serious", True

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "assign":
            return [Effect("pump", target="chosen", amount=instance.number or 0)]
        return []


class Interrupt(Keyword):
    """interrupt.1–4: [Quick] [pay 1, discard this card] OR [discard this card and 1 other card
    from hand] — nullify the opponent's attack. Here: a card with Interrupt may be used with
    the `interrupt` action. Its timing (the quick step, the defending player: interrupt.1),
    its two costs (interrupt.2–3) and its effect (the attack ends at once: interrupt.4) are
    rows and moves of that action: `Rules.check_interrupt` and `Rules.move_interrupt`."""

    id, name = "interrupt", "Interrupt"

    def makes_interrupt(self, card: CardState) -> bool:
        return True


class Vigilance(Keyword):
    """vigilance.1–2: at the end of your turn, stand this card."""

    id, name = "vigilance", "Vigilance"

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "end-of-turn":
            return [Effect("stand", target="self")]
        return []


class Taunt(Keyword):
    """taunt.1–4: the opponent must target this card if it can be targeted for an attack; any
    one of several; not cumulative; a Taunt card that cannot be targeted does not count."""

    id, name = "taunt", "Taunt"

    def restrict_targets(
        self, game: GameState, attacker: CardState, targets: list[str]
    ) -> list[str]:
        """taunt.1: if a Taunt Pal can be targeted, the attack must target one, so neither
        the master nor another Pal is legal; taunt.2: any one of several Taunt Pals;
        taunt.3: two instances are one (only whether the Pal has Taunt counts); taunt.4: a
        Taunt Pal that cannot be targeted (standing, without Assault; on a structure) does
        not count, because only the Pals in `targets` are looked at. Taunt binds only the
        opponent's attackers: `targets` holds only opposing Pals."""
        taunting = [t for t in targets if t != "master" and game.cards[t].has(self.id)]
        return taunting or targets


class Stealth(Keyword):
    """stealth.1: this card cannot be blocked."""

    id, name = "stealth", "Stealth"

    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        """stealth.1: an attack by a Stealth Pal cannot be blocked, by any Pal. The blocker's
        and the target's own Stealth do not matter."""
        return attacker.has(self.id)


class Retaliate(Keyword):
    """retaliate.1–2: when this Pal, having battled, is put into the graveyard (by the battle
    or by that attack's triggers), put the opposing combat Pal into the graveyard."""

    id, name = "retaliate", "Retaliate"

    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        if card.id not in battle.dead:
            return []
        foe = battle.defender_pal if card.id == battle.attacker else battle.attacker
        return [BattleTrigger(card.id, card.owner, "retaliate", foe=foe)]

    def died_after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        """The same trigger when the Pal goes to the graveyard while the attack's triggers
        resolve (an opposing Retaliate): it finds its foe already gone (I-2)."""
        foe = battle.defender_pal if card.id == battle.attacker else battle.attacker
        return [BattleTrigger(card.id, card.owner, "retaliate", foe=foe)]


class Nocturnal(Keyword):
    """nocturnal.1–2: if it is night, this card's power increases by 300."""

    id, name = "nocturnal", "Nocturnal"
    BONUS: ClassVar[int] = 300

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return self.BONUS if game.night else 0


class Breakthrough(Keyword):
    """breakthrough.1–2: if the opposing combat Pal is put into the graveyard (by the battle,
    I-7) while this card is attacking, deal its master damage equal to this card's strike
    (its last known strike, I-1)."""

    id, name = "breakthrough", "Breakthrough"

    def after_battle(
        self, battle: Battle, card: CardState, instance: KeywordInstance
    ) -> list[BattleTrigger]:
        if card.id != battle.attacker or battle.defender_pal not in battle.dead:
            return []
        master = battle.owner[battle.defender_pal]
        return [
            BattleTrigger(
                card.id, card.owner, "damage", player=master, amount=battle.strike[card.id]
            )
        ]


class Assault(Keyword):
    """assault.1–2: this card can choose a Pal in the stand state as an attack target."""

    id, name = "assault", "Assault"

    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        """assault.1: an attacker with Assault may also target the opposing Pals in the stand
        state in the battle area (not on a structure: B-8); assault.2: only this card, not
        its side. The opposing battle area's order is kept."""
        if not attacker.has(self.id):
            return targets
        allowed = set(targets)
        opposing = game.zone(other(attacker.owner), "battle")
        ids = {c.id for c in opposing}
        return [c.id for c in opposing if c.id in allowed or c.state == "stand"] + [
            t for t in targets if t not in ids
        ]


KEYWORDS: Mapping[str, Keyword] = {
    k.id: k
    for k in (
        Quick(),
        OnDeploy(),
        OnAttack(),
        OnAssign(),
        Brave(),
        Serious(),
        Interrupt(),
        Vigilance(),
        Taunt(),
        Stealth(),
        Retaliate(),
        Nocturnal(),
        Breakthrough(),
        Assault(),
    )
}


def lexicon_of(keywords: Mapping[str, Keyword]) -> Lexicon:
    """What a STATE may write of these keywords (`oracle.model.Lexicon`)."""
    return Lexicon(
        words={k.name: k.id for k in keywords.values() if k.when is None},
        numbered=frozenset(k.id for k in keywords.values() if k.numbered),
        whens={k.when: k.id for k in keywords.values() if k.when is not None},
    )


#: Keyword ids of section 12 as the base game (rules 1.00) has them, in the order of the text.
KEYWORD_IDS: tuple[str, ...] = tuple(KEYWORDS)
BASE_LEXICON = lexicon_of(KEYWORDS)
#: How keywords are written on a card (protocol: "written as on the card").
KEYWORD_NAMES: Mapping[str, str] = BASE_LEXICON.words
NUMBERED: frozenset[str] = BASE_LEXICON.numbered
#: An ability's `when` and the keyword that names it.
WHEN_KEYWORD: Mapping[str, str] = BASE_LEXICON.whens
