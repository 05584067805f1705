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
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["MAX_DEPTH", "TooDeep", "dumps_strict", "loads", "not_json", "read_text"]

#: The deepest nesting of arrays and objects palconf reads (its own files reach 12).
MAX_DEPTH = 100

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


def read_text(path: Path, error: Callable[[str], Exception], what: str) -> str:
    """The UTF-8 text of a file palconf reads but did not write (`what`: "a results file",
    "a transcript"); `error(message)` when it is missing, not a regular file (a FIFO would
    block the read), unreadable or not UTF-8."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise error(f"{path}: not a regular file, not {what}")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such file") from None
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise error(f"{path}: cannot read: {e.strerror or e}") from None


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
