"""The differential property as a plain Hypothesis test, for long coverage-guided campaigns.

    pip install 'palconf[hypofuzz]'   # HypoFuzz and the Hypothesis it works with
    palconf hypofuzz --engine-cmd "python my_engine.py"   # docs/hypofuzz.md

The property is the one `palconf fuzz` checks (generators.lockstep): a generated game (with
the fuzzer's directed shares of setup steps and REASON probes) played on the engine gives the
oracle's verdicts, reasons, OBSERVED and LEGAL at every step. `palconf hypofuzz`
(palconf/commands/hypofuzz.py) has HypoFuzz (https://hypofuzz.com) fuzz it, guided by
coverage, until it has found a failure, which is kept in the example database; pytest
replays it (`pytest --pyargs palconf.generators.hypofuzz_target`, from an installed palconf).
The module loads palconf's Hypothesis profile itself (`HYPOTHESIS_PROFILE=fuzz`,
`PALCONF_HYPOTHESIS_DB` a folder or `redis://HOST:PORT/N`: generators.profiles), as
tests/conftest.py does for the tests: HypoFuzz fuzzes only tests on the default database and
skips derandomized ones (the `ci` profile), so `HYPOTHESIS_PROFILE=fuzz` where `CI` is set.
Skipped when PALCONF_FUZZ_ENGINE is not set. The engine is started once per process and
restarted after it breaks; `PALCONF_FUZZ_TIMEOUT` is its reply timeout in seconds (default
10).
"""

from __future__ import annotations

import atexit
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palconf.core import Engine, EngineFault
from palconf.oracle.keywords import KEYWORD_IDS

from ._games import games
from .formatting import format_difference
from .lockstep import Skipped, run_game
from .profiles import load_profile

load_profile()  # the database HypoFuzz shares between its workers (and machines)

ENGINE_ENV = "PALCONF_FUZZ_ENGINE"
TIMEOUT_ENV = "PALCONF_FUZZ_TIMEOUT"

_engine: list[Engine] = []


def engine() -> Engine:
    """The engine PALCONF_FUZZ_ENGINE names, started once (closed at exit)."""
    if not _engine:
        from palconf.engines.process import ProcessEngine

        started = ProcessEngine(
            os.environ[ENGINE_ENV], timeout=float(os.environ.get(TIMEOUT_ENV) or 10)
        )
        started.start()
        atexit.register(started.close)
        _engine.append(started)
    return _engine[0]


@pytest.mark.skipif(not os.environ.get(ENGINE_ENV), reason=f"{ENGINE_ENV} is not set")
@settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
        HealthCheck.large_base_example,
    ],
)
@given(st.data())
def test_the_engine_plays_generated_games_as_the_oracle_does(data: st.DataObject) -> None:
    target = engine()
    info = getattr(target, "info", None)
    keywords = info.keywords if info is not None else frozenset(KEYWORD_IDS)
    game = data.draw(
        games(
            keywords=[k for k in KEYWORD_IDS if k in keywords],
            min_actions=5,
            max_actions=30,
            setup_share=10,
            probe_share=5,
        ),
        label="game",
    )
    try:
        diff = run_game(target, game)
    except Skipped:
        return  # the engine does not support this board: nothing to compare
    if diff is not None and diff.kind == "engine-error":
        try:
            target.restart()
        except EngineFault:
            pass
    assert diff is None, format_difference(diff)
