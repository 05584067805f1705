"""The pytest plugin's exit statuses and node ids by contract (docs/broken-input.md, 19):

- what the user must fix (an engine that cannot start, a refused or broken `hello`, broken
  case files, bad options) is pytest's usage error, 4, one message, no case run, with and
  without pytest-xdist;
- an engine's misbehaviour during a case (a reply that is no JSON value, an exception) is
  that case's error, naming the engine's reply, never palconf's TypeError: 1;
- the engine breaking past the restart limit stops the session: 1, with and without xdist;
- a bug in palconf itself is one line saying so, and 3, with and without xdist;
- a printed node id (`cases/taunt/x.toml::x`) can be given back to pytest; `--lf`/`--ff`.

Every run is a pytest process of its own (pytester's subprocess), as a user's would be.
"""

from __future__ import annotations

import math
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from palconf.core.json_read import MAX_DEPTH, loads, not_json

from .test_pytest_plugin import BROKEN_PROCESS, ORACLE, small  # noqa: F401 (a fixture)

pytest_plugins = ["pytester"]

USAGE = pytest.ExitCode.USAGE_ERROR
XDIST = [pytest.param([], id="serial"), pytest.param(["-n", "2"], id="xdist")]


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def engine_cmd(mode: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(BROKEN_PROCESS))} {mode}"


#: An in-process engine module whose misbehaviour the test chooses (PAL_KIND).
ODD_ENGINE = """
import os
from palconf.engines.oracle_engine import OracleEngine

KIND = os.environ.get("PAL_KIND", "")


class Odd(OracleEngine):
    def start(self):
        if KIND == "start-raises":
            raise OSError("no board today")
        if KIND == "start-returns-a-set":
            super().start()
            return {"palconf-oracle"}
        return super().start()

    def request(self, msg):
        reply = super().request(msg)
        if msg.get("cmd") != "observe" or "state" not in reply:
            return reply
        odd = dict(reply)
        state = odd["state"] = dict(reply["state"])
        players = state["players"] = {k: dict(v) for k, v in state["players"].items()}
        if KIND == "a-set":
            players["A"]["battle"] = set(players["A"]["battle"])
        elif KIND == "a-tuple":
            players["A"]["hand"] = tuple(players["A"]["hand"])
        elif KIND == "a-frozenset":
            state["cards"] = frozenset(state["cards"])
        elif KIND == "a-nan":
            players["A"]["life"] = float("nan")
        elif KIND == "an-object":
            state["attack"] = object()
        elif KIND == "bytes":
            state["active"] = b"A"
        elif KIND == "an-int-key":
            state["cards"] = {1: "a1"}
        elif KIND == "itself":
            state["attack"] = state
        elif KIND == "the-reply-a-set":
            return {"ok", "state"}
        return odd


def make():
    if KIND == "factory-raises":
        raise RuntimeError("cannot build the engine")
    return Odd()
"""

#: (what is wrong, the options, the environment's PAL_KIND, what the one message says)
USAGE_CASES: list[tuple[str, list[str], str, str]] = [
    (
        "command-not-found",
        ["--palconf-engine-cmd", "/no/such/engine --flag"],
        "",
        "the engine did not start: cannot start the engine: '/no/such/engine' not found",
    ),
    ("command-is-a-folder", ["--palconf-engine-cmd", "/"], "", "the engine did not start:"),
    (
        "command-not-executable",
        ["--palconf-engine-cmd", "./not-executable"],
        "",
        "the engine did not start:",
    ),
    (
        "exit-at-hello",
        ["--palconf-engine-cmd", engine_cmd("exit-at-hello")],
        "",
        "the engine did not start: the engine exited with status 4 while answering `hello`",
    ),
    (
        "hello-refused",
        ["--palconf-engine-cmd", engine_cmd("hello-wrong-version")],
        "",
        "the engine did not start:",
    ),
    (
        "hello-no-name",
        ["--palconf-engine-cmd", engine_cmd("hello-no-name")],
        "",
        "the engine did not start:",
    ),
    (
        "hello-deep",
        ["--palconf-engine-cmd", engine_cmd("deep-at-hello")],
        "",
        "the engine did not start:",
    ),
    (
        "hello-hangs",
        ["--palconf-engine-cmd", engine_cmd("hang-hello"), "--palconf-timeout", "0.5"],
        "",
        "the engine did not start:",
    ),
    (
        "factory-raises",
        ["--palconf-engine", "odd_engine:make"],
        "factory-raises",
        "the engine did not start: the engine factory odd_engine:make raised RuntimeError",
    ),
    (
        "start-raises",
        ["--palconf-engine", "odd_engine:make"],
        "start-raises",
        "the engine did not start: the engine raised OSError in start(): no board today",
    ),
    (
        "start-returns-a-set",
        ["--palconf-engine", "odd_engine:make"],
        "start-returns-a-set",
        "the engine's start() must return its EngineInfo",
    ),
    ("broken-case-file", ["--palconf-engine", ORACLE], "", "taunt/taunt-broken.toml:2: title:"),
    ("case-file-not-toml", ["--palconf-engine", ORACLE], "", "taunt/taunt-not-toml.toml:1"),
    ("no-engine", [], "", "--palconf needs exactly one engine"),
    ("bad-timeout", ["--palconf-engine", ORACLE, "--palconf-timeout", "nan"], "", "more than 0"),
    (
        "bad-expectations",
        ["--palconf-engine", ORACLE, "--palconf-expectations", "exp.toml"],
        "",
        "unknown outcome(s) 'sometimes'",
    ),
]


@pytest.mark.parametrize("more", XDIST)
@pytest.mark.parametrize(
    ("kind", "options", "env", "message"), USAGE_CASES, ids=[c[0] for c in USAGE_CASES]
)
def test_what_the_user_must_fix_is_a_usage_error_before_any_case(
    pytester: pytest.Pytester,
    small: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    options: list[str],
    env: str,
    message: str,
    more: list[str],
) -> None:
    (pytester.path / "odd_engine.py").write_text(ODD_ENGINE, encoding="utf-8")
    (pytester.path / "not-executable").write_text("#!/bin/sh\n", encoding="utf-8")
    (pytester.path / "exp.toml").write_text('[cases.x]\noutcome = "sometimes"\n')
    if kind == "broken-case-file":
        (small / "taunt" / "taunt-broken.toml").write_text('id = "taunt-broken"\ntitle = 3\n')
    if kind == "case-file-not-toml":
        (small / "taunt" / "taunt-not-toml.toml").write_text("id = = 1\n")
    monkeypatch.setenv("PAL_KIND", env)
    result = run(pytester, "--palconf", f"--palconf-cases={small}", *options, *more)
    err, out = result.stderr.str(), result.stdout.str()
    assert result.ret == USAGE, (kind, result.ret, out[-2000:], err[-2000:])
    assert message in err, err
    # the engine's own traceback may be in its stderr ("| " lines); palconf's never is
    ours = [line for line in (err + out).splitlines() if not line.lstrip().startswith("|")]
    assert not [line for line in ours if "Traceback" in line or "INTERNALERROR" in line]
    assert ".toml::" not in out  # no case was collected or run
    assert len([line for line in err.splitlines() if line.startswith("ERROR:")]) == 1


@pytest.mark.parametrize(
    ("kind", "where"),
    [
        ("a-set", "state.players.A.battle is a set"),
        ("a-tuple", "state.players.A.hand is a tuple"),
        ("a-frozenset", "state.cards is a frozenset"),
        ("a-nan", "state.players.A.life is nan, not a JSON number"),
        ("an-object", "state.attack is a object"),
        ("bytes", "state.active is a bytes"),
        ("an-int-key", "state.cards has the key 1, a int, not a string"),
        ("itself", "state.attack.attack.attack.attack.attack.attack.attack.attack.attack"),
        ("the-reply-a-set", "the value is a set"),
    ],
)
def test_a_reply_that_is_no_json_value_is_the_cases_error_about_the_engine(
    pytester: pytest.Pytester,
    small: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    kind: str,
    where: str,
) -> None:
    (pytester.path / "odd_engine.py").write_text(ODD_ENGINE, encoding="utf-8")
    monkeypatch.setenv("PAL_KIND", kind)
    result = run(
        pytester, "--palconf", f"--palconf-cases={small}", "--palconf-engine=odd_engine:make"
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "error: the reply to `observe` is not JSON: " in out and where in out
    assert "TypeError" not in out and "Traceback" not in out and "internal error" not in out
    outcomes = result.parseoutcomes()
    assert outcomes.get("errors", 0) >= 1 and "failed" not in outcomes


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"ok": True, "state": {"a": [1, 2.5, None, "x", False]}}, None),
        ([], None),
        ({1, 2}, "the value is a set, not a JSON value"),
        ({"a": [1, (2,)]}, "a[1] is a tuple, not a JSON value"),
        ({"a": {"b": math.inf}}, "a.b is inf, not a JSON number"),
        ({"a": -math.inf}, "a is -inf, not a JSON number"),
        ({"a": {None: 1}}, "a has the key None, a NoneType, not a string"),
        ({"a": 1j}, "a is a complex, not a JSON value"),
        ({"a": Path("x")}, "a is a PosixPath, not a JSON value"),
    ],
)
def test_not_json_names_the_first_value_the_wire_could_not_carry(value: Any, problem: str) -> None:
    assert not_json(value) == problem


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, 5 * MAX_DEPTH])
def test_not_json_reads_as_deep_as_the_json_reader(depth: int) -> None:
    """As deep as `json_read.loads` reads (MAX_DEPTH arrays in one another), no deeper."""
    deep: list[Any] = []
    for _ in range(depth - 1):
        deep = [deep]
    if depth <= MAX_DEPTH:
        assert not_json(deep) is None
        assert loads("[" * depth + "]" * depth) == deep
    else:
        assert not_json(deep) == f"{'[0]' * MAX_DEPTH} is nested deeper than {MAX_DEPTH} levels"


RAISER = """
from palconf.engines.oracle_engine import OracleEngine


class Raiser(OracleEngine):
    def request(self, msg):
        if msg.get("cmd") == "setup":
            raise RuntimeError("setup is not written yet")
        return super().request(msg)


def make():
    return Raiser()
"""


@pytest.mark.parametrize("more", XDIST)
def test_an_engine_past_the_restart_limit_stops_the_session_as_a_finding(
    pytester: pytest.Pytester,
    small: Path,  # noqa: F811
    more: list[str],
) -> None:
    (pytester.path / "raiser.py").write_text(RAISER, encoding="utf-8")
    result = run(
        pytester,
        "--palconf",
        f"--palconf-cases={small}",
        "--palconf-engine=raiser:make",
        "--palconf-max-restarts=1",
        *more,
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # not xdist's INTERRUPTED
    assert "the engine is stopped: the engine broke 2 time(s) in a row" in result.stdout.str()


#: A conftest that puts a bug into palconf: the runner raises.
BUG = """
import palconf.running.supervisor as supervisor


def run_case(engine, case):
    raise ZeroDivisionError("a bug on purpose")


supervisor.run_case = run_case
"""


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("more", XDIST)
def test_a_bug_in_palconf_is_an_internal_error(
    pytester: pytest.Pytester,
    small: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    more: list[str],
    debug: bool,
) -> None:
    pytester.makeconftest(BUG)
    if debug:
        monkeypatch.setenv("PALCONF_DEBUG", "1")
    else:
        monkeypatch.delenv("PALCONF_DEBUG", raising=False)
    result = run(
        pytester, "--palconf", f"--palconf-cases={small}", f"--palconf-engine={ORACLE}", *more
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.INTERNAL_ERROR
    line = (
        "palconf plugin: internal error (a bug in palconf, not a finding about the engine): "
        "ZeroDivisionError: a bug on purpose at conftest.py:5"
    )
    # each case's report is that line (and how to report it), the summary says it once more;
    # counted above pytest's short summary, which under CI=true repeats every report whole
    lines = result.stdout.lines
    summary = next(
        (n for n, text in enumerate(lines) if "short test summary info" in text), len(lines)
    )
    assert lines[:summary].count(line) == len(list(small.rglob("*.toml")))
    assert "case(s) met a bug in palconf (exit 3)" in out
    assert ("Traceback" in out or "raise ZeroDivisionError" in out) == debug


def printed_ids(result: pytest.RunResult) -> list[str]:
    return [line.split(" ")[0] for line in result.stdout.lines if ".toml::" in line]


@pytest.mark.parametrize("more", XDIST)
def test_a_printed_node_id_can_be_given_back_to_pytest(
    pytester: pytest.Pytester,
    small: Path,  # noqa: F811
    more: list[str],
) -> None:
    """Every id `--collect-only` prints selects exactly its case; a case file and a folder of
    cases select theirs; the failures' ids in the short summary round-trip too."""
    args = ["--palconf", f"--palconf-cases={small}", "--palconf-engine=broken_engine:make"]
    ids = printed_ids(run(pytester, *args, "--collect-only", "-q"))
    assert len(ids) == len(list(small.rglob("*.toml")))
    assert all(re.fullmatch(r"cases/[a-z-]+/[a-z0-9-]+\.toml::[a-z0-9-]+", i) for i in ids), ids
    for nodeid in ids[:3]:
        one = run(pytester, *args, "-v", nodeid, *more)
        assert one.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), one.stderr.str()
        assert sum(o for o in one.parseoutcomes().values() if isinstance(o, int)) == 1
        assert nodeid.split("::")[1] in one.stdout.str()
    file = ids[0].split("::")[0]
    assert printed_ids(run(pytester, *args, "--collect-only", "-q", file)) == [ids[0]]
    folder = "cases/taunt"
    want = [i for i in ids if i.startswith(folder + "/")]
    assert want and printed_ids(run(pytester, *args, "--collect-only", "-q", folder)) == want
    everything = run(pytester, *args, *more)
    failed = sorted(
        set(re.findall(r"^(?:FAILED|ERROR) (\S+\.toml::\S+)", everything.stdout.str(), re.M))
    )
    assert failed
    again = run(pytester, *args, *failed, *more)
    assert sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+)", again.stdout.str(), re.M))) == failed


def test_ids_of_cases_outside_the_root_folder_are_absolute_and_round_trip(
    pytester: pytest.Pytester,
    small: Path,  # noqa: F811
) -> None:
    inner = pytester.path / "project"
    inner.mkdir()
    (inner / "pytest.ini").write_text("[pytest]\n")
    pytester.chdir()
    args = [
        "--palconf",
        f"--palconf-cases={small}",
        f"--palconf-engine={ORACLE}",
        "--rootdir",
        str(inner),
    ]
    ids = printed_ids(run(pytester, *args, "--collect-only", "-q"))
    assert ids and all(i.startswith(str(small) + "/") for i in ids)
    one = run(pytester, *args, ids[-1])
    one.assert_outcomes(passed=1)


def test_lf_and_ff_rerun_the_failures(pytester: pytest.Pytester, small: Path) -> None:  # noqa: F811
    args = ["--palconf", f"--palconf-cases={small}", "--palconf-engine=broken_engine:make"]
    first = pytester.runpytest_subprocess(*args, "-q")
    bad = sorted(set(re.findall(r"^(?:FAILED|ERROR) (\S+\.toml::\S+)", first.stdout.str(), re.M)))
    assert bad
    last = pytester.runpytest_subprocess(*args, "--lf", "-v")
    ran = sorted(set(re.findall(r"^(\S+\.toml::\S+) ", last.stdout.str(), re.M)))
    assert ran == bad
    ff = pytester.runpytest_subprocess(*args, "--ff", "-v")
    order = re.findall(r"^(\S+\.toml::\S+) ", ff.stdout.str(), re.M)
    assert sorted(order[: len(bad)]) == bad and len(order) == len(list(small.rglob("*.toml")))
