"""JSON Schemas compiled to plain Python checks: a yes/no answer about a hundred times
quicker than jsonschema, for the hot paths (every engine reply, every case file). jsonschema
still words the error once a check has said no; the tests hold the two to the same verdicts
(tests/test_protocol_schemas.py, tests/test_fast_paths.py).

Only the keywords the project's schemas use are implemented (`_KNOWN`), with their JSON
Schema 2020-12 meaning; any other keyword is an error at compile time, so a schema never
silently means more than the check checks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from palconf.core.errors import PalconfError

Check = Callable[[Any], bool]


class SchemaCompileError(PalconfError):
    """A schema uses a keyword the compiler does not implement."""


_ANNOTATIONS = {
    "$schema",
    "$id",
    "$defs",
    "$comment",
    "title",
    "description",
    "examples",
    "default",
}
_KNOWN = _ANNOTATIONS | {
    "$ref",
    "type",
    "const",
    "enum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minItems",
    "uniqueItems",
    "minimum",
    "minLength",
    "maxLength",
    "minProperties",
    "pattern",
    "not",
    "anyOf",
    "allOf",
    "oneOf",
    "if",
    "then",
    "else",
}


def _json_eq(a: Any, b: Any) -> bool:
    """Equality as JSON Schema means it: true is not 1, 1 is 1.0, containers deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_eq(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_eq(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def unique_items(v: list[Any]) -> bool:
    """`uniqueItems`: no two items equal as JSON (both compilers ask this)."""
    if all(type(x) is str for x in v):  # ids, codes: equal as JSON iff equal
        return len(set(v)) == len(v)
    for i, x in enumerate(v):
        for y in v[i + 1 :]:
            if _json_eq(x, y):
                return False
    return True


def _is_integer(v: Any) -> bool:
    if type(v) is int:
        return True
    return (isinstance(v, int) and not isinstance(v, bool)) or (
        isinstance(v, float) and math.isfinite(v) and v.is_integer()
    )


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": _is_integer,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def _always(v: Any) -> bool:
    return True


def python_pattern(pattern: str) -> str:
    """A schema `pattern` as Python must read it: JSON Schema's regexes are ECMA-262, where
    a final `$` ends the text; in Python it also matches before a final newline (so the
    case id "x\\n" and the card id "a1\\n" would pass). A final `$` becomes `\\Z`."""
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + "\\Z"
    return pattern


class Compiler:
    """Turns a protocol schema into one boolean function. Supports the keywords the protocol
    schemas use (`_KNOWN`) with their JSON Schema 2020-12 meaning; any other keyword is an
    error, so that a schema never silently means more than the fast check checks."""

    def __init__(self, docs: Mapping[str, dict[str, Any]], base_uri: str = "") -> None:
        self.docs = docs
        self.base_uri = base_uri
        self.by_uri = {doc["$id"]: name for name, doc in docs.items()}
        self.done: dict[tuple[str, str], Check | None] = {}

    def resolve(self, ref: str, doc: str) -> tuple[str, str]:
        target, _, pointer = ref.partition("#")
        if target:
            uri = self.base_uri + target if "://" not in target else target
            if uri not in self.by_uri:
                raise SchemaCompileError(f"{doc}: $ref to an unknown schema {ref!r}")
            doc = self.by_uri[uri]
        return doc, pointer

    def node(self, doc: str, pointer: str) -> Any:
        value: Any = self.docs[doc]
        for part in [p for p in pointer.split("/") if p]:
            value = value[part.replace("~1", "/").replace("~0", "~")]
        return value

    def compile_ref(self, ref: str, doc: str) -> Check:
        key = self.resolve(ref, doc)
        if key not in self.done:
            self.done[key] = None  # compiling: a recursive reference binds late
            self.done[key] = self.compile(self.node(*key), key[0])
        fn = self.done[key]
        if fn is not None:
            return fn
        done = self.done

        def late(v: Any) -> bool:  # the reference is compiled by the time a value comes
            check = done[key]
            return check is not None and check(v)

        return late

    def compile(self, s: Any, doc: str) -> Check:
        if s is True:
            return _always
        if s is False:
            return _never
        unknown = set(s) - _KNOWN
        if unknown:
            raise SchemaCompileError(
                f"{doc}: the schema compiler does not implement {sorted(unknown)}"
            )
        checks: list[Check] = []
        if "$ref" in s:
            checks.append(self.compile_ref(s["$ref"], doc))
        types = [s["type"]] if isinstance(s.get("type"), str) else list(s.get("type", []))
        obj = self.object_check(s, doc, strict=types == ["object"])
        arr = self.array_check(s, doc, strict=types == ["array"])
        if obj and types == ["object"] or arr and types == ["array"]:
            types = []  # the object / array check tests the type itself
        if types:
            checks.append(_type_check(types))
        if "const" in s:
            const = s["const"]
            if isinstance(const, str):  # the usual case; only a string equals a string
                checks.append(lambda v: v == const)
            else:
                checks.append(lambda v: _json_eq(v, const))
        if "enum" in s:
            checks.append(self.enum(s["enum"]))
        checks += [c for c in (obj, arr) if c]
        if "minLength" in s or "maxLength" in s or "pattern" in s:
            min_len, max_len = s.get("minLength", 0), s.get("maxLength", math.inf)
            pattern = re.compile(python_pattern(s["pattern"])) if "pattern" in s else None
            checks.append(
                lambda v: (
                    not isinstance(v, str)
                    or (
                        min_len <= len(v) <= max_len
                        and (pattern is None or pattern.search(v) is not None)
                    )
                )
            )
        if "minProperties" in s:
            min_props = s["minProperties"]
            checks.append(lambda v: not isinstance(v, dict) or len(v) >= min_props)
        if "minimum" in s:
            minimum = s["minimum"]
            checks.append(
                lambda v: isinstance(v, bool) or not isinstance(v, (int, float)) or v >= minimum
            )
        if "not" in s:
            inner = self.compile(s["not"], doc)
            checks.append(lambda v: not inner(v))
        if "allOf" in s:
            checks += [self.compile(sub, doc) for sub in s["allOf"]]
        if "anyOf" in s:
            checks.append(_any([self.compile(sub, doc) for sub in s["anyOf"]]))
        if "oneOf" in s:
            checks.append(_one(self.compile(sub, doc) for sub in s["oneOf"]))
        if "if" in s:
            cond = self.compile(s["if"], doc)
            then = self.compile(s.get("then", True), doc)
            other = self.compile(s.get("else", True), doc)
            checks.append(lambda v: then(v) if cond(v) else other(v))
        return _all(checks)

    @staticmethod
    def enum(values: list[Any]) -> Check:
        if all(isinstance(x, str) or x is None for x in values):
            allowed = frozenset(values)
            return lambda v: (v is None or isinstance(v, str)) and v in allowed
        return lambda v: any(_json_eq(v, x) for x in values)

    def object_check(self, s: dict[str, Any], doc: str, strict: bool) -> Check | None:
        """required / properties / additionalProperties in one function; with `strict`, a
        value that is not an object fails (the schema's `type` is "object")."""
        required = tuple(s.get("required", ()))
        props = {k: self.compile(sub, doc) for k, sub in s.get("properties", {}).items()}
        addl = s.get("additionalProperties", True)
        if not required and not props and addl is True:
            return None
        prop_items = tuple(props.items())
        if addl is True:  # open: the schema's properties (often one, an `if`'s) are looked up

            def check(v: Any) -> bool:
                if type(v) is not dict:
                    return not strict and not isinstance(v, dict)
                for k in required:
                    if k not in v:
                        return False
                for k, f in prop_items:
                    if k in v and not f(v[k]):
                        return False
                return True

            return check
        prop = props.get
        extra = self.compile(addl, doc)  # for a key of no property (`_never`: closed)

        def check_keys(v: Any) -> bool:
            if type(v) is not dict:
                return not strict and not isinstance(v, dict)
            for k in required:
                if k not in v:
                    return False
            for k, x in v.items():  # the value's keys: fewer than the schema's properties
                f = prop(k)
                if not (extra(x) if f is None else f(x)):
                    return False
            return True

        return check_keys

    def array_check(self, s: dict[str, Any], doc: str, strict: bool) -> Check | None:
        if "items" not in s and "minItems" not in s and "uniqueItems" not in s:
            return None
        item = self.compile(s.get("items", True), doc)
        min_items = s.get("minItems", 0)
        unique = s.get("uniqueItems", False)

        def check(v: Any) -> bool:
            if type(v) is not list:
                return not strict and not isinstance(v, list)
            if len(v) < min_items:
                return False
            if item is not _always:
                for x in v:
                    if not item(x):
                        return False
            return not unique or unique_items(v)

        return check


def _never(v: Any) -> bool:
    return False


def _type_check(types: list[str]) -> Check:
    fns = [_TYPES[t] for t in types]
    if len(fns) == 1:
        return fns[0]
    if "null" in types and len(types) == 2:
        other = _TYPES[next(t for t in types if t != "null")]
        return lambda v: v is None or other(v)
    return _any(fns)


def _one(fns: Iterable[Check]) -> Check:
    """Exactly one of `fns` holds (a second match ends the count)."""
    ones = tuple(fns)

    def check(v: Any) -> bool:
        found = False
        for f in ones:
            if f(v):
                if found:
                    return False
                found = True
        return found

    return check


def _any(fns: list[Check]) -> Check:
    def check(v: Any) -> bool:
        for f in fns:
            if f(v):
                return True
        return False

    return check


def _all(fns: list[Check]) -> Check:
    if not fns:
        return _always
    if len(fns) == 1:
        return fns[0]
    if len(fns) == 2:
        first, second = fns
        return lambda v: first(v) and second(v)

    def check(v: Any) -> bool:
        for f in fns:
            if not f(v):
                return False
        return True

    return check
