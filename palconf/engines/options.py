"""The one set of engine options, the one engine factory, and the one check of every
numeric option (`Number`: its range is in `--help`), for every command and the plugin.

    --engine-cmd CMD      an engine process speaking protocol v1 on stdin/stdout (split like a
                          shell would; no shell runs)
    --timeout SECONDS     seconds to wait for each reply: more than 0, at most 86400

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
from palconf.engines.processes import cpu_count

if TYPE_CHECKING:
    from palconf.core import Engine

__all__ = [
    "AUTO",
    "DEFAULT_TIMEOUT",
    "PLACEHOLDER",
    "Number",
    "add_engine_options",
    "add_jobs_option",
    "fail_count",
    "job_count",
    "make_engine",
    "numbers_help",
    "percent",
    "process_count",
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


def _show(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class Number:
    """The type of a numeric option: a whole number (or, `real`, a finite number) from `low`
    to `high`; `above_low`: `low` itself excluded. Every numeric option of every command
    (and the pytest plugin's) is one of these, and `help_range` is the range its `--help`
    shows, so no value outside it reaches the code (a huge `--timeout` overflowed `poll`)."""

    def __init__(
        self,
        low: float,
        high: float,
        *,
        real: bool = False,
        above_low: bool = False,
        unit: str = "",
    ) -> None:
        self.low, self.high, self.real, self.above_low, self.unit = low, high, real, above_low, unit
        self.__name__ = "number"  # argparse names the type in its messages

    @property
    def help_range(self) -> str:
        low = f"more than {_show(self.low)}" if self.above_low else _show(self.low)
        return f"{low} to {_show(self.high)}{' ' + self.unit if self.unit else ''}"

    def __call__(self, text: str) -> float | int:
        what = "a number" if self.real else "a whole number"
        refusal = argparse.ArgumentTypeError(
            f"must be {what} from {self.help_range}, not {text[:40]!r}"
            + (" …" if len(text) > 40 else "")
        )
        try:
            value: float | int = float(text) if self.real else int(text.strip(), 10)
        except ValueError:  # (also an integer of more than 4300 digits)
            raise refusal from None
        low_ok = value > self.low if self.above_low else value >= self.low
        if not (math.isfinite(value) and low_ok and value <= self.high):
            raise refusal
        return value


#: `--timeout`: seconds, more than 0 and at most a day (poll's limit is 24 days)
timeout_seconds = Number(0, 86_400, real=True, above_low=True, unit="seconds")
#: `--max-restarts`
restart_count = Number(0, 1000)
#: `--max-fail`
fail_count = Number(1, 1_000_000)


class WorkerCount(Number):
    """A count of workers (`run -j`, `mutants --jobs`, `fuzz --workers`): a whole number, or
    `auto`, one per core this process may run on."""

    @property
    def help_range(self) -> str:
        return f"{super().help_range}, or auto"

    def __call__(self, text: str) -> float | int:
        if text.strip().lower() == "auto":
            return cpu_count()
        return super().__call__(text)


class JobCount(WorkerCount):
    """`palconf run -j`: a whole number, or `auto` kept as `AUTO` (the run measures its
    engine and chooses: palconf.running.auto_jobs)."""

    def __call__(self, text: str) -> float | int:
        if text.strip().lower() == "auto":
            return AUTO
        return super().__call__(text)


#: worker processes or threads (`mutants --jobs`, `fuzz --workers`)
process_count = WorkerCount(1, 256)
#: `palconf run -j`: `AUTO` (0) for `auto`
AUTO = 0
job_count = JobCount(1, 256)
#: a percentage
percent = Number(0, 100, unit="%")
#: how many groups of failures to show (`summary --groups`)
group_count = Number(1, 1000)


def numbers_help(text: str, number: Number) -> str:
    """An option's help with its range: `text [RANGE]` (a `%` doubled: argparse formats it)."""
    return f"{text} [{number.help_range.replace('%', '%%')}]"


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    """`palconf run -j N|auto` (palconf.running.parallel; auto: palconf.running.auto_jobs)."""
    parser.add_argument(
        "-j",
        "--jobs",
        type=job_count,
        default=1,
        metavar="N|auto",
        help=numbers_help(
            "run N engines at once, each taking the next case; the results keep the suite's "
            "order. -j pays when the engine waits rather than computes (it answers in "
            "milliseconds: a network, a disk, a sleep; then N may exceed the CPUs); with a "
            "fast engine (it answers in a fraction of a millisecond) or the in-process "
            "oracle, palconf's own work per case is the limit and -j 1 is fastest. auto: "
            "the first worker measures the engine on the first cases and chooses (1 for a "
            "fast engine, up to 4 per CPU for one that waits), in one line of the output "
            "(default 1)",
            job_count,
        ),
    )


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
        help=numbers_help(TIMEOUT_HELP, timeout_seconds),
    )


def make_engine(
    args: argparse.Namespace, *, mutant: str | None = None, rules: str | None = None
) -> Engine:
    """The engine the options name, not started: a `ProcessEngine` for `--engine-cmd` (or
    for `--engine-cmd-template` with `mutant` put in), else the oracle in-process, of rules
    version `rules` (default: the registry's current one). A command that cannot be split
    is an `EngineCommandError` (the CLI's exit status 2)."""
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
        from palconf.engines.oracle_engine import oracle_of

        return oracle_of(rules)
    from palconf.engines.process import ProcessEngine

    return ProcessEngine(command, timeout=getattr(args, "timeout", DEFAULT_TIMEOUT))
