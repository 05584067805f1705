"""Mutants of `P-observed` (docs/protocol.md, OBSERVED): the shape of what `observe` returns.

Each `observe` post-processes the oracle's OBSERVED, or overrides the one rule method that sets
the field (`lose_life`, `move_end_turn`, `resolve_effect`). The OBSERVED a mutant gives keeps
the protocol's JSON shape (schema-valid), so that a case kills it by a `fail`, never by an
`error`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from palconf.mutants import mutant
from palconf.oracle.model import GameState, Player
from palconf.oracle.rules import Pending, Rules


@mutant(
    "observed-power-zero-off-pals",
    "P-observed",
    "An event or a structure shows `power` and `strike` 0 rather than null.",
)
class PowerZeroOffPals(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, c in out["cards"].items():
            if self.state.cards[cid].card.kind != "pal":
                c["power"] = c["strike"] = 0
        return out


@mutant(
    "observed-state-out-of-play",
    "P-observed",
    'Every card shows its `state`, "stand" in hand and graveyard, rather than null out of play.',
)
class StateShownOutOfPlay(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, c in out["cards"].items():
            c["state"] = self.state.cards[cid].state
        return out


@mutant(
    "observed-over-keeps-attack",
    "P-observed",
    "Game over is marked by `step` and `winner` only: an attack under way stays in `attack`.",
)
class OverKeepsAttack(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        attack = g.attack
        super().lose_life(g, player, amount)
        if g.step == "over":
            g.attack = attack


@mutant(
    "observed-over-keeps-priority",
    "P-observed",
    "Game over is marked by `step` and `winner` only: the player who had priority keeps "
    "it in `priority`.",
)
class OverKeepsPriority(Rules):
    def lose_life(self, g: GameState, player: Player, amount: int) -> None:
        priority = g.priority
        super().lose_life(g, player, amount)
        if g.step == "over":
            g.priority = priority


@mutant(
    "observed-no-winner-after-damage-effect",
    "P-observed",
    "The winner is recorded only by battle, so a game won by a damage effect ends with no "
    "`winner` named.",
)
class NoWinnerAfterDamageEffect(Rules):
    def resolve_effect(self, g: GameState, p: Pending) -> None:
        super().resolve_effect(g, p)
        if p.effect.op == "damage" and g.step == "over":
            g.winner = None


@mutant(
    "observed-turn-not-counted",
    "P-observed",
    "The `turn` field is taken for the turn the game was set up in: `end-turn` does not change it.",
)
class TurnNotCounted(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_end_turn(g, a)
        g.turn -= 1
        return pending


@mutant(
    "observed-turn-counts-rounds",
    "P-observed",
    "The `turn` field counts rounds: it goes up only when play passes back to A, not at "
    "every `end-turn`.",
)
class TurnCountsRounds(Rules):
    def move_end_turn(self, g: GameState, a: Mapping[str, Any]) -> list[Pending]:
        pending = super().move_end_turn(g, a)
        if g.active != "A":
            g.turn -= 1
        return pending


@mutant(
    "observed-assigned-zone-battle",
    "P-observed",
    'A Pal on a structure is still a Pal in play, so its `zone` is shown as "battle" '
    'rather than "assigned".',
)
class AssignedZoneBattle(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for c in out["cards"].values():
            if c["zone"] == "assigned":
                c["zone"] = "battle"
        return out


@mutant(
    "observed-assigned-in-battle-list",
    "P-observed",
    "A player's `battle` list shows every Pal in play, those on structures too.",
)
class AssignedInBattleList(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for pdata in out["players"].values():
            held = [pid for pals in pdata["structures"].values() for pid in pals]
            pdata["battle"] = sorted(pdata["battle"] + held)
        return out


@mutant(
    "observed-printed-power-in-play",
    "P-observed",
    "A Pal shows its printed power everywhere, in play too, not its current power (B-18).",
)
class PrintedPowerInPlay(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, c in out["cards"].items():
            card = self.state.cards[cid].card
            if card.kind == "pal":
                c["power"] = card.power
        return out


@mutant(
    "observed-priority-active-in-main",
    "P-observed",
    "The `priority` field names the player to act in the main phase too: the active "
    "player, not null.",
)
class PriorityActiveInMain(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        if out["step"] == "main":
            out["priority"] = out["active"]
        return out


@mutant(
    "observed-cards-in-play-only",
    "P-observed",
    "The `cards` map is taken for the cards on the table: cards in hand and graveyard are "
    "left out of it.",
)
class CardsInPlayOnly(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        out["cards"] = {
            cid: c for cid, c in out["cards"].items() if c["zone"] not in ("hand", "graveyard")
        }
        return out


@mutant(
    "observed-over-step-unchanged",
    "P-observed",
    'Game over is shown by `winner` alone: `step` stays "main" rather than "over".',
)
class OverStepUnchanged(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        if out["step"] == "over":
            out["step"] = "main"
        return out


@mutant(
    "observed-active-is-winner-when-over",
    "P-observed",
    "Once the game is over, `active` names the winner rather than the player whose turn it was.",
)
class ActiveIsWinnerWhenOver(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        if out["step"] == "over":
            out["active"] = out["winner"]
        return out


@mutant(
    "observed-structures-map-lists-out-of-play",
    "P-observed",
    "A player's `structures` map lists every structure card the player owns, the ones in hand "
    "and graveyard too, though `cards` gives them that zone.",
)
class StructuresMapListsOutOfPlay(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, c in out["cards"].items():
            if self.state.cards[cid].card.kind == "structure" and c["state"] is None:
                out["players"][c["owner"]]["structures"].setdefault(cid, [])
        return out


@mutant(
    "observed-assigned-pal-stays-in-battle-list",
    "P-observed",
    "A Pal assigned to a structure is shown on it and still in its owner's `battle` list, "
    "though `cards` gives it the zone assigned.",
)
class AssignedPalStaysInBattleList(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, c in out["cards"].items():
            if c["zone"] == "assigned":
                out["players"][c["owner"]]["battle"].append(cid)
        return out


@mutant(
    "observed-graveyard-power-keeps-pumps",
    "P-observed",
    "A Pal put into the graveyard shows the power it had when it left play, not its printed power.",
)
class GraveyardPowerKeepsPumps(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for cid, c in out["cards"].items():
            card = self.state.cards[cid]
            if c["zone"] == "graveyard" and card.card.kind == "pal":
                c["power"] = card.card.power + 100
        return out


@mutant(
    "observed-block-keeps-declared-target",
    "P-observed",
    "After a block, `attack.target` still shows the target the attack was declared on, "
    "though the blocker has become the target (the battle is right).",
)
class BlockKeepsDeclaredTarget(Rules):
    def after_attack(self, g: GameState, a: Mapping[str, Any]) -> None:
        self.__dict__["declared"] = (a["attacker"], a["target"])
        super().after_attack(g, a)

    def observe(self) -> dict[str, Any]:
        out = super().observe()
        attack, declared = out["attack"], self.__dict__.get("declared")
        if attack is not None and attack["blocked"] and declared is not None:
            if declared[0] == attack["attacker"]:
                attack["target"] = declared[1]
        return out


@mutant(
    "observed-blocked-never-set",
    "P-observed",
    "The `attack.blocked` flag is shown false whatever happened: it is read as a field of the "
    "declaration, not of the block step.",
)
class BlockedNeverSet(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        if out["attack"] is not None:
            out["attack"]["blocked"] = False
        return out


@mutant(
    "observed-strike-null-out-of-play",
    "P-observed",
    "A Pal out of play shows `strike` null, as its `state`, rather than its printed strike.",
)
class StrikeNullOutOfPlay(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for c in out["cards"].values():
            if c["zone"] in ("hand", "graveyard"):
                c["strike"] = None
        return out


@mutant(
    "observed-master-target-as-player",
    "P-observed",
    'An attack on the master shows `attack.target` as the defending player ("A" or "B") '
    'rather than "master".',
)
class MasterTargetAsPlayer(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        g = self.state
        if (
            out["attack"] is not None
            and g.attack is not None
            and out["attack"]["target"] == "master"
        ):
            out["attack"]["target"] = g.attack.defender
        return out


@mutant(
    "observed-assigned-state-null",
    "P-observed",
    "A Pal on a structure shows `state` null, as a card out of the battle area.",
)
class AssignedStateNull(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for c in out["cards"].values():
            if c["zone"] == "assigned":
                c["state"] = None
        return out


@mutant(
    "observed-structure-state-null",
    "P-observed",
    "A structure in play shows `state` null, as `power` and `strike`, rather than stand or rest.",
)
class StructureStateNull(Rules):
    def observe(self) -> dict[str, Any]:
        out = super().observe()
        for c in out["cards"].values():
            if c["zone"] == "structures":
                c["state"] = None
        return out
