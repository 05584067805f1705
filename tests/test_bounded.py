"""Issue 36, "bounded reads and sizes" (docs/broken-input.md, section 16): one reader for
every file palconf reads but did not write (`palconf.core.json_read`: regular files only,
whole files up to `MAX_FILE_BYTES`, results files as a stream of lines up to
`MAX_LINE_BYTES`); what one result stores is bounded (`palconf.core.outcomes.MAX_DIFFS`,
`MAX_VALUE_CHARS`, said in the meta line's `bounds`) and so is what reports show; `summary`
keeps per case only what it prints; a case recorded more than once is warned of by every
reader in one wording."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from palconf.cli import main as cli
from palconf.core import MISSING, Diff, Outcome, Result, json_read
from palconf.core.outcomes import MAX_DIFFS, MAX_VALUE_CHARS, bounded_diffs
from palconf.core.results_file import (
    ResultsError,
    ResultsWriter,
    meta_line,
    read_results,
    run_meta,
)

ROOT = Path(__file__).resolve().parents[1]
CASE = "ix-brave-taunt-attacked-taunt-pal-gets-no-brave"


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """A read that blocks (a FIFO) or never ends (/dev/zero) fails the test, not the run."""

    def hung(*_: Any) -> None:
        raise TimeoutError("hung: a read that never ends")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def good_results(path: Path, results: list[Result] | None = None) -> Path:
    meta = run_meta("eng", "1", ["taunt"], "1.00", 1)
    rows = results or [Result("x", Outcome.PASS, ("taunt",), ("taunt.1",))]
    path.write_text(meta_line(meta) + "".join(json.dumps(r.to_json()) + "\n" for r in rows))
    return path


# ----------------------------------------------------------------- what cannot be read


def special(kind: str, tmp: Path) -> Path:
    """A path that is no regular file palconf may read whole, or that is too large."""
    p = tmp / f"input-{kind}"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "fifo-link":
        os.mkfifo(tmp / "real-fifo")
        p.symlink_to(tmp / "real-fifo")
    elif kind == "folder":
        p.mkdir()
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(p))
    elif kind in ("dev-zero", "dev-urandom", "dev-null"):
        return Path("/dev/" + kind[4:])
    elif kind == "dev-zero-link":
        p.symlink_to("/dev/zero")
    elif kind == "sparse-2gb":
        with open(p, "wb") as f:
            f.truncate(2 * 1024**3)
    else:  # pragma: no cover
        raise AssertionError(kind)
    return p


SPECIAL = [
    "fifo",
    "fifo-link",
    "folder",
    "socket",
    "dev-zero",
    "dev-urandom",
    "dev-null",
    "dev-zero-link",
    "sparse-2gb",
]


def commands(p: str, tmp: Path) -> dict[str, list[str]]:
    good = str(good_results(tmp / "good.jsonl"))
    return {
        "summary": ["summary", p],
        "report": ["report", p, "--out", str(tmp / "rep")],
        "report --compare": ["report", "--compare", good, p],
        "report --mutants": ["report", good, "--out", str(tmp / "rep2"), "--mutants", p],
        "run --expectations": ["run", "--case", CASE, "--expectations", p],
        "replay": ["replay", p],
        "rules diff": ["rules", "diff", "1.00", p],
    }


NOT_REGULAR_IN = {  # commands that refuse a special file with their own earlier check
    "rules diff": "neither a rules version",
}


@pytest.mark.parametrize("kind", SPECIAL)
def test_every_reader_refuses_what_is_no_file_or_too_large_at_once(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = special(kind, tmp_path)
    for name, argv in commands(str(p), tmp_path).items():
        capsys.readouterr()
        start = time.monotonic()
        code = cli(argv)
        took = time.monotonic() - start
        err = capsys.readouterr().err
        assert code == 2, (name, kind, code, err)
        assert took < 10, (name, kind, took)
        assert "Traceback" not in err and err.strip().count("\n") == 0, (name, err)
        if kind == "sparse-2gb":
            assert "too large" in err or "a line longer than" in err, (name, err)
        elif name not in NOT_REGULAR_IN:
            assert "not a regular file" in err, (name, kind, err)
        assert str(p) in err or name in NOT_REGULAR_IN, (name, err)


def test_the_whole_file_reader_bounds_size_and_says_it(tmp_path: Path) -> None:
    for size in (0, 1, 1000, 100_000):
        f = tmp_path / f"f{size}"
        f.write_bytes(b"a" * size)
        assert json_read.read_text(f, ValueError, "a file", limit=100_000) == "a" * size
    for size in (100_001, 1_000_000):
        f = tmp_path / f"g{size}"
        f.write_bytes(b"a" * size)
        with pytest.raises(ValueError, match=f"too large: {size:,} bytes"):
            json_read.read_text(f, ValueError, "a file", limit=100_000)
    big = special("sparse-2gb", tmp_path)
    with pytest.raises(ValueError, match="too large: 2,147,483,648 bytes"):
        json_read.read_text(big, ValueError, "a file")
    f = tmp_path / "latin1"
    f.write_bytes(b"caf\xe9")
    with pytest.raises(ValueError, match="not UTF-8"):
        json_read.read_text(f, ValueError, "a file")


def test_results_files_are_read_as_a_stream_with_a_bound_on_each_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    limit = json_read.MAX_LINE_BYTES
    head = meta_line(run_meta("eng", "1", [], "1.00", 2)).encode()
    row = json.dumps(Result("a", Outcome.PASS).to_json()).encode()
    shapes = {
        "a line just over": head + b'{"id": "' + b"x" * limit + b'"}\n',
        "a line over, no newline": head + b"x" * (limit + 1),
        "2 GB of zeros": None,
        "a long line after good ones": head + row + b"\n" + b" " * (limit + 5) + b"\n",
    }
    for name, data in shapes.items():
        p = tmp_path / "big.jsonl"
        if data is None:
            p = special("sparse-2gb", tmp_path)
        else:
            p.write_bytes(data)
        for argv in (["summary", str(p)], ["report", str(p), "--out", str(tmp_path / "r")]):
            capsys.readouterr()
            start = time.monotonic()
            assert cli(argv) == 2, name
            err = capsys.readouterr().err
            assert "a line longer than 16 MiB" in err and f"{p}:" in err, (name, err)
            assert time.monotonic() - start < 10
    # a line of exactly the bound is read (its length is not the problem)
    p = tmp_path / "exact.jsonl"
    pad = limit - len(row)
    p.write_bytes(head + row[:-1] + b" " * pad + b"}\n")
    assert len(p.read_bytes().splitlines()[1]) == limit
    assert [r.id for r in read_results(p).results] == ["a"]
    # not UTF-8 in one line: that line named
    p.write_bytes(head + row + b"\n" + b'{"id": "\xff"}\n')
    with pytest.raises(ResultsError, match=r"big.jsonl:3: not UTF-8|exact.jsonl:3: not UTF-8"):
        read_results(p)


def test_resume_reads_a_stream_and_refuses_a_line_over_the_bound(tmp_path: Path) -> None:
    p = tmp_path / "r.jsonl"
    head = meta_line(run_meta("eng", "1", [], "1.00", 2)).encode()
    p.write_bytes(head + b"x" * (json_read.MAX_LINE_BYTES + 1) + b"\n")
    with pytest.raises(ResultsError, match="r.jsonl:2: a line longer than"):
        ResultsWriter.open(p, resume=True).close()
    row = json.dumps(Result("a", Outcome.PASS).to_json()).encode()
    p.write_bytes(head + row + b"\n" + b'{"id": "b", "outc')  # killed mid-line
    out = ResultsWriter.open(p, resume=True)
    out.close()
    assert [r.id for r in out.resumed.results] == ["a"] and p.read_bytes() == head + row + b"\n"


# ----------------------------------------------------------------- what a result stores


def values() -> dict[str, Any]:
    return {
        "small": "a1",
        "ids": [f"x{n}" for n in range(9000)],
        "text": "y" * 100_000,
        "quotes": '"' * 1500,  # 1,500 characters, 3,002 of JSON
        "controls": "\x01" * 400,  # 400 characters, 2,402 of JSON
        "nested": {"a": [{"b": list(range(2000))}]},
        "number": 10**30,
        "null": None,
    }


@pytest.mark.parametrize("count", [0, 1, MAX_DIFFS - 1, MAX_DIFFS, MAX_DIFFS + 1, 9000, 100_000])
def test_a_result_stores_at_most_the_bound_and_counts_the_rest(count: int) -> None:
    shapes = list(values().values())
    diffs = tuple(Diff(f"cards.x{n}", shapes[n % len(shapes)], MISSING) for n in range(count))
    r = Result("a", Outcome.FAIL, diffs=diffs)
    assert len(r.diffs) == min(count, MAX_DIFFS)
    assert r.diffs_omitted == max(0, count - MAX_DIFFS)
    for d in r.diffs:
        for v in (d.expected, d.observed):
            assert v is MISSING or len(json.dumps(v, ensure_ascii=False)) <= MAX_VALUE_CHARS
    line = json.dumps(r.to_json())
    assert len(line) < MAX_DIFFS * (2 * MAX_VALUE_CHARS + 100) + 1000
    back = Result.from_json(json.loads(line))  # the same bound again: nothing changes
    assert back.diffs == r.diffs and back.diffs_omitted == r.diffs_omitted
    assert ("diffs_omitted" in r.to_json()) == (count > MAX_DIFFS)


def test_each_value_and_path_is_clipped_with_its_length() -> None:
    for name, value in values().items():
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        (d,), _ = bounded_diffs([Diff("p", value, value)])
        if len(text) <= MAX_VALUE_CHARS:
            assert d.expected == value, name
        else:
            assert isinstance(d.expected, str) and d.expected.startswith(text[:20]), name
            assert f"clipped: {len(text):,} characters in all" in d.expected, name
            assert bounded_diffs([d])[0][0] == d  # clipping again keeps it
    (d,), _ = bounded_diffs([Diff("cards." + "k" * 50_000, 1, 2)])
    assert len(d.path) <= MAX_VALUE_CHARS and "50,006 characters" in d.path


def foreign_line(n_diffs: int, omitted: int | None = None) -> str:
    obj: dict[str, Any] = {
        "id": "many",
        "outcome": "fail",
        "keywords": ["taunt"],
        "clauses": ["taunt.1"],
        "message": "step 1: differs",
        "diffs": [
            {"path": f"cards.x{n}", "observed": {"zone": "hand", "note": "z" * 6000}}
            for n in range(n_diffs)
        ],
    }
    if omitted is not None:
        obj["diffs_omitted"] = omitted
    return json.dumps(obj)


@pytest.mark.parametrize(("n", "omitted"), [(60, None), (2000, None), (10, 7), (500, 3)])
def test_reports_show_at_most_the_bound_of_a_foreign_file(
    n: int, omitted: int | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = tmp_path / "foreign.jsonl"
    p.write_text(meta_line(run_meta("eng", "1", [], "1.00", 1)) + foreign_line(n, omitted) + "\n")
    (r,) = read_results(p).results
    more = max(0, n - MAX_DIFFS) + (omitted or 0)
    assert len(r.diffs) == min(n, MAX_DIFFS) and r.diffs_omitted == more
    assert cli(["report", str(p), "--out", str(tmp_path / "rep")]) == 0
    html = (tmp_path / "rep" / "index.html").read_text()
    assert html.count("cards.x") <= 2 * MAX_DIFFS + 5  # (the board may name a field too)
    assert f"and {more} more difference(s)" in html
    assert "z" * MAX_VALUE_CHARS not in html
    data = json.loads((tmp_path / "rep" / "results.json").read_text())
    assert "diffs_omitted" in json.dumps(data)
    assert f"and {more} more difference(s)" in (tmp_path / "rep" / "junit.xml").read_text()


BAD_BOUNDS = [[], "50", 5, None, {"diffs": -1}, {"diffs": "50"}, {"diffs": 1.5}, {"x": True}]


@pytest.mark.parametrize("value", BAD_BOUNDS)
def test_the_meta_lines_bounds_are_checked(
    value: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    meta = run_meta("eng", "1", [], "1.00", 0)
    meta["bounds"] = value
    p = tmp_path / "r.jsonl"
    p.write_text(meta_line(meta))
    with pytest.raises(ResultsError, match="r.jsonl:1: the meta line's `bounds` must be"):
        read_results(p)
    assert cli(["summary", str(p)]) == 2


def test_a_run_says_its_bounds_and_older_files_without_them_read(tmp_path: Path) -> None:
    meta = run_meta("eng", "1", [], "1.00", 0)
    assert meta["bounds"] == {"diffs": MAX_DIFFS, "value_chars": MAX_VALUE_CHARS}
    del meta["bounds"]
    p = tmp_path / "old.jsonl"
    p.write_text(meta_line(meta))
    assert read_results(p).meta == meta


# ----------------------------------------------------------------- duplicates


def duplicated(path: Path, ids: int, copies: int) -> Path:
    row = [json.dumps(Result(f"c{n}", Outcome.PASS, ("taunt",)).to_json()) for n in range(ids)]
    with open(path, "w") as f:
        f.write(meta_line(run_meta("eng", "1", ["taunt"], "1.00", ids)))
        for _ in range(copies):
            f.write("\n".join(row) + "\n")
    return path


WORDING = "case(s) recorded more than once"


@pytest.mark.parametrize(("ids", "copies"), [(1, 2), (3, 2), (2, 50), (1, 20_000), (5, 1)])
def test_every_reader_warns_of_duplicates_in_one_wording(
    ids: int, copies: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = duplicated(tmp_path / "d.jsonl", ids, copies)
    folder = tmp_path / "site-in"
    folder.mkdir()
    duplicated(folder / "d.jsonl", ids, copies)
    good = str(good_results(tmp_path / "good.jsonl"))
    runs = {
        "summary": ["summary", str(p)],
        "report": ["report", str(p), "--out", str(tmp_path / "rep")],
        "report --compare": ["report", "--compare", good, str(p)],
        "site": ["site", str(folder), "--out", str(tmp_path / "site")],
    }
    replaced = ids * (copies - 1)
    for name, argv in runs.items():
        capsys.readouterr()
        assert cli(argv) in (0, 1), name
        err = capsys.readouterr().err
        if copies == 1:
            assert WORDING not in err, name
        else:
            assert f"{ids} {WORDING} ({replaced:,} result line(s) replaced" in err, (name, err)
            assert err.count(WORDING) == 1, (name, err)
    run = read_results(p)
    assert len(run.results) == ids and run.duplicate_lines == replaced
    assert len(run.duplicates) == (ids if copies > 1 else 0)


def test_resume_and_the_action_warn_of_duplicates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    p = duplicated(tmp_path / "d.jsonl", 2, 3)
    ResultsWriter.open(p, resume=True).close()
    assert f"palconf run: warning: {p}: 2 {WORDING} (4 result line(s)" in capsys.readouterr().err
    from palconf.ci_action import _count_regressed

    _count_regressed(p, good_results(tmp_path / "good.jsonl"))
    assert f"palconf ci: warning: {p}: 2 {WORDING}" in capsys.readouterr().err


@pytest.mark.parametrize("copies", [100_000, pytest.param(1_000_000, marks=pytest.mark.slow)])
def test_many_duplicate_lines_summary_warns_in_flat_memory(copies: int, tmp_path: Path) -> None:
    """`summary` of 100,000 and a million lines of one case: a warning, and memory bounded
    by the distinct cases (a process: its peak RSS, beside that of 10 lines)."""
    _, _, base = summary_process(duplicated(tmp_path / "few.jsonl", 1, 10))
    code, err, rss = summary_process(duplicated(tmp_path / "d.jsonl", 1, copies))
    assert code == 0 and f"1 {WORDING} ({copies - 1:,} result line(s) replaced" in err
    assert rss < base + 20, (base, rss)


# ----------------------------------------------------------------- summary's memory


PEAK = """
import sys
from palconf.cli import main
try:
    code = main(sys.argv[1:])
finally:
    with open("/proc/self/status") as f:
        peak = [line.split()[1] for line in f if line.startswith("VmHWM:")][0]
    print(f"peak-kb {peak}", file=sys.stderr)
sys.exit(code)
"""


def summary_process(path: Path) -> tuple[int, str, float]:
    """`palconf summary PATH` as a process: exit status, stderr, peak RSS in MB (its own
    VmHWM: a fork's ru_maxrss would count the parent's pages)."""
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, "summary", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        check=False,
    )
    head, _, peak = proc.stderr.rpartition("peak-kb ")
    return proc.returncode, head, int(peak) / 1024


def big_results(path: Path, cases: int, diffs: int) -> Path:
    """A results file as an older palconf (no bounds) wrote it for an engine answering
    with thousands of extra cards: each line some megabytes."""
    with open(path, "w") as f:
        f.write(meta_line(run_meta("eng", "1", ["taunt"], "1.00", cases)))
        for n in range(cases):
            obj = json.loads(foreign_line(0))
            obj["id"] = f"case-{n}"
            obj["diffs"] = [
                {"path": f"cards.x{k}", "observed": {"zone": "hand", "k": "v" * 200}}
                for k in range(diffs)
            ]
            f.write(json.dumps(obj) + "\n")
    return path


@pytest.mark.slow
def test_summary_memory_is_flat_in_the_file_size(tmp_path: Path) -> None:
    small = big_results(tmp_path / "small.jsonl", 10, 9000)
    large = big_results(tmp_path / "large.jsonl", 100, 9000)
    assert large.stat().st_size > 200 * 1024**2
    _, _, rss_small = summary_process(small)
    code, err, rss_large = summary_process(large)
    assert code == 1 and "Traceback" not in err
    assert rss_large < rss_small + 40, (rss_small, rss_large)


def test_summary_keeps_only_what_it_prints(tmp_path: Path) -> None:
    p = big_results(tmp_path / "r.jsonl", 3, 200)
    from palconf.core.results_file import summary_only

    for r in read_results(p, keep=summary_only).results:
        assert r.diffs == () and r.stderr == "" and r.diffs_omitted == 0 and r.id
