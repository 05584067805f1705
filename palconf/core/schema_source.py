"""A JSON Schema compiled to Python source: the yes/no check of `schema.Compiler`, written
out as a few functions with each simple subschema (a type, a const, an enum, a pattern, a
reference to such a definition) inlined as an expression, where the `Compiler` calls a closure
for each. About twice as quick on a case file, which is checked on every load (most of the
cost of the `Compiler`'s check is the calls between its closures); its compilation costs
some 10 ms more (Python's `compile`).

With `plain`, the check also asks whether the value is one the caller takes (palconf: no
date, NaN or infinity: `reading.plain_check`), where the schema admits a value without
saying what it is (`_guard`), and nowhere else.

The same keywords as `schema.Compiler` (`schema._KNOWN`), with the same meaning, quirks
included (an object or array check refuses a subclass of dict or list); tests hold the two,
and jsonschema, to the same verdicts (tests/test_fast_load.py, tests/test_fast_paths.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from palconf.core.schema import (
    _KNOWN,
    Check,
    Compiler,
    SchemaCompileError,
    _is_integer,
    _json_eq,
    python_pattern,
    unique_items,
)

#: each JSON type as an expression of `{v}` (the `Compiler`'s `_TYPES`)
_TYPE_EXPR = {
    "object": "isinstance({v}, dict)",
    "array": "isinstance({v}, list)",
    "string": "isinstance({v}, str)",
    "boolean": "isinstance({v}, bool)",
    "null": "{v} is None",
    "integer": "(type({v}) is int or _is_integer({v}))",
    "number": "(isinstance({v}, (int, float)) and not isinstance({v}, bool))",
}


#: the types whose values are JSON's (a `number` may be NaN or infinite)
_JSON_TYPES = {"object", "array", "string", "boolean", "null", "integer"}
#: where an inlined definition's expression names its value (no repr of a constant holds it)
_HOLE = "\x00"
#: the longest definition inlined where it is referred to (a longer one is called)
_INLINE = 300


def _guard(s: dict[str, Any], types: list[str]) -> str:
    """What, in `plain` mode, makes sure that a value that passes `s` is plain: "type" (its
    type is one of JSON's, but `number`; a table's or list's entries each checked in
    `plain` mode), "const" (it equals a JSON constant, or one of an enum), "$ref" (the
    definition, in `plain` mode), "allOf" (its first part, so), "anyOf" / "oneOf" (each
    alternative, so), "if" (`then` and `else`, so: each is `plain` by default), else
    "plain" (`plain` asked of it). Every other subschema is compiled as it is: a value
    that is not plain fails `s` whatever they say."""
    if types and set(types) <= _JSON_TYPES:
        return "type"
    if "const" in s or "enum" in s:
        return "const"
    for key in ("$ref", "anyOf", "oneOf", "if"):
        if key in s:
            return key
    return "allOf" if s.get("allOf") else "plain"


def _told_apart_by(branches: list[Any]) -> str | None:
    """The key by which exactly one of `branches` can hold, if there is one: each branch an
    object (`type`: "object") that requires the key and gives it a string `const`, each a
    different one (an action's `do`). Then a value none of whose consts the key holds fails
    them all, and one that holds a const fails every branch but its own."""
    if not branches or not all(isinstance(b, dict) for b in branches):
        return None
    for key in branches[0].get("required", ()):
        consts = []
        for b in branches:
            prop = b.get("properties", {}).get(key)
            if b.get("type") != "object" or key not in b.get("required", ()):
                break
            if not isinstance(prop, dict) or "const" not in prop:
                break
            if not isinstance(prop["const"], str):
                break
            consts.append(prop["const"])
        else:
            if len(set(consts)) == len(consts):
                return str(key)
    return None


class SourceCompiler:
    """One schema (and the documents it refers to) → one boolean function, by way of Python
    source: `compile(schema, doc)`."""

    def __init__(
        self, docs: Mapping[str, dict[str, Any]], base_uri: str = "", plain: Check | None = None
    ) -> None:
        self.refs = Compiler(docs, base_uri)  # resolves references as the Compiler does
        #: with `plain` (is a value, whole, one the caller takes?), the check says also that
        #: the value is plain: `plain` is asked of each value the schema lets through
        #: without saying what it is (`_guard`), and of nothing else
        self.plain = plain is not None
        self.ns: dict[str, Any] = {
            "_is_integer": _is_integer,
            "_json_eq": _json_eq,
            "_unique": unique_items,
            "_plain": plain,
            "math": math,
        }
        self.functions: list[str] = []
        # by (document, pointer, plain mode)
        self.ref_names: dict[tuple[str, str, bool], str] = {}
        self.inline: dict[tuple[str, str, bool], str] = {}  # an expression, of _HOLE
        self.called: set[tuple[str, str, bool]] = set()  # the ones called as functions
        self.consts: dict[str, str] = {}  # a constant's type and repr → its name
        self.emitted: dict[str, str] = {}  # a function's text (its name `_`) → its name
        self.count = 0

    def _name(self, prefix: str) -> str:
        self.count += 1
        return f"_{prefix}{self.count}"

    def const(self, value: Any) -> str:
        """A name in the namespace bound to `value` (one name for equal constants)."""
        key = f"{type(value).__name__}:{value!r}"
        if key not in self.consts:
            self.consts[key] = name = self._name("k")
            self.ns[name] = value
        return self.consts[key]

    def emit(self, name: str, lines: list[str]) -> str:
        """The function `name` of these lines, or the name of one emitted with the same
        lines (the same schema met twice: the players' A and B): less source to compile."""
        text = "\n".join(lines) + "\n"
        key = text.replace(f"def {name}(", "def _(", 1)
        if key not in self.emitted:
            self.emitted[key] = name
            self.functions.append(text)
        return self.emitted[key]

    def compile(self, s: Any, doc: str) -> Check:
        top = self.function(s, doc, self.plain)
        source = "\n\n".join(self.functions)
        exec(compile(source, f"<schema {doc}>", "exec"), self.ns)  # (our own source)
        check: Check = self.ns[top]
        return check

    def source(self) -> str:
        return "\n\n".join(self.functions)

    # ------------------------------------------------------------------ expressions

    def function(self, s: Any, doc: str, plain: bool = False) -> str:
        """A function for `s`; its name."""
        name = self._name("f")
        return self.emit(name, [f"def {name}(v):", f"    return {self.expr(s, doc, 'v', plain)}"])

    def ref(self, ref: str, doc: str, v: str, plain: bool) -> str:
        """A reference: the definition's expression where it is short, else a call of its
        function (also a recursive reference, made while the definition is compiled)."""
        key = (*self.refs.resolve(ref, doc), plain)
        if key not in self.ref_names:
            self.ref_names[key] = name = self._name("r")
            body = self.expr(self.refs.node(key[0], key[1]), key[0], _HOLE, plain)
            if len(body) <= _INLINE:
                self.inline[key] = "(" + body + ")"
            if key not in self.inline or key in self.called:  # (a function is wanted)
                lines = [f"def {name}(v):", f"    return {body.replace(_HOLE, 'v')}"]
                self.ref_names[key] = self.emit(name, lines)  # (a recursive one names itself)
        inline = self.inline.get(key)
        if inline is None:  # a long one, or one being compiled (a recursive reference)
            self.called.add(key)
            return f"{self.ref_names[key]}({v})"
        return inline.replace(_HOLE, v)

    def expr(self, s: Any, doc: str, v: str, plain: bool = False) -> str:
        """A boolean expression of the variable `v`, True iff `v` is valid against `s` (with
        `plain`: and `v` is plain; see `_guard`)."""
        if s is True:
            return f"_plain({v})" if plain else "True"
        if s is False:
            return "False"
        unknown = set(s) - _KNOWN
        if unknown:
            raise SchemaCompileError(
                f"{doc}: the schema compiler does not implement {sorted(unknown)}"
            )
        parts: list[str] = []
        types = [s["type"]] if isinstance(s.get("type"), str) else list(s.get("type", []))
        guard = _guard(s, types) if plain else ""
        if "$ref" in s:
            parts.append(self.ref(s["$ref"], doc, v, guard == "$ref"))
        deep = guard == "type"  # (a table's or list's entries: each plain)
        obj = self.object_function(s, doc, types == ["object"], deep and "object" in types)
        arr = self.array_function(s, doc, types == ["array"], deep and "array" in types)
        if obj and types == ["object"] or arr and types == ["array"]:
            types = []  # the object / array check tests the type itself
        if types:
            parts.append(self.types(types, v))
        if "const" in s:
            const = s["const"]
            if isinstance(const, str):
                parts.append(f"{v} == {const!r}")
            else:
                parts.append(f"_json_eq({v}, {self.const(const)})")
        if "enum" in s:
            values = s["enum"]
            if all(isinstance(x, str) or x is None for x in values):
                allowed = self.const(frozenset(values))
                parts.append(f"(({v} is None or isinstance({v}, str)) and {v} in {allowed})")
            else:
                listed = self.const(list(values))
                parts.append(f"any(_json_eq({v}, x) for x in {listed})")
        parts += [f"{f}({v})" for f in (obj, arr) if f]
        if "minLength" in s or "maxLength" in s or "pattern" in s:
            tests = []
            if "minLength" in s or "maxLength" in s:
                lo, hi = s.get("minLength", 0), s.get("maxLength", math.inf)
                hi_text = "math.inf" if hi == math.inf else repr(hi)
                tests.append(f"{lo!r} <= len({v}) <= {hi_text}")
            if "pattern" in s:
                pattern = self.const(re.compile(python_pattern(s["pattern"])))
                tests.append(f"{pattern}.search({v}) is not None")
            if types == ["string"]:  # (the type is tested above)
                parts += tests
            else:
                parts.append(f"(not isinstance({v}, str) or ({' and '.join(tests)}))")
        if "minProperties" in s:
            parts.append(f"(not isinstance({v}, dict) or len({v}) >= {s['minProperties']!r})")
        if "minimum" in s:
            minimum = self.const(s["minimum"])
            if types in (["integer"], ["number"]):  # (a number, tested above: not a bool)
                parts.append(f"{v} >= {minimum}")
            else:
                parts.append(
                    f"(isinstance({v}, bool) or not isinstance({v}, (int, float)) "
                    f"or {v} >= {minimum})"
                )
        if "not" in s:
            parts.append(f"not {self.expr(s['not'], doc, v)}")
        if "allOf" in s:
            first = guard == "allOf"
            parts += [self.expr(sub, doc, v, first and i == 0) for i, sub in enumerate(s["allOf"])]
        if "anyOf" in s:
            alts = [self.expr(sub, doc, v, guard == "anyOf") for sub in s["anyOf"]]
            parts.append("(" + " or ".join(alts) + ")" if alts else "False")
        if "oneOf" in s:
            one = guard == "oneOf"
            key = _told_apart_by(s["oneOf"])
            if key is not None:  # at most one can hold: the one the key's value names
                parts.append(f"{self.dispatch_function(s['oneOf'], key, doc, one)}({v})")
            else:
                names = [self.function(sub, doc, one) for sub in s["oneOf"]]
                parts.append(f"{self.one_function(names)}({v})")
        if "if" in s:
            cond = self.expr(s["if"], doc, v)
            then = self.expr(s.get("then", True), doc, v, guard == "if")
            other = self.expr(s.get("else", True), doc, v, guard == "if")
            parts.append(f"({then} if {cond} else {other})")
        if guard == "plain":
            parts.append(f"_plain({v})")
        if not parts:
            return "True"
        return parts[0] if len(parts) == 1 else "(" + " and ".join(parts) + ")"

    def types(self, types: list[str], v: str) -> str:
        tests = [_TYPE_EXPR[t].format(v=v) for t in types]
        return tests[0] if len(tests) == 1 else "(" + " or ".join(tests) + ")"

    # ------------------------------------------------------------------ functions

    def dispatch_function(
        self, branches: list[dict[str, Any]], key: str, doc: str, plain: bool
    ) -> str:
        """Objects told apart by one required key's string const (`_told_apart_by`): the
        branch its value names decides, none if it names none."""
        table = {b["properties"][key]["const"]: self.function(b, doc, plain) for b in branches}
        name, table_name = self._name("t"), self._name("k")
        entries = ", ".join(f"{c!r}: {f}" for c, f in table.items())
        lines = [
            f"{table_name} = {{{entries}}}",
            "",
            "",
            f"def {name}(v):",
            "    if type(v) is not dict:",
            "        return False",
            f"    t = v.get({key!r})",
            "    if not isinstance(t, str):",
            "        return False",
            f"    f = {table_name}.get(t)",
            "    return f is not None and f(v)",
        ]
        self.functions.append("\n".join(lines) + "\n")
        return name

    def one_function(self, names: list[str]) -> str:
        """Exactly one of the functions `names` holds."""
        name = self._name("o")
        lines = [f"def {name}(v):", "    found = False"]
        for f in names:
            lines += [f"    if {f}(v):", "        if found:", "            return False"]
            lines.append("        found = True")
        lines.append("    return found")
        return self.emit(name, lines)

    def object_function(
        self, s: dict[str, Any], doc: str, strict: bool, plain: bool = False
    ) -> str | None:
        """A function for required / properties / additionalProperties; with `strict`, what
        is not an object fails; with `plain` (even if the schema has none of them), each
        entry is checked in plain mode, those of no property too."""
        required = tuple(s.get("required", ()))
        props = s.get("properties", {})
        addl = s.get("additionalProperties", True)
        if not required and not props and addl is True:
            if not plain:
                return None
            # made for `plain` alone: a subclass of dict passes the type test (`isinstance`)
            other = f"_plain(v) if isinstance(v, dict) else {not strict}"
        else:
            other = "False" if strict else "not isinstance(v, dict)"
        name = self._name("d")
        lines = [f"def {name}(v):", "    if type(v) is not dict:", f"        return {other}"]
        lines += [f"    if {k!r} not in v:\n        return False" for k in required]
        tests = {k: self.expr(sub, doc, "x", plain) for k, sub in props.items()}
        if addl is True and not plain:  # open: the schema's properties are looked up
            for k, test in tests.items():
                if test != "True":
                    lines += [
                        f"    if {k!r} in v:",
                        f"        x = v[{k!r}]",
                        f"        if not {test}:",
                        "            return False",
                    ]
        else:  # each of the value's keys: its property's test, or additionalProperties
            extra = self.expr(addl, doc, "x", plain)
            lines.append("    for k, x in v.items():")
            keyword = "if"
            for k, test in tests.items():
                lines += [f"        {keyword} k == {k!r}:", f"            if not {test}:"]
                lines.append("                return False")
                keyword = "elif"
            if tests:
                lines += ["        else:", f"            if not {extra}:"]
                lines.append("                return False")
            else:
                lines += [f"        if not {extra}:", "            return False"]
        lines.append("    return True")
        return self.emit(name, lines)

    def array_function(
        self, s: dict[str, Any], doc: str, strict: bool, plain: bool = False
    ) -> str | None:
        if "items" not in s and "minItems" not in s and "uniqueItems" not in s:
            if not plain:
                return None
            other = f"_plain(v) if isinstance(v, list) else {not strict}"  # (as for a table)
        else:
            other = "False" if strict else "not isinstance(v, list)"
        name = self._name("a")
        lines = [f"def {name}(v):", "    if type(v) is not list:", f"        return {other}"]
        if s.get("minItems", 0):
            lines += [f"    if len(v) < {s['minItems']!r}:", "        return False"]
        item = self.expr(s.get("items", True), doc, "x", plain)
        if item != "True":
            lines += ["    for x in v:", f"        if not {item}:", "            return False"]
        if s.get("uniqueItems", False):
            lines += ["    if not _unique(v):", "        return False"]
        lines.append("    return True")
        return self.emit(name, lines)
