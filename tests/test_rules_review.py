"""`palconf rules status`, `review` and `bless` on the made-up 1.01 whose oracle halves Brave
(tests/made_up_rules.py): verdicts that change between the two oracles are found whether or
not the case cites Brave, and a case is blessed for 1.01 only if it passes on 1.01's oracle."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from palconf import paths
from palconf.cases.loader import load_cases
from palconf.cli import main
from palconf.registry import load as load_registry

pytest_plugins = ["tests.made_up_rules"]

NOT_CITING_BRAVE = {
    "interrupt-brave-increase-stays-attacker-stays-rested",
    "protocol-observed-brave-attacker-dies-shows-printed-power",
    "protocol-observed-power-is-current-power",
}


@pytest.fixture
def cases(rules_101: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the project's cases (bless writes into case files)."""
    root = tmp_path / "cases"
    shutil.copytree(paths.CASES, root)
    monkeypatch.setattr(paths, "CASES", root)
    monkeypatch.setenv("PALCONF_CASES", str(root))
    return root


def test_status_finds_every_changed_verdict_cited_or_not(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "status", "--rules", "1.01", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    changed = {b["id"]: b for b in data["behaviour_changed"]}
    unnoticed = {cid for cid, b in changed.items() if b["unnoticed"]}
    assert NOT_CITING_BRAVE <= unnoticed
    for cid in NOT_CITING_BRAVE:
        b = changed[cid]
        assert b["before"]["outcome"] == "pass" and b["after"]["outcome"] == "fail"
        assert b["status"] == "valid" and not b["cites_changed"]
    cited = [b for b in changed.values() if b["cites_changed"]]
    assert cited and all(b["status"] != "valid" for b in cited)  # already flagged by standing
    assert {"brave.2", "brave.3"} <= set(data["pending"])
    assert main(["rules", "status", "--rules", "1.01", "--strict"]) == 1
    out = capsys.readouterr().out
    assert "interrupt-brave-increase-stays-attacker-stays-rested: pass → fail" in out
    assert "cites no changed clause: not run" in out
    # the version before has no version before it: nothing to compare, nothing changed
    assert main(["rules", "status", "--rules", "1.00", "--strict"]) == 0


def test_bless_refuses_a_case_that_fails_on_the_versions_oracle(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "protocol-observed-power-is-current-power"
    path = next(cases.rglob(f"{target}.toml"))
    before = path.read_text(encoding="utf-8")
    assert (
        main(["rules", "bless", "--rules", "1.01", target, "stealth-attacker-cannot-be-blocked"])
        == 1
    )
    captured = capsys.readouterr()
    assert "blessed 1 case(s) for rules 1.01" in captured.out
    assert "refused 1 case(s)" in captured.out
    assert f"{target}.toml: not blessed for rules 1.01: does not pass on the oracle" in captured.err
    assert path.read_text(encoding="utf-8") == before
    case = {c.id: c for c in load_cases(cases, load_registry())}[
        "stealth-attacker-cannot-be-blocked"
    ]
    assert case.extra["rules_version"] == ["1.00", "1.01"]
    assert main(["rules", "bless", "--rules", "1.01", "no-such-case-*"]) == 2


def test_review_marks_a_merge_and_its_cases_hold_on(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = "taunt-double-taunt-standing-binds-assault-attacker"  # cites taunt.3, merged
    assert (
        main(["rules", "status", "--rules", "1.01", "--json", "--no-oracles", "--case", target])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "unreviewed"
    assert main(["rules", "review", "taunt.3", "--editorial", "--rules", "1.01"]) == 0
    assert "taunt.3: merge into taunt.2 reviewed as editorial" in capsys.readouterr().out
    text = (paths.RULES / "1.01" / "clauses.toml").read_text(encoding="utf-8")
    assert '"taunt.3" = { merged_into = "taunt.2", change = "editorial" }' in text
    assert (
        main(["rules", "status", "--rules", "1.01", "--json", "--no-oracles", "--case", target])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "valid"


def test_coverage_counts_a_merged_clauses_cases_for_the_clause_it_went_into(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["rules", "review", "taunt.3", "--editorial", "--rules", "1.01"]) == 0
    capsys.readouterr()
    main(["coverage", "--rules", "1.01"])
    before = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    assert "taunt.3" not in before  # not a clause of 1.01
    main(["coverage", "--rules", "1.00"])
    old = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line}
    assert int(before["taunt.2"].split()[1]) > int(old["taunt.2"].split()[1])


def test_review_can_give_a_changed_clause_its_summary_as_of_the_version(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = "Brave N: when the card attacks, its power increases by half of N."
    assert main(["rules", "review", "brave.2", "--substantive", "--summary", said]) == 0
    registry = load_registry()
    assert registry.summary_in("brave.2", "1.01") == said
    assert registry.summary_in("brave.2", "1.00") != said
    # one clause at a time, and not for a merge: a usage error, nothing written
    text = (paths.RULES / "1.01" / "clauses.toml").read_text(encoding="utf-8")
    assert main(["rules", "review", "brave.*", "--substantive", "--summary", "x"]) == 2
    assert main(["rules", "review", "taunt.3", "--editorial", "--summary", "x"]) == 2
    assert (paths.RULES / "1.01" / "clauses.toml").read_text(encoding="utf-8") == text


def test_a_text_edited_after_its_review_is_pending_again(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`rules review` records the hash of the text it read (`reviewed`); a text edited since
    is not covered by that review: the change is pending, and its cases stop holding."""
    target = "stealth-attacker-cannot-be-blocked"
    assert main(["rules", "review", "stealth.1", "--editorial", "--rules", "1.01"]) == 0
    path = paths.RULES / "1.01" / "clauses.toml"
    text = path.read_text(encoding="utf-8")
    assert "reviewed = " in text.split('"stealth.1"')[1].splitlines()[0]
    assert load_registry().clauses["stealth.1"].changed_in("1.01") == "editorial"
    capsys.readouterr()
    assert (
        main(["rules", "status", "--rules", "1.01", "--json", "--no-oracles", "--case", target])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "valid"
    path.write_text(text.replace("can never be blocked", "can not ever be blocked"), "utf-8")
    load_registry.cache_clear()
    assert load_registry().clauses["stealth.1"].changed_in("1.01") == "pending"
    assert (
        main(["rules", "status", "--rules", "1.01", "--json", "--no-oracles", "--case", target])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["cases"][0]["status"] == "unreviewed"
