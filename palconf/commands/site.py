"""`palconf site`: a static site from a folder of results files of many engines and versions.

    palconf site RESULTS_DIR --out SITE/ [--title TEXT]

Writes index.html (engines × keywords, the latest run of each), engines/<engine>.html (its
history and what regressed or was fixed between its versions), keywords/<kw>.html,
cases/<case>.html (rules text, board, each engine's outcome) and badges/ into SITE (see
reports/site.py). Every link is relative, so the site works opened from disk. Each file is
written atomically, never through a link or into a special file
(palconf.core.safe_write). Exit 0 once written; 2 when the folder or a
results file cannot be read, or SITE cannot be written (the message says where).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from palconf.commands import registry_or_exit
from palconf.core import terminal_safe
from palconf.core.errors import UsageError
from palconf.core.safe_write import UnsafeWrite, check_folder


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "site",
        help="a static site from a folder of results files (many engines and versions)",
        description="Write a static site (index, a page per engine, keyword and case, badges) "
        "from every results file (*.jsonl, from `palconf run --results FILE`) in RESULTS_DIR.",
    )
    p.add_argument("results_dir", type=Path, metavar="RESULTS_DIR", help="folder of *.jsonl files")
    p.add_argument(
        "--out", "-o", type=Path, required=True, metavar="SITE", help="the folder to write into"
    )
    p.add_argument("--title", default="Pal keyword rules compliance", help="the site's heading")
    p.set_defaults(func=main)


def _fail(message: str) -> int:
    raise UsageError(f"{message}")


def _warn(words: str) -> None:
    print(f"palconf site: warning: {terminal_safe(words)}", file=sys.stderr)


def main(args: argparse.Namespace) -> int:
    from palconf.core.results_file import ResultsError
    from palconf.reports.boards import load_suite
    from palconf.reports.site_folder import write_site

    registry = registry_or_exit()
    out: Path = args.out
    try:
        check_folder(out)  # before the pages: an --out that cannot be a folder, at once
        done = write_site(args.results_dir, out, registry, load_suite(registry), args.title, _warn)
    except (ResultsError, UnsafeWrite) as e:
        return _fail(str(e))
    same = done.pages - done.written
    print(
        f"palconf site: {done.runs} results file(s), {done.engines} engine(s): wrote "
        f"{done.written} files into {out}"
        + (f" ({same} unchanged)" if same else "")
        + (f", removed {len(done.removed)} the site has no more" if done.removed else "")
        + f"\n  {out / 'index.html'}"
    )
    return 0
