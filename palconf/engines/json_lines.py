"""The wire format of protocol v1 as the adapter reads it: one strict JSON value per line
(palconf.core.json_read: NaN and Infinity refused, no key twice, nested at most MAX_DEPTH,
nothing after the value), what it sends (strict JSON too: never NaN), and the short texts
its messages show of what an engine wrote (a cut-off `repr` of the bytes, how a process
ended).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
from collections.abc import Sequence
from typing import Any

from palconf.core import json_read

#: How many bytes of an engine's output a message quotes.
SNIPPET = 120


def snippet(data: bytes) -> str:
    text = data[:SNIPPET].decode("utf-8", errors="replace")
    return repr(text) + (" …" if len(data) > SNIPPET else "")


#: What palconf sends: strict JSON (a NaN in a request is a ValueError, never sent).
ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def decode_line(line: bytes) -> Any:
    """One reply line → its value; ValueError (JSONDecodeError, UnicodeDecodeError,
    TooDeep) if it is not exactly one strict JSON value."""
    return json_read.loads(line)


def exit_description(status: int | None, closed: str = "stdout") -> str:
    """How the engine went: its exit status or signal, or (`status` None: it still runs)
    that it closed its `closed` (stdout, or stdin)."""
    if status is None:
        return f"closed its {closed}"
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"


def _spaced(argv: Sequence[str]) -> str:
    """When the first words of `argv`, joined by spaces, name a file: the hint to quote that
    path (a path with a space, given unquoted, is split into words like any command)."""
    for k in range(2, len(argv) + 1):
        path = " ".join(argv[:k])
        if os.path.exists(path) and not os.path.isdir(path):
            fixed = shlex.join([path, *argv[k:]])
            return (
                f"; {path!r} exists: quote a path with spaces inside the command, as in "
                f'--engine-cmd "{fixed}"'
            )
    return ""


def not_found(program: str, argv: Sequence[str] = ()) -> str:
    """Why exec said "no such file": the program, or (a script) the interpreter its `#!`
    line names; with the whole `argv`, the hint for a path with spaces left unquoted."""
    found = program if os.sep in program else shutil.which(program)
    if found and os.path.isfile(found):
        try:
            with open(found, "rb") as f:
                first = f.readline(512)
        except OSError:
            first = b""
        if first.startswith(b"#!"):
            interpreter = first[2:].strip().split(b" ")[0].decode("utf-8", "replace")
            return (
                f"{program!r} exists, but the interpreter its #! line names, "
                f"{interpreter!r}, was not found"
            )
    return f"{program!r} not found{_spaced(argv)}"
