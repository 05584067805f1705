"""The case loader: good files load; the parts that find what is wrong with a broken one
(the line of a field, of a too deep nesting, of an open string) work on their own. Each kind
of broken file, with the message and line it gets, is in tests/data/broken-cases/ (run by
tests/test_broken_cases.py)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tomli

import palconf.cases.loader as loader
from palconf import paths
from palconf.cases import memo
from palconf.cases.depth import MAX_DEPTH, may_be_too_deep, scan_lines, too_deep
from palconf.cases.loader import (
    CaseLoadError,
    case_files,
    find_case_files,
    load_case,
    load_cases,
    locate,
)
from palconf.registry import load as load_registry

GOOD = """#:schema ../../palconf/schemas/case.schema.json
id = "brave-sample"
title = "Brave 200 attacker has 3200 power after declaring"
clauses = ["brave.1"]
rules = ["B-12"]

[setup]
active = "A"
[setup.players.A]
life = 5
battle = [{ id = "a1", kind = "pal", power = 3000, keywords = ["Brave 200"] }]
[setup.players.B]
life = 5

[[actions]]
do = "attack"
player = "A"
attacker = "a1"
target = "master"

[[expect]]
after = 1
observed = { cards = { a1 = { power = 3200 } }, attack = { target = "master" }, winner = "null" }
"""


def write(tmp: Path, text: str, name: str = "brave-sample.toml", folder: str = "brave") -> Path:
    d = tmp / folder
    d.mkdir(parents=True, exist_ok=True)
    p = d / name
    p.write_text(text, encoding="utf-8")
    return p


def errors_of(tmp: Path, text: str, **kw: str) -> list[str]:
    path = write(tmp, text, **kw)
    case, errors = load_case(path, tmp)
    assert case is None, "the broken file loaded"
    assert errors
    return [str(e) for e in errors]


IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def test_good_case_loads(tmp_path: Path) -> None:
    case, errors = load_case(write(tmp_path, GOOD), tmp_path)
    assert errors == [] and case is not None
    assert case.id == "brave-sample" and case.keywords == ("brave",)
    assert case.needs == {"brave"}
    assert case.expect[0].observed == {
        "cards": {"a1": {"power": 3200}},
        "attack": {"target": "master"},
        "winner": None,
    }


def test_locate_follows_array_headers() -> None:
    text = "[[actions]]\ndo = 'x'\n[[actions]]\ndo = 'y'\nplayer = 'A'\n"
    assert locate(text, ["actions", 1, "player"]) == 5
    assert locate(text, ["actions", 0, "do"]) == 2

    text = "[setup]\n[setup.players.A]\nlife = 5\n[actions.first]\ndo = 'x'\n"
    assert locate(text, ["actions"]) == 4  # only a table below it is written


def depth(value: Any) -> int:
    """How many tables and lists hold the deepest value (the whole file counts one)."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def test_depth_check_agrees_with_the_data_on_the_suite() -> None:
    """On real files: the cheap bound is a bound, the walk and the line scanner both find
    exactly the depth the parsed data has (every 7th file, to stay quick)."""
    for path in case_files(paths.CASES)[::7]:
        text = path.read_text(encoding="utf-8")
        data = tomli.loads(text)
        d = depth(data)
        assert d < MAX_DEPTH
        assert 1 + text.count("[") + text.count("{") + text.count(".") >= d, path
        assert too_deep(data, d) is None and too_deep(data, d - 1) is not None, path
        assert scan_lines(text, d).too_deep is None, path
        assert scan_lines(text, d - 1).too_deep is not None, path


@pytest.mark.parametrize(
    "text, limit, line",
    [
        ("a = 1\nb = [[1]]\n", 2, 2),  # the file, the list, the inner list
        ("a = 1\nb = [[1]]\n", 3, None),
        ("[a.b]\nc = 1\n", 2, 1),  # the file, a, b
        ("[[a]]\nc = 1\n", 2, 1),  # the file, the list a, its table
        ("x.y.z = 1\n", 2, 1),  # the file, x, y
        ("x = { y = { z = 1 } }\n", 3, None),
        ("x = { y.z = { w = 1 } }\n", 3, 1),
        ("x = '[[[['\ny = \"{{{{\"  # [[[[\nz = [\n  [\n    [1],\n  ],\n]\n", 3, 5),
        ('s = """\n[[[[\n"""\n[t]\nu = [[1]]\n', 3, 5),  # brackets in a multi-line string
    ],
)
def test_scan_lines_finds_the_first_line_too_deep(text: str, limit: int, line: int | None) -> None:
    assert scan_lines(text, limit).too_deep == line


def test_scan_lines_finds_open_strings_and_brackets() -> None:
    scan = scan_lines("a = \"x\nb = [1,\n2\nc = 'ok'\n")
    assert scan.open_string == 1 and scan.open_bracket == 2
    assert scan_lines("a = 'x'\nb = [1]\n") == scan_lines("").__class__(None, None, None)


def test_the_bound_lets_shallow_files_skip_the_walk() -> None:
    assert not may_be_too_deep("a = [1]\n" * 10)
    assert may_be_too_deep("a = " + "[" * MAX_DEPTH + "]" * MAX_DEPTH)


@pytest.fixture
def fresh_memo() -> Iterator[None]:
    """For a test that patches the loader's stages: the memo (palconf.cases.memo) would
    answer a file loaded before without them, and keep what they answered for later."""
    memo.forget()
    yield
    memo.forget()


@pytest.mark.parametrize(
    "stage", ["plain_check", "schema_errors", "foreign_value", "semantic_errors", "build_case"]
)
def test_a_recursion_error_in_any_stage_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str, fresh_memo: None
) -> None:
    """What the depth limit does not stop (it should stop all) is still a message. (The
    schema's messages and the foreign walk are asked only of a file the quick check of
    both refuses: here, it refuses every file.)"""

    def deep(*args: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    if stage in ("schema_errors", "foreign_value"):
        monkeypatch.setattr(loader, "plain_check", lambda registry: lambda data: False)
    monkeypatch.setattr(loader, stage, deep)
    errors = errors_of(tmp_path, GOOD)
    assert errors == [
        "brave/brave-sample.toml: nested too deeply (more than 100 levels of tables and lists)"
    ]


def test_a_setup_step_the_case_expects_refused_may_be_illegal(tmp_path: Path) -> None:
    text = GOOD.replace(
        'do = "attack"\nplayer = "A"\nattacker = "a1"\ntarget = "master"\n',
        'setup = { players = { A = { life = 5, battle = [{ id = "e", kind = "event", '
        'effect = { op = "night", value = true } }] }, B = { life = 5 } } }\n',
    ).replace(
        'observed = { cards = { a1 = { power = 3200 } }, attack = { target = "master" }, '
        'winner = "null" }',
        'refused = "invalid-state"',
    )
    case, errors = load_case(write(tmp_path, text), tmp_path)
    assert errors == [] and case is not None and case.steps[0].kind == "setup"


def test_links_to_case_files_and_folders_are_followed_once(tmp_path: Path) -> None:
    """Links inside the cases folder are followed; one that leads out is not (issue 36)."""
    cases = tmp_path / "cases"
    real = write(cases, GOOD, folder="kept")
    (cases / "brave").mkdir()
    os.symlink("../kept/brave-sample.toml", cases / "brave" / "brave-sample.toml")  # a file
    os.symlink(cases / "kept", cases / "linked")  # a folder, by full path: read once
    os.symlink("..", cases / "brave" / "loop")  # a loop back to the top: read once
    os.symlink(cases, cases / "brave" / "top")  # the same, by full path
    with pytest.raises(CaseLoadError) as e:  # the same case twice: through both links
        load_cases(cases)
    assert [str(x) for x in e.value.errors] == [
        "linked/brave-sample.toml:2: id: duplicate case id 'brave-sample' "
        "(also in brave/brave-sample.toml)"
    ]
    os.remove(cases / "linked")
    os.remove(cases / "brave" / "brave-sample.toml")
    assert [c.path for c in load_cases(cases)] == ["kept/brave-sample.toml"]
    (tmp_path / "elsewhere").mkdir()
    os.rename(real, tmp_path / "elsewhere" / "brave-sample.toml")
    os.symlink("../../elsewhere/brave-sample.toml", cases / "brave" / "brave-sample.toml")
    with pytest.raises(CaseLoadError) as e:
        load_cases(cases)
    assert [str(x) for x in e.value.errors] == [
        "brave/brave-sample.toml: a link that leads out of the cases folder (to "
        "'../../elsewhere/brave-sample.toml'): not followed; links may lead only to case "
        "files and folders inside it"
    ]


@pytest.mark.parametrize(
    "name, target",
    [
        ("root", "/"),  # at the top of the folder of folders: walked before
        ("root.toml", "/"),
        ("up", ".."),
        ("elsewhere", "ELSEWHERE"),
        ("elsewhere.toml", "ELSEWHERE"),
        ("sibling", "../sibling"),
    ],
)
def test_links_out_of_the_top_are_not_followed(tmp_path: Path, name: str, target: str) -> None:
    """Issue 36: `cases/root -> /` read the whole disk (19 s, 21,347 problems)."""
    cases = tmp_path / "cases"
    write(cases, GOOD)
    write(tmp_path / "elsewhere", GOOD.replace("brave-sample", "brave-elsewhere"))
    write(tmp_path / "sibling", GOOD.replace("brave-sample", "brave-sibling"))
    target = target.replace("ELSEWHERE", str(tmp_path / "elsewhere"))
    os.symlink(target, cases / name)
    files, errors = find_case_files(cases)
    assert [p.name for p in files] == ["brave-sample.toml"]
    if name.endswith(".toml") and not Path(target).is_dir() and target != "/":
        return  # a file at the top is no case (its link is not followed either)
    assert [str(x) for x in errors] == [
        f"{name}: a link that leads out of the cases folder (to {target!r}): not followed; "
        "links may lead only to case files and folders inside it"
    ]
    with pytest.raises(CaseLoadError) as e:
        load_cases(cases)
    assert [c.id for c in e.value.loaded] == ["brave-sample"]


def test_a_cases_folder_named_by_a_link_is_read(tmp_path: Path) -> None:
    """The folder itself may be a link (`--cases link`): links inside it are inside."""
    write(tmp_path / "real", GOOD)
    os.symlink(tmp_path / "real", tmp_path / "link")
    os.symlink("brave", tmp_path / "real" / "again")  # inside: read once
    assert [c.id for c in load_cases(tmp_path / "link")] == ["brave-sample"]
    os.remove(tmp_path / "real" / "again")
    assert [c.id for c in load_cases(tmp_path / "link" / "brave")] == ["brave-sample"]


def test_one_case_folder_as_root_reports_what_it_cannot_read(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    os.symlink("gone.toml", tmp_path / "brave" / "brave-gone.toml")
    (tmp_path / "brave" / ".mypy_cache").mkdir()  # neither makes it a folder of folders
    (tmp_path / "brave" / "brave-folder.toml").mkdir()
    files, folder_errors = find_case_files(tmp_path / "brave")
    names = ["brave-folder.toml", "brave-gone.toml", "brave-sample.toml"]
    assert [p.name for p in files] == names and not folder_errors
    with pytest.raises(CaseLoadError) as e:
        load_cases(tmp_path / "brave")
    assert [str(x) for x in e.value.errors] == [
        "brave/brave-folder.toml: cannot read: a folder, not a file (a case file's name ends "
        "in .toml)",
        "brave/brave-gone.toml: cannot read: a broken symbolic link (to 'gone.toml', which "
        "does not exist)",
    ]
    assert [c.id for c in e.value.loaded] == ["brave-sample"]


@pytest.mark.skipif(
    IS_ROOT,
    reason="chmod 000 does not stop root from reading (the corpus "
    "simulates it: tests/test_broken_cases.py)",
)
def test_chmod_000_file_and_folder_are_reported(tmp_path: Path) -> None:
    unreadable = write(tmp_path, GOOD)
    folder = tmp_path / "taunt"
    write(tmp_path, GOOD.replace("brave-sample", "brave-other"), "brave-other.toml", "taunt")
    os.chmod(unreadable, 0)
    os.chmod(folder, 0)
    try:
        with pytest.raises(CaseLoadError) as e:
            load_cases(tmp_path)
    finally:
        os.chmod(unreadable, 0o644)
        os.chmod(folder, 0o755)
    assert sorted(str(x) for x in e.value.errors) == [
        "brave/brave-sample.toml: cannot read: permission denied",
        "taunt: cannot read the folder: Permission denied",
    ]


def test_hidden_files_are_not_cases(tmp_path: Path) -> None:
    """An editor's lock file (Emacs: `.#name`, a dangling link) is no case id's file."""
    write(tmp_path, GOOD)
    os.symlink("user@host.1234:1", tmp_path / "brave" / ".#brave-sample.toml")
    assert [c.id for c in load_cases(tmp_path)] == ["brave-sample"]


def test_an_unreadable_cases_folder_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, GOOD)
    real = os.scandir

    def refusing(path: Any = ".") -> Any:
        if os.fspath(path) == str(tmp_path):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refusing)
    with pytest.raises(CaseLoadError) as e:
        load_cases(tmp_path)
    assert [str(x) for x in e.value.errors] == [
        f"{tmp_path}: cannot read the folder: Permission denied"
    ]


def test_locating_many_errors_in_one_file_reads_it_once() -> None:
    """Issue 25, class 9: each error's line was a rescan of the whole file (1,000 unknown
    card ids took 23 s, 4,000 took 206 s); the file is indexed once (benchmarks/
    broken_input.py prints the figures)."""
    from palconf.cases.checks import _index, locate

    cards = "\n".join(f"u{i} = {{ power = 1 }}" for i in range(3000))
    text = "[[expect]]\nafter = 1\n[expect.observed.cards]\n" + cards + "\n"
    _index.cache_clear()
    lines = [locate(text, ["expect", 0, "observed", "cards", f"u{i}"]) for i in range(3000)]
    assert lines == list(range(4, 3004))
    assert _index.cache_info().misses == 1
    assert locate(text, ["expect", 0, "after"]) == 2


def test_the_memo_answers_by_bytes_gives_copies_and_keeps_registries_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_memo: None
) -> None:
    """Loading the same file again in one process comes from the memo (palconf.cases.memo):
    an edit is seen even with the file's times unchanged, each load gets its own objects,
    and another registry has its own table."""
    parsed: list[str] = []
    real = loader._load
    monkeypatch.setattr(
        loader, "_load", lambda raw, rel, *a: parsed.append(rel) or real(raw, rel, *a)
    )
    path = write(tmp_path, GOOD)
    first, _ = load_case(path, tmp_path)
    second, _ = load_case(path, tmp_path)
    assert parsed == ["brave/brave-sample.toml"]  # parsed and checked once
    assert first is not None and second is not None
    assert first == second and first is not second and first.setup is not second.setup
    first.setup["players"]["A"]["life"] = 1  # a caller changing its copy
    third, _ = load_case(path, tmp_path)
    assert third is not None and third.setup["players"]["A"]["life"] == 5
    times = os.stat(path)
    path.write_text(GOOD.replace("power = 3000,", 'power = "3000",'), encoding="utf-8")
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))  # the same times
    case, errors = load_case(path, tmp_path)
    assert case is None and any("power" in str(e) for e in errors), errors
    other = dataclasses.replace(load_registry(), clauses={})  # a registry without brave.1
    case, errors = load_case(write(tmp_path, GOOD), tmp_path, other)
    assert case is None and any("brave.1" in str(e) for e in errors), errors
    assert len(parsed) == 3
