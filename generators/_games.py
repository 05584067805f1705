"""Strategies for ACTIONs and whole games, private: use `generators`.

A game is drawn by playing the oracle: a STATE, then actions one at a time, each drawn for
the position the previous ones reached — mostly one of the oracle's `legal()` actions, now
and then one made illegal on purpose (another player, another card, another kind of action,
a missing or wrong choice, a malformed object). The oracle's answer to every action is kept
with the game (`Step`), so a differential run compares an engine with it without asking the
oracle twice.

Shrinking: an action is drawn as "pass or end the turn", or else as a kind (`do`) and then
one action of that kind, kinds and actions in a fixed, readable order — `pass`, `end-turn`,
`block`, `attack`, then the rest — so a shrunk game passes and ends turns unless the
difference needs more, and removing a card the difference does not need leaves the other
actions as they were; an illegal action is drawn only on the last values of the choice of
how (`MODES`), so shrinking turns illegal actions back into legal ones unless they matter.
"""

from __future__ import annotations

import json
import random
import zlib
from functools import cache
from typing import Any, TypeVar

from hypothesis import strategies as st

from palconf.oracle import Rules
from palconf.oracle.keywords import KEYWORD_IDS

from ._boards import check_count, check_keywords, states
from ._edges import edge_at, label
from ._probes import probe_actions
from ._wire import line_at
from .game import (
    DO_ORDER,
    SIMPLE,
    Game,
    Step,
    _step,
    sort_legal,
)

#: How an action is drawn: `pass` / `end-turn` a quarter of the time, another legal action
#: about two thirds, an illegal one a tenth. The first is what shrinking reaches, the last
#: what it leaves.
MODES: tuple[str, ...] = ("simple",) * 5 + ("rich",) * 13 + ("illegal",) * 2
_MODE = st.sampled_from(MODES)
_LEGAL_MODE = st.sampled_from(tuple(m for m in MODES if m != "illegal"))


# --------------------------------------------------------------------------- illegal actions

_ID_FIELDS = ("card", "structure", "attacker", "target", "blocker", "discard")
_TEMPLATES: dict[str, tuple[str, ...]] = {
    "deploy": ("card",),
    "assign": ("card", "structure"),
    "play": ("card",),
    "activate": ("card",),
    "attack": ("attacker", "target"),
    "block": ("blocker",),
    "interrupt": ("card",),
    "pass": (),
    "end-turn": (),
}


_HOW = st.sampled_from(("any-shape", "other-player", "other-card", "choice", "malformed"))
_DOS = st.sampled_from(sorted(_TEMPLATES))


_T = TypeVar("_T")


@cache
def _index(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


def _pick(draw: st.DrawFn, items: list[_T]) -> _T:
    """One of `items`, by index (a strategy per length, built once: a new
    `sampled_from(items)` per draw would be built and validated every time); one item is
    taken without a draw."""
    if len(items) == 1:
        return items[0]
    return items[draw(_index(len(items)))]


@st.composite
def illegal_actions(draw: st.DrawFn, game: Rules, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """An action likely to be refused here. Card ids are always ids of this game (so an
    exported case stays valid); a malformed action is the one exception to the ACTION shape.
    Some draws are accepted after all (another legal attacker …): the oracle decides."""
    ids = sorted(game.state.cards) or ["master"]
    targets = ids + ["master"] if ids != ["master"] else ids

    def some(name: str) -> str:
        return str(_pick(draw, targets if name == "target" else ids))

    base = _pick(draw, legal) if legal else {"do": "end-turn", "player": "A"}
    how = draw(_HOW)
    if how == "other-player":
        return {**base, "player": "B" if base.get("player") == "A" else "A"}
    if how == "other-card":
        fields = [f for f in _ID_FIELDS if f in base]
        if fields:
            name = _pick(draw, fields)
            return {**base, name: some(name)}
        how = "any-shape"
    if how == "choice":
        if base.get("choose"):
            if draw(st.booleans()):
                return {k: v for k, v in base.items() if k != "choose"}
            return {**base, "choose": [some("choose")]}
        how = "any-shape"
    if how == "malformed":
        player = base.get("player", "A")
        return _pick(
            draw,
            [
                {"do": "fly", "player": player},
                {"do": "attack", "player": player, "attacker": ids[0]},
                {"do": "interrupt", "player": player, "card": ids[-1], "pay": "gold"},
                {"do": "pass", "player": "C"},
                {"do": "activate", "player": player, "card": ids[0], "ability": "0"},
                # fields of the wrong JSON type (invalid-action before anything else)
                {"do": "deploy", "player": player, "card": 5},
                {"do": "activate", "player": player, "card": ids[0], "ability": True},
                {"do": "activate", "player": player, "card": ids[0], "ability": -1},
                {"do": "attack", "player": player, "attacker": ids[0], "target": 3},
                {"do": "pass", "player": 1},
                {"do": "play", "player": player, "card": ids[-1], "choose": ids[0]},
                {"do": "play", "player": player, "card": ids[-1], "choose": [1]},
                {"do": "interrupt", "player": player, "card": ids[-1], "pay": "discard"},
                {"do": 7, "player": player},
            ],
        )
    do = draw(_DOS)
    g = game.state
    acting = g.priority or g.active  # mostly the player to act: deeper refusal reasons
    other = "B" if acting == "A" else "A"
    action: dict[str, Any] = {"do": do, "player": _pick(draw, [acting, acting, other])}
    for name in _TEMPLATES[do]:
        action[name] = some(name)
    if do == "activate":
        action["ability"] = draw(st.integers(0, 1))
    if do == "interrupt":
        if draw(st.booleans()):
            action["pay"] = "energy"
        else:
            action.update(pay="discard", discard=some("discard"))
    if do in ("deploy", "assign", "play", "activate", "attack") and draw(st.booleans()):
        action["choose"] = [some("choose")]
    return action


# --------------------------------------------------------------------------- actions()


def draw_action(
    draw: st.DrawFn,
    game: Rules,
    legal: list[dict[str, Any]],
    illegal: bool,
) -> dict[str, Any]:
    """The draw behind `actions()`, given the position's LEGAL (sorted by `sort_legal`).

    One draw says how (`MODES`): `pass` / `end-turn` (always legal, and a game of passes
    tests little: a quarter of the time, and what shrinking reaches), another legal action,
    or an illegal one. Then the kind of action, then one of that kind: deleting an
    unrelated card while shrinking keeps the same kind of action (an index into all of
    LEGAL would shift). A choice among one is not drawn (each draw costs Hypothesis some
    70 µs, the largest part of drawing a game)."""
    if not legal:
        if not illegal:
            raise ValueError("no legal action here (the game is over) and illegal=False")
        return draw(illegal_actions(game, legal))
    mode = draw(_MODE if illegal else _LEGAL_MODE)
    if mode == "illegal":
        return draw(illegal_actions(game, legal))
    rich = [a for a in legal if a.get("do") not in SIMPLE]
    if mode == "simple" or not rich:
        return _pick(draw, [a for a in legal if a.get("do") in SIMPLE] or legal)
    kinds = sorted({str(a.get("do")) for a in rich}, key=lambda d: DO_ORDER.get(d, 99))
    kind = _pick(draw, kinds)
    return _pick(draw, [a for a in rich if a.get("do") == kind])


def _draw_actions(draw: st.DrawFn, game: Rules, *, illegal: bool = True) -> dict[str, Any]:
    return draw_action(draw, game, sort_legal(game.legal()), illegal)


_draw_actions.__name__ = _draw_actions.__qualname__ = "actions"
_actions = st.composite(_draw_actions)


def actions(game: Rules, *, illegal: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """One ACTION for the position of `game` (an `oracle.Rules`): one of its legal actions,
    or, when `illegal` (about one draw in ten, and always once the game is over), one likely
    to be refused. The position is read when drawing, not when the strategy is built."""
    if not isinstance(game, Rules):
        raise TypeError(
            f"game must be an oracle.Rules (e.g. Rules.from_state(STATE)), "
            f"not {type(game).__name__}"
        )
    if not isinstance(illegal, bool):
        raise TypeError(f"illegal must be a bool, not {illegal!r}")
    return _actions(game, illegal=illegal)


# --------------------------------------------------------------------------- games()


_SEEDS = st.integers(0, 2**32 - 1)
#: a line of the error layer (P-errors) follows a step at a fifth of `setup_share`
WIRE_IN = 5
#: how many probe actions a probe batch sends
PROBES = 12


def _draw_games(
    draw: st.DrawFn,
    *,
    keywords: tuple[str, ...] = KEYWORD_IDS,
    min_actions: int = 0,
    max_actions: int = 12,
    illegal: bool = True,
    rules: type[Rules] = Rules,
    boards: st.SearchStrategy[dict[str, Any]] | None = None,
    lockstep: Any = None,
    setup_share: int = 0,
    probe_share: int = 0,
) -> Game:
    """`lockstep` (a generators.lockstep.Lockstep, for fuzzing): an engine that follows the game
    as it is drawn; drawing stops at its first difference, so no action is drawn (or shrunk)
    past it (a `Trailing` one says so up to its `lag` steps later: the game returned ends at the
    step that differed). Directed generation (generators._edges): `setup_share` percent of the
    steps are a setup step with a STATE at an edge of `P-state`; at `probe_share` percent, a
    batch of `PROBES` actions aimed at rows of the REASON table is sent. Which edge, and which
    probes, come from a random source seeded once per game (a Hypothesis draw, so a game replays
    exactly): Hypothesis's own draws aim at simple values, and would visit a few edges over and
    over. At a fifth of `setup_share` (`WIRE_IN`), a step is followed by a line of the
    protocol's error layer (generators._wire), answered with its error and changing nothing:
    drawn from a source of its own, it leaves the game's other draws as they were."""
    board = boards if boards is not None else states(keywords=keywords)
    state = draw(board)
    game = rules.from_state(state)
    start, start_legal = game.observe(), sort_legal(game.legal())
    legal = start_legal
    steps: list[Step] = []
    n = draw(st.integers(min_actions, max_actions))
    if lockstep is not None and (
        lockstep.begin(state, start, start_legal) is not None or lockstep.skipped
    ):
        n = 0
    rng = wire = None
    if setup_share or probe_share:
        # Hypothesis draws the same few seeds again and again; the board mixed in spreads them
        board_key = json.dumps(state, sort_keys=True).encode()
        seed = draw(_SEEDS) ^ zlib.crc32(board_key) ^ (n << 20)
        rng = random.Random(seed)
        wire = random.Random(f"wire/{seed}")  # a source of its own: `rng`'s draws stay as they were
    played = 0
    while played < n:
        batch: list[tuple[dict[str, Any], str]]
        if rng is not None and rng.randrange(100) < setup_share:
            edged, edge, cell = edge_at(rng, draw(board))
            batch = [({"setup": edged}, label(edge, cell))]
        elif rng is not None and legal and rng.randrange(100) < probe_share:
            batch = [(a, "") for a in probe_actions(rng, game, legal, PROBES)]
        else:
            if not legal and not illegal:
                break  # the game is over
            batch = [(draw_action(draw, game, legal, illegal), "")]
            played += 1
        if wire is not None and wire.randrange(100) < setup_share // WIRE_IN:
            batch.append((line_at(wire)[0], ""))  # changes nothing: the game goes on as drawn
        for action, edge in batch:
            before = (steps[-1].observed, steps[-1].legal) if steps else (start, start_legal)
            step, game = _step(game, action, rules, edge, before)
            steps.append(step)
            legal = step.legal
            if lockstep is not None and (found := lockstep.step(step)) is not None:
                return Game(state, start, start_legal, tuple(steps[: found.step]))
    if lockstep is not None and (found := lockstep.finish()) is not None:
        return Game(state, start, start_legal, tuple(steps[: found.step]))
    return Game(state, start, start_legal, tuple(steps))


_draw_games.__name__ = _draw_games.__qualname__ = "games"
_games = st.composite(_draw_games)


def games(
    *,
    keywords: Any = KEYWORD_IDS,
    min_actions: int = 0,
    max_actions: int = 12,
    illegal: bool = True,
    rules: type[Rules] = Rules,
    boards: st.SearchStrategy[dict[str, Any]] | None = None,
    setup_share: int = 0,
    probe_share: int = 0,
) -> st.SearchStrategy[Game]:
    """A `Game`: a STATE (from `boards`, default `states(keywords=keywords)`) and between
    `min_actions` and `max_actions` actions drawn with `actions()` while playing `rules`
    (the oracle, or a subclass), with its answers. Without `illegal`, a game stops early
    once it is over. Directed generation (generators._edges): `setup_share` percent of the
    steps are setup steps with a STATE at an edge of `P-state` (most are refused, and the
    game goes on as it was), and at `probe_share` percent a batch of `PROBES` actions is
    sent, most breaking two or three REASON rows at once."""
    if not (isinstance(rules, type) and issubclass(rules, Rules)):
        raise TypeError(f"rules must be oracle.Rules or a subclass, not {rules!r}")
    if not isinstance(illegal, bool):
        raise TypeError(f"illegal must be a bool, not {illegal!r}")
    if boards is not None and not isinstance(boards, st.SearchStrategy):
        raise TypeError(f"boards must be a strategy of STATEs, not {boards!r}")
    lo = check_count("min_actions", min_actions, maximum=1000)
    hi = check_count("max_actions", max_actions, maximum=1000)
    if lo > hi:
        raise ValueError(f"min_actions ({lo}) is more than max_actions ({hi})")
    return _games(
        keywords=check_keywords(keywords),
        min_actions=lo,
        max_actions=hi,
        illegal=illegal,
        rules=rules,
        boards=boards,
        setup_share=check_count("setup_share", setup_share, maximum=100),
        probe_share=check_count("probe_share", probe_share, maximum=100),
    )
