"""What the site's index holds (`reports.site_index`, `reports.site_history`), checked as it
is read: each helper gives the value, or raises ValueError naming what it should be."""

from __future__ import annotations

from typing import Any

__all__ = ["count", "obj", "string", "strings"]


def obj(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object")
    return value


def string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    return value


def strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{what} must be a list of strings")
    return list(value)


def count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{what} must be a count")
    return value
