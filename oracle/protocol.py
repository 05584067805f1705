"""Protocol v1 in-process: one request object in, one response object out.

`Session.handle` is what `palconf serve` puts on stdin/stdout and what the in-process adapter
calls directly. It never raises: every failure is a response (`internal` for a bug).
"""

from __future__ import annotations

from typing import Any

from .model import StateError
from .rules import Rules

ENGINE_NAME = "palconf-oracle"
COMMANDS = ["setup", "act", "observe", "legal"]


def error(code: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": code, "message": message}


class Session:
    def __init__(
        self,
        rules: type[Rules] = Rules,
        name: str = ENGINE_NAME,
        version: str = "0.1.0",
        rules_version: str | None = None,
    ) -> None:
        """`rules_version`: the version `hello` says (default: the class's own; an
        editorial-only version runs the class of the version before)."""
        self.rules_class = rules
        self.name = name
        self.version = version
        self.rules_version = rules_version or rules.rules_version
        self.game: Rules | None = None

    def hello(self) -> dict[str, Any]:
        return {
            "ok": True,
            "engine": {"name": self.name, "version": self.version},
            "keywords": list(self.rules_class.keywords),
            "commands": list(COMMANDS),
            "rules": self.rules_version,
        }

    def not_json(self, message: str) -> dict[str, Any]:
        """The answer to a line that is not JSON (P-errors: `bad-json`); whoever reads the
        lines (`palconf serve`, the in-process wire) parses them and asks this."""
        return error("bad-json", message)

    def new_game(self, state: Any) -> Rules:
        """The game a `setup` starts: from the STATE alone, nothing of the game before
        (`self.game`, None before the first) carried over (P-state's defaults hold in every
        game). StateError when the STATE is refused."""
        return self.rules_class.from_state(state)

    def handle(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            return error("bad-request", "a request must be a JSON object")
        cmd = request.get("cmd")
        try:
            if cmd == "hello":
                if request.get("protocol", 1) != 1:
                    return error("unsupported", f"protocol {request.get('protocol')!r}: only 1")
                return self.hello()
            if cmd == "setup":
                try:
                    game = self.new_game(request.get("state"))
                except StateError as e:  # refused: the game before stays (P-errors)
                    return error(e.code, e.message)
                self.game = game
                return {"ok": True}
            if cmd == "bye":
                return {"ok": True}
            if cmd in ("act", "observe", "legal"):
                if self.game is None:
                    return error("no-game", f"`{cmd}` before a `setup`")
                if cmd == "observe":
                    return {"ok": True, "state": self.game.observe()}
                if cmd == "legal":
                    return {"ok": True, "actions": self.game.legal()}
                refusal = self.game.apply(request.get("action"))
                return {"ok": True} if refusal is None else refusal.to_json()
            return error("unknown-command", f"unknown command {cmd!r}")
        except Exception as e:  # a bug of the oracle: the game is as before the request
            return error("internal", f"{type(e).__name__}: {e}")
