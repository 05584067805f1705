"""Badges: shields.io endpoint JSON, one per engine and one per engine and group.

`<engine>.json` counts all the engine's cases, `<engine>/<group>.json` those of one group (a
keyword, `protocol`, and `base` when it has cases); every name is made by `reports.names`.
Badges count as every report does: the cases run, those that depend on a ruling included
(see `reports.model`). The badges of a partial or unfinished run say so after the rate
(`97% (partial)`): it is not the rate of the whole suite.
"""

from __future__ import annotations

from typing import Any

from palconf.core import Tally
from palconf.core.outcomes import BASE

from .model import Report
from .names import file_names
from .render import shorten


def badges(report: Report) -> dict[str, dict[str, Any]]:
    """Relative path → shields.io endpoint JSON."""
    out: dict[str, dict[str, Any]] = {}
    names = file_names((kw.id for kw in report.keywords), 40)
    for e in report.engines:
        mark = e.completeness.mark
        out[f"{e.key}.json"] = badge(e.label, e.totals.all, mark)
        for kw in report.keywords:
            cell = e.keywords[kw.id]
            if cell.all.total or kw.id != BASE:
                out[f"{e.key}/{names[kw.id]}.json"] = badge(kw.name, cell.all, mark)
    return out


def badge(label: str, tally: Tally, mark: str = "") -> dict[str, Any]:
    """One badge; `mark` (`partial`, `unfinished`: `Completeness.mark`) follows the rate."""
    return {
        "schemaVersion": 1,
        "label": shorten(label, 60),
        "message": tally.badge_message + (f" ({mark})" if mark else ""),
        "color": tally.badge_color,
    }
