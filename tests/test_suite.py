"""The shipped corpus itself: it lints clean and covers every clause and keyword pair."""

from __future__ import annotations

import pytest

from palconf import paths
from palconf.authoring.lint import lint_cases
from palconf.cases.loader import load_cases
from palconf.cli import main
from palconf.registry import load as load_registry


def test_corpus_lints_clean() -> None:
    registry = load_registry()
    cases = load_cases(paths.CASES, registry)
    problems = lint_cases(cases, registry, paths.CASES)
    assert not problems, "\n".join(map(str, problems))


def test_coverage_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["coverage"])
    out = capsys.readouterr().out
    assert code == 0, out


def test_lint_finds_a_wrong_folder_and_a_vague_title(tmp_path: pytest.TempPathFactory) -> None:
    from .test_loader import GOOD, write

    write(
        tmp_path,
        GOOD.replace(
            'title = "Brave 200 attacker has 3200 power after declaring"',
            'title = "Brave should work correctly here"',
        ),
        folder="taunt",
    )
    registry = load_registry()
    problems = [str(p) for p in lint_cases(load_cases(tmp_path, registry), registry, tmp_path)]
    assert any("belongs in cases/brave/" in p for p in problems)
    assert any("not a plain statement of fact" in p for p in problems)


def test_every_case_is_blessed_against_the_current_rules(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each case records the hash of the text of every clause it cites (palconf rules bless)."""
    code = main(["rules", "status", "--strict"])
    assert code == 0, capsys.readouterr().out
