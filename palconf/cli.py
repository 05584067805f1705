"""The `palconf` command. Each subcommand lives in its own module with `add_parser(sub)`
registering itself and setting `func`; this file only gathers them.

Exit status (`palconf.core.errors.ExitCode`): 0 all well; 1 a case failed or errored (or a
check found a problem); 2 the job did not run as asked (bad arguments, broken case files, an
engine that does not start: a `UsageError`); 3 palconf itself failed (a bug in palconf, never
a finding about the engine); 130 ^C; 143 SIGTERM. `main` is the one place where an error
becomes an exit status: no command prints a Python traceback unless `--debug` (or
`PALCONF_DEBUG=1`) asks for it. Nor do the streams change a status (`_streams`): a
character stdout's encoding lacks is escaped, a stderr closed or gone drops its messages, a
closed stdout is 2.

`entry` is the `palconf` console command (and `python -m palconf.cli`): `main` in a process
that cleans up after its engines. Tests call `main` in-process, which does not.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import os
import signal
import sys
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

from palconf import __version__
from palconf.core.errors import ExitCode, UsageError, internal_error
from palconf.core.text import terminal_safe
from palconf.parser import Parser, parse

#: The subcommands in the order `--help` lists them, each with its one-line help. Only the
#: module of the command that runs is imported (a light start: `palconf --version` and
#: `palconf list` load no more than they use); `tests/test_cli_misc.py` checks that each
#: line is the one its module's parser gives.
COMMANDS: dict[str, str] = {
    "run": "run the cases against the oracle or an engine",
    "explain": "show one case step by step against an engine (default: the oracle)",
    "replay": "send a transcript's requests to an engine and show where the replies differ",
    "coverage": "cases per clause, and the interaction matrix",
    "lint": "check the case files themselves",
    "rules": "rules versions: diff, import, bless, status",
    "serve": "serve the oracle as an engine on stdin/stdout",
    "smoke": "check that an engine speaks the protocol basics",
    "report": "HTML/Markdown/JSON/JUnit reports and badges from results files",
    "site": "a static site from a folder of results files (many engines and versions)",
    "summary": "the per-keyword table, failures by clause and verdict of results files",
    "mutants": "run the cases against every mutant engine",
    "fuzz": "compare an engine with the oracle on generated games",
    "hypofuzz": "a long coverage-guided HypoFuzz campaign, ended by its first finding",
    "perft": "count legal action sequences on the oracle and an engine",
    "list": "list the cases, keyword groups or clauses (--json for machines)",
    "completion": "print a bash or zsh completion script (needs the optional shtab)",
}


class VersionAction(argparse.Action):
    """`--version`: palconf's version, the current rules version and how many cases the suite
    in use holds (`PALCONF_CASES`, or this palconf's own copy), found when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        print(version_line())
        parser.exit()


def version_line() -> str:
    from palconf import paths
    from palconf.cases.loader import case_files

    problem = paths.missing_data()
    if problem is not None:
        return f"palconf {__version__} ({problem})"
    from palconf.registry import RegistryError
    from palconf.registry import load as load_registry

    try:
        rules = load_registry().current
    except RegistryError as e:
        return f"palconf {__version__} (the rules registry cannot be read: {e})"
    count = sum(1 for _ in case_files(paths.CASES)) if paths.CASES.is_dir() else 0
    return f"palconf {__version__} (rules {rules}, {count} cases in {paths.CASES})"


def build_parser(argv: Sequence[str] | None = None, *, full: bool = False) -> Parser:
    """The `palconf` parser. Every subcommand is listed; only the one named in `argv` (or, with
    `full`, every one: for shell completion) gets its module imported and its own options."""
    parser = Parser(
        prog="palconf",
        description="Conformance suite and reference oracle for the Pal card game keywords "
        "(Comprehensive Rules 1.00, section 12).",
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="show Python's traceback when palconf itself fails (exit 3; also PALCONF_DEBUG=1)",
    )
    parser.add_argument(
        "--version",
        action=VersionAction,
        help="show palconf's version, the rules version and the number of cases, and exit",
    )
    parser.set_defaults(full_parser=lambda: build_parser(full=True))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = next((a for a in argv or () if not a.startswith("-")), None)
    for name, line in COMMANDS.items():
        if full or name == chosen:
            importlib.import_module(f"palconf.commands.{name}").add_parser(sub)
        else:
            sub.add_parser(name, help=line, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    with _streams() as stdout_closed:
        if stdout_closed:
            print(f"palconf: {STDOUT_CLOSED}", file=sys.stderr)
            return ExitCode.USAGE
        return _main(argv)


#: Why a command with its stdout closed (`>&-`) does not run: its output cannot be written.
STDOUT_CLOSED = "stdout is closed (>&-): nothing can be written; use >/dev/null to discard it"


def _main(argv: list[str]) -> int:
    parser = build_parser(argv)
    args = parse(parser, argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return ExitCode.USAGE
    debug = bool(args.debug or os.environ.get("PALCONF_DEBUG"))
    try:
        return int(args.func(args) or 0)
    except UsageError as e:
        print(f"palconf {args.command}: {terminal_safe(e, keep_newlines=True)}", file=sys.stderr)
        return ExitCode.USAGE
    except KeyboardInterrupt:
        print("palconf: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # the reader went away (`palconf list | head`): nothing was judged
        _quiet_stdout()
        return ExitCode.BROKEN_PIPE
    except OSError as e:
        if _cwd_gone():  # not palconf's failure: the folder it was started in was deleted
            print(f"palconf {args.command}: {CWD_GONE} ({e.strerror or e})", file=sys.stderr)
            return ExitCode.USAGE
        return _internal(e, args.command, debug)
    except Exception as e:  # palconf's own failure: never "the engine failed"
        return _internal(e, args.command, debug)


#: Why a command fails when the folder it was started in has been deleted since.
CWD_GONE = "the current folder no longer exists (deleted after the shell entered it); cd to one"


def _cwd_gone() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _internal(error: Exception, command: str, debug: bool) -> int:
    if debug:
        traceback.print_exception(error)
    print(internal_error(error, command, debug), file=sys.stderr)
    return ExitCode.INTERNAL


def _quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's own flush at exit
    does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class _Diagnostics(io.RawIOBase):
    """fd 2 for palconf's messages: once the reader is gone (EPIPE) or the fd is closed,
    what is written is dropped, so that a lost message never changes the exit status."""

    def __init__(self, fd: int | None) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        size = len(memoryview(data))
        if self.fd is not None:
            try:
                os.write(self.fd, data)
            except OSError:  # EPIPE, EBADF, EIO: the messages can no longer be shown
                self.fd = None
        return size


def _devnull_at(fd: int) -> int | None:
    """Puts /dev/null at `fd` when it is closed, so that no file palconf opens later (a
    results file) lands there and gets the engines' stderr; `fd`, or None if it cannot."""
    try:
        os.fstat(fd)
        return None  # open: not ours to change
    except OSError:
        pass
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        return fd
    except OSError:
        return None


@contextlib.contextmanager
def _streams() -> Iterator[bool]:
    """The process's own stdout and stderr, as `main` needs them; yields whether stdout is
    closed. A character the encoding lacks (`PYTHONIOENCODING=ascii`, a Windows console) is
    written as its backslash escape rather than failing part-way; stderr (even closed, or a
    pipe whose reader is gone) never fails. Streams that are not the process's own (a test's
    capture) are left alone; the old ones are back when `main` returns."""
    old_out, old_err = sys.stdout, sys.stderr
    if old_out is not None and old_out is sys.__stdout__:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            old_out.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]
    if old_err is None or old_err is sys.__stderr__:
        encoding, fd = "utf-8", _devnull_at(2)
        if old_err is not None:
            with contextlib.suppress(OSError, ValueError):
                old_err.flush()
            encoding = old_err.encoding or "utf-8"
            with contextlib.suppress(OSError, ValueError, io.UnsupportedOperation):
                fd = old_err.fileno()
        sys.stderr = io.TextIOWrapper(
            io.BufferedWriter(_Diagnostics(fd)),
            encoding=encoding,
            errors="backslashreplace",
            line_buffering=True,
            write_through=True,
        )
    try:
        yield old_out is None
    finally:
        if sys.stderr is not old_err:
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            sys.stderr = old_err


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the command's cleanup runs (the engine is
    killed, the results file closed) as for ^C. Not an Exception: nothing catches it."""


def entry() -> int:
    """The `palconf` command: `main`, in a process that leaves no engine process behind.

    On Linux it becomes a child subreaper, so that an engine's descendant orphaned during
    the run (a helper that left the engine's process group, whose parent then exited) is
    re-parented to palconf rather than to init; when the command ends, every process still
    under it (it has waited for all it started itself) is killed and reaped. SIGTERM ends
    the command like ^C, cleanup included, with status 143. (An engine does not outlive
    palconf even after SIGKILL: palconf.engines.processes.die_with_parent.) `main`, which tests
    call in-process, does none of this."""
    from palconf.engines import processes

    processes.become_subreaper()
    me = os.getpid()

    def terminated(signum: int, _frame: object) -> None:
        if os.getpid() != me:  # a forked worker (palconf mutants -j): die as it would have
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise _Terminated

    signal.signal(signal.SIGTERM, terminated)
    try:
        return main()
    except _Terminated:
        with contextlib.suppress(OSError, ValueError):
            print("palconf: terminated", file=sys.stderr)
        return ExitCode.TERMINATED
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one: let the cleanup end
        processes.kill_adopted()


if __name__ == "__main__":
    sys.exit(entry())
