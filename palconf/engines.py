"""Engines the harness can drive. Every engine speaks protocol v1 as `request(msg) -> reply`.

- `OracleEngine`: the reference oracle in-process (or any `oracle.Rules` subclass, such as a
  mutant), through the same request/response layer `palconf serve` uses.
- `ProcessEngine` (palconf.adapter): any program speaking JSON lines on stdin/stdout.

A broken engine raises an `EngineFault` subclass; the runner records it as the case's
`error` or `timeout`, restarts the engine and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from oracle import Rules, Session


class EngineFault(Exception):
    """The engine broke: crashed, hung, or answered outside the protocol."""

    outcome = "error"

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr = stderr


class EngineTimeout(EngineFault):
    outcome = "timeout"


class EngineCrash(EngineFault):
    pass


class ProtocolViolation(EngineFault):
    pass


@dataclass
class EngineInfo:
    name: str
    version: str
    keywords: frozenset[str]
    commands: frozenset[str] = field(default_factory=frozenset)


class Engine:
    info: EngineInfo

    def start(self) -> EngineInfo:
        """Start (or restart) the engine and say hello."""
        raise NotImplementedError

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def restart(self) -> None:
        self.close()
        self.start()

    def take_stderr(self) -> str:
        """What the engine wrote to stderr since the last call (bounded)."""
        return ""

    def close(self) -> None:
        pass

    def __enter__(self) -> "Engine":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_hello(reply: Any) -> EngineInfo:
    if not isinstance(reply, dict) or reply.get("ok") is not True:
        raise ProtocolViolation(f"`hello` was not answered with ok: {str(reply)[:200]}")
    engine = reply.get("engine")
    keywords = reply.get("keywords")
    if (not isinstance(engine, dict) or not isinstance(engine.get("name"), str)
            or not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords)):
        raise ProtocolViolation("`hello` reply needs `engine` {name, version} and a list "
                                "`keywords`")
    commands = reply.get("commands", [])
    return EngineInfo(name=engine["name"], version=str(engine.get("version", "")),
                      keywords=frozenset(keywords),
                      commands=frozenset(c for c in commands if isinstance(c, str))
                      if isinstance(commands, list) else frozenset())


class OracleEngine(Engine):
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
