"""The results file (JSON Lines written by `palconf run --results FILE`): the one module
that writes it, locks it, reads it back for `--resume`, and reads it for `report`, `site`,
`compare` and the CI action. Stdlib only; below both the harness and the reports.

A results file holds one JSON object per case (`palconf.core.Result.to_json()`), after a first
*meta line*: an object whose only key is `"meta"`:

    {"meta": {"format": "palconf-results", "format_version": 1, "palconf": "0.1.0",
              "protocol": 1, "engine": {"name": "...", "version": "...", "keywords": [...]},
              "rules_version": "1.00", "date": "2026-08-01T12:00:00Z", "cases": 259,
              "bounds": {"diffs": 50, "value_chars": 4000},
              "suite": {"cases": 341, "digest": "<sha256>"},
              "selection": {"by": ["--exclude taunt"], "left_out": ["taunt-1", ...]}}}

`palconf run` writes it once the engine has said hello, before any result: `engine` is what
`hello` answered, `date` when the run started, `cases` how many cases it selected (a file
with fewer results is an *unfinished* run), `bounds` what one result stores at most
(`palconf.core.outcomes.bounds`: differences, characters of a value; older files leave it
out). `suite` and `selection` say what the run's cases were selected from and what its
selection left out (a *partial* run): `palconf.core.results_meta` tells them, and a run's
completeness (whole, partial, unfinished). A resumed run appends to the file and keeps its
meta line.

**Reading** is a stream (`json_read.read_lines`): a line at a time, each at most
`json_read.MAX_LINE_BYTES`, so a large file costs the results it holds, not its size; a
case recorded more than once keeps its last result (`duplicates`, `duplicate_lines`), and
every reader warns of it in one wording (`duplicates_warning`).

**Writing** (`ResultsWriter.open`): through the one safe writer (palconf.core.safe_write),
under an exclusive lock held for the whole run (`flock`): a second run on the same file
refuses before it changes a byte. A fresh run empties the file only once it holds the lock.

**Whose results** (`parse_lines`, the one rule, for every reader): a file's results are the
engine's its meta line names. A file whose meta lines name different engines (name or
version) or rules versions, or with results before its first meta line or in a file with
none when there is a meta line later (`cat a.jsonl b.jsonl`), is *mixed*, and refused
(`ResultsError`) unless the reader was told otherwise (`mixed_ok`: `--allow-mixed`,
`--resume-other-engine`); then its first meta line is the file's, for every reader alike. A
file with no meta line at all (older files) is read, its engine named by the results'
`engine` field or the file name; `--resume` onto one refuses (whose the results are is
unknown) unless told otherwise.

Results files are untrusted input: every line is read by the one JSON reader
(palconf.core.json_read: depth-limited, strict) and every result by `Result.from_json`, which
type-checks every field; every problem is a `ResultsError` naming the file and line. A transcript
(`palconf explain --transcript`, `fuzz --transcript`: JSON Lines too, its first line
`{"transcript": {...}}`) is told apart by its first line: `NotResults`, with the one message every
reader gives (`summary`, `report`, `site`, which leaves it out).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from palconf.core import json_read
from palconf.core.errors import UsageError
from palconf.core.outcomes import Outcome, Result
from palconf.core.results_meta import (
    FORMAT,
    FORMAT_VERSION,
    Completeness,
    completeness,
    meta_problem,
    run_meta,
    utc_now,
)
from palconf.core.safe_write import Stream, open_stream
from palconf.core.text import terminal_safe, without_surrogates

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "META_KEY",
    "UNKNOWN_RULES",
    "NotResults",
    "Completeness",
    "ResultsError",
    "ResultsFile",
    "ResultsWriter",
    "duplicates_warning",
    "from_json_objects",
    "is_meta",
    "is_transcript_header",
    "meta_line",
    "parse_lines",
    "read_results",
    "run_meta",
    "utc_now",
]

META_KEY = "meta"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
#: The rules version of a run whose meta line names none (older files, no meta line).
UNKNOWN_RULES = "unknown"


class ResultsError(UsageError):
    """A results file cannot be read, resumed or written: the message says where and why."""


class NotResults(ResultsError):
    """The file is a transcript, not a results file (the message says so, and what reads it)."""


def is_transcript_header(obj: Any) -> bool:
    """Whether a JSON line is a transcript's first line (palconf.explain.transcript)."""
    return isinstance(obj, dict) and set(obj) == {"transcript"}


def meta_line(meta: dict[str, Any]) -> str:
    return json_read.dumps_strict({META_KEY: meta}, sort_keys=True) + "\n"


def is_meta(obj: Any) -> bool:
    return isinstance(obj, dict) and set(obj) == {META_KEY}


def _owner(meta: dict[str, Any]) -> tuple[str, str, str]:
    engine = meta.get("engine") or {}
    return (
        str(engine.get("name", "")),
        str(engine.get("version", "")),
        str(meta.get("rules_version", "")),
    )


def _label(owner: tuple[str, str, str]) -> str:
    name, version, rules = owner
    return terminal_safe(f"{name} {version}".strip() or "(unnamed)", 200) + (
        f" (rules {terminal_safe(rules, 50)})" if rules else ""
    )


@dataclass
class ResultsFile:
    """One run: its results in file order (one per case id) and its meta line, if any."""

    path: str
    results: list[Result]
    meta: dict[str, Any] | None = None
    duplicates: list[str] = field(default_factory=list)  # case ids seen twice (last kept)
    lines: int = 0  # lines read (results and meta)
    duplicate_lines: int = 0  # results replaced by a later one of the same case

    @property
    def engine_name(self) -> str:
        engine = (self.meta or {}).get("engine") or {}
        if engine.get("name"):
            return str(engine["name"])
        names = [r.engine for r in self.results if r.engine]
        return names[-1] if names else Path(self.path).stem

    @property
    def engine_version(self) -> str:
        engine = (self.meta or {}).get("engine") or {}
        return str(engine.get("version", ""))

    @property
    def label(self) -> str:
        """`palconf run --label`: a free label of the run ("" when none)."""
        found = (self.meta or {}).get("label")
        return found if isinstance(found, str) else ""

    @property
    def date(self) -> str:
        return str((self.meta or {}).get("date", ""))

    @property
    def result_count(self) -> int:
        """How many results the run holds (a summary of it keeps the count alone)."""
        return len(self.results)

    @property
    def completeness(self) -> Completeness:
        """Whole, partial or unfinished (`results_meta.completeness`)."""
        return completeness(self.meta, self.result_count)

    @property
    def rules_version(self) -> str:
        """The rules version the run was judged against (its meta line's `rules_version`),
        `UNKNOWN_RULES` when the file does not say: never the checkout's."""
        found = (self.meta or {}).get("rules_version")
        return found if isinstance(found, str) and found else UNKNOWN_RULES

    def mismatch(self, name: str, version: str, rules_version: str) -> str | None:
        """Why a run of engine `name` `version` against `rules_version` must not add to
        this file, or None (the file has no results yet, or they are that run's)."""
        if not self.results:
            return None
        if self.meta is None:
            return "its results have no meta line, so whose they are is unknown"
        was_name, was_version, rules = _owner(self.meta)
        if (was_name, was_version) != (name, version):
            return (
                f"its results are from the engine {_label((was_name, was_version, ''))}, "
                f"this run's engine is {_label((name, version, ''))}"
            )
        return self.rules_mismatch(rules_version)

    def rules_mismatch(self, rules_version: str) -> str | None:
        """Why a run against `rules_version` must not add to this file, or None. Unlike an
        engine's name, this is never waived (`--resume-other-engine`): the file's one
        `rules_version` says whose cases and oracle every result in it was judged by."""
        if not self.results or self.meta is None:
            return None
        rules = _owner(self.meta)[2]
        if rules and rules != rules_version:
            return (
                f"its results were judged against rules {terminal_safe(rules, 50)}, "
                f"this run's are {rules_version}"
            )
        return None


def duplicates_warning(run: ResultsFile) -> str | None:
    """The one warning of a file that records cases more than once (`report`, `summary`,
    `site`, `run --resume`, the action), or None; each says it after its own name."""
    if not run.duplicates:
        return None
    return (
        f"warning: {terminal_safe(run.path, 300)}: {len(run.duplicates)} case(s) "
        f"recorded more than once ({run.duplicate_lines:,} result line(s) replaced by a "
        f"later one); the last result of each is used"
    )


def summary_only(r: Result) -> Result:
    """What `summary` keeps of a result: what it prints (no differences, no stderr)."""
    return Result(
        r.id,
        r.outcome,
        r.keywords,
        r.clauses,
        rules=r.rules,
        message=r.message if r.outcome == Outcome.SKIP else "",
        engine=r.engine,
    )


def parse_lines(
    lines: Iterable[str],
    path: str,
    *,
    mixed_ok: bool = False,
    keep: Callable[[Result], Result] | None = None,
) -> ResultsFile:
    """Results and meta from the lines of a results file, by the one "whose results" rule
    (the module). Blank lines are skipped. `keep`: what to keep of each result (all of it)."""
    by_id: dict[str, Result] = {}
    duplicates: dict[str, None] = {}
    replaced = 0
    meta: dict[str, Any] | None = None
    meta_at = 0
    first_result = 0
    n = 0
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            # engines' text may hold lone surrogates (valid JSON, not UTF-8): escaped here,
            # once, so that no report writer meets one (an ASCII line has none but where
            # it escapes one: `\ud800`)
            obj = json_read.loads(line)
            if not line.isascii() or ("\\u" in line and _SURROGATE_ESCAPE.search(line)):
                obj = without_surrogates(obj)
        except ValueError as e:
            raise ResultsError(f"{path}:{n}: not JSON: {_json_problem(e)}") from None
        if meta is None and not first_result and is_transcript_header(obj):
            raise NotResults(f"{path}: a transcript, not a results file (palconf replay reads it)")
        if is_meta(obj):
            m = obj[META_KEY]
            if not isinstance(m, dict):
                raise ResultsError(f"{path}:{n}: the meta line's `meta` must be an object")
            problem = meta_problem(m)
            if problem:
                raise ResultsError(f"{path}:{n}: the meta line's {problem}")
            if meta is None:
                if first_result and not mixed_ok:
                    raise ResultsError(
                        f"{path}:{n}: a meta line after results ({path}:{first_result}) "
                        f"that have none: the file mixes runs (two files joined?); split "
                        f"it, or allow mixed files"
                    )
                meta, meta_at = m, n
            elif _owner(m) != _owner(meta) and not mixed_ok:
                raise ResultsError(
                    f"{path}:{n}: the file mixes runs: its meta line {meta_at} names "
                    f"{_label(_owner(meta))}, line {n} names {_label(_owner(m))} (two files "
                    f"joined?); split it, or allow mixed files"
                )
            continue
        try:
            result = Result.from_json(obj)
        except ValueError as e:
            raise ResultsError(f"{path}:{n}: {terminal_safe(e, 300)}") from None
        first_result = first_result or n
        if keep is not None:
            result = keep(result)
        if result.id in by_id:
            duplicates[result.id] = None
            replaced += 1
            del by_id[result.id]  # keep the last one, in the position it was last written
        by_id[result.id] = result
    return ResultsFile(path, list(by_id.values()), meta, list(duplicates), n, replaced)


def _json_problem(e: ValueError) -> str:
    if isinstance(e, json.JSONDecodeError):
        return f"{e.msg} (column {e.colno})"
    return str(e)


def read_results(
    path: Path, *, mixed_ok: bool = False, keep: Callable[[Result], Result] | None = None
) -> ResultsFile:
    """Read one results file, as a stream; `ResultsError` if it is missing, not a regular
    file, has a line over the bound, or is malformed or mixed."""
    lines = json_read.read_lines(path, ResultsError, "a results file")
    return parse_lines(lines, str(path), mixed_ok=mixed_ok, keep=keep)


def from_json_objects(
    objs: Iterable[dict[str, Any]], meta: dict[str, Any] | None, path: str = "(this run)"
) -> ResultsFile:
    """A `ResultsFile` from in-memory result objects (`Result.to_json()`), for `run --report`."""
    lines = [meta_line(meta)] if meta is not None else []
    lines += [json_read.dumps_strict(o) for o in objs]
    return parse_lines(lines, path)


# ---------------------------------------------------------------- writing


class ResultsWriter:
    """A results file open for a run, locked until `close`. `resumed` is what it already
    held (with `resume`), by the one rule."""

    def __init__(self, path: Path, stream: Stream, resumed: ResultsFile) -> None:
        self.path, self.stream, self.resumed = path, stream, resumed
        self._meta_due = resumed.lines == 0

    @property
    def regular(self) -> bool:
        """A regular file (which can be read back), not a device or FIFO."""
        return self.stream.regular

    @classmethod
    def open(cls, path: Path, *, resume: bool, mixed_ok: bool = False) -> ResultsWriter:
        stream = open_stream(path)
        try:
            if stream.regular:
                _lock(stream, path)
            resumed = _resume(path, mixed_ok) if resume and stream.regular else None
            if resumed is None:
                stream.truncate()
                resumed = ResultsFile(str(path), [])
            return cls(path, stream, resumed)
        except BaseException:
            stream.close()
            raise

    def write_meta(self, meta: dict[str, Any]) -> None:
        """The meta line, once the engine has said hello: unless the file already has lines
        (a resumed run keeps its first meta line)."""
        if self._meta_due:
            self.stream.write(meta_line(meta))
            self._meta_due = False

    def write_result(self, result: Result) -> None:
        self.stream.write(json_read.dumps_strict(result.to_json(), sort_keys=True) + "\n")

    def close(self) -> None:
        self.stream.close()  # (closing the file releases the lock)


def _lock(stream: Stream, path: Path) -> None:
    try:
        fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise ResultsError(
                f"{path}: another palconf run is writing this results file; wait for it to "
                f"end, or choose another --results FILE"
            ) from None
        # a file system without locks: go on unlocked


def _resume(path: Path, mixed_ok: bool) -> ResultsFile:
    """What the file holds, for `--resume`, read as a stream. A last line without its end of
    line (the run was killed while writing it) is cut off the file, so its case runs again."""
    ends = {"complete": 0, "unfinished": 0}

    def complete_lines() -> Iterator[str]:
        for raw in json_read.read_raw_lines(path, ResultsError, "a results file"):
            if not raw.endswith(b"\n"):
                ends["unfinished"] = len(raw)
                return
            ends["complete"] += len(raw)
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError as e:
                at = ends["complete"] - len(raw) + e.start
                raise ResultsError(f"{path}: not UTF-8 text ({e.reason} at byte {at})") from None

    found = parse_lines(complete_lines(), str(path), mixed_ok=mixed_ok)
    warning = duplicates_warning(found)
    if warning:
        print(f"palconf run: {warning}", file=sys.stderr)
    if ends["unfinished"]:
        try:
            os.truncate(path, ends["complete"])
        except OSError as e:
            raise ResultsError(
                f"{path}: cannot cut the unfinished last line off: {e.strerror or e}"
            ) from None
        print(
            f"palconf: {path}: dropped an unfinished last line ({ends['unfinished']} bytes); "
            f"its case runs again",
            file=sys.stderr,
        )
    return found
