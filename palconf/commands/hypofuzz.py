"""`palconf hypofuzz`: a HypoFuzz campaign on an engine, ended by its first finding.

HypoFuzz (https://hypofuzz.com, the `hypofuzz` extra) fuzzes the differential property of
`palconf fuzz` (palconf.generators.hypofuzz_target), guided by coverage, in `--workers`
processes sharing one Hypothesis example database (`--database`, else
`.hypothesis/examples`). This command runs HypoFuzz's own workers and watches them: as soon
as one has found a failing game (or `--max-seconds` have passed, or ^C), every worker is
stopped, and then the failure, shrunk and kept in the database, is replayed once and
printed as `palconf fuzz` prints a difference.

Why not `hypothesis fuzz` itself (hypofuzz 25.11.1, the only release): it checks its
workers once a minute, its workers never stop by themselves, it shuts down the state they
share while they still use it (a worker prints a multiprocessing traceback: an upstream race,
Zac-HD/hypofuzz#246), and its dashboard keeps the command alive after the finding. Here the
workers are stopped first, then what they shared. The dashboard is HypoFuzz's own, on the
same database: `hypothesis fuzz --dashboard-only -- --pyargs palconf.generators.hypofuzz_target`.

Exit status: 0 nothing found before `--max-seconds`; 1 a difference found (printed); 2 bad
arguments, the `hypofuzz` extra not installed, or an engine that does not start.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
import time
from typing import Any

from palconf.core.errors import UsageError
from palconf.engines.options import Number, add_engine_options, numbers_help, process_count

#: The target, as pytest collects it from an installed palconf (no checkout needed).
TARGET = "palconf.generators.hypofuzz_target"
PYTEST_ARGS = ("--pyargs", TARGET, "-p", "no:cacheprovider", "-q")
SECONDS = Number(1, 10_000_000)
#: How often the workers' state is looked at (HypoFuzz's own hub: once a minute).
WATCH = 0.2
#: How long a worker gets to end after SIGTERM before it is killed.
GRACE = 5.0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "hypofuzz",
        help="a long coverage-guided HypoFuzz campaign, ended by its first finding",
        description="Fuzz the engine against the oracle with HypoFuzz (needs the hypofuzz "
        "extra: pip install 'palconf[hypofuzz]') until a difference is found, then stop "
        "the workers and print it. Exit 0: nothing found within --max-seconds; 1: a "
        "difference; 2: bad arguments, no hypofuzz, or an engine that cannot be started.",
    )
    add_engine_options(p, required=True)
    p.add_argument(
        "--workers",
        "-n",
        type=process_count,
        default=1,
        metavar="N|auto",
        help=numbers_help(
            "HypoFuzz worker processes, each with its own engine (default 1; auto: one per core)",
            process_count,
        ),
    )
    p.add_argument(
        "--database",
        metavar="DIR|redis://HOST:PORT/N",
        help="the Hypothesis example database the workers share (and other machines, with "
        "Redis); default .hypothesis/examples. A failure kept there is found again at once",
    )
    p.add_argument(
        "--max-seconds",
        type=SECONDS,
        default=None,
        metavar="S",
        help=numbers_help("stop after S seconds with nothing found (default: no limit)", SECONDS),
    )
    p.set_defaults(func=main)


def campaign_env(args: argparse.Namespace) -> dict[str, str]:
    """The environment the workers (and the replay) read: the engine, its timeout, the
    `fuzz` profile (HypoFuzz skips the derandomized `ci` one), the database."""
    env = {
        "PALCONF_FUZZ_ENGINE": args.engine_cmd,
        "PALCONF_FUZZ_TIMEOUT": repr(float(args.timeout)),
        "HYPOTHESIS_PROFILE": "fuzz",
    }
    if args.database is not None:
        env["PALCONF_HYPOTHESIS_DB"] = args.database
    return env


def check_engine(args: argparse.Namespace) -> None:
    """Start the engine once and say `bye`: one clear error for one that cannot start."""
    from palconf.core.engine import EngineFault
    from palconf.core.text import terminal_safe
    from palconf.engines.options import make_engine

    engine = make_engine(args)
    try:
        engine.start()
    except EngineFault as e:
        raise UsageError(f"cannot start the engine: {terminal_safe(e.message, 2000)}") from None
    finally:
        engine.close()


def main(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("hypofuzz") is None:
        raise UsageError(
            "HypoFuzz is not installed: pip install 'palconf[hypofuzz]' (HypoFuzz with the "
            "Hypothesis it works with)"
        )
    if args.database is not None and not args.database.strip():
        raise UsageError("--database: empty (a folder, or redis://HOST:PORT/N)")
    os.environ.update(campaign_env(args))
    from palconf.generators.profiles import DatabaseError, load_profile

    try:
        load_profile()  # the database named is checked here, before any worker starts
    except (DatabaseError, ValueError) as e:
        raise UsageError(str(e)) from None
    check_engine(args)
    print(
        f"palconf hypofuzz: {args.workers} worker(s) fuzzing {TARGET} on "
        f"{args.engine_cmd}; stops at the first difference"
        + (f" or after {args.max_seconds:g} s" if args.max_seconds else "")
        + " (^C stops it)",
        flush=True,
    )
    target = collect()
    started = time.monotonic()
    found = run_workers(args.workers, {target.nodeid}, args.max_seconds)
    took = time.monotonic() - started
    if not found:
        print(f"palconf hypofuzz: no difference in {args.max_seconds:g} s (--max-seconds)")
        return 0
    print(f"palconf hypofuzz: a worker found a failing game after {took:.0f} s", flush=True)
    return replay(target.wrapped_test)


def collect() -> Any:
    """The target as HypoFuzz's workers collect it (a `hypofuzz.hypofuzz.FuzzTarget`: the
    module as pytest imports it, and so the database key its workers save under)."""
    from hypofuzz.collection import collect_tests

    collected = collect_tests(PYTEST_ARGS)
    if len(collected.fuzz_targets) != 1:
        raise UsageError(f"HypoFuzz collected no test from {TARGET}")
    return collected.fuzz_targets[0]


def run_workers(workers: int, nodeids: set[str], max_seconds: float | None) -> bool:
    """HypoFuzz's workers on the target until one has nothing left to fuzz (it found a
    failure: HypoFuzz fuzzes a test no more once it has one) or `max_seconds`; then every
    worker is stopped before the state they share is shut down. True: a finding."""
    from multiprocessing import Process
    from multiprocessing.managers import SyncManager

    from hypofuzz import detection

    detection._in_hypofuzz_run = True
    end = None if max_seconds is None else time.monotonic() + max_seconds
    processes: list[Any] = []
    manager = SyncManager()
    manager.start(_quiet)  # ^C at a terminal reaches every process: this one stops the rest
    with manager:
        states = []
        for _ in range(workers):
            # the shared state HypoFuzz's hub (hypofuzz.hypofuzz.FuzzWorkerHub) gives each
            state: Any = manager.dict()
            state["hub_state"] = manager.dict()
            state["worker_state"] = manager.dict()
            state["worker_state"]["nodeids"] = manager.dict()
            state["worker_state"]["current_lifetime"] = 0.0
            state["worker_state"]["expected_lifetime"] = 0.0
            state["worker_state"]["valid_nodeids"] = manager.list()
            states.append(state)
        try:
            for _ in range(workers):
                process = Process(
                    target=_worker,
                    kwargs={"pytest_args": PYTEST_ARGS, "shared_state": states[len(processes)]},
                    daemon=True,
                )
                processes.append(process)
            for state in states:
                state["hub_state"]["nodeids"] = nodeids
            for process in processes:
                process.start()
            while True:
                time.sleep(WATCH)
                if any(_done(state["worker_state"]) for state in states):
                    return True
                if end is not None and time.monotonic() >= end:
                    return False
                dead = [p for p in processes if not p.is_alive()]
                if dead:
                    raise UsageError(
                        f"a HypoFuzz worker ended by itself (exit status {dead[0].exitcode})"
                    )
        finally:
            _stop(processes)


def _quiet() -> None:
    """In a worker or the state's manager: ^C is for palconf, which stops them (else each
    prints its KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _worker(**kwargs: Any) -> None:
    """A HypoFuzz worker (`hypofuzz.hypofuzz._start_worker`, as its hub starts them)."""
    _quiet()
    from hypofuzz.hypofuzz import _start_worker

    _start_worker(**kwargs)


def _done(worker: Any) -> bool:
    """Has this worker reported, and has it no test left to fuzz (a failure found)?"""
    return bool(worker["current_lifetime"]) and not list(worker["valid_nodeids"])


def _stop(processes: list[Any]) -> None:
    """SIGTERM each worker (its engine dies with it), then SIGKILL what is left."""
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + GRACE
    for process in processes:
        if process.pid is None:
            continue
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()


def replay(test: Any) -> int:
    """The failure kept in the database, replayed once (no shrinking: HypoFuzz shrank it)
    and printed as `palconf fuzz` prints a difference."""
    from hypothesis import Phase, Verbosity, settings

    test._hypothesis_internal_use_settings = settings(
        test._hypothesis_internal_use_settings,
        phases=[Phase.explicit, Phase.reuse],
        verbosity=Verbosity.quiet,
        print_blob=False,
    )
    try:
        test()
    except AssertionError as e:
        print(str(e).split("\nFalsifying example")[0].rstrip(), flush=True)
        return 1
    except BaseException as e:  # nothing kept to replay (pytest's Skipped, Hypothesis's)
        if type(e).__name__ not in ("SkipTest", "Skipped"):
            raise
    print(
        "palconf hypofuzz: the failing game HypoFuzz found is not in the database, or does "
        "not fail again (a flaky engine?)",
        file=sys.stderr,
    )
    return 1
