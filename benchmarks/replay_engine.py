"""A replay engine: answers every request at once with the next reply the oracle gave in a
recorded run (a JSON Lines file, argument 1), and does no game logic.

It is the null engine (tests/engines/null_engine.py) made fair as a ceiling: the null
engine's fixed answers make every case fail at its first check, so a run against it sends
about half the requests of a real run; replaying the oracle's answers sends exactly the
requests of a real run and gets every verdict `pass`, so the harness does all of its work
and the engine none. Valid only for the very cases, in the very order, of the recording.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> int:
    with open(argv[1], "rb") as f:
        hello, *replies = f.read().splitlines(keepends=True)
    out = sys.stdout.buffer
    nxt = iter(replies)
    for line in sys.stdin.buffer:
        cmd = json.loads(line).get("cmd")  # parsed, as the null engine does: the same work
        if cmd == "hello":
            out.write(hello)
        elif cmd == "bye":
            out.write(b'{"ok":true}\n')
        else:
            out.write(next(nxt, b'{"ok":false,"error":"internal","message":"replay ran out"}\n'))
        out.flush()
        if cmd == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
