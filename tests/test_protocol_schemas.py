"""The protocol's message schemas (palconf/protocol_schemas.py): valid, compiled, and the
compiled fast checks giving jsonschema's verdicts on the oracle's whole traffic and on mutated
messages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf.cases.loader import Case
from palconf.core.compare import canonical
from palconf.core.schema import Compiler
from palconf.engines.oracle_engine import OracleEngine
from palconf.engines.schemas import (
    SCHEMA_BASE,
    SchemaCompileError,
    check_reply_shape,
    fast_check,
    json_validator,
    schema_documents,
)
from palconf.running.supervisor import run_cases

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

# ---------------------------------------------------------------- schemas


def test_schemas_are_valid_and_compile() -> None:
    docs = schema_documents()
    for cmd in ("hello", "setup", "act", "observe", "legal", "bye"):
        assert f"{cmd}.request" in docs and f"{cmd}.response" in docs
    for name, doc in docs.items():
        jsonschema.Draft202012Validator.check_schema(doc)
        assert callable(fast_check(name))


def test_fast_check_refuses_keywords_it_does_not_implement() -> None:
    docs = {"x": {"$id": SCHEMA_BASE + "x.json", "type": "object", "maxProperties": 1}}
    with pytest.raises(SchemaCompileError, match="maxProperties"):
        Compiler(docs, SCHEMA_BASE).compile(docs["x"], "x")


@pytest.fixture(scope="module")
def traffic(all_cases: list[Case]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every request of a whole run on the oracle, with its reply."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []

    class Recording(OracleEngine):
        def request(self, msg: dict[str, Any]) -> dict[str, Any]:
            reply = super().request(msg)
            pairs.append((msg, reply))
            return reply

    with Recording() as engine:
        list(run_cases(engine, all_cases))
    return pairs


#: The refusals a case demands for a request it sends malformed on purpose (`P-state`, and
#: `invalid-action` of `P-reasons`): only such requests may break the request schemas.
ON_PURPOSE = ("invalid-state", "unsupported", "invalid-action")


def malformed_on_purpose(cases: list[Case]) -> set[str]:
    """The requests of the case steps that demand one of the ON_PURPOSE refusals."""
    out = set()
    for case in cases:
        for n, step in enumerate(case.steps, start=1):
            if step.wire:  # a line of its own (P-errors), never sent through `request`
                continue
            exp = case.expectation_after(n)
            if exp is not None and exp.refused in ON_PURPOSE:
                out.add(canonical(step.request()))
    return out


def test_the_oracle_traffic_follows_the_schemas(
    traffic: list[tuple[dict[str, Any], dict[str, Any]]], all_cases: list[Case]
) -> None:
    """What the harness sends and what the oracle answers, over the whole suite, is valid:
    requests by jsonschema (but those a case sends malformed on purpose), replies by the
    fast check (and a sample by jsonschema too)."""
    # `legal` too: the suite has LEGAL expectations, and the oracle offers the command
    assert {m["cmd"] for m, _ in traffic} == {"setup", "act", "observe", "legal"}
    on_purpose = malformed_on_purpose(all_cases)
    malformed = 0
    for msg, reply in traffic:
        if not fast_check(f"{msg['cmd']}.request")(msg):
            assert canonical(msg) in on_purpose, msg
            malformed += 1
        assert fast_check(f"{msg['cmd']}.response")(reply), (msg, reply)
    assert malformed  # the suite does send malformed requests, and they are answered well
    setups = [m for m, _ in traffic if m["cmd"] == "setup" and canonical(m) not in on_purpose]
    for msg in setups[::5]:
        assert json_validator("setup.request").is_valid(msg)
    for msg, reply in traffic[::25]:
        assert json_validator(f"{msg['cmd']}.response").is_valid(reply), (msg, reply)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([1.0, 2.5, "A", "B", "main", "illegal", "x", "a1", "", "master", "stand"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["ok", "state", "zone", "x", "error", "reason"]), inner, max_size=3
        )
    ),
    max_leaves=6,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


@st.composite
def mutated(
    draw: st.DrawFn, traffic: list[tuple[dict[str, Any], dict[str, Any]]]
) -> tuple[str, Any]:
    """A real message (a request or a reply) with one part deleted, replaced or added."""
    msg, reply = draw(st.sampled_from(traffic))
    name, value = draw(
        st.sampled_from([(f"{msg['cmd']}.request", msg), (f"{msg['cmd']}.response", reply)])
    )
    value = json.loads(json.dumps(value))
    path = draw(st.sampled_from(list(_paths(value))))
    how = draw(st.sampled_from(["delete", "replace", "add"]))
    new = draw(JSON)
    if not path:
        return name, new
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "delete":
        del parent[last]
    elif how == "replace":
        parent[last] = new
    elif isinstance(parent[last], dict):
        parent[last][draw(st.sampled_from(["x", "ok", "zone", "power", "extra"]))] = new
    elif isinstance(parent[last], list):
        parent[last].append(new)
    else:
        parent[last] = new
    return name, value


@pytest.mark.slow  # an agreement sweep against jsonschema
def test_fast_check_agrees_with_jsonschema(
    traffic: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    """The compiled checks say yes exactly when jsonschema does, on mutated real messages."""
    sample = traffic[::7]

    @settings(max_examples=400, deadline=None)
    @given(mutated(sample))
    def agree(case: tuple[str, Any]) -> None:
        name, value = case
        assert fast_check(name)(value) == json_validator(name).is_valid(value), (name, value)

    agree()


@pytest.mark.parametrize(
    "cmd,reply,words",
    [
        ("act", {"ok": False, "error": "illegal"}, "'reason' is a required property"),
        ("act", {"ok": False, "error": "illegal", "reason": "nope"}, "reason"),
        ("act", {"ok": "yes"}, "ok"),
        ("observe", {"ok": True, "state": {}}, "required"),
        ("setup", {"ok": False, "error": "oops"}, "error"),
        ("made-up", {"ok": 1}, "ok"),
    ],
)
def test_check_reply_shape_says_what_is_wrong(cmd: str, reply: Any, words: str) -> None:
    problem = check_reply_shape(cmd, reply)
    assert problem is not None and words in problem


def test_check_reply_shape_accepts_extra_fields_and_true_is_not_one() -> None:
    assert check_reply_shape("act", {"ok": True, "extra": [1]}) is None
    assert check_reply_shape("made-up", {"ok": True}) is None
    assert check_reply_shape("act", {"ok": 1}) is not None
