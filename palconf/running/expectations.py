"""Expectations files: the outcomes an engine is known to have, per case id or glob.

Like web-platform-tests' expectation files and toml-test's skip lists. A TOML file:

    # palconf expectations for my-engine
    [cases."taunt-*"]                         # a glob (fnmatch: * ? [...])
    outcome = "fail"
    note = "Taunt ignores Assault targets"
    link = "https://example.org/issues/12"

    [cases.base-battle-equal-power-both-die]  # an exact case id
    outcome = ["fail", "timeout"]             # either is known

    [cases."interrupt-*"]
    outcome = "skip"                          # do not run these at all

`outcome` is one of `pass`, `fail`, `error`, `timeout`, or a list of them, or `skip` alone
(the case is not run and is reported as skipped, with the note as the reason). An exact id
wins over globs; among globs the first in the file wins.

Judging a result (`Expectations.judge`): a case that is not listed is expected to pass. An
outcome the listing expects is fine, and a failing one (`fail`, `error`, `timeout`) is
reported as `xfail`. A listed case that passes although the listing does not say `pass` is
`xpass`: news, and a mismatch until the file is updated. A skip is always fine: it is the
engine's say (its `keywords`, or an `unsupported` reply). Anything else keeps its outcome
and is a mismatch. `palconf run` exits 0 only when nothing mismatches.

`updated` writes the file back from a run (`--update-expectations`), keeping notes, links
and globs that still hold, and the entries of cases the run did not run. `update_file` does
it under an exclusive lock on the file (`flock`, as a results file is locked), on the file
as it is then: two runs that update one file at once each keep the other's entries.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import fnmatch
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli
import tomli_w

from palconf.cases.depth import MAX_DEPTH, may_be_too_deep, scan_lines, too_deep
from palconf.core import Outcome, Result, json_read
from palconf.core.errors import UsageError
from palconf.core.safe_write import write_text_atomic

#: Outcomes an entry may list (besides `skip`, which stands alone).
LISTABLE = ("pass", "fail", "error", "timeout")
FAILING = ("fail", "error", "timeout")
#: What an unlisted case is expected to do.
DEFAULT = ("pass",)
ENTRY_FIELDS = ("outcome", "note", "link")
GLOB_CHARS = frozenset("*?[")

HEADER = """\
# palconf expectations: the outcomes this engine is known to have (docs/INTERPRETING.md).
# Keys are case ids or globs; an exact id wins over globs, else the first glob that matches.
# outcome: "pass" | "fail" | "error" | "timeout", a list of them, or "skip" (do not run).
# Rewritten by `palconf run --expectations FILE --update-expectations` (notes and links kept).

"""


class ExpectationsError(UsageError):
    """The expectations file cannot be used; the message names the file and the entry."""


def _too_deep(where: str, text: str) -> ExpectationsError:
    """As a case file nested too deeply (palconf/cases/depth.py): the file, its line."""
    line = scan_lines(text).too_deep
    at = f"{where}:{line}" if line is not None else where
    return ExpectationsError(
        f"{at}: nested too deeply (more than {MAX_DEPTH} levels of tables and lists)"
    )


def is_glob(pattern: str) -> bool:
    return not GLOB_CHARS.isdisjoint(pattern)


@dataclass(frozen=True)
class Entry:
    pattern: str
    outcomes: tuple[str, ...]
    note: str = ""
    link: str = ""

    @property
    def skip(self) -> bool:
        return self.outcomes == ("skip",)

    @property
    def glob(self) -> bool:
        return is_glob(self.pattern)

    def describe(self) -> str:
        """The note and link, for a result's `note` field."""
        return " ".join(x for x in (self.note, self.link and f"<{self.link}>") if x)

    def to_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "outcome": self.outcomes[0] if len(self.outcomes) == 1 else list(self.outcomes)
        }
        if self.note:
            out["note"] = self.note
        if self.link:
            out["link"] = self.link
        return out


def parse_entry(pattern: str, raw: Any, where: str) -> Entry:
    """One `[cases.PATTERN]` table → Entry, or ExpectationsError saying what is wrong."""
    at = f"{where}: cases.{pattern!r}"
    if not pattern:
        raise ExpectationsError(f"{where}: an empty case id")
    if not isinstance(raw, dict):
        raise ExpectationsError(f"{at}: must be a table with `outcome` (and `note`, `link`)")
    unknown = sorted(set(raw) - set(ENTRY_FIELDS))
    if unknown:
        raise ExpectationsError(
            f"{at}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(ENTRY_FIELDS)}"
        )
    if "outcome" not in raw:
        raise ExpectationsError(f"{at}: `outcome` is missing")
    outcome = raw["outcome"]
    outcomes = (outcome,) if isinstance(outcome, str) else outcome
    if (
        not isinstance(outcomes, (list, tuple))
        or not outcomes
        or not all(isinstance(o, str) for o in outcomes)
    ):
        raise ExpectationsError(f"{at}: `outcome` must be a string or a non-empty list of strings")
    outcomes = tuple(dict.fromkeys(outcomes))
    if "skip" in outcomes and len(outcomes) > 1:
        raise ExpectationsError(
            f"{at}: `skip` means the case is not run; it cannot be listed with other outcomes"
        )
    bad = [o for o in outcomes if o not in LISTABLE and o != "skip"]
    if bad:
        raise ExpectationsError(
            f"{at}: unknown outcome(s) {', '.join(map(repr, bad))}; use "
            f"{', '.join(LISTABLE)}, or skip"
        )
    for name in ("note", "link"):
        if name in raw and not isinstance(raw[name], str):
            raise ExpectationsError(f"{at}: `{name}` must be a string")
    return Entry(pattern, outcomes, raw.get("note", ""), raw.get("link", ""))


@dataclass
class Expectations:
    entries: list[Entry] = field(default_factory=list)
    path: Path | None = None

    def __post_init__(self) -> None:
        self._exact = {e.pattern: e for e in self.entries if not e.glob}
        self._globs = [e for e in self.entries if e.glob]

    # -- reading

    @classmethod
    def load(cls, path: Path) -> Expectations:
        """Read a file; ExpectationsError (never a traceback) when it cannot be used (a
        device or FIFO, which a read could wait on for ever, is not an expectations file)."""
        if not path.exists() and not path.is_symlink():
            raise ExpectationsError(
                f"{path}: no such file (add --update-expectations to create it from this run)"
            )
        text = json_read.read_text(path, ExpectationsError, "an expectations file")
        return cls.parse(text, str(path), path)

    @classmethod
    def parse(
        cls, text: str, where: str = "(expectations)", path: Path | None = None
    ) -> Expectations:
        try:
            data = tomli.loads(text)
        except tomli.TOMLDecodeError as e:
            raise ExpectationsError(f"{where}: TOML syntax: {e}") from None
        except RecursionError:  # tomli's own bound (400 levels, a key of 1,000 parts)
            raise _too_deep(where, text) from None
        except ValueError:  # an integer literal of more than 4300 digits
            raise ExpectationsError(
                f"{where}: a number too long to read (more than 4300 digits)"
            ) from None
        if may_be_too_deep(text) and too_deep(data) is not None:
            raise _too_deep(where, text)
        unknown = sorted(set(data) - {"cases"})
        if unknown:
            raise ExpectationsError(
                f"{where}: unknown top-level key(s) {', '.join(unknown)}; "
                f'entries go in [cases."ID-OR-GLOB"] tables'
            )
        cases = data.get("cases", {})
        if not isinstance(cases, dict):
            raise ExpectationsError(f"{where}: `cases` must be a table")
        return cls([parse_entry(k, v, where) for k, v in cases.items()], path)

    # -- looking up and judging

    def entry_for(self, case_id: str) -> Entry | None:
        entry = self._exact.get(case_id)
        if entry is not None:
            return entry
        for g in self._globs:
            if fnmatch.fnmatchcase(case_id, g.pattern):
                return g
        return None

    def skipped(self, case_id: str) -> Entry | None:
        """The entry that says not to run this case, if any."""
        entry = self.entry_for(case_id)
        return entry if entry is not None and entry.skip else None

    def judge(self, result: Result) -> bool:
        """Set the result's outcome from its raw outcome and its listing (xfail, xpass …);
        return whether it matches the expectations. Idempotent, so results read back for
        `--resume` can be judged again."""
        raw = Outcome(raw_outcome(result))
        entry = self.entry_for(result.id)
        expected = entry.outcomes if entry else DEFAULT
        result.expected = tuple(entry.outcomes) if entry else ()
        result.note = entry.describe() if entry else ""
        result.actual = ""
        result.outcome = raw
        if raw == Outcome.SKIP:
            return True
        if raw in expected:
            if raw in FAILING:
                result.outcome, result.actual = Outcome.XFAIL, raw.value
            return True
        if raw == Outcome.PASS:
            result.outcome, result.actual = Outcome.XPASS, raw.value
        return False

    def unmatched(self, case_ids: Iterable[str]) -> list[Entry]:
        """Entries that match none of these case ids (stale names)."""
        ids = list(case_ids)
        return [
            e
            for e in self.entries
            if not any(fnmatch.fnmatchcase(i, e.pattern) if e.glob else i == e.pattern for i in ids)
        ]

    # -- writing

    def updated(
        self, results: Iterable[Result], known_ids: Iterable[str] | None = None
    ) -> Expectations:
        """The file as this run says it should be.

        For each case the run ran: nothing if it passed or was skipped by the engine; else its
        outcome. An entry whose cases all still have a listed outcome is kept as it is (globs,
        lists of outcomes, notes). A glob that no longer holds for every case it covers is
        replaced by exact entries for the cases that still fail, with its note. Entries for
        cases the run did not run are kept, unless `known_ids` (every case id of the suite) is
        given and they name no case at all."""
        run = {r.id: raw_outcome(r) for r in results}

        def holds(entry: Entry, outcome: str) -> bool:
            return outcome in entry.outcomes or outcome == "skip" or entry.skip

        governed: dict[int, list[str]] = {}
        for cid in run:
            entry = self.entry_for(cid)
            if entry is not None:
                governed.setdefault(id(entry), []).append(cid)
        known = set(known_ids) if known_ids is not None else None
        kept: list[Entry] = []
        for entry in self.entries:
            ids = governed.get(id(entry), [])
            if not all(holds(entry, run[c]) for c in ids):
                continue
            if not ids and known is not None and not entry.glob and entry.pattern not in known:
                continue  # a case that no longer exists
            kept.append(entry)
        new = Expectations(kept, self.path)
        added: list[Entry] = []
        for cid, outcome in run.items():
            entry = new.entry_for(cid)
            if entry is not None and holds(entry, outcome):
                continue
            if outcome == "skip" or (entry is None and outcome == "pass"):
                continue
            old = self.entry_for(cid)
            added.append(Entry(cid, (outcome,), old.note if old else "", old.link if old else ""))
        return Expectations(kept + sorted(added, key=lambda e: e.pattern), self.path)

    def dumps(self) -> str:
        globs = [e for e in self.entries if e.glob]
        exact = sorted((e for e in self.entries if not e.glob), key=lambda e: e.pattern)
        body = tomli_w.dumps({"cases": {e.pattern: e.to_toml() for e in globs + exact}})
        return HEADER + body

    def write(self, path: Path) -> None:
        """Write the file in one step (a temporary file renamed over it)."""
        write_text_atomic(path, self.dumps(), follow=True)


#: How long `update_file` waits for another run to release the file (its update takes
#: milliseconds: reading the file, writing it).
LOCK_WAIT = 60.0


def update_file(
    path: Path, results: Iterable[Result], known_ids: Iterable[str] | None = None
) -> tuple[Expectations, Expectations]:
    """`--update-expectations`: under an exclusive lock on the file, read it as it is now
    (another run may have written it since this one read it), apply this run's results
    (`updated`), and write it; (the file as read, the file written). A missing file is
    created; a link is followed."""
    path = path.resolve()
    with _locked(path):
        was = Expectations.load(path) if path.exists() else Expectations(path=path)
        new = was.updated(results, known_ids)
        new.write(path)
    return was, new


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold `flock` on the file at `path`. A run that waited may hold the lock on a file
    another run has since replaced (written as a new file renamed over it): then it locks
    the new one. A file system without locks is written unlocked, as a results file is; so
    is a file that cannot be opened (its write then says why, in the safe writer's words)."""
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
        except OSError:
            yield
            return
        try:
            if not _take_lock(fd, path, deadline) or _same_file(fd, path):
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced while this run waited: lock the file there now
    try:
        yield
    finally:
        os.close(fd)  # (releases the lock)


def _take_lock(fd: int, path: Path, deadline: float) -> bool:
    """Wait for the lock; False where the file system has none."""
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
        if time.monotonic() >= deadline:
            raise ExpectationsError(
                f"{path}: another process has held a lock on this expectations file for "
                f"{LOCK_WAIT:g} s; wait for it to end, then run again"
            )
        time.sleep(0.01)


def _same_file(fd: int, path: Path) -> bool:
    try:
        now = os.stat(path)
    except OSError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


def raw_outcome(result: Result) -> str:
    """The engine's own outcome, before expectations turned it into xfail / xpass."""
    return result.actual or result.outcome
