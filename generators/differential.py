"""Differential fuzzing: an engine and the oracle in lockstep on generated games.

`fuzz()` drives Hypothesis over generated games (`generators._games`), each played by the
oracle and, step by step as it is drawn, by the engine (`generators.lockstep`: what is
compared and in which order); it raises on the first difference so that Hypothesis shrinks
it, then `generators.shrinking.simplify` makes it smaller still, and returns the minimal
one. `generators.formatting` prints a difference, `generators.export` writes it as a case.

This module is the entry point: it re-exports what a caller of the fuzzer needs.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hyp_seed
from hypothesis.database import ExampleDatabase
from hypothesis.errors import Flaky

from palconf.core import Engine, EngineFault
from palconf.engines.schemas import reason_codes
from palconf.oracle import Rules
from palconf.oracle.keywords import KEYWORD_IDS

from ._games import _games
from .formatting import format_difference, show
from .game import Game
from .lockstep import (
    KINDS,
    Answer,
    Difference,
    DifferenceFound,
    Lockstep,
    Skipped,
    Trailing,
    diff_observed,
    run_game,
)
from .shrinking import relabel, simplify, trimmed

__all__ = [
    "KINDS",
    "REASONS",
    "Answer",
    "Difference",
    "DifferenceFound",
    "FuzzReport",
    "Lockstep",
    "Skipped",
    "diff_observed",
    "format_difference",
    "fuzz",
    "relabel",
    "run_game",
    "show",
    "signature",
    "simplify",
]


#: The REASON codes in the order of the table (docs/protocol.md, `P-reasons`).
REASONS: tuple[str, ...] = reason_codes()


@dataclass
class FuzzReport:
    examples: int = 0
    skipped: int = 0
    actions: int = 0
    seconds: float = 0.0
    difference: Difference | None = None  # the first difference found
    flaky: bool = False
    first_found_at: int | None = None  # the example where a difference was first seen
    #: every distinct difference found (keep-going: up to `max_differences`), each shrunk
    differences: list[Difference] = field(default_factory=list)
    #: what the games hit: `reason X`, `rows X + Y` (rows one action broke), `edge NAME`,
    #: `edge NAME@CELL` and `cell X CELL` (reason X, acting card in CELL): see format_hits
    hits: Counter[str] = field(default_factory=Counter)
    #: the campaign was stopped from outside (`should_stop`) before it was done
    stopped: bool = False

    def one(self) -> None:
        """One more action compared (a Lockstep's `on_action`)."""
        self.actions += 1

    def count(self, game: Game) -> None:
        for edge in game.edges:  # `name`, or `name@cell` for an edge crossed with cells
            self.hits.update({f"edge {edge}", f"edge {edge.partition('@')[0]}"})
        for step in game.steps:
            if step.broken:
                first = step.broken[0]
                self.hits[f"reason {first}"] += 1
                if step.cell:
                    self.hits[f"cell {first} {step.cell}"] += 1
                rows = sorted(set(step.broken), key=_row)
                for i, a in enumerate(rows):
                    for b in rows[i + 1 :]:
                        self.hits[f"rows {a} + {b}"] += 1


def _row(code: str) -> int:
    return REASONS.index(code) if code in REASONS else len(REASONS)


def signature(diff: Difference) -> tuple[str, ...]:
    """What makes two differences the same for keep-going: the kind, the kind of step, and
    the codes or the fields (card ids and players left out) that differ."""
    step = diff.game.steps[diff.step - 1] if 0 < diff.step <= len(diff.game.steps) else None
    what = (
        "setup" if step is None else ("setup-step" if step.is_setup else str(step.action.get("do")))
    )
    if diff.kind in ("verdict", "reason", "setup"):
        return (diff.kind, what, *(f"{show(f.expected)}>{show(f.observed)}" for f in diff.fields))
    if diff.kind == "engine-error":
        return (diff.kind, what, re.sub(r"[0-9]+", "N", diff.summary)[:60])
    paths = sorted({re.sub(r"^(cards|players)\.[^.]+", r"\1.*", f.path) for f in diff.fields})
    return (diff.kind, what, *paths)


def fuzz(
    engine: Engine,
    *,
    examples: int = 200,
    seed: int = 0,
    max_actions: int = 30,
    keywords: frozenset[str] | None = None,
    rules: type[Rules] = Rules,
    database: ExampleDatabase | None = None,
    shrink: bool = True,
    progress: Callable[[FuzzReport, str], None] | None = None,
    setup_share: int = 10,
    probe_share: int = 5,
    max_differences: int = 1,
    directed: bool = True,
    should_stop: Callable[[], bool] | None = None,
    known: set[tuple[str, ...]] | None = None,
) -> FuzzReport:
    """Run `examples` generated games on `engine` against `rules` (the oracle). The same
    seed gives the same games in one program (no example database unless `database` is given);
    Hypothesis also draws constants from the modules imported. The engine must be started.
    `keywords` limits the boards to keywords the engine implements (default: its `hello`).
    Games have between `max_actions // 2` and `max_actions` actions: a board costs as much
    to draw as a dozen actions, and only the actions up to a difference are kept anyway.
    Directed generation: `setup_share` percent of the steps are setup steps at an edge of
    `P-state`; at `probe_share` percent of them a batch of actions aimed at the REASON
    table is sent (generators._games).
    Keep-going: with `max_differences` above 1, a difference found (and shrunk) does not end
    the campaign: the games go on, with the next seed, ignoring differences of the same
    `signature`, until that many distinct ones are found or `examples` games are played.
    `directed`: start with the directed sweep (generators.directed: every STATE edge, many
    pairs of REASON rows), each of its games counted as an example.
    `progress(report, event)` is called with event "example", "found", "shrinking",
    "simplifying" and "difference" (one more in `report.differences`).
    Parallel campaigns (generators.parallel): `should_stop()` is asked before each game is
    judged (never while a difference is shrunk); once it says True the campaign ends
    (`report.stopped`) with what it has. `known`: signatures to pass
    over (shared with the caller, who may add to it while the campaign runs)."""
    info = getattr(engine, "info", None)
    if keywords is None:
        keywords = info.keywords if info is not None else frozenset(KEYWORD_IDS)
    allowed = tuple(k for k in KEYWORD_IDS if k in keywords)
    compare_legal = info is not None and "legal" in info.commands
    report = FuzzReport()
    known = set() if known is None else known
    started = time.perf_counter()
    try:
        _fuzz(
            engine,
            report,
            known,
            examples=examples,
            seed=seed,
            max_actions=max_actions,
            rules=rules,
            allowed=allowed,
            compare_legal=compare_legal,
            database=database,
            shrink=shrink,
            progress=progress,
            setup_share=setup_share,
            probe_share=probe_share,
            max_differences=max_differences,
            directed=directed,
            should_stop=should_stop,
        )
    except _Stop:
        report.stopped = True
    report.seconds = time.perf_counter() - started
    return report


class _Stop(BaseException):
    """`should_stop()` said so: a BaseException, so that Hypothesis lets it through (it
    would take an Exception for a failure and shrink it)."""


def _fuzz(
    engine: Engine,
    report: FuzzReport,
    known: set[tuple[str, ...]],
    *,
    examples: int,
    seed: int,
    max_actions: int,
    rules: type[Rules],
    allowed: tuple[str, ...],
    compare_legal: bool,
    database: ExampleDatabase | None,
    shrink: bool,
    progress: Callable[[FuzzReport, str], None] | None,
    setup_share: int,
    probe_share: int,
    max_differences: int,
    directed: bool,
    should_stop: Callable[[], bool] | None,
) -> None:
    if should_stop is not None:
        ask = should_stop

        def stop_check() -> None:
            if ask():  # never asked while a difference is being shrunk
                raise _Stop

        checkpoint: Callable[[], None] | None = stop_check
    else:
        checkpoint = None

    def record(diff: Difference, *, trim: bool) -> None:
        """A new difference: known by its signature (and its shrunk one's), shrunk, kept.
        `trim`: a sweep game's, whose probes before the one that differed go first."""
        known.add(signature(diff))
        if shrink and not report.flaky:
            if progress:
                progress(report, "simplifying")
            if trim:
                diff = trimmed(engine, diff, rules, compare_legal)
            diff = simplify(engine, diff, rules=rules, compare_legal=compare_legal)
            known.add(signature(diff))
        report.differences.append(diff)
        if report.difference is None:
            report.difference = diff
        if progress:
            progress(report, "difference")

    if directed:
        sweep = _sweep(
            engine, report, rules, allowed, compare_legal, examples, progress, checkpoint
        )
        for diff in sweep:
            if signature(diff) in known:
                continue
            record(diff, trim=True)
            if len(report.differences) >= max_differences:
                break
    round_ = 0
    while report.examples < examples and len(report.differences) < max_differences:
        before = report.examples
        found = _campaign(
            engine,
            report,
            examples=examples - report.examples,
            seed=seed + round_,
            rules=rules,
            allowed=allowed,
            max_actions=max_actions,
            setup_share=setup_share,
            probe_share=probe_share,
            compare_legal=compare_legal,
            database=database,
            shrink=shrink,
            known=known,
            progress=progress,
            checkpoint=checkpoint,
        )
        round_ += 1
        if found is None:
            break
        record(found, trim=False)
        if report.examples == before:  # nothing new was played: do not loop forever
            break


def _campaign(
    engine: Engine,
    report: FuzzReport,
    *,
    examples: int,
    seed: int,
    rules: type[Rules],
    allowed: tuple[str, ...],
    max_actions: int,
    setup_share: int,
    probe_share: int,
    compare_legal: bool,
    database: ExampleDatabase | None,
    shrink: bool,
    known: set[tuple[str, ...]],
    progress: Callable[[FuzzReport, str], None] | None,
    checkpoint: Callable[[], None] | None = None,
) -> Difference | None:
    """One Hypothesis run: the first difference not in `known`, Hypothesis-shrunk, or None."""
    last: list[Difference] = []

    phases = [Phase.explicit, Phase.reuse, Phase.generate] + ([Phase.shrink] if shrink else [])
    lockstep = Trailing(engine, compare_legal=compare_legal, on_action=report.one)

    @settings(
        max_examples=examples,
        database=database,
        deadline=None,
        derandomize=False,
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        phases=phases,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
            HealthCheck.large_base_example,
        ],
        print_blob=False,
    )
    @hyp_seed(seed)
    @given(
        _games(
            keywords=allowed,
            min_actions=max_actions // 2,
            max_actions=max_actions,
            rules=rules,
            lockstep=lockstep,
            setup_share=setup_share,
            probe_share=probe_share,
        )
    )
    def check(game: Game) -> None:
        # the engine played along while the game was drawn (Lockstep); here its verdict
        if checkpoint is not None and not last:
            checkpoint()
        report.examples += 1
        report.skipped += bool(lockstep.skipped)
        if not last and not lockstep.skipped:
            report.count(game)
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
        if signature(diff) in known:
            return  # already found (keep-going): this game says nothing new
        if not last:
            if report.first_found_at is None:
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
        return found.difference
    except Flaky:
        report.flaky = True
        return last[0] if last else None
    finally:
        lockstep.settle()  # what was in flight of a game cut short, read
    return None


def _sweep(
    engine: Engine,
    report: FuzzReport,
    rules: type[Rules],
    allowed: tuple[str, ...],
    compare_legal: bool,
    examples: int,
    progress: Callable[[FuzzReport, str], None] | None,
    checkpoint: Callable[[], None] | None = None,
) -> Iterator[Difference]:
    """The directed sweep's games in lockstep, pipelined; each difference as it is found."""
    from .directed import directed_games

    for game in directed_games(rules, allowed):
        if report.examples >= examples:
            return
        if checkpoint is not None:
            checkpoint()
        report.examples += 1
        try:
            diff = run_game(
                engine, game, compare_legal=compare_legal, on_action=report.one, pipeline=True
            )
        except Skipped:
            report.skipped += 1
            continue
        report.count(game if diff is None else diff.game)
        if progress:
            progress(report, "example")
        if diff is None:
            continue
        if diff.kind == "engine-error":
            try:
                engine.restart()
            except EngineFault:
                pass
        if report.first_found_at is None:
            report.first_found_at = report.examples
            if progress:
                progress(report, "found")
        yield diff
