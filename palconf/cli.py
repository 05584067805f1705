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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="palconf",
        description="Conformance suite and reference oracle for the Pal card game keywords "
        "(Comprehensive Rules 1.00, section 12).",
    )
    parser.add_argument("--version", action="version", version=f"palconf {__version__}")
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
