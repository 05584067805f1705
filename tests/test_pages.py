"""What the pages show of issue 26: rules text's Markdown made safe markup, one y range for
every sparkline, a refusal instead of two alike boards, failures grouped by clause, and a
case page's steps and `palconf explain` line."""

from __future__ import annotations

import json
import re
from pathlib import Path

from palconf import paths
from palconf.cases.loader import load_cases
from palconf.cli import main as cli
from palconf.core.results_file import meta_line
from palconf.registry import load as load_registry
from palconf.reports.render import inline_md


def test_rules_markdown_becomes_markup_and_nothing_else() -> None:
    html = str(inline_md("only *combat Pals* in `battle`, **all** <b>x</b> [l](http://e) 2 * 3"))
    assert "<em>combat Pals</em>" in html and "<code>battle</code>" in html
    assert "<strong>all</strong>" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<a" not in html and "2 * 3" in html
    assert str(inline_md("`*not em*`")) == "<code>*not em*</code>"
    assert "\\x1b" in str(inline_md("a\x1bb"))  # control characters shown, never sent


def test_site_pages_of_a_failing_engine(tmp_path: Path) -> None:
    registry = load_registry()
    cases = {c.id: c for c in load_cases(paths.CASES, registry)}
    taunt = sorted(
        cid
        for cid, c in cases.items()
        if c.keywords == ("taunt",) and any(e.refused for e in c.expect) and c.clauses
    )[:7]
    assert len(taunt) == 7
    folder = tmp_path / "results"
    folder.mkdir()
    for version, date, failing in (("1.0", "2026-01", taunt), ("1.1", "2026-02", taunt[:1])):
        meta = {"engine": {"name": "eng", "version": version, "keywords": []}, "date": date}
        lines = []
        for cid in taunt:
            c = cases[cid]
            bad = cid in failing
            lines.append(
                {
                    "id": cid,
                    "keywords": list(c.keywords),
                    "clauses": list(c.clauses),
                    "rules": list(c.rules),
                    "outcome": "fail" if bad else "pass",
                    "message": "action 1 was accepted; it must be refused" if bad else "",
                    "step": next(e.after for e in c.expect if e.refused) if bad else None,
                }
            )
        body = "".join(
            json.dumps({k: v for k, v in r.items() if v is not None}) + "\n" for r in lines
        )
        (folder / f"{version}.jsonl").write_text(meta_line(meta) + body, encoding="utf-8")
    out = tmp_path / "site"
    assert cli(["site", str(folder), "--out", str(out)]) == 0
    engine = (out / "engines" / "eng.html").read_text(encoding="utf-8")
    # the failures and the fixes grouped by the clause they share, with counts; a group
    # longer than five is folded
    assert "1 failing</b>: the 1 failure cites Taunt" in engine
    groups = re.findall(
        r'<details class="group"( open)?><summary><code>([^<]+)</code> · (\d+) case', engine
    )
    assert groups and sum(int(n) for _, _, n in groups) == 1 + 6  # the failing one, six fixed
    assert all((opened == " open") == (int(n) <= 5) for opened, _, n in groups)
    # the case page: its steps, the explain line, the refusal instead of two alike boards
    page = (out / "cases" / f"{taunt[0]}.html").read_text(encoding="utf-8")
    assert "<h2>Steps</h2>" in page and "must be refused" in page
    assert f"palconf explain {taunt[0]} --engine-cmd &#39;YOUR ENGINE COMMAND&#39;" in page
    assert '<div class="refusal"><div><b>expected</b> (the oracle): refused (' in page
    assert "<b>observed</b> (the engine): accepted" in page
    assert "the board it was tried on (nothing on it differs)" in page
    assert page.count('class="board obs"') == 0


def test_every_sparkline_has_the_same_y_range(tmp_path: Path) -> None:
    from palconf.core.results_file import parse_lines
    from palconf.reports.build import build
    from palconf.reports.charts import histories, history_lines

    def run(version: str, outcomes: dict[str, str]) -> list[str]:
        meta = {"meta": {"engine": {"name": "e", "version": version}, "date": version}}
        return [json.dumps(meta)] + [
            json.dumps({"id": f"{kw}-{n}", "keywords": [kw], "clauses": [], "outcome": o})
            for kw, o in outcomes.items()
            for n in range(10)
        ]

    runs = [
        parse_lines(run("1.0", {"taunt": "pass", "brave": "pass"}), "a"),
        parse_lines(run("1.1", {"taunt": "fail", "brave": "pass"}), "b"),
    ]
    report = build(runs, load_registry())
    svg = str(history_lines(histories(report.engines)[0], report.keywords))
    lows = re.findall(r'<text class="ylab" [^>]*>(\d+)</text>', svg)
    # each chart's axis is labelled 100 at the top and its low at the bottom: 0 for every one
    # (brave, at 100% throughout, shares taunt's 0–100 axis)
    assert lows and set(lows) == {"0", "100"} and lows.count("0") == lows.count("100")
