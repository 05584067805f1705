"""The case loader: good files load; each kind of broken file gives a clear error naming
the file, the line and the field — never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from palconf.cases import CaseLoadError, load_case, load_cases, locate
from palconf.cli import main

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


@pytest.mark.parametrize(
    "old, new, expect_line, expect_text",
    [
        # 1 TOML syntax error: line and column from tomli
        ('player = "A"\nattacker', 'player = "A\nattacker', 17, "TOML syntax"),
        # 2 a required field missing
        (
            'title = "Brave 200 attacker has 3200 power after declaring"\n',
            "",
            1,
            "'title' is a required property",
        ),
        # 3 wrong type
        ("life = 5\nbattle", 'life = "five"\nbattle', 10, "setup.players.A.life"),
        # 4 unknown keyword on a card
        ('"Brave 200"', '"Flying"', 11, "unknown keyword 'Flying'"),
        # 5 unknown clause id
        ('clauses = ["brave.1"]', 'clauses = ["brave.9"]', 4, "unknown clause id 'brave.9'"),
        # 6 an informative clause cited as tested
        ('clauses = ["brave.1"]', 'clauses = ["quick.icon"]', 4, "informative"),
        # 7 dangling card id in an action
        ('attacker = "a1"', 'attacker = "a9"', 18, "card id 'a9' is not in the setup"),
        # 8 dangling card id in an expectation
        ("cards = { a1 =", "cards = { zz =", 23, "card id 'zz' is not in the setup"),
        # 9 the id differs from the file name
        ('id = "brave-sample"', 'id = "brave-other"', 2, "differs from the file name"),
        # 10 an expectation after an action that does not exist
        ("after = 1", "after = 4", 22, "the case has 1 action(s)"),
        # 11 unknown field
        ('rules = ["B-12"]', 'rules = ["B-12"]\ncolour = "red"', None, "unknown field"),
        # 12 unknown base rule
        ('rules = ["B-12"]', 'rules = ["B-99"]', 5, "unknown base or protocol rule 'B-99'"),
        # 13 a malformed action (missing target)
        ('target = "master"\n', "", 15, "actions[0]"),
        # 14 refused after setup
        (
            "after = 1\nobserved",
            "after = 0\nrefused = true\nobserved",
            23,
            "`refused` needs `after`",
        ),
        # 15 duplicate card id
        (
            "life = 5\n\n[[actions]]",
            'life = 5\nbattle = [{ id = "a1", kind = "pal", power = 1 }]\n\n[[actions]]',
            None,
            "duplicate card id 'a1'",
        ),
    ],
)
def test_broken_files_name_file_line_and_field(
    tmp_path: Path, old: str, new: str, expect_line: int | None, expect_text: str
) -> None:
    assert old in GOOD
    errors = errors_of(tmp_path, GOOD.replace(old, new, 1))
    joined = "\n".join(errors)
    assert expect_text in joined, joined
    assert all(e.startswith("brave/brave-sample.toml") for e in errors)
    if expect_line is not None:
        assert any(e.startswith(f"brave/brave-sample.toml:{expect_line}:") for e in errors), joined


def test_duplicate_case_ids_across_files(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    write(tmp_path, GOOD, folder="other")
    with pytest.raises(CaseLoadError) as e:
        load_cases(tmp_path)
    assert "duplicate case id 'brave-sample'" in str(e.value)


def test_not_utf8(tmp_path: Path) -> None:
    p = write(tmp_path, "")
    p.write_bytes(b'id = "\xff"')
    _, errors = load_case(p, tmp_path)
    assert "cannot read" in str(errors[0])


def test_locate_follows_array_headers() -> None:
    text = "[[actions]]\ndo = 'x'\n[[actions]]\ndo = 'y'\nplayer = 'A'\n"
    assert locate(text, ["actions", 1, "player"]) == 5
    assert locate(text, ["actions", 0, "do"]) == 2


def test_cli_reports_broken_files_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, GOOD.replace('"Brave 200"', '"Flying"'))
    assert main(["run", "--cases", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "brave/brave-sample.toml:11" in err and "Traceback" not in err
