"""A case file's schema errors, made readable: for a value that may take several shapes
(an action, a card, an effect), the branch its discriminating key picks explains the error;
unknown fields, keyword names and actions are named with what is known; types are said in
words ("must be an integer, not a string ('five')").
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from palconf.cases.checks import (
    _exact_patterns,
    _path_str,
    fast_check,
    locate,
    schema,
    validator,
)
from palconf.cases.errors import CaseError
from palconf.cases.keywords import known_keywords
from palconf.registry import Registry
from palconf.registry import load as load_registry

if TYPE_CHECKING:
    import jsonschema


#: How a TOML author calls each JSON Schema type.
_TYPE_WORDS = {
    "object": "a table",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}
_ANNOTATION_KEYS = {"description", "title", "$comment"}
Found = list[tuple[list[str | int], str]]  # (field path, message)


def _show(value: Any, limit: int = 60) -> str:
    """A value as a message quotes it: short, TOML's spelling for booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and len(value) > limit:
        return repr(value[: limit - 5]) + "…"
    try:
        text = repr(value)
    except RecursionError:
        text = "[…]"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind_of(value: Any) -> str:
    for kind, word in ((dict, "a table"), (list, "a list"), (str, "a string")):
        if isinstance(value, kind):
            return word
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    return f"a {type(value).__name__}"  # a TOML date or time


def _names(items: Iterable[Any]) -> str:
    return ", ".join(_show(x) if not isinstance(x, str) else x for x in items)


def _fields(keys: Iterable[str]) -> str:
    return " or ".join(f"`{k}`" for k in keys)


def _resolve(s: Any) -> Any:
    """A subschema with a local `$ref` replaced by what it names."""
    while isinstance(s, dict) and "$ref" in s and str(s["$ref"]).startswith("#/"):
        node: Any = schema()
        for part in s["$ref"][2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        s = node
    return s


def _branches(alternatives: list[Any]) -> list[Any]:
    """The alternatives of an anyOf / oneOf, references followed and nested choices that
    say nothing else flattened (`actions` items: the nine actions, malformed, setup)."""
    out: list[Any] = []
    for alt in alternatives:
        alt = _resolve(alt)
        if isinstance(alt, dict):
            inner = [k for k in ("anyOf", "oneOf") if k in alt]
            if len(inner) == 1 and set(alt) - _ANNOTATION_KEYS == set(inner):
                out += _branches(alt[inner[0]])
                continue
        out.append(alt)
    return out


def _const_key(branch: Any) -> str | None:
    """The property a branch is told apart by (an action's `do`), if it has one."""
    props = branch.get("properties", {}) if isinstance(branch, dict) else {}
    return next((k for k, sub in props.items() if isinstance(sub, dict) and "const" in sub), None)


def _marker(branch: Any) -> str | None:
    """The one required field that names a branch without a `const` (`malformed`, `setup`)."""
    if not isinstance(branch, dict) or _const_key(branch) is not None:
        return None
    required = branch.get("required", [])
    return required[0] if len(required) == 1 else None


def _admits(branch: Any, value: Any) -> bool:
    """Whether a branch could take a value of this JSON type (a first sieve only)."""
    branch = _resolve(branch)
    if not isinstance(branch, dict):
        return branch is not False
    if "const" in branch:
        return type(branch["const"]) is type(value)
    if "type" in branch:
        types = [branch["type"]] if isinstance(branch["type"], str) else branch["type"]
        return any(validator().is_type(value, t) for t in types)
    return True


def _scalar_choices(branches: list[Any]) -> list[Any] | None:
    values: list[Any] = []
    for b in branches:
        if not isinstance(b, dict) or not ({"const", "enum"} & set(b)):
            return None
        values += [b["const"]] if "const" in b else list(b["enum"])
    return values


@lru_cache(maxsize=64)
def _branch_validator(key: str) -> jsonschema.protocols.Validator:
    import jsonschema

    branch = json.loads(key)
    cls = _exact_patterns(jsonschema.validators.validator_for(schema()))
    checker: jsonschema.protocols.Validator = cls(
        {**branch, "$schema": schema()["$schema"], "$defs": schema()["$defs"]}
    )
    return checker


def _errors_in(branch: Any, value: Any, path: list[str | int]) -> Found:
    """Why a value fails the one branch it was meant for, each error explained."""
    v = _branch_validator(json.dumps(branch))
    found: Found = []
    for err in sorted(v.iter_errors(value), key=lambda e: list(map(str, e.absolute_path))):
        found += _explain(err, path)
    return found


def _choice(value: Any, branches: list[Any], path: list[str | int]) -> Found | None:
    """An anyOf / oneOf failed: say why from the branch the value was meant for."""
    if all(isinstance(b, dict) and set(b) <= {"required", "properties"} for b in branches):
        keys = [k for b in branches for k in b.get("required", [])]
        if isinstance(value, dict) and any(k in value for k in keys):
            return [(path, f"at least one of {_fields(keys)} must not be empty")]
        return [(path, f"needs {_fields(keys)}")]
    if isinstance(value, dict):
        for b in branches:
            mark = _marker(b)
            if mark is not None and mark in value:
                return _errors_in(b, value, path)
        keyed = [b for b in branches if _const_key(b) is not None]
        if keyed:
            key = _const_key(keyed[0])
            assert key is not None
            known = [b["properties"][key]["const"] for b in keyed if _const_key(b) == key]
            what = "action" if key == "do" else f"`{key}`"
            others = [f"{{ {m} = … }}" for m in map(_marker, branches) if m]
            if key not in value:
                also = f", or a {' or '.join(others)} step" if others else ""
                return [(path, f"`{key}` is missing: an {what} is one of {_names(known)}{also}")]
            for b in keyed:
                if _json_equal(b["properties"][key]["const"], value[key]):
                    return _errors_in(b, value, path)
            return [(path + [key], f"unknown {what} {_show(value[key])}; known: {_names(known)}")]
    lists = [b for b in branches if isinstance(b, dict) and b.get("type") == "array"]
    if lists and isinstance(value, list):  # (`refused`: a list of codes)
        if len(value) == 1:
            return [(path, f"a list of one code: write the code itself ({_show(value[0])})")]
        return _errors_in(lists[0], value, path)
    choices = _scalar_choices([b for b in branches if b not in lists])
    if choices is not None:
        hint = ""
        if value is False and True in choices:
            hint = " (leave the field out instead of writing false)"
        elif lists:
            hint = " (or a list of two or more of the codes)"
        return [(path, f"{_show(value)} is not one of: {_names(choices)}{hint}")]
    fits = [b for b in branches if _admits(b, value)]
    if len(fits) == 1:
        return _errors_in(fits[0], value, path)
    if not fits:
        types = _names(dict.fromkeys(_kind_words(b) for b in branches))
        shown = "" if isinstance(value, dict | list) else f" ({_show(value)})"
        return [(path, f"must be {types.replace(', ', ' or ')}, not {_kind_of(value)}{shown}")]
    names = " nor ".join(dict.fromkeys(_kind_words(b) for b in fits))
    why = [m for b in fits if "const" not in b for _, m in _errors_in(b, value, [])[:1]]
    return [(path, f"{_show(value)} is neither {names}" + (f": {'; '.join(why)}" if why else ""))]


@lru_cache(maxsize=1)
def _def_names() -> dict[int, str]:
    return {id(sub): name for name, sub in schema()["$defs"].items()}


def _kind_words(branch: Any) -> str:
    """What a branch is, in a few words: `'null'`, `a table`, `a card id`."""
    branch = _resolve(branch)
    if id(branch) in _def_names():
        return "a " + _def_names()[id(branch)].replace("_", " ")
    if isinstance(branch, dict) and "const" in branch:
        return _show(branch["const"])
    if isinstance(branch, dict) and isinstance(branch.get("type"), str):
        kind = str(branch["type"])
        return _TYPE_WORDS.get(kind, kind)
    return "something else"


def _json_equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and bool(a == b)


def _explain(err: jsonschema.ValidationError, prefix: list[str | int]) -> Found:
    """One jsonschema error as (field path, message) pairs a case author can act on."""
    import jsonschema

    path = prefix + list(err.absolute_path)
    v, value = err.validator, err.instance
    rule: Any = err.validator_value
    if v in ("anyOf", "oneOf"):
        found = _choice(value, _branches(rule), path)
        if found is not None:
            return found
        if err.context:  # the alternative that got furthest says most
            return _explain(jsonschema.exceptions.best_match(err.context), prefix)
    if v == "additionalProperties" and isinstance(value, dict):
        known = list(err.schema.get("properties", {})) if isinstance(err.schema, dict) else []
        return [(path + [k], _unknown_field(k, known, path)) for k in value if k not in known]
    if v == "type":
        types = [rule] if isinstance(rule, str) else list(rule)
        want = " or ".join(_TYPE_WORDS.get(t, t) for t in types)
        message = f"must be {want}, not {_kind_of(value)}"
        if not isinstance(value, (dict, list)):
            message += f" ({_show(value)})"
        if types == ["array"] and isinstance(value, dict) and all(isinstance(p, str) for p in path):
            name = ".".join(map(str, path))
            message += f": write each entry as a [[{name}]] table, not [{name}] or [{name}.NAME]"
        return [(path, message)]
    if v == "pattern" and isinstance(value, str):
        if "keywords" in path:
            words = known_keywords(load_registry())
            return [(path, f"unknown keyword {_show(value)}; known: {words}")]
        return [(path, f"{_show(value)} is not of the form {rule!r}")]
    if v == "not" and isinstance(rule, dict):
        if "enum" in rule:
            reserved = _names(rule["enum"])
            return [(path, f"{_show(value)} is reserved here (not allowed: {reserved})")]
        alts = rule.get("anyOf", [])
        if isinstance(value, dict) and alts and all(set(a) == {"required"} for a in alts):
            keys = [k for a in alts for k in a["required"] if k in value]
            kind = value.get("kind")
            article = "an" if isinstance(kind, str) and kind[:1] in "aeiou" else "a"
            whose = f"{article} {kind} card" if isinstance(kind, str) else "this table"
            return [(path + keys[:1], f"{whose} may not have {_fields(keys)}")]
    return [(path, _rule_message(err))]


def _unknown_field(key: str, known: list[str], path: list[str | int]) -> str:
    message = f"unknown field {key!r}" + (f"; known: {', '.join(known)}" if known else "")
    if path and key in schema()["properties"]:
        message += (
            f" (a key written under a [table] header belongs to that table: `{key}` of the "
            "case goes above the first header)"
        )
    return message


def _rule_message(err: jsonschema.ValidationError) -> str:
    v, value = err.validator, err.instance
    rule: Any = err.validator_value
    if v == "enum":
        return f"{_show(value)} is not one of: {_names(rule)}"
    if v == "const":
        return f"must be {_show(rule)}, not {_show(value)}"
    if v == "minLength":
        return f"{_show(value)} is too short (at least {rule} character{'s' * (rule != 1)})"
    if v == "maxLength" and isinstance(value, str):
        return f"{_show(value)} is too long ({len(value)} characters; at most {rule})"
    if v == "minItems":
        return f"must have at least {rule} entr{'y' if rule == 1 else 'ies'}"
    if v == "minProperties":
        return "must not be empty"
    if v == "uniqueItems" and isinstance(value, list):
        seen: list[Any] = []
        for x in value:
            if x in seen:
                return f"{_show(x)} is listed twice"
            seen.append(x)
    if v == "minimum":
        return f"{_show(value)} is less than the minimum of {rule}"
    message = err.message
    return message if len(message) <= 200 else message[:199] + "…"


def schema_errors(
    data: dict[str, Any], file: str, text: str, registry: Registry | None = None
) -> list[CaseError]:
    """What is wrong with a case against the schema of `registry`'s keywords (default: the
    project's registry, which is also the one the messages name keywords from)."""
    if fast_check(registry)(data):
        return []
    found: Found = []
    for err in validator(registry).iter_errors(data):
        found += _explain(err, [])
    errors = [CaseError(file, m, locate(text, p), None, _path_str(p)) for p, m in found]
    errors = list(dict.fromkeys(errors))  # one message once
    return sorted(errors, key=lambda e: (e.line or 0, e.field or ""))
