"""Mutants of `P-legal` that list an action only once a turn or once a step, though nothing in
P-legal (or the rules) limits how often an action may be listed in one turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.model import GameState, Pump
from palconf.oracle.rules import Pending, Rules

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
