"""A static site from a folder of results files of many engines and versions
(`palconf site RESULTS_DIR --out SITE/`): plain pages with relative links only (it works
opened from disk), inline CSS and SVG, no scripts.

    index.html             engines × keywords, the latest run of each engine
    engines/<engine>.html  its runs, the history chart, what regressed and was fixed (its
                           newest steps; the older ones on engines/<engine>/history-N.html,
                           STEPS_PER_ARCHIVE each, oldest first: a full one never changes)
    keywords/<kw>.html     the clauses' text, each engine's results, the cases
    cases/<case>.html      the rules text, the board, each engine's outcome and history
    badges/                shields.io endpoint JSON of the latest runs (as `palconf report`)

An engine is its meta line's engine name; its runs are told apart by version and date, and
ordered by version where the versions compare (PEP 440, else SemVer), else by date
(`reports.versions`); the engine page says which. The latest is the last in that order.
Each run is of its own rules version (its results file's meta line): the pages mark each
run with it, say so where runs of different versions meet, and show a clause's text as the
runs' versions have it, never the checkout's.
`site_pages` returns every file as text by its relative path, from runs read whole;
`reports.site_folder.write_site` (the command) writes the site from a folder through the site's
index (`reports.site_index`): each file is read as a stream into a summary, and read again
only when its content changed; a run is held whole only while its step (the comparison with
the run before it) is made, and the latest run of each engine while the pages are rendered,
so memory does not grow with the number of runs (a case's history is read from the
summaries' outcome letters: `reports.site_history`); a page is written only when its text
(the generation date aside) changed, and a page the site no longer has is removed.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from palconf import __version__, paths
from palconf.core import Result
from palconf.core.causes import by_cause, shared_cause
from palconf.core.results_file import (
    ResultsFile,
)

from .badges import badges
from .build import build, build_history
from .charts import engine_legend, histories, history_lines, keyword_bars
from .compare import Comparison, compare
from .model import CaseView, EngineRun, Report
from .names import file_names, slug
from .render import environment
from .site_case import around_cases, case_clauses, case_inputs, page_hash_of, steps_of
from .site_history import IdLists, case_histories, run_label
from .site_index import (
    RunSummary,
    summarise,
)
from .versions import Ordering, order_runs

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.registry import Registry

__all__ = [
    "MAX_OTHER_PAGES",
    "EngineSite",
    "engine_sites",
    "ordered",
    "fingerprint",
    "render_pages",
    "page_names",
    "site_pages",
]

#: How many cases that are not in the suite get a page each (those that fail first); the
#: rest are listed on OTHERS, one line each.
MAX_OTHER_PAGES = 1000
#: How many of an engine's steps each of its archive pages holds; its page holds the
#: newest, from STEPS_PER_ARCHIVE to twice as many less one (all, when there are fewer).
STEPS_PER_ARCHIVE = 20
OTHERS = "other-cases.html"
page_names = file_names  # case id → its page's name (`reports.names`)
Pair = tuple[RunSummary, RunSummary]  # a step: a run and the one after it


@dataclass
class EngineSite:
    name: str
    key: str  # its page: engines/<key>.html
    runs: list[RunSummary]  # oldest first
    ordering: str  # how they were ordered (`reports.versions.Ordering.note`)
    history: Report  # every run of it, side by side

    @property
    def latest(self) -> RunSummary:
        return self.runs[-1]

    @property
    def pairs(self) -> list[Pair]:
        """Each run with the one before it (its steps: `reports.compare`)."""
        return list(zip(self.runs, self.runs[1:], strict=False))


@dataclass
class Group:
    """Failures (or regressions) that share a clause, rule or group (`palconf.core.causes`)."""

    cause: str
    summary: str  # the clause's one-line summary, "" for a rule or group
    items: list[Any]  # `Result`s, or `reports.compare.Change`s, in the order given

    #: Longer groups are folded on the page.
    FOLD: ClassVar[int] = 5

    @property
    def folded(self) -> bool:
        return len(self.items) > self.FOLD


def grouped(items: list[Any], results: dict[str, Result], registry: Registry) -> list[Group]:
    """`items` (each with an `id`: a result or a change) grouped by the clause they share,
    the largest group first; an item whose result is unknown goes under its own id."""
    known = [results[i.id] for i in items if i.id in results]
    by_id = {i.id: i for i in items}
    groups = [
        Group(c.id, _summary(registry, c.id), [by_id[r.id] for r in c.results])
        for c in by_cause(known)
    ]
    rest = [i for i in items if i.id not in results]
    if rest:
        groups.append(Group("(no result)", "", rest))
    return groups


def _summary(registry: Registry, cid: str) -> str:
    clause = registry.clauses.get(cid)
    return (
        clause.summary
        if clause is not None
        else registry.keyword_name(cid)
        if cid in registry.groups
        else ""
    )


def site_pages(
    runs: list[ResultsFile],
    registry: Registry,
    suite: Mapping[str, Case] | None = None,
    title: str = "Pal keyword rules compliance",
    warn: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """Relative path → file text, for every page and badge of the site, from runs read
    whole. Every case of the suite gets a page, and at most MAX_OTHER_PAGES others
    (`with_pages`); the rest are listed on OTHERS (`warn` is told how many)."""
    lists = IdLists()
    summaries = [summarise(run, "", lists) for run in runs]
    whole = {id(s): run for s, run in zip(summaries, runs, strict=True)}
    engines = engine_sites(summaries, registry, title)

    def steps(pairs: list[Pair]) -> list[Comparison]:
        return [compare(whole[id(a)], whole[id(b)]) for a, b in pairs]

    latest = [whole[id(e.latest)] for e in engines]
    made = render_pages(engines, latest, steps, registry, suite, title, warn)
    return {p.rel: p.render() for p in made}


def ordered(runs: list[RunSummary]) -> Ordering[RunSummary]:
    """One engine's runs, oldest first: by version where the versions compare, else by
    date (`reports.versions`)."""
    return order_runs(runs, lambda r: r.engine_version, lambda r: r.date, lambda r: r.path)


def engine_sites(runs: list[RunSummary], registry: Registry, title: str) -> list[EngineSite]:
    """The engines of the runs, by name, each with its runs in order and its history."""
    by_name: dict[str, list[RunSummary]] = {}
    for run in runs:
        by_name.setdefault(run.engine_name, []).append(run)
    engines: list[EngineSite] = []
    used: set[str] = set()
    for name in sorted(by_name):
        order = ordered(by_name[name])
        runs_of = order.runs
        key, n = slug(name), 2
        while key in used:
            key, n = f"{slug(name)}-{n}", n + 1
        used.add(key)
        engines.append(
            EngineSite(
                name=name,
                key=key,
                runs=runs_of,
                ordering=order.note,
                history=build_history(runs_of, registry, title=title),
            )
        )
    return engines


def render_pages(
    engines: list[EngineSite],
    latest_runs: list[ResultsFile],
    engine_steps: Callable[[list[Pair]], list[Comparison]],
    registry: Registry,
    suite: Mapping[str, Case] | None,
    title: str,
    warn: Callable[[str], None] | None,
    generated: str | None = None,
    fingerprint: str = "",
) -> Iterator[Page]:
    """Every page and badge, one at a time, each rendered when asked (`Page.render`): the
    engines' steps are asked for one page at a time (`engine_steps` of its pairs);
    `latest_runs` are each engine's last run, whole. A page's `inputs` is a hash of what it
    is made of (with `fingerprint`: of palconf, its templates, the rules and the suite)."""
    latest = build(latest_runs, registry, title=title, suite=suite, generated=generated)
    page_of = {r.key: e.key for r, e in zip(latest.engines, engines, strict=True)}
    env = environment()
    names = file_names(latest.cases, 80)
    kw_names = file_names((kw.id for kw in latest.keywords), 60)
    paged = with_pages(latest.cases, suite)
    rest = [c for c in latest.cases.values() if c.id not in paged]
    common = {
        "report": latest,
        "engines": engines,
        "page_of": page_of,
        "slug": slug,
        "grouped": lambda items, results: grouped(items, results, registry),
        "where": lambda results: _where(results, latest),
        "results_by_id": lambda run: {r.id: r for r in run.results},
        "case_link": lambda cid: _case_link(cid, names, paged),
        # a case's page at an engine's history there (its line on OTHERS, without a page)
        "history_link": lambda cid, key: (
            _case_link(cid, names, paged) + (f"#h-{key}" if cid in paged else "")
        ),
        "kw_page": lambda kid: kw_names.get(kid) or slug(kid, 60),
        "paged": lambda cases: [c for c in cases if c.id in paged],
        "others": OTHERS,
    }
    # what every engine's page is made of but its own runs; what every other page is made of
    around = _hash(
        fingerprint,
        title,
        [(e.name, e.key) for e in engines],
        names,
        sorted(paged),
        kw_names,
        latest.rules_title,
        latest.rules_heading,
    )
    inputs = _hash(around, [(e.latest.digest, e.latest.path) for e in engines])

    def render(template: str, **values: Any) -> Callable[[], str]:
        return lambda: env.get_template(template).render(**values, **common)

    yield Page(
        "index.html",
        inputs,
        render(
            "site_index.html.j2",
            root="",
            bars=keyword_bars(latest.engines, latest.keywords),
            legend=engine_legend(latest.engines),
        ),
    )

    def archive_page(e: EngineSite, block: list[Pair], older: Any, this: Any) -> str:
        return env.get_template("site_engine.html.j2").render(
            root="../../", e=e, steps=engine_steps(block), archives=older, archive=this, **common
        )

    for e, shown in zip(engines, latest.engines, strict=True):
        blocks = archived(e.pairs)
        newest = e.pairs[len(blocks) * STEPS_PER_ARCHIVE :]
        shelf = [
            (f"{e.key}/history-{n}.html", run_label(b[0][0]), run_label(b[-1][1]))
            for n, b in enumerate(blocks, start=1)
        ]

        def engine_page(
            e: EngineSite = e,
            shown: EngineRun = shown,
            newest: list[Pair] = newest,
            shelf: Any = shelf,
        ) -> str:
            hist = histories(e.history.engines)
            return env.get_template("site_engine.html.j2").render(
                root="../",
                e=e,
                steps=engine_steps(newest),
                archives=shelf,
                archive=None,
                run=shown,
                lines=history_lines(hist[0], e.history.keywords, shown.colour) if hist else "",
                **common,
            )

        own = [(r.digest, r.path) for r in e.runs]
        key = _hash(
            around, e.name, e.key, e.ordering, own, shown.key, shown.tag, shown.label, shown.colour
        )
        yield Page(f"engines/{e.key}.html", key, engine_page)
        for n, block in enumerate(blocks, start=1):
            runs_of = [(r.digest, r.path) for pair in block for r in pair]
            page = partial(archive_page, e, block, shelf[: n - 1], shelf[n - 1])
            yield Page(f"engines/{shelf[n - 1][0]}", _hash(around, e.name, e.key, n, runs_of), page)
    for kw in latest.keywords:
        if kw.shown:
            yield Page(
                f"keywords/{kw_names[kw.id]}.html",
                inputs,
                render("site_keyword.html.j2", root="../", kw=kw),
            )
    if rest:
        yield Page(
            OTHERS,
            inputs,
            render("site_others.html.j2", root="", rest=rest, names=names, limit=MAX_OTHER_PAGES),
        )
        if warn is not None:
            warn(
                f"{len(rest)} case(s) not in the suite have no page of their own (at most "
                f"{MAX_OTHER_PAGES} do): they are listed on {OTHERS}"
            )

    history = {e.key: case_histories(e.runs, paged) for e in engines}
    case_around = around_cases(around, latest, page_of)

    def case_page(c: CaseView, spans: dict[str, Any]) -> str:
        start, steps = None, []
        if suite is not None and (case := suite.get(c.id)) is not None:
            steps = steps_of(case)
            from .boards import board, replay  # the oracle, only when boards are drawn

            if (replayed := replay(case, 0)) is not None:
                start = board("the board after setup", replayed[0].observe(), replayed[0], [])
        rules = [(r, registry.rule_text(r)) for r in c.rules]
        clauses = case_clauses(c, latest, registry)
        return env.get_template("site_case.html.j2").render(
            root="../",
            c=c,
            clauses=clauses,
            rules=rules,
            start=start,
            steps=steps,
            history=spans,
            explain=f"palconf explain {shlex.quote(c.id)} --engine-cmd 'YOUR ENGINE COMMAND'",
            **common,
        )

    for c in latest.cases.values():
        if c.id in paged:
            spans = {e.key: history[e.key][c.id] for e in engines}
            key = case_inputs(case_around, c, spans, page_of)
            yield Page(f"cases/{names[c.id]}.html", key, partial(case_page, c, spans))
    for rel, badge in badges(latest).items():
        text = json.dumps(badge, ensure_ascii=False) + "\n"
        yield Page(f"badges/{rel}", inputs, partial(str, text))


@dataclass
class Page:
    """A file of the site: where, a hash of what it is made of, and its text when asked."""

    rel: str
    inputs: str
    render: Callable[[], str]


_hash = page_hash_of


def fingerprint(suite: Mapping[str, Case] | None) -> str:
    """A hash of what every page is made of besides the runs: palconf (its version, the
    site's code and templates), the rules and registry, and the suite's case files."""
    h = hashlib.sha256(__version__.encode("utf-8"))
    here = Path(__file__).parent
    folders = [here, paths.RULES] + ([paths.CASES] if suite is not None else [])
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file() and p.suffix in (".py", ".j2", ".toml", ".txt", ".md", ".json"):
                h.update(str(p.relative_to(folder)).encode("utf-8", "surrogateescape"))
                h.update(p.read_bytes())
    return h.hexdigest()


def archived(pairs: list[Pair]) -> list[list[Pair]]:
    """An engine's steps that are on its archive pages, STEPS_PER_ARCHIVE each, oldest first:
    every full block but those of the newest STEPS_PER_ARCHIVE steps."""
    n = max(0, len(pairs) - STEPS_PER_ARCHIVE) // STEPS_PER_ARCHIVE
    return [pairs[i * STEPS_PER_ARCHIVE : (i + 1) * STEPS_PER_ARCHIVE] for i in range(n)]


def with_pages(cases: Mapping[str, CaseView], suite: Mapping[str, Case] | None) -> set[str]:
    """The ids of the cases that get a page: every case of the suite, and MAX_OTHER_PAGES
    others at most, those that did not pass first, each by id (without the suite, every
    case is another)."""
    ours = {cid for cid in cases if suite is not None and cid in suite}
    others = sorted((c for c in cases.values() if c.id not in ours), key=_failing_first)
    return ours | {c.id for c in others[:MAX_OTHER_PAGES]}


def _failing_first(c: CaseView) -> tuple[bool, str]:
    return (not c.failing, c.id)


def _case_link(cid: str, names: Mapping[str, str], paged: set[str]) -> str:
    """The link (from the site's root) to a case's page, or to its line on OTHERS."""
    name = names.get(cid) or slug(cid, 80)
    return f"cases/{name}.html" if cid in paged else f"{OTHERS}#{name}"


def _where(results: Any, report: Report) -> str:
    """`54 of the 54 failures cite Taunt; 50 cite taunt.2` (`palconf.core.causes`)."""
    cause = shared_cause(results)
    return "" if cause is None else cause.words(report.keyword_name)
