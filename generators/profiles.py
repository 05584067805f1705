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
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase
from hypothesis.errors import InvalidArgument

from palconf.core.errors import UsageError

PROFILES = ("ci", "dev", "fuzz")
DB_ENV = "PALCONF_HYPOTHESIS_DB"
DEFAULT_DB = os.path.join(".hypothesis", "examples")
#: Examples per property test in each profile (the property tests ask for these counts).
EXAMPLES = {"ci": 300, "dev": 50, "fuzz": 5000}


REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


class DatabaseError(UsageError):
    """An example database that cannot be opened (no `redis` package, no server)."""


def open_database(spec: str, what: str = "--database") -> ExampleDatabase:
    """A folder, or `redis://HOST:PORT/N` (checked with a PING); `what` names the option or
    variable the spec came from, for the error message."""
    if not spec.startswith(REDIS_SCHEMES):
        return DirectoryBasedExampleDatabase(spec)
    try:  # imported by name: an optional extra, not installed everywhere (mypy included)
        redis: Any = importlib.import_module("redis")
        extra: Any = importlib.import_module("hypothesis.extra.redis")
    except ImportError:
        raise DatabaseError(
            f"{what} {spec}: a Redis database needs the `redis` package: "
            f"pip install 'palconf[redis]' (or: pip install redis)"
        ) from None
    try:
        client = redis.Redis.from_url(spec, socket_connect_timeout=5, socket_timeout=30)
        client.ping()
    except (redis.RedisError, ValueError) as e:
        raise DatabaseError(f"{what} {spec}: cannot reach the Redis server: {e}") from None
    database: ExampleDatabase = extra.RedisExampleDatabase(client)
    return database


def database(env: Mapping[str, str] | None = None) -> ExampleDatabase:
    """PALCONF_HYPOTHESIS_DB: a folder (default `.hypothesis/examples`) or a Redis URL."""
    env = os.environ if env is None else env
    return open_database(env.get(DB_ENV) or DEFAULT_DB, what=DB_ENV)


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
