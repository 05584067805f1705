"""A slow engine: the oracle (or a mutant) as `palconf serve` serves it, waiting a fixed
delay before every reply, as an engine that rebuilds its state or crosses a network does.

    python -m benchmarks.slow_engine DELAY_MS [MUTANT]

The wait is a sleep, not work: the engine waits rather than computes, so N of them on a
2-core machine answer N times as many requests (benchmarks/parallel.py, `palconf run -j`).
"""

from __future__ import annotations

import sys
import time
from typing import Any

from palconf.commands.serve import serve
from palconf.oracle import Session


class SlowSession(Session):
    def __init__(self, delay: float, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.delay = delay

    def handle(self, request: Any) -> dict[str, Any]:
        time.sleep(self.delay)
        reply: dict[str, Any] = super().handle(request)
        return reply


def main(argv: list[str]) -> int:
    delay = float(argv[1]) / 1000
    if len(argv) > 2:
        from palconf import mutants

        m = mutants.get(argv[2])
        session = SlowSession(delay, m.rules, name=f"palconf-mutant:{m.name}")
    else:
        session = SlowSession(delay)
    return serve(session, sys.stdin, sys.stdout)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
