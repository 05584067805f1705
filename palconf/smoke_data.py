"""What `palconf smoke` sends and expects: the STATE it loads, the OBSERVED it must get back,
the two actions it tries, and the record of one check (palconf/commands/smoke.py runs them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .core import terminal_safe

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


#: How much of an engine's text a check shows.
LIMIT = 300


def shown(value: Any) -> str:
    """A reply (untrusted JSON) on one line, for a check's detail."""
    return terminal_safe(json.dumps(value, sort_keys=True), 200)
