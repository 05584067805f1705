"""Differential fuzzing: an engine and the oracle in lockstep on generated games.

`run_game(engine, game)` replays one `Game` (a STATE and actions, with the oracle's answers
recorded while it was drawn) on the engine, and compares after `setup` and after every
action, in this order, stopping at the first difference:

1. the verdict: accepted or refused (`act` answered `ok` or `illegal`);
2. for a refusal, the reason code (protocol: the first reason that applies, so it is one);
3. the whole OBSERVED state (zone lists compared as sets, every other value exactly, with
   its JSON type: `1` is not `true`);
4. the LEGAL set, when the engine lists `legal` among its commands in `hello`.

An engine that breaks (crash, hang, a reply outside the protocol) is a difference too, of
kind `engine-error`. `fuzz()` drives Hypothesis over `games()`, raises on the first
difference so that Hypothesis shrinks it, and returns the minimal one.
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed as hyp_seed, settings
from hypothesis.database import ExampleDatabase
from hypothesis.errors import Flaky

from oracle import Rules
from oracle.model import KEYWORD_IDS
from palconf.engines import Engine, EngineFault, ProtocolViolation
from palconf.runner import CaseSkipped, check_reply, observe as observe_engine

from ._games import Game, Step, _games, action_key

KINDS = ("setup", "verdict", "reason", "observed", "legal", "engine-error")
ZONE_LISTS = ("hand", "battle", "graveyard")


@dataclass(frozen=True)
class FieldDiff:
    """One place where the two answers differ: `keys` leads to it (`("cards", "a1",
    "power")`); `oracle` / `engine` are JSON values, or `MISSING` when that side has no such
    field."""

    keys: tuple[str, ...]
    oracle: Any
    engine: Any

    @property
    def path(self) -> str:
        return ".".join(self.keys) or "(state)"


MISSING = "<missing>"


@dataclass
class Answer:
    """What one side answered to one request of the run."""

    verdict: str  # "accepted" | "refused" | "error"
    reason: str | None = None
    message: str = ""
    observed: dict[str, Any] | None = None
    legal: list[dict[str, Any]] | None = None


@dataclass
class Difference:
    """The first difference of a run: after `step` (0 = after setup, n = after action n) of
    `game` (truncated to that step), of one of `KINDS`, with the differing fields and both
    sides' answers to every step so far."""

    game: Game
    step: int
    kind: str
    summary: str
    fields: list[FieldDiff] = field(default_factory=list)
    oracle: list[Answer] = field(default_factory=list)
    engine: list[Answer] = field(default_factory=list)
    engine_name: str = ""


class DifferenceFound(Exception):
    """Raised inside the Hypothesis test so that Hypothesis shrinks the game."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(f"{difference.kind} after step {difference.step}: {difference.summary}")
        self.difference = difference


# --------------------------------------------------------------------------- comparing

def normalize_observed(obs: Any) -> Any:
    """OBSERVED with its zone lists sorted (the protocol compares them as sets)."""
    if not isinstance(obs, dict):
        return obs
    out = dict(obs)
    players = obs.get("players")
    if isinstance(players, dict):
        out["players"] = {}
        for p, pdata in players.items():
            if isinstance(pdata, dict):
                pdata = dict(pdata)
                for zone in ZONE_LISTS:
                    if isinstance(pdata.get(zone), list):
                        pdata[zone] = _sorted(pdata[zone])
                if isinstance(pdata.get("structures"), dict):
                    pdata["structures"] = {s: _sorted(v) if isinstance(v, list) else v
                                           for s, v in pdata["structures"].items()}
            out["players"][p] = pdata
    return out


def _sorted(items: list[Any]) -> list[Any]:
    if all(type(v) is str for v in items):
        return sorted(items)
    return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))


def _same(a: Any, b: Any) -> bool:
    """JSON equality: `True` is not `1`, `1` is not `1.0`."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def diff_values(oracle: Any, engine: Any, keys: tuple[str, ...] = ()) -> list[FieldDiff]:
    """Every field where two JSON values differ: objects key by key (a key on one side only
    is a difference), everything else as a whole."""
    if isinstance(oracle, dict) and isinstance(engine, dict):
        out: list[FieldDiff] = []
        for key in list(oracle) + [k for k in engine if k not in oracle]:
            sub = keys + (str(key),)
            if key not in engine:
                out.append(FieldDiff(sub, oracle[key], MISSING))
            elif key not in oracle:
                out.append(FieldDiff(sub, MISSING, engine[key]))
            else:
                out += diff_values(oracle[key], engine[key], sub)
        return out
    return [] if _same(oracle, engine) else [FieldDiff(keys, oracle, engine)]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def diff_observed(oracle: dict[str, Any], engine: Any) -> list[FieldDiff]:
    ours, theirs = normalize_observed(oracle), normalize_observed(engine)
    # fast path: equal canonical JSON texts mean equal values, JSON types included
    if _canonical(ours) == _canonical(theirs):
        return []
    return diff_values(ours, theirs)


def diff_legal(oracle: list[dict[str, Any]], engine: Any) -> list[FieldDiff]:
    """LEGAL compared as a set: one FieldDiff per action on one side only."""
    if not isinstance(engine, list):
        return [FieldDiff(("legal",), "(a list)", engine)]
    ours = {action_key(a): a for a in oracle}
    theirs = {action_key(a): a for a in engine}
    out = [FieldDiff(("legal",), a, MISSING) for k, a in sorted(ours.items()) if k not in theirs]
    out += [FieldDiff(("legal",), MISSING, a) for k, a in sorted(theirs.items()) if k not in ours]
    return out


# --------------------------------------------------------------------------- one game

class Skipped(Exception):
    """The engine answered `unsupported` to a setup: this example says nothing."""


def _legal(engine: Engine, step: int) -> list[Any]:
    reply = check_reply(engine.request({"cmd": "legal"}), "legal")
    if not reply["ok"] or not isinstance(reply.get("actions"), list):
        raise ProtocolViolation(f"`legal` failed at step {step}: "
                                f"{reply.get('error')}: {reply.get('message', '')}")
    return reply["actions"]


class Lockstep:
    """One engine following the oracle's game step by step: `begin` with the position right
    after setup, then `step` with each of the oracle's steps as it is played. Each returns
    the first Difference, or None (and after a Difference, the game is over for it).

    When the engine answers `unsupported` to the setup, `skipped` says why and the game
    says nothing (`run_game` raises Skipped). An EngineFault becomes a Difference of kind
    `engine-error` (the caller restarts the engine). `compare_legal` defaults to whether
    the engine offers `legal`; `on_action` is called for each action compared."""

    def __init__(self, engine: Engine, *, compare_legal: bool | None = None,
                 on_action: Callable[[], None] | None = None) -> None:
        info = getattr(engine, "info", None)
        self.engine = engine
        self.compare_legal = (("legal" in getattr(info, "commands", ())) if compare_legal is None
                              else compare_legal)
        self.on_action = on_action
        self.name = getattr(info, "name", "")
        self.difference: Difference | None = None
        self._reset({}, {}, [])

    def _reset(self, state: dict[str, Any], start: dict[str, Any],
               start_legal: list[dict[str, Any]]) -> None:
        self.game = Game(state, start, start_legal)
        self.steps: list[Step] = []
        self.oracle_answers: list[Answer] = []
        self.engine_answers: list[Answer] = []
        self.difference = None
        self.skipped = ""  # why the engine refused the setup as `unsupported`

    def _found(self, step: int, kind: str, summary: str,
               fields: list[FieldDiff] | None = None) -> Difference:
        game = Game(self.game.state, self.game.start, self.game.start_legal, tuple(self.steps))
        self.difference = Difference(game, step, kind, summary, fields or [],
                                     self.oracle_answers, self.engine_answers, self.name)
        return self.difference

    def _fault(self, step: int, e: EngineFault) -> Difference:
        if len(self.engine_answers) == len(self.oracle_answers):
            self.engine_answers[-1:] = [Answer("error", message=e.message)]  # observe broke
        else:
            self.engine_answers.append(Answer("error", message=e.message))
        return self._found(step, "engine-error", f"{type(e).__name__}: {e.message}")

    def begin(self, state: dict[str, Any], start: dict[str, Any],
              start_legal: list[dict[str, Any]]) -> Difference | None:
        self._reset(state, start, start_legal)
        engine = self.engine
        self.oracle_answers.append(Answer("accepted", observed=start, legal=start_legal))
        try:
            reply = check_reply(engine.request({"cmd": "setup", "state": state}), "setup")
            if not reply["ok"]:
                self.engine_answers.append(Answer("refused", reply.get("error"),
                                                  str(reply.get("message", ""))))
                return self._found(0, "setup", f"the engine refused the setup: "
                                               f"{reply.get('error')}")
            answer = Answer("accepted", observed=observe_engine(engine, 0))
            self.engine_answers.append(answer)
            found = self._compare_state(0, start, start_legal, answer)
        except CaseSkipped as e:
            self.skipped = str(e)
            return None
        except EngineFault as e:
            return self._fault(0, e)
        return self._found(0, *found) if found else None

    def step(self, s: Step) -> Difference | None:
        if self.difference is not None or self.skipped:
            return self.difference
        self.steps.append(s)
        n = len(self.steps)
        oracle = Answer("accepted" if s.accepted else "refused",
                        s.refusal["reason"] if s.refusal else None,
                        s.refusal["message"] if s.refusal else "", s.observed, s.legal)
        self.oracle_answers.append(oracle)
        engine = self.engine
        try:
            reply = check_reply(engine.request({"cmd": "act", "action": s.action}), "act")
            if not reply["ok"] and reply["error"] != "illegal":
                raise ProtocolViolation(f"`act` at step {n} answered error "
                                        f"{reply['error']!r}: {reply.get('message', '')}")
            answer = Answer("accepted" if reply["ok"] else "refused",
                            None if reply["ok"] else reply.get("reason"),
                            "" if reply["ok"] else str(reply.get("message", "")))
            self.engine_answers.append(answer)
            if self.on_action:
                self.on_action()
            if answer.verdict != oracle.verdict:
                return self._found(n, "verdict", f"the oracle {oracle.verdict} action {n}, "
                                                 f"the engine {answer.verdict} it",
                                   [FieldDiff(("verdict",), oracle.verdict, answer.verdict)])
            if answer.verdict == "refused" and answer.reason != oracle.reason:
                return self._found(n, "reason", f"action {n} was refused for a different reason",
                                   [FieldDiff(("reason",), oracle.reason, answer.reason)])
            answer.observed = observe_engine(engine, n)
            found = self._compare_state(n, s.observed, s.legal, answer)
        except CaseSkipped as e:
            self.engine_answers.append(Answer("error", message=str(e)))
            return self._found(n, "engine-error", f"`unsupported` in the middle of a game: {e}")
        except EngineFault as e:
            return self._fault(n, e)
        return self._found(n, *found) if found else None

    def _compare_state(self, step: int, observed: dict[str, Any], legal: list[dict[str, Any]],
                       answer: Answer) -> tuple[str, str, list[FieldDiff]] | None:
        where = "after setup" if step == 0 else f"after action {step}"
        fields = diff_observed(observed, answer.observed)
        if fields:
            return "observed", f"OBSERVED differs {where} in {len(fields)} field(s)", fields
        if self.compare_legal:
            answer.legal = _legal(self.engine, step)
            fields = diff_legal(legal, answer.legal)
            if fields:
                return "legal", f"LEGAL differs {where} by {len(fields)} action(s)", fields
        return None


def run_game(engine: Engine, game: Game, *, compare_legal: bool | None = None,
             on_action: Callable[[], None] | None = None) -> Difference | None:
    """Replay a whole `game` on `engine` in lockstep with the oracle's recorded answers:
    the first Difference, or None (see `Lockstep`). Raises Skipped when the engine answers
    `unsupported` to the setup."""
    lockstep = Lockstep(engine, compare_legal=compare_legal, on_action=on_action)
    found = lockstep.begin(game.state, game.start, game.start_legal)
    if lockstep.skipped:
        raise Skipped(lockstep.skipped)
    for s in game.steps:
        if found:
            break
        found = lockstep.step(s)
    return found


# --------------------------------------------------------------------------- a campaign


@dataclass
class FuzzReport:
    examples: int = 0
    skipped: int = 0
    actions: int = 0
    seconds: float = 0.0
    difference: Difference | None = None
    flaky: bool = False
    first_found_at: int | None = None  # the example where a difference was first seen


def fuzz(engine: Engine, *, examples: int = 200, seed: int = 0, max_actions: int = 30,
         keywords: frozenset[str] | None = None, rules: type[Rules] = Rules,
         database: ExampleDatabase | None = None, shrink: bool = True,
         progress: Callable[[FuzzReport, str], None] | None = None) -> FuzzReport:
    """Run `examples` generated games on `engine` against `rules` (the oracle). The same
    seed gives the same games (no example database unless `database` is given: replaying
    saved examples first would change the run). The engine must be started.
    `keywords` limits the boards to keywords the engine implements (default: its `hello`).
    Games have between `max_actions // 2` and `max_actions` actions: a board costs as much
    to draw as a dozen actions, and only the actions up to a difference are kept anyway.
    `progress(report, event)` is called with event "example", "found" and "shrinking"."""
    info = getattr(engine, "info", None)
    if keywords is None:
        keywords = info.keywords if info is not None else frozenset(KEYWORD_IDS)
    allowed = tuple(k for k in KEYWORD_IDS if k in keywords)
    compare_legal = info is not None and "legal" in info.commands
    report = FuzzReport()
    last: list[Difference] = []
    started = time.perf_counter()

    def count_action() -> None:
        report.actions += 1

    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else [])

    lockstep = Lockstep(engine, compare_legal=compare_legal, on_action=count_action)

    @settings(max_examples=examples, database=database, deadline=None, derandomize=False,
              report_multiple_bugs=False, verbosity=Verbosity.quiet, phases=phases,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much, HealthCheck.large_base_example],
              print_blob=False)
    @hyp_seed(seed)
    @given(_games(keywords=allowed, min_actions=max_actions // 2, max_actions=max_actions,
                  rules=rules, lockstep=lockstep))
    def check(game: Game) -> None:
        # the engine played along while the game was drawn (Lockstep); here its verdict
        report.examples += 1
        report.skipped += bool(lockstep.skipped)
        diff = lockstep.difference
        if progress:
            progress(report, "shrinking" if last else "example")
        if diff is None:
            return
        if diff.kind == "engine-error":
            try:
                engine.restart()
            except EngineFault:
                pass  # the next request fails at once: another engine-error difference
        if not last:
            report.first_found_at = report.examples
            if progress:
                progress(report, "found")
        last[:] = [diff]
        raise DifferenceFound(diff)

    try:
        with warnings.catch_warnings():
            # Hypothesis reprs each failing game; a long one is not worth the warning
            warnings.filterwarnings("ignore", message="Generating overly large repr")
            check()
    except DifferenceFound as found:
        report.difference = found.difference
    except Flaky:
        report.flaky = True
        report.difference = last[0] if last else None
    if report.difference is not None and shrink and not report.flaky:
        if progress:
            progress(report, "simplifying")
        report.difference = simplify(engine, report.difference, rules=rules,
                                     compare_legal=compare_legal)
    report.seconds = time.perf_counter() - started
    return report


# --------------------------------------------------------------------------- printing

def show(value: Any, width: int | None = None) -> str:
    """A JSON value on one line, every character outside printable ASCII escaped (an
    engine's answers are untrusted: no terminal control sequence gets through)."""
    if value is MISSING:
        text = "(missing)"
    else:
        text = json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(", ", ": "))
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return text


def plain(text: Any, width: int | None = None) -> str:
    """Untrusted text for a terminal: control characters and non-ASCII escaped as in JSON,
    quotes left alone."""
    out = json.dumps(str(text), ensure_ascii=True)[1:-1].replace('\\"', '"')
    if width is not None and len(out) > width:
        out = out[: width - 1] + "…"
    return out


def _verdict(answer: Answer | None) -> str:
    if answer is None:
        return "-"
    if answer.verdict == "refused":
        return f"refused {show(answer.reason)}" if answer.reason else "refused"
    if answer.verdict == "error":
        return "ERROR " + plain(answer.message, 60)
    return "accepted"


def format_difference(diff: Difference, *, board: str | None = None) -> str:
    """The minimal board, the actions with both sides' answers side by side, and the fields
    that differ. `board`: the board already rendered (e.g. as TOML); default JSON lines."""
    where = "after setup" if diff.step == 0 else f"at action {diff.step}"
    lines = [f"DIFFERENCE ({diff.kind}) {where}: {plain(diff.summary)}",
             f"engine: {plain(diff.engine_name)}", "", "board (setup STATE):"]
    if board is None:
        board = json.dumps(diff.game.state, indent=2, ensure_ascii=True)
    lines += ["  " + line for line in board.rstrip().splitlines()]
    lines += ["", f"  {'#':>3}  {'action':<58}  {'oracle':<26}  engine"]
    for n in range(0, diff.step + 1):
        action = "(setup)" if n == 0 else show(diff.game.actions[n - 1], 58)
        o = diff.oracle[n] if n < len(diff.oracle) else None
        e = diff.engine[n] if n < len(diff.engine) else None
        lines.append(f"  {n:>3}  {action:<58}  {_verdict(o):<26}  {_verdict(e)}")
    if diff.fields:
        lines += ["", f"  {'field':<34}  {'oracle':<30}  engine"]
        for f in diff.fields[:40]:
            lines.append(f"  {plain(f.path):<34}  {show(f.oracle, 30):<30}  "
                         f"{show(f.engine, 60)}")
        if len(diff.fields) > 40:
            lines.append(f"  … and {len(diff.fields) - 40} more")
    elif diff.kind in ("engine-error", "setup") and diff.engine:
        lines += ["", f"  engine: {plain(diff.engine[-1].message, 200)}"]
    return "\n".join(lines)


# --------------------------------------------------------------------------- simplifying

ID_FIELDS = ("card", "structure", "attacker", "target", "blocker", "discard")
#: What a card field simplifies to (None: dropped, i.e. the protocol default).
SIMPLE_FIELDS: dict[str, Any] = {"power": 3000, "strike": 1, "cost": None, "state": None,
                                 "slots": None, "name": None}
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


def _candidates(state: dict[str, Any], actions: list[dict[str, Any]]
                ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Simpler versions of a game, each smaller by one thing: an action, a card, a keyword,
    an ability, a field back to its simplest value."""
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for i in range(len(actions)):
        out.append((state, actions[:i] + actions[i + 1:]))
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
            out.append((state, actions[:i] + [{k: v for k, v in a.items() if k != "choose"}]
                        + actions[i + 1:]))
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
            a = {k: (mapping.get(v, v) if k in ID_FIELDS and isinstance(v, str) else v)
                 for k, v in a.items()}
            if isinstance(a.get("choose"), list):
                a["choose"] = [mapping.get(c, c) if isinstance(c, str) else c for c in a["choose"]]
        renamed.append(a)
    return s, renamed


def simplify(engine: Engine, diff: Difference, *, rules: type[Rules] = Rules,
             compare_legal: bool | None = None, budget: int = 600) -> Difference:
    """Make a difference smaller by hand after Hypothesis has shrunk it: remove actions and
    cards, strip keywords and abilities, set fields back to their simplest values, and
    renumber the ids — keeping each change only if the same kind of difference remains
    (Hypothesis's shrinker works on its choices, and a card whose removal shifts which
    action a choice means is often kept). At most `budget` replays."""
    from oracle import StateError

    def attempt(state: dict[str, Any], actions: list[Any]) -> Difference | None:
        try:
            game = _play(rules, state, actions)
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


def _play(rules: type[Rules], state: dict[str, Any], actions: list[Any]) -> Game:
    from ._games import play
    return play(rules, state, actions)
