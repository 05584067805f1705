"""Expectations files (palconf/expectations.py): looking up, judging, bad files, updating, and
`palconf run --expectations` end to end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from palconf.cases.loader import Case
from palconf.core import Outcome, Result
from palconf.running.expectations import Entry, Expectations, ExpectationsError

from .harness import broken, read_results, run_cli

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

# ---------------------------------------------------------------- expectations

EXPECT = """\
[cases."base-*"]
outcome = "fail"
note = "all broken"
link = "https://example.org/1"

[cases.one]
outcome = ["error", "timeout"]

[cases."skip-*"]
outcome = "skip"
"""


def result(cid: str, outcome: str) -> Result:
    return Result(id=cid, outcome=Outcome(outcome))


def test_expectations_lookup_and_judging() -> None:
    exp = Expectations.parse(EXPECT)
    assert exp.entry_for("one").outcomes == ("error", "timeout")  # exact before glob
    assert exp.entry_for("base-x").pattern == "base-*" and exp.entry_for("other") is None
    assert exp.skipped("skip-this") is not None and exp.skipped("one") is None
    table = [
        ("base-x", "fail", "xfail", True),
        ("base-x", "pass", "xpass", False),
        ("base-x", "error", "error", False),
        ("base-x", "skip", "skip", True),
        ("one", "timeout", "xfail", True),
        ("other", "pass", "pass", True),
        ("other", "fail", "fail", False),
        ("other", "skip", "skip", True),
    ]
    for cid, raw, shown, ok in table:
        r = result(cid, raw)
        assert exp.judge(r) is ok and r.outcome == shown, (cid, raw)
        assert exp.judge(r) is ok and r.outcome == shown  # judging twice changes nothing
    r = result("base-x", "fail")
    exp.judge(r)
    assert r.actual == "fail" and r.expected == ("fail",)
    assert r.note == "all broken <https://example.org/1>"


@pytest.mark.parametrize(
    "text,words",
    [
        ('[cases.a]\nnote = "x"\n', "`outcome` is missing"),
        ('[cases.a]\noutcome = "flaky"\n', "unknown outcome"),
        ('[cases.a]\noutcome = ["skip", "fail"]\n', "cannot be listed with other"),
        ('[cases.a]\noutcome = "fail"\nbug = 1\n', "unknown field(s) bug"),
        ("[cases.a]\noutcome = []\n", "non-empty list"),
        ('[cases]\na = "fail"\n', "must be a table"),
        ('engine = "x"\n', "unknown top-level key"),
        ("[cases.a\n", "TOML syntax"),
    ],
)
def test_bad_expectations_files(text: str, words: str) -> None:
    with pytest.raises(ExpectationsError, match=re.escape(words)):
        Expectations.parse(text, "e.toml")


def test_updating_expectations() -> None:
    exp = Expectations.parse(
        EXPECT + '\n[cases.gone]\noutcome = "fail"\n\n[cases.unrun]\noutcome = "fail"\n'
    )
    run = [
        result("base-1", "fail"),
        result("base-2", "fail"),  # the glob still holds
        result("one", "pass"),  # fixed: its entry goes
        result("new", "timeout"),  # a new failure
        result("skip-1", "skip"),
        result("fine", "pass"),
    ]
    new = exp.updated(run, known_ids=[r.id for r in run] + ["unrun"])
    assert [(e.pattern, e.outcomes) for e in new.entries] == [
        ("base-*", ("fail",)),
        ("skip-*", ("skip",)),
        ("unrun", ("fail",)),
        ("new", ("timeout",)),
    ]
    assert all(new.judge(r) for r in run)
    run[1] = result("base-2", "pass")  # the glob no longer holds: exact entries, note kept
    new = exp.updated(run)
    assert Entry("base-1", ("fail",), "all broken", "https://example.org/1") in new.entries
    assert not any(e.pattern in ("base-*", "base-2") for e in new.entries)
    assert any(e.pattern == "gone" for e in new.entries)  # no known_ids: unrun entries stay
    again = Expectations.parse(new.dumps())  # what is written reads back the same
    assert {e.pattern: e for e in again.entries} == {e.pattern: e for e in new.entries}


def test_expectations_end_to_end(
    small: tuple[Path, list[Case]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, cases = small
    target, other = cases[2], cases[4]
    cmd = broken("crash", on=target)
    exp, results = tmp_path / "engine.toml", tmp_path / "r.jsonl"
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 2  # no file yet
    assert run_cli(folder, cmd, results, "--expectations", str(exp), "--update-expectations") == 0
    assert Expectations.load(exp).entry_for(target.id).outcomes == ("error",)
    capsys.readouterr()
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 0
    rows = {r["id"]: r for r in read_results(results)}
    assert rows[target.id]["outcome"] == "xfail" and rows[target.id]["actual"] == "error"
    # a listed case that passes is news, and a mismatch until the file is updated
    exp.write_text(
        exp.read_text() + f'\n[cases.{other.id}]\noutcome = "fail"\nnote = "was broken"\n'
    )
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 1
    out = capsys.readouterr().out
    assert f"XPASS {other.id}" in out and "listed as failing now pass" in out
    # a skip listing means the case is not run at all: the crash never happens
    exp.write_text(f'[cases."{target.id[:-3]}*"]\noutcome = "skip"\nnote = "hangs"\n')
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 0
    rows = {r["id"]: r for r in read_results(results)}
    assert rows[target.id]["outcome"] == "skip" and "hangs" in rows[target.id]["message"]
