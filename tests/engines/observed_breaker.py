"""An engine whose OBSERVED breaks P-observed (docs/protocol.md) in one way, keeping the
protocol's schema, so that its cases fail (never error) and every report draws a board of
what it said: served as protocol v1 on stdin/stdout (like `palconf serve`).

    python tests/engines/observed_breaker.py BREAK

Importable too: `BREAKS[name]` is the `oracle.Rules` subclass, for in-process runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from palconf.oracle import Rules, Session

GHOST = "zz9"  # an id no case uses

Observed = dict[str, Any]


def _in_zones(obs: Observed) -> list[tuple[str, str, str]]:
    """(player, zone, id) of every id the zone lists name (structures and their Pals too)."""
    out = []
    for player, p in sorted(obs["players"].items()):
        for zone in ("hand", "battle", "graveyard"):
            out += [(player, zone, cid) for cid in p[zone]]
        for sid, held in p["structures"].items():
            out += [(player, "structures", sid)] + [(player, "assigned", h) for h in held]
    return out


def ghost_in_hand(obs: Observed) -> None:
    """An id in a zone but not in `cards`."""
    obs["players"]["A"]["hand"].append(GHOST)


def two_zones(obs: Observed) -> None:
    """A card in two zones: each card of A's battle is in A's hand too."""
    obs["players"]["A"]["hand"] += obs["players"]["A"]["battle"]


def listed_twice(obs: Observed) -> None:
    """A card twice in one zone list."""
    for p in obs["players"].values():
        p["battle"] += p["battle"]


def owners_swapped(obs: Observed) -> None:
    """Every card's owner swapped (B-1: no card changes hands)."""
    for card in obs["cards"].values():
        card["owner"] = "B" if card["owner"] == "A" else "A"


def zones_swapped(obs: Observed) -> None:
    """The players' zone lists swapped: every card is listed in its opponent's zones."""
    a, b = obs["players"]["A"], obs["players"]["B"]
    for zone in ("hand", "battle", "graveyard", "structures"):
        a[zone], b[zone] = b[zone], a[zone]


def cards_empty(obs: Observed) -> None:
    """An empty `cards`."""
    obs["cards"] = {}


def cards_in_play_only(obs: Observed) -> None:
    """`cards` leaves out the cards in hand and graveyard."""
    obs["cards"] = {k: c for k, c in obs["cards"].items() if c["zone"] in ("battle", "structures")}


def unknown_card(obs: Observed) -> None:
    """A card in `cards` that no STATE held, in no zone list."""
    obs["cards"][GHOST] = {
        "zone": "battle",
        "owner": "A",
        "state": "stand",
        "power": 1,
        "strike": 1,
    }


def lists_emptied(obs: Observed) -> None:
    """Every zone list empty, `cards` as it is."""
    for p in obs["players"].values():
        p.update(hand=[], battle=[], graveyard=[], structures={})


def hand_as_structures(obs: Observed) -> None:
    """Every card of a hand listed as a structure in play, holding the player's battle."""
    for p in obs["players"].values():
        p["structures"].update({cid: list(p["battle"]) for cid in p["hand"]})


def fields_wrong(obs: Observed) -> None:
    """Every card at rest with power 0 and strike 0, wherever it is."""
    for card in obs["cards"].values():
        card.update(state="rest", power=0, strike=0)


def everything(obs: Observed) -> None:
    """All of the above that can be had at once."""
    for f in (ghost_in_hand, two_zones, listed_twice, owners_swapped, unknown_card):
        f(obs)
    hand_as_structures(obs)
    fields_wrong(obs)


def _breaking(fix: Callable[[Observed], None]) -> type[Rules]:
    def observe(self: Rules) -> Observed:
        out = Rules.observe(self)
        fix(out)
        return out

    return type(f"Breaks_{fix.__name__}", (Rules,), {"observe": observe})


BREAKS: dict[str, type[Rules]] = {
    f.__name__.replace("_", "-"): _breaking(f)
    for f in (
        ghost_in_hand,
        two_zones,
        listed_twice,
        owners_swapped,
        zones_swapped,
        cards_empty,
        cards_in_play_only,
        unknown_card,
        lists_emptied,
        hand_as_structures,
        fields_wrong,
        everything,
    )
}


def main(argv: list[str]) -> int:
    name = argv[0] if argv else ""
    if name not in BREAKS:
        print(f"observed_breaker.py: say one of {', '.join(BREAKS)}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from palconf.commands.serve import serve

    return serve(Session(BREAKS[name], name=f"breaks-{name}"), sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
