"""Where failures are: what a set of results (the failures of a run, or the regressions of a
version) has in common, for the terminal (`palconf summary`, the run's verdict) and the pages
(`palconf site`'s engine page) alike.

- `shared_cause`: the group (keyword, `protocol`, `base`) that the most failures are counted
  under, and within it the clause (or rule) that the most of them cite: `54 of the 54
  failures cite Taunt; 50 cite taunt.2`.
- `by_cause`: the results grouped by the clause (else rule, else group) they share, the
  largest group first: each result in exactly one group, that of the clause most of the
  others still ungrouped cite too (so a case citing `taunt.2` and `brave.1` goes with the
  other `taunt.2` failures when there are more of those).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from palconf.core.outcomes import BASE, PROTOCOL, PROTOCOL_PREFIX, Result

__all__ = ["Cause", "SharedCause", "by_cause", "cited", "shared_cause"]


def cited(r: Result) -> tuple[str, ...]:
    """What a result can be grouped by: the section-12 clauses its case cites; else its
    rules (protocol `P-…`, base `B-n`: many keyword cases cite a base rule too, which would
    lump them together); else its groups (a keyword, `protocol`, `base`)."""
    return r.clauses or r.rules or r.groups


@dataclass
class Cause:
    id: str  # a clause (`taunt.2`), a rule (`B-12`, `P-state`) or a group (`taunt`)
    results: list[Result]


def by_cause(results: Iterable[Result]) -> list[Cause]:
    """The results grouped by what they cite, the largest group first (ties by id)."""
    pending = list(results)
    out: list[Cause] = []
    while pending:
        counts = Counter(c for r in pending for c in cited(r))
        best = min(counts, key=lambda c: (-counts[c], c))
        out.append(Cause(best, [r for r in pending if best in cited(r)]))
        pending = [r for r in pending if best not in cited(r)]
    return out


@dataclass
class SharedCause:
    group: str  # the group the most failures are counted under
    in_group: int  # how many of them are
    total: int  # how many failures there are
    clause: str  # within the group, the clause or rule the most of them cite ("" if none)
    in_clause: int

    def words(self, name: Callable[[str], str] = str) -> str:
        """`54 of the 54 failures cite Taunt; 50 cite taunt.2` (`name`: a group's name)."""
        text = (
            f"{self.in_group} of the {self.total} failure{'' if self.total == 1 else 's'} "
            f"cite {name(self.group)}"
        )
        if self.clause and self.in_clause > 1:
            text += f"; {self.in_clause} cite {self.clause}"
        return text


def shared_cause(results: Iterable[Result]) -> SharedCause | None:
    """What the failed results (fail, error, timeout, xfail) have most in common, or None
    when nothing failed."""
    failed = [r for r in results if r.failed]
    if not failed:
        return None
    groups = Counter(g for r in failed for g in r.groups)
    group = min(groups, key=lambda g: (-groups[g], g))
    inside = [r for r in failed if group in r.groups]
    clauses = Counter(c for r in inside for c in cited(r) if _belongs(c, group))
    clause = min(clauses, key=lambda c: (-clauses[c], c)) if clauses else ""
    return SharedCause(group, len(inside), len(failed), clause, clauses[clause] if clause else 0)


def _belongs(cid: str, group: str) -> bool:
    """A clause of the keyword `group`, a protocol rule of `protocol`, a base rule of `base`."""
    if group == PROTOCOL:
        return cid.startswith(PROTOCOL_PREFIX)
    if group == BASE:
        return cid.startswith("B-")
    return cid.split(".")[0] == group
