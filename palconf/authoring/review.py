"""Reviewing a rules version: a clause's change signed off (`palconf rules review`), a case
blessed for a version (`palconf rules bless`), and what a version's oracle changes in the
verdicts of the suite (`palconf rules status`).

There is one notion of whether a case holds for a version: its standing
(`palconf.cases.standing`). This module adds what standing cannot see from the files alone:
the *behaviour* of the oracles. A case that cites no changed clause is valid for the new
version, yet the new oracle may give it another verdict (the 1.01 Brave, halved, changes
the verdict of a protocol case that merely has a Brave card on the board): such a case
would be run for the new version without anyone having read it again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli

from palconf.authoring.rulesdiff import parse_rules_text
from palconf.cases.loader import Case
from palconf.cases.standing import Standing, as_of, standing
from palconf.core.errors import UsageError
from palconf.engines.oracle_engine import oracle_of
from palconf.registry import CHANGES, Registry, clause_hash
from palconf.running.runner import run_case

__all__ = [
    "BehaviourChange",
    "Verdict",
    "behaviour_changes",
    "bless_refusal",
    "clauses_file",
    "mark_change",
    "verdicts",
    "version_keywords",
]

#: The verdicts a review may give a change (`pending` is the absence of one).
REVIEWED = tuple(c for c in CHANGES if c != "pending")


# ---------------------------------------------------------------- review: the clauses file


def clauses_file(registry: Registry, version: str) -> Path:
    """Where rules `version`'s clauses file is (`rules/<version>/clauses.toml`)."""
    name = registry.versions[version].get("clauses")
    if not name or registry.path is None:
        raise UsageError(f"rules {version} has no clauses file in its [versions] entry")
    return registry.path.parent / name


def _basic(text: str) -> str:
    """`text` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _inline(entry: dict[str, Any]) -> str:
    first = [k for k in ("text", "merged_into", "change", "reviewed", "summary") if k in entry]
    order = first + [k for k in entry if k not in first]
    return "{ " + ", ".join(f"{k} = {_basic(str(entry[k]))}" for k in order) + " }"


def _key(cid: str) -> str:
    return re.escape(_basic(cid)) + "|" + re.escape(f"'{cid}'")


def mark_change(
    text: str, cid: str, change: str, table: str = "clauses", summary: str | None = None
) -> str:
    """A clauses file's `text` with clause `cid`'s change set to `change` in `table`
    (`clauses`, or `removed` for a merge): the one entry rewritten (a plain string becomes
    `{ text = …, change = … }`; with `summary`, the clause's summary from this version on is
    set too), every other line as it was. The result is read back; an
    entry this cannot rewrite is a `UsageError`."""
    if change not in REVIEWED:
        raise ValueError(change)
    lines = text.splitlines(keepends=True)
    section = ""
    done = False
    entry_line = re.compile(rf"^\s*(?:{_key(cid)})\s*=\s*(?P<value>.*?)\s*$")
    own_table = re.compile(rf"^\s*\[\s*{table}\s*\.\s*(?:{_key(cid)})\s*\]\s*(#.*)?$")
    for i, line in enumerate(lines):
        header = re.match(r"^\s*\[(?P<name>[^\]]+)\]\s*(#.*)?$", line)
        if header:
            section = header.group("name").strip()
            if own_table.match(line):  # [clauses."cid"] with text = …, change = … below
                lines[i] = _table_change(lines, i, change)
                text_now = _entry("".join(lines), cid, table).get("text")
                if isinstance(text_now, str):
                    lines[i] = _table_set(lines, i, "reviewed", clause_hash(text_now))
                if summary is not None:
                    lines[i] = _table_set(lines, i, "summary", summary)
                done = True
                break
            continue
        if section != table:
            continue
        m = entry_line.match(line)
        if not m:
            continue
        try:
            value = tomli.loads("v = " + m.group("value"))["v"]
        except tomli.TOMLDecodeError:
            value = None  # a multi-line string: not rewritten here
        if isinstance(value, str):
            value = {"text": value}
        if not isinstance(value, dict):
            break
        value["change"] = change
        if table == "clauses" and isinstance(value.get("text"), str):
            value["reviewed"] = clause_hash(value["text"])  # the text this review read
        if summary is not None:
            value["summary"] = summary
        end = "\n" if line.endswith("\n") else ""
        lines[i] = f"{_basic(cid)} = {_inline(value)}{end}"
        done = True
        break
    out = "".join(lines)
    entry = _entry(out, cid, table)
    if not done or entry.get("change") != change or summary not in (None, entry.get("summary")):
        raise UsageError(
            f"cannot rewrite the entry of clause {cid} in the clauses file: write "
            f'`change = "{change}"` into it by hand'
        )
    return out


def _table_set(lines: list[str], at: int, key: str, value: str) -> str:
    """Set `key` in the table starting at line `at` (as `_table_change` does `change`)."""
    for j in range(at + 1, len(lines)):
        if re.match(r"^\s*\[", lines[j]):
            break
        if re.match(rf"^\s*{key}\s*=", lines[j]):
            lines[j] = f"{key} = {_basic(value)}\n"
            return lines[at]
    return lines[at].rstrip("\n") + f"\n{key} = {_basic(value)}\n"


def _table_change(lines: list[str], at: int, change: str) -> str:
    """Set `change` in the table `[clauses."cid"]` starting at line `at`; returns the header
    line (with the new `change` line after it when the table had none)."""
    for j in range(at + 1, len(lines)):
        if re.match(r"^\s*\[", lines[j]):
            break
        if re.match(r"^\s*change\s*=", lines[j]):
            lines[j] = f'change = "{change}"\n'
            return lines[at]
    return lines[at].rstrip("\n") + f'\nchange = "{change}"\n'


def _entry(text: str, cid: str, table: str = "clauses") -> dict[str, Any]:
    try:
        entry = tomli.loads(text).get(table, {}).get(cid)
    except tomli.TOMLDecodeError:
        return {}
    return entry if isinstance(entry, dict) else {}


# ---------------------------------------------------------------- verdicts on the oracles


@dataclass(frozen=True)
class Verdict:
    outcome: str  # pass, fail, error, skip, timeout
    message: str

    def __str__(self) -> str:
        return self.outcome + (f" ({self.message})" if self.message else "")

    def to_json(self) -> dict[str, str]:
        return {"outcome": self.outcome, "message": self.message}


def verdicts(cases: list[Case], registry: Registry, version: str) -> dict[str, Verdict]:
    """Each case's verdict on rules `version`'s oracle, in-process."""
    engine = oracle_of(version, registry)
    engine.start()
    out = {}
    for case in cases:
        result = run_case(engine, as_of(case, registry, version))
        out[case.id] = Verdict(str(result.outcome), result.message)
        if result.outcome != "pass":
            engine.start()  # a fresh session after a failure
    return out


@dataclass(frozen=True)
class BehaviourChange:
    """A case whose verdict on the version's oracle is not the one on the version before."""

    case: Case
    standing: Standing  # under the version
    before: Verdict  # on the previous version's oracle
    after: Verdict
    cites_changed: bool  # whether it cites a clause whose text changed in the version

    @property
    def unnoticed(self) -> bool:
        """Valid for the version, so run for it, although nobody read it again."""
        return self.standing.state == "valid"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.case.id,
            "path": self.case.path,
            "status": self.standing.state,
            "cites_changed": self.cites_changed,
            "unnoticed": self.unnoticed,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
        }


def behaviour_changes(
    cases: list[Case], registry: Registry, version: str
) -> tuple[str | None, list[BehaviourChange]]:
    """(the version before `version`, the cases of both versions' suites whose verdict
    differs between the two oracles — whether or not they cite a changed clause)."""
    before = registry.previous(version)
    if before is None:
        return None, []
    both = [
        c
        for c in cases
        if standing(c, registry, version).in_suite and standing(c, registry, before).in_suite
    ]
    old = verdicts(both, registry, before)
    new = verdicts(both, registry, version)
    changed = []
    for case in both:
        if old[case.id] != new[case.id]:
            cites = any(registry.clauses[cid].changed_in(version) for cid in case.clauses)
            changed.append(
                BehaviourChange(
                    case, standing(case, registry, version), old[case.id], new[case.id], cites
                )
            )
    return before, changed


# ---------------------------------------------------------------- blessing


def bless_refusal(case: Case, registry: Registry, version: str, verdict: Verdict) -> str:
    """Why `case` may not be blessed for rules `version` ("" when it may): outside its
    since..until, citing a clause the version lacks, or not passing on its oracle
    (`verdict`)."""
    s = standing(case, registry, version)
    if s.out_of_range:
        return f"not of rules {version}: {s.out_of_range}"
    if s.orphaned:
        return (
            f"rules {version} has no {', '.join(s.orphaned)} (orphaned: give the case "
            "`until`, and a successor where the rule lives on)"
        )
    if verdict.outcome != "pass":
        return f"does not pass on the oracle of rules {version}: {verdict}"
    return ""


# ---------------------------------------------------------------- keywords of a version


def version_keywords(registry: Registry, version: str) -> tuple[list[str], list[str]]:
    """Keywords of rules `version`'s text that the registry has no clause of in it
    (untested), and keywords with clauses in it or the version before that its text lacks
    (removed)."""
    sections = set(parse_rules_text(registry.rules_text(version)))
    known = set(registry.keywords_in(version))
    before = registry.previous(version)
    had = known | (set(registry.keywords_in(before)) if before else set())
    return sorted(sections - known), sorted(had - sections)
