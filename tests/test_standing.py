"""A case's standing under each rules version (palconf/cases/standing.py), on the made-up
1.01 of tests/made_up_rules.py: each state, and the review of a clause settling every case
that cites it while the case's other clauses are judged on their own."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from palconf.cases.loader import Case, CaseLoadError, load_cases
from palconf.cases.standing import standing
from palconf.registry import clause_hash
from palconf.registry import load as load_registry

#: the fixture rules_101
pytest_plugins = ["tests.made_up_rules"]


def _case(cites: tuple[str, ...], blessed: str | None = "1.00", **fields: object) -> Case:
    r = load_registry()
    base = next(c for c in load_cases() if c.clauses == ("taunt.1",))
    hashes = (
        {
            cid: clause_hash(r.clauses[cid].text[blessed])
            for cid in cites
            if blessed in r.clauses[cid].text
        }
        if blessed
        else {}
    )
    extra = {"rules_version": blessed, "clause_hashes": hashes} if blessed else {}
    return replace(base, clauses=cites, extra=extra, **fields)  # type: ignore[arg-type]


def test_an_unchanged_or_editorial_clause_keeps_the_case_valid(rules_101: Path) -> None:
    r = load_registry()
    for cites in (("taunt.1",), ("stealth.1",), ("taunt.1", "stealth.1")):
        s = standing(_case(cites), r, "1.01")
        assert s.state == "valid" and s.runs and s.reason() == "", cites


def test_a_substantive_or_pending_change_needs_review_each_clause_on_its_own(
    rules_101: Path,
) -> None:
    r = load_registry()
    s = standing(_case(("stealth.1", "brave.1", "brave.2")), r, "1.01")
    assert s.state == "unreviewed" and not s.runs
    assert s.unreviewed == (("brave.1", "1.01", "substantive"), ("brave.2", "1.01", "pending"))
    assert "stealth.1" not in s.reason() and "brave.2 pending in 1.01" in s.reason()
    assert standing(_case(("brave.1",)), r, "1.00").state == "valid"  # its own version


def test_a_case_blessed_for_the_new_version_holds_for_the_old_only_without_a_change(
    rules_101: Path,
) -> None:
    r = load_registry()
    assert standing(_case(("stealth.1",), "1.01"), r, "1.00").state == "valid"
    s = standing(_case(("brave.1",), "1.01"), r, "1.00")
    assert s.state == "unreviewed" and s.unreviewed == (("brave.1", "1.01", "substantive"),)
    successor = _case(("brave.1",), "1.01", since="1.01")
    assert standing(successor, r, "1.00").state == "out-of-range"
    assert standing(successor, r, "1.01").state == "valid"


def test_a_case_reviewed_for_both_versions_holds_for_both(rules_101: Path) -> None:
    r = load_registry()
    both = _case(("brave.1",), "1.01")
    both = replace(both, extra={**both.extra, "rules_version": ["1.00", "1.01"]})
    assert both.reviewed == ("1.00", "1.01") and both.rules_version == "1.01"
    assert standing(both, r, "1.00").state == "valid"
    assert standing(both, r, "1.01").state == "valid"
    only_new = replace(both, extra={**both.extra, "rules_version": "1.01"})
    assert standing(only_new, r, "1.00").state == "unreviewed"


def test_a_removed_clause_orphans_the_case_until_it_gets_an_until(rules_101: Path) -> None:
    (rules_101 / "1.01" / "clauses.toml").write_text(
        (rules_101 / "1.01" / "clauses.toml")
        .read_text(encoding="utf-8")
        .replace('"taunt.3" = { merged_into = "taunt.2" }', '"taunt.3" = {}'),
        encoding="utf-8",
    )
    load_registry.cache_clear()
    r = load_registry()
    s = standing(_case(("taunt.3",)), r, "1.01")
    assert s.state == "orphaned" and s.orphaned == ("taunt.3",) and s.in_suite
    ended = _case(("taunt.3",), until="1.00", replaced_by=("x",))
    assert standing(ended, r, "1.01").state == "out-of-range"
    assert "succeeded by x" in standing(ended, r, "1.01").reason()
    assert standing(ended, r, "1.00").state == "valid"


def test_a_merge_is_judged_by_its_review(rules_101: Path) -> None:
    clauses = rules_101 / "1.01" / "clauses.toml"
    r = load_registry()
    s = standing(_case(("taunt.3", "taunt.1")), r, "1.01")  # the fixture's merge: not reviewed
    assert s.state == "unreviewed"
    assert s.unreviewed == (("taunt.3", "1.01", "merged into taunt.2 (pending)"),)
    text = clauses.read_text(encoding="utf-8")
    for change, state in (("editorial", "valid"), ("substantive", "unreviewed")):
        clauses.write_text(
            text.replace(
                'merged_into = "taunt.2" }', f'merged_into = "taunt.2", change = "{change}" }}'
            ),
            encoding="utf-8",
        )
        load_registry.cache_clear()
        assert standing(_case(("taunt.3",)), load_registry(), "1.01").state == state, change
    clauses.write_text(text.replace('"taunt.3" = { merged_into = "taunt.2" }', '"taunt.3" = {}'))
    load_registry.cache_clear()
    assert standing(_case(("taunt.3",)), load_registry(), "1.01").state == "orphaned"


def test_a_clause_of_a_later_version_keeps_the_case_out_of_the_earlier(rules_101: Path) -> None:
    r = load_registry()
    s = standing(_case(("flying.1",), "1.01"), r, "1.00")
    assert s.state == "out-of-range" and "does not have yet" in s.reason()


def test_a_wrong_hash_is_stale_and_no_hash_is_unblessed(rules_101: Path) -> None:
    r = load_registry()
    bad = _case(("taunt.1",))
    bad = replace(bad, extra={"rules_version": "1.00", "clause_hashes": {"taunt.1": "0" * 12}})
    assert standing(bad, r, "1.00").state == "stale"
    new = _case(("taunt.1",), None)
    assert standing(new, r, "1.01").state == "unblessed"
    assert standing(new, r, "1.01").runs  # a case being written runs on the current version
    assert not standing(new, r, "1.00").runs


def test_the_loader_checks_the_version_fields(rules_101: Path, tmp_path: Path) -> None:
    case = next(c for c in load_cases() if c.clauses == ("taunt.1",))
    src = Path(__file__).parent.parent / "cases" / case.path
    text = src.read_text(encoding="utf-8")
    bad = {
        "since": 'since = "0.9"\n',
        "until": 'since = "1.01"\nuntil = "1.00"\n',
        "replaced_by": 'replaced_by = ["no-such-case"]\n',
        "rules_version": None,
    }
    for field, line in bad.items():
        folder = tmp_path / field
        (folder / "x").mkdir(parents=True)
        body = (
            text.replace('rules_version = "1.00"', 'rules_version = "7.7"')
            if line is None
            else text.replace("\ntitle", f"\n{line}title", 1)
        )
        (folder / "x" / src.name).write_text(body, encoding="utf-8")
        with pytest.raises(CaseLoadError) as e:
            load_cases(folder)
        shown = "\n".join(str(err) for err in e.value.errors)
        assert field in shown, shown
    folder = tmp_path / "ok"
    (folder / "x").mkdir(parents=True)
    (folder / "x" / src.name).write_text(text.replace("\ntitle", '\nuntil = "1.00"\ntitle', 1))
    assert load_cases(folder)[0].until == "1.00"


def test_only_a_merge_has_a_change_among_the_removed(rules_101: Path) -> None:
    from palconf.registry import RegistryError

    clauses = rules_101 / "1.01" / "clauses.toml"
    text = clauses.read_text(encoding="utf-8")
    for entry, words in (
        ('{ change = "editorial" }', "removed.taunt.3.change: only a clause merged"),
        ('{ merged_into = "taunt.2", change = "minor" }', "removed.taunt.3.change: must be one"),
    ):
        clauses.write_text(text.replace('{ merged_into = "taunt.2" }', entry), encoding="utf-8")
        load_registry.cache_clear()
        with pytest.raises(RegistryError, match=words):
            load_registry()
