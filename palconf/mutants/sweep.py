"""Running the case suite against every mutant, and what the outcomes say about the suite.

A mutant is *killed* when at least one case that passes against the oracle fails, errors or
times out against it; otherwise it *survived*. A case that does not pass against the oracle
itself proves nothing about a mutant and is not counted (the sweep reports it apart).

For each mutant the sweep gives every killing case and a minimal killing set (for one mutant,
one case: the best of its killers, see `minimal_killing_set`); a mutant killed by only one
case is *thin* (delete that case and it survives), and so is the clause it breaks. Over all
mutants it gives a greedy smallest set of cases that kills every killed mutant (`cover`) and
the mutation score per keyword.

Pruning (on by default; `exhaustive=True` turns it off). A mutant is the oracle with some
methods of `Rules`, or one keyword object, replaced. The code is deterministic, so on a given
case the mutant does exactly what the oracle does up to the first call of something it
replaced; if the oracle's own run of the case never calls any of those, the mutant's run is
the oracle's run and the case passes against it too. Finer still: it does what the oracle does
until the first call at which its replacement does something else. So during the baseline run
of the oracle, at every call of something a mutant replaced, the mutant's replacement is run
on a copy of the same input and compared (`Tracer`); a mutant is run only on the cases where
it was once seen to do otherwise. `tests/test_mutants.py` checks that a pruned sweep and an
exhaustive one agree.
"""

from __future__ import annotations

import multiprocessing
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping, Sequence

from oracle.keywords import KEYWORDS
from oracle.model import CardState, GameState
from oracle.rules import Pending, Refusal, Rules

from ..cases import Case
from ..engines import Engine, EngineFault, OracleEngine
from ..registry import BASE, Registry
from ..runner import Result, RunStopped, run_case, run_cases
from . import Mutant

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


# ---------------------------------------------------------------- tracing the oracle

#: Methods of `Rules` that change neither their arguments, nor the game, nor the `Rules`
#: object: what they answer (a value, or a refusal) is all they do, so a probe need not copy
#: anything. `check_*` only refuse or return.
PURE: frozenset[str] = frozenset({
    "has", "power", "is_quick_event", "triggered_effects", "legal_targets", "targetable",
    "can_block", "pending_for", "battle_losers", "trigger_order", "choice_options",
    "effect_target", "check_shape", "check_main_phase", "check_quick_timing", "check_deploy",
    "check_assign", "check_play", "check_activate", "check_attack", "check_block",
    "check_pass", "check_interrupt", "check_end_turn",
})


def touches(mutant: Mutant) -> frozenset[str] | None:
    """What the mutant replaced: names of `Rules` methods and `keyword:<id>`; None when it
    cannot be probed (the mutant then runs on every case)."""
    names: set[str] = set()
    for cls in mutant.rules.__mro__:
        if cls is Rules:
            break
        for name in vars(cls):
            if name in ("__init__", "__getattribute__", "__getattr__", "__setattr__"):
                return None
            if name == "keywords" or name.startswith("__"):
                continue
            if name in vars(Rules):
                original = vars(Rules)[name]
                if not callable(original) or isinstance(original, (staticmethod, classmethod)):
                    return None
                names.add(name)
    keywords: Mapping[str, Any] = mutant.rules.keywords
    if set(keywords) != set(KEYWORDS):
        return None
    names |= {"keyword:" + k for k in KEYWORDS if keywords[k] is not KEYWORDS[k]}
    return frozenset(names)


#: The fields `_copy_game` copies; checked against the model when this module loads, so that
#: a field added to the model is never silently left out of a copy.
_GAME_FIELDS = ("active", "turn", "night", "life", "energy", "cards", "step", "priority",
                "attack", "winner", "pumps")
_CARD_FIELDS = ("card", "owner", "zone", "state", "host")
_FAST_COPY = (tuple(f.name for f in fields(GameState)) == _GAME_FIELDS
              and tuple(f.name for f in fields(CardState)) == _CARD_FIELDS)


def _copy_game(g: GameState) -> GameState:
    """`g.copy()`, several times faster (the cards are copied field by field)."""
    if not _FAST_COPY:
        return g.copy()
    return GameState(
        active=g.active, turn=g.turn, night=g.night, life=dict(g.life), energy=dict(g.energy),
        cards={cid: CardState(c.card, c.owner, c.zone, c.state, c.host)
               for cid, c in g.cards.items()},
        step=g.step, priority=g.priority,
        attack=replace(g.attack) if g.attack else None,
        winner=g.winner, pumps=[replace(p) for p in g.pumps])


class _Cloner:
    """Copies of a call's input, cheap and enough: a game by `_copy_game` (everything of it
    that can change), a card of a copied game by that copy's card, another card or a
    `Pending` by a shallow copy, containers element by element; everything else (frozen card
    data, effects, battle records, strings, numbers, functions) is immutable and shared."""

    def __init__(self) -> None:
        self.games: list[tuple[GameState, GameState]] = []

    def __call__(self, x: Any) -> Any:
        if isinstance(x, GameState):
            for original, clone in self.games:
                if original is x:
                    return clone
            clone = _copy_game(x)
            self.games.append((x, clone))
            return clone
        if isinstance(x, CardState):
            for original, clone in self.games:
                if original.cards.get(x.id) is x:
                    return clone.cards[x.id]
            return replace(x)
        if isinstance(x, Pending):
            return replace(x)
        if isinstance(x, list):
            return [self(v) for v in x]
        if isinstance(x, tuple):
            return tuple(self(v) for v in x)
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        if isinstance(x, set):
            return {self(v) for v in x}
        return x


def _answer(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return ("ok", call())
    except Refusal as r:
        return ("refused", r.reason)


def _probe(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return _answer(call)
    except Exception as e:  # a mutant that breaks here is told apart, not trusted
        return ("error", repr(e))


class Tracer:
    """Watches the oracle run one case and asks each mutant, at every call of something it
    replaced, what it would have done: `diverged` collects the mutants that once did
    otherwise. A `PURE` method is asked with the same arguments and its answer compared; any
    other method is run on copies of its arguments and of the game (`_Cloner`), and both the answer
    and everything it changed (arguments, `Rules.state`) are compared. Keyword hooks are pure.

    Until its first different step a mutant runs exactly as the oracle (the rest of its code
    is the oracle's, and the code is deterministic), so a case on which it never does
    otherwise cannot kill it and need not be run against it."""

    def __init__(self, mutants: Iterable[Mutant] = ()) -> None:
        self.touched: set[str] = set()
        self.diverged: set[str] = set()
        self.method_probes: dict[str, list[Mutant]] = {}
        self.keyword_probes: dict[str, list[tuple[str, Any]]] = {}
        self._instances: dict[str, Rules] = {}
        for m in mutants:
            for n in touches(m) or ():
                if n.startswith("keyword:"):
                    kid = n.split(":", 1)[1]
                    self.keyword_probes.setdefault(kid, []).append((m.name, m.rules.keywords[kid]))
                else:
                    self.method_probes.setdefault(n, []).append(m)

    def reset(self) -> None:
        self.touched.clear()
        self.diverged.clear()
        self._instances.clear()

    def _instance(self, m: Mutant, state: Any) -> Rules:
        """The mutant's `Rules` object for this case (kept, as the mutant's engine keeps one
        per game), on `state`."""
        inst = self._instances.get(m.name)
        if inst is None:
            inst = self._instances[m.name] = m.rules.__new__(m.rules)
        inst.state = state
        return inst

    def method(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        """`func` (a `Rules` method) traced, and probed for the mutants that replaced it."""
        probes = self.method_probes.get(name, [])
        pure = name in PURE

        def traced(oracle: Rules, *args: Any, **kwargs: Any) -> Any:
            self.touched.add(name)
            live = [m for m in probes if m.name not in self.diverged]
            if not live:
                return func(oracle, *args, **kwargs)
            inputs = [None if pure else _Cloner()((oracle.state, args, kwargs)) for _ in live]
            answer = _answer(lambda: func(oracle, *args, **kwargs))
            for m, copied in zip(live, inputs):
                if copied is None:
                    inst = self._instance(m, oracle.state)
                    same = _probe(lambda: getattr(inst, name)(*args, **kwargs)) == answer
                else:
                    state, a, k = copied
                    inst = self._instance(m, state)
                    same = (_probe(lambda: getattr(inst, name)(*a, **k)) == answer
                            and (a, k, inst.state) == (args, kwargs, oracle.state))
                if not same:
                    self.diverged.add(m.name)
            if answer[0] == "refused":
                return func(oracle, *args, **kwargs)  # the refusal, raised again
            return answer[1]
        traced.__name__ = name
        return traced

    def keyword_hook(self, kid: str, name: str, hook: Callable[..., Any]) -> Callable[..., Any]:
        probes = self.keyword_probes.get(kid, [])

        def traced(*args: Any, **kwargs: Any) -> Any:
            self.touched.add("keyword:" + kid)
            answer = hook(*args, **kwargs)
            for mname, replacement in probes:
                if mname not in self.diverged and \
                        _probe(lambda: getattr(replacement, name)(*args, **kwargs)) != ("ok", answer):
                    self.diverged.add(mname)
            return answer
        return traced


class _TracingKeyword:
    """Stands for one keyword object of the oracle; its hooks are traced by the `Tracer`."""

    def __init__(self, keyword: Any, tracer: Tracer) -> None:
        self._keyword = keyword
        self._tracer = tracer

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._keyword, name)
        if not callable(attr):
            self._tracer.touched.add("keyword:" + self._keyword.id)
            return attr
        return self._tracer.keyword_hook(self._keyword.id, name, attr)


def tracing_rules(tracer: Tracer) -> type[Rules]:
    """The oracle, reporting to `tracer` every `Rules` method it calls and every keyword
    object it uses; it behaves exactly as `Rules`."""
    namespace: dict[str, Any] = {
        "keywords": MappingProxyType({k: _TracingKeyword(v, tracer) for k, v in
                                      Rules.keywords.items()})}

    def static(name: str, func: Callable[..., Any]) -> Any:
        def traced(*args: Any, **kwargs: Any) -> Any:
            tracer.touched.add(name)
            return func(*args, **kwargs)
        return staticmethod(traced)

    for name, value in vars(Rules).items():
        if name.startswith("__"):
            continue
        if isinstance(value, staticmethod):
            namespace[name] = static(name, value.__func__)
        elif callable(value) and not isinstance(value, (classmethod, type)):
            namespace[name] = tracer.method(name, value)
    return type("TracingRules", (Rules,), namespace)


@dataclass(frozen=True)
class Trace:
    """What the oracle's run of one case used, and which mutants it told apart."""

    touched: frozenset[str]
    diverged: frozenset[str]


def baseline(cases: Sequence[Case],
             mutants: Iterable[Mutant] = ()) -> tuple[list[Result], dict[str, Trace]]:
    """The oracle's own results (only the cases it passes can kill a mutant), and for each
    case its `Trace`, probing `mutants`."""
    tracer = Tracer(mutants)
    engine = OracleEngine(rules=tracing_rules(tracer), name="palconf-oracle")
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


def relevant(mutant: Mutant, counted: Sequence[str], traces: Mapping[str, Trace]) -> list[str]:
    """The counted cases the mutant may fail: those on which it was seen to do otherwise
    than the oracle (every case, for a mutant that cannot be probed)."""
    if touches(mutant) is None:
        return list(counted)
    return [cid for cid in counted if cid not in traces or mutant.name in traces[cid].diverged]


def run_mutant(mutant: Mutant, cases: Sequence[Case], counted: set[str],
               engine: Engine) -> MutantOutcome:
    """Run the counted cases against one mutant's engine; `engine` is started and closed here."""
    outcome = MutantOutcome(mutant, ran=len(counted))
    try:
        engine.start()
    except EngineFault as e:
        outcome.fault = e.message
        return outcome
    try:
        for r in run_cases(engine, [c for c in cases if c.id in counted]):
            if r.outcome in KILLING:
                outcome.kills.append(r)
            elif r.outcome == "skip":
                outcome.skipped.append(r.id)
    except RunStopped as e:  # the engine kept breaking: the cases run so far stand
        outcome.fault = str(e)
    finally:
        engine.close()
    return outcome


def in_process(mutant: Mutant) -> Engine:
    """The mutant as an in-process engine (the default, and the fast way)."""
    return OracleEngine(rules=mutant.rules, name=f"palconf-mutant:{mutant.name}")


#: What the worker processes of a parallel sweep share (set before they are forked).
_JOB: tuple[list[Mutant], Sequence[Case], list[set[str]], Callable[[Mutant], Engine]] | None = None


def _work(index: int) -> tuple[list[Result], list[str], str]:
    """In a forked worker: run one mutant; only picklable plain data goes back."""
    assert _JOB is not None
    mutants, cases, runs, engine_for = _JOB
    o = run_mutant(mutants[index], cases, runs[index], engine_for(mutants[index]))
    return o.kills, o.skipped, o.fault


def sweep(mutants: Iterable[Mutant], cases: Sequence[Case],
          engine_for: Callable[[Mutant], Engine] = in_process, engine: str = "in-process",
          on_outcome: Callable[[MutantOutcome], None] | None = None,
          exhaustive: bool = False, jobs: int = 1) -> Sweep:
    """Run every case against the oracle, then the cases it passes against every mutant
    (only those that touch what the mutant replaced, unless `exhaustive`), in `jobs`
    forked worker processes where the platform can fork, else one after the other."""
    global _JOB
    todo = list(mutants)
    base, traces = baseline(cases, [] if exhaustive else todo)
    counted = [r.id for r in base if r.outcome == "pass"]
    runs = [set(counted if exhaustive else relevant(m, counted, traces)) for m in todo]
    outcomes: list[MutantOutcome] = []

    def done(o: MutantOutcome) -> None:
        if on_outcome:
            on_outcome(o)
        outcomes.append(o)

    if jobs > 1 and len(todo) > 1 and "fork" in multiprocessing.get_all_start_methods():
        _JOB = (todo, cases, runs, engine_for)
        try:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(todo))) as pool:
                for i, (kills, skipped, fault) in enumerate(pool.imap(_work, range(len(todo)))):
                    done(MutantOutcome(todo[i], kills, skipped, fault, ran=len(runs[i])))
        finally:
            _JOB = None
    else:
        for m, run in zip(todo, runs):
            done(run_mutant(m, cases, run, engine_for(m)))
    return Sweep(cases=list(cases), counted=counted,
                 not_counted=[r for r in base if r.outcome != "pass"], outcomes=outcomes,
                 engine=engine, pruned=not exhaustive)


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


def keyword_scores(outcomes: Iterable[MutantOutcome],
                   registry: Registry) -> dict[str, dict[str, Any]]:
    """Keyword (or `base`) → mutants, killed, score (killed / mutants; null with none)."""
    table: dict[str, list[MutantOutcome]] = {k: [] for k in [*registry.keywords, BASE]}
    for o in outcomes:
        table.setdefault(o.mutant.keyword, []).append(o)
    return {k: {"mutants": len(os), "killed": sum(o.killed for o in os),
                "score": round(sum(o.killed for o in os) / len(os), 4) if os else None,
                "survivors": [o.mutant.name for o in os if not o.killed]}
            for k, os in table.items()}


def to_json(s: Sweep, registry: Registry) -> dict[str, Any]:
    """The machine-readable sweep (`palconf mutants --json`; the reports read it)."""
    by_id = {c.id: c for c in s.cases}
    killed = sum(o.killed for o in s.outcomes)
    return {
        "engine": s.engine,
        "pruned": s.pruned,
        "cases": len(s.cases),
        "counted": len(s.counted),
        "not_counted": [{"id": r.id, "outcome": r.outcome, "message": r.message}
                        for r in s.not_counted],
        "mutants": [{
            "name": o.mutant.name,
            "clause": o.mutant.clause,
            "keyword": o.mutant.keyword,
            "misreading": o.mutant.misreading,
            "how": o.mutant.how,
            "status": o.status,
            "killed_by": o.killed_by,
            "minimal": minimal_killing_set(o, by_id),
            "thin": o.thin,
            "kills": [{"id": r.id, "outcome": r.outcome, "step": r.step, "message": r.message}
                      for r in o.kills],
            "ran": o.ran,
            "skipped": o.skipped,
            "fault": o.fault,
        } for o in s.outcomes],
        "keywords": keyword_scores(s.outcomes, registry),
        "thin": thin_clauses(s.outcomes),
        "cover": cover(s.outcomes),
        "survivors": [o.mutant.name for o in s.survivors],
        "total": {"mutants": len(s.outcomes), "killed": killed,
                  "score": round(killed / len(s.outcomes), 4) if s.outcomes else None},
    }
