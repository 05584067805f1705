"""The subprocess adapter, the restart policy, results that survive a kill, expectations files
and `palconf smoke`, against real child processes: the oracle (`palconf serve`), the worked
example engine, and a deliberately broken engine (tests/engines/broken.py)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, Iterator

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf import adapter
from palconf.schemacheck import Compiler
from palconf.adapter import (EngineCommandError, ProcessEngine, SchemaCompileError,
                             check_reply_shape, fast_check, json_validator, schema_documents,
                             split_command)
from palconf.cases import Case, load_cases
from palconf.cli import main
from palconf.engines import (Engine, EngineCrash, EngineFault, EngineInfo, EngineTimeout,
                             OracleEngine, ProtocolViolation)
from palconf.expectations import Entry, Expectations, ExpectationsError
from palconf.runner import Result, RunStopped, run_cases

ROOT = Path(__file__).resolve().parent.parent
ENGINES = Path(__file__).resolve().parent / "engines"
BROKEN = ENGINES / "broken.py"
EXAMPLE = ROOT / "docs" / "engine-example.py"
PY = shlex.quote(sys.executable)
SERVE = f"{PY} -m palconf.cli serve"
SERVE_ARGV = [sys.executable, "-m", "palconf.cli", "serve"]

sys.path.insert(0, str(ENGINES))
from broken import fingerprint  # noqa: E402


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def all_cases() -> list[Case]:
    return load_cases()


@pytest.fixture(scope="module")
def oracle_results(all_cases: list[Case]) -> list[Result]:
    with OracleEngine() as engine:
        return list(run_cases(engine, all_cases))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory, all_cases: list[Case],
          oracle_results: list[Result]) -> tuple[Path, list[Case]]:
    """Six base cases with actions that pass on the oracle, in a folder of their own (so
    that a run loads six files, not the whole suite)."""
    passing = {r.id for r in oracle_results if r.outcome == "pass"}
    chosen = [c for c in all_cases if c.path.startswith("base") and c.actions
              and c.id in passing][:6]
    assert len(chosen) == 6
    folder = folder_of(chosen, tmp_path_factory.mktemp("cases"))
    return folder, load_cases(folder)


def folder_of(cases: list[Case], tmp: Path) -> Path:
    for c in cases:
        (tmp / c.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "cases" / c.path, tmp / c.path)
    return tmp


def broken(mode: str, *, on: Case | None = None, at: str = "act", **opts: Path) -> str:
    cmd = f"{PY} {shlex.quote(str(BROKEN))} {mode} --at {at}"
    if on is not None:
        cmd += f" --on {fingerprint(on.setup)}"
    for name, value in opts.items():
        cmd += f" --{name} {shlex.quote(str(value))}"
    return cmd


def run_cli(folder: Path, engine_cmd: str | None, results: Path, *extra: str) -> int:
    argv = ["run", "--cases", str(folder), "--results", str(results), *extra]
    if engine_cmd is not None:
        argv += ["--engine-cmd", engine_cmd]
    return main(argv)


def read_results(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if set(r) != {"meta"}]


def gone(pid: int) -> bool:
    """The process has ended (a zombie left for a non-reaping init counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def script(tmp_path: Path, body: str, name: str = "engine.py", bye: bool = True) -> list[str]:
    """A tiny engine: answers hello (and bye, unless told not to), then runs `body` for each
    other request (`req`; `send(obj)` or `out.write(bytes)` to answer)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent("""\
        import json, os, sys, time, signal, subprocess
        out = sys.stdout.buffer
        def send(obj):
            out.write(json.dumps(obj).encode() + b"\\n"); out.flush()
        for line in sys.stdin.buffer:
            req = json.loads(line)
            if req["cmd"] == "hello":
                send({"ok": True, "engine": {"name": "t", "version": "0"}, "keywords": [],
                      "commands": ["setup", "act", "observe"]})
                continue
            if req["cmd"] == "bye" and BYE:
                send({"ok": True})
                break
        """).replace("BYE", str(bye)) + textwrap.indent(textwrap.dedent(body), "    "))
    return [sys.executable, str(path)]


# ---------------------------------------------------------------- schemas

def test_schemas_are_valid_and_compile() -> None:
    docs = schema_documents()
    for cmd in ("hello", "setup", "act", "observe", "legal", "bye"):
        assert f"{cmd}.request" in docs and f"{cmd}.response" in docs
    for name, doc in docs.items():
        jsonschema.Draft202012Validator.check_schema(doc)
        assert callable(fast_check(name))


def test_fast_check_refuses_keywords_it_does_not_implement() -> None:
    docs = {"x": {"$id": adapter.SCHEMA_BASE + "x.json", "type": "object", "maxProperties": 1}}
    with pytest.raises(SchemaCompileError, match="maxProperties"):
        Compiler(docs, adapter.SCHEMA_BASE).compile(docs["x"], "x")


@pytest.fixture(scope="module")
def traffic(all_cases: list[Case]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every request of a whole run on the oracle, with its reply."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []

    class Recording(OracleEngine):
        def request(self, msg: dict[str, Any]) -> dict[str, Any]:
            reply = super().request(msg)
            pairs.append((msg, reply))
            return reply

    with Recording() as engine:
        list(run_cases(engine, all_cases))
    return pairs


def test_the_oracle_traffic_follows_the_schemas(traffic: list[tuple[dict[str, Any],
                                                                    dict[str, Any]]]) -> None:
    """What the harness sends and what the oracle answers, over the whole suite, is valid:
    requests by jsonschema, replies by the fast check (and a sample by jsonschema too)."""
    assert {m["cmd"] for m, _ in traffic} == {"setup", "act", "observe"}
    for msg, reply in traffic:
        assert fast_check(f"{msg['cmd']}.request")(msg), msg
        assert fast_check(f"{msg['cmd']}.response")(reply), (msg, reply)
    setups = [m for m, _ in traffic if m["cmd"] == "setup"]
    for msg in setups[::5]:
        assert json_validator("setup.request").is_valid(msg)
    for msg, reply in traffic[::25]:
        assert json_validator(f"{msg['cmd']}.response").is_valid(reply), (msg, reply)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(
    [1.0, 2.5, "A", "B", "main", "illegal", "x", "a1", "", "master", "stand"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["ok", "state", "zone", "x", "error", "reason"]), inner, max_size=3),
    max_leaves=6)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated(draw: st.DrawFn, traffic: list[tuple[dict[str, Any], dict[str, Any]]]
            ) -> tuple[str, Any]:
    """A real message (a request or a reply) with one part deleted, replaced or added."""
    msg, reply = draw(st.sampled_from(traffic))
    name, value = draw(st.sampled_from([(f"{msg['cmd']}.request", msg),
                                        (f"{msg['cmd']}.response", reply)]))
    value = json.loads(json.dumps(value))
    path = draw(st.sampled_from(list(_paths(value))))
    how = draw(st.sampled_from(["delete", "replace", "add"]))
    new = draw(JSON)
    if not path:
        return name, new
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "delete":
        del parent[last]
    elif how == "replace":
        parent[last] = new
    elif isinstance(parent[last], dict):
        parent[last][draw(st.sampled_from(["x", "ok", "zone", "power", "extra"]))] = new
    elif isinstance(parent[last], list):
        parent[last].append(new)
    else:
        parent[last] = new
    return name, value


def test_fast_check_agrees_with_jsonschema(traffic: list[tuple[dict[str, Any],
                                                               dict[str, Any]]]) -> None:
    """The compiled checks say yes exactly when jsonschema does, on mutated real messages."""
    sample = traffic[::7]

    @settings(max_examples=400, deadline=None)
    @given(mutated(sample))
    def agree(case: tuple[str, Any]) -> None:
        name, value = case
        assert fast_check(name)(value) == json_validator(name).is_valid(value), (name, value)

    agree()


@pytest.mark.parametrize("cmd,reply,words", [
    ("act", {"ok": False, "error": "illegal"}, "'reason' is a required property"),
    ("act", {"ok": False, "error": "illegal", "reason": "nope"}, "reason"),
    ("act", {"ok": "yes"}, "ok"),
    ("observe", {"ok": True, "state": {}}, "required"),
    ("setup", {"ok": False, "error": "oops"}, "error"),
    ("made-up", {"ok": 1}, "ok"),
])
def test_check_reply_shape_says_what_is_wrong(cmd: str, reply: Any, words: str) -> None:
    problem = check_reply_shape(cmd, reply)
    assert problem is not None and words in problem


def test_check_reply_shape_accepts_extra_fields_and_true_is_not_one() -> None:
    assert check_reply_shape("act", {"ok": True, "extra": [1]}) is None
    assert check_reply_shape("made-up", {"ok": True}) is None
    assert check_reply_shape("act", {"ok": 1}) is not None


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
    argv = script(tmp_path, """\
        out.write(b'{"ok":'); out.flush(); time.sleep(0.05)
        out.write(b' true}\\n'); out.flush()
        """)
    with ProcessEngine(argv, timeout=5) as engine:
        assert engine.request({"cmd": "setup", "state": {}}) == {"ok": True}


@pytest.mark.parametrize("line,words,breaks", [
    (b"hello there", "is not JSON", True),
    (b"", "an empty line", True),
    (b'{"ok": NaN}', "NaN is not JSON", True),
    (b'\xff\xfe{"ok": true}', "not UTF-8", True),
    (b"[1, 2]", "does not follow the protocol", False),
    (b'{"ok": true, "state": {"turn": 1}}', "'active' is a required property", False),
])
def test_bad_replies_are_protocol_violations(tmp_path: Path, line: bytes, words: str,
                                             breaks: bool) -> None:
    argv = script(tmp_path, f"out.write({line!r} + b'\\n'); out.flush()\n")
    with ProcessEngine(argv, timeout=5) as engine:
        with pytest.raises(ProtocolViolation, match=re.escape(words)):
            engine.request({"cmd": "observe"})
        assert engine.broken is breaks
        engine.restart()  # a fresh process answers again
        assert engine.starts == 2


def test_oversized_reply(tmp_path: Path) -> None:
    argv = script(tmp_path, "out.write(b'{\"ok\": true, \"pad\": \"' + b'x' * 5000 + b'\"}\\n');"
                            " out.flush()\n")
    with ProcessEngine(argv, timeout=5, max_reply_bytes=1000) as engine:
        with pytest.raises(ProtocolViolation, match="over the size bound of 1000 bytes"):
            engine.request({"cmd": "act", "action": {}})
        assert engine.broken


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    argv = script(tmp_path, f"""\
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pids)!r}, "w").write(f"{{os.getpid()}} {{child.pid}}")
        time.sleep(60)
        """)
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
    argv = script(tmp_path, "send({'ok': True}); time.sleep(0.05); out.write(b'log line\\n');"
                            " out.flush()\n")
    with ProcessEngine(argv) as engine:
        engine.request({"cmd": "setup", "state": {}})
        time.sleep(0.5)
        with pytest.raises(ProtocolViolation, match="without a request.*log line"):
            engine.request({"cmd": "observe"})
        assert engine.broken


def test_stderr_is_drained_and_bounded(tmp_path: Path) -> None:
    """1 MB of stderr before a reply: undrained, the engine would block on a full pipe."""
    argv = script(tmp_path, """\
        sys.stderr.write("x" * 1_000_000 + "THE END"); sys.stderr.flush()
        send({"ok": True})
        """)
    with ProcessEngine(argv, timeout=5, stderr_limit=4096) as engine:
        engine.request({"cmd": "setup", "state": {}})
        time.sleep(0.2)
        text = engine.take_stderr()
        assert text.startswith("[…") and "bytes of stderr dropped" in text
        assert text.endswith("THE END") and len(text) < 4096 + 100
        assert engine.take_stderr() == ""


def test_close_says_bye_and_kills_an_engine_that_stays(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "log"
    argv = script(tmp_path, f"""\
        open({str(log)!r}, "a").write(req["cmd"] + " " + str(os.getpid()) + "\\n")
        send({{"ok": True}})
        if req["cmd"] == "bye" and {"stay"!r} in sys.argv:
            time.sleep(60)
        if req["cmd"] == "bye":
            break
        """, bye=False)
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


@pytest.mark.parametrize("hello,words", [
    ('{"ok": true, "engine": {"name": "x", "version": "1"}}', "'keywords' is a required"),
    ('{"ok": false, "error": "unsupported", "message": "v2 only"}', "refused `hello`"),
    ('not json', "is not JSON"),
])
def test_bad_hello(tmp_path: Path, hello: str, words: str) -> None:
    path = tmp_path / "hello.py"
    path.write_text(f"import sys\nsys.stdin.readline()\nprint({hello!r}, flush=True)\n"
                    f"sys.stdin.readline()\n")
    with pytest.raises(EngineFault, match=words):
        ProcessEngine([sys.executable, str(path)]).start()


# ---------------------------------------------------------------- restart policy (in-process)

class Flaky(Engine):
    """The oracle, except that it crashes (and needs a restart) on chosen cases."""

    def __init__(self, crash_on: set[str], failing_starts: int = 0,
                 keywords: frozenset[str] | None = None) -> None:
        self.oracle = OracleEngine()
        self.keywords = keywords
        self.crash_on = crash_on
        self.failing_starts = failing_starts
        self.starts = 0
        self.broken = False

    def start(self) -> EngineInfo:
        self.starts += 1
        if self.starts > 1 and self.failing_starts:
            self.failing_starts -= 1
            raise EngineCrash("exited at hello")
        self.broken = False
        self.info = self.oracle.start()
        if self.keywords is not None:
            self.info = EngineInfo("flaky", "0", self.keywords)
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        if msg["cmd"] == "setup" and fingerprint(msg["state"]) in self.crash_on:
            self.broken = True
            raise EngineCrash("boom")
        return self.oracle.request(msg)


def outcomes(engine: Engine, cases: list[Case], **kw: Any) -> list[str]:
    engine.start()
    return [r.outcome for r in run_cases(engine, cases, **kw)]


def test_a_crash_restarts_the_engine_and_the_run_goes_on(small: tuple[Path, list[Case]]
                                                         ) -> None:
    _, cases = small
    engine = Flaky({fingerprint(cases[1].setup)})
    assert outcomes(engine, cases) == ["pass", "error"] + ["pass"] * 4
    assert engine.starts == 2


def test_too_many_restarts_in_a_row_stop_the_run(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(c.setup) for c in cases})
    engine.start()
    seen: list[str] = []
    with pytest.raises(RunStopped, match="3 time\\(s\\) in a row"):
        for r in run_cases(engine, cases, max_restarts=2):
            seen.append(r.outcome)
    assert seen == ["error"] * 3 and engine.starts == 3


def test_a_completed_case_resets_the_count(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(cases[i].setup) for i in (0, 1, 3, 4)})
    assert outcomes(engine, cases, max_restarts=2) == ["error", "error", "pass",
                                                       "error", "error", "pass"]


def test_a_failed_restart_is_tried_again(small: tuple[Path, list[Case]]) -> None:
    _, cases = small
    engine = Flaky({fingerprint(cases[0].setup)}, failing_starts=2)
    assert outcomes(engine, cases, max_restarts=3) == ["error"] + ["pass"] * 5
    assert engine.starts == 4
    engine = Flaky({fingerprint(cases[0].setup)}, failing_starts=5)
    engine.start()
    with pytest.raises(RunStopped, match="restarting: exited at hello"):
        list(run_cases(engine, cases, max_restarts=3))


def test_skipped_cases_need_no_restart(small: tuple[Path, list[Case]],
                                       all_cases: list[Case]) -> None:
    _, cases = small
    known = frozenset().union(*(c.needs for c in cases))
    keyworded = [c for c in all_cases if not c.needs <= known][:2]
    engine = Flaky({fingerprint(cases[0].setup)}, keywords=known)
    assert outcomes(engine, [cases[0], *keyworded]) == ["error", "skip", "skip"]
    assert engine.starts == 1  # the skips needed no engine
    assert outcomes(engine, [cases[0], *keyworded, cases[1]]) == ["error", "skip", "skip",
                                                                  "pass"]
    assert engine.starts == 3  # restarted once for the last case


# ---------------------------------------------------------------- faults, end to end

@pytest.mark.parametrize("mode,at,outcome,words", [
    ("crash", "act", "error", "exited with status 3 while answering `act`"),
    ("hang", "act", "timeout", "no reply within 0.5 s"),
    ("garbage", "act", "error", "is not JSON"),
    ("oversized", "act", "error", "over the size bound of 1048576 bytes"),
    ("wrong-shape", "observe", "error", "state: 'cards' is a required property"),
    ("wrong-shape", "act", "error", "does not follow the protocol"),
    ("junk", "act", "error", "DEBUG: got a request"),
    ("junk-after", "act", "error", "DEBUG: answered"),
    ("crash-then-bad-hello", "act", "error", "exited with status 3"),
])
def test_each_fault_spoils_one_case_only(small: tuple[Path, list[Case]], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str], mode: str, at: str,
                                         outcome: str, words: str) -> None:
    folder, cases = small
    target = cases[2]
    pids = tmp_path / "pids"
    cmd = broken(mode, on=target, at=at, marker=tmp_path / "marker", pidfile=pids)
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, cmd, results, "--timeout", "0.5") == 1
    rows = {r["id"]: r for r in read_results(results)}
    assert set(rows) == {c.id for c in cases}  # the run completed
    assert rows[target.id]["outcome"] == outcome
    assert words in rows[target.id]["message"]
    assert all(r["outcome"] == "pass" for i, r in rows.items() if i != target.id)
    out = capsys.readouterr()
    assert f"{outcome.upper()} {target.id}" in out.out and "Traceback" not in out.err
    started = [int(p) for p in pids.read_text().split()]
    # a restart after each fault that leaves the stream unusable (not after a wrong shape)
    assert len(started) == {"crash-then-bad-hello": 3, "wrong-shape": 1}.get(mode, 2)
    assert all(gone(p) for p in started)  # palconf leaves no engine behind


def test_stderr_chatter_is_kept_bounded_and_harmless(small: tuple[Path, list[Case]],
                                                     tmp_path: Path) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, broken("stderr", on=cases[1]), results) == 0
    rows = {r["id"]: r for r in read_results(results)}
    assert all(r["outcome"] == "pass" for r in rows.values())
    noisy = rows[cases[1].id]["stderr"]
    assert "chatter" in noisy and "dropped" in noisy and len(noisy) <= adapter.STDERR_LIMIT + 100
    assert all("stderr" not in r for i, r in rows.items() if i != cases[1].id)


def test_an_engine_that_exits_at_hello(small: tuple[Path, list[Case]], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    folder, _ = small
    assert run_cli(folder, broken("exit-at-hello"), tmp_path / "r.jsonl") == 1
    err = capsys.readouterr().err
    assert "the engine did not start: the engine exited with status 4" in err
    assert "broken engine: exiting at hello" in err and "palconf smoke" in err
    assert "Traceback" not in err


def test_a_stopped_run_keeps_its_results_and_resume_finishes_it(
        small: tuple[Path, list[Case]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, broken("crash"), results, "--max-restarts", "1") == 1
    assert "the run stopped" in capsys.readouterr().err
    rows = read_results(results)
    assert [r["outcome"] for r in rows] == ["error", "error"]
    assert run_cli(folder, SERVE, results, "--resume") == 1  # the two errors stay
    rows = read_results(results)
    assert sorted(r["id"] for r in rows) == sorted(c.id for c in cases)
    assert [r["outcome"] for r in rows] == ["error"] * 2 + ["pass"] * 4


@pytest.mark.parametrize("argv,words", [
    (["--resume"], "--resume needs --results"),
    (["--update-expectations"], "needs --expectations"),
    (["--engine-cmd", ""], "empty"),
    (["--engine-cmd", "'unbalanced"], "cannot parse"),
    (["--engine-cmd", "/no/such/engine --flag"], "not found"),
    (["--expectations", "/no/such/file.toml"], "no such file"),
])
def test_bad_arguments_exit_2(small: tuple[Path, list[Case]], capsys: pytest.CaptureFixture[str],
                              argv: list[str], words: str) -> None:
    folder, _ = small
    assert main(["run", "--cases", str(folder), *argv]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--timeout", "0"], ["--timeout", "soon"],
                                  ["--max-restarts", "-1"]])
def test_bad_numbers_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", *argv])
    assert e.value.code == 2


# ---------------------------------------------------------------- the whole suite, via serve

def test_serve_gives_the_in_process_verdicts_on_every_case(
        all_cases: list[Case], oracle_results: list[Result]) -> None:
    with ProcessEngine(SERVE_ARGV) as engine:
        served = list(run_cases(engine, all_cases))
        assert engine.starts == 1  # one process for the whole run

    def key(r: Result) -> tuple[Any, ...]:
        return (r.id, r.outcome, r.message, r.step, r.diffs)

    assert len(served) == len(all_cases)
    assert [key(r) for r in served] == [key(r) for r in oracle_results]


def test_sigkill_halfway_then_resume_gives_each_case_once(
        tmp_path: Path, all_cases: list[Case], oracle_results: list[Result]) -> None:
    """120 cases, so that the two runs load fast; the engine is `palconf serve`."""
    chosen = all_cases[::max(1, len(all_cases) // 120)]
    folder = folder_of(chosen, tmp_path / "cases")
    results = tmp_path / "r.jsonl"
    argv = [sys.executable, "-m", "palconf.cli", "run", "--engine-cmd", SERVE,
            "--cases", str(folder), "--results", str(results)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    half = len(chosen) // 2
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= half:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = len(read_results(results))
    assert 0 < written < len(chosen)
    done = subprocess.run(argv + ["--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"{written} case(s) done" in done.stdout
    rows = read_results(results)
    assert sorted(r["id"] for r in rows) == sorted(c.id for c in chosen)  # each once
    expected = {r.id: r.outcome for r in oracle_results}
    assert {r["id"]: r["outcome"] for r in rows} == {c.id: expected[c.id] for c in chosen}


def test_resume_cuts_a_torn_last_line(small: tuple[Path, list[Case]], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, None, results) == 0
    lines = [line for line in results.read_text().splitlines() if '"meta"' not in line]
    results.write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])  # killed mid-line
    assert run_cli(folder, None, results, "--resume") == 0
    assert "dropped an unfinished last line" in capsys.readouterr().err
    assert sorted(r["id"] for r in read_results(results)) == sorted(c.id for c in cases)
    results.write_text(lines[0] + "\nnot json\n" + lines[1] + "\n")
    assert run_cli(folder, None, results, "--resume") == 2
    assert ":2: not a JSON line" in capsys.readouterr().err


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
    return Result(id=cid, keywords=[], clauses=[], outcome=outcome)


def test_expectations_lookup_and_judging() -> None:
    exp = Expectations.parse(EXPECT)
    assert exp.entry_for("one").outcomes == ("error", "timeout")  # exact before glob
    assert exp.entry_for("base-x").pattern == "base-*" and exp.entry_for("other") is None
    assert exp.skipped("skip-this") is not None and exp.skipped("one") is None
    table = [("base-x", "fail", "xfail", True), ("base-x", "pass", "xpass", False),
             ("base-x", "error", "error", False), ("base-x", "skip", "skip", True),
             ("one", "timeout", "xfail", True), ("other", "pass", "pass", True),
             ("other", "fail", "fail", False), ("other", "skip", "skip", True)]
    for cid, raw, shown, ok in table:
        r = result(cid, raw)
        assert exp.judge(r) is ok and r.outcome == shown, (cid, raw)
        assert exp.judge(r) is ok and r.outcome == shown  # judging twice changes nothing
    r = result("base-x", "fail")
    exp.judge(r)
    assert r.actual == "fail" and r.expected == ["fail"]
    assert r.note == "all broken <https://example.org/1>"


@pytest.mark.parametrize("text,words", [
    ('[cases.a]\nnote = "x"\n', "`outcome` is missing"),
    ('[cases.a]\noutcome = "flaky"\n', "unknown outcome"),
    ('[cases.a]\noutcome = ["skip", "fail"]\n', "cannot be listed with other"),
    ('[cases.a]\noutcome = "fail"\nbug = 1\n', "unknown field(s) bug"),
    ('[cases.a]\noutcome = []\n', "non-empty list"),
    ('[cases]\na = "fail"\n', "must be a table"),
    ('engine = "x"\n', "unknown top-level key"),
    ('[cases.a\n', "TOML syntax"),
])
def test_bad_expectations_files(text: str, words: str) -> None:
    with pytest.raises(ExpectationsError, match=re.escape(words)):
        Expectations.parse(text, "e.toml")


def test_updating_expectations() -> None:
    exp = Expectations.parse(EXPECT + '\n[cases.gone]\noutcome = "fail"\n'
                                      '\n[cases.unrun]\noutcome = "fail"\n')
    run = [result("base-1", "fail"), result("base-2", "fail"),  # the glob still holds
           result("one", "pass"),                               # fixed: its entry goes
           result("new", "timeout"),                            # a new failure
           result("skip-1", "skip"), result("fine", "pass")]
    new = exp.updated(run, known_ids=[r.id for r in run] + ["unrun"])
    assert [(e.pattern, e.outcomes) for e in new.entries] == [
        ("base-*", ("fail",)), ("skip-*", ("skip",)), ("unrun", ("fail",)),
        ("new", ("timeout",))]
    assert all(new.judge(r) for r in run)
    run[1] = result("base-2", "pass")  # the glob no longer holds: exact entries, note kept
    new = exp.updated(run)
    assert Entry("base-1", ("fail",), "all broken", "https://example.org/1") in new.entries
    assert not any(e.pattern in ("base-*", "base-2") for e in new.entries)
    assert any(e.pattern == "gone" for e in new.entries)  # no known_ids: unrun entries stay
    again = Expectations.parse(new.dumps())  # what is written reads back the same
    assert {e.pattern: e for e in again.entries} == {e.pattern: e for e in new.entries}


def test_expectations_end_to_end(small: tuple[Path, list[Case]], tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    folder, cases = small
    target, other = cases[2], cases[4]
    cmd = broken("crash", on=target)
    exp, results = tmp_path / "engine.toml", tmp_path / "r.jsonl"
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 2  # no file yet
    assert run_cli(folder, cmd, results, "--expectations", str(exp),
                   "--update-expectations") == 0
    assert Expectations.load(exp).entry_for(target.id).outcomes == ("error",)
    capsys.readouterr()
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 0
    rows = {r["id"]: r for r in read_results(results)}
    assert rows[target.id]["outcome"] == "xfail" and rows[target.id]["actual"] == "error"
    # a listed case that passes is news, and a mismatch until the file is updated
    exp.write_text(exp.read_text() + f'\n[cases.{other.id}]\noutcome = "fail"\n'
                                     f'note = "was broken"\n')
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 1
    out = capsys.readouterr().out
    assert f"XPASS {other.id}" in out and "listed as failing now pass" in out
    # a skip listing means the case is not run at all: the crash never happens
    exp.write_text(f'[cases."{target.id[:-3]}*"]\noutcome = "skip"\nnote = "hangs"\n')
    assert run_cli(folder, cmd, results, "--expectations", str(exp)) == 0
    rows = {r["id"]: r for r in read_results(results)}
    assert rows[target.id]["outcome"] == "skip" and "hangs" in rows[target.id]["message"]


# ---------------------------------------------------------------- smoke and the example engine

def smoke(cmd: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["smoke", "--engine-cmd", cmd, "--timeout", "2", *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_smoke_passes_the_oracle_and_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in (SERVE, f"{PY} {shlex.quote(str(EXAMPLE))}"):
        code, out = smoke(cmd, capsys)
        assert code == 0, out
        assert "FAIL" not in out and "ok    bye" in out


@pytest.mark.parametrize("mode,at,failing", [
    ("crash", "observe", "observe"),
    ("wrong-shape", "observe", "observe"),
    ("accept-all", "act", "refused action"),
    ("exit-at-hello", "act", "hello"),
    ("garbage", "act", "refused action"),
])
def test_smoke_names_what_is_wrong(capsys: pytest.CaptureFixture[str], mode: str, at: str,
                                   failing: str) -> None:
    code, out = smoke(broken(mode, at=at), capsys)
    assert code == 1
    assert any(line.split()[:1] == ["FAIL"] and failing in line for line in out.splitlines())
    assert "fix:" in out and "Traceback" not in out


def test_smoke_json_and_bad_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = smoke(SERVE, capsys, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and {c["status"] for c in report["checks"]} == {"ok"}
    code, out = smoke("/no/such/engine", capsys)
    assert code == 2 and "not found" in out


def test_the_example_engine_runs_the_base_cases(tmp_path: Path, all_cases: list[Case],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    chosen = [c for c in all_cases if c.keywords == ("base",)]
    chosen += [c for c in all_cases if "taunt" in c.keywords][:5]
    results = tmp_path / "r.jsonl"
    main(["run", "--engine-cmd", f"{PY} {shlex.quote(str(EXAMPLE))}", "--results", str(results),
          "--cases", str(folder_of(chosen, tmp_path / "cases"))])
    rows = read_results(results)
    assert not [r for r in rows if r["outcome"] in ("error", "timeout")]
    assert sum(r["outcome"] == "pass" for r in rows) >= 10
    taunt = [r for r in rows if "taunt" in r["keywords"]]
    assert taunt and all(r["outcome"] == "skip" and "does not implement: " in r["message"]
                         for r in taunt)
    assert any(r["outcome"] == "skip" and "unsupported" in r["message"] for r in rows)
