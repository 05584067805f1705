"""Loading case files: TOML → schema → cross-checks → `Case`.

Every problem becomes a `CaseError` naming the file, the line (where one can be found) and
the field path; loading never shows a traceback. `load_cases` gathers the errors of all
files before giving up, so one run shows every broken file at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import jsonschema
import tomli

from . import paths
from .core.outcomes import BASE, PROTOCOL, groups_of
from .registry import Registry
from .registry import load as load_registry
from .schemacheck import Check, Compiler

NULL = "null"  # TOML has no null: the string "null" stands for it in expectations
KEYWORD_OF_WORD = {"Quick": "quick", "Brave": "brave", "Serious": "serious",
                   "Interrupt": "interrupt", "Vigilance": "vigilance", "Taunt": "taunt",
                   "Stealth": "stealth", "Retaliate": "retaliate", "Nocturnal": "nocturnal",
                   "Breakthrough": "breakthrough", "Assault": "assault"}
WHEN_KEYWORD = {"deploy": "on-deploy", "attack": "on-attack", "assign": "on-assign"}


@dataclass(frozen=True)
class CaseError:
    file: str
    message: str
    line: int | None = None
    column: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.field + ': ' if self.field else ''}{self.message}"


class CaseLoadError(Exception):
    def __init__(self, errors: list[CaseError]) -> None:
        super().__init__("\n".join(str(e) for e in errors))
        self.errors = errors


#: The refusals a setup step may demand (`P-state`); every other code is an action's REASON.
SETUP_ERRORS = ("invalid-state", "unsupported")


@dataclass(frozen=True)
class LegalExpectation:
    """What `legal` must answer at one point (`P-legal`; docs/case-format.md)."""

    exactly: tuple[dict[str, Any], ...] | None = None  # the whole list, as a set
    includes: tuple[dict[str, Any], ...] = ()  # each listed, exactly so
    excludes: tuple[dict[str, Any], ...] = ()  # patterns no listed action may match


@dataclass(frozen=True)
class Expectation:
    after: int  # 0 = right after setup; n = after step n (1-based)
    observed: dict[str, Any] | None = None
    refused: bool | str | None = None  # True: any reason; a string: that reason (or error)
    legal: LegalExpectation | None = None


@dataclass(frozen=True)
class Step:
    """One step of a case: an ACTION sent with `act`, or a STATE sent with `setup`."""

    kind: Literal["act", "setup"]
    body: Any

    def request(self) -> dict[str, Any]:
        if self.kind == "setup":
            return {"cmd": "setup", "state": self.body}
        return {"cmd": "act", "action": self.body}

    def describe(self) -> str:
        body = json.dumps(self.body, sort_keys=True)
        return f"setup {body}" if self.kind == "setup" else body


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    path: str  # relative to the cases folder
    clauses: tuple[str, ...]
    rules: tuple[str, ...]
    interpretations: tuple[str, ...]
    setup: dict[str, Any]
    steps: tuple[Step, ...]
    expect: tuple[Expectation, ...]
    keywords: tuple[str, ...]  # its groups: the keywords of its clauses, `protocol`, or `base`
    needs: frozenset[str]  # every keyword an engine must implement to run it
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # rules_version, clause_hashes

    @property
    def actions(self) -> tuple[Any, ...]:
        """What each step sends: the ACTION, or the STATE of a setup step."""
        return tuple(s.body for s in self.steps)

    @property
    def uses_legal(self) -> bool:
        return any(e.legal is not None for e in self.expect)

    def expectation_after(self, n: int) -> Expectation | None:
        for e in self.expect:
            if e.after == n:
                return e
        return None


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    return json.loads(paths.CASE_SCHEMA.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> jsonschema.protocols.Validator:
    cls = jsonschema.validators.validator_for(schema())
    return cls(schema())


@lru_cache(maxsize=1)
def _fast_check() -> Check:
    """A yes/no check of a case against the schema, some forty times quicker than
    jsonschema; jsonschema runs only on a file that fails it, to say what is wrong."""
    return Compiler({"case": schema()}).compile(schema(), "case")


# ---------------------------------------------------------------- locating a field's line

def _header_re(name: str) -> re.Pattern[str]:
    return re.compile(r"^\s*\[{1,2}\s*" + re.escape(name) + r"\s*\]{1,2}\s*(#.*)?$")


def locate(text: str, path: Iterable[str | int]) -> int | None:
    """Best-effort line (1-based) of a field path in a TOML text: follows table headers
    (`[setup.players.A]`, the n-th `[[actions]]`) and `key =` assignments."""
    lines = text.splitlines()
    path = list(path)
    if not path:
        return 1  # the file as a whole (a top-level field is missing)
    pos, prefix, found = 0, [], False
    for seg in path:
        if isinstance(seg, int):
            headers = [n for n, line in enumerate(lines) if _header_re(".".join(prefix)).match(line)]
            if seg < len(headers):
                pos, found = headers[seg], True
            continue
        prefix.append(seg)
        name = ".".join(prefix)
        header = next((n for n, line in enumerate(lines) if _header_re(name).match(line)), None)
        if header is not None:
            pos, found = header, True
            continue
        key = re.compile(r"(^|[{,\s])\"?" + re.escape(seg) + r"\"?\s*=")
        hit = next((n for n in range(pos, len(lines)) if key.search(lines[n])), None)
        if hit is not None:
            pos, found = hit, True
    return pos + 1 if found else None


def _path_str(path: Iterable[str | int]) -> str:
    out = ""
    for seg in path:
        out += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if out else str(seg))
    return out or "(top level)"


# ---------------------------------------------------------------- schema errors, made readable

def _schema_message(err: jsonschema.ValidationError) -> str:
    if err.validator == "pattern" and isinstance(err.instance, str):
        path = list(err.absolute_path)
        if "keywords" in path:
            return (f"unknown keyword {err.instance!r}; known: "
                    "Quick, Brave N, Serious N, Interrupt, Vigilance, Taunt, Stealth, Retaliate, "
                    "Nocturnal, Breakthrough, Assault")
        return f"{err.instance!r} is not of the form {err.validator_value!r}"
    if err.validator == "additionalProperties":
        return err.message.replace("Additional properties are not allowed", "unknown field(s)")
    if err.validator in ("oneOf", "anyOf") and err.context:
        # the alternative that got furthest says most
        best = jsonschema.exceptions.best_match(err.context)
        return _schema_message(best)
    return err.message


def _schema_errors(data: dict[str, Any], file: str, text: str) -> list[CaseError]:
    if _fast_check()(data):
        return []
    errors = []
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        if err.validator in ("oneOf", "anyOf") and err.context:
            err = jsonschema.exceptions.best_match(err.context)
        path = list(err.absolute_path)
        errors.append(CaseError(file, _schema_message(err), locate(text, path), None,
                                _path_str(path)))
    return errors


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


def needed_keywords(setup: Any) -> set[str]:
    """The keywords a STATE uses: on its cards, and by its abilities' timing (docs/case-format.md)."""
    needs: set[str] = set()

    def card(c: Any) -> None:
        if not isinstance(c, dict):
            return
        for kw in c.get("keywords", []) if isinstance(c.get("keywords"), list) else []:
            kid = KEYWORD_OF_WORD.get(kw.split(" ")[0]) if isinstance(kw, str) else None
            if kid == "quick" and c.get("kind") != "event":
                continue  # ignored on a Pal or structure
            if kid:
                needs.add(kid)
        for ab in c.get("abilities", []) if isinstance(c.get("abilities"), list) else []:
            if not isinstance(ab, dict):
                continue
            if isinstance(ab.get("when"), str) and ab["when"] in WHEN_KEYWORD:
                needs.add(WHEN_KEYWORD[ab["when"]])
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


def _refs(data: dict[str, Any]) -> Iterator[tuple[list[str | int], str]]:
    """(field path, card id) for every card id an action or expectation names."""
    for i, action in enumerate(data.get("actions", [])):
        if "malformed" in action or "setup" in action:
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


def _semantic_errors(data: dict[str, Any], file: str, stem: str, text: str,
                     registry: Registry) -> list[CaseError]:
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
    for i, rid in enumerate(data.get("rules", [])):
        if rid not in registry.base and rid not in registry.protocol:
            err(["rules", i], f"unknown base or protocol rule {rid!r}")
    for i, iid in enumerate(data.get("interpretations", [])):
        if iid not in registry.interpretations:
            err(["interpretations", i], f"unknown interpretation {iid!r}")
    ids, _ = _state_ids(data["setup"])
    seen: set[str] = set()
    for cid in ids:
        if cid in seen:
            err(["setup"], f"duplicate card id {cid!r} in setup")
        seen.add(cid)
    n_actions = len(data["actions"])
    refused_actions = {e.get("after", n_actions) - 1 for e in data["expect"] if "refused" in e}
    setup_steps = {i for i, a in enumerate(data["actions"]) if "setup" in a}
    for i in sorted(setup_steps - refused_actions):  # an accepted setup step: its ids count
        with_ids = data["actions"][i]["setup"]
        try:
            seen |= set(_state_ids(with_ids)[0])
        except (AttributeError, KeyError, TypeError):
            err(["actions", i, "setup"], "a setup step that the case expects to be accepted "
                                          "must be a valid STATE")
    for i, exp in enumerate(data["expect"]):
        after = exp.get("after", n_actions)
        refused = exp.get("refused")
        if after - 1 in setup_steps and refused is not None and refused not in SETUP_ERRORS:
            err(["expect", i, "refused"], f"step {after} is a setup step: `refused` must be one "
                                          f"of {', '.join(SETUP_ERRORS)}, not {refused!r}")
        elif after - 1 not in setup_steps and refused in SETUP_ERRORS:
            err(["expect", i, "refused"], f"{refused!r} is a refusal of `setup`; step {after} "
                                          "is an action")
    for path, cid in _refs(data):
        # an unknown id is deliberate in an action the case expects to be refused
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


# ---------------------------------------------------------------- building a Case

def _denull(value: Any) -> Any:
    if value == NULL:
        return None
    if isinstance(value, dict):
        return {k: _denull(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_denull(v) for v in value]
    return value


def _groups(clauses: Iterable[str], rules: Iterable[str], registry: Registry) -> tuple[str, ...]:
    """The keywords of the clauses a case cites, `protocol` if it cites a P- rule, else
    `base` (palconf.core.outcomes.groups_of)."""
    out: list[str] = []
    for cid in clauses:
        kw = registry.clauses[cid].keyword
        if kw not in out:
            out.append(kw)
    return groups_of(out, rules)


def _legal(data: dict[str, Any] | None) -> LegalExpectation | None:
    if data is None:
        return None
    exactly = data.get("exactly")
    return LegalExpectation(exactly=None if exactly is None else tuple(exactly),
                            includes=tuple(data.get("includes", ())),
                            excludes=tuple(data.get("excludes", ())))


def _step(entry: dict[str, Any]) -> Step:
    if "setup" in entry:
        return Step("setup", entry["setup"])
    return Step("act", entry["malformed"] if "malformed" in entry else entry)


def build_case(data: dict[str, Any], rel: str, registry: Registry) -> Case:
    n_actions = len(data["actions"])
    expect = tuple(
        Expectation(after=e.get("after", n_actions),
                    observed=_denull(e["observed"]) if "observed" in e else None,
                    refused=e.get("refused"), legal=_legal(e.get("legal")))
        for e in data["expect"])
    keywords = _groups(data.get("clauses", []), data.get("rules", []), registry)
    steps = tuple(_step(a) for a in data["actions"])
    needs = needed_keywords(data["setup"]) | {k for k in keywords if k not in (BASE, PROTOCOL)}
    for step in steps:
        if step.kind == "setup":
            needs |= needed_keywords(step.body)
    return Case(
        id=data["id"], title=data["title"], path=rel,
        clauses=tuple(data.get("clauses", [])), rules=tuple(data.get("rules", [])),
        interpretations=tuple(data.get("interpretations", [])),
        setup=data["setup"], steps=steps, expect=expect, keywords=keywords, needs=frozenset(needs), notes=data.get("notes", ""),
        extra={k: data[k] for k in ("rules_version", "clause_hashes") if k in data},
    )


def load_case(path: Path, root: Path | None = None,
              registry: Registry | None = None) -> tuple[Case | None, list[CaseError]]:
    """One case file → (Case, []) or (None, errors)."""
    registry = registry or load_registry()
    try:
        rel = str(path.relative_to(root)) if root else str(path)
    except ValueError:
        rel = str(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return None, [CaseError(rel, f"cannot read: {e}")]
    try:
        data = tomli.loads(text)
    except tomli.TOMLDecodeError as e:
        msg = getattr(e, "msg", str(e))
        return None, [CaseError(rel, f"TOML syntax: {msg}", getattr(e, "lineno", None),
                                getattr(e, "colno", None))]
    errors = _schema_errors(data, rel, text)
    if errors:
        return None, errors
    errors = _semantic_errors(data, rel, path.stem, text, registry)
    if errors:
        return None, errors
    return build_case(data, rel, registry), []


def case_files(root: Path) -> list[Path]:
    """Case files are in the folders under `root`; files at its top (the interaction matrix,
    `cases/interactions.toml`) are not cases. A `root` that is itself one case folder (no
    subfolders, such as `cases/protocol`) holds its cases at its top."""
    if _is_case_folder(root):
        return sorted(p for p in root.glob("*.toml") if p.is_file())
    return sorted(p for p in root.rglob("*.toml") if p.is_file() and p.parent != root)


def _is_case_folder(root: Path) -> bool:
    return root.is_dir() and not any(p.is_dir() for p in root.iterdir())


def load_cases(root: Path | None = None, registry: Registry | None = None,
               files: Iterable[Path] | None = None) -> list[Case]:
    """Every case under `root` (default: the project's `cases/`), or raise CaseLoadError with
    the errors of every broken file, duplicate ids included."""
    root = Path(root or paths.CASES)
    registry = registry or load_registry()
    if files is None and not root.is_dir():
        raise CaseLoadError([CaseError(str(root), "no such cases folder")])
    cases: list[Case] = []
    errors: list[CaseError] = []
    by_id: dict[str, str] = {}
    # paths are shown relative to the cases folder: `protocol/x.toml`, also when `root` is
    # one case folder
    shown_from = root.parent if files is None and _is_case_folder(root) else root
    for path in (sorted(files) if files is not None else case_files(root)):
        case, errs = load_case(path, shown_from, registry)
        errors += errs
        if case is None:
            continue
        if case.id in by_id:
            errors.append(CaseError(case.path, f"duplicate case id {case.id!r} (also in "
                                               f"{by_id[case.id]})", 2, None, "id"))
            continue
        by_id[case.id] = case.path
        cases.append(case)
    if errors:
        raise CaseLoadError(errors)
    return cases
