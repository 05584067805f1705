"""`palconf report --compare OLD NEW`: what changed between two runs, case by case.

For a rules update (same engine, new cases or changed expectations) or an engine release
(same cases, new engine version). Cases are matched by id:

    regressed       passed before (pass or xpass), fails now (fail, error, timeout or xfail)
    fixed           failed before, passes now
    new             new to the suite: only in NEW, and OLD's suite did not hold it (a new
                    failing case is listed first)
    removed         removed from the suite: only in OLD, and NEW's suite does not hold it
    not run in the older run   only in NEW, but OLD may have held it in its suite: OLD's
                    selection left it out (a partial run), OLD stopped before it (unfinished),
                    OLD's suite is NEW's (same digest), or OLD's file does not record its suite
    not run in the newer run   the same, the other way round
    changed         any other change of outcome (pass → skip, fail → error, skip → pass …)

Which runs are whole, partial or unfinished is `palconf.core.results_meta.completeness`, the
one notion every report shares. A case whose outcome stayed the same is unchanged, even if
its message changed. Each run is of its own rules version (its results file's meta line,
"unknown" when it names none); two runs of different versions are compared all the same,
with a note saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from palconf.core import FAILED, PASSED, Result, Tally, terminal_safe
from palconf.core.results_file import ResultsFile
from palconf.core.results_meta import Completeness

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
    not_run_old: list[Change] = field(default_factory=list)  # only in NEW, not new to the suite
    not_run_new: list[Change] = field(default_factory=list)  # only in OLD, not removed from it

    @property
    def sections(self) -> list[tuple[str, str, list[Change]]]:
        return [
            ("regressed", "Regressed: passed before, fail now", self.regressed),
            ("fixed", "Fixed: failed before, pass now", self.fixed),
            ("new", "New cases (new to the suite)", self.new_cases),
            ("removed", "Removed cases (removed from the suite)", self.removed),
            (
                "not_run_in_old",
                f"Not run in the older run ({_why_not_run(self.old, self.new)})",
                self.not_run_old,
            ),
            (
                "not_run_in_new",
                f"Not run in the newer run ({_why_not_run(self.new, self.old)})",
                self.not_run_new,
            ),
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
        parts.append(f"{run.result_count} cases")
        if meta.get("date"):
            parts.append(str(meta["date"]))
        words = run.completeness.words
        if words:
            parts.append(words)
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "old": {
                "source": self.old.path,
                "engine": self.old.engine_name,
                "version": self.old.engine_version,
                "rules_version": self.old.rules_version,
                "meta": self.old.meta,
                "completeness": self.old.completeness.to_json(),
            },
            "new": {
                "source": self.new.path,
                "engine": self.new.engine_name,
                "version": self.new.engine_version,
                "rules_version": self.new.rules_version,
                "meta": self.new.meta,
                "completeness": self.new.completeness.to_json(),
            },
            "rules_differ": self.rules_differ,
            "regressed": [c.to_json() for c in self.regressed],
            "fixed": [c.to_json() for c in self.fixed],
            "new_cases": [c.to_json() for c in self.new_cases],
            "removed": [c.to_json() for c in self.removed],
            "changed": [c.to_json() for c in self.changed],
            # in one run only, though the other run's suite may hold them (`compare`)
            "not_run_in_old": [c.to_json() for c in self.not_run_old],
            "not_run_in_new": [c.to_json() for c in self.not_run_new],
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


def _why_not_run(run: ResultsFile, other: ResultsFile) -> str:
    """Why a case of `other` may be in `run`'s suite though `run` has no result for it."""
    c = run.completeness
    if not c.suite_known:
        return "its results file does not record its suite"
    reasons = [c.words] if c.words else []
    if c.digest == other.completeness.digest:
        reasons.append("the same suite as the other run")
    return "; ".join(reasons) or "in its suite, no result"


def _maybe_held(run: Completeness, other: Completeness) -> Callable[[str], bool]:
    """Whether `run`'s suite may hold a case for which it has no result: its suite is
    unknown, it is unfinished, its suite is `other`'s (the same digest), or its selection
    left the case out. Otherwise its suite is its results and those it left out."""
    if not run.suite_known or run.unfinished or run.digest == other.digest:
        return lambda cid: True
    if run.partial and not run.left_out:  # (a summary's: the ids are not kept)
        return lambda cid: True
    left_out = set(run.left_out)
    return left_out.__contains__


def compare(old: ResultsFile, new: ResultsFile) -> Comparison:
    c = Comparison(old=old, new=new)
    before = {r.id: r for r in old.results}
    after = {r.id: r for r in new.results}
    old_held = _maybe_held(old.completeness, new.completeness)
    new_held = _maybe_held(new.completeness, old.completeness)
    for cid in sorted(before.keys() | after.keys()):
        o, n = before.get(cid), after.get(cid)
        if o is None:
            (c.not_run_old if old_held(cid) else c.new_cases).append(_change(None, n))
        elif n is None:
            (c.not_run_new if new_held(cid) else c.removed).append(_change(o, None))
        elif o.outcome == n.outcome:
            c.unchanged.add(n.outcome)
        elif o.outcome in PASSED and n.outcome in FAILED:
            c.regressed.append(_change(o, n))
        elif o.outcome in FAILED and n.outcome in PASSED:
            c.fixed.append(_change(o, n))
        else:
            c.changed.append(_change(o, n))
    c.new_cases.sort(key=lambda ch: (ch.new not in FAILED, ch.id))
    c.not_run_old.sort(key=lambda ch: (ch.new not in FAILED, ch.id))
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
    for key, heading, changes in c.sections:
        if key.startswith("not_run") and not changes:
            continue
        lines.append(f"{terminal_safe(heading)}: {len(changes)}")
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
