"""One boundary (issues 24 and 25): a `UsageError` is exit 2 with its message; palconf's own
failure is exit 3 with a one-line message and where to report it, never 1 (the status of "the
engine was tested and failed"), and the traceback only with --debug or PALCONF_DEBUG."""

from __future__ import annotations

import subprocess
import sys

import pytest

from palconf import ci_action
from palconf.cli import main
from palconf.core.errors import ExitCode, PalconfError, UsageError


def _boom(_args: object) -> int:
    raise ZeroDivisionError("the harness divided by zero")


def _usage(_args: object) -> int:
    raise UsageError("this is what to fix")


def test_exit_codes_are_an_enum_with_the_documented_values() -> None:
    assert [int(c) for c in ExitCode] == [0, 1, 2, 3, 130, 141, 143]
    assert issubclass(UsageError, PalconfError) and UsageError.exit_code == ExitCode.USAGE


def test_a_usage_error_is_its_message_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("palconf.commands.list.main", _usage)
    assert main(["list"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err == "palconf list: this is what to fix\n"


def test_palconfs_own_crash_is_exit_3_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PALCONF_DEBUG", raising=False)
    monkeypatch.setattr("palconf.commands.list.main", _boom)
    assert main(["list"]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first, second = err.splitlines()
    assert first.startswith("palconf list: internal error (a bug in palconf, not a finding")
    assert "ZeroDivisionError: the harness divided by zero at test_exit_codes.py:" in first
    assert "Reporting a bug" in second and "--debug" in second


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_debug_shows_the_traceback(
    how: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("palconf.commands.list.main", _boom)
    if how == "environment":
        monkeypatch.setenv("PALCONF_DEBUG", "1")
    argv = ["--debug", "list"] if how == "flag" else ["list"]
    assert main(argv) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "ZeroDivisionError" in err


def test_a_broken_pipe_is_not_a_failed_engine() -> None:
    done = subprocess.run(
        f"{sys.executable} -m palconf.cli list | head -n 1",
        shell=True,
        capture_output=True,
        text=True,
        executable="/bin/bash",
    )
    assert done.stdout.count("\n") == 1 and "Traceback" not in done.stderr


def test_the_actions_own_crash_is_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PALCONF_DEBUG", raising=False)
    monkeypatch.setattr(ci_action, "main", _boom)
    assert ci_action.entry([]) == ExitCode.INTERNAL
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" not in err
