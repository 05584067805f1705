"""The report model: engines side by side, per group (keyword, protocol, base), clause,
interpretation and case, with their tallies (`palconf.core.Tally`). `reports.build` builds
it from results files; the renderers (`reports.html`, `.markdown`, `.junit`, `.badges`)
only read it. Every view has a `to_json` (what `results.json` holds).

How cases are counted:
- A case counts under every group it belongs to (`palconf.core.Result.groups`): each
  keyword it tests, `protocol` when it cites a protocol rule (P-…), `base` when neither.
- *Passed* is pass or xpass; *ran* is every outcome but skip (an engine lacking a keyword is
  not marked down for it); the rate is passed / ran.
- One way of counting for every report, the site, the badges and `palconf summary`: the
  headline figure is passed / ran over *all* the cases. A case citing an interpretation (I-n)
  "depends on a ruling" (palconf's reading of text that could be read otherwise); the report
  shows, beside the headline, how many of the cases are such, never instead of it.
- A percentage is rounded down, so an engine with any failure never shows 100%.

The rules version is each run's own (its results file's meta line; `unknown` when it names
none), never the checkout's: a clause's text is the one of that version. A report of runs of
different rules versions says so (`Report.mixed_rules`), and marks each engine's version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from palconf.core import FAILED, Outcome, Result, Tally
from palconf.core.causes import shared_cause
from palconf.core.outcomes import BASE, PROTOCOL, PROTOCOL_PREFIX
from palconf.core.results_file import UNKNOWN_RULES
from palconf.core.results_meta import Completeness, completeness

from .mutants import Mutant
from .names import slug
from .ordering import by_text

if TYPE_CHECKING:
    from .boards import BoardPair

REPORT_FORMAT = "palconf-report"
REPORT_FORMAT_VERSION = 1


@dataclass
class Cell:
    """One keyword (or clause, or interpretation) on one engine."""

    all: Tally = field(default_factory=Tally)
    text: Tally = field(default_factory=Tally)  # cases the rules text decides alone
    ruling: Tally = field(default_factory=Tally)  # cases that depend on an interpretation

    def add(self, r: Result) -> None:
        self.all.add(r.outcome)
        (self.ruling if r.depends_on_ruling else self.text).add(r.outcome)

    def to_json(self) -> dict[str, Any]:
        return {
            "all": self.all.to_json(),
            "rules_text": self.text.to_json(),
            "ruling": self.ruling.to_json(),
        }


# ---------------------------------------------------------------- the report model


@dataclass
class EngineRun:
    key: str  # a slug, unique in the report: badge file names, anchors, JSON keys
    tag: str  # "A", "B" (or "A1", "A2" for runs of one engine): `charts.run_marks`
    label: str  # what headings show: "name version"
    name: str
    version: str
    source: str
    meta: dict[str, Any] | None
    results: dict[str, Result]
    totals: Cell = field(default_factory=Cell)
    keywords: dict[str, Cell] = field(default_factory=dict)  # group → its cell
    duplicates: list[str] = field(default_factory=list)
    lacks: list[str] | None = None  # keywords of the rules the engine does not implement
    rules_version: str = UNKNOWN_RULES  # the run's own (its meta line), never the checkout's
    colour: str = ""  # the engine's colour in charts and tags (`charts.run_marks`)
    shade: float = 1.0  # its opacity: older runs of one engine are lighter
    #: whole, partial or unfinished (`palconf.core.results_meta`): its run's, read whole or
    #: a summary of the site's (`reports.build` gives it)
    completeness: Completeness = field(default_factory=lambda: completeness(None, 0))

    @property
    def meta_field(self) -> dict[str, str]:
        """The meta line's fields as display strings ("" when unknown)."""
        m = self.meta or {}
        found = m.get("engine")
        engine: dict[str, Any] = found if isinstance(found, dict) else {}
        kws = engine.get("keywords") if isinstance(engine.get("keywords"), list) else None
        return {
            "palconf": str(m.get("palconf", "")),
            "rules_version": str(m.get("rules_version", "")),
            "date": str(m.get("date", "")),
            "label": m["label"] if isinstance(m.get("label"), str) else "",
            "protocol": str(m.get("protocol", "")),
            "meta_cases": str(m.get("cases", "")),
            "keywords": ", ".join(str(k) for k in kws) if kws is not None else "",
            "keyword_count": str(len(kws)) if kws is not None else "",
        }

    @property
    def card_level(self) -> str:
        """The colour of the engine's card: its level over all cases, but never green (full
        or high) when any of its cases failed, errored or timed out."""
        level = self.totals.all.level
        if not self.totals.all.ok and level in ("full", "high", "mid"):
            return "low"
        return level

    @property
    def failures(self) -> int:
        """How many of its cases failed, errored, timed out or xfailed."""
        return self.totals.all.failed

    def where(self, names: dict[str, str]) -> str:
        """Where the failures are, in `palconf run`'s words (`where: all 43 failures cite
        B-15`), or "" when nothing failed (`palconf.core.causes.shared_cause`)."""
        cause = shared_cause(self.results.values())
        return "" if cause is None else cause.words(lambda g: names.get(g, g))

    def concentration(self, names: dict[str, str]) -> list[tuple[str, int]]:
        """Where the failures are, as `palconf run`'s `where:` line counts it
        (`palconf.core.causes.shared_cause`): (what they cite, how many do), the most
        cited first, then its clause."""
        cause = shared_cause(self.results.values())
        return [] if cause is None else cause.counts(lambda g: names.get(g, g))

    @property
    def selected(self) -> int | None:  # (its completeness's, as `unfinished`)
        return self.completeness.selected

    @property
    def unfinished(self) -> bool:  # (its completeness's)
        return self.completeness.unfinished

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "name": self.name,
            "version": self.version,
            "rules_version": self.rules_version,
            "source": self.source,
            "meta": self.meta,
            "cases": len(self.results),
            "selected": self.completeness.selected,
            "unfinished": self.completeness.unfinished,
            "completeness": self.completeness.to_json(),
            "totals": self.totals.to_json(),
            "keywords": {k: c.to_json() for k, c in self.keywords.items()},
            "lacks_keywords": self.lacks,
            "duplicate_results": self.duplicates,
        }


@dataclass
class CaseView:
    id: str
    title: str
    groups: tuple[str, ...]  # what it is counted under: keywords, protocol, base
    clauses: tuple[str, ...]
    interpretations: tuple[str, ...]
    rules: tuple[str, ...]
    results: dict[str, Result | None]  # engine key → result (None: not in that run)
    boards: dict[str, BoardPair] = field(default_factory=dict)  # engine key → its position

    @property
    def anchor(self) -> str:
        return "case-" + slug(self.id, 80)

    @property
    def home_anchor(self) -> str:
        """The case's place under its first group's section (a case may be listed under
        several groups, and among the failing cases too; each place has its own id)."""
        return f"kw-{slug(self.groups[0], 60)}--{self.anchor}" if self.groups else self.anchor

    @property
    def failing(self) -> bool:
        return any(r is not None and r.outcome in FAILED for r in self.results.values())

    @property
    def problems(self) -> list[tuple[str, Result]]:
        """(engine key, result) for every engine where the case did not pass or skip."""
        return [
            (k, r)
            for k, r in self.results.items()
            if r is not None and r.outcome not in (Outcome.PASS, Outcome.SKIP)
        ]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, r in self.results.items():
            if r is None:
                continue
            entry: dict[str, Any] = dict(outcome=r.outcome, message=r.message)
            entry["duration_ms"] = r.duration_ms
            if r.step is not None:
                entry["step"] = r.step
            if r.diffs:  # a side that is missing is left out, as in a results file
                entry["diffs"] = [d.to_json() for d in r.diffs]
            # differences found but not stored (palconf.core.outcomes.MAX_DIFFS), stderr
            entry.update(
                (k, v) for k, v in (("diffs_omitted", r.diffs_omitted), ("stderr", r.stderr)) if v
            )
            out[key] = entry
        # "keywords": the groups the case is counted under (as before the protocol group)
        return {
            "id": self.id,
            "title": self.title,
            "keywords": list(self.groups),
            "clauses": list(self.clauses),
            "interpretations": list(self.interpretations),
            "rules": list(self.rules),
            "results": out,
        }


@dataclass
class ClauseView:
    """A clause of a keyword, or a base or protocol rule its group's cases cite."""

    id: str
    text: str  # its text in the runs' rules version (the same in each), or a rule's text
    summary: str
    testable: bool
    known: bool  # False: cited by a case but not in the registry
    interpretations: list[str]
    cases: list[str]
    cells: dict[str, Cell]
    #: rules version of the runs → the clause's text in it (its summary where it has none)
    texts: dict[str, str] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)  # versions the registry has, without it

    @property
    def text_groups(self) -> list[tuple[str, str]]:
        """(versions, text) per distinct text, when the runs' versions give different texts
        (`text` is then ""); empty when they agree."""
        return [] if self.text else [(v, t) for v, t in by_text(self.texts) if t]

    @property
    def protocol(self) -> bool:
        """A protocol rule (P-…): its text is a section of docs/protocol.md, not a sentence."""
        return self.id.startswith(PROTOCOL_PREFIX)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "texts": self.texts,
            "absent_in": self.absent,
            "summary": self.summary,
            "testable": self.testable,
            "known": self.known,
            "interpretations": self.interpretations,
            "cases": self.cases,
            "engines": {k: c.to_json() for k, c in self.cells.items()},
        }


@dataclass
class InterpretationView:
    id: str
    text: str
    reasoning: str
    clauses: list[str]
    cases: list[str]
    cells: dict[str, Tally]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "reasoning": self.reasoning,
            "clauses": self.clauses,
            "cases": self.cases,
            "engines": {k: t.to_json() for k, t in self.cells.items()},
        }


@dataclass
class KeywordView:
    """One group: a keyword (its clauses), `protocol` (the protocol rules, P-…) or `base`
    (the base rules its cases cite)."""

    id: str
    name: str
    clauses: list[ClauseView]
    cases: list[CaseView]  # failing ones first, then by id
    interpretations: list[str]
    cells: dict[str, Cell]

    @property
    def anchor(self) -> str:
        return "kw-" + slug(self.id, 60)

    @property
    def failing(self) -> bool:
        return any(c.failing for c in self.cases)

    @property
    def clauses_heading(self) -> str:
        return {BASE: "Base rules cited", PROTOCOL: "Protocol rules"}.get(self.id, "Clauses")

    @property
    def shown(self) -> bool:
        """Listed in the matrix: every keyword and `protocol`; `base` when it has cases."""
        return bool(self.cases) or self.id != BASE

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "engines": {k: c.to_json() for k, c in self.cells.items()},
            "clauses": [c.to_json() for c in self.clauses],
            "interpretations": self.interpretations,
            "cases": [c.id for c in self.cases],
        }


@dataclass
class MutantsView:
    """Suite strength: per keyword, how many mutants (deliberate misreadings) the cases kill."""

    mutants: list[Mutant]
    keywords: dict[str, Tally]  # keyword → counts of "pass" (killed) and "fail" (survived)

    @property
    def total(self) -> Tally:
        t = Tally()
        for m in self.mutants:
            t.add(Outcome.PASS if m.killed else Outcome.FAIL)
        return t

    def survivors(self, keyword: str) -> list[Mutant]:
        """Mutants of the keyword that no case killed (those that could not run apart)."""
        return [m for m in self.mutants if m.keyword == keyword and not m.killed and not m.fault]

    def faults(self, keyword: str) -> list[Mutant]:
        """Mutants whose engine could not run the cases: nothing is known of them."""
        return [m for m in self.mutants if m.keyword == keyword and m.fault]

    def to_json(self) -> dict[str, Any]:
        return {
            "killed": self.total.passed,
            "total": self.total.total,
            "score": None if self.total.rate is None else round(self.total.rate, 4),
            "keywords": {
                k: {
                    "mutants": t.total,
                    "killed": t.passed,
                    "score": None if t.rate is None else round(t.rate, 4),
                    "survivors": [m.name for m in self.survivors(k)],
                    "faults": [m.name for m in self.faults(k)],
                }
                for k, t in self.keywords.items()
            },
            "mutants": [
                {
                    "name": m.name,
                    "clause": m.clause,
                    "keyword": m.keyword,
                    "killed": m.killed,
                    "status": m.status,
                    "killed_by": list(m.killed_by),
                    "misreading": m.description,
                }
                for m in self.mutants
            ],
        }


@dataclass
class Report:
    title: str
    generated: str
    palconf: str
    rules_versions: list[str]  # the runs' rules versions, each once, in order
    rules_title: str  # the one version's title in the registry; "" when mixed or unknown
    engines: list[EngineRun]
    keywords: list[KeywordView]
    interpretations: list[InterpretationView]
    cases: dict[str, CaseView]
    mutants: MutantsView | None = None
    rules_untold: list[str] = field(default_factory=list)  # versions the registry has no text of

    @property
    def mixed_rules(self) -> bool:  # the runs are of different rules versions
        return len(self.rules_versions) > 1

    @property
    def rules_version(self) -> str:
        """The runs' one rules version, or every version of mixed runs ("1.00, 1.01")."""
        return ", ".join(self.rules_versions) or UNKNOWN_RULES

    @property
    def rules_heading(self) -> str:
        """`TITLE · rules version 1.00` (no title: the version alone), or `rules 1.00, 1.01
        (runs of different rules versions)`."""
        if self.mixed_rules:
            return f"rules {self.rules_version} (runs of different rules versions)"
        words = f"rules version {self.rules_version}"
        return f"{self.rules_title} · {words}".lstrip(" ·")

    @property
    def engine_labels(self) -> dict[str, str]:
        return {e.key: e.label for e in self.engines}

    @property
    def engine_by_key(self) -> dict[str, EngineRun]:
        return {e.key: e for e in self.engines}

    @property
    def keyword_names(self) -> dict[str, str]:
        return {k.id: k.name for k in self.keywords}

    def keyword_name(self, kid: str) -> str:
        return next((k.name for k in self.keywords if k.id == kid), kid)

    @property
    def failing_cases(self) -> list[CaseView]:
        return [c for c in self.cases.values() if c.failing]

    @property
    def failures(self) -> list[tuple[CaseView, str, Result]]:
        """(case, engine key, result) for every failed, errored, timed-out or xfailed result."""
        return [
            (c, key, r) for c in self.failing_cases for key, r in c.problems if r.outcome in FAILED
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT,
            "format_version": REPORT_FORMAT_VERSION,
            "title": self.title,
            "generated": self.generated,
            "palconf": self.palconf,
            # the one version, or those of mixed runs in words ("1.00, 1.01")
            "rules_version": self.rules_version,
            "rules_versions": self.rules_versions,
            "engines": [e.to_json() for e in self.engines],
            "keywords": [k.to_json() for k in self.keywords],
            "interpretations": [i.to_json() for i in self.interpretations],
            "cases": [c.to_json() for c in self.cases.values()],
            "mutants": self.mutants.to_json() if self.mutants else None,
        }
