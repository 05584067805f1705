"""The steps of a case that speak to the protocol layer rather than to the game (P-errors;
docs/case-format.md, Wire steps): the codes each kind of step may demand, and what a case
with wire steps, or with no `setup`, cannot say."""

from __future__ import annotations

from typing import Any

#: The refusals a setup step may demand (`P-state`); every other code is an action's REASON.
SETUP_ERRORS = ("invalid-state", "unsupported")
#: The errors a wire step (`send`, `request`) may demand (`P-errors`; `internal` is never
#: demanded: it says the engine failed).
WIRE_ERRORS = ("bad-json", "bad-request", "unknown-command", "no-game", *SETUP_ERRORS)


def wire_errors(
    data: dict[str, Any], accepted_setups: set[int]
) -> list[tuple[list[str | int], str]]:
    """What a case with wire steps or no `setup` cannot say (docs/case-format.md, Wire
    steps): with no `setup`, nothing is observed (`observed`, `legal`, `after = 0`) before a
    setup step is accepted; a `request` for `setup` is a setup step; `bye` is the last step,
    accepted, and nothing is observed after it. Each as (field path, message);
    `accepted_setups`: the indexes of the setup steps the case expects to be accepted."""
    errors: list[tuple[list[str | int], str]] = []

    def err(path: list[str | int], message: str) -> None:
        errors.append((path, message))

    actions = data["actions"]
    n_actions = len(actions)
    first_game = 0 if "setup" in data else min((i + 1 for i in accepted_setups), default=None)
    for i, action in enumerate(actions):
        cmd = action.get("request", {}).get("cmd") if "request" in action else None
        if cmd == "setup":
            err(["actions", i, "request"], "a `setup` request is written as a setup step")
        elif cmd == "bye" and i != n_actions - 1:
            err(["actions", i, "request"], "`bye` ends the session: it must be the last step")
    bye = n_actions if actions and actions[-1].get("request", {}).get("cmd") == "bye" else None
    for i, exp in enumerate(data["expect"]):
        after = exp.get("after", n_actions)
        observes = "observed" in exp or "legal" in exp
        if after == bye and ("refused" in exp or observes):
            err(["expect", i], "after `bye` the engine is gone: only its `ok` reply is checked")
        elif observes and (first_game is None or after < first_game):
            err(
                ["expect", i],
                "no game yet at this point (the case has no `setup` and no setup step "
                "before it was accepted): nothing to observe",
            )
        elif after == 0 and "setup" not in data:
            err(["expect", i, "after"], "the case has no `setup`: `after = 0` names nothing")
    return errors
