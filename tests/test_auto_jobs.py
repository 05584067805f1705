"""`palconf run -j auto` (palconf.running.auto_jobs): the choice for given figures, and runs
through the CLI: a fast engine gets 1 worker, one that waits more, with the results of `-j 1`.
No timing is asserted: the runs check what was chosen and what came out."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path

import pytest

from palconf.cases.loader import Case
from palconf.cli import main
from palconf.engines.options import AUTO, job_count, process_count
from palconf.engines.processes import core_seconds, cpu_count
from palconf.running import auto_jobs
from palconf.running.auto_jobs import Choice, auto_cap, choose_jobs

from .harness import ENGINES, PY, SERVE, folder_of, read_results, run_cli

pytest_plugins = ["tests.harness_fixtures"]

VARIANT = f"{PY} {shlex.quote(str(ENGINES / 'variant.py'))}"
MS = 0.001


@pytest.mark.parametrize(
    ("wall", "own", "engine", "cores", "jobs"),
    [
        # a fast engine (the Node engine's figures): a case is palconf's work and the engine's
        (1.7 * MS, 0.9 * MS, 0.8 * MS, 2, 1),
        (1.7 * MS, 0.9 * MS, 0.8 * MS, 16, 1),  # however many cores: palconf's own work
        # an engine that sleeps 4 ms a reply: as many as the cap
        (50 * MS, 1.0 * MS, 1.5 * MS, 2, 8),
        # 0.5 ms a reply: S = 7 / 1, two thirds of it
        (7.0 * MS, 1.0 * MS, 1.0 * MS, 2, 4),
        # an engine that computes 19 ms a case: bound by the cores, not by the wait
        (20 * MS, 1.0 * MS, 19 * MS, 2, 1),
        (20 * MS, 1.0 * MS, 19 * MS, 8, 5),
        # the engine's busy time unknown: every moment palconf was not busy is the engine's
        (50 * MS, 1.0 * MS, None, 2, 1),
        (50 * MS, 1.0 * MS, None, 8, 5),
        # nothing measured
        (0.0, 0.0, 0.0, 2, 1),
    ],
)
def test_the_choice_for_given_figures(
    wall: float, own: float, engine: float | None, cores: int, jobs: int
) -> None:
    assert choose_jobs(wall, own, engine, cores) == jobs


def test_a_machine_busy_elsewhere_is_no_engine_that_waits() -> None:
    # every thread waits for a core: palconf busy 4.6 ms a case (0.9 on a core), the engine
    # computes 0.8 ms and waits 3.5 for a core; the waiting is not the engine's to overlap
    assert choose_jobs(9.0 * MS, 4.6 * MS, 0.8 * MS, 2, own_cpu=0.9 * MS) == 1
    # an engine that sleeps 4 ms a reply on that machine: still workers
    assert choose_jobs(127 * MS, 15 * MS, 3 * MS, 2, own_cpu=2 * MS) == 5


def test_the_choice_stays_within_its_cap() -> None:
    assert auto_cap(2) == 8 and auto_cap(3) == 12
    assert choose_jobs(50 * MS, 1 * MS, 1 * MS, 2, cap=3) == 3
    assert choose_jobs(50 * MS, 1 * MS, 1 * MS, 64) == 33  # floor(50 × 2/3), under 256


def test_the_choice_is_said_in_one_line() -> None:
    line = Choice(1, 40, 1.9 * MS, 0.9 * MS, 0.8 * MS, 0.11 * MS).line
    assert line == (
        "-j auto: 1 worker (the engine answers in 0.11 ms; a case takes 1.9 ms: "
        "palconf busy 0.9 ms, the engine computes 0.8 ms)"
    )
    assert Choice(8, 5, 0.05, 0.001, None, 0.0045).line.startswith("-j auto: 8 workers (")
    assert "ran out while measuring" in Choice(1, 3, 0.05, 0.001, None, None, ended=True).line
    assert Choice(1, 0, 0, 0, None, None, ended=True).line == (
        "-j auto: 1 worker (too few cases to measure the engine)"
    )


def test_auto_is_kept_for_run_and_is_the_cores_elsewhere() -> None:
    assert job_count("auto") == AUTO and job_count(" Auto ") == AUTO and job_count("3") == 3
    assert process_count("auto") == cpu_count()  # mutants --jobs, fuzz --workers
    for bad in ("0", "-1", "two", ""):  # 0 is no count of workers (nor AUTO's spelling)
        with pytest.raises(argparse.ArgumentTypeError):
            job_count(bad)


def test_core_time_is_read_for_this_thread_and_for_a_process() -> None:
    mine = core_seconds()
    if mine is None:
        pytest.skip("the kernel gives no schedstats here")
    sum(range(300_000))
    later = core_seconds()
    assert later is not None and later[0] > mine[0] and later[1] >= mine[1]
    every = core_seconds(os.getpid())
    assert every is not None and every[0] >= later[0]  # every thread's, this one's among them
    assert core_seconds(2**22 + 12345) is None  # no such process


@pytest.fixture(scope="module")
def spread(tmp_path_factory: pytest.TempPathFactory, all_cases: list[Case]) -> Path:
    """40 cases spread over the suite, Taunt among them."""
    step = len(all_cases) // 40
    chosen = all_cases[::step][:40]
    taunt = next(c for c in all_cases if "taunt" in c.needs)
    if not any("taunt" in c.needs for c in chosen):
        chosen[-1] = taunt
    return folder_of(chosen, tmp_path_factory.mktemp("spread"))


@pytest.fixture
def quick_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shorter measure, for a folder of 40 cases."""
    monkeypatch.setattr(auto_jobs, "PROBE_SECONDS", 0.02)
    monkeypatch.setattr(auto_jobs, "PROBE_CASES", 5)


def auto_and_one(
    folder: Path, engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[str, list[str], list[str]]:
    """The `-j auto` line, and the results and output of `-j auto` and of `-j 1` (the auto
    line taken out), which must be the same."""
    runs = []
    for jobs in ("auto", "1"):
        results = tmp_path / f"{jobs}.jsonl"
        code = run_cli(folder, engine, results, "--progress", "none", "-v", "-j", jobs)
        out = capsys.readouterr().out.splitlines()
        said = [line for line in out if line.startswith("palconf: -j auto: ")]
        rows = [f"{r['id']} {r['outcome']} {r['message']}" for r in read_results(results)]
        runs.append((code, said, rows, [line for line in out if line not in said]))
    (code, said, rows, out), (code_one, none, rows_one, out_one) = runs
    assert len(said) == 1 and not none
    assert (code, rows, out) == (code_one, rows_one, out_one)
    return said[0], rows, out


def test_auto_gives_a_fast_engine_one_worker(
    spread: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], quick_probe: None
) -> None:
    line, rows, _ = auto_and_one(spread, SERVE, tmp_path, capsys)
    assert line.startswith("palconf: -j auto: 1 worker (the engine answers in "), line
    assert "ran out" not in line and len(rows) == 40


def test_auto_gives_an_engine_that_waits_more_workers_and_the_results_of_one(
    spread: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], quick_probe: None
) -> None:
    engine = f"{VARIANT} --sleep 0.004 --drop taunt"  # 4 ms before each reply
    line, rows, out = auto_and_one(spread, engine, tmp_path, capsys)
    jobs = int(line.split()[3])
    assert 1 < jobs <= auto_cap(), line
    assert any(row.split()[1] == "skip" for row in rows)  # Taunt's case: the engine has none
    assert out[-1].startswith("palconf: ok: 40 case(s)")


def test_auto_with_the_oracle_in_process_is_one_worker(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "-k", "taunt", "-j", "auto", "--progress", "none"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "palconf: -j auto: 1 worker (the oracle in-process: workers gain nothing)"


def test_the_help_says_when_j_pays(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "-j pays when the engine waits rather than computes" in text
    assert "-j 1 is fastest" in text and "auto: the first worker measures the engine" in text


def test_workers_whose_engine_does_not_start_leave_the_run_to_the_first(
    spread: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], quick_probe: None
) -> None:
    once = tmp_path / "started"  # the first start makes it; every later one exits
    inner = f"{VARIANT} --sleep 0.004"
    engine = shlex.join(
        ["sh", "-c", f"mkdir {shlex.quote(str(once))} 2>/dev/null && exec {inner} || exit 4"]
    )
    results = tmp_path / "r.jsonl"
    code = run_cli(spread, engine, results, "--progress", "none", "-j", "auto")
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("palconf: -j auto: "))
    assert int(line.split()[3]) > 1, line  # workers were chosen, and none of them started
    assert code == 0 and len(read_results(results)) == 40
    assert {r["outcome"] for r in read_results(results)} == {"pass"}
