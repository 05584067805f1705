"""What a case's page on the site shows besides its results (`reports.site.render_pages`):
its steps in words, the clauses' texts in the runs' rules versions, each engine's history
(`reports.site_history`), and the hash of what the page is made of (`case_inputs`), so
that a new run re-renders only the pages of the cases it changes."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .build import clause_texts
from .ordering import by_text, natural_key

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.registry import Registry

    from .model import CaseView, Report
    from .site_history import Span

__all__ = ["StepLine", "case_clauses", "case_inputs", "page_hash_of", "steps_of"]


def page_hash_of(*parts: Any) -> str:
    """The hash of what a page is made of (its parts as JSON)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode("utf-8")).hexdigest()


def around_cases(around: str, report: Report, page_of: Mapping[str, str]) -> str:
    """What every case page is made of besides its case: `around` (what every page is made
    of) and each engine as the case pages name it, by its page (`page_of`: its key in the
    report holds its version, which a case page never shows, so that a run that changes
    nothing about a case leaves its page as it was)."""
    engines = [(page_of[e.key], e.name, e.tag, e.colour, e.rules_version) for e in report.engines]
    return page_hash_of(around, engines, report.mixed_rules)


def case_inputs(
    around: str, c: CaseView, history: Mapping[str, Sequence[Span]], page_of: Mapping[str, str]
) -> str:
    """The hash of a case's page: `around` (`around_cases`), the case, its latest result of
    each engine (what the page shows of it: the time it took aside) and its history (by
    the engine's page, `page_of`)."""
    results = [
        [
            page_of[key],
            None if r is None else {k: v for k, v in r.to_json().items() if k != "duration_ms"},
        ]
        for key, r in c.results.items()
    ]
    case = [c.id, c.title, c.groups, c.clauses, c.interpretations, c.rules]
    spans = [[key, [s.to_json() for s in spans]] for key, spans in history.items()]
    return page_hash_of(around, case, results, spans)


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


def case_clauses(
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
