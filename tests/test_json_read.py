"""The one reader of JSON palconf did not write (palconf.core.json_read, issue 25 class 6)
and every reader that goes through it: engine replies (the adapter: tests/test_fake_engines
rows deep, deep-at-hello, duplicate-ok …), results files, transcripts, mutants files and
`palconf serve`'s requests. Each input is refused with a clear error, never a
RecursionError; what palconf sends or writes is strict JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from palconf.cli import main
from palconf.core import json_read
from palconf.core.results_file import ResultsError, meta_line, read_results

DEEP = {
    "array-1000": "[" * 1000 + "]" * 1000,
    "object-1000": '{"a":' * 1000 + "1" + "}" * 1000,
    "mixed-101": '{"a":[' * 51 + "1" + "]}" * 51,
    "array-100000": "[" * 100_000 + "]" * 100_000,
    "unclosed-5000": "[" * 5000,
}
REFUSED = {
    **DEEP,
    "nan": '{"note": NaN}',
    "infinity": "[Infinity]",
    "minus-infinity": "[-Infinity]",
    "duplicate-key": '{"ok": false, "error": "x", "ok": true}',
    "duplicate-nested": '{"a": {"b": 1, "b": 1}}',
    "extra-data": '{"ok": true} {"ok": true}',
    "huge-integer": "1" + "0" * 5000,
    "empty": "",
    "not-utf8": b'{"a": "\xff"}',
}
ACCEPTED = {
    "depth-100": ("[" * 100 + "]" * 100, None),
    "brackets-in-strings": (json.dumps({"s": "[{" * 5000}), {"s": "[{" * 5000}),
    "escaped-quote-then-brackets": (json.dumps({"s": '\\"[[[' * 200}), {"s": '\\"[[[' * 200}),
    "leading-blanks": ('  {"ok": true}  ', {"ok": True}),
    "same-key-in-two-objects": ('[{"a": 1}, {"a": 2}]', [{"a": 1}, {"a": 2}]),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name: str) -> None:
    with pytest.raises(ValueError) as e:
        json_read.loads(REFUSED[name])
    if name in DEEP:
        assert "nested deeper than 100 levels" in str(e.value)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name: str) -> None:
    text, value = ACCEPTED[name]
    got = json_read.loads(text)
    assert value is None or got == value


def test_what_palconf_sends_is_strict_json() -> None:
    from palconf.engines.json_lines import ENCODER

    for value in (float("nan"), float("inf"), {"a": [float("-inf")]}):
        with pytest.raises(ValueError):
            ENCODER.encode(value)
        with pytest.raises(ValueError):
            json_read.dumps_strict(value)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_results_file_line_no_reader_takes_is_a_message(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    line = REFUSED[name]
    data = line if isinstance(line, bytes) else line.encode()
    path.write_bytes(meta_line({"engine": {"name": "e", "version": "1"}}).encode() + data + b"\n")
    if name == "empty":
        assert read_results(path).results == []  # a blank line is skipped
        return
    with pytest.raises(ResultsError, match=r"r\.jsonl"):
        read_results(path)
    assert main(["report", str(path), "--out", str(tmp_path / "out")]) == 2
    assert main(["report", "--compare", str(path), str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "r.jsonl" in err


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_deep_transcript_is_a_message(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps({"transcript": {"format": "palconf-transcript"}}) + "\n" + DEEP[name] + "\n"
    )
    with pytest.raises(SystemExit) as e:  # (or a status: replay says why either way)
        raise SystemExit(main(["replay", str(path)]))
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "nested deeper than 100 levels" in err and "Traceback" not in err


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_deep_mutants_file_is_a_message(name: str, tmp_path: Path) -> None:
    from palconf.reports.mutants import read_mutants

    path = tmp_path / "m.json"
    path.write_text(DEEP[name])
    with pytest.raises(ResultsError, match="nested deeper than 100 levels"):
        read_mutants(path)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_serve_answers_a_request_it_cannot_read_and_goes_on(name: str) -> None:
    from palconf.commands.serve import serve
    from palconf.oracle import Session

    line = REFUSED[name]
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    if not text.strip():
        return
    out = io.StringIO()
    serve(Session(), io.StringIO(text + '\n{"cmd": "bye"}\n'), out)
    replies = [json.loads(r) for r in out.getvalue().splitlines()]
    assert replies[0]["ok"] is False and replies[-1]["ok"] is True
