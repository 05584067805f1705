"""Fuzzing throughput: actions compared per second, in-process and through the adapter.

    python -m benchmarks.fuzz_bench [--examples N] [--seed S] [--json FILE]

"Actions compared" counts the `act` requests whose answers were compared with the oracle's
(verdict, reason, the whole OBSERVED state and LEGAL); setups are not counted. Figures:

1. the whole `fuzz()` loop (the directed sweep, then Hypothesis drawing the games while
   playing the oracle, the engine following each game as it is drawn), in-process
   (`OracleEngine`) and through the adapter (`ProcessEngine` running `palconf serve`), in
   turn `--repeat` times, with the ratio of each pair (the issue's target: 70 %);
2. replay only: the same games drawn once beforehand, then compared (`run_game`) — what the
   comparison itself costs, without Hypothesis;
3. what one action costs the oracle, by part (apply, observe, legal, `GameState.copy`),
   the parts the fuzzer pays twice per action in-process (once drawing, once replaying);
4. workers (generators.parallel, `palconf fuzz --workers N`): the same campaign with 1 and
   with 2 worker processes (in-process oracle each, no directed sweep), measured in one run;
   the ratio of their wall-clock rates (the issue's target: 1.7x on 2 idle cores; on a
   machine shared with other work it is lower, so the workers' CPU seconds are printed too).

Wall-clock and CPU seconds are both printed: on a shared machine the CPU figure is the
steadier one. Nothing is asserted (speed targets live here, not in the tests; the target
is 2000 actions compared per second in-process).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import sys
import time
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hyp_seed

from palconf.engines import Engine, OracleEngine
from palconf.engines.process import ProcessEngine
from palconf.generators import Game, games
from palconf.generators.differential import fuzz, run_game
from palconf.generators.parallel import cpu_count, fuzz_parallel
from palconf.oracle import Rules

SERVE = [sys.executable, "-m", "palconf.cli", "serve"]
TARGET = 2000.0
RATIO_TARGET = 1.7
WIRE_TARGET = 0.7  # issue 33: fuzzing through `palconf serve` at 70 % of in-process


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def draw_games(n: int, seed: int, max_actions: int) -> list[Game]:
    out: list[Game] = []

    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @hyp_seed(seed)
    @given(games(min_actions=max_actions // 2, max_actions=max_actions))
    def collect(game: Game) -> None:
        out.append(game)

    collect()
    return out


def engine_cpu(engine: Engine) -> float:
    """CPU seconds the engine's process has used so far (0 in-process; Linux's /proc)."""
    proc = getattr(engine, "_proc", None)
    if proc is None:
        return 0.0
    try:
        with open(f"/proc/{proc.pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fuzz_loop(engine: Engine, examples: int, seed: int, max_actions: int) -> dict[str, float]:
    """The campaign's rate; `cpu_s` is palconf's CPU, `engine_cpu_s` the engine process's.
    On a busy machine the wall-clock rate follows the load; with two idle cores, palconf
    and the engine work side by side, so the larger of the two CPU figures bounds it."""
    before = engine_cpu(engine)
    report, wall, cpu = timed(
        lambda: fuzz(engine, examples=examples, seed=seed, max_actions=max_actions, shrink=False)
    )
    assert report.difference is None, "the oracle differs from itself"
    other = engine_cpu(engine) - before
    return {
        "actions": report.actions,
        "wall_s": wall,
        "cpu_s": cpu,
        "engine_cpu_s": other,
        "per_s_wall": report.actions / wall,
        "per_s_cpu": report.actions / cpu,
        "per_s_busiest_cpu": report.actions / max(cpu, other),
    }


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def workers_loop(workers: int, examples: int, seed: int, max_actions: int) -> dict[str, float]:
    """The campaign in `workers` processes; CPU is the workers' (children's) seconds."""
    cpu0 = children_cpu()
    report, wall, _ = timed(
        lambda: fuzz_parallel(
            OracleEngine,
            workers=workers,
            examples=examples,
            seed=seed,
            directed=False,
            shrink=False,
            max_actions=max_actions,
        )
    )
    cpu = children_cpu() - cpu0
    assert report.difference is None, "the oracle differs from itself"
    return {
        "workers": workers,
        "actions": report.actions,
        "wall_s": wall,
        "cpu_s": cpu,
        "per_s_wall": report.actions / wall,
        "per_s_cpu": report.actions / cpu if cpu else 0.0,
    }


def replay(engine: Engine, sample: list[Game]) -> dict[str, float]:
    actions = sum(len(g.steps) for g in sample)
    _, wall, cpu = timed(lambda: [run_game(engine, g) for g in sample])
    return {
        "actions": actions,
        "wall_s": wall,
        "cpu_s": cpu,
        "per_s_wall": actions / wall,
        "per_s_cpu": actions / cpu,
    }


def oracle_parts(sample: list[Game]) -> dict[str, float]:
    """Microseconds per action of each part of the oracle's work. The garbage collector is
    paused meanwhile: with a state kept for every action, a full collection would land in
    one part or another at random and be charged to it."""
    gc.collect()
    gc.disable()
    try:
        return _oracle_parts(sample)
    finally:
        gc.enable()


def _oracle_parts(sample: list[Game]) -> dict[str, float]:
    n = sum(len(g.steps) for g in sample)
    rules_at: list[Rules] = []

    def apply_all() -> None:
        for g in sample:
            r = Rules.from_state(g.state)
            for a in g.actions:
                r.apply(a)
                rules_at.append(Rules(r.state))

    _, _, apply_cpu = timed(apply_all)
    out = {"apply_us": apply_cpu / n * 1e6}
    for name, fn in (
        ("observe_us", lambda r: r.observe()),
        ("legal_us", lambda r: r.legal()),
        ("copy_us", lambda r: r.state.copy()),
    ):
        _, _, cpu = timed(lambda fn=fn: [fn(r) for r in rules_at])
        out[name] = cpu / len(rules_at) * 1e6
    candidates = sum(len(r.candidate_actions(r.state)) for r in rules_at)
    out["legal_candidates"] = candidates / len(rules_at)
    out["cards_per_board"] = sum(len(r.state.cards) for r in rules_at) / len(rules_at)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-actions", type=int, default=30)
    p.add_argument(
        "--workers-examples",
        type=int,
        default=300,
        help="games per worker in the 1- vs 2-worker figure (at least --examples in all)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="fuzz loops in-process and through the adapter, in turn, this many times (the "
        "median pair is shown)",
    )
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = p.parse_args(argv)

    figures: dict[str, Any] = {
        "examples": args.examples,
        "seed": args.seed,
        "max_actions": args.max_actions,
    }
    in_process = OracleEngine()
    in_process.start()
    adapter = ProcessEngine(SERVE)
    adapter.start()
    try:
        # in-process and through the wire in turn, `--repeat` times: on a shared machine the
        # load changes from one minute to the next, and the ratio of neighbours is steadier
        pairs = []
        for _ in range(args.repeat):
            here = fuzz_loop(in_process, args.examples, args.seed, args.max_actions)
            wire = fuzz_loop(adapter, args.examples, args.seed, args.max_actions)
            pairs.append((here, wire, wire["per_s_wall"] / here["per_s_wall"]))
        pairs.sort(key=lambda pair: pair[2])
        figures["fuzz_in_process"], figures["fuzz_adapter"], _ = pairs[len(pairs) // 2]
        figures["wire_ratios"] = [ratio for _, _, ratio in pairs]
        sample = draw_games(args.examples, args.seed, args.max_actions)
        figures["replay_in_process"] = replay(in_process, sample)
        figures["replay_adapter"] = replay(adapter, sample)
    finally:
        adapter.close()
    figures["oracle_per_action"] = oracle_parts(sample)
    ratio_examples = max(args.examples, 2 * args.workers_examples)
    figures["workers_1"] = workers_loop(1, ratio_examples, args.seed, args.max_actions)
    figures["workers_2"] = workers_loop(2, ratio_examples, args.seed, args.max_actions)
    figures["workers_ratio"] = (
        figures["workers_2"]["per_s_wall"] / figures["workers_1"]["per_s_wall"]
    )

    print(
        f"fuzz throughput, {args.examples} games (seed {args.seed}, "
        f"{args.max_actions // 2} to {args.max_actions} actions), actions compared per second:"
    )
    for key, label in (
        ("fuzz_in_process", "fuzz loop, in-process"),
        ("fuzz_adapter", "fuzz loop, through the adapter"),
        ("replay_in_process", "replay only, in-process"),
        ("replay_adapter", "replay only, through the adapter"),
    ):
        f = figures[key]
        print(
            f"  {label:<34} {f['per_s_wall']:>7.0f}/s wall  {f['per_s_cpu']:>7.0f}/s CPU  "
            f"({f['actions']} actions, {f['wall_s']:.1f} s)"
        )
    ratios = figures["wire_ratios"]
    median = ratios[len(ratios) // 2]
    here, wire = figures["fuzz_in_process"], figures["fuzz_adapter"]
    print(
        f"  fuzz loop, through the adapter / in-process: {median:.0%} wall-clock (median of "
        f"{', '.join(f'{r:.0%}' for r in ratios)}) — target {WIRE_TARGET:.0%}: "
        f"{'met' if median >= WIRE_TARGET else 'NOT met'} (load average "
        f"{os.getloadavg()[0]:.1f}); by CPU: palconf {wire['cpu_s']:.1f} s and the engine "
        f"{wire['engine_cpu_s']:.1f} s against {here['cpu_s']:.1f} s in-process: "
        f"{wire['per_s_busiest_cpu'] / here['per_s_cpu']:.0%} on two idle cores"
    )
    parts = figures["oracle_per_action"]
    print(
        f"  oracle, per action: apply {parts['apply_us']:.0f} µs, observe "
        f"{parts['observe_us']:.0f} µs, legal {parts['legal_us']:.0f} µs "
        f"({parts['legal_candidates']:.1f} candidates), GameState.copy "
        f"{parts['copy_us']:.0f} µs ({parts['cards_per_board']:.1f} cards)"
    )
    for key in ("workers_1", "workers_2"):
        f = figures[key]
        label = f"fuzz_parallel, {f['workers']:.0f} worker(s), in-process"
        print(
            f"  {label:<34} {f['per_s_wall']:>7.0f}/s wall  {f['per_s_cpu']:>7.0f}/s CPU  "
            f"({f['actions']} actions, {f['wall_s']:.1f} s wall, {f['cpu_s']:.1f} s CPU)"
        )
    ratio = figures["workers_ratio"]
    print(
        f"  2 workers / 1 worker (wall-clock rate): {ratio:.2f}x on {cpu_count()} core(s) — "
        f"target {RATIO_TARGET}x on 2 idle cores: {'met' if ratio >= RATIO_TARGET else 'NOT met'}"
        f" (load average now {os.getloadavg()[0]:.1f}: other work on the machine lowers it)"
    )
    reached = figures["fuzz_in_process"]["per_s_cpu"]
    print(
        f"  target in-process: {TARGET:.0f}/s — {'met' if reached >= TARGET else 'NOT met'} "
        f"({reached:.0f}/s CPU, {figures['fuzz_in_process']['per_s_wall']:.0f}/s wall)"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
