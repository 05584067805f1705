"""The loader's fast paths say what the plain ones say (tests/test_fast_paths.py has more).

- A case file's schema check is compiled to Python source (`core.schema_source`), not made
  of the `Compiler`'s closures: the two give the same verdict on every case file, on every
  file of the broken-case corpus, on broken variants of real cases and on any JSON value,
  and so do the protocol's schemas compiled both ways. Where the objects of a `oneOf` are
  told apart by one key's const (an action's `do`), the source looks up the branch that
  value names instead of trying them all: it agrees with the count of the `Compiler`.
- A checked table is kept (`cases.memo`) with `marshal` where it can be: what comes back is
  what a pickle gave back.
"""

from __future__ import annotations

import copy
import json
import pickle
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import tomli
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf import paths
from palconf.cases import checks, loader, memo
from palconf.core.schema import Check, Compiler
from palconf.core.schema_source import SourceCompiler, _told_apart_by
from palconf.engines import schemas as protocol

from .test_fast_paths import JSON, _tables, mutated


@pytest.fixture(scope="module")
def case_data() -> list[dict[str, Any]]:
    return [tomli.loads(p.read_text(encoding="utf-8")) for p in loader.case_files(paths.CASES)]


def same_verdict(value: Any) -> bool:
    return checks.fast_check()(value) == checks.closure_check()(value)


def test_the_source_check_and_the_closures_agree_on_every_file() -> None:
    """The suite's files (all valid) and the corpus's tables (most of them not)."""
    tables = _tables()
    refused = [t for t in tables if not checks.closure_check()(t)]
    assert len(tables) > 1000 and len(refused) > 50
    for table in tables:
        assert same_verdict(table), table.get("id")


def test_the_source_check_and_the_closures_agree_on_broken_cases(
    case_data: list[dict[str, Any]],
) -> None:
    """Real cases with a part deleted, replaced, added or duplicated, or a string broken;
    the same with each action's `do` changed, and each action given to every other."""
    sample = case_data[::7]

    @settings(max_examples=400, deadline=None)
    @given(mutated(sample))
    def check(value: Any) -> None:
        assert same_verdict(value), value

    check()
    actions = [a for d in case_data for a in d["actions"] if "do" in a]
    dos = sorted({a["do"] for a in actions}) + ["", "Deploy", "nothing"]
    base = next(d for d in case_data if d["actions"] and "do" in d["actions"][0])
    verdicts = set()
    for action in actions[::3]:
        for do in [*dos, 1, None, ["pass"]]:
            changed = copy.deepcopy(base)
            changed["actions"][0] = {**action, "do": do}
            assert same_verdict(changed), changed["actions"][0]
            verdicts.add(checks.fast_check()(changed))
    assert verdicts == {True, False}


@settings(max_examples=400, deadline=None)
@given(JSON)
def test_the_source_check_and_the_closures_agree_on_any_json_value(value: Any) -> None:
    assert same_verdict(value)
    assert same_verdict({"id": "a-b", "title": "0123456789", "actions": [value], "expect": []})


def _protocol_docs() -> dict[str, dict[str, Any]]:
    return protocol._documents(protocol._keywords())


@cache
def _both(name: str) -> tuple[Check, Check]:
    """The protocol schema `name` compiled to source, and to closures."""
    docs = _protocol_docs()
    return (
        SourceCompiler(docs, protocol.SCHEMA_BASE).compile(docs[name], name),
        Compiler(docs, protocol.SCHEMA_BASE).compile(docs[name], name),
    )


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_protocol_docs())), JSON)
def test_the_protocol_schemas_compile_to_the_same_checks(name: str, value: Any) -> None:
    """The other schemas the project has: compiled to source, each says what its closures
    say (on any value, and on the value in a reply's `state`, `legal` or `action`)."""
    source, closures = _both(name)
    for candidate in (value, {"ok": True, "state": value}, {"ok": True, "legal": [value]}):
        assert source(candidate) == closures(candidate), (name, candidate)


ONE_OF = {
    "$id": "s",
    "oneOf": [
        {"type": "object", "required": ["do"], "properties": {"do": {"const": "a"}}},
        {
            "type": "object",
            "required": ["do", "n"],
            "properties": {"do": {"const": "b"}, "n": {"type": "integer"}},
            "additionalProperties": False,
        },
        {"type": "object", "required": ["do"], "properties": {"do": {"const": "c"}}},
    ],
}
#: an object and a list not required to be such (what is not one passes), a const with more
OPEN = [
    {"$id": "s", "properties": {"do": {"const": "a"}, "n": {"minimum": 0}}, "required": ["n"]},
    {"$id": "s", "items": {"type": "integer"}, "minItems": 1, "uniqueItems": True},
    {
        "$id": "s",
        "oneOf": [{**ONE_OF["oneOf"][0], "properties": {"do": {"const": "c", "type": "string"}}}],
    },
]
VALUES = st.recursive(
    st.none() | st.integers(-1, 1) | st.sampled_from(["a", "b", "c", "d", "do", "n"]),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["do", "n", "x"]), inner, max_size=3)
    ),
    max_leaves=5,
)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_a_one_of_told_apart_by_a_key_is_looked_up_as_counted(value: Any) -> None:
    """The branch the key names, or none: what counting the branches that hold gives. Not
    where the consts repeat (two branches may hold: the count decides), nor where one
    branch does not require the key. (With schemas that are not objects' or lists' only.)"""
    assert _told_apart_by(ONE_OF["oneOf"]) == "do"
    twice = {"$id": "s", "oneOf": [*ONE_OF["oneOf"], ONE_OF["oneOf"][0]]}
    loose = {"$id": "s", "oneOf": [*ONE_OF["oneOf"][:2], {**ONE_OF["oneOf"][2], "required": []}]}
    assert _told_apart_by(twice["oneOf"]) is None and _told_apart_by(loose["oneOf"]) is None
    for schema in (ONE_OF, twice, loose, *OPEN):
        source, closures = _compiled(json.dumps(schema))
        for v in (value, *_subclassed(value)):
            assert source(v) == closures(v), (schema, v)


class _Dict(dict[str, Any]):
    pass


class _List(list[Any]):
    pass


def _subclassed(value: Any) -> list[Any]:
    """An object or list as a subclass of dict or list, which an object or list check
    refuses (as the `Compiler`'s does)."""
    if isinstance(value, dict):
        return [_Dict(value)]
    return [_List(value)] if isinstance(value, list) else []


@cache
def _compiled(schema: str) -> tuple[Check, Check]:
    loaded = json.loads(schema)
    return (
        SourceCompiler({"s": loaded}).compile(loaded, "s"),
        Compiler({"s": loaded}).compile(loaded, "s"),
    )


def test_a_kept_table_comes_back_as_a_pickle_gives_it_back(case_data: list[dict[str, Any]]) -> None:
    """Every checked table (marshalled) and a list of errors (pickled, marshal refuses it):
    equal to what went in, of the same types throughout, and a copy of its own."""
    error = loader.CaseError("x.toml", "broken", 3, None, "id")
    values: list[Any] = [(d, []) for d in case_data] + [(None, [error])]
    assert memo.dumps(values[0])[0] and not memo.dumps(values[-1])[0]
    for value in values:
        back = memo.loads(memo.dumps(value))
        assert back == value == pickle.loads(pickle.dumps(value))
        assert _types(back) == _types(value)
        if back[0] is not None:
            assert back[0] is not value[0]


def _types(value: Any) -> list[str]:
    out = [type(value).__name__]
    if isinstance(value, dict):
        for k, v in value.items():
            out += [k, *_types(v)]
    elif isinstance(value, (list, tuple)):
        for v in value:
            out += _types(v)
    return out


def test_a_case_loaded_again_is_the_case_loaded_first(tmp_path: Path) -> None:
    """The second load (from memo) builds the same Case, with a setup of its own."""
    first = loader.load_cases(paths.CASES / "base")
    again = loader.load_cases(paths.CASES / "base")
    assert first == again
    with_setup = next(c for c in again if c.setup)
    assert with_setup.setup is not next(c for c in first if c.id == with_setup.id).setup
