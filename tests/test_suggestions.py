"""Near misses get a "did you mean" (issue 35): a subcommand, an option, a choice, a keyword,
a case id; a case id given where the command takes none; an engine path with a space left
unquoted. Before, each was the bare argparse or palconf message."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from palconf.cli import main as cli


def err(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    try:
        status = cli(list(argv))
    except SystemExit as e:  # argparse's own exit
        status = int(e.code or 0)
    return status, capsys.readouterr().err


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("rnu", "run"), ("sumary", "summary"), ("lsit", "list"), ("exlpain", "explain"),
     ("smokee", "smoke"), ("reprot", "report"), ("coverge", "coverage"), ("mutant", "mutants")],
)  # fmt: skip
def test_a_subcommand_typed_wrong(
    capsys: pytest.CaptureFixture[str], typed: str, meant: str
) -> None:
    status, text = err(capsys, typed)
    assert status == 2
    line = next(x for x in text.splitlines() if "did you mean" in x)
    assert meant in line.split("did you mean", 1)[1]


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["run", "--engine-comd", "x"], "--engine-cmd"),
        (["run", "--keywrd", "taunt"], "--keyword"),
        (["run", "--exlcude=taunt-*"], "--exclude"),
        (["run", "--timout", "3"], "--timeout"),
        (["run", "--expecations", "x.toml"], "--expectations"),
        (["list", "--jsn"], "--json"),
        (["report", "--compre", "a", "b"], "--compare"),
        (["fuzz", "--engine-cmd", "x", "--exmaples", "3"], "--examples"),
        (["smoke", "--engine-cmd", "x", "--timeuot", "3"], "--timeout"),
    ],
)
def test_an_option_typed_wrong(
    capsys: pytest.CaptureFixture[str], argv: list[str], meant: str
) -> None:
    status, text = err(capsys, *argv)
    assert status == 2
    line = next(x for x in text.splitlines() if "did you mean" in x)
    typed = next(a for a in argv if a.startswith("--") and a.split("=")[0] != "--engine-cmd")
    assert meant in line and line.strip().startswith(typed.split("=")[0] + ": did you mean")


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["run", "--progress", "barr"], "bar"),
        (["run", "--color", "alwys"], "always"),
        (["report", "--format", "markdwn"], "markdown"),
        (["list", "clause"], "clauses"),
    ],
)
def test_a_choice_typed_wrong(
    capsys: pytest.CaptureFixture[str], argv: list[str], meant: str
) -> None:
    status, text = err(capsys, *argv)
    assert status == 2 and meant in text.split("did you mean", 1)[1]


def test_a_case_id_where_the_command_takes_none(capsys: pytest.CaptureFixture[str]) -> None:
    status, text = err(capsys, "run", "brave-2")
    assert status == 2 and "cases are chosen with --case: --case brave-2" in text
    # the value of a mistyped option is not taken for a case id
    status, text = err(capsys, "run", "--engine-comd", "node")
    assert status == 2 and "cases are chosen" not in text


@pytest.mark.parametrize(
    ("argv", "meant"),
    [
        (["run", "--case", "brave-200-beats-3100"], "brave-200-beats-3100-with-3000"),
        (["run", "--case", "brave-200-beats-3100-with-300"], "brave-200-beats-3100-with-3000"),
        (["run", "-k", "tuant"], "taunt"),
        (["run", "-k", "stelth"], "stealth"),
    ],
)
def test_a_case_or_keyword_typed_wrong(
    capsys: pytest.CaptureFixture[str], argv: list[str], meant: str
) -> None:
    status, text = err(capsys, *argv, "--progress", "none")
    assert status == 2 and "did you mean" in text and meant in text


def test_nothing_near_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    status, text = err(capsys, "qqqqzzz")
    assert status == 2 and "did you mean" not in text
    status, text = err(capsys, "run", "--case", "qqqqzzz", "--progress", "none")
    assert status == 2 and "did you mean" not in text


def test_what_was_typed_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["\x1b]0;title\x07"], ["run", "--\x1b[2Jx"], ["run", "--progress", "\x1b[2J"]):
        status, text = err(capsys, *argv)
        assert status == 2 and "\x1b" not in text and "\x07" not in text


def test_an_engine_path_with_a_space_left_unquoted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "my engines"
    folder.mkdir()
    engine = folder / "engine"
    engine.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    engine.chmod(engine.stat().st_mode | stat.S_IXUSR)
    status, text = err(capsys, "run", "--engine-cmd", f"{engine} --fast", "--progress", "none")
    assert status == 2
    assert f"{str(engine)!r} exists: quote a path with spaces" in text
    assert f"--engine-cmd \"'{engine}' --fast\"" in text
    # a path that is not there gets no such hint
    status, text = err(
        capsys, "run", "--engine-cmd", f"{folder}/nothing here", "--progress", "none"
    )
    assert status == 2 and "quote" not in text and os.sep in text
