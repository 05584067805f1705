"""The loader's fast paths say what the plain ones say (tests/test_fast_paths.py has more).

- A case file's schema check is compiled to Python source (`core.schema_source`), not made
  of the `Compiler`'s closures: the two give the same verdict on every case file, on every
  file of the broken-case corpus, on broken variants of real cases and on any JSON value,
  and so do the protocol's schemas compiled both ways. Where the objects of a `oneOf` are
  told apart by one key's const (an action's `do`), the source looks up the branch that
  value names instead of trying them all: it agrees with the count of the `Compiler`.
- The loader's first check is the schema's and the walk for values JSON lacks (dates, NaN,
  infinities) in one (`reading.plain_check`): it passes a table iff both pass it.
- A checked table is kept (`cases.memo`) with `marshal` where it can be: what comes back is
  what a pickle gave back.
"""

from __future__ import annotations

import copy
import datetime
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
from palconf.cases import checks, loader, memo, reading
from palconf.core.schema import Check, Compiler
from palconf.core.schema_source import SourceCompiler, _told_apart_by
from palconf.engines import schemas as protocol

from .test_fast_paths import JSON, TOML_VALUE, _at, _tables, mutated
from .test_protocol_schemas import _paths


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


# ------------------------------------------------- the schema check and the foreign walk in one


def plain_verdict(value: Any) -> bool:
    """What `plain_check` must say: the schema passes it and nothing in it is foreign."""
    return checks.closure_check()(value) and not reading._any_foreign(value)


def test_the_plain_check_is_the_schema_and_the_foreign_walk_on_every_file() -> None:
    tables = _tables()
    verdicts = [reading.plain_check()(t) for t in tables]
    assert verdicts == [plain_verdict(t) for t in tables]
    foreign = [t for t in tables if reading._any_foreign(t)]
    assert foreign and not any(reading.plain_check()(t) for t in foreign)


@st.composite
def with_foreign(draw: st.DrawFn, sample: list[dict[str, Any]]) -> Any:
    """A real case with one value replaced by, or one entry added of, any TOML value: a date,
    a time, NaN, an infinity, … (often where the schema admits any value: a `malformed`
    action, a setup step, a request)."""
    value = copy.deepcopy(draw(st.sampled_from(sample)))
    paths_ = list(_paths(value))[1:]
    inside = [p for p in paths_ if len(p) > 2 and p[0] == "actions" and _free(value, p[1])]
    path = draw(st.sampled_from(inside if inside and draw(st.booleans()) else paths_))
    new = draw(TOML_VALUE)
    parent = _at(value, path[:-1])
    if draw(st.booleans()) or not isinstance(parent[path[-1]], (dict, list)):
        parent[path[-1]] = new
    elif isinstance(parent[path[-1]], dict):
        parent[path[-1]][draw(st.sampled_from(["x", "id", "setup", "malformed"]))] = new
    else:
        parent[path[-1]].append(new)
    return value


def _free(case: dict[str, Any], i: Any) -> bool:
    """Whether the case's action `i` is one the schema admits any value in."""
    return any(k in case["actions"][i] for k in ("malformed", "setup", "request"))


def test_the_plain_check_is_the_schema_and_the_foreign_walk_on_any_toml_value(
    case_data: list[dict[str, Any]],
) -> None:
    free = [
        d
        for d in case_data
        if any(k in a for a in d["actions"] for k in ("malformed", "setup", "request"))
    ]
    sample = case_data[::11] + free[::3]
    verdicts = set()

    @settings(max_examples=500, deadline=None)
    @given(with_foreign(sample))
    def check(value: Any) -> None:
        verdict = reading.plain_check()(value)
        assert verdict == plain_verdict(value), value
        verdicts.add(verdict)

    check()
    assert verdicts == {True, False}


#: a schema for each way a value gets through unlooked-at: a `number` (NaN, infinity), an
#: open object's other keys, a list without `items`, `{}`, an anyOf with a branch that
#: admits anything, an allOf of parts that say nothing of the type, a not, an if; and
#: one of each that does look (a const, an enum, a string, a closed object)
FREE = [
    {"type": "number"},
    {"type": "object", "properties": {"a": {"type": "integer"}}},
    {"type": "object", "required": ["a"]},
    {"type": "object"},
    {"type": ["string", "number"]},
    {"type": []},
    {"allOf": []},
    {"not": {"type": "null"}},
    {"if": {"minLength": 1}, "then": {}, "else": {"type": "string"}},
    {
        "oneOf": [
            {"type": "object", "required": ["a"], "properties": {"a": {"const": "a"}}},
            {"type": "object", "required": ["a"], "properties": {"a": {"const": "b"}}},
        ]
    },
    {"type": "array"},
    {"type": "array", "minItems": 1},
    {},
    {"anyOf": [{"type": "string"}, {}]},
    {"anyOf": [{"type": "string"}, {"type": "array"}]},
    {"oneOf": [{"type": "string"}, {"required": ["a"]}]},
    {"allOf": [{"minLength": 1}, {"not": {"type": "null"}}]},
    {"allOf": [{"minLength": 1}, {"type": ["string", "object"]}]},
    {"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"minimum": 0}},
    {"properties": {"a": {"const": 1}}},
    {"enum": ["a", 1, None]},
    {"const": 1.5},
    {"type": "object", "additionalProperties": {"type": "array", "items": {}}},
]
FOREIGN_LEAVES = st.sampled_from(
    [float("nan"), float("inf"), datetime.date(2024, 1, 1), datetime.time(1, 2), 1.5, "a", 1]
)
FOREIGN = st.recursive(
    FOREIGN_LEAVES | st.none(),
    lambda inner: (
        st.lists(inner, max_size=2)
        | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)
    ),
    max_leaves=4,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(FREE))), FOREIGN)
def test_the_foreign_walk_is_asked_wherever_a_schema_admits_any_value(i: int, value: Any) -> None:
    plain, closures = _plain_small(i)
    expected = closures(value) and not reading._any_foreign(value)
    assert plain(value) == expected, (FREE[i], value)


def test_the_foreign_walk_is_asked_of_each_way_in() -> None:
    """Each schema of FREE on values made to go through its ways in."""
    nan, day = float("nan"), datetime.date(2024, 1, 1)
    examples: list[Any] = [nan, day, "a", "", 1, -1, None, [nan], [1, day], {"a": nan}]
    examples += [{"a": "a", "b": nan}, {"a": "b", "b": [day]}, {"a": "a"}, {"b": 1}, {}, []]
    for i, schema in enumerate(FREE):
        plain, closures = _plain_small(i)
        subclassed = [*map(_Dict, examples[-6:-1]), *map(_List, ([nan], [1, day], [], ["a"]))]
        for value in [*examples, *subclassed]:
            expected = closures(value) and not reading._any_foreign(value)
            assert plain(value) == expected, (schema, value)


@cache
def _plain_small(i: int) -> tuple[Check, Check]:
    schema = {"$id": "s", **FREE[i]}
    plain = SourceCompiler({"s": schema}, plain=lambda v: not reading._any_foreign(v))
    return plain.compile(schema, "s"), Compiler({"s": schema}).compile(schema, "s")


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(_protocol_docs())), TOML_VALUE)
def test_the_protocol_schemas_with_the_foreign_walk(name: str, value: Any) -> None:
    """A schema with a `number` (NaN passes it), open objects, lists without `items`."""
    plain, closures = _plain_and_closures(name)
    for candidate in (value, {"ok": True, "state": value}, {"ok": True, "legal": [value]}):
        expected = closures(candidate) and not reading._any_foreign(candidate)
        assert plain(candidate) == expected, (name, candidate)


@cache
def _plain_and_closures(name: str) -> tuple[Check, Check]:
    docs = _protocol_docs()
    plain = SourceCompiler(docs, protocol.SCHEMA_BASE, plain=lambda v: not reading._any_foreign(v))
    return plain.compile(docs[name], name), _both(name)[1]
