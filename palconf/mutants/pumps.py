"""Mutants of the keywords that pump: Brave (brave.1–3, On Attack) and Serious (serious.1–2,
On Assign, with a choice)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palconf.mutants import keyword_mutant, mutant
from palconf.oracle.keywords import Brave, Serious
from palconf.oracle.model import CardState, Effect, GameState, KeywordInstance, Pump
from palconf.oracle.rules import Pending, Rules


def first_instance(card: CardState, instance: KeywordInstance) -> bool:
    """Whether `instance` is the first instance of its keyword on `card` (I-3 mutants)."""
    return card.card.instances(instance.id)[0] is instance


# ---------------------------------------------------------------- Brave (brave.1–3)


@keyword_mutant(
    "brave-first-instance-only",
    "brave.1",
    "Brave is treated as not cumulative: of two Brave instances on a card only the "
    "first adds its N (against I-3).",
)
class BraveFirstInstanceOnly(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, event, instance) if first_instance(card, instance) else []


@keyword_mutant(
    "brave-static-bonus",
    "brave.3",
    "Brave N is read as a printed power bonus that always applies, not as an On Attack trigger.",
)
class BraveStatic(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        return instance.number or 0


@keyword_mutant(
    "brave-lasts-only-during-attack",
    "brave.2",
    "Brave's increase is applied while the card is attacking and is gone when the "
    "attack ends, instead of lasting until end of turn.",
)
class BraveDuringAttackOnly(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []

    def power_bonus(self, game: GameState, card: CardState, instance: KeywordInstance) -> int:
        attacking = game.attack is not None and game.attack.attacker == card.id
        return (instance.number or 0) if attacking else 0


@mutant(
    "brave-also-on-block",
    "brave.3",
    'Brave is read as "pumps the card when it enters a fight", so a blocker\'s Brave adds '
    "its N too.",
)
class BraveAlsoOnBlock(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_block(g, a)
        blocker = g.cards[a["blocker"]]
        return pending + [
            Pending(blocker.id, blocker.owner, e)
            for inst in blocker.card.instances("brave")
            for e in self.kw("brave").triggered(blocker, "attack", inst)
        ]


@mutant(
    "brave-also-when-attacked",
    "brave.3",
    'Brave is read as "pumps the card when it is in an attack", so the attacked Pal\'s '
    "Brave adds its N too.",
)
class BraveAlsoWhenAttacked(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        if a["target"] == "master":
            return pending
        target = g.cards[a["target"]]
        return pending + [
            Pending(target.id, target.owner, e)
            for inst in target.card.instances("brave")
            for e in self.kw("brave").triggered(target, "attack", inst)
        ]


@keyword_mutant(
    "brave-ignored", "brave.1", "Brave is taken for flavour text: attacking gives its card nothing."
)
class BraveIgnored(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []


@keyword_mutant(
    "brave-highest-instance-only",
    "brave.1",
    "Brave is treated as not cumulative: of several Brave instances on a card only "
    "the highest N applies (against I-3).",
)
class BraveHighestInstanceOnly(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        best = max(card.card.instances("brave"), key=lambda i: i.number or 0)
        return super().triggered(card, event, instance) if instance is best else []


@keyword_mutant(
    "brave-also-on-deploy-and-assign",
    "brave.3",
    'Brave is read as "pumps the card when it acts", so it adds its N when the '
    "card is deployed or assigned as well as when it attacks.",
)
class BraveAlsoOnDeployAndAssign(Brave):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(
            card, "attack" if event in ("deploy", "assign") else event, instance
        )


@mutant(
    "brave-for-every-own-pal",
    "brave.1",
    'Brave is read as "your attacks are brave", so when any Pal of a player attacks, the '
    "Brave of each of their Pals in the battle area adds its N to that Pal.",
)
class BraveForEveryOwnPal(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        for card in self.in_play_by_id(g, a["player"]):
            if card.zone == "battle" and card.id != a["attacker"]:
                pending += [
                    Pending(card.id, card.owner, e)
                    for inst in card.card.instances("brave")
                    for e in self.kw("brave").triggered(card, "attack", inst)
                ]
        return pending


# ---------------------------------------------------------------- Serious (serious.1–2)


@keyword_mutant(
    "serious-pumps-itself",
    "serious.1",
    '"Choose 1 Pal; its power increases" is read as pumping the assigned card '
    "itself, with no choice.",
)
class SeriousPumpsItself(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        if event == "assign":
            return [Effect("pump", target="self", amount=instance.number or 0)]
        return []


@keyword_mutant(
    "serious-also-on-deploy",
    "serious.1",
    "Serious is read as triggering whenever the card is put into play, so it also "
    "triggers when the card is deployed.",
)
class SeriousAlsoOnDeploy(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, "assign" if event == "deploy" else event, instance)


@keyword_mutant(
    "serious-ignored",
    "serious.1",
    "Serious is taken for flavour text: assigning its card pumps nothing.",
)
class SeriousIgnored(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return []


@keyword_mutant(
    "serious-first-instance-only",
    "serious.1",
    "Serious is treated as not cumulative: of two Serious instances on a card only "
    "the first triggers (against I-3).",
)
class SeriousFirstInstanceOnly(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, event, instance) if first_instance(card, instance) else []


class LastingPump(Pump):
    """A power increase the mutant `serious-never-expires` keeps past end of turn. A plain
    subclass (not a dataclass of its own), so it works whether `Pump` is frozen or not."""

    __slots__ = ()


@mutant(
    "serious-never-expires",
    "serious.2",
    "Serious is read as a lasting bonus granted by assigning, so its increase does not end "
    "at end of turn.",
)
class SeriousNeverExpires(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        count = len(g.pumps)
        super().resolve_effect(g, p)
        source = g.cards[p.source]
        serious = [
            e
            for inst in source.card.instances("serious")
            for e in self.kw("serious").triggered(source, "assign", inst)
        ]
        if source.zone == "assigned" and p.effect in serious and len(g.pumps) > count:
            last = g.pumps[-1]
            g.pumps[-1] = LastingPump(last.card, last.amount)

    def end_until_end_of_turn(self, g: GameState) -> None:
        g.pumps = [p for p in g.pumps if isinstance(p, LastingPump)]


def serious_effects(rules: Rules, card: CardState) -> list[Pending]:
    """The Serious abilities of `card`, as if it were assigned (its source: itself, not in play
    for an event)."""
    return [
        Pending(card.id, card.owner, e, source_is_card_in_play=card.card.kind != "event")
        for inst in card.card.instances("serious")
        for e in rules.kw("serious").triggered(card, "assign", inst)
    ]


@keyword_mutant(
    "serious-zero-takes-no-choice",
    "serious.1",
    "Serious 0 is read as doing nothing, so it asks for no choice and the next `choose` entry "
    "goes to the card's next ability (against I-24).",
)
class SeriousZeroTakesNoChoice(Serious):
    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return super().triggered(card, event, instance) if instance.number else []
