"""A case's standing under one rules version: does it hold for that version, and if not, why.

A case holds for the versions from `since` to `until` (both inclusive; without them, every
version that has the clauses it cites). It was reviewed ("blessed") against one version or
more, `rules_version` (a string, or a list in order of publication), and records the hash of
each cited clause's text in the last of them (`clause_hashes`). For a version V, the
registry says how each cited clause's text changed between V and the reviewed version
nearest to it (the last at or before V, else the first after; `Clause.life`): a change
reviewed as `editorial` (or no change) leaves the case valid for V with no edit to the case;
a `substantive` or `pending` change means the case must be read again against V's text. So
one review of a clause (`palconf rules review`) settles every case that cites it, and a
case's other clauses are judged on their own.

The states, worst first:

- `out-of-range`: V is outside `since`..`until`, or V does not have yet a clause the case
  cites (the case is of a later version). Not part of V's suite at all.
- `orphaned`: V no longer has a clause the case cites, removed with no clause it was
  merged into; the case needs an `until` (and, where the rule lives on, a successor). A
  clause merged into another (`[removed]`, `merged_into`) is judged by the merge's review:
  `editorial`, the rule lives on in that clause and the case holds (that clause's later
  changes count); `substantive` or `pending`, the case is `unreviewed`.
- `stale`: a recorded hash is not the hash of that clause's text in the last version the
  case says it was blessed against: the case file or the rules text was edited by hand since.
- `unreviewed`: between the blessed version and V a cited clause changed and that change is
  `substantive` (the case must be re-read, then blessed for V or given an `until`) or
  `pending` (nobody has reviewed the change yet).
- `unblessed`: no recorded version, or no hash for a cited clause: a case being written.
  It counts as written for the current version only.
- `valid`.

Only a `valid` case is run against V (and an `unblessed` one when V is current); `palconf
run` reports the others as skipped with the reason, so a results file stamped V holds only
verdicts of cases that hold for V.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from palconf.cases.loader import Case
from palconf.registry import Clause, Registry, clause_hash

__all__ = ["STATES", "Standing", "as_of", "standing"]

#: The states, worst first.
STATES = ("out-of-range", "orphaned", "stale", "unreviewed", "unblessed", "valid")


@dataclass(frozen=True)
class Standing:
    case: str
    path: str
    version: str  # the version it is judged for
    blessed: str | None  # the version it was blessed against
    out_of_range: str = ""  # why, when it is
    orphaned: tuple[str, ...] = ()  # cited clauses V no longer has
    stale: tuple[str, ...] = ()  # cited clauses whose recorded hash is wrong
    #: (clause, version, change): a cited clause's change that needs the case re-read
    unreviewed: tuple[tuple[str, str, str], ...] = ()
    unblessed: tuple[str, ...] = ()  # cited clauses with no recorded hash
    current: bool = False  # V is the registry's current version
    reviewed: tuple[str, ...] = ()  # every version it was reviewed against

    @property
    def state(self) -> str:
        if self.out_of_range:
            return "out-of-range"
        for name, value in (
            ("orphaned", self.orphaned),
            ("stale", self.stale),
            ("unreviewed", self.unreviewed),
        ):
            if value:
                return name
        return "unblessed" if self.blessed is None or self.unblessed else "valid"

    @property
    def in_suite(self) -> bool:
        """Whether the case belongs to V's suite (it may still be unfit to run)."""
        return not self.out_of_range

    @property
    def runs(self) -> bool:
        """Whether the case is run against V: valid, or unblessed when V is current."""
        state = self.state
        return state == "valid" or (state == "unblessed" and self.current)

    def reason(self) -> str:
        """Why the case does not hold for V, in one line ("" when it is valid)."""
        v = self.version
        if self.out_of_range:
            return self.out_of_range
        parts = []
        if self.orphaned:
            parts.append(
                f"orphaned: rules {v} no longer has {', '.join(self.orphaned)} "
                f"(give the case `until`, and a successor where the rule lives on)"
            )
        if self.stale:
            parts.append(
                f"stale: the recorded hash of {', '.join(self.stale)} is not the hash of its "
                f"text in rules {self.blessed} (review the case, then `palconf rules bless`)"
            )
        if self.unreviewed:
            said = ", ".join(f"{cid} {change} in {at}" for cid, at, change in self.unreviewed)
            parts.append(
                f"not reviewed for rules {v}: {said} (reviewed for {', '.join(self.reviewed)}; "
                f"`palconf rules review` a pending change, re-read a substantive one)"
            )
        if self.state == "unblessed":
            what = ", ".join(self.unblessed) if self.unblessed else "any clause"
            parts.append(f"not blessed: no recorded hash for {what}")
        return "; ".join(parts)


def standing(case: Case, registry: Registry, version: str | None = None) -> Standing:
    """`case`'s standing under `version` (default: the registry's current one)."""
    v = registry.resolve(version)
    names = list(registry.versions)
    at = names.index(v)
    since, until = case.since, case.until

    def make(**found: Any) -> Standing:
        return Standing(
            case.id,
            case.path,
            v,
            case.rules_version,
            current=v == registry.current,
            reviewed=case.reviewed,
            **found,
        )

    if since is not None and at < names.index(since):
        return make(out_of_range=f"holds since rules {since}")
    if until is not None and at > names.index(until):
        succ = f" (succeeded by {', '.join(case.replaced_by)})" if case.replaced_by else ""
        return make(out_of_range=f"held until rules {until}{succ}")
    clauses = [registry.clauses[cid] for cid in case.clauses]
    later = [c.id for c in clauses if not c.in_version(v) and _first(c.text, names) > at]
    if later:
        return make(out_of_range=f"cites {', '.join(later)}, which rules {v} does not have yet")
    merged = {c.id: m for c in clauses if not c.in_version(v) and (m := _merge(c, names, at))}
    orphaned = tuple(c.id for c in clauses if not c.in_version(v) and c.id not in merged)
    hashes = case.clause_hashes
    blessed = case.rules_version
    stale: list[str] = []
    unblessed: list[str] = []
    unreviewed: list[tuple[str, str, str]] = []
    if blessed is not None:  # (the loader checked they are versions of the registry)
        b = _nearest([names.index(r) for r in case.reviewed], at)
        span = names[b + 1 : at + 1] if at >= b else names[at + 1 : b + 1]
        for c in clauses:
            if c.id not in hashes:
                unblessed.append(c.id)
                continue
            text = c.text.get(blessed)
            if text is None or hashes[c.id] != clause_hash(text):
                stale.append(c.id)
                continue
            for w in span:
                change = c.life.get(w)
                if change in ("substantive", "pending"):
                    unreviewed.append((c.id, w, str(change)))
                elif change == "merged" and c.merge_change[w] != "editorial":
                    into = c.merged_into[w]
                    unreviewed.append((c.id, w, f"merged into {into} ({c.merge_change[w]})"))
            if c.id in merged:  # its rule lives on in another clause: that one's changes
                into, w = merged[c.id]
                for after in names[names.index(w) + 1 : at + 1]:
                    change = registry.clauses[into].life.get(after)
                    if change in ("substantive", "pending"):
                        unreviewed.append((into, after, str(change)))
    return make(
        orphaned=orphaned,
        stale=tuple(stale),
        unreviewed=tuple(unreviewed),
        unblessed=tuple(unblessed),
    )


def _merge(clause: Clause, names: list[str], at: int) -> tuple[str, str] | None:
    """(the clause it went into, the version) when `clause` was merged into another at or
    before version index `at` and is not back since; None when it was simply removed."""
    for w in reversed(names[: at + 1]):
        if w in clause.text:
            return None
        if clause.life.get(w) == "merged":
            return clause.merged_into[w], w
    return None


def _nearest(reviewed: list[int], at: int) -> int:
    """Of the reviewed versions (indexes), the last at or before `at`, else the first."""
    return max((r for r in reviewed if r <= at), default=min(reviewed))


def _first(text: dict[str, str], names: list[str]) -> int:
    """The index of the first version that has a clause (its `text` keys)."""
    return min((names.index(v) for v in text if v in names), default=len(names))


def as_of(case: Case, registry: Registry, version: str) -> Case:
    """`case` as a case of rules `version`: an engine must implement only the keywords it
    uses that `version` has. A word that is a keyword of another version only is, under
    `version`, a keyword no engine implements (a 1.00 case that checks `setup` refuses
    "Flying" as unsupported runs against a 1.00 engine, though 1.01 adds Flying)."""
    mine = set(registry.keywords_in(version))
    needs = frozenset(k for k in case.needs if k in mine)
    return case if needs == case.needs else replace(case, needs=needs)
