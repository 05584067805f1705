"""palconf inside pytest: every case as a pytest item, for engine authors who already run pytest.

    pytest --palconf --palconf-engine-cmd "java -jar my-engine.jar"     # a protocol v1 process
    pytest --palconf --palconf-engine my_engine:make_engine             # a Python engine

Registered as the `pytest11` entry point `palconf`; it does nothing unless `--palconf` is
given (so the engine options may sit in `addopts` and `--palconf` turn the cases on), and
importing it imports nothing heavy: the harness (jsonschema, the oracle …) is imported only
once `--palconf` is given.

- Collection: a collector `palconf` hangs off the session beside the user's own tests, and
  holds one item per case, named by its id (node id `palconf::<case id>`, stable across runs
  for `--lf`), sorted by id (pytest-xdist checks that every worker collected the same list).
  Markers: one per keyword the case tests (`taunt`, `on_deploy` …: the keyword id with `-`
  as `_`), `base` for base-rule cases, and `palconf` on every case (`-m palconf` runs only
  the cases). Clause, base rule and interpretation ids are `-k` keywords too.
- Running: each process (each xdist worker) starts its own engine at its first case and
  closes it at the end of the session. Cases are fed one by one to `palconf.runner.run_cases`
  itself, so faults, restarts and the restart limit are exactly those of `palconf run`.
- Outcomes: `pass` passes; `fail` (a wrong answer) fails in the call phase; `error` and
  `timeout` (the engine broke) are pytest errors, raised in the setup phase as a broken
  fixture would be; `skip` skips. A failure's report is the case, its clauses with their rules
  text and the expected-versus-observed difference, never a traceback from inside palconf.
- `--palconf-expectations FILE` is judged as `palconf run` judges it
  (`palconf.expectations.Expectations.judge`): a listed outcome is xfail, a listed case that
  passes is a strict XPASS (a failure, as it makes `palconf run` exit 1), `skip` entries are
  not run. `--runxfail` reports every case by its own outcome.
"""

from __future__ import annotations

import importlib
import json
import os
import shlex
import sys
import textwrap
import traceback
import unicodedata
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Generator, Iterator

import pytest

if TYPE_CHECKING:  # the harness is imported lazily, inside the hooks
    from .cases import Case
    from .engines import Engine, EngineInfo
    from .expectations import Expectations
    from .registry import Registry
    from .runner import Result

#: The node id of the collector that holds the cases (its items are `palconf::<case id>`).
ROOT_NAME = "palconf"
STDERR_LINES = 10
LINE_LIMIT = 300
WRAP = 96


class PalconfWarning(pytest.PytestWarning):
    """A problem palconf found that does not stop the run (a stale expectations entry)."""


# ---------------------------------------------------------------- options

def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("palconf", "palconf: the Pal keyword-rules conformance cases")
    group.addoption("--palconf", action="store_true", default=False,
                    help="collect every palconf case as a test item and run it against the "
                         "engine given by --palconf-engine-cmd or --palconf-engine")
    group.addoption("--palconf-engine-cmd", metavar="CMD", default=None,
                    help="an engine process speaking palconf protocol v1 on stdin/stdout, "
                         "e.g. \"java -jar my-engine.jar\" (split like a shell would, but no "
                         "shell runs); one process per pytest process or xdist worker")
    group.addoption("--palconf-engine", metavar="MODULE:FACTORY", default=None,
                    help="an in-process Python engine: FACTORY() returns a "
                         "palconf.engines.Engine (palconf.engines:OracleEngine is the "
                         "reference oracle)")
    group.addoption("--palconf-cases", metavar="DIR", default=None,
                    help="the cases folder (default: the cases palconf ships)")
    group.addoption("--palconf-expectations", metavar="FILE", default=None,
                    help="a palconf expectations file: listed failures are xfail, listed cases "
                         "that pass are XPASS (strict), `skip` entries are not run")
    group.addoption("--palconf-timeout", metavar="S", type=float, default=None,
                    help="seconds to wait for each reply of --palconf-engine-cmd (default: "
                         "palconf run's, 10)")
    group.addoption("--palconf-max-restarts", metavar="N", type=int, default=None,
                    help="stop when the engine has been restarted N times in a row without "
                         "completing a case (default: palconf run's, 5)")


@dataclass(frozen=True)
class Settings:
    """The checked options of one pytest run."""

    engine_label: str  # for the header and messages: the command or MODULE:FACTORY
    engine_cmd: str | None  # the command, for a process engine
    make_engine: Callable[[], "Engine"]
    cases_root: Path
    expectations_path: Path | None
    max_restarts: int | None


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("palconf"):
        return
    settings = _settings(config)
    from .registry import BASE, load as load_registry

    registry = load_registry()
    config.addinivalue_line("markers", "palconf: a palconf conformance case")
    config.addinivalue_line("markers", f"{BASE}: palconf cases of the base rules")
    for kid, name in registry.keywords.items():
        config.addinivalue_line("markers", f"{marker_name(kid)}: palconf cases testing {name}")
    config.pluginmanager.register(PalconfSession(config, settings, registry), "palconf-session")


def marker_name(keyword: str) -> str:
    """A keyword id as a marker: `on-deploy` → `on_deploy` (a Python identifier)."""
    return keyword.replace("-", "_")


def _settings(config: pytest.Config) -> Settings:
    """Check the options now, so that a mistake is a usage error before anything runs."""
    here = config.invocation_params.dir
    cmd = config.getoption("palconf_engine_cmd")
    spec = config.getoption("palconf_engine")
    if (cmd is None) == (spec is None):
        raise pytest.UsageError(
            "--palconf needs exactly one engine: --palconf-engine-cmd CMD (a process speaking "
            "protocol v1) or --palconf-engine MODULE:FACTORY (a Python engine; "
            "palconf.engines:OracleEngine is the reference oracle)")
    timeout = config.getoption("palconf_timeout")
    if timeout is not None and not 0 < timeout < float("inf"):
        raise pytest.UsageError(f"--palconf-timeout must be a positive number of seconds, "
                                f"not {timeout}")
    max_restarts = config.getoption("palconf_max_restarts")
    if max_restarts is not None and max_restarts < 0:
        raise pytest.UsageError(f"--palconf-max-restarts must be 0 or more, not {max_restarts}")
    if cmd is not None:
        try:
            argv = shlex.split(cmd)
        except ValueError as e:
            raise pytest.UsageError(f"--palconf-engine-cmd: cannot parse {cmd!r}: {e}") from None
        if not argv:
            raise pytest.UsageError("--palconf-engine-cmd: the command is empty")
        label, make = cmd, _process_factory(cmd, timeout)
    else:
        label, make = spec, _python_factory(spec, here)
    from . import paths

    option = config.getoption("palconf_cases")
    root = Path(here, option) if option is not None else Path(paths.CASES)
    if not root.is_dir():
        raise pytest.UsageError(f"--palconf-cases: {root}: no such folder")
    expectations = config.getoption("palconf_expectations")
    exp_path = Path(here, expectations) if expectations is not None else None
    if exp_path is not None and not exp_path.is_file():
        raise pytest.UsageError(f"--palconf-expectations: {exp_path}: no such file")
    if exp_path is not None:
        from .expectations import Expectations, ExpectationsError

        try:
            Expectations.load(exp_path)  # loaded again by each process that collects
        except ExpectationsError as e:
            raise pytest.UsageError(f"--palconf-expectations: {e}") from None
    return Settings(label, cmd, make, root, exp_path, max_restarts)


def _process_factory(cmd: str, timeout: float | None) -> Callable[[], "Engine"]:
    def make() -> "Engine":
        from .adapter import ProcessEngine

        return ProcessEngine(cmd) if timeout is None else ProcessEngine(cmd, timeout=timeout)
    return make


def _python_factory(spec: str, here: Path) -> Callable[[], "Engine"]:
    """MODULE:FACTORY → a function that calls FACTORY and checks what it returns. The module is
    imported now (a mistake is a usage error); if it is not on sys.path, the folder pytest was
    started in is tried, as `python -m pytest` would put it there."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise pytest.UsageError(f"--palconf-engine {spec!r}: expected MODULE:FACTORY, e.g. "
                                f"palconf.engines:OracleEngine")
    try:
        module = _import(module_name, here)
    except ModuleNotFoundError as e:
        raise pytest.UsageError(f"--palconf-engine {spec!r}: cannot import {module_name!r}: "
                                f"{e}") from None
    except Exception as e:  # the user's module failed while importing: say where
        raise pytest.UsageError(f"--palconf-engine {spec!r}: importing {module_name!r} "
                                f"failed:\n{_user_traceback(e)}") from None
    factory: Any = module
    for part in attr.split("."):
        if not hasattr(factory, part):
            raise pytest.UsageError(f"--palconf-engine {spec!r}: {module_name!r} has no "
                                    f"{attr!r}")
        factory = getattr(factory, part)
    if not callable(factory):
        raise pytest.UsageError(f"--palconf-engine {spec!r}: {attr!r} is not callable")

    def make() -> "Engine":
        try:
            engine = factory()
        except Exception as e:
            from .engines import EngineCrash

            raise EngineCrash(f"the engine factory {spec} raised {type(e).__name__}: {e}",
                              stderr=_user_traceback(e)) from None
        if not all(callable(getattr(engine, m, None)) for m in ("start", "request")):
            from .engines import ProtocolViolation

            raise ProtocolViolation(f"the engine factory {spec} returned "
                                    f"{type(engine).__name__}, not a palconf.engines.Engine "
                                    f"(it needs start() and request(msg))")
        return _InProcess(engine)
    return make


def _import(module_name: str, here: Path) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        top = module_name.split(".")[0]
        if e.name != top or str(here) in sys.path:
            raise
    sys.path.insert(0, str(here))
    return importlib.import_module(module_name)


def _user_traceback(e: BaseException) -> str:
    """The traceback of an exception from the user's engine code, without our own frame."""
    tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
    return "".join(traceback.format_exception(type(e), e, tb)).rstrip()


# ---------------------------------------------------------------- in-process engines

class _InProcess:
    """A Python engine, guarded: an exception from its code is an `EngineCrash` of that case
    (with the engine's traceback as its stderr), and the engine is restarted before the next
    case, as a crashed process would be. It is never the harness's own traceback."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.raised = False
        self.info: EngineInfo

    @property
    def broken(self) -> bool:
        return self.raised or bool(getattr(self.inner, "broken", False))

    def _crash(self, what: str, e: Exception) -> Exception:
        from .engines import EngineCrash

        self.raised = True
        return EngineCrash(f"the engine raised {type(e).__name__} {what}: {e}",
                           stderr=_user_traceback(e))

    def start(self) -> EngineInfo:
        from .engines import EngineFault, EngineInfo, ProtocolViolation

        self.raised = False
        try:
            info = self.inner.start()
        except EngineFault:
            raise
        except Exception as e:
            raise self._crash("in start()", e) from None
        info = info if info is not None else getattr(self.inner, "info", None)
        if not isinstance(info, EngineInfo):
            raise ProtocolViolation("the engine's start() must return its EngineInfo (see "
                                    "palconf.engines.parse_hello)")
        self.info = info
        return info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        from .engines import EngineFault

        try:
            return self.inner.request(msg)  # type: ignore[no-any-return]
        except EngineFault:
            raise
        except Exception as e:
            raise self._crash(f"on `{msg.get('cmd')}`", e) from None

    def restart(self) -> None:
        self.close()
        self.start()

    def take_stderr(self) -> str:
        take = getattr(self.inner, "take_stderr", None)
        try:
            return str(take()) if callable(take) else ""
        except Exception:
            return ""

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                pass


# ---------------------------------------------------------------- the engine of this process

class EngineStopped(Exception):
    """The engine of this process cannot run cases any more: it did not start, or it broke
    more times in a row than the restart limit allows."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr = stderr


class EngineSlot:
    """The one engine of this pytest process (of this xdist worker): started at the first case
    that runs, closed at the end of the session.

    Cases are fed one at a time to `palconf.runner.run_cases` (a generator that pulls the next
    case when asked for the next result), so the restart policy is `palconf run`'s own."""

    def __init__(self, make: Callable[[], Engine], max_restarts: int | None) -> None:
        self.make = make
        self.max_restarts = max_restarts
        self.engine: Engine | None = None
        self.stopped: EngineStopped | None = None
        self._next: Case | None = None
        self._results: Iterator[Result] | None = None

    def run(self, case: Case) -> Result:
        if self.stopped is not None:
            raise EngineStopped(self.stopped.message, self.stopped.stderr)
        if self._results is None:
            self._start()
        assert self._results is not None
        from .runner import RunStopped

        self._next = case
        try:
            return next(self._results)
        except RunStopped as e:
            self.stopped = EngineStopped(f"the engine is stopped: {e}")
            raise self.stopped from None
        except StopIteration:  # only after an exception escaped run_cases: a palconf bug
            raise RuntimeError("palconf's runner ended after an internal error (see the "
                               "first case that failed with a traceback)") from None

    def _start(self) -> None:
        from .engines import EngineFault
        from .runner import DEFAULT_MAX_RESTARTS, run_cases

        engine = None
        try:
            engine = self.make()
            engine.start()
        except EngineFault as e:
            stderr = e.stderr or (engine.take_stderr() if engine is not None else "")
            if engine is not None:
                engine.close()
            self.stopped = EngineStopped(f"the engine did not start: {e.message}", stderr)
            raise self.stopped from None
        self.engine = engine
        limit = DEFAULT_MAX_RESTARTS if self.max_restarts is None else self.max_restarts
        self._results = run_cases(engine, self._feed(), max_restarts=limit)

    def _feed(self) -> Iterator[Case]:
        while True:
            case, self._next = self._next, None
            assert case is not None, "run_cases asked for a case nobody gave it"
            yield case

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


# ---------------------------------------------------------------- the session plugin

class PalconfSession:
    """Registered when `--palconf` is given: adds the cases to the collection, owns this
    process's engine and rewrites the reports of engine errors."""

    def __init__(self, config: pytest.Config, settings: Settings, registry: Registry) -> None:
        self.config = config
        self.settings = settings
        self.registry = registry
        self.slot = EngineSlot(settings.make_engine, settings.max_restarts)
        self.expectations: Expectations | None = None

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        s = self.settings
        line = f"palconf: engine {s.engine_label}; cases {s.cases_root}"
        if s.expectations_path is not None:
            line += f"; expectations {s.expectations_path}"
        return [line]

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(self, collector: pytest.Collector
                                   ) -> Generator[None, pytest.CollectReport,
                                                  pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.append(CaseSuite.from_parent(
                collector, name=ROOT_NAME, nodeid=ROOT_NAME, path=self.settings.cases_root,
                palconf=self))
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]
                                  ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """An engine error is raised in the setup phase (so pytest counts it as an error);
        its report is the case's, as in the call phase, not pytest's traceback."""
        report = yield
        excinfo = call.excinfo
        if (isinstance(item, CaseItem) and call.when == "setup" and report.failed
                and excinfo is not None and isinstance(excinfo.value, CaseProblem)):
            report.longrepr = item.repr_failure(excinfo)
        return report

    def pytest_sessionfinish(self) -> None:
        self.slot.close()

    def load_expectations(self) -> Expectations | None:
        if self.settings.expectations_path is None:
            return None
        if self.expectations is None:
            from .expectations import Expectations

            self.expectations = Expectations.load(self.settings.expectations_path)
        return self.expectations


class CaseSuite(pytest.Collector):
    """The cases folder: one `CaseItem` per case, sorted by case id."""

    def __init__(self, *, palconf: PalconfSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.palconf = palconf

    def collect(self) -> list[CaseItem]:
        from .cases import load_cases

        palconf = self.palconf
        cases = sorted(load_cases(palconf.settings.cases_root, palconf.registry),
                       key=lambda c: c.id)
        expectations = palconf.load_expectations()
        # every xdist worker collects: warn once (in the first worker, or without xdist)
        if expectations is not None and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
            text = _read_text(expectations.path)
            for entry in expectations.unmatched(c.id for c in cases):
                warnings.warn_explicit(
                    PalconfWarning(f"cases.{entry.pattern!r} matches no case in "
                                   f"{palconf.settings.cases_root}"),
                    category=None, filename=str(expectations.path),
                    lineno=_line_of(text, entry.pattern))
        return [CaseItem.from_parent(self, name=case.id, case=case) for case in cases]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        from .cases import CaseLoadError
        from .expectations import ExpectationsError

        if isinstance(excinfo.value, CaseLoadError):
            errors = excinfo.value.errors
            return (f"palconf: {len(errors)} problem(s) in the case files of "
                    f"{self.palconf.settings.cases_root}:\n"
                    + "\n".join(f"  {_clean(str(e))}" for e in errors))
        if isinstance(excinfo.value, ExpectationsError):
            return f"palconf: {_clean(str(excinfo.value))}"
        return super().repr_failure(excinfo, style)


class CaseProblem(Exception):
    """What a case's item raises when the case did not pass; its report is `report`."""

    def __init__(self, report: str) -> None:
        super().__init__(report)
        self.report = report


class CaseItem(pytest.Item):
    """One case. The setup phase drives the engine through the case and judges the result;
    the call phase fails when the engine answered wrongly."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.result: Result | None = None
        self._failure: str | None = None
        for keyword in case.keywords:
            self.add_marker(marker_name(keyword))
        self.add_marker(ROOT_NAME)
        self.extra_keyword_matches.update(case.clauses + case.rules + case.interpretations)
        expectations = self.palconf.load_expectations()
        entry = expectations.skipped(case.id) if expectations is not None else None
        if entry is not None:  # as `palconf run` does: not run at all
            why = _clean(entry.describe() or f"listed as {entry.pattern!r}")
            self.add_marker(pytest.mark.skip(reason=f"skipped by the expectations file: {why}"))

    @property
    def palconf(self) -> PalconfSession:
        return self.parent.palconf  # type: ignore[union-attr,no-any-return]

    @property
    def path_of_case(self) -> Path:
        return self.palconf.settings.cases_root / self.case.path

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path_of_case, 0, self.case.id

    def setup(self) -> None:
        palconf = self.palconf
        try:
            result = palconf.slot.run(self.case)
        except EngineStopped as e:
            self.session.shouldfail = f"palconf: {_clean(e.message)}"
            raise CaseProblem(self._report_stopped(e)) from None
        self.result = result
        expectations = None if self.config.option.runxfail else palconf.load_expectations()
        if expectations is not None:
            expectations.judge(result)
        outcome = result.outcome
        if outcome == "skip":
            # reported at the case file, not at this line (as pytest does for skip marks)
            raise pytest.skip.Exception(_clean(result.message), _use_item_location=True)
        if outcome == "xfail":
            pytest.xfail(self._xfail_reason(result))
        if outcome in ("error", "timeout"):
            raise CaseProblem(self._report(result))
        if outcome == "fail":
            self._failure = self._report(result)
        if outcome == "xpass":  # strict: `palconf run` exits 1 for it too
            self.add_marker(pytest.mark.xfail(reason=self._xpass_reason(result), strict=True))

    def runtest(self) -> None:
        if self._failure is not None:
            raise CaseProblem(self._failure)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseProblem):
            return excinfo.value.report
        return super().repr_failure(excinfo, style)  # a bug in palconf: its traceback

    # -- reports

    def _xfail_reason(self, r: Result) -> str:
        note = f" [{r.note}]" if r.note else ""
        return _clean(f"{r.actual}: {_first_line(r.message)}{note}")

    def _xpass_reason(self, r: Result) -> str:
        path = self.palconf.settings.expectations_path
        note = f" [{r.note}]" if r.note else ""
        return _clean(f"{r.id} passes, but {path} lists it as {' or '.join(r.expected)}{note}: "
                      f"update the file (palconf run --expectations FILE "
                      f"--update-expectations)")

    def _report(self, r: Result) -> str:
        """The case, what it tests and how the engine's answer differs from the expected."""
        case, reg = self.case, self.palconf.registry
        lines = [_clean(f"{r.outcome}: {_first_line(r.message)}"),
                 f"case: {case.id}: {_clean(case.title)}",
                 f"file: {self.path_of_case}"]
        if r.engine:
            lines.append(f"engine: {_clean(r.engine)}")
        if r.step is not None:
            lines.append(f"at: {self._step(r.step)}")
        lines += [f"  {_clean(m)}" for m in r.message.splitlines()[1:]]
        if r.diffs:
            lines.append("expected vs observed:")
            lines += [_clean(f"  {d['path']}: expected {_json(d['expected'])}, observed "
                             f"{_json(d['observed'])}") for d in r.diffs]
        if r.expected:
            note = f" ({r.note})" if r.note else ""
            lines.append(_clean(f"expectations: {self.palconf.settings.expectations_path} "
                                f"lists {' or '.join(r.expected)}{note}"))
        lines += _stderr_tail(r.stderr)
        lines += _cited("clauses", case.clauses, lambda c: _clause_text(reg, c))
        lines += _cited("base rules", case.rules, lambda b: reg.base.get(b, ""))
        lines += _cited("interpretations", case.interpretations,
                        lambda i: str(reg.interpretations.get(i, {}).get("text", "")))
        return "\n".join(lines)

    def _step(self, step: int) -> str:
        actions = self.case.actions
        if step == 0:
            return "after setup"
        action = actions[step - 1] if 0 < step <= len(actions) else None
        return _clean(f"action {step} of {len(actions)}: {_json(action)}")

    def _report_stopped(self, e: EngineStopped) -> str:
        lines = [_clean(f"error: {e.message}"),
                 f"case: {self.case.id}: {_clean(self.case.title)} (not run)",
                 f"engine: {_clean(self.palconf.settings.engine_label)}",
                 "pytest stops here: no case can run against this engine"]
        cmd = self.palconf.settings.engine_cmd
        if cmd is not None:
            lines.append(_clean(f"check the engine with: palconf smoke --engine-cmd "
                                f"{shlex.quote(cmd)}"))
        return "\n".join(lines + _stderr_tail(e.stderr))


# ---------------------------------------------------------------- formatting

def _clean(text: str) -> str:
    """Untrusted text (from the engine, or the case files) safe for a terminal: control
    characters other than newline and tab are shown escaped, never sent as such."""
    if text.isprintable():
        return text
    return "".join(ch if ch in "\n\t" or unicodedata.category(ch)[0] != "C"
                   else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _read_text(path: Path | None) -> str:
    try:
        return path.read_text(encoding="utf-8") if path is not None else ""
    except (OSError, UnicodeDecodeError):
        return ""


def _line_of(text: str, pattern: str) -> int:
    """The line of an expectations entry's table header (1 if it cannot be found)."""
    for n, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("[cases.") and pattern in line:
            return n
    return 1


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _clause_text(registry: Registry, clause_id: str) -> str:
    clause = registry.clauses.get(clause_id)
    if clause is None:
        return ""
    return clause.text.get(registry.current) or clause.summary


def _cited(heading: str, ids: tuple[str, ...], text: Callable[[str], str]) -> list[str]:
    if not ids:
        return []
    lines = [f"{heading}:"]
    for i in ids:
        body = " ".join(text(i).split())
        wrapped = textwrap.wrap(f"{i}: {body}" if body else i, WRAP, initial_indent="  ",
                                subsequent_indent="      ")
        lines += [_clean(w) for w in wrapped]
    return lines


def _stderr_tail(stderr: str) -> list[str]:
    tail = [line for line in stderr.splitlines() if line.strip()][-STDERR_LINES:]
    if not tail:
        return []
    cut = [line if len(line) <= LINE_LIMIT else line[:LINE_LIMIT] + " …" for line in tail]
    return [f"engine stderr (last {len(cut)} line(s)):"] + [f"  | {_clean(x)}" for x in cut]


__all__ = ["CaseItem", "CaseSuite", "PalconfSession", "PalconfWarning", "marker_name"]
