"""The wire format of protocol v1 as the adapter reads it: one strict JSON value per line
(NaN and Infinity refused, nothing after the value), and the short texts its messages show
of what an engine wrote (a cut-off `repr` of the bytes, how a process ended).
"""

from __future__ import annotations

import json
import signal
from typing import Any

#: How many bytes of an engine's output a message quotes.
SNIPPET = 120


def snippet(data: bytes) -> str:
    text = data[:SNIPPET].decode("utf-8", errors="replace")
    return repr(text) + (" …" if len(data) > SNIPPET else "")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: Strict JSON: NaN and Infinity, which Python's json would accept, are refused.
DECODER = json.JSONDecoder(parse_constant=_reject_constant)
ENCODER = json.JSONEncoder(separators=(",", ":"))


def decode_line(line: bytes) -> Any:
    """One reply line → its value; ValueError (JSONDecodeError, UnicodeDecodeError) if it is
    not exactly one JSON value. The common case costs one `raw_decode`."""
    text = line.decode("utf-8")
    try:
        value, end = DECODER.raw_decode(text)
    except ValueError:
        return DECODER.decode(text)  # leading blanks are fine; else the precise error
    if end != len(text) and text[end:].strip():
        return DECODER.decode(text)  # raises "Extra data" with its column
    return value


def exit_description(status: int | None) -> str:
    if status is None:
        return "closed its stdout"
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"
