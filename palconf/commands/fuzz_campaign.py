"""`palconf fuzz`, the campaign itself: the engine started, the games played and compared,
each difference shown, exported and verified (the options and their checks are in
`palconf.commands.fuzz`, which imports this only when a campaign runs)."""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path
from typing import IO

import tomli_w

from palconf.commands import chosen_rules, registry_or_exit
from palconf.core import Engine, EngineFault, Outcome, terminal_safe
from palconf.core.errors import UsageError
from palconf.core.safe_write import UnsafeWrite
from palconf.core.text import stderr_lines
from palconf.engines.options import make_engine
from palconf.engines.oracle_engine import oracle_of
from palconf.generators._edges import EDGE_NAMES
from palconf.generators.differential import REASONS, Difference, FuzzReport, format_difference, fuzz
from palconf.generators.export import ExportError, case_from_difference, folder_of, write_case
from palconf.generators.formatting import format_hits
from palconf.generators.parallel import WorkerFailed, fuzz_parallel
from palconf.generators.profiles import open_database

PROGRESS_EVERY = 2.0  # seconds between progress lines


class Progress:
    """Progress lines on stderr, at most one every PROGRESS_EVERY seconds (plus events)."""

    def __init__(
        self, total: int, out: IO[str], enabled: bool = True, every: float | None = None
    ) -> None:
        self.total, self.out, self.enabled = total, out, enabled
        self.every = PROGRESS_EVERY if every is None else every
        self.last = time.monotonic()
        self.started = self.last

    def __call__(self, report: FuzzReport, event: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if event == "found":
            print(
                f"fuzz: difference found at example {report.examples}; shrinking it …",
                file=self.out,
                flush=True,
            )
            self.last = now
            return
        if now - self.last < self.every:
            return
        self.last = now
        rate = report.actions / max(now - self.started, 1e-9)
        if event == "shrinking":
            what = f"shrinking: {report.examples} example(s)"
        else:
            what = f"{report.examples} example(s) of {self.total}"
        found = f", {len(report.differences)} difference(s)" if report.differences else ""
        print(
            f"fuzz: {what}, {report.actions} action(s) compared ({rate:.0f}/s){found}",
            file=self.out,
            flush=True,
        )


def verify_export(path: Path, engine: Engine, version: str | None = None) -> list[str]:
    """Run the exported case on the oracle (of rules `version`; default: the current one)
    and on the engine; say what happened."""
    from palconf.cases.loader import load_case
    from palconf.running.runner import run_case

    case, errors = load_case(path)
    if case is None:
        return [f"the exported case does not load: {e}" for e in errors]
    oracle = oracle_of(version)
    oracle.start()
    on_oracle = run_case(oracle, case)
    try:
        engine.restart()
        on_engine = run_case(engine, case)
    except EngineFault as e:
        return [
            f"on the oracle: {on_oracle.outcome}",
            f"on the engine: error ({terminal_safe(e.message, 300)})",
        ]
    lines = [
        f"on the oracle: {on_oracle.outcome}"
        + (
            ""
            if on_oracle.outcome == Outcome.PASS
            else f" ({on_oracle.message}) — a bug of the exporter, please report it"
        ),
        f"on the engine: {on_engine.outcome}"
        + (f" ({terminal_safe(on_engine.message, 160)})" if on_engine.message else ""),
    ]
    if on_engine.outcome == Outcome.PASS:
        lines.append(
            "the case passes on the engine too: the engine's LEGAL list disagrees "
            "with what it accepts; review the difference above"
        )
    return lines


def print_stderr_tail(stderr: str) -> None:
    """The last lines of an engine's stderr, after a message that it broke."""
    for line in stderr_lines(stderr):
        print(line, file=sys.stderr)


def main_parallel(args: argparse.Namespace) -> int:
    """`--workers N` above 1: N processes, each with its own engine (generators.parallel);
    the parent starts one more only to write a transcript or check an exported case. The
    rules version is --rules, else the current one (the workers' engines are started in
    the workers: their hello is not read here)."""
    registry = registry_or_exit()
    args.rules_version = chosen_rules(registry, args.rules)
    print(
        f"palconf fuzz: {args.workers} worker(s), each with its own engine "
        f"({terminal_safe(args.engine_cmd, 200)}); rules {args.rules_version}; "
        f"{args.examples} game(s) in all, seed "
        f"{args.seed}, {args.max_actions // 2} to {args.max_actions} action(s) each"
    )
    progress = Progress(args.examples, sys.stderr, enabled=not args.quiet)
    spec = args.database
    try:
        report = fuzz_parallel(
            functools.partial(make_engine, args, rules=args.rules_version),
            workers=args.workers,
            rules=registry.oracle(args.rules_version),
            examples=args.examples,
            seed=args.seed,
            directed=args.directed,
            max_differences=args.max_differences,
            database_factory=None if spec is None else functools.partial(open_database, spec),
            progress=progress,
            max_actions=args.max_actions,
            setup_share=args.setup_share,
            probe_share=args.probe_share,
        )
    except WorkerFailed as e:
        print(
            f"palconf fuzz: worker {e.worker}: {terminal_safe(e.message, 2000)}; the other "
            f"workers were stopped",
            file=sys.stderr,
        )
        print_stderr_tail(e.stderr)
        return 2
    engine = make_engine(args, rules=args.rules_version)
    try:
        if report.differences and (args.export is not None or args.transcript is not None):
            try:
                engine.start()
            except EngineFault as e:
                print(
                    f"palconf fuzz: cannot start the engine to write the difference: "
                    f"{terminal_safe(e.message, 2000)}",
                    file=sys.stderr,
                )
                return 2
        return finish(args, engine, report)
    except EngineFault as e:
        raise UsageError(f"the engine failed: {terminal_safe(e.message, 2000)}") from None
    finally:
        engine.close()


def finish(args: argparse.Namespace, engine: Engine, report: FuzzReport) -> int:
    """The end of a campaign: the statistics first (with --stats), the finding last (the
    difference, its transcript and exported case), so the finding is what stays on screen."""
    if args.stats:
        print(format_hits(report.hits, REASONS, EDGE_NAMES))
        print()
    compared = report.examples - report.skipped
    rate = report.actions / report.seconds if report.seconds else 0.0
    if report.difference is None:
        if compared == 0:
            print(
                f"palconf fuzz: nothing compared: the engine answered `unsupported` to all "
                f"{report.skipped} board(s)",
                file=sys.stderr,
            )
            return 2
        print(
            f"palconf fuzz: no difference in {compared} game(s), {report.actions} action(s) "
            f"compared in {report.seconds:.1f} s ({rate:.0f}/s)"
            + (f"; {report.skipped} board(s) skipped as unsupported" if report.skipped else "")
        )
        print(
            f"palconf fuzz: to look further, raise --examples (this run: {args.examples}), "
            f"or try another --seed"
        )
        return 0
    for k, diff in enumerate(report.differences, start=1):
        if len(report.differences) > 1:
            print(f"\n=== difference {k} of {len(report.differences)}")
        _show_difference(args, engine, report, diff, k)  # a file it cannot write: said
    if len(report.differences) > 1:
        print(
            f"\npalconf fuzz: {len(report.differences)} distinct difference(s) in "
            f"{report.examples} game(s)"
        )
    return 1


def _numbered(path: Path, k: int) -> Path:
    """`path` for the first difference, `stem-k.suffix` for the k-th."""
    return path if k == 1 else path.with_name(f"{path.stem}-{k}{path.suffix}")


def _show_difference(
    args: argparse.Namespace, engine: Engine, report: FuzzReport, diff: Difference, k: int
) -> bool:
    """Print the k-th difference, write its transcript and case if asked; False when one of
    those could not be written."""
    board = tomli_w.dumps({"setup": diff.game.state})
    print()
    print(format_difference(diff, board=board))
    print()
    if report.flaky:
        print(
            "palconf fuzz: the difference did not repeat when the game was replayed (a "
            "nondeterministic engine?); shown is the last one seen"
        )
    if k == 1:
        print(
            f"palconf fuzz: difference found at example {report.first_found_at} of "
            f"{args.examples} (seed {args.seed}); shrunk to {len(diff.game.steps)} action(s)"
        )
    if args.transcript is not None:
        from palconf.explain.transcript import record_game

        path = _numbered(args.transcript, k)
        note = f"palconf fuzz --seed {args.seed}: {diff.kind} after step {diff.step}"
        transcript = record_game(engine, diff.game.state, diff.game.actions, note=note)
        try:
            transcript.write(path)
        except UnsafeWrite as e:
            print(f"palconf fuzz: {e}", file=sys.stderr)
            return False
        print(
            f"palconf fuzz: wrote the engine's exchange to {path}; replay it "
            f"with: palconf replay {path} [--engine-cmd CMD], or pipe "
            f"`palconf replay {path} --requests` into the engine"
        )
    if args.export is not None:
        registry = registry_or_exit()
        try:
            version = getattr(args, "rules_version", None)
            case = case_from_difference(diff, seed=args.seed, registry=registry, version=version)
            folder = args.export / folder_of(case["clauses"], case["rules"], registry)
            written = write_case(case, folder, overwrite=args.overwrite)
        except (ExportError, OSError) as e:
            print(f"palconf fuzz: cannot export the case: {e}", file=sys.stderr)
            return False
        print(f"palconf fuzz: exported {written}")
        for line in verify_export(written, engine, getattr(args, "rules_version", None)):
            print(f"  {line}")
    return True


def run(args: argparse.Namespace) -> int:
    """The campaign, once the arguments are checked (`main`)."""
    database = None
    if args.database is not None:
        database = open_database(args.database)  # DatabaseError: a UsageError
    if args.workers > 1:
        return main_parallel(args)
    registry = registry_or_exit()
    asked = chosen_rules(registry, args.rules) if args.rules else None
    try:
        engine = make_engine(args, rules=asked or registry.current)
        info = engine.start()
    except EngineFault as e:
        print(
            f"palconf fuzz: cannot start the engine: {terminal_safe(e.message, 2000)}",
            file=sys.stderr,
        )
        print_stderr_tail(e.stderr)
        return 2
    try:
        args.rules_version = chosen_rules(registry, asked, info.rules)
    except UsageError:
        engine.close()
        raise
    legal = "legal" in info.commands
    print(
        f"palconf fuzz: engine {terminal_safe(info.name, 200)} "
        f"{terminal_safe(info.version, 100)}; rules {args.rules_version} (the oracle's "
        f"{registry.oracle(args.rules_version).__name__}); "
        f"{args.examples} game(s), seed {args.seed}, {args.max_actions // 2} to "
        f"{args.max_actions} action(s) each; comparing verdicts, reasons, OBSERVED"
        + (", LEGAL" if legal else " (the engine offers no `legal`)")
    )
    progress = Progress(args.examples, sys.stderr, enabled=not args.quiet)
    try:
        report = fuzz(
            engine,
            examples=args.examples,
            seed=args.seed,
            max_actions=args.max_actions,
            rules=registry.oracle(args.rules_version),
            database=database,
            progress=progress,
            setup_share=args.setup_share,
            probe_share=args.probe_share,
            max_differences=args.max_differences,
            directed=args.directed,
        )
        return finish(args, engine, report)
    except EngineFault as e:  # a restart after a crash failed: the run cannot go on
        raise UsageError(
            f"the engine cannot be restarted: {terminal_safe(e.message, 2000)}"
        ) from None
    finally:
        engine.close()
