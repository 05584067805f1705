"""Versions: `run --engine-version` / `--label` in the meta line, and the order of an engine's
runs (by PEP 440 or SemVer version where they compare, else by date; the page says which)."""

from __future__ import annotations

import json
from pathlib import Path

from palconf.cases.loader import Case
from palconf.cli import main as cli
from palconf.core.results_file import meta_line, read_results
from palconf.reports.versions import BY_DATE, BY_PEP440, BY_SEMVER, order_runs, semver_key

from .harness import run_cli

pytest_plugins = ["tests.harness_fixtures"]


def order(*runs: tuple[str, str]) -> tuple[list[str], str, str]:
    """(version, date) pairs → the versions in order, how, why."""
    got = order_runs(list(runs), lambda r: r[0], lambda r: r[1], lambda r: r[0])
    return [v for v, _ in got.runs], got.how, got.why


def test_versions_order_by_pep440_then_semver_else_by_date() -> None:
    # 1.0 run after 1.1 (a later date) is still the older version
    assert order(("1.1", "2026-01"), ("1.0", "2026-02")) == (["1.0", "1.1"], BY_PEP440, "")
    assert order(("1.10", "1"), ("1.9", "2"), ("1.10rc1", "3"))[0] == ["1.9", "1.10rc1", "1.10"]
    # SemVer that PEP 440 cannot read: numbers compare as numbers, words after numbers
    assert order(("1.0.0-x.10", "1"), ("1.0.0-x.9", "2"), ("1.0.0", "0"))[:2] == (
        ["1.0.0-x.9", "1.0.0-x.10", "1.0.0"],
        BY_SEMVER,
    )
    assert semver_key("1.0.0-alpha") < semver_key("1.0.0-alpha.1") < semver_key("1.0.0")  # type: ignore[operator]
    # one version that compares with nothing: every run by date, and why
    versions, how, why = order(("2.0", "2026-02"), ("nightly", "2026-01"))
    assert (versions, how) == (["nightly", "2.0"], BY_DATE)
    assert "'nightly' is neither PEP 440 nor SemVer" in why
    assert order(("", "2"), ("1.0", "1"))[1:] == (BY_DATE, "some runs have no version")


def test_run_records_engine_version_and_label(
    small: tuple[Path, list[Case]], tmp_path: Path
) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    argv = ["--case", cases[0].id, "--engine-version", "7.1", "--label", "nightly build"]
    assert run_cli(folder, None, results, *argv) == 0
    meta = read_results(results).meta
    assert meta is not None
    assert meta["engine"]["version"] == "7.1" and meta["label"] == "nightly build"
    assert meta["engine"]["hello_version"] != "7.1"  # what hello said is kept beside it
    # a resumed run of the same engine, named the same way, goes on
    assert run_cli(folder, None, results, "--resume", "--engine-version", "7.1") == 0
    assert len(read_results(results).results) == len(cases)


def test_the_site_orders_runs_by_version_and_says_so(
    small: tuple[Path, list[Case]], tmp_path: Path
) -> None:
    folder, cases = small
    first = tmp_path / "first.jsonl"
    assert run_cli(folder, None, first) == 0
    lines = first.read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])["meta"]
    runs = tmp_path / "runs"
    runs.mkdir()
    # 1.1 was run first, 1.0 after it, and 1.0 fails a case 1.1 passes
    for version, date in (("1.1", "2026-01-01T00:00:00Z"), ("1.0", "2026-02-01T00:00:00Z")):
        m = {**meta, "engine": {**meta["engine"], "name": "eng", "version": version}, "date": date}
        body = [json.loads(line) for line in lines[1:]]
        if version == "1.0":
            body[0] = {**body[0], "outcome": "fail", "message": "wrong"}
        text = meta_line(m) + "".join(json.dumps(b) + "\n" for b in body)
        (runs / f"{version}.jsonl").write_text(text, encoding="utf-8")
    out = tmp_path / "site"
    assert cli(["site", str(runs), "--out", str(out)]) == 0
    page = (out / "engines" / "eng.html").read_text(encoding="utf-8")
    assert "Runs ordered by version (PEP 440)." in page
    assert "1.0 → 1.1" in page and "1.1 → 1.0" not in page
    assert "Fixed: failed before, pass now" in page and "Regressed" not in page
