"""Checking a case file's data: the schema (the fast compiled check; its messages are
case_messages.py's), the line of a field in the TOML text, and the cross-checks the schema
cannot make (ids, clause and rule ids, card references, `after` numbers, setup steps, the
oracle's STATE check). Nesting too deep is case_depth.py's. Every problem is a `CaseError`
naming the file, the line and the field: never a traceback.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from palconf import paths
from palconf.cases.errors import CaseError
from palconf.cases.keywords import CASE_NUMBER, keyword_pattern, lexicon
from palconf.cases.refs import refs, unknown_ref
from palconf.cases.wire import SETUP_ERRORS, WIRE_ERRORS, wire_errors
from palconf.core.schema import Check, Compiler, python_pattern
from palconf.core.schema_source import SourceCompiler
from palconf.oracle.model import StateError, load_state
from palconf.registry import Registry
from palconf.registry import load as load_registry

if TYPE_CHECKING:
    import jsonschema


NULL = "null"  # TOML has no null: the string "null" stands for it in expectations


def _reasons() -> tuple[str, ...]:
    """The REASON codes of P-reasons: the case schema's refusal codes but the errors."""
    codes = json.loads(paths.CASE_SCHEMA.read_text(encoding="utf-8"))["$defs"]["reason"]["enum"]
    return tuple(c for c in codes if c not in WIRE_ERRORS)


REASONS = _reasons()


def schema(registry: Registry | None = None) -> dict[str, Any]:
    """The case schema with the keywords of every version of `registry` (default: the
    project's): palconf/schemas/case.schema.json with its `keyword` pattern rebuilt
    (`palconf.cases.keywords`). The same object while the keywords are the same."""
    return _schema(_pattern(registry))


def _pattern(registry: Registry | None) -> str:
    return keyword_pattern(registry or load_registry(), CASE_NUMBER)


@lru_cache(maxsize=4)
def _schema(pattern: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(paths.CASE_SCHEMA.read_text(encoding="utf-8"))
    data["$defs"]["keyword"]["pattern"] = pattern
    return data


def validator(registry: Registry | None = None) -> jsonschema.protocols.Validator:
    return _validator(_pattern(registry))


@lru_cache(maxsize=4)
def _validator(pattern: str) -> jsonschema.protocols.Validator:
    import jsonschema

    cls = jsonschema.validators.validator_for(_schema(pattern))
    checker: jsonschema.protocols.Validator = _exact_patterns(cls)(_schema(pattern))
    return checker


def _exact_patterns(cls: type[jsonschema.protocols.Validator]) -> type[Any]:
    """`cls` with `pattern` read as the schema means it (`schema.python_pattern`)."""
    import jsonschema

    def pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "string") and not re.search(python_pattern(patrn), instance):
            yield jsonschema.ValidationError(f"{instance!r} does not match {patrn!r}")

    extended: type[Any] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        cls, {"pattern": pattern}
    )
    return extended


def fast_check(registry: Registry | None = None) -> Check:
    """A yes/no check of a case against the schema, far quicker than jsonschema, which runs
    only on a file that fails it, to say what is wrong. Compiled to Python source
    (`schema_source`): about twice as quick on a case as the `Compiler`'s closures
    (`closure_check`, which the tests hold it to), for a compilation some 10 ms longer. The
    loader asks `reading.plain_check` first (this check and the foreign walk in one)."""
    return _fast_check(_pattern(registry))


@lru_cache(maxsize=4)
def _fast_check(pattern: str) -> Check:
    return SourceCompiler({"case": _schema(pattern)}).compile(_schema(pattern), "case")


def closure_check(registry: Registry | None = None) -> Check:
    """The same check as `fast_check`, made of the `Compiler`'s closures (for the tests)."""
    return _closure_check(_pattern(registry))


@lru_cache(maxsize=4)
def _closure_check(pattern: str) -> Check:
    return Compiler({"case": _schema(pattern)}).compile(_schema(pattern), "case")


# ---------------------------------------------------------------- locating a field's line


_HEADER = re.compile(r"^\s*\[{1,2}\s*(.*?)\s*\]{1,2}\s*(#.*)?$")
_KEYS = re.compile(r"""(?:^|[{,\s])"?([A-Za-z0-9_.-]+)"?\s*=""")
_BARE_KEY = re.compile(r"[A-Za-z0-9_.-]+")


@dataclass
class _Index:
    """Where each table header and each `key =` of a TOML text is: built once per text, so
    that locating a thousand errors in one file is linear, not a rescan for each."""

    lines: list[str]
    headers: dict[str, list[int]]  # `[name]` / `[[name]]` → its lines
    below: dict[str, int]  # `name` → the first header of a table below it (`[name.x]`)
    keys: dict[str, list[int]]  # a bare key → the lines that assign it


@lru_cache(maxsize=8)
def _index(text: str) -> _Index:
    lines = text.splitlines()
    headers: dict[str, list[int]] = {}
    below: dict[str, int] = {}
    keys: dict[str, list[int]] = {}
    for n, line in enumerate(lines):
        header = _HEADER.match(line)
        if header is not None:
            name = header.group(1)
            headers.setdefault(name, []).append(n)
            parts = name.split(".")
            for i in range(1, len(parts)):
                below.setdefault(".".join(parts[:i]).strip(), n)
        for key in _KEYS.findall(line):
            found = keys.setdefault(key, [])
            if not found or found[-1] != n:
                found.append(n)
    return _Index(lines, headers, below, keys)


def _key_line(index: _Index, seg: str, pos: int) -> int | None:
    """The first line at or after `pos` that assigns `seg`."""
    if _BARE_KEY.fullmatch(seg):
        found = index.keys.get(seg, [])
        i = bisect.bisect_left(found, pos)
        return found[i] if i < len(found) else None
    key = re.compile(r"(^|[{,\s])\"?" + re.escape(seg) + r"\"?\s*=")  # (rare: a quoted key)
    lines = index.lines
    return next((n for n in range(pos, len(lines)) if key.search(lines[n])), None)


def locate(text: str, path: Iterable[str | int]) -> int | None:
    """Best-effort line (1-based) of a field path in a TOML text: follows table headers
    (`[setup.players.A]`, the n-th `[[actions]]`) and `key =` assignments."""
    index = _index(text)
    path = list(path)
    if not path:
        return 1  # the file as a whole (a top-level field is missing)
    pos, found = 0, False
    prefix: list[str] = []
    for seg in path:
        if isinstance(seg, int):
            headers = index.headers.get(".".join(prefix), [])
            if seg < len(headers):
                pos, found = headers[seg], True
            continue
        prefix.append(seg)
        name = ".".join(prefix)
        if name in index.headers:
            pos, found = index.headers[name][0], True
            continue
        hit = _key_line(index, seg, pos)
        if hit is None:  # only deeper tables are written: `[actions.first]` for `actions`
            hit = index.below.get(name)
        if hit is not None:
            pos, found = hit, True
    return pos + 1 if found else None


def _path_str(path: Iterable[str | int]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else str(seg))
    return out or "(top level)"


# ---------------------------------------------------------------- semantic checks


def _state_ids(setup: dict[str, Any]) -> tuple[list[str], set[str]]:
    """All card ids of a STATE (with repeats, to find duplicates) and the structures' ids."""
    ids: list[str] = []
    structures: set[str] = set()
    for pdata in setup.get("players", {}).values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for card in pdata.get(zone, []):
                ids.append(card["id"])
                if card.get("kind") == "structure":
                    structures.add(card["id"])
                ids += [p["id"] for p in card.get("assigned", [])]
    return ids, structures


def needed_keywords(setup: Any, registry: Registry | None = None) -> set[str]:
    """The keywords a STATE uses: on its cards, and by its abilities' timing
    (docs/case-format.md); the words are those of `registry` (default: the project's)."""
    needs: set[str] = set()
    lex = lexicon(registry or load_registry())

    def card(c: Any) -> None:
        if not isinstance(c, dict):
            return
        for kw in c.get("keywords", []) if isinstance(c.get("keywords"), list) else []:
            kid = lex.words.get(kw.split(" ")[0]) if isinstance(kw, str) else None
            if kid == "quick" and c.get("kind") != "event":
                continue  # ignored on a Pal or structure
            if kid:
                needs.add(kid)
        for ab in c.get("abilities", []) if isinstance(c.get("abilities"), list) else []:
            if not isinstance(ab, dict):
                continue
            if isinstance(ab.get("when"), str) and ab["when"] in lex.whens:
                needs.add(lex.whens[ab["when"]])
            elif ab.get("quick") is True:
                needs.add("quick")
        for p in c.get("assigned", []) if isinstance(c.get("assigned"), list) else []:
            card(p)

    players = setup.get("players") if isinstance(setup, dict) else None
    for pdata in players.values() if isinstance(players, dict) else []:
        for zone in ("hand", "battle", "structures", "graveyard"):
            cards = pdata.get(zone) if isinstance(pdata, dict) else None
            for c in cards if isinstance(cards, list) else []:
                card(c)
    return needs


def _id_line(text: str, cid: str, nth: int = 0, start: int = 1) -> int | None:
    """The line of the `nth` card written with this id at or after line `start`."""
    card = re.compile(r"(^|[{,\s])\"?id\"?\s*=\s*[\"']" + re.escape(cid) + r"[\"']")
    lines = enumerate(text.splitlines(), 1)
    hits = [n for n, line in lines if n >= start for _ in card.finditer(line)]
    return hits[nth] if len(hits) > nth else None


def state_errors(
    state: Any, path: list[str | int], file: str, text: str, registry: Registry | None = None
) -> list[CaseError]:
    """A STATE the oracle does not load (`P-state`: an event in `battle`, more Pals than
    slots, …): the case's setup, or a setup step it expects to be accepted. The keywords it
    may write are those of every version of `registry` (default: the project's)."""
    try:
        load_state(state, lexicon(registry or load_registry()))
    except StateError as e:
        start = locate(text, path) or 1
        line: int | None = start
        card = re.search(r"\b(?:card|structure) (['\"])(.+?)\1", e.message)
        player = re.match(r"player ([AB])\b", e.message)
        if card:
            line = _id_line(text, card.group(2), 0, start) or start
        elif player and path == ["setup"]:
            line = locate(text, [*path, "players", player.group(1)]) or start
        message = f"not a legal STATE ({e.code}): {e.message}"
        return [CaseError(file, message, line, None, _path_str(path))]
    return []


def semantic_errors(
    data: dict[str, Any], file: str, stem: str, text: str, registry: Registry
) -> list[CaseError]:
    errors: list[CaseError] = []

    def err(path: list[str | int], message: str) -> None:
        errors.append(CaseError(file, message, locate(text, path), None, _path_str(path)))

    if data["id"] != stem:
        err(["id"], f"case id {data['id']!r} differs from the file name {stem + '.toml'!r}")
    for i, cid in enumerate(data.get("clauses", [])):
        clause = registry.clauses.get(cid)
        if clause is None:
            err(["clauses", i], f"unknown clause id {cid!r}")
        elif not clause.testable:
            err(["clauses", i], f"clause {cid!r} is informative, not testable")
    errors += _version_errors(data, file, text, registry)
    for i, rid in enumerate(data.get("rules", [])):
        if rid not in registry.base and rid not in registry.protocol:
            err(["rules", i], f"unknown base or protocol rule {rid!r}")
    for i, iid in enumerate(data.get("interpretations", [])):
        if iid not in registry.interpretations:
            err(["interpretations", i], f"unknown interpretation {iid!r}")
        elif iid in registry.retired:
            err(
                ["interpretations", i],
                f"{iid} is retired: the ruling in force is {registry.retired[iid]}",
            )
    ids, _ = _state_ids(data.get("setup", {}))
    seen: set[str] = set()
    for cid in ids:
        if cid in seen:
            errors.append(
                CaseError(
                    file,
                    f"duplicate card id {cid!r} in setup",
                    _id_line(text, cid, 1, locate(text, ["setup"]) or 1),
                    None,
                    "setup",
                )
            )
        seen.add(cid)
    if "setup" in data and len(seen) == len(ids):  # (duplicates are said above)
        errors += state_errors(data["setup"], ["setup"], file, text, registry)
    n_actions = len(data["actions"])
    refused_actions = {e.get("after", n_actions) - 1 for e in data["expect"] if "refused" in e}
    setup_steps = {i for i, a in enumerate(data["actions"]) if "setup" in a}
    wire_steps = {i for i, a in enumerate(data["actions"]) if "send" in a or "request" in a}
    for i in sorted(setup_steps - refused_actions):  # an accepted setup step: its ids count
        step = data["actions"][i]["setup"]
        illegal = state_errors(step, ["actions", i, "setup"], file, text, registry)
        errors += illegal
        if not illegal:
            seen |= set(_state_ids(step)[0])
    for path, message in wire_errors(data, setup_steps - refused_actions):
        err(path, message)
    for i, exp in enumerate(data["expect"]):
        after = exp.get("after", n_actions)
        refused = exp.get("refused")
        codes = refused if isinstance(refused, list) else [] if refused is None else [refused]
        allowed: tuple[str, ...]
        if after - 1 in setup_steps:
            allowed, what = SETUP_ERRORS, f"step {after} is a setup step"
        elif after - 1 in wire_steps:
            allowed, what = WIRE_ERRORS, f"step {after} is a wire step"
            if data["actions"][after - 1].get("request", {}).get("cmd") == "act":
                allowed = (*WIRE_ERRORS, *REASONS)  # an `act` request refused: its REASON
        else:
            allowed, what = (), ""
        for code in codes:
            if allowed and code not in allowed:
                err(
                    ["expect", i, "refused"],
                    f"{what}: `refused` must be one of {', '.join(allowed)}, not {code!r}",
                )
            elif not allowed and code in WIRE_ERRORS:
                whose = "a refusal of `setup`" if code in SETUP_ERRORS else "an error (P-errors)"
                err(["expect", i, "refused"], f"{code!r} is {whose}; step {after} is an action")
    # an unknown id is deliberate in an action the case expects to be refused
    for path, cid in refs(data) if unknown_ref(data, seen, refused_actions) else ():
        deliberate = path[0] == "actions" and path[1] in refused_actions
        if cid not in seen and not deliberate:
            err(path, f"card id {cid!r} is not in the setup")
    afters: set[int] = set()
    for i, exp in enumerate(data["expect"]):
        after = exp.get("after", n_actions)
        if after > n_actions:
            err(["expect", i, "after"], f"after = {after}, but the case has {n_actions} action(s)")
        if "refused" in exp and after == 0:
            err(["expect", i, "refused"], "`refused` needs `after` to name an action (1 or more)")
        if after in afters:
            err(["expect", i, "after"], f"a second expectation for after = {after}")
        afters.add(after)
    return errors


_NO_RANGE = frozenset({"since", "until", "replaced_by"})


def _version_errors(
    data: dict[str, Any], file: str, text: str, registry: Registry
) -> list[CaseError]:
    """`rules_version` (one version, or a list in order of publication), `since` and `until`
    name versions the registry carries, `since` no later than `until`; `replaced_by` only
    with an `until` (a case with no end has no successor)."""
    if _one_known_version(data, registry):
        return []  # (what 1369 cases of 1371 write: `_all_version_errors` finds nothing)
    return _all_version_errors(data, file, text, registry)


def _one_known_version(data: dict[str, Any], registry: Registry) -> bool:
    """One `rules_version` the registry carries, no `since`, `until` or `replaced_by`."""
    reviewed = data.get("rules_version")
    return (
        isinstance(reviewed, str) and reviewed in registry.versions and _NO_RANGE.isdisjoint(data)
    )


def _all_version_errors(
    data: dict[str, Any], file: str, text: str, registry: Registry
) -> list[CaseError]:
    errors: list[CaseError] = []
    names = list(registry.versions)

    def err(key: str, message: str) -> None:
        errors.append(CaseError(file, message, locate(text, [key]), None, key))

    reviewed = data.get("rules_version", [])
    reviewed = [reviewed] if isinstance(reviewed, str) else list(reviewed)
    named = [("rules_version", v) for v in reviewed]
    for key, version in named + [(k, data[k]) for k in ("since", "until") if k in data]:
        if version not in names:
            err(key, f"unknown rules version {version!r}; this palconf carries {', '.join(names)}")
    known = [names.index(v) for v in reviewed if v in names]
    if known != sorted(known):
        err("rules_version", "rules_version lists versions out of their order of publication")
    since, until = data.get("since"), data.get("until")
    if since in names and until in names and names.index(since) > names.index(until):
        err("until", f"since {since!r} is after until {until!r}")
    if data.get("replaced_by") and "until" not in data:
        err("replaced_by", "replaced_by needs until (the last version this case holds for)")
    return errors
