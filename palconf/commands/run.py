"""`palconf run`: run the cases against an engine and print the per-keyword table."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO

from ..engines import OracleEngine
from ..runner import Result, run_cases
from ..summary import render_table
from . import add_case_options, registry_or_exit, select_cases


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="run the cases against the oracle or an engine",
                       description="Run the rule cases and print a per-keyword table. "
                                   "Exit 0 when nothing failed or errored, 1 when something "
                                   "did, 2 for bad arguments or broken case files.")
    add_case_options(p)
    p.add_argument("--results", type=Path, metavar="FILE",
                   help="write one JSON object per case (JSON Lines)")
    p.add_argument("--verbose", "-v", action="store_true", help="print every case's outcome")
    p.set_defaults(func=main)


def print_failure(r: Result, out: IO[str]) -> None:
    print(f"\n{r.outcome.upper()} {r.id}: {r.title}", file=out)
    if r.clauses:
        print(f"  clauses: {', '.join(r.clauses)}", file=out)
    print(f"  {r.message}", file=out)
    for d in r.diffs:
        print(f"    {d['path']}: expected {json.dumps(d['expected'])}, "
              f"observed {json.dumps(d['observed'])}", file=out)
    if r.stderr:
        print("  engine stderr (last lines):", file=out)
        for line in r.stderr.splitlines()[-5:]:
            print(f"    | {line}", file=out)


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    cases = select_cases(args, registry)
    if cases is None:
        return 2
    engine = OracleEngine()
    results: list[Result] = []
    out = args.results.open("w", encoding="utf-8") if args.results else None
    try:
        engine.start()
        for r in run_cases(engine, cases):
            results.append(r)
            if out:
                out.write(json.dumps(r.to_json(), sort_keys=True) + "\n")
                out.flush()
            if args.verbose:
                print(f"{r.outcome:<8} {r.id}")
    finally:
        engine.close()
        if out:
            out.close()
    print(f"palconf: {len(results)} case(s) against {engine.info.name} "
          f"{engine.info.version}")
    print(render_table(results, registry))
    for r in results:
        if r.outcome in ("fail", "error", "timeout", "xpass"):
            print_failure(r, sys.stdout)
    bad = any(r.outcome in ("fail", "error", "timeout") for r in results)
    return 1 if bad else 0
