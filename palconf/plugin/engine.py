"""The engine of the pytest plugin (palconf.plugin.hooks): how it is made, guarded and fed.

- `python_factory`: `--palconf-engine MODULE:FACTORY`, a Python engine, checked at once (a
  mistake is a usage error) and wrapped in `InProcessEngine`, which turns an exception from
  the engine's code into an `EngineCrash` of the case, with the engine's own traceback;
- `process_factory`: `--palconf-engine-cmd CMD`, through `palconf.engines.options.make_engine`
  as `palconf run --engine-cmd` makes it;
- `EngineSlot`: the one engine of a pytest process (an xdist worker), fed one case at a time
  to `run_cases`, so faults, restarts and the restart limit are `palconf run`'s.

Importing it imports only palconf.core and palconf.engines.options (both light); the runner,
the adapter and the user's module are imported once `--palconf` is given.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from palconf.core import (
    Engine,
    EngineCrash,
    EngineFault,
    EngineInfo,
    ProtocolViolation,
    Result,
    Unsupported,
    send_line,
)
from palconf.core.errors import PalconfError, UsageError
from palconf.core.json_read import not_json
from palconf.engines.options import make_engine

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.running.supervisor import Supervisor

__all__ = [
    "EngineSlot",
    "EngineStopped",
    "InProcessEngine",
    "process_factory",
    "python_factory",
    "user_traceback",
]


def process_factory(command: str, timeout: float) -> Callable[[], Engine]:
    """The engine process of `--palconf-engine-cmd` (the command was checked already)."""

    def make() -> Engine:
        return make_engine(argparse.Namespace(engine_cmd=command, timeout=timeout))

    return make


def python_factory(spec: str, here: Path) -> Callable[[], Engine]:
    """MODULE:FACTORY → a function that calls FACTORY and checks what it returns. The module is
    imported now (a mistake is a usage error); if it is not on sys.path, the folder pytest was
    started in is tried, as `python -m pytest` would put it there."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise pytest.UsageError(
            f"--palconf-engine {spec!r}: expected MODULE:FACTORY, e.g. palconf.engines:OracleEngine"
        )
    try:
        module = _import(module_name, here)
    except ModuleNotFoundError as e:
        raise pytest.UsageError(
            f"--palconf-engine {spec!r}: cannot import {module_name!r}: {e}"
        ) from None
    except Exception as e:  # the user's module failed while importing: say where
        raise pytest.UsageError(
            f"--palconf-engine {spec!r}: importing {module_name!r} failed:\n{user_traceback(e)}"
        ) from None
    factory: Any = module
    for part in attr.split("."):
        if not hasattr(factory, part):
            raise pytest.UsageError(f"--palconf-engine {spec!r}: {module_name!r} has no {attr!r}")
        factory = getattr(factory, part)
    if not callable(factory):
        raise pytest.UsageError(f"--palconf-engine {spec!r}: {attr!r} is not callable")

    def make() -> Engine:
        try:
            engine = factory()
        except Exception as e:
            raise EngineCrash(
                f"the engine factory {spec} raised {type(e).__name__}: {e}",
                stderr=user_traceback(e),
            ) from None
        if not all(callable(getattr(engine, m, None)) for m in ("start", "request")):
            raise ProtocolViolation(
                f"the engine factory {spec} returned "
                f"{type(engine).__name__}, not a palconf.engines.Engine "
                f"(it needs start() and request(msg))"
            )
        return InProcessEngine(engine)

    return make


def _import(module_name: str, here: Path) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        top = module_name.split(".")[0]
        if e.name != top or str(here) in sys.path:
            raise
    sys.path.insert(0, str(here))
    return importlib.import_module(module_name)


def user_traceback(e: BaseException) -> str:
    """The traceback of an exception from the user's engine code, without our own frame."""
    tb = e.__traceback__.tb_next if e.__traceback__ is not None else None
    return "".join(traceback.format_exception(type(e), e, tb)).rstrip()


# ---------------------------------------------------------------- in-process engines


class InProcessEngine:
    """A Python engine, guarded: an exception from its code is an `EngineCrash` of that case
    (with the engine's traceback as its stderr), and the engine is restarted before the next
    case, as a crashed process would be. It is never the harness's own traceback."""

    info: EngineInfo

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.raised = False

    @property
    def broken(self) -> bool:
        return self.raised or bool(getattr(self.inner, "broken", False))

    def _crash(self, what: str, e: Exception) -> EngineCrash:
        self.raised = True
        return EngineCrash(
            f"the engine raised {type(e).__name__} {what}: {e}", stderr=user_traceback(e)
        )

    def start(self) -> EngineInfo:
        self.raised = False
        try:
            info = self.inner.start()
        except EngineFault:
            raise
        except Exception as e:
            raise self._crash("in start()", e) from None
        info = info if info is not None else getattr(self.inner, "info", None)
        if not isinstance(info, EngineInfo):
            raise ProtocolViolation(
                "the engine's start() must return its EngineInfo (see palconf.engines.parse_hello)"
            )
        self.info = info
        return info

    def request(self, msg: dict[str, Any]) -> Any:
        try:
            reply = self.inner.request(msg)
        except EngineFault:
            raise
        except Exception as e:
            raise self._crash(f"on `{msg.get('cmd')}`", e) from None
        return self._json(reply, f"`{msg.get('cmd')}`")

    @staticmethod
    def _json(reply: Any, what: str) -> Any:
        """A reply is what the wire could carry: a set, a tuple, an object of palconf's or a
        NaN in it is the engine's protocol violation, named where it is, never a TypeError
        of palconf's later on."""
        problem = not_json(reply)
        if problem is not None:
            raise ProtocolViolation(f"the reply to {what} is not JSON: {problem}")
        return reply

    def request_line(self, line: bytes, label: str) -> Any:
        """A wire step's line (P-errors): through the engine's own `request_line` where it
        has one (it speaks the wire), else as `palconf.core.send_line` gives it to an
        in-process engine (the value it holds, or a skip)."""
        try:
            reply = send_line(self.inner, line, label)
        except (EngineFault, Unsupported):
            raise
        except Exception as e:
            raise self._crash(f"on {label}", e) from None
        return self._json(reply, label)

    def restart(self) -> None:
        self.close()
        self.start()

    def take_stderr(self) -> str:
        take = getattr(self.inner, "take_stderr", None)
        try:
            return str(take()) if callable(take) else ""
        except Exception:
            return ""

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                pass


# ---------------------------------------------------------------- the engine of this process


class EngineStopped(PalconfError):
    """The engine of this process cannot run cases any more: it did not start, or it broke
    more times in a row than the restart limit allows."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.stderr = stderr


class EngineSlot:
    """The one engine of this pytest process (of this xdist worker): started at the first case
    that runs, closed at the end of the session. Each case runs through one `Supervisor`, so
    faults, restarts and the restart limit are `palconf run`'s own."""

    def __init__(self, make: Callable[[], Engine], max_restarts: int | None) -> None:
        self.make = make
        self.max_restarts = max_restarts
        self.engine: Engine | None = None
        self.stopped: EngineStopped | None = None
        self._supervisor: Supervisor | None = None

    def run(self, case: Case) -> Result:
        from palconf.running.supervisor import RunStopped

        if self.stopped is not None:
            raise EngineStopped(self.stopped.message, self.stopped.stderr)
        if self._supervisor is None:
            self._supervisor = self._start()
        try:
            return self._supervisor.run(case)
        except RunStopped as e:
            self.stopped = EngineStopped(f"the engine is stopped: {e}")
            raise self.stopped from None
        except UsageError as e:  # a restart found the command gone (not found, not runnable)
            self.stopped = EngineStopped(f"the engine cannot be restarted: {e}")
            raise self.stopped from None

    def check(self) -> None:
        """Start the engine now (before collection): `EngineStopped` if it does not."""
        if self._supervisor is None:
            self._supervisor = self._start()

    def _start(self) -> Supervisor:
        from palconf.running.supervisor import DEFAULT_MAX_RESTARTS, Supervisor

        engine = None
        try:
            engine = self.make()
            engine.start()
        except (EngineFault, UsageError) as e:  # UsageError: the command cannot be run
            stderr = getattr(e, "stderr", "") or (
                engine.take_stderr() if engine is not None else ""
            )
            if engine is not None:
                engine.close()
            message = e.message if isinstance(e, EngineFault) else str(e)
            self.stopped = EngineStopped(f"the engine did not start: {message}", stderr)
            raise self.stopped from None
        self.engine = engine
        limit = DEFAULT_MAX_RESTARTS if self.max_restarts is None else self.max_restarts
        return Supervisor(engine, max_restarts=limit)

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        self._supervisor = None
