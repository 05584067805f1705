"""What goes wrong reading case files: one `CaseError` per problem (file, line, column,
field, message), and `CaseLoadError`, every problem of a folder at once (a `UsageError`:
exit 2). Light on purpose: finding the files (`finding`) needs no more than this."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from palconf.core.errors import UsageError
from palconf.core.text import terminal_safe

__all__ = ["CaseError", "CaseLoadError"]


@dataclass(frozen=True)
class CaseError:
    file: str
    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        # a file name or a value may hold control characters or lone surrogates
        return terminal_safe(f"{where}: {self.field + ': ' if self.field else ''}{self.message}")


class CaseLoadError(UsageError):
    """Some case files do not load: `errors`, every one of them; `loaded`, the cases that
    did load (they are not run while any file is broken)."""

    def __init__(self, errors: list[CaseError], loaded: Sequence[Any] = ()) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors
        self.loaded = list(loaded)
