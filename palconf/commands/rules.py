"""`palconf rules`: versions of the rules text — diff, import, bless, status."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import tomli_w

from palconf import paths
from palconf.authoring.rulesdiff import (
    RulesDiff,
    diff_versions,
    load_version,
)
from palconf.cases.loader import Case, CaseLoadError, load_cases
from palconf.commands import cases_help, registry_or_exit
from palconf.core import json_read, terminal_json, terminal_safe
from palconf.core.errors import UsageError
from palconf.core.safe_write import write_files, write_text_atomic
from palconf.registry import Registry
from palconf.registry import load as load_registry

CASES_HELP = cases_help()


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "rules",
        help="rules versions: diff, import, bless, status",
        description="Work with versions of the rules text (see the README, "
        "'The rules changed — what now').",
    )
    rsub = p.add_subparsers(dest="rules_command", metavar="SUBCOMMAND", required=True)

    d = rsub.add_parser(
        "diff",
        help="clauses changed, added and removed between two versions",
        description="Compare two versions of the rules text clause by clause: clauses "
        "changed, added and removed (with the cases citing each), new and removed "
        "keywords, orphaned cases, new sentences no clause covers. OLD and NEW are "
        "versions (e.g. 1.00) or files: a rules text as published, or a clauses.toml. "
        "Exit status as `diff` and `git diff --exit-code`: 0 no change, 1 changes, "
        "2 error (a version or file that cannot be read, broken case files).",
    )
    d.add_argument("old", help="a version (e.g. 1.00) or a rules text / clauses.toml file")
    d.add_argument("new", help="a version or a rules text / clauses.toml file")
    d.add_argument(
        "--json",
        action="store_true",
        help='one JSON document: {"old", "new", "changes": [{"id", "keyword", "kind" '
        '(changed, added, removed), "old", "new", "cases"}], "keywords_added", '
        '"keywords_removed", "orphaned_cases", "unassigned"}',
    )
    d.add_argument("--cases", type=Path, default=None, metavar="DIR", help=CASES_HELP)
    d.set_defaults(func=cmd_diff)

    i = rsub.add_parser(
        "import",
        help="add a new version of the rules text to the project",
        description="Copy a published rules text to rules/VERSION/, align every clause "
        "to its sentence(s) in the new text (rules/VERSION/clauses.toml: review it; "
        "`unassigned` lists sentences that need a new clause id in registry.toml), add "
        "the version to rules/registry.toml and make it current, then print the diff "
        "from the previous version. Exit 0; 2 for a bad version name, an existing "
        "version or a file that is missing or has no keyword headings.",
    )
    i.add_argument("version", help="the new version's name, e.g. 1.01")
    i.add_argument("file", type=Path, help="the rules text as published")
    i.add_argument(
        "--no-current",
        action="store_true",
        help="add the version without making it the current one",
    )
    i.set_defaults(func=cmd_import)

    from palconf.commands import rules_review, rules_status

    rules_review.add_parsers(rsub)
    rules_status.add_parser(rsub)


def _cases(args: argparse.Namespace, registry: Registry) -> list[Case] | None:
    try:
        return load_cases(args.cases or paths.CASES, registry)
    except CaseLoadError as e:
        for err in e.errors:
            print(f"  {terminal_safe(err, 2000)}", file=sys.stderr)
        return None


def print_diff(d: RulesDiff) -> None:
    """The diff for a terminal: the rules text (a file anyone may hand over) and every name
    taken from it go through `terminal_safe`."""
    t = terminal_safe
    print(f"rules {t(d.old, 200)} → {t(d.new, 200)}")
    if not changed(d):
        print("  no clause changed")
    for c in d.changes:
        print(f"\n{c.kind.upper():<8} {t(c.id, 200)} ({t(c.keyword, 200)})")
        if c.old is not None:
            print(f"  - {t(c.old)}")
        if c.new is not None:
            print(f"  + {t(c.new)}")
        print(f"  cases citing it ({len(c.cases)}): {t(', '.join(c.cases)) or 'none'}")
    for k in d.keywords_added:
        print(f"\nNEW KEYWORD {t(k, 200)}: untested until clause ids and cases exist")
    for k in d.keywords_removed:
        print(f"\nREMOVED KEYWORD {t(k, 200)}")
    if d.orphaned:
        print(f"\norphaned cases ({len(d.orphaned)}): {t(', '.join(d.orphaned))}")
    for k, sentences in d.unassigned.items():
        print(f"\nnew text under {t(k, 200)} that no clause covers:")
        for s in sentences:
            print(f"  + {t(s)}")


def cmd_diff(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    try:
        old, new = load_version(registry, args.old), load_version(registry, args.new)
    except (FileNotFoundError, KeyError, ValueError) as e:
        print(f"palconf rules diff: {terminal_safe(e, 2000)}", file=sys.stderr)
        return 2
    cases = _cases(args, registry)
    if cases is None:
        return 2
    d = diff_versions(old, new, registry, cases)
    if args.json:
        print(terminal_json(d.to_json(), indent=2))
    else:
        print_diff(d)
    return 1 if changed(d) else 0


def changed(d: RulesDiff) -> bool:
    """Whether two versions differ in anything `rules diff` reports."""
    return bool(d.changes or d.keywords_added or d.keywords_removed or d.unassigned)


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
    data = {"version": args.version, "clauses": new.clauses}
    if new.unassigned:
        data["unassigned"] = new.unassigned
    header = (
        f"# The text of each clause in rules version {args.version}, aligned by "
        "`palconf rules import`.\n# Review it: `unassigned` lists new sentences that "
        "need a clause id in registry.toml.\n"
    )
    write_files(
        folder,
        {
            "section12.txt": json_read.read_text(args.file, UsageError, "a rules text"),
            "clauses.toml": header + tomli_w.dumps(data),
        },
    )
    reg_path = paths.RULES / "registry.toml"
    text = reg_path.read_text(encoding="utf-8")
    entry = (
        f'\n[versions."{args.version}"]\ntitle = "section 12, version {args.version}"\n'
        f'file = "{args.version}/section12.txt"\nclauses = "{args.version}/clauses.toml"\n'
    )
    text = text.rstrip("\n") + "\n" + entry  # versions are listed in the order they came
    if not args.no_current:
        text = re.sub(r'^current = ".*"$', f'current = "{args.version}"', text, count=1, flags=re.M)
    write_text_atomic(reg_path, text)
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
