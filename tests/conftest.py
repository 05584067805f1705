"""Shared pytest setup. Keep each part small and additive: several areas use this file.

Hypothesis (generators.profiles): the `ci` profile when CI is set, `dev` otherwise,
HYPOTHESIS_PROFILE to choose (`fuzz` for long runs). The `slow` marker is registered here.
"""

from palconf.generators.profiles import load_profile

HYPOTHESIS_PROFILE = load_profile()


def pytest_configure(config):  # type: ignore[no-untyped-def]
    config.addinivalue_line(
        "markers",
        "slow: slow by nature (fuzz campaigns, whole-suite sweeps, browser, Redis, HypoFuzz); "
        "the README's test command deselects them (-m 'not slow'), .ci/run runs them",
    )


def pytest_report_header(config):  # type: ignore[no-untyped-def]
    return f"hypothesis profile: {HYPOTHESIS_PROFILE}"
