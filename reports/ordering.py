"""Orders for what reports list: ids and versions in natural order, texts by version."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["by_text", "natural_key"]


def natural_key(text: str) -> list[tuple[int, int, str]]:
    """A natural order of ids and versions: `taunt.2` before `taunt.10`, `1.9` before `1.10`."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text)]


def by_text(texts: Mapping[str, str]) -> list[tuple[str, str]]:
    """(versions, text): rules versions (version → text) grouped by the text they give, in
    the order of their first version; `versions` in words ("1.00, 1.01")."""
    groups: dict[str, list[str]] = {}
    for version in sorted(texts, key=natural_key):
        groups.setdefault(texts[version], []).append(version)
    return [(", ".join(versions), text) for text, versions in groups.items()]
