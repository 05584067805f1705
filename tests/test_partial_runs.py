"""Partial and unfinished runs, and "new" cases (issue 35): a run whose selection left cases
of the suite out (`--exclude`, `--keyword`, `--case`) is *partial*, one with fewer results
than it selected is *unfinished* (`palconf.core.results_meta.completeness`); every report
marks them, and `report --compare` (the site's steps too) counts a case as new only when it
is new to the suite.

The runs are real `palconf run`s of the oracle over a small suite (two keywords' case
files copied into a folder, so that a case can be added between two runs); every expected
id is read from the files those runs wrote, never written in by hand.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from palconf import paths
from palconf.cli import main as cli
from palconf.core.results_file import meta_line, read_results
from palconf.reports.site_index import INDEX_DIR

KEYWORDS = ("taunt", "stealth")
ADDED = "nocturnal"  # the keyword one of whose cases is added to the suite between runs


def suite_folder(where: Path) -> Path:
    """A cases folder of the project's Taunt and Stealth cases."""
    folder = where / "cases"
    for kw in KEYWORDS:
        shutil.copytree(paths.CASES / kw, folder / kw)
    return folder


def run(folder: Path, results: Path, version: str, *options: str) -> str:
    """`palconf run` of the oracle over `folder`: its output."""
    argv = ["run", "--cases", str(folder), "--results", str(results), "--engine-version"]
    assert cli([*argv, version, "--progress", "none", "--color", "never", *options]) == 0
    return results.read_text(encoding="utf-8")


def meta_of(path: Path) -> dict[str, Any]:
    meta = json.loads(path.read_text(encoding="utf-8").splitlines()[0])["meta"]
    assert isinstance(meta, dict)
    return meta


def ids_of(path: Path) -> set[str]:
    return {r.id for r in read_results(path).results}


def left_out_of(runs: dict[str, Path]) -> list[str]:
    """The ids the partial run 1.0 left out: those of the whole run 2.0 it does not have."""
    return sorted(ids_of(runs["results"] / "2.0.jsonl") - ids_of(runs["results"] / "1.0.jsonl"))


def partial_words(runs: dict[str, Path]) -> str:
    """What every report says of the partial run 1.0."""
    held, every = ids_of(runs["results"] / "1.0.jsonl"), ids_of(runs["results"] / "2.0.jsonl")
    return f"partial: {len(held)} of the suite's {len(every)} cases selected, by --exclude taunt"


def rename(src: Path, dst: Path, name: str) -> Path:
    """`src` as a run of the engine `name` (its meta line's engine name changed)."""
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])["meta"]
    meta["engine"]["name"] = name
    dst.write_text(meta_line(meta) + "".join(lines[1:]), encoding="utf-8")
    return dst


def without_suite(src: Path, dst: Path) -> Path:
    """`src` as an older palconf wrote it: no `suite`, no `selection` in its meta line."""
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])["meta"]
    meta.pop("suite", None)
    meta.pop("selection", None)
    dst.write_text(meta_line(meta) + "".join(lines[1:]), encoding="utf-8")
    return dst


def text_of(html: str) -> str:
    """An HTML page's text, tags left out, whitespace folded (entities as written)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """1.0 with `--exclude taunt`, then 2.0 of the whole suite; a third engine whose only
    run is the partial one."""
    tmp = tmp_path_factory.mktemp("partial")
    folder = suite_folder(tmp)
    results = tmp / "results"
    results.mkdir()
    run(folder, results / "1.0.jsonl", "1.0", "--exclude", "taunt")
    run(folder, results / "2.0.jsonl", "2.0")
    rename(results / "1.0.jsonl", results / "other.jsonl", "other")
    return {"tmp": tmp, "folder": folder, "results": results}


# ---------------------------------------------------------------- the meta line


def test_the_meta_line_records_the_suite_and_what_the_selection_left_out(
    runs: dict[str, Path],
) -> None:
    partial, whole = runs["results"] / "1.0.jsonl", runs["results"] / "2.0.jsonl"
    every, taunt = ids_of(whole), {i for i in ids_of(whole) if i.startswith("taunt")}
    assert taunt and every - taunt
    p, w = meta_of(partial), meta_of(whole)
    assert p["suite"] == w["suite"] and p["suite"]["cases"] == len(every)
    assert re.fullmatch(r"[0-9a-f]{64}", p["suite"]["digest"])
    assert p["selection"] == {"by": ["--exclude taunt"], "left_out": sorted(taunt)}
    assert "selection" not in w  # the whole suite: nothing left out
    assert p["cases"] == len(every - taunt) == len(ids_of(partial))
    c = read_results(partial).completeness
    assert (c.partial, c.unfinished, c.mark) == (True, False, "partial")
    assert read_results(whole).completeness.whole


@pytest.mark.parametrize(
    "options, by",
    [
        (["--keyword", "stealth"], ["--keyword stealth"]),
        (["--case", "taunt-*"], ["--case 'taunt-*'"]),
    ],
)
def test_every_way_of_selecting_fewer_cases_is_recorded(
    runs: dict[str, Path], tmp_path: Path, options: list[str], by: list[str]
) -> None:
    out = tmp_path / "r.jsonl"
    run(runs["folder"], out, "3.0", *options)
    meta, held = meta_of(out), ids_of(out)
    every = ids_of(runs["results"] / "2.0.jsonl")
    assert meta["selection"] == {"by": by, "left_out": sorted(every - held)}
    assert 0 < len(held) < len(every)


def test_the_run_says_it_was_partial_on_its_last_line(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    run(runs["folder"], tmp_path / "r.jsonl", "3.0", "--exclude", "taunt")
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert partial_words(runs) in last
    run(runs["folder"], tmp_path / "w.jsonl", "3.0")
    assert "partial" not in capsys.readouterr().out.rstrip().splitlines()[-1]


# ---------------------------------------------------------------- compare


def test_compare_counts_as_new_only_cases_new_to_the_suite(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = runs["results"] / "1.0.jsonl", runs["results"] / "2.0.jsonl"
    left_out = left_out_of(runs)
    capsys.readouterr()
    assert cli(["report", "--compare", str(old), str(new), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["new_cases"] == [] and data["removed"] == []
    assert [c["id"] for c in data["not_run_in_old"]] == left_out
    assert data["not_run_in_new"] == []
    assert data["old"]["completeness"]["state"] == "partial"
    assert data["new"]["completeness"]["state"] == "whole"
    assert cli(["report", "--compare", str(old), str(new)]) == 0
    text = capsys.readouterr().out
    assert "New cases (new to the suite): 0" in text
    words = f"{partial_words(runs)}; the same suite as the other run"
    assert f"Not run in the older run ({words}): {len(left_out)}" in text
    assert cli(["report", "--compare", str(old), str(new), "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "**0** new" in md and f"**{len(left_out)}** not run in the older run" in md
    # the other way round: the cases the newer run left out were not removed from the suite
    assert cli(["report", "--compare", str(new), str(old), "--format", "json"]) == 0
    back = json.loads(capsys.readouterr().out)
    assert back["removed"] == [] and [c["id"] for c in back["not_run_in_new"]] == left_out


def test_a_case_added_to_the_suite_is_still_new(tmp_path: Path) -> None:
    from palconf.reports.compare import compare

    folder = suite_folder(tmp_path)
    run(folder, tmp_path / "1.jsonl", "1.0")
    run(folder, tmp_path / "p.jsonl", "1.5", "--exclude", "taunt")  # partial, before it
    added = sorted((paths.CASES / ADDED).glob("*.toml"))[0]
    shutil.copy(added, folder / KEYWORDS[1] / added.name)  # a new case file in the folder
    run(folder, tmp_path / "2.jsonl", "2.0")
    before, after = ids_of(tmp_path / "1.jsonl"), ids_of(tmp_path / "2.jsonl")
    assert len(after - before) == 1
    c = compare(read_results(tmp_path / "1.jsonl"), read_results(tmp_path / "2.jsonl"))
    assert [ch.id for ch in c.new_cases] == sorted(after - before)
    assert c.not_run_old == [] and c.removed == [] and c.not_run_new == []
    # and the other way round it was removed from the suite
    back = compare(read_results(tmp_path / "2.jsonl"), read_results(tmp_path / "1.jsonl"))
    assert [ch.id for ch in back.removed] == sorted(after - before) and back.not_run_new == []
    # after a partial run of the older suite: what it left out was not run, the added case new
    c = compare(read_results(tmp_path / "p.jsonl"), read_results(tmp_path / "2.jsonl"))
    taunt = sorted(before - ids_of(tmp_path / "p.jsonl"))
    assert taunt and [ch.id for ch in c.not_run_old] == taunt
    assert [ch.id for ch in c.new_cases] == sorted(after - before)


# ---------------------------------------------------------------- summary and report


def test_summary_marks_the_partial_run(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    partial = runs["results"] / "1.0.jsonl"
    capsys.readouterr()
    assert cli(["summary", str(partial), "--color", "never"]) == 0  # partial is not a failure
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith(f"· {partial_words(runs)}")


def test_the_report_marks_the_partial_run(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    partial, whole = runs["results"] / "1.0.jsonl", runs["results"] / "2.0.jsonl"
    out = tmp_path / "rep"
    assert cli(["report", str(partial), str(whole), "--out", str(out)]) == 0
    words = partial_words(runs)
    html = text_of((out / "index.html").read_text(encoding="utf-8"))
    assert html.count(f"Partial run: {words}") == 1  # the partial run's card, not the other's
    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.count("**Partial run**") == 1 and words in md
    engines = json.loads((out / "results.json").read_text(encoding="utf-8"))["engines"]
    assert [e["completeness"]["state"] for e in engines] == ["partial", "whole"]
    assert engines[0]["completeness"]["left_out"] == len(left_out_of(runs))
    props = [
        {p.get("name"): p.get("value") for p in suite.iter("property")}
        for suite in ET.parse(out / "junit.xml").getroot().iter("testsuite")
    ]
    assert [p["run.completeness"] for p in props] == ["partial", "whole"]
    badges = {p.name: json.loads(p.read_text()) for p in (out / "badges").glob("*.json")}
    messages = sorted(b["message"] for b in badges.values())
    assert len(messages) == 2 and messages[0].endswith(" (partial)")
    assert not messages[1].endswith(")")


# ---------------------------------------------------------------- the site


def site_of(results: Path, out: Path) -> dict[str, str]:
    assert cli(["site", str(results), "--out", str(out)]) == 0
    return {
        p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
        for p in out.rglob("*")
        if p.is_file() and INDEX_DIR not in p.relative_to(out).parts
    }


def test_the_site_counts_no_new_case_and_marks_the_partial_run(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "site"
    left_out = left_out_of(runs)
    for _ in range(2):  # built afresh, then again from its index (summaries, steps)
        pages = site_of(runs["results"], out)
        engine = text_of(pages["engines/palconf-oracle.html"])
        assert "1.0 (partial) → 2.0 " in engine  # the step's heading
        assert f"0 new, 0 removed, {len(left_out)} not run in the older run" in engine
        assert "Not run in the older run (partial: " in engine
        assert all(cid in engine for cid in left_out)
        assert re.search(r"Version Rules .*? 1\.0 \(partial\) rules 1\.00", engine)
        # its row and the step's heading, nowhere else
        assert pages["engines/palconf-oracle.html"].count('class="warn small runmark"') == 2
        index = text_of(pages["index.html"])
        assert "other 1.0 (partial)" in index and "palconf-oracle 2.0 (partial)" not in index
        assert "other 1.0: its latest run is partial: " in index
        assert "palconf-oracle 2.0: its latest" not in index
        other = json.loads(pages["badges/other-1.0.json"])
        assert other["message"].endswith(" (partial)")
        ours = json.loads(pages["badges/palconf-oracle-2.0.json"])
        assert "partial" not in ours["message"]
        assert 'class="pt part"' in pages["engines/palconf-oracle.html"]  # its chart point
    # the site's index keeps how many ids the partial run left out, not the ids
    index = json.loads((out / INDEX_DIR / "index.json").read_text(encoding="utf-8"))
    selection = index["runs"]["1.0.jsonl"]["meta"]["selection"]
    assert selection == {"by": ["--exclude taunt"], "left_out_count": len(left_out)}


def test_an_unfinished_run_is_marked_in_the_history_when_it_is_not_the_latest(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    lines = (runs["results"] / "2.0.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])["meta"]
    meta["engine"]["version"] = "1.0"
    kept = len(lines[1:]) // 3
    (results / "1.0.jsonl").write_text(meta_line(meta) + "".join(lines[1 : 1 + kept]))
    shutil.copy(runs["results"] / "2.0.jsonl", results / "2.0.jsonl")
    assert 0 < kept < len(lines) - 1
    out = tmp_path / "site"
    for _ in range(2):  # afresh, then from the index's summaries
        engine = text_of(site_of(results, out)["engines/palconf-oracle.html"])
        assert re.search(r"Version Rules .*? 1\.0 \(unfinished\) rules 1\.00", engine)
        assert "1.0 (unfinished) → 2.0 " in engine
        assert "0 new, 0 removed" in engine and "not run in the older run" in engine
        assert "2.0 (" not in engine


# ---------------------------------------------------------------- older files


def test_files_without_the_new_fields_are_read_as_before(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = without_suite(runs["results"] / "1.0.jsonl", tmp_path / "old.jsonl")
    new = without_suite(runs["results"] / "2.0.jsonl", tmp_path / "new.jsonl")
    c = read_results(old).completeness
    assert (c.suite_known, c.partial, c.unfinished) == (False, False, False)
    capsys.readouterr()
    assert cli(["summary", str(old)]) == 0
    assert "partial" not in capsys.readouterr().out
    assert cli(["report", str(old), str(new), "--out", str(tmp_path / "rep")]) == 0
    capsys.readouterr()
    assert cli(["report", "--compare", str(old), str(new), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # whether the older run's suite held them is unknown: not run there, never "new"
    assert data["new_cases"] == [] and data["not_run_in_old"]
    assert cli(["report", "--compare", str(old), str(new)]) == 0
    assert "does not record its suite" in capsys.readouterr().out
    folder = tmp_path / "results"
    folder.mkdir()
    shutil.copy(old, folder)
    shutil.copy(new, folder)
    engine = text_of(site_of(folder, tmp_path / "site")["engines/palconf-oracle.html"])
    assert "(partial)" not in engine and "0 new" in engine


@pytest.mark.parametrize(
    "field, value, said",
    [
        ("suite", 3, "`suite` must be an object, not 3"),
        ("suite", {"cases": -1, "digest": ""}, "`suite.cases` must be a whole number from 0"),
        ("suite", {"cases": 2}, "`suite.digest` must be a string, not null"),
        ("selection", [], "`selection` must be an object, not []"),
        ("selection", {"left_out": "a"}, '`selection.left_out` must be a list of strings, not "a"'),
        ("selection", {"by": [1]}, "`selection.by` must be a list of strings, not [1]"),
    ],
)
def test_bad_suite_fields_are_a_one_line_error(
    runs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: Any,
    said: str,
) -> None:
    lines = (runs["results"] / "1.0.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    meta = json.loads(lines[0])["meta"]
    meta[field] = value
    bad = tmp_path / "bad.jsonl"
    bad.write_text(meta_line(meta) + "".join(lines[1:]), encoding="utf-8")
    capsys.readouterr()
    assert cli(["summary", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"bad.jsonl:1: the meta line's {said}" in err
