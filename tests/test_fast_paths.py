"""The fast paths taken for speed (benchmarks/) say what the slow, plain ones say.

- The case loader checks a file with a compiled schema check and asks jsonschema only when
  that check fails: the two must agree on every file of the suite and on broken variants.
- The oracle copies the state for every action it tries: a copy shares nothing mutable.
- The loader looks for values JSON lacks (dates, NaN) with a walk that makes no paths, and
  makes them only for a table that has one: both walks find the same.
- The comparator sorts a list of ids as it is, not as JSON texts, and skips an equal scalar
  without making its path: its diffs are those of the plain comparator.
"""

from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any

import pytest
import tomli
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf import paths
from palconf.cases import checks, loader, reading
from palconf.core.compare import MISSING, Diff, _as_set, canonical, compare, same
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


# ------------------------------------------------- the loader's and the runner's fast paths

BROKEN = Path(__file__).parent / "data" / "broken-cases"
#: TOML values a case may hold, JSON's and those JSON lacks (dates, times, NaN, infinities)
TOML_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=3)
    | st.dates()
    | st.times()
    | st.datetimes(timezones=st.none() | st.timezones()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=8,
)


def _tables(suite: bool = True) -> list[Any]:
    """Every TOML table of the broken-case corpus that tomli reads, and of the suite."""
    tables = []
    files = sorted(BROKEN.rglob("*.toml"))
    for path in [*files, *(loader.case_files(paths.CASES) if suite else [])]:
        try:
            tables.append(tomli.loads(path.read_bytes().decode("utf-8")))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError):
            continue  # (no table to walk: the corpus's unreadable, non-UTF-8, non-TOML files)
    return tables


def test_foreign_values_are_found_by_the_quick_walk_as_by_the_full_one() -> None:
    """`foreign_value` walks a table without paths first (`_any_foreign`) and works out the
    path only for a table that has a foreign value: the two walks agree on every table of
    the suite and of the corpus, and on a sample of them with a foreign value put in at
    one place or another."""
    tables = _tables()
    assert len(tables) > 1000
    found = 0
    for table in tables:
        full = reading._first_foreign(table, "f.toml", "")
        assert reading._any_foreign(table) == (full is not None)
        found += full is not None
    for table in tables[::20]:
        for path in list(_paths(table))[1:40:4]:
            for odd in (float("nan"), float("-inf"), datetime.date(2024, 1, 1)):
                changed = copy.deepcopy(table)
                parent = _at(changed, path[:-1])
                parent[path[-1]] = odd
                assert reading._any_foreign(changed)
                assert reading._first_foreign(changed, "f.toml", "") is not None
    assert found >= 3  # the corpus's own: a date and NaN in a malformed action, …


@settings(max_examples=200, deadline=None)
@given(TOML_VALUE)
def test_the_quick_foreign_walk_agrees_with_the_full_one_on_any_toml_value(value: Any) -> None:
    assert reading._any_foreign(value) == (reading._first_foreign(value, "f", "") is not None)


SCALARS = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from([0.0, 1.0, 1.5])
IDS = st.sampled_from(["a1", "a2", "b1", "", "1"])
JSON_LEAVES = SCALARS | IDS


def _plain_same(a: Any, b: Any) -> bool:
    """`compare.same` as it was written before its fast path for lists of ids."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_plain_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and _as_set(a) == _as_set(b)
    return bool(a == b)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(IDS, max_size=4) | st.lists(JSON_LEAVES, max_size=4),
    st.lists(IDS, max_size=4) | st.lists(JSON_LEAVES, max_size=4),
)
def test_lists_of_ids_compare_as_their_json_texts_do(a: list[Any], b: list[Any]) -> None:
    """`same` sorts a list of strings as it is (no JSON text for each); a list with any
    other value goes the way of the JSON texts. Both say what the texts say."""
    assert same(a, b) == _plain_same(a, b)
    assert same(a, list(reversed(a)))


OBSERVED_LIKE = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a1", "zone", "power", "hand"]), inner, max_size=3)
    ),
    max_leaves=8,
)


def _plain_compare(expected: Any, observed: Any, subset: bool, path: str = "") -> list[Diff]:
    """`compare` as it was written before it skipped equal scalars."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        diffs: list[Diff] = []
        for key, value in expected.items():
            sub = f"{path}.{key}" if path else str(key)
            if key not in observed:
                diffs.append(Diff(sub, value, MISSING))
            else:
                diffs += _plain_compare(value, observed[key], subset, sub)
        if not subset:
            diffs += [
                Diff(f"{path}.{k}" if path else str(k), MISSING, v)
                for k, v in observed.items()
                if k not in expected
            ]
        return diffs
    if _plain_same(expected, observed):
        return []
    if isinstance(expected, list) and isinstance(observed, list):
        return [
            Diff(
                path or "(state)",
                sorted(expected, key=canonical),
                sorted(observed, key=canonical),
            )
        ]
    return [Diff(path or "(state)", expected, observed)]


@settings(max_examples=200, deadline=None)
@given(OBSERVED_LIKE, OBSERVED_LIKE, st.booleans())
def test_the_comparator_gives_the_diffs_it_gave_before_its_fast_paths(
    expected: Any, observed: Any, subset: bool
) -> None:
    assert compare(expected, observed, subset=subset) == _plain_compare(expected, observed, subset)


def test_the_fast_check_and_jsonschema_agree_on_every_broken_case_file() -> None:
    """The corpus's tables (tests/data/broken-cases/): the compiled check refuses exactly
    what the schema refuses (the suite's: test_every_case_file_passes_both_checks)."""
    tables = _tables(suite=False)
    refused = [t for t in tables if not checks.validator().is_valid(t)]
    assert len(refused) > 50
    for table in tables:
        assert agree(table), table.get("id")
