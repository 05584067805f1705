"""The one reader of JSON that palconf did not write in this run: engine replies (the
adapter, palconf/engines/json_lines.py), results files, transcripts, mutants files, the
pages' embedded data. Stdlib only.

`loads(text)` is strict JSON, exactly one value:

- nested at most `MAX_DEPTH` deep (Python's decoder, and every walk after it, would exhaust
  the stack on a 2 KB value nested 1,000 deep: a `RecursionError`, never a clear error);
- no NaN, Infinity or -Infinity (not JSON, though Python's decoder accepts them);
- no key twice in one object (`{"ok": false, "ok": true}` is not taken as either);
- nothing after the value but blanks.

Every refusal is a `ValueError` (a `json.JSONDecodeError` where the decoder found it) whose
message says what is wrong, so each reader keeps its own "file:line" or "reply" wording.

It is also the one reader of the *files* palconf reads but did not write (results files,
transcripts, mutants files, expectations files, `rules diff` / `rules import` texts): a
regular file only (a FIFO, a device such as /dev/zero, a folder or a socket is refused
without a read that could block or never end), opened without waiting (`O_NONBLOCK`).
`read_text` reads a whole file of at most `MAX_FILE_BYTES` (a larger one is refused with its
size before it is read); `read_lines` reads a results file, which may be large, as a stream:
line by line, each line at most `MAX_LINE_BYTES`, so memory is bounded by one line.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from palconf.core.safe_write import file_kind

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "TooDeep",
    "dumps_strict",
    "loads",
    "not_json",
    "read_lines",
    "read_raw_lines",
    "read_text",
]

#: The deepest nesting of arrays and objects palconf reads (its own files reach 12).
MAX_DEPTH = 100
#: The largest file `read_text` reads whole (64 MiB: an expectations file, a transcript, a
#: mutants file or a rules text of the suite is some kilobytes to a few megabytes).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: The longest line of a results file `read_lines` reads (16 MiB: a result holds at most
#: `palconf.core.outcomes.MAX_DIFFS` differences of at most `MAX_VALUE_CHARS` each, and a
#: bounded stderr, so palconf's own lines are well under a megabyte).
MAX_LINE_BYTES = 16 * 1024 * 1024

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class TooDeep(ValueError):
    """A JSON value nested deeper than MAX_DEPTH."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {json.dumps(key)[:80]} appears twice in one object")
            seen.add(key)
    return obj


_DECODER = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)


def depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deep `text` nests arrays and objects, counted up to `limit + 1` (brackets inside
    strings do not count). Linear; cheap when the text has few brackets."""
    if text.count("[") + text.count("{") <= limit:
        return 0  # cannot be deeper than the limit
    level = deepest = 0
    for ch in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        level += 1 if ch in "[{" else -1
        if level > deepest:
            deepest = level
            if deepest > limit:
                break
    return deepest


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """One strict JSON value (see the module); ValueError (UnicodeDecodeError for bytes
    that are not UTF-8) says why not."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    if depth(text, limit) > limit:
        raise TooDeep(f"nested deeper than {limit} levels")
    try:
        value, end = _DECODER.raw_decode(text)
    except ValueError:
        return _DECODER.decode(text)  # leading blanks are fine; else the precise error
    if end != len(text) and text[end:].strip():
        return _DECODER.decode(text)  # raises "Extra data" with its column
    return value


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):,.0f} MiB" if n >= 1024 * 1024 else f"{n:,} bytes"


def _open_regular(path: Path, error: Callable[[str], Exception], what: str) -> int:
    """A descriptor of `path` open for reading, or `error(message)`: missing, a link loop,
    not a regular file (refused before any read: a FIFO or device could block or never end),
    unreadable. Never waits for a FIFO's writer."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise error(f"{path}: {file_kind(mode)}, not a regular file, not {what}")
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode  # (it may have been swapped since the stat)
    except OSError as e:
        os.close(fd)
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise error(f"{path}: {file_kind(mode)}, not a regular file, not {what}")
    return fd


def read_text(
    path: Path,
    error: Callable[[str], Exception],
    what: str,
    limit: int = MAX_FILE_BYTES,
) -> str:
    """The UTF-8 text of a file palconf reads but did not write (`what`: "a results file",
    "a transcript"); `error(message)` when it is missing, not a regular file, larger than
    `limit` bytes (refused by its size, before the read), unreadable or not UTF-8."""
    fd = _open_regular(path, error, what)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise error(f"{path}: too large: {size:,} bytes ({what} is read up to {_mib(limit)})")
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(limit + 1 - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:  # it grew since the fstat
            raise error(f"{path}: too large: over {_mib(limit)}, not {what}")
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None
    finally:
        os.close(fd)


def read_lines(
    path: Path,
    error: Callable[[str], Exception],
    what: str,
    limit: int = MAX_LINE_BYTES,
) -> Iterator[str]:
    """The lines of a file palconf reads but did not write, as a stream (without their
    ends of line): memory is bounded by one line. The file is opened at once (so a missing
    or special file is `error` here, not at the first line); then, while reading, a line
    longer than `limit` bytes or not UTF-8 is `error("path:N: …")`."""
    raw = read_raw_lines(path, error, what, limit)

    def decoded() -> Iterator[str]:
        for n, line in enumerate(raw, start=1):
            try:
                yield line.rstrip(b"\r\n").decode("utf-8")
            except UnicodeDecodeError as e:
                raise error(
                    f"{path}:{n}: not UTF-8 text ({e.reason} at byte {e.start} of the line)"
                ) from None

    return decoded()


def read_raw_lines(
    path: Path,
    error: Callable[[str], Exception],
    what: str,
    limit: int = MAX_LINE_BYTES,
) -> Iterator[bytes]:
    """`read_lines`'s lines as bytes, each with its end of line (the last may lack one)."""
    fd = _open_regular(path, error, what)
    return _raw_lines(os.fdopen(fd, "rb"), path, error, limit)


def _raw_lines(
    f: Any, path: Path, error: Callable[[str], Exception], limit: int
) -> Iterator[bytes]:
    with f:
        n = 0
        while True:
            try:
                raw: bytes = f.readline(limit + 2)
            except OSError as e:
                raise error(f"{path}: cannot read: {e.strerror or e}") from None
            if not raw:
                return
            n += 1
            if len(raw.rstrip(b"\r\n")) > limit:
                raise error(
                    f"{path}:{n}: a line longer than {_mib(limit)}: not a line palconf "
                    f"reads (a result palconf writes is far shorter)"
                )
            yield raw


def dumps_strict(value: Any, **kwargs: Any) -> str:
    """What palconf sends or writes: strict JSON (a NaN or infinity is a ValueError, never
    written as the non-JSON `NaN`)."""
    return json.dumps(value, allow_nan=False, **kwargs)


def not_json(value: Any) -> str | None:
    """What keeps a Python value from being JSON as palconf reads it (None when it is):
    `players.A.battle is a set`. The one check of values that reach palconf without a wire (an
    in-process engine's replies): objects with string keys, lists, strings, booleans, None,
    whole numbers and finite floats, nested at most `MAX_DEPTH` deep (a value that holds
    itself is too deep)."""
    todo: list[tuple[Any, str, int]] = [(value, "", 0)]
    while todo:
        v, where, depth = todo.pop()
        at = where or "the value"
        if v is None or isinstance(v, (str, bool, int)):
            continue
        if isinstance(v, float):
            if v != v or v in (float("inf"), float("-inf")):
                return f"{at} is {v!r}, not a JSON number"
            continue
        if not isinstance(v, (dict, list)):
            return f"{at} is a {type(v).__name__}, not a JSON value"
        if depth >= MAX_DEPTH:
            return f"{at} is nested deeper than {MAX_DEPTH} levels"
        if isinstance(v, list):
            todo += [(x, f"{where}[{i}]", depth + 1) for i, x in enumerate(v)]
            continue
        for k, x in v.items():
            if not isinstance(k, str):
                return f"{at} has the key {k!r}, a {type(k).__name__}, not a string"
            todo.append((x, f"{where}.{k}" if where else k, depth + 1))
    return None
