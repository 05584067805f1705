"""Mutants of the triggered keywords and of the moves that trigger them: On Deploy, On Attack,
On Assign, Brave, Serious, choices and what they find (B-17, B-19), deploying (B-7) and
assigning (B-8, B-10)."""

from __future__ import annotations

from typing import Any, Mapping

from oracle.keywords import Brave, Serious
from oracle.model import CardState, Effect, GameState, KeywordInstance, Pump, other
from oracle.rules import Pending, Refusal, Rules

from . import keyword_mutant, mutant


def first_instance(card: CardState, instance: KeywordInstance) -> bool:
    """Whether `instance` is the first instance of its keyword on `card` (I-3 mutants)."""
    return card.card.instances(instance.id)[0] is instance


# ---------------------------------------------------------------- On Deploy (on-deploy.1–2)


@mutant("on-deploy-pals-only", "on-deploy.1",
        "Deploying is read as putting a Pal into battle, so a structure's On Deploy abilities "
        "never trigger.")
class OnDeployPalsOnly(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        return pending if g.cards[a["card"]].card.kind == "pal" else []


@mutant("on-deploy-also-on-assign", "on-deploy.2",
        "Moving a Pal onto a structure is treated as deploying it there, so its On Deploy "
        "abilities trigger again when it is assigned.")
class OnDeployAlsoOnAssign(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pal = g.cards[a["card"]]
        return super().move_assign(g, a) + self.pending_for(pal, "deploy")


@mutant("on-deploy-also-on-play", "on-deploy.2",
        "Playing an event is treated as deploying it, so an event's On Deploy abilities "
        "trigger when it is played.")
class OnDeployAlsoOnPlay(Rules):
    def move_play(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_play(g, a)
        card = g.cards[a["card"]]
        return pending + [Pending(card.id, card.owner, e, source_is_card_in_play=False)
                          for e in self.triggered_effects(card, "deploy")]


@mutant("on-deploy-ignored", "on-deploy.1",
        "On Deploy abilities are taken for reminders of what the card does in play: they never "
        "trigger.")
class OnDeployIgnored(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        super().move_deploy(g, a)
        return []


@mutant("on-deploy-triggers-for-every-card", "on-deploy.1",
        "\"When this card is deployed\" is read as \"when a card is deployed\", so the On "
        "Deploy abilities of every card in play trigger whenever any card is deployed.")
class OnDeployTriggersForEveryCard(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        for player in (g.active, other(g.active)):
            for card in self.in_play_by_id(g, player):
                if card.id != a["card"]:
                    pending += self.pending_for(card, "deploy")
        return pending


@mutant("deploy-pays-after-on-deploy", "B-7",
        "The cost is taken to be paid once the On Deploy abilities have resolved, so the "
        "energy they give can pay for the card itself.")
class DeployPaysAfterOnDeploy(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> None:
        card = g.cards.get(a["card"])
        if card is not None and card.owner == a["player"] and card.zone == "hand":
            gain = sum(e.amount for e in self.triggered_effects(card, "deploy")
                       if e.op == "energy")
            if card.card.cost <= g.energy[a["player"]] + gain:
                g = g.copy()
                g.energy[a["player"]] = max(g.energy[a["player"]], card.card.cost)
        super().check_deploy(g, a)


# ---------------------------------------------------------------- On Attack (on-attack.1–2), B-12


@mutant("on-attack-abilities-ignored", "on-attack.1",
        "Only the Brave keyword is handled on attack; written On Attack abilities never "
        "trigger.")
class OnAttackAbilitiesIgnored(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        if event != "attack":
            return super().triggered_effects(card, event)
        return [e for inst in card.card.keywords
                for e in self.kw(inst.id).triggered(card, event, inst)]


@mutant("on-attack-resolves-before-rest", "B-12",
        "The attacker is rested only once its On Attack abilities have resolved, so an On "
        "Attack \"stand this card\" is undone.")
class AttackerRestedAfterOnAttack(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        super().after_attack(g, a)
        attacker = g.cards[a["attacker"]]
        if attacker.zone == "battle":
            attacker.state = "rest"


@mutant("on-attack-also-on-block", "on-attack.2",
        "\"When this card attacks\" is read as \"when it fights\", so On Attack abilities (Brave "
        "among them) also trigger when the card blocks.")
class OnAttackAlsoOnBlock(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        return super().move_block(g, a) + self.pending_for(g.cards[a["blocker"]], "attack")


@mutant("on-attack-also-when-attacked", "on-attack.2",
        "On Attack abilities trigger for both Pals of an attack, so the attacked Pal's trigger "
        "too.")
class OnAttackAlsoWhenAttacked(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        if a["target"] != "master":
            pending += self.pending_for(g.cards[a["target"]], "attack")
        return pending


@mutant("on-attack-triggers-for-every-own-pal", "on-attack.1",
        "\"When this card attacks\" is read as \"when you attack\", so the On Attack "
        "abilities (Brave among them) of every Pal of the attacking player in the battle area "
        "trigger.")
class OnAttackForEveryOwnPal(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        for card in self.in_play_by_id(g, a["player"]):
            if card.zone == "battle" and card.id != a["attacker"]:
                pending += self.pending_for(card, "attack")
        return pending


# ---------------------------------------------------------------- On Assign (on-assign.1), B-8


@mutant("on-assign-ignored", "on-assign.1",
        "An assigned Pal leaves the battle area, so it is treated as out of play and its On "
        "Assign abilities (Serious among them) never trigger.")
class OnAssignIgnored(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        super().move_assign(g, a)
        return []


@mutant("on-assign-structure-triggers", "B-8",
        "The structure a Pal is assigned to is treated as assigned too, so the structure's On "
        "Assign abilities trigger as well.")
class StructureOnAssignTriggers(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_assign(g, a)
        return pending + self.pending_for(g.cards[a["structure"]], "assign")


@mutant("assign-rested-pal", "B-8",
        "Any Pal of yours in battle may be assigned, rested or standing.")
class AssignRestedPal(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> None:
        pal = g.cards.get(a["card"])
        if pal is not None and pal.state == "rest":
            g = g.copy()
            g.cards[pal.id].state = "stand"
        super().check_assign(g, a)


@mutant("on-assign-triggers-for-every-pal", "on-assign.1",
        "\"When this card is assigned\" is read as \"when a Pal is assigned\", so the written "
        "On Assign abilities of every Pal in play trigger whenever any Pal is assigned.")
class OnAssignForEveryPal(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_assign(g, a)
        for player in (g.active, other(g.active)):
            for card in self.in_play_by_id(g, player):
                if card.card.kind == "pal" and card.id != a["card"]:
                    pending += [Pending(card.id, card.owner, ab.effect)
                                for ab in card.card.abilities if ab.when == "assign"]
        return pending


@mutant("on-assign-also-on-deploy", "on-assign.1",
        "Deploying is read as assigning the card to the battle area, so its written On Assign "
        "abilities trigger when it is deployed too.")
class OnAssignAlsoOnDeploy(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        card = g.cards[a["card"]]
        return pending + [Pending(card.id, card.owner, ab.effect)
                          for ab in card.card.abilities if ab.when == "assign"]


@mutant("assign-during-attack", "B-8",
        "Assigning is read as free of timing, so a player may assign a standing Pal in the "
        "block or quick step of an attack.")
class AssignDuringAttack(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> None:
        if g.step in ("block", "quick"):
            g = g.copy()
            g.step = "main"
            g.active = a["player"]
        super().check_assign(g, a)


@mutant("assign-ends-pumps", "B-10",
        "Moving a Pal onto a structure is treated as it leaving play, so the increases on it "
        "end when it is assigned.")
class AssignEndsPumps(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        g.pumps = [p for p in g.pumps if p.card != a["card"]]
        return super().move_assign(g, a)


# ---------------------------------------------------------------- Brave (brave.1–3)


@keyword_mutant("brave-first-instance-only", "brave.1",
                "Brave is treated as not cumulative: of two Brave instances on a card only the "
                "first adds its N (against I-3).")
class BraveFirstInstanceOnly(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, event, instance) if first_instance(card, instance) else []


@keyword_mutant("brave-static-bonus", "brave.3",
                "Brave N is read as a printed power bonus that always applies, not as an On "
                "Attack trigger.")
class BraveStatic(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return instance.number or 0


@keyword_mutant("brave-lasts-only-during-attack", "brave.2",
                "Brave's increase is applied while the card is attacking and is gone when the "
                "attack ends, instead of lasting until end of turn.")
class BraveDuringAttackOnly(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        attacking = game.attack is not None and game.attack.attacker == card.id
        return (instance.number or 0) if attacking else 0


@mutant("brave-also-on-block", "brave.3",
        "Brave is read as \"pumps the card when it enters a fight\", so a blocker's Brave adds "
        "its N too.")
class BraveAlsoOnBlock(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_block(g, a)
        blocker = g.cards[a["blocker"]]
        return pending + [Pending(blocker.id, blocker.owner, e)
                          for inst in blocker.card.instances("brave")
                          for e in self.kw("brave").triggered(blocker, "attack", inst)]


@mutant("brave-also-when-attacked", "brave.3",
        "Brave is read as \"pumps the card when it is in an attack\", so the attacked Pal's "
        "Brave adds its N too.")
class BraveAlsoWhenAttacked(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        if a["target"] == "master":
            return pending
        target = g.cards[a["target"]]
        return pending + [Pending(target.id, target.owner, e)
                          for inst in target.card.instances("brave")
                          for e in self.kw("brave").triggered(target, "attack", inst)]


@keyword_mutant("brave-ignored", "brave.1",
                "Brave is taken for flavour text: attacking gives its card nothing.")
class BraveIgnored(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []


@keyword_mutant("brave-highest-instance-only", "brave.1",
                "Brave is treated as not cumulative: of several Brave instances on a card only "
                "the highest N applies (against I-3).")
class BraveHighestInstanceOnly(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        best = max(card.card.instances("brave"), key=lambda i: i.number or 0)
        return super().triggered(card, event, instance) if instance is best else []


@keyword_mutant("brave-also-on-deploy-and-assign", "brave.3",
                "Brave is read as \"pumps the card when it acts\", so it adds its N when the "
                "card is deployed or assigned as well as when it attacks.")
class BraveAlsoOnDeployAndAssign(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, "attack" if event in ("deploy", "assign") else event,
                                 instance)


@mutant("brave-for-every-own-pal", "brave.1",
        "Brave is read as \"your attacks are brave\", so when any Pal of a player attacks, the "
        "Brave of each of their Pals in the battle area adds its N to that Pal.")
class BraveForEveryOwnPal(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        for card in self.in_play_by_id(g, a["player"]):
            if card.zone == "battle" and card.id != a["attacker"]:
                pending += [Pending(card.id, card.owner, e)
                            for inst in card.card.instances("brave")
                            for e in self.kw("brave").triggered(card, "attack", inst)]
        return pending


# ---------------------------------------------------------------- Serious (serious.1–2)


@keyword_mutant("serious-pumps-itself", "serious.1",
                "\"Choose 1 Pal; its power increases\" is read as pumping the assigned card "
                "itself, with no choice.")
class SeriousPumpsItself(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "assign":
            return [Effect("pump", target="self", amount=instance.number or 0)]
        return []


@keyword_mutant("serious-also-on-deploy", "serious.1",
                "Serious is read as triggering whenever the card is put into play, so it also "
                "triggers when the card is deployed.")
class SeriousAlsoOnDeploy(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, "assign" if event == "deploy" else event, instance)


@keyword_mutant("serious-ignored", "serious.1",
                "Serious is taken for flavour text: assigning its card pumps nothing.")
class SeriousIgnored(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []


@keyword_mutant("serious-first-instance-only", "serious.1",
                "Serious is treated as not cumulative: of two Serious instances on a card only "
                "the first triggers (against I-3).")
class SeriousFirstInstanceOnly(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, event, instance) if first_instance(card, instance) else []


class LastingPump(Pump):
    """A power increase the mutant `serious-never-expires` keeps past end of turn. A plain
    subclass (not a dataclass of its own), so it works whether `Pump` is frozen or not."""

    __slots__ = ()


@mutant("serious-never-expires", "serious.2",
        "Serious is read as a lasting bonus granted by assigning, so its increase does not end "
        "at end of turn.")
class SeriousNeverExpires(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        count = len(g.pumps)
        super().resolve_effect(g, p)
        source = g.cards[p.source]
        serious = [e for inst in source.card.instances("serious")
                   for e in self.kw("serious").triggered(source, "assign", inst)]
        if source.zone == "assigned" and p.effect in serious and len(g.pumps) > count:
            last = g.pumps[-1]
            g.pumps[-1] = LastingPump(last.card, last.amount)

    def end_until_end_of_turn(self, g: GameState) -> None:
        g.pumps = [p for p in g.pumps if isinstance(p, LastingPump)]


# ---------------------------------------------------------------- choices (B-17, B-19), B-7


@mutant("choices-checked-before-move", "B-17",
        "Choices are checked against the state before the action's own move, so a deployed "
        "Pal cannot choose itself and an assigned Pal can.")
class ChoicesBeforeMove(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        super().bind_choices(self.state, pending, choose)


@mutant("no-legal-choice-refuses", "B-17",
        "An ability that needs a choice and has no legal option makes the whole action "
        "illegal.")
class NoLegalChoiceRefuses(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        for p in pending:
            if p.effect.needs_choice and not self.choice_options(g, p.effect):
                raise Refusal("illegal-target", f"an ability of {p.source!r} has nothing to "
                                                f"choose")
        super().bind_choices(g, pending, choose)


@mutant("surplus-choices-refused", "B-17",
        "An action with more `choose` entries than its abilities need is refused.")
class SurplusChoicesRefused(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        needed = sum(1 for p in pending if self.choice_options(g, p.effect))
        if len(choose) > needed:
            raise Refusal("illegal-target", f"{len(choose)} choices for {needed} ability(ies)")
        super().bind_choices(g, pending, choose)


@mutant("choose-any-pal-in-play", "serious.1",
        "\"Choose 1 Pal\" is read as any Pal in play, so a Pal on a structure (the assigned "
        "card itself among them) may be chosen.")
class ChooseAnyPalInPlay(Rules):
    def choice_options(self, g: GameState, effect: Effect) -> list[str]:
        if not effect.needs_choice:
            return []
        return sorted(c.id for c in g.cards.values()
                      if c.card.kind == "pal" and c.zone in ("battle", "assigned"))


@mutant("deploy-enters-rested", "B-7",
        "A deployed card enters play rested, as if it needed a turn to get ready.")
class DeployEntersRested(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        g.cards[a["card"]].state = "rest"
        return pending


@mutant("missing-choice-accepted", "B-17",
        "An action that lacks a choice is accepted, and the ability that needed it does "
        "nothing.")
class MissingChoiceAccepted(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        needed = sum(1 for p in pending if self.choice_options(g, p.effect))
        if len(choose) >= needed:
            return super().bind_choices(g, pending, choose)
        entries = iter(choose)
        for p in pending:
            options = self.choice_options(g, p.effect)
            if not options:
                continue
            entry = next(entries, None)
            if entry is None:
                return
            if entry not in options:
                raise Refusal("illegal-target", f"{entry!r} cannot be chosen")
            p.choice = entry


@mutant("choice-excludes-source", "B-19",
        "\"Choose 1 Pal\" is read as \"choose another Pal\", so an ability may not choose the "
        "card it is on.")
class ChoiceExcludesSource(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        entries = iter(choose)
        for p in pending:
            options = [o for o in self.choice_options(g, p.effect) if o != p.source]
            if not options:
                continue
            entry = next(entries, None)
            if entry is None or entry not in options:
                raise Refusal("illegal-target", f"one of {', '.join(options)} must be chosen")
            p.choice = entry


@mutant("choice-own-side-only", "B-19",
        "\"Choose 1 Pal\" is read as one of your own Pals, so a Pal in the opponent's battle "
        "area may not be chosen.")
class ChoiceOwnSideOnly(Rules):
    def bind_choices(self, g: GameState, pending: list[Pending], choose: list[str]) -> None:
        entries = iter(choose)
        for p in pending:
            options = [o for o in self.choice_options(g, p.effect)
                       if g.cards[o].owner == p.controller]
            if not options:
                continue
            entry = next(entries, None)
            if entry is None or entry not in options:
                raise Refusal("illegal-target", f"one of {', '.join(options)} must be chosen")
            p.choice = entry


@mutant("chosen-pal-gone-refuses", "B-17",
        "A chosen Pal that has left the battle area by the time its ability resolves makes the "
        "whole action illegal, instead of going unaffected.")
class ChosenPalGoneRefuses(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        if p.effect.needs_choice and p.choice is not None \
                and g.cards[p.choice].zone != "battle":
            raise Refusal("illegal-target", f"{p.choice!r} has left the battle area")
        super().resolve_effect(g, p)


@mutant("abilities-before-keywords", "B-17",
        "A card's written abilities are taken to resolve before its keyword abilities.")
class AbilitiesBeforeKeywords(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        effects = super().triggered_effects(card, event)
        keyword = len([e for inst in card.card.keywords
                       for e in self.kw(inst.id).triggered(card, event, inst)])
        return effects[keyword:] + effects[:keyword]


@mutant("triggers-resolve-last-first", "B-17",
        "A card's triggered abilities are taken to resolve like a stack, the last written "
        "first (choices are still given in resolution order).")
class TriggersResolveLastFirst(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        return list(reversed(super().triggered_effects(card, event)))


@mutant("ability-of-gone-source-fizzles", "B-19",
        "An ability whose card has left play before it resolves does nothing at all, not only "
        "its effects on `self` (against I-13).")
class AbilityOfGoneSourceFizzles(Rules):
    def resolve_in_order(self, g: GameState, pending: list[Pending]) -> None:
        for p in pending:
            if g.step == "over":
                break
            if p.source_is_card_in_play and not g.cards[p.source].in_play:
                continue
            self.resolve_effect(g, p)


@mutant("self-finds-only-battle-area", "B-19",
        "An effect on `self` is read as \"this Pal in the battle area\", so an ability of a "
        "Pal on a structure finds nothing when it affects `self`.")
class SelfFindsOnlyBattleArea(Rules):
    def effect_target(self, g: GameState, p: Pending) -> CardState | None:
        target = super().effect_target(g, p)
        if target is not None and target.card.kind == "pal" and target.zone != "battle":
            return None
        return target
