"""Render a report's index.html in headless Chromium to PNGs, at desktop and phone widths.

    python -m palconf.reports.screenshot REPORT_DIR/index.html --out SHOTS_DIR [--expanded]

Writes desktop.png (1280 wide) and phone.png (390 wide), each of the whole page (as tall as
the page is, up to MAX_HEIGHT pixels); with --expanded also desktop-expanded.png and
phone-expanded.png, of a copy of the page with every keyword section open (a screenshot
cannot click). The height is measured first on a throwaway copy of the page with one
script added (`measure`; the page itself has no scripts), which also gives the box of any
element a test asks about (is the board there, and drawn). Needs Debian's `chromium`
(`apt-get install -y chromium`); exits 2 with that hint if it is missing.

Chromium runs with a throwaway profile, no sandbox (it runs as root in CI containers), and
every host name resolving nowhere: the page must render with no network at all.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from html import unescape as html_unescape
from pathlib import Path
from typing import Any

#: (file stem, width) of each screenshot; each is of the whole page, as tall as it is.
VIEWPORTS = (("desktop", 1280), ("phone", 390))
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        if path := shutil.which(name):
            return path
    return None


def screenshot(
    chromium: str, page: Path, png: Path, width: int, height: int, timeout: float = 90.0
) -> None:
    """One PNG of `page` at width × height CSS pixels; RuntimeError if Chromium fails."""
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="palconf-chromium-") as profile:
        cmd = [
            chromium,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--screenshot={png}",
            f"--window-size={width},{height}",
            page.resolve().as_uri(),
        ]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"chromium did not finish within {timeout:.0f}s") from None
    if proc.returncode != 0 or not png.exists() or png.stat().st_size == 0:
        raise RuntimeError(
            f"chromium failed (exit {proc.returncode}): {proc.stderr.strip()[-800:]}"
        )


#: What the measuring copy of a page adds (the page itself has no scripts): once loaded, it
#: writes the page's full height, the box of the first element each selector matches, and
#: the smallest text of the charts (`smallest_chart_text`) into the DOM as JSON, which
#: `--dump-dom` prints. Headless Chromium lays a page out at least 500 px wide when it dumps
#: the DOM (a screenshot is at the width asked for), so a narrower width is set on the root
#: element first: the page is measured as wide as it is drawn.
_MEASURE = """<script>addEventListener('load',function(){
if(innerWidth>WIDTH){document.documentElement.style.width=WIDTH+'px';}
var small=null;function least(px){if(px>0&&(small===null||px<small)){small=px;}}
document.querySelectorAll('svg.chart').forEach(function(svg){var vb=svg.viewBox.baseVal;
var scale=vb&&vb.width?svg.getBoundingClientRect().width/vb.width:1;
svg.querySelectorAll('text').forEach(function(t){least(parseFloat(t.getAttribute('font-size')
||getComputedStyle(t).fontSize)*scale);});});
document.querySelectorAll('.bars *, .lgs *').forEach(function(e){if(e.childElementCount===0&&
e.textContent.trim()&&getComputedStyle(e).visibility!=='hidden'){least(parseFloat(getComputedStyle(e).fontSize));}});
var out={smallest_chart_text:small,height:Math.ceil(Math.max(document.documentElement.scrollHeight,
document.body.scrollHeight)),boxes:{}};
SELECTORS.forEach(function(s){var e=document.querySelector(s);if(!e){out.boxes[s]=null;return;}
var r=e.getBoundingClientRect();out.boxes[s]={top:Math.round(r.top+scrollY),
height:Math.round(r.height),width:Math.round(r.width)};});
var d=document.createElement('pre');d.id='palconf-measure';d.textContent=JSON.stringify(out);
document.body.appendChild(d);});</script>"""
MAX_HEIGHT = 30_000


def measure(
    chromium: str,
    page: Path,
    width: int,
    selectors: Sequence[str] = (),
    timeout: float = 90.0,
) -> dict[str, Any]:
    """`{"height": …, "boxes": {selector: {"top", "height", "width"} or None},
    "smallest_chart_text": px or None}` of `page` at `width` CSS pixels, measured on a copy
    of it (with one script added) beside it, so relative links still resolve; the copy is
    removed after. `smallest_chart_text`: the smallest text a chart draws, in CSS pixels
    (an SVG chart's text scaled as its viewBox is; the bars' and legends' text as set)."""
    script = _MEASURE.replace("SELECTORS", json.dumps(list(selectors))).replace(
        "WIDTH", str(int(width))
    )
    html = page.read_text(encoding="utf-8").replace("</body>", script + "</body>", 1)
    copy = page.with_name(f".palconf-measure-{page.name}")
    copy.write_text(html, encoding="utf-8")
    try:
        with tempfile.TemporaryDirectory(prefix="palconf-chromium-") as profile:
            cmd = [
                chromium,
                *FLAGS,
                f"--user-data-dir={profile}",
                f"--window-size={width},800",
                "--virtual-time-budget=5000",
                "--dump-dom",
                copy.resolve().as_uri(),
            ]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                raise RuntimeError(f"chromium did not finish within {timeout:.0f}s") from None
    finally:
        copy.unlink(missing_ok=True)
    found = re.search(r'<pre id="palconf-measure">(.*?)</pre>', proc.stdout, re.S)
    if proc.returncode != 0 or found is None:
        raise RuntimeError(f"chromium could not measure {page}: {proc.stderr.strip()[-400:]}")
    data: dict[str, Any] = json.loads(html_unescape(found.group(1)))
    return data


def page_height(chromium: str, page: Path, width: int) -> int:
    """The full height of `page` at `width` CSS pixels (at most MAX_HEIGHT)."""
    height = int(measure(chromium, page, width)["height"])
    return min(MAX_HEIGHT, max(200, height))


def full_page(chromium: str, page: Path, png: Path, width: int) -> int:
    """A screenshot of the whole page (not cut at a fixed height); returns its height."""
    height = page_height(chromium, page, width)
    screenshot(chromium, page, png, width, height)
    return height


def expanded_copy(page: Path, folder: Path) -> Path:
    """A copy of the page with every keyword section open."""
    html = page.read_text(encoding="utf-8").replace(
        '<details class="kw"', '<details open class="kw"'
    )
    copy = folder / "index-expanded.html"
    copy.write_text(html, encoding="utf-8")
    return copy


def render(page: Path, out: Path, expanded: bool = False) -> list[Path]:
    chromium = find_chromium()
    if chromium is None:
        raise FileNotFoundError(
            "chromium is not installed: apt-get update && apt-get install -y chromium"
        )
    out.mkdir(parents=True, exist_ok=True)
    pngs = []
    for stem, width in VIEWPORTS:
        png = out / f"{stem}.png"
        full_page(chromium, page, png, width)
        pngs.append(png)
    if expanded:
        with tempfile.TemporaryDirectory(prefix="palconf-page-") as tmp:
            copy = expanded_copy(page, Path(tmp))
            for stem, width in VIEWPORTS:
                png = out / f"{stem}-expanded.png"
                full_page(chromium, copy, png, width)
                pngs.append(png)
    return pngs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m palconf.reports.screenshot",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("page", type=Path, help="a report's index.html")
    p.add_argument("--out", type=Path, required=True, help="folder for the PNGs")
    p.add_argument(
        "--expanded",
        action="store_true",
        help="also screenshot a copy with every keyword section open",
    )
    args = p.parse_args(argv)
    if not args.page.is_file():
        print(f"screenshot: {args.page}: no such file", file=sys.stderr)
        return 2
    try:
        pngs = render(args.page, args.out, args.expanded)
    except FileNotFoundError as e:
        print(f"screenshot: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"screenshot: {e}", file=sys.stderr)
        return 1
    for png in pngs:
        print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
