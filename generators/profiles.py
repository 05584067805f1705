"""Hypothesis settings profiles for palconf: `ci`, `dev` and `fuzz`.

- `ci`: fast and deterministic. `derandomize=True` (each test's examples follow from the
  test itself, so a CI run is the same every time), no example database, no deadline
  (shared CI machines are slow now and then; speed lives in benchmarks, not tests), and
  `print_blob` so that a failure prints the `@reproduce_failure` line to replay it locally.
- `dev`: the default on a workstation: 50 examples a test (a quick verdict; CI has 300),
  random, with the example database, so that a failure found once is tried first on the
  next run until it is fixed.
- `fuzz`: long campaigns (`HYPOTHESIS_PROFILE=fuzz pytest …` or `palconf fuzz --database`):
  many examples, the database, health checks about slow data relaxed.

`load_profile()` picks `HYPOTHESIS_PROFILE` if set, else `ci` when the `CI` environment
variable is set (GitHub Actions, GitLab and most CI services set it), else `dev`.

Sharing the example database across machines. It is a folder of files
(`DirectoryBasedExampleDatabase`): `PALCONF_HYPOTHESIS_DB` names it (default
`.hypothesis/examples` under the current folder, Hypothesis's own default). To share:
- point `PALCONF_HYPOTHESIS_DB` at a shared or synced folder (each machine adds and reads
  files; the format is safe for several writers), or
- copy the folder: `tar czf hypothesis-db.tgz -C .hypothesis examples` on one machine and
  unpack it into the same place on another (or keep it as a CI artifact and restore it
  before the run), or
- in GitHub Actions, let CI save the folder as an artifact and read it back elsewhere with
  `GitHubArtifactDatabase(owner, repo)` wrapped in `ReadOnlyDatabase` and combined with the
  local folder by `MultiplexedDatabase` (that one needs the network; palconf's own test
  runs never do).
- or one Redis server for every machine: `palconf fuzz --database redis://HOST:PORT/N`, or
  `PALCONF_HYPOTHESIS_DB=redis://HOST:PORT/N` for the profiles (so for a HypoFuzz campaign
  on `generators/hypofuzz_target.py`): Hypothesis's `RedisExampleDatabase`, `pip install
  palconf[redis]`; each campaign first replays the failures the others found.
Only failing and shrunk examples are worth sharing: the database holds exactly those.

A place named (`--database`, `PALCONF_HYPOTHESIS_DB`) is checked before any game: a URL's
password never reaches a message (`masked`), and a place where nothing can be saved (a
device, a file, a folder palconf cannot write, a URL of another scheme) is a
`DatabaseError` saying why (issue 36: the campaign used to save nothing, silently).
"""

from __future__ import annotations

import importlib
import os
import re
import stat
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import InvalidArgument

from palconf.core.errors import UsageError
from palconf.core.safe_write import file_kind

PROFILES = ("ci", "dev", "fuzz")
DB_ENV = "PALCONF_HYPOTHESIS_DB"
DEFAULT_DB = os.path.join(".hypothesis", "examples")
#: Examples per property test in each profile (the property tests ask for these counts).
EXAMPLES = {"ci": 300, "dev": 50, "fuzz": 5000}


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


class DatabaseError(UsageError):
    """An example database that cannot be opened (no `redis` package, no server)."""


def masked(spec: str) -> str:
    """`spec` with a URL's password (`redis://user:PASSWORD@host`, `?password=…`) as `***`,
    for messages; anything else as it is."""
    parts = urllib.parse.urlsplit(spec)
    if "://" not in spec or not parts.scheme:
        return spec
    head = f"{spec[: spec.index('://')]}://"
    netloc, rest = parts.netloc, spec[len(head) + len(parts.netloc) :]
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:***@{host}" if colon else f"***@{host}"
    rest = re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", rest)
    return head + netloc + rest


def _secrets(spec: str) -> list[str]:
    parts = urllib.parse.urlsplit(spec)
    found = [parts.password or "", *re.findall(r"(?i)[?&]password=([^&#]*)", spec)]
    found += [urllib.parse.unquote(f) for f in found]
    return sorted({f for f in found if f}, key=len, reverse=True)


def _scrubbed(text: str, spec: str) -> str:
    """`text` (a client's error) without `spec`'s password, raw or decoded."""
    for secret in _secrets(spec):
        text = text.replace(secret, "***")
    return text


def _folder_problem(spec: str) -> str | None:
    """Why no example can be saved in the folder `spec` (made when missing), or None."""
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]+:/", spec):
        return (
            "a URL palconf does not know (a folder, or redis://HOST:PORT/N); it would be "
            f"a folder `./{masked(spec).replace('//', '/')}`"
        )
    path = Path(spec).absolute()
    for place in (path, *path.parents):
        try:
            mode = os.stat(place).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            return f"cannot be used: {place}: {e.strerror or e}"
        if not stat.S_ISDIR(mode):
            if place == path:
                return f"not a folder ({file_kind(mode)}): nothing could be saved in it"
            return f"cannot be made: {place} is not a folder ({file_kind(mode)})"
        if not os.access(str(place), os.W_OK | os.X_OK):
            return f"cannot write in {place}: no example could be saved"
        return None
    return None


def open_database(spec: str, what: str = "--database") -> ExampleDatabase:
    """A folder (made when missing), or `redis://HOST:PORT/N` (checked with a PING); `what`
    names the option or variable the spec came from, for the error message. A place where
    nothing could be saved is a `DatabaseError`; a password is never shown."""
    if not spec.startswith(REDIS_SCHEMES):
        problem = _folder_problem(spec)
        if problem:
            raise DatabaseError(
                f"{what} {masked(spec)}: {problem}; name a folder palconf can write, or "
                "redis://HOST:PORT/N"
            )
        return DirectoryBasedExampleDatabase(spec)
    try:  # imported by name: an optional extra, not installed everywhere (mypy included)
        redis: Any = importlib.import_module("redis")
        extra: Any = importlib.import_module("hypothesis.extra.redis")
    except ImportError:
        raise DatabaseError(
            f"{what} {masked(spec)}: a Redis database needs the `redis` package: "
            f"pip install 'palconf[redis]' (or: pip install redis)"
        ) from None
    try:
        client = redis.Redis.from_url(spec, socket_connect_timeout=5, socket_timeout=30)
        client.ping()
    except (redis.RedisError, ValueError) as e:
        raise DatabaseError(
            f"{what} {masked(spec)}: cannot reach the Redis server: {_scrubbed(str(e), spec)}"
        ) from None
    database: ExampleDatabase = extra.RedisExampleDatabase(client)
    return database


def database(env: Mapping[str, str] | None = None) -> ExampleDatabase:
    """PALCONF_HYPOTHESIS_DB: a folder (default `.hypothesis/examples`) or a Redis URL."""
    env = os.environ if env is None else env
    spec = env.get(DB_ENV)
    if not spec:  # the default, not checked: a read-only checkout still runs its tests
        return DirectoryBasedExampleDatabase(DEFAULT_DB)
    return open_database(spec, what=DB_ENV)


def register_profiles(env: Mapping[str, str] | None = None) -> None:
    """Register the three profiles with Hypothesis (safe to call more than once)."""
    slow_data = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]
    settings.register_profile(
        "ci",
        max_examples=EXAMPLES["ci"],
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    )
    shared = database(env)  # one object: HypoFuzz wants every test on the default database
    settings.register_profile("dev", max_examples=EXAMPLES["dev"], deadline=None, database=shared)
    settings.register_profile(
        "fuzz",
        max_examples=EXAMPLES["fuzz"],
        deadline=None,
        database=shared,
        suppress_health_check=slow_data,
    )


def profile_name(env: Mapping[str, str] | None = None) -> str:
    """The profile to load: HYPOTHESIS_PROFILE, else `ci` when CI is set, else `dev`."""
    env = os.environ if env is None else env
    name = env.get("HYPOTHESIS_PROFILE", "").strip()
    if name:
        return name
    return "ci" if env.get("CI", "").strip() not in ("", "0", "false", "False") else "dev"


def load_profile(env: Mapping[str, str] | None = None) -> str:
    """Register the profiles and load the one `profile_name` picks; returns its name.
    An unknown HYPOTHESIS_PROFILE is an error naming the known ones."""
    register_profiles(env)
    name = profile_name(env)
    try:  # ask first: a failed `load_profile` leaves Hypothesis with a half-set profile
        settings.get_profile(name)
    except InvalidArgument:
        raise ValueError(
            f"unknown Hypothesis profile {name!r} (HYPOTHESIS_PROFILE); palconf "
            f"defines {', '.join(PROFILES)}"
        ) from None
    settings.load_profile(name)
    return name
