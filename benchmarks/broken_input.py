"""Issue 25's speed figures for broken input, printed (not asserted):

- loader error reporting (class 9): a case whose one expectation names N unknown card ids,
  for N = 250, 1000, 4000: seconds to load it and list every error (each error locates
  its line: it was a rescan of the file per error, 23 s at 1,000 and 206 s at 4,000);
- the one JSON reader (class 6): microseconds per reply, for a typical `observe` reply and
  a 2 KB one nested 1,000 deep, against Python's own decoder.

    python -m benchmarks.broken_input
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

SEEDS = (250, 1000, 4000)

#: a case of the broken-case corpus whose expectation names one unknown card, `zz`
SAMPLE = (
    Path(__file__).resolve().parent.parent
    / "tests"
    / "data"
    / "broken-cases"
    / "refs"
    / "unknown-card-in-expect.toml"
)


def loader(n: int) -> tuple[float, int]:
    from palconf.cases.loader import CaseLoadError, load_cases

    with tempfile.TemporaryDirectory() as tmp:
        text = SAMPLE.read_text(encoding="utf-8").replace("unknown-card-in-expect", "many")
        cards = ", ".join(f"u{i} = {{ power = 1 }}" for i in range(n))
        (Path(tmp) / "many.toml").write_text(text.replace("zz = { power = 3200 }", cards))
        t = time.perf_counter()
        try:
            load_cases(Path(tmp))
            errors = 0
        except CaseLoadError as e:
            errors = len(e.errors)
        return time.perf_counter() - t, errors


def json_reader() -> dict[str, float]:
    from palconf.core import json_read

    observe = json.dumps(
        {
            "ok": True,
            "state": {
                "turn": 3,
                "players": {p: {"life": 5, "battle": [f"{p}{i}" for i in range(5)]} for p in "AB"},
                "cards": {
                    f"A{i}": {"power": 1000 * i, "keywords": ["Brave 200"]} for i in range(10)
                },
            },
        }
    )
    deep = "[" * 1000 + "]" * 1000
    figures = {}
    for label, text in (("observe", observe), ("deep", deep)):
        for name, fn in (("json_read", json_read.loads), ("json", json.loads)):
            reps = 2000
            t = time.perf_counter()
            for _ in range(reps):
                try:
                    fn(text)
                except (ValueError, RecursionError):
                    pass
            figures[f"{label}_{name}_us"] = round((time.perf_counter() - t) / reps * 1e6, 1)
    return figures


def main() -> int:
    for n in SEEDS:
        seconds, errors = loader(n)
        print(f"loader: {n} unknown card ids: {errors} error(s) in {seconds:.2f} s")
    for name, us in json_reader().items():
        print(f"json: {name}: {us} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
