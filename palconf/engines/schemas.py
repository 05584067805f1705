"""The protocol's message schemas (palconf/schemas/protocol/), checked twice over.

`fast_check` compiles a schema into plain Python checks (palconf.core.schema: fast enough
for every reply of every case), and `describe_violation` asks jsonschema for a readable
message once a message has failed. tests/test_protocol_schemas.py holds the two to the same
verdicts. `check_reply_shape` is what the adapter asks of each reply; `json_validator` is
what `palconf smoke` lists every problem with.

The files are the documents of the base game's keywords; `schema_documents` gives them with
common.json's `keyword_id` enum and `keyword_text` pattern rebuilt from the rules registry
(the keywords of every version it carries: `palconf.cases.keywords.protocol_schemas`), so a
keyword a new rules version adds needs no edit here. The checks are cached per set of
keywords.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from palconf import paths
from palconf.cases.keywords import PROTOCOL_NUMBER, keyword_pattern, protocol_schemas
from palconf.core.schema import Check, Compiler, SchemaCompileError
from palconf.registry import load as load_registry

if TYPE_CHECKING:
    import jsonschema
    from referencing import Registry


__all__ = [
    "SCHEMA_BASE",
    "SCHEMA_DIR",
    "SchemaCompileError",
    "check_message",
    "check_reply_shape",
    "describe_violation",
    "fast_check",
    "json_validator",
    "reason_codes",
    "schema_documents",
]

SCHEMA_DIR = paths.SCHEMAS / "protocol"
SCHEMA_BASE = "https://palconf.invalid/schemas/protocol/v1/"


@lru_cache(maxsize=1)
def _files() -> dict[str, dict[str, Any]]:
    docs = {}
    for path in sorted(SCHEMA_DIR.glob("*.json")):
        docs[path.name[: -len(".json")]] = json.loads(path.read_text(encoding="utf-8"))
    return docs


_Keywords = tuple[tuple[str, ...], str]


_LAST: list[Any] = [None, None]  # the registry last asked, and its _Keywords


def _keywords() -> _Keywords:
    """What the schemas depend on of the registry: its keyword ids and the keyword pattern
    (cheap: asked for every reply)."""
    registry = load_registry()
    if _LAST[0] is not registry:
        pattern = keyword_pattern(registry, PROTOCOL_NUMBER)
        _LAST[:] = [registry, (tuple(registry.keywords), pattern)]
    found: _Keywords = _LAST[1]
    return found


def schema_documents() -> dict[str, dict[str, Any]]:
    """Every schema of palconf/schemas/protocol by file stem: `observe.response`, `common` …,
    with the keywords of the project's rules registry."""
    return _documents(_keywords())


@lru_cache(maxsize=4)
def _documents(keywords: _Keywords) -> dict[str, dict[str, Any]]:
    return protocol_schemas(_files(), load_registry())


@lru_cache(maxsize=1)
def reason_codes() -> tuple[str, ...]:
    """The REASON codes of `act`'s refusals, in the order of the protocol's table
    (`P-reasons`), as act.response.json lists them."""

    def find(node: Any) -> tuple[str, ...] | None:
        if isinstance(node, dict):
            reason = node.get("properties", {}).get("reason")
            if isinstance(reason, dict) and isinstance(reason.get("enum"), list):
                return tuple(reason["enum"])
            nodes: list[Any] = list(node.values())
        elif isinstance(node, list):
            nodes = node
        else:
            return None
        for child in nodes:
            found = find(child)
            if found:
                return found
        return None

    codes = find(schema_documents()["act.response"])
    if codes is None:  # pragma: no cover - the shipped schema lists them
        raise SchemaCompileError("act.response.json lists no REASON codes")
    return codes


@lru_cache(maxsize=4)
def _registry(keywords: _Keywords) -> Registry:
    from referencing import Registry, Resource

    docs = _documents(keywords).values()
    resources = [(doc["$id"], Resource.from_contents(doc)) for doc in docs]
    return Registry().with_resources(resources)


def json_validator(name: str) -> jsonschema.protocols.Validator:
    """The jsonschema validator of one message schema (slow; for messages and for `smoke`)."""
    return _json_validator(name, _keywords())


@cache
def _json_validator(name: str, keywords: _Keywords) -> jsonschema.protocols.Validator:
    import jsonschema

    schema = _documents(keywords)[name]
    return jsonschema.Draft202012Validator(schema, registry=_registry(keywords))


def _where(path: Sequence[Any]) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def describe_violation(name: str, instance: Any) -> str | None:
    """What is wrong with `instance` as the message `name` (`act.response` …), or None."""
    import jsonschema

    errors = list(json_validator(name).iter_errors(instance))
    if not errors:
        return None
    best = jsonschema.exceptions.best_match(errors)
    message = best.message
    if len(message) > 200:
        message = message[:200] + "…"
    return f"{_where(best.absolute_path)}: {message}"


def fast_check(name: str) -> Check:
    """The schema `name` (`observe.response` …) compiled to a quick yes/no function."""
    return _fast_check(name, _keywords())


@cache
def _fast_check(name: str, keywords: _Keywords) -> Check:
    docs = _documents(keywords)
    return Compiler(docs, SCHEMA_BASE).compile(docs[name], name)


def check_message(name: str, instance: Any) -> str | None:
    """None if `instance` is a valid `name` message; else what is wrong (cheap when valid)."""
    if fast_check(name)(instance):
        return None
    return describe_violation(name, instance) or "does not follow the schema"


_REPLY_CHECKS: dict[tuple[str, _Keywords], Check | None] = {}


def check_reply_shape(cmd: str, reply: Any) -> str | None:
    """What is wrong with `reply` as the answer to `cmd`, or None. A command v1 does not
    define (what `smoke` sends to see it refused) only gets the common envelope checked."""
    key = (cmd, _keywords())
    check = _REPLY_CHECKS.get(key)
    if check is None and key not in _REPLY_CHECKS:
        name = f"{cmd}.response"
        check = _REPLY_CHECKS[key] = fast_check(name) if name in schema_documents() else None
    if check is not None:
        return None if check(reply) else check_message(f"{cmd}.response", reply)
    if not isinstance(reply, dict):
        return "(top level): a reply must be a JSON object"
    if not isinstance(reply.get("ok"), bool):
        return "ok: must be true or false"
    return None if reply["ok"] else check_message("error.response", reply)
