"""Mutants of `P-legal` (docs/protocol.md, LEGAL): the canonical list `legal` returns.

Each `legal` post-processes the oracle's list; where the misreading is "a check is missing",
the extra actions are what the oracle lists on a copy of the game in which that check holds
(`_legal_on`). The LEGAL a mutant gives keeps the protocol's JSON shape (schema-valid), so
that a case kills it by a `fail`, never by an `error`. A mutant that limits what is listed
once something was done this turn keeps its mark in the game state (`Did`), never in the
engine: LEGAL tries actions on copies.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.model import CardState, GameState, Player, Pump, Zone, other
from palconf.oracle.rules import Pending, Rules


def _key(action: Mapping[str, Any]) -> str:
    return json.dumps(action, sort_keys=True)


def _union(listed: list[dict[str, Any]], extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`listed`, then each action of `extra` it lacks."""
    seen = {_key(a) for a in listed}
    out = list(listed)
    for a in extra:
        if _key(a) not in seen:
            seen.add(_key(a))
            out.append(a)
    return out


def _legal_on(rules: Rules, g: GameState) -> list[dict[str, Any]]:
    """What the oracle lists on the game `g` (`rules.state` is put back afterwards)."""
    saved = rules.state
    rules.state = g
    try:
        return Rules.legal(rules)
    finally:
        rules.state = saved


def _actor(g: GameState) -> Player | None:
    return g.active if g.step == "main" else g.priority


@mutant(
    "legal-no-end-turn",
    "P-legal",
    "Ending the turn is taken for a phase change, not an action: `end-turn` is never listed.",
)
class LegalNoEndTurn(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return [a for a in super().legal() if a["do"] != "end-turn"]


@mutant(
    "legal-rested-attackers",
    "P-legal",
    "The attackers listed are all the player's Pals in battle: rested ones are not left out.",
)
class LegalRestedAttackers(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main":
            return listed
        stood = g.copy()
        rested = {c.id for c in stood.zone(g.active, "battle") if c.state == "rest"}
        for cid in rested:
            stood.cards[cid].state = "stand"
        return _union(
            listed,
            [a for a in _legal_on(self, stood) if a["do"] == "attack" and a["attacker"] in rested],
        )


@mutant(
    "legal-unpayable-deploys",
    "P-legal",
    "The deploys listed are every Pal and structure in hand, whatever their cost.",
)
class LegalUnpayableDeploys(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main":
            return listed
        rich = g.copy()
        rich.energy[g.active] = 1_000_000
        return _union(listed, [a for a in _legal_on(self, rich) if a["do"] == "deploy"])


@mutant(
    "legal-no-choose",
    "P-legal",
    "Choices are left to the `act` that takes the action: no listed action carries `choose`.",
)
class LegalNoChoose(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union([], [{k: v for k, v in a.items() if k != "choose"} for a in super().legal()])


@mutant(
    "legal-empty-choose-everywhere",
    "P-legal",
    "Every listed action carries `choose`, an empty one where no ability needs a choice.",
)
class LegalEmptyChooseEverywhere(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return [{**a, "choose": a.get("choose", [])} for a in super().legal()]


def _interrupts(
    rules: Rules,
    g: GameState,
    p: Player,
    discards: Callable[[CardState, list[CardState]], list[CardState]],
) -> list[dict[str, Any]]:
    """Interrupt actions of `p` with each Interrupt card in hand: the energy way if `p` has
    energy, and the discard way with each card `discards` gives."""
    hand = g.zone(p, "hand")
    out: list[dict[str, Any]] = []
    for c in hand:
        if not rules.is_interrupt(c):
            continue
        if g.energy[p] >= 1:
            out.append({"do": "interrupt", "player": p, "card": c.id, "pay": "energy"})
        out += [
            {"do": "interrupt", "player": p, "card": c.id, "pay": "discard", "discard": d.id}
            for d in discards(c, hand)
        ]
    return out


@mutant(
    "legal-interrupt-discards-itself",
    "P-legal",
    "Interrupt's discard way is listed with the Interrupt card itself as the discard too.",
)
class LegalInterruptDiscardsItself(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "quick" or g.attack is None or g.priority != g.attack.defender:
            return listed
        return _union(listed, _interrupts(self, g, g.priority, lambda c, hand: [c]))


@mutant(
    "legal-interrupt-for-attacker",
    "P-legal",
    "Interrupt is listed for whoever has priority in the quick step, the attacking player too.",
)
class LegalInterruptForAttacker(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "quick" or g.attack is None or g.priority == g.attack.defender:
            return listed
        assert g.priority is not None
        return _union(
            listed,
            _interrupts(self, g, g.priority, lambda c, hand: [d for d in hand if d.id != c.id]),
        )


@mutant("legal-pass-in-main", "P-legal", "The main phase lists `pass` too, beside `end-turn`.")
class LegalPassInMain(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main":
            return listed
        return _union(listed, [{"do": "pass", "player": g.active}])


@mutant(
    "legal-quick-step-both-players",
    "P-legal",
    "In the quick step both players may act, so the quick actions of both are listed, not "
    "only those of the player with priority.",
)
class LegalQuickStepBothPlayers(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "quick" or g.priority is None:
            return listed
        turned = g.copy()
        turned.priority = other(g.priority)
        return _union(listed, _legal_on(self, turned))


@mutant(
    "legal-lists-after-game-over",
    "P-legal",
    "Game over is not checked by `legal`: it goes on listing the active player's "
    "main-phase actions.",
)
class LegalListsAfterGameOver(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        if g.step != "over":
            return super().legal()
        going = g.copy()
        going.step, going.attack, going.priority = "main", None, None
        return _legal_on(self, going)


@mutant(
    "legal-assign-to-full-structure",
    "P-legal",
    "The assigns listed pair every standing Pal with every structure of the player, full ones too.",
)
class LegalAssignToFullStructure(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main":
            return listed
        roomy = g.copy()
        for s in roomy.zone(g.active, "structures"):
            s.card = replace(s.card, slots=1_000_000)
        return _union(listed, [a for a in _legal_on(self, roomy) if a["do"] == "assign"])


@mutant(
    "legal-rested-blockers",
    "P-legal",
    "The blockers listed are all the defending player's Pals in battle other than the "
    "target: rested ones are not left out.",
)
class LegalRestedBlockers(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "block" or g.attack is None or not any(a["do"] == "block" for a in listed):
            return listed
        p = g.attack.defender
        return _union(
            listed,
            [
                {"do": "block", "player": p, "blocker": c.id}
                for c in g.zone(p, "battle")
                if c.id != g.attack.target
            ],
        )


@mutant(
    "legal-standing-targets",
    "P-legal",
    "The attack targets listed are the master and every opposing Pal in battle, standing ones too.",
)
class LegalStandingTargets(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "main":
            return listed
        rested = g.copy()
        for c in rested.zone(other(g.active), "battle"):
            c.state = "rest"
        return _union(listed, [a for a in _legal_on(self, rested) if a["do"] == "attack"])


@mutant(
    "legal-any-event-in-quick-step",
    "P-legal",
    "In the quick step every payable event in hand is listed as `play`, not only Quick ones.",
)
class LegalAnyEventInQuickStep(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        p = _actor(g)
        if g.step != "quick" or p is None:
            return listed
        as_main = g.copy()
        as_main.step, as_main.active = "main", p
        return _union(listed, [a for a in _legal_on(self, as_main) if a["do"] == "play"])


def _as_if_moved(
    rules: Rules, frm: Zone, to: Zone, do: str, field: str = "card", kind: str | None = None
) -> list[dict[str, Any]]:
    """The `do` actions the oracle lists for the acting player with their cards in `frm`
    (of `kind`, or every kind) put in `to`, whose `field` names one of those cards."""
    g = rules.state
    p = _actor(g)
    if p is None:
        return []
    moved = g.copy()
    ids = set()
    for c in moved.zone(p, frm):
        if kind is None or c.card.kind == kind:
            c.zone = to
            ids.add(c.id)
    return [a for a in _legal_on(rules, moved) if a["do"] == do and a.get(field) in ids]


@mutant(
    "legal-activate-from-hand",
    "P-legal",
    "The activated abilities of the player's cards in hand are listed too, as if in play.",
)
class LegalActivateFromHand(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union(super().legal(), _as_if_moved(self, "hand", "structures", "activate"))


@mutant(
    "legal-activate-from-graveyard",
    "P-legal",
    "The activated abilities of the player's cards in the graveyard are listed too, as if in play.",
)
class LegalActivateFromGraveyard(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union(super().legal(), _as_if_moved(self, "graveyard", "structures", "activate"))


@mutant(
    "legal-deploy-from-graveyard",
    "P-legal",
    "The Pals and structures in the player's graveyard are listed as deploys too, as if in hand.",
)
class LegalDeployFromGraveyard(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union(super().legal(), _as_if_moved(self, "graveyard", "hand", "deploy"))


@mutant(
    "legal-play-from-graveyard",
    "P-legal",
    "The events in the player's graveyard are listed as plays too, as if in hand.",
)
class LegalPlayFromGraveyard(Rules):
    def legal(self) -> list[dict[str, Any]]:
        return _union(super().legal(), _as_if_moved(self, "graveyard", "hand", "play"))


@mutant(
    "legal-assign-to-structure-in-hand",
    "P-legal",
    "The assigns listed pair each standing Pal with the player's structures in hand too, as "
    "if in play.",
)
class LegalAssignToStructureInHand(Rules):
    def legal(self) -> list[dict[str, Any]]:
        extra = _as_if_moved(self, "hand", "structures", "assign", "structure", "structure")
        return _union(super().legal(), extra)


@mutant(
    "legal-quick-opponents-abilities",
    "P-legal",
    "In the quick step the Quick abilities of every card in play are listed for the player "
    "with priority, the opponent's cards too.",
)
class LegalQuickOpponentsAbilities(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        p = g.priority
        if g.step != "quick" or p is None:
            return listed
        theirs = g.copy()
        ids = {c.id for c in theirs.cards.values() if c.in_play and c.owner != p}
        for cid in ids:
            theirs.cards[cid].owner = p
        return _union(
            listed,
            [a for a in _legal_on(self, theirs) if a["do"] == "activate" and a["card"] in ids],
        )


@mutant(
    "legal-interrupt-discard-needs-printed-cost",
    "P-legal",
    "Interrupt's discard way is listed only when the player's energy could pay the card's "
    "printed cost too.",
)
class LegalInterruptDiscardNeedsPrintedCost(Rules):
    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        return [
            a
            for a in super().legal()
            if not (
                a["do"] == "interrupt"
                and a["pay"] == "discard"
                and g.cards[a["card"]].card.cost > g.energy[a["player"]]
            )
        ]


@mutant(
    "legal-interrupt-discard-from-battle",
    "P-legal",
    "Interrupt's discard way is listed with each of the player's Pals in the battle area as "
    "the other card too, not only with the cards in hand.",
)
class LegalInterruptDiscardFromBattle(Rules):
    def legal(self) -> list[dict[str, Any]]:
        listed = super().legal()
        g = self.state
        if g.step != "quick" or g.attack is None or g.priority != g.attack.defender:
            return listed
        p = g.attack.defender
        return _union(listed, _interrupts(self, g, p, lambda c, hand: g.zone(p, "battle")))


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


# ---------------------------------------------------------------- once a turn, once a step
#
# Nothing in P-legal (or the rules) limits how often an action may be listed in one turn. A
# mutant that adds such a limit marks what was done in the game state (`Did`, a pump of 0,
# which ends with the turn like every pump), set by the action's own move: LEGAL's trial
# moves on copies leave no trace in the game.


@dataclass(frozen=True, slots=True)
class Did(Pump):
    """A pump of 0 on no card (`card` ""): `player` did `do` this turn, naming `named` (the
    card deployed, played or assigned, the attacker, the blocker, the Pal rested)."""

    do: str = ""
    player: str = ""
    named: str = ""


def _did(g: GameState, do: str, player: str | None = None) -> set[str]:
    """What the `do` marks of this turn (of `player`, or of either) name."""
    return {
        p.named for p in g.pumps if isinstance(p, Did) and p.do == do and player in (None, p.player)
    }


def _mark(g: GameState, do: str, a: Mapping[str, Any], field: str = "card") -> None:
    g.pumps.append(Did("", 0, do, a["player"], a.get(field, "")))


def _without(listed: list[dict[str, Any]], drop: Callable[[dict[str, Any]], bool]) -> list[Any]:
    return [a for a in listed if not drop(a)]


@mutant(
    "legal-one-deploy-per-turn",
    "P-legal",
    "Deploys are listed only until the active player has deployed a card this turn.",
)
class LegalOneDeployPerTurn(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "deploy", a)
        return super().move_deploy(g, a)

    def legal(self) -> list[dict[str, Any]]:
        done = bool(_did(self.state, "deploy"))
        return _without(super().legal(), lambda a: done and a["do"] == "deploy")


@mutant(
    "legal-deployed-pal-cannot-assign",
    "P-legal",
    "No assign of a Pal deployed this turn is listed, as if it had to settle in first.",
)
class LegalDeployedPalCannotAssign(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "deploy", a)
        return super().move_deploy(g, a)

    def legal(self) -> list[dict[str, Any]]:
        new = _did(self.state, "deploy")
        return _without(super().legal(), lambda a: a["do"] == "assign" and a["card"] in new)


@mutant(
    "legal-deployed-card-cannot-activate",
    "P-legal",
    "No activated ability of a card deployed this turn is listed.",
)
class LegalDeployedCardCannotActivate(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "deploy", a)
        return super().move_deploy(g, a)

    def legal(self) -> list[dict[str, Any]]:
        new = _did(self.state, "deploy")
        return _without(super().legal(), lambda a: a["do"] == "activate" and a["card"] in new)


@mutant(
    "legal-deployed-structure-takes-no-assign",
    "P-legal",
    "No assign to a structure deployed this turn is listed.",
)
class LegalDeployedStructureTakesNoAssign(Rules):
    def move_deploy(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "deploy", a)
        return super().move_deploy(g, a)

    def legal(self) -> list[dict[str, Any]]:
        new = _did(self.state, "deploy")
        return _without(super().legal(), lambda a: a["do"] == "assign" and a["structure"] in new)


@mutant(
    "legal-one-assign-per-turn",
    "P-legal",
    "Assigns are listed only until the active player has assigned a Pal this turn.",
)
class LegalOneAssignPerTurn(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "assign", a)
        return super().move_assign(g, a)

    def legal(self) -> list[dict[str, Any]]:
        done = bool(_did(self.state, "assign"))
        return _without(super().legal(), lambda a: done and a["do"] == "assign")


@mutant(
    "legal-assigned-pal-no-abilities-this-turn",
    "P-legal",
    "No activated ability of a Pal assigned this turn is listed, as if it were busy on its "
    "structure.",
)
class LegalAssignedPalNoAbilitiesThisTurn(Rules):
    def move_assign(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "assign", a)
        return super().move_assign(g, a)

    def legal(self) -> list[dict[str, Any]]:
        new = _did(self.state, "assign")
        return _without(super().legal(), lambda a: a["do"] == "activate" and a["card"] in new)


@mutant(
    "legal-one-event-per-turn",
    "P-legal",
    "In the main phase `play` is listed only until the active player has played an event "
    "this turn.",
)
class LegalOneEventPerTurn(Rules):
    def move_play(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "play", a)
        return super().move_play(g, a)

    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        done = g.step == "main" and bool(_did(g, "play", g.active))
        return _without(super().legal(), lambda a: done and a["do"] == "play")


@mutant(
    "legal-no-main-actions-after-attack",
    "P-legal",
    "Once the active player has attacked this turn no deploy, assign or play is listed, as "
    "if a combat phase followed the main phase.",
)
class LegalNoMainActionsAfterAttack(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "attack", a, "attacker")
        return super().move_attack(g, a)

    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        done = g.step == "main" and bool(_did(g, "attack"))
        return _without(super().legal(), lambda a: done and a["do"] in ("deploy", "assign", "play"))


@mutant(
    "legal-attacker-once-per-turn",
    "P-legal",
    "No attack by a Pal that already attacked this turn is listed, even when an effect "
    "stood it again.",
)
class LegalAttackerOncePerTurn(Rules):
    def move_attack(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "attack", a, "attacker")
        return super().move_attack(g, a)

    def legal(self) -> list[dict[str, Any]]:
        done = _did(self.state, "attack")
        return _without(super().legal(), lambda a: a["do"] == "attack" and a["attacker"] in done)


@mutant(
    "legal-blocker-once-per-turn",
    "P-legal",
    "No block by a Pal that already blocked this turn is listed, even when an effect stood "
    "it again.",
)
class LegalBlockerOncePerTurn(Rules):
    def move_block(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "block", a, "blocker")
        return super().move_block(g, a)

    def legal(self) -> list[dict[str, Any]]:
        done = _did(self.state, "block")
        return _without(super().legal(), lambda a: a["do"] == "block" and a["blocker"] in done)


@mutant(
    "legal-interrupt-once-per-turn",
    "P-legal",
    "Interrupt is listed for a player only until they have nullified an attack this turn.",
)
class LegalInterruptOncePerTurn(Rules):
    def move_interrupt(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        _mark(g, "interrupt", a)
        return super().move_interrupt(g, a)

    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        return _without(
            super().legal(),
            lambda a: a["do"] == "interrupt" and bool(_did(g, "interrupt", a["player"])),
        )


@mutant(
    "legal-one-quick-action-each",
    "P-legal",
    "In the quick step a player's Quick events and abilities are listed only until they have "
    "taken one quick action in that attack's quick step.",
)
class LegalOneQuickActionEach(Rules):
    def after_quick_action(self, g: GameState) -> None:
        if g.step == "quick" and g.attack is not None and g.priority is not None:
            _mark(g, "quick", {"player": g.priority, "card": g.attack.attacker})
        super().after_quick_action(g)

    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        acted = (
            g.step == "quick"
            and g.attack is not None
            and g.attack.attacker in _did(g, "quick", g.priority)
        )
        return _without(super().legal(), lambda a: acted and a["do"] in ("play", "activate"))


@mutant(
    "legal-rested-by-effect-not-target",
    "P-legal",
    "The opposing Pals an effect rested this turn are not listed as attack targets (but by "
    "Assault), as if only Pals rested when the turn began could be attacked.",
)
class LegalRestedByEffectNotTarget(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        target = self.effect_target(g, p) if p.effect.op == "rest" else None
        if target is not None and target.zone == "battle" and target.owner != g.active:
            _mark(g, "rested", {"player": p.controller, "card": target.id})
        super().resolve_effect(g, p)

    def legal(self) -> list[dict[str, Any]]:
        g = self.state
        fresh = _did(g, "rested")
        return _without(
            super().legal(),
            lambda a: (
                a["do"] == "attack"
                and a["target"] in fresh
                and not g.cards[a["attacker"]].has("assault")
            ),
        )


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
