"""The subprocess adapter (palconf/adapter.py) on its own, against real child processes: the
oracle as `palconf serve` and tiny scripted engines that misbehave on purpose."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from palconf.core import EngineCrash, EngineFault, EngineTimeout, ProtocolViolation
from palconf.engines import process as adapter
from palconf.engines.process import EngineCommandError, ProcessEngine, split_command

from .harness import SERVE_ARGV, gone, script

# ---------------------------------------------------------------- the adapter on its own


def test_requests_against_palconf_serve() -> None:
    with ProcessEngine(SERVE_ARGV) as engine:
        assert engine.info.name == "palconf-oracle" and "taunt" in engine.info.keywords
        assert engine.request({"cmd": "observe"})["error"] == "no-game"
        state = {"players": {"A": {"life": 5}, "B": {"life": 5}}}
        assert engine.request({"cmd": "setup", "state": state}) == {"ok": True}
        assert engine.request({"cmd": "observe"})["state"]["turn"] == 1
        assert engine.request_line(b"{nope", "bad")["error"] == "bad-json"
        assert not engine.broken


def test_split_command_never_involves_a_shell() -> None:
    assert split_command("a 'b c' $HOME ~ | x") == ["a", "b c", "$HOME", "~", "|", "x"]
    for bad in ("", "   ", "'unbalanced"):
        with pytest.raises(EngineCommandError):
            split_command(bad)
    with pytest.raises(EngineCommandError, match="not found"):
        ProcessEngine(["/no/such/engine-binary"]).start()


def test_a_reply_in_pieces_is_one_reply(tmp_path: Path) -> None:
    argv = script(
        tmp_path,
        """\
        out.write(b'{"ok":'); out.flush(); time.sleep(0.05)
        out.write(b' true}\\n'); out.flush()
        """,
    )
    with ProcessEngine(argv, timeout=5) as engine:
        assert engine.request({"cmd": "setup", "state": {}}) == {"ok": True}


@pytest.mark.parametrize(
    "line,words,breaks",
    [
        (b"hello there", "is not JSON", True),
        (b"", "an empty line", True),
        (b'{"ok": NaN}', "NaN is not JSON", True),
        (b'\xff\xfe{"ok": true}', "not UTF-8", True),
        (b"[1, 2]", "does not follow the protocol", False),
        (b'{"ok": true, "state": {"turn": 1}}', "'active' is a required property", False),
    ],
)
def test_bad_replies_are_protocol_violations(
    tmp_path: Path, line: bytes, words: str, breaks: bool
) -> None:
    argv = script(tmp_path, f"out.write({line!r} + b'\\n'); out.flush()\n")
    with ProcessEngine(argv, timeout=5) as engine:
        with pytest.raises(ProtocolViolation, match=re.escape(words)):
            engine.request({"cmd": "observe"})
        assert engine.broken is breaks
        engine.restart()  # a fresh process answers again
        assert engine.starts == 2


def test_oversized_reply(tmp_path: Path) -> None:
    argv = script(
        tmp_path,
        "out.write(b'{\"ok\": true, \"pad\": \"' + b'x' * 5000 + b'\"}\\n'); out.flush()\n",
    )
    with ProcessEngine(argv, timeout=5, max_reply_bytes=1000) as engine:
        with pytest.raises(ProtocolViolation, match="over the size bound of 1000 bytes"):
            engine.request({"cmd": "act", "action": {}})
        assert engine.broken


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    argv = script(
        tmp_path,
        f"""\
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(60)
        """,
    )
    engine = ProcessEngine(argv, timeout=0.5)
    engine.start()
    started = time.monotonic()
    with pytest.raises(EngineTimeout, match="no reply within 0.5 s"):
        engine.request({"cmd": "act", "action": {}})
    assert time.monotonic() - started < 5
    deadline = time.monotonic() + 5
    ids = [int(p) for p in pids.read_text().split()]
    while not all(gone(p) for p in ids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(gone(p) for p in ids), ids
    engine.close()


def test_crash_reports_exit_status_and_stderr(tmp_path: Path) -> None:
    argv = script(tmp_path, "sys.stderr.write('dying now\\n'); sys.exit(7)\n")
    with ProcessEngine(argv) as engine:
        with pytest.raises(EngineCrash, match="exited with status 7 while answering `act`") as e:
            engine.request({"cmd": "act", "action": {}})
        assert "dying now" in e.value.stderr
    argv = script(tmp_path, "os.kill(os.getpid(), signal.SIGSEGV)\n", "segv.py")
    with ProcessEngine(argv) as engine:
        with pytest.raises(EngineCrash, match="killed by SIGSEGV"):
            engine.request({"cmd": "observe"})


def test_output_nobody_asked_for(tmp_path: Path) -> None:
    argv = script(
        tmp_path, "send({'ok': True}); time.sleep(0.05); out.write(b'log line\\n'); out.flush()\n"
    )
    with ProcessEngine(argv) as engine:
        engine.request({"cmd": "setup", "state": {}})
        time.sleep(0.5)
        with pytest.raises(ProtocolViolation, match="without a request.*log line"):
            engine.request({"cmd": "observe"})
        assert engine.broken


def test_stderr_is_drained_and_bounded(tmp_path: Path) -> None:
    """1 MB of stderr before a reply: undrained, the engine would block on a full pipe."""
    argv = script(
        tmp_path,
        """\
        sys.stderr.write("x" * 1_000_000 + "THE END"); sys.stderr.flush()
        send({"ok": True})
        """,
    )
    with ProcessEngine(argv, timeout=5, stderr_limit=4096) as engine:
        engine.request({"cmd": "setup", "state": {}})
        time.sleep(0.2)
        text = engine.take_stderr()
        assert text.startswith("[…") and "bytes of stderr dropped" in text
        assert text.endswith("THE END") and len(text) < 4096 + 100
        assert engine.take_stderr() == ""


def test_close_says_bye_and_kills_an_engine_that_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "log"
    argv = script(
        tmp_path,
        f"""\
        open({str(log)!r}, "a").write(req["cmd"] + " " + str(os.getpid()) + "\\n")
        send({{"ok": True}})
        if req["cmd"] == "bye" and {"stay"!r} in sys.argv:
            time.sleep(60)
        if req["cmd"] == "bye":
            break
        """,
        bye=False,
    )
    engine = ProcessEngine(argv)
    engine.start()
    engine.close()
    assert log.read_text().split()[0] == "bye"
    assert gone(int(log.read_text().split()[1]))
    monkeypatch.setattr(adapter, "BYE_GRACE", 0.3)
    log.unlink()
    engine = ProcessEngine(argv + ["stay"])
    engine.start()
    started = time.monotonic()
    engine.close()
    assert time.monotonic() - started < 3
    assert gone(int(log.read_text().split()[1]))


@pytest.mark.parametrize(
    "hello,words",
    [
        ('{"ok": true, "engine": {"name": "x", "version": "1"}}', "'keywords' is a required"),
        ('{"ok": false, "error": "unsupported", "message": "v2 only"}', "refused `hello`"),
        ("not json", "is not JSON"),
    ],
)
def test_bad_hello(tmp_path: Path, hello: str, words: str) -> None:
    path = tmp_path / "hello.py"
    path.write_text(
        f"import sys\nsys.stdin.readline()\nprint({hello!r}, flush=True)\nsys.stdin.readline()\n"
    )
    with pytest.raises(EngineFault, match=words):
        ProcessEngine([sys.executable, str(path)]).start()
