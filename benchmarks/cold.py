"""One cold in-process run, in a fresh interpreter: import, load every case, run them all on
the oracle. Prints one JSON object (seconds for each part, the case count, the outcomes,
peak RSS). Run by benchmarks/run.py in a child process, so that no cache is warm."""

from __future__ import annotations

import json
import resource
import sys
import time
from collections import Counter


def main() -> int:
    t0 = time.perf_counter()
    from palconf.cases.loader import load_cases
    from palconf.engines.oracle_engine import OracleEngine
    from palconf.running.supervisor import run_cases

    t1 = time.perf_counter()
    cases = load_cases()
    t2 = time.perf_counter()
    engine = OracleEngine()
    engine.start()
    outcomes = Counter(r.outcome for r in run_cases(engine, cases))
    t3 = time.perf_counter()
    print(
        json.dumps(
            {
                "import_s": t1 - t0,
                "load_s": t2 - t1,
                "run_s": t3 - t2,
                "cases": len(cases),
                "outcomes": dict(outcomes),
                "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
