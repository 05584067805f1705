"""`palconf run -j N` (palconf.running.parallel): N engines on one queue of cases give the
verdicts of one engine, in the suite's order; -x stops every worker; --resume and
expectations work; an engine that does not start in one worker is exit 2, nothing left."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from palconf import mutants
from palconf.cases.loader import Case
from palconf.core import Result
from palconf.engines.options import process_count as jobs_count
from palconf.engines.oracle_engine import OracleEngine
from palconf.engines.process import ProcessEngine
from palconf.engines.processes import cpu_count
from palconf.mutants.sweep import in_process
from palconf.running.parallel import Workers
from palconf.running.supervisor import RunStopped, run_cases

from .harness import PY, SERVE, broken, folder_of, gone, read_results, run_cli, script

pytest_plugins = ["tests.harness_fixtures"]

#: Mutants of different parts of the game, each failing a different handful of cases.
MUTANTS = ["deploy-enters-rested", "quick-step-one-pass-ends", "pumps-never-expire"]


MUTANT = MUTANTS[0]
MUTANT_CMD = f"{SERVE} --mutant {MUTANT}"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory, all_cases: list[Case]) -> Path:
    """Ten cases, three of them failing against MUTANT (the first after a passing one)."""
    with in_process(mutants.get(MUTANT)) as engine:
        results = list(run_cases(engine, all_cases))
    failing = [r.id for r in results if r.outcome == "fail"][:3]
    passing = [r.id for r in results if r.outcome == "pass"][:7]
    chosen = [c for c in all_cases if c.id in {*failing, *passing}]
    assert len(chosen) == 10 and chosen[0].id in passing
    return folder_of(chosen, tmp_path_factory.mktemp("mixed"))


def verdicts(results: list[Result]) -> list[tuple[str, str, str, int | None]]:
    return [(r.id, r.outcome, r.message, r.step) for r in results]


@pytest.mark.parametrize(
    "name", [None, *(pytest.param(m, marks=pytest.mark.slow) for m in MUTANTS)]
)
def test_four_workers_give_the_verdicts_of_one_on_the_whole_suite(
    all_cases: list[Case], name: str | None
) -> None:
    def make() -> OracleEngine:
        return OracleEngine() if name is None else in_process(mutants.get(name))  # type: ignore[return-value]

    with make() as one:
        alone = list(run_cases(one, all_cases))
    workers = Workers(make, 4)
    workers.start()
    together = list(workers.results(all_cases))
    assert [r.id for r in together] == [c.id for c in all_cases]  # the suite's order
    assert verdicts(together) == verdicts(alone)
    if name is not None:  # the mutant is seen: the comparison can fail
        assert any(r.outcome != "pass" for r in alone)


@pytest.mark.slow  # the whole suite through worker engines
def test_worker_processes_give_the_verdicts_of_one(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    command = f"{SERVE} --mutant deploy-enters-rested"
    with ProcessEngine(command) as one:
        alone = list(run_cases(one, cases))
    workers = Workers(lambda: ProcessEngine(command), 3)
    workers.start()
    pids = [w.engine._proc.pid for w in workers.workers]  # type: ignore[attr-defined]
    assert len(set(pids)) == 3  # three engine processes
    assert verdicts(list(workers.results(cases))) == verdicts(alone)
    assert all(gone(p) for p in pids)


def cli_run(folder: Path, engine: str, results: Path, *extra: str) -> tuple[int, list[str]]:
    code = run_cli(folder, engine, results, "--progress", "none", *extra)
    return code, [f"{r['id']} {r['outcome']}" for r in read_results(results)]


def test_the_results_file_and_terminal_keep_the_suites_order(
    mixed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, engine = mixed, MUTANT_CMD
    one = cli_run(folder, engine, tmp_path / "1.jsonl", "-v")
    out_one = capsys.readouterr().out
    four = cli_run(folder, engine, tmp_path / "4.jsonl", "-v", "-j", "4")
    out_four = capsys.readouterr().out
    assert one == four and one[0] == 1  # the mutant fails some case
    assert out_one == out_four


@pytest.mark.slow  # the whole suite through worker engines
def test_exitfirst_stops_every_worker_and_resume_finishes(mixed: Path, tmp_path: Path) -> None:
    folder, engine = mixed, MUTANT_CMD
    code, one = cli_run(folder, engine, tmp_path / "1.jsonl", "-x")
    assert code == 1 and one[-1].endswith("fail") and len(one) < 10
    assert cli_run(folder, engine, tmp_path / "3.jsonl", "-x", "-j", "3") == (code, one)
    code, resumed = cli_run(folder, engine, tmp_path / "3.jsonl", "--resume", "-j", "3")
    _, whole = cli_run(folder, engine, tmp_path / "all.jsonl")
    assert sorted(resumed) == sorted(whole) and len(whole) == 10


@pytest.mark.slow  # the whole suite through worker engines
def test_expectations_work_with_workers(mixed: Path, tmp_path: Path) -> None:
    folder, engine = mixed, MUTANT_CMD
    known = tmp_path / "known.toml"
    extra = ("-j", "2", "--expectations", str(known))
    assert cli_run(folder, engine, tmp_path / "a.jsonl", *extra, "--update-expectations")[0] == 0
    code, rows = cli_run(folder, engine, tmp_path / "b.jsonl", *extra)
    assert code == 0 and any(row.endswith("xfail") for row in rows)


def test_an_engine_that_starts_in_one_worker_only_is_exit_2_and_leaves_nothing(
    small: tuple[Path, list[Case]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = small
    pids, first = tmp_path / "pids", tmp_path / "first"
    # the first engine to start works; every other one exits before `hello`
    script(tmp_path, 'send({"ok": True})')
    body = (tmp_path / "engine.py").read_text()
    (tmp_path / "engine.py").write_text(
        "import os, sys\n"
        f"open({str(pids)!r}, 'a').write(f'{{os.getpid()}}\\n')\n"
        f"try:\n    os.close(os.open({str(first)!r}, os.O_CREAT | os.O_EXCL))\n"
        "except FileExistsError:\n    sys.exit(4)\n" + body
    )
    results = tmp_path / "r.jsonl"
    engine = f"{PY} {shlex.quote(str(tmp_path / 'engine.py'))}"
    assert run_cli(folder, engine, results, "-j", "3") == 2
    err = capsys.readouterr().err
    assert "the engine did not start" in err and "Traceback" not in err
    assert not results.exists()  # no results file
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 3 and all(gone(p) for p in started)  # no engine left running


def test_an_engine_that_keeps_breaking_stops_the_run(
    small: tuple[Path, list[Case]], tmp_path: Path
) -> None:
    _, cases = small
    command = broken("crash", at="setup")
    workers = Workers(lambda: ProcessEngine(command), 2, max_restarts=1)
    workers.start()
    got: list[Result] = []
    with pytest.raises(RunStopped, match="in a row"):
        for r in workers.results(cases):
            got.append(r)
    assert got and all(r.outcome == "error" for r in got) and len(got) < len(cases)
    assert [r.id for r in got] == [c.id for c in cases if c.id in {g.id for g in got}]


def test_jobs_count() -> None:
    assert jobs_count("3") == 3
    assert jobs_count("auto") == cpu_count()
    for bad in ("0", "-1", "two", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            jobs_count(bad)
