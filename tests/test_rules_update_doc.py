"""docs/rules-updates.md, the worked example of a rules update, run as it is written: every
command in it, in a copy of rules/ and cases/, with its exit status and the output lines the
page shows (tests/doc_examples.py). Afterwards both versions are runnable in the one copy,
each with its own verdicts, stamps and coverage."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .doc_examples import ROOT, run_document

DOC = ROOT / "docs" / "rules-updates.md"


@pytest.mark.slow
def test_the_worked_example_runs_as_written(tmp_path: Path) -> None:
    ran, env = run_document(DOC, tmp_path)
    assert len(ran) >= 10
    for version in ("1.00", "1.01"):
        out = tmp_path / f"{version}.jsonl"
        subprocess.run(
            ["palconf", "run", "--rules", version, "--progress", "none", "--results", str(out)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            check=False,
        )
        meta = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["meta"]
        assert meta["rules_version"] == version


def test_the_ci_recipe_is_a_workflow_whose_matrix_lists_the_versions() -> None:
    """The page's workflow parses, and its `list` step, run here, gives the versions palconf
    carries as the JSON list the matrix reads."""
    import re
    import sys

    import yaml

    from palconf.registry import load as load_registry

    blocks = re.findall(r"^```yaml\n(.*?)^```", DOC.read_text(encoding="utf-8"), re.M | re.S)
    assert len(blocks) == 1
    workflow = yaml.safe_load(blocks[0])
    jobs = workflow["jobs"]
    assert jobs["suite"]["needs"] == "versions"
    assert (
        "fromJSON(needs.versions.outputs.versions)" in jobs["suite"]["strategy"]["matrix"]["rules"]
    )
    runs = [s["run"] for s in jobs["suite"]["steps"] if "run" in s]
    for command in (
        "palconf rules status --rules",
        "palconf run --strict --rules",
        "palconf coverage --rules",
    ):
        assert any(r.startswith(command) for r in runs), command
    step = next(s for s in jobs["versions"]["steps"] if s.get("id") == "list")
    pipeline = step["run"].split("$(", 1)[1].rsplit(')"', 1)[0].replace("\\\n", " ")
    pipeline = pipeline.replace("palconf ", f"{sys.executable} -m palconf.cli ", 1)
    pipeline = pipeline.replace("| python ", f"| {sys.executable} ")
    out = subprocess.run(["bash", "-c", pipeline], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == list(load_registry().versions)
