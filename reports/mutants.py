"""Reading `palconf mutants --json` output for the report's "suite strength" section.

The agreed shape, read tolerantly (unknown fields ignored, a bare list accepted too):

    {"mutants": [{"name": "taunt-ignored", "clause": "taunt.1", "keyword": "taunt",
                  "killed": true, "killed_by": ["taunt-forces-target", ...]}, ...]}

`name` is required. `keyword` defaults to the clause's keyword (from the registry, else the
part of the clause id before the first dot, else `base`). `killed` defaults to `status` ==
"killed" when there is a `status` (what `palconf mutants --json` writes: killed, survived, or
fault — the mutant's engine could not run, so nothing is known), else to whether
`killed_by` names any case. `misreading` (or `description`) says what the mutant gets
wrong. A mutant is a deliberate misreading of one rule: the suite is strong on a keyword
when its cases kill (fail against) every mutant of that keyword.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palconf.core import json_read
from palconf.core.outcomes import BASE
from palconf.core.results_file import ResultsError


@dataclass(frozen=True)
class Mutant:
    name: str
    clause: str
    keyword: str
    killed: bool
    killed_by: tuple[str, ...]
    description: str = ""
    status: str = ""  # killed, survived or fault

    @property
    def fault(self) -> bool:
        return not self.killed and self.status == "fault"


def parse_mutants(
    data: Any, source: str, clause_keyword: dict[str, str] | None = None
) -> list[Mutant]:
    """Mutants from the decoded JSON; `ResultsError` naming the entry when one is malformed."""
    entries = data.get("mutants") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ResultsError(f'{source}: expected {{"mutants": [...]}} (a list of mutants)')
    mutants = []
    for n, m in enumerate(entries):
        where = f"{source}: mutants[{n}]"
        if not isinstance(m, dict):
            raise ResultsError(f"{where}: must be an object")
        name = m.get("name")
        if not isinstance(name, str) or not name:
            raise ResultsError(f"{where}: needs a non-empty string `name`")
        clause = m.get("clause") or ""
        if not isinstance(clause, str):
            raise ResultsError(f"{where} ({name}): `clause` must be a string")
        killed_by = m.get("killed_by") or []
        if not isinstance(killed_by, list) or not all(isinstance(c, str) for c in killed_by):
            raise ResultsError(f"{where} ({name}): `killed_by` must be a list of case ids")
        status = m.get("status", "")
        if not isinstance(status, str):
            raise ResultsError(f"{where} ({name}): `status` must be a string")
        killed = m.get("killed", status == "killed" if status else bool(killed_by))
        if not isinstance(killed, bool):
            raise ResultsError(f"{where} ({name}): `killed` must be true or false")
        status = status or ("killed" if killed else "survived")
        keyword = m.get("keyword")
        if keyword is not None and not isinstance(keyword, str):
            raise ResultsError(f"{where} ({name}): `keyword` must be a string")
        if not keyword:
            keyword = (clause_keyword or {}).get(clause) or (
                clause.split(".")[0] if "." in clause else BASE
            )
        description = m.get("misreading") or m.get("description") or ""
        mutants.append(
            Mutant(
                name=name,
                clause=clause,
                keyword=keyword,
                killed=killed,
                killed_by=tuple(killed_by),
                description=description if isinstance(description, str) else "",
                status=status,
            )
        )
    return mutants


def read_mutants(path: Path, clause_keyword: dict[str, str] | None = None) -> list[Mutant]:
    text = json_read.read_text(path, ResultsError, "a mutants file")  # (bounded, regular)
    try:
        data = json_read.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    except ValueError as e:  # json_read's own refusals: too deep, NaN, a key twice
        raise ResultsError(f"{path}: not JSON palconf reads: {e}") from None
    return parse_mutants(data, str(path), clause_keyword)
