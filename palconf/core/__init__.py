"""The harness's foundation: the types and helpers every other layer of palconf shares.

- `outcomes`: `Outcome`, the one `Result` of a case (with the case file's path), `Tally`;
- `compare`: the one `Diff`, the `MISSING` marker, the one OBSERVED comparator and LEGAL's;
- `engine`: the engine interface as a typed protocol, `EngineInfo`, the faults, and the
  request helpers (`check_reply`, `setup`, `act`, `observe`, `legal`);
- `text`: the one helper that makes untrusted text safe for a terminal.

It imports nothing else of palconf, no jsonschema and no Hypothesis: the oracle's layer
(`oracle/`) and this one are the two floors everything else stands on.
"""

from palconf.core.compare import MISSING, Diff, Missing, compare, legal_diffs, state_changes
from palconf.core.engine import (
    BaseEngine,
    Engine,
    EngineCrash,
    EngineFault,
    EngineInfo,
    EngineTimeout,
    NoGame,
    ProtocolViolation,
    Unsupported,
    act,
    check_reply,
    legal,
    observe,
    parse_hello,
    send_line,
    setup,
)
from palconf.core.outcomes import FAILED, PASSED, Outcome, Result, Tally
from palconf.core.text import terminal_json, terminal_safe, without_surrogates

__all__ = [
    "FAILED",
    "MISSING",
    "PASSED",
    "BaseEngine",
    "Diff",
    "Engine",
    "EngineCrash",
    "EngineFault",
    "EngineInfo",
    "EngineTimeout",
    "Missing",
    "Outcome",
    "NoGame",
    "ProtocolViolation",
    "Result",
    "Tally",
    "Unsupported",
    "act",
    "check_reply",
    "compare",
    "legal",
    "legal_diffs",
    "observe",
    "parse_hello",
    "send_line",
    "setup",
    "state_changes",
    "terminal_json",
    "terminal_safe",
    "without_surrogates",
]
