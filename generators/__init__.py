"""Hypothesis strategies for the Pal game, for property tests and differential fuzzing.

    from generators import cards, states, actions, games
    states(max_hand=2, keywords={"taunt", "assault"})   # protocol STATEs
    games(max_actions=8)        # a STATE and actions, with the oracle's answers

Public strategies are plural nouns with keyword-only bounds, checked when the strategy is
built (a bad bound is a TypeError or ValueError at once, not at the first draw); each
strategy's repr shows how to rebuild it. This module only re-exports: the strategies live in
`generators._boards` (cards, states) and `generators._games` (actions, games).

Beside the strategies: `generators.differential` (the fuzzer: engines compared with the
oracle on generated games; `generators.lockstep` compares one game, with `palconf.core`'s
comparator, `generators.shrinking` simplifies a difference, `generators.formatting` prints
it), `generators.export` (a difference as a case file), `generators.perft` (counts of legal
action sequences, positions in `generators/perft/`), `generators.profiles` (Hypothesis
settings profiles `ci`, `dev`, `fuzz`).
"""

from ._boards import cards, states
from ._games import Game, Step, actions, games

__all__ = ["Game", "Step", "actions", "cards", "games", "states"]


def _check_exports() -> None:
    """Every public name is exported and every export exists (as Hypothesis checks its own
    `strategies` module): a strategy added without `__all__`, or the reverse, fails import."""
    public = {
        n
        for n, v in globals().items()
        if not n.startswith("_")
        and callable(v)
        and getattr(v, "__module__", "").startswith(__name__ + ".")
    }
    if public != set(__all__):
        raise ImportError(
            f"generators.__all__ {sorted(__all__)} does not match the public names {sorted(public)}"
        )


_check_exports()
