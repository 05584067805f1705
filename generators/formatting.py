"""A difference printed for a terminal: the board, both sides' answers, the differing fields.

An engine's answers are untrusted: every text goes through `palconf.core.terminal_safe`
(control characters and other unprintable characters escaped, never sent as such).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from palconf.core import MISSING, terminal_safe

from ._cells import CELLS
from ._edges import CROSSED
from .lockstep import Answer, Difference

#: Most differing fields printed (the rest are counted).
MAX_FIELDS = 40
#: Longest action, and longest value of a differing field, printed (then cut with "…").
ACTION_WIDTH = 400
VALUE_WIDTH = 400


def show(value: Any, width: int | None = None) -> str:
    """A JSON value on one line (`(missing)` for `MISSING`), safe for a terminal, cut to
    `width` characters with "…"."""
    if value is MISSING:
        text = "(missing)"
    else:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))
    return terminal_safe(text, width)


def _verdict(answer: Answer | None) -> str:
    if answer is None:
        return "-"
    if answer.verdict == "refused":
        return f"refused {show(answer.reason)}" if answer.reason else "refused"
    if answer.verdict == "error":
        return "ERROR " + terminal_safe(answer.message, 60)
    return "accepted"


def format_difference(diff: Difference, *, board: str | None = None) -> str:
    """The minimal board, the actions with both sides' answers side by side, and the fields
    that differ. `board`: the board already rendered (e.g. as TOML); default JSON lines."""
    where = "after setup" if diff.step == 0 else f"at action {diff.step}"
    lines = [
        f"DIFFERENCE ({diff.kind}) {where}: {terminal_safe(diff.summary)}",
        f"engine: {terminal_safe(diff.engine_name)}",
        "",
        "board (setup STATE):",
    ]
    if board is None:
        board = json.dumps(diff.game.state, indent=2, ensure_ascii=False)
    lines += ["  " + terminal_safe(line) for line in board.rstrip().splitlines()]
    # the action last and whole (up to ACTION_WIDTH): the field that differs may be its last
    lines += ["", f"  {'#':>3}  {'oracle':<26}  {'engine':<26}  action"]
    for n in range(0, diff.step + 1):
        action = "(setup)" if n == 0 else show(diff.game.actions[n - 1], ACTION_WIDTH)
        o = diff.oracle[n] if n < len(diff.oracle) else None
        e = diff.engine[n] if n < len(diff.engine) else None
        lines.append(f"  {n:>3}  {_verdict(o):<26}  {_verdict(e):<26}  {action}")
    if diff.fields:
        lines += ["", f"  {'field':<34}  {'oracle':<30}  engine"]
        for f in diff.fields[:MAX_FIELDS]:
            path, exp, obs = terminal_safe(f.path), show(f.expected), show(f.observed)
            if len(path) <= 34 and len(exp) <= 30 and len(obs) <= 60:
                lines.append(f"  {path:<34}  {exp:<30}  {obs}")
            else:  # too wide for the columns: one line per side, never cut short
                lines += [
                    f"  {path}",
                    f"      oracle  {show(f.expected, VALUE_WIDTH)}",
                    f"      engine  {show(f.observed, VALUE_WIDTH)}",
                ]
        if len(diff.fields) > MAX_FIELDS:
            lines.append(f"  … and {len(diff.fields) - MAX_FIELDS} more")
    elif diff.kind in ("engine-error", "setup") and diff.engine:
        lines += ["", f"  engine: {terminal_safe(diff.engine[-1].message, 200)}"]
    return "\n".join(lines)


def _columns(items: list[str], width: int = 100, indent: str = "    ") -> list[str]:
    """`items` in aligned columns, as many as fit in `width`."""
    if not items:
        return []
    cell = max(len(i) for i in items) + 3
    per = max(1, (width - len(indent)) // cell)
    return [
        indent + "".join(i.ljust(cell) for i in items[k : k + per]).rstrip()
        for k in range(0, len(items), per)
    ]


def format_hits(hits: Mapping[str, int], reasons: Sequence[str], edges: Sequence[str]) -> str:
    """What a campaign hit (`FuzzReport.hits`): each REASON given, each pair of rows one
    action broke together, each STATE edge sent; what was never hit is named, so a gap in the
    generator shows. Pairs are listed for the rows an action can break together (not
    `game-over` or `invalid-action`, which stop the table)."""
    lines = ["what the games hit (generators/_edges.py, generators/directed.py):"]
    given = [f"{r} {hits.get('reason ' + r, 0)}" for r in reasons]
    never = [r for r in reasons if not hits.get("reason " + r)]
    lines.append(f"  REASON given ({len(reasons) - len(never)} of {len(reasons)}):")
    lines += _columns(given)
    deeper = [r for r in reasons if r not in ("game-over", "invalid-action")]
    pairs = [f"{a} + {b}" for i, a in enumerate(deeper) for b in deeper[i + 1 :]]
    hit = sorted((p for p in pairs if hits.get("rows " + p)), key=lambda p: -hits["rows " + p])
    lines.append(
        f"  REASON rows broken by one action together ({len(hit)} of {len(pairs)} pairs; "
        "some cannot meet in one action):"
    )
    lines += _columns([f"{p} {hits['rows ' + p]}" for p in hit])
    missing = [p for p in pairs if not hits.get("rows " + p)]
    if missing:
        lines.append(f"    never: {', '.join(missing)}")
    sent = [f"{e} {hits.get('edge ' + e, 0)}" for e in edges]
    unsent = [e for e in edges if not hits.get("edge " + e)]
    lines.append(f"  P-state edges sent with `setup` ({len(edges) - len(unsent)} of {len(edges)}):")
    lines += _columns(sent)
    if unsent:
        lines.append(f"    never: {', '.join(unsent)}")
    return "\n".join(lines + format_cells(hits, reasons))


def _short(cell: str) -> str:
    """`pal/battle/rest` → `P.b.r`, `structure/structures/stand` → `S.s.s`: a column head."""
    return ".".join(
        part[0].upper() if i == 0 else part[0] for i, part in enumerate(cell.split("/"))
    )


def format_cells(hits: Mapping[str, int], reasons: Sequence[str]) -> list[str]:
    """The hit table by card kind × zone × state (generators._cells): each crossed STATE edge
    sent on a card in each cell its rule allows (`-`: a cell the rule leaves out), and each
    REASON given to an action by the cell of its acting card (`none`: an id no card has).
    A `.` is a cell never hit: a thin row of the table is a misreading of that kind or zone
    no campaign finds."""
    heads = [_short(c) for c in CELLS] + ["none"]
    legend = "P/E/S pal/event/structure; h b a s g hand battle assigned structures graveyard; "
    lines = [
        "  by card kind × zone × state (" + legend + "last: stand/rest):",
        f"    {'P-state edge':<30}" + "".join(f"{h:>6}" for h in heads[:-1]),
    ]
    for name, cells in CROSSED.items():
        row = [f"{hits.get(f'edge {name}@{c}', 0) or '.'}" if c in cells else "-" for c in CELLS]
        lines.append(f"    {name:<30}" + "".join(f"{v:>6}" for v in row))
    lines.append(f"    {'REASON, by acting card':<30}" + "".join(f"{h:>6}" for h in heads))
    for reason in reasons:
        row = [f"{hits.get(f'cell {reason} {c}', 0) or '.'}" for c in (*CELLS, "none")]
        lines.append(f"    {reason:<30}" + "".join(f"{v:>6}" for v in row))
    return lines
