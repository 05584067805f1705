"""The `palconf` command. Each subcommand lives in its own module with `add_parser(sub)`
registering itself and setting `func`; this file only gathers them.

Exit status: 0 all well; 1 a case failed or errored (or a check found a problem); 2 bad
arguments or broken case files.

`entry` is the `palconf` console command (and `python -m palconf.cli`): `main` in a process
that cleans up after its engines. Tests call `main` in-process, which does not.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from palconf import __version__
from palconf.core.errors import ExitCode, UsageError
from palconf.core.text import terminal_safe

#: The modules that provide subcommands, in the order `--help` lists them.
COMMANDS = (
    "palconf.commands.run",
    "palconf.commands.explain",
    "palconf.commands.replay",
    "palconf.commands.coverage",
    "palconf.commands.lint",
    "palconf.commands.rules",
    "palconf.commands.serve",
    "palconf.commands.smoke",
    "palconf.commands.report",
    "palconf.commands.site",
    "palconf.commands.mutants",
    "palconf.commands.fuzz",
    "palconf.commands.perft",
    "palconf.commands.list",
    "palconf.commands.completion",
)


class VersionAction(argparse.Action):
    """`--version`: palconf's version, the current rules version and how many cases the suite
    in use holds (`PALCONF_CASES`, or this palconf's own copy), found when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(version_line())
        parser.exit()


def version_line() -> str:
    from palconf import paths
    from palconf.cases.loader import case_files

    problem = paths.missing_data()
    if problem is not None:
        return f"palconf {__version__} ({problem})"
    from palconf.registry import load as load_registry

    try:
        rules = load_registry().current
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return f"palconf {__version__} (the rules registry cannot be read: {e})"
    count = sum(1 for _ in case_files(paths.CASES)) if paths.CASES.is_dir() else 0
    return f"palconf {__version__} (rules {rules}, {count} cases in {paths.CASES})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="palconf",
        description="Conformance suite and reference oracle for the Pal card game keywords "
        "(Comprehensive Rules 1.00, section 12).",
    )
    parser.add_argument(
        "--version",
        action=VersionAction,
        help="show palconf's version, the rules version and the number of cases, and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as e:  # (issue 25 stand-in; main's one boundary replaces it at merge)
        print(f"palconf: {terminal_safe(e, 2000)}", file=sys.stderr)
        return int(ExitCode.USAGE)
    except KeyboardInterrupt:
        print("palconf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the command's cleanup runs (the engine is
    killed, the results file closed) as for ^C. Not an Exception: nothing catches it."""


def entry() -> int:
    """The `palconf` command: `main`, in a process that leaves no engine process behind.

    On Linux it becomes a child subreaper, so that an engine's descendant orphaned during
    the run (a helper that left the engine's process group, whose parent then exited) is
    re-parented to palconf rather than to init; when the command ends, every process still
    under it (it has waited for all it started itself) is killed and reaped. SIGTERM ends
    the command like ^C, cleanup included, with status 143. (An engine does not outlive
    palconf even after SIGKILL: palconf.engines.processes.die_with_parent.) `main`, which tests
    call in-process, does none of this."""
    from palconf.engines import processes

    processes.become_subreaper()
    me = os.getpid()

    def terminated(signum: int, _frame: object) -> None:
        if os.getpid() != me:  # a forked worker (palconf mutants -j): die as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise _Terminated

    signal.signal(signal.SIGTERM, terminated)
    try:
        return main()
    except _Terminated:
        print("palconf: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one: let the cleanup end
        processes.kill_adopted()


if __name__ == "__main__":
    sys.exit(entry())
