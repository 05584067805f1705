"""One way text reaches a terminal (issue 36): every string that came from an engine, a case
file, a results file, a transcript, an expectations file or the rules text passes
`terminal_safe` on its way to stdout or stderr, in every command.

The same hostile strings (`HOSTILE`) go through every command that prints such text; no raw
control, C1, bidi or separator character, no lone surrogate, and no line that looks like
palconf's own verdict may come out. JSON output escapes them as `\\u202e`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from palconf import __version__
from palconf.cli import main
from palconf.core.results_file import meta_line, run_meta
from palconf.registry import load as load_registry

from .test_loader import GOOD, write

REGISTRY = load_registry()

#: each tagged (`H01` …) so a test can see that it reached the output
HOSTILE = [
    "H01 title \x1b]0;pwned\x07",
    "H02 clear \x1b[2J\x1b[H",
    "H03 csi \x1b[31mred\x1b[0m",
    "H04 link \x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\",
    "H05 bel \x07 nul \x00 del \x7f",
    "H06 cr alone\roverwritten",
    "H07 back\x08\x08space",
    "H08 rtl \u202eevil",
    "H09 bidi \u202a\u202b\u202c\u202d \u2066\u2067\u2068\u2069 \u200e\u200f",
    "H10 c1 \x9b31m \x9d0;t\x9c \x85 \x80",
    "H11 vt \x0b ff \x0c esc-alone \x1b",
    "H12 separators \u2028 \u2029",
    "H13 forged\npalconf: ok: 0 case(s): forged",
    "H14 forged after cr\r\npalconf: ok: 0 case(s): forged",
]
#: where JSON can carry it (a results file, a transcript, an engine's reply)
SURROGATE = "H15 lone \ud800 surrogate \udfff"
HOSTILE_JSON = [*HOSTILE, SURROGATE]

RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
FORGED = re.compile(r"^palconf: ok: 0 case\(s\): forged", re.M)


def assert_safe(out: str, err: str, tags: int = 0) -> None:
    """Nothing raw on either stream; with `tags`, the first `tags` strings reached them."""
    for name, text in (("stdout", out), ("stderr", err)):
        raw = RAW.search(text)
        assert raw is None, (
            f"{name} holds {raw.group()!r}: …{text[max(0, raw.start() - 80) : raw.end() + 40]!r}"
        )
        assert not FORGED.search(text), f"{name} holds a forged palconf line:\n{text}"
    for n in range(1, tags + 1):
        assert f"H{n:02d}" in out + err, f"H{n:02d} never reached the output"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def toml_str(s: str) -> str:
    """`s` as a TOML basic string (every non-ASCII or control character as `\\uXXXX`)."""
    return json.dumps(s, ensure_ascii=True)


@pytest.fixture(autouse=True)
def _no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


ENGINE = """\
import json, sys
from palconf.oracle import Session
H = json.loads(sys.argv[1])
session = Session(name="x")
for line in sys.stdin.buffer:
    req = json.loads(line)
    reply = session.handle(req)
    if isinstance(reply, dict) and isinstance(req, dict):
        cmd = req.get("cmd")
        if cmd == "hello":
            reply["engine"]["name"] = " ".join(H[:4])
            reply["engine"]["version"] = " ".join(H[4:8])
        if cmd == "observe" and isinstance(reply.get("state"), dict):
            for h in H:  # fields an engine may add, with hostile names and values
                reply["state"]["x " + h] = h
        if reply.get("ok") is False or cmd == "act":
            reply["message"] = " | ".join(H)
        if cmd == "act":
            reply = {"ok": False, "error": "illegal", "message": " | ".join(H)}
    sys.stderr.write(" | ".join(H) + "\\n")
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
    if isinstance(req, dict) and req.get("cmd") == "bye":
        break
"""


@pytest.fixture
def engine(tmp_path: Path) -> str:
    """An engine (the oracle) that names itself, refuses every action and adds OBSERVED
    fields with the hostile strings; its stderr holds them too."""
    path = tmp_path / "hostile_engine.py"
    path.write_text(ENGINE)
    import shlex

    return shlex.join([sys.executable, str(path), json.dumps(HOSTILE_JSON)])


@pytest.fixture
def cases(tmp_path: Path) -> Path:
    """brave-sample, and brave-sample-N for each hostile string as its title."""
    folder = tmp_path / "cases"
    write(folder, GOOD)
    for n, h in enumerate(HOSTILE, start=1):
        text = GOOD.replace('"brave-sample"', f'"brave-sample-{n}"')
        text = text.replace('"Brave 200 attacker has 3200 power after declaring"', toml_str(h))
        write(folder, text, name=f"brave-sample-{n}.toml")
    return folder


# ---------------------------------------------------------------- results files


def results_text(
    engine_name: str = "", engine_version: str = "", ids: list[str] | None = None
) -> str:
    """A results file whose results carry the hostile strings in every text field."""
    meta = run_meta(
        engine_name or " ".join(HOSTILE_JSON[:3]),
        engine_version or " ".join(HOSTILE_JSON[3:6]),
        [],
        REGISTRY.current,
        3,
    )
    meta["label"] = " ".join(HOSTILE_JSON[6:9])
    lines = [meta_line(meta)]
    for n, rid in enumerate(ids or [f"case {h}" for h in HOSTILE_JSON]):
        h = HOSTILE_JSON[n % len(HOSTILE_JSON)]
        lines.append(
            json.dumps(
                {
                    "id": rid,
                    "outcome": "fail",
                    "keywords": [f"kw {x}" for x in HOSTILE_JSON],
                    "clauses": [f"clause {x}" for x in HOSTILE_JSON],
                    "rules": [f"rule {h}"],
                    "path": f"path {h}.toml",
                    "message": " | ".join(HOSTILE_JSON),
                    "title": f"title {h}",
                    "diffs": [
                        {"path": f"cards.{x}", "expected": x, "observed": x} for x in HOSTILE_JSON
                    ],
                    "stderr": "\n".join(HOSTILE_JSON),
                    "note": h,
                },
                ensure_ascii=True,
            )
        )
    return "\n".join(lines) + "\n"


def test_summary_escapes_a_results_files_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(results_text())
    code, out, err = run(capsys, "summary", str(path), "--color", "never")
    assert code == 1
    assert_safe(out, err, tags=15)
    assert "where:" in out and "failing:" in out


def test_run_resume_escapes_the_results_it_resumes(
    tmp_path: Path, cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from palconf.oracle import Session

    info = Session().handle({"cmd": "hello", "protocol": 1})["engine"]
    path = tmp_path / "r.jsonl"
    path.write_text(results_text(info["name"], info["version"], ids=["brave-sample"]))
    code, out, err = run(
        capsys, "run", "--cases", str(cases), "--results", str(path), "--resume",
        "--color", "never", "--progress", "lines",
    )  # fmt: skip
    assert code == 1, err
    assert "FAIL brave-sample" in out
    assert_safe(out, err, tags=15)


def test_report_escapes_a_results_files_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(results_text())
    other = tmp_path / "other.jsonl"
    other.write_text(results_text(ids=["brave-sample"]))
    code, out, err = run(capsys, "report", str(path), "--out", str(tmp_path / "site"))
    assert code == 0, err
    assert_safe(out, err, tags=3)
    for fmt in ("text", "json", "markdown"):
        code, out, err = run(capsys, "report", "--compare", str(path), str(other), "--format", fmt)
        assert_safe(out, err)
        if fmt == "json":
            json.loads(out)


# ---------------------------------------------------------------- transcripts (replay)


def transcript_text() -> str:
    meta = {
        "format": "palconf-transcript",
        "format_version": 1,
        "palconf": __version__,
        "engine": {"name": " ".join(HOSTILE_JSON[:5]), "version": " ".join(HOSTILE_JSON[5:])},
        "case": " ".join(HOSTILE_JSON),
    }
    hostile_reply = {"ok": True, "engine": {"name": "x", "version": "1"}}
    hostile_reply.update({f"field {h}": h for h in HOSTILE_JSON})
    lines = [
        {"transcript": meta},
        {"request": {"cmd": "hello", "protocol": 1}, "reply": hostile_reply},
        {"request": {"cmd": "observe"}, "fault": " | ".join(HOSTILE_JSON)},
        {
            "request": {"cmd": "legal", **{f"k {h}": h for h in HOSTILE_JSON}},
            "reply": hostile_reply,
        },
    ]
    return "".join(json.dumps(x, ensure_ascii=True) + "\n" for x in lines)


def test_replay_escapes_a_transcripts_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(transcript_text())
    code, out, err = run(capsys, "replay", str(path), "--color", "never", "--verbose")
    assert code == 1, err
    assert_safe(out, err, tags=15)


def test_replay_escapes_what_a_broken_transcript_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    bad = {"request": {"cmd": "observe"}, **{f"k {h}": 1 for h in HOSTILE_JSON}}
    path.write_text(json.dumps(bad, ensure_ascii=True) + "\n")
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    assert_safe(out, err, tags=15)


# ---------------------------------------------------------------- engines


def test_explain_escapes_an_engines_observed_field_names(
    engine: str, cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        "explain",
        "brave-sample",
        "--cases",
        str(cases),
        "--engine-cmd",
        engine,
        "--color",
        "never",
    )
    assert code == 1, err
    assert "whole OBSERVED against the oracle's" in out
    assert_safe(out, err, tags=15)


def test_run_escapes_an_engines_text(
    engine: str, cases: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "run", "--cases", str(cases), "--engine-cmd", engine, "--color", "never",
        "--progress", "lines", "--verbose", "--results", str(tmp_path / "r.jsonl"),
    )  # fmt: skip
    assert code == 1, err
    assert_safe(out, err, tags=4)


def test_smoke_escapes_an_engines_text(engine: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "smoke", "--engine-cmd", engine)
    assert code == 1, err
    assert_safe(out, err, tags=4)
    code, out, err = run(capsys, "smoke", "--engine-cmd", engine, "--format", "json")
    assert_safe(out, err)
    json.loads(out)


def test_fuzz_escapes_an_engines_text(
    engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "fuzz", "--engine-cmd", engine, "--examples", "3", "--seed", "1",
        "--transcript", str(tmp_path / "t.jsonl"),
    )  # fmt: skip
    assert code in (0, 1), err
    assert_safe(out, err)


# ---------------------------------------------------------------- case files


def test_list_and_lint_escape_a_case_files_text(
    cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "list", "--cases", str(cases))
    assert code == 0, err
    assert_safe(out, err, tags=14)
    for n, h in enumerate(HOSTILE, start=1):  # titles twice, cases that fail on the oracle
        text = GOOD.replace('"brave-sample"', f'"brave-again-{n}"').replace("3200", "3300")
        text = text.replace('"Brave 200 attacker has 3300 power after declaring"', toml_str(h))
        write(cases, text, name=f"brave-again-{n}.toml")
    code, out, err = run(capsys, "lint", "--cases", str(cases))
    assert code == 1, out + err
    assert_safe(out, err)
    code, out, err = run(capsys, "lint", "--cases", str(cases), "--json")
    assert_safe(out, err)
    json.loads(out)
    broken = GOOD.replace('"brave-sample"', '"brave-broken"').replace(
        'clauses = ["brave.1"]',
        "clauses = [" + ", ".join(toml_str("brave." + h) for h in HOSTILE) + "]",
    )
    write(cases, broken, name="brave-broken.toml")
    code, out, err = run(capsys, "lint", "--cases", str(cases))
    assert code == 2, out + err  # the file does not load: the errors name the values
    assert_safe(out, err, tags=14)
    code, out, err = run(capsys, "explain", "brave-*", "--cases", str(cases))
    assert code == 2
    assert_safe(out, err)


def test_an_expectations_files_text_is_escaped(
    cases: Path, tmp_path: Path, engine: str, capsys: pytest.CaptureFixture[str]
) -> None:
    exp = tmp_path / "expected.toml"
    exp.write_text(
        "\n".join(
            f'[cases.{toml_str("brave-" + "?" * n + "*")}]\noutcome = "fail"\n'
            f"note = {toml_str(h)}\nlink = {toml_str(h)}\n"
            for n, h in enumerate(HOSTILE)
        )
    )
    code, out, err = run(
        capsys, "run", "--cases", str(cases), "--engine-cmd", engine, "--expectations", str(exp),
        "--color", "never", "--progress", "none",
    )  # fmt: skip
    assert_safe(out, err)


# ---------------------------------------------------------------- the rules text


def rules_text() -> str:
    """The current rules text with hostile sentences under Brave."""
    text = REGISTRY.rules_text(REGISTRY.current)
    lines = text.splitlines()
    at = next(
        i
        for i, line in enumerate(lines)
        if line.startswith("Brave") and line.rstrip().endswith("#")
    )
    lines[at + 1 : at + 1] = [f"Hostile sentence {h}." for h in HOSTILE]
    return "\n".join(lines) + "\n"


def test_rules_diff_escapes_the_rules_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "section12.txt"
    path.write_text(rules_text(), encoding="utf-8")
    code, out, err = run(capsys, "rules", "diff", REGISTRY.current, str(path))
    assert code == 1, err
    assert_safe(out, err, tags=13)
    code, out, err = run(capsys, "rules", "diff", REGISTRY.current, str(path), "--json")
    assert code == 1, err
    assert_safe(out, err)
    doc = json.loads(out)
    added = [s for ss in doc["unassigned"].values() for s in ss]
    assert any("\u202e" in s for s in added)  # kept whole, written escaped
    assert "\\u202e" in out


def test_rules_diff_escapes_a_clauses_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "clauses.toml"
    body = "\n".join(f"{toml_str('brave.' + h)} = {toml_str(h)}" for h in HOSTILE)
    path.write_text(f"version = {toml_str(' '.join(HOSTILE))}\n[clauses]\n{body}\n")
    code, out, err = run(capsys, "rules", "diff", REGISTRY.current, str(path))
    assert code == 1, err
    assert_safe(out, err, tags=13)
    path.write_text(f"version = {toml_str(HOSTILE[0])}\n[clauses\n")
    code, out, err = run(capsys, "rules", "diff", REGISTRY.current, str(path))
    assert code == 2
    assert_safe(out, err)


def test_terminal_json_escapes_as_json_and_reads_back_the_same() -> None:
    from palconf.core import terminal_json

    value = {f"key {h}": [h, "ü → ok", "tag \U000e0001 char"] for h in HOSTILE_JSON}
    text = terminal_json(value, indent=2)
    assert RAW.search(text) is None and "\U000e0001" not in text
    assert "ü → ok" in text and "\\udb40\\udc01" in text
    assert json.loads(text) == value
