"""Fake engines: the reference oracle behind protocol v1, broken in one chosen way (like
Bowtie's fake implementations). Which kind does what a user should then see is data, in
tests/engines/fake_kinds.toml; tests/test_fake_engines.py runs every kind through
`palconf run` and `palconf smoke`.

    python tests/engines/fake.py KIND [--on FINGERPRINT] [--at CMD] [--marker FILE]
                                      [--pidfile FILE] [--setups FILE]

`--on` arms the fault for the case whose `setup` state has this fingerprint (`fingerprint`:
the first 12 hex digits of the SHA-256 of the state as compact sorted JSON); without it the
fault fires on every case. `--at` is the request of the armed case that misbehaves (default
`act`). The fingerprint survives a restart, so a restarted engine breaks on that case only,
which the harness never runs twice. Kinds about `hello` (or the start) fire at every start.
`--pidfile` appends a line `PID` at each start, and `PID child` (or `PID daemon`) for every
process the engine starts: a test checks that palconf left none of them behind. `--marker` is
the file in which `crash-then-bad-hello` remembers its crash. `--setups` appends a line `PID
FINGERPRINT` for every `setup` request, as it comes: a case whose engine got another `setup`
after it was finished (tests/test_signals.py counts them).

`KINDS` lists every kind with a line on what it does. tests/engines/broken.py is this
engine under its older name.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, BinaryIO

from palconf.oracle import Session

#: kind → what the engine does (at the armed request unless said otherwise)
KINDS: dict[str, str] = {
    "ok": "behaves",
    "crash": "exits with status 3, after a line on stderr",
    "crash-status-1": "exits with status 1",
    "crash-status-255": "exits with status 255",
    "segv": "kills itself with SIGSEGV",
    "sigkill-self": "kills itself with SIGKILL",
    "exit-0-at-start": "exits with status 0 at once, before reading anything (every start)",
    "exit-at-hello": "exits with status 4 when asked `hello` (every start)",
    "crash-then-bad-hello": "crashes like `crash`; the next start exits at `hello`, once",
    "hang-hello": "never answers `hello` (every start)",
    "hang": "never answers",
    "ignore-sigterm": "ignores SIGTERM, then never answers",
    "hang-at-bye": "never answers `bye`",
    "ignore-eof-at-bye": "answers `bye`, then ignores end of input and SIGTERM, and stays",
    "partial-then-hang": "writes the first half of its reply, then never the rest",
    "partial-then-exit": "writes the first half of its reply, then exits with status 5",
    "oversized": "answers with a 2 MiB line",
    "oversized-no-newline": "writes 2 MiB with no end of line, then hangs",
    "garbage": "answers with a line that is not JSON",
    "empty-line": "answers with an empty line",
    "bad-utf8": "answers with bytes that are not UTF-8",
    "nan": "answers with NaN, which strict JSON has not",
    "infinity": "answers with Infinity, which strict JSON has not",
    "json-array": "answers with a JSON array",
    "json-string": "answers with a JSON string",
    "json-number": "answers with a JSON number",
    "wrong-shape": 'answers `observe` without `cards` (and anything else with `ok` "yes")',
    "wrong-type": "answers `observe` with `turn` a string",
    "wrong-id": "answers `observe` with a number where a card id goes",
    "out-of-order": "answers the previous request again (its own answer is never sent)",
    "reply-twice": "answers twice, in one write",
    "junk": "writes a log line to stdout before its answer",
    "junk-after": "writes a log line to stdout after its answer",
    "accept-all": "accepts every `act` without doing anything",
    "unknown-act": "answers every `act` with the error `unknown-command` (a toy engine)",
    "stderr": "writes 200 KB to stderr before answering (then answers correctly)",
    "stderr-flood": "writes 50 MB to stderr before answering (then answers correctly)",
    "stdout-closed": "closes its stdout and stays",
    "fork-holds-stdout": "forks a child that keeps stdout open, then exits with status 6",
    "setsid-child": "starts a child in a session of its own, then never answers",
    "setsid-then-crash": "starts a child in a session of its own (holding stdout), exits 7",
    "setsid-orphan": "starts a daemon (double fork, setsid) and answers correctly",
    "never-reads": "answers, then never reads its stdin again",
    "slow-reader": "from then on reads its stdin one byte every 20 ms",
    "hello-wrong-version": "refuses `hello`: it speaks protocol 2 only (every start)",
    "hello-no-name": "answers `hello` without `engine.name` (every start)",
    "name-escapes": "calls itself ESC, NUL and BEL; answers `act` with such an error",
    "surrogate": "answers `act` with an error whose message holds a lone surrogate",
    "deep": "answers with a 2 KB reply nested 1,000 deep",
    "deep-at-hello": "answers `hello` with a 2 KB reply nested 1,000 deep (every start)",
    "deep-in-strings": "answers correctly, with 1,000 brackets inside a string (no nesting)",
    "duplicate-ok": 'refuses, then accepts, in one reply: `{"ok": false, …, "ok": true}`',
    "duplicate-key-deep": "answers `observe` with a key twice in a nested object",
    "stdin-closed": "closes its stdin, then answers and stays",
}

NAME = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else "fake"
SLEEP = "import time; time.sleep(3600)"


def fingerprint(state: Any) -> str:
    data = json.dumps(state, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()[:12]


class Fake:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.kind: str = args.kind
        self.out: BinaryIO = sys.stdout.buffer
        self.session = Session(name=f"{NAME}-engine")
        self.previous: Any = None
        self.slow = False

    def log_pid(self, pid: int, what: str = "") -> None:
        if self.args.pidfile:
            with open(self.args.pidfile, "a") as f:
                f.write(f"{pid} {what}".rstrip() + "\n")

    def log_setup(self, state: Any) -> None:
        if self.args.setups:
            with open(self.args.setups, "a") as f:
                f.write(f"{os.getpid()} {fingerprint(state)}\n")

    def write(self, data: bytes) -> None:
        self.out.write(data)
        self.out.flush()

    def send(self, reply: Any) -> None:
        self.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")

    def stderr(self, text: str) -> None:
        sys.stderr.write(f"{NAME} engine: {text}\n")
        sys.stderr.flush()

    def lines(self) -> Any:
        stdin = sys.stdin.buffer
        while True:
            if not self.slow:
                line = stdin.readline()
            else:
                line = b""
                while not line.endswith(b"\n"):
                    byte = stdin.read(1)
                    if not byte:
                        break
                    line += byte
                    time.sleep(0.02)
            if not line:
                return
            yield line

    # -- the start and `hello`: every start

    def hello(self, request: dict[str, Any]) -> bool:
        """Misbehave at `hello`, or adjust its reply; True when the request is handled."""
        kind, marker = self.kind, self.args.marker
        if kind == "exit-at-hello":
            self.stderr("exiting at hello")
            sys.exit(4)
        if kind == "crash-then-bad-hello" and marker and os.path.exists(marker):
            os.remove(marker)
            self.stderr("exiting at hello after a crash")
            sys.exit(4)
        if kind == "hang-hello":
            time.sleep(3600)
        if kind == "deep-at-hello":
            self.write(DEEP)
            return True
        reply = self.session.handle(request)
        if kind == "hello-wrong-version":
            reply = {"ok": False, "error": "unsupported", "message": "this engine speaks 2 only"}
        elif kind == "hello-no-name":
            del reply["engine"]["name"]
        elif kind == "name-escapes":
            reply["engine"]["name"] = "evil\x1b[31mred\x00nul\x07bel"
        self.send(reply)
        return True

    # -- the armed request

    def misbehave(self, cmd: str, reply: dict[str, Any]) -> None:
        kind = self.kind
        handler = getattr(self, "k_" + kind.replace("-", "_"), None)
        if handler is not None:
            handler(cmd, reply)
            return
        canned = CANNED.get(kind)
        if canned is not None:
            self.write(canned)
            return
        raise SystemExit(f"{NAME}: no behaviour for kind {kind!r}")

    def k_crash(self, cmd: str, reply: Any) -> None:
        if self.args.marker:
            open(self.args.marker, "w").close()
        self.stderr(f"crashing on purpose at `{cmd}`")
        sys.exit(3)

    k_crash_then_bad_hello = k_crash

    def k_crash_status_1(self, cmd: str, reply: Any) -> None:
        sys.exit(1)

    def k_crash_status_255(self, cmd: str, reply: Any) -> None:
        sys.exit(255)

    def k_segv(self, cmd: str, reply: Any) -> None:
        os.kill(os.getpid(), signal.SIGSEGV)
        time.sleep(5)

    def k_sigkill_self(self, cmd: str, reply: Any) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    def k_hang(self, cmd: str, reply: Any) -> None:
        time.sleep(3600)

    k_hang_at_bye = k_hang

    def k_ignore_sigterm(self, cmd: str, reply: Any) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(3600)

    def k_ignore_eof_at_bye(self, cmd: str, reply: Any) -> None:
        self.send(reply)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdin.close()
        time.sleep(3600)

    def k_partial_then_hang(self, cmd: str, reply: Any) -> None:
        self.write(b'{"ok": tr')
        time.sleep(3600)

    def k_partial_then_exit(self, cmd: str, reply: Any) -> None:
        self.write(b'{"ok": tr')
        sys.exit(5)

    def k_oversized(self, cmd: str, reply: Any) -> None:
        self.write(b'{"ok":true,"pad":"' + b"x" * (2 << 20) + b'"}\n')

    def k_oversized_no_newline(self, cmd: str, reply: Any) -> None:
        self.write(b'{"ok":true,"pad":"' + b"x" * (2 << 20))
        time.sleep(3600)

    def k_wrong_shape(self, cmd: str, reply: Any) -> None:
        if cmd == "observe" and reply.get("ok"):
            del reply["state"]["cards"]
        else:
            reply["ok"] = "yes"
        self.send(reply)

    def k_wrong_type(self, cmd: str, reply: Any) -> None:
        reply["state"]["turn"] = str(reply["state"]["turn"])
        self.send(reply)

    def k_wrong_id(self, cmd: str, reply: Any) -> None:
        reply["state"]["players"]["A"]["battle"].append(7)
        self.send(reply)

    def k_out_of_order(self, cmd: str, reply: Any) -> None:
        self.send(self.previous)

    def k_reply_twice(self, cmd: str, reply: Any) -> None:
        line = json.dumps(reply).encode() + b"\n"
        self.write(line + line)

    def k_junk(self, cmd: str, reply: Any) -> None:
        self.out.write(b"DEBUG: got a request\n")
        self.send(reply)

    def k_junk_after(self, cmd: str, reply: Any) -> None:
        self.send(reply)
        self.write(b"DEBUG: answered\n")

    def k_stderr(self, cmd: str, reply: Any) -> None:
        sys.stderr.write(("chatter " * 20 + "\n") * 1300)  # about 200 KB
        sys.stderr.flush()
        self.send(reply)

    def k_stderr_flood(self, cmd: str, reply: Any) -> None:
        block = ("flood " * 15 + "\n").encode() * 11_000  # about 1 MB
        for _ in range(50):
            sys.stderr.buffer.write(block)
        sys.stderr.buffer.write(b"flood: the end\n")
        sys.stderr.flush()
        self.send(reply)

    def k_stdout_closed(self, cmd: str, reply: Any) -> None:
        self.out.close()
        os.close(1)
        time.sleep(3600)

    def k_fork_holds_stdout(self, cmd: str, reply: Any) -> None:
        pid = os.fork()
        if pid == 0:  # the child keeps every pipe open
            time.sleep(3600)
            os._exit(0)
        self.log_pid(pid, "child")
        self.stderr("exiting; my child keeps stdout open")
        os._exit(6)

    def spawn_setsid(self) -> None:
        child = subprocess.Popen([sys.executable, "-c", SLEEP], start_new_session=True)
        self.log_pid(child.pid, "child")

    def k_setsid_child(self, cmd: str, reply: Any) -> None:
        self.spawn_setsid()
        time.sleep(3600)

    def k_setsid_then_crash(self, cmd: str, reply: Any) -> None:
        self.spawn_setsid()
        os._exit(7)

    def k_setsid_orphan(self, cmd: str, reply: Any) -> None:
        middle = os.fork()
        if middle == 0:  # the classic daemon: fork, setsid, fork, the middle one exits
            os.setsid()
            daemon = os.fork()
            if daemon == 0:
                self.log_pid(os.getpid(), "daemon")
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                time.sleep(3600)
            os._exit(0)
        self.log_pid(middle, "child")
        os.waitpid(middle, 0)
        self.send(reply)

    def k_never_reads(self, cmd: str, reply: Any) -> None:
        self.send(reply)
        time.sleep(3600)

    def k_slow_reader(self, cmd: str, reply: Any) -> None:
        self.send(reply)
        self.slow = True

    def k_name_escapes(self, cmd: str, reply: Any) -> None:
        self.send({"ok": False, "error": "internal", "message": "boom\x1b[2J\x00\x07"})

    def k_surrogate(self, cmd: str, reply: Any) -> None:
        self.write(b'{"ok": false, "error": "internal", "message": "bad \\ud800 here"}\n')

    def k_deep_in_strings(self, cmd: str, reply: Any) -> None:
        reply["note"] = "[{" * 500
        self.send(reply)

    def k_duplicate_key_deep(self, cmd: str, reply: Any) -> None:
        text = json.dumps(reply)
        assert '"state": {' in text and '"turn": ' in text
        self.write(text.replace('"state": {', '"state": {"turn": -1, ', 1).encode() + b"\n")

    def k_stdin_closed(self, cmd: str, reply: Any) -> None:
        # closed before the reply goes out: palconf's next request then meets a closed pipe
        # every time (closed after it, a request written first would wait for a timeout)
        os.close(0)
        self.send(reply)
        time.sleep(3600)

    def k_accept_all(self, cmd: str, reply: Any) -> None:
        self.send({"ok": True} if cmd == "act" else reply)

    # -- the loop

    def run(self) -> int:
        self.log_pid(os.getpid())
        if self.kind == "exit-0-at-start":
            return 0
        armed = False
        for line in self.lines():
            try:
                request = json.loads(line)
            except ValueError as e:
                self.send({"ok": False, "error": "bad-json", "message": str(e)})
                continue
            cmd = request.get("cmd") if isinstance(request, dict) else None
            if cmd == "hello" and self.hello(request):
                continue
            if cmd == "setup":
                self.log_setup(request.get("state"))
                armed = self.args.on is None or fingerprint(request.get("state")) == self.args.on
            if self.kind == "accept-all" and cmd == "act":
                self.send({"ok": True})
                continue
            if self.kind == "unknown-act" and cmd == "act":
                self.send({"ok": False, "error": "unknown-command", "message": "act"})
                continue
            reply = self.session.handle(request)
            if armed and cmd == self.args.at and self.kind != "ok":
                self.misbehave(str(cmd), reply)
            else:
                self.send(reply)
            self.previous = reply
            if cmd == "bye":
                return 0
        return 0


#: a reply nested 1,000 deep, 2 KB (Python's decoder would exhaust its stack on it)
DEEP = b"[" * 1000 + b"]" * 1000 + b"\n"

#: kinds whose whole misbehaviour is one fixed line
CANNED: dict[str, bytes] = {
    "deep": b'{"ok": true, "note": ' + b"[" * 1000 + b"]" * 1000 + b"}\n",
    "duplicate-ok": b'{"ok": false, "error": "illegal", "message": "no", "ok": true}\n',
    "garbage": b"this is not JSON at all\n",
    "empty-line": b"\n",
    "bad-utf8": b'{"ok": true, "note": "\xff\xfe"}\n',
    "nan": b'{"ok": true, "note": NaN}\n',
    "infinity": b'{"ok": true, "note": Infinity}\n',
    "json-array": b'[true, "ok"]\n',
    "json-string": b'"ok"\n',
    "json-number": b"42\n",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=NAME)
    parser.add_argument("kind", choices=tuple(KINDS), metavar="KIND")
    parser.add_argument("--on", default=None, help="fingerprint of the case's setup state")
    parser.add_argument("--at", default="act", help="the request that misbehaves")
    parser.add_argument("--marker", default=None, help="file for crash-then-bad-hello")
    parser.add_argument("--pidfile", default=None, help="append the process ids to this file")
    parser.add_argument("--setups", default=None, help="append `PID FINGERPRINT` per setup")
    return Fake(parser.parse_args(argv)).run()


if __name__ == "__main__":
    sys.exit(main())
