"""`palconf lint --json` on case files that do not load (issue 36): one JSON document of the
load errors (file, line, column, field, message) and exit 2, for every kind of broken file
in tests/data/broken-cases/ (made as tests/test_broken_cases.py makes them), alone and all
at once; before, it printed no JSON at all."""

from __future__ import annotations

import json
from typing import Any

import pytest

from palconf.cli import main
from palconf.core.text import terminal_safe
from tests.test_broken_cases import KINDS, STATUS, Making, fifo_watchdog, make, neighbour


def lint_json(m: Making, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    with fifo_watchdog(m.fifos) as hung:
        code = main(["lint", "--cases", str(m.root), "--json"])
    assert not hung
    out = capsys.readouterr().out
    assert out.isascii(), out  # no raw control, bidi or undecodable character
    return code, json.loads(out)


def text(row: dict[str, Any]) -> str:
    where = row["file"] + "".join(f":{row[k]}" for k in ("line", "column") if row[k] is not None)
    # as the text listing shows it: a lone surrogate (an undecodable file name) escaped
    return terminal_safe(f"{where}: {row['field'] + ': ' if row['field'] else ''}{row['message']}")


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_kind_is_a_load_error_in_the_json(
    name: str, making: Making, capsys: pytest.CaptureFixture[str]
) -> None:
    kind = KINDS[name]
    make(making, name)
    code, doc = lint_json(making, capsys)
    assert code == STATUS
    assert set(doc) == {"rules_version", "load_errors"}
    rows = doc["load_errors"]
    assert all(set(r) == {"file", "line", "column", "field", "message"} for r in rows)
    where = f"{kind['file']}:{kind['line']}:" if "line" in kind else f"{kind['file']}: "
    assert any(text(r).startswith(where) and kind["message"] in text(r) for r in rows), rows
    assert not any(r["file"].startswith(neighbour(kind["file"].split("/")[0])) for r in rows)


def test_the_whole_corpus_is_one_json_document(
    making: Making, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in KINDS:
        make(making, name)
    code, doc = lint_json(making, capsys)
    assert code == STATUS
    rows = doc["load_errors"]
    assert rows == sorted(rows, key=lambda r: (r["file"], r["line"] or 0, r["message"]))
    assert {k["file"] for k in KINDS.values()} <= {terminal_safe(r["file"]) for r in rows}
