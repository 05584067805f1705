"""`palconf fuzz --database redis://…`: campaigns (on several machines) sharing one Hypothesis
example database on a real `redis-server`, each replaying the failures the others found.

Needs Debian's `redis-server` and the `redis` package (`pip install palconf[redis]`);
skipped, with the reason, without either. The server runs on 127.0.0.1 on a free port, saves
nothing, and is killed at the end.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = f"{sys.executable} {ROOT / 'tests' / 'engines' / 'misread.py'} stealth-blockable"
#: two seeds that, without a database, need many games to find the misreading
SEEDS = (1, 3)

pytestmark = pytest.mark.slow  # a Redis server and two fuzz campaigns


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (Debian's package `redis-server`)")
    redis = pytest.importorskip("redis", reason="the `redis` package: pip install palconf[redis]")
    port = free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        else:
            pytest.fail(f"redis-server did not answer on port {port}")
        yield f"redis://127.0.0.1:{port}/0"
        client.close()
    finally:
        proc.kill()
        proc.wait(10)


def found_at(seed: int, *extra: str) -> int:
    """Run `palconf fuzz` as its own process; the example its difference was found at."""
    cmd = [sys.executable, "-m", "palconf.cli", "fuzz", "--engine-cmd", ENGINE]
    cmd += ["--no-directed", "--examples", "300", "--seed", str(seed), "-q", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 1, done.stdout + done.stderr
    match = re.search(r"difference found at example (\d+) of", done.stdout)
    assert match, done.stdout
    return int(match.group(1))


def test_two_campaigns_sharing_redis_replay_each_others_failures(redis_url: str) -> None:
    import redis

    alone = [found_at(seed) for seed in SEEDS]
    assert min(alone) > 10  # without the database, each needs many games
    first, second = SEEDS
    # the first campaign finds it the long way and saves it; the second replays it first
    assert found_at(first, "--database", redis_url) == alone[0]
    assert found_at(second, "--database", redis_url) <= 3
    # the other way round, on an emptied database
    redis.Redis.from_url(redis_url).flushdb()
    assert found_at(second, "--database", redis_url) == alone[1]
    assert found_at(first, "--database", redis_url) <= 3


def test_an_unreachable_redis_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("redis", reason="the `redis` package: pip install palconf[redis]")
    from palconf.cli import main as cli_main

    url = f"redis://127.0.0.1:{free_port()}/0"
    assert cli_main(["fuzz", "--engine-cmd", ENGINE, "--database", url]) == 2
    err = capsys.readouterr().err
    assert "cannot reach the Redis server" in err and "Traceback" not in err


def test_without_the_redis_package_the_message_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from palconf.cli import main as cli_main

    monkeypatch.setitem(sys.modules, "redis", None)  # import redis: ImportError
    assert cli_main(["fuzz", "--engine-cmd", ENGINE, "--database", "redis://h:1/0"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'palconf[redis]'" in err and "Traceback" not in err
