"""What `palconf run` shows (palconf/commands/run.py, palconf/summary.py, palconf/terminal.py):
the header first, progress while it runs, every FAIL block with its file, the table and a
one-line verdict last; -x / --max-fail, --exclude, skipped rows, colour."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from palconf import paths
from palconf.cases.loader import Case, load_cases
from palconf.cli import main
from palconf.commands import suite_ids
from palconf.registry import load as load_registry
from palconf.running.terminal import Paint, Progress, progress_mode, use_color

from .harness import ENGINES, PY, ROOT, read_results

pytest_plugins = ["tests.harness_fixtures"]

VARIANT = f"{PY} {shlex.quote(str(ENGINES / 'variant.py'))}"
#: how many cases `-k brave` selects: the corpus's count, not a number kept by hand
BRAVE = sum("brave" in c.keywords for c in load_cases(paths.CASES))
MUTANT = f"{PY} -m palconf.cli serve --mutant brave-ignored"
#: how many cases the current rules version's suite holds (`-k brave` is a partial run of it)
SUITE = len(suite_ids(load_cases(paths.CASES), load_registry(), load_registry().current))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["run", "--progress", "none", *argv])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def test_the_header_comes_first_and_the_verdict_last(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "-k", "brave", "-v")
    assert status == 0
    assert BRAVE > 50
    assert out[0] == f"palconf: {BRAVE} case(s) of rules 1.00 against palconf-oracle 0.1.0"
    assert out[1].startswith("pass ") and out[BRAVE].startswith("pass ")
    assert out[-1] == (
        f"palconf: ok: {BRAVE} case(s): {BRAVE} pass (rules 1.00) · partial: {BRAVE} of the "
        f"suite's {SUITE} cases selected, by --keyword brave"
    )
    assert out[-2].startswith("all cases") and out[-2].endswith("ok")
    table = out.index(next(line for line in out if line.startswith("keyword ")))
    assert table > BRAVE  # after the case lines


def test_fail_blocks_name_the_file_and_come_before_the_summary(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "-k", "brave", "--engine-cmd", MUTANT)
    assert status == 1
    files = [line.split("file: ", 1)[1] for line in out if line.startswith("  file: ")]
    fails = [line for line in out if line.startswith("FAIL ")]
    assert files and len(files) == len(fails)
    assert all((Path.cwd() / f).is_file() or Path(f).is_file() for f in files)
    assert out[-1].startswith(f"palconf: FAILED: {BRAVE} case(s): ")
    assert "failing: " in out[-1] and "brave" in out[-1]
    last_fail = max(i for i, line in enumerate(out) if line.startswith("FAIL "))
    assert last_fail < out.index(next(line for line in out if line.startswith("keyword ")))


@pytest.mark.slow
def test_max_fail_stops_the_run_and_resume_finishes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["-k", "brave", "--engine-cmd", MUTANT, "--results", str(results)]
    status, out, _ = run(capsys, *argv, "-x")
    assert status == 1
    rows = read_results(results)
    assert sum(r["outcome"] == "fail" for r in rows) == 1 and rows[-1]["outcome"] == "fail"
    assert any("stopped after 1 result(s) not as expected" in line for line in out)
    assert "not run" in out[-1]
    status, out, _ = run(capsys, *argv, "--max-fail", "3", "--resume")
    rows = read_results(results)
    assert sum(r["outcome"] == "fail" for r in rows) == 4
    status, out, _ = run(capsys, *argv, "--resume")
    assert len(read_results(results)) == BRAVE and "not run" not in out[-1]


@pytest.mark.parametrize(
    "pattern,gone",
    [
        ("brave-100-*", lambda c: c.id.startswith("brave-100-")),
        ("quick", lambda c: "quick" in c.keywords),
        ("brave.3", lambda c: "brave.3" in c.clauses),
        ("B-1?", lambda c: any(r.startswith("B-1") and len(r) == 4 for r in c.rules)),
    ],
)
def test_exclude_leaves_out_ids_groups_clauses_and_rules(
    capsys: pytest.CaptureFixture[str], all_cases: list[Case], pattern: str, gone: object
) -> None:
    brave = [c for c in all_cases if "brave" in c.keywords]
    left = [c for c in brave if not gone(c)]  # type: ignore[operator]
    assert 0 < len(left) < len(brave)
    status, out, _ = run(capsys, "-k", "brave", "--exclude", pattern)
    assert status == 0 and out[0].startswith(f"palconf: {len(left)} case(s) of rules 1.00 against")


def test_rows_of_skipped_cases_say_skipped_with_the_reasons_grouped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    engine = f"{VARIANT} --drop taunt"
    status, out, _ = run(capsys, "-k", "taunt", "--engine-cmd", engine)
    assert status == 0
    row = next(line for line in out if line.startswith("taunt "))
    assert row.endswith("skipped")
    assert "skipped:" in out
    reasons = [line for line in out[out.index("skipped:") + 1 :] if line.startswith("  ")]
    assert any("case(s): engine does not implement: taunt" in line for line in reasons)


def test_colour_follows_the_option_and_no_color(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out, _ = run(capsys, "-k", "assault", "--color", "always")
    assert "\x1b[32mok\x1b[0m" in out[-1]
    _, out, _ = run(capsys, "-k", "assault", "--color", "never")
    assert not any("\x1b[" in line for line in out)
    monkeypatch.setenv("NO_COLOR", "1")
    tty = io.StringIO()
    tty.isatty = lambda: True  # type: ignore[method-assign]
    assert not use_color(tty, "auto") and use_color(tty, "always")
    monkeypatch.delenv("NO_COLOR")
    assert use_color(tty, "auto") and not use_color(io.StringIO(), "auto")


def test_the_bar_redraws_one_line_and_clears_it() -> None:
    stream = io.StringIO()
    stream.isatty = lambda: True  # type: ignore[method-assign]
    assert (
        progress_mode("auto", stream) == "bar" and progress_mode("auto", io.StringIO()) == "lines"
    )
    p = Progress(3, mode="bar", stream=stream, paint=Paint(False))
    p.REDRAW = 0.0
    for outcome in ("pass", "fail", "pass"):
        p.add(outcome)
    out = io.StringIO()
    p.above("FAIL x", out)
    p.close()
    text = stream.getvalue()
    assert text.count("\r\x1b[2K[") == 4 and "3/3 case(s)  fail 1  pass 2" in text
    assert text.endswith("\r\x1b[2K") and out.getvalue() == "FAIL x\n"


@pytest.mark.slow  # waits on a slow engine
def test_a_slow_engine_shows_progress_from_the_first_case(
    small: tuple[Path, list[Case]],
) -> None:
    folder, cases = small
    cmd = [sys.executable, "-m", "palconf.cli", "run", "--cases", str(folder)]
    cmd += ["--case", cases[0].id, "--case", cases[1].id]
    cmd += ["--progress", "lines", "--engine-cmd", f"{VARIANT} --sleep 0.15"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        started = time.monotonic()
        first = proc.stderr.readline()
        assert first.startswith("palconf: 1/2 case(s)  pass 1"), first
        assert proc.poll() is None, "the progress line came only at the end"
        assert time.monotonic() - started < 20
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0 and out.splitlines()[-1].startswith("palconf: ok: 2 case(s)")


def test_an_exclude_that_matches_nothing_is_a_typo_and_the_header_counts_what_it_left_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "-k", "taunt", "--exclude", "tuant")
    assert status == 2 and out == []
    assert "--exclude 'tuant' matches no case id, keyword group, clause or rule" in err
    status, out, _ = run(capsys, "-k", "brave", "--exclude", "brave-100-*")
    assert status == 0
    assert out[0].endswith("left out by --exclude)") and "(0 left out" not in out[0]
    status, out, _ = run(capsys, "-k", "brave")
    assert "left out" not in out[0]


def test_a_failing_run_says_where_the_failures_meet_and_what_to_run_next(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "-k", "brave", "--engine-cmd", MUTANT)
    assert status == 1
    where = next(line for line in out if line.startswith("palconf: where: "))
    assert "cite Brave" in where
    nxt = out[-2]
    assert nxt.startswith("Next: palconf explain ") and f"--engine-cmd {shlex.quote(MUTANT)}" in nxt
    # which failing case it names: tests/test_run_messages.py (the simplest)
    status, out, _ = run(capsys, "-k", "brave")
    assert not any(line.startswith(("Next:", "palconf: where:")) for line in out)


def test_interrupting_a_run_prints_the_table_so_far_and_the_resume_hint(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from palconf.running import supervisor

    calls = {"n": 0}
    real = supervisor.run_case

    def interrupt_at_the_fifth(engine: object, case: Case) -> object:
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(engine, case)  # type: ignore[arg-type]

    monkeypatch.setattr(supervisor, "run_case", interrupt_at_the_fifth)
    results = tmp_path / "r.jsonl"
    status, out, err = run(capsys, "-k", "brave", "--results", str(results))
    assert status == 130
    assert any(line.startswith("all cases") and " 4 " in line for line in out)
    assert f"palconf: interrupted: 4 result(s); {BRAVE - 4} case(s) not run" in out[-1]
    assert "--resume" in out[-1] and len(read_results(results)) == 4
