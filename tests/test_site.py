"""`palconf site RESULTS_DIR --out SITE`: a static site from results files of several
engines and versions. Three versions of one engine (the wrong engine of test_reports, fixing
more with each version) and the oracle as another: the pages, their relative links, the
history chart, the boards, the badges, and the escaping of what engines send."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from palconf import paths
from palconf.cases.loader import load_cases
from palconf.cli import main as cli
from palconf.core.results_file import meta_line
from palconf.engines.oracle_engine import OracleEngine
from palconf.registry import load as load_registry

from .test_reports import HOSTILE_NAME, WrongRules, run_to_file


def make_versions(src: Path, folder: Path, name: str) -> list[Path]:
    """src's results as three versions of the engine `name`: 1.0 as it is, 1.1 with the first
    half of its failures fixed, 2.0 with every failure fixed."""
    lines = src.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])["meta"]
    out = []
    for version, date, keep in (
        ("1.0", "2026-01-01T00:00:00Z", 0.0),
        ("1.1", "2026-02-01T00:00:00Z", 0.5),
        ("2.0", "2026-03-01T00:00:00Z", 1.0),
    ):
        m = {**meta, "engine": {**meta["engine"], "name": name, "version": version}, "date": date}
        body = []
        for n, line in enumerate(lines[1:]):
            obj = json.loads(line)
            if obj["outcome"] in ("fail", "error") and n < (len(lines) - 1) * keep:
                obj = {**obj, "outcome": "pass", "diffs": [], "message": ""}
            body.append(json.dumps(obj))
        path = folder / f"{version}.jsonl"
        path.write_text(meta_line(m) + "\n".join(body) + "\n", encoding="utf-8")
        out.append(path)
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("site")
    registry = load_registry()
    cases = [
        c
        for c in load_cases(paths.CASES, registry)
        if {"taunt", "nocturnal", "breakthrough"} & set(c.keywords)
    ]
    results = tmp / "results"
    results.mkdir()
    run_to_file(OracleEngine(), cases, results / "oracle.jsonl")
    run_to_file(OracleEngine(rules=WrongRules, name=HOSTILE_NAME), cases, tmp / "wrong.jsonl")
    make_versions(tmp / "wrong.jsonl", results, HOSTILE_NAME)
    out = tmp / "out"
    assert cli(["site", str(results), "--out", str(out)]) == 0
    return {"out": out, "cases": cases, "results": results}


def pages(out: Path) -> list[Path]:
    return sorted(out.rglob("*.html"))


def test_the_site_has_its_pages(site: dict[str, Any]) -> None:
    out = site["out"]
    assert (out / "index.html").is_file()
    engines = sorted(p.name for p in (out / "engines").iterdir())
    assert len(engines) == 2
    assert len(list((out / "cases").iterdir())) == len(site["cases"])
    assert (out / "keywords" / "taunt.html").is_file()
    for p in pages(out):
        html = p.read_text(encoding="utf-8")
        assert "<script" not in html, p
        assert "<script>alert" not in html


def test_every_link_is_relative_and_resolves(site: dict[str, Any]) -> None:
    out = site["out"]
    for p in pages(out):
        for href in re.findall(r'(?:href|src)="([^"]*)"', p.read_text(encoding="utf-8")):
            assert not re.match(r"^[a-z]+:|^/", href), (p, href)
            target = (p.parent / href.split("#")[0]).resolve()
            assert target.is_file(), (p, href)


def test_index_shows_the_latest_version_of_each_engine(site: dict[str, Any]) -> None:
    html = (site["out"] / "index.html").read_text(encoding="utf-8")
    head = html.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert f"{escape(HOSTILE_NAME)} 2.0</a>" in head and 'small" title="2026-03-01' in head
    assert " 1.0</a>" not in head and " 1.1</a>" not in head
    assert str(escape(HOSTILE_NAME)) in head


def test_the_engine_page_has_a_three_point_history_and_the_fixes(site: dict[str, Any]) -> None:
    out = site["out"]
    page = next(p for p in (out / "engines").iterdir() if "oracle" not in p.name).read_text(
        encoding="utf-8"
    )
    points = {
        m.group(1): m.group(2).count('<circle class="pt"')
        for m in re.finditer(
            r'<svg class="chart spark"[^>]*data-keyword="([^"]+)">(.*?)</svg>', page
        )
    }
    # a point per version for every keyword the cases test; none where no case ran
    assert points["taunt"] == points["nocturnal"] == points["breakthrough"] == 3
    assert points["vigilance"] == 0  # the engine does not implement it: every case skipped
    assert "1.0 → 1.1" in page and "1.1 → 2.0" in page
    assert "Fixed: failed before, pass now" in page
    assert "Regressed" not in page  # each version only fixes


def test_a_failing_case_page_shows_its_board(site: dict[str, Any]) -> None:
    out = site["out"]
    oracle_page = out / "engines" / "palconf-oracle.html"
    assert oracle_page.is_file()
    # the latest version passes everything; the oracle too: no failing board there …
    failing = [p for p in (out / "cases").iterdir() if 'class="bpair"' in p.read_text("utf-8")]
    assert failing == []
    # … but every case page draws the board after setup
    page = (out / "cases" / f"{site['cases'][0].id[:80]}.html").read_text(encoding="utf-8")
    assert "the board after setup" in page and 'class="pc' in page


def test_a_regression_shows_on_the_engine_page_with_its_board(
    site: dict[str, Any], tmp_path: Path
) -> None:
    """A fourth version that breaks again: it is the latest, so its failures get boards."""
    results = tmp_path / "results"
    results.mkdir()
    for p in site["results"].iterdir():
        (results / p.name).write_bytes(p.read_bytes())
    first = (results / "1.0.jsonl").read_text(encoding="utf-8").splitlines()
    meta = json.loads(first[0])["meta"]
    meta = {**meta, "engine": {**meta["engine"], "version": "3.0"}, "date": "2026-04-01T00:00:00Z"}
    (results / "3.0.jsonl").write_text(meta_line(meta) + "\n".join(first[1:]) + "\n", "utf-8")
    out = tmp_path / "out"
    assert cli(["site", str(results), "--out", str(out)]) == 0
    page = next(p for p in (out / "engines").iterdir() if "oracle" not in p.name)
    html = page.read_text(encoding="utf-8")
    assert "2.0 → 3.0" in html and "Regressed: passed before, fail now" in html
    boards = [p for p in (out / "cases").iterdir() if 'class="bpair"' in p.read_text("utf-8")]
    assert boards
    assert all("expected (the oracle)" in p.read_text("utf-8") for p in boards)


def test_badges_are_written_as_palconf_report_writes_them(site: dict[str, Any]) -> None:
    badges = site["out"] / "badges"
    oracle = json.loads((badges / "palconf-oracle-0.1.0.json").read_text(encoding="utf-8"))
    assert oracle["schemaVersion"] == 1 and oracle["color"] == "brightgreen"
    assert (badges / "palconf-oracle-0.1.0" / "taunt.json").is_file()


def test_site_errors_are_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["site", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")]) == 2
    assert "not a folder of results files" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert cli(["site", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no results files" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.jsonl").write_text("{not json\n", encoding="utf-8")
    assert cli(["site", str(tmp_path / "bad"), "--out", str(tmp_path / "o")]) == 2
    assert "x.jsonl:1: not JSON" in capsys.readouterr().err


def test_a_transcript_in_the_results_folder_is_left_out_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    transcript = '{"transcript": {"format": "palconf-transcript", "format_version": 1}}\n'
    (folder / "a-transcript.jsonl").write_text(transcript, encoding="utf-8")
    assert cli(["site", str(folder), "--out", str(tmp_path / "o")]) == 2  # nothing else
    assert "no results files" in capsys.readouterr().err
    result = {"id": "base-x", "outcome": "pass", "keywords": [], "clauses": []}
    meta = {"engine": {"name": "eng", "version": "1.0", "keywords": []}, "date": "2026-01-01"}
    (folder / "run.jsonl").write_text(meta_line(meta) + json.dumps(result) + "\n", "utf-8")
    assert cli(["site", str(folder), "--out", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    assert (
        "a-transcript.jsonl: a transcript, not a results file (palconf replay reads it): left out"
        in err
    )
    assert (tmp_path / "o" / "engines" / "eng.html").is_file()


def test_jsonl_entries_that_are_no_files_are_left_out_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36: each was skipped without a word. A link to a results file is still read."""
    folder = tmp_path / "results"
    (folder / "a-folder.jsonl").mkdir(parents=True)
    meta = {"engine": {"name": "eng", "version": "1"}, "rules_version": "1.00"}
    result = {"id": "x", "keywords": ["taunt"], "clauses": [], "outcome": "pass"}
    real = tmp_path / "elsewhere.jsonl"
    real.write_text(meta_line(meta) + json.dumps(result) + "\n", "utf-8")
    os.symlink(real, folder / "linked.jsonl")
    os.mkfifo(folder / "fifo.jsonl")
    os.mkfifo(tmp_path / "fifo")
    os.symlink("gone.jsonl", folder / "dangling.jsonl")
    os.symlink("loop.jsonl", folder / "loop.jsonl")
    os.symlink(tmp_path, folder / "to-folder.jsonl")
    os.symlink(tmp_path / "fifo", folder / "to-fifo.jsonl")
    os.symlink("/dev/null", folder / "to-device.jsonl")
    expected = {
        "a-folder.jsonl": "a folder",
        "fifo.jsonl": "a FIFO",
        "dangling.jsonl": "a broken symbolic link (to 'gone.jsonl')",
        "loop.jsonl": "a symbolic link loop",
        "to-folder.jsonl": "a link to a folder",
        "to-fifo.jsonl": "a link to a FIFO",
        "to-device.jsonl": "a link to a character device",
    }
    assert cli(["site", str(folder), "--out", str(tmp_path / "o")]) == 0  # no FIFO waited on
    err = capsys.readouterr().err
    for name, what in expected.items():
        assert f"{folder / name}: {what}, not a results file: left out" in err, (name, err)
    assert "linked.jsonl" not in err and (tmp_path / "o" / "engines" / "eng.html").is_file()
    os.remove(folder / "linked.jsonl")
    assert cli(["site", str(folder), "--out", str(tmp_path / "o2")]) == 2  # none is left
    out = capsys.readouterr().err
    assert "no results files (*.jsonl) in it" in out and out.count("left out") == len(expected)


FOLDED_IDS = ["a-b", "A-b", "a_b", "a b", "a--b", "a-b\u00e9", "a-b" + "x" * 100, "a-b" + "x" * 101]


def test_ids_the_page_names_fold_together_get_pages_of_their_own() -> None:
    """Issue 25, class 11: case ids that differ only in what the slug folds shared a page."""
    from palconf.reports.site import page_names

    names = page_names(FOLDED_IDS, 80)
    assert len(set(names.values())) == len(FOLDED_IDS)
    assert names["a-b"] == "a-b"  # a suite id keeps its plain name
    assert all(re.fullmatch(r"[a-z0-9._-]{1,80}", n) for n in names.values())
    assert page_names(reversed(FOLDED_IDS), 80) == names  # the same names whatever the order


def test_a_site_of_folded_ids_writes_one_page_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    lines = [meta_line({"engine": {"name": "e", "version": "1"}, "rules_version": "1.00"})]
    for n, cid in enumerate(FOLDED_IDS):
        result = {"id": cid, "keywords": ["taunt"], "clauses": [], "outcome": "fail"}
        lines.append(json.dumps({**result, "message": f"message {n}"}) + "\n")
    (results / "e.jsonl").write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "out"
    assert cli(["site", str(results), "--out", str(out)]) == 0
    case_pages = sorted((out / "cases").iterdir())
    assert len(case_pages) == len(FOLDED_IDS)
    texts = [p.read_text(encoding="utf-8") for p in case_pages]
    for n in range(len(FOLDED_IDS)):  # each id's result on a page of its own
        assert sum(f"message {n}" in t for t in texts) == 1, n
    site_text = "".join(q.read_text(encoding="utf-8") for q in out.rglob("*.html"))
    for p in case_pages:  # every page is linked from the site
        assert f"cases/{p.name}" in site_text, p.name


def test_an_engine_page_of_many_runs_shows_the_newest_and_folds_the_older(
    tmp_path: Path,
) -> None:
    """30 runs: the runs table holds the newest 20, the 10 older ones are folded above it
    (each run in one table exactly once, oldest first), and the rows do not wrap (a phone
    scrolls the table, the cells keep one line each); 25 runs are shown unfolded."""
    folder = tmp_path / "results"
    folder.mkdir()
    meta = {"engine": {"name": "many", "version": ""}, "rules_version": "1.00"}
    result = {"id": "taunt-x", "keywords": ["taunt"], "clauses": ["taunt.1"], "outcome": "pass"}
    for runs, folded in ((30, 10), (25, 0)):
        for f in folder.iterdir():
            f.unlink()
        for v in range(runs):
            m = {**meta, "engine": {"name": "many", "version": f"1.{v}"}}
            (folder / f"1.{v}.jsonl").write_text(
                meta_line(m) + json.dumps(result) + "\n", encoding="utf-8"
            )
        out = tmp_path / f"site-{runs}"
        assert cli(["site", str(folder), "--out", str(out)]) == 0
        page = (out / "engines" / "many.html").read_text(encoding="utf-8")
        tables = re.findall(r'<table class="runs">(.*?)</table>', page, re.S)
        versions = [re.findall(r"<tr><td>(1\.\d+)", t) for t in tables]
        assert [v for t in versions for v in t] == [f"1.{v}" for v in range(runs)]
        if folded:
            assert re.search(
                rf"<details class=\"older-runs\"><summary>The {folded} older runs", page
            )
            assert [len(t) for t in versions] == [folded, runs - folded]
        else:
            assert '<details class="older-runs">' not in page and len(versions) == 1
    assert "table.runs td { white-space: nowrap; }" in page
