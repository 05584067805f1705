"""The GitHub Action for engine authors: `action.yml` and the module it runs,
`palconf.ci_action`, run here as the action runs it, with GITHUB_STEP_SUMMARY and
GITHUB_OUTPUT set to temporary files. The suite is cut to the Taunt cases (PALCONF_CASES)
to be quick; the engines are `palconf serve` (the oracle) and one of its mutants."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from palconf import paths

ROOT = Path(__file__).resolve().parent.parent
SERVE = f"{sys.executable} -m palconf.cli serve"


def ci(tmp: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    summary, output = tmp / "summary.md", tmp / "output.txt"
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(output),
        "PALCONF_CASES": str(paths.CASES / "taunt"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "palconf.ci_action", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=300,
    )
    return proc, summary, output


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines())


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("oracle")
    proc, summary, output = ci(tmp, "--engine-cmd", SERVE, "--out", "out")
    return {"proc": proc, "summary": summary, "output": output, "tmp": tmp}


def test_the_action_declares_its_inputs_and_runs_the_module() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert inputs["engine-command"]["required"] is True
    for optional in ("expectations", "baseline", "python-version"):
        assert inputs[optional]["required"] is False
    runs = [s["run"] for s in action["runs"]["steps"] if "run" in s]
    assert any("python -m palconf.ci_action" in r for r in runs)
    # inputs reach the shell as environment variables, never pasted into the script
    assert not any("inputs." in r for r in runs)


def test_a_clean_run_writes_the_summary_outputs_and_junit(baseline: dict[str, Any]) -> None:
    proc = baseline["proc"]
    assert proc.returncode == 0, proc.stderr
    summary = baseline["summary"].read_text(encoding="utf-8")
    assert summary.startswith("# Pal keyword rules compliance")
    assert "| Taunt |" in summary
    out = outputs(baseline["output"])
    assert out["regressed"] == "0"
    junit = ET.parse(baseline["tmp"] / out["junit"]).getroot()
    assert junit.iter("testcase") and not list(junit.iter("failure"))
    assert (baseline["tmp"] / out["results"]).is_file()


def test_a_regression_against_the_baseline_fails_the_step(
    baseline: dict[str, Any], tmp_path: Path
) -> None:
    base = baseline["tmp"] / "out" / "results.jsonl"
    proc, summary, output = ci(
        tmp_path,
        "--engine-cmd",
        f"{SERVE} --mutant taunt-ignored",
        "--baseline",
        str(base),
        "--out",
        "out",
    )
    assert proc.returncode == 1, proc.stderr
    text = summary.read_text(encoding="utf-8")
    assert "## Against the baseline" in text and "## Regressed: passed before, fail now" in text
    out = outputs(output)
    assert int(out["regressed"]) > 0
    assert f"{out['regressed']} case(s) regressed" in proc.stdout
    junit = ET.parse(tmp_path / out["junit"]).getroot()
    assert list(junit.iter("failure"))
    assert (tmp_path / "out" / "compare.md").is_file()


@pytest.mark.slow
def test_no_regression_passes_even_with_known_failures_fixed(
    baseline: dict[str, Any], tmp_path: Path
) -> None:
    """The oracle against a baseline that failed: only fixes, so the step passes."""
    worse = tmp_path / "worse"
    worse.mkdir()
    proc, _, _ = ci(worse, "--engine-cmd", f"{SERVE} --mutant taunt-ignored", "--out", "out")
    assert proc.returncode == 1  # without a baseline, failing cases fail the step
    proc, summary, output = ci(
        tmp_path, "--engine-cmd", SERVE, "--baseline", str(worse / "out" / "results.jsonl")
    )
    assert proc.returncode == 0, proc.stderr
    assert "## Fixed: failed before, pass now" in summary.read_text(encoding="utf-8")
    assert outputs(output)["regressed"] == "0"
    # the same failing engine again: its failures are all in the baseline, so it passes
    again = tmp_path / "again"
    again.mkdir()
    mutant = f"{SERVE} --mutant taunt-ignored"
    proc, _, output = ci(
        again, "--engine-cmd", mutant, "--baseline", str(worse / "out" / "results.jsonl")
    )
    assert proc.returncode == 0, proc.stderr
    assert outputs(output)["regressed"] == "0"


def test_an_engine_that_cannot_start_is_a_message(tmp_path: Path) -> None:
    proc, summary, _ = ci(tmp_path, "--engine-cmd", str(tmp_path / "no-such-engine"))
    assert proc.returncode == 2
    assert "could not run" in summary.read_text(encoding="utf-8")
    assert "Traceback" not in proc.stderr
    proc, _, _ = ci(tmp_path, "--engine-cmd", SERVE, "--baseline", str(tmp_path / "nope.jsonl"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
