"""Exit statuses by contract whatever the process's streams and folder are (issue 36): a
stdout that cannot encode every character (escapes, not a crash), a stderr closed or whose
reader went away (a lost message never changes the status), a stdout closed (exit 2: the
output cannot be written), a deleted working folder (exit 2), a deep expectations file (exit
2 with the file and line, as a deep case file). Each runs `python -m palconf.cli` as a
process, since the streams are the process's own (`palconf.cli.main`, `_streams`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from palconf.core.errors import ExitCode
from palconf.running.expectations import Expectations, ExpectationsError

PY = sys.executable
CLI = [PY, "-m", "palconf.cli"]
#: palconf's own crash, on purpose: `list` divides by zero.
CRASH = [
    PY,
    "-c",
    "import sys, palconf.commands.list as m\n"
    "def boom(_a): raise ZeroDivisionError('on purpose \\u2192 here')\n"
    "m.main = boom\n"
    "from palconf.cli import entry\n"
    "sys.exit(entry())",
]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PALCONF_DEBUG", "PYTHONIOENCODING")}
    return {**env, **extra}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    tmp = tmp_path_factory.mktemp("streams")
    a = tmp / "a.jsonl"
    subprocess.run(
        [*CLI, "run", "-k", "taunt", "--results", str(a)], capture_output=True, env=_env()
    )
    assert a.stat().st_size > 0
    b = tmp / "b \u2014 \u00e9.jsonl"
    b.write_bytes(a.read_bytes())
    return str(a), str(b)


# ---------------------------------------------------------------- encodings


ENCODINGS = ["ascii", "latin-1", "cp1252", "cp437"]
COMMANDS: dict[str, Callable[[tuple[str, str]], list[str]]] = {
    "list": lambda _r: ["list"],
    "list --json": lambda _r: ["list", "--json"],
    "run": lambda _r: ["run", "-k", "taunt", "--verbose"],
    "report --compare": lambda r: ["report", "--compare", r[0], r[1]],
    "report --compare markdown": lambda r: [
        "report",
        "--compare",
        r[0],
        r[1],
        "--format",
        "markdown",
    ],
    "a usage error naming a non-ASCII file": lambda r: [
        "report",
        "--compare",
        r[0],
        "\u2192\u00e9",
    ],
}


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_encoding_that_lacks_characters_gets_escapes(
    encoding: str, command: str, results: tuple[str, str]
) -> None:
    argv = COMMANDS[command](results)
    done = subprocess.run([*CLI, *argv], capture_output=True, env=_env(PYTHONIOENCODING=encoding))
    want = ExitCode.USAGE if "usage error" in command else ExitCode.OK
    err = done.stderr.decode(encoding)
    assert done.returncode == want, err
    assert "internal error" not in err and "Traceback" not in err
    done.stdout.decode(encoding)  # written in the encoding asked for
    if "usage error" in command:
        assert "\\u2192" in err  # the escape, not the character nor a crash


def test_palconfs_own_crash_is_3_in_any_encoding() -> None:
    done = subprocess.run(CRASH + ["list"], capture_output=True, env=_env(PYTHONIOENCODING="ascii"))
    assert done.returncode == ExitCode.INTERNAL
    assert b"internal error" in done.stderr and b"\\u2192" in done.stderr


# ---------------------------------------------------------------- closed streams


def _closed(
    which: str, argv: list[str], cwd: str | None = None
) -> subprocess.CompletedProcess[Any]:
    """Runs `argv` with `which` ("stdout", "stderr", "both") a pipe whose reader is gone
    ("pipe") or a closed descriptor ("fd"); the other stream (if any) is captured."""
    kind, _, streams = which.partition(":")
    names = ["stdout", "stderr"] if streams == "both" else [streams]
    kwargs: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    if kind == "pipe":
        r, w = os.pipe()
        os.close(r)
        try:
            kwargs.update({n: w for n in names})
            return subprocess.run(argv, env=_env(), cwd=cwd, **kwargs)
        finally:
            os.close(w)
    fds = [1 if n == "stdout" else 2 for n in names]
    for n in names:
        kwargs[n] = None

    def close() -> None:
        for fd in fds:
            os.close(fd)

    return subprocess.run(argv, env=_env(), cwd=cwd, preexec_fn=close, **kwargs)


USAGE_ERRORS = {
    "unknown option": ["run", "--no-such-option"],
    "a missing results file": ["report", "--compare", "/nonexistent/a", "/nonexistent/b"],
    "a missing expectations file": ["run", "-k", "taunt", "--expectations", "/nonexistent/e"],
    "no such case": ["run", "--case", "no-such-case-at-all"],
}


@pytest.mark.parametrize("which", ["pipe:stderr", "fd:stderr"])
@pytest.mark.parametrize("error", list(USAGE_ERRORS))
def test_a_usage_error_is_2_whatever_stderr_is(which: str, error: str) -> None:
    done = _closed(which, [*CLI, *USAGE_ERRORS[error]])
    assert done.returncode == ExitCode.USAGE
    assert b"Traceback" not in done.stdout and b"usage error" not in done.stdout


@pytest.mark.parametrize("which", ["pipe:stderr", "fd:stderr", "pipe:both"])
def test_palconfs_own_crash_is_3_whatever_stderr_is(which: str) -> None:
    assert _closed(which, CRASH + ["list"]).returncode == ExitCode.INTERNAL


@pytest.mark.parametrize("which", ["pipe:stderr", "fd:stderr"])
def test_a_run_keeps_its_status_whatever_stderr_is(which: str, tmp_path: Path) -> None:
    done = _closed(which, [*CLI, "run", "-k", "taunt", "--results", str(tmp_path / "r.jsonl")])
    assert done.returncode == ExitCode.OK and b"82 pass" in done.stdout
    assert b"Traceback" not in (tmp_path / "r.jsonl").read_bytes()


@pytest.mark.parametrize("which", ["fd:stdout", "fd:both"])
@pytest.mark.parametrize(
    "argv", [["report", "--compare", "A", "B"], ["list"], ["run", "-k", "taunt"], ["--version"]]
)
def test_a_closed_stdout_is_2(which: str, argv: list[str], results: tuple[str, str]) -> None:
    argv = [results[0] if a == "A" else results[1] if a == "B" else a for a in argv]
    done = _closed(which, [*CLI, *argv])
    assert done.returncode == ExitCode.USAGE
    if which == "fd:stdout":
        assert done.stderr.decode().splitlines() == [
            "palconf: stdout is closed (>&-): nothing can be written; use >/dev/null to discard it"
        ]


@pytest.mark.parametrize("which", ["pipe:stdout", "pipe:both"])
def test_a_stdout_whose_reader_went_away_is_141(which: str, results: tuple[str, str]) -> None:
    done = _closed(which, [*CLI, "report", "--compare", *results])
    assert done.returncode == ExitCode.BROKEN_PIPE


# ---------------------------------------------------------------- a deleted working folder


SERVE = f"{PY} -m palconf.cli serve"
IN_A_DELETED_FOLDER = {
    "fuzz": (["fuzz", "--engine-cmd", SERVE, "--examples", "3"], ExitCode.USAGE),
    "fuzz, no directed": (["fuzz", "--engine-cmd", SERVE, "--examples", "3", "--no-directed"], 2),
    "run, a relative results file": (["run", "-k", "taunt", "--results", "r.jsonl"], 2),
    "run": (["run", "-k", "taunt"], ExitCode.OK),
    "list": (["list"], ExitCode.OK),
    "smoke": (["smoke", "--engine-cmd", SERVE], ExitCode.OK),
}


@pytest.mark.parametrize("command", list(IN_A_DELETED_FOLDER))
def test_a_deleted_working_folder_is_no_crash(command: str, tmp_path: Path) -> None:
    argv, status = IN_A_DELETED_FOLDER[command]
    script = 'mkdir gone && cd gone && rmdir ../gone && exec "$@"'
    done = subprocess.run(
        ["bash", "-c", script, "bash", *CLI, *argv], cwd=tmp_path, capture_output=True, env=_env()
    )
    err = done.stderr.decode()
    assert done.returncode == status, err
    assert "internal error" not in err and "Traceback" not in err
    if command.startswith("fuzz"):
        assert "the current folder no longer exists" in err


# ---------------------------------------------------------------- deep expectations files


def _deep(kind: str, n: int) -> str:
    entry = '[cases."TAUNT-*"]\noutcome = "pass"\n'
    if kind == "array":
        return entry + "note = " + "[" * n + "]" * n + "\n"
    if kind == "inline table":
        return entry + "note = " + "{a = " * n + "1" + "}" * n + "\n"
    if kind == "dotted header":
        return "[" + ".".join(["a"] * n) + "]\n"
    if kind == "dotted key":
        return entry + ".".join(["k"] * n) + " = 1\n"
    return entry + f"note = [{'{x = [' * n}1{']}' * n}]\n"  # "mixed"


DEEP = [
    (k, n)
    for k in ["array", "inline table", "dotted header", "dotted key", "mixed"]
    for n in [150, 1000, 100_000]
]


@pytest.mark.parametrize(("kind", "n"), DEEP)
def test_a_deep_expectations_file_is_a_usage_error_with_its_line(kind: str, n: int) -> None:
    with pytest.raises(ExpectationsError) as e:
        Expectations.parse(_deep(kind, n), "deep.toml")
    line = 1 if kind == "dotted header" else 3
    assert str(e.value) == (
        f"deep.toml:{line}: nested too deeply (more than 100 levels of tables and lists)"
    )


def test_a_huge_number_in_expectations_is_a_usage_error() -> None:
    with pytest.raises(ExpectationsError, match="a number too long"):
        Expectations.parse('[cases.x]\noutcome = "pass"\nnote = ' + "9" * 5000 + "\n", "e.toml")


@pytest.mark.parametrize("kind", ["array", "dotted header"])
def test_run_with_a_deep_expectations_file_is_2(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(_deep(kind, 100_000))
    done = subprocess.run(
        [*CLI, "run", "-k", "taunt", "--expectations", str(path)], capture_output=True, env=_env()
    )
    assert done.returncode == ExitCode.USAGE
    assert (
        done.stderr.decode().startswith(f"palconf run: {path}:")
        and b"nested too deeply" in done.stderr
    )
