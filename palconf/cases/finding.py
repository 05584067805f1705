"""Finding the case files under a folder (every `*.toml` entry, links to folders followed
once, folders that cannot be listed and links that lead out of the folder reported),
without reading any of them: what `palconf --version` counts, and where `loader` starts."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from palconf.cases.errors import CaseError

__all__ = ["case_files", "find_case_files", "is_case_folder", "shown_path"]


def case_files(root: Path) -> list[Path]:
    """Case files are in the folders under `root`; files at its top (the interaction matrix,
    `cases/interactions.toml`) are not cases. A `root` that is itself one case folder (no
    subfolders, such as `cases/protocol`) holds its cases at its top. Every entry named
    `*.toml` counts, whatever it is: `load_case` says why a link, folder or FIFO cannot be
    read; only hidden ones (`.#x.toml`, an editor's lock) are not cases. (`find_case_files`
    also says which folders cannot be listed.)"""
    return find_case_files(root)[0]


def find_case_files(root: Path) -> tuple[list[Path], list[CaseError]]:
    """(every `*.toml` entry under `root` as `case_files` means it, an error for each folder
    that cannot be listed). Links to folders are followed, each folder read once; a link
    that leads out of `root` (to `/`, to `../..`: a pull request can plant one) is never
    followed, and where it would be a case file or a folder to read it is an error."""
    files: list[Path] = []
    errors: list[CaseError] = []
    top = is_case_folder(root)
    shown_from = root.parent if top else root
    seen: set[tuple[int, int]] = set()
    inside = _inside_test(root)
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            info = folder.stat()
            if (info.st_dev, info.st_ino) in seen:
                continue  # a second link to a folder already read (or a loop)
            seen.add((info.st_dev, info.st_ino))
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            shown = shown_path(folder, shown_from)
            errors.append(CaseError(shown, f"cannot read the folder: {e.strerror or e}"))
            continue
        cases_here = top or folder != root
        for entry in entries:
            p = folder / entry.name  # (as `Path(entry.path)`, for 60% of its cost)
            hidden = entry.name.startswith(".")  # an editor's lock or backup: never a case id
            is_case = entry.name.endswith(".toml") and not hidden and cases_here
            is_folder = not top and _is_dir(entry)
            if (is_case or is_folder) and _is_link(entry) and not inside(p):
                errors.append(CaseError(shown_path(p, shown_from), _leads_out(p)))
                continue
            if is_case:
                files.append(p)
            if is_folder:
                folders.append(p)
    return sorted(files), errors


def shown_path(path: Path, root: Path) -> str:
    try:
        rel = path.relative_to(root)
    except ValueError:
        return str(path)
    return str(path) if rel == Path() else str(rel)


def _inside_test(root: Path) -> Callable[[Path], bool]:
    """Whether a path, every link on its way resolved, is `root` or under it."""
    real_root = os.path.realpath(root)

    def inside(path: Path) -> bool:
        real = os.path.realpath(path)
        try:
            return os.path.commonpath([real, real_root]) == real_root
        except ValueError:  # another drive (Windows)
            return False

    return inside


def _leads_out(link: Path) -> str:
    try:
        target = os.readlink(link)
    except OSError:
        target = "?"
    return (
        f"a link that leads out of the cases folder (to {target!r}): not followed; "
        "links may lead only to case files and folders inside it"
    )


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def is_case_folder(root: Path) -> bool:
    """No subfolder: a hidden one (`.mypy_cache`) or a folder named like a case file (an
    error of its own) does not count."""
    try:
        if not root.is_dir():
            return False
        with os.scandir(root) as entries:
            return not any(
                _is_dir(e) and not e.name.startswith(".") and not e.name.endswith(".toml")
                for e in entries
            )
    except OSError:
        return False
