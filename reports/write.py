"""Writing a report: every output of the model into one folder.

    index.html    one self-contained page (reports.html)
    report.md     the summary as Markdown (reports.markdown)
    results.json  the same summary, machine-readable (the model's `to_json`)
    junit.xml     one testcase per case and engine (reports.junit)
    badges/       shields.io endpoint JSON: <engine>.json and <engine>/<group>.json

JSON and XML are written by their serializers; the HTML and Markdown renderers escape
every untrusted string (reports.render). Every file goes through the one safe writer
(palconf.core.safe_write.write_files): no link or special file in the folder is written
through or replaced.
"""

from __future__ import annotations

import json
from pathlib import Path

from palconf.core.safe_write import write_files

from .badges import badges
from .html import render_html
from .junit import render_junit
from .markdown import render_markdown
from .model import Report


def write_report(report: Report, out: Path) -> list[Path]:
    """Write every output of the report into the folder `out` (created if needed)."""
    files = {
        "index.html": render_html(report),
        "report.md": render_markdown(report),
        "results.json": json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n",
        "junit.xml": render_junit(report),
    }
    for rel, badge in badges(report).items():
        files[f"badges/{rel}"] = json.dumps(badge, ensure_ascii=False) + "\n"
    return write_files(out, files)
