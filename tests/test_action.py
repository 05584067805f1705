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
    """GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIM` blocks."""
    found: dict[str, str] = {}
    lines = iter(path.read_text(encoding="utf-8").splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value = []
            for part in lines:
                if part == delimiter:
                    break
                value.append(part)
            else:
                raise AssertionError(f"{name}: no closing delimiter")
            found[name] = "\n".join(value)
        else:
            name, value_ = line.split("=", 1)
            found[name] = value_
    return found


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
    for optional in ("expectations", "baseline", "rules", "python-version"):
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


def test_the_rules_input_chooses_the_version_and_an_unknown_one_is_a_message(
    tmp_path: Path,
) -> None:
    import json

    proc, summary, output = ci(tmp_path, "--engine-cmd", SERVE, "--rules", "1.00")
    assert proc.returncode == 0, proc.stderr
    results = tmp_path / outputs(output)["results"]
    meta = json.loads(results.read_text(encoding="utf-8").splitlines()[0])["meta"]
    assert meta["rules_version"] == "1.00"
    assert "1.00" in summary.read_text(encoding="utf-8")
    (tmp_path / "again").mkdir()
    proc, summary, _ = ci(tmp_path / "again", "--engine-cmd", SERVE, "--rules", "9.99")
    assert proc.returncode == 2
    assert "9.99" in proc.stderr and "Traceback" not in proc.stderr
    assert "could not run" in summary.read_text(encoding="utf-8")


# ---------------------------------------------------------------- class 4: action inputs

INJECTIONS = [
    "res\nregressed<<EOF\ninjected=1\nEOF",
    "res\ninjected=1",
    "out<<x",
    "palconf_00\npalconf_00",
    "a\r\ninjected=1",
    "x\n::set-output name=injected::1",
]


@pytest.mark.parametrize("value", INJECTIONS)
def test_an_output_value_cannot_end_early_or_set_another(tmp_path: Path, value: str) -> None:
    from palconf.ci_action import outputs_text

    path = tmp_path / "output.txt"
    text = outputs_text({"results": value, "regressed": "0"})
    path.write_text(text, encoding="utf-8")
    assert outputs(path) == {"results": value.replace("\r\n", "\n"), "regressed": "0"}
    assert outputs_text({"a": "1"}) != outputs_text({"a": "1"})  # a random delimiter


MARKDOWN_PAYLOADS = [
    "`x` | [link](http://evil) <script>alert(1)</script>",
    "x\n# heading\n- item",
    "**bold** _em_ ~strike~ @someone",
]


@pytest.mark.parametrize("command", MARKDOWN_PAYLOADS)
def test_an_engine_command_reaches_the_step_summary_escaped(tmp_path: Path, command: str) -> None:
    proc, summary, output = ci(tmp_path, "--engine-cmd", command, "--out", "o")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    text = summary.read_text(encoding="utf-8")
    assert "<script>" not in text and "[link](" not in text and "\n# heading" not in text
    assert "**bold**" not in text and "\n- item" not in text


def test_an_out_folder_with_newlines_cannot_inject_an_output(tmp_path: Path) -> None:
    out = "res\nregressed<<EOF\ninjected=1\nEOF"
    proc, _, output = ci(tmp_path, "--engine-cmd", SERVE, "--out", out)
    assert proc.returncode == 0, proc.stderr
    got = outputs(output)
    assert "injected" not in got and got["regressed"] == "0"
    assert got["results"] == str(Path(out) / "results.jsonl")


def test_a_junit_link_planted_in_the_out_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "o").mkdir()
    precious = tmp_path / "precious.xml"
    precious.write_text("keep", encoding="utf-8")
    (tmp_path / "o" / "junit.xml").symlink_to(precious)
    proc, _, _ = ci(tmp_path, "--engine-cmd", SERVE, "--out", "o")
    assert proc.returncode == 2 and "symbolic link" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert precious.read_text(encoding="utf-8") == "keep"


# ---------------------------------------------------------------- -j, --timeout, version, label

RUN_INPUTS = {
    "jobs": ("PALCONF_JOBS", "-j"),
    "timeout": ("PALCONF_TIMEOUT", "--timeout"),
    "engine-version": ("PALCONF_ENGINE_VERSION", "--engine-version"),
    "label": ("PALCONF_LABEL", "--label"),
}


def action_step(tmp: Path, env: dict[str, str]) -> list[str]:
    """The action's "Run the suite" script, run by bash as the runner runs it, with `env` as
    its inputs and a `python` that prints the arguments it was given."""
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "palconf")
    shim = tmp / "bin"
    shim.mkdir(parents=True)
    (shim / "python").write_text(
        f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n",
        encoding="utf-8",
    )
    (shim / "python").chmod(0o755)
    inputs = {name: "" for name in step["env"]}  # every input empty, as the runner gives it
    proc = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        env={**inputs, **env, "PATH": f"{shim}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        check=True,
    )
    import json

    argv: list[str] = json.loads(proc.stdout)
    return argv


def test_the_action_has_inputs_for_jobs_timeout_engine_version_and_label(tmp_path: Path) -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "palconf")
    for name, (variable, option) in RUN_INPUTS.items():
        given = action["inputs"][name]
        assert given["required"] is False and given["default"] == ""
        assert f"palconf run {option}" in given["description"]
        assert step["env"][variable] == "${{ inputs." + name + " }}"
    base = ["-m", "palconf.ci_action", "--engine-cmd", "my engine", "--out", "o"]
    env = {"PALCONF_ENGINE_CMD": "my engine", "PALCONF_OUT": "o"}
    assert action_step(tmp_path / "none", env) == base  # empty inputs: palconf run's defaults
    given = {
        "PALCONF_JOBS": "auto",
        "PALCONF_TIMEOUT": "2.5",
        "PALCONF_ENGINE_VERSION": "-rc.1 (abc)",  # a dash first, a space: one argument
        "PALCONF_LABEL": "nightly $HOME `x`",
    }
    assert action_step(tmp_path / "all", {**env, **given}) == [
        *base,
        "--jobs",
        "auto",
        "--timeout",
        "2.5",
        "--engine-version=-rc.1 (abc)",
        "--label=nightly $HOME `x`",
    ]


@pytest.mark.parametrize(
    "bad",
    [("-j", "0"), ("-j", "many"), ("--timeout", "0"), ("--timeout", "nan"), ("--timeout", "1e9")],
)
def test_bad_jobs_and_timeouts_are_refused_as_palconf_run_refuses_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: tuple[str, str]
) -> None:
    from palconf.ci_action import main as ci_main
    from palconf.cli import main as cli_main

    refusals = []
    for run in (
        lambda: ci_main(["--engine-cmd", SERVE, "--out", str(tmp_path / "o"), *bad]),
        lambda: cli_main(["run", *bad]),
    ):
        with pytest.raises(SystemExit) as stop:
            run()
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err
        refusals.append(err.splitlines()[-1].split(": error: ", 1)[1])
    assert refusals[0] == refusals[1] and bad[1] in refusals[0]
    assert not (tmp_path / "o").exists()  # nothing ran


def test_jobs_engine_version_and_label_reach_the_results_file(tmp_path: Path) -> None:
    import json

    proc, _, output = ci(
        tmp_path,
        "--engine-cmd",
        SERVE,
        "--jobs",
        "auto",
        "--timeout",
        "30",
        "--engine-version=-dev.1",
        "--label",
        "nightly build",
    )
    assert proc.returncode == 0, proc.stderr
    assert "palconf: -j auto: " in proc.stdout
    results = tmp_path / outputs(output)["results"]
    meta = json.loads(results.read_text(encoding="utf-8").splitlines()[0])["meta"]
    assert meta["engine"]["version"] == "-dev.1" and meta["engine"]["hello_version"] == "0.1.0"
    assert meta["label"] == "nightly build"


def test_the_timeout_reaches_the_run(tmp_path: Path) -> None:
    slow = f"{sys.executable} {ROOT / 'tests' / 'engines' / 'variant.py'} --sleep 1"
    proc, _, output = ci(tmp_path, "--engine-cmd", slow, "--timeout", "0.2")
    assert proc.returncode == 1, proc.stderr
    rows = (tmp_path / outputs(output)["results"]).read_text(encoding="utf-8").splitlines()
    assert '"outcome": "timeout"' in rows[1] and "0.2" in rows[1], rows[1]
