"""The blocks of a run's results that are not as expected, as `palconf run` prints them
after its results: `print_failure` (one block: the case, its file, what went wrong, the
engine's stderr), `print_failures` (the blocks grouped by what they share, `alike`: a
group's count, its first result in full and the others' ids; `-v` every block), and
`simplest`, the failing case `Next:` suggests looking at first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import IO

from palconf.cases.loader import Case
from palconf.core import Outcome, Result, terminal_safe
from palconf.core.outcomes import BASE, PROTOCOL
from palconf.core.text import stderr_lines, terminal_block
from palconf.running.terminal import Paint

__all__ = ["alike", "alike_groups", "print_failure", "print_failures", "simplest"]


def print_failure(r: Result, out: IO[str], paint: Paint, file: Callable[[str], str] = str) -> None:
    """A result that is not as expected: what the case is and where its file is, what went
    wrong, the engine's stderr. The engine's (and the files') text goes through
    `terminal_safe`; the message, which may be the engine's, is a block (`terminal_block`:
    its line breaks kept)."""
    head = paint.outcome(r.outcome, r.outcome.upper())
    print(f"\n{head} {terminal_safe(r.id, 200)}: {terminal_safe(r.title)}", file=out)
    if r.path:
        print(f"  file: {terminal_safe(file(r.path))}", file=out)
    if r.clauses:
        print(f"  clauses: {terminal_safe(', '.join(r.clauses), 2000)}", file=out)
    print(f"  {terminal_block(r.message, 2000)}", file=out)
    if r.expected or r.outcome == Outcome.XPASS:
        note = f" ({terminal_safe(r.note)})" if r.note else ""
        print(f"  expectations: {terminal_safe(' or '.join(r.expected)) or 'pass'}{note}", file=out)
    for d in r.diffs:
        print(f"    {terminal_safe(d, 2000)}", file=out)
    for line in stderr_lines(r.stderr):
        print(line, file=out)


def print_failures(
    results: list[Result], out: IO[str], paint: Paint, file: Callable[[str], str], every: bool
) -> None:
    """The results not as expected, grouped by what they share (`alike_groups`: the same
    outcome and message, the same fields differing): a group's count, its first result in
    full and the ids of the others; with `every` (`-v`) every block, in the suite's order."""
    if every:
        for r in results:
            print_failure(r, out, paint, file)
        return
    for group in alike_groups(results):
        first, rest = group[0], group[1:]
        if rest:
            kind = paint.outcome(first.outcome, f"{len(group)} {first.outcome.upper()}")
            what = "the same message" + (" and fields differing" if first.diffs else "")
            print(
                f"\n{kind} results alike ({what}): the first in full, the others by id "
                f"(-v shows each in full)",
                file=out,
            )
        print_failure(first, out, paint, file)
        if rest:
            ids = ", ".join(terminal_safe(r.id, 120) for r in rest[:SHOWN_IDS])
            more = f", … and {len(rest) - SHOWN_IDS} more" if len(rest) > SHOWN_IDS else ""
            print(f"  alike: {ids}{more}", file=out)


#: How many ids of a group of alike results `print_failures` names beside its example.
SHOWN_IDS = 5


def alike(r: Result) -> tuple[str, str, tuple[str, ...]]:
    """What results not as expected share to be shown as one group: the outcome, the message
    with its numbers (steps, counts, card ids' numbers) and an action's JSON left out, and
    the fields that differ (numbers left out too)."""
    message = re.sub(r"\{.*\}$", "{…}", re.sub(r"\d+", "N", r.message), flags=re.S)
    paths = tuple(sorted({re.sub(r"\d+", "N", d.path) for d in r.diffs}))
    return str(r.outcome), message, paths


def alike_groups(results: Iterable[Result]) -> list[list[Result]]:
    """`results` grouped by what they share (`alike`), the largest group first (then in the
    order their first result came), each in the order given."""
    groups: dict[tuple[str, str, tuple[str, ...]], list[Result]] = {}
    for r in results:
        groups.setdefault(alike(r), []).append(r)
    return sorted(groups.values(), key=lambda g: -len(g))


def simplest(results: list[Result], cases: list[Case]) -> Result | None:
    """The simplest of `results` to look at first: the fewest keywords tested (one rather
    than an interaction), then the fewest steps, then the first in the suite's order; an
    unexpected failure before an xpass."""
    steps = {c.id: len(c.steps) for c in cases}

    def cost(r: Result) -> tuple[bool, int, int]:
        tested = [k for k in r.keywords if k not in (BASE, PROTOCOL)]
        return r.outcome == Outcome.XPASS, len(tested), steps.get(r.id, 0)

    return min(results, key=cost, default=None)
