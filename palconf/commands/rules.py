"""`palconf rules`: versions of the rules text — diff, import, bless, status."""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import sys
from pathlib import Path

import tomli_w

from .. import paths
from ..cases import Case, CaseLoadError, load_cases
from ..registry import Registry
from ..registry import load as load_registry
from ..rulesdiff import (
    RulesDiff,
    bless_text,
    clause_hash,
    diff_versions,
    load_version,
    parse_rules_text,
    staleness,
)
from . import add_case_options, registry_or_exit, select_cases


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "rules",
        help="rules versions: diff, import, bless, status",
        description="Work with versions of the rules text (see the README, "
        "'The rules changed — what now').",
    )
    rsub = p.add_subparsers(dest="rules_command", metavar="SUBCOMMAND", required=True)

    d = rsub.add_parser("diff", help="clauses changed, added and removed between two versions")
    d.add_argument("old", help="a version (e.g. 1.00) or a rules text / clauses.toml file")
    d.add_argument("new", help="a version or a rules text / clauses.toml file")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.add_argument("--cases", type=Path, default=None, metavar="DIR")
    d.set_defaults(func=cmd_diff)

    i = rsub.add_parser("import", help="add a new version of the rules text to the project")
    i.add_argument("version", help="the new version's name, e.g. 1.01")
    i.add_argument("file", type=Path, help="the rules text as published")
    i.add_argument(
        "--no-current",
        action="store_true",
        help="add the version without making it the current one",
    )
    i.set_defaults(func=cmd_import)

    b = rsub.add_parser(
        "bless",
        help="record the current clause texts' hashes in cases "
        "(after reviewing them against the new text)",
    )
    b.add_argument("case", nargs="*", help="case ids or globs (default: none; see --all)")
    b.add_argument("--all", action="store_true", help="every case")
    b.add_argument("--cases", type=Path, default=None, metavar="DIR")
    b.set_defaults(func=cmd_bless)

    s = rsub.add_parser(
        "status", help="cases stale, orphaned or not blessed against the current rules"
    )
    add_case_options(s)
    s.add_argument("--strict", action="store_true", help="exit 1 if any case is stale")
    s.set_defaults(func=cmd_status)


def _cases(args: argparse.Namespace, registry: Registry) -> list[Case] | None:
    try:
        return load_cases(args.cases or paths.CASES, registry)
    except CaseLoadError as e:
        for err in e.errors:
            print(f"  {err}", file=sys.stderr)
        return None


def print_diff(d: RulesDiff) -> None:
    print(f"rules {d.old} → {d.new}")
    if not (d.changes or d.keywords_added or d.keywords_removed or d.unassigned):
        print("  no clause changed")
    for c in d.changes:
        print(f"\n{c.kind.upper():<8} {c.id} ({c.keyword})")
        if c.old is not None:
            print(f"  - {c.old}")
        if c.new is not None:
            print(f"  + {c.new}")
        print(f"  cases citing it ({len(c.cases)}): {', '.join(c.cases) or 'none'}")
    for k in d.keywords_added:
        print(f"\nNEW KEYWORD {k}: untested until clause ids and cases exist")
    for k in d.keywords_removed:
        print(f"\nREMOVED KEYWORD {k}")
    if d.orphaned:
        print(f"\norphaned cases ({len(d.orphaned)}): {', '.join(d.orphaned)}")
    for k, sentences in d.unassigned.items():
        print(f"\nnew text under {k} that no clause covers:")
        for s in sentences:
            print(f"  + {s}")


def cmd_diff(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    try:
        old, new = load_version(registry, args.old), load_version(registry, args.new)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print(f"palconf rules diff: {e}", file=sys.stderr)
        return 2
    cases = _cases(args, registry)
    if cases is None:
        return 2
    d = diff_versions(old, new, registry, cases)
    if args.json:
        print(json.dumps(d.to_json(), indent=2, ensure_ascii=False))
    else:
        print_diff(d)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    if not re.fullmatch(r"[0-9A-Za-z][0-9A-Za-z.\-]*", args.version):
        print(f"palconf rules import: bad version name {args.version!r}", file=sys.stderr)
        return 2
    if args.version in registry.versions:
        print(f"palconf rules import: version {args.version} exists already", file=sys.stderr)
        return 2
    if not args.file.is_file():
        print(f"palconf rules import: no file {args.file}", file=sys.stderr)
        return 2
    new = load_version(registry, str(args.file))
    if not new.sections:
        print(
            f"palconf rules import: {args.file} has no keyword headings (`Name#` lines)",
            file=sys.stderr,
        )
        return 2
    folder = paths.RULES / args.version
    folder.mkdir(parents=True)
    shutil.copyfile(args.file, folder / "section12.txt")
    data = {"version": args.version, "clauses": new.clauses}
    if new.unassigned:
        data["unassigned"] = new.unassigned
    header = (
        f"# The text of each clause in rules version {args.version}, aligned by "
        "`palconf rules import`.\n# Review it: `unassigned` lists new sentences that "
        "need a clause id in registry.toml.\n"
    )
    (folder / "clauses.toml").write_text(header + tomli_w.dumps(data), encoding="utf-8")
    reg_path = paths.RULES / "registry.toml"
    text = reg_path.read_text(encoding="utf-8")
    entry = (
        f'\n[versions."{args.version}"]\ntitle = "section 12, version {args.version}"\n'
        f'file = "{args.version}/section12.txt"\nclauses = "{args.version}/clauses.toml"\n'
    )
    text = text.rstrip("\n") + "\n" + entry  # versions are listed in the order they came
    if not args.no_current:
        text = re.sub(r'^current = ".*"$', f'current = "{args.version}"', text, count=1, flags=re.M)
    reg_path.write_text(text, encoding="utf-8")
    load_registry.cache_clear()
    registry = registry_or_exit()
    cases = _cases(argparse.Namespace(cases=None), registry) or []
    print_diff(
        diff_versions(
            load_version(registry, registry_prev(registry, args.version)),
            load_version(registry, args.version),
            registry,
            cases,
        )
    )
    print(
        f"\nadded rules {args.version} in {folder}"
        + ("" if args.no_current else "; it is now the current version")
    )
    return 0


def registry_prev(registry: Registry, version: str) -> str:
    names = list(registry.versions)
    i = names.index(version)
    return names[i - 1] if i else version


def cmd_bless(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    if not args.case and not args.all:
        print("palconf rules bless: name case ids (or globs), or --all", file=sys.stderr)
        return 2
    cases = _cases(args, registry)
    if cases is None:
        return 2
    root = args.cases or paths.CASES
    chosen = [c for c in cases if args.all or any(fnmatch.fnmatchcase(c.id, p) for p in args.case)]
    if not chosen:
        print("palconf rules bless: no case matches", file=sys.stderr)
        return 2
    for case in chosen:
        missing = [
            cid for cid in case.clauses if registry.current not in registry.clauses[cid].text
        ]
        if missing:
            print(
                f"{case.path}: not blessed: {', '.join(missing)} not in rules "
                f"{registry.current} (orphaned)",
                file=sys.stderr,
            )
            continue
        hashes = {
            cid: clause_hash(registry.clauses[cid].text[registry.current]) for cid in case.clauses
        }
        path = root / case.path
        path.write_text(
            bless_text(path.read_text(encoding="utf-8"), registry.current, hashes), encoding="utf-8"
        )
    print(f"blessed {len(chosen)} case(s) against rules {registry.current}")
    return 0


def current_keywords(registry: Registry) -> tuple[list[str], list[str]]:
    """Keywords of the current rules text that the registry does not know (untested), and
    registry keywords the current text no longer has (removed)."""
    sections = parse_rules_text(registry.rules_text())
    return (
        sorted(set(sections) - set(registry.keywords)),
        sorted(set(registry.keywords) - set(sections)),
    )


def cmd_status(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    cases = select_cases(args, registry)
    if cases is None:
        return 2
    problems = [s for s in (staleness(c, registry) for c in cases) if s.problem]
    for s in problems:
        print(s)
    new, removed = current_keywords(registry)
    for k in new:
        print(f"keyword {k!r} in rules {registry.current} is untested: no clause ids, no cases")
    for k in removed:
        print(f"keyword {k!r} is not in rules {registry.current}: its cases are orphaned")
    print(
        f"rules {registry.current}: {len(cases)} case(s), {len(problems)} stale, orphaned or "
        "not blessed"
    )
    return 1 if args.strict and (problems or new or removed) else 0
