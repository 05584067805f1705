"""Differential fuzzing: an engine and the oracle in lockstep on generated games.

`fuzz()` drives Hypothesis over generated games (`generators._games`), each played by the
oracle and, step by step as it is drawn, by the engine (`generators.lockstep`: what is
compared and in which order); it raises on the first difference so that Hypothesis shrinks
it, then `generators.shrinking.simplify` makes it smaller still, and returns the minimal
one. `generators.formatting` prints a difference, `generators.export` writes it as a case.

This module is the entry point: it re-exports what a caller of the fuzzer needs.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hyp_seed
from hypothesis.database import ExampleDatabase
from hypothesis.errors import Flaky

from oracle import Rules
from oracle.model import KEYWORD_IDS
from palconf.core import Engine, EngineFault

from ._games import Game, _games
from .formatting import format_difference, show
from .lockstep import (
    KINDS,
    Answer,
    Difference,
    DifferenceFound,
    Lockstep,
    Skipped,
    diff_observed,
    run_game,
)
from .shrinking import relabel, simplify

__all__ = [
    "KINDS",
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
    "simplify",
]


@dataclass
class FuzzReport:
    examples: int = 0
    skipped: int = 0
    actions: int = 0
    seconds: float = 0.0
    difference: Difference | None = None
    flaky: bool = False
    first_found_at: int | None = None  # the example where a difference was first seen


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
) -> FuzzReport:
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
        )
    )
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
        report.difference = simplify(
            engine, report.difference, rules=rules, compare_legal=compare_legal
        )
    report.seconds = time.perf_counter() - started
    return report
