"""An engine's command line: split as a POSIX shell would (no shell runs), and the error for
one that cannot be run at all (a `UsageError`: exit 2)."""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from palconf.core.errors import UsageError

__all__ = ["EngineCommandError", "split_command"]


class EngineCommandError(UsageError):
    """The engine command cannot be run at all (empty, bad quoting, not found, not executable).
    The CLI treats it as a bad argument (exit status 2)."""


def split_command(command: str | Sequence[str]) -> list[str]:
    """The argument list of an engine command, split like a POSIX shell would (no shell runs:
    no pipes, no variables, no globbing)."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise EngineCommandError(f"cannot parse the engine command {command!r}: {e}") from None
    else:
        argv = [str(a) for a in command]
    if not argv:
        raise EngineCommandError("the engine command is empty")
    return argv
