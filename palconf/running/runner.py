"""Running cases against an engine and deciding each case's outcome (docs/INTERPRETING.md).

Outcomes (`palconf.core.Outcome`): `pass`, `fail` (the engine answered, wrongly), `error`
(the engine broke or left the protocol), `timeout`, `skip` (a keyword or command it lacks,
or `unsupported`), and, against an expectations file, `xfail` / `xpass`.

A case runs as: `setup` with the case's STATE, `observe`; then for each step its request
(`act` with an ACTION, `setup` with a STATE, or a wire step's line) and `observe`; and
`legal` wherever an expectation has a `legal` part and the engine offers the command. A
case with no STATE starts on a fresh engine (restarted: it has had no game) and observes
nothing until one of its setup steps is accepted; a `bye` step ends it (the engine must
exit; it is started again for the next case).
"""

from __future__ import annotations

import time
from typing import Any

from palconf.cases.loader import SETUP_ERRORS, Case, Expectation, LegalExpectation, Step
from palconf.core import (
    MISSING,
    Diff,
    Engine,
    EngineFault,
    NoGame,
    Outcome,
    ProtocolViolation,
    Result,
    Unsupported,
    check_reply,
    compare,
    legal_diffs,
    observe,
    send_line,
    setup,
    state_changes,
)
from palconf.core import legal as ask_legal
from palconf.core.compare import canonical, matches, show
from palconf.core.engine import BYE_GRACE
from palconf.core.errors import PalconfError
from palconf.core.observed_rules import observed_problems, printed_cards

__all__ = ["CaseFailed", "legal_problems", "play_case", "run_case", "verdict_problem"]


class CaseFailed(PalconfError):
    def __init__(self, step: int, message: str, diffs: list[Diff] | None = None) -> None:
        super().__init__(message)
        self.step = step
        self.message = message
        self.diffs = diffs or []


class _Play:
    """One case being played on one engine: the steps, each expectation checked in turn."""

    def __init__(self, engine: Engine, case: Case) -> None:
        self.engine = engine
        self.case = case
        self.offers_legal = engine.info.offers_legal
        self.legal_unchecked = 0  # legal expectations left out: the engine has no `legal`
        # the cards OBSERVED must list (P-observed); None while there is no game
        self.game = None if case.setup is None else printed_cards(case.setup)
        # the expectation after each step (`Case.expectation_after`: the first one listed)
        self.expected = {e.after: e for e in reversed(case.expect)}

    def run(self) -> None:
        state: dict[str, Any] | None = None
        if self.case.setup is None:
            self.engine.restart()  # a fresh engine, that has had no game
        else:
            reply = setup(self.engine, self.case.setup)
            if not reply["ok"] and reply["error"] == "invalid-state":
                # a wrong answer, not a broken engine: the STATE is valid (lint loads it in the
                # oracle), so refusing it misreads P-state
                raise CaseFailed(
                    0,
                    "the engine refused the case's setup, a valid STATE (P-state), as "
                    f"invalid-state: {reply.get('message', '')}",
                    [Diff("error", MISSING, "invalid-state")],
                )
            if not reply["ok"]:
                raise ProtocolViolation(
                    f"the engine refused the case's setup: {reply['error']}: "
                    f"{reply.get('message', '')}"
                )
            state = observe(self.engine, 0)
            self.check(0, state, None, None)
        expected = self.expected
        for n, step in enumerate(self.case.steps, start=1):
            exp = expected.get(n)
            refusal = self.send(n, step, exp)
            # the answer first: a STATE accepted that had to be refused (or the reverse) is
            # what went wrong, whatever `observe` then says (it follows from the answer)
            problem = _verdict_problem(step, n, exp, refusal)
            if problem is not None:
                raise CaseFailed(n, *problem)
            if step.is_bye:
                self.bye(n)
                return
            if self.game is None and (refusal is not None or step.kind != "setup"):
                continue  # no game yet: nothing to observe
            before, state = state, self.observe(n, step)
            self.check(n, state, before, refusal)

    def observe(self, n: int, step: Step) -> dict[str, Any]:
        """OBSERVED after step `n`. An engine that answers `no-game` there has lost the game
        the case loaded, by the step's own doing: a failure of the case (P-errors,
        I-29), not a broken engine."""
        try:
            return observe(self.engine, n)
        except NoGame as e:
            raise CaseFailed(
                n,
                f"after {step.label} {n} `observe` answered no-game: the game it had was lost",
                [Diff("error", MISSING, "no-game")],
            ) from e

    def send(self, n: int, step: Step, exp: Expectation | None) -> dict[str, Any] | None:
        """The step's request; None when accepted, else the refusal reply. (`exp`: the
        expectation after it.)"""
        demanded = exp.reasons if exp is not None else ()
        if step.wire:
            label = f"wire step {n}"
            if step.kind == "request" and step.body.get("cmd") == "legal" and not self.offers_legal:
                raise Unsupported(f"{label} sends `legal`, which the engine does not offer")
            reply = send_line(self.engine, step.line(), label)
            skips = False  # an answer of the protocol layer is never a keyword it lacks
        else:
            request = step.request()
            label = str(request["cmd"])
            reply = self.engine.request(request)
            skips = not (step.kind == "setup" and set(demanded) & set(SETUP_ERRORS))
        reply = check_reply(reply, label, unsupported_skips=skips)
        if reply["ok"]:
            return None
        if step.kind == "act" and reply["error"] != "illegal":
            raise ProtocolViolation(
                f"`act` at step {n} answered error {reply['error']!r}: {reply.get('message', '')}"
            )
        return reply

    def bye(self, n: int) -> None:
        """`bye` was answered `ok`: the engine must now exit (a process; an in-process
        engine has nothing to exit), and is started again for the next case."""
        wait_exit = getattr(self.engine, "wait_exit", None)
        gone = wait_exit(BYE_GRACE) if callable(wait_exit) else True
        self.engine.restart()
        if not gone:
            raise CaseFailed(
                n, f"the engine answered `bye` (step {n}) but had not exited {BYE_GRACE:g} s later"
            )

    def check(
        self,
        n: int,
        state: dict[str, Any],
        before: dict[str, Any] | None,
        refusal: dict[str, Any] | None,
    ) -> None:
        exp = self.expected.get(n)
        if n:  # (the answer itself was checked as it came: `_verdict_problem`, in `run`)
            self.check_unchanged(n, state, before, refusal)
            if refusal is None and self.case.steps[n - 1].kind == "setup":
                self.game = printed_cards(self.case.steps[n - 1].body)
        if exp is not None and exp.observed is not None:
            diffs = compare(exp.observed, state, subset=True)
            if diffs:
                raise CaseFailed(n, f"{_where(n)}: {len(diffs)} field(s) differ", diffs)
        assert self.game is not None  # a state was observed: there is a game
        broken = observed_problems(state, self.game)
        if broken:
            raise CaseFailed(
                n, f"{_where(n)}: OBSERVED breaks P-observed in {len(broken)} field(s)", broken
            )
        if exp is not None and exp.legal is not None:
            self.check_legal(n, exp.legal)

    def check_unchanged(
        self,
        n: int,
        state: dict[str, Any],
        before: dict[str, Any] | None,
        refusal: dict[str, Any] | None,
    ) -> None:
        """A refused step `n` changed nothing (`before` None: there was no game to look at)."""
        if refusal is not None and before is not None:
            changes = state_changes(before, state)
            if changes:
                label = self.case.steps[n - 1].label
                raise CaseFailed(n, f"{label} {n} was refused but changed the state", changes)

    def check_legal(self, n: int, exp: LegalExpectation) -> None:
        if not self.offers_legal:
            self.legal_unchecked += 1
            return
        diffs = legal_problems(exp, ask_legal(self.engine, n))
        if diffs:
            raise CaseFailed(n, f"{_where(n)}: `legal` differs in {len(diffs)} action(s)", diffs)


# ------------------------------------------- matching an answer against the case (one place)


def wanted_value(exp: Expectation) -> str | list[str]:
    """The demanded reason as a diff's expected side: the code, or the list of codes any
    one of which would do."""
    return exp.reasons[0] if len(exp.reasons) == 1 else list(exp.reasons)


def verdict_problem(
    case: Case, n: int, refusal: dict[str, Any] | None
) -> tuple[str, list[Diff]] | None:
    """What is wrong with the answer to step `n` (accepted when `refusal` is None, else the
    refusal reply) against the case's expectation after it: None when it is as expected, else
    the message and the differing fields. `run_case` and `palconf explain` both ask this."""
    return _verdict_problem(case.steps[n - 1], n, case.expectation_after(n), refusal)


def _verdict_problem(
    step: Step, n: int, exp: Expectation | None, refusal: dict[str, Any] | None
) -> tuple[str, list[Diff]] | None:
    """`verdict_problem` of step `n`, `step`, with `exp` the expectation after it."""
    if refusal is None and (exp is None or exp.refused is None):
        return None  # accepted, as it must be (the usual answer)
    code_field = step.code_field
    if step.kind == "request" and refusal is not None and refusal.get("error") == "illegal":
        code_field = "reason"  # an `act` request refused as an action: its REASON
    if exp is not None and exp.refused is not None:
        if refusal is None:
            label = f"{step.label} {n}"
            return f"{label} was accepted; it must be {exp.refusal_text()}: {step.describe()}", []
        if exp.reasons and refusal.get(code_field) not in exp.reasons:
            label = f"{step.label} {n}"
            wanted = " or ".join(repr(r) for r in exp.reasons)
            return (
                f"{label} was refused with {code_field} "
                f"{refusal.get(code_field)!r}, expected {wanted}",
                [Diff(code_field, wanted_value(exp), refusal.get(code_field, MISSING))],
            )
        return None
    if refusal is not None:
        label = f"{step.label} {n}"
        return (
            f"{label} was refused ({refusal.get(code_field)}: "
            f"{refusal.get('message', '')}); it must be accepted: {step.describe()}",
            [],
        )
    return None


def legal_problems(exp: LegalExpectation, listed: list[Any]) -> list[Diff]:
    """How a LEGAL list differs from what a case expects of it (`exactly`, `includes`,
    `excludes`), each difference once: the one check of LEGAL, for `run` and `explain`."""
    diffs: list[Diff] = []
    if exp.exactly is not None:
        diffs += legal_diffs(exp.exactly, listed)
    present = {canonical(a) for a in listed}
    diffs += [Diff("legal", a, MISSING) for a in exp.includes if canonical(a) not in present]
    diffs += [
        Diff("legal (excluded)", pattern, a)
        for pattern in exp.excludes
        for a in listed
        if matches(pattern, a)
    ]
    return _dedupe(diffs)


def _where(n: int) -> str:
    return f"after action {n}" if n else "after setup"


def _dedupe(diffs: list[Diff]) -> list[Diff]:
    seen: set[str] = set()
    out = []
    for d in diffs:
        key = canonical([d.path, show(d.expected), show(d.observed)])
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def play_case(engine: Engine, case: Case) -> int:
    """Drive one case; return (how many legal expectations went unchecked) if it passes,
    raise CaseFailed / Unsupported / EngineFault otherwise."""
    play = _Play(engine, case)
    play.run()
    return play.legal_unchecked


def run_case(engine: Engine, case: Case) -> Result:
    base: dict[str, Any] = dict(
        id=case.id,
        keywords=case.keywords,
        clauses=case.clauses,
        path=case.path,
        interpretations=case.interpretations,
        rules=case.rules,
        title=case.title,
        engine=engine.info.name,
    )
    missing = sorted(case.needs - engine.info.keywords)
    if missing:
        return Result(
            outcome=Outcome.SKIP, message=f"engine does not implement: {', '.join(missing)}", **base
        )
    start = time.perf_counter()
    outcome, message, stderr = Outcome.PASS, "", ""
    step: int | None = None
    diffs: tuple[Diff, ...] = ()
    try:
        unchecked = play_case(engine, case)
        if unchecked:
            outcome = Outcome.SKIP
            message = (
                f"the engine does not offer `legal`: {unchecked} legal expectation(s) "
                "not checked (every other expectation held)"
            )
    except CaseFailed as f:
        outcome, message, step, diffs = Outcome.FAIL, f.message, f.step, tuple(f.diffs)
    except Unsupported as s:
        outcome, message = Outcome.SKIP, str(s)
    except EngineFault as e:
        outcome, message, stderr = Outcome(e.outcome), e.message, e.stderr
    duration = round((time.perf_counter() - start) * 1000, 3)
    return Result(
        outcome=outcome,
        message=message,
        step=step,
        diffs=diffs,
        duration_ms=duration,
        stderr=stderr or engine.take_stderr(),
        **base,
    )
