"""`palconf perft`: count legal action sequences on the oracle and an engine, and show
where the counts split (generators.perft; positions in generators/perft/*.toml).

Exit status: 0 every count agrees; 1 a count split (or the engine refused an action it had
listed as legal, or broke); 2 bad arguments, an unknown position, or an engine that cannot
be started or offers no `legal`.
"""

from __future__ import annotations

import argparse
import sys
import time

from palconf.core import Engine, EngineFault, terminal_safe
from palconf.core.errors import UsageError
from palconf.engines.options import Number, add_engine_options, make_engine
from palconf.generators.formatting import show
from palconf.generators.perft import (
    MAX_DEPTH,
    EngineDisagrees,
    EngineNavigator,
    OracleNavigator,
    Position,
    Split,
    find_split,
    load_positions,
    perft,
)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "perft",
        help="count legal action sequences on the oracle and an engine",
        description="Count the sequences of D legal actions from each named position on the "
        "oracle and on the engine (which must offer `legal`); where the counts "
        "split, show the per-action breakdown down to the position where the "
        "LEGAL lists differ. Exit 0: all counts agree; 1: a split; 2: bad "
        "arguments or an engine that cannot be used.",
    )
    add_engine_options(
        p, required=True, command_help="the engine's command line (run without a shell)"
    )
    p.add_argument(
        "--depth",
        type=Number(1, MAX_DEPTH),
        required=True,
        metavar="D",
        help=f"how many actions deep [1 to {MAX_DEPTH}]",
    )
    p.add_argument(
        "--position",
        action="append",
        default=[],
        metavar="NAME",
        help="only this position (repeatable; default: all)",
    )
    p.set_defaults(func=main)


def print_split(split: Split, depth: int) -> None:
    for level, rows in enumerate(split.levels):
        taken = split.path[level] if level < len(split.path) else None
        where = (
            "from the position"
            if level == 0
            else f"after {' → '.join(show(a) for a in split.path[:level])}"
        )
        print(f"  breakdown at depth {depth - level} {where}:")
        for r in rows:
            mark = "  <- split" if r.oracle != r.engine else ""
            follow = "  (followed)" if taken is r.action else ""
            print(
                f"    {show(r.action, 70):<70}  oracle {_n(r.oracle):>7}  "
                f"engine {_n(r.engine):>7}{mark}{follow}"
            )
    where = (
        "at the position" if not split.path else "after " + " → ".join(show(a) for a in split.path)
    )
    print(f"  LEGAL differs {where}:")
    if split.note:
        print(f"    {split.note}")
    for a in split.only_oracle:
        print(f"    only the oracle lists: {show(a)}")
    for a in split.only_engine:
        print(f"    only the engine lists: {show(a)}")


def _n(value: int | None) -> str:
    return "-" if value is None else str(value)


def run_position(pos: Position, engine: Engine, depth: int) -> bool:
    """Count one position on both sides, print the row (and the split). True if they agree."""
    start = time.perf_counter()
    ours = perft(OracleNavigator(pos.state), depth)
    nav = EngineNavigator(engine, pos.state)
    try:
        theirs: int | str = perft(nav, depth)
    except EngineDisagrees as e:
        theirs = "refused"
        print(
            f"{pos.id:<18} {depth:>5} {_n(pos.counts.get(depth)):>9} {ours:>9} {theirs:>9}  SPLIT"
        )
        print(f"  after {' → '.join(show(a) for a in e.path)}:")
        print(f"  {terminal_safe(e, 300)}")
        return False
    stored = pos.counts.get(depth)
    same = ours == theirs
    note = (
        ""
        if stored is None or stored == ours
        else f"  (the oracle's count differs from the stored {stored}: the oracle changed?)"
    )
    print(
        f"{pos.id:<18} {depth:>5} {_n(stored):>9} {ours:>9} {theirs:>9}  "
        f"{'ok' if same else 'SPLIT'}  {time.perf_counter() - start:.1f} s, "
        f"{nav.requests} request(s){note}"
    )
    if not same:
        try:
            split = find_split(
                OracleNavigator(pos.state), EngineNavigator(engine, pos.state), depth
            )
        except EngineDisagrees as e:
            print(f"  {terminal_safe(e, 300)}")
            return False
        if split is None:
            print("  the breakdown agrees when walked again: a nondeterministic engine?")
        else:
            print_split(split, depth)
    return same


def main(args: argparse.Namespace) -> int:
    if not 1 <= args.depth <= MAX_DEPTH:
        raise UsageError(f"--depth must be between 1 and {MAX_DEPTH}") from None
    positions = load_positions()  # a PositionError is a UsageError: exit 2
    if args.position:
        known = {p.id for p in positions}
        unknown = [n for n in args.position if n not in known]
        if unknown:
            print(
                f"palconf perft: unknown position(s) {', '.join(unknown)}; known: "
                f"{', '.join(sorted(known))}",
                file=sys.stderr,
            )
            return 2
        positions = [p for p in positions if p.id in args.position]
    try:
        engine = make_engine(args)
        info = engine.start()
    except EngineFault as e:
        raise UsageError(f"cannot start the engine: {terminal_safe(e.message, 2000)}") from None
    try:
        if "legal" not in info.commands:
            print(
                "palconf perft: the engine does not offer `legal` (its `hello` lists no "
                "such command); perft counts need it",
                file=sys.stderr,
            )
            return 2
        print(
            f"palconf perft: engine {terminal_safe(info.name, 200)} "
            f"{terminal_safe(info.version, 100)}, "
            f"depth {args.depth}"
        )
        print(f"{'position':<18} {'depth':>5} {'stored':>9} {'oracle':>9} {'engine':>9}")
        ok = True
        for pos in positions:
            try:
                ok = run_position(pos, engine, args.depth) and ok
            except EngineFault as e:
                ok = False
                print(f"{pos.id:<18} the engine broke: {terminal_safe(e.message, 300)}")
                try:
                    engine.restart()
                except EngineFault as again:
                    print(
                        f"palconf perft: cannot restart the engine: "
                        f"{terminal_safe(again.message, 2000)}",
                        file=sys.stderr,
                    )
                    return 1
        return 0 if ok else 1
    finally:
        engine.close()
