"""`OracleEngine`: the reference oracle in-process (or any `palconf.oracle.Rules` subclass,
such as a mutant), through the same request/response layer `palconf serve` uses. Name it as
`palconf.engines:OracleEngine` in `--palconf-engine MODULE:FACTORY`; the engine interface it
implements is `palconf.engines.BaseEngine` (palconf.core's).

`answer_line` is the oracle's side of the wire: one line in, its request (None when the line
is not JSON) and the reply out. `palconf serve` answers every line it reads with it, and
`OracleEngine.request_line` too, so that a case's raw lines (`send` steps, P-errors) reach
the in-process oracle exactly as they reach `palconf serve`.
"""

from __future__ import annotations

from typing import Any

from palconf.core import json_read
from palconf.core.engine import BaseEngine, EngineInfo, parse_hello
from palconf.oracle import Rules, Session
from palconf.registry import Registry
from palconf.registry import load as load_registry

__all__ = ["OracleEngine", "answer_line", "oracle_of"]


def answer_line(session: Session, line: str | bytes) -> tuple[Any, dict[str, Any]]:
    """The request a line holds (None when it is not JSON: not a `bye` either) and
    `session`'s reply to it: `bad-json` for a line that is not exactly one strict JSON
    value (too deep, NaN, a key twice, not UTF-8), else what `session.handle` answers."""
    try:
        request = json_read.loads(line)
    except ValueError as e:
        return None, session.not_json(str(e))
    return request, session.handle(request)


class OracleEngine(BaseEngine):
    """The reference oracle, in-process. `rules` may be a mutant's subclass, `session` a
    session mutant's protocol layer."""

    def __init__(
        self,
        rules: type[Rules] = Rules,
        name: str = "palconf-oracle",
        rules_version: str | None = None,
        session: type[Session] = Session,
    ) -> None:
        """`rules_version`: the rules version its `hello` says (default: the class's)."""
        self.rules = rules
        self.name = name
        self.rules_version = rules_version
        self.session_class = session
        self.session = self._new_session()

    def _new_session(self) -> Session:
        return self.session_class(self.rules, name=self.name, rules_version=self.rules_version)

    def start(self) -> EngineInfo:
        self.session = self._new_session()
        self.info = parse_hello(self.session.handle({"cmd": "hello", "protocol": 1}))
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        return self.session.handle(msg)

    def request_line(self, line: bytes, label: str) -> Any:
        """One raw line, answered as `palconf serve` answers it."""
        return answer_line(self.session, line)[1]


def oracle_of(version: str | None = None, registry: Registry | None = None) -> OracleEngine:
    """The oracle of rules `version` (default: the registry's current one): the `Rules`
    class the registry names for it, saying that version in its `hello`."""
    registry = registry or load_registry()
    v = registry.resolve(version)
    return OracleEngine(registry.oracle(v), rules_version=v)
