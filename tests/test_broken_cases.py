"""Every kind of broken case file (tests/data/broken-cases/, its table expected.toml) makes
`palconf run` and `palconf lint` exit 2 with a message naming the file, the line and the
field: never a traceback, never a file skipped without a word, never a hang.

Text kinds are files in the corpus; the binary, huge, deep, link, FIFO and unreadable ones
are made at test time by the recipe functions below (`RECIPES`). Each kind is run on its
own, beside a good case of its folder, and the whole corpus at once (every broken file
reported, the good ones loaded)."""

from __future__ import annotations

import errno
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import tomli

from palconf.cases.loader import CaseLoadError, load_cases
from palconf.cli import main

CORPUS = Path(__file__).parent / "data" / "broken-cases"
TABLE = tomli.loads((CORPUS / "expected.toml").read_text(encoding="utf-8"))
KINDS: dict[str, dict[str, Any]] = TABLE["kinds"]
STATUS: int = TABLE["status"]
COMMANDS = ("run", "lint")
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def neighbour(group: str) -> str:
    """The good case that sits in each folder of the corpus."""
    return f"{group}/good-{group}-neighbour.toml"


def group_of(kind: dict[str, Any]) -> str:
    return str(kind["file"]).split("/")[0]


# ---------------------------------------------------------------- recipes


@dataclass
class Making:
    """Where a recipe writes, and how it undoes what outlives the test (chmod)."""

    root: Path
    monkeypatch: pytest.MonkeyPatch
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    fifos: list[Path] = field(default_factory=list)

    def path(self, rel: str) -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        return p


def good_text(name: str, group: str = "encoding") -> str:
    """The good case of a folder, made into the case `name`."""
    text = (CORPUS / neighbour(group)).read_text(encoding="utf-8")
    return text.replace(f'id = "good-{group}-neighbour"', f'id = "{name}"')


def _stem(kind: dict[str, Any]) -> str:
    return Path(kind["file"]).stem


def _title_with(text: str, insert: str) -> str:
    return text.replace('title = "Brave 200', f'title = "Brave{insert} 200', 1)


def utf8_bom(m: Making, kind: dict[str, Any]) -> None:
    m.path(kind["file"]).write_bytes(b"\xef\xbb\xbf" + good_text(_stem(kind)).encode())


def utf16_with_bom(m: Making, kind: dict[str, Any]) -> None:
    m.path(kind["file"]).write_bytes(good_text(_stem(kind)).encode("utf-16"))


def utf16_without_bom(m: Making, kind: dict[str, Any]) -> None:
    m.path(kind["file"]).write_bytes(good_text(_stem(kind)).encode("utf-16-le"))


def latin1(m: Making, kind: dict[str, Any]) -> None:
    text = _title_with(good_text(_stem(kind)), " café")
    m.path(kind["file"]).write_bytes(text.encode("latin-1"))


def nul_byte(m: Making, kind: dict[str, Any]) -> None:
    m.path(kind["file"]).write_bytes(_title_with(good_text(_stem(kind)), "\0").encode())


def surrogate_bytes(m: Making, kind: dict[str, Any]) -> None:
    # U+DC80 encoded as if it were a character: not UTF-8 (a lone surrogate)
    text = good_text(_stem(kind)).encode()
    m.path(kind["file"]).write_bytes(text.replace(b"Brave 200", b"Brave\xed\xb2\x80 200", 1))


def huge_file(m: Making, kind: dict[str, Any]) -> None:
    with m.path(kind["file"]).open("wb") as f:  # 50 MB, sparse: quick to make
        f.write(good_text(_stem(kind)).encode())
        f.truncate(50 * 1024 * 1024)


def _deep(m: Making, kind: dict[str, Any], old: str, new: str) -> None:
    text = good_text(_stem(kind), "deep")
    assert old in text
    m.path(kind["file"]).write_text(text.replace(old, new, 1), encoding="utf-8")


RULES_LINE = 'rules = ["B-12"]\n'  # line 5; what is put after it is line 6


def deep_array(m: Making, kind: dict[str, Any]) -> None:
    _deep(m, kind, RULES_LINE, RULES_LINE + "notes = " + "[" * 1000 + "1" + "]" * 1000 + "\n")


def deep_inline_tables(m: Making, kind: dict[str, Any]) -> None:
    value = "{ b = " * 50_000 + "1" + " }" * 50_000
    _deep(m, kind, RULES_LINE, RULES_LINE + f"notes = {value}\n")


def deep_header(m: Making, kind: dict[str, Any]) -> None:
    text = good_text(_stem(kind), "deep") + "[" + ".".join(["a"] * 20_000) + "]\n"
    m.path(kind["file"]).write_text(text, encoding="utf-8")


def deep_dotted_key(m: Making, kind: dict[str, Any]) -> None:
    text = good_text(_stem(kind), "deep") + ".".join(["a"] * 20_000) + " = 1\n"
    m.path(kind["file"]).write_text(text, encoding="utf-8")


def deep_malformed_action(m: Making, kind: dict[str, Any]) -> None:
    # 150 levels: within what TOML parsers take (tomli: 400), beyond what a case may hold
    action = 'do = "attack"\nplayer = "A"\nattacker = "a1"\ntarget = "master"\n'
    _deep(m, kind, action, "malformed = " + "[" * 150 + "]" * 150 + "\n")


def deep_assigned_chain(m: Making, kind: dict[str, Any]) -> None:
    chain = "".join(f'{{ id = "s{i}", kind = "structure", assigned = [' for i in range(60))
    chain += "] }" * 60
    player_b = "[setup.players.B]\nlife = 5\n"
    _deep(m, kind, player_b, player_b + f"structures = [{chain}]\n")


def dangling_link(m: Making, kind: dict[str, Any]) -> None:
    os.symlink("no-such-case.toml", m.path(kind["file"]))


def link_loop(m: Making, kind: dict[str, Any]) -> None:
    p = m.path(kind["file"])
    os.symlink(p.name, p)


def _link_out(m: Making, kind: dict[str, Any], target: str) -> None:
    """A link planted in the cases folder that leads out of it (issue 36)."""
    os.symlink(target, m.path(kind["file"]))


def outside(m: Making) -> Path:
    """A good case file and a folder of them beside the cases folder, not in it."""
    out = m.root.parent / "outside"
    (out / "brave").mkdir(parents=True, exist_ok=True)
    for p in (out / "outside.toml", out / "brave" / "outside-brave.toml"):
        p.write_text(good_text(p.stem, "files"), encoding="utf-8")
    return out


def link_to_root(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, "/")


def link_to_root_named_toml(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, "/")


def link_to_etc_passwd(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, "/etc/passwd")


def link_up_two(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, "../..")


def link_to_outside_case(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, str(outside(m) / "outside.toml"))


def link_to_outside_case_relative(m: Making, kind: dict[str, Any]) -> None:
    outside(m)
    _link_out(m, kind, "../../outside/outside.toml")


def link_to_outside_folder(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, str(outside(m) / "brave"))


def link_to_missing_outside(m: Making, kind: dict[str, Any]) -> None:
    _link_out(m, kind, "/no-such-folder/gone.toml")


def link_through_relay(m: Making, kind: dict[str, Any]) -> None:
    """An inner link to a second one (not a case: no `.toml`) that leads out."""
    relay = m.path("links/relay")
    if not relay.is_symlink():
        os.symlink(str(outside(m) / "outside.toml"), relay)
    _link_out(m, kind, "relay")


def folder_named_toml(m: Making, kind: dict[str, Any]) -> None:
    m.path(kind["file"]).mkdir()


def fifo(m: Making, kind: dict[str, Any]) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    p = m.path(kind["file"])
    os.mkfifo(p)
    m.fifos.append(p)


def _permission_denied(path: Path) -> OSError:
    return PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))


def _unreadable(m: Making, p: Path, patched: str) -> None:
    """chmod 000; where that does not stop reading (root), the system call refuses."""
    mode = p.stat().st_mode
    os.chmod(p, 0)
    m.cleanups.append(lambda: os.chmod(p, mode))
    if IS_ROOT:
        real = getattr(os, patched)

        def refusing(path: Any, *args: Any, **kwargs: Any) -> Any:
            if os.fspath(path) == str(p):
                raise _permission_denied(p)
            return real(path, *args, **kwargs)

        m.monkeypatch.setattr(os, patched, refusing)


def unreadable_file(m: Making, kind: dict[str, Any]) -> None:
    p = m.path(kind["file"])
    p.write_text(good_text(_stem(kind), "files"), encoding="utf-8")
    _unreadable(m, p, "open")


def unreadable_folder(m: Making, kind: dict[str, Any]) -> None:
    folder = m.root / kind["file"]
    inside = folder / "inside-unreadable-folder.toml"
    inside.parent.mkdir(parents=True)
    inside.write_text(good_text(inside.stem, "files"), encoding="utf-8")
    _unreadable(m, folder, "scandir")


def undecodable_file_name(m: Making, kind: dict[str, Any]) -> None:
    folder = m.path(kind["file"]).parent
    name = os.fsencode(folder) + b"/bad-\xff-name.toml"
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644)
    except (OSError, ValueError):
        pytest.skip("this file system takes only UTF-8 file names")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(good_text("undecodable-file-name", "files"))


def second_copy(m: Making, kind: dict[str, Any]) -> None:
    for rel in (kind["source"], kind["file"]):
        shutil.copyfile(CORPUS / kind["source"], m.path(rel))


RECIPES: dict[str, Callable[[Making, dict[str, Any]], None]] = {
    f.__name__.replace("_", "-"): f
    for f in (
        utf8_bom,
        utf16_with_bom,
        utf16_without_bom,
        latin1,
        nul_byte,
        surrogate_bytes,
        huge_file,
        deep_array,
        deep_inline_tables,
        deep_header,
        deep_dotted_key,
        deep_malformed_action,
        deep_assigned_chain,
        dangling_link,
        link_loop,
        link_to_root,
        link_to_root_named_toml,
        link_to_etc_passwd,
        link_up_two,
        link_to_outside_case,
        link_to_outside_case_relative,
        link_to_outside_folder,
        link_to_missing_outside,
        link_through_relay,
        folder_named_toml,
        fifo,
        unreadable_file,
        unreadable_folder,
        undecodable_file_name,
        second_copy,
    )
}


def make(m: Making, name: str) -> None:
    """One kind, and the good case of its folder, under `m.root`."""
    kind = KINDS[name]
    group = group_of(kind)
    if not (m.root / neighbour(group)).exists():
        shutil.copyfile(CORPUS / neighbour(group), m.path(neighbour(group)))
    if "recipe" in kind:
        RECIPES[kind["recipe"]](m, kind)
    else:
        shutil.copyfile(CORPUS / kind["file"], m.path(kind["file"]))


# ---------------------------------------------------------------- running the CLI


@contextmanager
def fifo_watchdog(fifos: list[Path], seconds: float = 20) -> Iterator[list[Path]]:
    """Should the loader block opening a FIFO, open its other end after `seconds` (the
    reader then goes on) and report it: a hang fails the test instead of stalling it."""
    done, hung = threading.Event(), []

    def watch() -> None:
        if done.wait(seconds):
            return
        for p in fifos:
            try:
                os.close(os.open(p, os.O_WRONLY | os.O_NONBLOCK))
                hung.append(p)
            except OSError:  # nobody is reading it
                pass

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield hung
    finally:
        done.set()
        thread.join()


def run_cli(command: str, m: Making, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    with fifo_watchdog(m.fifos) as hung:
        code = main([command, "--cases", str(m.root)])
    assert not hung, f"palconf {command} blocked opening the FIFO(s) {hung}"
    out = capsys.readouterr()
    return code, out.out + out.err


def error_lines(output: str) -> list[str]:
    """The listing of problems: `  FILE[:LINE[:COL]]: message` after its heading."""
    return [line.strip() for line in output.splitlines() if line.startswith("  ")]


def reported(kind: dict[str, Any], errors: list[str]) -> bool:
    """Whether the listing has the kind's error: its file, its line (or none), its text."""
    where = f"{kind['file']}:{kind['line']}:" if "line" in kind else f"{kind['file']}: "
    return any(e.startswith(where) and kind["message"] in e for e in errors)


# ---------------------------------------------------------------- the tests


def test_the_corpus_has_at_least_sixty_kinds_and_every_file_is_in_the_table() -> None:
    assert len(KINDS) >= 60 and STATUS == 2
    listed = {k["file"] for k in KINDS.values() if "recipe" not in k}
    listed |= {k["source"] for k in KINDS.values() if "source" in k}
    groups = {group_of(k) for k in KINDS.values()}
    listed |= {neighbour(g) for g in groups}
    on_disk = {p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.toml")}
    on_disk.discard("expected.toml")
    assert on_disk == listed, "files not in expected.toml, or kinds whose file is missing"
    assert {k["recipe"] for k in KINDS.values() if "recipe" in k} == set(RECIPES)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_kind_is_reported_with_its_line(
    name: str, command: str, making: Making, capsys: pytest.CaptureFixture[str]
) -> None:
    kind = KINDS[name]
    make(making, name)
    code, output = run_cli(command, making, capsys)
    errors = error_lines(output)
    assert code == STATUS, output
    assert "Traceback" not in output
    assert reported(kind, errors), (
        f"expected {kind['file']}:{kind.get('line')}: …{kind['message']}…\n" + output
    )
    assert not any(e.startswith(neighbour(group_of(kind))) for e in errors), output


@pytest.mark.parametrize("command", COMMANDS)
def test_the_whole_corpus_at_once_reports_every_broken_file(
    command: str, making: Making, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in KINDS:
        make(making, name)
    code, output = run_cli(command, making, capsys)
    errors = error_lines(output)
    assert code == STATUS and "Traceback" not in output, output
    missing = [name for name, kind in KINDS.items() if not reported(kind, errors)]
    assert not missing, "\n".join(missing) + "\n" + output
    # one problem or more for each broken file, none for a good one
    files = {e.split(":")[0] for e in errors}
    assert {k["file"] for k in KINDS.values()} <= files
    assert not any(
        f.startswith(tuple(neighbour(group_of(k)) for k in KINDS.values())) for f in files
    )


def test_the_good_cases_beside_the_broken_ones_still_load(making: Making) -> None:
    for name in KINDS:
        make(making, name)
    with fifo_watchdog(making.fifos) as hung, pytest.raises(CaseLoadError) as e:
        load_cases(making.root)
    assert not hung
    loaded = {c.path for c in e.value.loaded}
    groups = {group_of(k) for k in KINDS.values()}
    assert {neighbour(g) for g in groups} | {KINDS["duplicate-case-id"]["source"]} <= loaded
    broken = {k["file"] for k in KINDS.values()}
    assert not loaded & broken
