"""Untrusted text (an engine's name, message or stderr; a results or case file) for a terminal.

One rule for every command: a character that is not printable (control characters such as
ESC, NUL, BEL and DEL, lone surrogates, format characters, separators other than the
space) is shown as its escape (`\\x1b`, `\\ud800`), never sent as such. Newline and tab
stay when `keep_newlines` is set (multi-line messages), else they are escaped too. `limit`
bounds the length, cutting with "…". JSON for a terminal (`terminal_json`) is the same rule
with JSON's escapes (`\\u202e`), so the document still reads back the same.

Text shown as a block (an engine's message or stderr, rules text: `terminal_block`) keeps
its line breaks and tabs, each further line indented under the first; a carriage return, which
would let a line overwrite the one before it, is escaped like any control character.
`stderr_lines` is the one way every command shows an engine's stderr: its last lines, each
behind `| `; `stderr_tail` the same lines under a message (an engine that did not start).
"""

from __future__ import annotations

import json
from typing import Any

_KEPT = "\n\t"


def _escape(ch: str, as_json: bool = False) -> str:
    code = ord(ch)
    if as_json:
        if code < 0x10000:
            return f"\\u{code:04x}"
        high, low = divmod(code - 0x10000, 0x400)
        return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def without_surrogates(value: Any) -> Any:
    """`value` (JSON-like: str, list, dict, scalars) with every lone surrogate in a string
    (valid in JSON as `"\\ud800"`, not encodable as UTF-8) replaced by its escape text
    `\\ud800`, keys included. For untrusted data on its way into a file (reports): shown
    escaped, never lost, never a UnicodeEncodeError."""
    if isinstance(value, str):
        if value.isascii():
            return value
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, list):
        return [without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
    return value


def terminal_safe(
    text: Any, limit: int | None = None, *, keep_newlines: bool = False, as_json: bool = False
) -> str:
    """`text` (any value: it is made a string) with every unprintable character escaped
    (`as_json`: as JSON escapes, for JSON text, where they can only be inside strings)."""
    s = text if isinstance(text, str) else str(text)
    if not s.isprintable():
        kept = _KEPT if keep_newlines else ""
        s = "".join(ch if ch in kept or ch.isprintable() else _escape(ch, as_json) for ch in s)
    if limit is not None and len(s) > limit:
        s = s[: max(0, limit - 1)] + "…"
    return s


def terminal_block(text: Any, limit: int | None = None, indent: str = "    ") -> str:
    """`text` for a terminal as a block: `terminal_safe` with its line breaks (`\\r\\n` and
    `\\n`) and tabs kept, never shown as `\\x0a`; every line after the first starts with
    `indent`, so that the block sits under the label it follows."""
    s = text if isinstance(text, str) else str(text)
    safe = terminal_safe(s.replace("\r\n", "\n"), limit, keep_newlines=True)
    return safe.replace("\n", "\n" + indent)


def stderr_lines(stderr: str, last: int = 5, indent: str = "  ") -> list[str]:
    """An engine's stderr as a terminal shows it (none when it wrote nothing): a heading and
    its `last` lines, each `| `, made safe by `terminal_safe` (the block of `palconf run`'s
    failures, of `explain` and of the fuzzer)."""
    lines = stderr.splitlines()[-last:]
    if not lines:
        return []
    return [f"{indent}engine stderr (last lines):"] + [
        f"{indent}  | {terminal_safe(line, 300)}" for line in lines
    ]


def stderr_tail(stderr: str, last: int = 10) -> str:
    """The last lines of an engine's stderr under a one-line message (an engine that did not
    start): each on a line of its own, `  | `, made safe by `terminal_safe`."""
    return "".join(f"\n  | {terminal_safe(line, 300)}" for line in stderr.splitlines()[-last:])


def terminal_json(value: Any, **dumps: Any) -> str:
    """`value` as JSON text for a terminal (`json.dumps` with `dumps`): readable non-ASCII
    text kept, every unprintable character (bidi controls, C1 controls, lone surrogates)
    escaped as JSON (`\\u202e`) through `terminal_safe`."""
    text = json.dumps(value, ensure_ascii=False, **dumps)
    return terminal_safe(text, keep_newlines=True, as_json=True)
