"""`palconf summary RESULTS…`, and the helpers of the end of a run it shares with `palconf
run` (`palconf.running.summary`, `palconf.core.causes`): the table with its XPASS rows, the
failures grouped by clause, what they have in common, the verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from palconf.cli import main as cli
from palconf.core import Outcome, Result
from palconf.core.causes import by_cause, shared_cause
from palconf.core.results_file import meta_line, run_meta
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
