"""The fast paths taken for speed (benchmarks/) say what the slow, plain ones say.

- The case loader checks a file with a compiled schema check and asks jsonschema only when
  that check fails: the two must agree on every file of the suite and on broken variants.
- The oracle copies the state for every action it tries: a copy shares nothing mutable.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import tomli
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf import paths
from palconf.cases import checks, loader
from palconf.oracle import Rules
from palconf.oracle.model import Pump

from .test_protocol_schemas import _paths


@pytest.fixture(scope="module")
def case_data() -> list[dict[str, Any]]:
    return [tomli.loads(p.read_text(encoding="utf-8")) for p in loader.case_files(paths.CASES)]


def agree(data: Any) -> bool:
    return checks.fast_check()(data) == checks.validator().is_valid(data)


@pytest.mark.slow
def test_every_case_file_passes_both_checks(case_data: list[dict[str, Any]]) -> None:
    assert case_data
    for data in case_data:
        assert checks.fast_check()(data), data["id"]
        assert checks.validator().is_valid(data), data["id"]


def test_the_keywords_only_the_case_schema_uses(case_data: list[dict[str, Any]]) -> None:
    """maxLength and minProperties, which the adapter's compiler lacks, are checked."""
    good = copy.deepcopy(case_data[0])
    too_long = {**good, "title": "x" * 101}
    empty_observed = {**good, "expect": [{"after": 0, "observed": {}}]}
    long_id = copy.deepcopy(good)
    long_id["setup"]["players"]["A"]["hand"] = [{"id": "a" * 65, "kind": "pal", "power": 1}]
    for bad in (too_long, empty_observed, long_id):
        assert not checks.validator().is_valid(bad)
        assert not checks.fast_check()(bad)
    assert checks.fast_check()({**good, "title": "x" * 100})


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 3)
    | st.sampled_from(
        [
            1.5,
            "",
            "null",
            "master",
            "A",
            "B",
            "a1",
            "pal",
            "event",
            "structure",
            "Brave 200",
            "Taunt",
            "Brave",
            "pump",
            "chosen",
            "deploy",
            "attack",
            "pass",
            "x" * 101,
            "brave.1",
            "B-12",
            "I-1",
            "main",
            "stand",
            "illegal-target",
        ]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "id",
                    "kind",
                    "power",
                    "do",
                    "player",
                    "after",
                    "observed",
                    "refused",
                    "cards",
                    "zone",
                    "life",
                    "keywords",
                    "op",
                    "target",
                    "x",
                ]
            ),
            inner,
            max_size=3,
        )
    ),
    max_leaves=6,
)


STRINGS = st.sampled_from(
    [
        "",
        "a b",
        "Flying",
        "Brave x",
        "B12",
        "Brave.1",
        "Case-Id",
        "master",
        "null",
        "x" * 65,
        "x" * 101,
        "brave.1",
        "a1",
    ]
)


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


@st.composite
def mutated(draw: st.DrawFn, sample: list[dict[str, Any]]) -> Any:
    """A real case with one part deleted, replaced, added to or duplicated, or one of its
    strings replaced by one that breaks a pattern or a length."""
    value = copy.deepcopy(draw(st.sampled_from(sample)))
    how = draw(st.sampled_from(["delete", "replace", "add", "string", "duplicate"]))
    paths_ = list(_paths(value))
    if how == "string":
        paths_ = [p for p in paths_ if p and isinstance(_at(value, p), str)]
    elif how == "duplicate":
        paths_ = [p for p in paths_ if isinstance(_at(value, p), list) and _at(value, p)]
    path = draw(st.sampled_from(paths_))
    new = draw(STRINGS if how == "string" else JSON)
    if how == "duplicate":
        items = _at(value, path)
        items.append(copy.deepcopy(items[0]))
        return value
    if not path:
        return new
    parent = _at(value, path[:-1])
    last = path[-1]
    if how == "delete":
        del parent[last]
    elif how in ("replace", "string") or not isinstance(parent[last], (dict, list)):
        parent[last] = new
    elif isinstance(parent[last], dict):
        parent[last][draw(st.sampled_from(["x", "id", "power", "after", "zone"]))] = new
    else:
        parent[last].append(new)
    return value


@pytest.mark.slow  # an agreement sweep against jsonschema
def test_fast_check_agrees_with_jsonschema_on_broken_cases(case_data: list[dict[str, Any]]) -> None:
    sample = case_data[::9]

    @settings(max_examples=300, deadline=None)
    @given(mutated(sample))
    def check(value: Any) -> None:
        assert agree(value), value

    check()


def test_a_state_copy_shares_nothing_mutable(case_data: list[dict[str, Any]]) -> None:
    with_pals = next(d for d in case_data if d["setup"]["players"]["A"].get("battle"))
    game = Rules.from_state(with_pals["setup"])
    g = game.state
    c = g.copy()
    before = game.observe()
    for card in c.cards.values():
        assert card is not g.cards[card.id] and card.card is g.cards[card.id].card
        card.zone, card.state, card.host = "graveyard", "rest", "s9"
    c.life["A"] -= 1
    c.energy["B"] += 1
    c.pumps.append(Pump(next(iter(c.cards)), 500))
    assert game.observe() == before
