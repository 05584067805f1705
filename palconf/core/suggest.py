"""Near misses: "did you mean" for a subcommand, an option, a case id, a keyword or an
--exclude pattern typed a little wrong (issue 35). One wording, used everywhere."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from .text import terminal_safe


def near(word: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to `n` of `choices` close to `word`: by spelling (difflib), then those that
    contain it (a case id typed in part, `brave-2` → `brave-200-…`)."""
    pool = sorted(set(choices))
    found = difflib.get_close_matches(word, pool, n=n, cutoff=0.6)
    core = word.strip("*?-").lower()
    if core and len(found) < n:
        found += [c for c in pool if core in c.lower() and c not in found][: n - len(found)]
    return found


def hint(word: str, choices: Iterable[str], n: int = 3) -> str:
    """'; did you mean X?' (or 'X, Y or Z?'), or '' when nothing is near."""
    found = [terminal_safe(f, 200) for f in near(word, choices, n)]
    if not found:
        return ""
    words = found[0] if len(found) == 1 else ", ".join(found[:-1]) + " or " + found[-1]
    return f"; did you mean {words}?"
