"""The one set of engine options (palconf/engine_options.py) in every command that takes them:
`--timeout` is more than 0 and at most 86400 seconds everywhere (else argparse's exit status
2, with a message naming the option; every numeric option has its range checked and
shown), `make_engine` makes what the options name, and the engine's name from `hello` is
printed escaped by every command that prints it."""

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
    Number,
    add_engine_options,
    make_engine,
    process_count,
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
RANGE = "number from more than 0 to 86400 seconds, not "
BAD_TIMEOUTS = {
    "nan": RANGE + "'nan'",
    "inf": RANGE + "'inf'",
    "-inf": RANGE + "'-inf'",
    "0": RANGE + "'0'",
    "-1": RANGE + "'-1'",
    "1e999": RANGE + "'1e999'",
    "abc": RANGE + "'abc'",
    "": RANGE + "''",
    "99999999": RANGE + "'99999999'",  # issue 25: an OverflowError in poll
    "86400.001": RANGE + "'86400.001'",
    "1" + "0" * 5000: RANGE + "'1000",
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
    assert f"2 case(s) of rules 1.00 against {SHOWN} " in out
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


# ---------------------------------------------------------------- every numeric option (issue 25)


def numeric_options() -> list[tuple[str, str, Number]]:
    """(command, option, its type) for every numeric option of every command."""
    from palconf.cli import build_parser

    found = []
    parser = build_parser(full=True)  # every command's options (the CLI imports one)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        for action in parser._actions:
            if action.type in (int, float):
                raise AssertionError(
                    f"palconf {name} {action.option_strings}: a bare {action.type}"
                )
            if isinstance(action.type, Number):
                found.append((name, action.option_strings[-1], action.type))
            elif name == "fuzz" and action.dest == "workers":
                found.append((name, "--workers", process_count))
    return found


NUMERIC = numeric_options()


def test_every_numeric_option_is_checked_in_one_place() -> None:
    names = {f"{c} {o}" for c, o, _ in NUMERIC}
    assert len(NUMERIC) >= 16, names
    for expected in ("run --timeout", "run --max-fail", "fuzz --seed", "perft --depth"):
        assert expected in names


@pytest.mark.parametrize("command,option,number", NUMERIC, ids=[f"{c} {o}" for c, o, _ in NUMERIC])
def test_a_numeric_option_shows_its_range_and_refuses_what_is_outside(
    command: str, option: str, number: Number, capsys: pytest.CaptureFixture[str]
) -> None:
    from palconf.cli import build_parser

    root = build_parser([command])
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    help_text = " ".join(sub.choices[command].format_help().split())
    assert f"[{number.help_range}]" in help_text or number.help_range in help_text
    outside = [
        str(number.low) if number.above_low else str(int(number.low) - 1),
        str(number.high * 10 + 1 if number.real else int(number.high) + 1),
        "99999999999999999999999",
        "1" + "0" * 5000,
        "nan",
        "inf",
        "x",
        "",
    ]
    for text in outside:
        with pytest.raises(argparse.ArgumentTypeError, match=r"must be a (whole )?number from "):
            number(text)
    assert number(str(number.high if number.real else int(number.high))) == number.high
    for text in outside[:3]:
        args = [*COMMANDS.get(command, [command]), f"{option}={text}"]
        with pytest.raises(SystemExit) as e:
            main(args)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert "must be a" in err and "Traceback" not in err


@pytest.mark.parametrize("interpreter", ["/no/such/python3", "/no/such/env python3"])
def test_a_missing_shebang_interpreter_is_named_not_the_script(
    tmp_path: Path, interpreter: str
) -> None:
    """Issue 25, class 10: a script whose #! interpreter is missing was "not found"."""
    script = tmp_path / "engine.py"
    script.write_text(f"#!{interpreter}\nprint('hello')\n", encoding="utf-8")
    script.chmod(0o755)
    with pytest.raises(EngineCommandError, match="the interpreter its #! line names") as e:
        ProcessEngine(str(script)).start()
    assert interpreter.split()[0] in str(e.value)
    with pytest.raises(EngineCommandError, match=r"'/no/such/engine' not found"):
        ProcessEngine("/no/such/engine").start()
