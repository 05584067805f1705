"""`OracleEngine`: the reference oracle in-process (or any `palconf.oracle.Rules` subclass,
such as a mutant), through the same request/response layer `palconf serve` uses. Name it as
`palconf.engines:OracleEngine` in `--palconf-engine MODULE:FACTORY`; the engine interface it
implements is `palconf.engines.BaseEngine` (palconf.core's)."""

from __future__ import annotations

from typing import Any

from palconf.core.engine import BaseEngine, EngineInfo, parse_hello
from palconf.oracle import Rules, Session

__all__ = ["OracleEngine"]


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
