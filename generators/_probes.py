"""Directed generation, private: use `generators`. Inputs at the edges where engines break.

ACTIONs (`P-reasons`): `changes` lists every single change of an action aimed at one row
of the REASON table (another player, another kind of action, another card in an id field,
no choice or a bad one, a missing field, a field of the wrong JSON type, a bad payment, a
bad ability index); `probe_actions` applies one to three of them to the actions of a
position (its legal ones, and one of each kind that is not legal there), so that one action
breaks several rows at once and the order of the table decides its reason. Which rows an
action broke is read back from the oracle (`Rules.reasons`), for the hit-count table of a
campaign. Choices come from a `random.Random` the caller seeds (generators._games seeds it
from a Hypothesis draw and the board): Hypothesis's own draws aim at simple values and would
visit a few edges over and over.
"""

from __future__ import annotations

import random
from typing import Any

from palconf.oracle import Rules
from palconf.oracle.checks import ACTION_FIELDS, OPTIONAL_FIELDS
from palconf.oracle.checks import ID_FIELDS as ORACLE_ID_FIELDS
from palconf.oracle.model import other

#: the fields each kind of action needs (what a changed `do` is given), the oracle's table
FIELDS_OF = ACTION_FIELDS
ID_FIELDS = tuple(sorted(ORACLE_ID_FIELDS))
UNKNOWN = "zz9"  # an id no card has
WRONG_TYPES: tuple[Any, ...] = (5, True, ["a1"], {"id": "a1"})  # no null: TOML has none
ABILITIES: tuple[Any, ...] = (1, 2, -1, True, "0")
Action = dict[str, Any]


def _without(a: Action, *fields: str) -> Action:
    return {k: v for k, v in a.items() if k not in fields}


def _other_kind(a: Action, do: str, ids: list[str]) -> Action:
    """`a` as an action of kind `do`, its fields filled from `a`'s ids."""
    y: Action = {"do": do, "player": a.get("player", "A")}
    carried = [a[f] for f in ID_FIELDS if isinstance(a.get(f), str)] or ids
    for i, f in enumerate(FIELDS_OF[do]):
        y[f] = 0 if f == "ability" else "energy" if f == "pay" else carried[i % len(carried)]
    if "choose" in a and "choose" in OPTIONAL_FIELDS.get(do, ()):
        y["choose"] = a["choose"]
    return y


def _fields_of(do: Any) -> set[str]:
    """The fields the ACTION table gives an action of kind `do` (with `player`): a field of
    the wrong JSON type is sent only where it is one of them, since an engine may ignore a
    field its action does not have (I-26)."""
    if not isinstance(do, str):
        return set()
    return {"player", *FIELDS_OF.get(do, ()), *OPTIONAL_FIELDS.get(do, ())}


def changes(game: Rules, a: Action) -> list[tuple[str, Action]]:
    """Every single change of action `a` aimed at one REASON row: (what it does, the new
    action)."""
    ids = sorted(game.state.cards) or ["a1"]
    out: list[tuple[str, Action]] = [
        ("other-player", {**a, "player": "B" if a.get("player") == "A" else "A"}),
        # a player of no game: invalid-action or wrong-player, the protocol leaves it open
        # (I-25; the lockstep takes either), but never accepted and never another reason
        ("stranger", {**a, "player": "C"}),
    ]
    for field in [f for f in ID_FIELDS if f in a]:
        values = [*ids, UNKNOWN] + (["master"] if field == "target" else [])
        out += [(f"other-{field}", {**a, field: v}) for v in values if v != a[field]]
    out += [("other-kind", _other_kind(a, do, ids)) for do in FIELDS_OF if do != a.get("do")]
    out.append(("no-choice", _without(a, "choose")))
    choices: list[list[str]] = [[UNKNOWN], *([i] for i in ids), [ids[0], ids[0]]]
    out += [("bad-choice", {**a, "choose": c}) for c in choices]
    for field in [f for f in a if f != "do"]:
        out.append(("drop-field", _without(a, field)))
        if field in _fields_of(a.get("do")):
            out += [("wrong-type", {**a, field: v}) for v in WRONG_TYPES]
    if a.get("do") == "interrupt":
        out.append(("pay-energy", {**_without(a, "discard"), "pay": "energy"}))
        out.append(("pay-discard", {**_without(a, "discard"), "pay": "discard"}))
        out += [("pay-discard", {**a, "pay": "discard", "discard": v}) for v in [*ids, UNKNOWN]]
        out.append(("pay-bad", {**a, "pay": "gold"}))
    if a.get("do") == "activate":
        out += [("bad-ability", {**a, "ability": v}) for v in ABILITIES]
    return out


def bases(game: Rules, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What probes start from: the legal actions, and of each kind that is not legal now,
    one on a card of each card kind × zone × state the game has (generators._cells), by the
    player to act and, in the block and quick steps, by the other player too."""
    ids = sorted(game.state.cards) or ["a1"]
    acting = game.state.priority or game.state.active
    bases = list(legal)
    present = {a.get("do") for a in legal}
    for do, fields in FIELDS_OF.items():
        if do in present:
            continue
        # by the player to act, and, in the block and quick steps, by the other one (whose
        # refusals the table orders around wrong-player)
        bases += [_base(do, fields, acting, card) for card in _one_per_cell(game, ids)]
        if game.state.priority is not None and do in _STEP_KINDS:  # the other player's cards
            waiting = other(acting)
            own = [c for c in ids if c in game.state.cards and game.state.cards[c].owner == waiting]
            bases += [_base(do, fields, waiting, card) for card in _one_per_cell(game, own)]
    return bases


#: the kinds of action of the block and quick steps that name a card: by the player who is
#: not to act, their refusals are ordered around wrong-player (P-reasons)
_STEP_KINDS = ("play", "activate", "interrupt", "block")


def _base(do: str, fields: tuple[str, ...], player: str, card: str) -> dict[str, Any]:
    """An action of kind `do` by `player` whose id fields all name `card`."""
    a: dict[str, Any] = {"do": do, "player": player}
    for f in fields:
        a[f] = 0 if f == "ability" else "energy" if f == "pay" else card
    if do == "attack":
        a["target"] = "master"
    return a


def _one_per_cell(game: Rules, ids: list[str]) -> list[str]:
    """The first id (in `ids` order) of a card of each kind × zone × state."""
    first: dict[tuple[str, str, str], str] = {}
    for cid in ids:
        card = game.state.cards.get(cid)
        if card is None:
            return ids[:4]  # no cards yet: the stand-in id
        first.setdefault((card.card.kind, card.zone, card.state if card.in_play else ""), cid)
    return list(first.values())


def probe_actions(
    rng: random.Random, game: Rules, legal: list[dict[str, Any]], count: int
) -> list[dict[str, Any]]:
    """`count` actions for this position, each a base action (legal, or a kind not legal
    now) with one to three changes aimed at REASON rows: most break several rows at once, so
    the order of the table decides their reason."""
    starts = bases(game, legal)
    probes = []
    for _ in range(count):
        action = rng.choice(starts)
        for _ in range(rng.choice((1, 2, 2, 3))):
            action = rng.choice(changes(game, action))[1]
        probes.append(action)
    return probes
