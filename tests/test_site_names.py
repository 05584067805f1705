"""Issue 36, class 17: the files `palconf site` and `palconf report` write. Every name a
checkout on Windows or macOS takes (no device name, no character Windows refuses, no dot or
space at the end, not too long, and no two names that differ only in case), and a bound on
the number of case pages (every case of the suite, and MAX_OTHER_PAGES others)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from palconf import paths
from palconf.cases.loader import load_cases
from palconf.cli import main as cli
from palconf.core.results_file import meta_line
from palconf.registry import load as load_registry
from palconf.reports import site as site_module
from palconf.reports.names import file_names, slug

DEVICES = ["con", "prn", "aux", "nul"] + [f"{d}{n}" for d in ("com", "lpt") for n in range(10)]

#: ids (and engine and keyword names) Windows cannot have as file names, as they are
HOSTILE = [
    *DEVICES,
    *(d.upper() for d in DEVICES),
    "Con",
    "cOn",
    "con.html",
    "Con.json",
    "CON.txt",
    "nul .x",
    "nul.tar.gz",
    "aux.",
    "prn ",
    "com1 .html",
    "LPT9.x.y",
    "con-",
    "con_",  # a name of its own, not `con`'s
    "x.",
    "x ",
    "x. . ",
    "...",
    " ",
    "",
    *(f"a{c}b" for c in '<>:"/\\|?*'),
    "a\x00b",
    "a\x1fb",
    "a\x7fb",
    "a\tb",
    "a\nb",
    "\u202econ",
    "x" * 300,
    "X" * 300,
    "Brave-1",
    "brave-1",
    "BRAVE-1",
    "Taunt",
    "taunt",
]


def windows_ok(name: str, limit: int = 255) -> bool:
    """A name Windows (and so any checkout) takes as a file or folder name."""
    if not name or len(name) > limit or name in (".", ".."):
        return False
    if any(c in '<>:"/\\|?*' or ord(c) < 32 for c in name) or name[-1] in ". ":
        return False
    return name.split(".", 1)[0].rstrip(" ").lower() not in DEVICES


def case_clashes(names: list[str]) -> list[str]:
    """Names that are one file on a case-insensitive file system."""
    return [n for n, k in Counter(x.casefold() for x in names).items() if k > 1]


def test_slug_gives_names_windows_takes() -> None:
    for text in HOSTILE:
        for limit in (6, 40, 60, 80):
            name = slug(text, limit)
            assert windows_ok(name, limit) and windows_ok(name + ".html"), (text, limit, name)
    assert slug("con") == "con_" and slug("Con.json") == "con_.json"
    assert slug("taunt") == "taunt" and slug("console") == "console"  # as before


def test_file_names_are_safe_distinct_and_stable() -> None:
    names = file_names(HOSTILE, 80)
    assert len(set(names.values())) == len(set(HOSTILE))
    assert not case_clashes(list(names.values()))
    for text, name in names.items():
        assert windows_ok(name, 80) and windows_ok(f"{name}.html"), (text, name)
        assert file_names([text], 80)[text] == name  # whatever else is in the set
    assert file_names(reversed(HOSTILE), 80) == names
    assert names["brave-1"] == "brave-1" and names["con_"] == "con_"  # a plain id keeps it


def hostile_folder(folder: Path, engines: list[str], ids: list[str]) -> Path:
    """A results file per engine name, each with every id, under hostile keywords."""
    folder.mkdir()
    keywords = ["taunt", "con", "Con", "NUL.json", "aux ", "Taunt", "com1"]
    for n, name in enumerate(engines):
        meta = {"engine": {"name": name, "version": "1"}, "rules_version": "1.00"}
        lines = [meta_line(meta)]
        for i, cid in enumerate(ids):
            kws = [keywords[i % len(keywords)], "taunt"]
            result = {"id": cid, "keywords": kws, "clauses": [], "outcome": "fail"}
            lines.append(json.dumps({**result, "message": f"m{i}"}) + "\n")
        (folder / f"{n}.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


ENGINES = ["con", "CON", "Nul.json", "aux.", "com1 ", "LPT9", "e<>:|?*", "Brave", "brave"]
IDS = [i for i in HOSTILE if i.strip(" .\x00") and i.isprintable()]


def written(out: Path) -> list[Path]:
    return [p.relative_to(out) for p in out.rglob("*")]


def assert_windows_safe(out: Path) -> None:
    paths_ = written(out)
    for rel in paths_:
        assert all(windows_ok(part) for part in rel.parts), rel
    assert not case_clashes([str(p) for p in paths_])


def test_a_site_of_hostile_names_checks_out_on_windows(tmp_path: Path) -> None:
    results = hostile_folder(tmp_path / "results", ENGINES, IDS)
    out = tmp_path / "site"
    assert cli(["site", str(results), "--out", str(out)]) == 0
    assert_windows_safe(out)
    case_pages = list((out / "cases").iterdir())
    assert len(case_pages) == len(IDS)
    assert len(list((out / "engines").iterdir())) == len(ENGINES)
    html = {p: p.read_text(encoding="utf-8") for p in out.rglob("*.html")}
    for p, text in html.items():  # every link leads to a page that is there
        for href in re.findall(r'href="([^"]*)"', text):
            assert (p.parent / href.split("#")[0]).resolve().is_file(), (p, href)
    site_text = "".join(html.values())
    for p in case_pages:
        assert f"cases/{p.name}" in site_text, p.name


def test_a_report_of_hostile_names_checks_out_on_windows(tmp_path: Path) -> None:
    results = hostile_folder(tmp_path / "results", ENGINES, IDS)
    out = tmp_path / "report"
    files = sorted(str(p) for p in results.iterdir())
    assert cli(["report", *files, "--out", str(out)]) in (0, 1)
    assert_windows_safe(out)
    assert len(list((out / "badges").glob("*.json"))) == len(ENGINES)


# ---------------------------------------------------------------- how many case pages


def foreign_folder(folder: Path, suite_ids: list[str], n: int) -> Path:
    """One results file: the suite's `suite_ids` and `n` ids of no suite, every third of
    those failing."""
    folder.mkdir()
    meta = {"engine": {"name": "e", "version": "1"}, "rules_version": "1.00"}
    lines = [meta_line(meta)]
    rows = [(cid, "pass") for cid in suite_ids]
    rows += [(f"Foreign-{i:05d}", "fail" if i % 3 == 0 else "pass") for i in range(n)]
    for cid, outcome in rows:
        result = {"id": cid, "keywords": ["taunt"], "clauses": ["taunt.1"], "outcome": outcome}
        lines.append(json.dumps(result) + "\n")
    (folder / "e.jsonl").write_text("".join(lines), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def suite_ids() -> list[str]:
    cases = load_cases(paths.CASES, load_registry())
    return sorted(c.id for c in cases if "taunt" in c.keywords)[:5]


@pytest.mark.parametrize("n", [0, 1, 19, 20, 21, 60, 333])
def test_case_pages_are_the_suite_s_and_a_bounded_number_of_others(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    suite_ids: list[str],
    n: int,
) -> None:
    bound = 20
    monkeypatch.setattr(site_module, "MAX_OTHER_PAGES", bound)
    results = foreign_folder(tmp_path / "results", suite_ids, n)
    out = tmp_path / "site"
    assert cli(["site", str(results), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    pages = {p.name for p in (out / "cases").iterdir()}
    assert len(pages) == len(suite_ids) + min(n, bound)
    assert all(f"{cid}.html" in pages for cid in suite_ids)  # every suite case has its page
    ids = [f"Foreign-{i:05d}" for i in range(n)]
    names = file_names(ids, 80)
    failing = ids[::3]
    paged = {cid for cid in ids if f"{names[cid]}.html" in pages}
    assert paged == set((failing + [c for c in ids if c not in failing])[:bound])  # failing first
    rest = n - min(n, bound)
    others = out / site_module.OTHERS
    assert others.is_file() == (rest > 0)
    if rest:
        assert f"{rest} case(s) not in the suite have no page of their own" in err
        assert site_module.OTHERS in err
        text = others.read_text(encoding="utf-8")
        listed = re.findall(r'<li id="([^"]+)"', text)
        assert sorted(listed) == sorted(names[c] for c in names if c not in paged)
        keyword = (out / "keywords" / "taunt.html").read_text(encoding="utf-8")
        assert f"{rest} of them, not in the suite, have no page of their own" in keyword
        assert keyword.count("other-cases.html#") == 0  # not listed there one by one
    else:
        assert "no page of their own" not in err
    for p in out.rglob("*.html"):  # every link resolves, anchors on OTHERS included
        for href in re.findall(r'href="([^"]*)"', p.read_text(encoding="utf-8")):
            target, _, anchor = href.partition("#")
            assert (p.parent / target).resolve().is_file(), (p, href)
            if anchor and target.endswith(site_module.OTHERS):
                assert f'id="{anchor}"' in others.read_text(encoding="utf-8"), href
