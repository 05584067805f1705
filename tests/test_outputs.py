"""The outputs family (issue 25, classes 1 and 2): every file palconf writes goes through the
one safe writer (palconf.core.safe_write), whatever is at the target: a device, a full
disk (/dev/full), a FIFO with no reader, a folder, a socket, a missing, read-only or
unwritable folder, a link planted in an output folder (a file or a sub-folder), a second
run on the same results file. Each writer is tried against each kind it can meet, from
the command line (`palconf.cli.main`, in-process): the expected exit status and message,
no traceback, nothing written outside the test's temporary folder, and what was there
before (a device, a precious file) left as it was.
"""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from palconf import paths
from palconf.cli import main
from palconf.core.results_file import ResultsWriter, read_results
from palconf.core.safe_write import check_folder

CASES = paths.CASES / "taunt"
CASE = "taunt-any-of-several-rested-taunt-pals-may-be-chosen"
ROOT = os.geteuid() == 0


def palconf(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


# ---------------------------------------------------------------- writers of one file


def run_results(target: str) -> list[str]:
    return ["run", "--cases", str(CASES), "--case", CASE, "--results", target]


def explain_transcript(target: str) -> list[str]:
    return ["explain", CASE, "--cases", str(CASES), "--transcript", target]


def run_expectations(target: str) -> list[str]:
    args = ["run", "--cases", str(CASES), "--case", CASE]
    return [*args, "--expectations", target, "--update-expectations"]


FILE_WRITERS: dict[str, Callable[[str], list[str]]] = {
    "results": run_results,
    "transcript": explain_transcript,
    "expectations": run_expectations,
}


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    yield path


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    yield path
    s.close()


def _char_device(path: str) -> bool:
    return stat.S_ISCHR(os.stat(path).st_mode)


@pytest.mark.parametrize("writer", sorted(FILE_WRITERS))
def test_dev_null_is_written_into_and_stays_a_device(
    writer: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = palconf(capsys, *FILE_WRITERS[writer]("/dev/null"))
    if writer == "expectations":  # read first: a device is not an expectations file
        assert code == 2 and "not a regular file" in err
    else:
        assert code == 0, err
    assert _char_device("/dev/null")


@pytest.mark.parametrize("writer", ["results", "transcript"])
def test_a_full_disk_is_a_message(writer: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = palconf(capsys, *FILE_WRITERS[writer]("/dev/full"))
    assert code == 2 and "/dev/full" in err and "no space left" in err, err
    assert _char_device("/dev/full")


@pytest.mark.parametrize("writer", ["results", "transcript"])
def test_a_fifo_with_no_reader_is_refused_not_waited_on(
    writer: str, fifo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = palconf(capsys, *FILE_WRITERS[writer](str(fifo)))
    assert code == 2 and "FIFO with no reader" in err, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize("writer", sorted(FILE_WRITERS))
def test_a_socket_is_refused(
    writer: str, unix_socket: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = palconf(capsys, *FILE_WRITERS[writer](str(unix_socket)))
    assert code == 2 and ("a socket" in err or "not a regular file" in err), err
    assert stat.S_ISSOCK(os.stat(unix_socket).st_mode)


@pytest.mark.parametrize("writer", sorted(FILE_WRITERS))
def test_a_folder_is_refused(
    writer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "folder"
    target.mkdir()
    (target / "keep").write_text("x", encoding="utf-8")
    code, err = palconf(capsys, *FILE_WRITERS[writer](str(target)))
    assert code == 2 and ("a folder" in err or "not a regular file" in err), err
    assert [p.name for p in target.iterdir()] == ["keep"]


#: folders a file cannot be written into: (the target in it, a fragment of the message);
#: /proc takes no new file, not even from root (a read-only folder as CI's root sees one)
UNWRITABLE = {
    "missing": ("no/such/f", "no such folder"),
    "proc": ("/proc/palconf-issue-25", "cannot write /proc/palconf-issue-25"),
    "read-only": ("ro/f", "permission denied"),
}


@pytest.mark.parametrize("writer", sorted(FILE_WRITERS))
@pytest.mark.parametrize("where", sorted(UNWRITABLE))
def test_a_folder_a_file_cannot_be_written_into_is_a_message(
    writer: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target, message = UNWRITABLE[where]
    if where == "read-only":
        if ROOT:
            pytest.skip("root writes into a read-only folder (/proc stands in)")
        (tmp_path / "ro").mkdir(mode=0o555)
    try:
        code, err = palconf(capsys, *FILE_WRITERS[writer](str(tmp_path / target)))
    finally:
        if where == "read-only":
            (tmp_path / "ro").chmod(0o755)
    assert code == 2 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["ro"])
    assert where != "read-only" or list((tmp_path / "ro").iterdir()) == []


@pytest.mark.parametrize("writer", sorted(FILE_WRITERS))
def test_a_link_the_user_names_is_kept_and_its_file_written(
    writer: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    real = tmp_path / "kept" / "file"
    real.parent.mkdir()
    real.write_text("", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(real)
    code, err = palconf(capsys, *FILE_WRITERS[writer](str(link)))
    assert code == 0, err
    assert link.is_symlink() and real.is_file() and real.stat().st_size > 0


# ---------------------------------------------------------------- writers of a folder


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    assert main(run_results(str(folder / "oracle.jsonl"))) == 0
    return folder


def report_out(results: Path, out: str) -> list[str]:
    return ["report", str(results / "oracle.jsonl"), "--out", out]


def run_report(results: Path, out: str) -> list[str]:
    return ["run", "--cases", str(CASES), "--case", CASE, "--report", out]


def compare_out(results: Path, out: str) -> list[str]:
    file = str(results / "oracle.jsonl")
    return ["report", "--compare", file, file, "--format", "json", "--out", out]


def site_out(results: Path, out: str) -> list[str]:
    return ["site", str(results), "--out", out]


FOLDER_WRITERS: dict[str, tuple[Callable[[Path, str], list[str]], str, str]] = {
    # writer: (arguments, a file it writes, a sub-folder it writes into)
    "report": (report_out, "index.html", "badges"),
    "run-report": (run_report, "junit.xml", "badges"),
    "compare": (compare_out, "compare.md", ""),
    "site": (site_out, "index.html", "cases"),
}


@pytest.mark.parametrize("writer", sorted(FOLDER_WRITERS))
def test_a_link_planted_in_the_output_folder_is_refused(
    writer: str, results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, name, _ = FOLDER_WRITERS[writer]
    out, precious = tmp_path / "out", tmp_path / "precious"
    out.mkdir()
    precious.write_text("keep", encoding="utf-8")
    (out / name).symlink_to(precious)
    code, err = palconf(capsys, *args(results_dir, str(out)))
    assert code == 2 and "symbolic link" in err, err
    assert precious.read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize("writer", sorted(w for w in FOLDER_WRITERS if FOLDER_WRITERS[w][2]))
def test_a_linked_sub_folder_is_refused(
    writer: str, results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, _, sub = FOLDER_WRITERS[writer]
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / sub).symlink_to(elsewhere, target_is_directory=True)
    code, err = palconf(capsys, *args(results_dir, str(out)))
    assert code == 2 and "symbolic link" in err, err
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("writer", sorted(FOLDER_WRITERS))
def test_a_fifo_planted_in_the_output_folder_is_refused(
    writer: str, results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, name, _ = FOLDER_WRITERS[writer]
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / name)
    code, err = palconf(capsys, *args(results_dir, str(out)))
    assert code == 2 and "is a FIFO" in err, err
    assert stat.S_ISFIFO(os.stat(out / name).st_mode)


@pytest.mark.parametrize("writer", sorted(FOLDER_WRITERS))
@pytest.mark.parametrize("target", ["file", "/dev/null", "/proc/palconf-issue-25"])
def test_an_output_folder_that_cannot_be_one_is_a_message(
    writer: str, target: str, results_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args, _, _ = FOLDER_WRITERS[writer]
    if target == "file":
        target = str(tmp_path / "file")
        Path(target).write_text("keep", encoding="utf-8")
    code, err = palconf(capsys, *args(results_dir, target))
    assert code == 2 and target in err, err
    assert _char_device("/dev/null")
    if target.endswith("file"):
        assert Path(target).read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize("below", [False, True])
def test_a_report_folder_that_cannot_be_one_is_refused_before_the_run(
    below: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`run --report`, `report --out` and `site --out` look at the folder before the work
    (a run of the whole suite, a site of a page a case), not after it."""
    file = tmp_path / "file"
    file.write_text("keep", encoding="utf-8")
    target = file / "sub" if below else file
    results = tmp_path / "r.jsonl"
    code, err = palconf(capsys, *run_results(str(results)), "--report", str(target))
    assert code == 2 and str(target) in err and "not a folder" in err, err
    assert not results.exists()  # nothing ran
    assert file.read_text(encoding="utf-8") == "keep"
    assert check_folder(tmp_path / "new" / "deeper") is None  # may be made: nothing made
    assert not (tmp_path / "new").exists()


# ---------------------------------------------------------------- two runs, one results file


@pytest.mark.parametrize("resume", [False, True])
def test_a_second_run_on_a_results_file_in_use_refuses_and_changes_nothing(
    resume: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "same.jsonl"
    assert main(run_results(str(path))) == 0
    first = ResultsWriter.open(path, resume=True)  # the first run, holding its lock
    try:
        first.stream.write('{"id": "half a line')  # and writing, for now
        before = path.read_bytes()
        code, err = palconf(capsys, *run_results(str(path)), *(["--resume"] if resume else []))
        assert path.read_bytes() == before  # not emptied, not cut, nothing added
    finally:
        first.close()
    assert code == 2 and "another palconf run is writing this results file" in err, err


def test_a_results_file_is_locked_only_while_the_run_lasts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.jsonl"
    assert main(run_results(str(path))) == 0
    assert main([*run_results(str(path)), "--resume"]) == 0
    assert len(read_results(path).results) == 1 and not read_results(path).duplicates
