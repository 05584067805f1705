"""Building the report model (`reports.model`) from one or more runs (results files).

`build(runs, registry, mutants)` puts the engines side by side and counts their cases per
group (each keyword, `protocol`, `base`: `palconf.core.Result.groups`), clause or rule,
interpretation and case; `reports.write.write_report` writes it out. The rules version is
each run's own (`ResultsFile.rules_version`), and a clause's text the one of that version
(`clause_text`), never the checkout's current one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from palconf import __version__
from palconf.core import Outcome, Tally
from palconf.core.outcomes import BASE, PROTOCOL, PROTOCOL_PREFIX
from palconf.core.results_file import ResultsFile, utc_now
from palconf.registry import Clause, Registry

from .charts import run_marks
from .model import (
    CaseView,
    Cell,
    ClauseView,
    EngineRun,
    InterpretationView,
    KeywordView,
    MutantsView,
    Report,
)
from .mutants import Mutant
from .names import slug
from .ordering import natural_key

if TYPE_CHECKING:
    from palconf.cases.loader import Case

    from .site_index import RunSummary

__all__ = ["build", "build_history", "clause_text", "clause_texts"]


def _engine_runs(runs: Sequence[ResultsFile]) -> list[EngineRun]:
    labels = [" ".join(p for p in (r.engine_name, r.engine_version) if p) for r in runs]
    engines: list[EngineRun] = []
    used: set[str] = set()
    for run, label, mark in zip(runs, labels, run_marks(runs), strict=True):
        if labels.count(label) > 1:  # two runs of the same engine: tell them apart by file
            label = f"{label} ({Path(run.path).name})"
        base = slug(label)
        key, n = base, 2
        while key in used:
            key, n = f"{base}-{n}", n + 1
        used.add(key)
        engines.append(
            EngineRun(
                key=key,
                tag=mark.tag,
                colour=mark.colour,
                shade=mark.shade,
                label=label,
                name=run.engine_name,
                version=run.engine_version,
                source=run.path,
                meta=run.meta,
                results={r.id: r for r in run.results},
                duplicates=list(run.duplicates),
                rules_version=run.rules_version,
                completeness=run.completeness,
            )
        )
    return engines


def _lacks(e: EngineRun, registry: Registry) -> list[str] | None:
    """The keywords of the rules the engine does not implement (its meta line's hello), or
    None when the meta line does not say."""
    kws = ((e.meta or {}).get("engine") or {}).get("keywords")
    if not isinstance(kws, list):
        return None
    return [registry.keyword_name(k) for k in registry.keywords if k not in kws]


def _sort_ids(ids: Iterable[str]) -> list[str]:
    """Clause ids in a natural order: `taunt.2` before `taunt.10`, `B-2` before `B-10`."""
    return sorted(set(ids), key=natural_key)


def clause_text(clause: Clause | None, version: str) -> str:
    """A clause's text in rules `version`; its summary where that version has none (a clause
    of another version, or a version the registry has no text of); "" for no clause."""
    if clause is None:
        return ""
    return clause.text.get(version) or clause.summary


def clause_texts(clause: Clause | None, versions: Iterable[str]) -> dict[str, str]:
    """Rules version → the clause's text in it (`clause_text`), for each of `versions`."""
    return {v: clause_text(clause, v) for v in versions}


def build(
    runs: list[ResultsFile],
    registry: Registry,
    mutants: list[Mutant] | None = None,
    title: str = "Pal keyword rules compliance",
    generated: str | None = None,
    suite: Mapping[str, Case] | None = None,
) -> Report:
    """The report model of the runs (one per engine), in the registry's keyword order.
    With `suite` (case id → case), every failing result gets its board drawn
    (`reports.boards`)."""
    engines = _engine_runs(runs)
    versions = sorted({e.rules_version for e in engines}, key=natural_key)
    # The cases: the union over the runs (a later run's title wins for a case in several).
    # Runs of other suite versions may put a case in other groups: it counts under each
    # group any run names (the later run's first), so every run's groups have a cell.
    cases: dict[str, CaseView] = {}
    for e in engines:
        for r in e.results.values():
            before = cases[r.id].groups if r.id in cases else ()
            cases[r.id] = CaseView(
                id=r.id,
                title=r.title,
                groups=tuple(dict.fromkeys(r.groups + before)),
                clauses=r.clauses,
                interpretations=r.interpretations,
                rules=r.rules,
                results={},
            )
    cases = dict(sorted(cases.items()))
    for c in cases.values():
        c.results = {e.key: e.results.get(c.id) for e in engines}
    if suite is not None:
        _draw_boards(cases, suite)

    keyword_ids = list(registry.groups)  # the keywords, protocol, base
    keyword_ids += sorted({g for c in cases.values() for g in c.groups} - set(keyword_ids))
    for e in engines:
        e.keywords = {k: Cell() for k in keyword_ids}
        for r in e.results.values():
            e.totals.add(r)
            for g in r.groups:
                e.keywords[g].add(r)
        e.lacks = _lacks(e, registry)

    interp_of_clause: dict[str, list[str]] = {}
    for iid, data in registry.interpretations.items():
        for cid in _str_list(data.get("clauses")):
            interp_of_clause.setdefault(cid, []).append(iid)

    keywords = []
    for kid in keyword_ids:
        kcases = [c for c in cases.values() if kid in c.groups]
        kcases.sort(key=lambda c: (not c.failing, c.id))
        if kid == BASE:
            cited = _sort_ids(r for c in kcases for r in c.rules)
            clauses = [
                _clause_view(cid, registry, versions, kcases, engines, interp_of_clause, rule=True)
                for cid in cited
            ]
        elif kid == PROTOCOL:  # every protocol rule, cited or not, and any other cited
            ids = list(registry.protocol)
            ids += _sort_ids(
                {r for c in kcases for r in c.rules if r.startswith(PROTOCOL_PREFIX)} - set(ids)
            )
            clauses = [
                _clause_view(cid, registry, versions, kcases, engines, interp_of_clause, rule=True)
                for cid in ids
            ]
        else:
            ids = [c.id for c in registry.clauses.values() if c.keyword == kid]
            ids += _sort_ids(
                {cl for c in kcases for cl in c.clauses if cl.split(".")[0] == kid} - set(ids)
            )
            clauses = [
                _clause_view(cid, registry, versions, kcases, engines, interp_of_clause)
                for cid in ids
            ]
        interps = _sort_ids(i for c in kcases for i in c.interpretations)
        keywords.append(
            KeywordView(
                id=kid,
                name=registry.keyword_name(kid),
                clauses=clauses,
                cases=kcases,
                interpretations=interps,
                cells={e.key: e.keywords[kid] for e in engines},
            )
        )

    interpretations = []
    cited_interps = {i for c in cases.values() for i in c.interpretations}
    for iid in _sort_ids(set(registry.interpretations) | cited_interps):
        data = registry.interpretations.get(iid, {})
        icases = [c.id for c in cases.values() if iid in c.interpretations]
        cells = {}
        for e in engines:
            t = Tally()
            for cid in icases:
                if (found := e.results.get(cid)) is not None:
                    t.add(found.outcome)
            cells[e.key] = t
        interpretations.append(
            InterpretationView(
                id=iid,
                text=(
                    f"Retired: {registry.retired[iid]} stands instead. Was: "
                    if iid in registry.retired
                    else ""
                )
                + str(data.get("text", "(not in this registry)")),
                reasoning=str(data.get("reasoning", "")),
                clauses=_str_list(data.get("clauses")),
                cases=icases,
                cells=cells,
            )
        )

    mview = None
    if mutants is not None:
        per_kw: dict[str, Tally] = {}
        for m in mutants:
            per_kw.setdefault(m.keyword, Tally()).add(Outcome.PASS if m.killed else Outcome.FAIL)
        order = {k: n for n, k in enumerate(keyword_ids)}
        mview = MutantsView(
            mutants=list(mutants),
            keywords=dict(sorted(per_kw.items(), key=lambda kv: (order.get(kv[0], 999), kv[0]))),
        )

    report = _report(title, registry, versions, engines, keywords, generated)
    report.interpretations, report.cases, report.mutants = interpretations, cases, mview
    return report


def build_history(
    runs: list[RunSummary], registry: Registry, title: str = "Pal keyword rules compliance"
) -> Report:
    """The report model of one engine's runs side by side, from their summaries
    (`reports.site_index`): the engines and their counts as `build` gives them, each group's
    cells, no cases (the site's engine page, its history)."""
    engines = _engine_runs(runs)
    versions = sorted({e.rules_version for e in engines}, key=natural_key)
    keyword_ids = list(registry.groups)
    keyword_ids += sorted({g for r in runs for g in r.cells} - set(keyword_ids))
    for e, run in zip(engines, runs, strict=True):
        e.totals = run.totals
        e.keywords = {k: run.cells.get(k, Cell()) for k in keyword_ids}
        e.lacks = _lacks(e, registry)
    keywords = [
        KeywordView(
            id=kid,
            name=registry.keyword_name(kid),
            clauses=[],
            cases=[],
            interpretations=[],
            cells={e.key: e.keywords[kid] for e in engines},
        )
        for kid in keyword_ids
    ]
    return _report(title, registry, versions, engines, keywords)


def _report(
    title: str,
    registry: Registry,
    versions: list[str],
    engines: list[EngineRun],
    keywords: list[KeywordView],
    generated: str | None = None,
) -> Report:
    """The report of these engines and keywords (no rulings, cases or mutants yet)."""
    return Report(
        title=title,
        generated=generated or utc_now(),
        palconf=__version__,
        rules_versions=versions,
        rules_title=_title(registry, versions),
        rules_untold=[v for v in versions if v not in registry.versions],
        engines=engines,
        keywords=keywords,
        interpretations=[],
        cases={},
    )


def _title(registry: Registry, versions: list[str]) -> str:
    """The title of the runs' one rules version in the registry; "" for mixed runs or a
    version the registry does not have."""
    if len(versions) != 1:
        return ""
    return str(registry.versions.get(versions[0], {}).get("title", ""))


def _draw_boards(cases: dict[str, CaseView], suite: Mapping[str, Case]) -> None:
    """The board of every failing result whose case the suite has (`reports.boards`)."""
    from .boards import board_pair  # the oracle, only when boards are drawn

    for view in cases.values():
        case = suite.get(view.id)
        if case is None or not view.failing:
            continue
        for key, result in view.results.items():
            if result is not None and result.failed:
                pair = board_pair(case, result)
                if pair is not None:
                    view.boards[key] = pair


def _str_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _clause_view(
    cid: str,
    registry: Registry,
    versions: list[str],
    kcases: list[CaseView],
    engines: list[EngineRun],
    interp_of_clause: dict[str, list[str]],
    rule: bool = False,
) -> ClauseView:
    """A keyword's clause, or (`rule`) a base or protocol rule, with its cases' cells; a
    clause's text is the one of each of the runs' rules `versions`."""
    texts: dict[str, str] = {}
    absent: list[str] = []
    if rule:
        text = registry.rule_text(cid)
        known, testable, summary = cid in registry.base or cid in registry.protocol, True, ""
        ccases = [c for c in kcases if cid in c.rules]
    else:
        clause = registry.clauses.get(cid)
        known = clause is not None
        texts = clause_texts(clause, versions)
        text = _one(texts.values())
        absent = [v for v in versions if clause and v in registry.versions and v not in clause.text]
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
    return ClauseView(
        id=cid,
        text=text,
        summary=summary,
        testable=testable,
        known=known,
        interpretations=interp_of_clause.get(cid, []),
        cases=sorted(c.id for c in ccases),
        cells=cells,
        texts=texts,
        absent=absent,
    )


def _one(texts: Iterable[str]) -> str:
    """The text every version gives, or "" when they differ (or there is none)."""
    distinct = set(texts)
    return distinct.pop() if len(distinct) == 1 else ""
