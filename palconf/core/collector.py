"""Keeping Python's cyclic garbage collector off work that finds nothing.

A loaded suite is some 300,000 small dicts and lists that live as long as the run and hold
no reference cycles. Left alone, the collector walks them again and again: while they are
made (each young collection, then each of the middle generation) and during the run (the
run's own allocations bring on a full collection, which walks them all once more): about a
tenth of a cold `palconf run`. Both helpers here change only *when* the collector looks at
which objects, never what is freed, and put everything back as they found it.

- `paused()`: no collection while a bounded piece of work runs (loading a suite); what
  exists when it ends goes to the oldest generation (where what lives on ends anyway,
  after two collections have walked it), to be looked at by the next full collection.
- `settled()`: the objects that exist when a run starts (the suite, the modules, the
  caller's data) are left out of the collections made during the run (`gc.freeze`), and
  given back to the oldest generation when it ends (`gc.unfreeze`). Garbage among them is
  freed then, as it would have been by the next full collection. A caller that froze
  objects itself (a server before it forks), or a run inside a run, is left as it is.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused", "settled"]


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; then every object to the oldest generation
    (unless the caller froze objects: `gc.unfreeze` would thaw theirs too); the collector
    is on after it if it was before."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not gc.get_freeze_count():
            gc.freeze()  # (which also starts the young generation's count again)
            gc.unfreeze()
        if was_on:
            gc.enable()


@contextmanager
def settled() -> Iterator[None]:
    """The objects that exist now are left out of the collections made inside the block."""
    if gc.get_freeze_count():  # frozen by the caller, or by an outer run: theirs to undo
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
