"""palconf inside pytest: every case as a pytest item, for engine authors who already run pytest.

    pytest --palconf --palconf-engine-cmd "java -jar my-engine.jar"     # a protocol v1 process
    pytest --palconf --palconf-engine my_engine:make_engine             # a Python engine

Registered as the `pytest11` entry point `palconf`; it does nothing unless `--palconf` is
given (so the engine options may sit in `addopts` and `--palconf` turn the cases on), and
importing it imports nothing heavy: the harness (jsonschema, the oracle …) is imported only
once `--palconf` is given.

- Before collection (palconf.plugin.contract): the cases are loaded and the engine started
  once; what the user must fix is pytest's usage error (4), a bug in palconf its internal
  error (3), with and without xdist.
- Collection: a collector `palconf` hangs off the session beside the user's own tests, and
  holds one item per case, named by its id (node id `<case file>::<case id>`, which pytest
  takes back on its command line, stable across runs for `--lf`), sorted by id
  (pytest-xdist checks that every worker collected the same list). A case file or folder
  named on the command line is collected instead (`CaseFile`), with the same ids.
  Markers: one per group the case is in (`taunt`, `on_deploy` …: the keyword id with `-`
  as `_`; `protocol` for cases of the protocol rules, `base` for base-rule cases), and
  `palconf` on every case (`-m palconf` runs only the cases). Clause, rule and interpretation
  ids are `-k` keywords too.
- Running: each process (each xdist worker) starts its own engine at its first case and
  closes it at the end of the session. Cases are fed one by one to `run_cases`
  itself, so faults, restarts and the restart limit are exactly those of `palconf run`.
- Outcomes: `pass` passes; `fail` (a wrong answer) fails in the call phase; `error` and
  `timeout` (the engine broke) are pytest errors, raised in the setup phase as a broken
  fixture would be; `skip` skips. A failure's report is the case, its clauses with their rules
  text and the expected-versus-observed difference, never a traceback from inside palconf.
- `--palconf-expectations FILE` is judged as `palconf run` judges it
  (`palconf.running.expectations.Expectations.judge`): a listed outcome is xfail, a listed case that
  passes is a strict XPASS (a failure, as it makes `palconf run` exit 1), `skip` entries are
  not run. `--runxfail` reports every case by its own outcome.

The engine options are `palconf run`'s (palconf.engines.options), checked the same way once
`--palconf` is given. This module holds the options and the session; the engine is
palconf.plugin.engine's, the collector and the items palconf.plugin.items'.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from palconf.core.outcomes import junit_classname
from palconf.engines.options import (
    COMMAND_HELP,
    DEFAULT_TIMEOUT,
    numbers_help,
    restart_count,
    timeout_seconds,
)
from palconf.plugin.contract import check_before_collection, debugging, internal_error, named_paths
from palconf.plugin.engine import EngineSlot, process_factory, python_factory
from palconf.plugin.items import (
    ROOT_NAME,
    CaseFile,
    CaseItem,
    CaseProblem,
    CaseSuite,
    PalconfWarning,
    anchor,
    marker_name,
)
from palconf.plugin.settings import Settings

if TYPE_CHECKING:  # the harness is imported lazily, inside the hooks
    from palconf.cases.loader import Case
    from palconf.registry import Registry
    from palconf.running.expectations import Expectations

__all__ = ["CaseItem", "CaseSuite", "PalconfSession", "PalconfWarning", "marker_name"]


# ---------------------------------------------------------------- options


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("palconf", "palconf: the Pal keyword-rules conformance cases")
    group.addoption(
        "--palconf",
        action="store_true",
        default=False,
        help="collect every palconf case as a test item and run it against the "
        "engine given by --palconf-engine-cmd or --palconf-engine",
    )
    group.addoption(
        "--palconf-engine-cmd",
        metavar="CMD",
        default=None,
        help=f"{COMMAND_HELP}; one process per pytest process or xdist worker",
    )
    group.addoption(
        "--palconf-engine",
        metavar="MODULE:FACTORY",
        default=None,
        help="an in-process Python engine: FACTORY() returns a "
        "palconf.engines.Engine (palconf.engines:OracleEngine is the "
        "reference oracle)",
    )
    group.addoption(
        "--palconf-cases",
        metavar="DIR",
        default=None,
        help="the cases folder (default: the cases palconf ships)",
    )
    group.addoption(
        "--palconf-expectations",
        metavar="FILE",
        default=None,
        help="a palconf expectations file: listed failures are xfail, listed cases "
        "that pass are XPASS (strict), `skip` entries are not run",
    )
    group.addoption(
        "--palconf-rules",
        metavar="VERSION",
        default=None,
        help="the rules version whose cases to collect (as `palconf run --rules`): the "
        "cases of other versions are left out, those of its suite that do not hold for it "
        "as they stand are skipped with the reason (default: the registry's current version)",
    )
    # checked once --palconf is given (the options may sit in addopts without it)
    group.addoption(
        "--palconf-timeout",
        metavar="SECONDS",
        default=None,
        help=numbers_help(
            f"seconds to wait for each reply of --palconf-engine-cmd (default: "
            f"palconf run's, {DEFAULT_TIMEOUT:g})",
            timeout_seconds,
        ),
    )
    group.addoption(
        "--palconf-max-restarts",
        metavar="N",
        default=None,
        help=numbers_help(
            "stop when the engine has been restarted N times in a row without "
            "completing a case (default: palconf run's, 5)",
            restart_count,
        ),
    )


#: The plugin's options whose value is a path (pytest may take it for a test path).
PATH_OPTIONS = ("--palconf-expectations", "--palconf-cases")


def warn_space_form(config: pytest.Config) -> None:
    """pytest chooses its root folder from the command line before any plugin's option
    exists, so in `--palconf-expectations /abs/exp.toml` it takes the path for a test path,
    and a path outside the current folder moves the root folder (and with it node ids,
    conftest files, the cache). It cannot be undone from here: say so, and how to write it."""
    args = list(config.invocation_params.args)
    here = config.invocation_params.dir
    for option, value in zip(args, args[1:], strict=False):
        if option not in PATH_OPTIONS or value.startswith("-"):
            continue
        path = Path(here, value)
        if path.exists() and not path.resolve().is_relative_to(here.resolve()):
            config.issue_config_time_warning(
                PalconfWarning(
                    f"`{option} {value}` (with a space): pytest took {value} for a test "
                    f"path when it chose its root folder ({config.rootpath}); write "
                    f"`{option}={value}` to keep the root folder"
                ),
                stacklevel=2,
            )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("palconf"):
        return
    warn_space_form(config)
    settings = _settings(config)
    from palconf.core.errors import UsageError
    from palconf.registry import load as load_registry

    try:
        registry = load_registry()
        version = registry.resolve(settings.rules)
    except UsageError as e:  # a broken registry: pytest's usage error (exit 4), no traceback
        where = "--palconf-rules: " if settings.rules else ""
        raise pytest.UsageError(f"palconf: {where}{e}") from None
    config.addinivalue_line("markers", f"{ROOT_NAME}: a palconf conformance case")
    for group in registry.groups:
        config.addinivalue_line(
            "markers", f"{marker_name(group)}: palconf cases testing {registry.keyword_name(group)}"
        )
    session = PalconfSession(config, settings, registry, version)
    config.pluginmanager.register(session, "palconf-session")


def _checked(config: pytest.Config, name: str, check: Callable[[str], float]) -> float | None:
    """An option of a checked type (`palconf.engines.options`), or None when not given."""
    import argparse

    raw = config.getoption(name.replace("-", "_"))
    if raw is None:
        return None
    try:
        return check(str(raw))
    except argparse.ArgumentTypeError as e:
        raise pytest.UsageError(f"--{name}: {e}") from None


def _settings(config: pytest.Config) -> Settings:
    """Check the options now, so that a mistake is a usage error before anything runs."""
    here = config.invocation_params.dir
    cmd = config.getoption("palconf_engine_cmd")
    spec = config.getoption("palconf_engine")
    if (cmd is None) == (spec is None):
        raise pytest.UsageError(
            "--palconf needs exactly one engine: --palconf-engine-cmd CMD (a process speaking "
            "protocol v1) or --palconf-engine MODULE:FACTORY (a Python engine; "
            "palconf.engines:OracleEngine is the reference oracle)"
        )
    timeout = _checked(config, "palconf-timeout", timeout_seconds)
    restarts = _checked(config, "palconf-max-restarts", restart_count)
    max_restarts = None if restarts is None else int(restarts)
    if cmd is not None:
        from palconf.engines.process import EngineCommandError, split_command

        try:
            split_command(cmd)
        except EngineCommandError as e:
            raise pytest.UsageError(f"--palconf-engine-cmd: {e}") from None
        label = cmd
        make = process_factory(cmd, DEFAULT_TIMEOUT if timeout is None else timeout)
    else:
        label, make = spec, python_factory(spec, here)
    from palconf import paths

    option = config.getoption("palconf_cases")
    root = Path(os.path.abspath(Path(here, option) if option is not None else paths.CASES))
    if not root.is_dir():
        if option is None:
            where = paths.where_from(root, "PALCONF_CASES")
            raise pytest.UsageError(f"palconf: the suite's cases are missing: {where}")
        raise pytest.UsageError(f"--palconf-cases: {root}: no such folder")
    expectations = config.getoption("palconf_expectations")
    exp_path = Path(here, expectations) if expectations is not None else None
    if exp_path is not None and not exp_path.is_file():
        raise pytest.UsageError(f"--palconf-expectations: {exp_path}: no such file")
    if exp_path is not None:
        from palconf.running.expectations import Expectations, ExpectationsError

        try:
            Expectations.load(exp_path)  # loaded again by each process that collects
        except ExpectationsError as e:
            raise pytest.UsageError(f"--palconf-expectations: {e}") from None
    rules = config.getoption("palconf_rules")
    return Settings(label, cmd, make, root, exp_path, max_restarts, rules)


# ---------------------------------------------------------------- the session plugin


class PalconfSession:
    """Registered when `--palconf` is given: adds the cases to the collection, owns this
    process's engine and rewrites the reports of engine errors."""

    def __init__(
        self,
        config: pytest.Config,
        settings: Settings,
        registry: Registry,
        rules_version: str | None = None,
    ) -> None:
        self.config = config
        self.settings = settings
        self.registry = registry
        self.rules_version = rules_version or registry.current
        self.slot = EngineSlot(settings.make_engine, settings.max_restarts)
        self.expectations: Expectations | None = None
        self.unfit: dict[str, str] = {}
        self._cases: list[Case] | None = None
        self.named: list[Path] = []  # case files and folders named on the command line
        self.internal: list[str] = []  # palconf's own failures (exit 3)
        self.stopped = False  # the engine broke past the restart limit (exit 1)

    def suite(self) -> list[Case]:
        """The cases of the rules version's suite, sorted by id (loaded once per process);
        `unfit` says which of them do not hold for the version as they stand."""
        if self._cases is None:
            from palconf.cases.loader import load_cases
            from palconf.cases.standing import as_of, standing
            from palconf.running.carried import carried_unfit

            version, registry = self.rules_version, self.registry
            cases, unfit = [], {}
            loaded = load_cases(self.settings.cases_root, registry)
            for case in sorted(loaded, key=lambda c: c.id):
                s = standing(case, registry, version)
                if s.in_suite:  # a case of other versions only is not collected
                    cases.append(as_of(case, registry, version))
                    if not s.runs:
                        unfit[case.id] = f"not for rules {version} as it stands: {s.reason()}"
            runs = [c for c in cases if c.id not in unfit]
            for cid, why in carried_unfit(runs, registry, version).items():
                unfit[cid] = f"not for rules {version} as it stands: {why}"
            self.unfit, self._cases = unfit, cases
        return self._cases

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.named = named_paths(self.config, self.settings.cases_root)
        check_before_collection(self, self.config)

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> CaseFile | None:
        """A case file named on the command line, or inside a cases folder named there."""
        root = self.settings.cases_root
        if file_path.suffix != ".toml" or root not in file_path.parents:
            return None
        if not any(p == file_path or p in file_path.parents for p in self.named):
            return None
        nodeid = anchor(file_path, self.config.rootpath)
        return CaseFile.from_parent(parent, path=file_path, nodeid=nodeid, palconf=self)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        s = self.settings
        line = f"palconf: engine {s.engine_label}; cases {s.cases_root}; rules {self.rules_version}"
        if s.expectations_path is not None:
            line += f"; expectations {s.expectations_path}"
        return [line]

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed and not self.named:
            report.result.append(
                CaseSuite.from_parent(
                    collector,
                    name=ROOT_NAME,
                    nodeid=ROOT_NAME,
                    path=self.settings.cases_root,
                    palconf=self,
                )
            )
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """An engine error is raised in the setup phase (so pytest counts it as an error);
        its report is the case's, as in the call phase, not pytest's traceback."""
        report = yield
        excinfo = call.excinfo
        if (
            isinstance(item, CaseItem)
            and call.when == "setup"
            and report.failed
            and excinfo is not None
            and isinstance(excinfo.value, CaseProblem)
        ):
            report.longrepr = item.repr_failure(excinfo)
            if excinfo.value.stopped:  # travels to xdist's controller: see sessionfinish
                report.palconf_stopped = True  # type: ignore[attr-defined]
        elif (
            isinstance(item, CaseItem)
            and report.failed
            and excinfo is not None
            and not isinstance(excinfo.value, (CaseProblem, pytest.fail.Exception))
        ):  # palconf's own failure: one line, exit 3 (the traceback with PALCONF_DEBUG=1)
            line = internal_error(excinfo.value)
            report.longrepr = f"{report.longrepr}\n{line}" if debugging() else line
            report.palconf_internal = line.splitlines()[0]  # type: ignore[attr-defined]
        if isinstance(item, CaseItem):  # travels with the report to xdist's controller
            report.palconf_classname = junit_classname(item.case.keywords)  # type: ignore[attr-defined]
        return report

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """`--junitxml`: a case's classname as `palconf report`'s junit.xml has it
        (`palconf.taunt`, not `palconf`). Set once junitxml has opened the test case; its
        later phases keep it (junitxml restores the attributes set before)."""
        internal = getattr(report, "palconf_internal", None)
        if isinstance(internal, str):
            self.internal.append(internal)
        if getattr(report, "palconf_stopped", False) is True:
            self.stopped = True
        name = getattr(report, "palconf_classname", None)
        if not isinstance(name, str):
            return
        try:
            from _pytest.junitxml import xml_key
        except ImportError:  # a pytest without it: the classname stays pytest's
            return
        xml = self.config.stash.get(xml_key, None)
        if xml is not None and report.when != "teardown":
            xml.node_reporter(report).attrs["classname"] = name

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.slot.close()
        if self.internal:  # a bug in palconf is never read as a finding about the engine
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
        elif self.stopped and session.exitstatus == pytest.ExitCode.INTERRUPTED:
            # the engine broke past the restart limit: a finding (1), as without xdist, not
            # the interruption xdist makes of a worker's stop
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.internal:
            terminalreporter.write_sep("=", "palconf: internal error", red=True)
            terminalreporter.write_line(
                f"{len(self.internal)} case(s) met a bug in palconf (exit 3), the first: "
                f"{self.internal[0]}"
            )

    def load_expectations(self) -> Expectations | None:
        if self.settings.expectations_path is None:
            return None
        if self.expectations is None:
            from palconf.running.expectations import Expectations

            self.expectations = Expectations.load(self.settings.expectations_path)
        return self.expectations
