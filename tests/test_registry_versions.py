"""Rules versions in the registry: each clause's life per version (added, unchanged,
editorial, substantive, pending, removed, merged), summaries per version, the keywords of a
version, each version's oracle class, and the oracle's keywords as a lexicon a version extends."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar

import pytest

from palconf import paths
from palconf.oracle import KEYWORDS, Keyword, Rules, Session, StateError
from palconf.registry import RegistryError
from palconf.registry import load as load_registry

BRAVE = "this card's power increases by N until end of turn"
STEALTH = 'Stealth means "this card cannot be blocked".'


class Flying(Keyword):
    id, name = "flying", "Flying"


class Rules101(Rules):
    """A made-up 1.01: the base game plus Flying (it does nothing here)."""

    rules_version = "1.01"
    keywords: ClassVar = MappingProxyType({**KEYWORDS, "flying": Flying()})


def _clauses_101(old: str, extra: str = "") -> str:
    text = old.replace('version = "1.00"', 'version = "1.01"')
    lines = []
    for line in text.splitlines():
        key = line.split(" = ", 1)[0].strip('"')
        value = line.split(" = ", 1)[1] if " = " in line else ""
        if key == "brave.1":
            new = value.replace("by N until", "by N/2 until")
            line = f'"brave.1" = {{ text = {new}, change = "substantive", summary = "halved" }}'
        elif key == "brave.2":
            line = f'"brave.2" = {value.replace("by N until", "by N/2 until")}'  # not reviewed
        elif key == "stealth.1":
            new = value.replace("cannot be blocked", "can never be blocked")
            line = f'"stealth.1" = {{ text = {new}, change = "editorial" }}'
        elif key == "taunt.3":
            continue
        lines.append(line)
    return "\n".join(lines) + '\n\n[removed]\n"taunt.3" = { merged_into = "taunt.2" }\n' + extra


@pytest.fixture
def rules_101(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    rules = tmp_path / "rules"
    shutil.copytree(paths.ROOT / "rules", rules)
    (rules / "1.01").mkdir()
    shutil.copy(rules / "1.00" / "section12.txt", rules / "1.01" / "section12.txt")
    old = (rules / "1.00" / "clauses.toml").read_text(encoding="utf-8")
    (rules / "1.01" / "clauses.toml").write_text(_clauses_101(old), encoding="utf-8")
    registry = (rules / "registry.toml").read_text(encoding="utf-8")
    registry += (
        '\n[versions."1.01"]\ntitle = "made up"\nfile = "1.01/section12.txt"\n'
        'clauses = "1.01/clauses.toml"\n'
    )
    (rules / "registry.toml").write_text(registry, encoding="utf-8")
    monkeypatch.setattr(paths, "RULES", rules)
    load_registry.cache_clear()
    yield rules
    load_registry.cache_clear()


def test_each_clause_has_its_life_per_version(rules_101: Path) -> None:
    r = load_registry()
    assert list(r.versions) == ["1.00", "1.01"] and r.previous("1.01") == "1.00"
    life = {cid: c.life for cid, c in r.clauses.items()}
    assert life["brave.1"] == {"1.00": "added", "1.01": "substantive"}
    assert life["brave.2"]["1.01"] == "pending"  # changed text, no review yet
    assert life["stealth.1"]["1.01"] == "editorial"
    assert life["taunt.1"]["1.01"] == "unchanged"
    assert life["taunt.3"] == {"1.00": "added", "1.01": "merged"}
    assert r.clauses["taunt.3"].merged_into == {"1.01": "taunt.2"}
    assert r.clauses["brave.1"].changed_in("1.01") == "substantive"
    assert r.clauses["taunt.1"].changed_in("1.01") is None
    assert "taunt.3" not in {c.id for c in r.clauses_in("1.01")}
    assert "taunt.3" in {c.id for c in r.clauses_in("1.00")}


def test_a_summary_holds_from_its_version_on(rules_101: Path) -> None:
    r = load_registry()
    assert r.summary_in("brave.1", "1.01") == "halved"
    assert r.summary_in("brave.1", "1.00") == r.clauses["brave.1"].summary != "halved"
    assert r.summary_in("taunt.1", "1.01") == r.clauses["taunt.1"].summary


def test_a_version_without_code_has_the_oracle_of_the_version_before(rules_101: Path) -> None:
    r = load_registry()
    assert r.oracle("1.00") is Rules and r.oracle("1.01") is Rules
    with pytest.raises(
        RegistryError, match=r"'0\.9' is not in this palconf \(it carries 1\.00, 1\.01"
    ):
        r.resolve("0.9")


def test_a_version_names_its_oracle_class(rules_101: Path) -> None:
    text = (rules_101 / "registry.toml").read_text(encoding="utf-8")
    ref = f"{__name__}:Rules101"
    (rules_101 / "registry.toml").write_text(
        text.replace('title = "made up"', f'title = "made up"\noracle = "{ref}"'), "utf-8"
    )
    load_registry.cache_clear()
    assert load_registry().oracle("1.01") is Rules101
    assert load_registry().oracle("1.00") is Rules
    (rules_101 / "registry.toml").write_text(
        text.replace('title = "made up"', f'title = "made up"\noracle = "{__name__}:Flying"'),
        "utf-8",
    )
    load_registry.cache_clear()
    with pytest.raises(RegistryError, match=r"versions\.1\.01\.oracle: .* is not a palconf"):
        load_registry().oracle("1.01")


def test_a_merge_into_a_clause_the_version_lacks_is_refused(rules_101: Path) -> None:
    path = rules_101 / "1.01" / "clauses.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('merged_into = "taunt.2"', 'merged_into = "taunt.3"'), "utf-8")
    with pytest.raises(RegistryError, match=r"removed\.taunt\.3\.merged_into: names 'taunt\.3'"):
        load_registry()


def test_a_clause_both_kept_and_removed_is_refused(rules_101: Path) -> None:
    path = rules_101 / "1.01" / "clauses.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("[removed]\n", '[removed]\n"taunt.1" = {}\n'), "utf-8")
    with pytest.raises(RegistryError, match=r"clause taunt\.1: is both in \[clauses\]"):
        load_registry()


def test_a_change_on_an_unchanged_text_and_a_reused_id_are_refused(rules_101: Path) -> None:
    path = rules_101 / "1.01" / "clauses.toml"
    text = path.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith('"taunt.1"'))
    value = line.split(" = ", 1)[1]
    path.write_text(
        text.replace(line, f'"taunt.1" = {{ text = {value}, change = "editorial" }}'), "utf-8"
    )
    with pytest.raises(RegistryError, match=r"taunt\.1: has a `change` but its text did not"):
        load_registry()
    path.write_text(text, "utf-8")
    load_registry.cache_clear()
    # 1.02 brings taunt.3 back: ids are never reused
    (rules_101 / "1.02").mkdir()
    shutil.copy(rules_101 / "1.00" / "section12.txt", rules_101 / "1.02" / "section12.txt")
    shutil.copy(rules_101 / "1.00" / "clauses.toml", rules_101 / "1.02" / "clauses.toml")
    reg = rules_101 / "registry.toml"
    reg.write_text(
        reg.read_text("utf-8")
        + '\n[versions."1.02"]\nfile = "1.02/section12.txt"\nclauses = "1.02/clauses.toml"\n',
        "utf-8",
    )
    with pytest.raises(RegistryError, match=r"taunt\.3: was removed in an earlier version"):
        load_registry()


def test_the_oracle_says_its_rules_version_in_hello() -> None:
    assert Session().hello()["rules"] == "1.00"
    assert Session(Rules101).hello()["rules"] == "1.01"
    assert Session(Rules101).hello()["keywords"][-1] == "flying"


def test_a_versions_keywords_are_what_its_states_may_write() -> None:
    state = {
        "players": {
            "A": {
                "life": 5,
                "battle": [{"id": "a1", "kind": "pal", "power": 1, "keywords": ["Flying"]}],
            },
            "B": {"life": 5},
        }
    }
    with pytest.raises(StateError) as refused:
        Rules.from_state(state)
    assert refused.value.code == "unsupported"
    game = Rules101.from_state(state)
    assert game.state.cards["a1"].card.keywords[0].id == "flying"
    assert Rules.lexicon().words["Brave"] == "brave" and "brave" in Rules.lexicon().numbered
    assert Rules.lexicon().whens == {
        "deploy": "on-deploy",
        "attack": "on-attack",
        "assign": "on-assign",
    }


def test_the_registry_and_the_oracle_agree_on_the_keywords_of_each_version() -> None:
    r = load_registry()
    for version in r.versions:
        oracle = r.oracle(version)
        assert list(oracle.keywords) == r.keywords_in(version), version
        assert {k: v.when for k, v in oracle.keywords.items() if v.when} == r.keyword_when
        assert oracle.rules_version in r.versions
