"""The only "tests" of the mutation run: every case of the corpus, played on the oracle.

mutmut runs pytest on this module (copied into its work folder as `test_corpus.py`; under its
own name pytest's default patterns do not collect it, so the project's test suite does not
run it): one test per case, `test_case[<case id>]`, each playing the case with
`palconf.running.runner.run_case`, exactly as `palconf run` plays it, and failing unless the outcome
is `pass` (a `fail`; an `error`, e.g. an exception inside the oracle, which the protocol
answers as `internal`; or a `skip`: the engine no longer answers as the case demands). Node
ids are plain parametrized ids, so mutmut can run just the cases that reach a mutated
function.

The engine is the oracle in-process (`oracle.Session`), seen the way the harness sees
`palconf serve` through the adapter: every request and reply goes through a JSON round
trip, `hello` is checked against its schema and every reply against the protocol's reply
schemas (`palconf.engines.schemas`), so that a mutant that breaks the shape of a message
is caught as it would be in an engine process, at in-process speed.

The cases folder is `PALCONF_CASES` (the runner sets it to the checkout's `cases/`).
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.core import EngineInfo


def _alias_mutated_oracle() -> None:
    """Under mutmut, palconf's oracle is mutmut's mutated copy.

    mutmut writes the mutants into its copy of `oracle/` (`mutants/oracle/`, first on the
    path) and names each by the module it was written into (`oracle.keywords.x…`): a
    trampoline fires only in a function whose `__module__` is that name. So the copy is
    imported as `oracle`, and each of its modules is also entered under the name palconf
    imports it by (`palconf.oracle.keywords`): one module object, two names, and the harness
    plays the mutated rules. Outside mutmut (no MUTANT_UNDER_TEST) nothing changes."""
    if "MUTANT_UNDER_TEST" not in os.environ:
        return
    import palconf

    oracle = importlib.import_module("oracle")
    for info in pkgutil.iter_modules(oracle.__path__):
        importlib.import_module(f"oracle.{info.name}")
    for name, module in list(sys.modules.items()):
        if name == "oracle" or name.startswith("oracle."):
            sys.modules[f"palconf.{name}"] = module
    setattr(palconf, "oracle", oracle)  # noqa: B010 (the attribute a submodule import sets)


_alias_mutated_oracle()


def _wire(message: Any) -> Any:
    """A message as the other end of a pipe reads it (what `palconf serve` writes)."""
    return json.loads(json.dumps(message, separators=(",", ":"), allow_nan=False))


@cache
def engine_class() -> type:
    from palconf.core import ProtocolViolation, parse_hello
    from palconf.engines.oracle_engine import OracleEngine
    from palconf.engines.schemas import check_message, check_reply_shape
    from palconf.oracle import Session

    class WireOracle(OracleEngine):
        """The oracle as the adapter sees `palconf serve` (palconf.engines.process's checks)."""

        def start(self) -> EngineInfo:
            self.session = Session(self.rules, name=self.name)
            reply = _wire(self.session.handle({"cmd": "hello", "protocol": 1}))
            problem = check_message("hello.response", reply)
            if problem is not None:
                raise ProtocolViolation(
                    f"the reply to `hello` does not follow the protocol: {problem}"
                )
            self.info = parse_hello(reply)
            return self.info

        def request(self, msg: dict[str, Any]) -> dict[str, Any]:
            cmd = str(msg.get("cmd"))
            reply = _wire(self.session.handle(_wire(msg)))
            problem = check_reply_shape(cmd, reply)
            if problem is not None:
                raise ProtocolViolation(
                    f"the reply to `{cmd}` does not follow the protocol: {problem}"
                )
            return reply  # type: ignore[no-any-return]

    return WireOracle


@cache
def corpus() -> dict[str, Case]:
    from palconf.cases.loader import load_cases

    return {c.id: c for c in load_cases()}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case_id" in metafunc.fixturenames:
        metafunc.parametrize("case_id", sorted(corpus()))


def test_case(case_id: str) -> None:
    from palconf.core import Outcome
    from palconf.running.runner import run_case

    # each case starts as in a fresh `palconf serve`: the oracle's lexicon cache empty, so that
    # its first `setup` builds it (the loading of the corpus, before mutmut forks, filled it)
    importlib.import_module("oracle.base")._LEXICONS.clear()
    engine = engine_class()()
    engine.start()
    result = run_case(engine, corpus()[case_id])
    if result.outcome != Outcome.PASS:
        pytest.fail(f"{case_id}: {result.outcome}: {result.message}", pytrace=False)
