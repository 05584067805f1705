"""Issue 35, pages and charts: messages and titles shown as text (their `code` spans as code,
nothing else made markup); charts legible at 390 px and with 50 versions (no text under
charts.MIN_TEXT_PX, x labels thinned, y labels clear of the points); one letter and colour
per engine in a report and a site. (In a real browser: tests/test_report_browser.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

from palconf.cli import main as cli
from palconf.core.results_file import meta_line, read_results
from palconf.registry import load as load_registry
from palconf.reports import build
from palconf.reports.charts import (
    MIN_TEXT_PX,
    PALETTE,
    SPARK_WIDTH,
    engine_marks,
    histories,
    history_lines,
)
from palconf.reports.html import render_html

KEYWORDS = ("taunt", "brave", "stealth")
TITLE = "`play` in a *title* <b>bold</b>"
MESSAGE = "after action 1: `legal` differs; engine said **x** _y_ <script>alert(1)</script>"


def results(folder: Path, name: str, version: str, failing: int = 0) -> Path:
    """A results file of engine `name` at `version`: 10 cases per keyword, the first
    `failing` of each failing with MESSAGE."""
    meta = {"engine": {"name": name, "version": version}, "date": f"2026-01-01T00:00:{version}"}
    lines = [
        json.dumps(
            {
                "id": f"{kw}-{n}",
                "title": TITLE,
                "keywords": [kw],
                "clauses": [f"{kw}.1"],
                "outcome": "fail" if n < failing else "pass",
                "message": MESSAGE if n < failing else "",
            }
        )
        for kw in KEYWORDS
        for n in range(10)
    ]
    path = folder / f"{name}-{version}.jsonl"
    path.write_text(meta_line(meta) + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def fifty_versions(folder: Path) -> list[Path]:
    """50 versions (1.0 … 1.49) of two engines, zeta and alpha, some failing."""
    folder.mkdir(exist_ok=True)
    return [
        results(folder, name, f"1.{v}", failing=(v * 7 + len(name)) % 4)
        for name in ("zeta", "alpha")
        for v in range(50)
    ]


# ---------------------------------------------------------------- messages as text


def test_messages_and_titles_are_text_with_code_spans(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    files = [results(folder, "zeta", "1.0", failing=2), results(folder, "zeta", "1.1", 3)]
    report_dir, site_dir = tmp_path / "report", tmp_path / "site"
    assert cli(["report", str(files[-1]), "--out", str(report_dir)]) == 0
    assert cli(["site", str(folder), "--out", str(site_dir)]) == 0
    pages = {
        "report": (report_dir / "index.html").read_text(encoding="utf-8"),
        "case": (site_dir / "cases" / "taunt-0.html").read_text(encoding="utf-8"),
        "engine": (site_dir / "engines" / "zeta.html").read_text(encoding="utf-8"),
        "keyword": (site_dir / "keywords" / "taunt.html").read_text(encoding="utf-8"),
    }
    message = "after action 1: <code>legal</code> differs; engine said **x** _y_ "
    for name, html in pages.items():
        body = html.split("<body>", 1)[1]
        assert "`legal` differs" not in body and "`play` in" not in body, name  # never half
        assert "<script" not in body and "<b>bold" not in body, name  # no HTML comes through
        assert "<strong>x" not in body and "<em>title" not in body, name  # nor emphasis
        if name != "engine":  # (the engine page lists messages, not titles)
            assert "<code>play</code> in a *title* &lt;b&gt;bold&lt;/b&gt;" in body, name
        if name != "keyword":  # (the keyword page lists titles, not messages)
            assert message + "&lt;script&gt;alert(1)&lt;/script&gt;" in body, name


# ---------------------------------------------------------------- legible charts


def _css(html: str) -> str:
    return html.split("<style>", 1)[1].split("</style>", 1)[0]


def test_no_chart_text_is_smaller_than_the_minimum(tmp_path: Path) -> None:
    report = build([read_results(p) for p in fifty_versions(tmp_path / "r")], load_registry())
    html = render_html(report)
    css = _css(html)
    # SVG text: in viewBox units, each at least MIN_TEXT_PX …
    sizes = [float(s) for s in re.findall(r'<text [^>]*font-size="([\d.]+)"', html)]
    assert sizes and min(sizes) >= MIN_TEXT_PX
    # … and a sparkline is never laid out narrower than its viewBox (a unit is ≥ 1 px)
    boxes = set(re.findall(r'<svg class="chart spark" [^>]*viewBox="0 0 (\d+) \d+"', html))
    assert boxes == {str(SPARK_WIDTH)}
    assert f"minmax({SPARK_WIDTH}px, 1fr)" in css
    assert re.search(r"\.sparks svg \{[^}]*min-width: " + str(SPARK_WIDTH) + "px", css)
    assert "1fr 1fr" not in css  # no two columns on a phone, that would shrink them
    # the bars and legend are HTML, their text sized in px, none under the minimum
    rules = re.findall(r"(\.(?:bars|lgs)[^{]*)\{([^}]*)\}", css)
    px = [float(v) for _, body in rules for v in re.findall(r"font-size: ([\d.]+)px", body)]
    assert px and min(px) >= MIN_TEXT_PX
    assert not any(re.search(r"font-size: [\d.]+(?:r?em|%)", body) for _, body in rules)
    assert '<svg class="chart bars"' not in html  # no drawing that scales its text down


def test_fifty_versions_thin_the_x_labels_and_keep_labels_off_the_points(tmp_path: Path) -> None:
    report = build([read_results(p) for p in fifty_versions(tmp_path / "r")], load_registry())
    (alpha, zeta) = sorted(histories(report.engines), key=lambda h: h.name)
    assert len(zeta.runs) == 50 and zeta.labels[-1] == "1.49"
    svg = str(history_lines(zeta, report.keywords)).split('data-keyword="taunt"')[1]
    svg = svg.split("</svg>")[0]
    xlabs = re.findall(
        r'<text class="xlab" x="([\d.]+)"[^>]*font-size="([\d.]+)"[^>]*>([^<]*)<', svg
    )
    shown = [label for _, _, label in xlabs]
    assert 3 <= len(shown) <= 10, shown  # thinned, but still a scale
    assert shown[-1] == "1.49" and shown[0] == "1.0"  # the latest always, the first as it fits
    assert shown == sorted(shown, key=lambda v: int(v.split(".")[1]))
    # no two overlap: centres further apart than half of each (0.6 em a character) + a gap
    for (xa, sa, a), (xb, sb, b) in zip(xlabs, xlabs[1:], strict=False):
        room = (len(a) * float(sa) + len(b) * float(sb)) * 0.6 / 2
        assert float(xb) - float(xa) >= room + 2, (a, b)
    for x, size, label in xlabs:  # within the chart
        half = len(label) * float(size) * 0.6 / 2
        assert float(x) - half >= 0 and float(x) + half <= SPARK_WIDTH, label
    # the y labels ("100" and the low) end left of every point
    ylabs = re.findall(r'<text class="ylab" x="([\d.]+)"[^>]*text-anchor="end"', svg)
    points = re.findall(r'<circle class="pt" cx="([\d.]+)" cy="[\d.]+" r="([\d.]+)"', svg)
    assert len(ylabs) == 2 and len(points) == 50
    assert max(float(x) for x in ylabs) < min(float(cx) - float(r) for cx, r in points)
    # and the points do not cover each other
    gaps = [float(b[0]) - float(a[0]) for a, b in zip(points, points[1:], strict=False)]
    assert min(gaps) >= 2 * float(points[0][1])


# ---------------------------------------------------------------- one letter and colour


def _tag(html: str, label: str) -> tuple[str, str]:
    """(colour, letter) of the tag shown just before `label`."""
    m = re.search(
        r'<span class="tag" style="background:(#[0-9a-f]{6})">([A-Z]+\d*)</span>(?:<a [^>]*>)?'
        + re.escape(label),
        html,
    )
    assert m is not None, label
    return m.group(1), m.group(2)


def test_one_letter_and_colour_per_engine_in_report_and_site(tmp_path: Path) -> None:
    files = fifty_versions(tmp_path / "results")
    zeta_last, alpha_last = files[49], files[99]
    assert engine_marks(["zeta", "alpha", "zeta"]) == engine_marks(["alpha", "zeta"])
    want = {"alpha": (PALETTE[0], "A"), "zeta": (PALETTE[1], "B")}
    # a report of the latest runs, zeta's file given first
    report_dir = tmp_path / "report"
    assert cli(["report", str(zeta_last), str(alpha_last), "--out", str(report_dir)]) == 0
    html = (report_dir / "index.html").read_text(encoding="utf-8")
    matrix = html.split('<table class="matrix">', 1)[1]
    for name, mark in want.items():
        assert _tag(matrix, f"{name} 1.49") == mark
        colour, letter = mark
        assert f'<span class="btag" style="background:{colour}">{letter}</span>' in html
    # the site of every version: the same letters and colours, in its index and its charts
    site_dir = tmp_path / "site"
    assert cli(["site", str(tmp_path / "results"), "--out", str(site_dir)]) == 0
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    for name, (colour, letter) in want.items():
        assert _tag(index, f"{name} 1.49") == (colour, letter)
        assert f'<span class="btag" style="background:{colour}">{letter}</span>' in index
        page = (site_dir / "engines" / f"{name}.html").read_text(encoding="utf-8")
        assert f'<h1><span class="tag" style="background:{colour}">{letter}</span>{name}' in page
        sparks = page.split('<div class="sparks">', 1)[1]
        assert f'stroke="{colour}"' in sparks and f'fill="{colour}"' in sparks
    # a report of several versions of each: the engine's letter and colour, numbered, older
    # runs lighter
    report = build([read_results(p) for p in (files[1], files[50], files[0])], load_registry())
    marks = {e.label: (e.tag, e.colour, e.shade) for e in report.engines}
    assert marks == {
        "zeta 1.1": ("B2", PALETTE[1], 1.0),
        "alpha 1.0": ("A", PALETTE[0], 1.0),
        "zeta 1.0": ("B1", PALETTE[1], 0.4),
    }
