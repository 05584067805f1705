"""The one comparator of OBSERVED states and LEGAL lists (docs/protocol.md, `P-observed`,
`P-legal`), used by the runner, the fuzzer, perft, smoke and the reports alike.

JSON values are compared with their JSON types: `true` is not `1`, `1` is not `1.0`, `"1"`
is not `1`. Every list in OBSERVED is a zone list, compared as a set (sorted ids): a list
is compared as the multiset of its values, each with its type, so `["a1"]` equals `["a1"]`
in any order, and never `["a1", "a1"]` or `[1]`.

`MISSING` marks the side of a `Diff` that has no such field at all, which is not the same
as JSON `null`; a results file writes a missing side by leaving its key out.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final


class Missing:
    """The type of `MISSING`: there is no such field (not JSON null)."""

    _instance: Missing | None = None

    def __new__(cls) -> Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = Missing()


#: `canonical`'s encoder, made once (`json.dumps` with these options makes one per call)
_CANONICAL: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical(value: Any) -> str:
    """The canonical JSON text of a value: keys sorted, no spaces. Equal texts mean equal
    JSON values, types included (`1` and `1.0` and `true` all differ). (What
    `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` gives.)"""
    return _CANONICAL.encode(value)


def show(value: Any) -> str:
    """A value for a message: JSON, or `(missing)`."""
    return "(missing)" if value is MISSING else json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class Diff:
    """One field where two values differ. `path` leads to it (`cards.a1.power`; `(state)`
    for the whole value); `expected` is what the case or the oracle says, `observed` what
    the engine said; either may be `MISSING`."""

    path: str
    expected: Any
    observed: Any

    def __str__(self) -> str:
        return f"{self.path}: expected {show(self.expected)}, observed {show(self.observed)}"

    def to_json(self) -> dict[str, Any]:
        """For a results file: a missing side is left out."""
        out: dict[str, Any] = {"path": self.path}
        if self.expected is not MISSING:
            out["expected"] = self.expected
        if self.observed is not MISSING:
            out["observed"] = self.observed
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Diff:
        """From a results file; ValueError when it is not a diff object."""
        if not isinstance(obj, dict) or not isinstance(obj.get("path", ""), str):
            raise ValueError("each diff must be an object with a string `path`")
        return cls(obj.get("path", ""), obj.get("expected", MISSING), obj.get("observed", MISSING))


def same(a: Any, b: Any) -> bool:
    """JSON equality with JSON types; lists as multisets (see the module's docstring)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        if len(a) != len(b):
            return False
        if all(type(x) is str for x in a) and all(type(x) is str for x in b):
            return sorted(a) == sorted(b)  # ids (the usual list): as `_as_set`, unencoded
        return _as_set(a) == _as_set(b)
    return bool(a == b)


def _as_set(items: Iterable[Any]) -> list[str]:
    return sorted(canonical(v) for v in items)


def _sorted_for_show(items: list[Any]) -> list[Any]:
    return sorted(items, key=canonical)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def compare(expected: Any, observed: Any, *, subset: bool, path: str = "") -> list[Diff]:
    """Every field where `observed` does not match `expected`.

    Objects are compared key by key. With `subset` (a case's expectation), only the keys
    `expected` writes are checked; without it (the fuzzer; a refused action's before and
    after), a key on either side only is a difference too. Lists are multisets of typed
    values, shown sorted; everything else must be the same JSON value.

    (`_agrees` answers first, making no path and no list: the walk that names each
    difference runs only when it says there may be one.)"""
    if _agrees(expected, observed, subset):
        return []
    return _compare(expected, observed, subset, path)


def _agrees(expected: Any, observed: Any, subset: bool) -> bool:
    """Whether `_compare` finds no difference: the same tests in the same order, stopping at
    the first that fails (False, and `_compare` says what it is). A key that is not a
    string is left to `_compare` (which makes a path of it)."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        for key, value in expected.items():
            if key not in observed:
                return False
            got = observed[key]
            if (
                type(value) is type(got)
                and not isinstance(value, (dict, list))
                and bool(value == got)
            ):
                continue
            if type(key) is not str or not _agrees(value, got, subset):
                return False
        return subset or all(k in expected for k in observed)
    return same(expected, observed)


def _compare(expected: Any, observed: Any, subset: bool, path: str) -> list[Diff]:
    """`compare`'s walk: each difference, with its path."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        diffs: list[Diff] = []
        for key, value in expected.items():
            if key in observed:
                got = observed[key]
                if (
                    type(value) is type(got)
                    and not isinstance(value, (dict, list))
                    and bool(value == got)
                ):
                    continue  # an equal scalar, as `same` says: no path to make
                diffs += _compare(value, got, subset, _join(path, str(key)))
            else:
                diffs.append(Diff(_join(path, str(key)), value, MISSING))
        if not subset:
            diffs += [
                Diff(_join(path, str(k)), MISSING, v)
                for k, v in observed.items()
                if k not in expected
            ]
        return diffs
    if same(expected, observed):
        return []
    if isinstance(expected, list) and isinstance(observed, list):
        return [Diff(path or "(state)", _sorted_for_show(expected), _sorted_for_show(observed))]
    return [Diff(path or "(state)", expected, observed)]


def state_changes(before: Any, after: Any) -> list[Diff]:
    """Every field where two OBSERVED states differ (both ways: nothing may appear or
    vanish); `expected` is the value before. (Two states alike node for node, with the
    same types, keys in the same order, only JSON's own types and no float, have the same
    canonical text: `_identical` says so without encoding either.)"""
    try:
        if _identical(before, after):  # the common case: a refused step changed nothing
            return []
    except RecursionError:  # (too deep to walk: `canonical` raises as it always did)
        pass
    if canonical(before) == canonical(after):
        return []
    return compare(before, after, subset=False)


#: ints below this in size have fewer digits than any limit of int-to-text conversion
#: (`sys.set_int_max_str_digits`: 640 at least), so `canonical` never refuses them
_SHORT: Final = 10**600


def _identical(a: Any, b: Any) -> bool:
    """True only when `canonical(a) == canonical(b)`, neither raising: the same exact types
    (dict, list, str, int, bool, None; string keys) node for node, in the same order, and
    equal leaves (ints of fewer than 600 digits). False says nothing (a float, a tuple, keys
    in another order: the texts may still be equal, and `canonical` decides)."""
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        if len(a) != len(b):
            return False
        for ka, kb in zip(a, b, strict=True):
            if type(ka) is not str or type(kb) is not str or ka != kb:
                return False
        return _identical_items(a.values(), b.values())
    if kind is list:
        return len(a) == len(b) and _identical_items(a, b)
    if kind is int:
        return bool(a == b and -_SHORT < a < _SHORT)
    return (kind is str or kind is bool or a is None) and a == b


def _identical_items(xs: Iterable[Any], ys: Iterable[Any]) -> bool:
    """`_identical` for each pair of items of two containers of one length (the leaves
    tested here, without a call each)."""
    for x, y in zip(xs, ys, strict=True):
        leaf = type(x)
        if leaf is str or leaf is bool or x is None:
            if leaf is not type(y) or x != y:
                return False
        elif leaf is int:
            if type(y) is not int or x != y or not -_SHORT < x < _SHORT:
                return False
        elif not _identical(x, y):
            return False
    return True


def legal_diffs(expected: Iterable[Any], observed: Any) -> list[Diff]:
    """LEGAL compared as a set of canonical actions (`P-legal`): one `Diff` at `legal` per
    action listed on one side only (`MISSING` on the other)."""
    if not isinstance(observed, list):
        return [Diff("legal", "(a list of actions)", observed)]
    ours = {canonical(a): a for a in expected}
    theirs = {canonical(a): a for a in observed}
    out = [Diff("legal", a, MISSING) for k, a in sorted(ours.items()) if k not in theirs]
    out += [Diff("legal", MISSING, a) for k, a in sorted(theirs.items()) if k not in ours]
    return out


def matches(pattern: dict[str, Any], action: Any) -> bool:
    """Whether an action has every field of `pattern` with the same JSON value."""
    return isinstance(action, dict) and all(
        k in action and canonical(v) == canonical(action[k]) for k, v in pattern.items()
    )
