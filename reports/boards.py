"""Boards drawn: the position of a failing case at the step where it went wrong, expected
beside observed, for the HTML report (the macros of `templates/boards.j2` draw it as
HTML/CSS, autoescaped).

The position comes from replaying the case's requests on the oracle's protocol layer
(`oracle.Session`) up to the failing step: a step the oracle refuses leaves the position as
it was, so a step that had to be refused shows the board it was tried on, with the oracle's
refusal beside what the engine answered (one board when nothing on it differs), and an
accepted setup step starts the new game. The expected side is the oracle's
OBSERVED there; the observed side is the same OBSERVED with the engine's values put in at
the result's diff paths, and every field a diff names is marked on both sides. Keywords are
not part of OBSERVED: they come from the cards' definitions in the case.

Everything an engine sent (the diffs' values) is untrusted: it is only ever put into the
page by the autoescaped template, never into markup built here. It may also break
P-observed (docs/protocol.md: an id in a zone but not in `cards`, a card in two zones, a
string where a list is, a number as a string, …), and a results file may come from
anywhere: the board is drawn from what fits and never raises. A diff's value that does not
have the shape P-observed gives its field (`fits`) is not put on the board: the field is
marked on both sides and the value listed beside the board ("this OBSERVED breaks
P-observed: …"); a field the board does not draw (an unknown zone, a card's owner in no
zone) is listed as not on the board.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from palconf.cases.loader import Case
from palconf.core import MISSING, Result
from palconf.engines.oracle_engine import answer_line
from palconf.oracle.protocol import Session
from palconf.oracle.rules import Rules
from palconf.registry import Registry

from .render import show_json

ZONES = ("battle", "structures", "hand", "graveyard")
#: Most cards drawn in one zone (a hostile engine may list thousands).
MAX_CARDS = 40


@dataclass
class CardBox:
    id: str
    power: str = ""
    strike: str = ""
    state: str = ""
    keywords: list[str] = field(default_factory=list)
    assigned: list[CardBox] = field(default_factory=list)
    marked: set[str] = field(default_factory=set)  # fields that differ: power, state, zone …
    attacking: bool = False
    attacked: bool = False


@dataclass
class PlayerBox:
    name: str
    life: str
    energy: str
    zones: dict[str, list[CardBox]]
    marked: set[str] = field(default_factory=set)  # life, energy, or a zone's name
    more: dict[str, int] = field(default_factory=dict)  # zone → cards not drawn


@dataclass
class Board:
    heading: str
    line: str  # "A to act, turn 3, night, step main, priority B"
    attack: str  # "a1 attacks master (blocked)" or ""
    players: list[PlayerBox]
    marked: set[str] = field(default_factory=set)  # top-level fields: step, attack, winner …

    @property
    def line_marked(self) -> bool:
        """A field of the status line (active, turn, night, step, priority, winner) differs."""
        return bool(self.marked - {"attack"})


@dataclass
class BoardPair:
    """The position of one failing result: what the oracle shows, what the engine showed."""

    where: str  # "after setup", "after action 3", "at action 3 (it had to be refused)"
    action: str  # the step's request, as the case writes it ("" after setup)
    expected: Board
    observed: Board
    undrawn: list[str]  # diff paths that are not on the board (listed in the diff table)
    broken: list[str] = field(default_factory=list)  # diffs whose value is not drawn (`fits`)
    refusal: str = ""  # the oracle's refusal of the step, when it refuses it
    answer: str = ""  # then what the engine answered ("accepted", "refused (…)", …)

    @property
    def same_board(self) -> bool:
        """Nothing on the board differs (an action that had to be refused was accepted, or
        refused for another reason): one board and the refusal say it, not two alike."""
        return bool(self.refusal) and not (
            self.expected.marked
            or any(
                p.marked or any(c.marked for z in p.zones.values() for c in z)
                for p in self.expected.players
            )
        )


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else show_json(value)


def replay(case: Case, step: int) -> tuple[Rules, bool] | None:
    """The oracle after the case's steps 1..step, and whether it refused the last of them
    (None when the case cannot be replayed)."""
    found = _replay(case, step)
    return None if found is None else (found[0], found[1] is not None)


def _replay(case: Case, step: int) -> tuple[Rules, dict[str, Any] | None] | None:
    """The oracle after steps 1..step, and its reply to the last of them when it refused it."""
    # the protocol layer itself: a refused setup step leaves the game as it was
    session = Session()
    if case.setup is not None and not session.handle({"cmd": "setup", "state": case.setup})["ok"]:
        return None
    refusal: dict[str, Any] | None = None
    for st in case.steps[:step]:
        reply = answer_line(session, st.line())[1]
        if reply.get("error") == "internal":
            return None
        refusal = None if reply["ok"] else reply
    if session.game is None:  # no game yet (a case with no setup): no board to draw
        return None
    return session.game, refusal


def _refusal(reply: dict[str, Any]) -> str:
    """The oracle's refusal in words: `refused (taunt-required): …` or `invalid-state: …`."""
    message = _text(reply.get("message"))
    if reply.get("reason") is not None:
        head = f"refused ({_text(reply.get('reason'))})"
    else:
        head = _text(reply.get("error")) or "refused"
    return f"{head}: {message}" if message else head


def _engine_answer(result: Result) -> str:
    """What the engine answered at the failing step, from its diffs (the verdict fields)."""
    said = {d.path: d.observed for d in result.diffs if d.path in ("reason", "error", "ok")}
    if "reason" in said and said["reason"] is not MISSING:
        return f"refused ({_text(said['reason'])})"
    if "error" in said and said["error"] is not MISSING:
        return _text(said["error"])
    return "accepted" if not result.diffs else ""


Shape = dict[str, Callable[[Any], bool]]  # field → whether a value has its shape


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _str(v: Any) -> bool:
    return isinstance(v, str)


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _ids(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(c, str) for c in v)


def _each(fields: Shape) -> Callable[[Any], bool]:
    """An object whose fields the board draws each have their shape (others are ignored)."""
    return lambda v: (
        isinstance(v, dict) and all(check(v[k]) for k, check in fields.items() if k in v)
    )


def _map(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, dict) and all(check(x) for x in v.values())


#: The shape P-observed gives each field the board draws (docs/protocol.md, OBSERVED).
_CARD: Shape = {
    "zone": _str,
    "owner": _str,
    "state": _opt(_str),
    "power": _opt(_int),
    "strike": _opt(_int),
}
_PLAYER: Shape = {"life": _int, "energy": _int, "hand": _ids, "battle": _ids, "graveyard": _ids}
_PLAYER["structures"] = _map(_ids)
_ATTACK: Shape = {"attacker": _str, "target": _str, "blocked": lambda v: isinstance(v, (bool, str))}
_TOP: Shape = {
    "active": _str,
    "turn": _int,
    "night": lambda v: isinstance(v, bool),
    "winner": _opt(_str),
    "step": _str,
    "priority": _opt(_str),
    "attack": _opt(_each(_ATTACK)),
    "players": _map(_each(_PLAYER)),
    "cards": _map(_each(_CARD)),
}


def fits(path: str, value: Any) -> bool | None:
    """Whether an engine's `value` for the OBSERVED field at `path` has the shape
    P-observed gives that field, so that the board can draw it (`MISSING`: only a card left
    out of `cards`, or a structure out of a player's `structures`); None for a field the
    board does not draw."""
    head, *rest = path.split(".")
    check: Callable[[Any], bool] | None = None
    held = head == "players" and len(rest) == 3 and rest[1] == "structures"
    if not rest:
        check = _TOP.get(head)
    elif head == "attack" and len(rest) == 1:
        check = _ATTACK.get(rest[0])
    elif held:  # the Pals a structure holds
        check = _ids
    elif head in ("players", "cards"):
        fields = _PLAYER if head == "players" else _CARD
        check = _each(fields) if len(rest) == 1 else fields.get(rest[1]) if len(rest) == 2 else None
    if check is None:
        return None
    if value is MISSING:
        return held or (head == "cards" and len(rest) == 1)
    return check(value)


def _set_path(obj: Any, path: str, value: Any) -> bool:
    parts = path.split(".")
    for part in parts[:-1]:
        if not isinstance(obj, dict) or part not in obj:
            return False
        obj = obj[part]
    if not isinstance(obj, dict):
        return False
    if value is MISSING:
        obj.pop(parts[-1], None)
    else:
        obj[parts[-1]] = value
    return True


def _marks(paths: list[str]) -> tuple[set[str], dict[str, set[str]], dict[str, set[str]]]:
    """Top-level fields, per player fields, per card fields that the diffs name."""
    top: set[str] = set()
    players: dict[str, set[str]] = {}
    cards: dict[str, set[str]] = {}
    for p in paths:
        parts = p.split(".")
        if parts[0] == "players" and len(parts) >= 3:
            players.setdefault(parts[1], set()).add(parts[2])
        elif parts[0] == "cards" and len(parts) >= 2:
            cards.setdefault(parts[1], set()).add(parts[2] if len(parts) >= 3 else "card")
        else:
            top.add(parts[0])
    return top, players, cards


def _card(
    cid: Any, obs: dict[str, Any], rules: Rules, marks: dict[str, set[str]], attack: Any
) -> CardBox:
    """A card of a zone list; `cid` may be any JSON value (an engine's list)."""
    if not isinstance(cid, str):  # not an id: shown as the engine wrote it
        return CardBox(id=_text(cid), marked={"card"})
    cards = obs.get("cards")
    data = cards.get(cid) if isinstance(cards, dict) else None
    data = data if isinstance(data, dict) else {}
    known = rules.state.cards.get(cid)
    kws = [k.text or k.id for k in known.card.keywords] if known is not None else []
    att = attack if isinstance(attack, dict) else {}
    return CardBox(
        id=cid,
        power=_text(data.get("power")),
        strike=_text(data.get("strike")) if data.get("strike") else "",
        state=_text(data.get("state")),
        keywords=kws,
        marked=set(marks.get(cid, set())),
        attacking=att.get("attacker") == cid,
        attacked=att.get("target") == cid,
    )


def board(heading: str, obs: dict[str, Any], rules: Rules, paths: list[str]) -> Board:
    """A drawable board of an OBSERVED (the oracle's, or one with the engine's values in)."""
    top, pmarks, cmarks = _marks(paths)
    attack = obs.get("attack")
    players: list[PlayerBox] = []
    pdata = obs.get("players") if isinstance(obs.get("players"), dict) else {}
    for name, p in (pdata or {}).items():
        if not isinstance(p, dict):
            p = {}
        zones: dict[str, list[CardBox]] = {}
        more: dict[str, int] = dict.fromkeys(ZONES, 0)
        for zone in ZONES:
            raw = p.get(zone)
            if zone == "structures" and isinstance(raw, dict):
                boxes = []
                for sid, held in list(raw.items())[:MAX_CARDS]:
                    box = _card(sid, obs, rules, cmarks, attack)
                    if isinstance(held, list):
                        box.assigned = [
                            _card(h, obs, rules, cmarks, attack) for h in held[:MAX_CARDS]
                        ]
                    boxes.append(box)
                zones[zone] = boxes
                more[zone] = max(0, len(raw) - MAX_CARDS)
            elif isinstance(raw, list):
                zones[zone] = [_card(c, obs, rules, cmarks, attack) for c in raw[:MAX_CARDS]]
                more[zone] = max(0, len(raw) - MAX_CARDS)
            elif raw is not None:  # not a list: shown as the engine wrote it
                zones[zone] = [CardBox(id=_text(raw), marked={"card"})]
        players.append(
            PlayerBox(
                name=_text(name),
                life=_text(p.get("life")),
                energy=_text(p.get("energy")),
                zones=zones,
                marked=set(pmarks.get(name, set())),
                more=more,
            )
        )
    bits = [f"{_text(obs.get('active'))} to act", f"turn {_text(obs.get('turn'))}"]
    bits.append("night" if obs.get("night") is True else "day")
    bits.append(f"step {_text(obs.get('step'))}")
    if obs.get("priority"):
        bits.append(f"priority {_text(obs.get('priority'))}")
    if obs.get("winner"):
        bits.append(f"winner {_text(obs.get('winner'))}")
    line = ", ".join(bits)
    att = ""
    if isinstance(attack, dict):
        att = f"{_text(attack.get('attacker'))} attacks {_text(attack.get('target'))}"
        if attack.get("blocked"):
            att += f" (blocked by {_text(attack.get('blocked'))})"
    elif attack is not None:
        att = _text(attack)
    return Board(heading=heading, line=line, attack=att, players=players, marked=top)


def board_pair(case: Case, result: Result) -> BoardPair | None:
    """The boards of a failing result, or None when the case cannot be replayed."""
    step = result.step if result.step is not None else 0
    step = max(0, min(step, len(case.steps)))
    replayed = _replay(case, step)
    if replayed is None:
        return None
    rules, reply = replayed
    refused = reply is not None
    expected = rules.observe()
    observed = copy.deepcopy(expected)
    paths, undrawn, broken = [], [], []
    for d in result.diffs:
        shape = fits(d.path, d.observed)
        if shape is False:  # the field is marked, the engine's value listed beside
            paths.append(d.path)
            broken.append(
                f"{d.path}: expected {show_json(d.expected)}, observed {show_json(d.observed)}"
            )
        elif shape and _set_path(observed, d.path, d.observed):
            paths.append(d.path)
        else:
            undrawn.append(d.path)
    action = ""
    if result.step is None:
        where = "after setup (the result does not say at which step it went wrong)"
    elif step == 0:
        where = "after setup"
    else:
        st = case.steps[step - 1]
        # a setup step is a whole STATE: too long to show in a line, the reason says more
        action = "" if st.kind == "setup" else st.describe()
        label = st.label
        if refused:
            where = f"before {label} {step} (the oracle refuses it)"
        else:
            where = f"after {label} {step}"
    return BoardPair(
        where=where,
        action=action,
        expected=board("expected (the oracle)", expected, rules, paths),
        observed=board("observed (the engine)", observed, rules, paths),
        undrawn=undrawn,
        broken=broken,
        refusal=_refusal(reply) if reply is not None else "",
        answer=_engine_answer(result) if reply is not None else "",
    )


def load_suite(registry: Registry | None = None) -> dict[str, Case] | None:
    """The suite's cases by id (`PALCONF_CASES` or palconf's own copy), to draw boards with;
    None when they cannot be loaded (the report is then made without boards)."""
    from palconf import paths
    from palconf.cases.loader import CaseLoadError, load_cases

    try:
        return {c.id: c for c in load_cases(paths.CASES, registry)}
    except (CaseLoadError, OSError):
        return None
