"""A static site from a folder of results files of many engines and versions
(`palconf site RESULTS_DIR --out SITE/`): plain pages with relative links only (it works
opened from disk), inline CSS and SVG, no scripts.

    index.html             engines × keywords, the latest run of each engine
    engines/<engine>.html  its runs, the history chart, what regressed and was fixed
    keywords/<kw>.html     the clauses' text, each engine's results, the cases
    cases/<case>.html      the rules text, the board, each engine's outcome
    badges/                shields.io endpoint JSON of the latest runs (as `palconf report`)

An engine is its meta line's engine name; its runs are told apart by version and date, and
ordered by version where the versions compare (PEP 440, else SemVer), else by date
(`reports.versions`); the engine page says which. The latest is the last in that order.
Each run is of its own rules version (its results file's meta line): the pages mark each
run with it, say so where runs of different versions meet, and show a clause's text as the
runs' versions have it, never the checkout's.
`site_pages` returns every file as text by its relative path; the command writes them.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from palconf.core import Result
from palconf.core.causes import by_cause, shared_cause
from palconf.core.results_file import (
    NotResults,
    ResultsError,
    ResultsFile,
    duplicates_warning,
    read_results,
)
from palconf.core.safe_write import file_kind

from .badges import badges
from .build import build, clause_texts
from .charts import engine_legend, histories, history_lines, keyword_bars
from .compare import Comparison, compare
from .model import CaseView, Report
from .names import file_names, slug
from .ordering import by_text, natural_key
from .render import environment
from .versions import Ordering, order_runs

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.registry import Registry

__all__ = ["MAX_OTHER_PAGES", "EngineSite", "page_names", "read_folder", "site_pages"]

#: How many cases that are not in the suite get a page each (those that fail first); the
#: rest are listed on OTHERS, one line each.
MAX_OTHER_PAGES = 1000
OTHERS = "other-cases.html"
page_names = file_names  # case id → its page's name (`reports.names`)


@dataclass
class EngineSite:
    name: str
    key: str  # its page: engines/<key>.html
    runs: list[ResultsFile]  # oldest first
    ordering: str  # how they were ordered (`reports.versions.Ordering.note`)
    history: Report  # every run of it, side by side
    steps: list[Comparison]  # each run against the one before

    @property
    def latest(self) -> ResultsFile:
        return self.runs[-1]


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


def ordered(runs: list[ResultsFile]) -> Ordering[ResultsFile]:
    """One engine's runs, oldest first: by version where the versions compare, else by
    date (`reports.versions`)."""
    return order_runs(runs, lambda r: r.engine_version, lambda r: r.date, lambda r: r.path)


def read_folder(folder: Path, warn: Callable[[str], None] | None = None) -> list[ResultsFile]:
    """Every results file (`*.jsonl`) in the folder, by name; ResultsError if there is none
    or one cannot be read (the message names the file and line). A transcript (`palconf
    explain --transcript`, `fuzz --transcript`: also JSON Lines) is no results file: it is
    left out, and `warn` told; so is a `*.jsonl` that is no regular file (a folder, a FIFO,
    a device, a broken link or a link to any of these)."""
    if not folder.is_dir():
        raise ResultsError(f"{folder}: not a folder of results files")
    files = []
    for p in sorted(q for q in folder.iterdir() if q.suffix == ".jsonl"):
        why = _not_a_file(p)
        if why is None:
            files.append(p)
        elif warn is not None:
            warn(f"{p}: {why}, not a results file: left out")
    runs = []
    for p in files:
        try:
            runs.append(read_results(p))
        except NotResults as e:
            if warn is not None:
                warn(f"{e}: left out")
            continue
        duplicated = duplicates_warning(runs[-1])
        if duplicated and warn is not None:
            warn(duplicated.removeprefix("warning: "))
    if not runs:
        raise ResultsError(f"{folder}: no results files (*.jsonl) in it")
    return runs


def _not_a_file(path: Path) -> str | None:
    """What `path` is when it is no regular file (a link followed), else None."""
    link = path.is_symlink()
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"a broken symbolic link (to {os.readlink(path)!r})" if link else "gone"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"unreadable ({e.strerror or e})"
    if stat.S_ISREG(mode):
        return None
    kind = file_kind(mode)
    return f"a link to {kind}" if link else kind


def site_pages(
    runs: list[ResultsFile],
    registry: Registry,
    suite: Mapping[str, Case] | None = None,
    title: str = "Pal keyword rules compliance",
    warn: Callable[[str], None] | None = None,
) -> dict[str, str]:
    """Relative path → file text, for every page and badge of the site. Every case of the
    suite gets a page, and at most MAX_OTHER_PAGES others (`with_pages`); the rest are
    listed on OTHERS (`warn` is told how many)."""
    by_name: dict[str, list[ResultsFile]] = {}
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
                history=build(runs_of, registry, title=title),
                steps=[compare(a, b) for a, b in zip(runs_of, runs_of[1:], strict=False)],
            )
        )
    latest = build([e.latest for e in engines], registry, title=title, suite=suite)
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
        "kw_page": lambda kid: kw_names.get(kid) or slug(kid, 60),
        "paged": lambda cases: [c for c in cases if c.id in paged],
        "others": OTHERS,
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
            lines=history_lines(hist[0], e.history.keywords, shown.colour) if hist else "",
            **common,
        )
    for kw in latest.keywords:
        if kw.shown:
            pages[f"keywords/{kw_names[kw.id]}.html"] = env.get_template(
                "site_keyword.html.j2"
            ).render(root="../", kw=kw, **common)
    if rest:
        pages[OTHERS] = env.get_template("site_others.html.j2").render(
            root="", rest=rest, names=names, limit=MAX_OTHER_PAGES, **common
        )
        if warn is not None:
            warn(
                f"{len(rest)} case(s) not in the suite have no page of their own (at most "
                f"{MAX_OTHER_PAGES} do): they are listed on {OTHERS}"
            )
    for c in latest.cases.values():
        if c.id not in paged:
            continue
        start, steps = None, []
        if suite is not None and (case := suite.get(c.id)) is not None:
            steps = steps_of(case)
            from .boards import board, replay  # the oracle, only when boards are drawn

            if (replayed := replay(case, 0)) is not None:
                start = board("the board after setup", replayed[0].observe(), replayed[0], [])
        rules = [(r, registry.rule_text(r)) for r in c.rules]
        clauses = _case_clauses(c, latest, registry)
        pages[f"cases/{names[c.id]}.html"] = env.get_template("site_case.html.j2").render(
            root="../",
            c=c,
            clauses=clauses,
            rules=rules,
            start=start,
            steps=steps,
            explain=f"palconf explain {shlex.quote(c.id)} --engine-cmd 'YOUR ENGINE COMMAND'",
            **common,
        )
    for rel, badge in badges(latest).items():
        pages[f"badges/{rel}"] = json.dumps(badge, ensure_ascii=False) + "\n"
    return pages


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


@dataclass
class StepLine:
    n: int
    label: str  # "after setup", "action 2", "setup step 3"
    sent: str  # the ACTION as JSON; a setup step's STATE in short
    expect: str  # what the case expects after it


def steps_of(case: Case) -> list[StepLine]:
    """A case's steps in words, for its page: what is sent, what must follow."""
    lines = []
    if case.setup is not None:
        lines.append(StepLine(0, "after setup", "", _expected(case, 0) or "(nothing checked)"))
    for n, st in enumerate(case.steps, start=1):
        if st.kind == "setup":
            cards = _cards(st.body)
            sent = f"a new STATE ({cards} card{'' if cards == 1 else 's'} in its zones)"
        else:
            sent = st.describe()
        label = f"{st.label} {n}"
        lines.append(StepLine(n, label, sent, _expected(case, n) or "accepted"))
    return lines


def _cards(value: Any) -> int:
    """How many cards (objects with an `id` and a `kind`) a STATE holds, at any depth."""
    if isinstance(value, list):
        return sum(_cards(v) for v in value)
    if isinstance(value, dict):
        own = 1 if "id" in value and "kind" in value else 0
        return own + sum(_cards(v) for v in value.values())
    return 0


def _expected(case: Case, n: int) -> str:
    e = case.expectation_after(n)
    if e is None:
        return ""
    bits = []
    if e.refused is not None:
        bits.append(f"must be {e.refusal_text()}")
    if e.observed:
        bits.append(f"OBSERVED: {', '.join(sorted(e.observed))} checked")
    if e.legal is not None:
        bits.append("LEGAL checked")
    return "; ".join(bits)


def _where(results: Any, report: Report) -> str:
    """`54 of the 54 failures cite Taunt; 50 cite taunt.2` (`palconf.core.causes`)."""
    cause = shared_cause(results)
    return "" if cause is None else cause.words(report.keyword_name)


def _case_clauses(
    c: CaseView, report: Report, registry: Registry
) -> list[tuple[str, list[tuple[str, str]]]]:
    """(clause id, [(versions, text)]) for a case's page: each clause's text in the rules
    versions of the runs that have the case, one entry per distinct text; `versions` is ""
    when every run of the site is of one version."""
    engines = report.engine_by_key
    versions = sorted(
        {engines[key].rules_version for key, r in c.results.items() if r is not None},
        key=natural_key,
    )
    out = []
    for cid in c.clauses:
        texts = by_text(clause_texts(registry.clauses.get(cid), versions))
        shown = [(v if report.mixed_rules else "", t) for v, t in texts if t]
        out.append((cid, shown))
    return out
