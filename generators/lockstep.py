"""An engine and the oracle in lockstep on one generated game, compared after every request.

`run_game(engine, game)` replays one `Game` (a STATE and actions, with the oracle's answers
recorded while it was drawn) on the engine, and compares after `setup` and after every
action, in this order, stopping at the first difference:

1. the verdict: accepted or refused (`act` answered `ok` or `illegal`; a setup step,
   `setup` in the middle of a game, answered `ok` or an error);
2. for a refusal, the reason code (protocol: the first reason that applies, so it is one,
   but for the points the protocol leaves open, where any reason of `Step.open` will do;
   for a setup step, the error code: `invalid-state` or `unsupported`);
3. the whole OBSERVED state, with `palconf.core.compare` (`subset=False`: a field on one
   side only differs too) — the same strict JSON rules the runner checks a case with: zone
   lists as multisets of typed values, every other value exactly, with its JSON type (`1`
   is not `true`, `"1"` is not `1`);
4. the LEGAL set (`palconf.core.legal_diffs`), when the engine lists `legal` among its
   commands in `hello`.

An engine that breaks (crash, hang, a reply outside the protocol) is a difference too, of
kind `engine-error`. In every `Diff` of a difference, `expected` is the oracle's side and
`observed` the engine's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

from palconf.core import (
    Diff,
    Engine,
    EngineFault,
    ProtocolViolation,
    Unsupported,
    check_reply,
    compare,
    legal_diffs,
    send_line,
)
from palconf.core.compare import canonical

from .game import Game, Step, wire_line
from .pipeline import Ahead, can_pipeline, planned, step_requests
from .replies import Texts, same_legal, same_observed

KINDS = ("setup", "verdict", "reason", "observed", "legal", "engine-error")


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
    `game` (truncated to that step), of one of `KINDS`, with the differing fields (`Diff`s:
    `expected` the oracle's value, `observed` the engine's) and both sides' answers to
    every step so far."""

    game: Game
    step: int
    kind: str
    summary: str
    fields: list[Diff] = field(default_factory=list)
    oracle: list[Answer] = field(default_factory=list)
    engine: list[Answer] = field(default_factory=list)
    engine_name: str = ""


class DifferenceFound(Exception):
    """Raised inside the Hypothesis test so that Hypothesis shrinks the game."""

    def __init__(self, difference: Difference) -> None:
        super().__init__(f"{difference.kind} after step {difference.step}: {difference.summary}")
        self.difference = difference


class Skipped(Exception):
    """The engine answered `unsupported` to a setup: this example says nothing."""


def diff_observed(oracle: dict[str, Any], engine: Any) -> list[Diff]:
    """Every field where the engine's OBSERVED differs from the oracle's (both ways)."""
    if canonical(oracle) == canonical(engine):  # fast path: the common case
        return []
    return compare(oracle, engine, subset=False)


class Lockstep:
    """One engine following the oracle's game step by step: `begin` with the position right
    after setup, then `step` with each of the oracle's steps as it is played. Each returns
    the first Difference, or None (and after a Difference, the game is over for it).

    When the engine answers `unsupported` to the setup, `skipped` says why and the game
    says nothing (`run_game` raises Skipped). An EngineFault becomes a Difference of kind
    `engine-error` (the caller restarts the engine). `compare_legal` defaults to whether
    the engine offers `legal`; `on_action` is called for each action compared."""

    def __init__(
        self,
        engine: Engine,
        *,
        compare_legal: bool | None = None,
        on_action: Callable[[], None] | None = None,
    ) -> None:
        info = getattr(engine, "info", None)
        self.engine = engine
        self.compare_legal = (
            ("legal" in getattr(info, "commands", ())) if compare_legal is None else compare_legal
        )
        self.on_action = on_action
        self.name = getattr(info, "name", "")
        self.difference: Difference | None = None
        self._reset({}, {}, [])

    def _reset(
        self, state: dict[str, Any], start: dict[str, Any], start_legal: list[dict[str, Any]]
    ) -> None:
        self.game = Game(state, start, start_legal)
        self.steps: list[Step] = []
        self.oracle_answers: list[Answer] = []
        self.engine_answers: list[Answer] = []
        self.difference = None
        self.skipped = ""  # why the engine refused the setup as `unsupported`
        self._legal_seen: list[dict[str, Any]] | None = None  # the oracle's LEGAL last compared
        self._texts = Texts()

    def _found(
        self, step: int, kind: str, summary: str, fields: list[Diff] | None = None
    ) -> Difference:
        game = Game(self.game.state, self.game.start, self.game.start_legal, tuple(self.steps))
        self.difference = Difference(
            game,
            step,
            kind,
            summary,
            fields or [],
            self.oracle_answers,
            self.engine_answers,
            self.name,
        )
        return self.difference

    def _fault(self, step: int, e: EngineFault) -> Difference:
        if len(self.engine_answers) == len(self.oracle_answers):
            self.engine_answers[-1:] = [Answer("error", message=e.message)]  # observe broke
        else:
            self.engine_answers.append(Answer("error", message=e.message))
        return self._found(step, "engine-error", f"{type(e).__name__}: {e.message}")

    def begin(
        self, state: dict[str, Any], start: dict[str, Any], start_legal: list[dict[str, Any]]
    ) -> Difference | None:
        self._reset(state, start, start_legal)
        engine = self.engine
        self.oracle_answers.append(Answer("accepted", observed=start, legal=start_legal))
        try:
            reply = check_reply(engine.request({"cmd": "setup", "state": state}), "setup")
            if not reply["ok"]:
                self.engine_answers.append(
                    Answer("refused", reply.get("error"), str(reply.get("message", "")))
                )
                return self._found(
                    0, "setup", f"the engine refused the setup: {reply.get('error')}"
                )
            answer = Answer("accepted")
            self.engine_answers.append(answer)
            found = self._compare_state(0, start, start_legal, answer)
        except Unsupported as e:
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
        oracle = Answer(
            "accepted" if s.accepted else "refused",
            s.refusal["reason"] if s.refusal else None,
            s.refusal["message"] if s.refusal else "",
            s.observed,
            s.legal,
        )
        self.oracle_answers.append(oracle)
        if s.is_setup:
            request: dict[str, Any] | None = {"cmd": "setup", "state": s.action["setup"]}
        elif s.is_wire:
            request = None  # a line of the wire step's own (wire_line)
        else:
            request = {"cmd": "act", "action": s.action}
        try:
            return self._answer(n, s, oracle, request)
        except Unsupported as e:
            self.engine_answers.append(Answer("error", message=str(e)))
            return self._found(n, "engine-error", f"`unsupported` in the middle of a game: {e}")
        except EngineFault as e:
            return self._fault(n, e)

    def _answer(
        self, n: int, s: Step, oracle: Answer, request: dict[str, Any] | None
    ) -> Difference | None:
        """Send a step's request (`request` None: a wire step's line); compare the verdict,
        the code (an action's reason, a setup step's error: `P-state`, a wire step's:
        `P-errors`), then OBSERVED (after a refused setup or a wire step, the previous game
        as it was) and LEGAL."""
        engine = self.engine
        if request is None:
            label, act = f"wire step {n}", False
            sent = send_line(engine, wire_line(s.action), label)
            reply = check_reply(sent, label, unsupported_skips=False)
        else:
            label, act = f"{request['cmd']}", request["cmd"] == "act"
            reply = check_reply(engine.request(request), label, unsupported_skips=act)
        if act and not reply["ok"] and reply["error"] != "illegal":
            raise ProtocolViolation(
                f"`act` at step {n} answered error {reply['error']!r}: {reply.get('message', '')}"
            )
        code = "reason" if act else "error"
        answer = Answer(
            "accepted" if reply["ok"] else "refused",
            None if reply["ok"] else reply.get(code),
            "" if reply["ok"] else str(reply.get("message", "")),
        )
        self.engine_answers.append(answer)
        if self.on_action:
            self.on_action()
        label = f"{'action' if act else 'wire step' if request is None else 'setup step'} {n}"
        if answer.verdict != oracle.verdict:
            return self._found(
                n,
                "verdict",
                f"the oracle {oracle.verdict} {label}, the engine {answer.verdict} it",
                [Diff("verdict", oracle.verdict, answer.verdict)],
            )
        if answer.verdict == "refused" and answer.reason not in (oracle.reason, *s.open):
            return self._found(
                n,
                "reason",
                f"{label} was refused for a different {code}",
                [Diff(code, oracle.reason, answer.reason)],
            )
        found = self._compare_state(n, s.observed, s.legal, answer)
        return self._found(n, *found) if found else None

    def _compare_state(
        self, step: int, observed: dict[str, Any], legal_list: list[dict[str, Any]], answer: Answer
    ) -> tuple[str, str, list[Diff]] | None:
        where = "after setup" if step == 0 else f"after action {step}"
        answer.observed, same = same_observed(self.engine, step, self._texts.observed(observed))
        fields = [] if same else diff_observed(observed, answer.observed)
        if fields:
            return "observed", f"OBSERVED differs {where} in {len(fields)} field(s)", fields
        # LEGAL is asked again unless nothing can have changed it: a refusal after which both
        # OBSERVEDs are those of the position LEGAL was last compared at (the oracle then
        # hands over the very same list). A probe batch is mostly such refusals, and asking
        # LEGAL is most of what a step costs.
        unchanged = legal_list is self._legal_seen and answer.verdict == "refused"
        if self.compare_legal and not unchanged:
            answer.legal, same = same_legal(self.engine, step, self._texts.legal(legal_list))
            fields = [] if same else legal_diffs(legal_list, answer.legal)
            if fields:
                return "legal", f"LEGAL differs {where} by {len(fields)} action(s)", fields
            self._legal_seen = legal_list
        return None

    def finish(self) -> Difference | None:
        """The game is drawn to its end: the first Difference, or None."""
        return self.difference

    def settle(self) -> None:
        """Nothing of this game is in flight any more (`Trailing`'s)."""


#: How many steps `Trailing` writes at a time, and follows behind the drawing: 4 steps are
#: 8 to 12 requests (one write, one wake-up of the engine), twice that in flight at most,
#: within generators.pipeline's window.
LAG = 4


class Trailing(Lockstep):
    """A `Lockstep` that follows a game through the wire while it is drawn, `lag` steps
    behind (issue 33): the requests of each `lag` steps drawn are written in one go (the
    requests `run_game(pipeline=True)` writes ahead for a replay, generators.pipeline), the
    engine works on them while the oracle draws the next `lag` steps, and then its replies
    are read and compared, in order, exactly as `Lockstep` compares them. So `step` says of
    a difference `lag` to `2 * lag - 1` steps after its own, and `finish` of one in the
    game's last steps; the Difference is the same (its game ends at the step that
    differed), and so is the game Hypothesis is told of (generators._games). What was written
    past a difference is read and dropped (`settle`: also at the next `begin`, for a
    game whose drawing was cut short). The setup is compared at once (`begin`: a refused
    or unsupported setup ends the game). An engine that cannot pipeline is followed as
    `Lockstep` follows it."""

    def __init__(
        self,
        engine: Engine,
        *,
        compare_legal: bool | None = None,
        on_action: Callable[[], None] | None = None,
        lag: int = LAG,
    ) -> None:
        super().__init__(engine, compare_legal=compare_legal, on_action=on_action)
        self.target = engine
        self.lag = lag
        self._ahead: Ahead | None = None
        self._due: deque[Step] = deque()
        self._planned_seen: list[dict[str, Any]] | None = None

    def begin(
        self, state: dict[str, Any], start: dict[str, Any], start_legal: list[dict[str, Any]]
    ) -> Difference | None:
        self.settle()
        found = super().begin(state, start, start_legal)
        if found is None and not self.skipped and self.lag and can_pipeline(self.target):
            self._planned_seen = self._legal_seen
            self._ahead = Ahead(self.target, ())
            self.engine = cast(Engine, self._ahead)  # what Lockstep asks of an engine
        return found

    def step(self, s: Step) -> Difference | None:
        ahead = self._ahead
        if ahead is None:
            return super().step(s)
        requests, self._planned_seen = step_requests(
            len(self.steps) + len(self._due) + 1, s, self.compare_legal, self._planned_seen
        )
        ahead.extend(requests)
        self._due.append(s)
        if len(self._due) % self.lag == 0:
            ahead.send()  # one write (one wake-up of the engine) per `lag` steps
        if len(self._due) >= 2 * self.lag:
            return self._compare(self.lag)
        return None

    def finish(self) -> Difference | None:
        self._compare(len(self._due))
        return self.difference

    def _compare(self, n: int) -> Difference | None:
        found = None
        for _ in range(n):
            found = super().step(self._due.popleft())
            if found is not None:
                break
        if found is not None or not self._due:
            self.settle()
        return found

    def settle(self) -> None:
        self._due.clear()
        if self._ahead is not None:
            self._ahead.drain()
            self._ahead = None
        self.engine = self.target


def run_game(
    engine: Engine,
    game: Game,
    *,
    compare_legal: bool | None = None,
    on_action: Callable[[], None] | None = None,
    pipeline: bool = False,
) -> Difference | None:
    """Replay a whole `game` on `engine` in lockstep with the oracle's recorded answers:
    the first Difference, or None (see `Lockstep`). Raises Skipped when the engine answers
    `unsupported` to the setup.

    `pipeline` (an engine that can: a process): the requests are written ahead of their
    turn (generators.pipeline), the same requests in the same order. Where that run finds
    a difference, what was written past it is read and dropped, and the game is replayed
    without pipelining (on a fresh engine if the engine broke or had requests past the
    difference in flight), so that the difference reported, and the request a fault is
    laid to, are exactly those of a plain run (a flaky engine's first one stands)."""
    if not (pipeline and can_pipeline(engine)):
        return _replay(engine, game, compare_legal, on_action)
    if compare_legal is None:
        compare_legal = "legal" in getattr(getattr(engine, "info", None), "commands", ())
    ahead = Ahead(engine, planned(game, compare_legal))
    try:
        found = _replay(ahead, game, compare_legal, on_action)
    finally:
        drained = ahead.drain()
    if found is None:
        return None
    if drained or found.kind == "engine-error" or ahead.broken:
        try:
            engine.restart()
        except EngineFault:
            return found
    try:
        return _replay(engine, game, compare_legal, None) or found
    except Skipped:
        return found


def _replay(
    engine: Any,
    game: Game,
    compare_legal: bool | None,
    on_action: Callable[[], None] | None,
) -> Difference | None:
    lockstep = Lockstep(engine, compare_legal=compare_legal, on_action=on_action)
    found = lockstep.begin(game.state, game.start, game.start_legal)
    if lockstep.skipped:
        raise Skipped(lockstep.skipped)
    for s in game.steps:
        if found:
            break
        found = lockstep.step(s)
    return found
