"""Where the suite's data lives: the cases, the rules (every version) and the schemas.

Three layouts, looked for in this order:
1. `PALCONF_CASES` / `PALCONF_RULES` name a copy (a git submodule checkout, a fork);
2. an installed wheel or sdist carries the data inside the package, in `palconf/suite/`
   (setup.py copies `cases/` and `rules/` there at build time);
3. a checkout (`pip install -e .`): `cases/` and `rules/` beside the packages.
The schemas are package data in every layout. `--cases DIR` selects another cases folder
per command.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
#: the data a wheel carries (absent in a checkout)
BUNDLED = PACKAGE / "suite"
#: the checkout's top level (in a wheel install, site-packages: no data there)
ROOT = PACKAGE.parent


def _default_root() -> Path:
    return BUNDLED if (BUNDLED / "rules" / "registry.toml").is_file() else ROOT


DATA_ROOT = _default_root()
CASES = Path(os.environ.get("PALCONF_CASES") or DATA_ROOT / "cases")
RULES = Path(os.environ.get("PALCONF_RULES") or DATA_ROOT / "rules")
SCHEMAS = PACKAGE / "schemas"
CASE_SCHEMA = SCHEMAS / "case.schema.json"


def cases_default() -> str:
    """Which cases folder a command uses without `--cases`, in words for `--help`."""
    if os.environ.get("PALCONF_CASES"):
        return f"PALCONF_CASES, {CASES}"
    if DATA_ROOT == BUNDLED:
        return f"the cases this palconf carries, {CASES}"
    return f"the checkout's cases/, {CASES}"


def where_from(path: Path, variable: str) -> str:
    """How the user got `path` and how to choose another: for "cannot find" messages."""
    if os.environ.get(variable):
        return f"{path} (from {variable})"
    return (
        f"{path} (this palconf's own copy; reinstall palconf from a wheel or sdist, or set "
        f"{variable} to a checkout's folder)"
    )


def missing_data() -> str | None:
    """A message when the rules registry cannot be found, else None."""
    registry = RULES / "registry.toml"
    if registry.is_file():
        return None
    return f"the rules registry is missing: {where_from(registry, 'PALCONF_RULES')}"
