"""Making a difference smaller by hand after Hypothesis has shrunk it (`simplify`), and
renumbering card ids (`relabel`).

Hypothesis's shrinker works on its choices; a card whose removal shifts which action a
choice means is often kept. `simplify` removes actions and cards, strips keywords and
abilities and sets fields back to their simplest values, keeping each change only if the
same kind of difference remains.
"""

from __future__ import annotations

import json
from typing import Any

from palconf.core import Engine, EngineFault
from palconf.oracle import Rules, StateError

from .game import Game, play
from .lockstep import Difference, Skipped, run_game

ID_FIELDS = ("card", "structure", "attacker", "target", "blocker", "discard")
#: What a card field simplifies to (None: dropped, i.e. the protocol default).
SIMPLE_FIELDS: dict[str, Any] = {
    "power": 3000,
    "strike": 1,
    "cost": None,
    "state": None,
    "slots": None,
    "name": None,
}
SIMPLE_STATE: dict[str, Any] = {"night": None, "turn": None}
SIMPLE_PLAYER: dict[str, Any] = {"life": 5, "energy": None}


def _cards_of(state: dict[str, Any]) -> list[tuple[list[dict[str, Any]], int]]:
    """(list, index) of every card of a STATE, assigned Pals included."""
    out = []
    for pdata in state["players"].values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            items = pdata.get(zone, [])
            for i, card in enumerate(items):
                out.append((items, i))
                held = card.get("assigned", [])
                out += [(held, j) for j in range(len(held))]
    return out


def _copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _tidy(state: dict[str, Any]) -> dict[str, Any]:
    """Leave out the lists a removal emptied (as the generator does)."""
    for pdata in state["players"].values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in pdata.get(zone, []):
                if card.get("assigned") == []:
                    del card["assigned"]
            if pdata.get(zone) == []:
                del pdata[zone]
    return state


def _candidates(
    state: dict[str, Any], actions: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Simpler versions of a game, each smaller by one thing: an action, a card, a keyword,
    an ability, a field back to its simplest value."""
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for i in range(len(actions)):
        out.append((state, actions[:i] + actions[i + 1 :]))
    first = actions[0] if actions else None
    if isinstance(first, dict) and first.get("do") == "end-turn":
        # a game that opens by passing the turn: start it on the other player's turn
        # instead (removing either the pass or the turn alone leaves a refused action)
        others = [p for p in state["players"] if p != first.get("player")]
        if len(others) == 1:
            s = _copy(state)
            s["active"] = others[0]
            out.append((s, actions[1:]))
    for n in range(len(_cards_of(state))):
        s = _copy(state)
        items, i = _cards_of(s)[n]
        del items[i]
        out.append((_tidy(s), actions))
    for n in range(len(_cards_of(state))):
        items, i = _cards_of(state)[n]
        card = items[i]
        for key in ("keywords", "abilities", "assigned"):
            for k in range(len(card.get(key, []))):
                s = _copy(state)
                sitems, si = _cards_of(s)[n]
                del sitems[si][key][k]
                if not sitems[si][key]:
                    del sitems[si][key]
                out.append((s, actions))
        for key, simple in SIMPLE_FIELDS.items():
            if key in card and card[key] != simple:
                s = _copy(state)
                sitems, si = _cards_of(s)[n]
                if simple is None:
                    del sitems[si][key]
                else:
                    sitems[si][key] = simple
                out.append((s, actions))
    for p, pdata in state["players"].items():
        for key, simple in SIMPLE_PLAYER.items():
            if key in pdata and pdata[key] != simple:
                s = _copy(state)
                if simple is None:
                    del s["players"][p][key]
                else:
                    s["players"][p][key] = simple
                out.append((s, actions))
    for key in SIMPLE_STATE:
        if key in state:
            s = _copy(state)
            del s[key]
            out.append((s, actions))
    for i, a in enumerate(actions):
        if isinstance(a, dict) and "choose" in a:
            out.append(
                (
                    state,
                    actions[:i]
                    + [{k: v for k, v in a.items() if k != "choose"}]
                    + actions[i + 1 :],
                )
            )
    return out


def relabel(state: dict[str, Any], actions: list[Any]) -> tuple[dict[str, Any], list[Any]]:
    """Card ids in reading order again (a1, a2 … b1 …) after cards were removed; actions
    follow. An id an action names that is not in the state is kept as it is."""
    s = _copy(state)
    mapping: dict[str, str] = {}
    for p in ("A", "B"):
        n = 0
        pdata = s["players"][p]
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in pdata.get(zone, []):
                n += 1
                mapping[card["id"]] = f"{p.lower()}{n}"
                for pal in card.get("assigned", []):
                    n += 1
                    mapping[pal["id"]] = f"{p.lower()}{n}"
    for items, i in _cards_of(s):
        card = items[i]
        items[i] = {"id": mapping[card["id"]], **{k: v for k, v in card.items() if k != "id"}}
    renamed = []
    for a in actions:
        if isinstance(a, dict):
            a = {
                k: (mapping.get(v, v) if k in ID_FIELDS and isinstance(v, str) else v)
                for k, v in a.items()
            }
            if isinstance(a.get("choose"), list):
                a["choose"] = [mapping.get(c, c) if isinstance(c, str) else c for c in a["choose"]]
        renamed.append(a)
    return s, renamed


def simplify(
    engine: Engine,
    diff: Difference,
    *,
    rules: type[Rules] = Rules,
    compare_legal: bool | None = None,
    budget: int = 600,
) -> Difference:
    """Make a difference smaller by hand after Hypothesis has shrunk it: remove actions and
    cards, strip keywords and abilities, set fields back to their simplest values, and
    renumber the ids — keeping each change only if the same kind of difference remains
    (Hypothesis's shrinker works on its choices, and a card whose removal shifts which
    action a choice means is often kept). At most `budget` replays."""

    def attempt(state: dict[str, Any], actions: list[Any]) -> Difference | None:
        try:
            game: Game = play(rules, state, actions)
        except StateError:
            return None
        try:
            found = run_game(engine, game, compare_legal=compare_legal)
        except Skipped:
            return None
        if found is not None and found.kind == "engine-error":
            try:
                engine.restart()
            except EngineFault:
                pass
        return found if found is not None and found.kind == diff.kind else None

    best = diff
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for state, actions in _candidates(best.game.state, best.game.actions):
            tries += 1
            found = attempt(state, actions)
            if found is not None:
                best, progress = found, True
                break
            if tries >= budget:
                break
    state, actions = relabel(best.game.state, best.game.actions)
    if (state, actions) != (best.game.state, best.game.actions):
        found = attempt(state, actions)
        if found is not None:
            best = found
    best.engine_name = diff.engine_name
    return best


def trimmed(
    engine: Engine, diff: Difference, rules: type[Rules], compare_legal: bool
) -> Difference:
    """A sweep game's difference, with the probes before the one that differed left out when
    the difference stays without them (a sweep game holds up to 150 probes; `simplify`
    would replay it once per probe)."""
    steps = diff.game.steps
    if len(steps) < 3:
        return diff
    last = steps[-1]
    for keep in range(len(steps) - 1):  # the shortest prefix with which it still differs
        actions = [s.action for s in steps[:keep]] + [last.action]
        try:
            found = run_game(
                engine, play(rules, diff.game.state, actions), compare_legal=compare_legal
            )
        except Skipped:
            continue
        if found is not None and found.kind == diff.kind:
            found.engine_name = diff.engine_name
            return found
        if found is not None and found.kind == "engine-error":
            try:
                engine.restart()
            except EngineFault:
                pass
    return diff
