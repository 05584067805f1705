"""The one set of engine options (palconf/engine_options.py) in every command that takes them:
`--timeout` is a positive, finite number everywhere (else argparse's exit status 2, with a
message naming the option), `make_engine` makes what the options name, and the engine's
name from `hello` is printed escaped by every command that prints it."""

from __future__ import annotations

import argparse
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from palconf.cli import main
from palconf.engines.options import (
    DEFAULT_TIMEOUT,
    add_engine_options,
    make_engine,
    restart_count,
    timeout_seconds,
)
from palconf.engines.oracle_engine import OracleEngine
from palconf.engines.process import EngineCommandError, ProcessEngine

from .harness import PY, SERVE, folder_of

#: Every command with engine options, with the other arguments it needs to get as far as
#: checking them.
COMMANDS = {
    "run": ["run"],
    "smoke": ["smoke", "--engine-cmd", SERVE],
    "fuzz": ["fuzz", "--engine-cmd", SERVE, "--examples", "1"],
    "perft": ["perft", "--engine-cmd", SERVE, "--depth", "1"],
    "mutants": ["mutants", "--engine-cmd-template", "palconf serve --mutant {mutant}"],
}
BAD_TIMEOUTS = {
    "nan": "positive, finite",
    "inf": "positive, finite",
    "-inf": "positive, finite",
    "0": "positive, finite",
    "-1": "positive, finite",
    "1e999": "positive, finite",
    "abc": "positive number of seconds, not 'abc'",
    "": "positive number",
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("value", sorted(BAD_TIMEOUTS))
def test_a_bad_timeout_is_an_argparse_error_in_every_command(
    command: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        main([*COMMANDS[command], f"--timeout={value}"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"palconf {command}: error: argument --timeout: must be a " in err
    assert BAD_TIMEOUTS[value] in err
    assert "Traceback" not in err


@pytest.mark.parametrize("text,value", [("0.5", 0.5), ("10", 10.0), ("1e-3", 0.001), (" 2 ", 2.0)])
def test_good_timeouts(text: str, value: float) -> None:
    assert timeout_seconds(text) == value


@pytest.mark.parametrize("text", ["-1", "x", "1.5", ""])
def test_bad_restart_counts(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        restart_count(text)
    assert restart_count("0") == 0 and restart_count("7") == 7


def parse(*argv: str, required: bool = False, template: bool = False) -> argparse.Namespace:
    parser = argparse.ArgumentParser(exit_on_error=False)
    add_engine_options(parser, required=required, template=template)
    return parser.parse_args(argv)


def test_make_engine_gives_what_the_options_name() -> None:
    oracle = make_engine(parse())
    assert isinstance(oracle, OracleEngine)
    args = parse("--engine-cmd", "palconf serve", "--timeout", "3")
    process = make_engine(args)
    assert isinstance(process, ProcessEngine)
    assert process.argv == ["palconf", "serve"] and process.timeout == 3.0
    assert parse().timeout == DEFAULT_TIMEOUT
    with pytest.raises(EngineCommandError, match="cannot parse"):
        make_engine(parse("--engine-cmd", "engine 'unclosed"))
    each = parse("--engine-cmd-template", "palconf serve --mutant {mutant}", template=True)
    mutant = make_engine(each, mutant="no-brave")
    assert isinstance(mutant, ProcessEngine)
    assert mutant.argv == ["palconf", "serve", "--mutant", "no-brave"]
    with pytest.raises(ValueError):
        make_engine(each)  # a template without the mutant's name
    with pytest.raises(SystemExit):
        parse(required=True)  # --engine-cmd is required where the command needs a process


# ---------------------------------------------------------------- untrusted engine names

#: ESC (a colour sequence), NUL and BEL in the name `hello` answers.
EVIL = "evil\x1b[31m\x00\x07"
SHOWN = "evil\\x1b[31m\\x00\\x07"


@pytest.fixture
def evil_engine(tmp_path: Path) -> str:
    """The oracle, but with control characters in its name."""
    path = tmp_path / "evil.py"
    path.write_text(
        textwrap.dedent(f"""\
        import sys
        from palconf.oracle import Session
        from palconf.commands.serve import serve

        class Evil(Session):
            def handle(self, request):
                reply = super().handle(request)
                if isinstance(request, dict) and request.get("cmd") == "hello":
                    reply["engine"]["name"] = {EVIL!r}
                return reply

        serve(Evil(), sys.stdin, sys.stdout)
        """)
    )
    return f"{PY} {shlex.quote(str(path))}"


def printed(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_run_prints_the_engine_name_escaped(
    evil_engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from palconf.cases.loader import load_cases

    base = [c for c in load_cases() if c.keywords == ("base",)][:2]
    folder = folder_of(base, tmp_path / "cases")
    assert main(["run", "--engine-cmd", evil_engine, "--cases", str(folder)]) == 0
    out = printed(capsys)
    assert f"2 case(s) against {SHOWN} " in out
    assert "\x1b" not in out and "\x00" not in out and "\x07" not in out


@pytest.mark.parametrize(
    "argv",
    [
        ["smoke"],
        ["fuzz", "--examples", "1", "--quiet"],
        ["perft", "--depth", "1", "--position", "bare"],
    ],
)
def test_smoke_fuzz_and_perft_print_the_engine_name_escaped(
    evil_engine: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--engine-cmd", evil_engine]) == 0
    out = printed(capsys)
    assert SHOWN in out
    assert "\x1b" not in out and "\x00" not in out and "\x07" not in out


def test_the_evil_engine_really_says_its_name(evil_engine: str) -> None:
    """The fixture does what the tests above need: the raw name has the control characters."""
    with ProcessEngine(shlex.split(evil_engine)) as engine:
        assert engine.info.name == EVIL
    assert sys.executable in shlex.split(evil_engine)
