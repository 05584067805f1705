"""The meta line of a results file (palconf.core.results_file), checked: `meta_problem` says
why a meta line cannot be this palconf's. Fields are checked where present, so older meta
lines that leave some out (`bounds`, added with the bounds on what a result stores) are read
as before."""

from __future__ import annotations

from typing import Any

from palconf.core import json_read
from palconf.core.text import terminal_safe

__all__ = ["FORMAT", "FORMAT_VERSION", "meta_problem"]

FORMAT = "palconf-results"
FORMAT_VERSION = 1

_TEXT = ("format", "palconf", "rules_version", "date", "label")
_ENGINE_TEXT = ("name", "version")


def meta_problem(meta: dict[str, Any]) -> str | None:
    """Why a meta line cannot be this palconf's (a field of the wrong type, a count below
    0, a format or format version it does not read), or None. Fields are checked where
    present: a meta line that leaves one out is read as before."""

    def shown(value: Any) -> str:
        return terminal_safe(json_read.dumps_strict(value), 60)

    for key in _TEXT:
        if key in meta and not isinstance(meta[key], str):
            return f"`{key}` must be a string, not {shown(meta[key])}"
    if "format" in meta and meta["format"] != FORMAT:
        return f"`format` is {shown(meta['format'])}: not a palconf results file ({FORMAT!r})"
    version = meta.get("format_version", FORMAT_VERSION)
    if not _count(version) or version < 1:
        return f"`format_version` must be a whole number from 1, not {shown(version)}"
    if version > FORMAT_VERSION:
        return (
            f"`format_version` is {version}: written by a newer palconf (this one reads "
            f"version {FORMAT_VERSION}); upgrade palconf to read it"
        )
    for key in ("cases", "protocol"):
        if key in meta and not _count(meta[key]):
            return f"`{key}` must be a whole number from 0, not {shown(meta[key])}"
    found = meta.get("bounds", {})
    if not isinstance(found, dict) or not all(_count(v) for v in found.values()):
        return f"`bounds` must be an object of whole numbers from 0, not {shown(found)}"
    engine = meta.get("engine")
    if engine is None:
        return None
    if not isinstance(engine, dict):
        return "`engine` must be an object"
    for key in _ENGINE_TEXT:
        if key in engine and not isinstance(engine[key], str):
            return f"`engine.{key}` must be a string, not {shown(engine[key])}"
    words = engine.get("keywords", [])
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return f"`engine.keywords` must be a list of strings, not {shown(words)}"
    return None


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
