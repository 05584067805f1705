"""Reading results files (JSON Lines written by `palconf run --results FILE`) and their meta line.

A results file holds one JSON object per case (`palconf.core.Result.to_json()`), after a first
*meta line*: an object whose only key is `"meta"`:

    {"meta": {"format": "palconf-results", "format_version": 1, "palconf": "0.1.0",
              "protocol": 1, "engine": {"name": "...", "version": "...", "keywords": [...]},
              "rules_version": "1.00", "date": "2026-08-01T12:00:00Z", "cases": 259}}

`palconf run` writes it once the engine has said hello, before any result: `engine` is what
`hello` answered, `date` when the run started, `cases` how many cases it selected (a file
with fewer results is an unfinished run). A resumed run appends to the file and keeps its
meta line. Readers skip meta lines wherever they are (if there are several, the last wins)
and accept files without one (older files): the engine's name then comes from the results'
`engine` field, or the file name. Every other line is a result, read as it is.

Results files are untrusted input: every result is read by `palconf.core.Result.from_json`,
which type-checks every field (a diff's side that is missing stays `MISSING`, apart from a
JSON null), and every problem is a `ResultsError` naming the file and line (never a
traceback).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from palconf.core import Result, without_surrogates
from palconf.core.errors import UsageError
from palconf.core.outcomes import BASE

__all__ = [
    "BASE",
    "FORMAT",
    "FORMAT_VERSION",
    "META_KEY",
    "Result",
    "ResultsError",
    "ResultsFile",
    "from_json_objects",
    "is_meta",
    "meta_line",
    "parse_lines",
    "parse_result",
    "read_results",
    "run_meta",
    "utc_now",
]

META_KEY = "meta"
FORMAT = "palconf-results"
FORMAT_VERSION = 1


class ResultsError(UsageError):
    """A results (or mutants) file cannot be read: the message says where and why."""


@dataclass
class ResultsFile:
    """One run: its results in file order (one per case id) and its meta line, if any."""

    path: str
    results: list[Result]
    meta: dict[str, Any] | None = None
    duplicates: list[str] = field(default_factory=list)  # case ids seen twice (last kept)

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


# ---------------------------------------------------------------- the meta line


def utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def run_meta(
    engine_name: str,
    engine_version: str,
    engine_keywords: Iterable[str],
    rules_version: str,
    cases: int,
    date: str | None = None,
) -> dict[str, Any]:
    """The meta line's content for a run that has just finished."""
    from palconf import __version__

    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "palconf": __version__,
        "protocol": 1,
        "engine": {
            "name": engine_name,
            "version": engine_version,
            "keywords": sorted(engine_keywords),
        },
        "rules_version": rules_version,
        "date": date or utc_now(),
        "cases": cases,
    }


def meta_line(meta: dict[str, Any]) -> str:
    return json.dumps({META_KEY: meta}, sort_keys=True) + "\n"


def is_meta(obj: Any) -> bool:
    return isinstance(obj, dict) and set(obj) == {META_KEY}


# ---------------------------------------------------------------- reading


def parse_result(obj: Any) -> Result:
    """A result object → `Result` (`palconf.core.Result.from_json`, which type-checks every
    field); ValueError says which field is wrong."""
    return Result.from_json(obj)


def parse_lines(lines: Iterable[str], path: str) -> ResultsFile:
    """Results and meta from the lines of a results file. Blank lines are skipped."""
    by_id: dict[str, Result] = {}
    duplicates: list[str] = []
    meta: dict[str, Any] | None = None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            # engines' text may hold lone surrogates (valid JSON, not UTF-8): escaped here,
            # once, so that no report writer meets one
            obj = without_surrogates(json.loads(line))
        except json.JSONDecodeError as e:
            raise ResultsError(f"{path}:{n}: not JSON: {e.msg} (column {e.colno})") from None
        if is_meta(obj):
            if not isinstance(obj[META_KEY], dict):
                raise ResultsError(f"{path}:{n}: the meta line's `meta` must be an object")
            m = obj[META_KEY]
            if m.get("engine") is not None and not isinstance(m.get("engine"), dict):
                raise ResultsError(f"{path}:{n}: the meta line's `engine` must be an object")
            meta = m
            continue
        try:
            result = parse_result(obj)
        except ValueError as e:
            raise ResultsError(f"{path}:{n}: {e}") from None
        if result.id in by_id:
            duplicates.append(result.id)
            del by_id[result.id]  # keep the last one, in the position it was last written
        by_id[result.id] = result
    return ResultsFile(path=path, results=list(by_id.values()), meta=meta, duplicates=duplicates)


def read_results(path: Path) -> ResultsFile:
    """Read one results file; `ResultsError` if it is missing or malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ResultsError(f"{path}: is a folder, not a results file") from None
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    return parse_lines(text.splitlines(), str(path))


def from_json_objects(
    objs: Iterable[dict[str, Any]], meta: dict[str, Any] | None, path: str = "(this run)"
) -> ResultsFile:
    """A `ResultsFile` from in-memory result objects (`Result.to_json()`), for `run --report`."""
    lines = [json.dumps(o) for o in objs]
    if meta is not None:
        lines.append(json.dumps({META_KEY: meta}))
    return parse_lines(lines, path)
