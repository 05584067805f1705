"""palconf's reference oracle: the base game (base rules B-n) and the fourteen keywords of
Comprehensive Rules 1.00 section 12, in plain typed Python with no runtime dependency.

    from palconf.oracle import Rules
    game = Rules.from_state(state)      # a protocol STATE; raises StateError
    refusal = game.apply(action)        # None, or Refusal(reason, message): state unchanged
    game.reasons(action)                # every row of P-reasons the action breaks, in order
    game.observe()                      # OBSERVED
    game.legal()                        # LEGAL

`oracle.keywords` holds one class per keyword, with the hook contract by which each says what
it changes; `oracle.rules` the class `Rules`, made of mixins by area (`oracle.base`,
`oracle.checks`, `oracle.moves`, `oracle.battle`, `oracle.effects`, `oracle.legal`);
`oracle.model` the game's data and loading a STATE; `oracle.protocol` the request/response
layer of protocol v1.
"""

from .keywords import KEYWORD_IDS, KEYWORDS, Keyword
from .model import GameState, StateError
from .protocol import Session
from .rules import Refusal, Rules, load_state

__all__ = [
    "KEYWORDS",
    "KEYWORD_IDS",
    "GameState",
    "Keyword",
    "Refusal",
    "Rules",
    "Session",
    "StateError",
    "load_state",
]
