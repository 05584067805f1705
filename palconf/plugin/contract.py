"""The pytest plugin's exit statuses and node ids, by contract (docs/INTERPRETING.md, "Exit
status"; docs/broken-input.md, section 19):

- before collection (`check_before_collection`, in `pytest_sessionstart` of the process that
  runs pytest, not of an xdist worker): broken case files and an engine that does not start
  (a command that cannot be run, an engine that exits, hangs or breaks the protocol at
  `hello`) are pytest's usage error, exit 4, with one message, with and without xdist;
- during a case, the engine's misbehaviour is that case's error (palconf.plugin.engine);
- an exception of palconf's own during a case (`internal_error`) is reported in one line as
  a bug in palconf, and the session ends with pytest's internal error, exit 3
  (`PalconfSession.pytest_sessionfinish`), with and without xdist (the wording is the
  CLI's: `palconf.core.errors.internal_error`);
- `named_paths`: the case files and folders named on the command line (node ids are case
  files, palconf.plugin.items.anchor, so a printed id can be given back to pytest).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from palconf.core import terminal_safe
from palconf.plugin.engine import EngineStopped
from palconf.plugin.items import _stderr_tail, load_problems

if TYPE_CHECKING:
    from palconf.plugin.settings import Session

__all__ = ["check_before_collection", "internal_error", "named_paths"]


def check_before_collection(palconf: Session, config: pytest.Config) -> None:
    """Load the cases and start the engine: a `pytest.UsageError` (exit 4) for what the user
    must fix. Not in an xdist worker (its controller checked), and the engine not with
    `--collect-only` (nothing runs). The engine started stays for the first case, except in
    an xdist controller, which runs no case."""
    from palconf.cases.loader import CaseLoadError
    from palconf.core.errors import UsageError

    if hasattr(config, "workerinput"):
        return
    root = palconf.settings.cases_root
    try:
        palconf.suite()
    except CaseLoadError as e:
        raise pytest.UsageError(load_problems(e.errors, root)) from None
    except UsageError as e:
        raise pytest.UsageError(f"palconf: {terminal_safe(e, keep_newlines=True)}") from None
    if config.option.collectonly:
        return
    try:
        palconf.slot.check()
    except EngineStopped as e:
        raise pytest.UsageError(stopped_message(palconf, e)) from None
    if config.pluginmanager.has_plugin("dsession"):  # the workers start their own
        palconf.slot.close()


def stopped_message(palconf: Session, e: EngineStopped) -> str:
    lines = [
        terminal_safe(f"palconf: {e.message}"),
        f"  engine: {terminal_safe(palconf.settings.engine_label)}; no case was run",
    ]
    cmd = palconf.settings.engine_cmd
    if cmd is not None:
        lines.append(
            terminal_safe(f"  check the engine with: palconf smoke --engine-cmd {shlex.quote(cmd)}")
        )
    return "\n".join(lines + [f"  {line}" for line in _stderr_tail(e.stderr)])


def internal_error(error: BaseException) -> str:
    """palconf's own failure during a case, as `palconf CMD` words it, with how to see the
    traceback (PALCONF_DEBUG=1 adds it to the report)."""
    from palconf.core.errors import internal_error as wording

    line = wording(error, "plugin", True)
    return (
        f"{line}\npalconf: please report it with the command line and `palconf --version` "
        '(README, "Reporting a bug"); PALCONF_DEBUG=1 shows the traceback'
    )


def debugging() -> bool:
    return bool(os.environ.get("PALCONF_DEBUG"))


def named_paths(config: pytest.Config, cases_root: Path) -> list[Path]:
    """The command line's paths inside the cases folder (`cases/taunt/x.toml::x`, `cases/taunt`):
    when there are any, the cases collected are theirs, not the whole suite."""
    here = config.invocation_params.dir
    named = []
    for arg in config.args:
        part = arg.split("::", 1)[0]
        path = Path(os.path.abspath(Path(here, part)))
        if path == cases_root or cases_root in path.parents:
            named.append(path)
    return named
