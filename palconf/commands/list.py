"""`palconf list [cases|keywords|clauses]`: what the suite holds, one line per item or JSON.

Plain output is one line per item, in aligned columns, every text from the files made
terminal-safe; `--json` prints one JSON document (keys sorted, ASCII only). The case options
(`--cases`, `--keyword`, `--case`) choose the cases listed or counted.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from palconf.cases.loader import Case
from palconf.commands import add_case_options, registry_or_exit, select_cases
from palconf.core import terminal_safe
from palconf.registry import BASE, PROTOCOL, Registry

WHAT = ("cases", "keywords", "clauses")

DESCRIPTION = """\
List what the suite holds: the cases (default), the keyword groups, or the clauses.

  cases     id, file (relative to the cases folder), groups, clauses, base and protocol
            rules, interpretations (I-n), title; sorted by id
  keywords  every group a case counts under (the keywords in the order of the rules text,
            then protocol, then base): id, how many clauses (for protocol and base: their
            rules, P-... and B-n), how many of them are testable, how many cases, name
  clauses   every clause id of the registry, in the order of the rules text: id, keyword,
            testable or not, how many cases cite it, summary

The case options choose the cases listed or counted; with --keyword, `keywords` and
`clauses` list only those groups. Plain output: one line per item, aligned columns, a
list joined by commas, '-' for none.

--json prints one document; keys are sorted and every string is ASCII (\\u escapes):
  cases:    {"rules_version": V, "cases": [{"id", "path", "keywords", "clauses", "rules",
             "interpretations", "title"}]}                 (lists of strings)
  keywords: {"rules_version": V, "keywords": [{"id", "name", "kind" ("keyword", "protocol"
             or "base"), "clauses", "testable", "cases"}]}  (counts)
  clauses:  {"rules_version": V, "clauses": [{"id", "keyword", "testable" (true/false),
             "summary", "cases"}]}                          ("cases": a count)

Exit 0; 2 when the cases cannot be loaded or none is selected."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "list",
        help="list the cases, keyword groups or clauses (--json for machines)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "what",
        nargs="?",
        choices=WHAT,
        default="cases",
        help="what to list (default: cases)",
    )
    add_case_options(p)
    p.add_argument("--json", action="store_true", help="one JSON document (shape above)")
    p.set_defaults(func=main)


def case_rows(cases: Sequence[Case]) -> list[dict[str, Any]]:
    return [
        {
            "id": c.id,
            "path": c.path,
            "keywords": list(c.keywords),
            "clauses": list(c.clauses),
            "rules": list(c.rules),
            "interpretations": list(c.interpretations),
            "title": c.title,
        }
        for c in sorted(cases, key=lambda c: c.id)
    ]


def keyword_rows(
    cases: Sequence[Case], registry: Registry, only: Sequence[str]
) -> list[dict[str, Any]]:
    rows = []
    for kid in registry.groups:
        if only and kid not in only:
            continue
        if kid == PROTOCOL:
            kind, clauses, testable = PROTOCOL, len(registry.protocol), len(registry.protocol)
        elif kid == BASE:
            kind, clauses, testable = BASE, len(registry.base), len(registry.base)
        else:
            own = [c for c in registry.clauses.values() if c.keyword == kid]
            kind, clauses, testable = "keyword", len(own), sum(c.testable for c in own)
        rows.append(
            {
                "id": kid,
                "name": registry.keyword_name(kid),
                "kind": kind,
                "clauses": clauses,
                "testable": testable,
                "cases": sum(kid in c.keywords for c in cases),
            }
        )
    return rows


def clause_rows(
    cases: Sequence[Case], registry: Registry, only: Sequence[str]
) -> list[dict[str, Any]]:
    citing: dict[str, int] = {}
    for case in cases:
        for cid in case.clauses:
            citing[cid] = citing.get(cid, 0) + 1
    return [
        {
            "id": c.id,
            "keyword": c.keyword,
            "testable": c.testable,
            "summary": c.summary,
            "cases": citing.get(c.id, 0),
        }
        for c in registry.clauses.values()
        if not only or c.keyword in only
    ]


def cell(value: Any) -> str:
    """One column of a plain line, terminal-safe (no tab, newline or escape code)."""
    if isinstance(value, list):
        value = ",".join(value) or "-"
    return terminal_safe(value if value != "" else "-")


def plain(table: list[list[Any]]) -> list[str]:
    """Rows of cells as aligned lines: numbers right-aligned, the last column not padded."""
    if not table:
        return []
    cells = [[cell(v) for v in row] for row in table]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    numeric = [all(isinstance(row[i], int) for row in table) for i in range(len(table[0]))]
    lines = []
    for row in cells:
        padded = [
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(row, widths, numeric, strict=True)
        ]
        lines.append("  ".join([*padded[:-1], row[-1]]).rstrip())
    return lines


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    cases = select_cases(args, registry)
    if args.what == "cases":
        rows = case_rows(cases)
        order = ["id", "path", "keywords", "clauses", "rules", "interpretations", "title"]
        table = [[r[k] for k in order] for r in rows]
    elif args.what == "keywords":
        rows = keyword_rows(cases, registry, args.keyword)
        table = [
            [
                r["id"],
                r["clauses"],
                "clauses" if r["kind"] == "keyword" else "rules",
                r["testable"],
                "testable",
                r["cases"],
                "cases",
                r["name"],
            ]
            for r in rows
        ]
    else:
        rows = clause_rows(cases, registry, args.keyword)
        table = [
            [
                r["id"],
                r["keyword"],
                "testable" if r["testable"] else "untestable",
                r["cases"],
                "cases",
                r["summary"],
            ]
            for r in rows
        ]
    if args.json:
        document = {"rules_version": registry.current, args.what: rows}
        print(json.dumps(document, indent=2, sort_keys=True))
        return 0
    for line in plain(table):
        print(line)
    return 0
