"""Running the case suite against every mutant, and what the outcomes say about the suite.

A mutant is *killed* when at least one case that passes against the oracle fails, errors or
times out against it; otherwise it *survived*. A case that does not pass against the oracle
itself proves nothing about a mutant and is not counted (the sweep reports it apart).

For each mutant the sweep gives every killing case and a minimal killing set (for one mutant,
one case: the best of its killers, see `minimal_killing_set`); a mutant killed by only one
case is *thin* (delete that case and it survives), and so is the clause it breaks. Over all
mutants it gives a greedy smallest set of cases that kills every killed mutant (`cover`) and
the mutation score per keyword.

Pruning (on by default; `exhaustive=True` turns it off) runs each mutant only on the cases
on which the oracle's own run saw it do otherwise: `palconf.mutants.tracing`.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from palconf.cases.loader import Case
from palconf.core import Engine, EngineFault, Result
from palconf.engines.oracle_engine import OracleEngine
from palconf.engines.process import EngineCommandError
from palconf.mutants import Mutant
from palconf.mutants.tracing import PURE, Trace, Tracer, rules_attributes, touches, tracing_rules
from palconf.oracle.protocol import Session
from palconf.oracle.rules import Rules
from palconf.registry import BASE, Registry
from palconf.running.parallel import in_order
from palconf.running.runner import run_case
from palconf.running.supervisor import RunStopped, run_cases

__all__ = [
    "KILLING",
    "PURE",
    "MutantOutcome",
    "Sweep",
    "Trace",
    "Tracer",
    "baseline",
    "cover",
    "in_process",
    "keyword_scores",
    "minimal_killing_set",
    "own_interpreter",
    "relevant",
    "rules_attributes",
    "run_mutant",
    "sweep",
    "thin_clauses",
    "to_json",
    "touches",
    "tracing_rules",
]

#: Outcomes of a case that kill a mutant.
KILLING = ("fail", "error", "timeout")


@dataclass
class MutantOutcome:
    """What the suite did to one mutant."""

    mutant: Mutant
    kills: list[Result] = field(default_factory=list)  # killing results, counted cases only
    skipped: list[str] = field(default_factory=list)  # counted cases the mutant skipped
    fault: str = ""  # the engine could not be started at all
    ran: int = 0  # how many cases were run against it (after pruning)

    @property
    def killed(self) -> bool:
        return bool(self.kills)

    @property
    def status(self) -> str:
        """`killed`; `fault` when its engine could not run the cases and no case killed it
        (nothing is known); else `survived`."""
        return "killed" if self.killed else "fault" if self.fault else "survived"

    @property
    def killed_by(self) -> list[str]:
        return [r.id for r in self.kills]

    @property
    def thin(self) -> bool:
        return len(self.kills) == 1


@dataclass
class Sweep:
    """The outcome of a whole sweep."""

    cases: list[Case]
    counted: list[str]  # ids of the cases that pass against the oracle
    not_counted: list[Result]  # the oracle's results for the others
    outcomes: list[MutantOutcome]
    engine: str = "in-process"
    pruned: bool = True

    @property
    def survivors(self) -> list[MutantOutcome]:
        return [o for o in self.outcomes if not o.killed]


def baseline(
    cases: Sequence[Case], mutants: Iterable[Mutant] = (), oracle: type[Rules] = Rules
) -> tuple[list[Result], dict[str, Trace]]:
    """The oracle's own results (only the cases it passes can kill a mutant), and for each
    case its `Trace`, probing `mutants`. `oracle`: the `Rules` class of the rules version
    swept (the mutants are misreadings of it: `palconf.mutants.for_rules`)."""
    tracer = Tracer(mutants, oracle)
    engine = OracleEngine(rules=tracing_rules(tracer, oracle), name="palconf-oracle")
    engine.start()
    results: list[Result] = []
    traces: dict[str, Trace] = {}
    try:
        for case in cases:
            tracer.reset()
            r = run_case(engine, case)
            if r.outcome in ("error", "timeout"):
                engine.restart()
            results.append(r)
            traces[case.id] = Trace(frozenset(tracer.touched), frozenset(tracer.diverged))
    finally:
        engine.close()
    return results, traces


def relevant(
    mutant: Mutant,
    counted: Sequence[str],
    traces: Mapping[str, Trace],
    oracle: type[Rules] = Rules,
) -> list[str]:
    """The counted cases the mutant may fail: those on which it was seen to do otherwise
    than the oracle (every case, for a mutant that cannot be probed)."""
    if touches(mutant, oracle) is None:
        return list(counted)
    return [cid for cid in counted if cid not in traces or mutant.name in traces[cid].diverged]


def run_mutant(
    mutant: Mutant, cases: Sequence[Case], counted: set[str], engine: Engine
) -> MutantOutcome:
    """Run the counted cases against one mutant's engine; `engine` is started and closed here."""
    outcome = MutantOutcome(mutant, ran=len(counted))
    try:
        engine.start()
    except (EngineFault, EngineCommandError) as e:  # this mutant's engine: the sweep goes on
        outcome.fault = str(e)
        return outcome
    try:
        for r in _results(engine, [c for c in cases if c.id in counted], alone(mutant)):
            if r.outcome in KILLING:
                outcome.kills.append(r)
            elif r.outcome == "skip":
                outcome.skipped.append(r.id)
    except (RunStopped, EngineFault) as e:  # the engine kept breaking: the cases run so far stand
        outcome.fault = str(e)
    finally:
        engine.close()
    return outcome


def alone(mutant: Mutant) -> bool:
    """Whether each case runs on a fresh engine against `mutant`: a session mutant's
    misreading lives in the protocol layer, across games, so a case that follows another on
    the same engine could kill it by the other's doing; only a kill by a case that fails
    when run alone (`palconf run --case ID`) is counted."""
    return mutant.session is not Session


def _results(engine: Engine, cases: Sequence[Case], fresh: bool) -> Iterable[Result]:
    """`run_cases` on one engine, or (`fresh`) each case on the engine started again."""
    if not fresh:
        yield from run_cases(engine, cases)
        return
    for case in cases:
        engine.restart()
        yield from run_cases(engine, [case])


def own_interpreter(argv: Sequence[str]) -> list[str]:
    """An engine command whose program is `palconf` (found on PATH, so only with the virtual
    environment activated) as this palconf run by this interpreter: `sys.executable -m
    palconf.cli ...`. The mutants must be this palconf's anyway (pruning relies on it). Any
    other program is left alone: `python` may be meant to be another interpreter, and a path
    to a `palconf` names the one the user chose."""
    if argv and argv[0] == "palconf":
        return [sys.executable, "-m", "palconf.cli", *argv[1:]]
    return list(argv)


def in_process(mutant: Mutant) -> Engine:
    """The mutant as an in-process engine (the default, and the fast way)."""
    return OracleEngine(
        rules=mutant.rules, name=f"palconf-mutant:{mutant.name}", session=mutant.session
    )


#: What the worker processes of a parallel sweep share (set before they are forked).
_JOB: tuple[list[Mutant], Sequence[Case], list[set[str]], Callable[[Mutant], Engine]] | None = None


def _work(index: int) -> tuple[list[Result], list[str], str]:
    """In a forked worker: run one mutant; only picklable plain data goes back."""
    assert _JOB is not None
    mutants, cases, runs, engine_for = _JOB
    o = run_mutant(mutants[index], cases, runs[index], engine_for(mutants[index]))
    return o.kills, o.skipped, o.fault


def sweep(
    mutants: Iterable[Mutant],
    cases: Sequence[Case],
    engine_for: Callable[[Mutant], Engine] = in_process,
    engine: str = "in-process",
    on_outcome: Callable[[MutantOutcome], None] | None = None,
    exhaustive: bool = False,
    jobs: int = 1,
    oracle: type[Rules] = Rules,
) -> Sweep:
    """Run every case against the oracle, then the cases it passes against every mutant
    (only those that touch what the mutant replaced, unless `exhaustive`), one mutant at a
    time per worker. With `jobs` > 1: in-process mutants (they compute) in forked worker
    processes where the platform can fork; mutants behind an engine command (they wait) in
    `palconf run -j`'s worker threads, each driving its mutant's engine process. `oracle`:
    the `Rules` class of the rules version swept; `mutants` must be misreadings of it
    (`palconf.mutants.for_rules`)."""
    global _JOB
    todo = list(mutants)
    base, traces = baseline(cases, [] if exhaustive else todo, oracle)
    counted = [r.id for r in base if r.outcome == "pass"]
    runs = [set(counted if exhaustive else relevant(m, counted, traces, oracle)) for m in todo]
    outcomes: list[MutantOutcome] = []

    def done(o: MutantOutcome) -> None:
        if on_outcome:
            on_outcome(o)
        outcomes.append(o)

    if jobs > 1 and len(todo) > 1 and engine_for is not in_process:

        def one(i: int) -> MutantOutcome:
            return run_mutant(todo[i], cases, runs[i], engine_for(todo[i]))

        for o in in_order(range(len(todo)), jobs, one):
            done(o)
    elif jobs > 1 and len(todo) > 1 and "fork" in multiprocessing.get_all_start_methods():
        _JOB = (todo, cases, runs, engine_for)
        try:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(todo))) as pool:
                for i, (kills, skipped, fault) in enumerate(pool.imap(_work, range(len(todo)))):
                    done(MutantOutcome(todo[i], kills, skipped, fault, ran=len(runs[i])))
        finally:
            _JOB = None
    else:
        for m, run in zip(todo, runs, strict=True):
            done(run_mutant(m, cases, run, engine_for(m)))
    return Sweep(
        cases=list(cases),
        counted=counted,
        not_counted=[r for r in base if r.outcome != "pass"],
        outcomes=outcomes,
        engine=engine,
        pruned=not exhaustive,
    )


# ---------------------------------------------------------------- what the outcomes say


def minimal_killing_set(outcome: MutantOutcome, cases: dict[str, Case]) -> list[str]:
    """The smallest set of cases that kills the mutant: one case (none if it survived). Of
    its killers, the one that cites the mutant's clause (or base rule) and fails rather than
    errs, with the fewest actions, then by id — the case to point at."""

    def rank(r: Result) -> tuple[int, int, int, str]:
        case = cases[r.id]
        cites = outcome.mutant.clause in case.clauses or outcome.mutant.clause in case.rules
        return (0 if cites else 1, 0 if r.outcome == "fail" else 1, len(case.actions), r.id)

    return [min(outcome.kills, key=rank).id] if outcome.kills else []


def thin_clauses(outcomes: Iterable[MutantOutcome]) -> dict[str, list[str]]:
    """Clause (or base rule) → its mutants that only one case kills."""
    thin: dict[str, list[str]] = {}
    for o in outcomes:
        if o.thin:
            thin.setdefault(o.mutant.clause, []).append(o.mutant.name)
    return thin


def cover(outcomes: Iterable[MutantOutcome]) -> list[str]:
    """A small set of cases that together kill every killed mutant (greedy set cover: at
    each step the case that kills most of the mutants still alive, ties by id)."""
    alive = {o.mutant.name: set(o.killed_by) for o in outcomes if o.killed}
    chosen: list[str] = []
    while alive:
        counts: dict[str, int] = {}
        for killers in alive.values():
            for cid in killers:
                counts[cid] = counts.get(cid, 0) + 1
        best = min(counts, key=lambda cid: (-counts[cid], cid))
        chosen.append(best)
        alive = {name: k for name, k in alive.items() if best not in k}
    return chosen


def keyword_scores(
    outcomes: Iterable[MutantOutcome], registry: Registry
) -> dict[str, dict[str, Any]]:
    """Keyword (or `base`) → mutants, killed, score (killed / mutants; null with none)."""
    table: dict[str, list[MutantOutcome]] = {k: [] for k in [*registry.keywords, BASE]}
    for o in outcomes:
        table.setdefault(o.mutant.keyword, []).append(o)
    return {
        k: {
            "mutants": len(os),
            "killed": sum(o.killed for o in os),
            "score": round(sum(o.killed for o in os) / len(os), 4) if os else None,
            "survivors": [o.mutant.name for o in os if not o.killed],
        }
        for k, os in table.items()
    }


def to_json(s: Sweep, registry: Registry) -> dict[str, Any]:
    """The machine-readable sweep (`palconf mutants --json`; the reports read it)."""
    by_id = {c.id: c for c in s.cases}
    killed = sum(o.killed for o in s.outcomes)
    return {
        "engine": s.engine,
        "pruned": s.pruned,
        "cases": len(s.cases),
        "counted": len(s.counted),
        "not_counted": [
            {"id": r.id, "outcome": r.outcome, "message": r.message} for r in s.not_counted
        ],
        "mutants": [
            {
                "name": o.mutant.name,
                "clause": o.mutant.clause,
                "keyword": o.mutant.keyword,
                "misreading": o.mutant.misreading,
                "how": o.mutant.how,
                "status": o.status,
                "killed_by": o.killed_by,
                "minimal": minimal_killing_set(o, by_id),
                "thin": o.thin,
                "kills": [
                    {"id": r.id, "outcome": r.outcome, "step": r.step, "message": r.message}
                    for r in o.kills
                ],
                "ran": o.ran,
                "skipped": o.skipped,
                "fault": o.fault,
            }
            for o in s.outcomes
        ],
        "keywords": keyword_scores(s.outcomes, registry),
        "thin": thin_clauses(s.outcomes),
        "cover": cover(s.outcomes),
        "survivors": [o.mutant.name for o in s.survivors],
        "total": {
            "mutants": len(s.outcomes),
            "killed": killed,
            "score": round(killed / len(s.outcomes), 4) if s.outcomes else None,
        },
    }
