"""Loading case files: TOML → schema → cross-checks → `Case`.

Every problem becomes a `CaseError` naming the file, the line (where one can be found) and
the field path; loading never shows a traceback. `load_cases` gathers the errors of all
files before giving up, so one run shows every broken file at once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from palconf import paths
from palconf.cases import memo
from palconf.cases.checks import (
    NULL,
    locate,
    needed_keywords,
    schema,
    semantic_errors,
)
from palconf.cases.depth import too_deep_error
from palconf.cases.errors import CaseError, CaseLoadError
from palconf.cases.finding import case_files, find_case_files, is_case_folder
from palconf.cases.messages import schema_errors
from palconf.cases.reading import _parse, decode, foreign_value, plain_check, read_bytes
from palconf.cases.wire import SETUP_ERRORS
from palconf.core import collector
from palconf.core.outcomes import BASE, PROTOCOL, groups_of
from palconf.registry import Registry
from palconf.registry import load as load_registry

__all__ = [
    "NULL",
    "SETUP_ERRORS",
    "Case",
    "CaseError",
    "CaseLoadError",
    "Expectation",
    "LegalExpectation",
    "Step",
    "build_case",
    "case_files",
    "find_case_files",
    "load_case",
    "load_cases",
    "locate",
    "needed_keywords",
    "schema",
]


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
    # True: any reason; a string: that reason (or error); a tuple: any one of those codes
    # (where the protocol leaves the reason open between them: docs/case-format.md)
    refused: bool | str | tuple[str, ...] | None = None
    legal: LegalExpectation | None = None

    @property
    def reasons(self) -> tuple[str, ...]:
        """The codes a refusal may give here: empty where any refusal will do (or where
        nothing is to be refused)."""
        if isinstance(self.refused, str):
            return (self.refused,)
        return self.refused if isinstance(self.refused, tuple) else ()

    def refusal_text(self) -> str:
        """How a report words the demanded refusal: `refused`, `refused (cannot-pay)`,
        `refused (invalid-action or wrong-player)`."""
        return "refused" + (f" ({' or '.join(self.reasons)})" if self.reasons else "")


@dataclass(frozen=True)
class Step:
    """One step of a case: an ACTION sent with `act`, a STATE sent with `setup`, or a wire
    step (P-errors): a line of text sent as it is (`send`), or a table sent as the request
    object whatever its `cmd` (`request`)."""

    kind: Literal["act", "setup", "send", "request"]
    body: Any

    @property
    def wire(self) -> bool:
        """Sent as a line, its reply checked as an answer of the protocol layer."""
        return self.kind in ("send", "request")

    @property
    def is_bye(self) -> bool:
        return self.kind == "request" and self.body.get("cmd") == "bye"

    @property
    def code_field(self) -> str:
        """Where a refusal of this step gives its code: an action's `reason`, else `error`."""
        return "reason" if self.kind == "act" else "error"

    @property
    def label(self) -> str:
        """What a message calls the step: `action`, `setup step` or `wire step`."""
        return {"act": "action", "setup": "setup step"}.get(self.kind, "wire step")

    def request(self) -> dict[str, Any]:
        """The request object (a `send` step's line may be none: see `line`)."""
        if self.kind == "setup":
            return {"cmd": "setup", "state": self.body}
        if self.kind == "request":
            return dict(self.body)
        if self.kind == "send":
            raise ValueError("a `send` step is a line of text, not a request object")
        return {"cmd": "act", "action": self.body}

    def line(self) -> bytes:
        """What goes on the wire for this step (no newline)."""
        if self.kind == "send":
            return str(self.body).encode("utf-8")
        return json.dumps(self.request(), separators=(",", ":")).encode("utf-8")

    def describe(self) -> str:
        if self.kind == "send":
            return f"the line {json.dumps(self.body)}"
        body = json.dumps(self.body, sort_keys=True)
        return {"setup": f"setup {body}", "request": f"the request {body}"}.get(self.kind, body)


@dataclass(frozen=True)
class Case:
    id: str
    title: str
    path: str  # relative to the cases folder
    clauses: tuple[str, ...]
    rules: tuple[str, ...]
    interpretations: tuple[str, ...]
    #: the STATE it starts from; None: it starts on a fresh engine that has had no game
    setup: dict[str, Any] | None
    steps: tuple[Step, ...]
    expect: tuple[Expectation, ...]
    keywords: tuple[str, ...]  # its groups: the keywords of its clauses, `protocol`, or `base`
    needs: frozenset[str]  # every keyword an engine must implement to run it
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # rules_version, clause_hashes
    #: the rules versions it holds for, both inclusive (None: from the first, to the last)
    since: str | None = None
    until: str | None = None
    replaced_by: tuple[str, ...] = ()  # its successors, for the versions after `until`

    @property
    def reviewed(self) -> tuple[str, ...]:
        """The versions the case was reviewed against (`palconf rules bless`), in order of
        publication: `rules_version`, one string or a list."""
        v = self.extra.get("rules_version")
        return (v,) if isinstance(v, str) else tuple(v) if isinstance(v, list) else ()

    @property
    def rules_version(self) -> str | None:
        """The version the case was last reviewed against; its `clause_hashes` are of it."""
        return self.reviewed[-1] if self.reviewed else None

    @property
    def clause_hashes(self) -> dict[str, str]:
        """Each cited clause's text hash in `rules_version`, as recorded when blessed."""
        h = self.extra.get("clause_hashes")
        return dict(h) if isinstance(h, dict) else {}

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


# ---------------------------------------------------------------- building a Case


def _denull(value: Any) -> Any:
    """`value` with every "null" string (NULL) as None, at any depth."""
    if isinstance(value, dict):
        return {k: _denull(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_denull(v) for v in value]
    return None if value == NULL else value


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
    return LegalExpectation(
        exactly=None if exactly is None else tuple(exactly),
        includes=tuple(data.get("includes", ())),
        excludes=tuple(data.get("excludes", ())),
    )


def _step(entry: dict[str, Any]) -> Step:
    kind: Literal["setup", "send", "request"]
    for kind in ("setup", "send", "request"):
        if kind in entry:
            return Step(kind, entry[kind])
    return Step("act", entry["malformed"] if "malformed" in entry else entry)


def build_case(data: dict[str, Any], rel: str, registry: Registry) -> Case:
    n_actions = len(data["actions"])
    expect = tuple(
        Expectation(
            after=e.get("after", n_actions),
            observed=_denull(e["observed"]) if "observed" in e else None,
            refused=tuple(e["refused"]) if isinstance(e.get("refused"), list) else e.get("refused"),
            legal=_legal(e.get("legal")),
        )
        for e in data["expect"]
    )
    keywords = _groups(data.get("clauses", []), data.get("rules", []), registry)
    steps = tuple(_step(a) for a in data["actions"])
    needs = needed_keywords(data.get("setup"), registry)
    needs |= {k for k in keywords if k not in (BASE, PROTOCOL)}
    for step in steps:
        if step.kind == "setup":
            needs |= needed_keywords(step.body, registry)
    return Case(
        id=data["id"],
        title=data["title"],
        path=rel,
        clauses=tuple(data.get("clauses", [])),
        rules=tuple(data.get("rules", [])),
        interpretations=tuple(data.get("interpretations", [])),
        setup=data.get("setup"),
        steps=steps,
        expect=expect,
        keywords=keywords,
        needs=frozenset(needs),
        notes=data.get("notes", ""),
        extra={k: data[k] for k in ("rules_version", "clause_hashes") if k in data},
        since=data.get("since"),
        until=data.get("until"),
        replaced_by=tuple(data.get("replaced_by", ())),
    )


def _shown(path: Path, root: Path | None) -> str:
    """`path` relative to `root` where it is inside it, else as given (the string test first:
    `Path.relative_to` costs more than the parse of a small case file)."""
    text = str(path)
    if root is None:
        return text
    prefix = str(root)
    if text.startswith(prefix) and text[len(prefix) : len(prefix) + 1] in (os.sep, "/"):
        return text[len(prefix) + 1 :]
    try:
        return str(path.relative_to(root))
    except ValueError:
        return text


def load_case(
    path: Path, root: Path | None = None, registry: Registry | None = None
) -> tuple[Case | None, list[CaseError]]:
    """One case file → (Case, []) or (None, errors)."""
    registry = registry or load_registry()
    rel = _shown(path, root)
    raw = read_bytes(path)
    if isinstance(raw, str):
        return None, [CaseError(rel, raw)]
    checked: tuple[dict[str, Any] | None, list[CaseError]] = memo.remembered(
        registry, memo.key(rel, raw), lambda: _load(raw, rel, path.stem, registry)
    )
    data, errors = checked
    if data is None:
        return None, errors
    try:
        return build_case(data, rel, registry), []
    except RecursionError:  # (MAX_DEPTH keeps every walk well inside the stack)
        return None, [too_deep_error(rel, raw.decode("utf-8"))]


def _load(
    raw: bytes, rel: str, stem: str, registry: Registry
) -> tuple[dict[str, Any] | None, list[CaseError]]:
    """A case file's bytes → (its table, []) once every check has passed, else (None,
    errors): what `load_case` keeps (memo) and builds its `Case` from. The table, not the
    `Case`: it is plain data, a quarter of the cost to pickle."""
    text = decode(raw, rel)
    if isinstance(text, CaseError):
        return None, [text]
    data = _parse(text, rel)
    if isinstance(data, CaseError):
        return None, [data]
    try:
        if not plain_check(registry)(data):  # (passed: neither check below finds anything)
            errors = schema_errors(data, rel, text, registry)
            if errors:
                return None, errors
            odd = foreign_value(data, rel, text)  # where the schema lets any value through
            if odd is not None:
                return None, [odd]
        errors = semantic_errors(data, rel, stem, text, registry)
        if errors:
            return None, errors
        return data, []
    except RecursionError:  # (MAX_DEPTH keeps every walk well inside the stack)
        return None, [too_deep_error(rel, text)]


def load_cases(
    root: Path | None = None, registry: Registry | None = None, files: Iterable[Path] | None = None
) -> list[Case]:
    """Every case under `root` (default: the project's `cases/`), or raise CaseLoadError with
    the errors of every broken file, duplicate ids included. What it makes lives on and
    holds no cycles: the garbage collector does not walk it meanwhile (core.collector)."""
    with collector.paused():
        return _load_cases(root, registry, files)


def _load_cases(
    root: Path | None, registry: Registry | None, files: Iterable[Path] | None
) -> list[Case]:
    root = Path(root or paths.CASES)
    registry = registry or load_registry()
    if files is None and not root.is_dir():
        shown = paths.where_from(root, "PALCONF_CASES") if root == paths.CASES else str(root)
        raise CaseLoadError([CaseError(shown, "no such cases folder")])
    cases: list[Case] = []
    errors: list[CaseError] = []
    by_id: dict[str, str] = {}
    # paths are shown relative to the cases folder: `protocol/x.toml`, also when `root` is
    # one case folder
    shown_from = root.parent if files is None and is_case_folder(root) else root
    if files is None:
        files, errors = find_case_files(root)
    for path in sorted(files):
        case, errs = load_case(path, shown_from, registry)
        errors += errs
        if case is None:
            continue
        if case.id in by_id:
            errors.append(
                CaseError(
                    case.path,
                    f"duplicate case id {case.id!r} (also in {by_id[case.id]})",
                    2,
                    None,
                    "id",
                )
            )
            continue
        by_id[case.id] = case.path
        cases.append(case)
    for case in cases:  # a successor named must be a case of the suite
        for i, succ in enumerate(case.replaced_by):
            if succ not in by_id:
                errors.append(
                    CaseError(
                        case.path,
                        f"replaced_by names {succ!r}, which is not a case here",
                        None,
                        None,
                        f"replaced_by[{i}]",
                    )
                )
    if errors:
        raise CaseLoadError(errors, cases)
    return cases
