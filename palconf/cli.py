"""The `palconf` command. Each subcommand lives in its own module with `add_parser(sub)`
registering itself and setting `func`; this file only gathers them.

Exit status: 0 all well; 1 a case failed or errored (or a check found a problem); 2 bad
arguments or broken case files.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any

from . import __version__

#: The modules that provide subcommands, in the order `--help` lists them.
COMMANDS = (
    "palconf.commands.run",
    "palconf.commands.coverage",
    "palconf.commands.lint",
    "palconf.commands.rules",
    "palconf.commands.serve",
    "palconf.commands.smoke",
    "palconf.commands.report",
    "palconf.commands.mutants",
    "palconf.commands.fuzz",
    "palconf.commands.perft",
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
    from . import paths
    from .cases import case_files

    problem = paths.missing_data()
    if problem is not None:
        return f"palconf {__version__} ({problem})"
    from .registry import load as load_registry

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
    except KeyboardInterrupt:
        print("palconf: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
