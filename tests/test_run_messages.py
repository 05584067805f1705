"""What `palconf run` says when an engine fails (issue 35): where the failures are, counted
once over everything a case cites and leans on (`palconf.core.causes`) for the terminal,
`summary`, the report's cards and the site; failures and skips grouped by what they share;
the small messages of a run (the table's rows, singular and plural, `Next:`, an all-expected
run)."""

from __future__ import annotations

import json
import shlex
from collections import Counter
from pathlib import Path

import pytest

from palconf.cases.loader import Case
from palconf.cli import main
from palconf.core import Outcome, Result
from palconf.core.causes import shared_cause
from palconf.mutants import get
from palconf.mutants.sweep import in_process
from palconf.registry import load as load_registry
from palconf.running.summary import skip_reasons, where_line
from palconf.running.supervisor import run_cases

from .harness import ENGINES, PY, SERVE, read_results

pytest_plugins = ["tests.harness_fixtures"]

TOY = f"{PY} {shlex.quote(str(ENGINES / 'fake.py'))} unknown-act"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    status = main(["run", "--progress", "none", *argv])
    return status, capsys.readouterr().out.splitlines()


def mutant_results(name: str, cases: list[Case]) -> list[Result]:
    with in_process(get(name)) as engine:
        return list(run_cases(engine, cases))


# ---------------------------------------------------------------- where the failures are

#: Base-rule mutants whose every failure leans on their rule while few test one keyword
#: (issue 35: "a tie that kills nobody is reported as 11 of the 43 failures cite Brave").
BASE_MUTANTS = ["tie-attacker-dies", "tie-defender-dies", "tie-nobody-dies", "blocker-not-rested"]


@pytest.mark.parametrize("name", BASE_MUTANTS)
def test_where_names_the_base_rule_a_base_rule_mutant_breaks(
    name: str, all_cases: list[Case]
) -> None:
    rule = get(name).clause
    assert rule.startswith("B-")
    results = mutant_results(name, all_cases)
    failed = [r for r in results if r.failed]
    assert failed
    citing = sum(rule in r.rules for r in failed)
    # what the mutant breaks is what the most failures cite, though no keyword has most
    keywords = Counter(k for r in failed for k in r.keywords)
    assert 2 * max(keywords.values()) <= len(failed)
    line = where_line(results, load_registry())
    assert line is not None
    n = len(failed)
    said = f"all {n} failures" if citing == n else f"{citing} of the {n} failures"
    assert line == f"where: {said} cite {rule}"


@pytest.mark.slow
def test_every_base_rule_mutant_whose_rule_most_failures_cite_is_named(
    all_cases: list[Case],
) -> None:
    """Over all the base-rule mutants with ten failures or more: where their rule is cited
    by more of the failures than anything else, and neither a keyword nor a protocol rule
    (what the cases test) is cited by most of them, `where:` names that rule."""
    from palconf.mutants import load_all

    registry = load_registry()
    checked = 0
    for m in load_all().values():
        if not m.clause.startswith("B-"):
            continue
        results = mutant_results(m.name, all_cases)
        failed = [r for r in results if r.failed]
        if len(failed) < 10:
            continue
        cited = Counter(x for r in failed for x in {*r.keywords, *r.rules, *r.interpretations})
        tested = [n for k, n in cited.items() if k in registry.keywords or k.startswith("P-")]
        (top, most), (_, second) = cited.most_common(2)
        if (tested and 2 * max(tested) > len(failed)) or top != m.clause or second == most:
            continue
        checked += 1
        line = where_line(results, registry)
        assert line is not None and line.endswith(f"cite {m.clause}"), (m.name, line)
    assert checked >= 10


@pytest.mark.parametrize("name,keyword", [("brave-ignored", "Brave"), ("taunt-ignored", "Taunt")])
def test_where_still_names_the_keyword_a_keyword_mutant_breaks(
    name: str, keyword: str, all_cases: list[Case]
) -> None:
    line = where_line(mutant_results(name, all_cases), load_registry())
    clause = get(name).clause
    assert line is not None and f"cite {keyword}; " in line, line
    assert line.split("; ")[1].endswith(f"cite {clause}")


def test_where_speaks_of_one_failure_in_the_singular_and_names_both_keywords() -> None:
    one = Result(
        id="ix-brave-taunt",
        outcome=Outcome.FAIL,
        keywords=("brave", "taunt"),
        clauses=("brave.1", "taunt.2"),
        rules=("B-11", "B-15"),
    )
    line = where_line([one], load_registry())
    assert line == "where: the 1 failure cites Brave and Taunt"


def test_where_of_expected_failures_says_they_are_expected() -> None:
    results = [
        Result(id=f"c{i}", outcome=Outcome.XFAIL, keywords=("taunt",), clauses=("taunt.2",))
        for i in range(3)
    ]
    cause = shared_cause(results)
    assert cause is not None
    assert cause.words() == "all 3 expected failures cite taunt; 3 cite taunt.2"


def test_summary_and_the_report_card_count_where_as_run_does(
    all_cases: list[Case], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from palconf.core.results_file import meta_line, read_results, run_meta
    from palconf.reports.build import build

    results = mutant_results("tie-nobody-dies", all_cases)
    path = tmp_path / "tie.jsonl"
    lines = "".join(json.dumps(r.to_json()) + "\n" for r in results)
    path.write_text(meta_line(run_meta("tie", "1", [], "1.00", len(results))) + lines)
    registry = load_registry()
    line = where_line(results, registry)
    assert line is not None and line.endswith("cite B-15")
    assert main(["summary", str(path), "--color", "never"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert line in out
    assert out[out.index("failures by clause:") + 1].startswith("  B-15 (")
    report = build([read_results(path)], registry)
    cause = shared_cause(results)
    assert cause is not None
    assert report.engines[0].concentration(report.keyword_names) == [("B-15", cause.count)]


# ---------------------------------------------------------------- grouped failures and skips


def test_a_toy_engine_answering_every_act_with_an_error_prints_one_group(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "r.jsonl"
    status, out = run(capsys, "-k", "brave", "--engine-cmd", TOY, "--results", str(results))
    assert status == 1
    errors = [r for r in read_results(results) if r["outcome"] == "error"]
    assert len(errors) > 50
    blocks = [line for line in out if line.startswith("ERROR ")]
    assert len(blocks) == 1, blocks[:3]
    heads = [line for line in out if "results alike" in line]
    assert heads == [
        f"{len(errors)} ERROR results alike (the same message): the first in full, "
        f"the others by id (-v shows each in full)"
    ]
    assert len(out) < 60
    status, out = run(capsys, "-k", "brave", "--engine-cmd", TOY, "-v")
    assert len([line for line in out if line.startswith("ERROR ")]) == len(errors)
    assert not any("results alike" in line for line in out)


def test_skip_reasons_are_grouped_with_a_count_per_reason() -> None:
    def skip(i: int, why: str) -> Result:
        return Result(id=f"c{i}", outcome=Outcome.SKIP, message=why)

    kws = ["brave", "taunt", "quick", "stealth", "assault", "serious"]
    results = [skip(i, f"engine does not implement: {kws[i % 6]}") for i in range(60)]
    results += [skip(60, "engine does not implement: brave, taunt")]
    results += [skip(100 + i, f"the {w} way is not offered") for i, w in enumerate("pqrstu")]
    results += [skip(200 + i, f"the p way is not offered at step {i}") for i in range(2)]
    assert skip_reasons(results, limit=3) == [
        "61 case(s): engine does not implement: brave (10); taunt (10); quick (10); 4 more",
        "2 case(s): the p way is not offered at step N",
        "1 case(s): the p way is not offered",
        "5 case(s) for 5 other reason(s): the q way is not offered (1), the r way is not "
        "offered (1), the s way is not offered (1) and 2 more",
    ]


# ---------------------------------------------------------------- the small messages


def test_a_one_case_run_prints_only_the_rows_with_cases(
    capsys: pytest.CaptureFixture[str], all_cases: list[Case]
) -> None:
    one = next(c for c in all_cases if c.keywords == ("taunt",))
    status, out = run(capsys, "--case", one.id)
    assert status == 0
    head = out.index(next(line for line in out if line.startswith("keyword ")))
    rows = out[head + 2 : out.index("all cases" + out[-2][len("all cases") :]) - 1]
    assert [r.split()[0] for r in rows] == ["taunt"]


def test_next_suggests_the_simplest_failing_case(
    capsys: pytest.CaptureFixture[str], all_cases: list[Case], tmp_path: Path
) -> None:
    mutant = f"{SERVE} --mutant brave-ignored"
    results = tmp_path / "r.jsonl"
    status, out = run(capsys, "-k", "brave", "--engine-cmd", mutant, "--results", str(results))
    assert status == 1
    failed = [r["id"] for r in read_results(results) if r["outcome"] == "fail"]
    by_id = {c.id: c for c in all_cases}

    def cost(cid: str) -> tuple[int, int]:
        c = by_id[cid]
        return len([k for k in c.keywords if k not in ("protocol", "base")]), len(c.steps)

    assert any(cost(f)[0] > 1 for f in failed), "the run has interaction failures too"
    nxt = next(line for line in out if line.startswith("Next: palconf explain "))
    chosen = nxt.split()[3]
    assert cost(chosen) == min(cost(f) for f in failed) and cost(chosen)[0] == 1


def test_an_all_expected_run_says_its_failures_were_expected(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mutant = f"{SERVE} --mutant tie-nobody-dies"
    listed = tmp_path / "x.toml"
    argv = ["-k", "serious", "--engine-cmd", mutant, "--expectations", str(listed)]
    run(capsys, *argv, "--update-expectations")
    status, out = run(capsys, *argv)
    assert status == 0
    where = next(line for line in out if line.startswith("palconf: where: "))
    assert " expected failure" in where
    assert out[-1].startswith("palconf: ok: ")
    assert "xfail: failures the expectations file expects" in out[-1]
