"""Engines the harness can drive. Every engine speaks protocol v1 as `request(msg) -> reply`.

- `OracleEngine`: the reference oracle in-process (or any `oracle.Rules` subclass, such as a
  mutant), through the same request/response layer `palconf serve` uses.
- `ProcessEngine` (palconf.engines.process): any program speaking JSON lines on stdin/stdout.
- the options that choose one, and the one factory: palconf.engines.options.

The engine interface (`Engine`, `BaseEngine`, `EngineInfo`) and the faults are palconf.core's;
they are named here too, for engine authors (`palconf.engines:OracleEngine`, a subclass of
`palconf.engines.BaseEngine`).
"""

from __future__ import annotations

from typing import Any

from palconf.core.engine import (
    BaseEngine,
    Engine,
    EngineCrash,
    EngineFault,
    EngineInfo,
    EngineTimeout,
    ProtocolViolation,
    Unsupported,
    parse_hello,
)
from palconf.oracle import Rules, Session

__all__ = [
    "BaseEngine",
    "Engine",
    "EngineCrash",
    "EngineFault",
    "EngineInfo",
    "EngineTimeout",
    "OracleEngine",
    "ProtocolViolation",
    "Unsupported",
    "parse_hello",
]


class OracleEngine(BaseEngine):
    """The reference oracle, in-process. `rules` may be a mutant's subclass."""

    def __init__(self, rules: type[Rules] = Rules, name: str = "palconf-oracle") -> None:
        self.rules = rules
        self.name = name
        self.session = Session(rules, name=name)

    def start(self) -> EngineInfo:
        self.session = Session(self.rules, name=self.name)
        self.info = parse_hello(self.session.handle({"cmd": "hello", "protocol": 1}))
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        return self.session.handle(msg)
