"""`palconf report --compare OLD NEW`: what changed between two runs, case by case.

For a rules update (same engine, new cases or changed expectations) or an engine release
(same cases, new engine version). Cases are matched by id:

    regressed   passed before (pass or xpass), fails now (fail, error, timeout or xfail)
    fixed       failed before, passes now
    new         only in NEW (with its outcome: a new failing case is listed first)
    removed     only in OLD
    changed     any other change of outcome (pass → skip, fail → error, skip → pass …)

A case whose outcome stayed the same is unchanged, even if its message changed. Each run
is of its own rules version (its results file's meta line, "unknown" when it names none);
two runs of different versions are compared all the same, with a note saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from palconf.core import FAILED, PASSED, Result, Tally, terminal_safe
from palconf.core.results_file import ResultsFile

from .render import markdown_environment, shorten


@dataclass(frozen=True)
class Change:
    id: str
    title: str
    keywords: tuple[str, ...]
    old: str | None  # outcome before (None: not in OLD)
    new: str | None  # outcome now (None: not in NEW)
    message: str = ""  # the NEW message (or the OLD one for a removed case)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "keywords": list(self.keywords),
            "old": self.old,
            "new": self.new,
            "message": self.message,
        }


@dataclass
class Comparison:
    old: ResultsFile
    new: ResultsFile
    regressed: list[Change] = field(default_factory=list)
    fixed: list[Change] = field(default_factory=list)
    new_cases: list[Change] = field(default_factory=list)
    removed: list[Change] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    unchanged: Tally = field(default_factory=Tally)
    keywords: list[tuple[str, Tally, Tally]] = field(default_factory=list)  # rate changed

    @property
    def sections(self) -> list[tuple[str, str, list[Change]]]:
        return [
            ("regressed", "Regressed: passed before, fail now", self.regressed),
            ("fixed", "Fixed: failed before, pass now", self.fixed),
            ("new", "New cases", self.new_cases),
            ("removed", "Removed cases", self.removed),
            ("changed", "Other changes of outcome", self.changed),
        ]

    @property
    def rules_differ(self) -> bool:
        """OLD and NEW are runs of different rules versions."""
        return self.old.rules_version != self.new.rules_version

    @property
    def rules_note(self) -> str:
        """A line saying that OLD and NEW are of different rules versions; "" if they are not."""
        if not self.rules_differ:
            return ""
        return (
            f"note: old is of rules {self.old.rules_version}, new of rules "
            f"{self.new.rules_version}: cases and verdicts may differ because the rules differ"
        )

    @staticmethod
    def describe(run: ResultsFile) -> str:
        meta = run.meta or {}
        parts = [" ".join(p for p in (run.engine_name, run.engine_version) if p)]
        parts.append(f"rules {run.rules_version}")
        parts.append(f"{len(run.results)} cases")
        if meta.get("date"):
            parts.append(str(meta["date"]))
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "old": {
                "source": self.old.path,
                "engine": self.old.engine_name,
                "version": self.old.engine_version,
                "rules_version": self.old.rules_version,
                "meta": self.old.meta,
            },
            "new": {
                "source": self.new.path,
                "engine": self.new.engine_name,
                "version": self.new.engine_version,
                "rules_version": self.new.rules_version,
                "meta": self.new.meta,
            },
            "rules_differ": self.rules_differ,
            "regressed": [c.to_json() for c in self.regressed],
            "fixed": [c.to_json() for c in self.fixed],
            "new_cases": [c.to_json() for c in self.new_cases],
            "removed": [c.to_json() for c in self.removed],
            "changed": [c.to_json() for c in self.changed],
            "unchanged": self.unchanged.to_json(),
            "keywords": {k: {"old": o.to_json(), "new": n.to_json()} for k, o, n in self.keywords},
        }


def _change(old: Result | None, new: Result | None) -> Change:
    r = new or old
    assert r is not None
    return Change(
        id=r.id,
        title=r.title,
        keywords=r.groups,
        old=old.outcome if old else None,
        new=new.outcome if new else None,
        message=r.message if new is None or new.outcome != "pass" else "",
    )


def compare(old: ResultsFile, new: ResultsFile) -> Comparison:
    c = Comparison(old=old, new=new)
    before = {r.id: r for r in old.results}
    after = {r.id: r for r in new.results}
    for cid in sorted(before.keys() | after.keys()):
        o, n = before.get(cid), after.get(cid)
        if o is None:
            c.new_cases.append(_change(None, n))
        elif n is None:
            c.removed.append(_change(o, None))
        elif o.outcome == n.outcome:
            c.unchanged.add(n.outcome)
        elif o.outcome in PASSED and n.outcome in FAILED:
            c.regressed.append(_change(o, n))
        elif o.outcome in FAILED and n.outcome in PASSED:
            c.fixed.append(_change(o, n))
        else:
            c.changed.append(_change(o, n))
    c.new_cases.sort(key=lambda ch: (ch.new not in FAILED, ch.id))
    tallies: dict[str, tuple[Tally, Tally]] = {}
    for side, results in ((0, old.results), (1, new.results)):
        for r in results:
            for k in r.groups:
                if k not in tallies:  # (not setdefault: two new tallies per result)
                    tallies[k] = (Tally(), Tally())
                tallies[k][side].add(r.outcome)
    c.keywords = [
        (k, o_t, n_t)
        for k, (o_t, n_t) in sorted(tallies.items())
        if (o_t.passed, o_t.ran) != (n_t.passed, n_t.ran)
    ]
    return c


def render_text(c: Comparison) -> str:
    lines = [
        f"old: {terminal_safe(c.describe(c.old))}  ({terminal_safe(c.old.path)})",
        f"new: {terminal_safe(c.describe(c.new))}  ({terminal_safe(c.new.path)})",
    ]
    if c.rules_differ:
        lines.append(terminal_safe(c.rules_note))
    lines.append("")
    for _, heading, changes in c.sections:
        lines.append(f"{heading}: {len(changes)}")
        for ch in changes:
            arrow = f"{ch.old or '-'} -> {ch.new or '-'}"
            lines.append(f"  {arrow:<18} {terminal_safe(ch.id)}")
            if ch.message and ch.new in FAILED:
                lines.append(f"  {'':<18} {terminal_safe(shorten(ch.message, 160))}")
        lines.append("")
    if c.keywords:
        lines.append("Keywords whose pass rate changed:")
        for k, o, n in c.keywords:
            lines.append(f"  {terminal_safe(k):<14} {o.fraction:>9} -> {n.fraction}")
        lines.append("")
    lines.append(
        f"Unchanged: {c.unchanged.total} ({c.unchanged.passed} passing, "
        f"{c.unchanged.failed} failing, {c.unchanged.skipped} skipped)"
    )
    return "\n".join(lines) + "\n"


def render_markdown(c: Comparison) -> str:
    return markdown_environment().get_template("compare.md.j2").render(c=c, FAILED=FAILED)
