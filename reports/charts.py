"""Charts as inline SVG (no scripts, no fonts or assets from elsewhere):

- `keyword_bars`: per keyword, one bar per engine, its pass rate (passed / ran);
- `history_lines`: for one engine's runs (several versions), one small line chart per
  keyword, a point per run, oldest first (`History`).

Every piece of text in the SVG (engine names, versions, keyword names) is untrusted and goes
through `markupsafe.escape`; numbers are formatted here. The functions return `Markup`, so
the autoescaped templates put them in as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from markupsafe import Markup, escape

from palconf.core import Tally
from palconf.core.outcomes import BASE

from .model import EngineRun, KeywordView
from .render import shorten, visible
from .versions import order_runs

#: Colours of the engines' bars, in order (the engine's tag says which is which).
PALETTE = ("#0969da", "#bf3989", "#1a7f37", "#bc4c00", "#8250df", "#9a6700", "#0a7d8c", "#57606a")


def _t(text: str, limit: int = 60) -> str:
    """Text for SVG: unprintable characters made visible, shortened, escaped."""
    return str(escape(shorten(visible(text), limit)))


def _rate(t: Tally) -> float | None:
    return t.rate


@dataclass
class History:
    """One engine's runs, oldest first (by version where the versions compare, else date)."""

    name: str
    runs: list[EngineRun]

    @property
    def labels(self) -> list[str]:
        return [r.version or r.meta_field["date"] or r.source for r in self.runs]

    def rates(self, kid: str) -> list[float | None]:
        return [_rate(r.keywords[kid].all) if kid in r.keywords else None for r in self.runs]


def histories(engines: list[EngineRun]) -> list[History]:
    """The engines given more than once (several versions or dates), each a `History`."""
    by_name: dict[str, list[EngineRun]] = {}
    for e in engines:
        by_name.setdefault(e.name, []).append(e)
    return [
        History(name=name, runs=_ordered(runs)) for name, runs in by_name.items() if len(runs) > 1
    ]


def _ordered(runs: list[EngineRun]) -> list[EngineRun]:
    """By version where the versions compare, else by date (`reports.versions`)."""
    return order_runs(
        runs, lambda r: r.version, lambda r: r.meta_field["date"], lambda r: r.source
    ).runs


def keyword_bars(engines: list[EngineRun], keywords: list[KeywordView]) -> Markup:
    """Horizontal bars: a row per keyword, a bar per engine (its pass rate of cases run)."""
    shown = [k for k in keywords if k.id != BASE or k.cases]
    n = max(1, len(engines))
    bar, gap, label_w, bar_w = 9, 8, 150, 460
    row = n * bar + gap
    top = 22
    height = top + row * len(shown) + 6
    width = label_w + bar_w + 60
    out = [
        f'<svg class="chart bars" role="img" viewBox="0 0 {width} {height}" '
        f'width="100%" xmlns="http://www.w3.org/2000/svg">',
        "<title>Pass rate per keyword and engine</title>",
    ]
    for pct in (0, 50, 100):
        x = label_w + bar_w * pct / 100
        out.append(
            f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - 4}" '
            f'stroke="#d1d9e0" stroke-width="1"/>'
            f'<text x="{x:.1f}" y="{top - 8}" font-size="10" text-anchor="middle" '
            f'fill="#59636e">{pct}%</text>'
        )
    for i, kw in enumerate(shown):
        y0 = top + i * row
        out.append(
            f'<text x="{label_w - 8}" y="{y0 + n * bar / 2 + 4:.1f}" font-size="12" '
            f'text-anchor="end" fill="#1f2328">{_t(kw.name, 24)}</text>'
        )
        for j, e in enumerate(engines):
            t = kw.cells[e.key].all
            y = y0 + j * bar
            colour = PALETTE[j % len(PALETTE)]
            who = _t(f"{e.tag + ' ' if e.tag else ''}{e.label}", 80)
            if t.rate is None:
                out.append(
                    f'<text x="{label_w + 4}" y="{y + bar - 1}" font-size="9" fill="#8c959f">'
                    f"{who}: nothing ran</text>"
                )
                continue
            w = max(1.0, bar_w * t.rate)
            out.append(
                f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar - 1}" '
                f'fill="{colour}"><title>{who}: {t.passed}/{t.ran} ({t.percent})</title></rect>'
                f'<text x="{label_w + w + 4:.1f}" y="{y + bar - 1}" font-size="9" '
                f'fill="#59636e">{t.percent}</text>'
            )
    out.append("</svg>")
    return Markup("".join(out))


def engine_legend(engines: list[EngineRun]) -> Markup:
    """Which colour is which engine (HTML, escaped)."""
    items = [
        f'<span class="lg"><span class="sw" style="background:{PALETTE[j % len(PALETTE)]}">'
        f"</span>{_t((e.tag + ' ' if e.tag else '') + e.label, 80)}</span>"
        for j, e in enumerate(engines)
    ]
    return Markup("".join(items))


def history_lines(history: History, keywords: list[KeywordView]) -> Markup:
    """Small multiples: per keyword a line chart of its pass rate over the engine's runs. Every
    chart has the same y axis, from a little under the lowest rate of any of them to 100%
    (so that 96% and 100% differ, and a 3% drop looks alike in each)."""
    n = len(history.runs)
    w, h, pad, top, bottom = 200, 96, 14, 24, 20
    charts = []
    # (base: when any run has a case of it)
    shown = [kw for kw in keywords if kw.id != BASE or any(c.all.total for c in kw.cells.values())]
    # one y range for every chart, so that the same drop looks the same size in each
    every = [r for kw in shown for r in history.rates(kw.id) if r is not None]
    lo = max(0.0, math.floor((min(every, default=1.0) - 0.05) * 10) / 10)
    for kw in shown:
        rates = history.rates(kw.id)
        known = [r for r in rates if r is not None]
        xs = [pad + (w - 2 * pad) * (i / (n - 1) if n > 1 else 0.5) for i in range(n)]

        def y(r: float, lo: float = lo) -> float:
            return top + (h - top - bottom) * (1 - (r - lo) / (1 - lo))

        last = known[-1] if known else None
        parts = [
            f'<svg class="chart spark" role="img" viewBox="0 0 {w} {h}" '
            f'xmlns="http://www.w3.org/2000/svg" data-keyword="{_t(kw.id, 60)}">',
            f"<title>{_t(kw.name, 40)}: pass rate over {n} runs of {_t(history.name, 80)}</title>",
            f'<text x="{pad}" y="15" font-size="12" font-weight="600" fill="#1f2328">'
            f"{_t(kw.name, 22)}</text>",
            f'<text x="{w - pad}" y="15" font-size="11" text-anchor="end" fill="#59636e">'
            f"{'–' if last is None else f'{math.floor(last * 100)}%'}</text>",
            f'<line x1="{pad}" y1="{top}" x2="{w - pad}" y2="{top}" stroke="#eaeef2"/>',
            f'<line x1="{pad}" y1="{h - bottom}" x2="{w - pad}" y2="{h - bottom}" '
            f'stroke="#d1d9e0"/>',
            f'<text x="2" y="{top + 3}" font-size="8" fill="#8c959f">100</text>',
            f'<text x="2" y="{h - bottom + 3}" font-size="8" fill="#8c959f">'
            f"{math.floor(lo * 100)}</text>",
        ]
        pts = [(x, y(r)) for x, r in zip(xs, rates, strict=True) if r is not None]
        if len(pts) > 1:
            line = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
            parts.append(
                f'<polyline points="{line}" fill="none" stroke="#0969da" stroke-width="2"/>'
            )
        for x, r, label in zip(xs, rates, history.labels, strict=True):
            parts.append(
                f'<text x="{x:.1f}" y="{h - 6}" font-size="9" text-anchor="middle" '
                f'fill="#59636e">{_t(label, 12)}</text>'
            )
            if r is None:
                continue
            parts.append(
                f'<circle class="pt" cx="{x:.1f}" cy="{y(r):.1f}" r="3.5" fill="#0969da">'
                f"<title>{_t(label, 60)}: {math.floor(r * 100)}%</title></circle>"
            )
        parts.append("</svg>")
        charts.append("".join(parts))
    return Markup("".join(charts))
