"""What one process has already loaded: a case file's verdict (its checked table, from which
`loader.load_case` builds the `Case`, or its errors), kept by the file's bytes, so that
loading the same suite again in one process costs a read, an unpickling and the building of
the `Case`, not a parse and three checks. (The table, not the `Case`, is kept: pickling it
costs a quarter as much, and that is paid on the first load too.)

Who loads a suite more than once in one process: `palconf run --report` (the run, then the
report's boards), a library caller that runs several engines or renders several reports,
and palconf's own tests (about 600 loads in one quick test run). Nothing is kept on disk.

The key is everything `load_case` reads: the file's bytes (by digest, so that an edit is
seen whatever the file's times say), the path it is shown as (which ends in its name), and
the registry (the same object: registries are not hashable, so each has its own table, and
only the last few are kept, as `registry.load` keeps them). The value is pickled: each load gets
its own objects, so that a caller that changes a case's `setup` changes only its copy.
Files that cannot be read are never kept (their answer depends on more than bytes).

A value of plain data (a checked table: dicts, lists, strings, numbers) is kept with
`marshal`, twice as quick to make as a pickle and three times as quick to read back (paid on
every first load); anything else (a list of `CaseError`s) is pickled.
"""

from __future__ import annotations

import hashlib
import marshal
import pickle
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from palconf.registry import Registry

#: registries with a table of their own (the oldest goes first)
REGISTRIES = 4
#: files per registry (about 1.4 KB each: 1141 files are 1.6 MB)
FILES = 20_000

Key = tuple[str, bytes]
#: a kept value: marshalled (True) or pickled (False), and its bytes
Kept = tuple[bool, bytes]
_tables: OrderedDict[int, tuple[Registry, dict[Key, Kept]]] = OrderedDict()
_lock = threading.Lock()


def key(rel: str, raw: bytes) -> Key:
    """The path a file is shown as (its name, and so its stem, ends it) and its bytes."""
    return rel, hashlib.blake2b(raw, digest_size=20).digest()


def dumps(value: Any) -> Kept:
    """`value` as kept: marshalled if `marshal` takes it, else pickled."""
    try:
        return True, marshal.dumps(value)
    except ValueError:  # (an object marshal does not write: a CaseError, a date)
        return False, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)


def loads(kept: Kept) -> Any:
    """A fresh copy of a kept value."""
    marshalled, blob = kept
    return marshal.loads(blob) if marshalled else pickle.loads(blob)


def _table(registry: Registry) -> dict[Key, Kept]:
    entry = _tables.get(id(registry))
    if entry is not None and entry[0] is registry:
        _tables.move_to_end(id(registry))
        return entry[1]
    table: dict[Key, Kept] = {}
    _tables[id(registry)] = (registry, table)  # held, so that its id is not reused
    while len(_tables) > REGISTRIES:
        _tables.popitem(last=False)
    return table


def remembered(registry: Registry, k: Key, compute: Callable[[], Any]) -> Any:
    """`compute()`'s value for `k` under `registry`: a fresh copy of the kept one, or
    computed now and kept."""
    with _lock:
        kept = _table(registry).get(k)
    if kept is not None:
        return loads(kept)
    value = compute()
    kept = dumps(value)
    with _lock:
        table = _table(registry)
        if len(table) >= FILES:
            table.clear()
        table[k] = kept
    return value


def forget() -> None:
    """Drop everything kept (for a caller that wants to time a cold load)."""
    with _lock:
        _tables.clear()
