"""The shipped corpus itself: it lints clean and covers every clause and keyword pair."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from palconf import paths
from palconf.authoring.lint import lint_cases
from palconf.cases.loader import load_cases
from palconf.cases.open_reasons import OPEN_REASONS_RULING
from palconf.cli import main
from palconf.registry import RegistryError
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


def test_lint_holds_a_list_of_reasons_to_its_ruling_and_the_order(tmp_path: Path) -> None:
    """A list of reasons (docs/case-format.md) cites the ruling that leaves the reason open,
    and still holds the oracle's first reason where several rules are broken."""
    name = "protocol-reasons-end-turn-player-c-during-an-attack.toml"
    text = (paths.CASES / "protocol" / name).read_text(encoding="utf-8")
    assert 'refused = ["invalid-action", "wrong-timing"]' in text
    registry = load_registry()

    def lint(variant: str) -> list[str]:
        folder = tmp_path / str(len(list(tmp_path.iterdir()))) / "protocol"
        folder.mkdir(parents=True)
        (folder / name).write_text(variant, encoding="utf-8")
        cases = load_cases(folder.parent, registry)
        return [str(p) for p in lint_cases(cases, registry, folder.parent)]

    assert lint(text) == []
    unruled = lint(text.replace('interpretations = ["I-25"]\n', ""))
    assert any("cite the interpretation" in p for p in unruled), unruled
    # I-20's single reason, where the protocol leaves two open: lint asks for the list
    single = lint(text.replace('["invalid-action", "wrong-timing"]', '"invalid-action"'))
    assert any(
        "leaves the reason open here ('invalid-action' or 'wrong-timing')" in p for p in single
    )
    # a list where the reason is not open
    plain = text.replace('player = "C"', 'player = "A"')
    assert "leaves the reason open" not in " ".join(lint(plain))
    assert any("only 'wrong-timing' is right here" in p for p in lint(plain)), lint(plain)
    # a list without the oracle's own reason: the case fails on the oracle
    without = lint(
        text.replace('["invalid-action", "wrong-timing"]', '["wrong-timing", "wrong-player"]')
    )
    assert any("does not pass on the oracle" in p for p in without), without


def test_a_retired_ruling_is_out_of_coverage_and_names_its_successor() -> None:
    registry = load_registry()
    assert registry.retired == {"I-20": "I-25"}
    assert "retired_by" not in registry.interpretations["I-25"]
    # the ruling the oracle's open reasons (and exported cases) cite is in force
    assert OPEN_REASONS_RULING in registry.interpretations
    assert OPEN_REASONS_RULING not in registry.retired
    # a ruling no case can test says why, and coverage asks for no case of it
    assert set(registry.caseless) == {"I-27"}
    assert "cannot accept both" in registry.caseless["I-27"]


def test_a_retired_ruling_must_name_one_in_force(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(paths.RULES, rules)
    source = (rules / "registry.toml").read_text(encoding="utf-8")
    for wrong in ("I-999", "I-20"):
        (rules / "registry.toml").write_text(
            source.replace('retired_by = "I-25"', f'retired_by = "{wrong}"'), encoding="utf-8"
        )
        with pytest.raises(
            RegistryError, match=f"interpretations.I-20.retired_by: names '{wrong}'"
        ):
            load_registry(rules / "registry.toml")
