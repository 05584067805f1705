"""Rules updates with made-up versions of section 12: the right clauses and cases flagged."""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import pytest

from palconf import paths
from palconf.authoring.rulesdiff import (
    diff_versions,
    load_version,
    parse_rules_text,
)
from palconf.cases.loader import load_cases
from palconf.cli import build_parser, main
from palconf.registry import clause_hash
from palconf.registry import load as load_registry

from .test_loader import GOOD, write

TEXT_100 = (paths.ROOT / "rules" / "1.00" / "section12.txt").read_text(encoding="utf-8")

STEALTH_CASE = """#:schema ../../palconf/schemas/case.schema.json
id = "stealth-sample"
title = "Stealth attacker cannot be blocked by a standing Pal"
clauses = ["stealth.1"]

[setup]
[setup.players.A]
life = 5
battle = [{ id = "a1", kind = "pal", power = 1000, keywords = ["Stealth"] }]
[setup.players.B]
life = 5
battle = [{ id = "b1", kind = "pal", power = 1000 }]

[[actions]]
do = "attack"
player = "A"
attacker = "a1"
target = "master"

[[actions]]
do = "block"
player = "B"
blocker = "b1"

[[expect]]
after = 2
refused = "cannot-block"
"""

TAUNT_OLD = "Where several Taunt cards are legal targets, the attacker must choose one of them"
TAUNT_NEW = (
    "Where two or more Taunt cards could be targeted, the attacking player picks one of them"
)


def made_up_101() -> str:
    text = TEXT_100.replace(
        "this card's power increases by N until end of turn",
        "this card's power increases by N×2 until end of turn",
    )
    text = text.replace("this card's power increases by 300", "this card's power increases by 500")
    assert TAUNT_OLD in text
    text = text.replace(TAUNT_OLD, TAUNT_NEW)
    stealth = text.index("Stealth#")
    text = text[:stealth] + text[text.index("Retaliate#") :]
    text = text.replace(
        "Source:",
        'Flying#\n\nA continuous ability. Flying means "this card can '
        'only be blocked by a card with Flying".\n\nSource:',
    )
    return text


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the project's rules/ and a small cases/ folder, blessed against 1.00."""
    rules = tmp_path / "rules"
    shutil.copytree(paths.ROOT / "rules", rules)
    cases = tmp_path / "cases"
    write(cases, GOOD)
    write(cases, STEALTH_CASE, name="stealth-sample.toml", folder="stealth")
    monkeypatch.setattr(paths, "RULES", rules)
    monkeypatch.setattr(paths, "CASES", cases)
    load_registry.cache_clear()
    assert main(["rules", "bless", "--all"]) == 0
    yield tmp_path
    load_registry.cache_clear()


def test_parse_finds_every_keyword_section() -> None:
    sections = parse_rules_text(TEXT_100)
    assert list(sections) == list(load_registry().keywords)
    assert sections["taunt"].sentences[1].startswith("Taunt means")


def test_diff_of_made_up_version(project: Path) -> None:
    new_file = project / "new.txt"
    new_file.write_text(made_up_101(), encoding="utf-8")
    registry = load_registry()
    d = diff_versions(
        load_version(registry, "1.00"),
        load_version(registry, str(new_file)),
        registry,
        load_cases(paths.CASES, registry),
    )
    kinds = {c.id: c.kind for c in d.changes}
    for cid in ("brave.1", "brave.2", "brave.3", "nocturnal.1", "nocturnal.2", "taunt.2"):
        assert kinds.get(cid) == "changed", (cid, kinds)
    assert "×2" in next(c.new for c in d.changes if c.id == "brave.1")  # type: ignore[operator]
    assert kinds.get("stealth.1") == "removed"
    assert "taunt.1" not in kinds and "retaliate.1" not in kinds  # unchanged text is not listed
    assert d.keywords_added == ["flying"] and d.keywords_removed == ["stealth"]
    assert d.orphaned == ["stealth-sample"]
    assert next(c for c in d.changes if c.id == "brave.1").cases == ["brave-sample"]
    assert any("Flying means" in s for s in d.unassigned["flying"])


def test_import_review_bless(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After an import every change is pending: the cases citing it do not hold for 1.01.
    One review per clause settles them all; a case is blessed only after it passes on
    1.01's oracle, and keeps the versions it still passes on."""
    new_file = project / "published.txt"
    new_file.write_text(made_up_101(), encoding="utf-8")
    assert main(["rules", "status", "--strict"]) == 0  # blessed against 1.00: nothing to do
    assert main(["rules", "import", "1.01", str(new_file)]) == 0
    out = capsys.readouterr().out
    assert "CHANGED  brave.1" in out and "NEW KEYWORD flying" in out
    registry = load_registry()
    assert registry.current == "1.01"
    assert registry.clauses["brave.1"].changed_in("1.01") == "pending"
    assert main(["rules", "status", "--strict"]) == 1
    out = capsys.readouterr().out
    assert "brave/brave-sample.toml: unreviewed: " in out and "brave.1 pending in 1.01" in out
    assert "stealth/stealth-sample.toml: orphaned" in out
    assert "pending review in rules 1.01: " in out and "brave.1" in out.split("pending review")[1]
    assert "'flying'" in out and "'stealth'" in out
    assert main(["lint", "--strict", "--case", "brave-sample"]) == 1
    capsys.readouterr()
    case_file = paths.CASES / "brave" / "brave-sample.toml"
    before = case_file.read_text(encoding="utf-8")
    clauses_file = paths.RULES / "1.01" / "clauses.toml"
    # editorial: the case holds on for 1.01 with no edit to it
    assert main(["rules", "review", "brave.*", "--editorial"]) == 0
    out = capsys.readouterr().out
    assert "brave.1: change reviewed as editorial in rules 1.01" in out
    assert "1 case(s) changed standing" in out
    assert case_file.read_text(encoding="utf-8") == before
    assert main(["rules", "status", "--json", "--case", "brave-*"]) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "valid"
    # substantive: it must be read again, then blessed
    assert main(["rules", "review", "brave.1", "--substantive"]) == 0
    capsys.readouterr()
    assert main(["rules", "status", "--json", "--case", "brave-*"]) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "unreviewed"
    # nothing to review: a removed clause, an unchanged one, an unknown one; nothing written
    text = clauses_file.read_text(encoding="utf-8")
    for clause in ("stealth.1", "taunt.1", "no.such"):
        assert main(["rules", "review", clause, "--editorial"]) == 2
        assert clauses_file.read_text(encoding="utf-8") == text
    assert "Traceback" not in capsys.readouterr().err
    assert main(["rules", "bless", "brave-sample"]) == 0
    assert "blessed 1 case(s) for rules 1.01" in capsys.readouterr().out
    registry = load_registry()
    case = {c.id: c for c in load_cases(paths.CASES, registry)}["brave-sample"]
    assert case.extra["rules_version"] == ["1.00", "1.01"]  # it still passes on 1.00
    assert case.extra["clause_hashes"]["brave.1"] == clause_hash(
        registry.clauses["brave.1"].text["1.01"]
    )
    assert main(["rules", "status", "--json", "--case", "brave-*"]) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "valid"
    assert main(["rules", "status", "--json", "--case", "brave-*", "--rules", "1.00"]) == 0
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "valid"
    # an orphaned case is refused, and the count says so
    assert main(["rules", "bless", "--all"]) == 1
    captured = capsys.readouterr()
    assert "blessed 1 case(s) for rules 1.01" in captured.out and "refused 1" in captured.out
    assert "stealth/stealth-sample.toml: not blessed for rules 1.01" in captured.err


def test_run_warns_about_stale_cases(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = paths.CASES / "brave" / "brave-sample.toml"
    path.write_text(path.read_text().replace('"brave.1" = "', '"brave.1" = "0'), encoding="utf-8")
    assert main(["run"]) == 0
    assert "stale" in capsys.readouterr().err
    assert main(["run", "--strict"]) == 1


def test_bad_arguments(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "diff", "1.00", "no-such-file.txt"]) == 2
    assert main(["rules", "import", "1.00", str(project / "x")]) == 2
    assert main(["rules", "bless"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_diff_exit_status_is_that_of_diff(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new_file = project / "new.txt"
    new_file.write_text(made_up_101(), encoding="utf-8")
    same = project / "same.txt"
    same.write_text(TEXT_100, encoding="utf-8")
    assert main(["rules", "diff", "1.00", "1.00"]) == 0
    assert main(["rules", "diff", "1.00", str(same)]) == 0
    assert "no clause changed" in capsys.readouterr().out
    assert main(["rules", "diff", "1.00", str(new_file)]) == 1
    assert "CHANGED  brave.1" in capsys.readouterr().out
    assert main(["rules", "diff", "1.00", str(new_file), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["keywords_added"] == ["flying"]
    assert main(["rules", "diff", "1.00", str(project / "missing.txt")]) == 2
    assert main(["rules", "diff", "1.00", str(project)]) == 2  # a folder
    assert "Traceback" not in capsys.readouterr().err


def test_status_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["status"] for c in data["cases"]] == ["valid", "valid"]
    new_file = project / "published.txt"
    new_file.write_text(made_up_101(), encoding="utf-8")
    assert main(["rules", "import", "1.01", str(new_file)]) == 0
    capsys.readouterr()
    assert main(["rules", "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules_version"] == "1.01" and data["previous"] == "1.00"
    brave, stealth = data["cases"]
    assert {k: brave[k] for k in brave if k != "reason"} == {
        "id": "brave-sample",
        "path": "brave/brave-sample.toml",
        "status": "unreviewed",
        "blessed_against": "1.00",
        "reviewed": ["1.00"],
        "stale": [],
        "orphaned": [],
        "unblessed": [],
        "unreviewed": [["brave.1", "1.01", "pending"]],
    }
    assert (stealth["id"], stealth["status"], stealth["orphaned"]) == (
        "stealth-sample",
        "orphaned",
        ["stealth.1"],
    )
    assert data["counts"]["unreviewed"] == 1 and data["counts"]["orphaned"] == 1
    assert "brave.1" in data["pending"] and "taunt.2" in data["pending"]
    assert data["keywords_untested"] == ["flying"] and data["keywords_removed"] == ["stealth"]
    assert data["behaviour_changed"] == []  # 1.01 names no oracle: 1.00's, the same verdicts
    assert main(["rules", "status", "--json", "--strict"]) == 1
    capsys.readouterr()
    assert main(["rules", "bless", "brave-sample"]) == 0
    capsys.readouterr()
    assert main(["rules", "status", "--json", "--case", "brave-*"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(c["id"], c["status"], c["blessed_against"]) for c in data["cases"]] == [
        ("brave-sample", "valid", "1.01")
    ]


def test_every_rules_subcommand_has_help_and_a_description() -> None:
    rules = next(
        a.choices["rules"]
        for a in build_parser(["rules"])._actions
        if isinstance(a, argparse._SubParsersAction)
    )
    sub = next(a for a in rules._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert set(sub.choices) == {"diff", "import", "review", "bless", "status"} == set(helps)
    for name, parser in sub.choices.items():
        assert helps[name], name
        assert parser.description and len(parser.description) > 60, name
        for action in parser._actions:
            assert action.help, (name, action.dest)
    assert "0 no change, 1 changes, 2 error" in " ".join(sub.choices["diff"].description.split())
