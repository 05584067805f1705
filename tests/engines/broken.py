"""A deliberately broken engine, for testing the harness (like Bowtie's fake implementations).

It is the reference oracle (`oracle.Session`) behind protocol v1, except that it misbehaves
in one chosen way on one chosen case:

    python tests/engines/broken.py MODE [--on FINGERPRINT] [--at CMD] [--marker FILE]
                                        [--pidfile FILE]

`--on` arms the fault for the case whose `setup` state has this fingerprint (`fingerprint`
below: the first 12 hex digits of the SHA-256 of the state as compact sorted JSON); without
it the fault fires on every case. `--at` is the request of the armed case that misbehaves
(default `act`: the middle of the case). `--pidfile` appends the process id at start, so a
test can check that palconf killed every engine it started. The fingerprint survives a
restart, so a restarted engine breaks on that case only, which the harness never runs twice.

Modes:
  ok              behave
  crash           exit with status 3 (after a line on stderr)
  hang            never answer
  garbage         answer with a line that is not JSON
  oversized       answer with a 2 MiB line
  wrong-shape     answer `observe` without `cards` (and `act` with `"ok": "yes"`)
  junk            write a log line to stdout before the answer
  junk-after      write a log line to stdout after the answer
  stderr          write 200 KB to stderr before answering (then answer correctly)
  accept-all      answer every `act` with {"ok": true}, doing nothing
  exit-at-hello   exit with status 4 when asked `hello` (at every start)
  crash-then-bad-hello
                  crash like `crash`, and the next start exits at `hello` once (the marker
                  file `--marker` remembers the crash); the start after that works
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from typing import Any

from oracle import Session

MODES = (
    "ok",
    "crash",
    "hang",
    "garbage",
    "oversized",
    "wrong-shape",
    "junk",
    "junk-after",
    "stderr",
    "exit-at-hello",
    "crash-then-bad-hello",
    "accept-all",
)


def fingerprint(state: Any) -> str:
    data = json.dumps(state, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(data).hexdigest()[:12]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("--on", default=None, help="fingerprint of the case's setup state")
    parser.add_argument("--at", default="act", help="the request that misbehaves")
    parser.add_argument("--marker", default=None, help="file for crash-then-bad-hello")
    parser.add_argument("--pidfile", default=None, help="append the process id to this file")
    args = parser.parse_args()
    if args.pidfile:
        with open(args.pidfile, "a") as f:
            f.write(f"{os.getpid()}\n")
    session = Session(name="broken-engine")
    out = sys.stdout.buffer
    armed = False

    def send(reply: Any) -> None:
        out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        out.flush()

    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError as e:
            send({"ok": False, "error": "bad-json", "message": str(e)})
            continue
        cmd = request.get("cmd") if isinstance(request, dict) else None
        if cmd == "hello":
            if args.mode == "exit-at-hello":
                sys.stderr.write("broken engine: exiting at hello\n")
                return 4
            if args.mode == "crash-then-bad-hello" and args.marker and os.path.exists(args.marker):
                os.remove(args.marker)
                sys.stderr.write("broken engine: exiting at hello after a crash\n")
                return 4
        if cmd == "setup":
            armed = args.on is None or fingerprint(request.get("state")) == args.on
        if args.mode == "accept-all" and cmd == "act":
            send({"ok": True})
            continue
        reply = session.handle(request)
        if not (armed and cmd == args.at) or args.mode == "ok":
            send(reply)
            if cmd == "bye":
                return 0
            continue
        mode = args.mode
        if mode in ("crash", "crash-then-bad-hello"):
            if args.marker:
                open(args.marker, "w").close()
            sys.stderr.write(f"broken engine: crashing on purpose at `{cmd}`\n")
            sys.stderr.flush()
            return 3
        if mode == "hang":
            time.sleep(3600)
        elif mode == "garbage":
            out.write(b"this is not JSON at all\n")
            out.flush()
        elif mode == "oversized":
            out.write(b'{"ok":true,"pad":"' + b"x" * (2 << 20) + b'"}\n')
            out.flush()
        elif mode == "wrong-shape":
            if cmd == "observe" and reply.get("ok"):
                del reply["state"]["cards"]
            else:
                reply["ok"] = "yes"
            send(reply)
        elif mode == "junk":
            out.write(b"DEBUG: got a request\n")
            send(reply)
        elif mode == "junk-after":
            send(reply)
            out.write(b"DEBUG: answered\n")
            out.flush()
        elif mode == "stderr":
            sys.stderr.write(("chatter " * 20 + "\n") * 1300)  # about 200 KB
            sys.stderr.flush()
            send(reply)
        else:
            send(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
