"""report.md: the summary as Markdown, for a README or a pull-request comment, from
`templates/report.md.j2` (every output escaped by `reports.render.md_escape`)."""

from __future__ import annotations

from .model import Report
from .render import markdown_environment

#: Most failing cases listed in report.md (the HTML page lists them all).
MD_MAX_FAILURES = 50


def render_markdown(report: Report) -> str:
    return (
        markdown_environment()
        .get_template("report.md.j2")
        .render(report=report, max_failures=MD_MAX_FAILURES)
    )
