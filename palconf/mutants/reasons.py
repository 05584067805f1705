"""Mutants of P-reasons (docs/protocol.md, the REASON table): an action that breaks several rows
given the reason of a later row, or a bad field given another row's code.

Most override one `check_<do>` of `oracle.checks` and reorder what the oracle yields (`_first`),
or rename one code; the choices row (checked after the move in the oracle) is moved earlier by
trying the move on a copy (`_choice_refusal`); the field misreadings rewrite the action before
the oracle's own check sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, ClassVar

from palconf.mutants import mutant
from palconf.oracle.checks import ID_FIELDS
from palconf.oracle.model import PLAYERS, GameState, other
from palconf.oracle.rules import Refusal, Rules


def _first(refusals: Iterable[Refusal], reason: str, over: tuple[str, ...]) -> Iterator[Refusal]:
    """`refusals`, with the first one giving `reason` moved just before the first one giving
    a reason in `over` (if both are there)."""
    found = list(refusals)
    moved = next((r for r in found if r.reason == reason), None)
    if moved is not None:
        later = [r for r in found if r is not moved]
        at = next((i for i, r in enumerate(later) if r.reason in over), None)
        if at is not None and at < found.index(moved):
            found = later[:at] + [moved] + later[at:]
    return iter(found)


def _choice_refusal(
    rules: Rules,
    g: GameState,
    a: Mapping[str, Any],
    do: str,
    prepare: Callable[[GameState], None] = lambda g: None,
) -> Refusal | None:
    """The refusal the choices row gives `a` on a copy of `g` (prepared by `prepare`) after
    its own move, or None."""
    copy = g.copy()
    prepare(copy)
    try:
        pending = getattr(rules, "move_" + do)(copy, a)
        rules.bind_choices(copy, pending, a.get("choose", []))
    except Refusal as refusal:
        return refusal
    return None


# ---------------------------------------------------------------- the order of the rows


@mutant(
    "reasons-not-found-before-wrong-player",
    "P-reasons",
    "A deploy first looks the card up in the hand, so a card not in the acting player's "
    "hand is not-found even when that player may not act now.",
)
class NotFoundBeforeWrongPlayer(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _first(super().check_deploy(g, a), "not-found", ("wrong-player",))


@mutant(
    "reasons-wrong-player-before-wrong-timing",
    "P-reasons",
    "Whose turn it is is checked before what may be done in the step, so a main-phase "
    "action by the wrong player during an attack is wrong-player.",
)
class WrongPlayerBeforeWrongTiming(Rules):
    def check_main_phase(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _first(super().check_main_phase(g, a), "wrong-player", ("wrong-timing",))


@mutant(
    "reasons-not-found-is-not-quick",
    "P-reasons",
    "In the quick step the Quick check comes first: a card that is not in the hand (or an "
    "ability that is not there) is not Quick, so wrong-timing rather than not-found.",
)
class NotFoundIsNotQuick(Rules):
    def check_quick_timing(
        self, g: GameState, a: Mapping[str, Any], is_quick: Callable[[], bool | None]
    ) -> Iterator[Refusal]:
        return super().check_quick_timing(g, a, lambda: bool(is_quick()))


@mutant(
    "reasons-wrong-kind-before-not-found",
    "P-reasons",
    "A deploy looks at the kind of the card named wherever it is before whether it is in "
    "the hand, so deploying an event that is not in the hand is wrong-kind.",
)
class WrongKindBeforeNotFound(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = list(super().check_deploy(g, a))
        card = g.cards.get(a["card"])
        at = next((i for i, r in enumerate(found) if r.reason == "not-found"), None)
        if at is not None and card is not None and card.card.kind == "event":
            found.insert(at, Refusal("wrong-kind", "an event is played, not deployed"))
        return iter(found)


@mutant(
    "reasons-cannot-pay-before-wrong-kind",
    "P-reasons",
    "The cost is checked before the kind, so deploying an unaffordable event is cannot-pay.",
)
class CannotPayBeforeWrongKind(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _first(super().check_deploy(g, a), "cannot-pay", ("wrong-kind",))


@mutant(
    "reasons-play-cannot-pay-before-wrong-kind",
    "P-reasons",
    "Playing a card checks its cost before its kind, so playing an unaffordable Pal is cannot-pay.",
)
class PlayCannotPayBeforeWrongKind(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _first(super().check_play(g, a), "cannot-pay", ("wrong-kind",))


@mutant(
    "reasons-taunt-before-illegal-target",
    "P-reasons",
    "Taunt is checked before whether the target is legal at all, so an illegal target "
    "while a Taunt Pal could be attacked is taunt-required.",
)
class TauntBeforeIllegalTarget(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _first(super().check_attack(g, a), "taunt-required", ("illegal-target",))


@mutant(
    "reasons-choices-before-taunt",
    "P-reasons",
    "The choices of the On Attack abilities are checked with the target, before Taunt, so "
    "an attack that breaks Taunt with a missing or bad choice is illegal-target.",
)
class ChoicesBeforeTaunt(Rules):
    def check_attack(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = list(super().check_attack(g, a))
        if [r.reason for r in found] == ["taunt-required"]:
            refusal = _choice_refusal(self, g, a, "attack")
            if refusal is not None:
                found.insert(0, refusal)
        return iter(found)


@mutant(
    "reasons-choices-before-cannot-pay",
    "P-reasons",
    "The choices of a deploy's abilities are checked before its cost, so an unaffordable "
    "deploy with a missing or bad choice is illegal-target.",
)
class ChoicesBeforeCannotPay(Rules):
    def check_deploy(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = list(super().check_deploy(g, a))
        if [r.reason for r in found] == ["cannot-pay"]:
            refusal = _choice_refusal(
                self, g, a, "deploy", lambda c: c.energy.__setitem__(a["player"], 1_000_000)
            )
            if refusal is not None:
                found.insert(0, refusal)
        return iter(found)


@mutant(
    "reasons-shape-before-game-over",
    "P-reasons",
    "The action is parsed before the game is looked at, so a malformed action after the "
    "game is over is invalid-action, not game-over.",
)
class ShapeBeforeGameOver(Rules):
    def try_action(self, state: GameState, action: Any) -> GameState:
        if state.step == "over":
            self.check_shape(action)
        return super().try_action(state, action)


# ---------------------------------------------------------------- each field's own code


@mutant(
    "reasons-non-string-id-not-found",
    "P-reasons",
    "An id field that is not a string names no card, so it is not-found rather than "
    "invalid-action.",
)
class NonStringIdNotFound(Rules):
    def check_shape(self, action: Any) -> str:
        do = super().check_shape(
            {k: (v if k not in ID_FIELDS or isinstance(v, str) else "") for k, v in action.items()}
            if isinstance(action, dict)
            else action
        )
        bad = [k for k in ID_FIELDS if k in action and not isinstance(action[k], str)]
        if bad:
            raise Refusal("not-found", f"`{bad[0]}` names no card")
        return do


@mutant(
    "reasons-ability-true-is-one",
    "P-reasons",
    "An `ability` of true is taken as the integer 1 (as Python does), not refused as "
    "invalid-action.",
)
class AbilityTrueIsOne(Rules):
    def check_shape(self, action: Any) -> str:
        if isinstance(action, dict) and isinstance(action.get("ability"), bool):
            action = {**action, "ability": int(action["ability"])}
        return super().check_shape(action)


@mutant(
    "reasons-negative-ability-from-end",
    "P-reasons",
    "An `ability` index of -1 is taken as the last ability (as Python indexes a list), not "
    "as no ability (not-found).",
)
class NegativeAbilityFromEnd(Rules):
    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        card = g.cards.get(a["card"])
        index = a["ability"]
        if card is not None and index < 0 and -index <= len(card.card.abilities):
            a = {**a, "ability": index + len(card.card.abilities)}
        return super().check_activate(g, a)


def _renamed(
    refusals: Iterable[Refusal], reason: str, when: Callable[[Refusal], bool], message: str
) -> Iterator[Refusal]:
    for r in refusals:
        yield Refusal("not-found", message) if r.reason == reason and when(r) else r


@mutant(
    "reasons-bad-structure-not-found",
    "P-reasons",
    "A `structure` that is not a structure of the player in play is not-found, like a bad "
    "`card`, rather than cannot-assign.",
)
class BadStructureNotFound(Rules):
    def check_assign(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        s = g.cards.get(a["structure"])
        bad = s is None or s.owner != a["player"] or s.zone != "structures"
        return _renamed(
            super().check_assign(g, a),
            "cannot-assign",
            lambda r: bad and "is not a structure" in r.message,
            f"{a['structure']!r} is not a structure of {a['player']} in play",
        )


@mutant(
    "reasons-bad-discard-not-found",
    "P-reasons",
    "A `discard` that is not another card in the player's hand is not-found, like a bad "
    "`card`, rather than cannot-pay.",
)
class BadDiscardNotFound(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _renamed(
            super().check_interrupt(g, a),
            "cannot-pay",
            lambda r: a["pay"] == "discard",
            f"{a.get('discard')!r} is not another card in {a['player']}'s hand",
        )


@mutant(
    "reasons-bad-blocker-not-found",
    "P-reasons",
    "A `blocker` that is not a Pal of the defender in battle is not-found, like a bad "
    "`card`, rather than cannot-block.",
)
class BadBlockerNotFound(Rules):
    def check_block(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        b = g.cards.get(a["blocker"])
        bad = g.attack is not None and (
            b is None or b.owner != g.attack.defender or b.zone != "battle"
        )
        return _renamed(
            super().check_block(g, a),
            "cannot-block",
            lambda r: bad,
            f"{a['blocker']!r} is not a Pal of the defender in battle",
        )


# ---------------------------------------------------------------- the quick step: priority last


def _before_priority(g: GameState, found: Iterable[Refusal], reason: str) -> Iterator[Refusal]:
    """In the quick step, `found` with its `reason` moved before its wrong-player."""
    return _first(found, reason, ("wrong-player",)) if g.step == "quick" else iter(found)


@mutant(
    "reasons-quick-step-not-found-before-wrong-player",
    "P-reasons",
    "In the quick step a play or an activation looks the card up before priority, so a card "
    "not where it must be is not-found even for the player without priority.",
)
class QuickStepNotFoundBeforeWrongPlayer(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _before_priority(g, super().check_play(g, a), "not-found")

    def check_activate(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _before_priority(g, super().check_activate(g, a), "not-found")


@mutant(
    "reasons-quick-step-wrong-kind-before-wrong-player",
    "P-reasons",
    "In the quick step a play checks the card's kind before priority, so the player without "
    "priority playing a Pal is wrong-kind.",
)
class QuickStepWrongKindBeforeWrongPlayer(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _before_priority(g, super().check_play(g, a), "wrong-kind")


@mutant(
    "reasons-quick-step-cannot-pay-before-wrong-player",
    "P-reasons",
    "In the quick step a play checks its cost before priority, so the player without "
    "priority playing an unaffordable Quick event is cannot-pay.",
)
class QuickStepCannotPayBeforeWrongPlayer(Rules):
    def check_play(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return _before_priority(g, super().check_play(g, a), "cannot-pay")


def _defender(g: GameState, a: Mapping[str, Any]) -> bool:
    return g.attack is not None and a["player"] == g.attack.defender


@mutant(
    "reasons-interrupt-not-found-before-wrong-player",
    "P-reasons",
    "Interrupt looks the card up before whether the defender has priority, so the defender's "
    "missing card while the attacker is to act is not-found.",
)
class InterruptNotFoundBeforeWrongPlayer(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = super().check_interrupt(g, a)
        return _before_priority(g, found, "not-found") if _defender(g, a) else found


@mutant(
    "reasons-interrupt-discard-before-wrong-player",
    "P-reasons",
    "Interrupt checks the discard way's other card before whether the defender has priority, "
    "so the defender naming a bad discard while the attacker is to act is cannot-pay.",
)
class InterruptDiscardBeforeWrongPlayer(Rules):
    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        found = super().check_interrupt(g, a)
        if _defender(g, a) and a["pay"] == "discard":
            return _before_priority(g, found, "cannot-pay")
        return found


# ---------------------------------------------------------------- a player other than A or B (I-25)


class _Stranger(Rules):
    """The `player` of a `stranger` action is checked in shape only to be a string, so a
    player other than A or B reaches that action's own rows (I-25 allows it: no misreading
    by itself; the subclass's row is the misreading)."""

    stranger: ClassVar[str]

    def check_shape(self, action: Any) -> str:
        if (
            isinstance(action, dict)
            and action.get("do") == self.stranger
            and isinstance(action.get("player"), str)
        ):
            return super().check_shape({**action, "player": "A"})
        return super().check_shape(action)


def _as_opponent(g: GameState, a: Mapping[str, Any]) -> Mapping[str, Any]:
    """`a`, with a player other than A or B read as the active player's opponent."""
    return a if a["player"] in PLAYERS else {**a, "player": other(g.active)}


@mutant(
    "reasons-stranger-may-block",
    "P-reasons",
    "A block is refused only to the attacking player, so a player other than A or B (C) "
    "may block with the defending player's Pal.",
)
class StrangerMayBlock(_Stranger):
    stranger = "block"

    def check_block(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return super().check_block(g, _as_opponent(g, a) if g.step == "block" else a)


@mutant(
    "reasons-stranger-may-pass",
    "P-reasons",
    "In the block step a pass is refused only to the attacking player, so a player other "
    "than A or B (C) may pass for the defending player.",
)
class StrangerMayPass(_Stranger):
    stranger = "pass"

    def check_pass(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return super().check_pass(g, _as_opponent(g, a) if g.step == "block" else a)


@mutant(
    "reasons-stranger-may-interrupt",
    "P-reasons",
    "Interrupt is refused only to the attacking player, so a player other than A or B (C) "
    "may nullify the attack with the defending player's Interrupt card.",
)
class StrangerMayInterrupt(_Stranger):
    stranger = "interrupt"

    def check_interrupt(self, g: GameState, a: Mapping[str, Any]) -> Iterator[Refusal]:
        return super().check_interrupt(g, _as_opponent(g, a))
