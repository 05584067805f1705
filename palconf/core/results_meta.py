"""The meta line of a results file (palconf.core.results_file), checked: `meta_problem` says
why a meta line cannot be this palconf's. Fields are checked where present, so older meta
lines that leave some out (`bounds`, added with the bounds on what a result stores; `suite`
and `selection`, added with partial runs) are read as before.

A run's *completeness* (`completeness`, the one notion of it for every reader: `run`,
`summary`, `report`, `report --compare`, `site`) is made of its meta line and how many
results it holds, so a run the site keeps as a summary has it as a run read whole does:

    whole       every case of its suite selected, and every selected case has a result
    partial     the selection (`--keyword`, `--case`, `--exclude`) left cases of the suite
                out (meta `selection.left_out`): its rate is not the whole suite's
    unfinished  fewer results than the cases it selected (meta `cases`): it stopped early

`suite` (always, from `palconf run` on) is the suite the run's cases were selected from: how
many cases the rules version's suite in the cases folder holds, and the SHA-256 of their ids,
sorted, one a line (`suite_digest`). `selection` (only when the selection left cases of the
suite out) holds `by`, the options that selected, as given (`--exclude taunt`), and
`left_out`, the ids of the suite it left out, sorted (`selection_meta`):

    "suite": {"cases": 341, "digest": "<sha256>"},
    "selection": {"by": ["--exclude taunt"], "left_out": ["taunt-1", ...]}

What the site keeps of a run (`summary_meta`) has, in place of `left_out`, how many ids it
held (`left_out_count`): a run's completeness is the same, its size is not the suite's.

A run may be both partial and unfinished. A meta line without `suite` (older files) is never
partial (whether its selection left cases out is unknown: `suite_known` is False); one
without `cases` is never unfinished.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from palconf.core import json_read
from palconf.core.outcomes import bounds
from palconf.core.text import terminal_safe

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Completeness",
    "completeness",
    "meta_problem",
    "run_meta",
    "selection_meta",
    "suite_digest",
    "summary_meta",
    "utc_now",
]

FORMAT = "palconf-results"
FORMAT_VERSION = 1

_TEXT = ("format", "palconf", "rules_version", "date", "label")
_ENGINE_TEXT = ("name", "version")


def utc_now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def run_meta(
    engine_name: str,
    engine_version: str,
    engine_keywords: Iterable[str],
    rules_version: str,
    cases: int,
    date: str | None = None,
    *,
    suite: Collection[str] | None = None,
    selected: Collection[str] = (),
    by: Sequence[str] = (),
) -> dict[str, Any]:
    """The meta line's content for a run; with `suite` (the ids of the suite the cases were
    selected from), its `suite` and, when `selected` (their ids) leaves some out,
    `selection` with the options that selected (`by`, as given)."""
    extra = selection_meta(suite, selected, by) if suite is not None else {}
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "palconf": _palconf_version(),
        "protocol": 1,
        "engine": {
            "name": engine_name,
            "version": engine_version,
            "keywords": sorted(engine_keywords),
        },
        "rules_version": rules_version,
        "date": date or utc_now(),
        "cases": cases,
        "bounds": bounds(),
        **extra,
    }


def _palconf_version() -> str:
    """palconf's version (`palconf.__version__`, read from the installed package's metadata:
    this module stays below the `palconf` package's face)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("palconf")
    except PackageNotFoundError:
        return "unknown"


def meta_problem(meta: dict[str, Any]) -> str | None:
    """Why a meta line cannot be this palconf's (a field of the wrong type, a count below
    0, a format or format version it does not read), or None. Fields are checked where
    present: a meta line that leaves one out is read as before."""

    for key in _TEXT:
        if key in meta and not isinstance(meta[key], str):
            return f"`{key}` must be a string, not {_shown(meta[key])}"
    if "format" in meta and meta["format"] != FORMAT:
        return f"`format` is {_shown(meta['format'])}: not a palconf results file ({FORMAT!r})"
    version = meta.get("format_version", FORMAT_VERSION)
    if not _count(version) or version < 1:
        return f"`format_version` must be a whole number from 1, not {_shown(version)}"
    if version > FORMAT_VERSION:
        return (
            f"`format_version` is {version}: written by a newer palconf (this one reads "
            f"version {FORMAT_VERSION}); upgrade palconf to read it"
        )
    for key in ("cases", "protocol"):
        if key in meta and not _count(meta[key]):
            return f"`{key}` must be a whole number from 0, not {_shown(meta[key])}"
    found = meta.get("bounds", {})
    if not isinstance(found, dict) or not all(_count(v) for v in found.values()):
        return f"`bounds` must be an object of whole numbers from 0, not {_shown(found)}"
    problem = _suite_problem(meta)
    if problem:
        return problem
    engine = meta.get("engine")
    if engine is None:
        return None
    if not isinstance(engine, dict):
        return "`engine` must be an object"
    for key in _ENGINE_TEXT:
        if key in engine and not isinstance(engine[key], str):
            return f"`engine.{key}` must be a string, not {_shown(engine[key])}"
    words = engine.get("keywords", [])
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return f"`engine.keywords` must be a list of strings, not {_shown(words)}"
    return None


def _shown(value: Any) -> str:
    """A value of a meta line as a message quotes it: JSON, safe for a terminal, short."""
    return terminal_safe(json_read.dumps_strict(value), 60)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _suite_problem(meta: dict[str, Any]) -> str | None:
    """Why `suite` or `selection` (where present) is not what `selection_meta` writes."""

    suite = meta.get("suite")
    if suite is not None:
        if not isinstance(suite, dict):
            return f"`suite` must be an object, not {_shown(suite)}"
        if not _count(suite.get("cases")):
            return f"`suite.cases` must be a whole number from 0, not {_shown(suite.get('cases'))}"
        if not isinstance(suite.get("digest"), str):
            return f"`suite.digest` must be a string, not {_shown(suite.get('digest'))}"
    selection = meta.get("selection")
    if selection is None:
        return None
    if not isinstance(selection, dict):
        return f"`selection` must be an object, not {_shown(selection)}"
    for key in ("by", "left_out"):
        found = selection.get(key, [])
        if not isinstance(found, list) or not all(isinstance(v, str) for v in found):
            return f"`selection.{key}` must be a list of strings, not {_shown(found)}"
    if not _count(found := selection.get("left_out_count", 0)):
        return f"`selection.left_out_count` must be a whole number from 0, not {_shown(found)}"
    return None


def summary_meta(meta: dict[str, Any] | None) -> dict[str, Any] | None:
    """`meta` as a summary keeps it: `selection.left_out` (the ids: tens of kilobytes for a
    `--keyword` run) as `left_out_count`, so that what is kept of a run stays small."""
    selection = (meta or {}).get("selection")
    if meta is None or not isinstance(selection, dict) or "left_out" not in selection:
        return meta
    ids = selection["left_out"]
    kept = {k: v for k, v in selection.items() if k != "left_out"}
    return {**meta, "selection": {**kept, "left_out_count": len(ids)}}


def suite_digest(ids: Collection[str]) -> str:
    """The SHA-256 of a suite's case ids, sorted, one a line: two runs of the same suite
    have the same digest."""
    return hashlib.sha256("".join(f"{i}\n" for i in sorted(ids)).encode("utf-8")).hexdigest()


def selection_meta(
    suite: Collection[str], selected: Collection[str], by: Sequence[str]
) -> dict[str, Any]:
    """The meta line's `suite` (always) and `selection` (when the selection left cases of
    the suite out: the options that selected, as given, and the ids left out, sorted)."""
    out: dict[str, Any] = {"suite": {"cases": len(suite), "digest": suite_digest(suite)}}
    chosen = set(selected)
    left_out = sorted(i for i in suite if i not in chosen)
    if left_out:
        out["selection"] = {"by": list(by), "left_out": left_out}
    return out


@dataclass(frozen=True)
class Completeness:
    """How much of its suite a run covers (the module): made by `completeness`."""

    results: int  # results it holds
    selected: int | None  # cases it selected (meta `cases`), None when unknown
    suite: int | None  # cases of its suite (meta `suite.cases`), None when unknown
    digest: str = ""  # its suite's digest ("" when unknown)
    left_out: tuple[str, ...] = ()  # ids of the suite its selection left out
    left_out_count: int = 0  # how many (the ids are not kept in a summary: `summary_meta`)
    by: tuple[str, ...] = ()  # the options that selected (`--exclude taunt`)

    @property
    def suite_known(self) -> bool:
        return self.suite is not None

    @property
    def partial(self) -> bool:
        return self.left_out_count > 0

    @property
    def unfinished(self) -> bool:
        return self.selected is not None and self.results < self.selected

    @property
    def whole(self) -> bool:
        return not self.partial and not self.unfinished

    @property
    def mark(self) -> str:
        """`partial`, `unfinished`, `partial, unfinished`, or "" for a whole run."""
        return ", ".join(
            w for w, on in (("partial", self.partial), ("unfinished", self.unfinished)) if on
        )

    @property
    def state(self) -> str:
        """`whole`, `partial`, `unfinished` or `partial, unfinished` (what JSON says)."""
        return self.mark or "whole"

    @property
    def partial_words(self) -> str:
        """`partial: 1163 of the suite's 1245 cases selected, by --exclude taunt`, or ""."""
        if not self.partial or self.suite is None:
            return ""
        chosen = self.suite - self.left_out_count
        by = f", by {' '.join(self.by)}" if self.by else ""
        return f"partial: {chosen} of the suite's {self.suite} cases selected{by}"

    @property
    def unfinished_words(self) -> str:
        """`unfinished: 299 of the 1245 selected cases have a result`, or ""."""
        if not self.unfinished:
            return ""
        return f"unfinished: {self.results} of the {self.selected} selected cases have a result"

    @property
    def words(self) -> str:
        """Both in one line ("; " between), or "" for a whole run."""
        return "; ".join(w for w in (self.partial_words, self.unfinished_words) if w)

    def to_json(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "partial": self.partial,
            "unfinished": self.unfinished,
            "results": self.results,
            "selected": self.selected,
            "suite": self.suite,
            "left_out": self.left_out_count,
            "selected_by": list(self.by),
        }


def completeness(meta: dict[str, Any] | None, results: int) -> Completeness:
    """A run's completeness from its meta line (checked by `meta_problem`, or None) and how
    many results it holds."""
    m = meta or {}
    selected = m.get("cases")
    found = m.get("suite")
    suite: dict[str, Any] = found if isinstance(found, dict) else {}
    found = m.get("selection")
    sel: dict[str, Any] = found if isinstance(found, dict) else {}
    size = suite.get("cases")
    known = _count(size)
    ids = tuple(str(i) for i in sel.get("left_out") or ()) if known else ()
    return Completeness(
        results=results,
        selected=selected if _count(selected) else None,
        suite=size if known else None,
        digest=str(suite.get("digest", "")) if known else "",
        left_out=ids,
        left_out_count=(len(ids) or _int_or_0(sel.get("left_out_count"))) if known else 0,
        by=tuple(str(b) for b in sel.get("by") or ()),
    )


def _int_or_0(value: Any) -> int:
    return value if _count(value) else 0
