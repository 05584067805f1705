"""`OracleEngine`: the reference oracle in-process (or any `palconf.oracle.Rules` subclass,
such as a mutant), through the same request/response layer `palconf serve` uses. Name it as
`palconf.engines:OracleEngine` in `--palconf-engine MODULE:FACTORY`; the engine interface it
implements is `palconf.engines.BaseEngine` (palconf.core's)."""

from __future__ import annotations

from typing import Any

from palconf.core.engine import BaseEngine, EngineInfo, parse_hello
from palconf.oracle import Rules, Session
from palconf.registry import Registry
from palconf.registry import load as load_registry

__all__ = ["OracleEngine", "oracle_of"]


class OracleEngine(BaseEngine):
    """The reference oracle, in-process. `rules` may be a mutant's subclass."""

    def __init__(
        self,
        rules: type[Rules] = Rules,
        name: str = "palconf-oracle",
        rules_version: str | None = None,
    ) -> None:
        """`rules_version`: the rules version its `hello` says (default: the class's)."""
        self.rules = rules
        self.name = name
        self.rules_version = rules_version
        self.session = Session(rules, name=name, rules_version=rules_version)

    def start(self) -> EngineInfo:
        self.session = Session(self.rules, name=self.name, rules_version=self.rules_version)
        self.info = parse_hello(self.session.handle({"cmd": "hello", "protocol": 1}))
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        return self.session.handle(msg)


def oracle_of(version: str | None = None, registry: Registry | None = None) -> OracleEngine:
    """The oracle of rules `version` (default: the registry's current one): the `Rules`
    class the registry names for it, saying that version in its `hello`."""
    registry = registry or load_registry()
    v = registry.resolve(version)
    return OracleEngine(registry.oracle(v), rules_version=v)
