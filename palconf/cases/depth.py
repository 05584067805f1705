"""A case file nested too deeply: the bound (`MAX_DEPTH`), a cheap test of the text, a
walk of the parsed data without recursion, and a string-aware scanner that finds the line
where the nesting goes too deep (run only on a file that already failed). Deeper values
would exhaust Python's stack in the parser, the schema check or a later walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from palconf.cases.checks import _path_str, locate
from palconf.cases.errors import CaseError

#: The deepest nesting of tables and lists a case may have (the suite's own cases reach
#: 12). Deeper values would exhaust Python's stack in the parser, the schema check or a
#: later walk; they are refused with their line before anything else walks them.
MAX_DEPTH = 100


def may_be_too_deep(text: str) -> bool:
    """False when the text cannot nest deeper than MAX_DEPTH: every level needs a `[`, a
    `{` or a `.` of a dotted key (a cheap bound; the walk runs only above it)."""
    return 1 + text.count("[") + text.count("{") + text.count(".") > MAX_DEPTH


def too_deep(data: Any, limit: int = MAX_DEPTH) -> list[str | int] | None:
    """The path of the first table or list nested more than `limit` deep, else None. Not
    recursive, so any depth is safe."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if len(path) >= limit:
            return path
        if isinstance(value, dict):
            stack += [(v, [*path, k]) for k, v in value.items() if isinstance(v, (dict, list))]
        elif isinstance(value, list):
            stack += [(v, [*path, i]) for i, v in enumerate(value) if isinstance(v, (dict, list))]
    return None


def _skip_string(text: str, i: int) -> tuple[int, bool]:
    """The index after the string starting at `i`, and whether it was closed."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        j = i + 3
        while j < len(text):
            if quote == '"' and text[j] == "\\":
                j += 2
            elif text.startswith(quote * 3, j):
                return j + 3, True
            else:
                j += 1
        return j, False
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if quote == '"' and text[j] == "\\":
            j += 2
        elif text[j] == quote:
            return j + 1, True
        else:
            j += 1
    return j, False


@dataclass(frozen=True)
class Scan:
    """What `scan_lines` finds; each a line number, or None."""

    too_deep: int | None  # the first line nested more than the limit
    open_string: int | None  # the first line with a string left open
    open_bracket: int | None  # the line of the outermost `[` / `{` of a value left open


def _header(text: str, i: int) -> tuple[tuple[str, ...], bool, int]:
    """The key of the [header] or [[header]] at `i`, whether it is double, and the index
    after it (its `]`, or the end of its line for one left open)."""
    double = text.startswith("[[", i)
    i += 2 if double else 1
    parts: list[str] = []
    part: list[str] = []
    while i < len(text) and text[i] not in "]\n":
        if text[i] in "\"'":
            j, _ = _skip_string(text, i)
            part.append(text[i + 1 : j - 1])
            i = j
            continue
        if text[i] == ".":
            parts.append("".join(part).strip())
            part = []
        else:
            part.append(text[i])
        i += 1
    parts.append("".join(part).strip())
    if text.startswith("]]" if double else "]", i):
        i += 2 if double else 1
    return tuple(parts), double, i


def scan_lines(text: str, limit: int = MAX_DEPTH) -> Scan:
    """A small TOML reader of headers, brackets, dots and strings, run only on a file that
    already failed; it never recurses. Its depth is the data's: a table under an array of
    tables (`[expect.observed]` after `[[expect]]`) counts the array too."""
    line, i, n = 1, 0, len(text)
    arrays: set[tuple[str, ...]] = set()  # the headers written [[like.this]]
    table = 1  # the containers around the keys of the current [table]
    depth = table  # the containers around the current position
    stack: list[tuple[str, int, int]] = []  # open `[` / `{` of a value: (kind, depth, line)
    in_key = True
    deep: int | None = None
    open_string: int | None = None
    while i < n:
        c = text[i]
        if c in "\"'":
            j, closed = _skip_string(text, i)
            if not closed and open_string is None:
                open_string = line
            line += text.count("\n", i, j)
            i = j
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "[" and in_key and not stack:
            key, double, i = _header(text, i)
            if double:
                arrays.add(key)
            table = 1 + len(key)
            if table <= limit:  # (a longer key is too deep anyway)
                table += sum(key[:k] in arrays for k in range(1, len(key) + 1))
            depth, in_key = table, False
            if depth > limit and deep is None:
                deep = line
            continue
        if c == "\n":
            line += 1
            if not stack:
                depth, in_key = table, True
        elif in_key and c == ".":
            depth += 1
        elif c == "=" and in_key:
            in_key = False
        elif c in "[{":
            depth += 1
            stack.append((c, depth, line))
            in_key = c == "{"
        elif c in "]}" and stack:
            depth = stack.pop()[1] - 1
        elif c == "," and stack:
            depth, in_key = stack[-1][1], stack[-1][0] == "{"
        if depth > limit and deep is None:
            deep = line
        i += 1
    return Scan(deep, open_string, stack[0][2] if stack else None)


def too_deep_error(file: str, text: str, path: list[str | int] | None = None) -> CaseError:
    line = scan_lines(text).too_deep
    where = _path_str(path[:3]) + "…" if path else None
    if line is None and path:
        line = locate(text, [p for p in path[:3]])
    return CaseError(
        file,
        f"nested too deeply (more than {MAX_DEPTH} levels of tables and lists)",
        line,
        None,
        where,
    )
