"""Runs that update one expectations file at once (issue 36, docs/broken-input.md §18): each
keeps the others' entries. `update_file` (palconf/running/expectations.py) locks the file
as a results file is locked (`flock`) and applies the run's results to the file as it is
then, not as the run read it at its start."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from palconf.cases.loader import Case
from palconf.core import Outcome, Result
from palconf.core.safe_write import UnsafeWrite
from palconf.running import expectations as expectations_module
from palconf.running.expectations import Expectations, ExpectationsError, update_file

from .harness import ENGINES, fingerprint, left_behind, read_results

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

PALCONF = [sys.executable, "-m", "palconf.cli"]
PRIOR = '[cases.case-of-another-folder]\noutcome = "fail"\nnote = "kept"\n'


def fake(kind: str, tmp: Path, on: Case, pids: str = "pids") -> str:
    argv = [sys.executable, str(ENGINES / "fake.py"), kind, "--on", fingerprint(on.setup)]
    return subprocess.list2cmdline([*argv, "--pidfile", str(tmp / pids)])


def entries(path: Path) -> dict[str, tuple[str, ...]]:
    return {e.pattern: e.outcomes for e in Expectations.load(path).entries}


@pytest.mark.parametrize(
    "start", ["missing", pytest.param("existing", marks=pytest.mark.slow), "link"]
)
def test_three_runs_updating_one_file_at_once_keep_every_entry(
    small: tuple[Path, list[Case]], tmp_path: Path, start: str
) -> None:
    """Run A reads the file, then hangs on its last case; meanwhile B and C update the file
    and end; then A's engine is killed (its case an `error`), and A ends last. Every run's
    entries are in the file, and an entry none of them ran stays."""
    folder, cases = small
    target = tmp_path / "expectations.toml"
    path = target
    if start != "missing":
        target.write_text(PRIOR)
    if start == "link":
        path = tmp_path / "link.toml"
        path.symlink_to(target)

    def argv(name: str, engine: str, chosen: list[Case], *extra: str) -> list[str]:
        out = [*PALCONF, "run", "--cases", str(folder), "--engine-cmd", engine, *extra]
        out += ["--expectations", str(path), "--update-expectations"]
        out += ["--results", str(tmp_path / f"{name}.jsonl")]
        return out + [arg for c in chosen for arg in ("--case", c.id)]

    a = subprocess.Popen(
        argv("a", fake("hang", tmp_path, cases[2], "a-pids"), cases[:3], "--timeout", "30"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30  # A has read the file: its engine said hello
        while time.monotonic() < deadline and a.poll() is None:
            if (tmp_path / "a.jsonl").exists() and read_results(tmp_path / "a.jsonl"):
                break
            time.sleep(0.01)
        others = [
            argv("b", fake("crash", tmp_path, cases[3]), cases[3:5]),
            argv("c", fake("wrong-type", tmp_path, cases[5]), cases[5:]),
        ]
        for command in others:
            done = subprocess.run(command, capture_output=True, timeout=60)
            assert done.returncode == 0, done.stdout.decode()[-2000:] + done.stderr.decode()
        assert a.poll() is None, "run A ended before the others: nothing was tried"
        os.kill(int((tmp_path / "a-pids").read_text().split()[0]), signal.SIGKILL)
        out, err = a.communicate(timeout=60)
    finally:
        if a.poll() is None:
            a.kill()
            a.wait()
        left_behind(tmp_path / "pids", wait=2.0)
        left_behind(tmp_path / "a-pids", wait=2.0)
    assert a.returncode == 0, out.decode()[-2000:] + err.decode()
    want = {cases[2].id: ("error",), cases[3].id: ("error",), cases[5].id: ("error",)}
    if start != "missing":
        want["case-of-another-folder"] = ("fail",)
    assert entries(target) == want
    assert path.is_symlink() == (start == "link")
    if start != "missing":
        assert 'note = "kept"' in target.read_text()


def result(cid: str, outcome: str) -> Result:
    return Result(id=cid, outcome=Outcome(outcome))


def test_many_updates_at_once_in_threads_keep_every_entry(tmp_path: Path) -> None:
    path = tmp_path / "e.toml"
    path.write_text(PRIOR)
    start = threading.Barrier(12)

    def one(n: int) -> None:
        start.wait()
        update_file(path, [result(f"case-{n}", "fail"), result(f"pass-{n}", "pass")])

    threads = [threading.Thread(target=one, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert entries(path) == {
        "case-of-another-folder": ("fail",),
        **{f"case-{n}": ("fail",) for n in range(12)},
    }


def _hold(path: Path) -> int:
    fd = os.open(path, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_an_update_waits_for_the_lock_and_reads_the_file_written_meanwhile(
    tmp_path: Path,
) -> None:
    """Another run holds the lock, and then writes the file anew (a new file renamed over
    it, as palconf writes it) before it lets go: the waiting update reads what it wrote."""
    path = tmp_path / "e.toml"
    path.write_text(PRIOR)
    fd = _hold(path)
    worker = threading.Thread(target=update_file, args=(path, [result("mine", "error")]))
    worker.start()
    time.sleep(0.3)
    assert worker.is_alive(), "the update did not wait for the lock"
    Expectations.parse(PRIOR + '[cases.theirs]\noutcome = "timeout"\n').write(path)
    os.close(fd)
    worker.join(timeout=10)
    assert entries(path) == {
        "case-of-another-folder": ("fail",),
        "theirs": ("timeout",),
        "mine": ("error",),
    }


def test_a_lock_held_too_long_is_a_usage_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(expectations_module, "LOCK_WAIT", 0.2)
    path = tmp_path / "e.toml"
    path.write_text(PRIOR)
    fd = _hold(path)
    try:
        with pytest.raises(ExpectationsError, match=r"e\.toml: another process has held a lock"):
            update_file(path, [result("mine", "error")])
    finally:
        os.close(fd)
    assert path.read_text() == PRIOR  # not a byte changed
    assert update_file(path, [result("mine", "error")])[1].entries[-1].pattern == "mine"


def test_a_folder_where_the_file_cannot_be_made_is_a_usage_error(tmp_path: Path) -> None:
    """Said by the one safe writer (tests/test_outputs.py tries more such folders)."""
    with pytest.raises(UnsafeWrite, match=r"cannot write .*missing/e\.toml: no such folder"):
        update_file(tmp_path / "missing" / "e.toml", [result("mine", "error")])
