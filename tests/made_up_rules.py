"""A made-up rules version 1.01, for the tests of rules versions side by side.

Against 1.00 it has: an editorial change (Stealth's "cannot" → "can never"), a behaviour
change (Brave N gives half of N, rounded down: brave.1 reviewed as substantive, brave.2 and
brave.3 still pending), a clause merged into another (taunt.3 into taunt.2), and a new
keyword (Flying, whose clause flying.1 says it does nothing yet). Its oracle is `Rules101`:
the 1.00 oracle with Brave halved and Flying added, a delta of two classes.

`make_rules_101(root)` writes a copy of the project's rules/ with 1.01 added under `root`;
the fixture `rules_101` does so and points palconf (paths.RULES) at it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar

import pytest

from palconf import paths
from palconf.oracle import KEYWORDS, Keyword, Rules
from palconf.oracle.keywords import Brave
from palconf.oracle.model import CardState, Effect, KeywordInstance
from palconf.registry import load as load_registry

ORACLE_101 = "tests.made_up_rules:Rules101"
BRAVE_OLD = "this card's power increases by N until end of turn"
BRAVE_NEW = "this card's power increases by half of N, rounded down, until end of turn"
STEALTH_OLD = 'Stealth means "this card cannot be blocked".'
STEALTH_NEW = 'Stealth means "this card can never be blocked".'
FLYING = '\nFlying#\n\nA keyword of things to come. Flying means "this card has no ability yet".\n'
FLYING_1 = 'Flying means "this card has no ability yet".'


class Flying(Keyword):
    """flying.1 (1.01): no ability yet."""

    id, name = "flying", "Flying"


class HalfBrave(Brave):
    """brave.1 (1.01): "Brave N" pumps by half of N, rounded down."""

    def triggered(self, card: CardState, event: str, instance: KeywordInstance) -> list[Effect]:
        return [replace(e, amount=e.amount // 2) for e in super().triggered(card, event, instance)]


class Rules101(Rules):
    """The oracle of the made-up 1.01: 1.00's with Brave halved and Flying added."""

    rules_version = "1.01"
    keywords: ClassVar = MappingProxyType({**KEYWORDS, "brave": HalfBrave(), "flying": Flying()})


def make_rules_101(
    root: Path, *, current: bool = True, oracle: str | None = ORACLE_101, editorial: bool = False
) -> Path:
    """A copy of the project's rules/ under `root` with 1.01 added (current, unless told
    not); its registry names `oracle` as 1.01's (None: no code, 1.00's oracle). With
    `editorial`, 1.01 has the Stealth rewording only (no code: the behaviour is 1.00's)."""
    if editorial:
        return _editorial_101(root, current)
    rules = root / "rules"
    shutil.copytree(paths.ROOT / "rules", rules)
    (rules / "1.01").mkdir()
    text = (rules / "1.00" / "section12.txt").read_text(encoding="utf-8")
    text = text.replace(BRAVE_OLD, BRAVE_NEW).replace(STEALTH_OLD, STEALTH_NEW)
    (rules / "1.01" / "section12.txt").write_text(text.rstrip("\n") + "\n" + FLYING, "utf-8")
    lines = []
    for line in (rules / "1.00" / "clauses.toml").read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition(" = ")
        key = key.strip('"')
        if line.startswith("version"):
            line = 'version = "1.01"'
        elif key == "brave.1":
            new = value.replace("by N until", "by half of N, rounded down, until")
            line = f'"brave.1" = {{ text = {new}, change = "substantive", summary = "halved" }}'
        elif key in ("brave.2", "brave.3"):  # not reviewed yet
            line = f'"{key}" = ' + value.replace("by N until", "by half of N, rounded down, until")
        elif key == "stealth.1":
            new = value.replace("cannot be blocked", "can never be blocked")
            line = f'"stealth.1" = {{ text = {new}, change = "editorial" }}'
        elif key == "taunt.3":
            continue
        lines.append(line)
    lines.append('"flying.1" = ' + _toml_string(FLYING_1))
    lines += ["", "[removed]", '"taunt.3" = { merged_into = "taunt.2" }', ""]
    (rules / "1.01" / "clauses.toml").write_text("\n".join(lines), encoding="utf-8")
    registry = (rules / "registry.toml").read_text(encoding="utf-8")
    registry = registry.replace(
        "\n# ---------------------------------------------------------------- keywords\n",
        '\n[versions."1.01"]\ntitle = "made up 1.01"\nfile = "1.01/section12.txt"\n'
        'clauses = "1.01/clauses.toml"\n'
        + (f'oracle = "{oracle}"\n' if oracle else "")
        + "\n# ---------------------------------------------------------------- keywords\n",
        1,
    )
    registry += (
        '\n[keywords.flying]\nname = "Flying"\nheading = "Flying"\n'
        '\n[clauses."flying.1"]\nkeyword = "flying"\ntestable = true\n'
        'summary = "does nothing yet"\n'
    )
    if current:
        registry = registry.replace('current = "1.00"', 'current = "1.01"', 1)
    (rules / "registry.toml").write_text(registry, encoding="utf-8")
    return rules


def _editorial_101(root: Path, current: bool) -> Path:
    rules = root / "rules"
    shutil.copytree(paths.ROOT / "rules", rules)
    (rules / "1.01").mkdir()
    text = (rules / "1.00" / "section12.txt").read_text(encoding="utf-8")
    (rules / "1.01" / "section12.txt").write_text(text.replace(STEALTH_OLD, STEALTH_NEW), "utf-8")
    lines = []
    for line in (rules / "1.00" / "clauses.toml").read_text(encoding="utf-8").splitlines():
        if line.startswith("version"):
            line = 'version = "1.01"'
        elif line.startswith('"stealth.1" = '):
            new = line.partition(" = ")[2].replace("cannot be blocked", "can never be blocked")
            line = f'"stealth.1" = {{ text = {new}, change = "editorial" }}'
        lines.append(line)
    (rules / "1.01" / "clauses.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    registry = (rules / "registry.toml").read_text(encoding="utf-8")
    registry += '\n[versions."1.01"]\ntitle = "made up 1.01, editorial"\n'
    registry += 'file = "1.01/section12.txt"\nclauses = "1.01/clauses.toml"\n'
    if current:
        registry = registry.replace('current = "1.00"', 'current = "1.01"', 1)
    (rules / "registry.toml").write_text(registry, encoding="utf-8")
    return rules


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.fixture
def rules_101(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """palconf pointed at the project's rules with the made-up 1.01 added (and current)."""
    rules = make_rules_101(tmp_path)
    monkeypatch.setattr(paths, "RULES", rules)
    monkeypatch.setenv("PALCONF_RULES", str(rules))
    load_registry.cache_clear()
    yield rules
    load_registry.cache_clear()
