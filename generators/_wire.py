"""Directed generation, private: use `generators`. Lines at the edges of the protocol's
error layer (`P-errors`), sent in the middle of a game as wire steps (`{"send": LINE}` or
`{"request": OBJECT}`, as a case writes them: docs/case-format.md).

Each entry of `LINES` is a line the protocol decides the answer to (and I-28, I-29): a line
that is not JSON (`bad-json`), JSON that is not an object (`bad-request`), an object that is
not a command (`unknown-command`), a `hello` naming another protocol (`unsupported`); each
changes nothing of the game. Nothing here is a line the protocol leaves open (a blank line,
NaN, a key written twice, fields a request does not have), nor `bye` (which ends the
engine) or `setup` (a setup step). The oracle decides each answer; the generator only aims.
"""

from __future__ import annotations

import random
from typing import Any

#: name → a wire step
LINES: dict[str, dict[str, Any]] = {
    "not-json-cut-off": {"send": '{"cmd": "observe"'},
    "not-json-word": {"send": "observe"},
    "not-json-single-quotes": {"send": "{'cmd': 'legal'}"},
    "not-json-trailing-text": {"send": '{"cmd": "observe"} {"cmd": "observe"}'},
    "not-json-act-cut-off": {"send": '{"cmd": "act", "action": {"do": "end-turn"'},
    "not-object-array": {"send": '[{"cmd": "observe"}]'},
    "not-object-string": {"send": '"observe"'},
    "not-object-number": {"send": "0"},
    "not-object-null": {"send": "null"},
    "not-object-false": {"send": "false"},
    "unknown-command": {"request": {"cmd": "reset"}},
    "unknown-command-capitals": {"request": {"cmd": "Act", "action": {"do": "end-turn"}}},
    "unknown-command-missing": {"request": {"action": {"do": "end-turn", "player": "A"}}},
    "unknown-command-not-a-string": {"request": {"cmd": ["observe"]}},
    "unknown-command-action-name": {"request": {"cmd": "end-turn", "player": "A"}},
    "unsupported-protocol": {"request": {"cmd": "hello", "protocol": 2}},
    "ok-observe": {"request": {"cmd": "observe"}},
    "ok-hello": {"request": {"cmd": "hello", "protocol": 1}},
}
LINE_NAMES = tuple(LINES)


def line_at(rng: random.Random, name: str | None = None) -> tuple[dict[str, Any], str]:
    """A wire step (a copy), `name` or one chosen with `rng`, and its name."""
    name = name or rng.choice(LINE_NAMES)
    step = LINES[name]
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in step.items()}, name
