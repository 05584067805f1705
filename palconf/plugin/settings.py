"""The checked options of one pytest run with `--palconf`, and what a case item asks of the
session that owns it (the engine slot, the registry, the expectations)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from palconf.core import Engine

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.plugin.engine import EngineSlot
    from palconf.registry import Registry
    from palconf.running.expectations import Expectations


@dataclass(frozen=True)
class Settings:
    """The checked options of one pytest run."""

    engine_label: str  # for the header and messages: the command or MODULE:FACTORY
    engine_cmd: str | None  # the command, for a process engine
    make_engine: Callable[[], Engine]
    cases_root: Path
    expectations_path: Path | None
    max_restarts: int | None
    rules: str | None = None  # --palconf-rules: the rules version asked for (None: current)


class Session(Protocol):
    """What the case items use of the plugin's session (`hooks.PalconfSession`)."""

    settings: Settings
    registry: Registry
    rules_version: str  # the rules version whose suite is collected
    slot: EngineSlot
    unfit: dict[str, str]  # case id → why it is not run for the rules version (skipped)

    def suite(self) -> list[Case]: ...

    def load_expectations(self) -> Expectations | None: ...
