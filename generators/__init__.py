"""Hypothesis strategies for the Pal game, for property tests and differential fuzzing.

    from palconf.generators import cards, states, actions, games
    states(max_hand=2, keywords={"taunt", "assault"})   # protocol STATEs
    games(max_actions=8)        # a STATE and actions, with the oracle's answers

Public strategies are plural nouns with keyword-only bounds, checked when the strategy is
built (a bad bound is a TypeError or ValueError at once, not at the first draw); each
strategy's repr shows how to rebuild it. This module only names them (lazily: importing
`palconf.generators.perft` does not load Hypothesis): the strategies live in
`generators._boards` (cards, states) and `generators._games` (actions, games).

Beside the strategies: `generators.differential` (the fuzzer: engines compared with the
oracle on generated games; `generators.lockstep` compares one game, with `palconf.core`'s
comparator, `generators.shrinking` simplifies a difference, `generators.formatting` prints
it), `generators.export` (a difference as a case file), `generators.perft` (counts of legal
action sequences, positions in `generators/perft/`), `generators.profiles` (Hypothesis
settings profiles `ci`, `dev`, `fuzz`).
"""

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.generators._boards import cards, states
    from palconf.generators._games import actions, games
    from palconf.generators.game import Game, Step

_EXPORTS = {
    "cards": "._boards",
    "states": "._boards",
    "Game": ".game",
    "Step": ".game",
    "actions": "._games",
    "games": "._games",
}
__all__ = ["Game", "Step", "actions", "cards", "games", "states"]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
