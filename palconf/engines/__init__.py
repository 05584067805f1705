"""Engines and the wire: what palconf drives, in-process or as a child process.

- `OracleEngine` (`oracle_engine`): the reference oracle in-process (or any
  `palconf.oracle.Rules` subclass, such as a mutant), through the request/response layer that
  `palconf serve` uses. `palconf.engines:OracleEngine` is the factory to name in
  `--palconf-engine MODULE:FACTORY`.
- `ProcessEngine` (`process`): any program speaking protocol v1 as JSON lines on stdin and
  stdout; `json_lines` (one strict JSON value per line), `processes` (the pidfd, killing the
  whole tree, the parent-death signal, the subreaper), `stderr_buffer`, `schemas` (the message
  schemas, checked fast; the REASON codes in table order).
- `options`: the one set of engine options (`--engine-cmd`, `--timeout`, ...) and the one
  factory, `make_engine`, for every command and the pytest plugin.
- `smoke_data`: what `palconf smoke` checks an adapter with.

The engine interface (`Engine`, `BaseEngine`, `EngineInfo`) and the faults are
`palconf.core`'s; they are named here too, for engine authors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.core.engine import (
        BaseEngine,
        Engine,
        EngineCrash,
        EngineFault,
        EngineInfo,
        EngineTimeout,
        ProtocolViolation,
        Unsupported,
        parse_hello,
    )
    from palconf.engines.command import EngineCommandError, split_command
    from palconf.engines.options import DEFAULT_TIMEOUT, add_engine_options, make_engine
    from palconf.engines.oracle_engine import OracleEngine
    from palconf.engines.process import ProcessEngine

_EXPORTS = {
    "BaseEngine": "palconf.core.engine",
    "Engine": "palconf.core.engine",
    "EngineCrash": "palconf.core.engine",
    "EngineFault": "palconf.core.engine",
    "EngineInfo": "palconf.core.engine",
    "EngineTimeout": "palconf.core.engine",
    "ProtocolViolation": "palconf.core.engine",
    "Unsupported": "palconf.core.engine",
    "parse_hello": "palconf.core.engine",
    "OracleEngine": ".oracle_engine",
    "EngineCommandError": ".command",
    "ProcessEngine": ".process",
    "split_command": ".command",
    "DEFAULT_TIMEOUT": ".options",
    "add_engine_options": ".options",
    "make_engine": ".options",
}
__all__ = [
    "BaseEngine",
    "DEFAULT_TIMEOUT",
    "Engine",
    "EngineCommandError",
    "EngineCrash",
    "EngineFault",
    "EngineInfo",
    "EngineTimeout",
    "OracleEngine",
    "ProcessEngine",
    "ProtocolViolation",
    "Unsupported",
    "add_engine_options",
    "make_engine",
    "parse_hello",
    "split_command",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
