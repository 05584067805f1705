"""A game as the generators see it: a STATE, the actions played on it and the oracle's
answers after each step (`Game`, `Step`), and how such a game is replayed on the oracle
(`play`). No Hypothesis here: the strategies that draw games are in `_games`; perft,
lockstep and the formatting of a difference need only this.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from palconf.cases.open_reasons import open_reasons
from palconf.oracle import Rules, StateError

#: The order legal actions are offered in (what shrinking reaches first).
DO_ORDER: dict[str, int] = {
    "pass": 0,
    "end-turn": 1,
    "block": 2,
    "attack": 3,
    "deploy": 4,
    "assign": 5,
    "play": 6,
    "activate": 7,
    "interrupt": 8,
}
#: The actions that move a game on without doing anything.
SIMPLE = frozenset({"pass", "end-turn"})


def action_key(action: Any) -> str:
    """A canonical text of an action (LEGAL is compared as a set of these)."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def sort_legal(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """LEGAL in the readable order used for drawing (and for printing)."""
    return sorted(actions, key=lambda a: (DO_ORDER.get(str(a.get("do")), 99), action_key(a)))


@dataclass(frozen=True)
class Step:
    """One step of a game and the oracle's answers to it: `refusal` is None when the
    step was accepted, else `{"reason", "message"}` (for a setup step, `reason` is the
    error code); `observed` and `legal` are the OBSERVED state and the LEGAL list (sorted as
    `sort_legal`) after it. A step is an ACTION sent with `act`, or `{"setup": STATE}`: a
    STATE sent with `setup` in the middle of a game (as a case writes a setup step), or a
    wire step, `{"send": LINE}` or `{"request": OBJECT}` (P-errors: its `reason` is the
    error code).
    `broken`: every REASON row a refused action broke (`Rules.reasons`), in table order;
    `edge`: the name of the STATE edge a setup step was drawn at (generators._edges), with
    `@cell` for an edge crossed with card kind × zone × state; `cell`: for a refused action,
    the cell of its acting card (`acting_cell`); `open`: for a refused action, every reason
    a faithful engine may give (`palconf.cases.open_reasons`: the oracle's, and any other the
    protocol leaves open)."""

    action: dict[str, Any]
    refusal: dict[str, str] | None
    observed: dict[str, Any]
    legal: list[dict[str, Any]]
    broken: tuple[str, ...] = ()
    edge: str = ""
    cell: str = ""
    open: tuple[str, ...] = ()

    @property
    def accepted(self) -> bool:
        return self.refusal is None

    @property
    def is_setup(self) -> bool:
        return is_setup_step(self.action)

    @property
    def is_wire(self) -> bool:
        return is_wire_step(self.action)


def is_setup_step(action: Any) -> bool:
    """`{"setup": STATE}`: a setup step, not an ACTION (an ACTION has `do`)."""
    return isinstance(action, dict) and set(action) == {"setup"}


def is_wire_step(action: Any) -> bool:
    """`{"send": LINE}` or `{"request": OBJECT}`: a wire step (P-errors), not an ACTION."""
    return isinstance(action, dict) and set(action) in ({"send"}, {"request"})


def wire_line(action: dict[str, Any]) -> bytes:
    """What a wire step sends, one line (no newline)."""
    if "send" in action:
        return str(action["send"]).encode("utf-8")
    return json.dumps(action["request"], separators=(",", ":")).encode("utf-8")


def wire_answer(rules: type[Rules], game: Rules, action: dict[str, Any]) -> dict[str, Any]:
    """The oracle's answer to a wire step in `game`, through its own wire (what `palconf
    serve` would answer); the game is not changed (I-29)."""
    from palconf.engines.oracle_engine import answer_line
    from palconf.oracle import Session

    session = Session(rules)
    session.game = game
    return answer_line(session, wire_line(action))[1]


@dataclass(frozen=True)
class Game:
    """A STATE, the oracle's answers right after `setup` (`start`, `start_legal`), and the
    steps played from it."""

    state: dict[str, Any]
    start: dict[str, Any]
    start_legal: list[dict[str, Any]]
    steps: tuple[Step, ...] = field(default=())
    #: the oracle's refusal of `state` (`{"reason": code, "message"}`): then there is no game
    refused: dict[str, str] | None = None
    edge: str = ""  # the STATE edge `state` was drawn at (generators._edges), if any

    @property
    def actions(self) -> list[dict[str, Any]]:
        return [s.action for s in self.steps]

    def observed_after(self, n: int) -> dict[str, Any]:
        """OBSERVED after action n (0: right after setup)."""
        return self.start if n == 0 else self.steps[n - 1].observed

    def legal_after(self, n: int) -> list[dict[str, Any]]:
        return self.start_legal if n == 0 else self.steps[n - 1].legal

    def truncated(self, n: int) -> Game:
        """The same game stopped after action n."""
        return Game(
            self.state, self.start, self.start_legal, self.steps[:n], self.refused, self.edge
        )

    @property
    def edges(self) -> tuple[str, ...]:
        """The STATE edges of the game: its board's and its setup steps'."""
        return tuple(e for e in (self.edge, *(s.edge for s in self.steps)) if e)

    def __repr__(self) -> str:  # what Hypothesis prints for a falsifying example
        return (
            f"Game(state={json.dumps(self.state, sort_keys=False)}, "
            f"actions={json.dumps(self.actions)})"
        )


def load(rules: type[Rules], state: Any) -> Rules | dict[str, str]:
    """The game `state` loads into, or the oracle's refusal `{"reason": code, "message"}`."""
    try:
        return rules.from_state(state)
    except StateError as e:
        return {"reason": e.code, "message": e.message}


def play(rules: type[Rules], state: Any, actions: list[dict[str, Any]]) -> Game:
    """Replay `actions` (and setup steps) from `state` on `rules` (the oracle by default) and
    keep its answers. A `state` the oracle refuses gives a Game with `refused` and no step."""
    loaded = load(rules, state)
    if isinstance(loaded, dict):
        return Game(state, {}, [], (), loaded)
    game = loaded
    start, start_legal = game.observe(), sort_legal(game.legal())
    steps: list[Step] = []
    for action in actions:
        before = (steps[-1].observed, steps[-1].legal) if steps else (start, start_legal)
        step, game = _step(game, action, rules, before=before)
        steps.append(step)
    return Game(state, start, start_legal, tuple(steps))


def _step(
    game: Rules,
    action: dict[str, Any],
    rules: type[Rules],
    edge: str = "",
    before: tuple[dict[str, Any], list[dict[str, Any]]] | None = None,
) -> tuple[Step, Rules]:
    """The oracle's answers to one step, and the game after it (a new one after an accepted
    setup step). `before`: OBSERVED and LEGAL of the position before the step, if known:
    after a refusal whose OBSERVED is unchanged, LEGAL is taken from it (computing LEGAL is
    most of the cost of a step, and a probe batch is mostly refusals). OBSERVED is always
    asked again, so a `rules` whose refusals change the game still shows it."""

    def now() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        observed = game.observe()
        if before is not None and observed == before[0]:
            return before
        return observed, sort_legal(game.legal())

    if is_setup_step(action):
        loaded = load(rules, action["setup"])
        if isinstance(loaded, dict):
            return Step(action, loaded, *now(), (), edge), game
        game = loaded
        return Step(action, None, game.observe(), sort_legal(game.legal()), (), edge), game
    if is_wire_step(action):
        reply = wire_answer(rules, game, action)
        refused = None if reply["ok"] else {"reason": reply["error"], "message": reply["message"]}
        return Step(action, refused, *now(), (), edge), game
    cell = acting_cell(game, action)
    refusal = game.apply(action)
    if refusal is None:
        return Step(action, None, game.observe(), sort_legal(game.legal())), game
    broken = tuple(r.reason for r in game.reasons(action))
    refused = {"reason": refusal.reason, "message": refusal.message}
    open_ = open_reasons(game, action, refusal.reason)
    return Step(action, refused, *now(), broken, cell=cell, open=open_), game


#: the fields that name an action's acting card, in the order looked at
ACTING = ("card", "attacker", "blocker")


def acting_cell(game: Rules, action: Any) -> str:
    """The card kind × zone × state of the card `action` acts with (generators._cells:
    `pal/battle/rest`, `event/hand` …), `none` for an id no card has, "" for an action that
    names no card (`pass`, `end-turn`, a malformed one)."""
    if not isinstance(action, dict):
        return ""
    cid = next((action[f] for f in ACTING if isinstance(action.get(f), str)), None)
    if cid is None:
        return ""
    card = game.state.cards.get(cid)
    if card is None:
        return "none"
    where = f"{card.card.kind}/{card.zone}"
    return f"{where}/{card.state}" if card.in_play else where
