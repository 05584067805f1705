"""The one way palconf writes a file: results, reports, site pages, transcripts, expectations,
exports, the CI action's files. Stdlib only, below everything that writes.

A whole file (`write_text_atomic`, `write_files`) is written into a fresh temporary file
beside the target, created exclusively (`tempfile.mkstemp`: O_CREAT | O_EXCL, so a link
planted under a guessable name is never followed), flushed to disk and renamed over the
target (`os.replace`). Killed mid-write, the target is untouched; on any error the temporary
file is removed. A stream (`open_stream`: the results file, written line by line) is opened
with O_NOFOLLOW and never replaced.

What is at the target decides how it is written, never by replacing what is there:

- nothing, or a regular file: written as above (`overwrite=False`: refuse an existing one);
- a character device (/dev/null, /dev/stdout's terminal, /dev/full) or a FIFO: written into
  as a stream (opened for writing, never created, truncated or replaced; a FIFO with no
  reader is refused rather than waited on);
- a folder, a block device, a socket: refused;
- a symbolic link the user named (`--transcript LINK`): its target, judged the same way;
- inside an output folder (`inside=DIR`: a report, a site, an export folder) every name
  must be below DIR with no link on the way (a planted link, file or sub-folder, is refused:
  never write out of DIR), and no special file.

Every refusal, and every OSError (a missing or read-only folder, a full disk), is an
`UnsafeWrite`: a `UsageError` (exit 2) whose one-line message names the file.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from palconf.core.errors import UsageError

__all__ = [
    "Stream",
    "UnsafeWrite",
    "ensure_folder",
    "file_kind",
    "open_stream",
    "write_files",
    "write_text_atomic",
]


class UnsafeWrite(UsageError):
    """An output cannot be written, or the write was refused: the message says which and why."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _why(e: OSError) -> str:
    if e.errno == errno.ENOSPC:
        return "no space left on the device"
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "permission denied (a read-only folder or file?)"
    if e.errno == errno.ENOENT:
        return "no such folder"
    if e.errno == errno.ELOOP:
        return "it is a symbolic link"
    return e.strerror or str(e)


@contextmanager
def _as_usage(path: Path) -> Iterator[None]:
    try:
        yield
    except UnsafeWrite:
        raise
    except OSError as e:
        raise UnsafeWrite(f"cannot write {path}: {_why(e)}") from None


def file_kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words (`a folder`, `a FIFO` …): the one wording of
    every message about a file that is not what palconf can use."""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a special file"


def _check_inside(path: Path, inside: Path) -> None:
    """`path` is below `inside`, and nothing between them (nor `path`) is a link."""
    root = inside.resolve()
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(inside))
    except ValueError:
        raise UnsafeWrite(f"{path}: not a file name inside {inside}") from None
    if not rel.parts or ".." in rel.parts or path.name in ("", ".", ".."):
        raise UnsafeWrite(f"{path}: not a file name inside {inside}")
    here = root
    for part in rel.parts:
        here = here / part
        if here.is_symlink():
            raise UnsafeWrite(
                f"{here} is a symbolic link (to {os.readlink(here)}); palconf does not write "
                f"through links out of {inside}: remove it or choose another folder"
            )


def check_folder(folder: Path) -> None:
    """Before the work that fills `folder`: refuse at once what `ensure_folder` would refuse
    after it, a `folder` (or the nearest part of its path that exists) that is not a
    folder. Creates nothing."""
    whole = here = Path(os.path.abspath(folder))
    while not here.exists() and not here.is_symlink() and here != here.parent:
        here = here.parent
    if not here.is_dir():
        what = "exists and is not a folder" if here == whole else f"{here} is not a folder"
        raise UnsafeWrite(f"{folder}: {what}")


def ensure_folder(folder: Path, *, inside: Path | None = None) -> Path:
    """Make `folder` (and its parents) if needed; refuse a non-folder, or (with `inside`) a
    link below `inside`."""
    if inside is not None and folder != inside:
        _check_inside(folder, inside)
    check_folder(folder)
    with _as_usage(folder):
        folder.mkdir(parents=True, exist_ok=True)
    return folder


def _target(path: Path, inside: Path | None) -> tuple[Path, os.stat_result | None]:
    """Where to write and what is there now (None: nothing)."""
    if inside is not None:
        _check_inside(path, inside)
    elif path.is_symlink():
        path = path.resolve()
    try:
        st = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return path, None
    except OSError as e:
        raise UnsafeWrite(f"cannot write {path}: {_why(e)}") from None
    if stat.S_ISREG(st.st_mode):
        return path, st
    special = stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)
    if not special or inside is not None:
        raise UnsafeWrite(
            f"{path} is {file_kind(st.st_mode)}; palconf writes only regular files"
            + ("" if inside is None else f" into {inside}")
            + ": remove it or choose another name"
        )
    return path, st


def _open_special(path: Path) -> int:
    """A character device or FIFO, opened for writing as it is (never created or truncated);
    a FIFO with no reader is refused (O_NONBLOCK: ENXIO) instead of waited on."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_APPEND)
    except OSError as e:
        if e.errno == errno.ENXIO:
            raise UnsafeWrite(f"cannot write {path}: a FIFO with no reader") from None
        raise
    os.set_blocking(fd, True)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_text_atomic(
    path: Path,
    text: str,
    *,
    inside: Path | None = None,
    overwrite: bool = True,
    follow: bool = True,
) -> Path:
    """Write `text` (UTF-8) to `path` as the module says; return the path written.
    (`follow` is kept for callers: a link the user named is always resolved.)"""
    del follow
    path, st = _target(path, inside)
    data = text.encode("utf-8")
    with _as_usage(path):
        if st is not None and not stat.S_ISREG(st.st_mode):
            fd = _open_special(path)
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
            return path
        if not overwrite and st is not None:
            raise UnsafeWrite(f"{path} exists; remove it, or ask to overwrite it")
        if inside is not None:
            ensure_folder(path.parent, inside=inside)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        tmp = Path(tmp_name)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o666 & ~_umask())  # as a file opened for writing would be
            if overwrite:
                os.replace(tmp, path)
            else:
                _place_new(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    return path


def write_files(out: Path, files: Mapping[str, str]) -> list[Path]:
    """Write each `relative name → text` of `files` into the folder `out` (created if
    needed), every one inside it (no link, no special file on the way)."""
    ensure_folder(out)
    return [write_text_atomic(out / rel, text, inside=out) for rel, text in files.items()]


def _place_new(tmp: Path, path: Path) -> None:
    """Move `tmp` to `path`, which must not exist: a hard link fails if it appeared since the
    check (no window for a race); where hard links are not supported, check and rename."""
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise UnsafeWrite(f"{path} exists; remove it, or ask to overwrite it") from None
    except OSError:
        if path.exists() or path.is_symlink():
            raise UnsafeWrite(f"{path} exists; remove it, or ask to overwrite it") from None
        os.replace(tmp, path)
        return
    tmp.unlink()


class Stream:
    """An output written piece by piece (the results file): every write is flushed, and an
    OSError (a full disk) is an `UnsafeWrite` naming the file."""

    def __init__(self, path: Path, f: IO[bytes], *, regular: bool) -> None:
        self.path, self.file, self.regular = path, f, regular

    def fileno(self) -> int:
        return self.file.fileno()

    def empty(self) -> bool:
        """Nothing written yet: a new or empty regular file (a device or FIFO never is)."""
        return self.regular and os.fstat(self.file.fileno()).st_size == 0

    def write(self, text: str) -> None:
        with _as_usage(self.path):
            self.file.write(text.encode("utf-8"))
            self.file.flush()

    def truncate(self) -> None:
        """Empty a regular file (a fresh run; done by the caller once it holds the file's
        lock, so that a second run never empties the file the first is writing)."""
        if self.regular:
            with _as_usage(self.path):
                os.ftruncate(self.file.fileno(), 0)

    def close(self) -> None:
        with _as_usage(self.path):
            self.file.close()


def open_stream(path: Path) -> Stream:
    """Open `path` to append to piece by piece: a regular file is created if needed, never
    through a link (O_NOFOLLOW: a link named by the user is resolved first); a character
    device or FIFO is written into as it is."""
    path, st = _target(path, None)
    with _as_usage(path):
        if st is not None and not stat.S_ISREG(st.st_mode):
            fd = _open_special(path)
            return Stream(path, os.fdopen(fd, "ab", buffering=0), regular=False)
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_APPEND
        fd = os.open(path, flags, 0o666)
        return Stream(path, os.fdopen(fd, "ab", buffering=0), regular=True)
