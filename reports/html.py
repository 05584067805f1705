"""index.html: one self-contained page (inline CSS, no scripts, no network assets), from
`templates/index.html.j2` (autoescaped; see `reports.render`)."""

from __future__ import annotations

from .model import Report
from .render import environment


def render_html(report: Report) -> str:
    return environment().get_template("index.html.j2").render(report=report)
