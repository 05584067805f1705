"""A fuzzing difference as a case file (docs/case-format.md), ready to review and commit.

The case is the difference's board and actions; its expectations are the oracle's answers:

- every action the oracle refused is marked `refused = true` (a case demands a reason only
  where one rule is broken, so a reason is written only where the reason is the difference);
- after the step where the engine went another way, `observed` holds the oracle's values
  of exactly the fields that differed (or, for a verdict, the refusal), so the case passes
  on the oracle and fails on that engine;
- a LEGAL-only difference cannot be written as an expectation (cases have no LEGAL), so it
  becomes one more action: an action the oracle lists and the engine does not (which the
  oracle accepts), or one the engine lists and the oracle does not (which it refuses).

`case_from_difference` builds the case as data; `write_case` checks it against the case
schema and writes `<dir>/<id>.toml` with tomli-w. The case still needs a human: the notes
say so (clauses to cite, a title stating the fact, the folder it belongs in).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomli_w

from palconf.cases import checks as case_checks
from palconf.cases import loader as case_files
from palconf.cases.open_reasons import OPEN_REASONS_RULING
from palconf.core import MISSING, Diff
from palconf.core.errors import PalconfError
from palconf.core.safe_write import UnsafeWrite, write_text_atomic
from palconf.engines.oracle_engine import answer_line
from palconf.oracle import Rules
from palconf.oracle.protocol import Session

from .game import is_setup_step, is_wire_step, wire_line
from .lockstep import Difference

if TYPE_CHECKING:
    import jsonschema


SCHEMA_LINE = "#:schema ../../palconf/schemas/case.schema.json\n"


def schema_line(directory: Path) -> str:
    """The `#:schema` line of a case written into `directory`: the case schema this palconf
    carries, as a path relative to `directory` (in a checkout's `cases/<group>/` exactly the
    suite's own `SCHEMA_LINE`); its `file:` URI when no relative path leads there."""
    from palconf import paths

    try:
        where = Path(os.path.relpath(paths.CASE_SCHEMA, directory.resolve())).as_posix()
    except ValueError:  # another drive
        where = paths.CASE_SCHEMA.as_uri()
    return f"#:schema {where}\n"


#: The base rules an action leans on (a case must cite clauses or rules; the reviewer adds
#: the clauses it tests).
ACTION_RULES = {
    "deploy": "B-7",
    "assign": "B-8",
    "play": "B-9",
    "activate": "B-9a",
    "attack": "B-11",
    "block": "B-13",
    "pass": "B-14",
    "interrupt": "B-14",
    "end-turn": "B-6",
}
#: The base rule a differing OBSERVED field is about (the last key of its path).
FIELD_RULES = {
    "power": "B-18",
    "strike": "B-3",
    "state": "B-4",
    "zone": "B-2",
    "night": "B-5",
    "life": "B-20",
    "winner": "B-20",
    "energy": "B-1",
    "hand": "B-2",
    "battle": "B-2",
    "graveyard": "B-2",
    "structures": "B-8",
    "turn": "B-6",
    "active": "B-6",
}
NULL = case_files.NULL


class ExportError(PalconfError):
    """The difference cannot be written as a valid case (a bug of the exporter: report it)."""


@lru_cache(maxsize=1)
def _action_validator() -> jsonschema.protocols.Validator:
    import jsonschema

    schema = case_files.schema()
    sub = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/action"}
    return jsonschema.validators.validator_for(schema)(sub)


def as_case_action(action: Any) -> dict[str, Any]:
    """An ACTION as a case writes it: as is when it has the ACTION shape, else wrapped as
    `{malformed = {...}}` (sent verbatim, docs/case-format.md); a setup step as it is,
    `{setup = STATE}`."""
    if is_setup_step(action) or is_wire_step(action):
        return dict(action)
    if isinstance(action, dict) and _action_validator().is_valid(action):
        return dict(action)
    return {"malformed": action}


def _tomlable(value: Any) -> Any:
    """JSON null as the string "null" (TOML has no null)."""
    if value is None:
        return NULL
    if isinstance(value, dict):
        return {k: _tomlable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_tomlable(v) for v in value]
    return value


#: Diff paths that are not fields of OBSERVED.
NOT_FIELDS = ("legal", "verdict", "reason", "(state)")


def _keys(value: Any, path: str) -> tuple[str, ...] | None:
    """The keys that lead to `path` (`cards.a1.power`) in `value`, found by walking it (a
    card id may hold a dot, so the path is not just split); None if there is none."""
    if not isinstance(value, dict):
        return None
    for key in value:
        k = str(key)
        if path == k:
            return (k,)
        if path.startswith(k + "."):
            rest = _keys(value[key], path[len(k) + 1 :])
            if rest is not None:
                return (k, *rest)
    return None


def _subset(observed: dict[str, Any], fields: list[Diff]) -> dict[str, Any]:
    """The oracle's values at the differing paths, as a nested table. A field the oracle does
    not have (the engine shows an extra one) cannot be expected; it is left out."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.expected is MISSING or f.path in NOT_FIELDS:
            continue
        keys = _keys(observed, f.path)
        if keys is None:
            raise ExportError(f"the differing field {f.path!r} is not in the oracle's OBSERVED")
        node = out
        value: Any = observed
        for key in keys:
            value = value[key]
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = value
    return out


def _probe(diff: Difference) -> tuple[dict[str, Any], dict[str, str] | None] | None:
    """For a LEGAL difference: one action that turns it into a verdict difference, with the
    oracle's answer to it (None: accepted)."""
    rules = _replayed(diff.game.state, diff.game.actions)
    known = set(rules.state.cards) | {"master"}
    for f in diff.fields:
        action = f.expected if f.observed is MISSING else f.observed
        if not isinstance(action, dict) or not set(_ids(action)) <= known:
            continue  # a case may only name cards of its setup
        refusal = rules.apply(action)
        return action, None if refusal is None else {"reason": refusal.reason}
    return None


def _replayed(state: dict[str, Any], actions: list[Any]) -> Rules:
    """The oracle's game after `actions` (setup steps included) from `state`, played through
    its protocol layer (a refused setup step leaves the game as it was)."""
    session = Session()
    session.handle({"cmd": "setup", "state": state})
    for action in actions:
        if is_setup_step(action):
            session.handle({"cmd": "setup", "state": action["setup"]})
        elif is_wire_step(action):
            answer_line(session, wire_line(action))
        else:
            session.handle({"cmd": "act", "action": action})
    assert session.game is not None  # `state` is the board of a game the oracle played
    return session.game


def _ids(action: dict[str, Any]) -> list[str]:
    """The card ids an action names (what a case's setup must hold)."""
    ids = [
        action[k]
        for k in ("card", "structure", "attacker", "target", "blocker", "discard")
        if isinstance(action.get(k), str)
    ]
    choose = action.get("choose", [])
    return ids + ([c for c in choose if isinstance(c, str)] if isinstance(choose, list) else [])


def _rule_order(rid: str) -> tuple[int, str]:
    """B-n by number, then the protocol's rules (P-…)."""
    digits = rid[2:].rstrip("a")
    return (int(digits), rid) if rid.startswith("B-") and digits.isdigit() else (10**6, rid)


def case_id(diff: Difference) -> str:
    digest = hashlib.sha256(
        json.dumps([diff.game.state, diff.game.actions], sort_keys=True).encode()
    ).hexdigest()[:10]
    return f"fuzz-{digest}"


def case_from_difference(diff: Difference, *, seed: int | None = None) -> dict[str, Any]:
    """The case (as TOML-ready data) that passes on the oracle and fails on the engine."""
    actions = list(diff.game.actions)
    refusals: dict[int, dict[str, str] | None] = {
        n: s.refusal for n, s in enumerate(diff.game.steps, start=1)
    }
    opens = {n: s.open for n, s in enumerate(diff.game.steps, start=1)}  # (Step.open)
    final: dict[str, Any] = {}
    reason_at: int | None = None
    observed = diff.game.observed_after(diff.step)
    if diff.kind == "legal":
        probe = _probe(diff)
        if probe is None:
            raise ExportError("a LEGAL difference without an action to probe it")
        action, refusal = probe
        actions.append(action)
        refusals[len(actions)] = refusal
        observed = _replayed(diff.game.state, actions).observe()
        final = {"step": observed["step"]}
    elif diff.kind == "reason":
        reason_at = diff.step
    elif diff.kind in ("observed",):
        final = _subset(observed, diff.fields)
    if not final and (diff.kind != "legal"):
        # a verdict or an engine error: the oracle's step tells the reader where the game is
        final = {"step": observed["step"]}
    after_last = len(actions) if diff.kind == "legal" else diff.step
    expect: list[dict[str, Any]] = []
    for n in range(1, len(actions) + 1):
        entry: dict[str, Any] = {}
        if refusals.get(n) is not None:
            refusal = refusals[n]
            assert refusal is not None
            # a setup or wire step's code is always written
            setup_step = is_setup_step(actions[n - 1]) or is_wire_step(actions[n - 1])
            entry["refused"] = refusal["reason"] if n == reason_at or setup_step else True
            if n == reason_at and len(opens.get(n, ())) > 1:  # the protocol leaves it open
                entry["refused"] = list(opens[n])
        if n == after_last and final:
            entry["observed"] = _tomlable(final)
        if entry:
            expect.append({"after": n, **entry})
    if after_last == 0:
        expect.append({"after": 0, "observed": _tomlable(final)})
    cited = {
        ACTION_RULES[a["do"]]
        for a in actions
        if isinstance(a, dict) and a.get("do") in ACTION_RULES
    }
    refused_acts = [
        n
        for n, r in refusals.items()
        if r is not None and not (is_setup_step(actions[n - 1]) or is_wire_step(actions[n - 1]))
    ]
    cited |= {"B-21"} if refused_acts else set()
    if any(is_setup_step(a) for a in actions):
        cited |= {"P-state"}
    if any(is_wire_step(a) for a in actions):
        cited |= {"P-errors"}
    cited |= {
        FIELD_RULES[name]
        for f in diff.fields
        if (name := f.path.rsplit(".", 1)[-1]) in FIELD_RULES and f.path not in NOT_FIELDS
    }
    rules_cited = sorted(cited, key=_rule_order)
    cid = case_id(diff)
    where = "after setup" if diff.step == 0 else f"at action {diff.step}"
    notes = (
        f"Exported by `palconf fuzz`{f' (seed {seed})' if seed is not None else ''}: "
        f"engine {diff.engine_name or '(unnamed)'} differed from the oracle {where} "
        f"({diff.kind}: {diff.summary}). Expectations are the oracle's answers. "
        "Before committing: check them against the rules text, cite the clauses this "
        "case tests, give it a title that states the fact, move it to "
        "cases/<keyword>/ (or interactions/, base/) and rename it to match (the id "
        "starts with the folder's name)."
    )
    ruled = [OPEN_REASONS_RULING] if any(isinstance(e.get("refused"), list) for e in expect) else []
    return {
        "id": cid,
        "title": f"Generated board where an engine differed from the oracle ({cid[5:]})",
        "clauses": [],
        "rules": rules_cited or ["B-1"],
        **({"interpretations": ruled} if ruled else {}),
        "notes": notes,
        "setup": diff.game.state,
        "actions": [as_case_action(a) for a in actions],
        "expect": expect,
    }


def write_case(case: dict[str, Any], directory: Path, *, overwrite: bool = False) -> Path:
    """Check `case` against the case schema and write `<directory>/<id>.toml`: atomically,
    never through a link out of `directory`, and not over an earlier export unless
    `overwrite` (palconf.core.safe_write)."""
    errors = sorted(case_checks.validator().iter_errors(case), key=lambda e: list(map(str, e.path)))
    if errors:
        raise ExportError(
            "the exported case is not schema-valid: "
            + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
        )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{case['id']}.toml"
    try:
        return write_text_atomic(
            path,
            schema_line(directory) + tomli_w.dumps(case),
            inside=directory,
            overwrite=overwrite,
        )
    except UnsafeWrite as e:
        hint = " (--overwrite replaces it)" if "exists" in str(e) else ""
        raise ExportError(f"{e}{hint}") from None
