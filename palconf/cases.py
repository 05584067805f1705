"""Loading case files: TOML → schema → cross-checks → `Case`.

Every problem becomes a `CaseError` naming the file, the line (where one can be found) and
the field path; loading never shows a traceback. `load_cases` gathers the errors of all
files before giving up, so one run shows every broken file at once.
"""

from __future__ import annotations

import codecs
import errno
import json
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tomli

from . import paths
from .case_checks import (
    NULL,
    SETUP_ERRORS,
    CaseError,
    CaseLoadError,
    locate,
    needed_keywords,
    schema,
    semantic_errors,
)
from .case_depth import may_be_too_deep, scan_lines, too_deep, too_deep_error
from .case_messages import schema_errors
from .core.outcomes import BASE, PROTOCOL, groups_of
from .registry import Registry
from .registry import load as load_registry

__all__ = [
    "NULL",
    "SETUP_ERRORS",
    "Case",
    "CaseError",
    "CaseLoadError",
    "Expectation",
    "LegalExpectation",
    "Step",
    "build_case",
    "case_files",
    "find_case_files",
    "load_case",
    "load_cases",
    "locate",
    "needed_keywords",
    "schema",
]


@dataclass(frozen=True)
class LegalExpectation:
    """What `legal` must answer at one point (`P-legal`; docs/case-format.md)."""

    exactly: tuple[dict[str, Any], ...] | None = None  # the whole list, as a set
    includes: tuple[dict[str, Any], ...] = ()  # each listed, exactly so
    excludes: tuple[dict[str, Any], ...] = ()  # patterns no listed action may match


@dataclass(frozen=True)
class Expectation:
    after: int  # 0 = right after setup; n = after step n (1-based)
    observed: dict[str, Any] | None = None
    refused: bool | str | None = None  # True: any reason; a string: that reason (or error)
    legal: LegalExpectation | None = None


@dataclass(frozen=True)
class Step:
    """One step of a case: an ACTION sent with `act`, or a STATE sent with `setup`."""

    kind: Literal["act", "setup"]
    body: Any

    def request(self) -> dict[str, Any]:
        if self.kind == "setup":
            return {"cmd": "setup", "state": self.body}
        return {"cmd": "act", "action": self.body}

    def describe(self) -> str:
        body = json.dumps(self.body, sort_keys=True)
        return f"setup {body}" if self.kind == "setup" else body


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    path: str  # relative to the cases folder
    clauses: tuple[str, ...]
    rules: tuple[str, ...]
    interpretations: tuple[str, ...]
    setup: dict[str, Any]
    steps: tuple[Step, ...]
    expect: tuple[Expectation, ...]
    keywords: tuple[str, ...]  # its groups: the keywords of its clauses, `protocol`, or `base`
    needs: frozenset[str]  # every keyword an engine must implement to run it
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # rules_version, clause_hashes

    @property
    def actions(self) -> tuple[Any, ...]:
        """What each step sends: the ACTION, or the STATE of a setup step."""
        return tuple(s.body for s in self.steps)

    @property
    def uses_legal(self) -> bool:
        return any(e.legal is not None for e in self.expect)

    def expectation_after(self, n: int) -> Expectation | None:
        for e in self.expect:
            if e.after == n:
                return e
        return None


# ---------------------------------------------------------------- building a Case


def _denull(value: Any) -> Any:
    if value == NULL:
        return None
    if isinstance(value, dict):
        return {k: _denull(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_denull(v) for v in value]
    return value


def _groups(clauses: Iterable[str], rules: Iterable[str], registry: Registry) -> tuple[str, ...]:
    """The keywords of the clauses a case cites, `protocol` if it cites a P- rule, else
    `base` (palconf.core.outcomes.groups_of)."""
    out: list[str] = []
    for cid in clauses:
        kw = registry.clauses[cid].keyword
        if kw not in out:
            out.append(kw)
    return groups_of(out, rules)


def _legal(data: dict[str, Any] | None) -> LegalExpectation | None:
    if data is None:
        return None
    exactly = data.get("exactly")
    return LegalExpectation(
        exactly=None if exactly is None else tuple(exactly),
        includes=tuple(data.get("includes", ())),
        excludes=tuple(data.get("excludes", ())),
    )


def _step(entry: dict[str, Any]) -> Step:
    if "setup" in entry:
        return Step("setup", entry["setup"])
    return Step("act", entry["malformed"] if "malformed" in entry else entry)


def build_case(data: dict[str, Any], rel: str, registry: Registry) -> Case:
    n_actions = len(data["actions"])
    expect = tuple(
        Expectation(
            after=e.get("after", n_actions),
            observed=_denull(e["observed"]) if "observed" in e else None,
            refused=e.get("refused"),
            legal=_legal(e.get("legal")),
        )
        for e in data["expect"]
    )
    keywords = _groups(data.get("clauses", []), data.get("rules", []), registry)
    steps = tuple(_step(a) for a in data["actions"])
    needs = needed_keywords(data["setup"]) | {k for k in keywords if k not in (BASE, PROTOCOL)}
    for step in steps:
        if step.kind == "setup":
            needs |= needed_keywords(step.body)
    return Case(
        id=data["id"],
        title=data["title"],
        path=rel,
        clauses=tuple(data.get("clauses", [])),
        rules=tuple(data.get("rules", [])),
        interpretations=tuple(data.get("interpretations", [])),
        setup=data["setup"],
        steps=steps,
        expect=expect,
        keywords=keywords,
        needs=frozenset(needs),
        notes=data.get("notes", ""),
        extra={k: data[k] for k in ("rules_version", "clause_hashes") if k in data},
    )


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


def _parse(text: str, file: str) -> dict[str, Any] | CaseError:
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as e:
        return _syntax_error(e, file, text)
    except RecursionError:
        return too_deep_error(file, text)
    if not data:
        return CaseError(file, "the file is empty (no TOML statements)", 1)
    if may_be_too_deep(text):
        deep = too_deep(data)
        if deep is not None:
            return too_deep_error(file, text, deep)
    return data


def load_case(
    path: Path, root: Path | None = None, registry: Registry | None = None
) -> tuple[Case | None, list[CaseError]]:
    """One case file → (Case, []) or (None, errors)."""
    registry = registry or load_registry()
    try:
        rel = str(path.relative_to(root)) if root else str(path)
    except ValueError:
        rel = str(path)
    raw = read_bytes(path)
    if isinstance(raw, str):
        return None, [CaseError(rel, raw)]
    text = decode(raw, rel)
    if isinstance(text, CaseError):
        return None, [text]
    data = _parse(text, rel)
    if isinstance(data, CaseError):
        return None, [data]
    try:
        errors = schema_errors(data, rel, text)
        if errors:
            return None, errors
        errors = semantic_errors(data, rel, path.stem, text, registry)
        if errors:
            return None, errors
        return build_case(data, rel, registry), []
    except RecursionError:  # (MAX_DEPTH keeps every walk well inside the stack)
        return None, [too_deep_error(rel, text)]


def case_files(root: Path) -> list[Path]:
    """Case files are in the folders under `root`; files at its top (the interaction matrix,
    `cases/interactions.toml`) are not cases. A `root` that is itself one case folder (no
    subfolders, such as `cases/protocol`) holds its cases at its top. Every entry named
    `*.toml` counts, whatever it is: `load_case` says why a link, folder or FIFO cannot be
    read; only hidden ones (`.#x.toml`, an editor's lock) are not cases. (`find_case_files`
    also says which folders cannot be listed.)"""
    return find_case_files(root)[0]


def find_case_files(root: Path) -> tuple[list[Path], list[CaseError]]:
    """(every `*.toml` entry under `root` as `case_files` means it, an error for each folder
    that cannot be listed). Links to folders are followed, each folder read once."""
    files: list[Path] = []
    errors: list[CaseError] = []
    top = _is_case_folder(root)
    shown_from = root.parent if top else root
    seen: set[tuple[int, int]] = set()
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            info = folder.stat()
            if (info.st_dev, info.st_ino) in seen:
                continue  # a second link to a folder already read (or a loop)
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            shown = _shown(folder, shown_from)
            errors.append(CaseError(shown, f"cannot read the folder: {e.strerror or e}"))
            continue
        for entry in entries:
            p = Path(entry.path)
            hidden = entry.name.startswith(".")  # an editor's lock or backup: never a case id
            if entry.name.endswith(".toml") and not hidden and (top or folder != root):
                files.append(p)
            if not top and _is_dir(entry):
                folders.append(p)
    return sorted(files), errors


def _shown(path: Path, root: Path) -> str:
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(path) if rel == Path() else str(rel)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_case_folder(root: Path) -> bool:
    """No subfolder: a hidden one (`.mypy_cache`) or a folder named like a case file (an
    error of its own) does not count."""
    try:
        if not root.is_dir():
            return False
        with os.scandir(root) as entries:
            return not any(
                _is_dir(e) and not e.name.startswith(".") and not e.name.endswith(".toml")
                for e in entries
            )
    except OSError:
        return False


def load_cases(
    root: Path | None = None, registry: Registry | None = None, files: Iterable[Path] | None = None
) -> list[Case]:
    """Every case under `root` (default: the project's `cases/`), or raise CaseLoadError with
    the errors of every broken file, duplicate ids included."""
    root = Path(root or paths.CASES)
    registry = registry or load_registry()
    if files is None and not root.is_dir():
        shown = paths.where_from(root, "PALCONF_CASES") if root == paths.CASES else str(root)
        raise CaseLoadError([CaseError(shown, "no such cases folder")])
    cases: list[Case] = []
    errors: list[CaseError] = []
    by_id: dict[str, str] = {}
    # paths are shown relative to the cases folder: `protocol/x.toml`, also when `root` is
    # one case folder
    shown_from = root.parent if files is None and _is_case_folder(root) else root
    if files is None:
        files, errors = find_case_files(root)
    for path in sorted(files):
        case, errs = load_case(path, shown_from, registry)
        errors += errs
        if case is None:
            continue
        if case.id in by_id:
            errors.append(
                CaseError(
                    case.path,
                    f"duplicate case id {case.id!r} (also in {by_id[case.id]})",
                    2,
                    None,
                    "id",
                )
            )
            continue
        by_id[case.id] = case.path
        cases.append(case)
    if errors:
        raise CaseLoadError(errors, cases)
    return cases
