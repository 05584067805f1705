"""The engine's OBSERVED and LEGAL for `Lockstep`, compared with the oracle's (issue 33).

Through the wire, a reply's shape is checked against the protocol's schema
(`ProcessEngine.checked`) before anything else is made of it. The oracle's replies to
`observe` and `legal` are valid, so an engine's reply that is the same JSON value as the
oracle's — `{"ok": true, "state": …}` with the oracle's OBSERVED, canonical text for canonical
text; `{"ok": true, "actions": […]}` with each action one of the oracle's and the same set
of them (the schema checks each action alone: order and repeats do not change validity)
— is valid too, and is not checked again. Any other reply is checked first, as it is
without this, so a malformed one is refused with the same `ProtocolViolation` and message.

An engine without `request_unchecked` and `checked` (in-process) is asked as always.
"""

from __future__ import annotations

from typing import Any

from palconf.core import legal, observe
from palconf.core.compare import canonical
from palconf.core.engine import actions_of, check_reply, observed_of

OBSERVE: dict[str, Any] = {"cmd": "observe"}
LEGAL: dict[str, Any] = {"cmd": "legal"}
#: the oracle's LEGAL as canonical text (the list in its order), and its canonical actions
Legal = tuple[str, frozenset[str]]


class Texts:
    """The oracle's canonical texts, kept for the object last asked (a refusal's OBSERVED
    and LEGAL are the very objects of the step before)."""

    def __init__(self) -> None:
        self._observed: tuple[Any, str] = (None, "")
        self._legal: tuple[Any, Legal] = (None, ("", frozenset()))

    def observed(self, value: dict[str, Any]) -> str:
        if self._observed[0] is not value:
            self._observed = (value, canonical(value))
        return self._observed[1]

    def legal(self, actions: list[dict[str, Any]]) -> Legal:
        if self._legal[0] is not actions:
            self._legal = (actions, (canonical(actions), frozenset(map(canonical, actions))))
        return self._legal[1]


def same_observed(engine: Any, step: int, expected: str) -> tuple[dict[str, Any], bool]:
    """The engine's OBSERVED after `step`, and whether its canonical text is `expected`."""
    checked = getattr(engine, "checked", None)
    if not callable(checked):
        state = observe(engine, step)
        return state, canonical(state) == expected
    reply = engine.request_unchecked(OBSERVE)
    if type(reply) is dict and len(reply) == 2 and reply.get("ok") is True and "state" in reply:
        state = reply["state"]
        if canonical(state) == expected:
            return state, True
    state = observed_of(check_reply(checked("observe", reply), "observe"), step)
    return state, canonical(state) == expected


def same_legal(engine: Any, step: int, expected: Legal) -> tuple[list[Any], bool]:
    """The engine's LEGAL after `step`, and whether its set of canonical actions is
    `expected` (then `legal_diffs` would find nothing)."""
    checked = getattr(engine, "checked", None)
    if not callable(checked):
        actions = legal(engine, step)
        return actions, _same_set(actions, expected)
    reply = engine.request_unchecked(LEGAL)
    if type(reply) is dict and len(reply) == 2 and reply.get("ok") is True:
        listed = reply.get("actions")
        if type(listed) is list and _same_set(listed, expected):
            return listed, True
    actions = actions_of(check_reply(checked("legal", reply), "legal"), step)
    return actions, _same_set(actions, expected)


def _same_set(actions: list[Any], expected: Legal) -> bool:
    """The same actions, in the same order (one text) or not (so each is one of the oracle's)."""
    text, each = expected
    return canonical(actions) == text or set(map(canonical, actions)) == each
