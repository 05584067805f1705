"""The one set of engine options and the one engine factory, for every command and the plugin.

    --engine-cmd CMD      an engine process speaking protocol v1 on stdin/stdout (split like a
                          shell would; no shell runs)
    --timeout SECONDS     seconds to wait for each reply: a positive, finite number

`palconf run` falls back to the oracle in-process when `--engine-cmd` is not given; `smoke`,
`fuzz` and `perft` require it; `palconf mutants` takes `--engine-cmd-template CMD` instead,
with `{mutant}` where a mutant's name goes. The pytest plugin spells the same options
`--palconf-engine-cmd` and `--palconf-timeout` (and checks them with `timeout_seconds` once
`--palconf` is given). `make_engine(args)` turns any of them into an engine.

Light to import (the pytest plugin reads it for every pytest run): the adapter and the oracle
are imported only when an engine is made.
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

from palconf.core.engine import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from palconf.core import Engine

__all__ = [
    "DEFAULT_TIMEOUT",
    "PLACEHOLDER",
    "add_engine_options",
    "make_engine",
    "restart_count",
    "timeout_seconds",
]

#: Seconds to wait for each reply of an engine process.
#: Where `--engine-cmd-template` puts the mutant's name.
PLACEHOLDER = "{mutant}"

COMMAND_HELP = (
    'an engine process speaking protocol v1 on stdin/stdout, e.g. "palconf serve" '
    'or "java -jar my-engine.jar" (split like a shell would, but no shell runs)'
)
TIMEOUT_HELP = (
    f"seconds to wait for each reply of the engine (default {DEFAULT_TIMEOUT:g}); a "
    f"case with no reply in time is `timeout`"
)


def timeout_seconds(text: str) -> float:
    """The type of `--timeout`: a positive, finite number of seconds (not 0, -1, nan, inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of seconds, not {text!r}"
        ) from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(
            f"must be a positive, finite number of seconds, not {text}"
        )
    return value


def restart_count(text: str) -> int:
    """The type of `--max-restarts`: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def add_engine_options(
    parser: argparse.ArgumentParser,
    *,
    required: bool,
    command_help: str | None = None,
    template: bool = False,
) -> None:
    """`--engine-cmd CMD` (or, with `template`, `--engine-cmd-template CMD`) and `--timeout`.
    Without `required`, no command means the oracle in-process (or, for a template, each
    mutant in-process)."""
    if template:
        parser.add_argument(
            "--engine-cmd-template",
            metavar="CMD",
            required=required,
            help=command_help
            or f"run each mutant as an engine process: CMD with "
            f"{PLACEHOLDER} replaced by the mutant's name",
        )
    else:
        default = "" if required else "; default: the oracle in-process"
        parser.add_argument(
            "--engine-cmd",
            metavar="CMD",
            required=required,
            help=(command_help or COMMAND_HELP) + default,
        )
    parser.add_argument(
        "--timeout",
        type=timeout_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=TIMEOUT_HELP,
    )


def make_engine(args: argparse.Namespace, *, mutant: str | None = None) -> Engine:
    """The engine the options name, not started: a `ProcessEngine` for `--engine-cmd` (or
    for `--engine-cmd-template` with `mutant` put in), else the oracle in-process. A command
    that cannot be split is an `EngineCommandError` (the CLI's exit status 2)."""
    command: str | None = getattr(args, "engine_cmd", None)
    template: str | None = getattr(args, "engine_cmd_template", None)
    if template is not None:
        if mutant is None:
            raise ValueError("--engine-cmd-template needs the mutant's name")
        command = template.replace(PLACEHOLDER, mutant)
    elif mutant is not None:
        raise ValueError(
            "a mutant's engine needs --engine-cmd-template (in-process: "
            "palconf.mutants.sweep.in_process)"
        )
    if command is None:
        from palconf.engines.oracle_engine import OracleEngine

        return OracleEngine()
    from palconf.engines.process import ProcessEngine

    return ProcessEngine(command, timeout=getattr(args, "timeout", DEFAULT_TIMEOUT))
