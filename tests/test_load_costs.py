"""The loader's small fast paths say what the plain walks they spare say.

- `refs.unknown_ref` (is any card id an action or expectation names missing from the setup,
  outside the actions expected refused?) answers as `refs.refs` (every such id with its
  field path) does, on every table the schema admits: the suite's, the broken-case corpus's,
  and broken variants of real cases. `checks.semantic_errors` works the paths out only when
  it says yes.
- `checks._version_errors` looks no further in a case that writes one `rules_version` the
  registry carries and no `since`, `until` or `replaced_by` (`_one_known_version`): in such
  a table the full check (`_all_version_errors`) finds nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palconf.cases import checks
from palconf.cases.refs import refs, unknown_ref
from palconf.registry import load as load_registry

from .test_fast_paths import _tables, mutated


def _slow(data: dict[str, Any], seen: set[str], refused: set[int]) -> bool:
    """What `semantic_errors` asked before the fast path: an error for any id so named."""
    return any(
        cid not in seen and not (path[0] == "actions" and path[1] in refused)
        for path, cid in refs(data)
    )


@pytest.fixture(scope="module")
def admitted() -> list[dict[str, Any]]:
    """The tables of the suite and of the corpus that the schema admits (the only ones
    `semantic_errors` sees)."""
    check = checks.fast_check()
    return [t for t in _tables() if isinstance(t, dict) and check(t)]


def _questions(data: dict[str, Any]) -> list[tuple[set[str], set[int]]]:
    """(seen, refused) pairs: every named id missing in turn, none missing, nothing seen;
    with no action refused, the case's own refused actions, and every action refused."""
    named = {cid for _, cid in refs(data)}
    n = len(data.get("actions", []))
    after = [e.get("after", n) - 1 for e in data.get("expect", []) if "refused" in e]
    refusals: list[set[int]] = [set(), set(after), set(range(n))]
    seens = [named, set(), *(named - {cid} for cid in sorted(named))]
    return [(seen, refused) for seen in seens for refused in refusals]


def test_the_quick_ref_check_agrees_with_the_paths_on_every_admitted_table(
    admitted: list[dict[str, Any]],
) -> None:
    assert len(admitted) > 1300
    said_yes = 0
    for data in admitted:
        for seen, refused in _questions(data):
            fast = unknown_ref(data, seen, refused)
            assert fast == _slow(data, seen, refused), (data.get("id"), seen, refused)
            said_yes += fast
    assert said_yes > 5000  # (both answers asked often)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data())
def test_the_quick_ref_check_agrees_on_broken_variants(
    admitted: list[dict[str, Any]], data: st.DataObject
) -> None:
    table = data.draw(mutated(admitted))
    if not (isinstance(table, dict) and checks.fast_check()(table)):
        return  # (the schema refuses it: `semantic_errors` never sees it)
    for seen, refused in _questions(table):
        assert unknown_ref(table, seen, refused) == _slow(table, seen, refused)


def _versions_agree(table: dict[str, Any]) -> bool:
    registry = load_registry()
    if not checks._one_known_version(table, registry):
        return False
    assert checks._all_version_errors(table, "x.toml", "", registry) == [], table.get("id")
    return True


def test_a_case_of_one_known_version_has_no_version_error(
    admitted: list[dict[str, Any]],
) -> None:
    spared = sum(_versions_agree(t) for t in admitted)
    assert 1300 < spared < len(admitted)  # (the corpus has version errors: not spared)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.data(), st.sampled_from(["since", "until", "replaced_by", "rules_version", "x"]))
def test_a_case_of_one_known_version_has_no_version_error_on_broken_variants(
    admitted: list[dict[str, Any]], data: st.DataObject, key: str
) -> None:
    table = data.draw(mutated(admitted))
    if isinstance(table, dict) and checks.fast_check()(table):
        _versions_agree(table)
        _versions_agree({**table, key: data.draw(st.sampled_from(["1.00", "1.01", "0.9", []]))})
