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
