"""Tallying results per group: the table `palconf run` prints.

A case counts under every group it is in (`Result.groups`: each keyword it tests,
`protocol` when it cites a protocol rule, `base` when neither); the rows are in the order of
`Registry.groups`, with any group the registry does not know after them.
"""

from __future__ import annotations

from collections.abc import Iterable

from .core import Result, Tally
from .core.outcomes import OUTCOMES
from .registry import Registry

#: The columns always shown; the others only when some case has that outcome.
ALWAYS = ("pass", "fail", "error", "skip")


def per_group(results: Iterable[Result], registry: Registry) -> dict[str, Tally]:
    table = {g: Tally() for g in registry.groups}
    for r in results:
        for g in r.groups:
            table.setdefault(g, Tally()).add(r.outcome)
    return table


def render_table(results: list[Result], registry: Registry) -> str:
    table = per_group(results, registry)
    total = Tally.of(r.outcome for r in results)
    used = [c for c in OUTCOMES if c in ALWAYS or total.counts[c]]
    head = f"{'keyword':<14}{'cases':>7}" + "".join(f"{c:>9}" for c in used) + "   result"
    lines = [head, "-" * len(head)]

    def row(name: str, t: Tally) -> str:
        verdict = "-" if not t.total else ("ok" if t.ok else "FAILING")
        return (
            f"{name:<14}{t.total:>7}" + "".join(f"{t.counts[c]:>9}" for c in used) + f"   {verdict}"
        )

    for group, t in table.items():
        lines.append(row(group, t))
    lines.append("-" * len(head))
    lines.append(row("all cases", total))
    return "\n".join(lines)
