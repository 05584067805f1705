"""junit-10.xsd: the Surefire-derived JUnit XML schema that pytest's own JUnit output is
tested against (pytest's `testing/example_scripts/junit-10.xsd`, MIT licence, © 2014
Gregory Boissinot; the licence is in the file's header).

It is not copied into this repository: the tests take it from pytest's source distribution
on PyPI, pinned by version and checked by hash, and keep it in a cache folder
(`$PALCONF_TEST_CACHE`, else `~/.cache/palconf-tests`). `PALCONF_JUNIT_XSD=path` names a copy
instead (a machine with no network). Validation uses lxml (libxml2's XML Schema).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import urllib.request
from pathlib import Path

PYTEST = "9.2.0"
SDIST_SHA256 = "97c4f3b1f3c7414aa36465e09b8220f1d03627993bd51b1282e193753c80557b"
XSD_SHA256 = "a1a816f58d1bf95ebabf371994df0b9246dee66ea9572fbec4f9296f1b2c0ff6"
MEMBER = f"pytest-{PYTEST}/testing/example_scripts/junit-10.xsd"
INDEX = "https://pypi.org/simple/pytest/"


class Unavailable(Exception):
    """The schema could not be had (no network, no copy): the test says why and skips."""


def _cache() -> Path:
    root = os.environ.get("PALCONF_TEST_CACHE") or Path.home() / ".cache" / "palconf-tests"
    return Path(root)


def _checked(data: bytes, sha: str, what: str) -> bytes:
    got = hashlib.sha256(data).hexdigest()
    if got != sha:
        raise AssertionError(f"{what}: sha256 {got}, not the pinned {sha}")
    return data


def _download() -> bytes:
    name = f"pytest-{PYTEST}.tar.gz"
    try:
        req = urllib.request.Request(INDEX, headers={"Accept": "text/html"})
        page = urllib.request.urlopen(req, timeout=30).read().decode("utf-8")
        found = re.search(rf'href="([^"]*/{re.escape(name)})(#[^"]*)?"', page)
        if found is None:
            raise Unavailable(f"{INDEX} does not list {name}")
        sdist = urllib.request.urlopen(found.group(1), timeout=60).read()
    except OSError as e:
        raise Unavailable(f"cannot download {name} from PyPI ({e})") from None
    _checked(sdist, SDIST_SHA256, name)
    with tarfile.open(fileobj=io.BytesIO(sdist)) as tar:
        member = tar.extractfile(MEMBER)
        if member is None:
            raise AssertionError(f"{name} has no {MEMBER}")
        return member.read()


def junit_xsd() -> bytes:
    """The schema's bytes, checked against the pinned hash."""
    named = os.environ.get("PALCONF_JUNIT_XSD")
    if named:
        return _checked(Path(named).read_bytes(), XSD_SHA256, named)
    cached = _cache() / f"junit-10-pytest-{PYTEST}.xsd"
    if cached.is_file():
        return _checked(cached.read_bytes(), XSD_SHA256, str(cached))
    data = _checked(_download(), XSD_SHA256, MEMBER)
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(data)
    tmp.replace(cached)
    return data
