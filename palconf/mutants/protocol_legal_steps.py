"""Mutants of `P-legal` about who may act when (block and quick steps, game over, the other
player), assigns and `choose` entries. Like those of `protocol_legal`, each post-processes the
oracle's list and keeps its JSON shape.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from palconf.mutants import mutant
from palconf.mutants.protocol_legal import _legal_on, _union
from palconf.mutants.protocol_legal_repeats import _did, _mark, _without
from palconf.oracle.model import CardState, GameState, other
from palconf.oracle.rules import Rules

# ---------------------------------------------------------------- who and when


@mutant(
    "legal-blocks-only-while-attacker-in-play",
    "P-legal",
    "In the block step only `pass` is listed once the attacker has left the battle area.",
)
class LegalBlocksOnlyWhileAttackerInPlay(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        attack = g.attack
        gone = (
            g.step == "block" and attack is not None and g.cards[attack.attacker].zone != "battle"
        )
        return _without(super().legal(), lambda a: gone and a["do"] == "block")


@mutant(
    "legal-blocks-only-while-target-in-play",
    "P-legal",
    "In the block step only `pass` is listed once the attacked Pal has left the battle area.",
)
class LegalBlocksOnlyWhileTargetInPlay(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        attack = g.attack
        gone = (
            g.step == "block"
            and attack is not None
            and attack.target != "master"
            and g.cards[attack.target].zone != "battle"
        )
        return _without(super().legal(), lambda a: gone and a["do"] == "block")


@mutant(
    "legal-pass-after-on-attack-game-over",
    "P-legal",
    "When an On Attack ability ends the game, the losing defender's `pass` of the block step "
    "is still listed.",
)
class LegalPassAfterOnAttackGameOver(Rules):
    def try_action(self, state: GameState, action: Any) -> GameState:
        g = super().try_action(state, action)
        if g.step == "over" and action["do"] == "attack":  # over before the block step
            _mark(g, "over", {"player": action["player"], "card": other(action["player"])})
        return g

    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        if g.step == "over" and _did(g, "over"):
            return [{"do": "pass", "player": defender} for defender in _did(g, "over")]
        return super().legal()


@mutant(
    "legal-quick-step-omits-structure-abilities",
    "P-legal",
    "In the quick step the Quick abilities of Pals are listed, not those of structures.",
)
class LegalQuickStepOmitsStructureAbilities(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        return _without(
            super().legal(),
            lambda a: (
                g.step == "quick"
                and a["do"] == "activate"
                and g.cards[a["card"]].card.kind == "structure"
            ),
        )


@mutant(
    "legal-interrupt-omits-structures",
    "P-legal",
    "Interrupt is listed for the Pals and events in hand that have it, not for a structure "
    "with Interrupt.",
)
class LegalInterruptOmitsStructures(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        return _without(
            super().legal(),
            lambda a: a["do"] == "interrupt" and g.cards[a["card"]].card.kind == "structure",
        )


@mutant(
    "legal-interrupt-only-for-b",
    "P-legal",
    "Interrupt is listed only for player B, the one who answers the first player's attacks.",
)
class LegalInterruptOnlyForB(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _without(super().legal(), lambda a: a["do"] == "interrupt" and a["player"] != "B")


def _quick_cards(g: GameState) -> list[CardState]:
    """The payable Pals and structures with the Quick keyword in the hand of the player with
    priority in the quick step."""
    p = g.priority
    if g.step != "quick" or p is None:
        return []
    return [
        c
        for c in g.zone(p, "hand")
        if c.card.kind != "event" and c.has("quick") and c.card.cost <= g.energy[p]
    ]


@mutant(
    "legal-quick-pal-deploys-in-quick-step",
    "P-legal",
    "In the quick step the deploy of a payable Pal or structure with the Quick keyword is "
    "listed for the player with priority.",
)
class LegalQuickPalDeploysInQuickStep(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        quick = {c.id for c in _quick_cards(g)}
        if not quick:
            return super().legal()
        as_main = g.copy()
        as_main.step, as_main.active = "main", g.priority  # type: ignore[assignment]
        extra = [a for a in _legal_on(self, as_main) if a["do"] == "deploy" and a["card"] in quick]
        return _union(super().legal(), extra)


@mutant(
    "legal-quick-pal-plays-in-quick-step",
    "P-legal",
    "In the quick step `play` of a payable Pal or structure with the Quick keyword is listed "
    "for the player with priority, as if it were a Quick event.",
)
class LegalQuickPalPlaysInQuickStep(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        extra = [{"do": "play", "player": c.owner, "card": c.id} for c in _quick_cards(g)]
        return _union(super().legal(), extra)


@mutant(
    "legal-taunt-only-against-a",
    "P-legal",
    "Taunt narrows the listed targets only of A's attackers: B's attacks ignore A's Taunt Pals.",
)
class LegalTauntOnlyAgainstA(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main" or g.active != "B":
            return listed
        untaunted = g.copy()
        for c in untaunted.zone("A", "battle"):
            keywords = tuple(k for k in c.card.keywords if k.id != "taunt")
            c.card = replace(c.card, keywords=keywords)
        return _union(listed, [a for a in _legal_on(self, untaunted) if a["do"] == "attack"])


# ---------------------------------------------------------------- assigns


@mutant(
    "legal-zero-slots-mean-one",
    "P-legal",
    "A structure's `slots` of 0 is taken as the default 1, so assigns to an empty one are listed.",
)
class LegalZeroSlotsMeanOne(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main":
            return listed
        one = g.copy()
        for s in one.zone(g.active, "structures"):
            if s.card.slots == 0:
                s.card = replace(s.card, slots=1)
        return _union(listed, [a for a in _legal_on(self, one) if a["do"] == "assign"])


@mutant(
    "legal-assign-needs-standing-structure",
    "P-legal",
    "Assigns are listed only to standing structures.",
)
class LegalAssignNeedsStandingStructure(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        return _without(
            super().legal(),
            lambda a: a["do"] == "assign" and g.cards[a["structure"]].state == "rest",
        )


# ---------------------------------------------------------------- choose


def _choose(a: dict[str, Any], choose: list[str]) -> dict[str, Any]:
    """`a` with `choose` (none if it is empty)."""
    rest = {k: v for k, v in a.items() if k != "choose"}
    return {**rest, "choose": choose} if choose else rest


@mutant(
    "legal-one-choice-per-keyword",
    "P-legal",
    "An action takes one `choose` entry per keyword, however many instances of it its card "
    "has, so two Serious take one entry.",
)
class LegalOneChoicePerKeyword(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        out = []
        for a in super().legal():
            n = len(g.cards[a["card"]].card.instances("serious")) if a["do"] == "assign" else 0
            if n > 1 and "choose" in a:  # Serious, the only keyword that chooses, comes first
                a = _choose(a, a["choose"][:1] + a["choose"][n:])
            out.append(a)
        return _union([], out)


@mutant(
    "legal-third-choice-dropped",
    "P-legal",
    "A listed action's `choose` has at most two entries: a third ability that needs a choice "
    "is left to the act.",
)
class LegalThirdChoiceDropped(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union([], [_choose(a, a.get("choose", [])[:2]) for a in super().legal()])


@mutant(
    "legal-omits-cut-off-choices",
    "P-legal",
    "LEGAL plays each action out, so an ability that a lethal earlier ability keeps from "
    "resolving is given no `choose` entry.",
)
class LegalOmitsCutOffChoices(Rules):
    def legal(self) -> list[dict[str, Any]]:
        out = []
        for a in super().legal():
            if "choose" in a:
                g = self.state.copy()
                pending = getattr(self, "move_" + a["do"])(g, a)
                self.bind_choices(g, pending, a["choose"])
                used = 0
                for p in pending:
                    if g.step == "over":
                        break
                    used += p.choice is not None
                    self.resolve_effect(g, p)
                a = _choose(a, a["choose"][:used])
            out.append(a)
        return _union([], out)


@mutant(
    "legal-only-taunt-blockers",
    "P-legal",
    "In the block step only Taunt Pals are listed as blockers while one of them may block, "
    "as if Taunt bound the block.",
)
class LegalOnlyTauntBlockers(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state

        def taunting(a: dict[str, Any]) -> bool:
            return a["do"] == "block" and g.cards[a["blocker"]].has("taunt")

        if not any(taunting(a) for a in listed):
            return listed
        return [a for a in listed if a["do"] != "block" or taunting(a)]


@mutant(
    "legal-interrupt-event-needs-choose",
    "P-legal",
    "An Interrupt event whose own effect chooses a Pal is taken to need that choice through "
    "`interrupt` too, which cannot carry `choose`, so LEGAL leaves that `interrupt` out "
    "while a Pal could be chosen.",
)
class LegalInterruptEventNeedsChoose(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state

        def needs_choice(a: dict[str, Any]) -> bool:
            effect = g.cards[a["card"]].card.effect if a["do"] == "interrupt" else None
            return effect is not None and bool(self.choice_options(g, effect))

        return [a for a in super().legal() if not needs_choice(a)]


@mutant(
    "legal-blocks-against-stealth",
    "P-legal",
    "In the block step the defender's standing Pals are listed as blockers whatever the "
    "attacker: Stealth is left to the act to refuse.",
)
class LegalBlocksAgainstStealth(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        listed = super().legal()
        if g.step != "block" or g.attack is None:
            return listed
        attacker = g.cards[g.attack.attacker]
        if not attacker.has("stealth"):
            return listed
        unhidden = g.copy()
        card = unhidden.cards[attacker.id]
        card.card = replace(
            card.card, keywords=tuple(k for k in card.card.keywords if k.id != "stealth")
        )
        return _union(listed, _legal_on(self, unhidden))


@mutant(
    "legal-interrupt-energy-way-without-energy",
    "P-legal",
    "Interrupt's first way is listed for every Interrupt card in hand, with no look at the "
    "acting player's energy.",
)
class LegalInterruptEnergyWayWithoutEnergy(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        listed = super().legal()
        if g.step != "quick" or g.priority is None:
            return listed
        rich = g.copy()
        rich.energy[g.priority] = max(1, rich.energy[g.priority])
        extra = [
            a for a in _legal_on(self, rich) if a["do"] == "interrupt" and a["pay"] == "energy"
        ]
        return _union(listed, extra)


@mutant(
    "legal-unpayable-activations",
    "P-legal",
    "Activations are listed without a look at energy: an ability its controller cannot pay "
    "for is listed too.",
)
class LegalUnpayableActivations(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union(super().legal(), _unpayable(self, "activate"))


def _unpayable(rules: Rules, do: str) -> list[dict[str, Any]]:
    """The `do` actions LEGAL would list if the player to act had energy enough for any."""
    g = rules.state
    p = g.active if g.step == "main" else g.priority
    if p is None or g.step == "over":
        return []
    rich = g.copy()
    rich.energy[p] += 1000
    return [a for a in _legal_on(rules, rich) if a["do"] == do]


@mutant(
    "legal-unpayable-events",
    "P-legal",
    "Events are listed without a look at energy: one its player cannot pay for is listed too.",
)
class LegalUnpayableEvents(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union(super().legal(), _unpayable(self, "play"))


@mutant(
    "legal-end-turn-during-attack",
    "P-legal",
    "Ending the turn is listed in every step for the active player, as in the main phase.",
)
class LegalEndTurnDuringAttack(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        out = super().legal()
        if g.step in ("block", "quick") and g.priority == g.active:
            out.append({"do": "end-turn", "player": g.active})
        return out
