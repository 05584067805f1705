"""What the tests of the engine process, `palconf run`, expectations files and `palconf smoke`
share: real child processes (the oracle as `palconf serve`, the worked example engine, the
deliberately broken engine of tests/engines/broken.py), a small cases folder, helpers.

The fixtures are tests/harness_fixtures.py's (`pytest_plugins = ["tests.harness_fixtures"]`).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from palconf.cases.loader import Case
from palconf.cli import main

ROOT = Path(__file__).resolve().parent.parent
ENGINES = Path(__file__).resolve().parent / "engines"
BROKEN = ENGINES / "broken.py"
EXAMPLE = ROOT / "docs" / "engine-example.py"
PY = shlex.quote(sys.executable)
SERVE = f"{PY} -m palconf.cli serve"
SERVE_ARGV = [sys.executable, "-m", "palconf.cli", "serve"]

sys.path.insert(0, str(ENGINES))
from broken import fingerprint  # noqa: E402

__all__ = [
    "BROKEN",
    "ENGINES",
    "EXAMPLE",
    "PY",
    "ROOT",
    "SERVE",
    "SERVE_ARGV",
    "broken",
    "fingerprint",
    "folder_of",
    "gone",
    "read_results",
    "run_cli",
    "script",
]


def folder_of(cases: list[Case], tmp: Path) -> Path:
    for c in cases:
        (tmp / c.path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "cases" / c.path, tmp / c.path)
    return tmp


def broken(mode: str, *, on: Case | None = None, at: str = "act", **opts: Path) -> str:
    cmd = f"{PY} {shlex.quote(str(BROKEN))} {mode} --at {at}"
    if on is not None:
        cmd += f" --on {fingerprint(on.setup)}"
    for name, value in opts.items():
        cmd += f" --{name} {shlex.quote(str(value))}"
    return cmd


def run_cli(folder: Path, engine_cmd: str | None, results: Path, *extra: str) -> int:
    argv = ["run", "--cases", str(folder), "--results", str(results), *extra]
    if engine_cmd is not None:
        argv += ["--engine-cmd", engine_cmd]
    return main(argv)


def read_results(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if set(r) != {"meta"}]


def gone(pid: int) -> bool:
    """The process has ended (a zombie left for a non-reaping init counts as ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def _ours(pid: int) -> bool:
    """Alive, and a fake engine or one of its children (not a stranger that got the pid)."""
    if gone(pid):
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"fake.py" in cmdline or b"sleep(3600)" in cmdline


def left_behind(pidfile: Path, wait: float = 2.0) -> list[str]:
    """The processes of the pidfile still running `wait` seconds on (killed now, so that a
    failing test leaves nothing either), as their pidfile lines."""
    if not pidfile.exists():
        return []
    lines = pidfile.read_text().splitlines()
    deadline = time.monotonic() + wait
    while True:
        alive = [line for line in lines if _ours(int(line.split()[0]))]
        if not alive or time.monotonic() >= deadline:
            break
        time.sleep(0.02)
    for line in alive:
        try:
            os.kill(int(line.split()[0]), signal.SIGKILL)
        except OSError:
            pass
    return alive


def script(tmp_path: Path, body: str, name: str = "engine.py", bye: bool = True) -> list[str]:
    """A tiny engine: answers hello (and bye, unless told not to), then runs `body` for each
    other request (`req`; `send(obj)` or `out.write(bytes)` to answer)."""
    path = tmp_path / name
    path.write_text(
        textwrap.dedent("""\
        import json, os, sys, time, signal, subprocess
        out = sys.stdout.buffer
        def send(obj):
            out.write(json.dumps(obj).encode() + b"\\n"); out.flush()
        for line in sys.stdin.buffer:
            req = json.loads(line)
            if req["cmd"] == "hello":
                send({"ok": True, "engine": {"name": "t", "version": "0"}, "keywords": [],
                      "commands": ["setup", "act", "observe"]})
                continue
            if req["cmd"] == "bye" and BYE:
                send({"ok": True})
                break
        """).replace("BYE", str(bye))
        + textwrap.indent(textwrap.dedent(body), "    ")
    )
    return [sys.executable, str(path)]
