"""Running cases against an engine and deciding each case's outcome (docs/INTERPRETING.md).

Outcomes: `pass`, `fail` (the engine answered, wrongly), `error` (the engine broke or left
the protocol), `timeout`, `skip` (a keyword it lacks, or `unsupported`), and, against an
expectations file, `xfail` / `xpass`.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Callable, Iterable, Iterator

from .cases import Case
from .engines import Engine, EngineFault, ProtocolViolation

OUTCOMES = ("pass", "fail", "error", "timeout", "skip", "xfail", "xpass")
OBSERVED_KEYS = ("active", "turn", "night", "winner", "step", "priority", "attack", "players",
                 "cards")


@dataclass
class Diff:
    path: str
    expected: Any
    observed: Any

    def __str__(self) -> str:
        return f"{self.path}: expected {_show(self.expected)}, observed {_show(self.observed)}"


MISSING = "<missing>"


def _show(value: Any) -> str:
    if value is MISSING:
        return "(missing)"
    return json.dumps(value, sort_keys=True)


@dataclass
class Result:
    id: str
    keywords: list[str]
    clauses: list[str]
    outcome: str
    message: str = ""
    duration_ms: float = 0.0
    interpretations: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    title: str = ""
    step: int | None = None  # the action (1-based; 0 = setup) where the case went wrong
    diffs: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    engine: str = ""
    # set by an expectations file (palconf.expectations):
    actual: str = ""  # the engine's own outcome when it was turned into xfail / xpass
    expected: list[str] = field(default_factory=list)  # the outcomes listed for the case
    note: str = ""  # the listing's note and link

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in ("", None, []) or k in
                ("id", "keywords", "clauses", "outcome", "message", "duration_ms")}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Result":
        """A result read back from a results file (unknown fields are ignored)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


class CaseFailed(Exception):
    def __init__(self, step: int, message: str, diffs: list[Diff] | None = None) -> None:
        super().__init__(message)
        self.step = step
        self.message = message
        self.diffs = diffs or []


class CaseSkipped(Exception):
    pass


# ---------------------------------------------------------------- comparing OBSERVED

def _same(expected: Any, observed: Any) -> bool:
    if isinstance(expected, bool) or isinstance(observed, bool):
        return type(expected) is type(observed) and expected == observed
    return bool(expected == observed)


def match(expected: Any, observed: Any, path: str = "") -> list[Diff]:
    """The fields where `observed` does not satisfy `expected`: tables key by key (keys not
    written are not checked), lists as sets (zone lists), everything else equal."""
    if isinstance(expected, dict):
        if not isinstance(observed, dict):
            return [Diff(path or "(state)", expected, observed)]
        diffs: list[Diff] = []
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else key
            if key not in observed:
                diffs.append(Diff(sub, value, MISSING))
            else:
                diffs += match(value, observed[key], sub)
        return diffs
    if isinstance(expected, list):
        if not isinstance(observed, list) or sorted(map(str, expected)) != sorted(map(str, observed)):
            return [Diff(path, sorted(map(str, expected)),
                         sorted(map(str, observed)) if isinstance(observed, list) else observed)]
        return []
    return [] if _same(expected, observed) else [Diff(path, expected, observed)]


def state_changes(before: dict[str, Any], after: dict[str, Any]) -> list[Diff]:
    """Every field where two OBSERVED states differ (both ways: nothing may appear or vanish)."""
    diffs = match(before, after)
    for d in match(after, before):
        if d.expected is not MISSING and d.observed is MISSING:
            diffs.append(Diff(d.path, MISSING, d.expected))
    return diffs


# ---------------------------------------------------------------- talking to the engine

def check_reply(reply: Any, cmd: str) -> dict[str, Any]:
    if not isinstance(reply, dict):
        raise ProtocolViolation(f"the reply to `{cmd}` is not a JSON object")
    if not isinstance(reply.get("ok"), bool):
        raise ProtocolViolation(f"the reply to `{cmd}` has no boolean `ok`")
    if not reply["ok"]:
        if not isinstance(reply.get("error"), str):
            raise ProtocolViolation(f"the refusal of `{cmd}` has no string `error`")
        if reply["error"] == "unsupported":
            raise CaseSkipped(f"engine: unsupported: {reply.get('message', '')}")
    return reply


def observe(engine: Engine, step: int) -> dict[str, Any]:
    reply = check_reply(engine.request({"cmd": "observe"}), "observe")
    if not reply["ok"]:
        raise ProtocolViolation(f"`observe` failed at step {step}: {reply.get('error')}: "
                                f"{reply.get('message', '')}")
    state = reply.get("state")
    if not isinstance(state, dict) or any(k not in state for k in OBSERVED_KEYS):
        missing = [k for k in OBSERVED_KEYS if not isinstance(state, dict) or k not in state]
        raise ProtocolViolation(f"`observe` reply at step {step} lacks {', '.join(missing)}")
    return state


def _describe(action: Any) -> str:
    return json.dumps(action, sort_keys=True)


def play_case(engine: Engine, case: Case) -> None:
    """Drive one case; return if it passes, raise CaseFailed / CaseSkipped / EngineFault."""
    reply = check_reply(engine.request({"cmd": "setup", "state": case.setup}), "setup")
    if not reply["ok"]:
        raise ProtocolViolation(f"the engine refused the case's setup: {reply['error']}: "
                                f"{reply.get('message', '')}")
    state = observe(engine, 0)
    check_expectation(case, 0, state, None, None)
    for n, action in enumerate(case.actions, start=1):
        reply = check_reply(engine.request({"cmd": "act", "action": action}), "act")
        before, state = state, observe(engine, n)
        refusal = None
        if not reply["ok"]:
            if reply["error"] != "illegal":
                raise ProtocolViolation(f"`act` at step {n} answered error {reply['error']!r}: "
                                        f"{reply.get('message', '')}")
            refusal = reply
        check_expectation(case, n, state, before, refusal)


def check_expectation(case: Case, n: int, state: dict[str, Any], before: dict[str, Any] | None,
                      refusal: dict[str, Any] | None) -> None:
    exp = case.expectation_after(n)
    if exp is not None and exp.refused is not None:
        if refusal is None:
            want = f" ({exp.refused})" if isinstance(exp.refused, str) else ""
            raise CaseFailed(n, f"action {n} was accepted; it must be refused{want}: "
                                f"{_describe(case.actions[n - 1])}")
        if isinstance(exp.refused, str) and refusal.get("reason") != exp.refused:
            raise CaseFailed(n, f"action {n} was refused with reason "
                                f"{refusal.get('reason')!r}, expected {exp.refused!r}",
                             [Diff("reason", exp.refused, refusal.get("reason"))])
        assert before is not None
        changes = state_changes(before, state)
        if changes:
            raise CaseFailed(n, f"action {n} was refused but changed the state", changes)
    elif refusal is not None:
        raise CaseFailed(n, f"action {n} was refused ({refusal.get('reason')}: "
                            f"{refusal.get('message', '')}); it must be accepted: "
                            f"{_describe(case.actions[n - 1])}")
    if exp is not None and exp.observed is not None:
        diffs = match(exp.observed, state)
        if diffs:
            where = f"after action {n}" if n else "after setup"
            raise CaseFailed(n, f"{where}: {len(diffs)} field(s) differ", diffs)


def run_case(engine: Engine, case: Case) -> Result:
    result = Result(id=case.id, keywords=list(case.keywords), clauses=list(case.clauses),
                    outcome="pass", interpretations=list(case.interpretations),
                    rules=list(case.rules), title=case.title,
                    engine=getattr(getattr(engine, "info", None), "name", ""))
    missing = sorted(case.needs - engine.info.keywords)
    if missing:
        result.outcome = "skip"
        result.message = f"engine does not implement: {', '.join(missing)}"
        return result
    start = time.perf_counter()
    try:
        play_case(engine, case)
    except CaseFailed as f:
        result.outcome, result.message, result.step = "fail", f.message, f.step
        result.diffs = [{"path": d.path, "expected": None if d.expected is MISSING else d.expected,
                         "observed": None if d.observed is MISSING else d.observed}
                        for d in f.diffs]
    except CaseSkipped as s:
        result.outcome, result.message = "skip", str(s)
    except EngineFault as e:
        result.outcome, result.message = e.outcome, e.message
        result.stderr = e.stderr
    result.duration_ms = round((time.perf_counter() - start) * 1000, 3)
    if not result.stderr:
        result.stderr = engine.take_stderr()
    return result


class RunStopped(Exception):
    """The engine broke too many times in a row: the run stops. Results already yielded
    stand; the cases not run are left for `--resume`."""


DEFAULT_MAX_RESTARTS = 5


def run_cases(engine: Engine, cases: Iterable[Case],
              on_result: Callable[[Result], None] | None = None,
              max_restarts: int = DEFAULT_MAX_RESTARTS) -> Iterator[Result]:
    """Run each case, yielding its result as soon as it is known.

    Restart policy: after a timeout, or an error that left the engine unusable (an engine
    with a `broken` flag says so: palconf.adapter.ProcessEngine), the engine is restarted
    before the next case it must run (not for cases skipped by keyword). A restart that
    fails is tried again. When `max_restarts` restarts in a row have not brought a case to
    an end without a fault, `RunStopped` is raised instead of restarting once more."""
    in_a_row = 0
    needs_restart = False
    last_fault = ""
    for case in cases:
        if needs_restart and case.needs <= engine.info.keywords:
            while True:
                if in_a_row >= max_restarts:
                    raise RunStopped(
                        f"the engine broke {in_a_row + 1} time(s) in a row and "
                        f"{max_restarts} restart(s) in a row is the limit; last fault: "
                        f"{last_fault}")
                in_a_row += 1
                try:
                    engine.restart()
                    break
                except EngineFault as e:
                    last_fault = f"restarting: {e.message}"
            needs_restart = False
        result = run_case(engine, case)
        if result.outcome in ("error", "timeout") and getattr(
                engine, "broken", result.outcome == "timeout"):
            needs_restart = True
            last_fault = f"{case.id}: {result.outcome}: {result.message}"
        elif result.outcome != "skip":
            in_a_row = 0
        if on_result:
            on_result(result)
        yield result
