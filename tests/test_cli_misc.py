"""`palconf list`, `palconf lint --json`, `palconf completion` and `python -m benchmarks`
writing a results file only when asked."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from palconf.cli import main
from palconf.registry import load as load_registry

from .test_loader import GOOD, write
from .test_rules_versions import STEALTH_CASE

REGISTRY = load_registry()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Two cases: brave-sample (brave/, brave.1 and B-12) and stealth-sample (stealth/)."""
    write(tmp_path, GOOD)
    write(tmp_path, STEALTH_CASE, name="stealth-sample.toml", folder="stealth")
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)


# ---------------------------------------------------------------- palconf list


def test_list_cases_json_is_the_documented_document(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert as_json(capsys, "list", "--cases", str(folder), "--json") == {
        "rules_version": REGISTRY.current,
        "cases": [
            {
                "id": "brave-sample",
                "path": "brave/brave-sample.toml",
                "keywords": ["brave"],
                "clauses": ["brave.1"],
                "rules": ["B-12"],
                "interpretations": [],
                "title": "Brave 200 attacker has 3200 power after declaring",
                "state": "unblessed",
            },
            {
                "id": "stealth-sample",
                "path": "stealth/stealth-sample.toml",
                "keywords": ["stealth"],
                "clauses": ["stealth.1"],
                "rules": [],
                "interpretations": [],
                "title": "Stealth attacker cannot be blocked by a standing Pal",
                "state": "unblessed",
            },
        ],
    }


def test_list_json_keys_are_sorted(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for what in ("cases", "keywords", "clauses"):
        code, out, _ = run(capsys, "list", what, "--cases", str(folder), "--json")
        assert code == 0
        top = re.findall(r'^  "([^"]+)":', out, flags=re.M)
        keys = re.findall(r'^      "([^"]+)":', out, flags=re.M)  # those of each row
        rows = json.loads(out)[what]
        assert top == sorted([what, "rules_version"])
        assert keys == [k for row in rows for k in sorted(row)] and len(keys) > 10


def test_list_cases_plain_is_one_aligned_line_per_case(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "list", "--cases", str(folder))
    assert code == 0
    head, *lines = out.splitlines()
    assert head.split() == ["ID", "FILE", "GROUPS", "CLAUSES", "RULES", "RULINGS", "TITLE"]
    assert head.index("TITLE") == lines[0].index("Brave 200")
    assert [line.split()[:6] for line in lines] == [
        ["brave-sample", "brave/brave-sample.toml", "brave", "brave.1", "B-12", "-"],
        ["stealth-sample", "stealth/stealth-sample.toml", "stealth", "stealth.1", "-", "-"],
    ]
    starts = [lines[0].index("Brave 200"), lines[1].index("Stealth attacker")]
    assert starts[0] == starts[1]  # the title column lines up
    assert lines[0].index("brave.1") == lines[1].index("stealth.1")


def test_list_cuts_its_lines_to_the_terminal_and_v_prints_them_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # (what shutil.get_terminal_size reads first)
    code, piped, _ = run(capsys, "list")  # not a terminal: whole lines
    assert code == 0 and "…" not in piped
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # (capsys's stdout)
    code, out, _ = run(capsys, "list")
    assert code == 0
    head, *lines = out.splitlines()
    assert head.startswith("ID ") and head.rstrip().endswith("TITLE")
    assert max(len(line) for line in out.splitlines()) <= 100
    assert any(line.endswith("…") for line in lines)  # long text cut, and says so
    ids = [c["id"] for c in as_json(capsys, "list", "--json")["cases"]]
    longest = max(ids, key=len)
    assert any(line.startswith(longest[:20]) for line in lines)
    code, whole, _ = run(capsys, "list", "-v")
    assert code == 0 and whole == piped and len(whole.splitlines()) == len(ids) + 1
    assert max(len(line) for line in whole.splitlines()) > 100
    assert [line.split()[0] for line in whole.splitlines()[1:]] == ids
    monkeypatch.setenv("COLUMNS", "60")
    code, out, _ = run(capsys, "list", "keywords")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 60
    assert out.splitlines()[0].split() == ["GROUP", "CLAUSES", "TESTABLE", "CASES", "NAME"]


def test_list_selects_cases_with_the_shared_options(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = as_json(capsys, "list", "--cases", str(folder), "--json", "-k", "stealth")
    assert [c["id"] for c in doc["cases"]] == ["stealth-sample"]
    doc = as_json(capsys, "list", "--cases", str(folder), "--json", "--case", "brave-*")
    assert [c["id"] for c in doc["cases"]] == ["brave-sample"]
    code, out, err = run(capsys, "list", "--cases", str(folder), "--case", "nope")
    assert code == 2 and out == "" and "no case matches --case 'nope'" in err


def test_list_is_terminal_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, GOOD.replace("has 3200 power", "has 3200 \\u001b[2J power"))
    code, out, _ = run(capsys, "list", "--cases", str(tmp_path))
    assert code == 0 and "\x1b" not in out and "3200 \\x1b[2J power" in out
    code, out, _ = run(capsys, "list", "--cases", str(tmp_path), "--json")
    assert "\x1b" not in out and json.loads(out)["cases"][0]["title"].count("\x1b") == 1


def test_list_keywords(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = as_json(capsys, "list", "keywords", "--cases", str(folder), "--json")["keywords"]
    assert [r["id"] for r in rows] == REGISTRY.groups
    by_id = {r["id"]: r for r in rows}
    brave = [c for c in REGISTRY.clauses.values() if c.keyword == "brave"]
    assert by_id["brave"] == {
        "id": "brave",
        "name": "Brave",
        "kind": "keyword",
        "clauses": len(brave),
        "testable": sum(c.testable for c in brave),
        "cases": 1,
    }
    assert by_id["taunt"]["cases"] == 0 and by_id["stealth"]["cases"] == 1
    assert by_id["base"] == {
        "id": "base",
        "name": "Base rules",
        "kind": "base",
        "clauses": len(REGISTRY.base),
        "testable": len(REGISTRY.base),
        "cases": 0,
    }
    assert by_id["protocol"]["kind"] == "protocol"
    assert by_id["protocol"]["clauses"] == len(REGISTRY.protocol)
    code, out, _ = run(capsys, "list", "keywords", "--cases", str(folder), "-k", "brave")
    assert code == 0
    assert [line.split() for line in out.splitlines()] == [
        ["GROUP", "CLAUSES", "TESTABLE", "CASES", "NAME"],
        ["brave", str(len(brave)), str(sum(c.testable for c in brave)), "1", "Brave"],
    ]


def test_list_clauses(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("list", "clauses", "--cases", str(folder))
    rows = as_json(capsys, *args, "--json", "-k", "brave")["clauses"]
    assert [r["id"] for r in rows] == [
        c.id for c in REGISTRY.clauses.values() if c.keyword == "brave"
    ]
    first = REGISTRY.clauses["brave.1"]
    assert rows[0] == {
        "id": "brave.1",
        "keyword": "brave",
        "testable": first.testable,
        "summary": first.summary,
        "cases": 1,
    }
    assert all(r["cases"] == 0 for r in rows[1:])
    every = as_json(capsys, *args, "--json")["clauses"]
    assert [r["id"] for r in every] == list(REGISTRY.clauses)
    code, out, _ = run(capsys, *args, "-k", "stealth")
    head, *lines = out.splitlines()
    assert head.split() == ["CLAUSE", "KEYWORD", "TESTABLE", "CASES", "SUMMARY"]
    assert lines[0].split()[:4] == ["stealth.1", "stealth", "testable", "1"]
    assert len(lines) == len([c for c in REGISTRY.clauses.values() if c.keyword == "stealth"])
    summary_at = {line.index(REGISTRY.clauses[line.split()[0]].summary[:10]) for line in lines}
    assert len(summary_at) == 1  # aligned


def test_list_counts_the_whole_suite(capsys: pytest.CaptureFixture[str]) -> None:
    cases = as_json(capsys, "list", "--json")["cases"]
    keywords = as_json(capsys, "list", "keywords", "--json")["keywords"]
    assert len(cases) > 100 and [c["id"] for c in cases] == sorted(c["id"] for c in cases)
    for row in keywords:
        assert row["cases"] == sum(row["id"] in c["keywords"] for c in cases), row["id"]


def test_list_help_documents_the_json_shapes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["list", "--help"])
    out = capsys.readouterr().out
    for key in ('"rules_version"', '"interpretations"', '"testable"', '"kind"', '"summary"'):
        assert key in out


# ---------------------------------------------------------------- palconf lint --json


def test_lint_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, GOOD, folder="stealth")  # a Brave case in the wrong folder, not blessed
    code, out, _ = run(capsys, "lint", "--cases", str(tmp_path), "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["cases"] == 1 and doc["rules_version"] == REGISTRY.current
    assert doc["problems"] == [
        {
            "file": "stealth/brave-sample.toml",
            "line": 4,
            "message": "belongs in cases/brave/ (it tests brave), not cases/stealth/",
        }
    ]
    assert doc["stale"] == [
        {
            "case": "brave-sample",
            "path": "stealth/brave-sample.toml",
            "status": "unblessed",
            "reason": "not blessed: no recorded hash for any clause",
            "stale": [],
            "orphaned": [],
            "unblessed": [],
            "unreviewed": [],
        }
    ]
    code, plain, _ = run(capsys, "lint", "--cases", str(tmp_path))
    assert code == 1 and plain.startswith("stealth/brave-sample.toml:4: belongs in cases/brave/")


def test_lint_json_exit_status_follows_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, GOOD)  # right folder; only not blessed
    code, out, _ = run(capsys, "lint", "--cases", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["problems"] == []
    code, out, _ = run(capsys, "lint", "--cases", str(tmp_path), "--json", "--strict")
    assert code == 1 and json.loads(out)["stale"][0]["status"] == "unblessed"


# ---------------------------------------------------------------- palconf completion


def test_completion_without_shtab_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "shtab", None)  # import shtab raises ImportError
    code, out, err = run(capsys, "completion", "bash")
    assert code == 2 and out == ""
    assert "pip install shtab" in err and "pipx inject palconf shtab" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_completion_script(shell: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("shtab")
    code, out, _ = run(capsys, "completion", shell)
    assert code == 0
    for word in ("list", "mutants", "--engine-cmd-template", "keywords", "clauses"):
        assert word in out
    if shutil.which(shell):
        check = subprocess.run([shell, "-n"], input=out, text=True, capture_output=True)
        assert check.returncode == 0, check.stderr


# ---------------------------------------------------------------- python -m benchmarks


def test_benchmarks_write_a_file_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from benchmarks import run as bench

    tracked = bench.TRACKED_JSON.read_bytes()
    figures = {"meta": {"cases": 1}, "figures": {}}
    monkeypatch.setattr(bench, "measure", lambda args, baseline: figures)
    monkeypatch.chdir(tmp_path)
    assert bench.main(["--repeat", "1"]) == 0
    assert list(tmp_path.iterdir()) == [] and bench.TRACKED_JSON.read_bytes() == tracked
    assert "written" not in capsys.readouterr().out
    out = tmp_path / "sub" / "new.json"
    assert bench.main(["--out", str(out)]) == 0
    assert json.loads(out.read_text()) == figures and f"written: {out}" in capsys.readouterr().out
    assert bench.build_parser().parse_args(["--json", "x.json"]).out == Path("x.json")


def test_each_commands_help_line_is_its_modules_own() -> None:
    """cli.COMMANDS lists every subcommand with the help its module's parser gives (only the
    chosen command's module is imported, so `--help` reads the table)."""
    import argparse
    import importlib

    from palconf.cli import COMMANDS

    folder = Path(importlib.import_module("palconf.commands").__file__ or "").parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "fuzz_campaign"}
    modules -= {"rules_review", "rules_status"}  # (parts of `palconf rules`)
    assert set(COMMANDS) == modules
    for name, line in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"palconf.commands.{name}").add_parser(sub)
        assert [a.help for a in sub._choices_actions] == [line], name


def test_only_the_chosen_commands_module_is_imported() -> None:
    code = (
        "import sys\n"
        "from palconf.cli import build_parser\n"
        "build_parser(['list'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('palconf.commands.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['palconf.commands.list']"


def test_the_readme_gives_the_number_of_cases_version_gives() -> None:
    from palconf import paths
    from palconf.cases.loader import case_files

    readme = (paths.ROOT / "README.md").read_text(encoding="utf-8")
    said = re.findall(r"rules 1\.00, (\d+) cases in", readme)
    assert said == [str(len(case_files(paths.CASES)))]


def test_the_cases_help_names_the_folder_in_use(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from palconf import paths

    monkeypatch.delenv("PALCONF_CASES", raising=False)
    assert paths.cases_default() == f"the checkout's cases/, {paths.CASES}"  # a checkout
    monkeypatch.setattr(paths, "DATA_ROOT", paths.BUNDLED)
    assert paths.cases_default().startswith("the cases this palconf carries, ")
    monkeypatch.setenv("PALCONF_CASES", str(tmp_path))
    assert paths.cases_default().startswith("PALCONF_CASES, ")
