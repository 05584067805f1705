"""Fixtures for the tests built on tests/harness.py: the whole suite, its results on the oracle,
and a small cases folder. A test module takes them with
`pytest_plugins = ["tests.harness_fixtures"]`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from palconf.cases.loader import Case, load_cases
from palconf.core import Result
from palconf.engines.oracle_engine import OracleEngine
from palconf.running.supervisor import run_cases

from .harness import folder_of


@pytest.fixture(scope="module")
def all_cases() -> list[Case]:
    return load_cases()


@pytest.fixture(scope="module")
def oracle_results(all_cases: list[Case]) -> list[Result]:
    with OracleEngine() as engine:
        return list(run_cases(engine, all_cases))


@pytest.fixture(scope="module")
def small(
    tmp_path_factory: pytest.TempPathFactory, all_cases: list[Case], oracle_results: list[Result]
) -> tuple[Path, list[Case]]:
    """Six base cases with actions that pass on the oracle, in a folder of their own (so
    that a run loads six files, not the whole suite)."""
    passing = {r.id for r in oracle_results if r.outcome == "pass"}
    chosen = [c for c in all_cases if c.path.startswith("base") and c.actions and c.id in passing][
        :6
    ]
    assert len(chosen) == 6
    folder = folder_of(chosen, tmp_path_factory.mktemp("cases"))
    return folder, load_cases(folder)
