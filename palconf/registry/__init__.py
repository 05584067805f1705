"""The rules as data: `rules/registry.toml` (keywords, clauses, base rules, interpretations)
and the rules text of each version under `rules/<version>/`.

Versions are listed in `[versions]` in the order they were published; `meta.current` is the
one a command uses when told no other (`--rules`, an engine's `hello`). Each version's
`clauses.toml` gives the text of every clause it has, and for a clause whose text differs
from the version before, what the change is (`change`: `editorial`, `substantive`, or
`pending` until someone reviews it); a clause the version drops may say which clause it was
merged into (`[removed]`). From these the registry derives each clause's life, version by
version (`Clause.life`). Each version names its oracle (`oracle = "module:Class"`, a
`palconf.oracle.Rules` subclass); one that names none uses the oracle of the version before,
so an editorial-only version needs no code.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from palconf import paths
from palconf.core import json_read
from palconf.core.outcomes import BASE, PROTOCOL
from palconf.registry.files import (
    CHANGES,
    LIVING,
    RegistryError,
    VersionClauses,
    clause_hash,
    same_text,
    version_clauses,
)
from palconf.registry.files import Reader as _Reader
from palconf.registry.files import (
    lives as lives_of,
)

if TYPE_CHECKING:
    from palconf.oracle import Rules

__all__ = [
    "BASE",
    "CHANGES",
    "LIVING",
    "PROTOCOL",
    "Clause",
    "Registry",
    "RegistryError",
    "clause_hash",
    "load",
    "same_text",
]


@dataclass(frozen=True)
class Clause:
    id: str
    keyword: str
    testable: bool
    summary: str  # as of the version that added it; `summary_in` for a later one
    text: dict[str, str]  # version → the sentence(s) of the rules text
    #: version → `added`, `unchanged`, `editorial`, `substantive`, `pending`, `removed` or
    #: `merged` (the version dropped it; `merged_into` says into which clause). A version
    #: before the clause was added, or after it was removed, has no entry.
    life: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)  # version → summary from then on
    merged_into: dict[str, str] = field(default_factory=dict)  # version → clause id
    #: version → what merging it into `merged_into` did to the rule: `editorial` (its cases
    #: hold on, as of the clause it went into), `substantive`, or `pending` (not reviewed)
    merge_change: dict[str, str] = field(default_factory=dict)

    def in_version(self, version: str) -> bool:
        return version in self.text

    def changed_in(self, version: str) -> str | None:
        """`editorial`, `substantive` or `pending` when the clause's text changed in
        `version` (against the version before), else None."""
        life = self.life.get(version)
        return life if life in CHANGES else None


@dataclass(frozen=True)
class Registry:
    current: str
    keywords: dict[str, str]  # id → name, in the order of the rules text
    clauses: dict[str, Clause]
    base: dict[str, str]  # B-n → text
    protocol: dict[str, str]  # P-state, P-reasons, P-observed, P-legal → the protocol's text
    protocol_min: dict[str, int]  # P-… → how many cases `palconf coverage` asks for
    interpretations: dict[str, dict[str, object]]
    versions: dict[str, dict[str, str]] = field(default_factory=dict)  # in publication order
    #: keyword id → the ability `when` that names it (On Deploy: "deploy"); keywords
    #: written on a card have none
    keyword_when: dict[str, str] = field(default_factory=dict)
    #: keyword id → its heading in the rules text (`Brave (number)`)
    headings: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    # ------------------------------------------------------------------ versions

    def resolve(self, version: str | None) -> str:
        """`version`, checked; None → the current version. An unknown one is a
        `RegistryError` that lists the versions there are."""
        if version is None:
            return self.current
        if version not in self.versions:
            raise RegistryError(
                f"rules version {version!r} is not in this palconf "
                f"(it carries {', '.join(self.versions)})"
            )
        return version

    def index(self, version: str) -> int:
        return list(self.versions).index(self.resolve(version))

    def previous(self, version: str) -> str | None:
        """The version published before `version`, or None for the first."""
        i = self.index(version)
        return list(self.versions)[i - 1] if i else None

    def between(self, after: str, upto: str) -> list[str]:
        """The versions after `after`, up to and including `upto`, in order."""
        names = list(self.versions)
        return names[self.index(after) + 1 : self.index(upto) + 1]

    def clauses_in(self, version: str) -> list[Clause]:
        """The clauses that `version` has (text in it), in registry order."""
        return [c for c in self.clauses.values() if version in c.text]

    def keywords_in(self, version: str) -> list[str]:
        """The keywords of `version`: those with a clause in it, in registry order."""
        have = {c.keyword for c in self.clauses_in(version)}
        return [k for k in self.keywords if k in have]

    def summary_in(self, cid: str, version: str | None = None) -> str:
        """Clause `cid`'s summary as of `version` (default: current): the last one given at
        or before it."""
        clause = self.clauses[cid]
        names = list(self.versions)
        upto = names[: self.index(version or self.current) + 1]
        return next(
            (clause.summaries[v] for v in reversed(upto) if v in clause.summaries),
            clause.summary,
        )

    def title(self, version: str) -> str:
        return self.versions.get(version, {}).get("title", version)

    def oracle(self, version: str | None = None) -> type[Rules]:
        """The oracle's `Rules` class for `version` (default: current): the class the
        version names (`oracle = "module:Class"`), else the one of the version before; the
        first version's default is `palconf.oracle.Rules`."""
        from palconf.oracle import Rules

        names = list(self.versions)
        for v in reversed(names[: self.index(version or self.current) + 1]):
            ref = self.versions[v].get("oracle")
            if ref:
                return _import_rules(ref, f"versions.{v}.oracle", self.path, Rules)
        return Rules

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
        path = (root or paths.RULES) / v["file"]
        return json_read.read_text(path, RegistryError, "a rules text")


def _import_rules(ref: str, where: str, path: Path | None, base: type[Rules]) -> type[Rules]:
    """The class `module:Name` names, which must be a `Rules` subclass."""
    module, _, name = ref.partition(":")
    problem = None
    try:
        found = getattr(importlib.import_module(module), name) if name else None
    except ImportError as e:
        found, problem = None, f"cannot import {module!r}: {e}"
    except AttributeError:
        found, problem = None, f"{module!r} has no {name!r}"
    if problem is None and not (isinstance(found, type) and issubclass(found, base)):
        problem = f"{ref!r} is not a palconf.oracle.Rules subclass (write it as module:Class)"
    if problem is not None:
        raise RegistryError(f"the rules registry {path}: {where}: {problem}")
    assert isinstance(found, type)
    return found


@lru_cache(maxsize=4)
def load(path: Path | None = None) -> Registry:
    """The registry at `path` (default: `rules/registry.toml`), every table and field it needs
    checked as it is read: a `RegistryError` (exit 2) names the file and the field."""
    path = path or paths.RULES / "registry.toml"
    reader = _Reader(path)
    data = reader.data
    versions = reader.table(data, "versions", "versions")
    clause_table = reader.table(data, "clauses", "clauses")
    read: dict[str, VersionClauses] = {}
    for version in versions:
        meta = reader.table(versions, version, f"versions.{version}")
        reader.text(meta, "file", f"versions.{version}.file")
        if "oracle" in meta:
            reader.text(meta, "oracle", f"versions.{version}.oracle")
        read[version] = VersionClauses()
        if "clauses" in meta:  # rules/<version>/clauses.toml: clause id → text in that version
            name = reader.text(meta, "clauses", f"versions.{version}.clauses")
            read[version] = version_clauses(path.parent / name)
    lives = lives_of(reader, list(versions), read, set(clause_table))
    clauses = {}
    for cid in clause_table:
        c = reader.table(clause_table, cid, f"clauses.{cid}")
        testable = c.get("testable")
        if not isinstance(testable, bool):
            raise reader.fail(f"clauses.{cid}.testable", "must be true or false")
        keyword = reader.text(c, "keyword", f"clauses.{cid}.keyword")
        summary = reader.text(c, "summary", f"clauses.{cid}.summary", "")
        clauses[cid] = Clause(
            cid,
            keyword,
            testable,
            summary,
            text={v: r.text[cid] for v, r in read.items() if cid in r.text},
            life=lives[cid],
            summaries={v: r.summary[cid] for v, r in read.items() if cid in r.summary},
            merged_into={v: r.merged_into[cid] for v, r in read.items() if cid in r.merged_into},
            merge_change={v: r.merge_change[cid] for v, r in read.items() if cid in r.merged_into},
        )
    keywords = reader.table(data, "keywords", "keywords")
    for clause in clauses.values():
        if clause.keyword not in keywords:
            raise reader.fail(
                f"clauses.{clause.id}.keyword", f"names {clause.keyword!r}, not in [keywords]"
            )
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
    kw_tables = {k: reader.table(keywords, k, f"keywords.{k}") for k in keywords}
    return Registry(
        current=current,
        keywords={k: reader.text(e, "name", f"keywords.{k}.name") for k, e in kw_tables.items()},
        clauses=clauses,
        base={
            k: reader.text(reader.table(base, k, f"base.{k}"), "text", f"base.{k}.text")
            for k in base
        },
        protocol={k: reader.text(protocol[k], "text", f"protocol.{k}.text") for k in protocol},
        protocol_min=protocol_min,
        interpretations=dict(interpretations),
        versions={v: dict(m) for v, m in versions.items()},
        keyword_when={
            k: reader.text(e, "when", f"keywords.{k}.when")
            for k, e in kw_tables.items()
            if "when" in e
        },
        headings={
            k: reader.text(e, "heading", f"keywords.{k}.heading", e.get("name"))
            for k, e in kw_tables.items()
        },
        path=path,
    )
