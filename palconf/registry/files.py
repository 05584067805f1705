"""Reading the registry's files: typed access to a TOML file's tables (each miss a
`RegistryError` naming the file and the field), a version's `clauses.toml`, and each
clause's life version by version."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli

from palconf.core import json_read
from palconf.core.errors import UsageError

__all__ = [
    "CHANGES",
    "HASH_LEN",
    "LIVING",
    "Reader",
    "RegistryError",
    "VersionClauses",
    "clause_hash",
    "lives",
    "same_text",
    "version_clauses",
]

#: What a clause's text change in a version is: the review's verdict, or `pending` before it.
CHANGES = ("editorial", "substantive", "pending")
#: A clause's life in a version: `added`, `unchanged`, one of CHANGES, `removed`, `merged`.
LIVING = ("added", "unchanged", *CHANGES)


def same_text(a: str, b: str) -> bool:
    return a.split() == b.split()


class RegistryError(UsageError):
    """The registry (or a clauses file it names) is missing, unreadable, not TOML, or lacks a
    table or field, or has one of the wrong type: the message names the file and the field."""


class Reader:
    """Typed access to one TOML file's tables, each miss a `RegistryError` with the path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        text = json_read.read_text(  # (bounded, a regular file)
            path, lambda m: RegistryError(f"cannot read the rules registry {m}"), "TOML"
        )
        try:
            self.data = tomli.loads(text)
        except tomli.TOMLDecodeError as e:
            raise RegistryError(f"the rules registry {path} is not valid TOML: {e}") from None

    def fail(self, where: str, what: str) -> RegistryError:
        return RegistryError(f"the rules registry {self.path}: {where}: {what}")

    def table(
        self, parent: dict[str, Any], key: str, where: str, *, required: bool = True
    ) -> dict[str, Any]:
        value = parent.get(key, None if required else {})
        if value is None:
            raise self.fail(where, "missing")
        if not isinstance(value, dict):
            raise self.fail(where, f"must be a table, not {type(value).__name__}")
        return dict(value)

    def text(self, parent: dict[str, Any], key: str, where: str, default: str | None = None) -> str:
        value = parent.get(key, default)
        if value is None:
            raise self.fail(where, "missing")
        if not isinstance(value, str):
            raise self.fail(where, f"must be a string, not {type(value).__name__}")
        return str(value)


HASH_LEN = 12


def clause_hash(text: str) -> str:
    """The short hash a case records of a clause's text when it is blessed, and a review of
    the text it reviewed (white space folded, so re-wrapping a sentence changes nothing)."""
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:HASH_LEN]


@dataclass
class VersionClauses:
    """One version's clauses file, as read: text, declared change and summary per clause,
    and the clauses it drops with what they were merged into."""

    text: dict[str, str] = field(default_factory=dict)
    change: dict[str, str] = field(default_factory=dict)
    summary: dict[str, str] = field(default_factory=dict)
    merged_into: dict[str, str] = field(default_factory=dict)
    merge_change: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)


def version_clauses(path: Path) -> VersionClauses:
    """`rules/<version>/clauses.toml`: each clause a string (its text) or a table `{text,
    change, summary, reviewed}` (`reviewed`: the hash of the text a review read; a text
    edited since is `pending` again, whatever `change` says); `[removed]` the clauses
    dropped, each `{merged_into = "id", change}` or `{}`."""
    per = Reader(path)
    out = VersionClauses()
    table = per.table(per.data, "clauses", "clauses", required=False)
    for cid, entry in table.items():
        where = f"clauses.{cid}"
        if isinstance(entry, str):
            out.text[cid] = entry
            continue
        entry = per.table(table, cid, where)
        out.text[cid] = per.text(entry, "text", f"{where}.text")
        if "change" in entry:
            change = per.text(entry, "change", f"{where}.change")
            if change not in CHANGES:
                raise per.fail(f"{where}.change", f"must be one of {', '.join(CHANGES)}")
            out.change[cid] = change
        if "summary" in entry:
            out.summary[cid] = per.text(entry, "summary", f"{where}.summary")
        if "reviewed" in entry:  # the hash of the text the review read (`rules review`)
            reviewed = per.text(entry, "reviewed", f"{where}.reviewed")
            if cid in out.change and reviewed != clause_hash(out.text[cid]):
                out.change[cid] = "pending"  # the text was edited after its review
        unknown = set(entry) - {"text", "change", "summary", "reviewed"}
        if unknown:
            raise per.fail(where, f"unknown field(s) {', '.join(sorted(unknown))}")
    removed = per.table(per.data, "removed", "removed", required=False)
    for cid in removed:
        entry = per.table(removed, cid, f"removed.{cid}")
        out.removed.add(cid)
        if "merged_into" in entry:
            out.merged_into[cid] = per.text(entry, "merged_into", f"removed.{cid}.merged_into")
            out.merge_change[cid] = per.text(entry, "change", f"removed.{cid}.change", "pending")
            if out.merge_change[cid] not in CHANGES:
                raise per.fail(f"removed.{cid}.change", f"must be one of {', '.join(CHANGES)}")
        elif "change" in entry:
            raise per.fail(f"removed.{cid}.change", "only a clause merged into another has one")
    return out


def lives(
    reader: Reader, order: list[str], read: dict[str, VersionClauses], known: set[str]
) -> dict[str, dict[str, str]]:
    """Each clause's life, version by version, checked: a clause changed or dropped in a
    version says so against the version before; ids are never reused."""
    lives: dict[str, dict[str, str]] = {cid: {} for cid in known}
    before: dict[str, str] = {}  # clause → its text in the version before
    gone: set[str] = set()
    for v in order:
        now = read[v]
        for cid in sorted(set(now.text) | now.removed | set(now.change)):
            if cid not in known:
                raise reader.fail(
                    f"versions.{v}.clauses",
                    f"clause {cid!r} is not in [clauses] of the registry",
                )
        for cid, text in now.text.items():
            where = f"versions.{v}: clause {cid}"
            if cid in gone:
                raise reader.fail(where, "was removed in an earlier version: ids are never reused")
            if cid in now.removed:
                raise reader.fail(where, "is both in [clauses] and in [removed]")
            if cid not in before:
                lives[cid][v] = "added"
            elif same_text(before[cid], text):
                if cid in now.change:
                    raise reader.fail(where, "has a `change` but its text did not change")
                lives[cid][v] = "unchanged"
            else:
                lives[cid][v] = now.change.get(cid, "pending")
        for cid in set(before) - set(now.text):
            lives[cid][v] = "merged" if cid in now.merged_into else "removed"
            into = now.merged_into.get(cid)
            if into is not None and into not in now.text:
                raise reader.fail(
                    f"versions.{v}: removed.{cid}.merged_into",
                    f"names {into!r}, which version {v} does not have",
                )
            gone.add(cid)
        for cid in now.removed - set(before):
            raise reader.fail(
                f"versions.{v}: removed.{cid}", "the version before has no such clause"
            )
        before = dict(now.text)
    return lives
