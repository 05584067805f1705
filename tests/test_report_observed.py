"""Reports never crash on what an engine said (issue 36, docs/broken-input.md class 12).

An engine's OBSERVED may break P-observed (an id in a zone but not in `cards`, a card in two
zones, swapped owners, an empty `cards` …) and a results file may hold any JSON in a diff,
or come from another suite version that puts a case in other groups. `run --report`,
`report`, `site` and the action must report all of it (exit 0 or 1, never palconf's own
crash, exit 3): the boards draw what has P-observed's shape (`reports.boards.fits`), mark the
rest and list it. Engines: tests/engines/observed_breaker.py (12 ways to break P-observed),
in-process and as processes; hand-made diffs; Hypothesis (random values, paths, results).
"""

from __future__ import annotations

import json
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from palconf import paths
from palconf.cases.loader import Case, load_cases
from palconf.cli import main as cli
from palconf.core import MISSING, Diff, Outcome, Result
from palconf.core.results_file import meta_line, parse_lines, read_results, run_meta
from palconf.engines.oracle_engine import OracleEngine
from palconf.registry import load as load_registry
from palconf.reports import build, write_report
from palconf.reports.boards import board, board_pair, fits
from palconf.reports.compare import compare, render_text
from palconf.reports.compare import render_markdown as compare_markdown
from palconf.reports.html import render_html
from palconf.reports.render import environment
from palconf.reports.site import site_pages

from .engines.observed_breaker import BREAKS
from .test_action import ci
from .test_reports import run_to_file

ENGINE = Path(__file__).resolve().parent / "engines" / "observed_breaker.py"
TAUNT = paths.CASES / "taunt"
SCRIPT = '<script>alert("x")</script>'
#: The one break whose every value has P-observed's shape (each is drawn in its place); the
#: others' diffs name a zone list with an id, not a list: listed beside the board.
ALL_DRAWN = "fields-wrong"


@pytest.fixture(scope="module")
def registry() -> Any:
    return load_registry()


@pytest.fixture(scope="module")
def suite(registry: Any) -> dict[str, Case]:
    return {c.id: c for c in load_cases(paths.CASES, registry)}


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory, registry: Any) -> Path:
    """A folder with the results of each breaking engine on the Taunt cases."""
    folder = tmp_path_factory.mktemp("broken") / "results"
    folder.mkdir()
    cases = load_cases(TAUNT, registry)
    for name, rules in BREAKS.items():
        run_to_file(
            OracleEngine(rules=rules, name=f"breaks-{name}"), cases, folder / f"{name}.jsonl"
        )
    return folder


@pytest.mark.parametrize("name", list(BREAKS))
def test_report_draws_the_boards_of_an_engine_that_breaks_p_observed(
    name: str, broken: Path, suite: dict[str, Case], registry: Any, tmp_path: Path
) -> None:
    run = read_results(broken / f"{name}.jsonl")
    failed = [r for r in run.results if r.failed]
    assert failed and all(r.outcome is Outcome.FAIL for r in failed), name
    report = build([run], registry, suite=suite)
    pairs = [c.boards[k] for c in report.cases.values() for k in c.boards]
    assert len(pairs) == len(failed)
    says = {d.path: d.observed for r in failed for d in r.diffs}
    assert any(p.broken for p in pairs) == any(fits(k, v) is False for k, v in says.items())
    assert any(p.broken for p in pairs) == (name != ALL_DRAWN)
    html = render_html(report)
    assert html.count('<div class="bpair">') >= len(failed)
    if name != ALL_DRAWN:
        assert "This OBSERVED breaks P-observed" in html
    out = tmp_path / "report"
    assert cli(["report", str(broken / f"{name}.jsonl"), "--out", str(out)]) == 0
    assert (out / "junit.xml").is_file() and (out / "report.md").is_file()


def test_site_of_engines_that_break_p_observed(broken: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert cli(["site", str(broken), "--out", str(out)]) == 0
    assert len(list((out / "engines").glob("*.html"))) == len(BREAKS)
    assert "This OBSERVED breaks P-observed" in "".join(
        p.read_text(encoding="utf-8") for p in (out / "cases").glob("*.html")
    )


@pytest.mark.parametrize("name", list(BREAKS))
def test_run_report_of_an_engine_process_that_breaks_p_observed(name: str, tmp_path: Path) -> None:
    results, out = tmp_path / "r.jsonl", tmp_path / "report"
    engine = f"{sys.executable} {ENGINE} {name}"
    argv = ["run", "--engine-cmd", engine, "--cases", str(TAUNT), "--results", str(results)]
    assert cli([*argv, "--report", str(out), "--progress", "none"]) == 1
    assert '<div class="bpair">' in (out / "index.html").read_text(encoding="utf-8")
    assert (out / "junit.xml").is_file()


def test_the_action_reports_an_engine_that_breaks_p_observed(tmp_path: Path) -> None:
    proc, summary, _ = ci(tmp_path, "--engine-cmd", f"{sys.executable} {ENGINE} everything")
    assert proc.returncode == 1, proc.stderr
    assert "could not run" not in summary.read_text(encoding="utf-8") + proc.stderr
    assert (tmp_path / "palconf-results" / "junit.xml").is_file()


# ---------------------------------------------------------------- hand-made diffs

NESTED: Any = "deep"
for depth in range(90):  # deep, within the results reader's limit of 100
    NESTED = [NESTED] if depth % 2 else {"k": NESTED}

#: (path, observed) of failing results, whatever their case says: each alone on a board.
HOSTILE: list[tuple[str, Any]] = [
    ("players.A.hand", "zz9"),  # an id, not a list (P-observed's own diffs)
    ("players.A.battle", "a1"),
    ("players.A.structures", "a1"),
    ("players.A.hand", MISSING),  # "lists a1": the list left out
    ("players.A.hand", ["zz9", "zz9"]),
    ("players.A.hand", [{"id": "a1"}]),
    ("players.A.hand", [["a1"]]),
    ("players.A.hand", [1, None, True, 2.5]),
    ("players.A.hand", [SCRIPT]),
    ("players.A.hand", ["x"] * 500),
    ("players.A.structures", ["s1"]),
    ("players.A.structures", {"s1": [{}]}),
    ("players.A.structures", {"s1": "a1"}),
    ("players.A.structures", {SCRIPT: [SCRIPT]}),
    ("players.A.structures.a1", ["b1"]),  # a structure's Pals (drawn)
    ("players.A.structures.a1", MISSING),
    ("players.A.structures.a1", "b1"),
    ("players.A.structures.a1.x", 1),
    ("players.A.life", "5"),
    ("players.A.life", None),
    ("players.A.life", SCRIPT),
    ("players.A.energy", [1]),
    ("players.A", None),
    ("players.A", []),
    ("players.A", {"hand": "a1", "battle": {"a1": 1}}),
    ("players.C", {"hand": ["q"], "life": "x"}),
    ("players.C", [1]),
    ("players.A.deck", ["a1"]),  # an unknown zone
    ("players", None),
    ("players", {"A": 1, "B": "x"}),
    ("cards", {}),
    ("cards", [1, 2]),
    ("cards", None),
    ("cards.a1", None),
    ("cards.a1", MISSING),
    ("cards.a1", {"zone": 1, "owner": None, "state": ["x"], "power": "3000"}),
    ("cards.a1.owner", "B"),  # swapped
    ("cards.a1.power", "3000"),
    ("cards.a1.power", 3.5),
    ("cards.a1.power", True),
    ("cards.a1.state", {"x": SCRIPT}),
    ("cards.a1.zone", "deck"),
    ("cards.zz9", {"zone": "hand", "owner": "A", "state": None, "power": 1, "strike": 1}),
    ("cards.a.b.c", 1),
    ("attack", {"attacker": [1], "target": {"x": 1}, "blocked": SCRIPT}),
    ("attack", "a1"),
    ("attack.attacker", 5),
    ("turn", "3"),
    ("night", "yes"),
    ("step", None),
    ("priority", ["A"]),
    ("winner", {"who": SCRIPT}),
    ("active", 1),
    ("(state)", NESTED),
    ("players.A.hand", NESTED),
    ("", None),
    ("...", 1),
    (SCRIPT, SCRIPT),
]


@pytest.mark.parametrize(("path", "value"), HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_any_value_at_any_path_is_reported(
    path: str, value: Any, suite: dict[str, Case], registry: Any, tmp_path: Path
) -> None:
    case = suite["ix-brave-taunt-attacked-taunt-pal-gets-no-brave"]
    result = Result(case.id, Outcome.FAIL, case.keywords, step=0, diffs=(Diff(path, 1, value),))
    lines = [meta_line(run_meta("e", "1", [], "1.00", 1)), json.dumps(result.to_json())]
    run = parse_lines(lines, "x.jsonl")
    report = build([run], registry, suite=suite)
    (pair,) = report.cases[case.id].boards.values()
    shape = fits(path, value)
    assert bool(pair.broken) == (shape is False)  # marked, and listed beside the board
    assert (path in pair.undrawn) == (shape is None or (shape and path.startswith("attack.")))
    write_report(report, tmp_path / "report")
    pages = site_pages([run], registry, suite=suite)
    for text in [render_html(report), *pages.values()]:
        assert "<script>" not in text


def test_a_zone_list_that_is_an_id_is_marked_not_drawn(
    suite: dict[str, Case], registry: Any
) -> None:
    """P-observed's own diff (`players.A.battle`: "a1 listed once", observed "a1") keeps the
    oracle's list on the board, marks the zone, and lists the diff beside the board."""
    case = suite["ix-brave-taunt-attacked-taunt-pal-gets-no-brave"]
    diff = Diff("players.A.battle", "a1 listed once", "a1")
    pair = board_pair(case, Result(case.id, Outcome.FAIL, case.keywords, step=0, diffs=(diff,)))
    assert pair is not None
    assert pair.broken == ['players.A.battle: expected "a1 listed once", observed "a1"']
    obs = pair.observed.players[0]
    assert [c.id for c in obs.zones["battle"]] == ["a1"] and "battle" in obs.marked


# ---------------------------------------------------------------- two suite versions

#: A case's groups in an older and a newer run of one engine (keywords, rules).
SPLITS: list[tuple[tuple[list[str], list[str]], tuple[list[str], list[str]]]] = [
    ((["oldkw"], []), (["taunt"], [])),  # a keyword the newer suite dropped
    ((["taunt"], []), (["newkw"], [])),
    ((["taunt"], []), (["brave"], [])),
    ((["taunt"], []), ([], [])),  # base in the newer
    (([], []), (["oldkw", "taunt"], [])),
    (([], ["P-observed"]), ([], [])),  # protocol in the older only
    ((["oldkw"], ["P-legal"]), (["taunt"], ["B-1"])),
    ((["base"], []), (["protocol"], [])),
]


def _runs_of(folder: Path, groups: list[tuple[list[str], list[str]]]) -> list[Path]:
    folder.mkdir()
    out = []
    for n, (kws, rules) in enumerate(groups):
        meta = run_meta("eng", f"{n + 1}.0", [], "1.00", 2, date=f"2026-0{n + 1}-01T00:00:00Z")
        lines = [meta_line(meta).strip()]
        for rid, outcome in (("taunt-x", "fail"), ("base-y", "pass")):
            obj = {"id": rid, "keywords": kws, "clauses": [f"{k}.1" for k in kws]}
            lines.append(json.dumps({**obj, "rules": rules, "outcome": outcome, "message": "m"}))
        (path := folder / f"{n}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        out.append(path)
    return out


@pytest.mark.parametrize("split", SPLITS)
def test_runs_of_two_suite_versions_are_reported(split: Any, tmp_path: Path, registry: Any) -> None:
    files = _runs_of(tmp_path / "results", [*split, split[0]])  # and back again
    assert cli(["report", *map(str, files), "--out", str(tmp_path / "report")]) == 0
    assert cli(["site", str(tmp_path / "results"), "--out", str(tmp_path / "site")]) == 0
    report = build([read_results(f) for f in files], registry)
    for e, path in zip(report.engines, files, strict=True):
        for r in read_results(path).results:  # counted under each group its run names
            assert set(r.groups) <= set(report.cases[r.id].groups)
            assert all(e.keywords[g].all.total == len(e.results) for g in r.groups)


# ---------------------------------------------------------------- Hypothesis

SEGMENTS = ["players", "cards", "A", "B", "C", "hand", "battle", "structures", "graveyard"]
SEGMENTS += ["life", "energy", "a1", "b1", "zz9", "attack", "attacker", "target", "blocked"]
SEGMENTS += ["turn", "night", "step", "priority", "winner", "active", "power", "strike"]
SEGMENTS += ["state", "zone", "owner", SCRIPT, ""]
PATHS = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map(".".join) | st.text()
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
    | st.sampled_from(["a1", "b1", "zz9", "A", "B", SCRIPT, "rest", "battle"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)
BOARD_CASES = [
    "ix-brave-taunt-attacked-taunt-pal-gets-no-brave",
    "ix-brave-taunt-forced-onto-taunt-pal-brave-wins-by-50",
]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cid=st.sampled_from(BOARD_CASES),
    step=st.integers(-2, 12) | st.none(),
    diffs=st.lists(st.tuples(PATHS, VALUES | st.just(MISSING), VALUES), max_size=6),
)
def test_random_engine_values_are_drawn_escaped_and_never_raise(
    suite: dict[str, Case], cid: str, step: int | None, diffs: list[tuple[str, Any, Any]]
) -> None:
    case = suite[cid]
    ds = tuple(Diff(p, e, o) for p, o, e in diffs)
    pair = board_pair(case, Result(cid, Outcome.FAIL, case.keywords, step=step, diffs=ds))
    assert pair is not None
    html = str(environment().get_template("boards.j2").module.board_pair(pair))  # type: ignore[attr-defined]
    assert "<script" not in html


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(obs=st.dictionaries(st.sampled_from(SEGMENTS), VALUES, max_size=8))
def test_board_draws_any_observed(suite: dict[str, Case], obs: dict[str, Any]) -> None:
    from palconf.oracle import Rules

    rules = Rules.from_state(suite[BOARD_CASES[0]].setup)
    drawn = board("b", obs, rules, list(obs))
    html = str(environment().get_template("boards.j2").module.board(drawn, "obs"))  # type: ignore[attr-defined]
    assert "<script" not in html


RESULT = st.fixed_dictionaries(
    {
        "id": st.sampled_from([*BOARD_CASES, "taunt-x", SCRIPT]),
        "outcome": st.sampled_from(["pass", "fail", "error", "timeout", "skip", "xfail", "xpass"]),
        "keywords": st.lists(
            st.sampled_from(["taunt", "brave", "oldkw", "base", "protocol", SCRIPT])
        ),
        "rules": st.lists(st.sampled_from(["P-observed", "B-1", "P-zz", SCRIPT]), max_size=2),
        "clauses": st.lists(
            st.sampled_from(["taunt.1", "taunt.99", "oldkw.1", SCRIPT]), max_size=2
        ),
        "message": st.text(max_size=20),
        "step": st.none() | st.integers(-3, 20),
        "diffs": st.lists(
            st.fixed_dictionaries(
                {"path": PATHS}, optional={"expected": VALUES, "observed": VALUES}
            ),
            max_size=4,
        ),
    }
)


RUN = st.tuples(
    st.sampled_from(["eng", "other", SCRIPT]),  # the engine
    st.sampled_from(["1.00", "0.9", SCRIPT]),  # its rules version: another suite's too
    st.lists(RESULT, min_size=1, max_size=4),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(files=st.lists(RUN, min_size=1, max_size=3))
def test_random_results_files_are_reported(
    suite: dict[str, Case], registry: Any, files: list[tuple[str, str, list[dict[str, Any]]]]
) -> None:
    runs = []
    for n, (name, rules, results) in enumerate(files):
        meta = run_meta(name, f"{n}.0", [], rules, len(results), date=f"2026-01-0{n + 1}T00:00Z")
        lines = [meta_line(meta), *(json.dumps(r) for r in results)]
        runs.append(parse_lines(lines, f"{n}.jsonl", mixed_ok=True))
    report = build(runs, registry, suite=suite)
    with tempfile.TemporaryDirectory() as tmp:
        write_report(report, Path(tmp))
        ET.parse(Path(tmp) / "junit.xml")
        html = (Path(tmp) / "index.html").read_text(encoding="utf-8")
    pages = site_pages(runs, registry, suite=suite)
    for text in [html, *(t for name, t in pages.items() if name.endswith(".html"))]:
        assert "<script>" not in text
    for old, new in zip(runs, runs[1:], strict=False):
        compared = compare(old, new)
        assert "<script>" not in compare_markdown(compared)
        render_text(compared)
