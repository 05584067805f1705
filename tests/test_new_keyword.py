"""A new keyword from data alone (issue 32): a rules version that adds one (the made-up 1.01's
Flying, tests/made_up_rules.py) needs only its registry entries, its oracle class and its
cases. The case schema, the protocol schemas, the messages, the case checks and the board
generators all take the keywords from the registry or from the oracle's classes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from palconf import paths
from palconf.cases import checks
from palconf.cases.errors import CaseLoadError
from palconf.cases.keywords import known_keywords, lexicon
from palconf.cases.loader import load_cases
from palconf.engines import schemas as protocol
from palconf.registry import clause_hash
from palconf.registry import load as load_registry
from tests.made_up_rules import (
    FLYING_1,
    Rules101,
    rules_101,  # noqa: F401
)

CASE = """\
id = "flying-does-nothing-yet"
rules_version = "1.01"
clause_hashes = {{ "flying.1" = "{hash}" }}
title = "A Flying Pal attacks like any other"
clauses = ["flying.1"]
rules = ["B-11"]
actions = [
  {{ do = "attack", player = "A", attacker = "a1", target = "master" }},  # 1
  {{ do = "pass", player = "B" }},                                         # 2
  {{ do = "pass", player = "B" }},                                         # 3
  {{ do = "pass", player = "A" }},                                         # 4 B loses 2
]

[setup]
active = "A"

[setup.players.A]
life = 5
battle = [
  {{ id = "a1", kind = "pal", power = 1000, strike = 2, keywords = ["{word}"] }},
]

[setup.players.B]
life = 5

[[expect]]
after = 4
observed.players.B.life = 3
"""


def write_case(root: Path, word: str = "Flying") -> Path:
    folder = root / "cases" / "flying"
    folder.mkdir(parents=True)
    text = CASE.format(hash=clause_hash(FLYING_1), word=word)
    (folder / "flying-does-nothing-yet.toml").write_text(text, encoding="utf-8")
    return folder.parent


def run(cases: Path, rules: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(paths.ROOT)}
    argv = [sys.executable, "-m", "palconf.cli", "run", "--rules", rules, "--cases", str(cases)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)


# ---------------------------------------------------------------- with the made-up 1.01


@pytest.mark.usefixtures("rules_101")
def test_a_case_of_the_new_keyword_loads(tmp_path: Path) -> None:
    (case,) = load_cases(write_case(tmp_path))
    assert case.keywords == ("flying",)
    assert "flying" in case.needs


def test_the_new_keyword_loads_whichever_version_is_current(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.made_up_rules import make_rules_101

    rules = make_rules_101(tmp_path, current=False)
    monkeypatch.setattr(paths, "RULES", rules)
    load_registry.cache_clear()
    try:
        assert load_registry().current == "1.00"
        (case,) = load_cases(write_case(tmp_path))
        assert "flying" in case.needs
    finally:
        load_registry.cache_clear()


@pytest.mark.usefixtures("rules_101")
def test_run_passes_it_against_the_new_versions_oracle(tmp_path: Path) -> None:
    done = run(write_case(tmp_path), "1.01")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 case(s): 1 pass (rules 1.01)" in done.stdout, done.stdout


@pytest.mark.usefixtures("rules_101")
def test_it_is_not_of_the_old_versions_suite(tmp_path: Path) -> None:
    done = run(write_case(tmp_path), "1.00")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "none of the 1 case(s) selected is of rules 1.00" in done.stderr


@pytest.mark.usefixtures("rules_101")
def test_a_misspelt_keyword_is_refused_naming_the_new_one(tmp_path: Path) -> None:
    with pytest.raises(CaseLoadError) as e:
        load_cases(write_case(tmp_path, "Flyng"))
    message = str(e.value)
    assert "unknown keyword 'Flyng'; known: " in message
    assert "Assault, Flying" in message


@pytest.mark.usefixtures("rules_101")
def test_the_schemas_carry_the_new_keyword() -> None:
    pattern = checks.schema()["$defs"]["keyword"]["pattern"]
    assert "|Flying|" in pattern
    common = protocol.schema_documents()["common"]["$defs"]
    assert common["keyword_id"]["enum"][-1] == "flying"
    assert "|Flying|" in common["keyword_text"]["pattern"]
    assert known_keywords(load_registry()).endswith("Assault, Flying")
    assert lexicon(load_registry()).words["Flying"] == "flying"


@pytest.mark.usefixtures("rules_101")
def test_a_setup_request_with_the_new_keyword_follows_the_protocol() -> None:
    card = {"id": "a1", "kind": "pal", "power": 1, "keywords": ["Flying"]}
    state = {"players": {"A": {"life": 5, "battle": [card]}, "B": {"life": 5}}}
    msg = {"cmd": "setup", "state": state}
    assert protocol.check_message("setup.request", msg) is None
    card["keywords"] = ["Flyng"]
    assert protocol.check_message("setup.request", msg) is not None


@pytest.mark.usefixtures("rules_101")
def test_the_registry_and_the_oracle_agree_on_numbered_keywords() -> None:
    registry = load_registry()
    assert registry.oracle("1.01") is Rules101
    for version in registry.versions:
        oracle = registry.oracle(version).lexicon()
        assert oracle.numbered <= lexicon(registry).numbered
        assert dict(oracle.words).items() <= dict(lexicon(registry).words).items()


# ---------------------------------------------------------------- the project's own rules


def test_without_the_new_version_flying_is_unknown(tmp_path: Path) -> None:
    load_registry.cache_clear()
    with pytest.raises(CaseLoadError) as e:
        load_cases(write_case(tmp_path))
    assert "unknown keyword 'Flying'" in str(e.value)


def test_the_derived_schemas_are_the_published_files() -> None:
    """For the project's registry, deriving changes nothing: the files stay the documents
    outside tools read, and a keyword added to the registry but not to them shows here."""
    load_registry.cache_clear()
    assert checks.schema() == json.loads(paths.CASE_SCHEMA.read_text(encoding="utf-8"))
    files = {
        p.name.removesuffix(".json"): json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(protocol.SCHEMA_DIR.glob("*.json"))
    }
    assert protocol.schema_documents() == files
