"""The pytest plugin under rules versions: `--palconf-rules V` collects V's suite, as
`palconf run --rules V` runs it; a case of the suite that does not hold for V as it stands is
skipped with the reason, never run; an unknown version is a usage error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from palconf import paths

from .test_pytest_plugin import ORACLE, SMALL, palconf_args

pytest_plugins = ["pytester", "tests.made_up_rules"]

BRAVE_CASE = "ix-brave-taunt-attacked-taunt-pal-gets-no-brave"
TAUNT_CASE = "taunt-double-taunt-standing-binds-assault-attacker"


@pytest.fixture
def corpus(pytester: pytest.Pytester) -> Path:
    root = pytester.path / "cases"
    for rel in SMALL:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(paths.CASES / rel, root / rel)
    return root


def test_the_version_asked_for_is_collected_and_said(
    pytester: pytest.Pytester, corpus: Path, rules_101: Path
) -> None:
    result = pytester.runpytest(
        *palconf_args(corpus, "--palconf-rules", "1.00", "-rs", engine=ORACLE)
    )
    result.assert_outcomes(passed=len(SMALL))
    result.stdout.fnmatch_lines(["palconf: engine *; rules 1.00*"])


def test_the_current_version_skips_what_does_not_hold_for_it(
    pytester: pytest.Pytester, corpus: Path, rules_101: Path
) -> None:
    """1.01 (current) changes Brave (brave.3 still pending) and merges taunt.3 into taunt.2
    (pending): the two cases citing them were reviewed for 1.00 only, so they are skipped
    under 1.01 with the reason; the others run."""
    result = pytester.runpytest(*palconf_args(corpus, "-rs", engine=ORACLE))
    result.assert_outcomes(passed=len(SMALL) - 2, skipped=2)
    result.stdout.fnmatch_lines(
        ["palconf: engine *; rules 1.01*", "SKIPPED*not for rules 1.01 as it stands*"]
    )
    skipped = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    assert sorted(BRAVE_CASE in line or TAUNT_CASE in line for line in skipped) == [True, True]
    assert any("brave.3 pending" in line for line in skipped)
    assert any("taunt.3 merged into taunt.2" in line for line in skipped)


def test_an_unknown_version_is_a_usage_error(
    pytester: pytest.Pytester, corpus: Path, rules_101: Path
) -> None:
    result = pytester.runpytest(*palconf_args(corpus, "--palconf-rules", "9.99", engine=ORACLE))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--palconf-rules*9.99*"])
