"""Fuzzing on several cores (generators.parallel, `palconf fuzz --workers N`)."""

from __future__ import annotations

import functools
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import pytest

from palconf.cli import main as cli_main
from palconf.core import MISSING, Diff
from palconf.engines.options import process_count as workers_count
from palconf.engines.oracle_engine import OracleEngine
from palconf.engines.process import ProcessEngine
from palconf.generators.differential import fuzz, signature
from palconf.generators.parallel import SEED_STRIDE, WorkerFailed, cpu_count, fuzz_parallel, shares

ROOT = Path(__file__).resolve().parent.parent
MISREAD = ROOT / "tests" / "engines" / "misread.py"
NOCTURNAL = f"{sys.executable} {MISREAD} nocturnal-200"


def children() -> set[int]:
    """The pids of this process's live children (from /proc)."""
    found = set()
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me and fields[0] != "Z":
            found.add(int(entry))
    return found


@pytest.mark.slow
def test_missing_and_a_difference_cross_processes_unchanged() -> None:
    assert pickle.loads(pickle.dumps(MISSING)) is MISSING
    d = Diff("cards.a1.power", 3300, MISSING)
    assert pickle.loads(pickle.dumps(d)).observed is MISSING
    engine = ProcessEngine(NOCTURNAL)
    engine.start()
    try:
        report = fuzz(engine, examples=300, directed=False)
    finally:
        engine.close()
    diff = report.difference
    assert diff is not None
    back = pickle.loads(pickle.dumps(diff))
    assert back == diff and signature(back) == signature(diff)
    assert back.game.steps == diff.game.steps


def test_shares_and_seeds() -> None:
    assert shares(7, 3) == [3, 2, 2] and sum(shares(200, 2)) == 200
    assert workers_count("auto") == cpu_count() >= 1
    assert workers_count("3") == 3


@pytest.mark.slow
def test_two_workers_play_every_example_once_on_the_oracle() -> None:
    report = fuzz_parallel(
        OracleEngine, workers=2, examples=60, seed=5, directed=False, max_actions=10
    )
    assert report.difference is None and report.examples == 60
    # the same as the two campaigns played one after the other, seed for seed
    one = fuzz(started(OracleEngine()), examples=30, seed=5, directed=False, max_actions=10)
    two = fuzz(
        started(OracleEngine()),
        examples=30,
        seed=5 + SEED_STRIDE,
        directed=False,
        max_actions=10,
    )
    assert report.actions == one.actions + two.actions
    assert report.hits == one.hits + two.hits


def started(engine: OracleEngine) -> OracleEngine:
    engine.start()
    return engine


@pytest.mark.slow
def test_two_workers_find_a_misread_keyword_once_shrunk() -> None:
    factory = functools.partial(ProcessEngine, NOCTURNAL)
    report = fuzz_parallel(factory, workers=2, examples=300, seed=0, directed=False)
    assert len(report.differences) == 1
    diff = report.difference
    assert diff is not None and diff.kind == "observed"
    # one power field, 100 short (+200, not +300), in a game shrunk to at most one action.
    # Which card, and whether the night comes with the setup or from an action, follows the
    # draws, and Hypothesis also draws constants from the modules already imported (its
    # "local constants"), so the tests that ran before in this process change them.
    assert len(diff.fields) == 1, diff.fields
    field = diff.fields[0]
    assert re.fullmatch(r"cards\.[ab]\d+\.power", field.path), field
    assert field.expected - field.observed == 100, field
    assert len(diff.game.steps) <= 1, diff.game.steps
    assert report.first_found_at is not None and report.first_found_at <= report.examples


@pytest.mark.slow
def test_keep_going_merges_distinct_differences_across_workers() -> None:
    factory = functools.partial(ProcessEngine, NOCTURNAL)
    # the directed sweep (about 120 games, in worker 0) comes first: enough games after it
    report = fuzz_parallel(factory, workers=2, examples=400, max_differences=5)
    sigs = [signature(d) for d in report.differences]
    assert len(sigs) == len(set(sigs)) >= 1  # each distinct one once


def test_a_worker_whose_engine_does_not_start_stops_the_run() -> None:
    before = children()
    with pytest.raises(WorkerFailed, match="cannot start the engine"):
        fuzz_parallel(
            functools.partial(ProcessEngine, "/nonexistent/engine --flag"),
            workers=2,
            examples=50,
        )
    assert children() <= before


@pytest.mark.slow
def test_fuzz_command_with_two_workers(capsys: pytest.CaptureFixture[str]) -> None:
    before = children()
    rc = cli_main(["fuzz", "--engine-cmd", NOCTURNAL, "--workers", "2", "--examples", "300"])
    out = capsys.readouterr().out
    assert rc == 1, out
    assert "2 worker(s)" in out, out
    # one difference, the misreading: a power 100 short (which card, and after the setup or
    # an action, follows the draws: see test_two_workers_find_a_misread_keyword_once_shrunk)
    assert (
        len(re.findall(r"^DIFFERENCE \(observed\) (after setup|at action 1):", out, re.M)) == 1
    ), out
    fields = re.findall(r"^  cards\.[ab]\d+\.power +(\d+) +(\d+)$", out, re.MULTILINE)
    assert [int(a) - int(b) for a, b in fields] == [100], out
    assert children() <= before


def test_fuzz_command_workers_engine_that_does_not_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    before = children()
    assert cli_main(["fuzz", "--engine-cmd", "/nonexistent/engine", "--workers", "2"]) == 2
    err = capsys.readouterr().err
    assert "cannot start the engine" in err and "Traceback" not in err
    assert children() <= before


@pytest.mark.parametrize("value", ["0", "two"])
def test_fuzz_command_bad_workers(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli_main(["fuzz", "--engine-cmd", "palconf serve", "--workers", value])
    assert e.value.code == 2
    assert "--workers" in capsys.readouterr().err


# --------------------------------------------------------------------------- HypoFuzz target


HYPOFUZZ_TARGET = """
import sys
from hypothesis import Phase, settings
from palconf.engines import OracleEngine
from palconf.generators import hypofuzz_target
from tests.engines.misread import MISREADINGS

target = hypofuzz_target.test_the_engine_plays_generated_games_as_the_oracle_does
quick = settings(
    target._hypothesis_internal_use_settings, phases=[Phase.generate], max_examples=300
)
target._hypothesis_internal_use_settings = quick
for name, rules in (("nocturnal-200", MISREADINGS["nocturnal-200"]), ("oracle", None)):
    engine = OracleEngine(rules, name=name) if rules else OracleEngine()
    engine.start()
    hypofuzz_target._engine[:] = [engine]
    try:
        target()
    except AssertionError as e:
        print(name, "DIFFERENCE", e)
    else:
        print(name, "NONE")
"""


@pytest.mark.slow
def test_the_hypofuzz_target_finds_a_misread_keyword() -> None:
    """In a process of its own, as HypoFuzz runs it: Hypothesis draws constants from every
    module a process has imported, so inside the test run the games would depend on which
    tests ran before."""
    out = subprocess.run(
        [sys.executable, "-c", HYPOFUZZ_TARGET],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    found = re.search(r"^nocturnal-200 DIFFERENCE.*?cards\.\w+\.power", out.stdout, re.S | re.M)
    assert found, out.stdout + out.stderr
    assert "oracle NONE" in out.stdout.splitlines(), out.stdout + out.stderr  # itself: none


def live_with(marker: str) -> list[int]:
    """Live (not zombie) processes whose command line holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry))
    return found


@pytest.mark.slow
def test_workers_and_their_engines_end_when_the_parent_is_killed(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    marker = "--examples=987654"  # a long run, found by its command line
    code = "import sys; from palconf.cli import main; sys.exit(main(['serve']))"
    serve = f'{sys.executable} -c "{code}" {marker}'  # `palconf serve`, with the marker
    cmd = [sys.executable, "-m", "palconf.cli", "fuzz", "--engine-cmd", serve]
    proc = subprocess.Popen(
        [*cmd, "--workers", "2", marker, "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 30
        while len(live_with(marker)) < 5 and time.monotonic() < deadline:
            time.sleep(0.2)  # the parent, 2 workers and their 2 engines
        assert len(live_with(marker)) >= 5
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 20
    while live_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert live_with(marker) == []
