"""The end of a run: the per-group table, the skip reasons, the one-line verdict.

A case counts under every group it is in (`Result.groups`: each keyword it tests,
`protocol` when it cites a protocol rule, `base` when neither); the rows are in the order of
`Registry.groups`, with any group the registry does not know after them. A row whose cases
were all skipped says `skipped`, not `ok`: nothing in it was tested; a row with an xpass
says `XPASS`, as the verdict counts it against the run.

`where_line` says what the failures have in common (`palconf.core.causes`), `xpass_hint` how
to bring an expectations file up to date, `failures_by_clause` lists the failures grouped by
the clause they share.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from palconf.core import Outcome, Result, Tally, terminal_safe
from palconf.core.causes import by_cause, shared_cause
from palconf.core.outcomes import OUTCOMES
from palconf.registry import Registry
from palconf.running.terminal import Paint

#: The columns always shown; the others only when some case has that outcome.
ALWAYS = ("pass", "fail", "error", "skip")


def per_group(results: Iterable[Result], registry: Registry) -> dict[str, Tally]:
    table = {g: Tally() for g in registry.groups}
    for r in results:
        for g in r.groups:
            table.setdefault(g, Tally()).add(r.outcome)
    return table


def row_verdict(t: Tally) -> str:
    """FAILING, XPASS (listed as failing but passed: the expectations file is out of date,
    and the run is not ok), skipped, ok, or `-` for no cases."""
    if not t.total:
        return "-"
    if not t.ok:
        return "FAILING"
    if t.counts[Outcome.XPASS]:
        return "XPASS"
    return "skipped" if t.counts[Outcome.SKIP] == t.total else "ok"


_VERDICT_STYLE = {"FAILING": "red", "XPASS": "yellow", "skipped": "yellow", "ok": "green"}


def render_table(results: list[Result], registry: Registry, paint: Paint | None = None) -> str:
    paint = paint or Paint(False)
    table = per_group(results, registry)
    total = Tally.of(r.outcome for r in results)
    used = [c for c in OUTCOMES if c in ALWAYS or total.counts[c]]
    head = f"{'keyword':<14}{'cases':>7}" + "".join(f"{c:>9}" for c in used) + "   result"
    lines = [head, "-" * len(head)]

    def row(name: str, t: Tally) -> str:
        verdict = row_verdict(t)
        return (
            f"{name:<14}{t.total:>7}"
            + "".join(f"{t.counts[c]:>9}" for c in used)
            + f"   {paint(verdict, _VERDICT_STYLE.get(verdict, ''))}"
        )

    for group, t in table.items():  # a results file's keywords: untrusted text
        if t.total:  # (a group none of the cases is in: no row)
            lines.append(row(terminal_safe(group, 60), t))
    lines.append("-" * len(head))
    lines.append(row("all cases", total))
    return "\n".join(lines)


def _reason(message: str) -> str:
    """A skip reason as counted: numbers in it do not split a group."""
    return re.sub(r"\b\d+\b", "N", message) or "(no reason given)"


def skip_reasons(results: Iterable[Result], limit: int = 8, details: int = 3) -> list[str]:
    """The skipped cases, grouped by reason, most frequent first: `25 case(s): engine does
    not implement: brave`. Reasons that differ only after their first `: ` are one line
    (`40 case(s): engine does not implement: brave (25), taunt (10), brave, taunt (5)`), the
    `details` most frequent shown and "N more"; at most `limit` lines and a last one for the
    rest, itself grouped."""
    skipped = (r for r in results if r.outcome == Outcome.SKIP)
    reasons: Counter[str] = Counter(_reason(r.message) for r in skipped)
    heads: dict[str, Counter[str]] = {}
    for why, n in reasons.most_common():
        head, sep, detail = why.partition(": ")
        heads.setdefault(head if sep else why, Counter())[detail if sep else ""] += n
    ranked = sorted(heads.items(), key=lambda kv: -sum(kv[1].values()))
    lines = []
    for head, parts in ranked[:limit]:
        n = sum(parts.values())
        if len(parts) == 1:
            (detail,) = parts
            why = f"{head}: {detail}" if detail else head
            lines.append(f"{n} case(s): {terminal_safe(why, 300)}")
            continue
        shown = [f"{terminal_safe(d, 100)} ({k})" for d, k in parts.most_common(details)]
        if len(parts) > details:
            shown.append(f"{len(parts) - details} more")
        lines.append(f"{n} case(s): {terminal_safe(head, 200)}: {'; '.join(shown)}")
    if len(ranked) > limit:
        rest = ranked[limit:]
        n = sum(sum(parts.values()) for _, parts in rest)
        top = ", ".join(f"{terminal_safe(h, 80)} ({sum(p.values())})" for h, p in rest[:details])
        more = f" and {len(rest) - details} more" if len(rest) > details else ""
        lines.append(f"{n} case(s) for {len(rest)} other reason(s): {top}{more}")
    return lines


def verdict_line(
    results: list[Result], selected: int, bad: bool, registry: Registry, paint: Paint
) -> str:
    """The last line of a run: ok or FAILED, the counts, the failing groups."""
    total = Tally.of(r.outcome for r in results)
    counts = ", ".join(
        paint.outcome(o, f"{total.counts[o]} {o}") for o in OUTCOMES if total.counts[o]
    )
    not_run = selected - len(results)
    tail = f"; {not_run} not run" if not_run > 0 else ""
    if not bad:
        xfail = total.counts[Outcome.XFAIL]
        expected = f" (the {xfail} xfail: failures the expectations file expects)" if xfail else ""
        return (
            f"palconf: {paint('ok', 'green')}: {len(results)} case(s): {counts or 'none'}"
            f"{expected}{tail}"
        )
    failing = [terminal_safe(g, 60) for g, t in per_group(results, registry).items() if not t.ok]
    where = f"; failing: {', '.join(failing)}" if failing else ""
    return (
        f"palconf: {paint('FAILED', 'red')}: {len(results)} case(s): {counts or 'none'}"
        f"{tail}{where}"
    )


def where_line(results: Iterable[Result], registry: Registry) -> str | None:
    """`where: 54 of the 54 failures cite Taunt; 50 cite taunt.2`, or None if none failed."""
    cause = shared_cause(results)
    return None if cause is None else f"where: {terminal_safe(cause.words(registry.keyword_name))}"


def xpass_hint(results: Iterable[Result], expectations: str | None = None) -> str | None:
    """How to bring the expectations file up to date when listed failures now pass."""
    n = sum(1 for r in results if r.outcome == Outcome.XPASS)
    if not n:
        return None
    where = f"--expectations {terminal_safe(expectations, 300)}" if expectations else "the file"
    return (
        f"{n} xpass: case(s) {where} lists as failing now pass; add --update-expectations "
        f"to the same command to rewrite it"
    )


def failures_by_clause(
    results: Iterable[Result], registry: Registry, groups: int = 12, ids: int = 3
) -> list[str]:
    """The failed results grouped by the clause or rule they share (`by_cause`: the one
    count of `where_line`), largest first: per group `taunt.2 (50): <its summary>` (`B-15
    (45): <the base rule's text>`) and a line of ids (`taunt-…, taunt-…, … and 47
    more`), at most `groups` groups and a last line for the rest."""
    causes = by_cause(r for r in results if r.failed)
    lines = []
    for cause in causes[:groups]:
        shown = ", ".join(terminal_safe(r.id, 120) for r in cause.results[:ids])
        more = len(cause.results) - ids
        summary = _summary(cause.id, registry)
        lines.append(
            f"{terminal_safe(cause.id, 60)} ({len(cause.results)})"
            + (f": {terminal_safe(summary, 90)}" if summary else "")
        )
        lines.append(f"    {shown}" + (f", … and {more} more" if more > 0 else ""))
    if len(causes) > groups:
        rest = sum(len(c.results) for c in causes[groups:])
        lines.append(f"… and {rest} more failure(s) under {len(causes) - groups} other clause(s)")
    return lines


def _summary(cid: str, registry: Registry) -> str:
    """A clause's one-line summary, a base rule's text ("" for anything else: a protocol
    rule's text is a section of docs/protocol.md)."""
    clause = registry.clauses.get(cid)
    return clause.summary if clause is not None else registry.base.get(cid, "")
