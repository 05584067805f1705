"""The engine interface, its faults, and the helpers that send one request and check the reply.

Every engine speaks protocol v1 as `request(msg) -> reply` (docs/protocol.md): the oracle
in-process (`palconf.engines.OracleEngine`), a child process (`palconf.engines.ProcessEngine`),
a Python object behind the pytest plugin. A broken engine raises an `EngineFault`; whoever
drives it (the runner, the fuzzer, perft, smoke) records it as an `error` or `timeout` of
the case at hand, restarts the engine and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from palconf.core import json_read
from palconf.core.errors import PalconfError

#: The fields every OBSERVED has (`P-observed`).
OBSERVED_KEYS = (
    "active",
    "turn",
    "night",
    "winner",
    "step",
    "priority",
    "attack",
    "players",
    "cards",
)
_OBSERVED_SET = frozenset(OBSERVED_KEYS)


#: Seconds to wait for each reply of an engine unless told otherwise (`--timeout`).
DEFAULT_TIMEOUT = 10.0

#: Seconds an engine process has to exit after answering `bye` ("then the engine exits").
BYE_GRACE = 2.0


class EngineFault(PalconfError):
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


class NoGame(ProtocolViolation):
    """`observe` answered `no-game` where palconf had loaded a game: the engine lost it (the
    runner makes it a failure of the case when the case's own steps led there)."""


class Unsupported(PalconfError):
    """The engine answered `unsupported` (a keyword, effect or version it does not know):
    what was asked says nothing about it, so a case is skipped."""


@dataclass(frozen=True)
class EngineInfo:
    """What `hello` answered."""

    name: str
    version: str
    keywords: frozenset[str]
    commands: frozenset[str] = field(default_factory=frozenset)
    rules: str | None = None  # the rules version it says it implements (`hello`'s `rules`)
    #: the `hello` reply as it came (for transcripts); not part of equality
    hello: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def offers_legal(self) -> bool:
        return "legal" in self.commands


@runtime_checkable
class Engine(Protocol):
    """What the harness needs of an engine. `info` is set by `start`."""

    info: EngineInfo

    def start(self) -> EngineInfo:
        """Start (or start again) the engine and say hello."""
        ...

    def request(self, msg: dict[str, Any]) -> Any:
        """Send one request; the reply as parsed JSON (checked by `check_reply`)."""
        ...

    def restart(self) -> None: ...

    def take_stderr(self) -> str:
        """What the engine wrote to stderr since the last call (bounded)."""
        ...

    def close(self) -> None: ...

    @property
    def broken(self) -> bool:
        """Whether the engine must be restarted before it is used again."""
        ...


class BaseEngine:
    """Defaults for the `Engine` protocol: subclasses define `start` and `request`."""

    info: EngineInfo
    broken: bool = False

    def start(self) -> EngineInfo:
        raise NotImplementedError

    def request(self, msg: dict[str, Any]) -> Any:
        raise NotImplementedError

    def restart(self) -> None:
        self.close()
        self.start()

    def take_stderr(self) -> str:
        return ""

    def close(self) -> None:
        pass

    def __enter__(self) -> BaseEngine:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_hello(reply: Any) -> EngineInfo:
    if not isinstance(reply, dict) or reply.get("ok") is not True:
        raise ProtocolViolation(f"`hello` was not answered with ok: {str(reply)[:200]}")
    engine = reply.get("engine")
    keywords = reply.get("keywords")
    if (
        not isinstance(engine, dict)
        or not isinstance(engine.get("name"), str)
        or not isinstance(keywords, list)
        or not all(isinstance(k, str) for k in keywords)
    ):
        raise ProtocolViolation(
            "`hello` reply needs `engine` {name, version} and a list `keywords`"
        )
    commands = reply.get("commands", [])
    rules = reply.get("rules")
    if rules is not None and (not isinstance(rules, str) or not rules.strip()):
        raise ProtocolViolation(
            f"`hello` reply's `rules` must be a rules version string, not {str(rules)[:60]}"
        )
    return EngineInfo(
        name=engine["name"],
        version=str(engine.get("version", "")),
        keywords=frozenset(keywords),
        commands=frozenset(c for c in commands if isinstance(c, str))
        if isinstance(commands, list)
        else frozenset(),
        rules=rules,
        hello=reply,
    )


# ---------------------------------------------------------------- one request, checked


def check_reply(reply: Any, cmd: str, *, unsupported_skips: bool = True) -> dict[str, Any]:
    """`reply` if it has the shape every reply has (`ok`, and `error` on a refusal).
    `unsupported` raises `Unsupported` unless `unsupported_skips` is off (a case that
    demands that refusal)."""
    if type(reply) is dict and reply.get("ok") is True:
        return reply  # (an answer `ok`: the usual one, as the checks below pass it)
    if not isinstance(reply, dict):
        raise ProtocolViolation(f"the reply to `{cmd}` is not a JSON object")
    if not isinstance(reply.get("ok"), bool):
        raise ProtocolViolation(f"the reply to `{cmd}` has no boolean `ok`")
    if not reply["ok"]:
        if not isinstance(reply.get("error"), str):
            raise ProtocolViolation(f"the refusal of `{cmd}` has no string `error`")
        if reply["error"] == "unsupported" and unsupported_skips:
            raise Unsupported(f"engine: unsupported: {reply.get('message', '')}")
    return reply


def send_line(engine: Engine, line: bytes, label: str) -> Any:
    """Send one line as it is (a wire step, P-errors) and return the reply, unchecked. An
    engine on the wire (a process, the in-process oracle) takes it through its
    `request_line`; any other in-process engine gets the value the line holds through
    `request`, and a line that is not JSON cannot reach it: `Unsupported` (the case is
    skipped, with the reason)."""
    raw = getattr(engine, "request_line", None)
    if callable(raw):
        return raw(line, label)
    try:
        value = json_read.loads(line)
    except ValueError:
        raise Unsupported(
            f"{label}: an in-process engine takes requests as values, and this line is not "
            "JSON (it is checked on engines that speak the wire: a process, or one with "
            "request_line)"
        ) from None
    return engine.request(value)


def _refusal_text(reply: dict[str, Any]) -> str:
    return f"{reply.get('error')}: {reply.get('message', '')}"


def setup(engine: Engine, state: Any, *, unsupported_skips: bool = True) -> dict[str, Any]:
    """Send `setup`; the reply (`ok` true, or a refusal with its `error`)."""
    return check_reply(
        engine.request({"cmd": "setup", "state": state}),
        "setup",
        unsupported_skips=unsupported_skips,
    )


def act(engine: Engine, action: Any, step: int) -> dict[str, Any] | None:
    """Send `act`: None when the action was accepted, else the refusal (`illegal`). Any
    other error is a protocol violation."""
    reply = check_reply(engine.request({"cmd": "act", "action": action}), "act")
    if reply["ok"]:
        return None
    if reply["error"] != "illegal":
        raise ProtocolViolation(
            f"`act` at step {step} answered error {reply['error']!r}: {reply.get('message', '')}"
        )
    return reply


def observe(engine: Engine, step: int) -> dict[str, Any]:
    """Send `observe`: OBSERVED, with every field `P-observed` names."""
    return observed_of(check_reply(engine.request({"cmd": "observe"}), "observe"), step)


def observed_of(reply: dict[str, Any], step: int) -> dict[str, Any]:
    """OBSERVED from a reply to `observe` that passed `check_reply` (`observe`'s checks)."""
    if not reply["ok"]:
        fault = NoGame if reply["error"] == "no-game" else ProtocolViolation
        raise fault(f"`observe` failed at step {step}: {_refusal_text(reply)}")
    state = reply.get("state")
    if type(state) is dict and state.keys() >= _OBSERVED_SET:
        return state  # (every field there: the usual reply, tested in one set operation)
    if not isinstance(state, dict) or any(k not in state for k in OBSERVED_KEYS):
        missing = [k for k in OBSERVED_KEYS if not isinstance(state, dict) or k not in state]
        raise ProtocolViolation(f"`observe` reply at step {step} lacks {', '.join(missing)}")
    return state


def legal(engine: Engine, step: int) -> list[Any]:
    """Send `legal`: the list of actions (each checked to be an object)."""
    return actions_of(check_reply(engine.request({"cmd": "legal"}), "legal"), step)


def actions_of(reply: dict[str, Any], step: int) -> list[Any]:
    """The actions from a reply to `legal` that passed `check_reply` (`legal`'s checks)."""
    if not reply["ok"]:
        raise ProtocolViolation(f"`legal` failed at step {step}: {_refusal_text(reply)}")
    actions = reply.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, dict) for a in actions):
        raise ProtocolViolation(
            f"`legal` reply at step {step} has no list of action objects `actions`"
        )
    return actions
