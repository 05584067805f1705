"""Where the project's data lives. palconf runs from its checkout (`pip install -e .`):
`cases/` and `rules/` are data beside the packages, not inside them."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(os.environ.get("PALCONF_CASES", ROOT / "cases"))
RULES = Path(os.environ.get("PALCONF_RULES", ROOT / "rules"))
SCHEMAS = Path(__file__).resolve().parent / "schemas"
CASE_SCHEMA = SCHEMAS / "case.schema.json"
