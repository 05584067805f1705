"""The site of a folder of results files (`palconf site RESULTS_DIR --out SITE`): the files
read whole (`read_folder`, for `reports.site.site_pages`) or as summaries through the
site's index (`read_summaries`: `reports.site_index`), with the same warnings in the same
order; and the site written through the index (`write_site`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from palconf.core import json_read
from palconf.core.results_file import (
    NotResults,
    ResultsError,
    ResultsFile,
    duplicates_warning,
    is_meta,
    read_results,
    utc_now,
)
from palconf.core.results_meta import meta_problem
from palconf.core.safe_write import file_kind, write_text_atomic
from palconf.core.text import without_surrogates

from .compare import Comparison, compare
from .site import Pair, engine_sites, fingerprint, ordered, render_pages
from .site_index import (
    GENERATED,
    RunSummary,
    SiteIndex,
    file_digest,
    page_hash,
    peeked,
    step_from_json,
    step_json,
    summarise,
)

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.registry import Registry

__all__ = ["SiteWritten", "read_folder", "read_summaries", "write_site"]


def read_folder(folder: Path, warn: Callable[[str], None] | None = None) -> list[ResultsFile]:
    """Every results file (`*.jsonl`) in the folder, by name; ResultsError if there is none
    or one cannot be read (the message names the file and line). A transcript (`palconf
    explain --transcript`, `fuzz --transcript`: also JSON Lines) is no results file: it is
    left out, and `warn` told; so is a `*.jsonl` that is no regular file (a folder, a FIFO,
    a device, a broken link or a link to any of these)."""
    runs = []
    for p in _listing(folder, warn):
        run = _read(p)
        if isinstance(run, str):
            if warn is not None:
                warn(run)
            continue
        runs.append(run)
        duplicated = duplicates_warning(run)
        if duplicated and warn is not None:
            warn(duplicated.removeprefix("warning: "))
    if not runs:
        raise ResultsError(f"{folder}: no results files (*.jsonl) in it")
    return runs


def _listing(folder: Path, warn: Callable[[str], None] | None) -> list[Path]:
    """The folder's `*.jsonl` regular files, by name (`warn` told of the others)."""
    if not folder.is_dir():
        raise ResultsError(f"{folder}: not a folder of results files")
    files = []
    for p in sorted(q for q in folder.iterdir() if q.suffix == ".jsonl"):
        why = _not_a_file(p)
        if why is None:
            files.append(p)
        elif warn is not None:
            warn(f"{p}: {why}, not a results file: left out")
    return files


def _read(path: Path) -> ResultsFile | str:
    """The results file, or for a transcript the warning that leaves it out (the reader's
    one message for a transcript, `NotResults`)."""
    try:
        return read_results(path)
    except NotResults as e:
        return f"{e}: left out"


def _not_a_file(path: Path) -> str | None:
    """What `path` is when it is no regular file (a link followed), else None."""
    link = path.is_symlink()
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return f"a broken symbolic link (to {os.readlink(path)!r})" if link else "gone"
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"unreadable ({e.strerror or e})"
    if stat.S_ISREG(mode):
        return None
    kind = file_kind(mode)
    return f"a link to {kind}" if link else kind


def read_summaries(
    folder: Path, index: SiteIndex, warn: Callable[[str], None] | None
) -> list[RunSummary]:
    """The summary of every results file in the folder, by name (as `read_folder` reads
    them, and warns alike): from the index where the file's content is the one it was made
    of, else read. Each engine's runs are then walked in order, and a run is read whole
    only when it has no summary yet or no step to the run before it (both are made then),
    and at most two at a time."""
    notes: list[tuple[Path, str]] = []  # (file, warning), told in the files' order
    found: list[RunSummary] = []
    for p in _listing(folder, warn):
        try:
            digest = file_digest(p)
        except OSError as e:
            raise ResultsError(f"{p}: cannot be read: {e.strerror or e}") from None
        summary = index.summary(p.name, digest, p)
        if summary is None:
            meta = _first_meta(p)
            if meta is not None:
                summary = peeked(p, digest, meta)
            elif isinstance(run := _read(p), str):
                notes.append((p, run))
            else:
                summary = summarise(run, digest, index.lists)
        if summary is not None:
            found.append(summary)
    if not found:
        if warn is not None:  # (what was left out, and why, before the error)
            for _, words in notes:
                warn(words)
        raise ResultsError(f"{folder}: no results files (*.jsonl) in it")
    by_name: dict[str, list[RunSummary]] = {}
    for s in found:
        by_name.setdefault(s.engine_name, []).append(s)
    done: dict[str, RunSummary] = {}
    for group in by_name.values():
        runs = ordered(group).runs
        before: ResultsFile | None = None  # the run before, whole, when it was read
        for i, s in enumerate(runs):
            missing = i > 0 and not index.has_step(runs[i - 1], s)
            if s.complete and not missing:
                before = None
                continue
            run = read_results(Path(s.path))
            if not s.complete:
                s = runs[i] = summarise(run, s.digest, index.lists)
            if missing:
                old = before if before is not None else read_results(Path(runs[i - 1].path))
                index.save_step(compare(old, run), runs[i - 1], s)
            before = run
        done.update((r.path, r) for r in runs)
    out = [done[s.path] for s in found]
    for s in out:
        if (duplicated := duplicates_warning(s)) is not None:
            notes.append((Path(s.path), duplicated.removeprefix("warning: ")))
    if warn is not None:
        for _, words in sorted(notes, key=lambda n: n[0]):
            warn(words)
    return out


def _first_meta(path: Path) -> dict[str, Any] | None:
    """The file's meta line when it is its first line and names its engine (what the runs
    are ordered by, before the file is read whole), else None."""
    try:
        lines = json_read.read_lines(path, ResultsError, "a results file")
        try:
            first = next((line for line in lines if line.strip()), "")
        finally:
            lines.close()  # type: ignore[attr-defined]
        obj = without_surrogates(json_read.loads(first))
    except (ResultsError, ValueError, RecursionError):
        return None
    meta = obj.get("meta") if is_meta(obj) else None
    if not isinstance(meta, dict) or meta_problem(meta) is not None:
        return None
    engine = meta.get("engine")
    return meta if isinstance(engine, dict) and engine.get("name") else None


@dataclass
class SiteWritten:
    """What `write_site` did."""

    runs: int  # results files
    engines: int
    pages: int  # files the site has
    written: int  # of them, written (the others were already as they are)
    rendered: list[str]  # of them, those rendered (made of other inputs than last time)
    removed: list[str]  # pages the site has no more, removed


def write_site(
    folder: Path,
    out: Path,
    registry: Registry,
    suite: Mapping[str, Case] | None = None,
    title: str = "Pal keyword rules compliance",
    warn: Callable[[str], None] | None = None,
) -> SiteWritten:
    """Write the site of the results files in `folder` into `out`, through the site's index
    (`reports.site_index`, kept in `out`): the pages are those `site_pages` gives of the
    same files, and only those whose text changed are written."""
    index = SiteIndex(out, warn)
    runs = read_summaries(folder, index, warn)
    engines = engine_sites(runs, registry, title)

    def steps(pairs: list[Pair]) -> list[Comparison]:
        return [_step(index, a, b) for a, b in pairs]

    latest = [read_results(Path(e.latest.path)) for e in engines]
    token = f"palconf-generated-{os.urandom(8).hex()}"
    now = utc_now()
    pages: dict[str, list[Any]] = {}
    written, rendered = 0, []
    index.save(runs, {})  # (until the pages are written, no page is known to be as it is)
    made = render_pages(
        engines, latest, steps, registry, suite, title, warn, token, fingerprint(suite)
    )
    for page in made:
        entry = index.pages.get(page.rel)
        if entry is not None and entry[2] == page.inputs and index.unchanged(page.rel, entry[0]):
            pages[page.rel] = entry  # made of the same inputs: as it is
            continue
        text = page.render()
        rendered.append(page.rel)
        digest = page_hash(text.replace(token, GENERATED))
        if entry is None or not index.unchanged(page.rel, digest):
            data = text.replace(token, now)
            write_text_atomic(out / page.rel, data, inside=out)
            entry, written = [digest, len(data.encode("utf-8")), ""], written + 1
        pages[page.rel] = [entry[0], entry[1], page.inputs]
    removed = index.remove_pages(pages)
    index.forget_steps(pair for e in engines for pair in e.pairs)
    index.save(runs, pages)
    return SiteWritten(len(runs), len(engines), len(pages), written, rendered, removed)


def _step(index: SiteIndex, old: RunSummary, new: RunSummary) -> Comparison:
    """The comparison of two runs from the index, or made again from their files (and
    kept)."""
    found = index.step(old, new)
    if found is not None:
        return found
    c = compare(read_results(Path(old.path)), read_results(Path(new.path)))
    index.save_step(c, old, new)
    return step_from_json(step_json(c, old.digest, new.digest), old, new)
