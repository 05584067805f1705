"""Mutants of the protocol's error layer (P-errors): the answers to lines that are not
well-formed commands, or that come before any game.

Each is a `session_mutant` (a subclass of the protocol layer `Session`, oracle/protocol.py)
that answers one kind of line otherwise, on the oracle's own game: it overrides `handle`
(the answer to a parsed request) or `not_json` (the answer to a line that is not JSON).
Only a case with a wire step (`send`, `request`: docs/case-format.md) can kill one.
"""

from __future__ import annotations

from typing import Any

from palconf.mutants import session_mutant
from palconf.oracle.protocol import Session, error

#: The smallest STATE: the empty game a misreading makes up where there is none.
EMPTY = {"players": {"A": {"life": 1}, "B": {"life": 1}}}


def _cmd(request: Any) -> Any:
    return request.get("cmd") if isinstance(request, dict) else None


@session_mutant(
    "errors-not-json-as-bad-request",
    "P-errors",
    "A line that is not JSON is answered bad-request, as any request it cannot use.",
)
class NotJsonAsBadRequest(Session):
    def not_json(self, message: str) -> dict[str, Any]:
        return error("bad-request", message)


@session_mutant(
    "errors-not-json-ignored-as-observe",
    "P-errors",
    "A line that is not JSON is read leniently: whatever it holds, it is answered as observe.",
)
class NotJsonAsObserve(Session):
    def not_json(self, message: str) -> dict[str, Any]:
        return self.handle({"cmd": "observe"})


@session_mutant(
    "errors-non-object-as-bad-json",
    "P-errors",
    "JSON that is not an object is answered bad-json, as if it were not JSON.",
)
class NonObjectAsBadJson(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict):
            return error("bad-json", "a request must be a JSON object")
        return super().handle(request)


@session_mutant(
    "errors-unknown-command-ok",
    "P-errors",
    "An unknown command is acknowledged with ok and otherwise ignored.",
)
class UnknownCommandOk(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        reply = super().handle(request)
        return {"ok": True} if reply.get("error") == "unknown-command" else reply


@session_mutant(
    "errors-unknown-command-as-bad-request",
    "P-errors",
    "A command the engine does not know is answered bad-request.",
)
class UnknownCommandAsBadRequest(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        reply = super().handle(request)
        if reply.get("error") == "unknown-command":
            return error("bad-request", str(reply.get("message", "")))
        return reply


@session_mutant(
    "errors-missing-cmd-as-bad-request",
    "P-errors",
    "An object with no cmd, or a cmd that is not a string, is answered bad-request.",
)
class MissingCmdAsBadRequest(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if isinstance(request, dict) and not isinstance(request.get("cmd"), str):
            return error("bad-request", "a request needs a string cmd")
        return super().handle(request)


@session_mutant(
    "errors-commands-any-case",
    "P-errors",
    "Command names are read without regard to case: OBSERVE is observe.",
)
class CommandsAnyCase(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        cmd = _cmd(request)
        if isinstance(cmd, str) and cmd != cmd.lower():
            request = {**request, "cmd": cmd.lower()}
        return super().handle(request)


@session_mutant(
    "errors-observe-before-setup-empty-game",
    "P-errors",
    "Before any setup, observe shows an empty game rather than no-game.",
)
class ObserveBeforeSetup(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if self.game is None and _cmd(request) == "observe":
            return {"ok": True, "state": self.rules_class.from_state(EMPTY).observe()}
        return super().handle(request)


@session_mutant(
    "errors-act-before-setup-illegal",
    "P-errors",
    "Before any setup, act is refused as an illegal action (invalid-action), not no-game.",
)
class ActBeforeSetupIllegal(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if self.game is None and _cmd(request) == "act":
            return {"ok": False, "error": "illegal", "reason": "invalid-action", "message": "-"}
        return super().handle(request)


@session_mutant(
    "errors-legal-before-setup-empty-list",
    "P-errors",
    "Before any setup, legal answers an empty list rather than no-game.",
)
class LegalBeforeSetup(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if self.game is None and _cmd(request) == "legal":
            return {"ok": True, "actions": []}
        return super().handle(request)


@session_mutant(
    "errors-refused-first-setup-loads-empty-game",
    "P-errors",
    "A refused first setup still leaves an empty game, so observe answers ok.",
)
class RefusedFirstSetupEmptyGame(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        reply = super().handle(request)
        if _cmd(request) == "setup" and not reply["ok"] and self.game is None:
            self.game = self.rules_class.from_state(
                {"players": {"A": {"life": 1}, "B": {"life": 1}}}
            )
        return reply


@session_mutant(
    "errors-protocol-version-not-checked",
    "P-errors",
    "A hello is answered as for protocol 1 whatever protocol it names.",
)
class ProtocolVersionNotChecked(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if _cmd(request) == "hello":
            return self.hello()
        return super().handle(request)


@session_mutant(
    "errors-bye-unknown",
    "P-errors",
    "A bye is not answered as a command: the engine only stops reading (unknown-command).",
)
class ByeUnknown(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if _cmd(request) == "bye":
            return error("unknown-command", "bye")
        return super().handle(request)


@session_mutant(
    "errors-bad-line-ends-the-game",
    "P-errors",
    "A line that is not a command drops the game under way, as a reset of the session.",
)
class BadLineEndsGame(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        reply = super().handle(request)
        if reply.get("error") in ("bad-request", "unknown-command"):
            self.game = None
        return reply

    def not_json(self, message: str) -> dict[str, Any]:
        self.game = None
        return super().not_json(message)


@session_mutant(
    "errors-hello-mid-game-resets",
    "P-errors",
    "A hello refused for its protocol version still ends the game under way.",
)
class HelloResets(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        reply = super().handle(request)
        if _cmd(request) == "hello" and not reply["ok"]:
            self.game = None
        return reply


@session_mutant(
    "errors-cmd-trimmed",
    "P-errors",
    "A cmd with spaces around it is read as the command inside them.",
)
class CmdTrimmed(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        cmd = _cmd(request)
        if isinstance(cmd, str) and cmd != cmd.strip():
            request = {**request, "cmd": cmd.strip()}
        return super().handle(request)


@session_mutant(
    "errors-hello-starts-a-new-session",
    "P-errors",
    "A hello in the middle of a game is answered ok and ends that game, as a new session.",
)
class HelloNewSession(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        reply = super().handle(request)
        if _cmd(request) == "hello" and reply["ok"]:
            self.game = None
        return reply


@session_mutant(
    "errors-setup-without-state-bad-request",
    "P-errors",
    "A setup with no state, or a null one, is a bad request rather than an invalid STATE.",
)
class SetupWithoutState(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if _cmd(request) == "setup" and request.get("state") is None:
            return error("bad-request", "setup needs a state")
        return super().handle(request)


@session_mutant(
    "errors-act-without-action-bad-request",
    "P-errors",
    "An act request with no action is a bad request rather than a malformed action.",
)
class ActWithoutAction(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if _cmd(request) == "act" and "action" not in request and self.game is not None:
            return error("bad-request", "act needs an action")
        return super().handle(request)


@session_mutant(
    "errors-unsupported-setup-drops-game",
    "P-errors",
    "A setup refused unsupported (a keyword or effect the engine does not know) is read as "
    "a reset: the game before is dropped, so act, observe and legal then answer no-game.",
)
class UnsupportedSetupDropsGame(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        response = super().handle(request)
        if _cmd(request) == "setup" and response.get("error") == "unsupported":
            self.game = None
        return response


@session_mutant(
    "errors-action-not-object-bad-request",
    "P-errors",
    "An act whose action is not an object (a string, a list, a number) is answered "
    "bad-request, as a request it cannot use, rather than refused as a malformed action.",
    killed_as="error",  # an act answered with an error other than `illegal`
)
class ActionNotObjectBadRequest(Session):
    def handle(self, request: Any) -> dict[str, Any]:
        if _cmd(request) == "act" and self.game is not None and isinstance(request, dict):
            action = request.get("action")
            if action is not None and not isinstance(action, dict):
                return error("bad-request", "the action must be an object")
        return super().handle(request)
