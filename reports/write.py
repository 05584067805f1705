"""Writing a report: every output of the model into one folder.

    index.html    one self-contained page (reports.html)
    report.md     the summary as Markdown (reports.markdown)
    results.json  the same summary, machine-readable (the model's `to_json`)
    junit.xml     one testcase per case and engine (reports.junit)
    badges/       shields.io endpoint JSON: <engine>.json and <engine>/<group>.json

JSON and XML are written by their serializers; the HTML and Markdown renderers escape
every untrusted string (reports.render).
"""

from __future__ import annotations

import json
from pathlib import Path

from .badges import badges
from .html import render_html
from .junit import render_junit
from .markdown import render_markdown
from .model import Report


def write_report(report: Report, out: Path) -> list[Path]:
    """Write every output of the report into the folder `out` (created if needed)."""
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "index.html": render_html(report),
        "report.md": render_markdown(report),
        "results.json": json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n",
        "junit.xml": render_junit(report),
    }
    written = []
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    for rel, badge in badges(report).items():
        path = out / "badges" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(badge, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
