"""Subcommands of `palconf`, one module each, plus what several of them share."""

from __future__ import annotations

import argparse
import fnmatch
import sys
from pathlib import Path

from .. import paths
from ..cases import Case, CaseLoadError, load_cases
from ..registry import BASE, Registry, load as load_registry


class UsageError(Exception):
    """Bad arguments: exit status 2."""


def add_case_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cases", type=Path, default=None, metavar="DIR",
                   help="the cases folder (default: the project's cases/)")
    p.add_argument("--keyword", "-k", action="append", default=[], metavar="K",
                   help="only cases testing keyword K (a keyword id, or 'base'); repeatable")
    p.add_argument("--case", action="append", default=[], metavar="ID",
                   help="only the case with this id (glob patterns allowed); repeatable")


def select_cases(args: argparse.Namespace, registry: Registry) -> list[Case] | None:
    """The cases the options select, or None after printing why they cannot be loaded."""
    unknown = [k for k in args.keyword if k not in registry.keywords and k != BASE]
    if unknown:
        print(f"palconf: unknown keyword(s): {', '.join(unknown)}; known: "
              f"{', '.join(registry.keywords)}, {BASE}", file=sys.stderr)
        return None
    try:
        cases = load_cases(args.cases or paths.CASES, registry)
    except CaseLoadError as e:
        print(f"palconf: {len(e.errors)} problem(s) in the case files:", file=sys.stderr)
        for err in e.errors:
            print(f"  {err}", file=sys.stderr)
        return None
    if args.keyword:
        cases = [c for c in cases if set(c.keywords) & set(args.keyword)]
    if args.case:
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.id, pat) for pat in args.case)]
    return cases


def registry_or_exit() -> Registry:
    return load_registry()


def add_engine_options(p: argparse.ArgumentParser, command_help: str) -> None:
    """`--engine-cmd` (required) and `--timeout`: the engine as a child process."""
    from ..adapter import DEFAULT_TIMEOUT
    p.add_argument("--engine-cmd", required=True, metavar="CMD", help=command_help)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"seconds to wait for each reply of the engine (default "
                        f"{DEFAULT_TIMEOUT:g})")


def add_strict_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when a case is stale against the current rules text "
                        "(see `palconf rules status`)")


def warn_stale(cases: list[Case], registry: Registry) -> int:
    """Warn (on stderr) about cases whose cited clauses changed since they were blessed, or
    are gone from the current rules; return how many. Cases never blessed are left to
    `palconf lint` and `palconf rules status`."""
    from ..rulesdiff import staleness
    flagged = [s for s in (staleness(c, registry) for c in cases) if s.stale or s.orphaned]
    for s in flagged[:10]:
        print(f"warning: {s}", file=sys.stderr)
    if flagged:
        print(f"warning: {len(flagged)} case(s) stale against rules {registry.current}: review "
              "them, then `palconf rules bless CASE`", file=sys.stderr)
    return len(flagged)
