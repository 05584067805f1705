"""The engine process as a process (palconf/adapter.py, palconf/processes.py, the console entry
in palconf/cli.py): an exit is seen at once even when a child of the engine holds its pipes;
a kill takes the engine's whole tree; the `palconf` command adopts and kills what escaped the
tree; the engine's stderr thread always ends. Linux: elsewhere these degrade to the old
behaviour, and the tests that need Linux skip."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from palconf.cli import main
from palconf.core import EngineCrash, EngineTimeout
from palconf.engines import process as adapter
from palconf.engines import processes
from palconf.engines.process import ProcessEngine
from palconf.engines.stderr_buffer import StderrBuffer

from .harness import ROOT, gone, script

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def wait_gone(pids: list[int], within: float = 2.0) -> bool:
    deadline = time.monotonic() + within
    while not all(gone(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    return all(gone(p) for p in pids)


def pids_in(path: Path) -> list[int]:
    deadline = time.monotonic() + 5
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, "the engine never wrote its pids"
        time.sleep(0.01)
    return [int(p) for p in path.read_text().split()]


def kill_all(pids: list[int]) -> None:
    for p in pids:
        try:
            os.kill(p, 9)
        except OSError:
            pass


# ---------------------------------------------------------------- the exit, seen at once


@linux
def test_an_exit_while_a_child_holds_stdout_is_a_crash_with_its_status_at_once(
    tmp_path: Path,
) -> None:
    """Before: `timeout on act` after the whole timeout (stdout never reached end of file)."""
    pids = tmp_path / "pids"
    argv = script(
        tmp_path,
        f"""\
        child = os.fork()
        if child == 0:
            time.sleep(60); os._exit(0)
        open({str(pids)!r}, "w").write(f"{{child}}\\n")
        sys.exit(7)
        """,
    )
    with ProcessEngine(argv, timeout=10) as engine:
        started = time.monotonic()
        with pytest.raises(EngineCrash, match="exited with status 7 while answering `act`"):
            engine.request({"cmd": "act", "action": {}})
        assert time.monotonic() - started < 2
        assert wait_gone(pids_in(pids))  # the child was in the engine's process group


@linux
def test_a_reply_written_just_before_the_exit_counts(tmp_path: Path) -> None:
    argv = script(
        tmp_path,
        """\
        send({"ok": True})
        if os.fork() == 0:
            time.sleep(60); os._exit(0)
        sys.exit(9)
        """,
    )
    with ProcessEngine(argv, timeout=10) as engine:
        assert engine.request({"cmd": "setup", "state": {}}) == {"ok": True}
        started = time.monotonic()
        with pytest.raises(EngineCrash, match="exited with status 9"):
            engine.request({"cmd": "observe"})
        assert time.monotonic() - started < 2


@linux
def test_an_exit_while_palconf_is_still_writing_is_a_crash_at_once(tmp_path: Path) -> None:
    """The engine stops reading, a child keeps its stdin open, it exits: palconf's write of a
    request larger than the pipe can hold waits on the pipe, and the pidfd ends the wait."""
    path = tmp_path / "engine.py"
    path.write_text(
        "import json, os, sys, time\n"
        "sys.stdin.readline()\n"
        'print(json.dumps({"ok": True, "engine": {"name": "t", "version": "0"}, '
        '"keywords": []}), flush=True)\n'
        "if os.fork() == 0:\n"
        "    time.sleep(60); os._exit(0)\n"
        "time.sleep(0.2); sys.exit(5)\n"
    )
    with ProcessEngine([sys.executable, str(path)], timeout=10) as engine:
        started = time.monotonic()
        with pytest.raises(EngineCrash, match="exited with status 5 while receiving `big`"):
            engine.request_line(b'"' + b"x" * (4 << 20) + b'"', "big")
        assert time.monotonic() - started < 2


def test_a_partial_reply_is_named_in_the_timeout(tmp_path: Path) -> None:
    argv = script(tmp_path, "out.write(b'{\"ok\": tr'); out.flush(); time.sleep(60)\n")
    with ProcessEngine(argv, timeout=0.5) as engine:
        with pytest.raises(EngineTimeout, match=r"no reply within 0.5 s \(it had written"):
            engine.request({"cmd": "observe"})


# ---------------------------------------------------------------- the kill takes the tree


@linux
def test_a_descendant_in_a_session_of_its_own_is_killed_with_the_engine(tmp_path: Path) -> None:
    """Before: the setsid() child was out of the process group `killpg` reached, and stayed."""
    pids = tmp_path / "pids"
    argv = script(
        tmp_path,
        f"""\
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                 start_new_session=True)
        grandchild = subprocess.Popen([sys.executable, "-c", "import os, subprocess, sys, time; "
            "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
            "print(p.pid, flush=True); time.sleep(60)"], start_new_session=True,
            stdout=subprocess.PIPE, text=True)
        inner = grandchild.stdout.readline().strip()
        ids = f"{{os.getpid()}} {{child.pid}} {{grandchild.pid}} {{inner}}\\n"
        open({str(pids)!r}, "w").write(ids)
        time.sleep(60)
        """,
    )
    engine = ProcessEngine(argv, timeout=1.5)
    engine.start()
    try:
        with pytest.raises(EngineTimeout):
            engine.request({"cmd": "act", "action": {}})
        ids = pids_in(pids)
        assert len(ids) == 4
        assert wait_gone(ids), [p for p in ids if not gone(p)]
    finally:
        engine.close()
        if pids.exists():
            kill_all(pids_in(pids))


@linux
def test_an_engine_that_left_its_own_process_group_is_killed_too(tmp_path: Path) -> None:
    """Before: `killpg` found the group empty, the engine went on, `_kill` waited 5 s."""
    pids = tmp_path / "pids"
    argv = script(
        tmp_path,
        f"""\
        os.setpgid(0, os.getpgid(os.getppid()))  # into palconf's own group
        open({str(pids)!r}, "w").write(f"{{os.getpid()}}\\n")
        time.sleep(60)
        """,
    )
    engine = ProcessEngine(argv, timeout=0.5)
    engine.start()
    try:
        started = time.monotonic()
        with pytest.raises(EngineTimeout):
            engine.request({"cmd": "act", "action": {}})
        assert time.monotonic() - started < 2
        assert wait_gone(pids_in(pids))
    finally:
        engine.close()
        kill_all(pids_in(pids))


def test_close_ends_the_input_so_an_engine_waiting_for_it_exits_by_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine that answers `bye` but stops only at the end of its input."""
    log = tmp_path / "log"
    path = tmp_path / "engine.py"
    path.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        '    print(json.dumps({"ok": True, "engine": {"name": "t", "version": "0"}, '
        '"keywords": []}), flush=True)\n'
        f"open({str(log)!r}, 'w').write('end of input\\n')\n"
    )
    monkeypatch.setattr(adapter, "BYE_GRACE", 3.0)
    engine = ProcessEngine([sys.executable, str(path)])
    engine.start()
    started = time.monotonic()
    engine.close()
    assert time.monotonic() - started < 1.5
    assert log.read_text() == "end of input\n"  # it ended by itself, not killed


# ---------------------------------------------------------------- the stderr thread


def test_the_stderr_thread_ends_even_when_the_pipe_stays_open() -> None:
    """Before: a process out of reach that holds the engine's stderr kept the thread (and the
    descriptor) forever."""
    r, w = os.pipe()
    buffer = StderrBuffer(os.fdopen(r, "rb", buffering=0), 1000)
    try:
        os.write(w, b"last words\n")
        buffer.finish(0.2)
        assert not buffer.thread.is_alive()
        assert buffer.take() == "last words\n"
        buffer.finish(0.2)  # idempotent
    finally:
        os.close(w)


def test_take_has_everything_the_pipe_holds_however_far_behind_the_thread_is() -> None:
    """What an engine wrote to stderr before its reply belongs to that case. Before: `take`
    handed over only what the thread had read so far, and the rest went to the next case."""
    r, w = os.pipe()
    buffer = StderrBuffer(os.fdopen(r, "rb", buffering=0), 1000)
    try:
        for n in range(50):
            os.write(w, b"x" * 100 + f"THE END {n}".encode())
            assert buffer.take().endswith(f"THE END {n}")
    finally:
        os.close(w)
        buffer.finish(0.5)


# ---------------------------------------------------------------- the `palconf` command


def test_the_console_command_is_the_entry_function() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["scripts"]["palconf"] == "palconf.cli:entry"


@linux
def test_main_in_process_does_not_make_this_process_a_subreaper() -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert main(["run", "--case", "no-such-case-*"]) == 2
    assert not processes.is_subreaper()


@linux
def test_kill_tree_stops_a_tree_that_keeps_forking(tmp_path: Path) -> None:
    """A shell loop that forks all the time: every process found is stopped before the next
    look, so the kill gets them all."""
    proc = subprocess.Popen(
        ["/bin/sh", "-c", "while true; do sleep 30 & done"],
        process_group=0,
        stdout=subprocess.DEVNULL,
    )
    try:
        time.sleep(0.3)
        found = processes.kill_tree(proc.pid)
        proc.wait(timeout=5)
        assert found and wait_gone(sorted(found))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_pidfd_reports_the_exit() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.2)"])
    fd = processes.open_pidfd(proc.pid)
    try:
        if fd is None:
            pytest.skip("no pidfd on this system")
        poll = select.poll()
        poll.register(fd, select.POLLIN)
        assert poll.poll(0) == []
        assert poll.poll(5000)
    finally:
        proc.wait()
        if fd is not None:
            os.close(fd)
