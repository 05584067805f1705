"""`palconf list [cases|keywords|clauses|versions]`: what the suite holds, one line each, or JSON.

Plain output is a header row, then one line per item, in aligned columns, every text from the
files made terminal-safe; on a terminal each line is cut to its width
(`shutil.get_terminal_size`) with "…", and `-v` prints every line whole; `--json` prints one
JSON document (keys sorted, ASCII only). The case options
(`--cases`, `--keyword`, `--case`) choose the cases listed or counted; `--rules V` the rules
version (default: the registry's current one) whose suite, keywords and clauses are listed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from typing import Any

from palconf.cases.loader import Case
from palconf.cases.standing import standing
from palconf.commands import (
    add_case_options,
    add_rules_option,
    chosen_rules,
    registry_or_exit,
    select_cases,
)
from palconf.core import terminal_safe
from palconf.registry import BASE, PROTOCOL, Registry

#: The states of a case that is run against the version (`palconf.cases.standing`).
RUN = ("valid", "unblessed")

WHAT = ("cases", "keywords", "clauses", "versions")

DESCRIPTION = """\
List what the suite holds for one rules version (--rules V; default: the registry's
current one): the cases (default), the keyword groups, the clauses, or the versions.

  cases     the cases of V's suite: id, file (relative to the cases folder), groups,
            clauses, base and protocol rules, interpretations (I-n), title (a case that
            does not hold for V as it stands: its state first, `[unreviewed]`); by id
  keywords  every group a case counts under (V's keywords in the order of the rules text,
            then protocol, then base): id, how many clauses (for protocol and base: their
            rules, P-... and B-n), how many of them are testable, how many cases, name
  clauses   every clause id V has, in the order of the rules text: id, keyword, testable
            or not, how many cases cite it, its summary as of V
  versions  every rules version, in publication order: id, `current` or '-', its oracle
            class, how many clauses it added, changed and removed, how many cases hold for
            it, title

The case options choose the cases listed or counted; with --keyword, `keywords` and
`clauses` list only those groups. Cases are counted when they hold for V (`palconf rules
status`). Plain output: a header row, then one line per item, aligned columns, a list joined
by commas, '-' for none; on a terminal each line is cut to its width with '…' (-v, or a
pipe: whole lines).

--json prints one document; keys are sorted and every string is ASCII (\\u escapes):
  cases:    {"rules_version": V, "cases": [{"id", "path", "keywords", "clauses", "rules",
             "interpretations", "title", "state"}]}        (lists of strings; "state":
             valid, unblessed, unreviewed, stale or orphaned)
  keywords: {"rules_version": V, "keywords": [{"id", "name", "kind" ("keyword", "protocol"
             or "base"), "clauses", "testable", "cases"}]}  (counts)
  clauses:  {"rules_version": V, "clauses": [{"id", "keyword", "testable" (true/false),
             "summary", "cases"}]}                          ("cases": a count)
  versions: {"rules_version": V, "versions": [{"id", "title", "current" (true/false),
             "oracle", "added", "changed", "removed", "cases"}]}   (counts)

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
    add_rules_option(p)
    p.add_argument("--json", action="store_true", help="one JSON document (shape above)")
    p.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="print every line whole (by default a terminal's lines are cut to its width)",
    )
    p.set_defaults(func=main)


def case_rows(
    cases: Sequence[Case], registry: Registry, version: str | None = None
) -> list[dict[str, Any]]:
    version = version or registry.current
    return [
        {
            "id": c.id,
            "path": c.path,
            "keywords": list(c.keywords),
            "clauses": list(c.clauses),
            "rules": list(c.rules),
            "interpretations": list(c.interpretations),
            "title": c.title,
            "state": standing(c, registry, version).state,
        }
        for c in sorted(cases, key=lambda c: c.id)
    ]


def keyword_rows(
    cases: Sequence[Case], registry: Registry, only: Sequence[str], version: str | None = None
) -> list[dict[str, Any]]:
    version = version or registry.current
    have = {c.id for c in registry.clauses_in(version)}
    groups = [*registry.keywords_in(version), PROTOCOL, BASE]
    rows = []
    for kid in groups:
        if only and kid not in only:
            continue
        if kid == PROTOCOL:
            kind, clauses, testable = PROTOCOL, len(registry.protocol), len(registry.protocol)
        elif kid == BASE:
            kind, clauses, testable = BASE, len(registry.base), len(registry.base)
        else:
            own = [c for c in registry.clauses.values() if c.keyword == kid and c.id in have]
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
    cases: Sequence[Case], registry: Registry, only: Sequence[str], version: str | None = None
) -> list[dict[str, Any]]:
    version = version or registry.current
    citing: dict[str, int] = {}
    for case in cases:
        for cid in case.clauses:
            citing[cid] = citing.get(cid, 0) + 1
    return [
        {
            "id": c.id,
            "keyword": c.keyword,
            "testable": c.testable,
            "summary": registry.summary_in(c.id, version),
            "cases": citing.get(c.id, 0),
        }
        for c in registry.clauses_in(version)
        if not only or c.keyword in only
    ]


def version_rows(cases: Sequence[Case], registry: Registry) -> list[dict[str, Any]]:
    """Each rules version: its title, whether it is current, its oracle class, how many
    clauses it added, changed (editorial, substantive, pending) and removed (or merged), and
    how many of `cases` hold for it (are run against it)."""
    rows = []
    for v in registry.versions:
        life = [c.life.get(v) for c in registry.clauses.values()]
        oracle = registry.oracle(v)
        rows.append(
            {
                "id": v,
                "title": registry.title(v),
                "current": v == registry.current,
                "oracle": f"{oracle.__module__}:{oracle.__qualname__}",
                "added": life.count("added"),
                "changed": sum(x in ("editorial", "substantive", "pending") for x in life),
                "removed": sum(x in ("removed", "merged") for x in life),
                "cases": sum(standing(c, registry, v).runs for c in cases),
            }
        )
    return rows


def cell(value: Any) -> str:
    """One column of a plain line, terminal-safe (no tab, newline or escape code)."""
    if isinstance(value, list):
        value = ",".join(value) or "-"
    return terminal_safe(value if value != "" else "-")


def plain(
    table: list[list[Any]], header: Sequence[str] = (), width: int | None = None
) -> list[str]:
    """Rows of cells as aligned lines, after the `header` row (if any): numbers
    right-aligned, the last column not padded. With a `width`, lines are fitted to it
    (`fit`): long text is cut, "…" marking where."""
    if not table:
        return []
    cells = [[cell(v) for v in row] for row in table]
    if header:
        cells.insert(0, list(header))
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    numeric = [all(isinstance(row[i], int) for row in table) for i in range(len(table[0]))]
    if width is not None:
        widths = fit(widths, numeric, width)
    lines = []
    for row in cells:
        padded = [
            cut(v, w).rjust(w) if num else cut(v, w).ljust(w)
            for v, w, num in zip(row, widths, numeric, strict=True)
        ]
        lines.append(cut("  ".join([*padded[:-1], cut(row[-1], widths[-1])]).rstrip(), width))
    return lines


#: the narrowest a text column is cut to (the last one, the long text: `LAST`)
NARROWEST, LAST = 8, 20


def fit(widths: list[int], numeric: list[bool], width: int) -> list[int]:
    """Column widths whose line (two spaces between columns) fits `width`: the last column
    (a title, a summary) is cut first, down to `LAST`; then the widest text column between
    the first and the last, one character at a time, down to `NARROWEST`; the first column
    (the id to give other commands) last of all. What still does not fit is cut at the end
    of the line."""
    widths = list(widths)
    excess = sum(widths) + 2 * (len(widths) - 1) - width
    if excess <= 0:
        return widths
    shrink = min(excess, max(0, widths[-1] - LAST))
    widths[-1] -= shrink
    excess -= shrink
    for columns in (range(1, len(widths) - 1), range(1)):
        text = [k for k in columns if not numeric[k]]
        while excess > 0 and text:
            i = max(text, key=lambda k: widths[k])
            if widths[i] <= NARROWEST:
                break
            widths[i] -= 1
            excess -= 1
    return widths


def line_width(whole: bool) -> int | None:
    """How wide a line may be: the terminal's width (`shutil.get_terminal_size`, which reads
    COLUMNS first) when stdout is a terminal; None (whole lines) for `-v` or a pipe."""
    if whole or not sys.stdout.isatty():
        return None
    return max(20, shutil.get_terminal_size().columns)


def cut(text: str, width: int | None) -> str:
    """`text` cut to `width` characters, its end shown as "…" (None: whole)."""
    if width is None or len(text) <= width:
        return text
    return text[: max(0, width - 1)] + "…"


def main(args: argparse.Namespace) -> int:
    registry = registry_or_exit()
    version = chosen_rules(registry, args.rules)
    selected = select_cases(args, registry)
    suite = [c for c in selected if standing(c, registry, version).in_suite]
    counted = [c for c in suite if standing(c, registry, version).runs]
    header: tuple[str, ...]
    if args.what == "cases":
        header = ("ID", "FILE", "GROUPS", "CLAUSES", "RULES", "RULINGS", "TITLE")
        rows = case_rows(suite, registry, version)
        order = ["id", "path", "keywords", "clauses", "rules", "interpretations"]
        table = [
            [
                *(r[k] for k in order),
                r["title"] if r["state"] in RUN else f"[{r['state']}] " + r["title"],
            ]
            for r in rows
        ]
    elif args.what == "keywords":
        # (for protocol and base, CLAUSES counts their rules: P-… and B-n)
        header = ("GROUP", "CLAUSES", "TESTABLE", "CASES", "NAME")
        rows = keyword_rows(counted, registry, args.keyword, version)
        table = [[r["id"], r["clauses"], r["testable"], r["cases"], r["name"]] for r in rows]
    elif args.what == "versions":
        header = ("VERSION", "CURRENT", "ORACLE", "ADDED", "CHANGED", "REMOVED", "CASES", "TITLE")
        rows = version_rows(selected, registry)
        table = [
            [
                r["id"],
                "current" if r["current"] else "-",
                r["oracle"],
                r["added"],
                r["changed"],
                r["removed"],
                r["cases"],
                r["title"],
            ]
            for r in rows
        ]
    else:
        header = ("CLAUSE", "KEYWORD", "TESTABLE", "CASES", "SUMMARY")
        rows = clause_rows(counted, registry, args.keyword, version)
        table = [
            [
                r["id"],
                r["keyword"],
                "testable" if r["testable"] else "untestable",
                r["cases"],
                r["summary"],
            ]
            for r in rows
        ]
    if args.json:
        document = {"rules_version": version, args.what: rows}
        print(json.dumps(document, indent=2, sort_keys=True))
        return 0
    for line in plain(table, header, line_width(args.verbose)):
        print(line)
    return 0
