"""What `palconf smoke` sends and expects: the STATE it loads, the OBSERVED it must get back,
the two actions it tries, the record of one check and how the checks are shown (the text
report, the tail of an engine's stderr); palconf/commands/smoke.py runs them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from palconf.core import EngineInfo, terminal_safe
from palconf.registry import load as load_registry

#: The STATE `smoke` loads: two plain Pals, no keyword, nothing an engine may lack.
STATE: dict[str, Any] = {
    "active": "A",
    "turn": 1,
    "night": False,
    "players": {
        "A": {
            "life": 5,
            "energy": 1,
            "hand": [],
            "structures": [],
            "graveyard": [],
            "battle": [
                {
                    "id": "a1",
                    "kind": "pal",
                    "name": "Smoke Pal",
                    "power": 3000,
                    "strike": 1,
                    "cost": 0,
                    "state": "stand",
                }
            ],
        },
        "B": {
            "life": 5,
            "energy": 0,
            "hand": [],
            "structures": [],
            "graveyard": [],
            "battle": [
                {
                    "id": "b1",
                    "kind": "pal",
                    "name": "Rested Pal",
                    "power": 2000,
                    "strike": 1,
                    "cost": 0,
                    "state": "rest",
                }
            ],
        },
    },
}
#: What `observe` must show right after `setup` of STATE.
OBSERVED: dict[str, Any] = {
    "active": "A",
    "turn": 1,
    "night": False,
    "winner": None,
    "step": "main",
    "priority": None,
    "attack": None,
    "players": {
        "A": {
            "life": 5,
            "energy": 1,
            "hand": [],
            "battle": ["a1"],
            "structures": {},
            "graveyard": [],
        },
        "B": {
            "life": 5,
            "energy": 0,
            "hand": [],
            "battle": ["b1"],
            "structures": {},
            "graveyard": [],
        },
    },
    "cards": {
        "a1": {"zone": "battle", "owner": "A", "state": "stand", "power": 3000, "strike": 1},
        "b1": {"zone": "battle", "owner": "B", "state": "rest", "power": 2000, "strike": 1},
    },
}
REFUSED = {"do": "end-turn", "player": "B"}  # A is active: wrong-player
ACCEPTED = {"do": "end-turn", "player": "A"}
ONE_LINE = "Write exactly one JSON object per line on stdout, and flush after each reply."


@dataclass
class Check:
    name: str
    status: str  # ok | warn | FAIL
    detail: str = ""
    fix: str = ""
    #: the cases of the suite that test what this check looks at (`covering`)
    cases: list[str] = field(default_factory=list)


def _demands(case: Any, code: str) -> bool:
    return any(code in e.reasons for e in case.expect)


#: For each check, which cases of the suite test the same thing in full (what `palconf run`
#: fails an engine on): smoke looks once, the suite looks everywhere.
COVERS: dict[str, Callable[[Any], bool]] = {
    "before setup": lambda c: c.setup is None and _demands(c, "no-game"),
    "setup": lambda c: "P-state" in c.rules,
    "observe": lambda c: "P-observed" in c.rules,
    "refused action": lambda c: "P-reasons" in c.rules,
    "accepted action": lambda c: "B-6" in c.rules,
    "unknown command": lambda c: _demands(c, "unknown-command"),
    "bad json": lambda c: _demands(c, "bad-json"),
    "bad request": lambda c: _demands(c, "bad-request"),
    "legal": lambda c: "P-legal" in c.rules,
    "bye": lambda c: bool(c.steps) and c.steps[-1].is_bye,
}


def covering(checks: list[Check], cases: list[Any]) -> None:
    """Give each check the ids of the suite's cases that test what it looks at (`COVERS`)."""
    for check in checks:
        test = COVERS.get(check.name)
        if test is not None:
            check.cases = [c.id for c in cases if test(c)]


#: How much of an engine's text a check shows.
LIMIT = 300
#: How much of an engine's stderr a failed check shows: its last lines, at most this many
#: lines and characters (a stack trace's error line is often a dozen lines from the end).
STDERR_LINES = 20
STDERR_CHARS = 4000


def stderr_tail(stderr: str) -> str:
    """The last lines of an engine's stderr as `stderr | ...` lines (terminal-safe, each cut
    at LIMIT), at most STDERR_LINES of them and STDERR_CHARS in all, with a line saying how
    many earlier lines were left out."""
    lines = stderr.strip().splitlines()
    kept: list[str] = []
    size = 0
    for line in reversed(lines[-STDERR_LINES:]):
        shown_line = f"stderr | {terminal_safe(line, LIMIT)}"
        if kept and size + len(shown_line) > STDERR_CHARS:
            break
        kept.append(shown_line)
        size += len(shown_line) + 1
    dropped = len(lines) - len(kept)
    if dropped:
        kept.append(f"stderr | [… {dropped} earlier line(s) not shown …]")
    return "".join(f"\n{line}" for line in reversed(kept))


def render_text(engine_cmd: str, checks: list[Check]) -> list[str]:
    """The text report: one line per check (its detail's further lines and its fix below it),
    then the verdict and what to do next."""
    lines = [f"palconf smoke: {terminal_safe(engine_cmd, LIMIT)}"]
    width = max(len(c.name) for c in checks)
    pad = " " * (width + 10)
    for c in checks:
        first, *rest = c.detail.splitlines() or [""]
        lines.append(f"  {c.status:<5} {c.name:<{width}}  {first}")
        lines += [pad + line for line in rest]
        if c.fix and c.status != "ok":
            lines.append(f"{pad}fix: {c.fix}")
        if c.cases:
            first = c.cases[0] if len(c.cases) == 1 else f"{c.cases[0]}, …"
            lines.append(f"{pad}suite: {len(c.cases)} case(s) test this in full ({first})")
    failed = sum(c.status == "FAIL" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    if failed:
        lines.append(
            f"\n{failed} problem(s), {warned} warning(s): fix the problems before "
            f"`palconf run` (docs/protocol.md, docs/INTERPRETING.md)."
        )
    else:
        lines.append(
            f"\nno problems ({warned} warning(s)). Next: palconf run --engine-cmd "
            f"{json.dumps(engine_cmd)}"
        )
    return lines


def shown(value: Any) -> str:
    """A reply (untrusted JSON) on one line, for a check's detail."""
    return terminal_safe(json.dumps(value, sort_keys=True), 200)


def hello_checks(info: EngineInfo) -> list[Check]:
    """What the engine's `hello` says: its name and keywords, and warnings about them."""
    names = ", ".join(sorted(info.keywords)) or "none"
    checks = [
        Check("hello", "ok", terminal_safe(f"{info.name} {info.version}; keywords: {names}", LIMIT))
    ]
    known = list(load_registry().keywords)  # of every rules version the registry carries
    unknown = sorted(set(info.keywords) - set(known))
    if unknown:
        checks.append(
            Check(
                "hello keywords",
                "warn",
                terminal_safe(
                    f"not keyword ids of the protocol (ignored): {', '.join(unknown)}", LIMIT
                ),
                f"Use the ids of docs/protocol.md: {', '.join(known)}.",
            )
        )
    if not info.keywords:
        checks.append(
            Check(
                "hello keywords",
                "warn",
                "`keywords` is empty: every case that tests a keyword will be skipped",
                "List the keyword ids the engine implements.",
            )
        )
    missing = [c for c in ("setup", "act", "observe") if c not in info.commands]
    if missing:
        checks.append(
            Check(
                "hello commands",
                "warn",
                f"`commands` does not list {', '.join(missing)}",
                'List the commands the engine answers: "commands": ["setup", "act", '
                '"observe"] (and "legal" if it has it).',
            )
        )
    return checks
