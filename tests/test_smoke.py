"""`palconf smoke` (palconf/commands/smoke.py) against the oracle, the worked example engine
and the broken engine; and the example engine running the base cases."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from palconf.cases.loader import Case
from palconf.cli import main
from palconf.engines.smoke_data import STDERR_CHARS, STDERR_LINES, stderr_tail

from .harness import EXAMPLE, PY, SERVE, broken, folder_of, read_results, script

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

# ---------------------------------------------------------------- smoke and the example engine


def smoke(cmd: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["smoke", "--engine-cmd", cmd, "--timeout", "2", *extra])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_smoke_passes_the_oracle_and_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in (SERVE, f"{PY} {shlex.quote(str(EXAMPLE))}"):
        code, out = smoke(cmd, capsys)
        assert code == 0, out
        assert "FAIL" not in out and "ok    bye" in out


@pytest.mark.parametrize(
    "mode,at,failing",
    [
        ("crash", "observe", "observe"),
        ("wrong-shape", "observe", "observe"),
        ("accept-all", "act", "refused action"),
        ("exit-at-hello", "act", "hello"),
        ("garbage", "act", "refused action"),
    ],
)
def test_smoke_names_what_is_wrong(
    capsys: pytest.CaptureFixture[str], mode: str, at: str, failing: str
) -> None:
    code, out = smoke(broken(mode, at=at), capsys)
    assert code == 1
    assert any(line.split()[:1] == ["FAIL"] and failing in line for line in out.splitlines())
    assert "fix:" in out and "Traceback" not in out


def test_smoke_json_and_bad_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = smoke(SERVE, capsys, "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and {c["status"] for c in report["checks"]} == {"ok"}
    code, out = smoke("/no/such/engine", capsys)
    assert code == 2 and "not found" in out


NODE_TRACE = (
    "/srv/engine/index.js:42\n    throw new TypeError(msg);\n    ^\n\n"
    "TypeError: Cannot read properties of undefined (reading 'battle')\n"
    + "".join(f"    at frame{i} (node:internal/modules/cjs/loader:{i}:1)\n" for i in range(11))
    + "\nNode.js v20.11.0\n"
)


def crashing(tmp_path: Path, stderr: str) -> str:
    """An engine that says hello, then writes `stderr` and exits at its next request."""
    body = f"sys.stderr.write({stderr!r}); sys.stderr.flush(); sys.exit(1)\n"
    return shlex.join(script(tmp_path, body))


def test_smoke_shows_a_whole_stack_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert len(NODE_TRACE.splitlines()) == 18  # the error is 14 lines from the end
    code, out = smoke(crashing(tmp_path, NODE_TRACE), capsys)
    assert code == 1
    shown = [line.split("stderr | ", 1)[1] for line in out.splitlines() if "stderr | " in line]
    before = shown[: shown.index("Node.js v20.11.0") + 1]
    assert before == NODE_TRACE.strip().splitlines()
    assert "not shown" not in out


def test_smoke_says_when_stderr_lines_are_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = "".join(f"log line {i}\n" for i in range(100))
    code, out = smoke(crashing(tmp_path, log), capsys)
    assert code == 1
    first = out.splitlines().index(next(line for line in out.splitlines() if "stderr | " in line))
    shown = [line.split("stderr | ", 1)[1] for line in out.splitlines()[first : first + 21]]
    assert shown == ["[… 80 earlier line(s) not shown …]"] + [
        f"log line {i}" for i in range(80, 100)
    ]


def test_stderr_tail_is_bounded_in_size() -> None:
    lines = [f"{i:03} " + "x" * 2000 for i in range(30)]
    tail = stderr_tail("\n".join(lines)).splitlines()[1:]
    assert sum(len(line) for line in tail) <= STDERR_CHARS + 100
    assert tail[0] == f"stderr | [… {30 - len(tail) + 1} earlier line(s) not shown …]"
    assert tail[-1].startswith("stderr | 029 xxx") and tail[-1].endswith("…")
    assert 5 < len(tail) < STDERR_LINES
    assert stderr_tail("one\n\x1b[2Jtwo\n") == "\nstderr | one\nstderr | \\x1b[2Jtwo"
    assert stderr_tail("") == ""


def test_the_example_engine_runs_the_base_cases(
    tmp_path: Path, all_cases: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = [c for c in all_cases if c.keywords == ("base",)]
    chosen += [c for c in all_cases if "taunt" in c.keywords][:5]
    results = tmp_path / "r.jsonl"
    main(
        [
            "run",
            "--engine-cmd",
            f"{PY} {shlex.quote(str(EXAMPLE))}",
            "--results",
            str(results),
            "--cases",
            str(folder_of(chosen, tmp_path / "cases")),
        ]
    )
    rows = read_results(results)
    assert not [r for r in rows if r["outcome"] in ("error", "timeout")]
    assert sum(r["outcome"] == "pass" for r in rows) >= 10
    taunt = [r for r in rows if "taunt" in r["keywords"]]
    assert taunt and all(
        r["outcome"] == "skip" and "does not implement: " in r["message"] for r in taunt
    )
    assert any(r["outcome"] == "skip" and "unsupported" in r["message"] for r in rows)
