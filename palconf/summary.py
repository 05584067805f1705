"""Tallying results per keyword: the table `palconf run` prints and reports build on."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable

from .registry import BASE, Registry
from .runner import Result

COLUMNS = ("pass", "fail", "error", "timeout", "skip", "xfail", "xpass")


@dataclass
class Tally:
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, outcome: str) -> None:
        self.counts[outcome] += 1

    @property
    def ok(self) -> bool:
        return not (self.counts["fail"] or self.counts["error"] or self.counts["timeout"])


def per_keyword(results: Iterable[Result], registry: Registry) -> dict[str, Tally]:
    """A case counts under every keyword it tests (`base` if none)."""
    table = {k: Tally() for k in [*registry.keywords, BASE]}
    for r in results:
        for k in r.keywords or [BASE]:
            table.setdefault(k, Tally()).add(r.outcome)
    return table


def render_table(results: list[Result], registry: Registry) -> str:
    table = per_keyword(results, registry)
    total = Tally()
    for r in results:
        total.add(r.outcome)
    used = [c for c in COLUMNS if c in ("pass", "fail", "error", "skip") or total.counts[c]]
    head = f"{'keyword':<14}{'cases':>7}" + "".join(f"{c:>9}" for c in used) + "   result"
    lines = [head, "-" * len(head)]

    def row(name: str, t: Tally) -> str:
        verdict = "-" if not t.total else ("ok" if t.ok else "FAILING")
        return (f"{name:<14}{t.total:>7}" + "".join(f"{t.counts[c]:>9}" for c in used)
                + f"   {verdict}")

    for k, t in table.items():
        lines.append(row(k, t))
    lines.append("-" * len(head))
    lines.append(row("all cases", total))
    return "\n".join(lines)
