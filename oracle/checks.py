"""The refusals of an action before its move: the rows of the REASON table of P-reasons
(docs/protocol.md, section ACTION), each checked in one place.

`check_shape` is the `invalid-action` row (it raises). Each `check_<do>(g, action)` then
yields, in the table's order, a `Refusal` for every further row that the action breaks, up
to the `cannot-block` row; a row that cannot be evaluated because an earlier one failed
(the card is not found, so its kind and cost are unknown) is skipped. `Rules.try_action`
takes the first and `Rules.reasons` them all. A generator stops where its consumer stops,
so refusing costs no more than the first failing row. The last row (the choices) is checked
after the move: `EffectRules.bind_choices`. `game-over` is `Rules.try_action`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .base import Refusal, RulesBase
from .model import PLAYERS, GameState

#: The fields each kind of action requires (missing one: invalid-action).
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "deploy": ("card",),
    "assign": ("card", "structure"),
    "play": ("card",),
    "activate": ("card", "ability"),
    "attack": ("attacker", "target"),
    "block": ("blocker",),
    "interrupt": ("card", "pay"),
    "pass": (),
    "end-turn": (),
}
#: The optional fields the ACTION table gives each kind of action. A field that neither table
#: gives a kind (`choose` on `end-turn`) is not one of its fields: this oracle checks its
#: JSON type all the same (a wrong type: invalid-action), where an engine may also ignore
#: it (I-26).
OPTIONAL_FIELDS: dict[str, tuple[str, ...]] = {
    "deploy": ("choose",),
    "assign": ("choose",),
    "play": ("choose",),
    "activate": ("choose",),
    "attack": ("choose",),
    "interrupt": ("discard",),
}
#: The fields that name a card (or the master) and must be strings wherever they appear.
ID_FIELDS: frozenset[str] = frozenset(
    {"card", "structure", "attacker", "target", "blocker", "discard"}
)


def _invalid(message: str) -> Refusal:
    return Refusal("invalid-action", message)


class CheckRules(RulesBase):
    """P-reasons, from `invalid-action` to `cannot-block`."""

    # ------------------------------------------------------------------ invalid-action

    def check_shape(self, action: Any) -> str:
        """The `invalid-action` row: the action is an object with a known `do`, a `player`
        "A" or "B" and the fields its `do` requires, and every field it has is of the right
        JSON type, whatever its `do` (ids strings, `ability` an integer — not true or false
        —, `pay` "energy" or "discard", `choose` a list of strings). Returns the `do`."""
        if not isinstance(action, dict):
            raise _invalid("an action must be an object")
        do = action.get("do")
        if not isinstance(do, str) or do not in ACTION_FIELDS:
            raise _invalid(f"unknown action `do` = {do!r}")
        if action.get("player") not in PLAYERS:
            raise _invalid('`player` must be "A" or "B"')
        for name in ACTION_FIELDS[do]:
            if name not in action:
                raise _invalid(f"`{do}` needs `{name}`")
        for name, value in action.items():  # each field it has, whatever its `do`
            if name in ID_FIELDS:
                if not isinstance(value, str):
                    raise _invalid(f"`{name}` must be a string")
            elif name == "ability":
                if not isinstance(value, int) or isinstance(value, bool):
                    raise _invalid("`ability` must be an integer")
            elif name == "pay":
                if value not in ("energy", "discard"):
                    raise _invalid('`pay` must be "energy" or "discard"')
            elif name == "choose":
                if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
                    raise _invalid("`choose` must be a list of card ids")
        return do

    # ------------------------------------------------------------------ timing and player

    def check_main_phase(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        """B-7/B-8/B-11/B-6: the rows `wrong-timing` (the active player's main phase, no
        attack under way) and `wrong-player` (the player who may act now)."""
        if g.step != "main":
            yield Refusal(
                "wrong-timing",
                f"`{a['do']}` is only possible in a main phase "
                f"with no attack under way (now: {g.step} step)",
            )
            if a["player"] != g.priority:
                yield Refusal("wrong-player", f"{g.priority} is to act in the {g.step} step")
        elif a["player"] != g.active:
            yield Refusal("wrong-player", f"it is {g.active}'s main phase")

    def check_quick_timing(
        self, g: GameState, a: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        """B-9, B-9a, B-14: main phase (active player) or, if Quick, the quick step (the
        player with priority): the rows `wrong-timing`, `wrong-player` and `wrong-timing`
        (again). `is_quick()` is None when the card is not where the action needs it: the
        Quick row then does not apply (the card is `not-found`)."""
        if g.step == "block":
            yield Refusal("wrong-timing", "only `block` or `pass` in the block step")
        if g.step == "main":
            if a["player"] != g.active:
                yield Refusal("wrong-player", f"it is {g.active}'s main phase")
        elif a["player"] != g.priority:
            yield Refusal("wrong-player", f"{g.priority} is to act in the {g.step} step")
        elif g.step == "quick" and is_quick() is False:
            yield Refusal("wrong-timing", "without Quick it cannot be used in the quick step")

    # ------------------------------------------------------------------ deploy (B-7)

    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from self.check_main_phase(g, a)
        card = g.cards.get(a["card"])
        if card is None or card.owner != a["player"] or card.zone != "hand":
            yield Refusal("not-found", f"{a['card']!r} is not in {a['player']}'s hand")
            return
        if card.card.kind == "event":
            yield Refusal("wrong-kind", "an event is played, not deployed")
        if card.card.cost > g.energy[a["player"]]:
            yield Refusal(
                "cannot-pay", f"costs {card.card.cost}, energy is {g.energy[a['player']]}"
            )

    # ------------------------------------------------------------------ assign (B-8)

    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from self.check_main_phase(g, a)
        pal = g.cards.get(a["card"])
        if pal is None or pal.owner != a["player"] or pal.zone != "battle":
            yield Refusal("not-found", f"{a['card']!r} is not a Pal of {a['player']} in battle")
            pal = None
        structure = g.cards.get(a["structure"])
        if pal is not None and pal.state != "stand":
            yield Refusal("cannot-assign", f"{pal.id!r} is rested")
        elif structure is None or structure.owner != a["player"] or structure.zone != "structures":
            yield Refusal(
                "cannot-assign", f"{a['structure']!r} is not a structure of {a['player']} in play"
            )
        elif (
            sum(1 for c in g.cards.values() if c.host == structure.id and c.zone == "assigned")
            >= structure.card.slots
        ):
            yield Refusal("cannot-assign", f"{structure.id!r} has no free slot")

    # ------------------------------------------------------------------ play an event (B-9)

    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        mine = (
            card
            if (card is not None and card.owner == a["player"] and card.zone == "hand")
            else None
        )
        yield from self.check_quick_timing(
            g, a, lambda: None if mine is None else self.is_quick_event(mine)
        )
        if mine is None:
            yield Refusal("not-found", f"{a['card']!r} is not in {a['player']}'s hand")
            return
        if mine.card.kind != "event":
            yield Refusal("wrong-kind", f"{mine.id!r} is a {mine.card.kind}: deploy it")
        if mine.card.cost > g.energy[a["player"]]:
            yield Refusal(
                "cannot-pay", f"costs {mine.card.cost}, energy is {g.energy[a['player']]}"
            )

    # ------------------------------------------------------------------ activate (B-9a)

    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        index = a["ability"]
        mine = (
            card
            if (
                card is not None
                and card.owner == a["player"]
                and card.in_play
                and 0 <= index < len(card.card.abilities)
            )
            else None
        )
        yield from self.check_quick_timing(
            g, a, lambda: None if mine is None else mine.card.abilities[index].quick
        )
        if mine is None:
            yield Refusal(
                "not-found", f"no ability {index} of a card {a['card']!r} of {a['player']} in play"
            )
            return
        ability = mine.card.abilities[index]
        if ability.when != "activate":
            yield Refusal("wrong-kind", f"ability {index} of {mine.id!r} is not activated")
            return  # a triggered ability has no cost to pay
        if ability.cost > g.energy[a["player"]]:
            yield Refusal("cannot-pay", f"costs {ability.cost}, energy is {g.energy[a['player']]}")

    # ------------------------------------------------------------------ attack (B-11, B-12)

    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        yield from self.check_main_phase(g, a)
        attacker = g.cards.get(a["attacker"])
        if attacker is None or attacker.owner != a["player"] or attacker.zone != "battle":
            yield Refusal("not-found", f"{a['attacker']!r} is not a Pal of {a['player']} in battle")
            return
        if attacker.state != "stand":
            yield Refusal("cannot-attack", f"{attacker.id!r} is rested")
        target = a["target"]
        targetable = self.targetable(g, attacker)
        illegal = target != "master" and target not in targetable
        if illegal:
            yield Refusal("illegal-target", f"{target!r} is not a legal attack target")
        allowed = self.legal_targets(g, attacker)
        # taunt-required: a restriction (Taunt) leaves out a target the attacker could
        # choose; for an illegal target, whether a restriction narrowed the targets at all
        if target not in allowed and (not illegal or allowed != ["master"] + targetable):
            yield Refusal("taunt-required", f"a Taunt Pal must be targeted: {', '.join(allowed)}")

    # ------------------------------------------------------------------ block (B-13)

    def check_block(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step != "block":
            yield Refusal("wrong-timing", "`block` only in the block step")
        acting = self.acting_player(g)
        if a["player"] != acting:
            yield Refusal(
                "wrong-player",
                f"{acting} is the defending player" if g.step == "block" else f"{acting} is to act",
            )
        if g.attack is not None and not self.can_block(g, a["blocker"]):
            yield Refusal("cannot-block", f"{a['blocker']!r} cannot block this attack")

    # ------------------------------------------------------------------ pass (B-13, B-14)

    def check_pass(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step not in ("block", "quick"):
            yield Refusal("wrong-timing", "`pass` only in the block or quick step")
        acting = self.acting_player(g)
        if a["player"] != acting:
            yield Refusal("wrong-player", f"{acting} is to act")

    # ------------------------------------------------------------------ interrupt (interrupt.1–3)

    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        if g.step != "quick":
            yield Refusal("wrong-timing", "Interrupt only in the quick step of an attack")
        acting = self.acting_player(g)
        if a["player"] != acting:
            yield Refusal(
                "wrong-player",
                f"{acting} is to act" + (" in the quick step" if g.step == "quick" else ""),
            )
        elif g.attack is not None and a["player"] != g.attack.defender:
            yield Refusal("wrong-player", "Interrupt nullifies the opponent's attack, not your own")
        card = g.cards.get(a["card"])
        if card is None or card.owner != a["player"] or card.zone != "hand":
            yield Refusal("not-found", f"{a['card']!r} is not in {a['player']}'s hand")
        elif not self.is_interrupt(card):
            yield Refusal("wrong-kind", f"{card.id!r} has no Interrupt")
        if a["pay"] == "energy":
            if g.energy[a["player"]] < 1:
                yield Refusal("cannot-pay", "Interrupt's first way costs 1 energy")
        else:
            other_card = g.cards.get(a.get("discard", ""))
            if (
                other_card is None
                or other_card.id == a["card"]
                or other_card.owner != a["player"]
                or other_card.zone != "hand"
            ):
                yield Refusal(
                    "cannot-pay", "Interrupt's second way discards another card from your hand"
                )

    # ------------------------------------------------------------------ end of turn (B-6)

    def check_end_turn(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return self.check_main_phase(g, a)
