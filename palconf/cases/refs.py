"""The card ids a case's actions and expectations name (`checks.semantic_errors` finds each
in the setup): `refs`, with the field path of each, and `unknown_ref`, the same question
without the paths, asked first (the paths are worked out only for a case that has an
unknown id: none of the suite has one, and the paths were two thirds of the cost).
tests/test_load_costs.py holds the two to the same answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["refs", "unknown_ref"]

#: the keys of an action that name a card (`target` too, unless it is "master")
_CARD_KEYS = ("card", "structure", "attacker", "blocker", "discard")
#: the keys of a step that is not an ACTION (its card ids are not references)
_NOT_ACTION = frozenset({"malformed", "setup", "send", "request"})


def refs(data: dict[str, Any]) -> Iterator[tuple[list[str | int], str]]:
    """(field path, card id) for every card id an action or expectation names."""
    for i, action in enumerate(data.get("actions", [])):
        if any(k in action for k in ("malformed", "setup", "send", "request")):
            continue
        for key in ("card", "structure", "attacker", "blocker", "discard"):
            if key in action:
                yield ["actions", i, key], action[key]
        if action.get("target", "master") != "master":
            yield ["actions", i, "target"], action["target"]
        for j, c in enumerate(action.get("choose", [])):
            yield ["actions", i, "choose", j], c
    for i, exp in enumerate(data.get("expect", [])):
        obs = exp.get("observed", {})
        for cid in obs.get("cards", {}):
            yield ["expect", i, "observed", "cards", cid], cid
        for p, pdata in obs.get("players", {}).items():
            for zone in ("hand", "battle", "graveyard"):
                for cid in pdata.get(zone, []):
                    yield ["expect", i, "observed", "players", p, zone], cid
            for sid, held in pdata.get("structures", {}).items():
                yield ["expect", i, "observed", "players", p, "structures", sid], sid
                for cid in held:
                    yield ["expect", i, "observed", "players", p, "structures", sid], cid
        attack = obs.get("attack")
        if isinstance(attack, dict):
            for key in ("attacker", "target"):
                if attack.get(key, "master") != "master":
                    yield ["expect", i, "observed", "attack", key], attack[key]
        for part, entries in exp.get("legal", {}).items():
            for j, entry in enumerate(entries):
                for key in ("card", "structure", "attacker", "blocker", "discard"):
                    if key in entry:
                        yield ["expect", i, "legal", part, j, key], entry[key]
                if entry.get("target", "master") != "master":
                    yield ["expect", i, "legal", part, j, "target"], entry["target"]
                for k, c in enumerate(entry.get("choose", [])):
                    yield ["expect", i, "legal", part, j, "choose", k], c


def unknown_ref(data: dict[str, Any], seen: set[str], refused: set[int]) -> bool:
    """Whether `refs` names an id not in `seen` outside the actions numbered in `refused`
    (0-based: actions the case expects refused, where an unknown id is deliberate)."""
    named: set[Any] = set()
    add = named.add

    def add_action(action: dict[str, Any]) -> None:  # an action's ids, or a LEGAL entry's
        for key in _CARD_KEYS:
            if key in action:
                add(action[key])
        if action.get("target", "master") != "master":
            add(action["target"])
        named.update(action.get("choose", ()))

    for i, action in enumerate(data.get("actions", [])):
        if i not in refused and _NOT_ACTION.isdisjoint(action):
            add_action(action)
    for exp in data.get("expect", []):
        obs = exp.get("observed", {})
        named.update(obs.get("cards", ()))
        for pdata in obs.get("players", {}).values():
            for zone in ("hand", "battle", "graveyard"):
                named.update(pdata.get(zone, ()))
            for sid, held in pdata.get("structures", {}).items():
                add(sid)
                named.update(held)
        attack = obs.get("attack")
        if isinstance(attack, dict):
            for key in ("attacker", "target"):
                if attack.get(key, "master") != "master":
                    add(attack[key])
        for entries in exp.get("legal", {}).values():
            for entry in entries:
                add_action(entry)
    return not named <= seen
