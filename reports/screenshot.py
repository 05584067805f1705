"""Render a report's index.html in headless Chromium to PNGs, at desktop and phone widths.

    python -m reports.screenshot REPORT_DIR/index.html --out SHOTS_DIR [--expanded]

Writes desktop.png (1280 wide) and phone.png (390 wide); with --expanded also
desktop-expanded.png and phone-expanded.png, of a copy of the page with every keyword
section open (a screenshot cannot click). Needs Debian's `chromium`
(`apt-get install -y chromium`); exits 2 with that hint if it is missing.

Chromium runs with a throwaway profile, no sandbox (it runs as root in CI containers), and
every host name resolving nowhere: the page must render with no network at all.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: (file stem, width, height) of each screenshot.
VIEWPORTS = (("desktop", 1280, 2400), ("phone", 390, 2400))
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
    for stem, width, height in VIEWPORTS:
        png = out / f"{stem}.png"
        screenshot(chromium, page, png, width, height)
        pngs.append(png)
    if expanded:
        with tempfile.TemporaryDirectory(prefix="palconf-page-") as tmp:
            copy = expanded_copy(page, Path(tmp))
            for stem, width, height in VIEWPORTS:
                png = out / f"{stem}-expanded.png"
                screenshot(chromium, copy, png, width, height * 2)
                pngs.append(png)
    return pngs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m reports.screenshot",
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
