"""`palconf run` end to end (palconf/commands/run.py): faults of a real engine process spoil
one case each, a stopped run resumes, bad arguments exit 2, and the whole suite gives the
same verdicts through `palconf serve` as in-process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from palconf.cases.loader import Case
from palconf.cli import main
from palconf.core import Result
from palconf.engines import process as adapter
from palconf.engines.process import ProcessEngine
from palconf.running.supervisor import run_cases

from .harness import SERVE, SERVE_ARGV, broken, folder_of, gone, read_results, run_cli

#: the fixtures all_cases, oracle_results and small
pytest_plugins = ["tests.harness_fixtures"]

# ---------------------------------------------------------------- faults, end to end


@pytest.mark.parametrize(
    "mode,at,outcome,words",
    [
        ("crash", "act", "error", "exited with status 3 while answering `act`"),
        ("hang", "act", "timeout", "no reply within 0.5 s"),
        ("garbage", "act", "error", "is not JSON"),
        ("oversized", "act", "error", "over the size bound of 1048576 bytes"),
        ("wrong-shape", "observe", "error", "state: 'cards' is a required property"),
        ("wrong-shape", "act", "error", "does not follow the protocol"),
        ("junk", "act", "error", "DEBUG: got a request"),
        ("junk-after", "act", "error", "DEBUG: answered"),
        ("crash-then-bad-hello", "act", "error", "exited with status 3"),
    ],
)
def test_each_fault_spoils_one_case_only(
    small: tuple[Path, list[Case]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    mode: str,
    at: str,
    outcome: str,
    words: str,
) -> None:
    folder, cases = small
    target = cases[2]
    pids = tmp_path / "pids"
    cmd = broken(mode, on=target, at=at, marker=tmp_path / "marker", pidfile=pids)
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, cmd, results, "--timeout", "0.5") == 1
    rows = {r["id"]: r for r in read_results(results)}
    assert set(rows) == {c.id for c in cases}  # the run completed
    assert rows[target.id]["outcome"] == outcome
    assert words in rows[target.id]["message"]
    assert all(r["outcome"] == "pass" for i, r in rows.items() if i != target.id)
    out = capsys.readouterr()
    assert f"{outcome.upper()} {target.id}" in out.out and "Traceback" not in out.err
    started = [int(p) for p in pids.read_text().split()]
    # a restart after each fault that leaves the stream unusable (not after a wrong shape)
    assert len(started) == {"crash-then-bad-hello": 3, "wrong-shape": 1}.get(mode, 2)
    assert all(gone(p) for p in started)  # palconf leaves no engine behind


def test_stderr_chatter_is_kept_bounded_and_harmless(
    small: tuple[Path, list[Case]], tmp_path: Path
) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, broken("stderr", on=cases[1]), results) == 0
    rows = {r["id"]: r for r in read_results(results)}
    assert all(r["outcome"] == "pass" for r in rows.values())
    noisy = rows[cases[1].id]["stderr"]
    assert "chatter" in noisy and "dropped" in noisy and len(noisy) <= adapter.STDERR_LIMIT + 100
    assert all("stderr" not in r for i, r in rows.items() if i != cases[1].id)


def test_an_engine_that_exits_at_hello(
    small: tuple[Path, list[Case]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _ = small
    # no case ran: the run did not take place (exit 2), unlike a run that found failures (1)
    assert run_cli(folder, broken("exit-at-hello"), tmp_path / "r.jsonl") == 2
    err = capsys.readouterr().err
    assert "the engine did not start: the engine exited with status 4" in err
    assert "broken engine: exiting at hello" in err and "palconf smoke" in err
    assert "Traceback" not in err


def test_a_stopped_run_keeps_its_results_and_resume_finishes_it(
    small: tuple[Path, list[Case]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, broken("crash"), results, "--max-restarts", "1") == 1
    assert "the run stopped" in capsys.readouterr().err
    rows = read_results(results)
    assert [r["outcome"] for r in rows] == ["error", "error"]
    # the same engine, mended (`ok`), finishes the run; the two errors stay
    assert run_cli(folder, broken("ok"), results, "--resume") == 1
    rows = read_results(results)
    assert sorted(r["id"] for r in rows) == sorted(c.id for c in cases)
    assert [r["outcome"] for r in rows] == ["error"] * 2 + ["pass"] * 4


@pytest.mark.parametrize(
    "field,value,words",
    [
        ("name", "other-engine", "from the engine other-engine 0.1.0, this run's engine is"),
        ("version", "9.9", "from the engine palconf-oracle 9.9, this run's engine is"),
        ("rules_version", "0.99", "judged against rules 0.99, this run's are"),
    ],
)
def test_resume_refuses_results_of_another_engine(
    small: tuple[Path, list[Case]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    field: str,
    value: str,
    words: str,
) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, None, results, "--case", cases[0].id) == 0
    meta, *rest = results.read_text(encoding="utf-8").splitlines()
    data = json.loads(meta)
    (data["meta"] if field == "rules_version" else data["meta"]["engine"])[field] = value
    before = "\n".join([json.dumps(data), *rest]) + "\n"
    results.write_text(before, encoding="utf-8")
    capsys.readouterr()
    assert run_cli(folder, None, results, "--resume") == 2
    out, err = capsys.readouterr()
    assert "will not resume" in err and words in err
    assert "resuming" not in out  # (it said "resuming … done" before it refused)
    assert results.read_text(encoding="utf-8") == before  # nothing added
    if field == "rules_version":  # another engine may add to a file, another version never
        assert "never share a file" in err and "--resume-other-engine" not in err
        assert run_cli(folder, None, results, "--resume", "--resume-other-engine") == 2
        assert results.read_text(encoding="utf-8") == before
        return
    assert "--resume-other-engine" in err
    assert run_cli(folder, None, results, "--resume", "--resume-other-engine") == 0
    assert len(read_results(results)) == len(cases)


@pytest.mark.parametrize("layout", ["no-meta", "meta-after-results", "two-engines"])
def test_resume_and_report_judge_a_joined_file_by_one_rule(
    small: tuple[Path, list[Case]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    layout: str,
) -> None:
    """Issue 25, class 3: `--resume` onto a file with no meta line mixed in another engine's
    results; after `cat a.jsonl b.jsonl`, `report` credited the last meta line and `--resume`
    the first. One rule now: refused by both, unless told otherwise."""
    folder, cases = small
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run_cli(folder, None, a, "--case", cases[0].id) == 0
    assert run_cli(folder, None, b, "--case", cases[1].id) == 0
    meta_a, *rest_a = a.read_text(encoding="utf-8").splitlines()
    meta_b, *rest_b = b.read_text(encoding="utf-8").splitlines()
    other = json.loads(meta_b)
    other["meta"]["engine"]["name"] = "another-engine"
    joined = {
        "no-meta": rest_a,
        "meta-after-results": [*rest_a, meta_b, *rest_b],
        "two-engines": [meta_a, *rest_a, json.dumps(other), *rest_b],
    }[layout]
    results = tmp_path / "joined.jsonl"
    before = "\n".join(joined) + "\n"
    results.write_text(before, encoding="utf-8")
    capsys.readouterr()
    assert run_cli(folder, None, results, "--resume") == 2
    resumed_err = capsys.readouterr().err
    assert results.read_text(encoding="utf-8") == before
    if layout == "no-meta":
        assert "no meta line, so whose they are is unknown" in resumed_err
    else:
        assert "the file mixes runs" in resumed_err
        assert main(["report", str(results), "--out", str(tmp_path / "out")]) == 2
        assert "the file mixes runs" in capsys.readouterr().err
        assert main(["report", str(results), "--allow-mixed", "--out", str(tmp_path / "o")]) == 0
    assert run_cli(folder, None, results, "--resume", "--resume-other-engine") == 0
    assert {r["id"] for r in read_results(results)} == {c.id for c in cases}


def test_resume_of_the_same_engine_goes_on(small: tuple[Path, list[Case]], tmp_path: Path) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, None, results, "--case", cases[0].id) == 0
    assert run_cli(folder, None, results, "--resume") == 0
    assert len(read_results(results)) == len(cases)


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--resume"], "--resume needs --results"),
        (["--update-expectations"], "needs --expectations"),
        (["--engine-cmd", ""], "empty"),
        (["--engine-cmd", "'unbalanced"], "cannot parse"),
        (["--engine-cmd", "/no/such/engine --flag"], "not found"),
        (["--expectations", "/no/such/file.toml"], "no such file"),
        (["--case", "nosuch-*"], "no case matches --case 'nosuch-*'"),
        (["--keyword", "brave", "--case", "taunt-*"], "no case matches --keyword brave"),
    ],
)
def test_bad_arguments_exit_2(
    small: tuple[Path, list[Case]], capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    folder, _ = small
    assert main(["run", "--cases", str(folder), *argv]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "lint", "mutants", "coverage"])
def test_a_selection_of_no_case_exits_2(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "brave").mkdir()
    assert main([command, "--cases", str(tmp_path)]) == 2
    assert f"no case in {tmp_path}" in capsys.readouterr().err


def test_a_pattern_that_matches_nothing_beside_others_is_a_warning(
    small: tuple[Path, list[Case]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, cases = small
    argv = ["run", "--cases", str(folder), "--case", cases[0].id, "--case", "nosuch-*"]
    assert main(argv) == 0
    assert "warning: --case 'nosuch-*' matches no case" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv", [["--timeout", "0"], ["--timeout", "soon"], ["--max-restarts", "-1"]]
)
def test_bad_numbers_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", *argv])
    assert e.value.code == 2


# ---------------------------------------------------------------- the whole suite, via serve


@pytest.mark.slow  # the whole suite through a process engine
def test_serve_gives_the_in_process_verdicts_on_every_case(
    all_cases: list[Case], oracle_results: list[Result]
) -> None:
    with ProcessEngine(SERVE_ARGV) as engine:
        served = list(run_cases(engine, all_cases))
        # one process for the whole run, but a new one for each case that starts on a fresh
        # engine (no setup) and after each case that ends with `bye`
        again = sum(c.setup is None for c in all_cases) + sum(
            bool(c.steps) and c.steps[-1].is_bye for c in all_cases
        )
        assert again and engine.starts == 1 + again

    def key(r: Result) -> tuple[Any, ...]:
        return (r.id, r.outcome, r.message, r.step, r.diffs)

    assert len(served) == len(all_cases)
    assert [key(r) for r in served] == [key(r) for r in oracle_results]


@pytest.mark.slow  # the whole suite through a process engine
def test_sigkill_halfway_then_resume_gives_each_case_once(
    tmp_path: Path, all_cases: list[Case], oracle_results: list[Result]
) -> None:
    """120 cases, so that the two runs load fast; the engine is `palconf serve`."""
    chosen = all_cases[:: max(1, len(all_cases) // 120)]
    folder = folder_of(chosen, tmp_path / "cases")
    results = tmp_path / "r.jsonl"
    argv = [
        sys.executable,
        "-m",
        "palconf.cli",
        "run",
        "--engine-cmd",
        SERVE,
        "--cases",
        str(folder),
        "--results",
        str(results),
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    half = len(chosen) // 2
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= half:
            break
        time.sleep(0.005)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = len(read_results(results))
    assert 0 < written < len(chosen)
    done = subprocess.run(argv + ["--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"{written} case(s) done" in done.stdout
    rows = read_results(results)
    assert sorted(r["id"] for r in rows) == sorted(c.id for c in chosen)  # each once
    expected = {r.id: r.outcome for r in oracle_results}
    assert {r["id"]: r["outcome"] for r in rows} == {c.id: expected[c.id] for c in chosen}


def test_resume_cuts_a_torn_last_line(
    small: tuple[Path, list[Case]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, cases = small
    results = tmp_path / "r.jsonl"
    assert run_cli(folder, None, results) == 0
    lines = results.read_text().splitlines()  # the meta line, then the results
    results.write_text("\n".join(lines[:4]) + "\n" + lines[4][:40])  # killed mid-line
    assert run_cli(folder, None, results, "--resume") == 0
    assert "dropped an unfinished last line" in capsys.readouterr().err
    assert sorted(r["id"] for r in read_results(results)) == sorted(c.id for c in cases)
    results.write_text(lines[0] + "\nnot json\n" + lines[1] + "\n")
    assert run_cli(folder, None, results, "--resume") == 2
    assert ":2: not JSON" in capsys.readouterr().err


# ---------------------------------------------------------------- groups: keywords, protocol, base


def test_keyword_protocol_selects_the_protocol_cases_and_the_table_has_its_row(
    all_cases: list[Case], capsys: pytest.CaptureFixture[str]
) -> None:
    from palconf.registry import load as load_registry

    protocol = [c for c in all_cases if "protocol" in c.keywords]
    assert protocol and all(any(r.startswith("P-") for r in c.rules) for c in protocol)
    assert main(["run", "-k", "protocol"]) == 0
    out = capsys.readouterr().out
    assert f"palconf: {len(protocol)} case(s) of rules 1.00 against palconf-oracle" in out
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.split() and line.split()[0] in load_registry().groups
    }
    counts = {g: sum(g in c.keywords for c in protocol) for g in load_registry().groups}
    # one row per group with cases, in the registry's order (none for a group without)
    assert list(rows) == [g for g, n in counts.items() if n]
    assert rows["protocol"][1] == str(len(protocol))
    assert all(rows[g][1] == str(n) for g, n in counts.items() if n)


def test_an_unknown_keyword_lists_the_groups(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-k", "protocl"]) == 2
    err = capsys.readouterr().err
    assert "unknown keyword(s): protocl" in err and "protocol, base" in err


@pytest.mark.parametrize(
    "text,words",
    [
        ("[meta\n", "registry.toml is not valid TOML: "),
        ("[meta]\ncurrent = '1.00'\n", "registry.toml: versions: missing"),
        ("[meta]\n[versions]\n[clauses.x]\nkeyword = 'x'\n", "clauses.x.testable: must be true"),
        ("versions = 3\n", "registry.toml: versions: must be a table, not int"),
        (
            "[meta]\ncurrent = '9'\n[versions]\n[clauses]\n[keywords]\n[base]\n[interpretations]\n",
            "meta.current: names '9', which is not in [versions]",
        ),
    ],
)
def test_a_broken_registry_is_a_message_and_exit_2(
    tmp_path: Path,
    text: str,
    words: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """registry.load checks what it reads and names the file and the field (issue 24)."""
    from palconf import paths, registry

    (tmp_path / "registry.toml").write_text(text)
    monkeypatch.setattr(paths, "RULES", tmp_path)
    registry.load.cache_clear()
    try:
        code = main(["run"])
    finally:
        registry.load.cache_clear()
    assert code == 2
    err = capsys.readouterr().err
    assert f"palconf run: the rules registry {tmp_path / 'registry.toml'}" in err
    assert words in err and "Traceback" not in err
