"""Files palconf writes (palconf/safe_write.py): an exported case (`palconf fuzz --export`)
and an expectations file (`--update-expectations`) are written atomically, through a fresh
temporary name, never through a link out of their folder, never over an earlier export."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from palconf.core.safe_write import UnsafeWrite, write_text_atomic
from palconf.generators.export import ExportError, write_case
from palconf.running.expectations import Expectations

CASE: dict[str, Any] = {
    "id": "fuzz-sample",
    "title": "A card in hand is listed by its id",
    "clauses": [],
    "rules": ["B-2"],
    "setup": {
        "players": {
            "A": {"life": 5, "hand": [{"id": "h1", "kind": "pal", "power": 1}]},
            "B": {"life": 5},
        }
    },
    "actions": [],
    "expect": [{"after": 0, "observed": {"players": {"A": {"hand": ["h1"]}}}}],
}


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_an_export_is_written_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = write_case(CASE, tmp_path)
    assert path == tmp_path / "fuzz-sample.toml"
    assert 'id = "fuzz-sample"' in path.read_text(encoding="utf-8")
    assert leftovers(tmp_path) == []
    mask = os.umask(0o022)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def test_an_export_never_writes_through_a_link_out_of_its_folder(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere.txt"
    out.mkdir()
    elsewhere.write_text("precious", encoding="utf-8")
    (out / "fuzz-sample.toml").symlink_to(elsewhere)
    with pytest.raises(ExportError, match="symbolic link"):
        write_case(CASE, out, overwrite=True)
    assert elsewhere.read_text(encoding="utf-8") == "precious"
    assert (out / "fuzz-sample.toml").is_symlink() and leftovers(out) == []


def test_an_export_does_not_replace_an_earlier_one_unless_asked(tmp_path: Path) -> None:
    earlier = tmp_path / "fuzz-sample.toml"
    earlier.write_text("# hand-edited\n", encoding="utf-8")
    with pytest.raises(ExportError, match="exists.*--overwrite"):
        write_case(CASE, tmp_path)
    assert earlier.read_text(encoding="utf-8") == "# hand-edited\n"
    write_case(CASE, tmp_path, overwrite=True)
    assert 'id = "fuzz-sample"' in earlier.read_text(encoding="utf-8")
    assert leftovers(tmp_path) == []


def test_a_write_killed_midway_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "x.toml"
    target.write_text("old\n", encoding="utf-8")

    def killed(fd: int) -> None:
        raise KeyboardInterrupt  # as if ^C came while the data was being flushed

    monkeypatch.setattr(os, "fsync", killed)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert leftovers(tmp_path) == []


def test_a_planted_temporary_name_is_never_followed(tmp_path: Path) -> None:
    """The old writer used the fixed name FILE.tmp: a link planted there was written through,
    and FILE became the link."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious", encoding="utf-8")
    target = tmp_path / "engine.toml"
    for planted in (target.with_name("engine.toml.tmp"), target.with_name(".engine.toml.tmp")):
        planted.symlink_to(outside)
    Expectations([], target).write(target)
    assert outside.read_text(encoding="utf-8") == "precious"
    assert target.is_file() and not target.is_symlink()
    assert target.read_text(encoding="utf-8").startswith("# palconf expectations")


def test_an_expectations_file_that_is_a_link_keeps_its_link(tmp_path: Path) -> None:
    real = tmp_path / "kept" / "engine.toml"
    real.parent.mkdir()
    real.write_text("", encoding="utf-8")
    link = tmp_path / "engine.toml"
    link.symlink_to(real)
    Expectations([], link).write(link)
    assert link.is_symlink() and real.is_file()
    assert real.read_text(encoding="utf-8").startswith("# palconf expectations")
    assert leftovers(tmp_path) == [] and leftovers(real.parent) == []


def test_a_name_outside_the_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    for name in ("../x.toml", "sub/../../x.toml", "/elsewhere/x.toml"):
        with pytest.raises(UnsafeWrite, match="not a file name inside"):
            write_text_atomic(tmp_path / "out" / name, "", inside=tmp_path / "out")
    assert not (tmp_path / "x.toml").exists()
