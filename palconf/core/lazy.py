"""Lazy public faces: a subpackage's `__init__` names what it offers without importing it.

Each subpackage's `__init__` is its public face. It lists its names in a map from name to
the submodule that defines it, and imports them under `TYPE_CHECKING` so that type checkers
and readers see the real definitions; at run time a name is imported the first time it is
used (PEP 562). So `import palconf.engines` costs nothing, and `palconf --version` or the
pytest plugin's registration do not load the oracle, jsonschema or Hypothesis.
`tests/test_layout.py` checks that each map and its `TYPE_CHECKING` imports agree.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_face(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for the package `package`: `exports` maps each public
    name to the submodule (relative to the package, e.g. ".runner") that defines it."""

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # once: later uses are plain lookups
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
