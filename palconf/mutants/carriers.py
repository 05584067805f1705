"""Mutants that give a keyword or an ability to a card kind the text gives it nothing on (a Pal's
keyword on a structure or an event, Quick on a Pal or structure), or that take a card kind
away from a keyword it does hold (Interrupt on a structure), or read a keyword as an aura of
its side (what one Pal has, the Pals beside it get).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.mutants.pumps import serious_effects
from palconf.mutants.quick import (
    _quick_card_in_hand,
)
from palconf.mutants.targeting import with_assault
from palconf.mutants.turn import _stand_at_end_of_turn
from palconf.oracle.keywords import (
    Assault,
    Battle,
    BattleTrigger,
    Nocturnal,
    Stealth,
)
from palconf.oracle.model import (
    CardState,
    GameState,
)
from palconf.oracle.rules import Pending, Refusal, Rules


@keyword_mutant(
    "stealth-of-structure-for-its-side",
    "stealth.1",
    "A structure cannot attack, so its Stealth is read as covering its side: no attack by a Pal "
    "of its controller can be blocked.",
)
class StructureStealthForItsSide(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return super().forbids_block(game, attacker, blocker) or any(
            c.has(self.id) for c in game.zone(attacker.owner, "structures")
        )


@keyword_mutant(
    "assault-of-structure-for-its-side",
    "assault.1",
    "A structure cannot attack, so its Assault is read as a standing order for its side: every "
    "Pal of its controller may target standing Pals.",
)
class StructureAssaultForItsSide(Assault):
    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        if any(c.has(self.id) for c in game.zone(attacker.owner, "structures")):
            attacker = with_assault(attacker)
        return super().widen_targets(game, attacker, targets)


@mutant(
    "on-attack-of-structure-on-controllers-attack",
    "on-attack.1",
    'A structure cannot attack, so its On Attack abilities (Brave among them) are read as "when '
    'you attack": they trigger whenever a Pal of its controller attacks.',
)
class StructureOnAttackOnControllersAttack(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        for c in self.in_play_by_id(g, a["player"]):
            if c.zone == "structures":
                pending += self.pending_for(c, "attack")
        return pending


@mutant(
    "on-attack-of-event-during-attack",
    "on-attack.1",
    'An event is read as played "into" the fight under way, so its written On Attack '
    "abilities resolve when it is played during an attack.",
)
class EventOnAttackDuringAttack(Rules):
    def move_play(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_play(g, a)
        card = g.cards[a["card"]]
        if g.attack is not None:
            pending += [
                Pending(card.id, card.owner, ab.effect, source_is_card_in_play=False)
                for ab in card.card.abilities
                if ab.when == "attack"
            ]
        return pending


@mutant(
    "vigilance-of-structure-stands-its-pals",
    "vigilance.1",
    "Vigilance on a structure is read as covering the Pals on it, so at the end of its "
    "controller's turn the Pals assigned to it stand too.",
)
class StructureVigilanceStandsItsPals(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        hosts = {
            s.id
            for s in self.in_play_by_id(g, g.active)
            if s.zone == "structures" and s.has("vigilance")
        }
        _stand_at_end_of_turn(
            g, [c for c in g.cards.values() if c.zone == "assigned" and c.host in hosts]
        )
        return super().move_end_turn(g, a)


@mutant(
    "vigilance-of-assigned-pal-stands-its-structure",
    "vigilance.1",
    "Vigilance on an assigned Pal is read as standing its post, so at the end of its "
    "controller's turn the structure it is on stands too.",
)
class AssignedVigilanceStandsItsStructure(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _stand_at_end_of_turn(
            g,
            [
                g.cards[c.host]
                for c in self.in_play_by_id(g, g.active)
                if c.zone == "assigned" and c.host is not None and c.has("vigilance")
            ],
        )
        return super().move_end_turn(g, a)


@mutant(
    "nocturnal-of-structure-for-its-pals",
    "nocturnal.1",
    "A structure has no power, so its Nocturnal is read as applying to the Pals assigned to it: "
    "at night they get 300 more for each instance.",
)
class StructureNocturnalForItsPals(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        p = super().power(g, card)
        if p is not None and card.zone == "assigned" and card.host is not None and g.night:
            p += Nocturnal.BONUS * len(g.cards[card.host].card.instances("nocturnal"))
        return p


@mutant(
    "nocturnal-structure-has-power",
    "nocturnal.1",
    "A structure with Nocturnal is read as gaining power, so it shows `power` 300 at night (0 by "
    "day) in play instead of null.",
)
class NocturnalStructureHasPower(Rules):
    def power(self, g: GameState, card: CardState) -> int | None:
        if card.card.kind == "structure" and card.in_play and card.has("nocturnal"):
            return Nocturnal.BONUS * len(card.card.instances("nocturnal")) if g.night else 0
        return super().power(g, card)


@mutant(
    "brave-of-structure-pumps-attacker",
    "brave.1",
    "A structure cannot attack, so its Brave N is read as a bonus for its side: each attacking "
    "Pal of its controller gets N until end of turn.",
)
class StructureBravePumpsAttacker(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        for c in self.in_play_by_id(g, a["player"]):
            if c.zone == "structures":
                pending += [
                    Pending(a["attacker"], c.owner, e)
                    for inst in c.card.instances("brave")
                    for e in self.kw("brave").triggered(c, "attack", inst)
                ]
        return pending


@mutant(
    "serious-on-structure-triggers-on-assign",
    "serious.1",
    "Serious written on a structure is read as triggering when a Pal is assigned to that "
    "structure, so the structure's Serious pumps a chosen Pal too (against B-8).",
)
class SeriousOnStructureTriggersOnAssign(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_assign(g, a)
        structure = g.cards[a["structure"]]
        return pending + [
            Pending(structure.id, structure.owner, e)
            for inst in structure.card.instances("serious")
            for e in self.kw("serious").triggered(structure, "assign", inst)
        ]


@mutant(
    "serious-of-event-on-play",
    "serious.1",
    "An event's keyword abilities are read as part of playing it, so an event's Serious chooses "
    "a Pal and pumps it when the event is played, before the event's effect.",
)
class SeriousOfEventOnPlay(Rules):
    def move_play(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_play(g, a)
        return serious_effects(self, g.cards[a["card"]]) + pending


@mutant(
    "serious-of-structure-on-deploy",
    "serious.1",
    "A structure is never assigned, so its Serious is read as triggering when the structure is "
    "deployed.",
)
class SeriousOfStructureOnDeploy(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        card = g.cards[a["card"]]
        return pending + (serious_effects(self, card) if card.card.kind == "structure" else [])


@mutant(
    "quick-pal-deployable-in-opponents-main",
    "B-7",
    'Quick on a Pal or structure is read as "flash", so its owner may deploy it in the '
    "opponent's main phase, paying from their own energy (the protocol ignores Quick there).",
)
class QuickPalDeployableInOpponentsMain(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if (
            g.step == "main"
            and a["player"] != g.active
            and _quick_card_in_hand(g, a, ("pal", "structure"))
        ):
            g = g.copy()
            g.active = a["player"]
        return super().check_deploy(g, a)


@mutant(
    "quick-structure-only-in-quick-step",
    "B-7",
    'Quick on a structure is read as on an event, "deployed only during the quick step", so '
    "such a structure cannot be deployed in the main phase (the protocol ignores Quick there).",
)
class QuickStructureOnlyInQuickStep(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_deploy(g, a)
        if g.step == "main" and _quick_card_in_hand(g, a, ("structure",)):
            yield Refusal("wrong-timing", "a Quick card waits for the quick step")


@mutant(
    "quick-structure-deployable-in-quick-step",
    "B-7",
    "Quick is read as making any non-Pal card usable in the quick step, so the player with "
    "priority may deploy a structure with Quick there (the protocol ignores Quick there).",
)
class QuickStructureDeployableInQuickStep(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if (
            g.step == "quick"
            and a["player"] == g.priority
            and _quick_card_in_hand(g, a, ("structure",))
        ):
            g = g.copy()
            g.step, g.active = "main", a["player"]
        return super().check_deploy(g, a)

    def after_deploy(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.after_quick_action(g)  # a quick action: priority passes


@mutant(
    "interrupt-not-on-structures",
    "interrupt.1",
    "Interrupt is read as a keyword of Pals and events only, so a structure card in hand "
    "with Interrupt cannot be used with `interrupt`.",
)
class InterruptNotOnStructures(Rules):
    def is_interrupt(self, card: CardState) -> bool:
        return card.card.kind != "structure" and super().is_interrupt(card)


@mutant(
    "interrupt-structure-not-deployable",
    "interrupt.1",
    "A structure card with Interrupt is read as only an Interrupt, so it cannot be deployed "
    "(against I-10).",
)
class InterruptStructureNotDeployable(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_deploy(g, a)
        card = g.cards.get(a["card"])
        if (
            card is not None
            and card.owner == a["player"]
            and card.zone == "hand"
            and card.card.kind == "structure"
            and card.has("interrupt")
        ):
            yield Refusal("wrong-kind", "an Interrupt card is used with `interrupt`")


@mutant(
    "interrupt-from-structure-in-play",
    "interrupt.1",
    "A structure card is read as staying at its owner's disposal like a card in hand, so a "
    "structure in play with Interrupt and no Pal on it may be discarded from play to nullify "
    "(against I-10).",
)
class InterruptFromStructureInPlay(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if (
            card is not None
            and card.owner == a["player"]
            and card.zone == "structures"
            and not any(c.host == card.id and c.zone == "assigned" for c in g.cards.values())
        ):
            g = g.copy()
            g.cards[card.id].zone = "hand"
        return super().check_interrupt(g, a)


@mutant(
    "choice-of-structure-own-side-only",
    "B-19",
    'A structure\'s choice is read as "choose 1 Pal of yours to staff it", so an ability of a '
    "structure may choose only its controller's Pals.",
)
class ChoiceOfStructureOwnSideOnly(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(g, pending, choose)
        for p in pending:
            if (
                p.choice is not None
                and g.cards[p.source].card.kind == "structure"
                and g.cards[p.choice].owner != p.controller
            ):
                raise Refusal("illegal-target", f"{p.choice!r} is not a Pal of {p.controller}")


@mutant(
    "self-rest-stand-of-structure-carries-its-pals",
    "B-19",
    "A structure and the Pals on it are read as one unit, so a `rest` or `stand` on `self` of "
    "the structure rests or stands its assigned Pals too.",
)
class StructureRestStandCarriesItsPals(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        super().resolve_effect(g, p)
        target = self.effect_target(g, p)
        if p.effect.op in ("rest", "stand") and target is not None and target.zone == "structures":
            for c in g.cards.values():
                if c.zone == "assigned" and c.host == target.id:
                    c.state = target.state


@mutant(
    "self-rest-stand-finds-only-pals",
    "B-19",
    "A `rest` or `stand` effect on `self` is read as acting on a Pal only, so a structure's "
    "own written ability that rests or stands it finds nothing.",
)
class SelfRestStandFindsOnlyPals(Rules):
    def effect_target(self, g: GameState, p: Pending) -> CardState | None:
        target = super().effect_target(g, p)
        if (
            target is not None
            and target.card.kind != "pal"
            and p.effect.target == "self"
            # one of its written abilities (not Vigilance, a keyword ability)
            and any(a.effect is p.effect for a in target.card.abilities)
        ):
            return None
        return target


@mutant(
    "retaliate-aura",
    "retaliate.1",
    "Retaliate is read as a continuous ability for its side, so any Pal of a player with a "
    "Retaliate Pal in the battle area that dies in battle takes the opposing combat Pal.",
)
class RetaliateAura(Rules):
    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        for cid in sorted(battle.dead):
            c = g.cards[cid]
            if not c.has("retaliate") and any(
                x.has("retaliate") for x in g.zone(c.owner, "battle")
            ):
                foe = battle.defender_pal if cid == battle.attacker else battle.attacker
                queue.append(BattleTrigger(cid, c.owner, "retaliate", foe=foe))
        super().resolve_battle_triggers(g, battle, queue)


@mutant(
    "breakthrough-aura",
    "breakthrough.1",
    "Breakthrough is read as a continuous ability for its side, so while a player has a "
    "Breakthrough Pal in the battle area each of their attackers that beats its combat Pal "
    "deals its strike.",
)
class BreakthroughAura(Rules):
    def resolve_battle_triggers(
        self, g: GameState, battle: Battle, queue: list[BattleTrigger]
    ) -> None:
        attacker = g.cards[battle.attacker]
        if (
            battle.defender_pal in battle.dead
            and not attacker.has("breakthrough")
            and any(c.has("breakthrough") for c in g.zone(attacker.owner, "battle"))
        ):
            master = battle.owner[battle.defender_pal]
            strike = battle.strike[attacker.id]
            queue.append(BattleTrigger(attacker.id, attacker.owner, "damage", "", master, strike))
        super().resolve_battle_triggers(g, battle, queue)


@mutant(
    "reasons-quick-pal-play-wrong-kind",
    "P-reasons",
    "Any card with the Quick keyword is taken as Quick, so playing a Quick Pal in the quick "
    "step is wrong-kind rather than wrong-timing.",
)
class QuickPalPlayWrongKind(Rules):
    def is_quick_event(self, card: CardState) -> bool:
        return card.has("quick")


@mutant(
    "reasons-quick-structure-play-wrong-kind",
    "P-reasons",
    'The protocol\'s "Quick is ignored on a Pal" is read for Pals only: a structure with Quick '
    "is taken as Quick, so playing it in the quick step is wrong-kind rather than wrong-timing.",
)
class QuickStructurePlayWrongKind(Rules):
    def is_quick_event(self, card: CardState) -> bool:
        return (card.card.kind == "structure" and card.has("quick")) or super().is_quick_event(card)
