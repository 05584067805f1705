"""palconf stopped in the middle of `palconf run -j N` (issue 36, docs/broken-input.md §18).

One worker's engine hangs on a case (`--timeout 30`) while the others run every other case;
then palconf gets ^C, SIGTERM or SIGKILL. ^C and SIGTERM stop every worker at once (not at
the hung case's timeout) and keep the result of every case a worker finished: the fake
engine logs each `setup` it gets (`--setups`), so a case followed by another `setup` in the
same engine process was finished, and must be in the results file. Every engine process
is gone soon after, SIGKILL included (the parent-death signal, armed in worker threads
too), the exit status is the contract's (docs/INTERPRETING.md), and `--resume` runs the
rest, each case once.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from palconf.cases.loader import Case, load_cases
from palconf.core import Result
from palconf.engines import processes

from .harness import ENGINES, fingerprint, folder_of, left_behind, read_results

pytest_plugins = ["tests.harness_fixtures"]

PALCONF = [sys.executable, "-m", "palconf.cli"]
FAKE = ENGINES / "fake.py"
LINUX = sys.platform.startswith("linux")
#: the cases of the run, and the one whose `act` hangs (the first four go to the workers)
CASES, HUNG = 40, 4


@pytest.fixture(scope="module")
def many(
    tmp_path_factory: pytest.TempPathFactory, all_cases: list[Case], oracle_results: list[Result]
) -> tuple[Path, list[Case]]:
    """CASES cases that pass on the oracle, each with a STATE no other has and only actions
    after it (so a `setup` the engine gets is the start of a case, and names it)."""
    passing = {r.id for r in oracle_results if r.outcome == "pass"}
    chosen, seen = [], set()
    for c in all_cases:
        if c.setup is None or c.id not in passing or not c.steps:
            continue
        if any(s.kind != "act" for s in c.steps) or fingerprint(c.setup) in seen:
            continue
        seen.add(fingerprint(c.setup))
        chosen.append(c)
        if len(chosen) == CASES:
            break
    assert len(chosen) == CASES
    folder = folder_of(chosen, tmp_path_factory.mktemp("many"))
    return folder, load_cases(folder)


def _default_sigint() -> None:  # a test runner may ignore SIGINT; the palconf under test not
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def fake(kind: str, tmp: Path, on: Case | None = None) -> str:
    argv = [sys.executable, str(FAKE), kind, "--pidfile", str(tmp / "pids")]
    argv += ["--setups", str(tmp / "setups")]
    if on is not None:
        argv += ["--on", fingerprint(on.setup)]
    return subprocess.list2cmdline(argv)


def finished(setups: Path, by_print: dict[str, str]) -> tuple[set[str], set[str]]:
    """(the cases an engine finished: another `setup` came after them in the same process,
    the cases started)."""
    runs: dict[str, list[str]] = {}
    for line in setups.read_text().splitlines():
        pid, print_ = line.split()
        runs.setdefault(pid, []).append(by_print[print_])
    done = {case for ids in runs.values() for case in ids[:-1]}
    return done, {case for ids in runs.values() for case in ids}


STOPS = [
    (signal.SIGINT, 130, "palconf: interrupted"),
    (signal.SIGTERM, 143, "palconf: terminated"),
    (signal.SIGKILL, -signal.SIGKILL, ""),
]
#: the rows in the quick test command
FAST = ((4, signal.SIGTERM), (2, signal.SIGKILL))


@pytest.mark.parametrize(
    "jobs,sig,status,words",
    [
        pytest.param(
            jobs,
            sig,
            status,
            words,
            marks=() if (jobs, sig) in FAST else pytest.mark.slow,
            id=f"j{jobs}-{signal.Signals(sig).name}",
        )
        for jobs in (2, 4)
        for sig, status, words in STOPS
    ]
    + [
        pytest.param(
            1, signal.SIGINT, 130, "palconf: interrupted", marks=pytest.mark.slow, id="j1-SIGINT"
        )
    ],
)
def test_stopping_a_parallel_run_keeps_every_finished_case_and_leaves_no_engine(
    many: tuple[Path, list[Case]], tmp_path: Path, jobs: int, sig: int, status: int, words: str
) -> None:
    if sig == signal.SIGKILL and not LINUX:
        pytest.skip("Linux only: PR_SET_PDEATHSIG")
    folder, cases = many
    by_print = {fingerprint(c.setup): c.id for c in cases}
    hung = cases[HUNG]
    results, setups = tmp_path / "r.jsonl", tmp_path / "setups"
    argv = [*PALCONF, "run", "--cases", str(folder), "--results", str(results)]
    argv += ["--timeout", "30", "-j", str(jobs), "--engine-cmd", fake("hang", tmp_path, hung)]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        preexec_fn=_default_sigint,
    )
    try:
        # every case taken by a worker (the hung one among them), the last ones answered
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if setups.exists() and len(finished(setups, by_print)[1]) >= (
                CASES if jobs > 1 else HUNG + 1
            ):
                break
            time.sleep(0.01)
        time.sleep(0.5)
        assert proc.poll() is None, "palconf ended before it could be stopped"
        done, started = finished(setups, by_print)
        assert hung.id in started and hung.id not in done
        signalled = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        left = left_behind(tmp_path / "pids", wait=2.0)
    text = err.decode(errors="replace")
    kept = [r["id"] for r in read_results(results) if "id" in r]
    print(
        f"-j {jobs} {signal.Signals(sig).name}: exit {proc.returncode} {took:.2f} s after the "
        f"signal; {len(kept)} result(s) in the file, {len(done)} case(s) the engines finished"
    )
    assert not left, f"engine processes outlived palconf: {left}"
    assert proc.returncode == status, text[-2000:]
    assert took < 10, f"{took:.1f} s to stop (the hung case's timeout is 30 s)"
    if sig != signal.SIGKILL:
        assert words in text and "Traceback" not in text, text[-2000:]
        assert not done - set(kept), f"finished cases not in the results file: {done - set(kept)}"
        assert hung.id not in kept  # cut short: not a result
        assert len(kept) == len(set(kept))
    # --resume runs the rest, each case once
    again = [*PALCONF, "run", "--cases", str(folder), "--results", str(results), "--resume"]
    again += ["-j", str(jobs), "--engine-cmd", fake("ok", tmp_path)]
    resumed = subprocess.run(again, capture_output=True, cwd=tmp_path, timeout=120)
    assert resumed.returncode == 0, resumed.stdout.decode()[-2000:] + resumed.stderr.decode()
    assert f"{len(kept)} case(s) done, {CASES - len(kept)} to run" in resumed.stdout.decode()
    ids = [r["id"] for r in read_results(results) if "id" in r]
    assert sorted(ids) == sorted(c.id for c in cases)
    assert not left_behind(tmp_path / "pids", wait=2.0)


def test_worker_threads_that_close_their_engines_arm_the_parent_death_signal() -> None:
    """The parent-death signal follows the thread that forks: a `palconf run -j` worker,
    which closes its engine before it ends, says so and arms it; any other thread does not
    (its engine would die with the thread)."""
    if not LINUX:
        pytest.skip("Linux only: PR_SET_PDEATHSIG")
    seen: dict[str, bool] = {}

    def plain() -> None:
        seen["plain"] = processes.die_with_parent() is not None

    def worker() -> None:
        processes.outlives_its_engines()
        seen["worker"] = processes.die_with_parent() is not None

    for name, body in (("plain", plain), ("worker", worker), ("plain again", plain)):
        thread = threading.Thread(target=body, name=name)
        thread.start()
        thread.join()
    assert seen == {"plain": False, "worker": True}
    assert processes.die_with_parent() is not None  # the main thread
