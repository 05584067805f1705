"""Reading one case file up to its TOML table: regular files only (never blocking on a
FIFO), at most `MAX_BYTES`, UTF-8 text (a BOM, UTF-16/32, NUL or Latin-1 each get their own
message), then TOML (tomli's answer: `toml_parse`) with the line and column of a syntax
error. Every problem is a `CaseError`; `loader` goes on from the table."""

from __future__ import annotations

import codecs
import datetime
import errno
import math
import os
import re
import stat
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomli

from palconf.cases import toml_parse
from palconf.cases.checks import _pattern, _schema, locate
from palconf.cases.depth import may_be_too_deep, scan_lines, too_deep, too_deep_error
from palconf.cases.errors import CaseError
from palconf.core.schema import Check
from palconf.core.schema_source import SourceCompiler
from palconf.registry import Registry

#: The largest case file read (the suite's largest is some 4 kB): a bigger file is refused
#: with its size before it is read.
MAX_BYTES = 1_000_000


def _cannot_open(path: Path, e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "cannot read: a symbolic link loop"
    if isinstance(e, FileNotFoundError) and path.is_symlink():
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"cannot read: a broken symbolic link (to {target!r}, which does not exist)"
    if isinstance(e, PermissionError):
        return "cannot read: permission denied"
    return f"cannot read: {e.strerror or e}"


def _not_a_file(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "cannot read: a folder, not a file (a case file's name ends in .toml)"
    kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket or device"
    return f"cannot read: {kind}, not a regular file"


def read_bytes(path: Path) -> bytes | str:
    """A case file's bytes, or why it cannot be read. Never blocks: a FIFO is opened without
    waiting for a writer and refused, as are folders, devices and files over MAX_BYTES."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        return _cannot_open(path, e)
    try:
        info = os.fstat(fd)
        problem = _not_a_file(info.st_mode)
        if problem is None and info.st_size > MAX_BYTES:
            problem = f"too large: {info.st_size} bytes (a case file has at most {MAX_BYTES})"
        if problem is not None:
            return problem
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        raw = b"".join(chunks)
    except OSError as e:
        return _cannot_open(path, e)
    finally:
        os.close(fd)
    if len(raw) > MAX_BYTES:  # grew since fstat
        return f"too large: over {MAX_BYTES} bytes"
    return raw


def _line_col(text: str, pos: int) -> tuple[int, int]:
    return text.count("\n", 0, pos) + 1, pos - (text.rfind("\n", 0, pos) + 1) + 1


def decode(raw: bytes, file: str) -> str | CaseError:
    """UTF-8 text, or an error saying what the bytes are instead."""
    if raw.startswith(codecs.BOM_UTF8):
        return CaseError(
            file,
            "starts with a UTF-8 byte-order mark (BOM); save the file as UTF-8 without BOM",
            1,
        )
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return CaseError(
            file, "is UTF-16 or UTF-32 (it starts with a byte-order mark); save it as UTF-8", 1
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        before = raw[: e.start].decode("utf-8", "replace")
        line, col = _line_col(before, len(before))
        return CaseError(
            file,
            f"not UTF-8: byte 0x{raw[e.start]:02x} cannot start or continue a character "
            "(Latin-1 or Windows-1252 text?); save the file as UTF-8",
            line,
            col,
        )
    nul = text.find("\0")
    if nul >= 0:
        line, col = _line_col(text, nul)
        return CaseError(
            file,
            "contains a NUL byte: not a text file (UTF-16 without a byte-order mark?); "
            "save it as UTF-8",
            line,
            col,
        )
    return text


def _syntax_error(e: tomli.TOMLDecodeError, file: str, text: str) -> CaseError:
    msg: str = getattr(e, "msg", str(e))
    line, col = getattr(e, "lineno", None), getattr(e, "colno", None)
    if "'\\r'" in msg:
        msg += " (a carriage return without a line feed: save the file with LF or CRLF line ends)"
    else:
        scan = scan_lines(text)
        if scan.open_string is not None and (line is None or scan.open_string <= line):
            msg += f" (the string on line {scan.open_string} is not closed)"
            line, col = scan.open_string, None
        elif msg.startswith("Unclosed") and scan.open_bracket is not None:
            msg += f" (opened on line {scan.open_bracket}, not closed by line {line})"
            line, col = scan.open_bracket, None
    return CaseError(file, f"TOML syntax: {msg}", line, col)


#: an integer literal Python will not convert (`sys.get_int_max_str_digits`, 4300)
_HUGE_INTEGER = re.compile(r"[0-9][0-9_]{4299,}")
_KEY = re.compile(r"""^\s*([A-Za-z0-9_."'-]+)\s*=""")


def _huge_number(file: str, text: str) -> CaseError:
    found = _HUGE_INTEGER.search(text)
    if found is None:  # (tomli refused a value for another reason)
        return CaseError(file, "TOML syntax: a value that cannot be read")
    line, col = _line_col(text, found.start())
    key = _KEY.match(text.splitlines()[line - 1])
    field = f"{key.group(1).strip(chr(34))}: " if key else ""
    return CaseError(
        file,
        f"{field}a number of {len(found.group().replace('_', ''))} digits: no field takes one "
        f"that long (at most 4300 digits are read)",
        line,
        col,
    )


#: the values a case's TOML holds that JSON holds too (a float only if finite)
_PLAIN = frozenset({str, int, bool})


def _any_foreign(data: Any) -> bool:
    """Whether `_first_foreign` finds anything: the same test on every value, without the
    paths (worked out only for a table that has one). tests/test_fast_paths.py holds the
    two to the same answer."""
    stack = [data]
    pop, extend = stack.pop, stack.extend
    while stack:
        value = pop()
        kind = type(value)
        if kind is dict:
            extend(value.values())
        elif kind is list:
            extend(value)
        elif kind in _PLAIN:
            continue
        elif kind is float:
            if not math.isfinite(value):
                return True
        elif isinstance(value, dict):
            extend(value.values())
        elif isinstance(value, list):
            extend(value)
        elif isinstance(value, (datetime.date, datetime.time)) or (
            isinstance(value, float) and not math.isfinite(value)
        ):
            return True
    return False


def plain_check(registry: Registry | None = None) -> Check:
    """The schema's check (`checks.fast_check`) and no value JSON lacks (`foreign_value`)
    in one walk: the loader's first check of a file, which spares it both when it passes.
    (The schema compiled with `_any_foreign` asked where the schema admits any value.)"""
    return _plain_check(_pattern(registry))


def _plain(value: Any) -> bool:
    return not _any_foreign(value)


@lru_cache(maxsize=4)
def _plain_check(pattern: str) -> Check:
    compiler = SourceCompiler({"case": _schema(pattern)}, plain=_plain)
    return compiler.compile(_schema(pattern), "case")


def foreign_value(data: Any, file: str, text: str) -> CaseError | None:
    """The first value no field of a case can hold, where the schema lets any value through
    (a `malformed` action, a setup step): a TOML date or time, or a float that is not finite
    (what palconf sends an engine is strict JSON). Not recursive."""
    return _first_foreign(data, file, text) if _any_foreign(data) else None


def _first_foreign(data: Any, file: str, text: str) -> CaseError | None:
    """`foreign_value`'s walk with the path of every value: run only on a table that has a
    foreign value (`_any_foreign`, the same test without paths, says so first)."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            stack += [(v, [*path, k]) for k, v in reversed(value.items())]
        elif isinstance(value, list):
            stack += [(v, [*path, i]) for i, v in reversed(list(enumerate(value)))]
        elif isinstance(value, (datetime.date, datetime.time)) or (
            isinstance(value, float) and not math.isfinite(value)
        ):
            what = f"a TOML {type(value).__name__}" if not isinstance(value, float) else value
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
            return CaseError(
                file,
                f"{where.lstrip('.')}: {what} is not a value palconf can send an engine "
                f"(JSON has no dates, times, NaN or infinity)",
                locate(text, path),
            )
    return None


def _parse(text: str, file: str) -> dict[str, Any] | CaseError:
    try:
        data = toml_parse.loads(text)  # tomli's table or error (rtoml reads it, if it may)
    except tomli.TOMLDecodeError as e:
        return _syntax_error(e, file, text)
    except RecursionError:
        return too_deep_error(file, text)
    except ValueError:  # an integer literal of more than 4300 digits
        return _huge_number(file, text)
    if not data:
        return CaseError(file, "the file is empty (no TOML statements)", 1)
    if may_be_too_deep(text):
        deep = too_deep(data)
        if deep is not None:
            return too_deep_error(file, text, deep)
    return data
