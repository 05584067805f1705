"""Mutants of the triggered keywords and of the moves that trigger them: On Deploy, On Attack,
On Assign, deploying (B-7) and assigning (B-8, B-10). Brave and Serious: `pumps`; choices:
`choices`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.model import CardState, Effect, GameState, Pump, other
from palconf.oracle.rules import Pending, Refusal, Rules

# ---------------------------------------------------------------- On Deploy (on-deploy.1–2)


@mutant(
    "on-deploy-pals-only",
    "on-deploy.1",
    "Deploying is read as putting a Pal into battle, so a structure's On Deploy abilities "
    "never trigger.",
)
class OnDeployPalsOnly(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        return pending if g.cards[a["card"]].card.kind == "pal" else []


@mutant(
    "on-deploy-also-on-assign",
    "on-deploy.2",
    "Moving a Pal onto a structure is treated as deploying it there, so its On Deploy "
    "abilities trigger again when it is assigned.",
)
class OnDeployAlsoOnAssign(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pal = g.cards[a["card"]]
        return super().move_assign(g, a) + self.pending_for(pal, "deploy")


@mutant(
    "on-deploy-also-on-play",
    "on-deploy.2",
    "Playing an event is treated as deploying it, so an event's On Deploy abilities "
    "trigger when it is played.",
)
class OnDeployAlsoOnPlay(Rules):
    def move_play(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_play(g, a)
        card = g.cards[a["card"]]
        return pending + [
            Pending(card.id, card.owner, e, source_is_card_in_play=False)
            for e in self.triggered_effects(card, "deploy")
        ]


@mutant(
    "on-deploy-ignored",
    "on-deploy.1",
    "On Deploy abilities are taken for reminders of what the card does in play: they never "
    "trigger.",
)
class OnDeployIgnored(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        super().move_deploy(g, a)
        return []


@mutant(
    "on-deploy-triggers-for-every-card",
    "on-deploy.1",
    '"When this card is deployed" is read as "when a card is deployed", so the On '
    "Deploy abilities of every card in play trigger whenever any card is deployed.",
)
class OnDeployTriggersForEveryCard(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        for player in (g.active, other(g.active)):
            for card in self.in_play_by_id(g, player):
                if card.id != a["card"]:
                    pending += self.pending_for(card, "deploy")
        return pending


@mutant(
    "deploy-pays-after-on-deploy",
    "B-7",
    "The cost is taken to be paid once the On Deploy abilities have resolved, so the "
    "energy they give can pay for the card itself.",
)
class DeployPaysAfterOnDeploy(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        if card is not None and card.owner == a["player"] and card.zone == "hand":
            gain = sum(e.amount for e in self.triggered_effects(card, "deploy") if e.op == "energy")
            if card.card.cost <= g.energy[a["player"]] + gain:
                g = g.copy()
                g.energy[a["player"]] = max(g.energy[a["player"]], card.card.cost)
        return super().check_deploy(g, a)


# ---------------------------------------------------------------- On Attack (on-attack.1–2), B-12


@mutant(
    "on-attack-abilities-ignored",
    "on-attack.1",
    "Only the Brave keyword is handled on attack; written On Attack abilities never trigger.",
)
class OnAttackAbilitiesIgnored(Rules):
    def triggered_effects(self, card: CardState, event: str) -> list[Effect]:
        if event != "attack":
            return super().triggered_effects(card, event)
        return [
            e for inst in card.card.keywords for e in self.kw(inst.id).triggered(card, event, inst)
        ]


@mutant(
    "on-attack-resolves-before-rest",
    "B-12",
    "The attacker is rested only once its On Attack abilities have resolved, so an On "
    'Attack "stand this card" is undone.',
)
class AttackerRestedAfterOnAttack(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        super().after_attack(g, a)
        attacker = g.cards[a["attacker"]]
        if attacker.zone == "battle":
            attacker.state = "rest"


@mutant(
    "on-attack-also-on-block",
    "on-attack.2",
    '"When this card attacks" is read as "when it fights", so On Attack abilities (Brave '
    "among them) also trigger when the card blocks.",
)
class OnAttackAlsoOnBlock(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        return super().move_block(g, a) + self.pending_for(g.cards[a["blocker"]], "attack")


@mutant(
    "on-attack-also-when-attacked",
    "on-attack.2",
    "On Attack abilities trigger for both Pals of an attack, so the attacked Pal's trigger too.",
)
class OnAttackAlsoWhenAttacked(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        if a["target"] != "master":
            pending += self.pending_for(g.cards[a["target"]], "attack")
        return pending


@mutant(
    "on-attack-triggers-for-every-own-pal",
    "on-attack.1",
    '"When this card attacks" is read as "when you attack", so the On Attack '
    "abilities (Brave among them) of every Pal of the attacking player in the battle area "
    "trigger.",
)
class OnAttackForEveryOwnPal(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_attack(g, a)
        for card in self.in_play_by_id(g, a["player"]):
            if card.zone == "battle" and card.id != a["attacker"]:
                pending += self.pending_for(card, "attack")
        return pending


class AttackedMark(Pump):
    """A pump of 0 that marks its card as having attacked this turn: it changes no power and
    ends, like every pump, at the end of the turn (B-6). Kept in the state, not in the
    engine, so LEGAL's trial attacks on copies leave no trace."""

    __slots__ = ()


@mutant(
    "on-attack-first-attack-only",
    "on-attack.1",
    "Written On Attack abilities trigger only on a Pal's first attack of a turn, so a Pal "
    "stood again that attacks a second time triggers only its keywords (Brave).",
)
class OnAttackFirstAttackOnly(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        attacker = g.cards[a["attacker"]]
        again = any(isinstance(p, AttackedMark) and p.card == attacker.id for p in g.pumps)
        pending = super().move_attack(g, a)
        if not again:
            g.pumps.append(AttackedMark(attacker.id, 0))
            return pending
        keyword = [
            e
            for inst in attacker.card.keywords
            for e in self.kw(inst.id).triggered(attacker, "attack", inst)
        ]
        return pending[: len(keyword)]


# ---------------------------------------------------------------- On Assign (on-assign.1), B-8


@mutant(
    "on-assign-ignored",
    "on-assign.1",
    "An assigned Pal leaves the battle area, so it is treated as out of play and its On "
    "Assign abilities (Serious among them) never trigger.",
)
class OnAssignIgnored(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        super().move_assign(g, a)
        return []


@mutant(
    "on-assign-structure-triggers",
    "B-8",
    "The structure a Pal is assigned to is treated as assigned too, so the structure's On "
    "Assign abilities trigger as well.",
)
class StructureOnAssignTriggers(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_assign(g, a)
        return pending + self.pending_for(g.cards[a["structure"]], "assign")


@mutant(
    "assign-rested-pal", "B-8", "Any Pal of yours in battle may be assigned, rested or standing."
)
class AssignRestedPal(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        pal = g.cards.get(a["card"])
        if pal is not None and pal.state == "rest":
            g = g.copy()
            g.cards[pal.id].state = "stand"
        return super().check_assign(g, a)


@mutant(
    "on-assign-triggers-for-every-pal",
    "on-assign.1",
    '"When this card is assigned" is read as "when a Pal is assigned", so the written '
    "On Assign abilities of every Pal in play trigger whenever any Pal is assigned.",
)
class OnAssignForEveryPal(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_assign(g, a)
        for player in (g.active, other(g.active)):
            for card in self.in_play_by_id(g, player):
                if card.card.kind == "pal" and card.id != a["card"]:
                    pending += [
                        Pending(card.id, card.owner, ab.effect)
                        for ab in card.card.abilities
                        if ab.when == "assign"
                    ]
        return pending


@mutant(
    "on-assign-also-on-deploy",
    "on-assign.1",
    "Deploying is read as assigning the card to the battle area, so its written On Assign "
    "abilities trigger when it is deployed too.",
)
class OnAssignAlsoOnDeploy(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_deploy(g, a)
        card = g.cards[a["card"]]
        return pending + [
            Pending(card.id, card.owner, ab.effect)
            for ab in card.card.abilities
            if ab.when == "assign"
        ]


@mutant(
    "assign-during-attack",
    "B-8",
    "Assigning is read as free of timing, so a player may assign a standing Pal in the "
    "block or quick step of an attack.",
)
class AssignDuringAttack(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step in ("block", "quick"):
            g = g.copy()
            g.step = "main"
            g.active = a["player"]
        return super().check_assign(g, a)


@mutant(
    "assign-ends-pumps",
    "B-10",
    "Moving a Pal onto a structure is treated as it leaving play, so the increases on it "
    "end when it is assigned.",
)
class AssignEndsPumps(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        g.pumps = [p for p in g.pumps if p.card != a["card"]]
        return super().move_assign(g, a)


@mutant(
    "assign-needs-standing-structure",
    "B-8",
    "A structure is read as taking a Pal only while it stands, so a Pal may not be assigned "
    "to a rested structure.",
)
class AssignNeedsStandingStructure(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from super().check_assign(g, a)
        structure = g.cards.get(a["structure"])
        if structure is not None and structure.zone == "structures" and structure.state == "rest":
            yield Refusal("cannot-assign", f"{structure.id!r} is rested")


@mutant(
    "assign-rests-structure",
    "B-8",
    "Assigning a Pal is read as putting the structure to work, so the structure rests.",
)
class AssignRestsStructure(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_assign(g, a)
        g.cards[a["structure"]].state = "rest"
        return pending


@mutant(
    "assign-from-structure-to-structure",
    "B-8",
    "Assigning is read as moving a standing Pal of yours onto a structure from wherever it is "
    "in play, so a Pal on one structure may be moved to another (its On Assign abilities "
    "trigger again).",
)
class AssignFromStructure(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        pal = g.cards.get(a["card"])
        if pal is not None and pal.zone == "assigned" and pal.owner == a["player"]:
            g = g.copy()
            g.cards[pal.id].zone, g.cards[pal.id].host = "battle", None
        yield from super().check_assign(g, a)

    def candidate_actions(self, g: GameState) -> list[dict[str, Any]]:
        out = super().candidate_actions(g)
        if g.step != "main":
            return out
        p = g.active
        return out + [
            {"do": "assign", "player": p, "card": pal.id, "structure": s.id}
            for pal in g.zone(p, "assigned")
            for s in g.zone(p, "structures")
        ]
