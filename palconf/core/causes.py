"""Where failures are: what a set of results (the failures of a run, or the regressions of a
version) has in common, for the terminal (`palconf run`'s `where:` line, `palconf summary`),
the report's engine cards and the pages (`palconf site`'s engine page) alike. This module
is the one place that counts it.

Everything a case cites and leans on is counted: the keywords it tests (both of a case of
two keywords) and their clauses, the protocol rules (`P-…`), the base rules (`B-n`) and the
rulings (`I-n`). What a case *tests* (its keywords and clauses, its protocol rules, or for a
case of the base rules its base rules) comes first; what it *leans on* (the base rules and
rulings a keyword or protocol case cites beside) is named when what the failures test does
not explain most of them. So a Taunt bug is "all 56 failures cite Taunt; 48 cite taunt.1"
even though 55 of those cases also cite B-11 (attacks), and a bug in a tie (B-15) is "all
43 failures cite B-15", not "11 of the 43 failures cite Brave".

- `shared_cause`: what the failures have most in common (`SharedCause.words`: `all 43
  failures cite B-15`, `51 of the 55 failures cite Brave; 44 cite brave.1`). Unexpected
  failures are counted when there are any, else the expected ones (xfail), and said so.
- `by_cause`: the results grouped by the clause or rule they share, the largest group
  first, each result in exactly one group, picked by the same rule.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from palconf.core.outcomes import BASE, PROTOCOL, PROTOCOL_PREFIX, Outcome, Result

__all__ = ["Cause", "SharedCause", "by_cause", "cited", "leans_on", "shared_cause", "tests"]


def _keyword_of(clause: str) -> str:
    return clause.split(".")[0]


def tests(r: Result, *, clauses: bool) -> tuple[str, ...]:
    """What a result's case tests: its clauses (`clauses`) or its keywords (each keyword it
    tests and the keyword of each clause it cites), and its protocol rules; a case of the
    base rules (no keyword, no protocol rule) its base rules. A result that cites nothing
    (a hand-written results file) its groups."""
    own = list(r.clauses) if clauses else [*r.keywords, *map(_keyword_of, r.clauses)]
    own = [x for x in own if x not in (BASE, PROTOCOL)]
    own += [x for x in r.rules if x.startswith(PROTOCOL_PREFIX)]
    if not own:
        own = [x for x in r.rules if not x.startswith(PROTOCOL_PREFIX)]
    return tuple(dict.fromkeys(own)) or r.groups


def leans_on(r: Result, *, clauses: bool) -> tuple[str, ...]:
    """What a result's case leans on beside what it `tests`: its other rules (the base
    rules of a keyword or protocol case) and its rulings."""
    own = set(tests(r, clauses=clauses))
    return tuple(x for x in dict.fromkeys((*r.rules, *r.interpretations)) if x not in own)


def cited(r: Result) -> tuple[str, ...]:
    """Everything a result can be grouped by (`by_cause`): the clauses (else keywords) and
    rules its case tests, then the rules and rulings it leans on."""
    return tests(r, clauses=True) + leans_on(r, clauses=True)


def _pick(results: Sequence[Result], *, clauses: bool) -> tuple[list[str], int]:
    """The ids that explain the most of `results` (ties, in id order), and how many results
    cite them: the most cited of what the cases test when it explains more than half of
    them, else the most cited of everything they cite and lean on (what they test first at
    a tie)."""
    own = Counter(x for r in results for x in tests(r, clauses=clauses))
    counts = own
    if 2 * max(own.values()) <= len(results):
        counts = Counter(
            x for r in results for x in tests(r, clauses=clauses) + leans_on(r, clauses=clauses)
        )
    top = max(counts.values())
    return sorted((x for x, n in counts.items() if n == top), key=_order), top


def _order(cid: str) -> tuple[bool, list[str | int]]:
    """Keywords and clauses (lowercase) before rules and rulings, each by id, its numbers
    as numbers (B-6 before B-10)."""
    return cid[:1].isupper(), [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", cid)]


@dataclass
class Cause:
    id: str  # a clause (`taunt.2`), a rule (`B-12`, `P-state`), a ruling (`I-3`) or a group
    results: list[Result]


def by_cause(results: Iterable[Result]) -> list[Cause]:
    """The results grouped by the clause or rule they share (as `_pick` picks it), the
    largest group first (ties by id)."""
    pending = list(results)
    out: list[Cause] = []
    while pending:
        best = _pick(pending, clauses=True)[0][0]
        out.append(Cause(best, [r for r in pending if best in cited(r)]))
        pending = [r for r in pending if best not in cited(r)]
    return out


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@dataclass
class SharedCause:
    names: list[str]  # what the most failures cite (several at a tie: both keywords of a case)
    count: int  # how many of them cite each
    total: int  # how many failures there are
    clause: str  # when `names` is one keyword: its clause the most of them cite ("" if none)
    in_clause: int
    expected: bool = False  # every failure counted is an expected one (xfail)

    #: At most this many names in `words` (more tied are "and N more").
    MOST = 3

    def words(self, name: Callable[[str], str] = str) -> str:
        """`all 43 failures cite B-15`, `51 of the 55 failures cite Brave; 44 cite brave.1`,
        `the 1 failure cites Brave and Taunt` (`name`: a keyword's name)."""
        noun = "expected failure" if self.expected else "failure"
        if self.total == 1:
            head, verb = f"the 1 {noun}", "cites"
        elif self.count == self.total:
            head, verb = f"all {self.total} {noun}s", "cite"
        else:
            head, verb = f"{self.count} of the {self.total} {noun}s", "cite"
        shown = [name(n) for n in self.names[: self.MOST]]
        if len(self.names) > self.MOST:
            shown.append(f"{len(self.names) - self.MOST} more")
        text = f"{head} {verb} {_and(shown)}"
        if self.clause and self.in_clause > 1:
            text += f"; {self.in_clause} cite {self.clause}"
        return text

    def counts(self, name: Callable[[str], str] = str) -> list[tuple[str, int]]:
        """(what, how many failures cite it): each of `names`, then the clause."""
        out = [(name(n), self.count) for n in self.names[: self.MOST]]
        if self.clause and self.in_clause > 1:
            out.append((self.clause, self.in_clause))
        return out


def counted_failures(results: Iterable[Result]) -> tuple[list[Result], bool]:
    """The failures `shared_cause` counts: the unexpected ones (fail, error, timeout), or
    when there are none the expected ones (xfail); and whether they are the expected ones."""
    failed = [r for r in results if r.failed]
    unexpected = [r for r in failed if r.outcome != Outcome.XFAIL]
    return (unexpected, False) if unexpected else (failed, bool(failed))


def shared_cause(results: Iterable[Result]) -> SharedCause | None:
    """What the failed results have most in common (`counted_failures`), or None when
    nothing failed."""
    failed, expected = counted_failures(results)
    if not failed:
        return None
    names, count = _pick(failed, clauses=False)
    clause, in_clause = "", 0
    if len(names) == 1:
        inside = Counter(
            c for r in failed for c in r.clauses if _keyword_of(c) == names[0] and "." in c
        )
        if inside:
            clause = min(inside, key=lambda c: (-inside[c], c))
            in_clause = inside[clause]
    return SharedCause(names, count, len(failed), clause, in_clause, expected)
