"""junit.xml validates against junit-10.xsd (issue 35), the schema pytest's own JUnit output
is tested against (tests/junit_schema.py says where it comes from).

Before: `time="1.361578"` on <testsuites> and <testsuite> (the schema allows three decimals)
and a `skipped` attribute on <testsuites> (not allowed there) made every report invalid.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from palconf.cli import main as cli
from palconf.core.results_file import meta_line, parse_lines, run_meta
from palconf.registry import load as load_registry
from palconf.reports import build, write_report

from .junit_schema import Unavailable, junit_xsd

etree = pytest.importorskip("lxml.etree", reason="lxml validates XML Schema (pip install lxml)")

OUTCOMES = ("pass", "fail", "error", "timeout", "skip", "xfail", "xpass")
HOSTILE = ["m", "", "]]>", "\"<&>'", "\x00\x07\x1b[2J", "line\nline", "é—\u202e", "x" * 5000]
DURATIONS = [0.0, 0.0004, 1.5, 999.9999, 1361.578, 86_400_000.0, -3.0]
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?")


@pytest.fixture(scope="module")
def schema() -> object:
    try:
        return etree.XMLSchema(etree.fromstring(junit_xsd()))
    except Unavailable as e:
        pytest.skip(f"junit-10.xsd is not at hand: {e} (PALCONF_JUNIT_XSD=path names a copy)")


def _lines(engine: str, rules: str) -> list[str]:
    lines = [meta_line(run_meta(engine, "1.0", ["taunt"], rules, 0)).strip()]
    n = 0
    for outcome in OUTCOMES:
        for text in HOSTILE:
            for ms in DURATIONS[: 3 if text != "m" else None]:
                n += 1
                result = {
                    "id": f"case-{n}",
                    "keywords": ["taunt"] if n % 3 else [],
                    "clauses": ["taunt.1"] if n % 3 else ["B-13"],
                    "outcome": outcome,
                    "message": text,
                    "duration_ms": ms,
                    "stderr": text,
                }
                lines.append(json.dumps(result))
    return lines


def _validate(schema: object, path: Path) -> list[str]:
    doc = etree.parse(str(path))
    ok = schema.validate(doc)  # type: ignore[attr-defined]
    return [] if ok else [f"{e.line}: {e.message}" for e in schema.error_log]  # type: ignore[attr-defined]


def _reports(tmp_path: Path) -> list[Path]:
    """junit.xml of: every outcome × hostile texts × durations, for two engines of different
    rules versions; one engine alone; an empty run; a real run of the oracle."""
    runs = [
        parse_lines(_lines("one \x1b]0;title\x07", "1.00"), "a.jsonl"),
        parse_lines(_lines("two", "1.01"), "b.jsonl"),
    ]
    out = []
    for i, chosen in enumerate((runs, runs[:1], [parse_lines([], "empty.jsonl")])):
        folder = tmp_path / f"r{i}"
        write_report(build(chosen, load_registry()), folder)
        out.append(folder / "junit.xml")
    status = cli(
        ["run", "--progress", "none", "--results", str(tmp_path / "o.jsonl"),
         "--report", str(tmp_path / "oracle"), "--keyword", "taunt"]
    )  # fmt: skip
    assert status == 0
    out.append(tmp_path / "oracle" / "junit.xml")
    return out


def test_every_junit_xml_validates_against_junit_10_xsd(schema: object, tmp_path: Path) -> None:
    for path in _reports(tmp_path):
        assert _validate(schema, path) == [], path


def test_the_schema_check_can_fail(schema: object, tmp_path: Path) -> None:
    """The premise: the validator rejects what the old renderer wrote."""
    path = _reports(tmp_path)[0]
    text = path.read_text(encoding="utf-8")
    for bad in (
        text.replace("<testsuites ", '<testsuites skipped="1" ', 1),
        re.sub(r'(<testsuite [^>]*time=")[0-9.]+', r"\g<1>1.361578", text, count=1),
        text.replace("<failure ", "<bogus ", 1).replace("</failure>", "</bogus>", 1),
    ):
        path.write_text(bad, encoding="utf-8")
        assert _validate(schema, path), bad[:300]


def test_times_and_attributes_follow_the_schema_without_it(tmp_path: Path) -> None:
    """The two rules the old renderer broke, checked with no schema at hand (offline)."""
    import xml.etree.ElementTree as ET

    for path in _reports(tmp_path):
        root = ET.parse(path).getroot()
        assert "skipped" not in root.attrib
        for el in root.iter():
            if "time" in el.attrib and el.tag in ("testsuites", "testsuite"):
                assert SUREFIRE_TIME.fullmatch(el.attrib["time"]), (el.tag, el.attrib["time"])
