"""The wire format of protocol v1 as the adapter reads it: one strict JSON value per line
(palconf.core.json_read: NaN and Infinity refused, no key twice, nested at most MAX_DEPTH,
nothing after the value), what it sends (strict JSON too: never NaN), and the short texts
its messages show of what an engine wrote (a cut-off `repr` of the bytes, how a process
ended).
"""

from __future__ import annotations

import json
import signal
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


def exit_description(status: int | None) -> str:
    if status is None:
        return "closed its stdout"
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"
