"""Where palconf finds its data (palconf/paths.py), `palconf --version`, and a clear message
when the data is missing. Building the wheel and running it from an empty folder is CI's
`.ci/wheel-check` (it needs a build environment from the package index)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from palconf import __version__, paths
from palconf.cases.loader import case_files
from palconf.registry import load as load_registry

ROOT = Path(__file__).resolve().parent.parent


def palconf(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PALCONF_")}
    return subprocess.run(
        [sys.executable, "-m", "palconf.cli", *args],
        capture_output=True,
        text=True,
        env={**environ, **env},
        cwd=ROOT.parent,
        timeout=120,
    )


def test_a_checkout_reads_its_own_folders() -> None:
    assert not paths.BUNDLED.exists(), "palconf/suite/ is made by the wheel build only"
    assert paths.DATA_ROOT == ROOT
    assert paths.CASES == ROOT / "cases" and paths.RULES == ROOT / "rules"


def test_an_installed_copy_is_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "registry.toml").write_text("", encoding="utf-8")
    monkeypatch.setattr(paths, "BUNDLED", tmp_path)
    assert paths._default_root() == tmp_path
    (tmp_path / "rules" / "registry.toml").unlink()
    assert paths._default_root() == ROOT


def test_version_names_palconf_the_rules_and_the_cases() -> None:
    done = palconf("--version")
    assert done.returncode == 0, done.stderr
    count = len(case_files(paths.CASES))
    rules = load_registry().current
    assert done.stdout.strip() == (
        f"palconf {__version__} (rules {rules}, {count} cases in {paths.CASES})"
    )


def test_version_follows_the_variables(tmp_path: Path) -> None:
    (tmp_path / "brave").mkdir()
    for name in ("a", "b"):
        (tmp_path / "brave" / f"{name}.toml").write_text("", encoding="utf-8")
    done = palconf("--version", PALCONF_CASES=str(tmp_path))
    assert f"2 cases in {tmp_path}" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["run"],
        ["lint"],
        ["coverage"],
        ["rules", "status"],
        ["mutants", "--keyword", "brave"],
        ["--version"],
    ],
)
def test_missing_rules_are_a_message_not_a_traceback(args: list[str], tmp_path: Path) -> None:
    done = palconf(*args, PALCONF_RULES=str(tmp_path / "nowhere"))
    assert "Traceback" not in done.stderr
    said = done.stdout + done.stderr
    assert "the rules registry is missing" in said and "PALCONF_RULES" in said
    assert done.returncode == (0 if args == ["--version"] else 2)


def test_missing_cases_are_a_message_not_a_traceback(tmp_path: Path) -> None:
    done = palconf("run", PALCONF_CASES=str(tmp_path / "nowhere"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "no such cases folder" in done.stderr and "PALCONF_CASES" in done.stderr


def test_the_pytest_plugin_says_the_cases_are_missing(tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PALCONF_")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--palconf",
            "--palconf-engine",
            "palconf.engines:OracleEngine",
            "-q",
            "-p",
            "no:cacheprovider",
        ],
        capture_output=True,
        text=True,
        env={**environ, "PALCONF_CASES": str(tmp_path / "nowhere")},
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 4 and "Traceback" not in done.stderr + done.stdout
    assert "the suite's cases are missing" in done.stderr and "PALCONF_CASES" in done.stderr


def test_the_wheel_build_copies_the_suite() -> None:
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    manifest = (ROOT / "MANIFEST.in").read_text(encoding="utf-8").split()
    # the data the build copies is the data the sdist carries, and it is the data paths reads
    assert 'SUITE_DATA = ("cases", "rules")' in setup
    assert {"cases", "rules"} <= set(manifest)
    assert paths.BUNDLED == paths.PACKAGE / "suite"
