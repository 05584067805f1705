"""The directed sweep a campaign starts with: games that visit every edge of `P-state` and
many pairs of REASON rows on purpose, before Hypothesis draws at random.

Hypothesis aims at simple values and comes back to the same few again and again; a gap
there is a misreading no campaign finds. So `palconf fuzz` first plays, in lockstep like any
game (generators.lockstep):

- one game per STATE edge (generators._edges.EDGES): a rich board, one action (so that a
  refused `setup` that wrongly resets the game shows), then that edge's STATE in several
  variants, each sent with `setup` (refused: the game goes on as it was; accepted: it goes
  on from the new board); an edge crossed with card kind × zone × state, `PER_CELL`
  variants in each cell its rule allows;
- games in sequence: at the same positions of that board with turn 4 and night, a new
  `setup` of its cards under the same ids with every field a STATE may leave out left out,
  twice (what a new game keeps of the one before, P-state);
- at the same positions of a rich board (A's main phase, the block step, the quick step,
  B's main phase), every line of the protocol's error layer (generators._wire: not JSON,
  not an object, not a command, another protocol), each answered with its error and
  changing nothing;
- at a few positions of a rich board (A's main phase, the block step, the quick step, B's
  main phase), every single change of every action (generators._probes.changes), then for
  every action one with each pair of kinds of change, and some with three, so that actions
  break several rows of the REASON table at once. The refused probes (which change nothing)
  are played first, so that each is answered at the position it was made for; then some of
  the accepted ones.

The boards hold what the rows need: unaffordable cards with and without choices, a rested
Taunt Pal, a standing Pal, an attacker with an On Attack choice, a full and a free
structure, Interrupt cards and a card to discard, and a card in every cell of
generators._cells (a rested structure holding a rested Pal, a Pal and a structure in the
graveyard), so each kind of action is tried on each kind of card in each zone and state.
Keywords and abilities the engine does not implement are taken off (`restrict`), so the
sweep works for every engine.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from palconf.oracle import Rules

from ._edges import CROSSED, EDGE_NAMES, edge_at, label
from ._probes import bases, changes
from ._wire import LINE_NAMES, line_at
from .game import Game, Step, action_key, load, play, sort_legal

#: a player's zones in a STATE
ZONES = ("hand", "battle", "structures", "graveyard")
#: how many variants of each STATE edge a sweep game sends (of an edge crossed with card kind
#: × zone × state: how many in each cell)
VARIANTS = 6
PER_CELL = 2
#: probes per sweep game (the single changes of a position are split over several games);
#: refused ones cost less (OBSERVED unchanged, LEGAL taken from the step before)
PER_GAME = 150
REFUSED_PER_GAME = 300
#: how many accepted probes (legal actions with a harmless change) each position keeps
ACCEPTED = 60
#: how many three-change probes each position gets (pairs are systematic: `_pairs`)
COMBINED = 200

_PUMP_CHOSEN = {"op": "pump", "target": "chosen", "amount": 300}
BOARD: dict[str, Any] = {
    "players": {
        "A": {
            "life": 5,
            "energy": 1,
            "hand": [
                {
                    "id": "a1",
                    "kind": "pal",
                    "power": 3000,
                    "cost": 2,
                    "abilities": [{"when": "deploy", "effect": _PUMP_CHOSEN}],
                },
                {
                    "id": "a2",
                    "kind": "event",
                    "cost": 2,
                    "effect": {"op": "damage", "player": "opponent", "amount": 1},
                },
                {"id": "a3", "kind": "event", "keywords": ["Quick"], "effect": _PUMP_CHOSEN},
                {"id": "a4", "kind": "pal", "power": 2000, "keywords": ["Interrupt"]},
                {"id": "a5", "kind": "structure"},
                {"id": "a13", "kind": "pal", "power": 3000, "cost": 2},
                {"id": "a15", "kind": "structure", "cost": 2},
            ],
            "battle": [
                {
                    "id": "a6",
                    "kind": "pal",
                    "power": 3000,
                    "strike": 1,
                    # a written cost on a triggered ability is no cost (I-30): activating
                    # it is wrong-kind whatever the energy
                    "abilities": [{"when": "attack", "cost": 2, "effect": _PUMP_CHOSEN}],
                },
                {"id": "a7", "kind": "pal", "power": 3100, "strike": 1, "state": "rest"},
                {"id": "a8", "kind": "pal", "power": 2900, "strike": 1, "keywords": ["Stealth"]},
                {"id": "a14", "kind": "pal", "power": 2500, "strike": 1, "keywords": ["Assault"]},
            ],
            "structures": [
                {
                    "id": "a9",
                    "kind": "structure",
                    "slots": 1,
                    "assigned": [{"id": "a10", "kind": "pal", "power": 1000}],
                },
                {"id": "a11", "kind": "structure", "slots": 1},
                {
                    "id": "a16",
                    "kind": "structure",
                    "slots": 1,
                    "state": "rest",
                    "abilities": [{"when": "activate", "effect": {"op": "energy", "amount": 1}}],
                    "assigned": [{"id": "a17", "kind": "pal", "power": 1500, "state": "rest"}],
                },
            ],
            "graveyard": [
                {"id": "a12", "kind": "event", "effect": {"op": "energy", "amount": 1}},
                {"id": "a18", "kind": "pal", "power": 2000},
                {"id": "a19", "kind": "structure"},
            ],
        },
        "B": {
            "life": 5,
            "energy": 1,
            "hand": [
                {
                    "id": "b1",
                    "kind": "event",
                    "keywords": ["Interrupt"],
                    "cost": 1,
                    "effect": {"op": "energy", "amount": 1},
                },
                {"id": "b2", "kind": "pal", "power": 1000},
                # a Pal and a structure with the Quick keyword (ignored on them): `play` them
                # in the quick step
                {"id": "b8", "kind": "pal", "power": 1000, "keywords": ["Quick"]},
                {"id": "b9", "kind": "structure", "keywords": ["Quick"]},
                {
                    "id": "b3",
                    "kind": "event",
                    "keywords": ["Quick"],
                    "effect": {"op": "pump", "target": "chosen", "amount": 500},
                },
            ],
            "battle": [
                {"id": "b4", "kind": "pal", "power": 3000, "keywords": ["Taunt"], "state": "rest"},
                {"id": "b5", "kind": "pal", "power": 2000, "state": "rest"},
                {"id": "b6", "kind": "pal", "power": 3500, "keywords": ["Vigilance"]},
                {
                    "id": "b7",
                    "kind": "pal",
                    "power": 1000,
                    "abilities": [
                        {
                            "when": "activate",
                            "quick": True,
                            "cost": 0,
                            "effect": {"op": "pump", "target": "self", "amount": 300},
                        }
                    ],
                },
            ],
        },
    }
}

_WORDS = {
    "Quick": "quick",
    "Interrupt": "interrupt",
    "Stealth": "stealth",
    "Assault": "assault",
    "Taunt": "taunt",
    "Vigilance": "vigilance",
}
_WHEN = {"deploy": "on-deploy", "attack": "on-attack", "assign": "on-assign"}


def restrict(board: Any, allowed: tuple[str, ...]) -> Any:
    """`board` without the keywords and triggered abilities an engine does not implement."""
    out = copy.deepcopy(board)

    def clean(card: dict[str, Any]) -> None:
        words = [w for w in card.get("keywords", []) if _WORDS.get(w.split()[0], "") in allowed]
        if "keywords" in card:
            card["keywords"] = words
        abilities = [
            a
            for a in card.get("abilities", [])
            if _WHEN.get(a["when"], "") in allowed or a["when"] == "activate"
        ]
        if "abilities" in card:
            card["abilities"] = abilities
        for pal in card.get("assigned", []):
            clean(pal)

    for pdata in out["players"].values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in pdata.get(zone, []):
                clean(card)
    return out


def _positions(rules: type[Rules], board: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Action sequences from `board` to the positions probed: A's main phase, the block
    step (A's first legal attack on the Taunt Pal, or any), the quick step, B's main phase."""
    game = rules.from_state(board)
    attacks = [a for a in sort_legal(game.legal()) if a["do"] == "attack"]
    out: list[list[dict[str, Any]]] = [[]]
    if attacks:
        attack = next((a for a in attacks if a.get("target") == "b4"), attacks[0])
        out.append([attack])
        out.append([attack, {"do": "pass", "player": "B"}])
    out.append([{"do": "end-turn", "player": "A"}])
    return out


def _pairs(rng: random.Random, game: Rules, base: dict[str, Any]) -> list[dict[str, Any]]:
    """For each pair of kinds of change (another player, another target, no choice …), one
    action with a change of each kind: two rows of the REASON table broken at once."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for what, changed in changes(game, base):
        kinds.setdefault(what, []).append(changed)
    names = sorted(kinds)
    out = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            action = rng.choice(kinds[first])
            again = [c for w, c in changes(game, action) if w == second]
            if first in _CHOICES and second.startswith("other-") and "choose" in base:
                out += again  # the last row with every card in the field: each row before it
            elif again:
                out.append(rng.choice(again))
    return out


#: the changes that break the last row of the REASON table (the choices, checked after the
#: move): paired with every value of an id field, not one drawn, so that each earlier row
#: that field can break meets it
_CHOICES = ("bad-choice", "no-choice")


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def directed_games(rules: type[Rules], allowed: tuple[str, ...]) -> Iterator[Game]:
    """The sweep's games, each played by `rules` (the oracle) with its answers."""
    board = restrict(BOARD, allowed)
    for name in EDGE_NAMES:
        steps: list[dict[str, Any]] = [{"do": "end-turn", "player": "A"}]
        labels: list[str] = []
        cells = CROSSED.get(name, ())
        # an edge crossed with cells: PER_CELL variants in each, the values turning over
        # from cell to cell; else VARIANTS variants
        for k, cell in enumerate(c for c in cells for _ in range(PER_CELL)):
            state, _, _ = edge_at(_Variant(k), board, name, cell)
            steps.append({"setup": state})
            labels.append(label(name, cell))
        for variant in range(0 if cells else VARIANTS):
            state, _, _ = edge_at(_Variant(variant), board, name)
            steps.append({"setup": state})
            labels.append(name)
            if name.startswith("ok-"):  # accepted: play an attack on it, read as written
                steps += _attack(rules, state)
        yield _with_edges(play(rules, board, steps), labels)
    # at each position: every line of the error layer (each changes nothing), then games in
    # sequence (a new setup keeps nothing of the game before)
    wire = [line_at(random.Random(0), name)[0] for name in LINE_NAMES]
    busy = _busy(board)
    again = [{"setup": bare(busy)}, {"setup": bare(busy, 1, assigned=False)}]
    for prefix in _positions(rules, busy):
        yield play(rules, busy, [*prefix, *wire, *again])
    for prefix in _positions(rules, board):
        position = rules.from_state(board)
        for action in prefix:
            position.apply(action)
        starts = bases(position, sort_legal(position.legal()))
        probes = [changed for base in starts for _, changed in changes(position, base)]
        rng = random.Random(f"combined/{len(prefix)}")
        probes += [p for base in starts for p in _pairs(rng, position, base)]
        for _ in range(COMBINED):  # and some of three changes
            action = rng.choice(starts)
            for _ in range(3):
                action = rng.choice(changes(position, action))[1]
            probes.append(action)
        # each refused probe at the position it was made for: the refused ones (which change
        # nothing) first, then some of the accepted ones (which move the game on)
        probes = list({action_key(p): p for p in probes}.values())
        accepted = [not position.reasons(p) for p in probes]
        refused = [p for p, ok in zip(probes, accepted, strict=True) if not ok]
        rest = [p for p, ok in zip(probes, accepted, strict=True) if ok]
        rest = rng.sample(rest, min(len(rest), ACCEPTED))  # each costs a LEGAL list
        for chunk in [*_chunks(refused, REFUSED_PER_GAME), *_chunks(rest, PER_GAME)]:
            yield play(rules, board, prefix + chunk)


def _attack(rules: type[Rules], state: Any) -> list[dict[str, Any]]:
    """An attack played to its battle on an accepted STATE (its first legal attack, by a
    card with a numbered keyword where there is one; both players pass), so that what the
    STATE wrote shows in play, not only in OBSERVED; none where there is no attack."""
    loaded = load(rules, state)
    if isinstance(loaded, dict):
        return []
    attacks = [a for a in sort_legal(loaded.legal()) if a["do"] == "attack"]
    if not attacks:
        return []
    cards = loaded.state.cards
    numbered = [a for a in attacks if any(k.number for k in cards[a["attacker"]].card.keywords)]
    attack = (numbered or attacks)[0]
    other = "B" if attack["player"] == "A" else "A"
    passes = [{"do": "pass", "player": p} for p in (other, other, attack["player"])]
    return [attack, *passes]


def _busy(board: dict[str, Any]) -> dict[str, Any]:
    """`board` at turn 4, at night, with an empty structure of 0 slots in A's play: what a
    game after it must not keep (the night, the turn, the slots of a structure whose id
    comes again)."""
    busy = copy.deepcopy(board)
    busy.update(turn=4, night=True)
    structures = busy["players"]["A"].setdefault("structures", [])
    structures.append({"id": "s0", "kind": "structure", "slots": 0})
    return busy


def bare(state: dict[str, Any], power: int = 0, *, assigned: bool = True) -> dict[str, Any]:
    """`state`'s cards under the same ids with every field a STATE may leave out left out
    (no keyword, ability, cost, strike, state, slots; `power` added to each Pal's; without
    `assigned`, the Pals on structures left out too), and the players' `life` alone
    besides their zones: a second game that must show P-state's defaults and nothing of the
    game before (session leaks)."""

    def card(c: dict[str, Any]) -> dict[str, Any]:
        kept: dict[str, Any] = {k: c[k] for k in ("id", "kind", "effect") if k in c}
        if c.get("kind") == "pal":
            kept["power"] = c["power"] + power
        if "assigned" in c and assigned:
            kept["assigned"] = [card(x) for x in c["assigned"]]
        return kept

    players = {
        name: {"life": p["life"], **{z: [card(c) for c in p[z]] for z in ZONES if z in p}}
        for name, p in state["players"].items()
    }
    return {"players": players}


class _Variant(random.Random):
    """A "random" source that takes the k-th item of every choice (modulo its length): the
    variants of an edge are its values in turn, not a sample of them."""

    def __init__(self, k: int) -> None:
        super().__init__(k)
        self.k = k

    def choice(self, seq: Any) -> Any:
        return seq[self.k % len(seq)]

    def random(self) -> float:
        return 0.25 if self.k % 2 == 0 else 0.75


def _with_edges(game: Game, labels: list[str]) -> Game:
    """The game with its setup steps marked, in turn, as visits of the edges `labels`
    (`name` or `name@cell`)."""
    marks = iter(labels)
    steps = tuple(replace(s, edge=next(marks)) if s.is_setup else s for s in game.steps)
    return replace(game, steps=steps)


KINDS = ("pal", "event", "structure")


def _kind(step: Step) -> str:
    """The card kind a step was aimed at: its edge's cell, or its acting card's."""
    cell = step.edge.partition("@")[2] if step.is_setup else step.cell
    kind = cell.split("/")[0]
    return kind if kind in KINDS else ""


def found_per_kind(rules: type[Rules], games: list[Game]) -> dict[str, int]:
    """For each card kind, the first of the sweep's `games` (1-based) in which `rules` (a
    mutant) answers a step aimed at a card of that kind otherwise than the oracle did: a
    setup step's verdict or OBSERVED, an action's verdict or reason. What the sweep finds
    on every kind, and what only on some. A game is followed up to its first difference
    in an action (the states may part there); a setup step starts it again."""
    found: dict[str, int] = {}
    for n, game in enumerate(games, 1):
        current = load(rules, game.state)
        if isinstance(current, dict):
            continue
        for step in game.steps:
            if step.is_wire:  # the protocol layer: no card kind aimed at
                continue
            if step.is_setup:
                loaded = load(rules, step.action["setup"])
                if isinstance(loaded, dict):
                    differs = step.refusal is None or step.refusal["reason"] != loaded["reason"]
                else:
                    differs = step.refusal is not None or loaded.observe() != step.observed
                    current = loaded
            else:
                refusal = current.apply(step.action)
                mine = None if refusal is None else refusal.reason
                differs = mine != (None if step.refusal is None else step.refusal["reason"])
            if differs and _kind(step):
                found.setdefault(_kind(step), n)
            if differs and not step.is_setup:
                break  # a setup step starts the game again; an action may have parted them
    return found
