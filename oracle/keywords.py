"""The fourteen keywords of section 12: one class each, one home per rule.

Each keyword is a small object with the hooks below; the rules engine (`oracle.rules`) calls
the hooks and never tests for a keyword by name, so a reader who wants Taunt reads `Taunt`
here, and a mutant (a deliberate misreading, `palconf.mutants`) replaces one class.

Hooks, and what the engine does with their answers (the dispatcher's contract):

- `triggered(card, event, instance)` → effects that trigger for one instance of the keyword
  when `event` happens to its card: "deploy", "attack", "assign", "end-of-turn". The engine
  resolves a card's keyword instances in the order written on the card, then its `abilities`
  in order (B-17).
- `power_bonus(game, card, instance)` → a continuous change of power (B-18).
- `may_target_standing`, `is_taunting`, `prevents_block`, `makes_event_quick`, `is_interrupt`
  → the continuous rules of targeting, blocking and timing.
- `after_battle(battle, card, instance)` → abilities that trigger on the battle's outcome
  (B-16): each a `BattleTrigger` the engine resolves in B-17 order; `died_after_battle` the
  same for a combat Pal put into the graveyard while those resolve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Mapping

from .model import CardState, Effect, GameState, KeywordInstance, Player


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
    id: ClassVar[str]
    name: ClassVar[str]

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return 0

    def may_target_standing(self) -> bool:
        return False

    def is_taunting(self) -> bool:
        return False

    def prevents_block(self) -> bool:
        return False

    def makes_event_quick(self) -> bool:
        return False

    def is_interrupt(self) -> bool:
        return False

    def after_battle(self, battle: Battle, card: CardState,
                     instance: KeywordInstance) -> list[BattleTrigger]:
        return []

    def died_after_battle(self, battle: Battle, card: CardState,
                          instance: KeywordInstance) -> list[BattleTrigger]:
        """A combat Pal put into the graveyard while the battle's triggers resolve."""
        return []


class Quick(Keyword):
    """quick.1–3: a Quick event (and, by its own flag, a Quick activated ability) may be played
    in the quick step. The keyword is ignored on a Pal or a structure (protocol)."""
    id, name = "quick", "Quick"

    def makes_event_quick(self) -> bool:
        return True


class OnDeploy(Keyword):
    """on-deploy.1–2: abilities with `when = "deploy"` trigger when their card is deployed
    (B-7), and on no other move. Written as abilities, not as a keyword on the card."""
    id, name = "on-deploy", "On Deploy"


class OnAttack(Keyword):
    """on-attack.1–2: abilities with `when = "attack"` trigger when their card attacks (B-12),
    not when it blocks or is attacked."""
    id, name = "on-attack", "On Attack"


class OnAssign(Keyword):
    """on-assign.1: abilities with `when = "assign"` trigger when their card is assigned (B-8)."""
    id, name = "on-assign", "On Assign"


class Brave(Keyword):
    """brave.1–3: "Brave N" means "[On Attack], this card's power increases by N until end of
    turn"."""
    id, name = "brave", "Brave"

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "attack":
            return [Effect("pump", target="self", amount=instance.number or 0)]
        return []


class Serious(Keyword):
    """serious.1–2: "Serious N" means "[On Assign] choose 1 Pal; its power increases by N until
    end of turn"."""
    id, name = "serious", "Serious"

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "assign":
            return [Effect("pump", target="chosen", amount=instance.number or 0)]
        return []


class Interrupt(Keyword):
    """interrupt.1–4: [Quick] [pay 1, discard this card] OR [discard this card and 1 other card
    from hand] — nullify the opponent's attack. Its timing, cost and effect are rules of the
    `interrupt` action (`Rules.interrupt`); here only the mark."""
    id, name = "interrupt", "Interrupt"

    def is_interrupt(self) -> bool:
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

    def is_taunting(self) -> bool:
        return True


class Stealth(Keyword):
    """stealth.1: this card cannot be blocked."""
    id, name = "stealth", "Stealth"

    def prevents_block(self) -> bool:
        return True


class Retaliate(Keyword):
    """retaliate.1–2: when this Pal, having battled, is put into the graveyard (by the battle
    or by that attack's triggers), put the opposing combat Pal into the graveyard."""
    id, name = "retaliate", "Retaliate"

    def after_battle(self, battle: Battle, card: CardState,
                     instance: KeywordInstance) -> list[BattleTrigger]:
        if card.id not in battle.dead:
            return []
        foe = battle.defender_pal if card.id == battle.attacker else battle.attacker
        return [BattleTrigger(card.id, card.owner, "retaliate", foe=foe)]

    def died_after_battle(self, battle: Battle, card: CardState,
                          instance: KeywordInstance) -> list[BattleTrigger]:
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

    def after_battle(self, battle: Battle, card: CardState,
                     instance: KeywordInstance) -> list[BattleTrigger]:
        if card.id != battle.attacker or battle.defender_pal not in battle.dead:
            return []
        master = battle.owner[battle.defender_pal]
        return [BattleTrigger(card.id, card.owner, "damage", player=master,
                              amount=battle.strike[card.id])]


class Assault(Keyword):
    """assault.1–2: this card can choose a Pal in the stand state as an attack target."""
    id, name = "assault", "Assault"

    def may_target_standing(self) -> bool:
        return True


KEYWORDS: Mapping[str, Keyword] = {k.id: k for k in (
    Quick(), OnDeploy(), OnAttack(), OnAssign(), Brave(), Serious(), Interrupt(), Vigilance(),
    Taunt(), Stealth(), Retaliate(), Nocturnal(), Breakthrough(), Assault(),
)}
