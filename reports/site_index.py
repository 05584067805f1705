"""The site's index (`palconf site`): what the site keeps of each results file, beside the
pages (SITE/.palconf-site/), so that a site of a thousand runs is built in flat memory and
rebuilt from what changed.

    .palconf-site/index.json        the format, palconf's version, a summary per results
                                    file (by name, with its content's SHA-256) and the
                                    hash of every page written
    .palconf-site/steps/OLD-NEW.json  one engine's run against the one before
                                    (`reports.compare`), by the two files' content hashes
    .palconf-site/ids/KEY.json      a list of case ids, once per distinct list
                                    (`reports.site_history.IdLists`)

A *summary* (`RunSummary`) is what the pages need of a run that is not the latest of its
engine: its meta line, its counts (per group and in all, as `reports.build` counts them),
its duplicates, and its cases' outcomes, one letter each against its list of case ids
(`reports.site_history`: the cases' histories); a *step* holds the changes between two
runs and the results of the cases that regressed or were fixed (the engine page groups
those by cause). Neither depends on
the file's name or place, only on its bytes and palconf's way of counting: the index is
trusted only when its format and palconf's version are this palconf's, and a summary only
when the file's content hash is the one it was made of. An index of another version is
rebuilt; one that cannot be read (not JSON, a field of the wrong type) is ignored with a
warning and rebuilt; a step that cannot be read is made again from its two files.

A page is rendered again only when what it is made of changed (a hash of its inputs:
palconf, its templates, the rules, the suite, the runs it shows), and written only when
its text changed (`page_hash`: its text with the generation date left out, `GENERATED`),
so that a page whose content did not change keeps its file and its date.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from palconf import __version__
from palconf.core import Result, Tally
from palconf.core.outcomes import OUTCOMES
from palconf.core.results_file import ResultsFile
from palconf.core.results_meta import summary_meta
from palconf.core.safe_write import write_text_atomic

from .compare import Change, Comparison
from .model import Cell
from .site_checks import count as _int
from .site_checks import obj as _object
from .site_checks import string as _string
from .site_checks import strings as _strings
from .site_history import IdLists, check_letters, letters_of

__all__ = [
    "INDEX_DIR",
    "RunSummary",
    "SiteIndex",
    "file_digest",
    "page_hash",
    "summarise",
]

INDEX_DIR = ".palconf-site"
INDEX_FORMAT = "palconf-site-index"
#: Raised whenever what a summary or a step holds, or how it is counted, changes (2: a
#: summary holds its cases' outcomes for the case histories; 3: steps hold the cases not run
#: in one of the runs apart from new and removed ones).
INDEX_FORMAT_VERSION = 3
#: What every page has in place of its generation date while it is compared.
GENERATED = "(generated)"


def file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def page_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class RunSummary(ResultsFile):
    """A run as the site keeps it: a `ResultsFile` without its results (or with only those
    a step needs), its engine's name, its counts, and the hash of its file's content."""

    digest: str = ""
    name: str = ""  # the engine's name (`ResultsFile.engine_name` of the whole file)
    cases: int = 0  # how many results it holds
    totals: Cell = field(default_factory=Cell)
    cells: dict[str, Cell] = field(default_factory=dict)  # group → its cell, as read
    complete: bool = True  # False: only its meta line has been read yet
    ids: tuple[str, ...] = ()  # its cases' ids, sorted (a list held once: `IdLists`)
    ids_key: str = ""  # the list's key
    letters: str = ""  # the outcome of each, one letter (`reports.site_history.LETTERS`)

    @property
    def engine_name(self) -> str:
        return self.name

    @property
    def result_count(self) -> int:
        return self.cases

    def to_json(self) -> dict[str, Any]:
        return {
            "digest": self.digest,
            "name": self.name,
            "meta": self.meta,
            "cases": self.cases,
            "duplicates": self.duplicates,
            "lines": self.lines,
            "duplicate_lines": self.duplicate_lines,
            "totals": _cell_json(self.totals),
            "cells": {g: _cell_json(c) for g, c in self.cells.items()},
            "ids": self.ids_key,
            "letters": self.letters,
        }

    @classmethod
    def from_json(cls, data: Any, path: str, lists: IdLists) -> RunSummary:
        """ValueError when `data` is not what `to_json` writes (its id list read from
        `lists`)."""
        d = _object(data, "a summary")
        key = _string(d.get("ids"), "ids")
        ids = lists.read(key)
        meta = d.get("meta")
        if meta is not None and not isinstance(meta, dict):
            raise ValueError("a summary's meta must be an object or null")
        return cls(
            path=path,
            results=[],
            meta=meta,
            duplicates=_strings(d.get("duplicates"), "duplicates"),
            lines=_int(d.get("lines"), "lines"),
            duplicate_lines=_int(d.get("duplicate_lines"), "duplicate_lines"),
            digest=_string(d.get("digest"), "digest"),
            name=_string(d.get("name"), "name"),
            cases=_int(d.get("cases"), "cases"),
            totals=_cell(d.get("totals")),
            cells={g: _cell(c) for g, c in _object(d.get("cells"), "cells").items()},
            ids=ids,
            ids_key=key,
            letters=check_letters(d.get("letters"), ids),
        )


def summarise(run: ResultsFile, digest: str, lists: IdLists | None = None) -> RunSummary:
    """The summary of a whole run (counted as `reports.build.build` counts; its id list
    held in `lists`)."""
    ids, letters = letters_of(run.results)
    key, held = (lists if lists is not None else IdLists()).held(ids)
    s = RunSummary(
        path=run.path,
        results=[],
        meta=summary_meta(run.meta),  # (without the ids a selection left out)
        duplicates=list(run.duplicates),
        lines=run.lines,
        duplicate_lines=run.duplicate_lines,
        digest=digest,
        name=run.engine_name,
        cases=len(run.results),
        ids=held,
        ids_key=key,
        letters=letters,
    )
    for r in run.results:
        s.totals.add(r)
        for g in r.groups:
            if g not in s.cells:
                s.cells[g] = Cell()
            s.cells[g].add(r)
    return s


def peeked(path: Path, digest: str, meta: dict[str, Any]) -> RunSummary:
    """A run known by its meta line only (its engine named there), until it is read."""
    return RunSummary(
        path=str(path),
        results=[],
        meta=meta,
        digest=digest,
        name=str(meta["engine"]["name"]),
        complete=False,
    )


# ---------------------------------------------------------------- cells and steps


def _cell_json(c: Cell) -> dict[str, dict[str, int]]:
    return {"all": dict(c.all.counts), "text": dict(c.text.counts), "ruling": dict(c.ruling.counts)}


def _tally(data: Any) -> Tally:
    t = Tally()
    for outcome, n in _object(data, "a tally").items():
        if outcome not in OUTCOMES:
            raise ValueError(f"a tally counts an unknown outcome {outcome!r}")
        t.counts[outcome] = _int(n, "a count")
    return t


def _cell(data: Any) -> Cell:
    d = _object(data, "a cell")
    return Cell(
        all=_tally(d.get("all")), text=_tally(d.get("text")), ruling=_tally(d.get("ruling"))
    )


def step_json(c: Comparison, old: str, new: str) -> dict[str, Any]:
    """What a step keeps of a comparison (`reports.compare.compare`) of two whole runs: its
    changes, its unchanged counts, and the results the engine page groups by cause (NEW's
    of the regressed cases, OLD's of the fixed ones)."""
    after = {r.id: r for r in c.new.results}
    before = {r.id: r for r in c.old.results}
    return {
        "format": INDEX_FORMAT,
        "format_version": INDEX_FORMAT_VERSION,
        "old": old,
        "new": new,
        "sections": {key: [ch.to_json() for ch in changes] for key, _, changes in c.sections},
        "unchanged": dict(c.unchanged.counts),
        "old_results": [before[ch.id].to_json() for ch in c.fixed],
        "new_results": [after[ch.id].to_json() for ch in c.regressed],
    }


def _change(data: Any) -> Change:
    d = _object(data, "a change")
    old, new = d.get("old"), d.get("new")
    for side in (old, new):
        if side is not None and side not in OUTCOMES:
            raise ValueError(f"a change has an unknown outcome {side!r}")
    return Change(
        id=_string(d.get("id"), "id"),
        title=_string(d.get("title"), "title"),
        keywords=tuple(_strings(d.get("keywords"), "keywords")),
        old=old,
        new=new,
        message=_string(d.get("message"), "message"),
    )


def step_from_json(data: Any, old: RunSummary, new: RunSummary) -> Comparison:
    """The comparison of `old` and `new` from its step; ValueError when the step is not what
    `step_json` writes of these two runs."""
    d = _object(data, "a step")
    if (d.get("format"), d.get("format_version")) != (INDEX_FORMAT, INDEX_FORMAT_VERSION):
        raise ValueError("a step of another format")
    if (d.get("old"), d.get("new")) != (old.digest, new.digest):
        raise ValueError("a step of other runs")
    sections = _object(d.get("sections"), "sections")

    def changes(key: str) -> list[Change]:
        found = sections.get(key)
        if not isinstance(found, list):
            raise ValueError(f"a step's {key} must be a list")
        return [_change(ch) for ch in found]

    def results(key: str) -> list[Result]:
        found = d.get(key)
        if not isinstance(found, list):
            raise ValueError(f"a step's {key} must be a list")
        return [Result.from_json(r) for r in found]

    c = Comparison(
        old=replace(old, results=results("old_results")),
        new=replace(new, results=results("new_results")),
        regressed=changes("regressed"),
        fixed=changes("fixed"),
        new_cases=changes("new"),
        removed=changes("removed"),
        changed=changes("changed"),
        unchanged=_tally(d.get("unchanged")),
        not_run_old=changes("not_run_in_old"),
        not_run_new=changes("not_run_in_new"),
    )
    c.keywords = keyword_changes(old, new)
    return c


def keyword_changes(old: RunSummary, new: RunSummary) -> list[tuple[str, Tally, Tally]]:
    """The groups whose pass rate changed, as `reports.compare.compare` lists them."""
    out = []
    for g in sorted(old.cells.keys() | new.cells.keys()):
        o = old.cells[g].all if g in old.cells else Tally()
        n = new.cells[g].all if g in new.cells else Tally()
        if (o.passed, o.ran) != (n.passed, n.ran):
            out.append((g, o, n))
    return out


# ---------------------------------------------------------------- the index


class SiteIndex:
    """The index of the site in `out`, as read (an empty one when there is none, or when it
    is of another format or palconf version, or cannot be read: `warn` is told then)."""

    def __init__(self, out: Path, warn: Callable[[str], None] | None = None) -> None:
        self.dir = out / INDEX_DIR
        self.out = out
        self.warn = warn
        self.runs: dict[str, RunSummary] = {}  # file name → its summary
        #: relative path → [hash of its text, bytes written, hash of what it is made of]
        self.pages: dict[str, list[Any]] = {}
        self.lists = IdLists(self.dir / "ids", out)  # the runs' lists of case ids
        self._load()

    @property
    def path(self) -> Path:
        return self.dir / "index.json"

    def _tell(self, words: str) -> None:
        if self.warn is not None:
            self.warn(words)

    def _load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as e:
            self._tell(f"{self.path}: cannot be read ({e}): ignored, the site is built anew")
            return
        try:
            data = _object(json.loads(text), "the index")
            if (data.get("format"), data.get("format_version"), data.get("palconf")) != (
                INDEX_FORMAT,
                INDEX_FORMAT_VERSION,
                __version__,
            ):
                return  # another palconf's: built anew, without a word
            runs = {
                name: RunSummary.from_json(s, name, self.lists)
                for name, s in _object(data.get("runs"), "runs").items()
            }
            pages = {}
            for rel, entry in _object(data.get("pages"), "pages").items():
                if not (
                    isinstance(entry, list)
                    and len(entry) == 3
                    and isinstance(entry[0], str)
                    and isinstance(entry[1], int)
                    and isinstance(entry[2], str)
                ):
                    raise ValueError(f"the page {rel!r} has no [hash, size, inputs]")
                pages[rel] = entry
        except (ValueError, RecursionError) as e:
            self._tell(f"{self.path}: not a site index ({e}): ignored, the site is built anew")
            return
        self.runs, self.pages = runs, pages

    def summary(self, name: str, digest: str, path: Path) -> RunSummary | None:
        """The summary of the file `name` if it was made of these bytes, at its path now."""
        found = self.runs.get(name)
        if found is None or found.digest != digest:
            return None
        found.path = str(path)
        return found

    # ---- steps

    def _step_path(self, old: RunSummary, new: RunSummary) -> Path:
        return self.dir / "steps" / f"{old.digest}-{new.digest}.json"

    def has_step(self, old: RunSummary, new: RunSummary) -> bool:
        return self._step_path(old, new).is_file()

    def step(self, old: RunSummary, new: RunSummary) -> Comparison | None:
        """The stored comparison of two runs, or None (none, or it cannot be read: told)."""
        path = self._step_path(old, new)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return step_from_json(data, old, new)
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
            self._tell(f"{path}: not a step of the site index ({e}): made again")
            return None

    def save_step(self, c: Comparison, old: RunSummary, new: RunSummary) -> None:
        data = step_json(c, old.digest, new.digest)
        write_text_atomic(self._step_path(old, new), json.dumps(data), inside=self.out)

    def forget_steps(self, keep: Iterable[tuple[RunSummary, RunSummary]]) -> None:
        """Remove the steps that are not between two runs of `keep`."""
        wanted = {self._step_path(a, b).name for a, b in keep}
        folder = self.dir / "steps"
        if not folder.is_dir():
            return
        for p in folder.iterdir():
            if p.name.endswith(".json") and p.name not in wanted and _regular(p):
                p.unlink()

    # ---- pages

    def unchanged(self, rel: str, digest: str) -> bool:
        """The page `rel` was written with this hash, and is still the file written."""
        entry = self.pages.get(rel)
        if entry is None or entry[0] != digest:
            return False
        try:
            st = os.lstat(self.out / rel)
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) and st.st_size == entry[1]

    def remove_pages(self, keep: Mapping[str, Any]) -> list[str]:
        """Remove the pages this index wrote that are not in `keep` (the site has them no
        more), where each is still the file written; their paths."""
        gone = []
        for rel, (_, size, _) in sorted(self.pages.items()):
            if rel in keep:
                continue
            p = self.out / rel
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_size == size:
                p.unlink()
                gone.append(rel)
        return gone

    def save(self, runs: Sequence[RunSummary], pages: Mapping[str, list[Any]]) -> None:
        data = {
            "format": INDEX_FORMAT,
            "format_version": INDEX_FORMAT_VERSION,
            "palconf": __version__,
            "runs": {Path(r.path).name: r.to_json() for r in runs},
            "pages": dict(sorted(pages.items())),
        }
        write_text_atomic(self.path, json.dumps(data), inside=self.out)  # (UnsafeWrite: told)
        self.lists.save(r.ids_key for r in runs)


def _regular(p: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(p).st_mode)
    except OSError:
        return False
