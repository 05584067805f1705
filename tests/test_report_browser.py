"""The report page in a real browser: headless Chromium renders index.html to PNGs at desktop
(1280 wide) and phone (390 wide) widths. Skipped when Chromium is not installed
(`apt-get update && apt-get install -y chromium`). Set PALCONF_SCREENSHOTS=DIR to keep the PNGs
(and the report) for looking at; otherwise they go to a temporary folder.

What this can check by itself: Chromium loads the page with every host name unresolvable and
writes non-blank images of the right widths. Whether the page reads well is for a person to
look at (see reports/screenshot.py).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from palconf import paths
from palconf.cases import load_cases
from palconf.engines import OracleEngine
from palconf.registry import load as load_registry
from reports import build, write_report
from reports.results import read_results
from reports.screenshot import VIEWPORTS, find_chromium, render

from .test_reports import HOSTILE_NAME, WrongRules, run_to_file

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed"),
]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    keep = os.environ.get("PALCONF_SCREENSHOTS")
    out = Path(keep) if keep else tmp_path
    registry = load_registry()
    cases = [
        c
        for c in load_cases(paths.CASES, registry)
        if {"taunt", "nocturnal", "breakthrough", "vigilance"} & set(c.keywords)
    ]
    run_to_file(OracleEngine(), cases, tmp_path / "oracle.jsonl")
    run_to_file(OracleEngine(rules=WrongRules, name=HOSTILE_NAME), cases, tmp_path / "wrong.jsonl")
    report = build(
        [read_results(tmp_path / "oracle.jsonl"), read_results(tmp_path / "wrong.jsonl")], registry
    )
    write_report(report, out / "report")
    pngs = render(out / "report" / "index.html", out / "screenshots")
    assert [p.name for p in pngs] == [f"{stem}.png" for stem, _, _ in VIEWPORTS]
    for png, (_, width, height) in zip(pngs, VIEWPORTS, strict=True):
        assert png_size(png) == (width, height)
        # a blank page compresses to a few kilobytes; the report's colours and text do not
        assert png.stat().st_size > 30_000, f"{png} looks blank"
