"""The rules as data: `rules/registry.toml` (keywords, clauses, base rules, interpretations)
and the rules text of each version under `rules/<version>/`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import tomli

from palconf import paths
from palconf.core.outcomes import BASE, PROTOCOL

__all__ = ["BASE", "PROTOCOL", "Clause", "Registry", "load"]


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


@lru_cache(maxsize=4)
def load(path: Path | None = None) -> Registry:
    path = path or paths.RULES / "registry.toml"
    data = tomli.loads(path.read_text(encoding="utf-8"))
    texts: dict[str, dict[str, str]] = {cid: {} for cid in data["clauses"]}
    for version, meta in data["versions"].items():
        if "clauses" in meta:  # rules/<version>/clauses.toml: clause id → text in that version
            per = tomli.loads((path.parent / meta["clauses"]).read_text(encoding="utf-8"))
            for cid, text in per.get("clauses", {}).items():
                texts.setdefault(cid, {})[version] = text
    clauses = {
        cid: Clause(cid, c["keyword"], bool(c["testable"]), c.get("summary", ""), texts[cid])
        for cid, c in data["clauses"].items()
    }
    return Registry(
        current=data["meta"]["current"],
        keywords={k: v["name"] for k, v in data["keywords"].items()},
        clauses=clauses,
        base={k: v["text"] for k, v in data["base"].items()},
        protocol={k: v["text"] for k, v in data.get("protocol", {}).items()},
        protocol_min={k: int(v.get("min_cases", 1)) for k, v in data.get("protocol", {}).items()},
        interpretations=dict(data["interpretations"]),
        versions=dict(data["versions"]),
    )
