"""An engine that answers every `observe` with N extra cards (default 9,000) in `cards` and
in player A's hand, each reply under the adapter's 1 MiB limit: every case fails with
thousands of differences (P-observed). For the bounds on what a result stores
(docs/broken-input.md, section 16).

    python tests/engines/extra_cards.py [N]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    extra = int(argv[0]) if argv else 9000
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from palconf.commands.serve import serve
    from palconf.oracle import Rules, Session

    def observe(self: Rules) -> dict[str, Any]:
        out: dict[str, Any] = Rules.observe(self)
        for n in range(extra):
            cid = f"x{n}"
            out["cards"][cid] = {
                "zone": "hand",
                "owner": "A",
                "state": None,
                "power": 1,
                "strike": 1,
            }
        out["players"]["A"]["hand"] += [f"x{n}" for n in range(extra)]
        return out

    rules = type("ExtraCards", (Rules,), {"observe": observe})
    return serve(Session(rules, name=f"extra-cards-{extra}"), sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
