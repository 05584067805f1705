"""Writing a file palconf makes (an exported case, an expectations file) so that a reader
never sees half of it and palconf never writes where it was not asked to.

`write_text_atomic` writes into a fresh temporary file beside the target, created
exclusively (`tempfile.mkstemp`: O_CREAT | O_EXCL, so a link planted under a guessable name
is never followed), flushes it to disk and renames it over the target (`os.replace`, which
replaces a link at the target name instead of writing through it). Killed mid-write, the
target is untouched; on any error the temporary file is removed.

- `inside=DIR`: the target must be a plain name in DIR, and not a symbolic link (an export
  folder: never write through a link out of it);
- `overwrite=False`: refuse when the target exists (an earlier, perhaps hand-edited export);
- `follow=True`: a target that is a link is resolved first, and its target is replaced (a
  user's own file, such as an expectations file kept elsewhere and linked in).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["UnsafeWrite", "write_text_atomic"]


class UnsafeWrite(OSError):
    """The write was refused: the target is a link out of its folder, or exists."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text_atomic(
    path: Path,
    text: str,
    *,
    inside: Path | None = None,
    overwrite: bool = True,
    follow: bool = False,
) -> Path:
    """Write `text` (UTF-8) to `path` atomically; return the path written."""
    if inside is not None:
        if path.parent.resolve() != inside.resolve() or path.name in ("", ".", ".."):
            raise UnsafeWrite(f"{path}: not a file name inside {inside}")
        if path.is_symlink():
            raise UnsafeWrite(
                f"{path} is a symbolic link (to {os.readlink(path)}); palconf does not write "
                f"through links out of {inside}: remove it or choose another folder"
            )
    elif follow and path.is_symlink():
        path = path.resolve()
    if not overwrite and (path.exists() or path.is_symlink()):
        raise UnsafeWrite(f"{path} exists; remove it, or ask to overwrite it")
    data = text.encode("utf-8")
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
