"""A case file's TOML is read by rtoml where it may be (palconf.cases.toml_parse), and the
answer is tomli's every time: the same table, typed and in the same key order, or the same
error, on every TOML file of the repository, on tricky snippets, on mutated case files and on
made-up sequences of headers and dotted keys (Hypothesis). Each way rtoml was found to read a
text otherwise than tomli is a snippet here, and the fast path must turn it away.
"""

from __future__ import annotations

import datetime
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import tomli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palconf import paths
from palconf.cases import loader, reading, toml_parse
from palconf.cases.errors import CaseError

ROOT = Path(__file__).resolve().parent.parent


def typed(value: Any) -> Any:
    """`value` as nested tuples that keep every type and every table's key order (`==` on the
    tables themselves would take 1 for True, 1.0 for 1 and {a, b} for {b, a})."""
    kind = type(value)
    if kind is dict:
        return ("dict", tuple((k, typed(v)) for k, v in value.items()))
    if kind is list:
        return ("list", tuple(typed(v) for v in value))
    if kind is float:
        return ("float", "nan" if math.isnan(value) else value.hex(), math.copysign(1, value))
    if kind in (datetime.datetime, datetime.time):
        tz = value.tzinfo
        offset = tz.utcoffset(None) if tz is not None else None
        naive = value.replace(tzinfo=None).isoformat()
        return (kind.__name__, naive, value.fold, type(tz).__name__, offset)
    assert kind in (str, int, bool, datetime.date), kind
    return (kind.__name__, value)


def outcome(loads: Callable[[str], dict[str, Any]], text: str) -> tuple[Any, ...]:
    try:
        return ("table", typed(loads(text)))
    except Exception as e:  # tomli's errors: TOMLDecodeError, RecursionError, ValueError
        return ("error", type(e), str(e))


@contextmanager
def tomli_only() -> Iterator[None]:
    """palconf as it is without rtoml installed: tomli reads every text."""
    with mock.patch.object(toml_parse, "fast_loads", None):
        yield


def parsed(text: str) -> Any:
    """`reading._parse`'s answer (the table typed, or the CaseError)."""
    data = reading._parse(text, "x.toml")
    return data if isinstance(data, CaseError) else typed(data)


def same_as_tomli(text: str) -> None:
    """The fast path answers as tomli does, in `toml_parse.loads` and in `reading._parse`."""
    assert outcome(toml_parse.loads, text) == outcome(tomli.loads, text), text
    fast = parsed(text)
    with tomli_only():
        assert fast == parsed(text), text


@cache
def toml_files() -> list[Path]:
    """Every TOML file of the repository: the suite, every rules version's files, the broken
    case files the tests keep, the perft positions."""
    skip = {".git", ".venv", "node_modules", ".pytest_cache", ".mypy_cache", "build"}
    found = [p for p in ROOT.rglob("*.toml") if not skip & set(p.relative_to(ROOT).parts)]
    return sorted(set(found) | set(paths.CASES.rglob("*.toml")))


@cache
def case_texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(paths.CASES.rglob("*.toml"))]


def test_every_toml_file_reads_the_same_through_both() -> None:
    """rtoml reads every TOML file of the repository as tomli does, and the fast path is
    taken for all but a few of the suite's files (else it would be no faster)."""
    assert toml_parse.fast_loads is not None
    compared = 0
    for path in toml_files():
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:  # (tests/data's files that are not UTF-8)
            continue
        same_as_tomli(text)
        compared += 1
    assert compared > len(case_texts()) > 1300
    turned_away = [t for t in case_texts() if toml_parse.rtoml_may_differ(t)]
    assert len(turned_away) <= len(case_texts()) // 100, len(turned_away)


#: where rtoml 0.14 reads otherwise than tomli 2.5 (each must be turned away)
DIVERGING = [
    # an offset date-time's tzinfo: rtoml's TzInfo, not datetime.timezone
    "a = 1979-05-27T07:32:00Z",
    "a = 1979-05-27T07:32:00-07:00",
    "a = 1979-05-27 07:32:00.999999+01:30",
    # CR LF in a multi-line string: kept by rtoml, LF for tomli
    'a = """x\r\ny"""',
    "a = '''x\r\ny'''",
    # a byte-order mark: accepted by rtoml
    "\ufeffa = 1",
    # a line break before or after `=` in an inline table: accepted by rtoml
    "a = { b\n= 1 }",
    "a = { b =\n1 }",
    "a = { b = # c\n1 }",
    "a = { b # c\n= 1 }",
    'a = [{ "b"\n= 1 }]',
    "a = { b = 1, c = { d \t\n\t= 2 } }",
    "a = { b = \t\n[1] }",
    # a table declared after a header below it made it: rtoml moves it in its parent's order
    "[a.b]\n[c]\n[a]",
    "[[a.b]]\n[c]\n[a]",
    "[a.b.c]\n[a.d]\n[a.b]",
    "z = 1\n[a.b]\n[c]\n[a.d]\n[a]\ny = 2",
    "[[x]]\n[x.a.b]\n[x.c]\n[x.a]",
]


@pytest.mark.parametrize("text", DIVERGING)
def test_what_rtoml_reads_otherwise_is_turned_away(text: str) -> None:
    assert toml_parse.rtoml_may_differ(text)
    same_as_tomli(text)


#: TOML 1.0 and 1.1, valid and not: each must get tomli's answer through the fast path
# fmt: off
SNIPPETS = [
    # values
    'a = "\\e"', 'a = "\\x41"', 'a = "\\xZZ"', 'a = "\\uD800"', 'a = "\\U00110000"',
    'a = "\\U0001F600"', 'a = "\\ "', 'a = "\x7f"', 'a = "\x1f"', "a = '\x7f'", 'a = "\t"',
    'a = """\\\n  b"""', 'a = """a\\ \tb"""', "a = '''''''", 'a = """"""""', "a = '''a''''",
    'a = """a"""""', 'a = "a"b', 'a = "\u2028"', 'a = "\x00"',
    "a = 1e999", "a = -1e999", "a = 1.7976931348623157e308", "a = 4.9e-324", "a = 1e-400",
    "a = nan", "a = -nan", "a = +inf", "a = -0.0", "a = 0.1", "a = 1e01", "a = 1e1_0",
    "a = 1_e1", "a = 1.e1", "a = .1", "a = 1.", "a = 1e", "a = 00.1", "a = 0e0",
    "a = 9223372036854775807", "a = 9223372036854775808", "a = -9223372036854775808",
    "a = -9223372036854775809", "a = 0xFFFFFFFFFFFFFFFF", "a = 0x7FFFFFFFFFFFFFFF",
    "a = 0o777777777777777777777", "a = 0X1", "a = 0x_1", "a = +0x1", "a = 01", "a = -01",
    "a = 1__0", "a = _1", "a = +1", "a = " + "9" * 4301, "a = " + "9" * 30,
    "a = true", "a = True", "a = truex", "a = tru",
    "a = 1979-05-27", "a = 1979-02-29", "a = 2000-02-29", "a = 1979-02-30", "a = 0000-01-01",
    "a = 1979-05-27T07:32:00", "a = 07:32", "a = 07:32:00", "a = 24:00:00", "a = 23:59:60",
    "a = 1979-05-27T", "a = -1979-05-27", "a = 1979-05-27  07:32:00",
    # arrays, inline tables
    "a = [1,]", "a = [,]", "a = [1,,2]", "a = [1\n2]", "a = [\n1,\n# c\n2\n]", "a = [1\n,2]",
    "a = {,}", "a = {b=1,,}", "a = {b=1,c=2,}", "a = {\n# c\nb = 1}", "a = {b = 1 # c\n}",
    "a = {b = 1,\n}", "a = { b = 1\n, c = 2 }", "a = {b = 1\nc = 2}", "a = {b\n.c = 1}",
    "a = {b.\nc = 1}", "a = {b.c = 1, b.d = 2}", "a = {b.c = 1, b = {}}", "a = {}\na.b = 1",
    "a = {b = 1}\n[a.c]", "a = {b = 1}\na.c = 2", "a = {b = 1}c = 2", "a = [1]b = 2",
    # keys, tables
    "é = 1", '"é" = 1', '"a\\nb" = 1', "'a'.'b' = 1", "a . b = 1", "a.\nb = 1", "a\n= 1",
    "a =\n1", "a = 1 b = 2", "a = 1,b = 2", '"\\u0061" = 1\na = 2', "[ a . b ]", '[a . "b"]',
    "[[ a ]]", "[ [a] ]", "[[a] ]", "[a\n]", "[\na]", "[a] b = 1", "a = 1 [b]", "[a..b]",
    "[.a]", "[a.]", "[]", "[a]\n[a]", "[a]\n['a']", "a.b = 1\n[a]", "a.b = 1\n[a.b]",
    "[a]\nb.c = 1\n[a.b]", "[[a]]\n[a]", "[a]\n[[a]]", "[a.b]\n[[a]]", "a = []\n[[a]]",
    "a = [{b = 1}]\n[a.c]", "[a.b]\nx = 1\n[a]\ny = 2\n[a.c]", "[a]\n[c]\n[a.b]",
    "a.b.c = 1\na.b.d = 2\na.e = 3", "[a]\nb.c = 1\n[d]\n[a.e]", "[[a]]\n[a.b]\n[[a]]\n[a.b]",
    # whitespace, comments, control characters
    "# \x7f\na = 1", "# \x01\na = 1", "#\x00\na = 1", "a = 1 #\x85", "a = 1\r", "a = 1\r\n",
    "# c\r\na = 1", "a = 1\x0c", "[a]\n\tb = 1", "a = 1\n\ufeffb = 2", 'a = "\ufeff"', "",
    "\n", "# only a comment",
    # nesting past rtoml's limit (80) and tomli's (400)
    "a = " + "[" * 81 + "]" * 81, "a = " + "[" * 401 + "]" * 401,
    "a = " + "{b = " * 90 + "1" + "}" * 90, ".".join(["a"] * 90) + " = 1",
    "[" + ".".join(["a"] * 90) + "]",
]
# fmt: on


@pytest.mark.parametrize("text", SNIPPETS)
def test_tricky_snippets_get_tomlis_answer(text: str) -> None:
    same_as_tomli(text)


# ---------------------------------------------------------------- Hypothesis: mutated cases

#: what is inserted: TOML's own characters, line ends, odd characters, values of every kind
# fmt: off
TOKENS = [
    *"=[]{}.,#'\"\\\n\r\t ", "[[", "]]", '"""', "'''", "\r\n", "\ufeff", "é", "\u2028",
    "\x7f", "\x1f", "\x08", "\x85", "1e999", "-0", "0x1F", "0o7", "0b1", "1_000", "1__0",
    "1.", "0.1e", "inf", "nan", "-nan", "9" * 20, "9" * 4301, "1979-05-27", "07:32",
    "07:32:00Z", "1979-05-27T07:32:00+01:00", "1979-05-27 07:32:00z", "true", "True",
    "\\u00e9", "\\uD800", "\\e", "\\x41", "a.b", '"a".b', "'k'", "[a]\n", "[[a]]\n",
    "a = 1\n", "a.b = 1\n", "x = {a = 1}\n", "[setup]\n", "[expect]\n", "[[expect]]\n",
    "[expect.observed]\n", "[setup.players]\n", "x = " + "[" * 90 + "]" * 90 + "\n",
]
# fmt: on


@st.composite
def mutated_case(draw: st.DrawFn) -> str:
    """A case file of the suite with a few edits: characters or lines deleted, inserted,
    repeated or swapped, a line's value replaced, a line ended with CR LF, a line broken
    next to `=`, `,` or `{`."""
    text = draw(st.sampled_from(case_texts()))
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        i = draw(st.integers(0, len(text)))
        j = min(len(text), i + draw(st.integers(0, 8)))
        a = draw(st.integers(0, len(lines) - 1))
        b = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.integers(0, 9))
        if kind == 0:
            text = text[:i] + text[j:]
        elif kind == 1:
            token = draw(st.sampled_from(TOKENS) | st.characters(codec="utf-8"))
            text = text[:i] + token + text[i:]
        elif kind == 2:
            text = text[:i] + text[i:j] + text[i:]
        elif kind == 3:
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif kind == 4:
            lines.insert(b, lines[a])
            text = "\n".join(lines)
        elif kind == 5:
            del lines[a]
            text = "\n".join(lines)
        elif kind == 6:  # a line's value replaced by a token
            key, sep, _ = lines[a].partition("=")
            lines[a] = key + sep + " " + draw(st.sampled_from(TOKENS)) if sep else lines[a]
            text = "\n".join(lines)
        elif kind == 7:  # a line end written CR LF
            lines[a] += "\r"
            text = "\n".join(lines)
        else:  # a line broken before or after one of `=`, `,`, `{`
            marks = [k for k, c in enumerate(text) if c in "=,{"]
            if marks:
                k = draw(st.sampled_from(marks)) + draw(st.integers(0, 1))
                text = text[:k] + draw(st.sampled_from(["\n", "\r\n", " # c\n"])) + text[k:]
    return text


QUICK = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


@QUICK
@given(mutated_case())
def test_mutated_cases_get_tomlis_answer(text: str) -> None:
    same_as_tomli(text)


@pytest.mark.slow
@settings(QUICK, max_examples=20_000)
@given(mutated_case())
def test_many_mutated_cases_get_tomlis_answer(text: str) -> None:
    same_as_tomli(text)


#: lines of a made-up document: headers at every depth, dotted keys, inline tables
# fmt: off
LINES = [
    "[a]", "[a.b]", "[a.b.c]", "[a.c]", "[b]", "[b.a]", "[[a]]", "[[a.b]]", "[[b]]",
    "[[b.c]]", "[[a.b.c]]", "x = 1", "y = 2", "a.d = 3", "b.e.f = 4", "c = {d = 1}",
    "c.e = 2", "z = {a.b = 1, c = 2}", "[ a ]", "['a'.b]",
]
# fmt: on


@QUICK
@given(st.lists(st.sampled_from(LINES), min_size=1, max_size=10, unique=True))
def test_made_up_headers_and_dotted_keys_get_tomlis_answer(lines: list[str]) -> None:
    same_as_tomli("\n".join(lines))


def test_without_rtoml_tomli_reads_every_case() -> None:
    """rtoml is optional: without it palconf loads the suite with tomli alone."""
    code = (
        "import sys; sys.modules['rtoml'] = None\n"
        "from palconf.cases import toml_parse, loader\n"
        "assert toml_parse.fast_loads is None\n"
        "print(len(loader.load_cases()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert int(out.stdout) == len(loader.load_cases())
