"""`palconf serve`: the reference oracle as an engine process (protocol v1 on stdin/stdout)."""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import IO

from palconf.core.errors import UsageError
from palconf.engines.oracle_engine import answer_line
from palconf.oracle import Session


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the oracle as an engine on stdin/stdout",
        description="Speak protocol v1 (JSON Lines) on stdin/stdout as the reference oracle.",
    )
    p.add_argument(
        "--mutant",
        metavar="NAME",
        help="serve the mutant NAME instead of the oracle (a deliberate misreading "
        "of the rules: see `palconf mutants --list`)",
    )
    p.add_argument(
        "--rules",
        metavar="VERSION",
        help="serve the oracle of this rules version, saying so in `hello` (with --mutant: "
        "the mutant as a misreading of it); default: the registry's current version",
    )
    p.set_defaults(func=main)


def serve(session: Session, inp: IO[str], out: IO[str]) -> int:
    for line in inp:
        if not line.strip():
            continue
        request, reply = answer_line(session, line)  # not JSON: bad-json, and not a `bye`
        out.write(json.dumps(reply, separators=(",", ":")) + "\n")
        out.flush()
        if isinstance(request, dict) and request.get("cmd") == "bye":
            break
    return 0


def main(args: argparse.Namespace) -> int:
    if isinstance(sys.stdin, io.TextIOWrapper):  # bytes that are not UTF-8: bad-json, no crash
        sys.stdin.reconfigure(errors="replace")
    from palconf.commands import chosen_rules, registry_or_exit

    registry = registry_or_exit()
    version = chosen_rules(registry, getattr(args, "rules", None))
    oracle = registry.oracle(version)
    if getattr(args, "mutant", None):
        from palconf import mutants

        try:
            m = mutants.for_rules(mutants.get(args.mutant), oracle)
        except (KeyError, ValueError) as e:
            raise UsageError(f"{e.args[0]}") from None
        session = m.session(m.rules, name=f"palconf-mutant:{m.name}", rules_version=version)
        return serve(session, sys.stdin, sys.stdout)
    return serve(Session(oracle, rules_version=version), sys.stdin, sys.stdout)
