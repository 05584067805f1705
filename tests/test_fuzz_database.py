"""`palconf fuzz --database` and PALCONF_HYPOTHESIS_DB (issue 36): a Redis URL's password
never reaches a message, and a place where no example can be saved (a device, a file, a
read-only folder, a URL of another scheme) is a usage error (exit 2) saying why, instead of
a campaign that saves nothing. The database is opened before any game: no engine runs."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from palconf.cli import main as cli_main
from palconf.generators.profiles import DatabaseError, masked, open_database

ROOT = Path(__file__).resolve().parent.parent
SERVE = f"{sys.executable} -m palconf serve"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


SECRETS = [  # (URL with a password, what a message may show of it)
    ("redis://:secret@127.0.0.1:PORT/0", "redis://:***@127.0.0.1:PORT/0"),
    ("redis://user:secret@127.0.0.1:PORT/0", "redis://user:***@127.0.0.1:PORT/0"),
    ("rediss://:secret@127.0.0.1:PORT/1", "rediss://:***@127.0.0.1:PORT/1"),
    ("redis://:s%40cr%3Aet@127.0.0.1:PORT/0", "redis://:***@127.0.0.1:PORT/0"),
    ("redis://:secret:more@127.0.0.1:PORT/0", "redis://:***@127.0.0.1:PORT/0"),
    ("redis://127.0.0.1:PORT/0?password=secret", "redis://127.0.0.1:PORT/0?password=***"),
    ("unix://:secret@/no/such.sock?db=0", "unix://:***@/no/such.sock?db=0"),
    ("redis://:secret@[::1]:PORT/0", "redis://:***@[::1]:PORT/0"),
]


@pytest.mark.parametrize("url, shown", SECRETS)
def test_a_redis_password_is_masked(url: str, shown: str) -> None:
    assert masked(url.replace("PORT", "6379")) == shown.replace("PORT", "6379")


@pytest.mark.parametrize("url, shown", SECRETS)
def test_a_redis_password_never_reaches_the_message(
    url: str, shown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("redis", reason="the `redis` package: pip install palconf[redis]")
    port = str(free_port())
    url, shown = url.replace("PORT", port), shown.replace("PORT", port)
    with pytest.raises(DatabaseError) as e:
        open_database(url)
    assert "secret" not in str(e.value) and "s%40cr" not in str(e.value)
    assert shown in str(e.value)
    assert cli_main(["fuzz", "--engine-cmd", SERVE, "--database", url]) == 2
    err = capsys.readouterr().err
    assert "secret" not in err and shown in err and "Traceback" not in err


def test_without_the_redis_package_the_password_is_masked_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "redis", None)  # import redis: ImportError
    with pytest.raises(DatabaseError) as e:
        open_database("redis://:secret@h:1/0", what="PALCONF_HYPOTHESIS_DB")
    assert "secret" not in str(e.value) and "redis://:***@h:1/0" in str(e.value)


def places(tmp_path: Path) -> list[tuple[str, str]]:
    """(a --database that can save nothing, the words of its error)."""
    (tmp_path / "file").write_text("x", encoding="utf-8")
    os.mkfifo(tmp_path / "fifo")
    return [
        ("/dev/null", "not a folder (a character device)"),
        ("/dev/zero", "not a folder (a character device)"),
        (str(tmp_path / "file"), "not a folder (a file)"),
        (str(tmp_path / "fifo"), "not a folder (a FIFO)"),
        (str(tmp_path / "file" / "sub"), "file is not a folder (a file)"),
        ("/dev/null/examples", "cannot be made: /dev/null is not a folder (a character device)"),
        ("http://x/y", "a URL palconf does not know (a folder, or redis://HOST:PORT/N)"),
        ("https://x/y", "a URL palconf does not know"),
        ("file:///tmp/x", "a URL palconf does not know"),
        ("redis:/x", "a URL palconf does not know"),
        ("Redis://h:1/0", "a URL palconf does not know"),
        ("ftp://:secret@x/y", "ftp://:***@x/y: a URL palconf does not know"),
    ]


def test_a_place_that_saves_nothing_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for spec, words in places(tmp_path):
        with pytest.raises(DatabaseError) as e:
            open_database(spec)
        assert words in str(e.value) and "secret" not in str(e.value), spec
        assert str(e.value).startswith("--database "), spec
        capsys.readouterr()
        assert cli_main(["fuzz", "--engine-cmd", SERVE, "--database", spec]) == 2, spec
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (spec, err)
    assert not (tmp_path / "http:").exists()  # `http://x/y` made no folder `./http:/x/y`


@pytest.mark.skipif(IS_ROOT, reason="a read-only folder does not stop root from writing")
def test_a_read_only_folder_is_a_usage_error(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    os.chmod(ro, 0o555)
    try:
        for spec in (ro, ro / "examples", ro / "a" / "b"):
            with pytest.raises(DatabaseError, match="cannot write"):
                open_database(str(spec))
    finally:
        os.chmod(ro, 0o755)


def test_a_read_only_folder_is_a_usage_error_as_root_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where chmod does not stop the user (root), the system's answer is stood in for."""
    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: p != str(ro) and real(p, mode))
    for spec in (ro, ro / "examples", ro / "a" / "b"):
        with pytest.raises(DatabaseError, match=f"--database {spec}: cannot write"):
            open_database(str(spec))


@pytest.mark.parametrize("spec", ["examples", "a/b/c", ".hypothesis/examples", "made"])
def test_a_folder_to_be_made_or_that_exists_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "made").mkdir()
    open_database(spec)
    open_database(str(tmp_path / spec))
