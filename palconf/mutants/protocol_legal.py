"""Mutants of `P-legal` (docs/protocol.md, LEGAL): the canonical list `legal` returns.

Each `legal` post-processes the oracle's list; where the misreading is "a check is missing",
the extra actions are what the oracle lists on a copy of the game in which that check holds
(`_legal_on`). The LEGAL a mutant gives keeps the protocol's JSON shape (schema-valid), so
that a case kills it by a `fail`, never by an `error`. More in `protocol_legal_repeats` and
`protocol_legal_steps`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.model import CardState, GameState, Player, Zone, other
from palconf.oracle.rules import Rules


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
