"""Building a compliance report from one or more runs (results files).

`build(runs, registry, mutants)` turns the runs into a `Report` — engines side by side, per
keyword, clause, interpretation and case — and `write_report(report, out)` writes it:

    index.html    one self-contained page (inline CSS, no scripts, no network assets)
    report.md     the summary as Markdown, for a README or a pull-request comment
    results.json  the same summary, machine-readable
    junit.xml     one testcase per case and engine, classname `palconf.<keyword>`
    badges/       shields.io endpoint JSON: <engine>.json and <engine>/<keyword>.json

How cases are counted:
- A case counts under every keyword it tests (`base` when it tests none), as in `palconf run`.
- *Passed* is pass or xpass; *ran* is every outcome but skip (an engine lacking a keyword is
  not marked down for it); the rate is passed / ran.
- A case citing an interpretation (I-n) "depends on a ruling": palconf's reading of text that
  could be read otherwise. The matrix counts those cases in their own column, apart from the
  cases the rules text decides alone, and the badges count the rules-text cases only.

Every string that comes from a results or mutants file is untrusted: the HTML template
autoescapes, the Markdown template escapes every output (see `md_escape`), JSON and XML are
written by their serializers.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import jinja2
from markupsafe import Markup, escape

from palconf import __version__
from palconf.registry import Registry

from .mutants import Mutant
from .results import BASE, FAILED, OUTCOMES, PASSED, CaseResult, ResultsFile, utc_now

TEMPLATES = Path(__file__).resolve().parent / "templates"
REPORT_FORMAT = "palconf-report"
REPORT_FORMAT_VERSION = 1
#: Longest message or stderr text put in the page (the tail is kept: that is where errors are).
MAX_TEXT = 4000
#: Most failing cases listed in report.md (the HTML page lists them all).
MD_MAX_FAILURES = 50


# ---------------------------------------------------------------- tallies and colours

@dataclass
class Tally:
    """Outcome counts of a set of cases on one engine."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: str) -> None:
        self.counts[outcome] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return sum(self.counts[o] for o in PASSED)

    @property
    def failed(self) -> int:
        return sum(self.counts[o] for o in FAILED)

    @property
    def skipped(self) -> int:
        return self.counts["skip"]

    @property
    def ran(self) -> int:
        return self.total - self.skipped

    @property
    def rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None

    @property
    def fraction(self) -> str:
        return f"{self.passed}/{self.ran}" if self.ran else "–"

    @property
    def percent(self) -> str:
        """Rounded down, so that 99.6% never shows as 100%."""
        if self.rate is None:
            return "–"
        return f"{math.floor(self.rate * 100)}%"

    @property
    def level(self) -> str:
        """A colour class: full, high, mid, low, zero (nothing passed), none (nothing ran)."""
        rate = self.rate
        if rate is None:
            return "none"
        if rate == 1:
            return "full"
        if rate >= 0.9:
            return "high"
        if rate >= 0.7:
            return "mid"
        if rate > 0:
            return "low"
        return "zero"

    @property
    def badge_color(self) -> str:
        return {"full": "brightgreen", "high": "green", "mid": "yellow", "low": "orange",
                "zero": "red", "none": "lightgrey"}[self.level]

    @property
    def badge_message(self) -> str:
        if self.ran:
            return self.fraction
        return "skipped" if self.total else "no cases"

    @property
    def detail(self) -> str:
        """`3 fail, 1 error, 2 skip`: the outcomes other than pass, for a tooltip or a line."""
        return ", ".join(f"{self.counts[o]} {o}" for o in OUTCOMES
                         if o != "pass" and self.counts[o])

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {o: self.counts[o] for o in OUTCOMES}
        data.update(total=self.total, ran=self.ran, passed=self.passed,
                    rate=None if self.rate is None else round(self.rate, 4))
        return data


@dataclass
class Cell:
    """One keyword (or clause, or interpretation) on one engine."""

    all: Tally = field(default_factory=Tally)
    text: Tally = field(default_factory=Tally)  # cases the rules text decides alone
    ruling: Tally = field(default_factory=Tally)  # cases that depend on an interpretation

    def add(self, r: CaseResult) -> None:
        self.all.add(r.outcome)
        (self.ruling if r.depends_on_ruling else self.text).add(r.outcome)

    def to_json(self) -> dict[str, Any]:
        return {"all": self.all.to_json(), "rules_text": self.text.to_json(),
                "ruling": self.ruling.to_json()}


# ---------------------------------------------------------------- the report model

@dataclass
class EngineRun:
    key: str  # a slug, unique in the report: badge file names, anchors, JSON keys
    tag: str  # "A", "B", … naming the engine in narrow places when there are several
    label: str  # what headings show: "name version"
    name: str
    version: str
    source: str
    meta: dict[str, Any] | None
    results: dict[str, CaseResult]
    totals: Cell = field(default_factory=Cell)
    keywords: dict[str, Cell] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    lacks: list[str] | None = None  # keywords of the rules the engine does not implement

    @property
    def meta_field(self) -> dict[str, str]:
        """The meta line's fields as display strings ("" when unknown)."""
        m = self.meta or {}
        engine = m.get("engine") if isinstance(m.get("engine"), dict) else {}
        kws = engine.get("keywords") if isinstance(engine.get("keywords"), list) else None
        return {
            "palconf": str(m.get("palconf", "")),
            "rules_version": str(m.get("rules_version", "")),
            "date": str(m.get("date", "")),
            "protocol": str(m.get("protocol", "")),
            "meta_cases": str(m.get("cases", "")),
            "keywords": ", ".join(str(k) for k in kws) if kws is not None else "",
            "keyword_count": str(len(kws)) if kws is not None else "",
        }

    @property
    def selected(self) -> int | None:
        """How many cases the run selected (its meta line), if known."""
        n = (self.meta or {}).get("cases")
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    @property
    def unfinished(self) -> bool:
        """The run stopped before every case it selected had a result."""
        return self.selected is not None and len(self.results) < self.selected

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "name": self.name,
                "version": self.version, "source": self.source, "meta": self.meta,
                "cases": len(self.results), "selected": self.selected,
                "unfinished": self.unfinished, "totals": self.totals.to_json(),
                "keywords": {k: c.to_json() for k, c in self.keywords.items()},
                "lacks_keywords": self.lacks, "duplicate_results": self.duplicates}


@dataclass
class CaseView:
    id: str
    title: str
    keywords: tuple[str, ...]
    clauses: tuple[str, ...]
    interpretations: tuple[str, ...]
    rules: tuple[str, ...]
    results: dict[str, CaseResult | None]  # engine key → result (None: not in that run)

    @property
    def anchor(self) -> str:
        return "case-" + slug(self.id, 80)

    @property
    def home_anchor(self) -> str:
        """The case's place under its first keyword's section (a case may be listed under
        several keywords, and among the failing cases too; each place has its own id)."""
        return f"kw-{slug(self.keywords[0], 60)}--{self.anchor}" if self.keywords else self.anchor

    @property
    def failing(self) -> bool:
        return any(r is not None and r.outcome in FAILED for r in self.results.values())

    @property
    def problems(self) -> list[tuple[str, CaseResult]]:
        """(engine key, result) for every engine where the case did not pass or skip."""
        return [(k, r) for k, r in self.results.items()
                if r is not None and r.outcome not in ("pass", "skip")]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, r in self.results.items():
            if r is None:
                continue
            entry: dict[str, Any] = {"outcome": r.outcome, "message": r.message,
                                     "duration_ms": r.duration_ms}
            if r.step is not None:
                entry["step"] = r.step
            if r.diffs:
                entry["diffs"] = [{"path": d.path, "expected": d.expected,
                                   "observed": d.observed} for d in r.diffs]
            if r.stderr:
                entry["stderr"] = r.stderr
            out[key] = entry
        return {"id": self.id, "title": self.title, "keywords": list(self.keywords),
                "clauses": list(self.clauses), "interpretations": list(self.interpretations),
                "rules": list(self.rules), "results": out}


@dataclass
class ClauseView:
    id: str
    text: str  # the rules text (current version), or a base rule's text
    summary: str
    testable: bool
    known: bool  # False: cited by a case but not in the registry
    interpretations: list[str]
    cases: list[str]
    cells: dict[str, Cell]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "summary": self.summary,
                "testable": self.testable, "known": self.known,
                "interpretations": self.interpretations, "cases": self.cases,
                "engines": {k: c.to_json() for k, c in self.cells.items()}}


@dataclass
class InterpretationView:
    id: str
    text: str
    reasoning: str
    clauses: list[str]
    cases: list[str]
    cells: dict[str, Tally]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "reasoning": self.reasoning,
                "clauses": self.clauses, "cases": self.cases,
                "engines": {k: t.to_json() for k, t in self.cells.items()}}


@dataclass
class KeywordView:
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

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name,
                "engines": {k: c.to_json() for k, c in self.cells.items()},
                "clauses": [c.to_json() for c in self.clauses],
                "interpretations": self.interpretations,
                "cases": [c.id for c in self.cases]}


@dataclass
class MutantsView:
    """Suite strength: per keyword, how many mutants (deliberate misreadings) the cases kill."""

    mutants: list[Mutant]
    keywords: dict[str, Tally]  # keyword → counts of "pass" (killed) and "fail" (survived)

    @property
    def total(self) -> Tally:
        t = Tally()
        for m in self.mutants:
            t.add("pass" if m.killed else "fail")
        return t

    def survivors(self, keyword: str) -> list[Mutant]:
        """Mutants of the keyword that no case killed (those that could not run apart)."""
        return [m for m in self.mutants if m.keyword == keyword and not m.killed and not m.fault]

    def faults(self, keyword: str) -> list[Mutant]:
        """Mutants whose engine could not run the cases: nothing is known of them."""
        return [m for m in self.mutants if m.keyword == keyword and m.fault]

    def to_json(self) -> dict[str, Any]:
        return {"killed": self.total.passed, "total": self.total.total,
                "score": None if self.total.rate is None else round(self.total.rate, 4),
                "keywords": {k: {"mutants": t.total, "killed": t.passed,
                                 "score": None if t.rate is None else round(t.rate, 4),
                                 "survivors": [m.name for m in self.survivors(k)],
                                 "faults": [m.name for m in self.faults(k)]}
                             for k, t in self.keywords.items()},
                "mutants": [{"name": m.name, "clause": m.clause, "keyword": m.keyword,
                             "killed": m.killed, "status": m.status,
                             "killed_by": list(m.killed_by), "misreading": m.description}
                            for m in self.mutants]}


@dataclass
class Report:
    title: str
    generated: str
    palconf: str
    rules_version: str
    rules_title: str
    engines: list[EngineRun]
    keywords: list[KeywordView]
    interpretations: list[InterpretationView]
    cases: dict[str, CaseView]
    mutants: MutantsView | None = None

    @property
    def engine_labels(self) -> dict[str, str]:
        return {e.key: e.label for e in self.engines}

    @property
    def engine_by_key(self) -> dict[str, EngineRun]:
        return {e.key: e for e in self.engines}

    def keyword_name(self, kid: str) -> str:
        return next((k.name for k in self.keywords if k.id == kid), kid)

    @property
    def failing_cases(self) -> list[CaseView]:
        return [c for c in self.cases.values() if c.failing]

    @property
    def failures(self) -> list[tuple[CaseView, str, CaseResult]]:
        """(case, engine key, result) for every failed, errored, timed-out or xfailed result."""
        return [(c, key, r) for c in self.failing_cases for key, r in c.problems
                if r.outcome in FAILED]

    def to_json(self) -> dict[str, Any]:
        return {"format": REPORT_FORMAT, "format_version": REPORT_FORMAT_VERSION,
                "title": self.title, "generated": self.generated, "palconf": self.palconf,
                "rules_version": self.rules_version,
                "engines": [e.to_json() for e in self.engines],
                "keywords": [k.to_json() for k in self.keywords],
                "interpretations": [i.to_json() for i in self.interpretations],
                "cases": [c.to_json() for c in self.cases.values()],
                "mutants": self.mutants.to_json() if self.mutants else None}


# ---------------------------------------------------------------- building

def slug(text: str, limit: int = 40) -> str:
    """A safe file/anchor name: lowercase letters, digits, `.`, `_` and `-` only."""
    s = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")[:limit].strip("-.")
    return s or "x"


def _engine_runs(runs: list[ResultsFile]) -> list[EngineRun]:
    labels = [" ".join(p for p in (r.engine_name, r.engine_version) if p) for r in runs]
    engines: list[EngineRun] = []
    used: set[str] = set()
    for run, label in zip(runs, labels):
        if labels.count(label) > 1:  # two runs of the same engine: tell them apart by file
            label = f"{label} ({Path(run.path).name})"
        base = slug(label)
        key, n = base, 2
        while key in used:
            key, n = f"{base}-{n}", n + 1
        used.add(key)
        tag = _letters(len(engines)) if len(runs) > 1 else ""
        engines.append(EngineRun(key=key, tag=tag, label=label, name=run.engine_name,
                                 version=run.engine_version, source=run.path, meta=run.meta,
                                 results={r.id: r for r in run.results},
                                 duplicates=list(run.duplicates)))
    return engines


def _letters(n: int) -> str:
    """0 → A, 25 → Z, 26 → AA …"""
    s = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def _sort_ids(ids: Iterable[str]) -> list[str]:
    """Clause ids in a natural order: `taunt.2` before `taunt.10`, `B-2` before `B-10`."""
    def key(s: str) -> list[Any]:
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", s)]
    return sorted(set(ids), key=key)


def build(runs: list[ResultsFile], registry: Registry, mutants: list[Mutant] | None = None,
          title: str = "Pal keyword rules compliance", generated: str | None = None) -> Report:
    """The report model of the runs (one per engine), in the registry's keyword order."""
    engines = _engine_runs(runs)
    # The cases: the union over the runs (a later run's title wins for a case in several).
    cases: dict[str, CaseView] = {}
    for e in engines:
        for r in e.results.values():
            cases[r.id] = CaseView(id=r.id, title=r.title, keywords=r.tested_keywords,
                                   clauses=r.clauses, interpretations=r.interpretations,
                                   rules=r.rules, results={})
    cases = dict(sorted(cases.items()))
    for c in cases.values():
        c.results = {e.key: e.results.get(c.id) for e in engines}

    keyword_ids = list(registry.keywords) + [BASE]
    keyword_ids += sorted({k for c in cases.values() for k in c.keywords} - set(keyword_ids))
    for e in engines:
        e.keywords = {k: Cell() for k in keyword_ids}
        for r in e.results.values():
            e.totals.add(r)
            for k in r.tested_keywords:
                e.keywords[k].add(r)

        kws = ((e.meta or {}).get("engine") or {}).get("keywords")
        if isinstance(kws, list):
            e.lacks = [registry.keyword_name(k) for k in registry.keywords if k not in kws]

    interp_of_clause: dict[str, list[str]] = {}
    for iid, data in registry.interpretations.items():
        for cid in _str_list(data.get("clauses")):
            interp_of_clause.setdefault(cid, []).append(iid)

    keywords = []
    for kid in keyword_ids:
        kcases = [c for c in cases.values() if kid in c.keywords]
        kcases.sort(key=lambda c: (not c.failing, c.id))
        if kid == BASE:
            cited = _sort_ids(r for c in kcases for r in c.rules)
            clauses = [_clause_view(cid, registry, kcases, engines, interp_of_clause, base=True)
                       for cid in cited]
        else:
            ids = [c.id for c in registry.clauses.values() if c.keyword == kid]
            ids += _sort_ids({cl for c in kcases for cl in c.clauses
                              if cl.split(".")[0] == kid} - set(ids))
            clauses = [_clause_view(cid, registry, kcases, engines, interp_of_clause)
                       for cid in ids]
        interps = _sort_ids(i for c in kcases for i in c.interpretations)
        keywords.append(KeywordView(
            id=kid, name=registry.keyword_name(kid), clauses=clauses, cases=kcases,
            interpretations=interps, cells={e.key: e.keywords[kid] for e in engines}))

    interpretations = []
    cited_interps = {i for c in cases.values() for i in c.interpretations}
    for iid in _sort_ids(set(registry.interpretations) | cited_interps):
        data = registry.interpretations.get(iid, {})
        icases = [c.id for c in cases.values() if iid in c.interpretations]
        cells = {}
        for e in engines:
            t = Tally()
            for cid in icases:
                if (r := e.results.get(cid)) is not None:
                    t.add(r.outcome)
            cells[e.key] = t
        interpretations.append(InterpretationView(
            id=iid, text=str(data.get("text", "(not in this registry)")),
            reasoning=str(data.get("reasoning", "")),
            clauses=_str_list(data.get("clauses")), cases=icases, cells=cells))

    mview = None
    if mutants is not None:
        per_kw: dict[str, Tally] = {}
        for m in mutants:
            per_kw.setdefault(m.keyword, Tally()).add("pass" if m.killed else "fail")
        order = {k: n for n, k in enumerate(keyword_ids)}
        mview = MutantsView(mutants=list(mutants),
                            keywords=dict(sorted(per_kw.items(),
                                                 key=lambda kv: (order.get(kv[0], 999), kv[0]))))

    version = registry.current
    return Report(title=title, generated=generated or utc_now(), palconf=__version__,
                  rules_version=version,
                  rules_title=registry.versions.get(version, {}).get("title", version),
                  engines=engines, keywords=keywords, interpretations=interpretations,
                  cases=cases, mutants=mview)


def _str_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _clause_view(cid: str, registry: Registry, kcases: list[CaseView], engines: list[EngineRun],
                 interp_of_clause: dict[str, list[str]], base: bool = False) -> ClauseView:
    if base:
        text = registry.base.get(cid, "")
        known, testable, summary = cid in registry.base, True, ""
        ccases = [c for c in kcases if cid in c.rules]
    else:
        clause = registry.clauses.get(cid)
        known = clause is not None
        text = clause.text.get(registry.current, "") if clause else ""
        summary = clause.summary if clause else ""
        testable = clause.testable if clause else True
        ccases = [c for c in kcases if cid in c.clauses]
    cells: dict[str, Cell] = {}
    for e in engines:
        cell = Cell()
        for c in ccases:
            if (r := e.results.get(c.id)) is not None:
                cell.add(r)
        cells[e.key] = cell
    return ClauseView(id=cid, text=text, summary=summary, testable=testable, known=known,
                      interpretations=interp_of_clause.get(cid, []),
                      cases=sorted(c.id for c in ccases), cells=cells)


# ---------------------------------------------------------------- rendering helpers

def show_json(value: Any) -> str:
    """A value as compact JSON, as diffs show it."""
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def tail(text: str, limit: int = MAX_TEXT) -> str:
    """The last `limit` characters of `text` (where an error usually is), marked if cut."""
    if len(text) <= limit:
        return text
    return f"[… {len(text) - limit} characters cut …]\n" + text[-limit:]


def shorten(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def visible_controls(text: str) -> str:
    """Control characters (terminal escape sequences, NUL …) → U+FFFD; tabs and newlines
    stay. Neither HTML nor Markdown can show them, and in a terminal they act."""
    return _CONTROLS.sub("\ufffd", text)


def _html_finalize(value: Any) -> Any:
    """Every HTML output: control characters made visible (autoescaping happens after)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return visible_controls(value)
    return value


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~@])")


class MdSafe(str):
    """Markdown the report wrote itself: `md_escape` leaves it as it is."""


def md_escape(value: Any) -> str:
    """Untrusted text → one inert line of Markdown, safe in a table cell.

    The marks that act inside a line are backslash-escaped (`|` cannot split a cell, a
    backtick cannot open code, `[x](y)` cannot make a link, `*` `_` `~` cannot emphasise,
    `@` cannot mention), HTML special characters become entities (`<script>` stays text on
    GitHub and GitLab), and newlines become `<br>`, so nothing can start a block.
    """
    if isinstance(value, MdSafe):
        return str(value)
    if value is None:
        return ""
    text = visible_controls(str(value))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "<br>".join(text.split("\n"))


def break_dots(value: Any) -> Markup:
    """A dotted field path (`cards.a1.power`), escaped, that may wrap after each dot."""
    return Markup(".<wbr>").join(escape(part) for part in str(value).split("."))


def _md_finalize(value: Any) -> Any:
    return md_escape(value)


def environment() -> jinja2.Environment:
    """The report templates' environment: StrictUndefined, autoescaping on for HTML."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True, finalize=_html_finalize,
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(show_json=show_json, tail=tail, shorten=shorten, break_dots=break_dots)
    env.globals.update(OUTCOMES=OUTCOMES)
    return env


def markdown_environment() -> jinja2.Environment:
    """For report.md: no HTML autoescaping (it is not HTML) but every `{{ }}` goes through
    `md_escape` unless the template marks it `| md` (text the report itself wrote)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
        undefined=jinja2.StrictUndefined, finalize=_md_finalize, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)
    env.filters.update(md=MdSafe, shorten=shorten, show_json=show_json)
    return env


def render_html(report: Report) -> str:
    return environment().get_template("index.html.j2").render(report=report)


def render_markdown(report: Report) -> str:
    return markdown_environment().get_template("report.md.j2").render(
        report=report, max_failures=MD_MAX_FAILURES)


def badges(report: Report) -> dict[str, dict[str, Any]]:
    """Relative path → shields.io endpoint JSON: one per engine, one per engine and keyword.
    Badges count the cases the rules text decides alone (see the module docstring)."""
    out: dict[str, dict[str, Any]] = {}
    for e in report.engines:
        out[f"{e.key}.json"] = _badge(e.label, e.totals.text)
        for kw in report.keywords:
            cell = e.keywords[kw.id]
            if cell.all.total or kw.id != BASE:
                out[f"{e.key}/{slug(kw.id)}.json"] = _badge(kw.name, cell.text)
    return out


def _badge(label: str, tally: Tally) -> dict[str, Any]:
    return {"schemaVersion": 1, "label": shorten(label, 60), "message": tally.badge_message,
            "color": tally.badge_color}


def write_report(report: Report, out: Path) -> list[Path]:
    """Write every output of the report into the folder `out` (created if needed)."""
    from .junit import render_junit

    out.mkdir(parents=True, exist_ok=True)
    files = {
        "index.html": render_html(report),
        "report.md": render_markdown(report),
        "results.json": json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n",
        "junit.xml": render_junit(report),
    }
    written = []
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    for rel, badge in badges(report).items():
        path = out / "badges" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(badge, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
