"""One case, step by step, against an engine and the oracle side by side (`palconf explain`).

Unlike the runner, which stops at the first expectation that does not hold, this plays every
step of the case on both, and for each step keeps: the request, what the case expects, the
engine's answer and the oracle's, the fields of the case's OBSERVED that differ, the whole
OBSERVED of the engine against the oracle's, what changed since the step before, and LEGAL
where the case asks for it. The verdict is the runner's own (`run_case`), so `explain` and
`run` never disagree.

The story is the runner's too: a step whose answer is not the case's (a STATE accepted that
P-state says to refuse, a refusal where the case expects the action or STATE to be taken) has
that as its `problem`, in `verdict_problem`'s words, before anything observed after it; the
OBSERVED differences of such a step follow from the answer. The first step that goes wrong is
marked (`first_wrong`); every later step's problems follow from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from palconf.cases.loader import Case, Step
from palconf.core import (
    Diff,
    Engine,
    EngineFault,
    compare,
    observe,
    send_line,
    state_changes,
)
from palconf.core import legal as ask
from palconf.running.runner import legal_problems, verdict_problem

__all__ = ["StepView", "explain_steps"]


@dataclass
class Answer:
    """One side's answer to a step's request, and its OBSERVED after it."""

    verdict: str = ""  # "accepted", "refused: illegal-target (…)", or a fault
    refusal: dict[str, Any] | None = None  # the refusal reply, when the step was refused
    observed: dict[str, Any] | None = None
    legal: list[Any] | None = None
    fault: str | None = None  # the engine broke: at the step's request, or at `observe` after
    stderr: str = ""  # what the engine wrote to stderr as it broke
    answered: bool = False  # the step's request had an answer (a fault may come after it)


@dataclass
class StepView:
    n: int  # 0 = the case's setup
    step: Step | None
    request: Any  # the request object, or a `send` step's line
    expected: str
    engine: Answer
    oracle: Answer | None = None  # None when the engine is the oracle
    expected_diffs: list[Diff] = field(default_factory=list)
    oracle_diffs: list[Diff] = field(default_factory=list)
    changes: list[Diff] = field(default_factory=list)
    legal_diffs: list[Diff] = field(default_factory=list)
    # what is wrong with the answer itself (accepted where the case expects a refusal, or the
    # reverse; the wrong code), in the runner's words; None when the answer is the case's
    problem: str | None = None
    first_wrong: bool = False  # the first step of the case that is not as expected
    after: int | None = None  # the step that went wrong before this one (None: none did)

    @property
    def answer_differs(self) -> bool:
        return self.problem is not None

    @property
    def as_expected(self) -> bool:
        return not (
            self.answer_differs or self.expected_diffs or self.legal_diffs or self.engine.fault
        )


def expected_text(case: Case, n: int) -> str:
    exp = case.expectation_after(n)
    parts = []
    if n and exp is not None and exp.refused is not None:
        parts.append(exp.refusal_text())
    elif n:
        parts.append("accepted")
    else:
        parts.append("loaded")
    if exp is not None and exp.observed is not None:
        parts.append("OBSERVED with the case's fields")
    if exp is not None and exp.legal is not None:
        parts.append("LEGAL as listed")
    return "; ".join(parts)


def _answer(
    engine: Engine, n: int, step: Step | None, request: Any, had_game: bool, ask_legal: bool
) -> Answer:
    """One side's answer to step `n` (`step` None: the case's setup), and its OBSERVED after
    it where there is a game (`had_game`, or a setup step it accepted; never after `bye`)."""
    answer = Answer()
    try:
        if step is not None and step.wire:
            reply = send_line(engine, step.line(), f"wire step {n}")
        else:
            reply = engine.request(request)
        answer.answered = True
        kind = "setup" if step is None else step.kind
        if not isinstance(reply, dict):
            answer.verdict = f"not a JSON object: {reply!r}"[:300]
        elif reply.get("ok") is True:
            answer.verdict = "loaded" if kind == "setup" else "accepted"
            had_game = had_game or kind == "setup"
        else:
            answer.refusal = reply
            code = reply.get("reason") if kind == "act" else None
            code = code or reply.get("error")
            message = reply.get("message", "")
            answer.verdict = f"refused: {code}" + (f" ({message})" if message else "")
        if had_game and not (step is not None and step.is_bye):
            answer.observed = observe(engine, n)
        if ask_legal and answer.observed is not None:
            answer.legal = ask(engine, n)
    except EngineFault as e:
        answer.fault = f"{e.outcome}: {e.message}"
        answer.stderr = e.stderr or engine.take_stderr()
        if not answer.answered:
            answer.verdict = answer.fault
    return answer


def explain_steps(case: Case, engine: Engine, oracle: Engine | None) -> list[StepView]:
    """Play `case` on `engine` (and `oracle`, when it is another engine), both started (a
    case with no `setup` on both restarted first: it starts on engines that had no game)."""
    views: list[StepView] = []
    before: dict[str, Any] | None = None
    requests: list[tuple[int, Step | None, Any]] = []
    if case.setup is None:
        for side in (engine, oracle):
            if side is not None:
                side.restart()
    else:
        requests.append((0, None, {"cmd": "setup", "state": case.setup}))
    requests += [
        (n, s, s.body if s.kind == "send" else s.request())
        for n, s in enumerate(case.steps, start=1)
    ]
    games = [case.setup is not None, case.setup is not None]  # the engine's, the oracle's
    for n, step, request in requests:
        exp = case.expectation_after(n)
        wants_legal = exp is not None and exp.legal is not None
        mine = _answer(engine, n, step, request, games[0], wants_legal and engine.info.offers_legal)
        theirs = None
        if oracle is not None:
            theirs = _answer(oracle, n, step, request, games[1], wants_legal)
            games[1] = games[1] or theirs.observed is not None
        games[0] = games[0] or mine.observed is not None
        view = StepView(n, step, request, expected_text(case, n), mine, theirs)
        views.append(view)
        if mine.answered:  # the answer first: what is observed after it follows from it
            view.problem = _problem(case, n, step, mine)
        if mine.fault is not None:
            break
        state = mine.observed
        if exp is not None and exp.observed is not None:
            view.expected_diffs = compare(exp.observed, state, subset=True)
        if theirs is not None and theirs.observed is not None:
            view.oracle_diffs = compare(theirs.observed, state, subset=False)
        if before is not None and state is not None:
            view.changes = state_changes(before, state)
        if exp is not None and exp.legal is not None and mine.legal is not None:
            view.legal_diffs = legal_problems(exp.legal, mine.legal)
        before = state
    wrong = next((v for v in views if not v.as_expected), None)
    if wrong is not None:
        wrong.first_wrong = True
        for v in views[views.index(wrong) + 1 :]:
            v.after = wrong.n
    return views


def _problem(case: Case, n: int, step: Step | None, answer: Answer) -> str | None:
    """What is wrong with the answer to step `n` against the case, in the runner's words
    (`verdict_problem`, the check `run_case` makes); None when it is the case's."""
    if step is None:
        if answer.verdict == "loaded":
            return None
        return (
            "the case's setup is a valid STATE (P-state): the engine must load it, and "
            f"answered {answer.verdict}"
        )
    if answer.verdict not in ("accepted", "loaded") and answer.refusal is None:
        return f"{step.label} {n} was answered with {answer.verdict}"
    found = verdict_problem(case, n, answer.refusal)
    return None if found is None else found[0]
