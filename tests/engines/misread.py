"""A deliberately wrong engine for testing the fuzzer: the oracle with ONE keyword misread,
served as protocol v1 on stdin/stdout (like `palconf serve`).

    python tests/engines/misread.py [MISREADING]

MISREADING (default `nocturnal-200`):
- `nocturnal-200`: Nocturnal gives +200 at night, not +300 (nocturnal.1).
- `stealth-blockable`: Stealth does not stop a block (stealth.1).
- `assault-ignored`: Assault does not let the Pal target a standing Pal (assault.1).

Importable too: `MISREADINGS[name]` is the `oracle.Rules` subclass, for in-process tests.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import ClassVar

from palconf.oracle import Rules, Session
from palconf.oracle.keywords import KEYWORDS, Assault, Nocturnal, Stealth
from palconf.oracle.model import CardState, GameState


class Nocturnal200(Nocturnal):
    BONUS: ClassVar[int] = 200


class StealthBlockable(Stealth):
    def forbids_block(
        self, game: GameState, attacker: CardState, blocker: CardState | None
    ) -> bool:
        return False


class AssaultIgnored(Assault):
    def widen_targets(self, game: GameState, attacker: CardState, targets: list[str]) -> list[str]:
        return targets


def _with(keyword: object) -> type[Rules]:
    kid = keyword.id  # type: ignore[attr-defined]
    return type(f"Misread_{kid}", (Rules,), {"keywords": {**KEYWORDS, kid: keyword}})


MISREADINGS: dict[str, type[Rules]] = {
    "nocturnal-200": _with(Nocturnal200()),
    "stealth-blockable": _with(StealthBlockable()),
    "assault-ignored": _with(AssaultIgnored()),
}


def main(argv: list[str]) -> int:
    name = argv[0] if argv else "nocturnal-200"
    if name not in MISREADINGS:
        print(
            f"misread.py: unknown misreading {name!r}; known: {', '.join(MISREADINGS)}",
            file=sys.stderr,
        )
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from palconf.commands.serve import serve

    return serve(Session(MISREADINGS[name], name=f"misread-{name}"), sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
