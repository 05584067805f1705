"""Compliance reports from real runs: the oracle, and a deliberately wrong engine.

The wrong engine is the oracle with rules broken on purpose (defined below), run in-process
over the project's cases, with a hostile name and hostile messages, so that the report must
count fails, errors and skips right, show a failing case's diff, and escape everything.
Expected figures are computed from the runner's own `Result`s, never written in by hand.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest
from markupsafe import escape

from palconf import paths
from palconf.cases.loader import Case, load_cases
from palconf.cli import main as cli
from palconf.core import MISSING, Diff, Outcome, Result
from palconf.core.results_file import ResultsError, meta_line, parse_lines, read_results, run_meta
from palconf.engines.oracle_engine import OracleEngine
from palconf.oracle import Rules
from palconf.oracle.keywords import KEYWORDS, Breakthrough, Nocturnal
from palconf.oracle.model import CardState, GameState, KeywordInstance
from palconf.oracle.rules import Refusal
from palconf.registry import load as load_registry
from palconf.reports import build, write_report
from palconf.reports.boards import board as _board
from palconf.reports.compare import compare, render_text
from palconf.reports.compare import render_markdown as compare_markdown
from palconf.reports.html import render_html
from palconf.reports.markdown import render_markdown
from palconf.reports.mutants import parse_mutants
from palconf.reports.render import md_escape, show_json
from palconf.running.supervisor import run_cases

# A name and a message an engine might send to break a report: HTML, Markdown table syntax,
# a code span, a link, an entity, a newline and a control character.
HOSTILE_NAME = 'evil<script>alert("name")</script> | engine'
HOSTILE_MESSAGE = (
    '<script>alert("msg")</script> | pipe `tick` *star* [link](http://x.test) '
    "&amp; @someone\nsecond line \x1b[31m"
)
PASSED = ("pass", "xpass")


# ---------------------------------------------------------------- the wrong engine


class ShortNocturnal(Nocturnal):
    """Misreads nocturnal.1: night adds 200, not 300 (wrong state → a diff)."""

    BONUS: ClassVar[int] = 200


class CrashingBreakthrough(Breakthrough):
    """Breaks on every Breakthrough trigger (an engine bug → `internal` → error)."""

    def after_battle(self, battle: Any, card: CardState, instance: KeywordInstance) -> list[Any]:
        if card.id == battle.attacker and battle.defender_pal in battle.dead:
            raise RuntimeError(HOSTILE_MESSAGE)
        return []


class WrongRules(Rules):
    """The oracle with Taunt inverted (a Taunt Pal repels attacks, with a hostile refusal
    message), Nocturnal short, Breakthrough crashing, and Vigilance not implemented."""

    keywords = {
        **{k: v for k, v in KEYWORDS.items() if k != "vigilance"},
        "nocturnal": ShortNocturnal(),
        "breakthrough": CrashingBreakthrough(),
    }

    def check_attack(self, g: GameState, a: Any) -> Iterator[Refusal]:
        target = g.cards.get(a.get("target"))
        if target is not None and target.has("taunt"):
            yield Refusal("illegal-target", HOSTILE_MESSAGE)
        yield from super().check_attack(g, a)


# ---------------------------------------------------------------- runs


def run_to_file(engine: OracleEngine, cases: list[Case], path: Path) -> list[Result]:
    """Run the cases on `engine` and write the results file as `palconf run` does: the meta
    line, then one line per result."""
    registry = load_registry()
    engine.start()
    results = list(run_cases(engine, cases))
    engine.close()
    with path.open("w", encoding="utf-8") as out:
        out.write(
            meta_line(
                run_meta(
                    engine.info.name,
                    engine.info.version,
                    engine.info.keywords,
                    registry.current,
                    len(cases),
                )
            )
        )
        for r in results:
            out.write(json.dumps(r.to_json(), sort_keys=True) + "\n")
    return results


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("runs")
    oracle_file, wrong_file = tmp / "oracle.jsonl", tmp / "wrong.jsonl"
    cases = load_cases(paths.CASES, load_registry())  # every case of the project
    oracle = run_to_file(OracleEngine(), cases, oracle_file)
    wrong = run_to_file(OracleEngine(rules=WrongRules, name=HOSTILE_NAME), cases, wrong_file)
    out = tmp / "report"
    report = build([read_results(oracle_file), read_results(wrong_file)], load_registry())
    write_report(report, out)
    return {
        "oracle": oracle,
        "wrong": wrong,
        "oracle_file": oracle_file,
        "wrong_file": wrong_file,
        "out": out,
        "report": report,
    }


def tally(
    results: list[Result], keyword: str | None = None, ruling: bool | None = None
) -> Counter[str]:
    return Counter(
        r.outcome
        for r in results
        if (keyword is None or keyword in r.groups)
        and (ruling is None or bool(r.interpretations) == ruling)
    )


def fraction(c: Counter[str]) -> str:
    ran = sum(c.values()) - c["skip"]
    return f"{sum(c[o] for o in PASSED)}/{ran}" if ran else "–"


def test_the_wrong_engine_really_is_wrong(runs: dict[str, Any]) -> None:
    """The premise of the other tests: each broken rule shows up as its own outcome."""
    wrong = tally(runs["wrong"])
    assert wrong["fail"] and wrong["error"] and wrong["skip"] and wrong["pass"]
    assert tally(runs["wrong"], "taunt")["fail"]
    assert tally(runs["wrong"], "breakthrough")["error"]
    assert tally(runs["wrong"], "vigilance")["skip"] == sum(
        tally(runs["wrong"], "vigilance").values()
    )
    assert any(r.diffs for r in runs["wrong"] if "nocturnal" in r.keywords)


# ---------------------------------------------------------------- results.json


def test_results_json_counts_per_engine_and_keyword(runs: dict[str, Any]) -> None:
    data = json.loads((runs["out"] / "results.json").read_text(encoding="utf-8"))
    assert data["format"] == "palconf-report"
    engines = data["engines"]
    assert [e["name"] for e in engines] == ["palconf-oracle", HOSTILE_NAME]
    for e, results in zip(engines, (runs["oracle"], runs["wrong"]), strict=True):
        assert e["cases"] == len(results)
        assert e["meta"]["engine"]["name"] == e["name"]
        assert e["meta"]["rules_version"] == "1.00"
        whole = tally(results)
        assert {o: e["totals"]["all"][o] for o in whole} == dict(whole)
        assert e["totals"]["all"]["total"] == len(results)
        for kid, cell in e["keywords"].items():
            for part, ruling in (("all", None), ("rules_text", False), ("ruling", True)):
                expected = tally(results, kid, ruling)
                got = {
                    o: n
                    for o, n in cell[part].items()
                    if o in ("pass", "fail", "error", "timeout", "skip", "xfail", "xpass") and n
                }
                assert got == dict(expected), (e["name"], kid, part)
                assert cell[part]["ran"] == sum(expected.values()) - expected["skip"]
    # per case, per engine
    by_id = {c["id"]: c for c in data["cases"]}
    assert set(by_id) == {r.id for r in runs["oracle"]} | {r.id for r in runs["wrong"]}
    wrong_key = engines[1]["key"]
    for r in runs["wrong"]:
        got = by_id[r.id]["results"][wrong_key]
        assert got["outcome"] == r.outcome and got["message"] == r.message
        assert got.get("diffs", []) == [d.to_json() for d in r.diffs]


def test_results_json_clauses_and_rulings(runs: dict[str, Any]) -> None:
    data = json.loads((runs["out"] / "results.json").read_text(encoding="utf-8"))
    registry = load_registry()
    taunt = next(k for k in data["keywords"] if k["id"] == "taunt")
    assert [c["id"] for c in taunt["clauses"]] == [
        c.id for c in registry.clauses.values() if c.keyword == "taunt"
    ]
    wrong_key = data["engines"][1]["key"]
    for clause in taunt["clauses"]:
        citing = [r for r in runs["wrong"] if clause["id"] in r.clauses]
        assert clause["cases"] == sorted(r.id for r in citing)
        assert clause["text"] == registry.clauses[clause["id"]].text["1.00"]
        assert clause["engines"][wrong_key]["all"]["fail"] == sum(
            r.outcome == "fail" for r in citing
        )
    interps = {i["id"]: i for i in data["interpretations"]}
    assert set(interps) >= set(registry.interpretations)
    for iid, i in interps.items():
        assert i["cases"] == sorted(r.id for r in runs["oracle"] if iid in r.interpretations)


# ---------------------------------------------------------------- index.html


class Page(HTMLParser):
    """The page's tags and text, to check that untrusted text stayed text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: Counter[str] = Counter()
        self.text: list[str] = []
        self.ids: Counter[str] = Counter()
        self.hrefs: list[str] = []
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] += 1
        a = dict(attrs)
        if a.get("id"):
            self.ids[a["id"] or ""] += 1
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"] or "")
        for name in ("src", "href"):
            if a.get(name) and not (a[name] or "").startswith("#"):
                self.external.append(a[name] or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse_page(path: Path) -> tuple[str, Page]:
    html = path.read_text(encoding="utf-8")
    page = Page()
    page.feed(html)
    return html, page


def test_index_html_is_self_contained_and_escaped(runs: dict[str, Any]) -> None:
    html, page = parse_page(runs["out"] / "index.html")
    assert page.tags["script"] == 0, "an engine's <script> became a tag"
    assert "<script>" not in html
    assert page.tags["link"] == 0 and page.tags["img"] == 0 and page.external == []
    assert page.tags["style"] == 1
    text = "".join(page.text)
    assert HOSTILE_NAME in text  # shown, as text
    # an engine's message is text: its `tick` shown as code, nothing else made markup
    assert '<script>alert("msg")</script> | pipe tick *star* [link](http://x.test)' in text
    assert "| pipe <code>tick</code> *star*" in html
    assert "&lt;script&gt;" in html
    duplicated = [i for i, n in page.ids.items() if n > 1]
    assert duplicated == []
    missing = [h for h in page.hrefs if h.startswith("#") and h[1:] not in page.ids]
    assert missing == []


def test_index_html_matrix_and_failing_case_diff(runs: dict[str, Any]) -> None:
    html, page = parse_page(runs["out"] / "index.html")
    text = " ".join(" ".join(page.text).split())
    # the matrix row of each keyword shows each engine's fraction of all its cases (as the
    # site counts them) and of those that depend on a ruling
    rows = re.findall(r'<tr><th class="kw"><a href="#kw-([a-z-]+)">.*?</tr>', html, re.S)
    assert "taunt" in rows and "nocturnal" in rows
    for kid in ("taunt", "nocturnal", "breakthrough", "vigilance"):
        row = re.search(r'<tr><th class="kw"><a href="#kw-' + kid + r'">.*?</tr>', html, re.S)
        assert row is not None
        fracs = re.findall(r'<span class="frac">([^<]*)</span>', row.group(0))
        want = []
        for results in (runs["oracle"], runs["wrong"]):
            want += [fraction(tally(results, kid)), fraction(tally(results, kid, True))]
        assert fracs == want, kid
    # a failing case of the wrong engine: its diff (expected and observed) and message
    failing = next(r for r in runs["wrong"] if r.outcome == "fail" and r.diffs)
    assert f'<details class="case" id="failing--case-{failing.id}">' in html  # listed, closed
    # and open under its keyword
    block = re.search(
        r'<details class="case" id="kw-'
        + failing.groups[0]
        + "--case-"
        + re.escape(failing.id)
        + r'" open>.*?</details>',
        html,
        re.S,
    )
    assert block is not None, failing.id
    body = block.group(0)
    for d in failing.diffs:
        assert f"<code>{'.<wbr>'.join(escape(p) for p in d.path.split('.'))}</code>" in body
        assert f'<td class="exp mono">{escape(show_json(d.expected))}</td>' in body
        assert f'<td class="obs mono">{escape(show_json(d.observed))}</td>' in body
    assert failing.message in text
    # a refusal carrying the hostile message is shown, escaped, with the engine's text
    refused = next(
        r
        for r in runs["wrong"]
        if HOSTILE_MESSAGE.split("\n")[0] in r.message and r.outcome == "fail"
    )
    assert refused.id in html
    # run metadata: both engines, the rules version, the palconf version
    assert "palconf-oracle" in text and "1.00" in text and "0.1.0" in text


# ---------------------------------------------------------------- report.md


def md_cells(row: str) -> list[str]:
    """A Markdown table row split on the pipes that are not escaped."""
    assert row.startswith("|") and row.endswith("|"), row
    return re.split(r"(?<!\\)\|", row[1:-1])


def test_report_md_escapes_untrusted_text(runs: dict[str, Any]) -> None:
    md = (runs["out"] / "report.md").read_text(encoding="utf-8")
    assert "<script>" not in md
    assert 'evil&lt;script&gt;alert("name")&lt;/script&gt; \\| engine' in md
    assert "\\`tick\\`" in md and "\\[link\\]" in md and "\\@someone" in md
    assert "\x1b" not in md  # control characters are made harmless (visible: see below)
    # every table row has as many cells as its header: no `|` escaped out of its cell
    lines = md.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("| ---") or line.startswith("| --- "):
            width = len(md_cells(lines[n - 1]))
            for row in lines[n + 1 :]:
                if not row.startswith("|"):
                    break
                assert len(md_cells(row)) == width, row
    section = md.split("## Failing cases")[1].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    failures = sorted(
        (r.id, e)
        for e, results in (("B", runs["oracle"]), ("A", runs["wrong"]))  # A: "evil…"
        for r in results
        if r.outcome in ("fail", "error", "timeout", "xfail")
    )
    shown = [(md_cells(row)[1].split("<br>")[0].strip(), md_cells(row)[0].strip()) for row in rows]
    assert shown == failures[:50]
    if len(failures) > 50:
        assert f"… and {len(failures) - 50} more: see index.html" in section


def test_md_escape() -> None:
    assert md_escape("a|b") == "a\\|b"
    assert md_escape("<b>&") == "&lt;b&gt;&amp;"
    assert md_escape("x\ny") == "x<br>y"
    assert md_escape("`code` *e* _u_ ~s~ [l](u)") == "\\`code\\` \\*e\\* \\_u\\_ \\~s\\~ \\[l\\](u)"
    assert md_escape("\\|") == "\\\\\\|"  # a backslash cannot unescape the pipe


# ---------------------------------------------------------------- junit.xml


def test_junit_xml_parses_with_the_right_counts(runs: dict[str, Any]) -> None:
    root = ET.parse(runs["out"] / "junit.xml").getroot()
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 2
    for suite, results in zip(suites, (runs["oracle"], runs["wrong"]), strict=True):
        c = tally(results)
        cases = suite.findall("testcase")
        assert len(cases) == int(suite.get("tests", -1)) == len(results)
        assert int(suite.get("failures", -1)) == c["fail"] == len(suite.findall("testcase/failure"))
        assert (
            int(suite.get("errors", -1))
            == c["error"] + c["timeout"]
            == len(suite.findall("testcase/error"))
        )
        assert (
            int(suite.get("skipped", -1))
            == c["skip"] + c["xfail"]
            == len(suite.findall("testcase/skipped"))
        )
        by_name = {tc.get("name"): tc for tc in cases}
        for r in results:
            folder = Path(r.path).parent.name  # the folder of cases/ it is in
            want = f"palconf.{folder}" if folder != "cases" else "palconf.interactions"
            assert by_name[r.id].get("classname") == want, r.path
    assert int(root.get("tests", -1)) == len(runs["oracle"]) + len(runs["wrong"])
    wrong_suite = suites[1]
    assert wrong_suite.get("name") == f"palconf: {HOSTILE_NAME} 0.1.0"
    errored = next(r for r in runs["wrong"] if r.outcome == "error")
    el = wrong_suite.find(f"testcase[@name='{errored.id}']/error")
    assert el is not None and el.get("message") == errored.message.replace("\x1b", "\ufffd")
    failed = next(r for r in runs["wrong"] if r.outcome == "fail" and r.diffs)
    el = wrong_suite.find(f"testcase[@name='{failed.id}']/failure")
    assert el is not None and all(d.path in (el.text or "") for d in failed.diffs)


def test_junit_maps_xfail_and_xpass(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {
                "id": i,
                "keywords": ["taunt"],
                "clauses": ["taunt.1"],
                "outcome": o,
                "message": "m",
                "duration_ms": 1.5,
            }
        )
        for i, o in (("a", "xfail"), ("b", "xpass"), ("c", "timeout"), ("d", "pass"))
    ]
    run = parse_lines(lines, "x.jsonl")
    write_report(build([run], load_registry()), tmp_path)
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (
        suite.get("tests"),
        suite.get("failures"),
        suite.get("errors"),
        suite.get("skipped"),
    ) == ("4", "0", "1", "1")
    assert suite.find("testcase[@name='a']/skipped").get("type") == "xfail"  # type: ignore[union-attr]
    assert suite.find("testcase[@name='b']/system-out") is not None
    assert suite.find("testcase[@name='c']/error").get("type") == "timeout"  # type: ignore[union-attr]
    data = json.loads((tmp_path / "results.json").read_text())
    taunt = data["engines"][0]["keywords"]["taunt"]["all"]
    assert (taunt["passed"], taunt["ran"]) == (
        2,
        4,
    )  # pass and xpass of pass, xpass, xfail, timeout


# ---------------------------------------------------------------- badges


def test_badges(runs: dict[str, Any]) -> None:
    data = json.loads((runs["out"] / "results.json").read_text(encoding="utf-8"))
    badges = runs["out"] / "badges"
    for e, results in zip(data["engines"], (runs["oracle"], runs["wrong"]), strict=True):
        engine_badge = json.loads((badges / f"{e['key']}.json").read_text(encoding="utf-8"))
        assert engine_badge["schemaVersion"] == 1
        assert engine_badge["label"] == e["label"]
        assert engine_badge["message"] == fraction(tally(results))  # all cases, as the site
        taunt = json.loads((badges / e["key"] / "taunt.json").read_text(encoding="utf-8"))
        assert taunt["label"] == "Taunt"
        assert taunt["message"] == fraction(tally(results, "taunt"))
        t = tally(results, "taunt")
        all_pass = sum(t[o] for o in PASSED) == sum(t.values()) - t["skip"]
        assert (taunt["color"] == "brightgreen") == all_pass
        vig = json.loads((badges / e["key"] / "vigilance.json").read_text(encoding="utf-8"))
        if e["name"] == HOSTILE_NAME:
            assert (vig["message"], vig["color"]) == ("skipped", "lightgrey")
    for path in badges.rglob("*.json"):  # file names are safe slugs, inside badges/
        assert re.fullmatch(r"[a-z0-9._-]+", path.name), path
        assert badges in path.resolve().parents


# ---------------------------------------------------------------- compare, CLI, run --report


def test_compare_oracle_with_wrong_engine(runs: dict[str, Any]) -> None:
    old, new = read_results(runs["oracle_file"]), read_results(runs["wrong_file"])
    c = compare(old, new)
    before = {r.id: r.outcome for r in runs["oracle"]}
    after = {r.id: r.outcome for r in runs["wrong"]}
    regressed = sorted(
        i
        for i in after
        if before[i] in PASSED and after[i] in ("fail", "error", "timeout", "xfail")
    )
    assert [ch.id for ch in c.regressed] == regressed and regressed
    assert [ch.id for ch in c.fixed] == sorted(
        i for i in after if before[i] in ("fail", "error", "timeout") and after[i] in PASSED
    )
    assert c.new_cases == [] and c.removed == []
    assert {ch.id for ch in c.changed} == {i for i in after if before[i] != after[i]} - set(
        regressed
    ) - {ch.id for ch in c.fixed}
    text = render_text(c)
    assert "\x1b" not in text and f"Regressed: passed before, fail now: {len(regressed)}" in text
    md = compare_markdown(c)
    assert "<script>" not in md and "\\|" in md
    # and the other way round: what the wrong engine broke is what a fix would fix
    assert [ch.id for ch in compare(new, old).fixed] == regressed


def test_compare_new_and_removed_cases() -> None:
    def line(i: str, o: str) -> str:
        return json.dumps({"id": i, "keywords": [], "clauses": [], "outcome": o, "message": ""})

    def meta(ids: list[str]) -> str:  # a whole run of the suite `ids`
        return meta_line(run_meta("e", "1", [], "1.00", len(ids), suite=ids, selected=ids))

    before = [line("a", "pass"), line("b", "fail"), line("gone", "pass")]
    after = [line("a", "fail"), line("b", "pass"), line("fresh", "fail"), line("fresh2", "pass")]
    old = parse_lines([meta(["a", "b", "gone"]), *before], "old")
    new = parse_lines([meta(["a", "b", "fresh", "fresh2"]), *after], "new")
    c = compare(old, new)
    assert [x.id for x in c.regressed] == ["a"] and [x.id for x in c.fixed] == ["b"]
    assert [x.id for x in c.new_cases] == ["fresh", "fresh2"]  # the failing new case first
    assert [x.id for x in c.removed] == ["gone"]
    assert c.not_run_old == [] and c.not_run_new == []
    # files that do not record their suites (older ones): whether OLD's suite held `fresh`
    # is unknown, so it is "not run in the older run", never "new"
    c = compare(parse_lines(before, "old"), parse_lines(after, "new"))
    assert [x.id for x in c.not_run_old] == ["fresh", "fresh2"] and c.new_cases == []
    assert [x.id for x in c.not_run_new] == ["gone"] and c.removed == []


def test_cli_report_and_compare(
    runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rep"
    assert (
        cli(["report", str(runs["oracle_file"]), str(runs["wrong_file"]), "--out", str(out)]) == 0
    )
    assert {p.name for p in out.iterdir()} == {
        "index.html",
        "report.md",
        "results.json",
        "junit.xml",
        "badges",
    }
    capsys.readouterr()
    assert (
        cli(
            [
                "report",
                "--compare",
                str(runs["oracle_file"]),
                str(runs["wrong_file"]),
                "--format",
                "json",
                "--out",
                str(tmp_path / "cmp"),
            ]
        )
        == 1
    )  # regressions
    printed = json.loads(capsys.readouterr().out)
    assert printed["regressed"] and (tmp_path / "cmp" / "compare.md").exists()
    assert cli(["report", "--compare", str(runs["oracle_file"]), str(runs["oracle_file"])]) == 0


@pytest.mark.parametrize(
    "content, where",
    [
        ('{"id": "a", "outcome": "pass"}\nnot json\n', ":2: not JSON"),
        ('{"id": "a", "outcome": "passed"}\n', ":1: result 'a': `outcome` must be one of"),
        (
            '{"id": "a", "outcome": "pass", "diffs": "x"}\n',
            ":1: result 'a': `diffs` must be a list",
        ),
        ('{"outcome": "pass"}\n', ":1: a result needs a non-empty string `id`"),
        ('{"meta": 3}\n', ":1: the meta line's `meta` must be an object"),
    ],
)
def test_bad_results_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, where: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content, encoding="utf-8")
    assert cli(["report", str(bad), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert f"bad.jsonl{where}" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


def test_cli_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["report", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
    assert cli(["report", "--out", str(tmp_path)]) == 2
    f = tmp_path / "f.jsonl"
    f.write_text("", encoding="utf-8")
    assert cli(["report", str(f)]) == 2
    assert "--out DIR is required" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert cli(["report", str(f), "--out", str(tmp_path / "file")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_results_without_meta_and_with_duplicates() -> None:
    lines = [
        json.dumps(
            {
                "id": "a",
                "keywords": ["taunt"],
                "clauses": [],
                "outcome": "fail",
                "message": "",
                "engine": "e1",
            }
        ),
        "",
        json.dumps(
            {
                "id": "a",
                "keywords": ["taunt"],
                "clauses": [],
                "outcome": "pass",
                "message": "",
                "engine": "e1",
            }
        ),
    ]
    run = parse_lines(lines, "dir/run.jsonl")
    assert run.meta is None and run.engine_name == "e1" and run.duplicates == ["a"]
    assert [r.outcome for r in run.results] == ["pass"]
    assert parse_lines([], "dir/empty.jsonl").engine_name == "empty"
    # a meta line that selected more cases than have results: an unfinished run
    meta = {"meta": {"engine": {"name": "e1", "version": "1"}, "cases": 3}}
    report = build([parse_lines([json.dumps(meta), lines[0]], "u.jsonl")], load_registry())
    assert report.engines[0].unfinished and report.engines[0].selected == 3
    assert "Unfinished run: 1 of 3 selected cases" in render_html(report)
    # report.md says it under its heading, not only in the runs' metadata at the end
    head = render_markdown(report).split("\n## ")[0]
    assert "> **Unfinished run**: e1 1: 1 of the 3 cases it selected have a result" in head
    assert (
        not build(
            [
                parse_lines(
                    [json.dumps({"meta": {**meta["meta"], "cases": 1}}), lines[0]], "f.jsonl"
                )
            ],
            load_registry(),
        )
        .engines[0]
        .unfinished
    )
    # two meta lines of two engines (`cat old.jsonl new.jsonl`): refused, by the one rule
    # that --resume follows too; told to go on, the first meta line is the file's
    m1, m2 = ({"meta": {"engine": {"name": n, "version": "1"}}} for n in ("old", "new"))
    with pytest.raises(ResultsError, match=r"r.jsonl:3: the file mixes runs.*old 1.*new 1"):
        parse_lines([json.dumps(m1), lines[0], json.dumps(m2)], "r.jsonl")
    run = parse_lines([json.dumps(m1), lines[0], json.dumps(m2)], "r.jsonl", mixed_ok=True)
    assert run.engine_name == "old" and len(run.results) == 1
    # the same engine's meta line twice (two of its runs joined) is not mixed
    run = parse_lines([json.dumps(m1), lines[0], json.dumps(m1)], "r.jsonl")
    assert run.engine_name == "old"
    # results with no meta line, then a file with one: refused too
    with pytest.raises(ResultsError, match=r"r.jsonl:2: a meta line after results"):
        parse_lines([lines[0], json.dumps(m2)], "r.jsonl")
    with pytest.raises(ResultsError):
        parse_lines(['{"meta": {"engine": "x"}}'], "r.jsonl")


def test_run_with_report_writes_meta_line_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the Taunt cases only, in a folder of their own: loading every case thrice is slow
    shutil.copytree(paths.CASES / "taunt", tmp_path / "cases" / "taunt")
    folder = str(tmp_path / "cases")
    results, out = tmp_path / "r.jsonl", tmp_path / "report"
    status = cli(["run", "--cases", folder, "--results", str(results), "--report", str(out)])
    lines = results.read_text(encoding="utf-8").splitlines()
    objs = [json.loads(line) for line in lines]
    assert list(objs[0]) == ["meta"] and all("meta" not in o for o in objs[1:])
    meta = objs[0]["meta"]
    objs = objs[1:]  # the results
    assert meta["engine"]["name"] == "palconf-oracle" and meta["cases"] == len(objs)
    assert meta["rules_version"] == "1.00" and meta["palconf"] == "0.1.0"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["date"])
    # result lines are exactly what the runner writes
    registry = load_registry()
    cases = load_cases(tmp_path / "cases", registry)
    assert cases and len(cases) == len(objs)
    engine = OracleEngine()
    engine.start()
    direct = {r.id: r.to_json() for r in run_cases(engine, cases)}
    for o in objs:
        o.pop("duration_ms"), direct[o["id"]].pop("duration_ms")
        assert o == direct[o["id"]]
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert data["engines"][0]["cases"] == len(objs)
    assert data["engines"][0]["meta"] == meta
    assert status == (1 if any(o["outcome"] in ("fail", "error", "timeout") for o in objs) else 0)
    # a resumed run keeps the file's meta line and adds none
    cli(["run", "--cases", folder, "--results", str(results), "--resume"])
    again = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert again[0] == {"meta": meta} and sum("meta" in o for o in again) == 1
    # without --results the report is built from memory
    out2 = tmp_path / "report2"
    cli(["run", "--cases", folder, "--report", str(out2)])
    data2 = json.loads((out2 / "results.json").read_text(encoding="utf-8"))
    assert data2["engines"][0]["cases"] == len(objs)
    assert data2["engines"][0]["meta"]["cases"] == len(objs)


# ---------------------------------------------------------------- suite strength


def test_mutants_section(runs: dict[str, Any], tmp_path: Path) -> None:
    registry = load_registry()
    mutants = parse_mutants(
        {
            "mutants": [
                {"name": "taunt-ignored", "clause": "taunt.1", "killed": True, "killed_by": ["x"]},
                {"name": "taunt-<b>bold</b>|x", "clause": "taunt.2", "killed": False},
                {"name": "nocturnal-200", "clause": "nocturnal.1", "killed_by": ["y"], "extra": 1},
            ]
        },
        "m.json",
        {cid: c.keyword for cid, c in registry.clauses.items()},
    )
    assert [m.keyword for m in mutants] == ["taunt", "taunt", "nocturnal"]
    assert [m.killed for m in mutants] == [True, False, True]
    # the shape `palconf mutants --json` writes: `status`, no `killed`
    real = parse_mutants(
        {
            "mutants": [
                {
                    "name": "q",
                    "clause": "quick.2",
                    "keyword": "quick",
                    "status": "killed",
                    "killed_by": ["a"],
                    "misreading": "Quick events are not quick.",
                },
                {
                    "name": "r",
                    "clause": "quick.1",
                    "keyword": "quick",
                    "status": "survived",
                    "killed_by": [],
                },
                {
                    "name": "f",
                    "clause": "quick.1",
                    "keyword": "quick",
                    "status": "fault",
                    "killed_by": [],
                },
            ]
        },
        "m.json",
    )
    assert [(m.killed, m.fault) for m in real] == [(True, False), (False, False), (False, True)]
    assert real[0].description == "Quick events are not quick."
    view = build([], registry, real).mutants
    assert view is not None and [m.name for m in view.survivors("quick")] == ["r"]
    assert [m.name for m in view.faults("quick")] == ["f"]
    assert (view.keywords["quick"].passed, view.keywords["quick"].total) == (1, 3)
    report = build([read_results(runs["oracle_file"])], registry, mutants)
    write_report(report, tmp_path)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert 'id="strength"' in html and "taunt-&lt;b&gt;bold&lt;/b&gt;|x" in html
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["mutants"]["keywords"]["taunt"] == {
        "mutants": 2,
        "killed": 1,
        "score": 0.5,
        "survivors": ["taunt-<b>bold</b>|x"],
        "faults": [],
    }
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "taunt-&lt;b&gt;bold&lt;/b&gt;\\|x" in md
    # without the file there is no section
    write_report(build([read_results(runs["oracle_file"])], registry), tmp_path / "plain")
    assert 'id="strength"' not in (tmp_path / "plain" / "index.html").read_text(encoding="utf-8")
    with pytest.raises(ResultsError, match="needs a non-empty string `name`"):
        parse_mutants({"mutants": [{"clause": "taunt.1"}]}, "m.json")


def test_templates_are_strict_and_autoescaped() -> None:
    from jinja2 import StrictUndefined, UndefinedError

    from palconf.reports.render import environment

    env = environment()
    assert env.undefined is StrictUndefined
    assert env.from_string("{{ x }}").render(x="<i>") == "&lt;i&gt;"
    for name in env.list_templates(filter_func=lambda n: ".html" in n):
        with pytest.raises(UndefinedError):
            env.get_template(name).render()


# ---------------------------------------------------------------- groups: protocol beside base


def _line(
    rid: str,
    outcome: str,
    keywords: list[str],
    rules: list[str],
    clauses: list[str] | None = None,
    **more: Any,
) -> str:
    return json.dumps(
        {
            "id": rid,
            "keywords": keywords,
            "clauses": clauses or [],
            "rules": rules,
            "outcome": outcome,
            "message": "m",
            **more,
        }
    )


def test_protocol_cases_are_counted_in_their_own_group(tmp_path: Path) -> None:
    meta = json.dumps(
        {"meta": {"engine": {"name": "e", "version": "1", "keywords": ["taunt"]}, "cases": 4}}
    )
    run = parse_lines(
        [
            meta,
            _line("protocol-legal-x", "pass", [], ["P-legal", "B-11"]),
            _line("protocol-taunt-y", "fail", ["taunt"], ["P-reasons"], ["taunt.1"]),
            _line("taunt-z", "pass", ["taunt"], [], ["taunt.1"]),
            _line("base-w", "pass", [], ["B-11"]),
        ],
        "p.jsonl",
    )
    assert [r.groups for r in run.results] == [
        ("protocol",),
        ("taunt", "protocol"),
        ("taunt",),
        ("base",),
    ]
    registry = load_registry()
    report = build([run], registry)
    write_report(report, tmp_path)
    ids = [k.id for k in report.keywords]
    assert ids[-2:] == ["protocol", "base"] and set(registry.keywords) <= set(ids)
    protocol = next(k for k in report.keywords if k.id == "protocol")
    assert [c.id for c in protocol.cases] == [
        "protocol-taunt-y",
        "protocol-legal-x",
    ]  # failing first
    # every protocol rule is listed, with the cases citing it
    assert [c.id for c in protocol.clauses] == list(registry.protocol)
    cited = {c.id: c.cases for c in protocol.clauses}
    assert cited["P-legal"] == ["protocol-legal-x"] and cited["P-reasons"] == ["protocol-taunt-y"]
    assert cited["P-state"] == []
    # results.json: the protocol group beside base and the keywords
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    cells = data["engines"][0]["keywords"]
    assert (cells["protocol"]["all"]["passed"], cells["protocol"]["all"]["ran"]) == (1, 2)
    assert (cells["taunt"]["all"]["passed"], cells["taunt"]["all"]["ran"]) == (1, 2)
    assert (cells["base"]["all"]["passed"], cells["base"]["all"]["ran"]) == (1, 1)
    assert data["engines"][0]["totals"]["all"]["total"] == 4
    by_id = {c["id"]: c for c in data["cases"]}
    assert by_id["protocol-taunt-y"]["keywords"] == ["taunt", "protocol"]
    # the matrix row, the section, report.md and the badge
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    row = re.search(
        r'<tr><th class="kw"><a href="#kw-protocol">Protocol v1</a>.*?</tr>', html, re.S
    )
    assert row is not None
    assert re.findall(r'<span class="frac">([^<]*)</span>', row.group(0)) == ["1/2", "–"]
    assert '<details class="kw" id="kw-protocol">' in html and "Protocol rules" in html
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert re.search(r"^\| Protocol v1 \| 2 \| .*1/2", md, re.M)
    key = report.engines[0].key
    badge = json.loads((tmp_path / "badges" / key / "protocol.json").read_text(encoding="utf-8"))
    assert (badge["label"], badge["message"]) == ("Protocol v1", "1/2")
    # JUnit: the protocol cases are in palconf.protocol (their folder, cases/protocol/)
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert {tc.get("name"): tc.get("classname") for tc in suite.findall("testcase")} == {
        "protocol-legal-x": "palconf.protocol",
        "protocol-taunt-y": "palconf.protocol",
        "taunt-z": "palconf.taunt",
        "base-w": "palconf.base",
    }
    # compare: the groups of each change
    other = parse_lines([_line("protocol-taunt-y", "pass", ["taunt"], ["P-reasons"])], "q.jsonl")
    c = compare(run, other)
    assert [(ch.id, ch.keywords) for ch in c.fixed] == [("protocol-taunt-y", ("taunt", "protocol"))]


def test_a_missing_side_of_a_diff_is_not_null(tmp_path: Path) -> None:
    """A results file leaves out the side of a diff that has no such field (MISSING); JSON
    null is a value. Both survive reading, and the report shows them apart."""
    diffs = [
        {"path": "cards.a1.power", "expected": 3000},  # the engine has no such field
        {"path": "winner", "expected": "A", "observed": None},
    ]
    run = parse_lines(
        [_line("taunt-d", "fail", ["taunt"], [], ["taunt.1"], diffs=diffs)], "d.jsonl"
    )
    (r,) = run.results
    assert r.diffs[0].observed is MISSING and r.diffs[1].observed is None
    write_report(build([run], load_registry()), tmp_path)
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<td class="obs mono">(missing)</td>' in html
    assert '<td class="obs mono">null</td>' in html
    data = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert data["cases"][0]["results"][data["engines"][0]["key"]]["diffs"] == diffs
    md = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "observed (missing)" in md and "observed null" in md
    junit = (tmp_path / "junit.xml").read_text(encoding="utf-8")
    assert "observed (missing)" in junit


def test_unprintable_text_is_shown_as_escapes_in_html_and_markdown(tmp_path: Path) -> None:
    message = "bad \x1b[31mred\x00 \u202eevil\r\nnext"
    run = parse_lines([_line("taunt-e", "error", ["taunt"], [], message=message)], "e.jsonl")
    write_report(build([run], load_registry()), tmp_path)
    shown = "\\x1b[31mred\\x00 \\u202eevil"
    in_md = r"\\x1b\[31mred\\x00 \\u202eevil"  # Markdown escapes "\\" and "["
    for name, want in (("index.html", shown), ("report.md", in_md)):
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert "\x1b" not in text and "\x00" not in text and "\u202e" not in text, name
        assert want in text, name
    assert "\\x1b[31mred\\x00 \\u202eevil\nnext" in (tmp_path / "index.html").read_text(
        encoding="utf-8"
    )


def test_lone_surrogates_are_shown_escaped_and_nothing_is_lost(tmp_path: Path) -> None:
    """A lone surrogate is valid JSON ("\\ud800") but cannot be written as UTF-8: an engine's
    name or message holding one is shown as the text `\\ud800` in every output."""
    meta = run_meta("evil\ud800name", "1\udfff", ["brave"], "1.00", 1)
    result = Result(
        "brave-x",
        Outcome.FAIL,
        ("brave",),
        ("brave.1",),
        message="bad \ud800 reply \x1b[31m",
    )
    results = tmp_path / "r.jsonl"
    results.write_text(meta_line(meta) + json.dumps(result.to_json()) + "\n", encoding="utf-8")
    out = tmp_path / "report"
    assert cli(["report", str(results), "--out", str(out)]) == 0
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"index.html", "report.md", "results.json", "junit.xml"} <= written
    assert any(name.startswith("badges/") for name in written)
    for name in ("index.html", "report.md", "results.json", "junit.xml"):
        text = (out / name).read_text(encoding="utf-8")
        assert "\\ud800" in text.replace("\\\\", "\\"), name
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert "evil\\\\ud800name" in json.dumps(report)  # the text `evil\\ud800name`


# ---------------------------------------------------------------- cards, failures, boards


def _card_html(html: str, name: str) -> str:
    """The engine card (in the cards section) whose name is `name` (escaped)."""
    cards = html.split('<section class="cards"', 1)[1].split("</section>", 1)[0]
    found = [c for c in cards.split('<div class="card ')[1:] if str(escape(name)) in c]
    assert len(found) == 1, name
    return found[0]


def test_a_failing_engine_card_is_never_green() -> None:
    """99 of 100 pass is level `high` (green) in the matrix, but the card must look failing."""
    results = [Result(id=f"c{n}", outcome=Outcome.PASS, keywords=("taunt",)) for n in range(99)]
    results.append(Result(id="c99", outcome=Outcome.FAIL, keywords=("taunt",)))
    lines = [meta_line(run_meta("almost", "1", [], "1.00", 100))]
    lines += [json.dumps(r.to_json()) for r in results]
    report = build([parse_lines(lines, "almost.jsonl")], load_registry())
    engine = report.engines[0]
    assert engine.totals.text.level == "high"
    assert engine.card_level == "low"
    card = _card_html(render_html(report), "almost")
    assert card.startswith("b-low") and 'class="big t-low"' in card
    assert "1 failure</b> · where: the 1 failure cites Taunt" in card


def test_an_engine_with_every_case_passing_keeps_its_green_card(runs: dict[str, Any]) -> None:
    card = _card_html(render_html(runs["report"]), "palconf-oracle")
    assert card.startswith("b-full") and "failure" not in card


def test_the_card_says_where_failures_concentrate(runs: dict[str, Any]) -> None:
    from palconf.core.causes import shared_cause

    failed = [r for r in runs["wrong"] if r.failed]
    cause = shared_cause(failed)  # as `palconf run`'s where: line counts it
    assert cause is not None
    top, count = cause.names[0], cause.count
    report = runs["report"]
    wrong = report.engines[1]
    assert wrong.failures == len(failed)
    assert wrong.concentration(report.keyword_names)[0] == (report.keyword_name(top), count)
    card = _card_html(render_html(report), HOSTILE_NAME)
    assert f"where: {escape(cause.words(report.keyword_name))}" in card


def test_failing_list_chips_name_the_engine(runs: dict[str, Any]) -> None:
    html = render_html(runs["report"])
    failing = html.split('<h2 id="failing">', 1)[1].split('<h2 id="details">', 1)[0]
    first = failing.split('<span class="pills">', 1)[1].split("</span></span>", 1)[0]
    # each engine's letter is its name's place among the names (`charts.engine_marks`):
    # "evil<script>…" before "palconf-oracle", whatever the order of the files
    assert '<span class="pwho">B palconf-oracle 0.1.0</span> pass' in first
    assert str(escape("A " + HOSTILE_NAME[:23])) in first
    # the keyword sections' chips stay short
    details = html.split('<h2 id="details">', 1)[1]
    assert 'class="pwho"' not in details


def test_matrix_takes_the_page_width(runs: dict[str, Any]) -> None:
    html = render_html(runs["report"])
    assert re.search(r"table\.matrix \{[^}]*width: 100%", html)
    assert re.search(r"\.scroll \{ display: block;", html)


def board_of(rules: Rules) -> Any:
    return _board("", rules.observe(), rules, [])


@pytest.fixture(scope="module")
def drawn(runs: dict[str, Any]) -> dict[str, Any]:
    suite = {c.id: c for c in load_cases(paths.CASES, load_registry())}
    report = build(
        [read_results(runs["oracle_file"]), read_results(runs["wrong_file"])],
        load_registry(),
        suite=suite,
    )
    return {"report": report, "suite": suite, "html": render_html(report)}


def test_every_failing_result_gets_its_board(drawn: dict[str, Any]) -> None:
    report = drawn["report"]
    wrong = report.engines[1].key
    failing = [c for c in report.cases.values() if (r := c.results[wrong]) and r.failed]
    assert failing
    assert all(wrong in c.boards for c in failing)
    assert not any(c.boards for c in report.cases.values() if not c.failing)
    assert drawn["html"].count('<div class="bpair">') >= len(failing)


def test_a_board_shows_expected_beside_observed_with_the_diff_marked(
    drawn: dict[str, Any],
) -> None:
    report = drawn["report"]
    wrong = report.engines[1].key
    case, diff = next(
        (c, d)
        for c in report.cases.values()
        if (r := c.results[wrong]) is not None
        for d in r.diffs
        if d.path.startswith("cards.") and d.path.endswith(".power")
    )
    cid = diff.path.split(".")[1]
    pair = case.boards[wrong]

    def box(board: Any) -> Any:
        for p in board.players:
            for cards in p.zones.values():
                for c in cards:
                    if c.id == cid:
                        return c
        raise AssertionError(cid)

    exp, obs = box(pair.expected), box(pair.observed)
    assert exp.power == json.dumps(diff.expected) and obs.power == json.dumps(diff.observed)
    assert "power" in exp.marked and "power" in obs.marked
    assert pair.where.startswith("after ")
    assert exp.keywords, "the card's keywords come from the case"


def test_a_board_of_an_action_that_had_to_be_refused_is_the_one_it_was_tried_on(
    drawn: dict[str, Any],
) -> None:
    suite = drawn["suite"]
    case, n = next(
        (c, e.after)
        for c in suite.values()
        for e in c.expect
        if e.refused and e.after and c.steps[e.after - 1].kind == "act"
    )
    accepted = Result(id=case.id, outcome=Outcome.FAIL, keywords=case.keywords, step=n)
    lines = [meta_line(run_meta("lax", "1", [], "1.00", 1)), json.dumps(accepted.to_json())]
    report = build([parse_lines(lines, "lax.jsonl")], load_registry(), suite=suite)
    pair = report.cases[case.id].boards[report.engines[0].key]
    assert pair.where == f"before action {n} (the oracle refuses it)"
    assert pair.action == case.steps[n - 1].describe()
    # the position is the one before the step: replaying one step fewer gives the same
    before = Rules.from_state(case.setup)
    for st in case.steps[: n - 1]:
        if st.kind == "act":
            before.apply(st.body)
    assert pair.expected.line == board_of(before).line
    assert [p.zones for p in pair.expected.players] == [p.zones for p in board_of(before).players]


def test_boards_escape_the_engines_values() -> None:
    suite = {c.id: c for c in load_cases(paths.CASES, load_registry())}
    case = next(c for c in suite.values() if c.steps and "taunt" in c.keywords)
    cid = sorted(Rules.from_state(case.setup).observe()["cards"])[0]
    hostile = '<script>alert("board")</script>'
    bad = Result(
        id=case.id,
        outcome=Outcome.FAIL,
        keywords=case.keywords,
        step=0,
        diffs=(
            Diff(f"cards.{cid}.state", "stand", hostile),
            Diff("players.A.life", 5, hostile),
            Diff("nowhere.<i>x</i>", 1, 2),
        ),
    )
    lines = [meta_line(run_meta(HOSTILE_NAME, "1", [], "1.00", 1)), json.dumps(bad.to_json())]
    report = build([parse_lines(lines, "bad.jsonl")], load_registry(), suite=suite)
    html = render_html(report)
    assert '<div class="bpair">' in html
    assert "<script>" not in html and "<i>x</i>" not in html
    assert str(escape(json.dumps(hostile))) in html
    pair = report.cases[case.id].boards[report.engines[0].key]
    assert pair.undrawn == ["nowhere.<i>x</i>"]
    assert "life" in pair.observed.players[0].marked


# ---------------------------------------------------------------- charts


def _versions(runs: dict[str, Any], tmp: Path) -> list[Path]:
    """The wrong engine's results as three versions of one engine, written out of order."""
    lines = runs["wrong_file"].read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])["meta"]
    files = []
    for version, date, keep in (
        ("2.0", "2026-03-01T00:00:00Z", 1.0),
        ("1.0", "2026-01-01T00:00:00Z", 0.0),
        ("1.5", "2026-02-01T00:00:00Z", 0.5),
    ):
        m = {**meta, "engine": {**meta["engine"], "name": "acme", "version": version}, "date": date}
        body = lines[1:]
        out = []
        for n, line in enumerate(body):
            obj = json.loads(line)
            if obj["outcome"] in ("fail", "error") and n < len(body) * keep:  # later ones fix more
                obj = {**obj, "outcome": "pass", "diffs": [], "message": ""}
            out.append(json.dumps(obj))
        path = tmp / f"acme-{version}.jsonl"
        path.write_text(meta_line(m) + "\n".join(out) + "\n", encoding="utf-8")
        files.append(path)
    return files


def test_keyword_bars_show_each_engines_rate(runs: dict[str, Any]) -> None:
    from palconf.reports.charts import keyword_bars

    report = runs["report"]
    bars = str(keyword_bars(report.engines, report.keywords))
    assert bars.startswith('<div class="bars">') and "<script" not in bars
    for kw in report.keywords:
        if not kw.shown:
            continue
        for e in report.engines:
            t = kw.cells[e.key].all
            if t.ran:
                who = escape(f"{e.tag} {e.label}")
                assert f'title="{who}: {t.passed}/{t.ran} ({t.percent})"' in bars
                assert f'style="width:{100 * t.rate:.1f}%;background:{e.colour}"' in bars
    assert "<script>" not in render_html(report).split('<h2 id="charts">')[1]


def test_history_lines_have_a_point_per_version_oldest_first(
    runs: dict[str, Any], tmp_path: Path
) -> None:
    from palconf.reports.charts import histories

    files = _versions(runs, tmp_path)
    report = build([read_results(p) for p in files], load_registry())
    (h,) = histories(report.engines)
    assert h.name == "acme" and h.labels == ["1.0", "1.5", "2.0"]
    taunt = h.rates("taunt")
    assert taunt[0] is not None and taunt[0] < taunt[2] == 1.0
    html = render_html(report)
    section = html.split('<h2 id="history-1">', 1)[1].split("<h2", 1)[0]
    sparks = section.split('<svg class="chart spark"')[1:]
    assert len(sparks) == sum(1 for k in report.keywords if k.shown)
    points = {
        k.id: sp.count('<circle class="pt"')
        for k, sp in zip([k for k in report.keywords if k.shown], sparks, strict=True)
    }
    assert points["vigilance"] == 0  # skipped by every version: nothing ran, no point
    assert all(n == 3 for k, n in points.items() if k != "vigilance"), points


def test_no_history_for_engines_given_once(runs: dict[str, Any]) -> None:
    assert 'id="history-' not in render_html(runs["report"])


def test_report_md_says_where_the_failures_concentrate(runs: dict[str, Any]) -> None:
    md = (runs["out"] / "report.md").read_text(encoding="utf-8")
    wrong = [r for r in runs["wrong"] if r.failed]
    lines = [line for line in md.splitlines() if f"{len(wrong)} failures · where:" in line]
    assert len(lines) == 1, "one concentration line, for the failing engine only"
    assert (
        f"of the {len(wrong)} failures cite" in lines[0]
        or f"all {len(wrong)} failures cite" in lines[0]
    )
    assert "palconf-oracle" not in lines[0]
