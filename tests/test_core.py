"""palconf.core: the one comparator, the one Result and its results-file form, terminal text."""

from __future__ import annotations

import json

import pytest

from palconf.core import (
    MISSING,
    Diff,
    Outcome,
    Result,
    Tally,
    compare,
    legal_diffs,
    state_changes,
    terminal_safe,
)
from palconf.core.compare import matches
from palconf.core.outcomes import groups_of


@pytest.mark.parametrize(
    "expected, observed",
    [
        (["1"], [1]),  # a string id is not a number
        ([True], [1]),
        (1, 1.0),
        (1, True),
        (None, "null"),
        (["a1"], ["a1", "a1"]),  # a zone list is a set of ids: a repeat is a difference
        ({"x": 1}, [1]),
    ],
)
def test_json_types_are_compared_strictly(expected: object, observed: object) -> None:
    assert compare({"v": expected}, {"v": observed}, subset=True)
    assert compare({"v": expected}, {"v": observed}, subset=False)


def test_zone_lists_compare_as_sets_in_any_order() -> None:
    assert compare({"hand": ["a1", "a2"]}, {"hand": ["a2", "a1"]}, subset=True) == []


def test_subset_checks_only_the_keys_written() -> None:
    observed = {"step": "main", "players": {"A": {"life": 5, "energy": 0}}}
    assert compare({"players": {"A": {"life": 5}}}, observed, subset=True) == []
    assert compare({"players": {"A": {"life": 4}}}, observed, subset=True) == [
        Diff("players.A.life", 4, 5)
    ]


def test_a_missing_key_is_not_null() -> None:
    diffs = compare({"winner": None}, {}, subset=True)
    assert diffs == [Diff("winner", None, MISSING)]
    assert "(missing)" in str(diffs[0]) and "null" in str(diffs[0])


def test_state_changes_sees_keys_that_appear_or_vanish() -> None:
    assert state_changes({"a": 1}, {"a": 1}) == []
    assert state_changes({"a": 1}, {"a": 1, "b": 2}) == [Diff("b", MISSING, 2)]
    assert state_changes({"a": 1, "b": 2}, {"a": 1}) == [Diff("b", 2, MISSING)]


def test_legal_is_a_set_of_canonical_actions() -> None:
    a = {"do": "pass", "player": "B"}
    b = {"do": "block", "player": "B", "blocker": "b2"}
    assert legal_diffs([a, b], [b, a]) == []
    assert legal_diffs([a, b], [a]) == [Diff("legal", b, MISSING)]
    assert legal_diffs([a], [a, {**b, "choose": []}]) == [
        Diff("legal", MISSING, {**b, "choose": []})
    ]
    assert legal_diffs([a], {"not": "a list"})


def test_choose_order_matters_in_legal() -> None:
    x = {"do": "deploy", "player": "A", "card": "a1", "choose": ["b1", "b2"]}
    y = {**x, "choose": ["b2", "b1"]}
    assert legal_diffs([x], [y])


def test_exclusion_patterns_match_on_their_fields_only() -> None:
    attack = {"do": "attack", "player": "A", "attacker": "a2", "target": "master"}
    assert matches({"do": "attack", "attacker": "a2"}, attack)
    assert not matches({"do": "attack", "attacker": "a1"}, attack)
    assert not matches({"do": "attack", "ability": 0}, attack)


def test_result_round_trips_through_a_results_file_line() -> None:
    r = Result(
        id="x",
        outcome=Outcome.FAIL,
        keywords=("taunt",),
        clauses=("taunt.1",),
        path="taunt/x.toml",
        rules=("P-legal",),
        diffs=(Diff("winner", None, MISSING), Diff("legal", MISSING, {"do": "pass"})),
    )
    line = json.loads(json.dumps(r.to_json()))
    assert line["path"] == "taunt/x.toml"
    assert line["diffs"][0] == {"path": "winner", "expected": None}
    back = Result.from_json(line)
    assert back == r
    assert back.diffs[0].observed is MISSING and back.diffs[0].expected is None


@pytest.mark.parametrize(
    "line, field",
    [
        ({"id": "x", "outcome": "great"}, "outcome"),
        ({"id": "x", "outcome": "pass", "duration_ms": "1"}, "duration_ms"),
        ({"id": "x", "outcome": "pass", "keywords": "taunt"}, "keywords"),
        ({"id": "x", "outcome": "pass", "diffs": [{"path": 3}]}, "path"),
        ({"id": "", "outcome": "pass"}, "id"),
    ],
)
def test_a_bad_results_line_names_its_field(line: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Result.from_json(line)


def test_groups() -> None:
    assert groups_of((), ()) == ("base",)
    assert groups_of(("base",), ("B-1",)) == ("base",)
    assert groups_of((), ("P-legal", "B-11")) == ("protocol",)
    assert groups_of(("taunt",), ("P-legal",)) == ("taunt", "protocol")
    assert groups_of(("taunt", "protocol"), ("P-legal",)) == ("taunt", "protocol")


def test_tally() -> None:
    t = Tally.of(["pass", "pass", "fail", "skip", "xpass"])
    assert (t.total, t.passed, t.failed, t.ran, t.ok) == (5, 3, 1, 4, False)
    assert t.percent == "75%" and Tally.of(["pass", "xfail"]).ok


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("evil\x1b[31mname", "evil\\x1b[31mname"),
        ("nul\x00bel\x07", "nul\\x00bel\\x07"),
        ("lone \ud800 surrogate", "lone \\ud800 surrogate"),
        ("rtl \u202e override", "rtl \\u202e override"),
        ("two\nlines", "two\\x0alines"),
        ("plain text ü", "plain text ü"),
    ],
)
def test_terminal_safe_escapes_what_a_terminal_would_act_on(raw: str, shown: str) -> None:
    assert terminal_safe(raw) == shown
    shown.encode("utf-8")  # always encodable, lone surrogates included


def test_terminal_safe_keeps_newlines_when_asked_and_bounds_length() -> None:
    assert terminal_safe("a\nb\x1b", keep_newlines=True) == "a\nb\\x1b"
    assert terminal_safe("x" * 10, limit=5) == "xxxx…"
