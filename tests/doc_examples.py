"""Run a worked example written in Markdown, so that it cannot rot.

A document is read block by block, in order, in a fresh copy of the project's `rules/` and
`cases/` (its folder is the current folder; PALCONF_RULES and PALCONF_CASES name the copies,
PYTHONPATH has the folder, so an oracle module written there imports):

- a fenced block whose info string has `file=PATH` is written to PATH (created, replaced);
  `append=PATH` adds its text to the end of PATH; `PATH after="LINE"` (written
  `insert=PATH after="LINE"`) puts its text right after the first line equal to LINE;
- a `console` block is a terminal: each line starting `$ ` is a command, run by bash with
  `palconf` meaning this palconf; the lines after it, up to the next command, are what it
  must print — each in order, not necessarily next to each other (the rest of the output is
  left out of the page), `…` standing for any text inside a line. A line `[exit N]` says
  the command's exit status is N (without one, 0).

`run_document(path, tmp)` runs it all and raises `ExampleFailed` at the first command whose
exit status or output differs, with the command, what was expected and what came.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)
EXIT = re.compile(r"^\[exit (\d+)\]$")


class ExampleFailed(AssertionError):
    pass


@dataclass
class Command:
    line: str
    expected: list[str]
    status: int


def commands(body: str) -> list[Command]:
    out: list[Command] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append(Command(line[2:], [], 0))
        elif out and (m := EXIT.match(line.strip())):
            out[-1].status = int(m.group(1))
        elif out and line.strip():
            out[-1].expected.append(line.rstrip())
    return out


def _matches(expected: str, actual: str) -> bool:
    parts = [re.escape(p) for p in expected.strip().split("…")]
    return re.fullmatch(r"\s*" + ".*".join(parts) + r"\s*", actual) is not None


def check_output(cmd: Command, output: str) -> None:
    lines = output.splitlines()
    i = 0
    for want in cmd.expected:
        while i < len(lines) and not _matches(want, lines[i]):
            i += 1
        if i == len(lines):
            raise ExampleFailed(
                f"$ {cmd.line}\nexpected, in order, a line: {want!r}\nthe output was:\n{output}"
            )
        i += 1


def _info(info: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for token in shlex.split(info):
        key, eq, value = token.partition("=")
        if eq:
            fields[key] = value
        else:
            fields.setdefault("lang", token)
    return fields


def prepare(tmp: Path) -> dict[str, str]:
    """The copy of rules/ and cases/ in `tmp`, and the environment the commands run in."""
    for name in ("rules", "cases"):
        shutil.copytree(ROOT / name, tmp / name)
    bin_dir = tmp / ".bin"
    bin_dir.mkdir()
    shim = bin_dir / "palconf"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m palconf.cli "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env.update(
        PALCONF_RULES=str(tmp / "rules"),
        PALCONF_CASES=str(tmp / "cases"),
        PYTHONPATH=os.pathsep.join([str(tmp), str(ROOT)]),
        PATH=os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), env["PATH"]]),
        NO_COLOR="1",
        COLUMNS="100",
    )
    env.pop("PALCONF_ENGINE", None)
    return env


def run_document(doc: Path, tmp: Path) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """Run every block of `doc` in `tmp`; returns (command, output) of each command, and the
    environment they ran in."""
    env = prepare(tmp)
    ran: list[tuple[str, str]] = []
    for m in FENCE.finditer(doc.read_text(encoding="utf-8")):
        info, body = _info(m.group("info")), m.group("body")
        if "file" in info:
            path = tmp / info["file"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
        elif "append" in info:
            path = tmp / info["append"]
            path.write_text(path.read_text(encoding="utf-8") + body, encoding="utf-8")
        elif "insert" in info:
            path = tmp / info["insert"]
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            at = next(
                (i for i, line in enumerate(lines) if line.rstrip("\n") == info["after"]), None
            )
            if at is None:
                raise ExampleFailed(f"{info['insert']} has no line {info['after']!r}")
            lines[at + 1 : at + 1] = [body]
            path.write_text("".join(lines), encoding="utf-8")
        elif info.get("lang") == "console":
            for cmd in commands(body):
                proc = subprocess.run(
                    ["bash", "-c", cmd.line],
                    cwd=tmp,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                output = proc.stdout + proc.stderr
                ran.append((cmd.line, output))
                if proc.returncode != cmd.status:
                    raise ExampleFailed(
                        f"$ {cmd.line}\nexited {proc.returncode}, the page says "
                        f"{cmd.status}\n{output}"
                    )
                check_output(cmd, output)
    return ran, env
