"""Checking a case file's data: the schema (fast compiled check, then jsonschema for the
message), the line of a field in the TOML text, and the cross-checks the schema cannot make
(ids, clause and rule ids, card references, `after` numbers, setup steps). Every problem is
a `CaseError` naming the file, the line and the field: never a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jsonschema

from oracle.model import KEYWORD_NAMES, WHEN_KEYWORD, StateError
from oracle.rules import Rules

from . import paths
from .core.text import terminal_safe
from .registry import Registry
from .schemacheck import Check, Compiler

NULL = "null"  # TOML has no null: the string "null" stands for it in expectations
#: How keywords are written on a card, and the keyword an ability's `when` names: the
#: oracle's own tables (oracle/model.py), so the two never disagree.
KEYWORD_OF_WORD = KEYWORD_NAMES


@dataclass(frozen=True)
class CaseError:
    file: str
    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        # a file name or a value may hold control characters or lone surrogates
        return terminal_safe(f"{where}: {self.field + ': ' if self.field else ''}{self.message}")


class CaseLoadError(Exception):
    """Some case files do not load: `errors`, every one of them; `loaded`, the cases that
    did load (they are not run while any file is broken)."""

    def __init__(self, errors: list[CaseError], loaded: Sequence[Any] = ()) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors
        self.loaded = list(loaded)


#: The refusals a setup step may demand (`P-state`); every other code is an action's REASON.
SETUP_ERRORS = ("invalid-state", "unsupported")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(paths.CASE_SCHEMA.read_text(encoding="utf-8"))
    return data


@lru_cache(maxsize=1)
def validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema())
    return cls(schema())


@lru_cache(maxsize=1)
def fast_check() -> Check:
    """A yes/no check of a case against the schema, some forty times quicker than
    jsonschema; jsonschema runs only on a file that fails it, to say what is wrong."""
    return Compiler({"case": schema()}).compile(schema(), "case")


# ---------------------------------------------------------------- locating a field's line


def _header_re(name: str) -> re.Pattern[str]:
    return re.compile(r"^\s*\[{1,2}\s*" + re.escape(name) + r"\s*\]{1,2}\s*(#.*)?$")


def locate(text: str, path: Iterable[str | int]) -> int | None:
    """Best-effort line (1-based) of a field path in a TOML text: follows table headers
    (`[setup.players.A]`, the n-th `[[actions]]`) and `key =` assignments."""
    lines = text.splitlines()
    path = list(path)
    if not path:
        return 1  # the file as a whole (a top-level field is missing)
    pos, found = 0, False
    prefix: list[str] = []
    for seg in path:
        if isinstance(seg, int):
            headers = [
                n for n, line in enumerate(lines) if _header_re(".".join(prefix)).match(line)
            ]
            if seg < len(headers):
                pos, found = headers[seg], True
            continue
        prefix.append(seg)
        name = ".".join(prefix)
        header = next((n for n, line in enumerate(lines) if _header_re(name).match(line)), None)
        if header is not None:
            pos, found = header, True
            continue
        key = re.compile(r"(^|[{,\s])\"?" + re.escape(seg) + r"\"?\s*=")
        hit = next((n for n in range(pos, len(lines)) if key.search(lines[n])), None)
        if hit is None:  # only deeper tables are written: `[actions.first]` for `actions`
            below = re.compile(r"^\s*\[{1,2}\s*" + re.escape(name) + r"\s*\.")
            hit = next((n for n, line in enumerate(lines) if below.match(line)), None)
        if hit is not None:
            pos, found = hit, True
    return pos + 1 if found else None


# ---------------------------------------------------------------- nesting too deep

#: The deepest nesting of tables and lists a case may have (the suite's own cases reach
#: 12). Deeper values would exhaust Python's stack in the parser, the schema check or a
#: later walk; they are refused with their line before anything else walks them.
MAX_DEPTH = 100


def may_be_too_deep(text: str) -> bool:
    """False when the text cannot nest deeper than MAX_DEPTH: every level needs a `[`, a
    `{` or a `.` of a dotted key (a cheap bound; the walk runs only above it)."""
    return 1 + text.count("[") + text.count("{") + text.count(".") > MAX_DEPTH


def too_deep(data: Any, limit: int = MAX_DEPTH) -> list[str | int] | None:
    """The path of the first table or list nested more than `limit` deep, else None. Not
    recursive, so any depth is safe."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if len(path) >= limit:
            return path
        if isinstance(value, dict):
            stack += [(v, [*path, k]) for k, v in value.items() if isinstance(v, (dict, list))]
        elif isinstance(value, list):
            stack += [(v, [*path, i]) for i, v in enumerate(value) if isinstance(v, (dict, list))]
    return None


def _skip_string(text: str, i: int) -> tuple[int, bool]:
    """The index after the string starting at `i`, and whether it was closed."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        j = i + 3
        while j < len(text):
            if quote == '"' and text[j] == "\\":
                j += 2
            elif text.startswith(quote * 3, j):
                return j + 3, True
            else:
                j += 1
        return j, False
    j = i + 1
    while j < len(text) and text[j] != "\n":
        if quote == '"' and text[j] == "\\":
            j += 2
        elif text[j] == quote:
            return j + 1, True
        else:
            j += 1
    return j, False


@dataclass(frozen=True)
class Scan:
    """What `scan_lines` finds; each a line number, or None."""

    too_deep: int | None  # the first line nested more than the limit
    open_string: int | None  # the first line with a string left open
    open_bracket: int | None  # the line of the outermost `[` / `{` of a value left open


def _header(text: str, i: int) -> tuple[tuple[str, ...], bool, int]:
    """The key of the [header] or [[header]] at `i`, whether it is double, and the index
    after it (its `]`, or the end of its line for one left open)."""
    double = text.startswith("[[", i)
    i += 2 if double else 1
    parts: list[str] = []
    part: list[str] = []
    while i < len(text) and text[i] not in "]\n":
        if text[i] in "\"'":
            j, _ = _skip_string(text, i)
            part.append(text[i + 1 : j - 1])
            i = j
            continue
        if text[i] == ".":
            parts.append("".join(part).strip())
            part = []
        else:
            part.append(text[i])
        i += 1
    parts.append("".join(part).strip())
    if text.startswith("]]" if double else "]", i):
        i += 2 if double else 1
    return tuple(parts), double, i


def scan_lines(text: str, limit: int = MAX_DEPTH) -> Scan:
    """A small TOML reader of headers, brackets, dots and strings, run only on a file that
    already failed; it never recurses. Its depth is the data's: a table under an array of
    tables (`[expect.observed]` after `[[expect]]`) counts the array too."""
    line, i, n = 1, 0, len(text)
    arrays: set[tuple[str, ...]] = set()  # the headers written [[like.this]]
    table = 1  # the containers around the keys of the current [table]
    depth = table  # the containers around the current position
    stack: list[tuple[str, int, int]] = []  # open `[` / `{` of a value: (kind, depth, line)
    in_key = True
    deep: int | None = None
    open_string: int | None = None
    while i < n:
        c = text[i]
        if c in "\"'":
            j, closed = _skip_string(text, i)
            if not closed and open_string is None:
                open_string = line
            line += text.count("\n", i, j)
            i = j
            continue
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "[" and in_key and not stack:
            key, double, i = _header(text, i)
            if double:
                arrays.add(key)
            table = 1 + len(key)
            if table <= limit:  # (a longer key is too deep anyway)
                table += sum(key[:k] in arrays for k in range(1, len(key) + 1))
            depth, in_key = table, False
            if depth > limit and deep is None:
                deep = line
            continue
        if c == "\n":
            line += 1
            if not stack:
                depth, in_key = table, True
        elif in_key and c == ".":
            depth += 1
        elif c == "=" and in_key:
            in_key = False
        elif c in "[{":
            depth += 1
            stack.append((c, depth, line))
            in_key = c == "{"
        elif c in "]}" and stack:
            depth = stack.pop()[1] - 1
        elif c == "," and stack:
            depth, in_key = stack[-1][1], stack[-1][0] == "{"
        if depth > limit and deep is None:
            deep = line
        i += 1
    return Scan(deep, open_string, stack[0][2] if stack else None)


def too_deep_error(file: str, text: str, path: list[str | int] | None = None) -> CaseError:
    line = scan_lines(text).too_deep
    where = _path_str(path[:3]) + "…" if path else None
    if line is None and path:
        line = locate(text, [p for p in path[:3]])
    return CaseError(
        file,
        f"nested too deeply (more than {MAX_DEPTH} levels of tables and lists)",
        line,
        None,
        where,
    )


def _path_str(path: Iterable[str | int]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else str(seg))
    return out or "(top level)"


# ---------------------------------------------------------------- schema errors, made readable

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
    branch = json.loads(key)
    cls = jsonschema.validators.validator_for(schema())
    return cls({**branch, "$schema": schema()["$schema"], "$defs": schema()["$defs"]})


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
    choices = _scalar_choices(branches)
    if choices is not None:
        hint = ""
        if value is False and True in choices:
            hint = " (leave the field out instead of writing false)"
        return [(path, f"{_show(value)} is not one of: {_names(choices)}{hint}")]
    fits = [b for b in branches if _admits(b, value)]
    if len(fits) == 1:
        return _errors_in(fits[0], value, path)
    if not fits:
        types = _names(dict.fromkeys(_kind_words(b) for b in branches))
        return [(path, f"must be {types.replace(', ', ' or ')}, not {_kind_of(value)}")]
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
            return [(path, f"unknown keyword {value!r}; known: {KNOWN_KEYWORDS}")]
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


#: The keywords a card may carry, as a message lists them.
KNOWN_KEYWORDS = (
    "Quick, Brave N, Serious N, Interrupt, Vigilance, Taunt, Stealth, Retaliate, "
    "Nocturnal, Breakthrough, Assault"
)


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


def schema_errors(data: dict[str, Any], file: str, text: str) -> list[CaseError]:
    if fast_check()(data):
        return []
    found: Found = []
    for err in validator().iter_errors(data):
        found += _explain(err, [])
    errors = [CaseError(file, m, locate(text, p), None, _path_str(p)) for p, m in found]
    errors = list(dict.fromkeys(errors))  # one message once
    return sorted(errors, key=lambda e: (e.line or 0, e.field or ""))


# ---------------------------------------------------------------- semantic checks


def _state_ids(setup: dict[str, Any]) -> tuple[list[str], set[str]]:
    """All card ids of a STATE (with repeats, to find duplicates) and the structures' ids."""
    ids: list[str] = []
    structures: set[str] = set()
    for pdata in setup.get("players", {}).values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in pdata.get(zone, []):
                ids.append(card["id"])
                if card.get("kind") == "structure":
                    structures.add(card["id"])
                ids += [p["id"] for p in card.get("assigned", [])]
    return ids, structures


def needed_keywords(setup: Any) -> set[str]:
    """The keywords a STATE uses: on its cards, and by its abilities' timing
    (docs/case-format.md)."""
    needs: set[str] = set()

    def card(c: Any) -> None:
        if not isinstance(c, dict):
            return
        for kw in c.get("keywords", []) if isinstance(c.get("keywords"), list) else []:
            kid = KEYWORD_OF_WORD.get(kw.split(" ")[0]) if isinstance(kw, str) else None
            if kid == "quick" and c.get("kind") != "event":
                continue  # ignored on a Pal or structure
            if kid:
                needs.add(kid)
        for ab in c.get("abilities", []) if isinstance(c.get("abilities"), list) else []:
            if not isinstance(ab, dict):
                continue
            if isinstance(ab.get("when"), str) and ab["when"] in WHEN_KEYWORD:
                needs.add(WHEN_KEYWORD[ab["when"]])
            elif ab.get("quick") is True:
                needs.add("quick")
        for p in c.get("assigned", []) if isinstance(c.get("assigned"), list) else []:
            card(p)

    players = setup.get("players") if isinstance(setup, dict) else None
    for pdata in players.values() if isinstance(players, dict) else []:
        for zone in ("hand", "battle", "structures", "graveyard"):
            cards = pdata.get(zone) if isinstance(pdata, dict) else None
            for c in cards if isinstance(cards, list) else []:
                card(c)
    return needs


def _refs(data: dict[str, Any]) -> Iterator[tuple[list[str | int], str]]:
    """(field path, card id) for every card id an action or expectation names."""
    for i, action in enumerate(data.get("actions", [])):
        if "malformed" in action or "setup" in action:
            continue
        for key in ("card", "structure", "attacker", "blocker", "discard"):
            if key in action:
                yield ["actions", i, key], action[key]
        if action.get("target", "master") != "master":
            yield ["actions", i, "target"], action["target"]
        for j, c in enumerate(action.get("choose", [])):
            yield ["actions", i, "choose", j], c
    for i, exp in enumerate(data.get("expect", [])):
        obs = exp.get("observed", {})
        for cid in obs.get("cards", {}):
            yield ["expect", i, "observed", "cards", cid], cid
        for p, pdata in obs.get("players", {}).items():
            for zone in ("hand", "battle", "graveyard"):
                for cid in pdata.get(zone, []):
                    yield ["expect", i, "observed", "players", p, zone], cid
            for sid, held in pdata.get("structures", {}).items():
                yield ["expect", i, "observed", "players", p, "structures", sid], sid
                for cid in held:
                    yield ["expect", i, "observed", "players", p, "structures", sid], cid
        attack = obs.get("attack")
        if isinstance(attack, dict):
            for key in ("attacker", "target"):
                if attack.get(key, "master") != "master":
                    yield ["expect", i, "observed", "attack", key], attack[key]
        for part, entries in exp.get("legal", {}).items():
            for j, entry in enumerate(entries):
                for key in ("card", "structure", "attacker", "blocker", "discard"):
                    if key in entry:
                        yield ["expect", i, "legal", part, j, key], entry[key]
                if entry.get("target", "master") != "master":
                    yield ["expect", i, "legal", part, j, "target"], entry["target"]
                for k, c in enumerate(entry.get("choose", [])):
                    yield ["expect", i, "legal", part, j, "choose", k], c


def _id_line(text: str, cid: str, nth: int = 0, start: int = 1) -> int | None:
    """The line of the `nth` card written with this id at or after line `start`."""
    card = re.compile(r"(^|[{,\s])\"?id\"?\s*=\s*[\"']" + re.escape(cid) + r"[\"']")
    lines = enumerate(text.splitlines(), 1)
    hits = [n for n, line in lines if n >= start for _ in card.finditer(line)]
    return hits[nth] if len(hits) > nth else None


def state_errors(state: Any, path: list[str | int], file: str, text: str) -> list[CaseError]:
    """A STATE the oracle does not load (`P-state`: an event in `battle`, more Pals than
    slots, …): the case's setup, or a setup step it expects to be accepted."""
    try:
        Rules.from_state(state)
    except StateError as e:
        start = locate(text, path) or 1
        line: int | None = start
        card = re.search(r"\b(?:card|structure) (['\"])(.+?)\1", e.message)
        player = re.match(r"player ([AB])\b", e.message)
        if card:
            line = _id_line(text, card.group(2), 0, start) or start
        elif player and path == ["setup"]:
            line = locate(text, [*path, "players", player.group(1)]) or start
        message = f"not a legal STATE ({e.code}): {e.message}"
        return [CaseError(file, message, line, None, _path_str(path))]
    return []


def semantic_errors(
    data: dict[str, Any], file: str, stem: str, text: str, registry: Registry
) -> list[CaseError]:
    errors: list[CaseError] = []

    def err(path: list[str | int], message: str) -> None:
        errors.append(CaseError(file, message, locate(text, path), None, _path_str(path)))

    if data["id"] != stem:
        err(["id"], f"case id {data['id']!r} differs from the file name {stem + '.toml'!r}")
    for i, cid in enumerate(data.get("clauses", [])):
        clause = registry.clauses.get(cid)
        if clause is None:
            err(["clauses", i], f"unknown clause id {cid!r}")
        elif not clause.testable:
            err(["clauses", i], f"clause {cid!r} is informative, not testable")
    for i, rid in enumerate(data.get("rules", [])):
        if rid not in registry.base and rid not in registry.protocol:
            err(["rules", i], f"unknown base or protocol rule {rid!r}")
    for i, iid in enumerate(data.get("interpretations", [])):
        if iid not in registry.interpretations:
            err(["interpretations", i], f"unknown interpretation {iid!r}")
    ids, _ = _state_ids(data["setup"])
    seen: set[str] = set()
    for cid in ids:
        if cid in seen:
            errors.append(
                CaseError(
                    file,
                    f"duplicate card id {cid!r} in setup",
                    _id_line(text, cid, 1, locate(text, ["setup"]) or 1),
                    None,
                    "setup",
                )
            )
        seen.add(cid)
    if len(seen) == len(ids):  # (duplicates are said above)
        errors += state_errors(data["setup"], ["setup"], file, text)
    n_actions = len(data["actions"])
    refused_actions = {e.get("after", n_actions) - 1 for e in data["expect"] if "refused" in e}
    setup_steps = {i for i, a in enumerate(data["actions"]) if "setup" in a}
    for i in sorted(setup_steps - refused_actions):  # an accepted setup step: its ids count
        step = data["actions"][i]["setup"]
        illegal = state_errors(step, ["actions", i, "setup"], file, text)
        errors += illegal
        if not illegal:
            seen |= set(_state_ids(step)[0])
    for i, exp in enumerate(data["expect"]):
        after = exp.get("after", n_actions)
        refused = exp.get("refused")
        if after - 1 in setup_steps and refused is not None and refused not in SETUP_ERRORS:
            err(
                ["expect", i, "refused"],
                f"step {after} is a setup step: `refused` must be one "
                f"of {', '.join(SETUP_ERRORS)}, not {refused!r}",
            )
        elif after - 1 not in setup_steps and refused in SETUP_ERRORS:
            err(
                ["expect", i, "refused"],
                f"{refused!r} is a refusal of `setup`; step {after} is an action",
            )
    for path, cid in _refs(data):
        # an unknown id is deliberate in an action the case expects to be refused
        deliberate = path[0] == "actions" and path[1] in refused_actions
        if cid not in seen and not deliberate:
            err(path, f"card id {cid!r} is not in the setup")
    afters: set[int] = set()
    for i, exp in enumerate(data["expect"]):
        after = exp.get("after", n_actions)
        if after > n_actions:
            err(["expect", i, "after"], f"after = {after}, but the case has {n_actions} action(s)")
        if "refused" in exp and after == 0:
            err(["expect", i, "refused"], "`refused` needs `after` to name an action (1 or more)")
        if after in afters:
            err(["expect", i, "after"], f"a second expectation for after = {after}")
        afters.add(after)
    return errors
