"""Each case's history on the site (`palconf site`): for every engine, its runs in the site's
order (`reports.site.ordered`), oldest first, as spans of consecutive runs with the same
outcome for the case — "1.0–1.8 pass · 1.9 fail · since 1.10 pass".

What a history needs of a run is kept in the run's summary (`reports.site_index`): one
letter per case (`LETTERS`, `ABSENT` for none) against the run's case ids in sorted order,
an id list that is stored once per distinct list (`IdLists`: SITE/.palconf-site/ids/), so
that no results file is read again for a history and a thousand runs hold about a thousand
short strings. The last span is open ("since 1.10"): a run that changes nothing about a
case leaves its history, and so its page, as it was.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from palconf.core.outcomes import OUTCOMES
from palconf.core.safe_write import write_text_atomic

from .site_checks import strings

if TYPE_CHECKING:
    from palconf.core import Result
    from palconf.core.results_meta import Completeness

__all__ = ["ABSENT", "LETTERS", "HeldRun", "IdLists", "Span", "case_histories", "letters_of"]

#: One letter per outcome, as a run's summary keeps its cases' outcomes.
LETTERS = {
    "pass": "p",
    "fail": "f",
    "error": "e",
    "timeout": "t",
    "skip": "s",
    "xfail": "x",
    "xpass": "X",
}
assert set(LETTERS) == set(OUTCOMES), "every outcome has its letter"
OUTCOME_OF = {letter: outcome for outcome, letter in LETTERS.items()}
ABSENT = "-"  # the run does not hold the case
LEFT_OUT = "~"  # a partial run does not hold it (its selection left cases of the suite out)
NOT_REACHED = "."  # an unfinished run does not hold it (it stopped before every case)
#: How a case page names a span of runs without the case, and what it says of them.
ABSENCES = {
    ABSENT: ("absent", "not in these runs"),
    LEFT_OUT: ("not run", "partial runs: their selection left cases of the suite out"),
    NOT_REACHED: ("no result", "unfinished runs: they stopped before every case they selected"),
}


class HeldRun(Protocol):
    """What a history needs of a run (`reports.site_index.RunSummary` has it)."""

    path: str
    ids: tuple[str, ...]  # its cases' ids, sorted (a list held once: `IdLists`)
    letters: str  # one letter per id

    @property
    def engine_version(self) -> str: ...

    @property
    def date(self) -> str: ...

    @property
    def completeness(self) -> Completeness: ...


class IdLists:
    """The distinct lists of case ids of the runs, each held once (by the hash of its
    ids, its *key*), and stored under `folder` (one file per list) when there is one."""

    def __init__(self, folder: Path | None = None, out: Path | None = None) -> None:
        self.folder = folder
        self.out = out
        self.lists: dict[str, tuple[str, ...]] = {}

    @staticmethod
    def key(ids: Sequence[str]) -> str:
        return hashlib.sha256("\n".join(ids).encode("utf-8", "surrogatepass")).hexdigest()

    def held(self, ids: Sequence[str]) -> tuple[str, tuple[str, ...]]:
        """(key, the list as held): the one list held for these ids."""
        key = self.key(ids)
        return key, self.lists.setdefault(key, tuple(ids))

    def read(self, key: str) -> tuple[str, ...]:
        """The list of `key`, from its file; ValueError when it is missing or not that list."""
        if key in self.lists:
            return self.lists[key]
        if self.folder is None or not key.isalnum():
            raise ValueError(f"an id list {key!r} that is not kept")
        try:
            data = json.loads((self.folder / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, RecursionError) as e:
            raise ValueError(f"the id list {key} cannot be read ({e})") from None
        data = strings(data, f"the id list {key}")
        if self.key(data) != key:
            raise ValueError(f"the id list {key} is not the list of its name")
        self.lists[key] = tuple(data)
        return self.lists[key]

    def save(self, keys: Iterable[str]) -> None:
        """Write the lists of `keys` that have no file yet, and remove the others."""
        if self.folder is None or self.out is None:
            return
        wanted = set(keys)
        for key in sorted(wanted):
            p = self.folder / f"{key}.json"
            if not p.is_file():
                write_text_atomic(p, json.dumps(list(self.lists[key])), inside=self.out)
        if self.folder.is_dir():
            for p in self.folder.iterdir():
                if p.suffix == ".json" and p.stem not in wanted and p.is_file():
                    p.unlink()


def letters_of(results: Iterable[Result]) -> tuple[list[str], str]:
    """(the cases' ids, sorted; one letter per id): what a summary keeps of the outcomes
    (a case held twice: its last result, as the reports count it)."""
    outcome = {r.id: r.outcome for r in results}
    ids = sorted(outcome)
    return ids, "".join(LETTERS[outcome[i]] for i in ids)


def check_letters(letters: Any, ids: Sequence[str]) -> str:
    """`letters` when it is one known letter per id; ValueError otherwise."""
    if not isinstance(letters, str) or len(letters) != len(ids):
        raise ValueError("a summary's letters must be a string of one letter per case")
    if not set(letters) <= OUTCOME_OF.keys():
        raise ValueError("a summary's letters hold an unknown outcome")
    return letters


@dataclass(frozen=True)
class Span:
    """Consecutive runs of an engine with one outcome for a case (None: not in them, and
    `absence` says why: `ABSENCES`)."""

    first: str  # the first run's version (`run_label`)
    last: str | None  # the last run's; None while it lasts (up to the latest run)
    outcome: str | None
    absence: str = ""  # ABSENT, LEFT_OUT or NOT_REACHED when outcome is None

    @property
    def absent_words(self) -> tuple[str, str]:
        """(what the page calls runs without the case, why they have none)."""
        return ABSENCES.get(self.absence, ABSENCES[ABSENT])

    @property
    def words(self) -> str:
        """ "1.0–1.8", "1.9", "since 1.10"."""
        if self.last is None:
            return f"since {self.first}"
        return self.first if self.last == self.first else f"{self.first}–{self.last}"

    def to_json(self) -> list[Any]:
        return [self.first, self.last, self.outcome, self.absence]


def run_label(run: HeldRun) -> str:
    """How a history names a run: its version, else its date, else its file's name."""
    return run.engine_version or run.date or Path(run.path).name


def case_histories(runs: Sequence[HeldRun], wanted: Iterable[str]) -> dict[str, list[Span]]:
    """Case id → its spans over one engine's `runs` (in order, oldest first), for each of
    `wanted`: from the letters of the summaries, a case's runs compared only where they
    differ from the run before."""
    labels = [run_label(r) for r in runs]
    current = {cid: (0, ABSENT) for cid in wanted}  # case → (its span's first run, letter)
    spans: dict[str, list[Span]] = {cid: [] for cid in current}
    before: HeldRun | None = None
    for i, run in enumerate(runs):
        changed: Iterable[tuple[str, str]]
        absent = absence(run)
        if before is not None and run.ids is before.ids and absent == absence(before):
            old = before.letters
            changed = [(run.ids[p], c) for p, c in enumerate(run.letters) if c != old[p]]
        else:
            held = dict(zip(run.ids, run.letters, strict=True))
            changed = [(cid, held.get(cid, absent)) for cid in current]
        for cid, letter in changed:
            found = current.get(cid)
            if found is None or found[1] == letter:
                continue
            if i > 0:
                spans[cid].append(_span(labels[found[0]], labels[i - 1], found[1]))
            current[cid] = (i, letter)
        before = run
    for cid, (first, letter) in current.items():
        if runs:
            spans[cid].append(_span(labels[first], None, letter))
    return spans


def absence(run: HeldRun) -> str:
    """The letter of a case a run does not hold: NOT_REACHED when the run is unfinished,
    LEFT_OUT when it is partial, else ABSENT."""
    c = run.completeness
    return NOT_REACHED if c.unfinished else LEFT_OUT if c.partial else ABSENT


def _span(first: str, last: str | None, letter: str) -> Span:
    outcome = OUTCOME_OF.get(letter)
    return Span(first, last, outcome, "" if outcome is not None else letter)
