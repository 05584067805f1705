"""The report page and the site in a real browser: headless Chromium renders them to
full-page PNGs (as tall as the page) at desktop (1280 wide) and phone (390 wide) widths.
Skipped when Chromium is not installed (`apt-get update && apt-get install -y chromium`).
Set PALCONF_SCREENSHOTS=DIR to keep the PNGs (and the pages) for looking at; otherwise they
go to a temporary folder.

What this can check by itself: Chromium loads every page with every host name unresolvable,
writes non-blank images of the right width and of the page's whole height, and draws the
board of a failing case (its box is measured in the page and lies inside the image).
Whether the page reads well is for a person to look at (see reports/screenshot.py).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from palconf import paths
from palconf.cases.loader import load_cases
from palconf.cli import main as cli
from palconf.core.results_file import read_results
from palconf.engines.oracle_engine import OracleEngine
from palconf.registry import load as load_registry
from palconf.reports import build, write_report
from palconf.reports.boards import load_suite
from palconf.reports.charts import MIN_TEXT_PX
from palconf.reports.screenshot import (
    MAX_HEIGHT,
    VIEWPORTS,
    find_chromium,
    full_page,
    measure,
    render,
)

from .test_charts import fifty_versions
from .test_reports import HOSTILE_NAME, WrongRules, run_to_file
from .test_site import make_versions

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed"),
]

KEYWORDS = {"taunt", "nocturnal", "breakthrough", "vigilance"}


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    keep = os.environ.get("PALCONF_SCREENSHOTS")
    return Path(keep) if keep else tmp_path_factory.mktemp("browser")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("results")
    cases = [c for c in load_cases(paths.CASES, load_registry()) if KEYWORDS & set(c.keywords)]
    run_to_file(OracleEngine(), cases, tmp / "oracle.jsonl")
    run_to_file(OracleEngine(rules=WrongRules, name=HOSTILE_NAME), cases, tmp / "wrong.jsonl")
    return {"oracle": tmp / "oracle.jsonl", "wrong": tmp / "wrong.jsonl", "tmp": tmp}


def test_report_renders_in_chromium(out: Path, results: dict[str, Path]) -> None:
    registry = load_registry()
    report = build(
        [read_results(results["oracle"]), read_results(results["wrong"])],
        registry,
        suite=load_suite(registry),
    )
    write_report(report, out / "report")
    page = out / "report" / "index.html"
    pngs = render(page, out / "screenshots")
    assert [p.name for p in pngs] == [f"{stem}.png" for stem, _ in VIEWPORTS]
    chromium = find_chromium()
    assert chromium is not None
    for png, (_, width) in zip(pngs, VIEWPORTS, strict=True):
        height = measure(chromium, page, width)["height"]
        # the whole page, up to MAX_HEIGHT (at a true 390 px the report is taller than that)
        assert png_size(png) == (width, min(MAX_HEIGHT, height))
        assert height > 2400  # the whole page, not the first screenful
        # a blank page compresses to a few kilobytes; the report's colours and text do not
        assert png.stat().st_size > 30_000, f"{png} looks blank"


def test_a_failing_case_shows_its_board_in_the_report(out: Path, results: dict[str, Path]) -> None:
    registry = load_registry()
    report = build(
        [read_results(results["oracle"]), read_results(results["wrong"])],
        registry,
        suite=load_suite(registry),
    )
    write_report(report, out / "report-open")
    page = out / "report-open" / "index.html"
    # a screenshot cannot click: a copy with the first failing case open
    html = page.read_text(encoding="utf-8").replace(
        '<details class="case" id="failing--', '<details open class="case" id="failing--', 1
    )
    page.write_text(html, encoding="utf-8")
    chromium = find_chromium()
    assert chromium is not None
    for stem, width in VIEWPORTS:
        found = measure(chromium, page, width, ["#failing ~ ul .bpair", "#failing ~ ul .pc"])
        board = found["boxes"]["#failing ~ ul .bpair"]
        assert board is not None and board["height"] > 100 and board["width"] > 250
        assert found["boxes"]["#failing ~ ul .pc"]["height"] > 10
        png = out / "screenshots" / f"report-failing-{stem}.png"
        height = full_page(chromium, page, png, width)
        assert board["top"] + board["height"] <= height == png_size(png)[1]


def test_the_site_renders_in_chromium(out: Path, results: dict[str, Path]) -> None:
    folder = results["tmp"] / "site-results"
    folder.mkdir(exist_ok=True)
    (folder / "oracle.jsonl").write_bytes(results["oracle"].read_bytes())
    make_versions(results["wrong"], folder, HOSTILE_NAME)
    # a fourth version that breaks again: the latest, so its failing cases get boards
    first = (folder / "1.0.jsonl").read_text(encoding="utf-8")
    (folder / "3.0.jsonl").write_text(
        first.replace('"version": "1.0"', '"version": "3.0"', 1).replace(
            "2026-01-01T00:00:00Z", "2026-04-01T00:00:00Z", 1
        ),
        encoding="utf-8",
    )
    site = out / "site"
    assert cli(["site", str(folder), "--out", str(site)]) == 0
    chromium = find_chromium()
    assert chromium is not None
    engine = next(p for p in (site / "engines").iterdir() if "oracle" not in p.name)
    failing = next(
        p for p in sorted((site / "cases").iterdir()) if 'class="bpair"' in p.read_text("utf-8")
    )
    shots = {
        "site-index": site / "index.html",
        "site-engine": engine,
        "site-keyword": site / "keywords" / "taunt.html",
        "site-case": failing,
    }
    for name, page in shots.items():
        for stem, width in VIEWPORTS:
            png = out / "screenshots" / f"{name}-{stem}.png"
            height = full_page(chromium, page, png, width)
            assert png_size(png) == (width, height)
            assert png.stat().st_size > 15_000, f"{png} looks blank"
    found = measure(chromium, failing, 390, [".bpair", ".spark"])
    assert found["boxes"][".bpair"]["height"] > 100
    found = measure(chromium, engine, 1280, [".spark"])
    assert found["boxes"][".spark"]["height"] > 40  # the history chart is drawn


def test_charts_of_fifty_versions_are_legible_at_both_widths(out: Path, tmp_path: Path) -> None:
    """Issue 35: a site of 50 versions of two engines, its index (bars) and an engine's page
    (sparklines): no chart text drawn under MIN_TEXT_PX CSS pixels, and nothing wider than
    the screen, at 390 px as at 1280 (the screenshots are kept with PALCONF_SCREENSHOTS)."""
    fifty_versions(tmp_path / "results")
    site = out / "site-50"
    assert cli(["site", str(tmp_path / "results"), "--out", str(site)]) == 0
    chromium = find_chromium()
    assert chromium is not None
    for name, page in (("index", site / "index.html"), ("engine", site / "engines" / "zeta.html")):
        for stem, width in VIEWPORTS:
            found = measure(chromium, page, width, ["main", ".bars, .spark"])
            assert found["boxes"][".bars, .spark"] is not None, (name, width)
            assert found["smallest_chart_text"] >= MIN_TEXT_PX, (name, width, found)
            assert found["boxes"]["main"]["width"] == width, (name, width)  # measured as drawn
            png = out / "screenshots" / f"site-50-{name}-{stem}.png"
            full_page(chromium, page, png, width)
