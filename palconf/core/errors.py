"""palconf's own errors and its exit codes: one root, one usage branch, one enum.

Every error palconf raises on purpose is a `PalconfError`. A `UsageError` is one the user
can act on (bad arguments, a broken case or expectations file, a results file that cannot
be resumed, an engine command that does not start, an output that cannot be written): the
command prints its one-line message and exits `ExitCode.USAGE`. That is done once, at the
boundary (`palconf.cli.main`, the pytest plugin, the CI action), never at each site.
Anything else that escapes is palconf's own failure, `ExitCode.INTERNAL`: never "the engine
failed" (docs/INTERPRETING.md, "Exit codes").
"""

from __future__ import annotations

import traceback
from enum import IntEnum
from pathlib import Path

from palconf.core.text import terminal_safe


class ExitCode(IntEnum):
    """What a `palconf` command's exit status means (README, docs/INTERPRETING.md)."""

    #: every case passed (or was expected to fail and did); a check found nothing
    OK = 0
    #: the engine was tested and something failed or errored; a check found a problem
    FAILED = 1
    #: the job did not run as asked: bad arguments, broken case files, an engine that does
    #: not start, an output that cannot be written
    USAGE = 2
    #: palconf itself failed (a bug in palconf, not in the engine): report it
    INTERNAL = 3
    #: stopped by ^C (SIGINT)
    INTERRUPTED = 130
    #: the reader of palconf's output went away (`palconf list | head`): nothing was judged
    BROKEN_PIPE = 141
    #: stopped by SIGTERM
    TERMINATED = 143


class PalconfError(Exception):
    """The root of every error palconf raises on purpose."""

    exit_code: ExitCode = ExitCode.INTERNAL


class UsageError(PalconfError):
    """An error the user can act on: its message is printed as it is, and the command exits
    `ExitCode.USAGE` (2)."""

    exit_code = ExitCode.USAGE


def internal_error(error: BaseException, command: str, debug: bool) -> str:
    """The one line (two without `--debug`) that palconf's own crash gets: what broke and
    where, that it is palconf's bug and not a finding about the engine, and how to report."""
    where = ""
    tb = traceback.extract_tb(error.__traceback__)
    if tb:
        last = tb[-1]
        where = f" at {Path(last.filename).name}:{last.lineno}"
    line = (
        f"palconf {command}: internal error (a bug in palconf, not a finding about the engine): "
        f"{type(error).__name__}: {terminal_safe(error, 500)}{where}"
    )
    if not debug:
        line += (
            "\npalconf: please report it with the command line and `palconf --version` "
            '(README, "Reporting a bug"); --debug or PALCONF_DEBUG=1 shows the traceback'
        )
    return line
