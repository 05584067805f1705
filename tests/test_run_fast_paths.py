"""The run's fast paths (benchmarks.cold, "run") answer as the full checks do, for any reply.

- `observed_problems` asks `keeps_the_rules` first (one unsorted pass, no `Diff` made) and
  walks `_cards`, `_lists` and `_steps` only when it does not vouch for the OBSERVED;
- `state_changes` asks `_identical` (a typed walk, no JSON text) before it encodes both
  states, and `compare` asks `_agrees` (no paths, no lists) before `_compare`;
- `check_reply` and `observed_of` pass the usual reply with one test;
- the runner looks each step's expectation up once (`Case.expectation_after`'s answer).

Each fast path must give the full path's verdict, its diffs and its exceptions (type and
text) on the oracle's real replies across the suite and on Hypothesis-mutated ones:
dropped and extra keys, wrong types, bools for ints, floats, huge ints, reordered and
duplicated lists, ids moved between zones.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palconf.cases.loader import Case, load_cases
from palconf.core import engine as core_engine
from palconf.core import observed_rules
from palconf.core.compare import _agrees, _compare, _identical, canonical, compare, state_changes
from palconf.core.engine import (
    OBSERVED_KEYS,
    NoGame,
    ProtocolViolation,
    Unsupported,
    check_reply,
)
from palconf.core.observed_rules import Printed, keeps_the_rules, observed_problems, printed_cards
from palconf.engines.oracle_engine import OracleEngine
from palconf.running import runner
from palconf.running.supervisor import run_cases

from .test_protocol_schemas import _paths

Seen = tuple[dict[str, Any], dict[str, Printed]]


def _outcome(f: Any, *args: Any) -> tuple[str, Any]:
    """What `f(*args)` gives: its value, or the exception's type and text."""
    try:
        return "value", f(*args)
    except Exception as e:
        return "raised", (type(e).__name__, str(e))


def _full_problems(observed: Any, game: Any) -> list[Any]:
    """`observed_problems` without its fast path: the three walks."""
    return (
        list(observed_rules._cards(observed, game))
        + list(observed_rules._lists(observed))
        + list(observed_rules._steps(observed))
    )


def _old_state_changes(before: Any, after: Any) -> list[Any]:
    """`state_changes` as it was before `_identical`: both states encoded."""
    if canonical(before) == canonical(after):
        return []
    return _compare(before, after, False, "")


@pytest.fixture(scope="module")
def suite() -> list[Case]:
    return load_cases()


@pytest.fixture(scope="module")
def seen(suite: list[Case]) -> list[Seen]:
    """Every OBSERVED the runner checks in a run of the suite on the oracle, with the game's
    cards it checks it against."""
    out: list[Seen] = []
    real = observed_rules.observed_problems

    def spy(observed: Any, game: Any) -> Any:
        out.append((copy.deepcopy(observed), dict(game)))
        return real(observed, game)

    mp = pytest.MonkeyPatch()
    mp.setattr(runner, "observed_problems", spy)
    try:
        engine = OracleEngine()
        engine.start()
        results = list(run_cases(engine, suite))
    finally:
        mp.undo()
    assert {r.outcome for r in results} == {"pass"}
    return out


def test_the_oracles_replies_take_the_fast_paths_and_agree(seen: list[Seen]) -> None:
    assert len(seen) > 5000
    for observed, game in seen:
        assert keeps_the_rules(observed, game)
        assert _full_problems(observed, game) == []
        assert _identical(observed, copy.deepcopy(observed))
        assert (
            _agrees(observed, observed, False) and compare(observed, observed, subset=False) == []
        )
    # consecutive states of a game mostly differ: the walk and the texts agree on each pair
    for (a, _), (b, _) in zip(seen, seen[1:], strict=False):
        assert _identical(a, b) == (canonical(a) == canonical(b))
        assert state_changes(a, b) == _old_state_changes(a, b)


# ------------------------------------------------------------- mutated OBSERVED replies

LEAVES = st.sampled_from(
    [None, True, False, 0, 1, -1, 2500, 1.0, 0.0, -0.0, float("nan"), 10**700, "", "a1"]
    + ["b1", "s1", "hand", "battle", "structures", "assigned", "graveyard", "A", "B"]
    + ["pal", "event", "stand", "rest", "main", "block", "quick", "over"]
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.dictionaries(st.sampled_from(["a1", "zone", "owner", "power", 1]), inner, max_size=3)
    ),
    max_leaves=5,
)
HOW = ["delete", "replace", "add", "duplicate", "reverse", "swap-type", "move-id", "rekey"]


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _swapped(v: Any) -> Any:
    """A value of another type that Python finds equal (or near): `true` for 1, 1.0 for 1…"""
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return bool(v) if v in (0, 1) else float(v) if abs(v) < 2**53 else str(v)
    if isinstance(v, list):
        return tuple(v)
    if isinstance(v, str):
        return {"x": v}
    return v is None or None


@st.composite
def mutated_observed(draw: st.DrawFn, seen: list[Seen]) -> tuple[dict[str, Any], Any, Any]:
    """A real OBSERVED (and its game), the same one changed in one to three places, and the
    original: a key deleted, replaced, added or made an int, a list item duplicated, a list
    reversed, a value swapped for one of a kindred type, an id moved to another list."""
    observed, game = draw(st.sampled_from(seen))
    original = observed
    observed = copy.deepcopy(observed)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(observed) if p]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, last = _at(observed, path[:-1]), path[-1]
        if not isinstance(parent, (dict, list)):
            continue
        how = draw(st.sampled_from(HOW))
        target = parent[last]
        if how == "delete":
            del parent[last]
        elif how == "replace":
            parent[last] = draw(VALUES)
        elif how == "add" and isinstance(target, dict):
            target[draw(st.sampled_from(["a1", "b1", "zone", "x", "state"]))] = draw(VALUES)
        elif how in ("add", "duplicate") and isinstance(target, list):
            target.append(draw(VALUES) if how == "add" or not target else target[0])
        elif how == "reverse" and isinstance(target, list):
            target.reverse()
        elif how == "swap-type":
            parent[last] = _swapped(target)
        elif how == "move-id" and isinstance(target, str):
            lists = [p for p in _paths(observed) if isinstance(_at(observed, p), list)]
            if lists:
                _at(observed, draw(st.sampled_from(lists))).append(target)
        elif how == "rekey" and isinstance(parent, dict):
            parent[draw(st.sampled_from([7, True, "a1", "zz"]))] = parent.pop(last)
    return observed, game, original


@pytest.mark.slow
def test_observed_problems_fast_and_full_agree_on_mutated_replies(seen: list[Seen]) -> None:
    found = {"kept": 0, "broken": 0, "raised": 0}

    @settings(max_examples=3000, deadline=None)
    @given(mutated_observed(seen[::5]))
    def check(drawn: tuple[dict[str, Any], Any, Any]) -> None:
        observed, game, _ = drawn
        full = _outcome(_full_problems, observed, game)
        assert _outcome(observed_problems, observed, game) == full
        if keeps_the_rules(observed, game):
            assert full == ("value", [])
        found[
            "kept" if full == ("value", []) else "raised" if full[0] == "raised" else "broken"
        ] += 1

    check()
    assert found["broken"] > 200 and found["raised"] > 50, found


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_observed_problems_fast_and_full_agree_quickly(
    seen: list[Seen], data: st.DataObject
) -> None:
    observed, game, _ = data.draw(mutated_observed(seen[::40]))
    full = _outcome(_full_problems, observed, game)
    assert _outcome(observed_problems, observed, game) == full
    if keeps_the_rules(observed, game):
        assert full == ("value", [])


def test_the_fast_path_vouches_for_nothing_the_full_walks_would_name(seen: list[Seen]) -> None:
    """Hand-made breaks of each rule, one per rule: the fast path says False to each."""
    observed, game = next((o, g) for o, g in seen if o["players"]["A"]["structures"])
    sid, held = next(iter(observed["players"]["A"]["structures"].items()))
    a_hand = observed["players"]["A"]["hand"]

    def broken(change: Any) -> dict[str, Any]:
        o = copy.deepcopy(observed)
        change(o)
        return o

    breaks = [
        lambda o: o["cards"].pop(sid),  # a card of the game missing
        lambda o: o["cards"].__setitem__("zz", dict(o["cards"][sid])),  # one invented
        lambda o: o["cards"][sid].__setitem__("owner", "B"),
        lambda o: o["cards"][sid].__setitem__("state", None),
        lambda o: o["players"]["A"]["structures"].pop(sid),  # not listed
        lambda o: o["players"]["A"]["structures"][sid].append(sid),  # listed twice
        lambda o: o["players"]["B"]["structures"].__setitem__(sid, held),  # listed on both sides
        lambda o: o["players"]["A"]["graveyard"].append(sid),  # in the wrong list too
        lambda o: o.__setitem__("step", "block"),  # no attack under way
        lambda o: o.__setitem__("winner", "A"),  # a winner in the main step
        lambda o: o["players"]["A"].__setitem__("hand", ",".join(a_hand) or "x"),  # a string
        lambda o: o["players"].__setitem__(1, o["players"].pop("B")),  # a key not a string
    ]
    for change in breaks:
        o = broken(change)
        assert not keeps_the_rules(o, game)
        assert _outcome(observed_problems, o, game) == _outcome(_full_problems, o, game)
    assert keeps_the_rules(observed, game)


# --------------------------------------------- state_changes, compare: typed walks, no texts


@settings(max_examples=1000, deadline=None)
@given(st.data())
def test_state_changes_says_what_it_said_before_on_mutated_states(
    seen: list[Seen], data: st.DataObject
) -> None:
    after, _, before = data.draw(mutated_observed(seen[::20]))
    if data.draw(st.booleans()):
        before, after = after, before
    assert _outcome(state_changes, before, after) == _outcome(_old_state_changes, before, after)
    if _identical(before, after):
        assert canonical(before) == canonical(after)


@settings(max_examples=500, deadline=None)
@given(VALUES, VALUES)
def test_the_typed_walk_vouches_only_for_equal_texts(a: Any, b: Any) -> None:
    assert _outcome(state_changes, a, b) == _outcome(_old_state_changes, a, b)
    if _identical(a, b):
        assert (
            _outcome(canonical, a) == _outcome(canonical, b)
            and _outcome(canonical, a)[0] == "value"
        )


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_typed_walk_vouches_for_a_value_and_its_copy_as_the_texts_do(a: Any) -> None:
    b = copy.deepcopy(a)
    assert _outcome(state_changes, a, b) == _outcome(_old_state_changes, a, b)
    if _identical(a, b):
        assert _outcome(canonical, a)[0] == "value" and canonical(a) == canonical(b)


def test_the_typed_walk_leaves_what_json_reads_otherwise_to_the_texts() -> None:
    """Values Python finds equal and JSON does not, and values JSON cannot write."""
    for a, b in [
        (1, True),
        (1, 1.0),
        (0.0, -0.0),
        ([1], (1,)),
        ({"1": 1}, {1: 1}),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),  # the same text, found by `canonical`
        (10**700, 10**700),  # too long to write: `canonical` raises, as before
        ({"a": 10**700}, {"a": 10**700}),
        ([-(10**700)], [-(10**700)]),
        ({"a": {1, 2}}, {"a": {1, 2}}),
    ]:
        assert not _identical(a, b)
        assert _outcome(state_changes, a, b) == _outcome(_old_state_changes, a, b)
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    assert _outcome(state_changes, deep, deep) == _outcome(_old_state_changes, deep, deep)


@settings(max_examples=1000, deadline=None)
@given(st.data(), st.booleans())
def test_compare_says_what_its_walk_says_on_mutated_states(
    seen: list[Seen], data: st.DataObject, subset: bool
) -> None:
    observed, _, original = data.draw(mutated_observed(seen[::20]))
    # a case's expectation names a part of the state: keep some keys of the original
    keys = data.draw(st.lists(st.sampled_from(sorted(original)), unique=True, min_size=1))
    for expected in ({k: original[k] for k in keys}, original):
        full = _outcome(_compare, expected, observed, subset, "")
        assert _outcome(lambda e, o: compare(e, o, subset=subset), expected, observed) == full
        if full[0] == "value":  # (else `_agrees` raised it: `compare` gave it, as above)
            assert _agrees(expected, observed, subset) == (full[1] == [])


class _Unnamed:
    """A key that cannot be written as a path: `_compare` raises where it makes one."""

    def __str__(self) -> str:
        raise ValueError("no name")


def test_compare_makes_the_paths_its_walk_makes() -> None:
    key = _Unnamed()
    for expected, observed in [({key: {"a": 1}}, {key: {"a": 1}}), ({key: [1]}, {key: [1]})]:
        for subset in (True, False):
            full = _outcome(_compare, expected, observed, subset, "")
            assert full == ("raised", ("ValueError", "no name"))
            got = _outcome(lambda e, o, s=subset: compare(e, o, subset=s), expected, observed)
            assert got == full


# ------------------------------------------------------ one test for the usual reply

REPLIES = st.recursive(
    st.none() | st.booleans() | st.integers(0, 1) | st.sampled_from(["unsupported", "x", 1.0]),
    lambda inner: st.dictionaries(
        st.sampled_from(["ok", "error", "message", "state", *OBSERVED_KEYS]), inner, max_size=12
    ),
    max_leaves=14,
)


def _old_check_reply(reply: Any, cmd: str, unsupported_skips: bool) -> Any:
    if not isinstance(reply, dict):
        raise ProtocolViolation(f"the reply to `{cmd}` is not a JSON object")
    if not isinstance(reply.get("ok"), bool):
        raise ProtocolViolation(f"the reply to `{cmd}` has no boolean `ok`")
    if not reply["ok"]:
        if not isinstance(reply.get("error"), str):
            raise ProtocolViolation(f"the refusal of `{cmd}` has no string `error`")
        if reply["error"] == "unsupported" and unsupported_skips:
            raise Unsupported(f"engine: unsupported: {reply.get('message', '')}")
    return reply


def _old_observed_of(reply: Any, step: int) -> Any:
    if not reply["ok"]:
        fault = NoGame if reply["error"] == "no-game" else ProtocolViolation
        raise fault(f"`observe` failed at step {step}: {core_engine._refusal_text(reply)}")
    state = reply.get("state")
    if not isinstance(state, dict) or any(k not in state for k in OBSERVED_KEYS):
        missing = [k for k in OBSERVED_KEYS if not isinstance(state, dict) or k not in state]
        raise ProtocolViolation(f"`observe` reply at step {step} lacks {', '.join(missing)}")
    return state


class _Dict(dict):  # type: ignore[type-arg]
    """A dict of another type: the fast tests, which ask for `dict` itself, pass it on."""


@settings(max_examples=500, deadline=None)
@given(REPLIES, st.booleans(), st.booleans())
def test_the_usual_reply_is_checked_as_every_reply_is(reply: Any, skips: bool, sub: bool) -> None:
    if sub and isinstance(reply, dict):
        reply = _Dict(reply)
    got = _outcome(lambda r: check_reply(r, "observe", unsupported_skips=skips), reply)
    assert got == _outcome(_old_check_reply, reply, "observe", skips)
    if got[0] == "value" and reply["ok"]:
        state = {"state": _Dict(reply) if sub else reply, "ok": True}
        for r in (state, {**state, "state": json.loads(json.dumps(reply))}):
            assert _outcome(core_engine.observed_of, r, 3) == _outcome(_old_observed_of, r, 3)


def test_an_observed_without_each_field_is_refused_as_before(seen: list[Seen]) -> None:
    state = seen[0][0]
    for key in OBSERVED_KEYS:
        reply = {"ok": True, "state": {k: v for k, v in state.items() if k != key}}
        got = _outcome(core_engine.observed_of, reply, 2)
        assert got == _outcome(_old_observed_of, reply, 2) and got[0] == "raised"
    reply = {"ok": True, "state": state}
    assert core_engine.observed_of(reply, 2) is state


def test_each_step_is_checked_against_the_expectation_listed_first_after_it(
    suite: list[Case],
) -> None:
    for case in suite:
        table = {e.after: e for e in reversed(case.expect)}
        for n in range(len(case.steps) + 2):
            assert table.get(n) is case.expectation_after(n)


def test_printed_cards_reads_every_card_of_a_state(suite: list[Case]) -> None:
    case = next(c for c in suite if c.setup and c.setup["players"]["A"].get("structures"))
    cards = printed_cards(case.setup)
    assert all(isinstance(p, Printed) and p.owner in ("A", "B") for p in cards.values())
    assert cards == printed_cards(copy.deepcopy(case.setup))
