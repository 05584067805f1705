"""The garbage collector kept off a suite's load and off the objects a run starts with
(palconf.core.collector), and everything put back as it was found."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from palconf.cases.loader import load_cases
from palconf.cases.memo import forget
from palconf.core import collector
from palconf.engines import OracleEngine
from palconf.running.supervisor import run_cases


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generation of every collection started while the test runs."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)


def test_loading_the_suite_makes_no_collection_and_leaves_the_collector_on(
    collections: list[int],
) -> None:
    forget()  # a cold load: parsed and checked, not unpickled
    assert gc.isenabled()
    gc.collect()  # (the young generation's count from 0: no collection due as it starts)
    collections.clear()
    cases = load_cases()
    during = list(collections)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0
    assert len(cases) > 1000
    assert during == []


def test_what_the_load_made_goes_to_the_oldest_generation_unwalked() -> None:
    forget()
    cases = load_cases()
    last = next(e.observed for c in reversed(cases) for e in c.expect if e.observed)
    assert gc.is_tracked(last)
    assert any(o is last for o in gc.get_objects(generation=2))


def test_a_collector_turned_off_by_the_caller_stays_off() -> None:
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_comes_back_on_after_a_failure() -> None:
    with pytest.raises(ZeroDivisionError), collector.paused():
        assert not gc.isenabled()
        _ = 1 / 0
    assert gc.isenabled()


class _Watching(OracleEngine):
    """The oracle, noting how many objects are frozen at each request."""

    def __init__(self) -> None:
        super().__init__()
        self.frozen: list[int] = []

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.frozen.append(gc.get_freeze_count())
        return super().request(msg)


def test_a_run_leaves_the_objects_it_starts_with_out_of_its_collections() -> None:
    cases = load_cases()[:20]
    engine = _Watching()
    engine.start()
    assert gc.get_freeze_count() == 0
    outcomes = {r.outcome for r in run_cases(engine, cases)}
    assert outcomes == {"pass"}
    assert engine.frozen and min(engine.frozen) > 0
    assert gc.get_freeze_count() == 0  # given back when the run ends


def test_a_run_given_up_by_its_reader_gives_them_back() -> None:
    cases = load_cases()[:5]
    engine = OracleEngine()
    engine.start()
    results = run_cases(engine, cases)
    next(results)
    assert gc.get_freeze_count() > 0
    results.close()
    assert gc.get_freeze_count() == 0


def test_objects_the_caller_froze_stay_frozen() -> None:
    cases = load_cases()[:5]
    engine = _Watching()
    engine.start()
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with collector.paused():
            pass
        assert gc.get_freeze_count() == before
        assert len(list(run_cases(engine, cases))) == len(cases)
        assert gc.get_freeze_count() >= before
    finally:
        gc.unfreeze()
