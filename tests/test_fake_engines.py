"""Every kind of broken engine (tests/engines/fake.py) through the `palconf` command as a user
runs it (`python -m palconf.cli`, the console entry), held against what
tests/engines/fake_kinds.toml says a user should see: the armed case's outcome and message,
the exit status of `palconf run` and `palconf smoke`, no traceback, no case lost, nothing
raw on the terminal, no process left behind. And palconf stopped while its engine hangs
(SIGKILL, SIGTERM, ^C): the engine goes too, at once."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from palconf.cases.loader import Case
from palconf.engines.process import STDERR_LIMIT

from .harness import ENGINES, fingerprint, gone, left_behind, read_results

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

FAKE = ENGINES / "fake.py"
TABLE: dict[str, dict[str, Any]] = tomllib.loads(
    (ENGINES / "fake_kinds.toml").read_text(encoding="utf-8")
)["kinds"]
for _name, _row in TABLE.items():
    _row.setdefault("kind", _name)
PALCONF = [sys.executable, "-m", "palconf.cli"]
#: rows whose fault is not armed on one case
UNARMED = ("hello", "bye")
RAW = (b"\x1b", b"\x00", b"\x07")
LINUX = sys.platform.startswith("linux")
SLOW = pytest.mark.slow


def fragments(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def fake_cmd(row: dict[str, Any], target: Case | None, tmp: Path) -> str:
    at = row.get("at", "act")
    argv = [sys.executable, str(FAKE), row["kind"], "--at", at]
    argv += ["--pidfile", str(tmp / "pids"), "--marker", str(tmp / "marker")]
    if target is not None and at not in UNARMED:
        argv += ["--on", fingerprint(target.setup)]
    return shlex.join(argv)


#: Starts the command from a small process and writes the peak memory of it and of what it
#: reaped. Linux carries a process's high-water RSS across fork and exec, so a command forked
#: straight from a large pytest worker (an xdist worker holds every test module) would
#: report the worker's size, not its own.
MEASURE = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[2:])\n"
    "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "open(sys.argv[1], 'w').write(str(peak))\n"
    "sys.exit(code)\n"
)


def run_palconf(
    argv: list[str], tmp: Path, timeout: float = 90, *, measure: bool = False
) -> tuple[int, bytes, bytes, float]:
    """Run a `palconf` command: its exit status, stdout, stderr, and peak memory in MB (of it
    and of the engines it reaped: their ru_maxrss; with `measure`, from a small parent)."""
    peak_file = tmp / "peak-kb"
    if measure:
        argv = [sys.executable, "-c", MEASURE, str(peak_file), *argv]
    with open(tmp / "stdout", "wb") as out, open(tmp / "stderr", "wb") as err:
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=tmp)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak = int(peak_file.read_text()) / 1024 if peak_file.is_file() else usage.ru_maxrss / 1024
    return proc.returncode, (tmp / "stdout").read_bytes(), (tmp / "stderr").read_bytes(), peak


def check_clean(out: bytes, err: bytes) -> tuple[str, str]:
    """No traceback, no raw control character, and strict UTF-8 (nothing was written that
    could not be encoded, such as a lone surrogate): the output as text."""
    both = out + err
    assert b"Traceback" not in both, err.decode(errors="replace")[-3000:]
    for raw in RAW:
        assert raw not in both, (raw, both[:3000])
    return out.decode("utf-8"), err.decode("utf-8")


def rows(names: list[str]) -> list[Any]:
    """The table's rows as parameters: those without `fast = true` marked slow."""
    return [pytest.param(n, marks=() if TABLE[n].get("fast") else SLOW) for n in names]


def test_the_table_covers_every_kind_and_at_least_26_broken_engines() -> None:
    sys.path.insert(0, str(ENGINES))
    try:
        from fake import KINDS
    finally:
        sys.path.remove(str(ENGINES))
    assert {row["kind"] for row in TABLE.values()} == set(KINDS)
    broken = [name for name in TABLE if name != "ok"]
    assert len(broken) >= 26, broken
    for name, row in TABLE.items():
        assert row["outcome"] in ("pass", "fail", "error", "timeout", "none"), name
        assert isinstance(row["run_exit"], int), name


@pytest.mark.parametrize("name", rows(list(TABLE)))
def test_palconf_run_shows_what_the_table_says(
    name: str, small: tuple[Path, list[Case]], tmp_path: Path
) -> None:
    row = TABLE[name]
    if row.get("linux") and not LINUX:
        pytest.skip("Linux only")
    folder, cases = small
    target = cases[2]
    results = tmp_path / "r.jsonl"
    argv = [*PALCONF, "run", "--cases", str(folder), "--results", str(results)]
    argv += ["--timeout", "1", "--engine-cmd", fake_cmd(row, target, tmp_path)]
    if row.get("report"):
        argv += ["--report", str(tmp_path / "report")]
    try:
        status, stdout, stderr, peak = run_palconf(argv, tmp_path, measure="max_rss_mb" in row)
    finally:
        left = left_behind(tmp_path / "pids")
    assert not left, f"left behind: {left}"
    out, err = check_clean(stdout, stderr)
    assert status == row["run_exit"], out[-2000:] + err[-2000:]
    assert peak < row.get("max_rss_mb", 1e9), f"{peak:.0f} MB"
    starts = [line for line in (tmp_path / "pids").read_text().splitlines() if " " not in line]
    assert len(starts) == 1 + row.get("restarts", 0)

    if row["outcome"] == "none":  # the engine did not start: no case ran
        assert not results.exists() or read_results(results) == []
        for words in fragments(row["message"]):
            assert words in err
        return
    rows = read_results(results)
    assert sorted(r["id"] for r in rows) == sorted(c.id for c in cases)  # each case, once
    got = {r["id"]: r for r in rows}
    armed = got[target.id]
    if row.get("at", "act") in UNARMED:
        assert all(r["outcome"] == row["outcome"] for r in rows)
    else:
        assert armed["outcome"] == row["outcome"], armed
        others = row.get("others", "pass")
        assert all(r["outcome"] == others for i, r in got.items() if i != target.id)
    for words in fragments(row.get("message")):
        assert words in armed["message"]
    if "message_json" in row:
        assert json.loads(row["message_json"]) in armed["message"]  # nothing lost
    if "stderr" in row:
        assert len(armed["stderr"]) <= STDERR_LIMIT + 100
    for words in fragments(row.get("stderr")):
        assert words in armed["stderr"]
    if armed["outcome"] != "pass":  # its block, or (alike others before it) its group's ids
        alike = [
            line.removeprefix("  alike: ").split(", ")
            for line in out.splitlines()
            if line.startswith("  alike: ")
        ]
        assert f"{armed['outcome'].upper()} {target.id}" in out or any(
            target.id in ids for ids in alike
        )
    for words in fragments(row.get("shown")):
        assert words in out
    if row.get("report"):
        written = [p for p in (tmp_path / "report").rglob("*") if p.is_file()]
        assert any(p.name == "index.html" for p in written)
        for p in written:
            data = p.read_bytes()
            data.decode("utf-8")
            assert not any(raw in data for raw in RAW), p


SMOKE = [name for name, row in TABLE.items() if "smoke_exit" in row]


@pytest.mark.parametrize("name", rows(SMOKE))
def test_palconf_smoke_shows_what_the_table_says(name: str, tmp_path: Path) -> None:
    row = TABLE[name]
    if row.get("linux") and not LINUX:
        pytest.skip("Linux only")
    argv = [*PALCONF, "smoke", "--timeout", "1", "--engine-cmd", fake_cmd(row, None, tmp_path)]
    try:
        status, stdout, stderr, _ = run_palconf(argv, tmp_path)
    finally:
        left = left_behind(tmp_path / "pids")
    assert not left, f"left behind: {left}"
    out, err = check_clean(stdout, stderr)
    assert status == row["smoke_exit"], out[-3000:] + err[-2000:]
    failed = [line for line in out.splitlines() if line.split()[:1] == ["FAIL"]]
    if row["smoke_exit"] == 0:
        assert not failed
        return
    named = [line for line in failed if line.split(None, 1)[1].startswith(row["smoke_fail"])]
    assert named and row["smoke_message"] in named[0], failed


# ---------------------------------------------------------------- palconf stopped mid-run


def _default_sigint() -> None:  # a test runner may ignore SIGINT; the palconf under test not
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(
    "sig,status,words",
    [
        (signal.SIGKILL, -signal.SIGKILL, ""),
        pytest.param(signal.SIGTERM, 128 + signal.SIGTERM, "palconf: terminated", marks=SLOW),
        pytest.param(signal.SIGINT, 130, "palconf: interrupted", marks=SLOW),
    ],
)
def test_the_engine_does_not_outlive_palconf(
    small: tuple[Path, list[Case]], tmp_path: Path, sig: int, status: int, words: str
) -> None:
    """The engine hangs on the third case (--timeout 60); palconf is stopped: the engine is
    gone within 2 s. After SIGKILL only the kernel can do it (PR_SET_PDEATHSIG)."""
    if sig == signal.SIGKILL and not LINUX:
        pytest.skip("Linux only: PR_SET_PDEATHSIG")
    folder, cases = small
    results = tmp_path / "r.jsonl"
    cmd = fake_cmd({"kind": "hang"}, cases[2], tmp_path)
    argv = [*PALCONF, "run", "--cases", str(folder), "--results", str(results)]
    argv += ["--timeout", "60", "--engine-cmd", cmd]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        preexec_fn=_default_sigint,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and proc.poll() is None:
            if results.exists() and len(read_results(results)) >= 2:
                break
            time.sleep(0.01)
        time.sleep(0.2)  # the third case's `act` is sent, the engine hangs on it
        assert proc.poll() is None, "palconf ended before it could be stopped"
        engine = int((tmp_path / "pids").read_text().split()[0])
        assert not gone(engine)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
        stopped = time.monotonic()
        while not gone(engine) and time.monotonic() - stopped < 2:
            time.sleep(0.01)
        assert gone(engine), "the engine outlived palconf"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        left = left_behind(tmp_path / "pids", wait=0)
    assert not left
    assert proc.returncode == status, err.decode(errors="replace")[-2000:]
    if words:
        text = err.decode()
        assert words in text and "Traceback" not in text
        assert len(read_results(results)) == 2  # the results so far stand
