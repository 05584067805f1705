"""Benchmarks: how fast palconf loads and runs its cases, drives an engine process, fuzzes.

    python -m benchmarks [--repeat 5] [--per-case 20] [--fuzz-examples 200] [--cpu N]
                         [--out FILE] [--baseline FILE] [--keep-env]

Prints a table; writes the figures as JSON only when asked, to `--out FILE` (the tracked
benchmarks/results.json, which the README's figures quote, is rewritten only by
`--out benchmarks/results.json`). Asserts nothing; not part of the test run. Every figure
is measured `--repeat` times, in rounds that measure each figure once; the table shows the
median, the lowest and the highest. Ratios are taken within each round (both figures under
the same load of the machine) and their median is shown. What is measured:

- in-process (benchmarks/cold.py, a fresh interpreter each round): importing palconf,
  loading every case (TOML, schema, cross-checks), running them all on the oracle. cases/s
  counts the run alone; "load + run" is the figure of the 0.5 s target.
- persistent adapter: every case through `ProcessEngine` to one `palconf serve` process,
  started before the clock starts (how `palconf run --engine-cmd` works).
- process per case: a sample of `--per-case` cases spread over the set, each with a
  `palconf serve` of its own: started, said hello, run, told bye (how toml-test and test262
  run engines). The ratio persistent / per-case is the figure to quote.
- null engine (tests/engines/null_engine.py): answers every request at once with a fixed
  reply. Its answers are wrong, so every case stops at its first check and sends about
  half the requests of a real run: compare it per request, not per case.
- replay engine (benchmarks/replay_engine.py): answers at once with the replies the oracle
  gave: exactly the requests of a real run, every case passes, no game logic: the ceiling
  of the pipe in cases/s.
- fuzzing (benchmarks/fuzz_bench.py): the whole `fuzz` loop on `--fuzz-examples` games of
  up to `--max-actions` actions (seed 0, no shrinking), the oracle against itself
  in-process and against `palconf serve`: actions compared per second, drawing the games
  included (fuzzing cannot do without it); and the comparison alone, on games drawn
  beforehand. Once, after the rounds: what each part of the oracle costs per action.
- peak memory: ru_maxrss of a child `palconf run --results FILE` (the oracle in-process),
  and that command's wall time, interpreter start-up included.

A round trip through a pipe costs about three times as much when the two processes run on
different CPUs of an idle machine (the sleeping CPU must be woken) as on one CPU or on a
busy machine: `--cpu N` pins everything to CPU N, for steadier figures of the pipe.

Child processes run with bytecode caching on (`PYTHONPYCACHEPREFIX` in the temp folder)
even when PYTHONDONTWRITEBYTECODE is set: start-up then costs what it costs an installed
palconf, not a compile of every module. `--keep-env` leaves the environment alone.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from palconf.cases.loader import Case, load_cases
from palconf.engines import BaseEngine, Engine, OracleEngine
from palconf.engines.process import ProcessEngine
from palconf.running.runner import run_case
from palconf.running.supervisor import run_cases

from . import fuzz_bench

ROOT = Path(__file__).resolve().parent.parent
NULL_ENGINE = ROOT / "tests" / "engines" / "null_engine.py"
REPLAY_ENGINE = Path(__file__).with_name("replay_engine.py")
TRACKED_JSON = Path(__file__).with_name("results.json")
SERVE = [sys.executable, "-m", "palconf.cli", "serve"]
FUZZ_SEED = 0

#: The targets of issue 10, on a 2-core machine.
TARGET_LOAD_AND_RUN_S = 0.5
TARGET_SHARE_OF_CEILING = 0.40
TARGET_PERSISTENT_OVER_PER_CASE = 50.0
TARGET_FUZZ_ACTIONS_PER_S = 1000.0


@dataclass
class Figure:
    key: str  # its name in the JSON
    label: str  # its name in the table
    unit: str
    higher_is_better: bool = True
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else float("nan")

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "unit": self.unit,
            "median": self.median,
            "min": min(self.samples, default=None),
            "max": max(self.samples, default=None),
            "higher_is_better": self.higher_is_better,
            "samples": self.samples,
        }


FIGURES: dict[str, Figure] = {
    f.key: f
    for f in [
        Figure("import_s", "import palconf", "s", False),
        Figure("load_s", "load the cases", "s", False),
        Figure("run_s", "run the cases in-process", "s", False),
        Figure("load_run_s", "load + run in-process", "s", False),
        Figure("inprocess_cases", "in-process", "cases/s"),
        Figure("serve_cases", "persistent adapter (palconf serve)", "cases/s"),
        Figure("serve_requests", "persistent adapter (palconf serve)", "req/s"),
        Figure("per_case_cases", "process per case (palconf serve)", "cases/s"),
        Figure("startup_s", "palconf serve start-up, to hello", "s", False),
        Figure("null_cases", "null engine", "cases/s"),
        Figure("null_requests", "null engine", "req/s"),
        Figure("replay_cases", "replay engine (the ceiling)", "cases/s"),
        Figure("fuzz_inprocess", "fuzz in-process", "actions/s"),
        Figure("compare_inprocess", "fuzz comparison only, in-process", "actions/s"),
        Figure("fuzz_adapter", "fuzz through the adapter", "actions/s"),
        Figure("run_wall_s", "palconf run, wall time", "s", False),
        Figure("run_rss_mb", "palconf run, peak RSS", "MB", False),
    ]
}


def record(key: str, value: float) -> None:
    FIGURES[key].samples.append(value)


# ---------------------------------------------------------------- environment of children


def child_env(keep: bool) -> dict[str, str]:
    env = dict(os.environ)
    if not keep:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "palconf-bench-pycache")
    return env


# ---------------------------------------------------------------- the measurements


def cold_in_process(env: Mapping[str, str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.cold"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: dict[str, Any] = json.loads(out.stdout)
    record("import_s", figures["import_s"])
    record("load_s", figures["load_s"])
    record("run_s", figures["run_s"])
    record("load_run_s", figures["load_s"] + figures["run_s"])
    record("inprocess_cases", figures["cases"] / figures["run_s"])
    return figures


class Counting(BaseEngine):
    """Counts the requests going to an engine (one attribute lookup and an addition each)."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.requests = 0

    def start(self) -> Any:
        self.info = self.inner.start()
        return self.info

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.requests += 1
        return self.inner.request(msg)

    def take_stderr(self) -> str:
        return self.inner.take_stderr()

    def close(self) -> None:
        self.inner.close()

    @property
    def broken(self) -> bool:
        return bool(getattr(self.inner, "broken", False))


def whole_run(
    argv: list[str],
    cases: list[Case],
    env: Mapping[str, str],
) -> tuple[float, float, dict[str, int]]:
    """Every case through one engine process: (cases/s, requests/s, outcomes)."""
    engine = Counting(ProcessEngine(argv, env=env))
    engine.start()
    outcomes: dict[str, int] = {}
    start = time.perf_counter()
    for result in run_cases(engine, cases):
        outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
    elapsed = time.perf_counter() - start
    requests = engine.requests
    engine.close()
    return len(cases) / elapsed, requests / elapsed, outcomes


def process_per_case(sample: list[Case], env: Mapping[str, str]) -> dict[str, int]:
    outcomes: dict[str, int] = {}
    startups = []
    start = time.perf_counter()
    for case in sample:
        engine = ProcessEngine(SERVE, env=env)
        t = time.perf_counter()
        engine.start()
        startups.append(time.perf_counter() - t)
        outcome = run_case(engine, case).outcome
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        engine.close()
    record("per_case_cases", len(sample) / (time.perf_counter() - start))
    record("startup_s", statistics.median(startups))
    return outcomes


def fuzz_rate(engine: Engine, examples: int, max_actions: int) -> float:
    """Actions compared per second by the whole fuzz loop (benchmarks/fuzz_bench.py)."""
    engine.start()
    try:
        return fuzz_bench.fuzz_loop(engine, examples, FUZZ_SEED, max_actions)["per_s_wall"]
    finally:
        engine.close()


def palconf_run(env: Mapping[str, str]) -> None:
    """Wall time and peak RSS of `palconf run` in a child (os.wait4 gives its rusage)."""
    with tempfile.TemporaryDirectory() as tmp, open(Path(tmp) / "stderr", "w+b") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "palconf.cli",
                "run",
                "--results",
                str(Path(tmp) / "results.jsonl"),
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read()
    if proc.returncode != 0:
        raise SystemExit(
            f"benchmarks: `palconf run` exited with {proc.returncode}: "
            f"{stderr.decode(errors='replace')[-500:]}"
        )
    record("run_wall_s", wall)
    record("run_rss_mb", usage.ru_maxrss / 1024)  # Linux: kilobytes


def record_replies(cases: list[Case], path: Path) -> None:
    """The oracle's replies to a whole run, one JSON line each, `hello` first."""

    class Recording(OracleEngine):
        def request(self, msg: dict[str, Any]) -> dict[str, Any]:
            reply = super().request(msg)
            lines.append(json.dumps(reply, separators=(",", ":")))
            return reply

    engine = Recording()
    lines = [json.dumps(engine.session.hello(), separators=(",", ":"))]
    engine.start()
    list(run_cases(engine, cases))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ---------------------------------------------------------------- reporting

RATIOS = {  # name: (numerator, denominator), keys of FIGURES
    "persistent / process per case (cases/s)": ("serve_cases", "per_case_cases"),
    "persistent / replay ceiling (cases/s)": ("serve_cases", "replay_cases"),
    "persistent / null engine (req/s)": ("serve_requests", "null_requests"),
    "in-process / persistent (cases/s)": ("inprocess_cases", "serve_cases"),
    "fuzz: adapter / in-process (actions/s)": ("fuzz_adapter", "fuzz_inprocess"),
}


def round_ratios() -> dict[str, float]:
    """The ratios within the round just measured: both figures under the same load."""
    return {
        name: FIGURES[a].samples[-1] / FIGURES[b].samples[-1] for name, (a, b) in RATIOS.items()
    }


def targets(r: Mapping[str, float]) -> list[tuple[str, str, bool]]:
    """Each target of issue 10: (what, the figure, met). Ratios are medians of rounds."""
    load_run = FIGURES["load_run_s"].median
    fuzz = FIGURES["fuzz_inprocess"].median
    share = r["persistent / replay ceiling (cases/s)"]
    share_req = r["persistent / null engine (req/s)"]
    per_case = r["persistent / process per case (cases/s)"]
    return [
        (
            f"whole case set in-process, loading included, under {TARGET_LOAD_AND_RUN_S} s",
            f"{load_run:.3f} s",
            load_run < TARGET_LOAD_AND_RUN_S,
        ),
        (
            f"persistent adapter at least {TARGET_SHARE_OF_CEILING:.0%} of the ceiling "
            f"(replay engine, cases/s)",
            f"{share:.0%}",
            share >= TARGET_SHARE_OF_CEILING,
        ),
        (
            f"persistent adapter at least {TARGET_SHARE_OF_CEILING:.0%} of the null engine (req/s)",
            f"{share_req:.0%}",
            share_req >= TARGET_SHARE_OF_CEILING,
        ),
        (
            f"persistent at least {TARGET_PERSISTENT_OVER_PER_CASE:.0f}x a process per case",
            f"{per_case:.0f}x",
            per_case >= TARGET_PERSISTENT_OVER_PER_CASE,
        ),
        (
            f"fuzzing at least {TARGET_FUZZ_ACTIONS_PER_S:.0f} actions compared/s in-process",
            f"{fuzz:.0f}/s",
            fuzz >= TARGET_FUZZ_ACTIONS_PER_S,
        ),
    ]


def fmt(value: float | None, unit: str) -> str:
    if value is None or value != value:
        return "-"
    if unit == "s":
        return f"{value:.3f}"
    if unit == "MB":
        return f"{value:.1f}"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def print_table(baseline: Mapping[str, Any] | None) -> None:
    head = f"{'figure':<44} {'unit':<9} {'median':>10} {'min':>10} {'max':>10}"
    if baseline:
        head += f" {'baseline':>10} {'change':>8}"
    print(head)
    print("-" * len(head))
    for f in FIGURES.values():
        line = (
            f"{f.label:<44} {f.unit:<9} {fmt(f.median, f.unit):>10} "
            f"{fmt(min(f.samples, default=None), f.unit):>10} "
            f"{fmt(max(f.samples, default=None), f.unit):>10}"
        )
        if baseline:
            before = baseline.get("figures", {}).get(f.key, {}).get("median")
            change = ""
            if before:
                gain = f.median / before if f.higher_is_better else before / f.median
                change = f"{gain:.2f}x"
            line += f" {fmt(before, f.unit):>10} {change:>8}"
        print(line)


# ---------------------------------------------------------------- main


def git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty.strip() else "")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=5,
        metavar="N",
        help="rounds: every figure is measured N times (default 5)",
    )
    parser.add_argument(
        "--per-case",
        type=int,
        default=20,
        metavar="N",
        help="cases in the process-per-case sample (default 20)",
    )
    parser.add_argument(
        "--fuzz-examples",
        type=int,
        default=200,
        metavar="N",
        help="games per fuzzing measurement (default 200)",
    )
    parser.add_argument(
        "--max-actions",
        type=int,
        default=20,
        metavar="M",
        help="at most M actions per fuzzed game (default 20, as `palconf fuzz`)",
    )
    parser.add_argument(
        "--cpu",
        type=int,
        metavar="N",
        help="pin this process and its children to CPU N: round trips "
        "through a pipe are then much quicker (no wake-up of another "
        "CPU) and the figures steadier; default: no pinning",
    )
    parser.add_argument(
        "--out",
        "--json",
        dest="out",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the figures as JSON to FILE (default: print them only; "
        f"--out {TRACKED_JSON.relative_to(ROOT)} updates the figures the README quotes)",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="FILE",
        help="a JSON file of an earlier run, to show beside these figures",
    )
    parser.add_argument(
        "--keep-env",
        action="store_true",
        help="run children in this environment as it is (see the docstring)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.repeat, args.per_case, args.fuzz_examples, args.max_actions) < 1:
        parser.error("--repeat, --per-case, --fuzz-examples and --max-actions must be at least 1")
    if args.cpu is not None:
        try:
            os.sched_setaffinity(0, {args.cpu})
        except (OSError, ValueError) as e:
            parser.error(f"--cpu {args.cpu}: {e}")
    baseline = None
    if args.baseline:
        try:
            baseline = json.loads(args.baseline.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            parser.error(f"--baseline {args.baseline}: {e}")
        figures = baseline.get("figures") if isinstance(baseline, dict) else None
        if not isinstance(figures, dict) or not all(
            isinstance(f, dict) and isinstance(f.get("median"), (int, float, type(None)))
            for f in figures.values()
        ):
            parser.error(f"--baseline {args.baseline}: not a results file of this benchmark")

    result = measure(args, baseline)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"\nwritten: {args.out}")
    return 0


def measure(args: argparse.Namespace, baseline: dict[str, Any] | None) -> dict[str, Any]:
    """Every round of every figure; prints the table and returns the figures as JSON."""
    env = child_env(args.keep_env)
    load_before = os.getloadavg()
    cases = load_cases()
    step = max(1, len(cases) // args.per_case)
    sample = cases[::step][: args.per_case]
    warnings: list[str] = []
    per_round: list[dict[str, float]] = []
    games = fuzz_bench.draw_games(args.fuzz_examples, FUZZ_SEED, args.max_actions)
    with tempfile.TemporaryDirectory() as tmp:
        replies = Path(tmp) / "replies.jsonl"
        record_replies(cases, replies)
        replay = [sys.executable, str(REPLAY_ENGINE), str(replies)]
        null = [sys.executable, str(NULL_ENGINE)]
        subprocess.run(SERVE, input=b'{"cmd":"bye"}\n', env=env, capture_output=True)  # warm
        for n in range(1, args.repeat + 1):
            print(f"round {n} of {args.repeat} …", file=sys.stderr, flush=True)
            cold = cold_in_process(env)
            if cold["outcomes"] != {"pass": len(cases)}:
                warnings.append(f"in-process outcomes: {cold['outcomes']}")
            for name, argv_ in (("serve", SERVE), ("null", null), ("replay", replay)):
                per_case_rate, per_request, outcomes = whole_run(argv_, cases, env)
                record(f"{name}_cases", per_case_rate)
                if f"{name}_requests" in FIGURES:
                    record(f"{name}_requests", per_request)
                if name != "null" and outcomes != {"pass": len(cases)}:
                    warnings.append(f"{name}: outcomes {outcomes}")
            outcomes = process_per_case(sample, env)
            if outcomes != {"pass": len(sample)}:
                warnings.append(f"process per case: outcomes {outcomes}")
            record(
                "fuzz_inprocess", fuzz_rate(OracleEngine(), args.fuzz_examples, args.max_actions)
            )
            record(
                "fuzz_adapter",
                fuzz_rate(ProcessEngine(SERVE, env=env), args.fuzz_examples, args.max_actions),
            )
            oracle = OracleEngine()
            oracle.start()
            record("compare_inprocess", fuzz_bench.replay(oracle, games)["per_s_wall"])
            palconf_run(env)
            per_round.append(round_ratios())
    load_after = os.getloadavg()
    parts = fuzz_bench.oracle_parts(games)

    r = {name: statistics.median(rs[name] for rs in per_round) for name in RATIOS}
    checks = targets(r)
    print()
    print(
        f"palconf benchmarks: {len(cases)} cases, {args.repeat} round(s), per-case sample "
        f"{len(sample)}, fuzz {args.fuzz_examples} games of up to {args.max_actions} "
        f"actions; {os.cpu_count()} CPU(s)"
        f"{'' if args.cpu is None else f' (pinned to CPU {args.cpu})'}, "
        f"Python {platform.python_version()}, commit {git_commit()}"
    )
    print(
        f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}"
        f", after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} "
        f"(1, 5, 15 min; above {os.cpu_count()} means other work shared the CPUs)"
    )
    print()
    print_table(baseline)
    print()
    print(f"{'ratio (within each round)':<44} {'median':>10} {'min':>10} {'max':>10}")
    for name, value in r.items():
        print(
            f"{name:<44} {value:10.2f} {min(rs[name] for rs in per_round):10.2f} "
            f"{max(rs[name] for rs in per_round):10.2f}"
        )
    print()
    print(
        f"the oracle per fuzzed action: apply {parts['apply_us']:.0f} us, observe "
        f"{parts['observe_us']:.0f} us, legal {parts['legal_us']:.0f} us "
        f"({parts['legal_candidates']:.1f} candidates), GameState.copy "
        f"{parts['copy_us']:.0f} us ({parts['cards_per_board']:.1f} cards); CPU time"
    )
    print()
    for name, value, met in checks:
        print(f"[{'met' if met else 'NOT MET'}] {name}: {value}")
    for w in warnings:
        print(f"warning: {w}")

    return {
        "meta": {
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "commit": git_commit(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "cases": len(cases),
            "repeat": args.repeat,
            "per_case_sample": len(sample),
            "fuzz_examples": args.fuzz_examples,
            "fuzz_max_actions": args.max_actions,
            "fuzz_seed": FUZZ_SEED,
            "pinned_cpu": args.cpu,
            "bytecode_cache": not args.keep_env,
            "loadavg_before": load_before,
            "loadavg_after": load_after,
        },
        "figures": {key: f.to_json() for key, f in FIGURES.items()},
        "ratios": r,
        "ratios_by_round": per_round,
        "oracle_per_fuzzed_action": parts,
        "targets": [{"target": name, "value": value, "met": met} for name, value, met in checks],
        "warnings": warnings,
    }


if __name__ == "__main__":
    sys.exit(main())
