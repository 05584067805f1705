"""The cases a rules version takes over from another version's review, checked on its oracle.

A case reviewed for 1.00 stays valid for 1.01 when no clause it cites changed substantively
(`palconf.cases.standing`). Its standing is judged from the files; the behaviour is not: a
case that merely has a Brave card on its board, citing no Brave clause, may get another
verdict from 1.01's oracle when 1.01 changes Brave. Such a case would be run for 1.01, and
its result stamped 1.01, although nobody read it against 1.01. So before a case is counted
for V on the strength of another version's review, it is run on V's oracle (in-process,
about a millisecond a case), and it holds for V only if it passes there. A case reviewed for
V itself was run on V's oracle when it was blessed (`palconf rules bless`), and a version
whose oracle is the class of the reviewed version's (an editorial-only version) changes no
verdict: neither is run again.
"""

from __future__ import annotations

from collections.abc import Iterable

from palconf.cases.loader import Case
from palconf.cases.standing import as_of, standing
from palconf.engines.oracle_engine import oracle_of
from palconf.registry import Registry
from palconf.running.runner import run_case

__all__ = ["carried_over", "carried_unfit"]


def carried_over(cases: Iterable[Case], registry: Registry, version: str) -> list[Case]:
    """The cases that hold for `version` by the review of another version whose oracle
    is not `version`'s."""
    mine = registry.oracle(version)
    out = []
    for case in cases:
        blessed = standing(case, registry, version).blessed
        if blessed is not None and blessed != version and registry.oracle(blessed) is not mine:
            out.append(case)
    return out


def carried_unfit(cases: Iterable[Case], registry: Registry, version: str) -> dict[str, str]:
    """Case id → why it does not hold for `version`, for each carried-over case (above)
    that does not pass on `version`'s oracle."""
    todo = carried_over(cases, registry, version)
    if not todo:
        return {}
    engine = oracle_of(version, registry)
    engine.start()
    unfit = {}
    for case in todo:
        result = run_case(engine, as_of(case, registry, version))
        if str(result.outcome) != "pass":
            blessed = standing(case, registry, version).blessed
            why = f": {result.message}" if result.message else ""
            unfit[case.id] = (
                f"reviewed for rules {blessed}, and its expectations {result.outcome} on the "
                f"oracle of rules {version}{why} (re-read it against {version}: `palconf rules "
                f"status --rules {version}`)"
            )
            engine.start()  # a fresh game after a failure
    return unfit
