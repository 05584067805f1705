"""A null engine: answers every request at once with a fixed, well-formed reply and does no
game logic. Its verdicts are meaningless; it measures what the harness itself costs per
request (`ProcessEngine` overhead against a process that does nothing)."""

from __future__ import annotations

import json
import sys

HELLO = {
    "ok": True,
    "engine": {"name": "null-engine", "version": "0"},
    "keywords": [
        "quick",
        "on-deploy",
        "on-attack",
        "on-assign",
        "brave",
        "serious",
        "interrupt",
        "vigilance",
        "taunt",
        "stealth",
        "retaliate",
        "nocturnal",
        "breakthrough",
        "assault",
    ],
    "commands": ["setup", "act", "observe"],
}
EMPTY = {"life": 5, "energy": 0, "hand": [], "battle": [], "structures": {}, "graveyard": []}
OBSERVED = {
    "ok": True,
    "state": {
        "active": "A",
        "turn": 1,
        "night": False,
        "winner": None,
        "step": "main",
        "priority": None,
        "attack": None,
        "players": {"A": EMPTY, "B": EMPTY},
        "cards": {},
    },
}


def main() -> int:
    out = sys.stdout.buffer
    hello = json.dumps(HELLO).encode() + b"\n"
    observed = json.dumps(OBSERVED).encode() + b"\n"
    ok = b'{"ok":true}\n'
    for line in sys.stdin.buffer:
        cmd = json.loads(line).get("cmd")
        out.write(hello if cmd == "hello" else observed if cmd == "observe" else ok)
        out.flush()
        if cmd == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
