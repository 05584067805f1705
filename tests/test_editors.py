"""What an editor shows: Taplo (the engine of the Even Better TOML extension and of
`taplo check`; PyPI `taplo`, npm `@taplo/cli`) validates every case file against the case
schema by `.taplo.toml`, and no other TOML file of the repository is shown broken."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def taplo() -> str:
    beside = Path(sys.executable).with_name("taplo")
    found = str(beside) if beside.is_file() else shutil.which("taplo")
    if found is None:
        pytest.skip("taplo is not installed (pip install taplo, or npm i -g @taplo/cli)")
    return found


def check(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [taplo(), "check"], cwd=folder, capture_output=True, text=True, timeout=120
    )


def test_taplo_check_is_clean_on_the_repository() -> None:
    done = check(ROOT)
    assert done.returncode == 0, done.stderr[-3000:]


def copy_layout(tmp: Path) -> Path:
    (tmp / "palconf" / "schemas").mkdir(parents=True)
    shutil.copy(ROOT / ".taplo.toml", tmp / ".taplo.toml")
    shutil.copy(ROOT / "palconf/schemas/case.schema.json", tmp / "palconf/schemas")
    (tmp / "cases" / "brave").mkdir(parents=True)
    shutil.copy(ROOT / "cases" / "interactions.toml", tmp / "cases")
    return tmp


def test_taplo_applies_the_case_schema_to_case_files(tmp_path: Path) -> None:
    root = copy_layout(tmp_path)
    good = next((ROOT / "cases" / "brave").glob("*.toml"))
    shutil.copy(good, root / "cases" / "brave")
    assert check(root).returncode == 0
    text = good.read_text(encoding="utf-8").replace("clauses = [", "clauses = 7\nx = [", 1)
    (root / "cases" / "brave" / good.name).write_text(text, encoding="utf-8")
    done = check(root)
    assert done.returncode != 0 and good.name in done.stderr
