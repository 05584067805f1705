"""A case file's TOML → its table, with tomli's answer every time, read faster where it can be.

tomli is the reference: its table, and its errors (a syntax error's line and column, a
RecursionError past 400 levels, a ValueError for an integer of more than 4300 digits),
which `reading._parse` turns into palconf's messages. rtoml (Rust) reads the suite's files
two to three times faster with the same table, so it reads first, where it is known to
answer as tomli does: on any text where it might not (`rtoml_may_differ`), or when it raises
anything, tomli reads the text and its answer, table or error, is the one given. Without
rtoml installed, tomli reads everything.

What rtoml 0.14 reads otherwise than tomli 2.5, each found by tests/test_toml_parsers.py
and each turned away here by a test of the text:

- an offset date-time: the same moment, but its tzinfo is rtoml's own class, not
  `datetime.timezone` (any time is turned away: a `:` before a digit);
- a CR LF inside a multi-line string: kept, where tomli reads LF (any CR is turned away);
- a leading byte-order mark: accepted, where tomli refuses it (`reading.decode` refuses it
  first; a BOM anywhere is turned away too);
- a line break before or after the `=` of a key in an inline table: accepted, where tomli
  (and TOML 1.1) refuse it (a line that ends in `=`, or in `=` and a comment, or that starts
  with `=`);
- a table declared by its own header after a header below it had made it (`[a.b]` …
  `[a]`): rtoml moves it to its own header in its parent's key order, tomli keeps it where
  it was made (a header that repeats a table a header below it made, outside an array
  item begun since; a header that is not plain dotted bare keys is turned away).

Everything else rtoml parses it reads as tomli does, typed and in the same key order, on
every file of the suite and on mutated ones (the tests compare the two paths). Where it
refuses what tomli reads (a float past the largest double, nesting past 80 levels, an
integer past 64 bits), tomli answers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import tomli

Loads = Callable[[str], dict[str, Any]]


def _rtoml() -> Loads | None:
    try:
        import rtoml
    except ImportError:  # (an install without it: tomli reads every file)
        return None
    return rtoml.loads


#: the fast parser, or None where rtoml is not installed
fast_loads: Loads | None = _rtoml()

_TIME = re.compile(r":[0-9]")
_EQUALS_ENDS_LINE = re.compile(r"=[ \t]*[\n#]")
#: a line's start: `=`, or a table header (`[` or `[[`, its dotted key, what follows it)
_LINE_START = re.compile(r"\n[ \t]*(?:=|\[(\[?)([A-Za-z0-9_.-]*)(.?))")


def rtoml_may_differ(text: str) -> bool:
    """Whether rtoml may read `text` otherwise than tomli (the module's docstring says how):
    True for every text where it is known to, and for some where it does not."""
    if "\r" in text or "\ufeff" in text or _TIME.search(text) or _EQUALS_ENDS_LINE.search(text):
        return True
    return _lines_may_differ(tuple(_LINE_START.findall("\n" + text)))


@functools.lru_cache(maxsize=1024)  # (the suite's 1372 files have 160 sequences of headers)
def _lines_may_differ(lines: tuple[tuple[str, str, str], ...]) -> bool:
    """Whether a line that starts with `=`, or a table header, may be read otherwise."""
    made: set[str] = set()  # tables a header below them made (those of earlier items dropped)
    for double, key, after in lines:
        if after != "]":  # a line that starts with `=`, or a header rtoml may read otherwise
            return True
        if double:  # `[[key]]`: a new item, whose tables are made anew
            made = {m for m in made if not m.startswith(key + ".")}
        elif key in made:
            return True
        dot = key.rfind(".")
        while dot > 0:
            made.add(key[:dot])
            dot = key.rfind(".", 0, dot)
    return False


def loads(text: str) -> dict[str, Any]:
    """The table tomli reads from `text`, or the exception it raises: read by rtoml where
    rtoml is installed, parses the text and is not known to read it otherwise."""
    if fast_loads is not None and not rtoml_may_differ(text):
        try:
            return fast_loads(text)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # (a Rust panic is a BaseException): tomli's answer counts
            pass
    return tomli.loads(text)
