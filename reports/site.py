"""A static site from a folder of results files of many engines and versions
(`palconf site RESULTS_DIR --out SITE/`): plain pages with relative links only (it works
opened from disk), inline CSS and SVG, no scripts.

    index.html             engines × keywords, the latest run of each engine
    engines/<engine>.html  its runs, the history chart, what regressed and was fixed
    keywords/<kw>.html     the clauses' text, each engine's results, the cases
    cases/<case>.html      the rules text, the board, each engine's outcome
    badges/                shields.io endpoint JSON of the latest runs (as `palconf report`)

An engine is its meta line's engine name; its runs are told apart by version and date, and
the latest is the one with the latest date (then version). `site_pages` returns every file
as text by its relative path; the command writes them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from palconf.core.results_file import ResultsError, ResultsFile, read_results

from .badges import badges
from .build import build
from .charts import engine_legend, histories, history_lines, keyword_bars
from .compare import Comparison, compare
from .model import Report, slug
from .render import environment

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.registry import Registry

__all__ = ["EngineSite", "read_folder", "site_pages"]


@dataclass
class EngineSite:
    name: str
    key: str  # its page: engines/<key>.html
    runs: list[ResultsFile]  # oldest first
    history: Report  # every run of it, side by side
    steps: list[Comparison]  # each run against the one before

    @property
    def latest(self) -> ResultsFile:
        return self.runs[-1]


def _when(run: ResultsFile) -> tuple[str, str, str]:
    return (str((run.meta or {}).get("date", "")), run.engine_version, run.path)


def read_folder(folder: Path) -> list[ResultsFile]:
    """Every results file (`*.jsonl`) in the folder, by name; ResultsError if there is none
    or one cannot be read (the message names the file and line)."""
    if not folder.is_dir():
        raise ResultsError(f"{folder}: not a folder of results files")
    files = sorted(p for p in folder.iterdir() if p.suffix == ".jsonl" and p.is_file())
    if not files:
        raise ResultsError(f"{folder}: no results files (*.jsonl) in it")
    return [read_results(p) for p in files]


def page_names(ids: Iterable[str], limit: int) -> dict[str, str]:
    """A page name for each id, distinct for distinct ids: its `slug` when that is the id
    itself (every suite case id), else the slug and a hash of the exact id, so that ids the
    slug folds together (`A-b`, `a_b`, `a b`, `a-b…` cut at `limit`) get pages of their own."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for cid in sorted(set(ids)):
        name = slug(cid, limit)
        if name != cid:
            digest = hashlib.sha256(cid.encode("utf-8", "surrogatepass")).hexdigest()[:10]
            name = f"{slug(cid, limit - 11)}-{digest}"
        base, n = name, 2
        while name in used:
            name, n = f"{base}-{n}", n + 1
        used.add(name)
        names[cid] = name
    return names


def site_pages(
    runs: list[ResultsFile],
    registry: Registry,
    suite: Mapping[str, Case] | None = None,
    title: str = "Pal keyword rules compliance",
) -> dict[str, str]:
    """Relative path → file text, for every page and badge of the site."""
    by_name: dict[str, list[ResultsFile]] = {}
    for run in runs:
        by_name.setdefault(run.engine_name, []).append(run)
    engines: list[EngineSite] = []
    used: set[str] = set()
    for name in sorted(by_name):
        ordered = sorted(by_name[name], key=_when)
        key, n = slug(name), 2
        while key in used:
            key, n = f"{slug(name)}-{n}", n + 1
        used.add(key)
        engines.append(
            EngineSite(
                name=name,
                key=key,
                runs=ordered,
                history=build(ordered, registry, title=title),
                steps=[compare(a, b) for a, b in zip(ordered, ordered[1:], strict=False)],
            )
        )
    latest = build([e.latest for e in engines], registry, title=title, suite=suite)
    page_of = {r.key: e.key for r, e in zip(latest.engines, engines, strict=True)}
    env = environment()
    names = page_names(latest.cases, 80)
    common = {
        "report": latest,
        "engines": engines,
        "page_of": page_of,
        "slug": slug,
        "case_page": lambda cid: names.get(cid) or slug(cid, 80),
    }
    pages: dict[str, str] = {}
    pages["index.html"] = env.get_template("site_index.html.j2").render(
        root="",
        bars=keyword_bars(latest.engines, latest.keywords),
        legend=engine_legend(latest.engines),
        **common,
    )
    for e, shown in zip(engines, latest.engines, strict=True):
        hist = histories(e.history.engines)
        pages[f"engines/{e.key}.html"] = env.get_template("site_engine.html.j2").render(
            root="../",
            e=e,
            run=shown,
            lines=history_lines(hist[0], e.history.keywords) if hist else "",
            **common,
        )
    for kw in latest.keywords:
        if kw.shown:
            pages[f"keywords/{slug(kw.id, 60)}.html"] = env.get_template(
                "site_keyword.html.j2"
            ).render(root="../", kw=kw, **common)
    for c in latest.cases.values():
        start = None
        if suite is not None and (case := suite.get(c.id)) is not None:
            from .boards import board, replay  # the oracle, only when boards are drawn

            if (replayed := replay(case, 0)) is not None:
                start = board("the board after setup", replayed[0].observe(), replayed[0], [])
        rules = [(r, registry.rule_text(r)) for r in c.rules]
        clauses = [(cl, _clause_text(registry, cl)) for cl in c.clauses]
        pages[f"cases/{names[c.id]}.html"] = env.get_template("site_case.html.j2").render(
            root="../", c=c, clauses=clauses, rules=rules, start=start, **common
        )
    for rel, badge in badges(latest).items():
        pages[f"badges/{rel}"] = json.dumps(badge, ensure_ascii=False) + "\n"
    return pages


def _clause_text(registry: Registry, cid: str) -> str:
    clause = registry.clauses.get(cid)
    return clause.text.get(registry.current, "") if clause else ""
