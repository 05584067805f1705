"""Every report is of its runs' own rules version, never the checkout's: `palconf report`
(HTML, Markdown, JSON, JUnit), `report --compare`, `summary` and `site`, over a copy of the
rules with a second version, 1.01, made the checkout's current one. In 1.01 taunt.1 reads
otherwise and stealth.1 is gone; a run of 1.00 must still say 1.00 and show 1.00's text, runs
of both versions side by side are marked, and a file that names no version says "unknown"."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from palconf import paths
from palconf.cli import main as cli
from palconf.core import Outcome, Result
from palconf.core.results_file import meta_line, read_results, run_meta
from palconf.registry import load as load_registry
from palconf.reports import build
from palconf.reports.compare import compare, render_text
from palconf.reports.compare import render_markdown as compare_markdown
from palconf.reports.html import render_html
from palconf.reports.junit import render_junit
from palconf.reports.site import site_pages

TITLE_100 = "Comprehensive Rules ver. 1.00 (30 July 2026) §12"
TITLE_101 = "Comprehensive Rules ver. 1.01 (made up for a test) §12"
TAUNT_101 = "Taunt means that the opponent must attack this card whenever it can (as in 1.01)."
MIXED = "rules 1.00, 1.01 (runs of different rules versions)"


@pytest.fixture
def rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of rules/ with a version 1.01 (taunt.1 reworded, stealth.1 removed), made the
    current one: the checkout's version is then never the 1.00 of the runs."""
    root = tmp_path / "rules"
    shutil.copytree(paths.ROOT / "rules", root)
    new = root / "1.01"
    shutil.copytree(root / "1.00", new)
    lines = (new / "clauses.toml").read_text(encoding="utf-8").splitlines()
    kept = []
    for line in lines:
        if line.startswith('version = "'):
            line = 'version = "1.01"'
        elif line.startswith('"taunt.1" = '):
            line = f'"taunt.1" = {json.dumps(TAUNT_101)}'
        elif line.startswith('"stealth.1" = '):
            continue
        kept.append(line)
    (new / "clauses.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    registry = (root / "registry.toml").read_text(encoding="utf-8")
    assert 'current = "1.00"' in registry
    registry = registry.replace('current = "1.00"', 'current = "1.01"')
    registry += (
        f'\n[versions."1.01"]\ntitle = "{TITLE_101}"\n'
        'file = "1.01/section12.txt"\nclauses = "1.01/clauses.toml"\n'
    )
    (root / "registry.toml").write_text(registry, encoding="utf-8")
    monkeypatch.setattr(paths, "RULES", root)
    load_registry.cache_clear()
    reg = load_registry()
    assert reg.current == "1.01" and reg.clauses["taunt.1"].text["1.01"] == TAUNT_101
    assert "1.01" not in reg.clauses["stealth.1"].text
    yield root
    load_registry.cache_clear()


RESULTS = [
    Result(id="taunt-x", outcome=Outcome.FAIL, keywords=("taunt",), clauses=("taunt.1",)),
    Result(id="stealth-x", outcome=Outcome.PASS, keywords=("stealth",), clauses=("stealth.1",)),
]


def results_file(
    path: Path,
    rules_version: str | None,
    name: str = "eng",
    version: str = "1",
    meta: bool = True,
    date: str = "2026-08-01T00:00:00Z",
) -> Path:
    """A results file of RESULTS whose meta line names `rules_version` (none when None; no
    meta line at all without `meta`)."""
    head = ""
    if meta:
        m = run_meta(name, version, ["taunt", "stealth"], rules_version or "", len(RESULTS), date)
        if rules_version is None:
            del m["rules_version"]
        head = meta_line(m)
    body = "".join(json.dumps(r.to_json()) + "\n" for r in RESULTS)
    path.write_text(head + body, encoding="utf-8")
    return path


def report_files(out: Path) -> tuple[str, str, dict[str, Any], ET.Element]:
    return (
        (out / "index.html").read_text(encoding="utf-8"),
        (out / "report.md").read_text(encoding="utf-8"),
        json.loads((out / "results.json").read_text(encoding="utf-8")),
        ET.parse(out / "junit.xml").getroot(),
    )


def clause_json(data: dict[str, Any], cid: str) -> dict[str, Any]:
    kid = cid.split(".")[0]
    keyword = next(k for k in data["keywords"] if k["id"] == kid)
    return next(c for c in keyword["clauses"] if c["id"] == cid)


def suite_rules(root: ET.Element) -> list[str]:
    return [
        p.get("value", "")
        for p in root.findall("testsuite/properties/property")
        if p.get("name") == "rules.version"
    ]


def test_a_report_of_a_run_says_its_rules_version_not_the_checkouts(
    rules: Path, tmp_path: Path
) -> None:
    run = results_file(tmp_path / "old.jsonl", "1.00")
    out = tmp_path / "report"
    assert cli(["report", str(run), "--out", str(out)]) == 0
    html, md, data, junit = report_files(out)
    taunt_100 = load_registry().clauses["taunt.1"].text["1.00"]
    assert f"{TITLE_100} · rules version 1.00" in html and f"against {TITLE_100}." in html
    assert "1.01" not in html and str(escape(taunt_100)) in html
    assert f"{TITLE_100} · rules version 1.00" in md and "1.01" not in md
    assert data["rules_version"] == "1.00" and data["rules_versions"] == ["1.00"]
    assert data["engines"][0]["rules_version"] == "1.00"
    assert clause_json(data, "taunt.1")["text"] == taunt_100
    assert (
        clause_json(data, "stealth.1")["text"] == load_registry().clauses["stealth.1"].text["1.00"]
    )
    assert junit.get("name") == "palconf 1.00" and suite_rules(junit) == ["1.00"]


def test_a_clause_a_version_lacks_shows_its_summary_and_an_unknown_version_its_name(
    rules: Path, tmp_path: Path
) -> None:
    registry = load_registry()
    new = build([read_results(results_file(tmp_path / "new.jsonl", "1.01"))], registry)
    stealth = next(c for k in new.keywords for c in k.clauses if c.id == "stealth.1")
    taunt = next(c for k in new.keywords for c in k.clauses if c.id == "taunt.1")
    assert stealth.text == registry.clauses["stealth.1"].summary and stealth.absent == ["1.01"]
    assert taunt.text == TAUNT_101 and new.rules_heading == f"{TITLE_101} · rules version 1.01"
    assert "not in rules 1.01: its summary stands in" in render_html(new)
    other = build([read_results(results_file(tmp_path / "t.jsonl", "0.99-test"))], registry)
    assert other.rules_versions == ["0.99-test"] and other.rules_title == ""
    assert other.rules_heading == "rules version 0.99-test" and other.rules_untold == ["0.99-test"]
    taunt = next(c for k in other.keywords for c in k.clauses if c.id == "taunt.1")
    assert taunt.text == registry.clauses["taunt.1"].summary  # neither 1.00's nor 1.01's text
    assert render_junit(other).count('name="rules.version" value="0.99-test"') == 1


@pytest.mark.parametrize("meta", [True, False], ids=["meta-without-version", "no-meta-line"])
def test_a_file_that_names_no_rules_version_says_unknown(
    rules: Path, tmp_path: Path, meta: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    run = results_file(tmp_path / "older.jsonl", None, meta=meta)
    out = tmp_path / "report"
    assert cli(["report", str(run), "--out", str(out)]) == 0
    html, md, data, junit = report_files(out)
    for text in (html, md):
        assert "rules version unknown" in text and "1.01" not in text
    assert data["rules_version"] == "unknown" and data["rules_versions"] == ["unknown"]
    assert junit.get("name") == "palconf unknown" and suite_rules(junit) == ["unknown"]
    capsys.readouterr()
    assert cli(["summary", str(run), "--color", "never"]) == 1
    assert " · rules unknown · 2 result(s)" in capsys.readouterr().out.splitlines()[0]


def test_a_report_of_runs_of_two_rules_versions_marks_each(rules: Path, tmp_path: Path) -> None:
    old = results_file(tmp_path / "old.jsonl", "1.00", name="old-engine")
    new = results_file(tmp_path / "new.jsonl", "1.01", name="new-engine")
    out = tmp_path / "report"
    assert cli(["report", str(old), str(new), "--out", str(out)]) == 0
    html, md, data, junit = report_files(out)
    taunt_100 = load_registry().clauses["taunt.1"].text["1.00"]
    assert f'<p class="sub">{MIXED} · ' in html and 'id="mixed-rules"' in html
    assert (
        '<span class="rv">rules 1.00</span>' in html
        and '<span class="rv">rules 1.01</span>' in html
    )
    assert TITLE_100 not in html and TITLE_101 not in html  # neither version stands for both
    for version, text in (("1.00", taunt_100), ("1.01", TAUNT_101)):  # each version's text
        assert f'<div class="muted small">rules {version}:</div><blockquote>' in html
        assert str(escape(text)) in html
    assert md.splitlines()[2].startswith(MIXED) and "**Runs of different rules versions**" in md
    assert "| B · old-engine 1 (rules 1.00) |" in md and "| A · new-engine 1 (rules 1.01) |" in md
    assert data["rules_version"] == "1.00, 1.01" and data["rules_versions"] == ["1.00", "1.01"]
    assert [e["rules_version"] for e in data["engines"]] == ["1.00", "1.01"]
    taunt = clause_json(data, "taunt.1")
    assert taunt["texts"] == {"1.00": taunt_100, "1.01": TAUNT_101} and taunt["text"] == ""
    assert junit.get("name") == "palconf 1.00, 1.01 (runs of different rules versions)"
    assert suite_rules(junit) == ["1.00", "1.01"]


def test_compare_says_when_the_runs_are_of_different_rules_versions(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = results_file(tmp_path / "old.jsonl", "1.00")
    new = results_file(tmp_path / "new.jsonl", "1.01", version="2")
    note = (
        "note: old is of rules 1.00, new of rules 1.01: cases and verdicts may differ because "
        "the rules differ"
    )
    c = compare(read_results(old), read_results(new))
    assert c.rules_differ and c.rules_note == note
    text = render_text(c)
    assert "old: eng 1, rules 1.00, 2 cases" in text and "new: eng 2, rules 1.01" in text
    assert note in text and note in compare_markdown(c)
    assert cli(["report", "--compare", str(old), str(new), "--format", "json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["rules_differ"] is True
    assert (printed["old"]["rules_version"], printed["new"]["rules_version"]) == ("1.00", "1.01")
    same = compare(read_results(old), read_results(old))
    assert not same.rules_differ and "note:" not in render_text(same)
    assert "note:" not in compare_markdown(same)


def test_summary_names_each_files_rules_version(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = results_file(tmp_path / "old.jsonl", "1.00")
    new = results_file(tmp_path / "new.jsonl", "1.01")
    assert cli(["summary", str(old), "--color", "never"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"{old}: eng 1 (2026-08-01T00:00:00Z) · rules 1.00 · ")
    assert "1.01" not in out and "different rules versions" not in out
    assert cli(["summary", str(old), str(new), "--color", "never"]) == 1
    out = capsys.readouterr().out
    assert f"{new}: eng 1 (2026-08-01T00:00:00Z) · rules 1.01 · " in out
    assert out.rstrip().splitlines()[-1] == (
        f"note: these results files are of different rules versions ({old}: rules 1.00, "
        f"{new}: rules 1.01): cases and verdicts may differ between them because the rules differ"
    )


def test_the_site_marks_each_run_with_its_rules_version(rules: Path, tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    runs = [
        results_file(folder / "a1.jsonl", "1.00", "acme", "1.0", date="2026-01-01T00:00:00Z"),
        results_file(folder / "a2.jsonl", "1.01", "acme", "2.0", date="2026-02-01T00:00:00Z"),
        results_file(folder / "b.jsonl", "1.00", "bolt", "1.0"),
    ]
    pages = site_pages([read_results(p) for p in runs], load_registry())
    index = pages["index.html"]
    assert f" · {MIXED} · " in index and 'id="mixed-rules"' in index
    assert "acme 2.0: rules 1.01" in index and "bolt 1.0: rules 1.00" in index
    acme = pages["engines/acme.html"]
    assert acme.count('<span class="rv">rules 1.00</span>') == 1  # its runs table
    assert acme.count('<span class="rv">rules 1.01</span>') == 2  # and the latest line
    assert "Its runs are of different rules versions (1.00, 1.01)" in acme
    assert "note: old is of rules 1.00, new of rules 1.01" in acme
    bolt = pages["engines/bolt.html"]
    assert "Its runs are of different rules versions" not in bolt and "note: old" not in bolt
    taunt_100 = load_registry().clauses["taunt.1"].text["1.00"]
    for page in (pages["cases/taunt-x.html"], pages["keywords/taunt.html"]):
        for version, text in (("1.00", taunt_100), ("1.01", TAUNT_101)):
            assert f'<div class="muted small">rules {version}:</div><blockquote>' in page
            assert str(escape(text)) in page
    summary = load_registry().clauses["stealth.1"].summary
    assert str(escape(summary)) in pages["cases/stealth-x.html"]  # not in 1.01: its summary


def test_a_site_of_one_rules_version_says_that_version(rules: Path, tmp_path: Path) -> None:
    run = read_results(results_file(tmp_path / "a.jsonl", "1.00", "acme"))
    pages = site_pages([run], load_registry())
    assert f" · {TITLE_100} · rules version 1.00 · " in pages["index.html"]
    assert "1.01" not in pages["index.html"] and "1.01" not in pages["cases/taunt-x.html"]
    assert '<span class="rv">rules 1.00</span>' in pages["engines/acme.html"]


def test_a_hostile_rules_version_stays_text(
    rules: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = '<script>alert("v")</script>\x1b[31m'
    run = results_file(tmp_path / "evil.jsonl", hostile)
    other = results_file(tmp_path / "ok.jsonl", "1.00", name="other")
    out = tmp_path / "report"
    assert cli(["report", str(run), str(other), "--out", str(out)]) == 0
    html, md, data, junit = report_files(out)
    assert "<script>" not in html and "<script>" not in md and "\x1b" not in html + md
    assert str(escape('<script>alert("v")</script>')) in html
    assert data["engines"][0]["rules_version"] == hostile
    assert suite_rules(junit)[0] == '<script>alert("v")</script>\ufffd[31m'
    pages = site_pages([read_results(run), read_results(other)], load_registry())
    assert all("<script>" not in page for page in pages.values())
    c = compare(read_results(other), read_results(run))
    assert "\x1b" not in render_text(c) and "<script>" not in compare_markdown(c)
    capsys.readouterr()
    assert cli(["summary", str(run), str(other), "--color", "never"]) == 1
    assert "\x1b" not in capsys.readouterr().out
