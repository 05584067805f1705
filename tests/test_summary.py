"""`palconf summary RESULTS…`, and the helpers of the end of a run it shares with `palconf
run` (`palconf.running.summary`, `palconf.core.causes`): the table with its XPASS rows, the
failures grouped by clause, what they have in common, the verdict."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from palconf.cli import main as cli
from palconf.core import Outcome, Result
from palconf.core.causes import by_cause, shared_cause
from palconf.core.results_file import ResultsError, meta_line, parse_lines, run_meta
from palconf.registry import load as load_registry
from palconf.running.summary import render_table, where_line, xpass_hint


def res(cid: str, outcome: str, keywords: list[str], clauses: list[str]) -> Result:
    return Result(
        id=cid, outcome=Outcome(outcome), keywords=tuple(keywords), clauses=tuple(clauses)
    )


RESULTS = [
    res("taunt-a", "fail", ["taunt"], ["taunt.2"]),
    res("taunt-b", "fail", ["taunt"], ["taunt.2"]),
    res("taunt-brave", "fail", ["taunt", "brave"], ["taunt.2", "brave.1"]),
    res("taunt-c", "error", ["taunt"], ["taunt.3"]),
    res("brave-a", "fail", ["brave"], ["brave.1"]),
    res("brave-b", "pass", ["brave"], ["brave.1"]),
    res("stealth-a", "xpass", ["stealth"], ["stealth.1"]),
    res("quick-a", "skip", ["quick"], ["quick.1"]),
]


def write(path: Path, results: list[Result], selected: int | None = None) -> Path:
    meta = run_meta("eng", "1.2", ["taunt"], "1.00", len(results) if selected is None else selected)
    meta["label"] = "nightly"
    lines = [json.dumps(r.to_json()) for r in results]
    path.write_text(meta_line(meta) + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_causes_group_each_failure_once_by_the_clause_most_share() -> None:
    groups = by_cause(r for r in RESULTS if r.failed)
    assert [(g.id, [r.id for r in g.results]) for g in groups] == [
        ("taunt.2", ["taunt-a", "taunt-b", "taunt-brave"]),
        ("brave.1", ["brave-a"]),
        ("taunt.3", ["taunt-c"]),
    ]
    cause = shared_cause(RESULTS)
    assert cause is not None
    assert cause.words() == "4 of the 5 failures cite taunt; 3 cite taunt.2"
    assert shared_cause([r for r in RESULTS if not r.failed]) is None


def test_the_table_shows_xpass_rows_and_the_hint_says_how_to_update() -> None:
    registry = load_registry()
    table = render_table(RESULTS, registry)
    rows = {
        line.split()[0]: line.split()[-1] for line in table.splitlines()[2:] if line[:1].isalpha()
    }
    assert rows["stealth"] == "XPASS" and rows["taunt"] == "FAILING" and rows["quick"] == "skipped"
    assert "xpass" in table.splitlines()[0]
    assert where_line(RESULTS, registry) == "where: 4 of the 5 failures cite Taunt; 3 cite taunt.2"
    hint = xpass_hint(RESULTS, "eng.toml")
    assert (
        hint is not None and "--expectations eng.toml" in hint and "--update-expectations" in hint
    )
    assert xpass_hint(RESULTS[:2]) is None


def test_summary_prints_table_failures_by_clause_and_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "eng.jsonl", RESULTS)
    assert cli(["summary", str(path), "--color", "never"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: eng 1.2 (nightly · ")
    assert "failures by clause:\n  taunt.2 (3)" in out and "taunt-a, taunt-b, taunt-brave" in out
    assert "where: 4 of the 5 failures cite Taunt; 3 cite taunt.2" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("palconf: FAILED: 8 case(s)") and "failing: " in last


def test_summary_of_passing_unfinished_and_unreadable_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    passing = [r for r in RESULTS if r.outcome in ("pass", "skip")]
    assert cli(["summary", str(write(tmp_path / "ok.jsonl", passing))]) == 0
    assert capsys.readouterr().out.rstrip().splitlines()[-1].startswith("palconf: ok: 2 case(s)")
    unfinished = write(tmp_path / "part.jsonl", passing, selected=5)
    assert cli(["summary", str(unfinished)]) == 1
    out = capsys.readouterr().out
    assert "2 result(s) of 5 selected: unfinished" in out and "; 3 not run" in out
    (tmp_path / "bad.jsonl").write_text("not json\n", encoding="utf-8")
    assert cli(["summary", str(tmp_path / "bad.jsonl")]) == 2
    assert "bad.jsonl:1: not JSON" in capsys.readouterr().err


# ---------------------------------------------------------------- meta lines (issue 36)

BAD_META: list[tuple[str, Any, str]] = [  # (field, value, words); `engine.x` in the engine
    ("cases", "lots", '`cases` must be a whole number from 0, not "lots"'),
    ("cases", -5, "`cases` must be a whole number from 0, not -5"),
    ("cases", True, "`cases` must be a whole number from 0, not true"),
    ("cases", 2.5, "`cases` must be a whole number from 0, not 2.5"),
    ("cases", None, "`cases` must be a whole number from 0, not null"),
    ("cases", [3], "`cases` must be a whole number from 0, not [3]"),
    ("format_version", 2, "`format_version` is 2: written by a newer palconf"),
    ("format_version", 99, "`format_version` is 99: written by a newer palconf"),
    ("format_version", 0, "`format_version` must be a whole number from 1, not 0"),
    ("format_version", -1, "`format_version` must be a whole number from 1, not -1"),
    ("format_version", "1", '`format_version` must be a whole number from 1, not "1"'),
    ("format_version", 1.0, "`format_version` must be a whole number from 1, not 1.0"),
    ("format_version", True, "`format_version` must be a whole number from 1, not true"),
    ("format", "palconf-transcript", '`format` is "palconf-transcript": not a palconf results'),
    ("format", 1, "`format` must be a string, not 1"),
    ("protocol", "one", '`protocol` must be a whole number from 0, not "one"'),
    ("rules_version", 1.0, "`rules_version` must be a string, not 1.0"),
    ("date", 20260801, "`date` must be a string, not 20260801"),
    ("label", ["a"], '`label` must be a string, not ["a"]'),
    ("palconf", 0.1, "`palconf` must be a string, not 0.1"),
    ("engine", "x", "`engine` must be an object"),
    ("engine", [], "`engine` must be an object"),
    ("engine.name", 42, "`engine.name` must be a string, not 42"),
    ("engine.name", None, "`engine.name` must be a string, not null"),
    ("engine.name", {"a": 1}, '`engine.name` must be a string, not {"a": 1}'),
    ("engine.version", 1.2, "`engine.version` must be a string, not 1.2"),
    ("engine.keywords", "taunt", '`engine.keywords` must be a list of strings, not "taunt"'),
    ("engine.keywords", [1], "`engine.keywords` must be a list of strings, not [1]"),
]


def with_meta(path: Path, field: str, value: Any) -> Path:
    write(path, RESULTS[:2])
    first, *rest = path.read_text(encoding="utf-8").splitlines()
    data = json.loads(first)
    where, _, key = field.rpartition(".")
    (data["meta"]["engine"] if where else data["meta"])[key] = value
    path.write_text("\n".join([json.dumps(data), *rest]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "field, value, words", BAD_META, ids=[f"{f}={v!r}" for f, v, _ in BAD_META]
)
def test_a_meta_line_of_wrong_values_is_refused_with_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: Any, words: str
) -> None:
    """Before, each was read without a word (`cases: -5` made a run look finished)."""
    path = with_meta(tmp_path / "eng.jsonl", field, value)
    with pytest.raises(ResultsError) as e:
        parse_lines(path.read_text(encoding="utf-8").splitlines(), "eng.jsonl")
    assert str(e.value).startswith("eng.jsonl:1: the meta line's ") and words in str(e.value)
    for command in (["summary"], ["report", "--out", str(tmp_path / "r")]):
        capsys.readouterr()
        assert cli([*command, str(path)]) == 2
        err = capsys.readouterr().err
        assert f"eng.jsonl:1: the meta line's {words}" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "field, value",
    [("cases", 0), ("format_version", 1), ("engine.keywords", []), ("label", "")],
)
def test_a_meta_line_of_right_values_is_read(tmp_path: Path, field: str, value: Any) -> None:
    path = with_meta(tmp_path / "eng.jsonl", field, value)
    assert len(parse_lines(path.read_text(encoding="utf-8").splitlines(), "x").results) == 2
    older = ['{"meta": {"engine": {"name": "e"}}}', json.dumps(RESULTS[0].to_json())]
    assert parse_lines(older, "x").meta == {"engine": {"name": "e"}}  # fields left out: read


@pytest.mark.parametrize("command", ["summary", "report", "site"])
def test_a_transcript_is_named_so_by_summary_report_and_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    path = folder / "t.jsonl"
    explained = cli(["explain", "brave-100-ties-3100-and-both-die", "--transcript", str(path)])
    assert explained == 0 and path.is_file()
    capsys.readouterr()
    argv = {
        "summary": [str(path)],
        "report": [str(path), "--out", str(tmp_path / "out")],
        "site": [str(folder), "--out", str(tmp_path / "out")],
    }[command]
    assert cli([command, *argv]) == 2  # (site: no other file in the folder)
    err = capsys.readouterr().err
    said = f"{path}: a transcript, not a results file (palconf replay reads it)"
    assert said in err and ":1:" not in err
    assert len(err.strip().splitlines()) == (2 if command == "site" else 1)
