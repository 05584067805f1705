"""The rules as data: `rules/registry.toml` (keywords, clauses, base rules, interpretations)
and the rules text of each version under `rules/<version>/`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomli

from palconf import paths
from palconf.core.errors import UsageError
from palconf.core.outcomes import BASE, PROTOCOL

__all__ = ["BASE", "PROTOCOL", "Clause", "Registry", "RegistryError", "load"]


@dataclass(frozen=True)
class Clause:
    id: str
    keyword: str
    testable: bool
    summary: str
    text: dict[str, str]  # version → the sentence(s) of the rules text


@dataclass(frozen=True)
class Registry:
    current: str
    keywords: dict[str, str]  # id → name, in the order of the rules text
    clauses: dict[str, Clause]
    base: dict[str, str]  # B-n → text
    protocol: dict[str, str]  # P-state, P-reasons, P-observed, P-legal → the protocol's text
    protocol_min: dict[str, int]  # P-… → how many cases `palconf coverage` asks for
    interpretations: dict[str, dict[str, object]]
    versions: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def retired(self) -> dict[str, str]:
        """Interpretations withdrawn (`retired_by`): I-n → the ruling that stands instead. A
        retired id is never reused (ids are stable) and no case may cite it."""
        return {
            iid: str(entry["retired_by"])
            for iid, entry in self.interpretations.items()
            if "retired_by" in entry
        }

    @property
    def caseless(self) -> dict[str, str]:
        """Interpretations no case can test (`no_case`: why): points the specifications leave
        open where the readings give verdicts no one case could accept together. `palconf
        coverage` asks for no case of them."""
        return {
            iid: str(entry["no_case"])
            for iid, entry in self.interpretations.items()
            if "no_case" in entry
        }

    @property
    def testable(self) -> list[Clause]:
        return [c for c in self.clauses.values() if c.testable]

    @property
    def groups(self) -> list[str]:
        """Every group a case may be counted under: the keywords, `protocol`, `base`."""
        return [*self.keywords, PROTOCOL, BASE]

    def keyword_name(self, kid: str) -> str:
        names = {BASE: "Base rules", PROTOCOL: "Protocol v1"}
        return self.keywords.get(kid, names.get(kid, kid))

    def rule_text(self, rid: str) -> str:
        """The text of a base rule (B-n) or a protocol rule (P-…); "" if unknown."""
        return self.base.get(rid) or self.protocol.get(rid, "")

    def rules_text(self, version: str | None = None, root: Path | None = None) -> str:
        v = self.versions[version or self.current]
        return ((root or paths.RULES) / v["file"]).read_text(encoding="utf-8")


class RegistryError(UsageError):
    """The registry (or a clauses file it names) is missing, unreadable, not TOML, or lacks a
    table or field, or has one of the wrong type: the message names the file and the field."""


class _Reader:
    """Typed access to one TOML file's tables, each miss a `RegistryError` with the path."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.data = tomli.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise RegistryError(
                f"cannot read the rules registry {path}: {e.strerror or e}"
            ) from None
        except (UnicodeDecodeError, tomli.TOMLDecodeError) as e:
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


@lru_cache(maxsize=4)
def load(path: Path | None = None) -> Registry:
    """The registry at `path` (default: `rules/registry.toml`), every table and field it needs
    checked as it is read: a `RegistryError` (exit 2) names the file and the field."""
    path = path or paths.RULES / "registry.toml"
    reader = _Reader(path)
    data = reader.data
    versions = reader.table(data, "versions", "versions")
    clause_table = reader.table(data, "clauses", "clauses")
    texts: dict[str, dict[str, str]] = {cid: {} for cid in clause_table}
    for version, meta in versions.items():
        meta = reader.table(versions, version, f"versions.{version}")
        reader.text(meta, "file", f"versions.{version}.file")
        if "clauses" in meta:  # rules/<version>/clauses.toml: clause id → text in that version
            name = reader.text(meta, "clauses", f"versions.{version}.clauses")
            per = _Reader(path.parent / name)
            table = per.table(per.data, "clauses", "clauses", required=False)
            for cid in table:
                texts.setdefault(cid, {})[version] = per.text(table, cid, f"clauses.{cid}")
    clauses = {}
    for cid in clause_table:
        c = reader.table(clause_table, cid, f"clauses.{cid}")
        testable = c.get("testable")
        if not isinstance(testable, bool):
            raise reader.fail(f"clauses.{cid}.testable", "must be true or false")
        keyword = reader.text(c, "keyword", f"clauses.{cid}.keyword")
        summary = reader.text(c, "summary", f"clauses.{cid}.summary", "")
        clauses[cid] = Clause(cid, keyword, testable, summary, texts[cid])
    keywords = reader.table(data, "keywords", "keywords")
    base = reader.table(data, "base", "base")
    protocol = reader.table(data, "protocol", "protocol", required=False)
    protocol_min = {}
    for k in protocol:
        entry = reader.table(protocol, k, f"protocol.{k}")
        n = entry.get("min_cases", 1)
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise reader.fail(f"protocol.{k}.min_cases", "must be a whole number ≥ 0")
        protocol_min[k] = n
    interpretations = reader.table(data, "interpretations", "interpretations")
    for iid in interpretations:
        entry = reader.table(interpretations, iid, f"interpretations.{iid}")
        reader.text(entry, "text", f"interpretations.{iid}.text")
        if "no_case" in entry:
            reader.text(entry, "no_case", f"interpretations.{iid}.no_case")
        if "retired_by" in entry:
            by = reader.text(entry, "retired_by", f"interpretations.{iid}.retired_by")
            if by not in interpretations or by == iid or "retired_by" in interpretations[by]:
                raise reader.fail(
                    f"interpretations.{iid}.retired_by",
                    f"names {by!r}, which is not another interpretation in force",
                )
    current = reader.text(reader.table(data, "meta", "meta"), "current", "meta.current")
    if current not in versions:
        raise reader.fail("meta.current", f"names {current!r}, which is not in [versions]")
    return Registry(
        current=current,
        keywords={
            k: reader.text(reader.table(keywords, k, f"keywords.{k}"), "name", f"keywords.{k}.name")
            for k in keywords
        },
        clauses=clauses,
        base={
            k: reader.text(reader.table(base, k, f"base.{k}"), "text", f"base.{k}.text")
            for k in base
        },
        protocol={k: reader.text(protocol[k], "text", f"protocol.{k}.text") for k in protocol},
        protocol_min=protocol_min,
        interpretations=dict(interpretations),
        versions={v: dict(m) for v, m in versions.items()},
    )
