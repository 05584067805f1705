"""Charts (no scripts, no fonts or assets from elsewhere), and each engine's letter and colour:

- `engine_marks`: an engine's letter and colour, the same in a report and a site (`Mark`);
- `keyword_bars`: per keyword, one bar per engine, its pass rate (passed / ran), as HTML and
  CSS (its text is page text, never scaled down with a drawing);
- `history_lines`: for one engine's runs (several versions), one small SVG line chart per
  keyword, a point per run, oldest first (`History`), its x labels thinned to those that
  fit and its y labels in a margin of their own, clear of the points.

The charts' CSS is `chart_css` in templates/charts.j2, shared by the report and the site: a
sparkline is never drawn narrower than its viewBox (SPARK_WIDTH), so no text in a chart is
ever smaller than MIN_TEXT_PX CSS pixels, at 390 px as at 1280.

Every piece of text (engine names, versions, keyword names) is untrusted and goes through
`markupsafe.escape`; numbers are formatted here. The functions return `Markup`, so the
autoescaped templates put them in as they are.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from palconf.core import Tally
from palconf.core.outcomes import BASE
from palconf.core.results_file import ResultsFile

from .model import EngineRun, KeywordView
from .render import shorten, visible
from .versions import order_runs

#: The engines' colours, given in the order of their names (`engine_marks`).
PALETTE = ("#0969da", "#bf3989", "#1a7f37", "#bc4c00", "#8250df", "#9a6700", "#0a7d8c", "#57606a")
#: The smallest text any chart draws, in CSS pixels.
MIN_TEXT_PX = 11
#: A sparkline's viewBox width: chart_css never lays one out narrower (so 1 unit ≥ 1 px).
SPARK_WIDTH = 240
#: How wide a character of a chart's label is, at most, in ems (digits and most letters of
#: the sans-serif fonts the pages name are narrower), and the room left between two labels.
CHAR_EM, LABEL_GAP = 0.62, 6.0


@dataclass(frozen=True)
class Mark:
    """How a page names an engine where there is little room: a letter and a colour."""

    letter: str
    colour: str


def engine_marks(names: Iterable[str]) -> dict[str, Mark]:
    """Each engine's letter (A, B, …) and colour, by the place of its name among the names,
    sorted: a report and a site of the same engines give each engine the same letter and
    colour, whatever the order of the results files and however many versions of each."""
    return {
        name: Mark(letters(i), PALETTE[i % len(PALETTE)])
        for i, name in enumerate(sorted(set(names)))
    }


def letters(n: int) -> str:
    """0 → A, 25 → Z, 26 → AA …"""
    s = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def shade(k: int, n: int) -> float:
    """The opacity of the k-th (0-based, oldest first) of n runs of one engine side by side:
    its colour, lighter for older runs; 1 for the latest (or only) one."""
    return 1.0 if n < 2 else round(0.4 + 0.6 * k / (n - 1), 2)


@dataclass(frozen=True)
class RunMark:
    tag: str  # "A", or "A1", "A2" … for several runs of engine A; "" for a lone run
    colour: str
    shade: float  # `shade`


def run_marks(runs: Sequence[ResultsFile]) -> list[RunMark]:
    """Each run's mark, in the order given: its engine's letter and colour (`engine_marks`);
    when the engine has several runs, its tag adds the run's place among them, oldest first
    (`reports.versions`: A1, A2 …) and older runs are lighter (`shade`). A lone run of a
    lone engine has no tag (nothing to tell apart)."""
    marks = engine_marks(r.engine_name for r in runs)
    by_name: dict[str, list[ResultsFile]] = {}
    for r in runs:
        by_name.setdefault(r.engine_name, []).append(r)
    place: dict[int, tuple[int, int]] = {}  # id(run) → (k, n)
    for same in by_name.values():
        order = order_runs(same, lambda r: r.engine_version, lambda r: r.date, lambda r: r.path)
        for k, r in enumerate(order.runs):
            place[id(r)] = (k, len(same))
    out = []
    for r in runs:
        m, (k, n) = marks[r.engine_name], place[id(r)]
        tag = "" if len(runs) < 2 else m.letter + (str(k + 1) if n > 1 else "")
        out.append(RunMark(tag, m.colour, shade(k, n)))
    return out


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
    """Horizontal bars, in HTML and CSS (`chart_css`): a row per keyword, a bar per engine
    (its pass rate of the cases run), in the engine's colour and with its tag."""
    shown = [k for k in keywords if k.id != BASE or k.cases]
    longest = max((e.tag for e in engines), key=len, default="")
    spacer = (
        f'<span class="btag" style="visibility:hidden">{_t(longest, 8)}</span>' if longest else ""
    )
    ticks = "".join(f'<span class="btick" style="left:{p}%">{p}%</span>' for p in (0, 50, 100))
    out = [
        '<div class="bars"><div class="bkw bscale" aria-hidden="true"><span></span>'
        f'<span class="brow">{spacer}<span class="btrack">{ticks}</span>'
        '<span class="bpct"></span></span></div>'
    ]
    for kw in shown:
        out.append(f'<div class="bkw"><span class="bname">{_t(kw.name, 24)}</span><span>')
        for e in engines:
            t = kw.cells[e.key].all
            who = _t(f"{e.tag + ' ' if e.tag else ''}{e.label}", 80)
            tag = f'<span class="btag" style="{_paint(e)}">{_t(e.tag, 8)}</span>' if e.tag else ""
            if t.rate is None:
                out.append(
                    f'<span class="brow" title="{who}: nothing ran">{tag}'
                    f'<span class="btrack"></span><span class="bpct">–</span></span>'
                )
                continue
            out.append(
                f'<span class="brow" title="{who}: {t.passed}/{t.ran} ({t.percent})">{tag}'
                f'<span class="btrack"><span class="bfill" style="width:{100 * t.rate:.1f}%;'
                f'{_paint(e)}"></span></span><span class="bpct">{t.percent}</span></span>'
            )
        out.append("</span></div>")
    out.append("</div>")
    return Markup("".join(out))


def _paint(e: EngineRun) -> str:
    """The CSS of an engine's colour (`run_marks`): its colour, lighter for an older run."""
    colour = e.colour or PALETTE[0]
    return f"background:{colour}" + (f";opacity:{e.shade}" if e.shade < 1 else "")


def engine_legend(engines: list[EngineRun]) -> Markup:
    """Which colour and tag is which engine (HTML, escaped)."""
    items = [
        f'<span class="lg"><span class="sw" style="{_paint(e)}"></span>'
        f"{_t((e.tag + ' ' if e.tag else '') + e.label, 80)}</span>"
        for e in engines
    ]
    return Markup("".join(items))


def x_labels(xs: Sequence[float], labels: Sequence[str], size: float, width: float) -> list[int]:
    """Which of the x labels (centred on `xs`, `size` px text) to draw so that none overlaps
    the next or leaves the chart (0 to `width`): the last always, then every k-th back from
    it, k the smallest that keeps them apart, and the first where it fits."""
    n = len(labels)
    for k in range(1, n + 1):
        picked = list(range(n - 1, -1, -k))[::-1]
        boxes = [label_box(xs[i], labels[i], size, width) for i in picked]
        if all(a[1] + LABEL_GAP <= b[0] for a, b in zip(boxes, boxes[1:], strict=False)):
            first = label_box(xs[0], labels[0], size, width)
            if picked[0] != 0 and first[1] + LABEL_GAP <= boxes[0][0]:
                picked.insert(0, 0)  # the oldest too, where it fits
            return picked
    return [n - 1] if n else []


def label_box(x: float, label: str, size: float, width: float) -> tuple[float, float]:
    """Where a label centred on x lies (left, right), moved in to stay within 0..width."""
    half = len(label) * size * CHAR_EM / 2
    centre = min(max(x, half + 1), width - half - 1)
    return centre - half, centre + half


def history_lines(
    history: History, keywords: list[KeywordView], colour: str | None = None
) -> Markup:
    """Small multiples: per keyword a line chart of its pass rate over the engine's runs, in
    the engine's colour (`colour`, else its runs'). Every chart has the same y axis, from a
    little under the lowest rate of any of them to 100% (so that 96% and 100% differ, and a
    3% drop looks alike in each); its labels sit in a margin left of the points, and the x
    labels are thinned to those that fit (`x_labels`). A partial or unfinished run's point
    is hollow (`palconf.core.results_meta.Completeness.mark`)."""
    n = len(history.runs)
    colour = colour or history.runs[-1].colour or PALETTE[0]
    w, h, top, bottom = SPARK_WIDTH, 116, 30, 30
    gutter, right = 32, 12  # the y labels' margin; room right of the last point
    font = MIN_TEXT_PX
    x0, x1 = gutter + 6, w - right
    spacing = (x1 - x0) / (n - 1) if n > 1 else x1 - x0
    radius = max(1.2, min(3.5, spacing / 2 - 0.4))
    xs = [x0 + spacing * i if n > 1 else (x0 + x1) / 2 for i in range(n)]
    labels = [shorten(visible(label), 12) for label in history.labels]
    drawn = x_labels(xs, labels, font, w)
    charts = []
    # (base: when any run has a case of it)
    shown = [kw for kw in keywords if kw.id != BASE or any(c.all.total for c in kw.cells.values())]
    # one y range for every chart, so that the same drop looks the same size in each
    every = [r for kw in shown for r in history.rates(kw.id) if r is not None]
    lo = max(0.0, math.floor((min(every, default=1.0) - 0.05) * 10) / 10)

    def y(r: float) -> float:
        return top + (h - top - bottom) * (1 - (r - lo) / (1 - lo))

    xlabels = "".join(
        f'<text class="xlab" x="{sum(label_box(xs[i], labels[i], font, w)) / 2:.1f}" '
        f'y="{h - 7}" font-size="{font}" text-anchor="middle" fill="#59636e">'
        f"{escape(labels[i])}</text>"
        for i in drawn
    )
    for kw in shown:
        rates = history.rates(kw.id)
        known = [r for r in rates if r is not None]
        last = known[-1] if known else None
        parts = [
            f'<svg class="chart spark" role="img" viewBox="0 0 {w} {h}" '
            f'xmlns="http://www.w3.org/2000/svg" data-keyword="{_t(kw.id, 60)}">',
            f"<title>{_t(kw.name, 40)}: pass rate over {n} runs of {_t(history.name, 80)}</title>",
            f'<text x="8" y="17" font-size="13" font-weight="600" fill="#1f2328">'
            f"{_t(kw.name, 22)}</text>",
            f'<text x="{w - 8}" y="17" font-size="12" text-anchor="end" fill="#59636e">'
            f"{'–' if last is None else f'{math.floor(last * 100)}%'}</text>",
            f'<line x1="{gutter}" y1="{top}" x2="{w - 4}" y2="{top}" stroke="#eaeef2"/>',
            f'<line x1="{gutter}" y1="{h - bottom}" x2="{w - 4}" y2="{h - bottom}" '
            f'stroke="#d1d9e0"/>',
            f'<text class="ylab" x="{gutter - 4}" y="{top + 4}" font-size="{font}" '
            f'text-anchor="end" fill="#6e7781">100</text>',
            f'<text class="ylab" x="{gutter - 4}" y="{h - bottom + 4}" font-size="{font}" '
            f'text-anchor="end" fill="#6e7781">{math.floor(lo * 100)}</text>',
            xlabels,
        ]
        pts = [(x, y(r)) for x, r in zip(xs, rates, strict=True) if r is not None]
        if len(pts) > 1:
            line = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
            parts.append(
                f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for x, r, label, run in zip(xs, rates, history.labels, history.runs, strict=True):
            if r is None:
                continue
            # a partial or unfinished run: a hollow point, its mark in the tooltip
            mark = run.completeness.mark
            paint = (
                f'fill="#fff" stroke="{colour}" stroke-width="1.5"' if mark else f'fill="{colour}"'
            )
            parts.append(
                f'<circle class="pt{" part" if mark else ""}" cx="{x:.1f}" cy="{y(r):.1f}" '
                f'r="{radius:.1f}" {paint}><title>{_t(label, 60)}: {math.floor(r * 100)}%'
                f"{f' ({mark})' if mark else ''}</title></circle>"
            )
        parts.append("</svg>")
        charts.append("".join(parts))
    return Markup("".join(charts))
