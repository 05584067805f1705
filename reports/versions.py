"""The order of one engine's runs: by version where its versions compare, else by date.

A run's version is its meta line's engine version (`palconf run --engine-version`, else what
the engine's `hello` said). When every run has a version and all of them are PEP 440
versions (`1.0`, `1.1rc1`, `2.0.post1`), they are ordered as PEP 440 orders them; else when
all are SemVer versions (`1.0.0-x.7.z.92`), as SemVer orders them; else by the meta line's
date. `Ordering.how` says which, in words a page can show. Runs of the same version are
ordered by date, then file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

__all__ = [
    "BY_DATE",
    "BY_PEP440",
    "BY_SEMVER",
    "Ordering",
    "order_runs",
    "pep440_key",
    "semver_key",
]

T = TypeVar("T")

BY_PEP440 = "by version (PEP 440)"
BY_SEMVER = "by version (SemVer)"
BY_DATE = "by date"

_SEMVER = re.compile(
    r"v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)


def pep440_key(version: str) -> Any | None:
    """A sort key of a PEP 440 version, or None if it is not one."""
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version)
    except InvalidVersion:
        return None


def semver_key(version: str) -> tuple[Any, ...] | None:
    """A sort key of a SemVer 2.0 version (build metadata ignored), or None if it is not one.
    A pre-release sorts before its release; its identifiers compare numbers as numbers,
    numbers before words, and a longer list after its prefix."""
    m = _SEMVER.fullmatch(version.strip())
    if m is None:
        return None
    major, minor, patch, pre = m.groups()
    core = (int(major), int(minor), int(patch))
    if pre is None:
        return (core, 1, ())
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (core, 0, ids)


@dataclass
class Ordering(Generic[T]):
    runs: list[T]  # oldest (lowest version) first
    how: str  # BY_PEP440, BY_SEMVER or BY_DATE
    why: str = ""  # with BY_DATE: why the versions were not used ("" when there is one run)

    @property
    def note(self) -> str:
        """`Runs ordered by version (PEP 440).` or `Runs ordered by date: …`."""
        return f"Runs ordered {self.how}" + (f": {self.why}." if self.why else ".")


def order_runs(
    runs: Sequence[T],
    version: Callable[[T], str],
    date: Callable[[T], str],
    path: Callable[[T], str],
) -> Ordering[T]:
    """The runs (of one engine) in order, and how they were ordered."""

    def by_date(r: T) -> tuple[str, str]:
        return (date(r), path(r))

    versions = [version(r).strip() for r in runs]
    if len(runs) < 2:
        return Ordering(sorted(runs, key=by_date), BY_DATE)
    if not all(versions):
        return Ordering(sorted(runs, key=by_date), BY_DATE, "some runs have no version")
    for how, key in ((BY_PEP440, pep440_key), (BY_SEMVER, semver_key)):
        keys = [key(v) for v in versions]
        if all(k is not None for k in keys):
            order = sorted(range(len(runs)), key=lambda i: (keys[i], by_date(runs[i])))
            return Ordering([runs[i] for i in order], how)
    odd = sorted({v for v in versions if pep440_key(v) is None and semver_key(v) is None})
    shown = ", ".join(repr(v[:40]) for v in odd[:3])
    why = (
        f"{shown} {'is' if len(odd) == 1 else 'are'} neither PEP 440 nor SemVer"
        if odd
        else "the versions mix PEP 440 and SemVer"
    )
    return Ordering(sorted(runs, key=by_date), BY_DATE, why)
