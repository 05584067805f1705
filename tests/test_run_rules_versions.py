"""`palconf run` under rules versions, end to end (issue 32's "done when"): the version is
`--rules`, else the one the engine's `hello` declares, else the registry's current one; the
results file and the report say the version whose cases and oracle were used; cases that do
not hold for it as they stand are skipped with the reason, never run and counted."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from palconf import paths
from palconf.cli import main
from palconf.registry import load as load_registry

from .made_up_rules import make_rules_101

ROOT = Path(__file__).resolve().parent.parent


def _engine(tmp_path: Path, declares: str | None) -> str:
    """The 1.00 oracle as an engine process that declares `declares` in its hello (None: no
    `rules` field at all)."""
    path = tmp_path / f"engine-{declares}.py"
    path.write_text(
        textwrap.dedent(f"""\
            import sys
            sys.path.insert(0, {str(ROOT)!r})
            from palconf.commands.serve import serve
            from palconf.oracle import Rules, Session

            class Declaring(Session):
                def hello(self):
                    reply = super().hello()
                    reply.pop("rules")
                    if {declares!r} is not None:
                        reply["rules"] = {declares!r}
                    return reply

            serve(Declaring(Rules, name="engine-100"), sys.stdin, sys.stdout)
            """),
        encoding="utf-8",
    )
    return f"{sys.executable} {path}"


def _meta(path: Path) -> dict[str, Any]:
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return dict(first["meta"])


def _rows(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if "meta" not in r]


@pytest.fixture
def editorial_101(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A 1.01 that rewords Stealth only (reviewed: editorial), current."""
    rules = make_rules_101(tmp_path / "e", editorial=True)
    monkeypatch.setattr(paths, "RULES", rules)
    monkeypatch.setenv("PALCONF_RULES", str(rules))
    load_registry.cache_clear()
    yield rules
    load_registry.cache_clear()


@pytest.fixture
def behaviour_101(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """tests/made_up_rules.py's 1.01 (Brave halved, taunt.3 merged, Flying), current."""
    rules = make_rules_101(tmp_path / "b")
    monkeypatch.setattr(paths, "RULES", rules)
    monkeypatch.setenv("PALCONF_RULES", str(rules))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    load_registry.cache_clear()
    yield rules
    load_registry.cache_clear()


def test_an_engine_that_declares_nothing_is_tested_against_the_current_version(
    editorial_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results)]
    assert main([*argv, "--engine-cmd", _engine(tmp_path, None), "-k", "stealth"]) == 0
    out = capsys.readouterr().out
    last = out.rstrip().splitlines()[-1]  # (`-k stealth`: a partial run, and it says so)
    assert "of rules 1.01 against engine-100" in out and "(rules 1.01) · partial: " in last
    assert last.endswith(", by --keyword stealth")
    assert _meta(results)["rules_version"] == "1.01"
    rows = _rows(results)
    assert rows and all(r["outcome"] == "pass" for r in rows)


def test_an_engine_that_declares_100_is_tested_against_100_and_says_so(
    editorial_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results), "-k", "stealth"]
    assert main([*argv, "--engine-cmd", _engine(tmp_path, "1.00")]) == 0
    assert "(rules 1.00)" in capsys.readouterr().out
    assert _meta(results)["rules_version"] == "1.00"
    # --rules wins over what the engine declares
    assert main([*argv, "--engine-cmd", _engine(tmp_path, "1.00"), "--rules", "1.01"]) == 0
    assert _meta(results)["rules_version"] == "1.01"


def test_a_declared_version_palconf_does_not_carry_is_refused(
    editorial_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["run", "--progress", "none", "-k", "stealth"]
    assert main([*argv, "--engine-cmd", _engine(tmp_path, "9.9")]) == 2
    err = capsys.readouterr().err
    assert "the engine's hello names rules version '9.9'" in err and "1.00, 1.01" in err
    assert main([*argv, "--rules", "0.5"]) == 2
    assert "--rules names rules version '0.5'" in capsys.readouterr().err


def test_a_report_of_a_100_results_file_says_100_whatever_is_current(
    editorial_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results), "-k", "stealth"]
    assert main([*argv, "--rules", "1.00"]) == 0
    assert load_registry().current == "1.01"
    out = tmp_path / "report"
    assert main(["report", str(results), "--out", str(out)]) == 0
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["rules_version"] == "1.00" and data["engines"][0]["rules_version"] == "1.00"
    header = (out / "report.md").read_text(encoding="utf-8").split("\n\n")[1]
    assert "rules version 1.00 ·" in header and "1.01" not in header
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="rules.version" value="1.00" />' in junit and "1.01" not in junit


def test_under_a_behaviour_change_unreviewed_cases_are_skipped_not_run(
    behaviour_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results), "-k", "brave", "-k", "taunt"]
    main(argv)  # (Brave cases that do not cite Brave fail on 1.01's oracle: rules status)
    rows = {r["id"]: r for r in _rows(results)}
    meta = _meta(results)
    assert meta["rules_version"] == "1.01" and meta["rules_unfit"] > 0
    skipped = [r for r in rows.values() if r["outcome"] == "skip"]
    assert len(skipped) == meta["rules_unfit"]
    brave = [r for r in skipped if "brave.1 substantive in 1.01" in r["message"]]
    assert brave and all(r["message"].startswith("not for rules 1.01") for r in brave)
    merged = [r for r in skipped if "taunt.3 merged into taunt.2 (pending) in 1.01" in r["message"]]
    assert merged
    assert not any(r["outcome"] == "pass" and "brave" in r["keywords"] for r in rows.values())
    # the same cases against 1.00, in the same checkout: all run, all pass, stamped 1.00
    assert main([*argv, "--rules", "1.00"]) == 0
    assert _meta(results)["rules_version"] == "1.00"
    again = _rows(results)
    assert {r["id"] for r in again} == set(rows)
    assert all(r["outcome"] == "pass" for r in again)
    assert "(rules 1.00)" in capsys.readouterr().out


def test_a_case_carried_over_from_another_review_must_pass_on_the_versions_oracle(
    behaviour_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Cases that put a Brave card on the board but cite no Brave clause stand valid for
    1.01 by their 1.00 review; 1.01's oracle halves Brave, so their expectations fail there:
    they are skipped, with the reason, not counted for 1.01. Under 1.00 they run and pass."""
    carried = [
        "interrupt-brave-increase-stays-attacker-stays-rested",
        "protocol-observed-brave-attacker-dies-shows-printed-power",
        "protocol-observed-power-is-current-power",
    ]
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results)]
    argv += [x for cid in carried for x in ("--case", cid)]
    assert main([*argv, "--rules", "1.01"]) == 0
    rows = {r["id"]: r for r in _rows(results)}
    assert sorted(rows) == sorted(carried)
    for cid in carried:
        assert "brave" not in " ".join(rows[cid]["clauses"])
        assert rows[cid]["outcome"] == "skip", rows[cid]
        assert "expectations fail on the oracle of rules 1.01" in rows[cid]["message"]
    assert main([*argv, "--rules", "1.01", "--strict"]) == 1
    assert main([*argv, "--rules", "1.00"]) == 0
    assert {r["outcome"] for r in _rows(results)} == {"pass"}


def test_a_keyword_of_a_later_version_is_an_unknown_word_under_an_earlier_one(
    behaviour_101: Path, tmp_path: Path
) -> None:
    """1.01 adds Flying; under 1.00 "Flying" is no keyword, so the 1.00 cases that check an
    engine refuses it as unsupported run against a 1.00 engine (not skipped as needing
    Flying), and pass."""
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results), "--rules", "1.00"]
    argv += ["--case", "protocol-state-unsupported-keyword-name"]
    argv += ["--case", "protocol-state-unsupported-setup-keeps-game"]
    assert main(argv) == 0
    rows = _rows(results)
    assert len(rows) == 2 and {r["outcome"] for r in rows} == {"pass"}, rows


def test_results_of_two_rules_versions_never_share_a_file(
    editorial_101: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "r.jsonl"
    argv = ["run", "--progress", "none", "--results", str(results), "-k", "stealth"]
    assert main([*argv, "--rules", "1.00"]) == 0
    capsys.readouterr()
    for more in ([], ["--resume-other-engine"]):
        assert main([*argv, "--rules", "1.01", "--resume", *more]) == 2
        err = capsys.readouterr().err
        assert "judged against rules 1.00, this run's are 1.01" in err
        assert "never share a file" in err
    assert _meta(results)["rules_version"] == "1.00"
