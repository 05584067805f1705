"""Shared pytest setup. Keep each part small and additive: several areas use this file.

Hypothesis (generators.profiles): the `ci` profile when CI is set, `dev` otherwise,
HYPOTHESIS_PROFILE to choose (`fuzz` for long runs). The `slow` marker is registered here.
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from palconf.generators.profiles import load_profile

HYPOTHESIS_PROFILE = load_profile()

# The tests start several hundred Python processes (palconf, engines, pytest). Where the
# environment turns bytecode off (PYTHONDONTWRITEBYTECODE, as some containers do), each
# would compile palconf, pytest and Hypothesis anew: the test processes keep their bytecode
# in .pytest_cache/pycache instead, never beside the sources. Set PYTHONPYCACHEPREFIX to
# choose another place.
if os.environ.get("PYTHONDONTWRITEBYTECODE") and "PYTHONPYCACHEPREFIX" not in os.environ:
    os.environ["PYTHONPYCACHEPREFIX"] = str(
        Path(__file__).resolve().parent.parent / ".pytest_cache" / "pycache"
    )
    del os.environ["PYTHONDONTWRITEBYTECODE"]


def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line(
        "markers",
        "slow: slow by nature, its time a wait or a campaign (engines that hang, crash or are "
        "killed; fuzz campaigns and sweeps; whole-suite runs through other engines; browser, "
        "Redis, HypoFuzz); the README's test command deselects them (-m 'not slow'), "
        ".ci/run runs them",
    )


def pytest_report_header(config):  # type: ignore[no-untyped-def]
    return f"hypothesis profile: {HYPOTHESIS_PROFILE}"


@pytest.fixture
def making(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A cases folder to fill with broken case files (tests.test_broken_cases.Making), its
    links, modes and FIFOs undone afterwards: for test_broken_cases and test_broken_cases_json."""
    from tests.test_broken_cases import Making

    m = Making(tmp_path / "cases", monkeypatch)
    m.root.mkdir()
    yield m
    for undo in reversed(m.cleanups):
        undo()
