"""The mutation run's own logic, without running mutmut (seconds, in the ordinary test suite):
equivalent.toml is well formed and names code that exists, a mutant is named by what it
changes, and the verdict counts and flags as documented (tests.mutation.runner)."""

from __future__ import annotations

import ast
import functools
import textwrap
from pathlib import Path

import pytest

from tests.mutation import runner
from tests.mutation.runner import KINDS, Entry, ListError, Mutant, MutatedFile, judge

ROOT = Path(__file__).resolve().parents[2]


def _norm(code: str) -> str:
    return " ".join(code.split())


@functools.cache
def _parsed(file: str) -> tuple[ast.Module, list[str]]:
    """A file's tree and lines, once (entries name a few files many times)."""
    text = (ROOT / file).read_text(encoding="utf-8")
    return ast.parse(text), text.splitlines()


def _function_lines(file: str, function: str) -> list[str] | None:
    tree, lines = _parsed(file)
    cls, _, name = function.rpartition(".")
    for node in ast.walk(tree):
        if cls and isinstance(node, ast.ClassDef) and node.name == cls:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == name:
                    return lines[item.lineno - 1 : item.end_lineno]
        if not cls and isinstance(node, ast.FunctionDef) and node.name == name:
            return lines[node.lineno - 1 : node.end_lineno]
    return None


def test_the_list_loads_and_every_entry_has_a_kind_and_a_reason() -> None:
    entries = runner.load_equivalent()
    assert entries, "tests/mutation/equivalent.toml is empty or missing"
    for e in entries:
        assert e.kind in KINDS
        assert len(e.reason) > 20, e.describe()


def test_every_entry_names_code_that_is_in_the_oracle_now() -> None:
    """A stale entry is found here in CI, without the minutes of a mutmut run: its function
    must exist and its original line(s) (and context) must still be in that function."""
    problems = []
    for e in runner.load_equivalent():
        body = _function_lines(e.file, e.function)
        if body is None:
            problems.append(f"{e.describe()}: no such function")
            continue
        source = [_norm(line) for line in body]
        wanted = [] if e.original is None else e.original.splitlines()
        wanted += [e.context] if e.context else []
        for line in wanted:
            if _norm(line) and _norm(line) not in source:
                problems.append(f"{e.describe()}: {line!r} is not in {e.function}")
    assert not problems, "\n".join(problems)


def test_mutated_lines_differ_from_the_original() -> None:
    for e in runner.load_equivalent():
        if e.original is not None:
            assert _norm(e.original) != _norm(e.mutated or ""), e.describe()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[equivalent]]\nfile = 'oracle/x.py'\nfunction = 'f'\n", "`reason`"),
        (
            "[[equivalent]]\nfile = 'oracle/x.py'\nfunction = 'f'\nreason = 'r'\n",
            "`original`",
        ),
        (
            "[[equivalent]]\nfile = 'a'\nfunction = 'f'\nscope = 'function'\nreason = 'r'\n"
            "kind = 'maybe'\n",
            "`kind`",
        ),
        (
            "[[equivalent]]\nfile = 'a'\nfunction = 'f'\nscope = 'function'\nreason = 'r'\n"
            "colour = 1\n",
            "unknown key",
        ),
        ("[[equivalent]\n", "cannot be read"),
    ],
)
def test_a_broken_list_is_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "equivalent.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ListError, match=message):
        runner.load_equivalent(path)


ORIGINAL = '''\
class Taunt:
    def restrict(self, targets):
        """Doc."""
        kept = [t for t in targets if t != "master"]
        return kept or targets


def top(x):
    if x:
        return 1
    if x:
        return 1
    return 0
'''

MUTATED = '''\
class Taunt:
    def restrict(self, targets):
        return 0
    def xǁTauntǁrestrict__mutmut_orig(self, targets):
        """Doc."""
        kept = [t for t in targets if t != "master"]
        return kept or targets
    def xǁTauntǁrestrict__mutmut_1(self, targets):
        """Doc."""
        kept = [t for t in targets if t == "master"]
        return kept or targets


def x_top__mutmut_orig(x):
    if x:
        return 1
    if x:
        return 1
    return 0


def x_top__mutmut_2(x):
    if x:
        return 1
    if x:
        return 2
    return 0
'''


def test_a_mutant_is_named_by_its_function_line_and_code(tmp_path: Path) -> None:
    (tmp_path / "o.py").write_text(ORIGINAL, encoding="utf-8")
    (tmp_path / "m.py").write_text(MUTATED, encoding="utf-8")
    mf = MutatedFile(tmp_path / "o.py", tmp_path / "m.py", "oracle/o.py")
    m = mf.mutant("oracle.o.xǁTauntǁrestrict__mutmut_1", "survived")
    assert (m.function, m.line, m.status) == ("Taunt.restrict", 4, "survived")
    assert m.original == 'kept = [t for t in targets if t != "master"]'
    assert m.mutated == 'kept = [t for t in targets if t == "master"]'
    assert m.context == '"""Doc."""'
    m2 = mf.mutant("oracle.o.x_top__mutmut_2", "killed")
    assert (m2.function, m2.line, m2.original, m2.mutated) == ("top", 12, "return 1", "return 2")
    assert m2.context == "if x:"  # the same change to the first `return 1` has the same context
    with pytest.raises(RuntimeError, match="unexpected mutmut mutant name"):
        mf.mutant("oracle.o.top", "killed")


def _mutant(status: str, mutated: str, function: str = "f") -> Mutant:
    return Mutant(
        f"oracle.o.x_{function}__mutmut_1", status, "oracle/o.py", function, 3, "a < b", mutated
    )


def _entry(index: int, mutated: str | None, function: str = "f", kind: str = "equivalent") -> Entry:
    original = None if mutated is None else "a < b"
    return Entry(index, "oracle/o.py", function, original, mutated, "because", kind)


def test_the_verdict_counts_and_flags_each_case() -> None:
    mutants = [
        _mutant("killed", "a <= b"),
        _mutant("timeout", "a > b"),
        _mutant("survived", "a == b"),  # listed
        _mutant("no tests", "a != b"),  # listed, reached by no case
        _mutant("survived", "a >= b"),  # not listed
        _mutant("killed", "a is b"),  # listed, but killed
        _mutant("suspicious", "a in b"),
        _mutant("survived", "x", function="g"),  # a whole function listed
    ]
    entries = [
        _entry(1, "a == b"),
        _entry(2, "a != b", kind="beyond-cases"),
        _entry(3, "a is b"),
        _entry(4, "a not in b"),  # matches nothing: stale
        _entry(5, None, function="g"),
    ]
    v = judge(mutants, entries, {"oracle/o.py"})
    assert (v.total, v.killed) == (8, 3)
    assert [e.index for _, e in v.equivalent] == [1, 2, 5]
    assert [m.mutated for m in v.unlisted] == ["a >= b"]
    assert [e.index for _, e in v.wrongly_listed] == [3]
    assert [e.index for e in v.stale] == [4]
    assert [m.status for m in v.other] == ["suspicious"]
    assert not v.ok
    ok = judge(mutants[:4], entries[:2], {"oracle/o.py"})
    assert ok.ok and (ok.killed, len(ok.equivalent)) == (2, 2)
    # entries of files this run did not mutate are not stale
    assert judge(mutants[:4], entries[:2] + [_entry(4, "zz")], {"oracle/other.py"}).ok


def test_the_score_is_the_last_line(capsys: pytest.CaptureFixture[str]) -> None:
    v = judge(
        [_mutant("killed", "a <= b"), _mutant("survived", "a == b")], [_entry(1, "a == b")], set()
    )
    runner.report(v, verbose=False, seconds=3.2, workers=2)
    last = capsys.readouterr().out.rstrip("\n").splitlines()[-1]
    assert last == (
        "mutation score: 1/2 killed, 1 equivalent (listed in tests/mutation/equivalent.toml)"
    )


def test_entry_context_tells_two_equal_lines_apart() -> None:
    e = Entry(1, "oracle/o.py", "f", "return 1", "return 2", "r", context="if y:")
    first = Mutant("n1", "killed", "oracle/o.py", "f", 3, "return 1", "return 2", "if x:")
    second = Mutant("n2", "survived", "oracle/o.py", "f", 5, "return 1", "return 2", "if y:")
    assert not e.matches(first) and e.matches(second)


def test_the_corpus_module_is_not_collected_by_the_ordinary_suite() -> None:
    """corpus.py runs every case as a test; under its own name pytest's default patterns
    (test_*.py, *_test.py) leave it to mutmut's work folder, where it is test_corpus.py."""
    name = Path(runner.__file__).with_name("corpus.py").name
    assert not name.startswith("test_") and not name.endswith("_test.py")
    assert textwrap.dedent(runner.CONFIG).count('"test_corpus.py"') == 1
