"""The pytest plugin (palconf/pytest_plugin.py): palconf cases as pytest items.

Each test runs pytest inside pytest (pytester) on a small cases folder copied from the corpus,
against a deliberately wrong in-process engine (`BROKEN_ENGINE` below) or the broken engine
process of tests/engines/broken.py. What the plugin reports is held against what
`palconf.running.runner.run_case` says of the same cases with the same engine, so the tests check
the plugin's mapping, not numbers copied from a run.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from palconf import paths
from palconf.cases.loader import case_files, load_cases
from palconf.core import BaseEngine, Engine, EngineCrash, EngineInfo, Outcome, Result
from palconf.registry import load as load_registry
from palconf.reports.junit import classname
from palconf.running.expectations import Expectations
from palconf.running.runner import run_case

pytest_plugins = ["pytester"]

ENGINES = Path(__file__).parent / "engines"
BROKEN_PROCESS = ENGINES / "broken.py"

#: A small corpus: cases the broken engine fails (taunt ignored, life loss doubled), cases it
#: passes, one that deploys (the engine raises there), one case testing two keywords, one of
#: the protocol group, and folders whose order differs from their cases' ids
#: (interactions/ix-… and interrupt/…).
SMALL = (
    "taunt/taunt-rested-taunt-pal-must-be-targeted-over-master.toml",
    "taunt/taunt-double-taunt-standing-binds-assault-attacker.toml",
    "base/base-battle-master-loses-strike-not-power.toml",
    "base/base-battle-blocker-battles-instead-of-target.toml",
    "on-deploy/on-deploy-choices-follow-ability-order.toml",
    "nocturnal/nocturnal-blocker-wins-at-night.toml",
    "interactions/ix-brave-taunt-attacked-taunt-pal-gets-no-brave.toml",
    "interrupt/interrupt-after-quick-actions-keeps-their-effects.toml",  # id order ≠ path order
    "protocol/protocol-state-default-turn-is-1.toml",  # the protocol group
)

#: A wrong engine, as an engine author's module would define it (written to a temp module).
BROKEN_ENGINE = '''
from palconf.oracle.rules import Rules
from palconf.engines.oracle_engine import OracleEngine


class BrokenRules(Rules):
    """Taunt restricts nothing, and a master loses twice the life it should."""

    def legal_targets(self, g, attacker):
        targets = super().legal_targets(g, attacker)
        return targets if "master" in targets else ["master"] + targets

    def lose_life(self, g, player, amount):
        return super().lose_life(g, player, 2 * amount)


class BrokenEngine(OracleEngine):
    """...and it raises when asked to deploy."""

    def request(self, msg):
        if msg.get("cmd") == "act" and msg["action"].get("do") == "deploy":
            raise RuntimeError("deploying is not written yet")
        return super().request(msg)


def make():
    return BrokenEngine(rules=BrokenRules, name="broken-engine")
'''

ORACLE = "palconf.engines:OracleEngine"
#: pytest's word for each outcome of palconf's (xpass: strict, a failure, as palconf run's
#: exit status says).
PYTEST_WORD = {
    "pass": "passed",
    "fail": "failed",
    "error": "error",
    "timeout": "error",
    "skip": "skipped",
    "xfail": "xfailed",
    "xpass": "failed",
}


@pytest.fixture
def small(pytester: pytest.Pytester) -> Path:
    """The small cases folder in the pytester folder, and the broken engine's module."""
    root = pytester.path / "cases"
    for rel in SMALL:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.CASES / rel, root / rel)
    (pytester.path / "broken_engine.py").write_text(BROKEN_ENGINE, encoding="utf-8")
    return root


def reference(root: Path, expectations: Expectations | None = None) -> dict[str, Result]:
    """What palconf's own runner says of each case against the broken engine."""
    namespace: dict[str, Any] = {}
    exec(compile(BROKEN_ENGINE, "broken_engine.py", "exec"), namespace)
    engine = Guarded(namespace["make"]())
    engine.start()
    results = {}
    for case in load_cases(root):
        result = run_case(engine, case)
        if result.outcome == "error":
            engine.restart()
        if expectations is not None:
            if expectations.skipped(case.id):
                result.outcome = Outcome.SKIP
            else:
                expectations.judge(result)
        results[case.id] = result
    return results


class Guarded(BaseEngine):
    """An in-process engine whose exceptions are engine faults (an `error` of the case)."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner

    def start(self) -> EngineInfo:
        self.info = self.inner.start()
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        try:
            return self.inner.request(msg)
        except RuntimeError as e:
            raise EngineCrash(str(e)) from None


def palconf_args(root: Path, *more: str, engine: str = "broken_engine:make") -> list[str]:
    return [
        "-p",
        "no:cacheprovider",
        "--palconf",
        "--palconf-engine",
        engine,
        f"--palconf-cases={root}",
        *more,
    ]


def junit_outcomes(path: Path) -> dict[str, str]:
    """Case id → pytest outcome, from a JUnit XML file."""
    out = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        assert str(tc.get("classname")).startswith("palconf."), tc.get("classname")
        kinds = [child.tag for child in tc if child.tag in ("failure", "error", "skipped")]
        skipped = next((c for c in tc if c.tag == "skipped"), None)
        if not kinds:
            word = "passed"
        elif kinds[0] == "skipped":
            word = (
                "xfailed"
                if skipped is not None and skipped.get("type") == "pytest.xfail"
                else "skipped"
            )
        else:
            word = {"failure": "failed", "error": "error"}[kinds[0]]
        out[str(tc.get("name"))] = word
    return out


def report_section(result: pytest.RunResult, case_id: str) -> str:
    """The report of one case in pytest's output, with runs of white space made one space."""
    lines = result.stdout.lines
    head = re.compile(rf"^_+ (ERROR at setup of )?{re.escape(case_id)} _+$")
    start = next(n for n, line in enumerate(lines) if head.match(line)) + 1
    end = next(
        n for n in range(start, len(lines)) if re.match(r"^(_{3,} .* _{3,}|={3,}.*)$", lines[n])
    )
    return " ".join(" ".join(lines[start:end]).split())


def collected_ids(result: pytest.RunResult) -> list[str]:
    """The case ids of `--collect-only -q`: node ids `<case file>::<case id>`."""
    return [line.split("::")[-1] for line in result.stdout.lines if ".toml::" in line]


# ---------------------------------------------------------------- registration and switching on


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, palconf.plugin.hooks; "
        "print(sorted(m for m in ('jsonschema', 'hypothesis', 'jinja2', 'palconf.oracle', "
        "'palconf.engines.oracle_engine', 'palconf.cases.loader', 'palconf.running.runner', "
        "'palconf.engines.process', 'tomli') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_entry_point_registers_the_plugin_and_it_stays_off_without_palconf(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    help_text = pytester.runpytest("--help")
    help_text.stdout.fnmatch_lines(["*--palconf *", "*--palconf-engine-cmd=CMD*"])
    # engine options without --palconf (e.g. in addopts) change nothing, not even checked
    result = pytester.runpytest("--palconf-engine", "no.such:thing", "-q")
    result.assert_outcomes(passed=1)
    assert ".toml::" not in result.stdout.str()
    markers = pytester.runpytest("--markers")
    assert "on_deploy:" not in markers.stdout.str()


def test_markers_are_registered_with_palconf(pytester: pytest.Pytester, small: Path) -> None:
    result = pytester.runpytest(*palconf_args(small, "--markers"))
    registry = load_registry()
    for kid in registry.keywords:
        result.stdout.fnmatch_lines([f"@pytest.mark.{kid.replace('-', '_')}: palconf cases*"])
    for name in ("base", "protocol", "palconf"):
        result.stdout.fnmatch_lines([f"@pytest.mark.{name}: *"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "--palconf needs exactly one engine"),
        (["--palconf-engine", ORACLE, "--palconf-engine-cmd", "x"], "exactly one engine"),
        (["--palconf-engine", "palconf.engines"], "expected MODULE:FACTORY"),
        (["--palconf-engine", "no_such_module_xyz:make"], "cannot import 'no_such_module_xyz'"),
        (["--palconf-engine", "palconf.engines:NoSuchFactory"], "has no 'NoSuchFactory'"),
        (["--palconf-engine", "palconf.engines:__doc__"], "is not callable"),
        (["--palconf-engine-cmd", "engine 'unclosed"], "cannot parse"),
        (["--palconf-engine", ORACLE, "--palconf-cases", "no/such/dir"], "no such folder"),
        (["--palconf-engine", ORACLE, "--palconf-expectations", "missing.toml"], "no such file"),
        (
            ["--palconf-engine", ORACLE, "--palconf-timeout", "0"],
            "must be a number from more than 0 to 86400 seconds",
        ),
        (
            ["--palconf-engine", ORACLE, "--palconf-timeout", "-1"],
            "must be a number from more than 0 to 86400 seconds",
        ),
        (
            ["--palconf-engine", ORACLE, "--palconf-timeout", "nan"],
            "must be a number from more than 0 to 86400 seconds",
        ),
        (
            ["--palconf-engine", ORACLE, "--palconf-timeout", "inf"],
            "must be a number from more than 0 to 86400 seconds",
        ),
        (["--palconf-engine", ORACLE, "--palconf-timeout", "abc"], "more than 0 to 86400"),
        (["--palconf-engine", ORACLE, "--palconf-timeout", "99999999"], "more than 0 to 86400"),
        (["--palconf-engine", ORACLE, "--palconf-max-restarts", "-1"], "from 0 to 1000"),
        (["--palconf-engine", ORACLE, "--palconf-max-restarts", "x"], "a whole number from 0"),
        (["--palconf-engine-cmd", "   "], "the engine command is empty"),
    ],
)
def test_bad_options_are_usage_errors(
    pytester: pytest.Pytester, args: list[str], message: str
) -> None:
    result = pytester.runpytest("-p", "no:cacheprovider", "--palconf", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
    assert "Traceback" not in result.stderr.str()


def test_a_broken_expectations_file_is_a_usage_error(
    pytester: pytest.Pytester, small: Path
) -> None:
    (pytester.path / "exp.toml").write_text('[cases.x]\noutcome = "sometimes"\n')
    result = pytester.runpytest(*palconf_args(small, "--palconf-expectations", "exp.toml"))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown outcome(s) 'sometimes'" in result.stderr.str()


# ---------------------------------------------------------------- collection


@pytest.mark.slow
def test_the_whole_corpus_is_collected_and_passes_against_the_oracle(
    pytester: pytest.Pytester,
) -> None:
    """One item per case file, named by its id (= the file name), in id order; the oracle
    passes them all."""
    stems = sorted(p.stem for p in case_files(paths.CASES))
    assert len(stems) > 500
    result = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        "--palconf",
        "--palconf-engine",
        ORACLE,
        "-q",
        "--junitxml",
        "all.xml",
    )
    result.assert_outcomes(passed=len(stems))
    names = [tc.get("name") for tc in ET.parse(pytester.path / "all.xml").iter("testcase")]
    assert names == stems


def test_collection_is_one_item_per_case_sorted_by_id(
    pytester: pytest.Pytester, small: Path
) -> None:
    result = pytester.runpytest(*palconf_args(small, "--collect-only", "-q"))
    ids = collected_ids(result)
    assert ids == sorted(c.id for c in load_cases(small))
    assert len(ids) == len(SMALL)


def test_the_cases_sit_beside_the_users_own_tests(pytester: pytest.Pytester, small: Path) -> None:
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    both = pytester.runpytest(*palconf_args(small, "--collect-only", "-q"))
    both.stdout.fnmatch_lines(["test_own.py::test_own", "cases/*.toml::*"])
    only = pytester.runpytest(*palconf_args(small, "--collect-only", "-q", "-m", "palconf"))
    assert "test_own" not in only.stdout.str()
    assert len(collected_ids(only)) == len(SMALL)


@pytest.mark.parametrize("keyword", ["taunt", "on-deploy", "base", "brave", "protocol"])
def test_a_marker_per_keyword_selects_exactly_its_cases(
    pytester: pytest.Pytester, small: Path, keyword: str
) -> None:
    expected = sorted(c.id for c in load_cases(small) if keyword in c.keywords)
    assert expected, f"the small corpus has no {keyword} case"
    result = pytester.runpytest(
        *palconf_args(
            small,
            "--collect-only",
            "-q",
            "--strict-markers",
            "-W",
            "error",
            # in-process, the outer pytest's own import of palconf cannot be rewritten: not ours
            "-W",
            "ignore::pytest.PytestAssertRewriteWarning",
            "-m",
            keyword.replace("-", "_"),
        )
    )
    assert result.ret == pytest.ExitCode.OK
    assert collected_ids(result) == expected


def test_k_matches_case_ids_and_clause_ids(pytester: pytest.Pytester, small: Path) -> None:
    result = pytester.runpytest(*palconf_args(small, "--collect-only", "-q", "-k", "master-loses"))
    assert collected_ids(result) == ["base-battle-master-loses-strike-not-power"]
    result = pytester.runpytest(*palconf_args(small, "--collect-only", "-q", "-k", "brave.3"))
    assert collected_ids(result) == sorted(
        c.id for c in load_cases(small) if "brave.3" in c.clauses
    )


# ---------------------------------------------------------------- outcomes and reports


def test_outcomes_are_palconfs_own(pytester: pytest.Pytester, small: Path) -> None:
    ref = reference(small)
    words = {cid: PYTEST_WORD[r.outcome] for cid, r in ref.items()}
    assert {"passed", "failed", "error"} <= set(words.values())
    result = pytester.runpytest(*palconf_args(small, "--junitxml", "out.xml"))
    assert junit_outcomes(pytester.path / "out.xml") == words
    # the classname is the one palconf report's junit.xml gives the case (palconf.<group>)
    got = {
        tc.get("name"): tc.get("classname")
        for tc in ET.parse(pytester.path / "out.xml").getroot().iter("testcase")
    }
    assert got == {cid: classname(r.groups) for cid, r in ref.items()}
    counts = {w: list(words.values()).count(w) for w in set(words.values())}
    result.assert_outcomes(passed=counts["passed"], failed=counts["failed"], errors=counts["error"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_a_failures_report_is_the_case_not_a_traceback(
    pytester: pytest.Pytester, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "1000")  # the short summary is cut to the terminal width
    ref = reference(small)
    registry = load_registry()
    cases = {c.id: c for c in load_cases(small)}
    result = pytester.runpytest(*palconf_args(small))
    out = result.stdout.str()
    failing = [r for r in ref.values() if r.outcome == "fail"]
    assert any(r.diffs for r in failing) and any(r.clauses for r in failing)
    for r in failing:
        case = cases[r.id]
        section = report_section(result, r.id)
        assert section.startswith(f"fail: {' '.join(r.message.split())} case: ")
        assert f"case: {r.id}: {case.title}" in section
        assert f"file: {small / case.path}" in section
        for clause in case.clauses:
            text = " ".join(registry.clauses[clause].text[registry.current].split())
            assert f"{clause}: {text}" in section
        for rule in case.rules:
            assert f"{rule}: {' '.join(registry.base[rule].split())}" in section
        for d in r.diffs:
            assert (
                f"{d.path}: expected {json.dumps(d.expected, sort_keys=True)}, "
                f"observed {json.dumps(d.observed, sort_keys=True)}"
            ) in section
        assert "Traceback" not in section
        # the short summary names the case and the first line of what went wrong
        assert re.search(
            rf"FAILED cases/{re.escape(str(case.path))}::{re.escape(r.id)} - fail: ", out
        )
    assert "palconf/runner.py" not in out and "pytest_plugin.py" not in out


def test_an_engine_error_is_a_pytest_error_with_the_engines_own_traceback(
    pytester: pytest.Pytester, small: Path
) -> None:
    ref = reference(small)
    errors = [r for r in ref.values() if r.outcome == "error"]
    assert errors
    result = pytester.runpytest(*palconf_args(small))
    out = result.stdout.str()
    for r in errors:
        result.stdout.fnmatch_lines(
            [
                f"*ERROR at setup of {r.id}*",
                "error: the engine raised RuntimeError on `act`: deploying is not written yet",
                f"case: {r.id}: {r.title}",
                "engine stderr (last * line(s)):",
                "  | Traceback (most recent call last):",
                '  |   File "*broken_engine.py", line *, in request',
                "*RuntimeError: deploying is not written yet",
            ]
        )
    assert "palconf/runner.py" not in out


@pytest.mark.slow  # waits for a hanging engine's timeout
def test_a_crashing_and_a_hanging_engine_process(pytester: pytest.Pytester, small: Path) -> None:
    """The engine process crashes (then hangs) on one case: that case is an error with the
    engine's message and stderr; the engine is restarted and the other cases pass."""
    sys.path.insert(0, str(ENGINES))
    try:
        from broken import fingerprint
    finally:
        sys.path.remove(str(ENGINES))
    victim = next(c for c in load_cases(small) if c.id.startswith("nocturnal-"))
    pids = pytester.path / "pids"
    for mode, message in (
        ("crash", "error: the engine exited with status 3 while answering"),
        ("hang", "timeout: timeout on `act`: no reply within 0.5 s"),
    ):
        cmd = (
            f"{shlex.quote(sys.executable)} {shlex.quote(str(BROKEN_PROCESS))} {mode} "
            f"--on {fingerprint(victim.setup)} --pidfile {shlex.quote(str(pids))}"
        )
        result = pytester.runpytest(
            "-p",
            "no:cacheprovider",
            "--palconf",
            "--palconf-engine-cmd",
            cmd,
            "--palconf-cases",
            str(small),
            "--palconf-timeout",
            "0.5",
        )
        result.assert_outcomes(passed=len(SMALL) - 1, errors=1)
        result.stdout.fnmatch_lines([f"*ERROR at setup of {victim.id}*", f"{message}*"])
        if mode == "crash":
            result.stdout.fnmatch_lines(["  | broken engine: crashing on purpose at `act`"])
        started = pids.read_text().split()
        assert len(started) == 2  # the first engine and its restart
        for pid in started:
            assert not _alive(int(pid))
        pids.unlink()


def test_x_stops_at_the_first_failure(pytester: pytest.Pytester, small: Path) -> None:
    result = pytester.runpytest(*palconf_args(small, "-x"))
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) + outcomes.get("errors", 0) == 1
    result.stdout.fnmatch_lines(["*stopping after 1 failures*"])


def test_lf_reruns_only_the_cases_that_failed(pytester: pytest.Pytester, small: Path) -> None:
    ref = reference(small)
    bad = sorted(cid for cid, r in ref.items() if r.outcome in ("fail", "error"))
    args = ["--palconf", "--palconf-engine", "broken_engine:make", "--palconf-cases", str(small)]
    first = pytester.runpytest(*args)
    assert first.ret == pytest.ExitCode.TESTS_FAILED
    again = pytester.runpytest(*args, "--lf", "-v")
    ran = sorted(re.findall(r"^cases/\S+\.toml::(\S+) ", again.stdout.str(), re.M))
    assert ran == bad
    again.stdout.fnmatch_lines([f"*{len(ref) - len(bad)} deselected*"])


# ---------------------------------------------------------------- expectations

EXPECTATIONS = """
[cases."taunt-*"]
outcome = "fail"
note = "Taunt is not written yet"

[cases.base-battle-master-loses-strike-not-power]
outcome = "error"

[cases.nocturnal-blocker-wins-at-night]
outcome = "fail"

[cases."on-deploy-*"]
outcome = "skip"
note = "deploying is not written yet"

[cases.no-such-case]
outcome = "fail"
"""


def test_expectations_make_known_failures_xfail(
    pytester: pytest.Pytester, small: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listed failure is xfail; a listed case that passes is XPASS(strict); a case failing
    otherwise than listed fails; `skip` entries are not run; a stale entry is a warning."""
    monkeypatch.setenv("COLUMNS", "1000")  # -rA summary lines are cut to the terminal width
    # in-process, the inner run would take the outer xdist worker's name (the stale-entry
    # warning is given by the first worker only)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    path = pytester.path / "exp.toml"
    path.write_text(EXPECTATIONS)
    stale_line = EXPECTATIONS.splitlines().index("[cases.no-such-case]") + 1
    expectations = Expectations.load(path)
    ref = reference(small, expectations)
    words = {cid: PYTEST_WORD[r.outcome] for cid, r in ref.items()}
    by_outcome = {o: sorted(c for c, r in ref.items() if r.outcome == o) for o in PYTEST_WORD}
    assert by_outcome["xfail"] and by_outcome["xpass"] and by_outcome["skip"]
    # a listed case failing otherwise than listed (fail, listed as error) stays a failure
    assert ref["base-battle-master-loses-strike-not-power"].outcome == "fail"
    result = pytester.runpytest(
        *palconf_args(small, "--palconf-expectations", "exp.toml", "-rA", "--junitxml", "out.xml")
    )
    assert junit_outcomes(pytester.path / "out.xml") == words
    for cid in by_outcome["xfail"]:
        # pytest 9.2 names the phase ("XFAIL at setup of cases/…"); older ones do not
        result.stdout.fnmatch_lines(
            [f"XFAIL*cases/*.toml::{cid} - fail: *[[]Taunt is not written yet[]]"]
        )
    for cid in by_outcome["xpass"]:
        result.stdout.fnmatch_lines([f"FAILED*cases/*.toml::{cid} - *"])
        report = report_section(result, cid)
        assert report.startswith(f"[XPASS(strict)] {cid} passes, but {path} lists it as fail")
        assert "--update-expectations" in report
    result.stdout.fnmatch_lines(
        [
            "SKIPPED [[]1[]] cases/on-deploy/*: skipped by the expectations file: deploying is not "
            "written yet"
        ]
    )
    result.stdout.fnmatch_lines(
        [f"*exp.toml:{stale_line}: PalconfWarning: cases.'no-such-case' matches no case*"]
    )
    result.stdout.fnmatch_lines(["expectations: *exp.toml lists error"])
    # --runxfail: every case by its own outcome (the skip entries still skip)
    raw = pytester.runpytest(
        *palconf_args(small, "--palconf-expectations", "exp.toml", "--runxfail")
    )
    own = reference(small)
    raw.assert_outcomes(
        passed=sum(r.outcome == "pass" for r in own.values()),
        failed=sum(r.outcome == "fail" for r in own.values()),
        skipped=len(by_outcome["skip"]),
    )


# ---------------------------------------------------------------- pytest-xdist


@pytest.mark.slow
def test_xdist_gives_the_serial_outcomes(pytester: pytest.Pytester, small: Path) -> None:
    (pytester.path / "exp.toml").write_text(EXPECTATIONS)
    args = palconf_args(small, "--palconf-expectations", "exp.toml")
    pytester.runpytest(*args, "--junitxml", "serial.xml")
    serial = junit_outcomes(pytester.path / "serial.xml")
    assert {"passed", "failed", "xfailed", "skipped"} <= set(serial.values())
    parallel = pytester.runpytest_subprocess(*args, "-n", "2", "--junitxml", "parallel.xml")
    assert "Different tests were collected" not in parallel.stdout.str()
    assert junit_outcomes(pytester.path / "parallel.xml") == serial
    # the stale entry is reported once, not once per worker
    assert parallel.stdout.str().count("matches no case") == 1


@pytest.mark.slow
def test_xdist_starts_one_engine_process_per_worker(pytester: pytest.Pytester, small: Path) -> None:
    pids = pytester.path / "pids"
    cmd = (
        f"{shlex.quote(sys.executable)} {shlex.quote(str(BROKEN_PROCESS))} ok "
        f"--pidfile {shlex.quote(str(pids))}"
    )
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--palconf",
        "--palconf-engine-cmd",
        cmd,
        "--palconf-cases",
        str(small),
        "-n",
        "2",
    )
    result.assert_outcomes(passed=len(SMALL))
    started = pids.read_text().split()
    # the controller's check before collection (closed at once), then one per worker
    assert len(started) == 3 and len(set(started)) == 3
    for pid in started:
        assert not _alive(int(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_space_form_of_a_path_option_outside_the_folder_is_a_warning(
    pytester: pytest.Pytester, small: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """pytest chooses its root folder before the plugin's options exist; the plugin says
    so, and how to write the option, when a path outside the folder was taken for a test
    path."""
    exp = tmp_path_factory.mktemp("outside") / "exp.toml"
    exp.write_text(EXPECTATIONS)
    spaced = pytester.runpytest(*palconf_args(small, "--palconf-expectations", str(exp)))
    out = spaced.stdout.str()
    assert f"`--palconf-expectations {exp}` (with a space)" in out
    assert f"write `--palconf-expectations={exp}`" in out
    joined = pytester.runpytest(*palconf_args(small, f"--palconf-expectations={exp}"))
    assert "(with a space)" not in joined.stdout.str()
    assert f"rootdir: {pytester.path}" in joined.stdout.str()
