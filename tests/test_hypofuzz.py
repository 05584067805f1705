"""The README's HypoFuzz recipe, run for real: `hypothesis fuzz` on
generators/hypofuzz_target.py against a mutant engine finds the misreading and ends.

Needs the `hypofuzz` extra (`pip install -e '.[hypofuzz]'`: HypoFuzz and the Hypothesis
it works with, pinned in pyproject.toml); skipped without it. A fuzz campaign: `slow`.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import palconf.generators

TARGET = Path(palconf.generators.__file__).parent / "hypofuzz_target.py"
HYPOTHESIS_CLI = Path(sys.executable).parent / "hypothesis"
#: Deploying is in nearly every generated game: a mutant that deploys rested is found fast.
MUTANT = "deploy-enters-rested"
BOUND = 300  # seconds: the campaign must end by itself well before this

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("hypofuzz") is None,
        reason="the hypofuzz extra is not installed (pip install -e '.[hypofuzz]')",
    ),
]


def fuzz(tmp_path: Path, engine: str) -> subprocess.CompletedProcess[str]:
    # CI=true makes Hypothesis load its `ci` profile (derandomize), which HypoFuzz refuses
    env = {
        **{k: v for k, v in os.environ.items() if k != "CI"},
        "PALCONF_FUZZ_ENGINE": engine,
        "HYPOTHESIS_PROFILE": "fuzz",  # the README's recipe (and not `ci`: derandomized)
        "PALCONF_HYPOTHESIS_DB": str(tmp_path / "db"),
    }
    return subprocess.run(
        [str(HYPOTHESIS_CLI), "fuzz", "-n", "1", "--no-dashboard", "--"]
        + [str(TARGET), "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=BOUND,
    )


def test_hypofuzz_finds_a_mutant_and_ends(tmp_path: Path) -> None:
    engine = f"{sys.executable} -m palconf.cli serve --mutant {MUTANT}"
    done = fuzz(tmp_path, engine)
    out = done.stdout + done.stderr
    assert "slice_comments" not in out, out[-3000:]  # the mismatched pair
    assert "using 1 process to fuzz 1 test" in out, out[-3000:]
    assert "Found a failing input for every test!" in out, out[-3000:]
    # the failure is kept in the campaign's database (what other machines replay)
    assert any(p.is_file() for p in (tmp_path / "db").rglob("*")), "nothing saved"
