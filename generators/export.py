"""A fuzzing difference as a case file (docs/case-format.md), ready to review and commit.

The case is the difference's board and actions; its expectations are the oracle's answers:

- every action the oracle refused is marked refused with the oracle's reason (P-reasons):
  where the action breaks one row of the REASON table, that reason; where it breaks several,
  the first in the table's order, and the case cites `P-reasons` (it then tests the order);
  where the protocol leaves the reason open, the list of the reasons a faithful engine may
  give, with the ruling that says so;
- after the step where the engine went another way, `observed` holds the oracle's values
  of exactly the fields that differed (or, for a verdict, the refusal), so the case passes
  on the oracle and fails on that engine;
- a LEGAL-only difference cannot be written as an expectation (cases have no LEGAL), so it
  becomes one more action: an action the oracle lists and the engine does not (which the
  oracle accepts), or one the engine lists and the oracle does not (which it refuses).

**What it cites.** `clauses`: the testable clauses, in the rules version, of every keyword
on the cards the difference touches: the cards of its differing fields (`cards.a6.power`);
when there are none, the cards the step that differs names (for a LEGAL difference, the
probe action); when those are none too, the cards any action names. A keyword is read off
a card as a case's needs are (`palconf.cases.checks.needed_keywords`: its keywords, its
abilities' timing). `rules`:
the base rules of the actions played and of the differing fields, `B-21` for a refused
action, `P-state` for a setup step, `P-errors` for a wire step, `P-reasons` as above. The
case's group follows (`palconf.core.outcomes.case_folder`): its id starts as lint wants
(`brave-fuzz-…`, `ix-fuzz-…`, `protocol-fuzz-…`, `base-fuzz-…`) and `palconf fuzz --export
DIR` writes it into `DIR/<group>/`, so that exported into a suite's `cases/` it passes
`palconf lint`. It is left unblessed (no `rules_version`, `clause_hashes`): a human reviews
it against the rules text and blesses it (`palconf rules bless`).

`case_from_difference` builds the case as data; `write_case` checks it against the case
schema and writes `<dir>/<id>.toml` with tomli-w. The case still needs a human: the notes
say so (the clauses to keep, a title stating the fact).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomli_w

from palconf.authoring.lint import id_prefix
from palconf.cases import checks as case_checks
from palconf.cases import loader as case_files
from palconf.cases.checks import needed_keywords
from palconf.cases.open_reasons import OPEN_REASONS_RULING
from palconf.core import MISSING, Diff
from palconf.core.errors import PalconfError
from palconf.core.outcomes import case_folder, groups_of
from palconf.core.safe_write import UnsafeWrite, write_text_atomic
from palconf.engines.oracle_engine import answer_line
from palconf.oracle import Rules
from palconf.oracle.protocol import Session
from palconf.registry import Registry

from .game import is_setup_step, is_wire_step, play, wire_line
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


def _cards(states: list[Any]) -> dict[str, dict[str, Any]]:
    """Every card of these STATEs by id (a Pal on a structure's `assigned` list too)."""
    out: dict[str, dict[str, Any]] = {}

    def add(card: Any) -> None:
        if isinstance(card, dict) and isinstance(card.get("id"), str):
            out.setdefault(card["id"], card)
            for held in card.get("assigned", []) if isinstance(card.get("assigned"), list) else []:
                add(held)

    for state in states:
        players = state.get("players") if isinstance(state, dict) else None
        for pdata in players.values() if isinstance(players, dict) else []:
            for zone in ("hand", "battle", "structures", "graveyard"):
                cards = pdata.get(zone) if isinstance(pdata, dict) else None
                for card in cards if isinstance(cards, list) else []:
                    add(card)
    return out


def touched_clauses(
    diff: Difference, actions: list[Any], registry: Registry, version: str
) -> list[str]:
    """The testable clauses (of rules `version`) of the keywords on the cards the difference
    touches (the module says which cards), in the rules text's order."""
    states = [diff.game.state, *(a["setup"] for a in actions if is_setup_step(a))]
    cards = _cards(states)
    ids: list[str] = []
    for f in diff.fields:
        if f.path.startswith("cards."):
            rest = f.path[len("cards.") :]
            ids += [c for c in cards if rest == c or rest.startswith(c + ".")]
    at = len(actions) if diff.kind == "legal" else diff.step
    step = actions[at - 1] if 1 <= at <= len(actions) else None
    if not ids and isinstance(step, dict) and not (is_setup_step(step) or is_wire_step(step)):
        ids = _ids(step)
    if not ids:
        ids = [i for a in actions if isinstance(a, dict) and not is_wire_step(a) for i in _ids(a)]
    keywords: set[str] = set()
    for cid in ids:
        if cid in cards:
            keywords |= needed_keywords({"players": {"A": {"battle": [cards[cid]]}}}, registry)
    return [c.id for c in registry.clauses_in(version) if c.keyword in keywords and c.testable]


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


def case_from_difference(
    diff: Difference,
    *,
    seed: int | None = None,
    registry: Registry | None = None,
    version: str | None = None,
) -> dict[str, Any]:
    """The case (as TOML-ready data) that passes on the oracle and fails on the engine, and
    cites what the difference touches, of rules `version` (default: the current one) of
    `registry` (default: the project's)."""
    if registry is None:
        from palconf.registry import load

        registry = load()
    version = version or registry.current
    actions = list(diff.game.actions)
    refusals: dict[int, dict[str, str] | None] = {
        n: s.refusal for n, s in enumerate(diff.game.steps, start=1)
    }
    opens = {n: s.open for n, s in enumerate(diff.game.steps, start=1)}  # (Step.open)
    final: dict[str, Any] = {}
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
    elif diff.kind in ("observed",):
        final = _subset(observed, diff.fields)
    if not final and (diff.kind != "legal"):
        # a verdict or an engine error: the oracle's step tells the reader where the game is
        final = {"step": observed["step"]}
    after_last = len(actions) if diff.kind == "legal" else diff.step
    # every REASON row each refused action breaks, in the table's order (`Step.broken`)
    played = play(registry.oracle(version), diff.game.state, actions)
    rows = {n: tuple(dict.fromkeys(s.broken)) for n, s in enumerate(played.steps, start=1)}
    expect: list[dict[str, Any]] = []
    for n in range(1, len(actions) + 1):
        entry: dict[str, Any] = {}
        if refusals.get(n) is not None:
            refusal = refusals[n]
            assert refusal is not None
            # the oracle's reason (a setup or wire step's code); a list where the protocol
            # leaves the reason open
            entry["refused"] = refusal["reason"]
            if len(opens.get(n, ())) > 1:
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
    if any(len(rows.get(n, ())) > 1 for n in refused_acts):
        cited |= {"P-reasons"}  # a reason where several rows are broken: the order is tested
    if any(is_setup_step(a) for a in actions):
        cited |= {"P-state"}
    if any(is_wire_step(a) for a in actions):
        cited |= {"P-errors"}
    cited |= {
        FIELD_RULES[name]
        for f in diff.fields
        if (name := f.path.rsplit(".", 1)[-1]) in FIELD_RULES and f.path not in NOT_FIELDS
    }
    rules_cited = sorted(cited, key=_rule_order) or ["B-1"]
    clauses = touched_clauses(diff, actions, registry, version)
    digest = case_id(diff).removeprefix("fuzz-")
    cid = id_prefix(folder_of(clauses, rules_cited, registry)) + f"fuzz-{digest}"
    where = "after setup" if diff.step == 0 else f"at action {diff.step}"
    notes = (
        f"Exported by `palconf fuzz`{f' (seed {seed})' if seed is not None else ''}: "
        f"engine {diff.engine_name or '(unnamed)'} differed from the oracle {where} "
        f"({diff.kind}: {diff.summary}). Expectations are the oracle's answers. "
        "It cites every testable clause of the keywords on the cards the difference "
        "touches: before committing, check the expectations against the rules text, keep "
        "the clauses this case tests (its folder and id prefix follow them), give it a "
        "title that states the fact, and bless it (palconf rules bless)."
    )
    ruled = [OPEN_REASONS_RULING] if any(isinstance(e.get("refused"), list) for e in expect) else []
    return {
        "id": cid,
        "title": f"Generated board where an engine differed from the oracle ({digest})",
        "clauses": clauses,
        "rules": rules_cited,
        **({"interpretations": ruled} if ruled else {}),
        "notes": notes,
        "setup": diff.game.state,
        "actions": [as_case_action(a) for a in actions],
        "expect": expect,
    }


def folder_of(clauses: list[str], rules: list[str], registry: Registry) -> str:
    """The folder of cases/ a case citing `clauses` and `rules` belongs in (lint's rule)."""
    keywords = [registry.clauses[c].keyword for c in clauses]
    return case_folder(groups_of(keywords, rules))


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
