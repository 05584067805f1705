"""docs/hypofuzz.md's recipe, run as written: `palconf hypofuzz` from a wheel built from the
checkout, against a mutant engine, finds the misreading, prints it and ends by itself, with
no traceback (issue 35). And its clear errors: no hypofuzz extra, an engine that cannot
start.

The recipe needs the `hypofuzz` extra (`pip install -e '.[hypofuzz]'`: HypoFuzz and the
Hypothesis it works with, pinned in pyproject.toml); skipped without it. A fuzz campaign:
`slow`.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from palconf import paths
from palconf.cli import main

RECIPE = paths.ROOT / "docs" / "hypofuzz.md"
#: Deploying is in nearly every generated game: a mutant that deploys rested is found fast.
MUTANT = "deploy-enters-rested"
BOUND = 400  # seconds: the campaign must end by itself well before this

needs_hypofuzz = pytest.mark.skipif(
    importlib.util.find_spec("hypofuzz") is None,
    reason="the hypofuzz extra is not installed (pip install -e '.[hypofuzz]')",
)


def recipe() -> list[str]:
    """The recipe's `palconf hypofuzz` command line, as docs/hypofuzz.md writes it."""
    text = RECIPE.read_text(encoding="utf-8")
    found = re.search(r"^    (palconf hypofuzz --engine-cmd \"python my_engine\.py\")$", text, re.M)
    assert found, "docs/hypofuzz.md has no `palconf hypofuzz` recipe"
    return shlex.split(found.group(1))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """palconf as a wheel installs it (built from the checkout, installed without its
    dependencies into a folder of its own: they come from this environment)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # (a build writes build/ and *.egg-info/ where it builds)
    shutil.copytree(
        paths.ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis"
        ),
    )
    subprocess.run(  # as .ci/wheel-check builds it: the build environment from the index
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps"]
        + ["-w", str(root / "dist"), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = (root / "dist").glob("palconf-*.whl")
    site = root / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
        + [str(built)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return site


@pytest.mark.slow
@needs_hypofuzz
def test_the_recipe_from_a_wheel_finds_a_mutant_prints_it_and_ends(
    wheel: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PALCONF_HYPOTHESIS_DB")}
    env["PYTHONPATH"] = str(wheel)  # before the checkout's editable install
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    where = subprocess.run(
        [sys.executable, "-c", "import palconf.generators.hypofuzz_target as t; print(t.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(wheel)), where.stdout  # the wheel's, not the checkout's
    argv = recipe()
    engine = f"{shlex.quote(sys.executable)} -m palconf.cli serve --mutant {MUTANT}"
    argv[argv.index("python my_engine.py")] = engine
    done = subprocess.run(
        [sys.executable, "-m", "palconf.cli", *argv[1:]],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    assert done.stderr == "", done.stderr[-3000:]
    assert "palconf hypofuzz: a worker found a failing game" in done.stdout, out[-3000:]
    assert re.search(r"^DIFFERENCE \(observed\) at action \d+", done.stdout, re.M), out[-3000:]
    assert '"stand"' in done.stdout and '"rest"' in done.stdout, out[-3000:]
    assert f"engine: palconf-mutant:{MUTANT}" in done.stdout, out[-3000:]
    # the failure is kept in the campaign's database (what the next campaign, or pytest,
    # replays at once)
    assert any(p.is_file() for p in (tmp_path / ".hypothesis").rglob("*")), "nothing saved"


def test_without_the_extra_it_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "hypofuzz" else real(name)
    )
    assert main(["hypofuzz", "--engine-cmd", "palconf serve"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "pip install 'palconf[hypofuzz]'" in err


@needs_hypofuzz
def test_an_engine_that_cannot_start_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("PALCONF_FUZZ_ENGINE", "PALCONF_FUZZ_TIMEOUT", "HYPOTHESIS_PROFILE"):
        monkeypatch.delenv(name, raising=False)  # (the command sets them for its workers)
    missing = str(tmp_path / "no-such-engine")
    assert main(["hypofuzz", "--engine-cmd", missing, "--database", str(tmp_path / "db")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "cannot start the engine" in err and "no-such-engine" in err


@pytest.mark.slow
@needs_hypofuzz
def test_a_campaign_that_finds_nothing_ends_at_max_seconds(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PALCONF_HYPOTHESIS_DB")}
    engine = f"{shlex.quote(sys.executable)} -m palconf.cli serve"  # the oracle: no difference
    done = subprocess.run(
        [sys.executable, "-m", "palconf.cli", "hypofuzz", "--engine-cmd", engine]
        + ["--max-seconds", "5"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr == "", done.stderr
    assert "palconf hypofuzz: no difference in 5 s (--max-seconds)\n" in done.stdout, done.stdout
