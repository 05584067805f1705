"""`palconf smoke --engine-cmd CMD`: does an engine speak protocol v1 well enough to be run?

Like `bowtie smoke`: a handful of requests that every engine must handle, each checked
against the protocol schemas and against what the request asked for, printed as ok / warn /
FAIL with what is wrong and how to fix it. A FAIL is something `palconf run` would trip over
(exit status 1); a warn is a part of the protocol the harness does not rely on.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from palconf.cases.loader import load_cases
from palconf.core import EngineFault, compare, state_changes, terminal_safe
from palconf.core.errors import PalconfError
from palconf.engines.options import add_engine_options, make_engine
from palconf.engines.process import ProcessEngine
from palconf.engines.schemas import check_reply_shape, json_validator
from palconf.engines.smoke_data import (
    ACCEPTED,
    LIMIT,
    OBSERVED,
    ONE_LINE,
    REFUSED,
    STATE,
    Check,
    covering,
    hello_checks,
    render_text,
    shown,
    stderr_tail,
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "smoke",
        help="check that an engine speaks the protocol basics",
        description="Send an engine the requests every engine must handle "
        "(hello, setup, observe, a refused action, an unknown "
        "command, a line that is not JSON, bye) and say what is "
        "wrong and how to fix it. Exit 0 when nothing FAILs, 1 "
        "otherwise, 2 when the command cannot be run.",
    )
    add_engine_options(
        p,
        required=True,
        command_help="the engine's command line (split like a shell would; no shell runs)",
    )
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="json: one object with every check, for CI",
    )
    p.set_defaults(func=main)


class Smoke:
    """Runs the checks in order on one engine process, restarting it after a fault."""

    def __init__(self, engine: ProcessEngine) -> None:
        self.engine = engine
        self.checks: list[Check] = []
        self.alive = False

    def add(self, name: str, status: str, detail: str = "", fix: str = "") -> None:
        self.checks.append(Check(name, status, detail, fix))

    def fault(self, name: str, e: EngineFault, fix: str) -> None:
        tail = stderr_tail(e.stderr or self.engine.take_stderr())
        self.add(
            name,
            "FAIL",
            terminal_safe(e.message, LIMIT) + tail,
            fix
            or "Answer every request with exactly one line of JSON on stdout; the "
            "engine's stderr above may say why it did not.",
        )
        self.alive = False

    def ensure_running(self) -> bool:
        if self.alive and not self.engine.broken:
            return True
        try:
            self.engine.start()
        except EngineFault as e:
            self.fault("restart", e, "The engine must start again after it was stopped.")
            return False
        self.alive = True
        return True

    def step(self, name: str, fix: str, body: Callable[[], None]) -> None:
        if not self.ensure_running():
            self.add(name, "FAIL", "not checked: the engine does not start")
            return
        try:
            body()
        except EngineFault as e:
            self.fault(name, e, fix)

    def load(self, name: str) -> bool:
        """Load STATE afresh, so that each check stands on its own (after a restart too)."""
        reply = self.request({"cmd": "setup", "state": STATE})
        if isinstance(reply, dict) and reply.get("ok") is True:
            return True
        self.add(name, "FAIL", "not checked: `setup` does not work")
        return False

    def request(self, msg: dict[str, Any]) -> Any:
        """A request whose reply is checked only for being JSON (shape is judged per check)."""
        return self.engine.request_line(json.dumps(msg).encode(), str(msg.get("cmd")))

    # -- the checks

    def run(self) -> None:
        try:
            info = self.engine.start()
        except EngineFault as e:
            self.fault(
                "hello",
                e,
                'Answer {"cmd": "hello", "protocol": 1} with {"ok": true, '
                '"engine": {"name": ..., "version": ...}, "keywords": '
                '[...], "commands": [...]} on one line. ' + ONE_LINE,
            )
            return
        self.alive = True
        self.checks += hello_checks(info)
        self.step("before setup", "", self.before_setup)
        self.step("setup", "", self.setup)
        self.step("observe", "", self.observe)
        self.step("refused action", "Refusing an action must not break the engine.", self.refused)
        self.step("accepted action", "", self.accepted)
        self.step(
            "unknown command",
            "An unknown `cmd` is answered, and the engine goes on.",
            self.unknown_command,
        )
        self.step(
            "bad json",
            "A line that is not JSON is answered, and the engine goes on.",
            self.bad_json,
        )
        self.step("bad request", "", self.bad_request)
        if "legal" in info.commands:
            self.step("legal", "", self.legal)
        self.step("bye", "", self.bye)

    def before_setup(self) -> None:
        reply = self.request({"cmd": "observe"})
        if isinstance(reply, dict) and reply.get("ok") is False and reply.get("error") == "no-game":
            self.add("before setup", "ok", '`observe` before `setup` is "no-game"')
        else:
            self.add(
                "before setup",
                "warn",
                f"`observe` before any `setup` answered {shown(reply)}",
                "Answer `act`, `observe` and `legal` before the first "
                '`setup` with {"ok": false, "error": "no-game", "message": ...}.',
            )

    def setup(self) -> None:
        reply = self.request({"cmd": "setup", "state": STATE})
        problem = check_reply_shape("setup", reply)
        if problem:
            self.add(
                "setup",
                "FAIL",
                terminal_safe(f"the reply is not a setup response: {problem}", LIMIT),
                'Answer a STATE you can load with {"ok": true}.',
            )
        elif reply["ok"] is not True:
            self.add(
                "setup",
                "FAIL",
                f"a STATE of two plain Pals was refused: {shown(reply)}",
                "`setup` must load every STATE of docs/protocol.md, with the defaults "
                "for missing fields; `unsupported` is only for keywords or effects the "
                "engine does not implement.",
            )
        else:
            self.add("setup", "ok", "a STATE of two plain Pals is loaded")

    def observe_state(self) -> tuple[Any, list[str]]:
        reply = self.request({"cmd": "observe"})
        errors = [
            f"{'.'.join(map(str, e.absolute_path)) or '(top level)'}: {e.message}"
            for e in json_validator("observe.response").iter_errors(reply)
        ]
        return reply, errors

    def observe(self) -> None:
        if not self.load("observe"):
            return
        reply, errors = self.observe_state()
        if errors:
            self.add(
                "observe",
                "FAIL",
                terminal_safe("the reply is not an OBSERVED state: " + "; ".join(errors[:5]), 600),
                'Answer `observe` with {"ok": true, "state": OBSERVED}: every key of '
                "OBSERVED in docs/protocol.md, every card with exactly zone, owner, "
                "state, power and strike.",
            )
            return
        diffs = compare(OBSERVED, reply["state"], subset=True)
        if diffs:
            self.add(
                "observe",
                "FAIL",
                terminal_safe(
                    "the state differs from what `setup` loaded: " + "; ".join(map(str, diffs[:5])),
                    600,
                ),
                "Report the game as loaded: zone lists as ids, `structures` as an "
                "object, null for what does not apply.",
            )
        else:
            self.add("observe", "ok", "the OBSERVED state has the right shape and content")

    def refused(self) -> None:
        if not self.load("refused action"):
            return
        before, errors = self.observe_state()
        if errors or before.get("ok") is not True:
            self.add("refused action", "FAIL", "not checked: `observe` does not work")
            return
        reply = self.request({"cmd": "act", "action": REFUSED})
        problem = check_reply_shape("act", reply)
        if problem:
            self.add(
                "refused action",
                "FAIL",
                terminal_safe(
                    f"the reply to an illegal `act` is not an act response: {problem}", LIMIT
                ),
                'Refuse an illegal action with {"ok": false, "error": "illegal", '
                '"reason": REASON, "message": ...}.',
            )
            return
        if reply["ok"] is True:
            self.add(
                "refused action",
                "FAIL",
                f"`end-turn` by B on A's turn was accepted: {shown(REFUSED)}",
                "Refuse actions of a player who may not act (reason wrong-player).",
            )
            return
        if reply.get("error") != "illegal":
            self.add(
                "refused action",
                "FAIL",
                f'refused with error {shown(reply.get("error"))}, not "illegal"',
                'A refused action is {"ok": false, "error": "illegal", "reason": ...}.',
            )
            return
        after, errors = self.observe_state()
        changes = state_changes(before["state"], after["state"]) if not errors else []
        if errors or changes:
            self.add(
                "refused action",
                "FAIL",
                terminal_safe(
                    "the refused action changed the "
                    "state: " + "; ".join(map(str, changes[:5]) if changes else errors[:3]),
                    600,
                ),
                "A refused action changes nothing (B-21).",
            )
        elif reply.get("reason") != "wrong-player":
            self.add(
                "refused action",
                "warn",
                f"refused with reason "
                f"{shown(reply.get('reason'))}; the protocol's order of checks gives "
                f'"wrong-player"',
                "Check the reasons in the order of docs/protocol.md "
                "(cases that demand a reason will fail otherwise).",
            )
        else:
            self.add("refused action", "ok", "refused (wrong-player), state unchanged")

    def accepted(self) -> None:
        if not self.load("accepted action"):
            return
        reply = self.request({"cmd": "act", "action": ACCEPTED})
        problem = check_reply_shape("act", reply)
        if problem or reply.get("ok") is not True:
            self.add(
                "accepted action",
                "FAIL",
                terminal_safe(
                    f"`end-turn` by the active player was not accepted: {problem or shown(reply)}",
                    LIMIT,
                ),
                'Answer a legal action with {"ok": true}.',
            )
            return
        after, errors = self.observe_state()
        diffs = (
            compare({"active": "B", "turn": 2}, after.get("state"), subset=True)
            if not errors
            else []
        )
        if errors or diffs:
            self.add(
                "accepted action",
                "FAIL",
                terminal_safe(
                    "after `end-turn`: " + "; ".join(map(str, diffs) if diffs else errors[:3]),
                    LIMIT,
                ),
                "`end-turn` passes the turn to the other player; `turn` goes up by 1.",
            )
        else:
            self.add("accepted action", "ok", "`end-turn` accepted; B is active, turn 2")

    def still_alive(self, name: str) -> bool:
        reply = self.request({"cmd": "observe"})
        if isinstance(reply, dict) and reply.get("ok") is True:
            return True
        self.add(
            name,
            "FAIL",
            f"afterwards `observe` answered {shown(reply)}",
            "Keep the game as it was after answering an error.",
        )
        return False

    def expect_error(self, name: str, reply: Any, code: str, what: str) -> None:
        if isinstance(reply, dict) and reply.get("ok") is False and reply.get("error") == code:
            if self.still_alive(name):
                self.add(name, "ok", f'{what} is "{code}"; the engine goes on')
        else:
            self.add(
                name,
                "FAIL",
                f"{what} was answered {shown(reply)}",
                f'Answer it with {{"ok": false, "error": "{code}", "message": ...}} and go on.',
            )

    def unknown_command(self) -> None:
        if not self.load("unknown command"):
            return
        reply = self.request({"cmd": "palconf-smoke-no-such-command"})
        self.expect_error("unknown command", reply, "unknown-command", "an unknown `cmd`")

    def bad_json(self) -> None:
        if not self.load("bad json"):
            return
        reply = self.engine.request_line(b'{"cmd": "observe"', "a line that is not JSON")
        self.expect_error("bad json", reply, "bad-json", "a line that is not JSON")

    def bad_request(self) -> None:
        if not self.load("bad request"):
            return
        reply = self.engine.request_line(b'["observe"]', "a JSON array")
        self.expect_error("bad request", reply, "bad-request", "a JSON value that is not an object")

    def legal(self) -> None:
        if not self.load("legal"):
            return
        reply = self.request({"cmd": "legal"})
        problem = check_reply_shape("legal", reply)
        if problem or reply.get("ok") is not True:
            self.add(
                "legal",
                "warn",
                terminal_safe(
                    f"`legal` is listed in `commands` but its reply is {problem or shown(reply)}",
                    LIMIT,
                ),
                'Answer {"ok": true, "actions": [ACTION, ...]}, or leave "legal" out of '
                "`commands`.",
            )
        else:
            self.add("legal", "ok", f"{len(reply['actions'])} legal action(s), well formed")

    def bye(self) -> None:
        reply = self.request({"cmd": "bye"})
        if not (isinstance(reply, dict) and reply.get("ok") is True):
            self.add(
                "bye",
                "FAIL",
                f"`bye` was answered {shown(reply)}",
                'Answer {"ok": true}, then exit.',
            )
        elif not self.engine.wait_exit(2.0):
            self.add(
                "bye",
                "FAIL",
                "the engine did not exit within 2 s of answering `bye`",
                "Exit after answering `bye` (palconf kills engines that do not).",
            )
        else:
            self.add("bye", "ok", "answered, and the engine exited")
        self.alive = False


def main(args: argparse.Namespace) -> int:
    engine = make_engine(args)
    assert isinstance(engine, ProcessEngine)  # --engine-cmd is required
    smoke = Smoke(engine)
    try:
        smoke.run()
    finally:
        engine.close()
    failed = [c for c in smoke.checks if c.status == "FAIL"]
    try:
        covering(smoke.checks, load_cases())
    except PalconfError:  # no suite to point at (a broken or missing cases folder): checks only
        pass
    if args.format == "json":
        report = {
            "engine_cmd": args.engine_cmd,
            "ok": not failed,
            "checks": [asdict(c) for c in smoke.checks],
        }
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(render_text(args.engine_cmd, smoke.checks)))
    return 1 if failed else 0
