"""`palconf fuzz`: generated boards and actions on an engine and the oracle, in lockstep.

After setup and after every action the two are compared: the accept/refuse verdict and the
refusal reason, the whole OBSERVED state, and the LEGAL set when the engine offers `legal`
(generators.differential). On a difference Hypothesis shrinks the game; the minimal board
and actions are printed with both sides' answers; with `--export DIR` the difference is
written as a case file whose expectations are the oracle's answers, and that case is run at
once on both (it must pass on the oracle and fail on the engine).

Exit status: 0 no difference; 1 a difference was found; 2 bad arguments, or an engine that
cannot be started or could not be compared at all (it refused every board as unsupported).
The same `--seed` gives the same games (no example database is read unless `--database`);
with `--workers`, which worker's difference comes first follows their speed.
`--workers N` runs N worker processes, each with its own engine (generators.parallel);
`--database redis://HOST:PORT/N` shares the example database between machines.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from palconf.commands import add_rules_option
from palconf.core.errors import UsageError
from palconf.engines.options import (
    Number,
    add_engine_options,
    numbers_help,
    percent,
    process_count,
)

EXAMPLES = Number(1, 10_000_000)
SEED = Number(0, 2**64 - 1)
ACTIONS = Number(0, 1000)
DIFFERENCES = Number(1, 1000)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "fuzz",
        help="compare an engine with the oracle on generated games",
        description="Run generated boards and actions on the engine and the oracle in "
        "lockstep; on a difference, shrink it, print it, and optionally export "
        "it as a case. Exit 0: no difference; 1: a difference; 2: bad "
        "arguments or an engine that cannot be compared.",
    )
    add_engine_options(
        p,
        required=True,
        command_help="the engine's command line (run without a shell), e.g. "
        "'python my_engine.py'; 'palconf serve' fuzzes the oracle "
        "itself",
    )
    add_rules_option(p)
    p.add_argument(
        "--examples",
        type=EXAMPLES,
        default=200,
        metavar="N",
        help=numbers_help("how many generated games (default 200)", EXAMPLES),
    )
    p.add_argument(
        "--seed",
        type=SEED,
        default=0,
        metavar="S",
        help=numbers_help("the random seed: the same seed gives the same run (default 0)", SEED),
    )
    p.add_argument(
        "--export",
        type=Path,
        metavar="DIR",
        help="write the minimal difference as a case file into DIR/<group>/ (DIR a cases "
        "folder, such as the checkout's cases/, where it passes `palconf lint`; atomically, "
        "never through a link, never over an earlier export unless --overwrite)",
    )
    p.add_argument(
        "--transcript",
        type=Path,
        metavar="FILE",
        help="write the minimal difference, played on the engine, as a transcript of the "
        "exact JSON-lines exchange (palconf replay FILE)",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="with --export: replace an earlier export of the same case id",
    )
    p.add_argument(
        "--max-actions",
        type=ACTIONS,
        default=30,
        metavar="M",
        help=numbers_help("actions per game: between M/2 and M (default 30)", ACTIONS),
    )
    p.add_argument(
        "--database",
        metavar="DIR|redis://HOST:PORT/N",
        help="a Hypothesis example database to replay and save examples: a folder "
        "(DirectoryBasedExampleDatabase), or a Redis server shared by several machines "
        "(RedisExampleDatabase; needs `pip install palconf[redis]`); replaying makes runs "
        "differ",
    )
    p.add_argument(
        "--workers",
        type=process_count,
        default=1,
        metavar="N|auto",
        help=numbers_help(
            "worker processes, each with its own engine, seed and share of the examples "
            "(default 1; auto: one per core)",
            process_count,
        ),
    )
    p.add_argument(
        "--max-differences",
        type=DIFFERENCES,
        default=1,
        metavar="N",
        help=numbers_help(
            "keep going after a difference: collect up to N distinct ones, each shrunk "
            "(default 1: stop at the first)",
            DIFFERENCES,
        ),
    )
    p.add_argument(
        "--keep-going",
        dest="max_differences",
        action="store_const",
        const=20,
        help="keep going after a difference (--max-differences 20)",
    )
    p.add_argument(
        "--setup-share",
        type=percent,
        default=10,
        metavar="PERCENT",
        help=numbers_help(
            "percentage of steps that send a STATE at an edge of P-state with `setup` (default 10)",
            percent,
        ),
    )
    p.add_argument(
        "--probe-share",
        type=percent,
        default=5,
        metavar="PERCENT",
        help=numbers_help(
            "percentage of steps that send a batch of actions aimed at the REASON table, "
            "most breaking several rows at once (default 5)",
            percent,
        ),
    )
    p.add_argument(
        "--no-directed",
        dest="directed",
        action="store_false",
        help="skip the directed sweep the campaign starts with (every STATE edge, pairs "
        "of REASON rows: generators/directed.py)",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="print what the games hit (each REASON given, pairs of REASON rows, STATE "
        "edges sent) before the finding",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    p.set_defaults(func=main)


def check_args(args: argparse.Namespace) -> str | None:
    if args.export is not None and args.export.exists() and not args.export.is_dir():
        return f"--export {args.export}: not a folder"
    if args.database is not None and not args.database.strip():
        return "--database: empty (a folder, or redis://HOST:PORT/N)"
    return None


def main(args: argparse.Namespace) -> int:
    problem = check_args(args)
    if problem:
        raise UsageError(f"{problem}")
    from palconf.commands.fuzz_campaign import run

    return run(args)
