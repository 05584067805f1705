"""Rules updates: versions of section 12, clause-level alignment and diff, stale cases.

A version is a folder `rules/<version>/` with `section12.txt` (the text as published) and
`clauses.toml` (each clause id → the sentence(s) it stands for in that version). A case records
`rules_version` and `clause_hashes` (a short hash of each cited clause's text when the case
was last reviewed); when the current text of a clause no longer hashes the same, the case is
*stale* until someone re-reads it against the new text and blesses it.

Alignment of a new text to the clauses: each clause of the old version is looked for in the
new text's section of its keyword — first verbatim, then as the most similar run of
sentences (difflib); below a similarity threshold it is *removed*. Sentences that no clause
covers are *unassigned*: new text that needs a clause id.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli

from palconf.cases.loader import Case
from palconf.core import json_read
from palconf.core.errors import UsageError
from palconf.registry import Registry

HEADING = re.compile(r"^(?P<heading>[^\n#]+)#\s*$")
SIMILAR = 0.6  # below this a clause is removed rather than changed


def keyword_id(heading: str) -> str:
    """`Brave (number)` → `brave`, `On Deploy` → `on-deploy`."""
    name = re.sub(r"\s*\(.*?\)\s*", " ", heading).strip()
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


@dataclass
class Section:
    keyword: str
    heading: str
    body: str
    sentences: list[str]


def split_sentences(body: str) -> list[str]:
    out: list[str] = []
    for para in re.split(r"\n\s*\n|\n", body):
        para = para.strip()
        if not para:
            continue
        parts = re.split(r'(?:(?<=[.!?])|(?<=[.!?]["”’)]))\s+(?=[A-Z"“【])', para)
        out += [p.strip() for p in parts if p.strip()]
    return out


def parse_rules_text(text: str) -> dict[str, Section]:
    """The keyword sections of a published section 12: `Heading#` lines start them."""
    sections: dict[str, Section] = {}
    current: tuple[str, str] | None = None
    body: list[str] = []

    def close() -> None:
        if current:
            kid, heading = current
            b = "\n".join(body).strip()
            b = re.split(r"\n\s*Source:", "\n" + b)[0].strip()
            sections[kid] = Section(kid, heading, b, split_sentences(b))

    for line in text.splitlines():
        m = HEADING.match(line)
        if m:
            close()
            heading = m.group("heading").strip()
            current, body = (keyword_id(heading), heading), []
        elif current:
            body.append(line)
    close()
    return sections


@dataclass
class Version:
    """One version's clause texts and keyword sections."""

    name: str
    clauses: dict[str, str]  # clause id → text
    sections: dict[str, Section]
    unassigned: dict[str, list[str]] = field(default_factory=dict)  # keyword → sentences


def best_match(old: str, sentences: list[str]) -> tuple[float, str]:
    """The run of consecutive sentences most similar to `old`."""
    n = max(1, len(split_sentences(old)))
    best = (0.0, "")
    for size in {n, max(1, n - 1), n + 1}:
        for i in range(0, max(1, len(sentences) - size + 1)):
            cand = " ".join(sentences[i : i + size])
            ratio = difflib.SequenceMatcher(None, old, cand, autojunk=False).ratio()
            if ratio > best[0]:
                best = (ratio, cand)
    return best


def align(base: dict[str, str], keyword_of: dict[str, str], text: str, name: str) -> Version:
    """Find each clause of `base` (id → old text) in a new rules text."""
    sections = parse_rules_text(text)
    clauses: dict[str, str] = {}
    for cid, old in base.items():
        section = sections.get(keyword_of[cid])
        if section is None:
            continue  # the keyword is gone
        if old in section.body:
            clauses[cid] = old
            continue
        ratio, cand = best_match(old, section.sentences)
        if ratio >= SIMILAR:
            clauses[cid] = cand
    unassigned: dict[str, list[str]] = {}
    for kid, section in sections.items():
        used = " ".join(t for cid, t in clauses.items() if keyword_of.get(cid) == kid)
        rest = [s for s in section.sentences if s not in used]
        if rest:
            unassigned[kid] = rest
    return Version(name, clauses, sections, unassigned)


def load_version(registry: Registry, ref: str, rules_root: Path | None = None) -> Version:
    """A version by name (a folder under rules/) or a rules text file, aligned to the
    registry's current version."""
    keyword_of = {cid: c.keyword for cid, c in registry.clauses.items()}
    if ref in registry.versions:
        texts = {cid: c.text[ref] for cid, c in registry.clauses.items() if ref in c.text}
        v = Version(ref, texts, parse_rules_text(registry.rules_text(ref, rules_root)))
        v.unassigned = align(
            texts, keyword_of, registry.rules_text(ref, rules_root), ref
        ).unassigned
        return v
    path = Path(ref)
    if not path.is_file():
        raise FileNotFoundError(
            f"{ref!r} is neither a rules version ({', '.join(registry.versions)}) nor a file"
        )
    text = json_read.read_text(path, UsageError, "a rules text")  # (bounded, regular)
    if path.suffix == ".toml":  # a clauses.toml of the project's format
        data = tomli.loads(text)
        src = path.parent / "section12.txt"
        sections = (
            parse_rules_text(json_read.read_text(src, UsageError, "a rules text"))
            if src.exists()
            else {}
        )
        return Version(str(data.get("version", path.parent.name)), dict(data["clauses"]), sections)
    base = {
        cid: c.text[registry.current]
        for cid, c in registry.clauses.items()
        if registry.current in c.text
    }
    return align(base, keyword_of, text, path.name)


@dataclass
class ClauseChange:
    id: str
    keyword: str
    kind: str  # changed | added | removed
    old: str | None
    new: str | None
    cases: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "keyword": self.keyword,
            "kind": self.kind,
            "old": self.old,
            "new": self.new,
            "cases": self.cases,
        }


@dataclass
class RulesDiff:
    old: str
    new: str
    changes: list[ClauseChange]
    keywords_added: list[str]  # untested until cases exist
    keywords_removed: list[str]  # their cases are orphaned
    orphaned: list[str]  # cases citing a removed keyword or clause
    unassigned: dict[str, list[str]]  # new sentences no clause covers

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "changes": [c.to_json() for c in self.changes],
            "keywords_added": self.keywords_added,
            "keywords_removed": self.keywords_removed,
            "orphaned_cases": self.orphaned,
            "unassigned": self.unassigned,
        }


def citing(cases: Iterable[Case]) -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for case in cases:
        for cid in case.clauses:
            table.setdefault(cid, []).append(case.id)
    return table


def diff_versions(old: Version, new: Version, registry: Registry, cases: list[Case]) -> RulesDiff:
    cites = citing(cases)
    keyword_of = {cid: c.keyword for cid, c in registry.clauses.items()}
    changes: list[ClauseChange] = []
    order = {cid: i for i, cid in enumerate(registry.clauses)}
    for cid in sorted(
        set(old.clauses) | set(new.clauses), key=lambda c: (order.get(c, 1 << 30), c)
    ):
        a, b = old.clauses.get(cid), new.clauses.get(cid)
        if a == b:
            continue
        kind = "changed" if a is not None and b is not None else "added" if a is None else "removed"
        changes.append(
            ClauseChange(
                cid, keyword_of.get(cid, cid.split(".")[0]), kind, a, b, cites.get(cid, [])
            )
        )
    old_kw, new_kw = set(old.sections), set(new.sections)
    added = sorted(new_kw - old_kw)
    removed = sorted(old_kw - new_kw)
    gone = {c.id for c in changes if c.kind == "removed"}
    orphaned = sorted(
        {
            case.id
            for case in cases
            if any(cid in gone or keyword_of.get(cid) in removed for cid in case.clauses)
        }
    )
    unassigned = {
        k: fresh
        for k, v in new.unassigned.items()
        if (fresh := [s for s in v if s not in old.unassigned.get(k, [])])
    }
    return RulesDiff(old.name, new.name, changes, added, removed, orphaned, unassigned)


# ---------------------------------------------------------------- blessing


def bless_text(text: str, version: str | list[str], hashes: dict[str, str]) -> str:
    """Record `rules_version` (one version, or a list in order of publication) and
    `clause_hashes` in a case file's text, keeping the rest."""
    lines = [
        line
        for line in text.splitlines()
        if not re.match(r"^(rules_version|clause_hashes)\s*=", line)
    ]
    at = next(i for i, line in enumerate(lines) if re.match(r"^id\s*=", line)) + 1
    inline = ", ".join(f'"{k}" = "{v}"' for k, v in hashes.items())
    versions = [version] if isinstance(version, str) else version
    said = (
        f'"{versions[0]}"'
        if len(versions) == 1
        else "[" + ", ".join(f'"{v}"' for v in versions) + "]"
    )
    lines[at:at] = [f"rules_version = {said}", f"clause_hashes = {{ {inline} }}"]
    return "\n".join(lines) + "\n"
