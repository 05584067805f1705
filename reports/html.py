"""index.html: one self-contained page (inline CSS, no scripts, no network assets), from
`templates/index.html.j2` (autoescaped; see `reports.render`), with its charts drawn as
inline SVG by `reports.charts`."""

from __future__ import annotations

from .charts import engine_legend, histories, history_lines, keyword_bars
from .model import Report
from .render import environment


def render_html(report: Report) -> str:
    runs = histories(report.engines)
    return (
        environment()
        .get_template("index.html.j2")
        .render(
            report=report,
            bars=keyword_bars(report.engines, report.keywords) if report.engines else "",
            legend=engine_legend(report.engines),
            histories=[(h, history_lines(h, report.keywords)) for h in runs],
        )
    )
