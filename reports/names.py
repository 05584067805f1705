"""The names of the files reports and sites write, and of their anchors: the one place.

`slug` makes a name every file system takes (Linux, macOS, Windows): lowercase letters,
digits, `.`, `_` and `-`, never ending in a dot, never longer than its limit, and never a
name Windows reserves for a device (CON, PRN, AUX, NUL, COM0–COM9, LPT0–LPT9, with or
without an extension: `con.html` and `nul.tar.gz` are the device too), which gets a `_`
after its first part (`con` → `con_`, `con.html` → `con_.html`). `file_names` gives each
of a set of ids a name of its own: the slug where that is the id itself, else the slug and
10 hex digits of the id's SHA-256, so ids that differ only in case (`Brave-1`, `brave-1`:
one file on Windows and macOS), in what the slug folds or in a reserved name get files of
their own, the same whatever else is in the set.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

__all__ = ["RESERVED", "file_names", "slug"]

#: Windows' device names, which no file may have (any case, any extension).
RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{n}" for d in ("com", "lpt") for n in range(10)]
)


def slug(text: str, limit: int = 40) -> str:
    """A safe file/anchor name: lowercase letters, digits, `.`, `_` and `-` only, at most
    `limit` characters (at least 6), no device name of Windows."""
    s = re.sub(r"[^a-z0-9._-]+", "-", text.lower()).strip("-.")[:limit].strip("-.") or "x"
    stem = s.split(".", 1)[0]
    if stem in RESERVED:
        rest = s[len(stem) :][: max(limit - len(stem) - 1, 0)]
        s = f"{stem}_{rest}".rstrip("-.")
    return s


def file_names(ids: Iterable[str], limit: int, taken: Iterable[str] = ()) -> dict[str, str]:
    """A name for each id, distinct for distinct ids and from the names `taken`: its `slug`
    when that is the id itself (every suite case id and keyword), else the slug and a hash
    of the exact id (`A-b`, `a_b`, `a b`, `a-b…` cut at `limit`, `con`)."""
    names: dict[str, str] = {}
    used = set(taken)
    for cid in sorted(set(ids)):
        name = slug(cid, limit)
        if name != cid:
            digest = hashlib.sha256(cid.encode("utf-8", "surrogatepass")).hexdigest()[:10]
            name = f"{slug(cid, limit - 11)}-{digest}"
        base, n = name, 2
        while name in used:
            name, n = f"{base}-{n}", n + 1
        used.add(name)
        names[cid] = name
    return names
