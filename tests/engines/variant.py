"""The reference oracle behind protocol v1, varied for tests of what `palconf run` shows:

    python tests/engines/variant.py [--sleep SECONDS] [--drop KEYWORD ...] [--name NAME]

`--sleep` waits before every reply but `hello` (a slow engine); `--drop` leaves keywords out
of `hello` (cases that need them are skipped); `--name` is the name `hello` gives.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from palconf.oracle import Session  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--drop", action="append", default=[])
    parser.add_argument("--name", default="variant-engine")
    args = parser.parse_args()
    session = Session(name=args.name)
    for line in sys.stdin:
        request = json.loads(line)
        reply = session.handle(request)
        if request.get("cmd") == "hello":
            reply["keywords"] = [k for k in reply["keywords"] if k not in args.drop]
        elif args.sleep:
            time.sleep(args.sleep)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if request.get("cmd") == "bye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
