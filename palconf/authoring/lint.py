"""The suite's own lint (like JSON-Schema-Test-Suite's `check`): rules a case must follow
beyond its schema. `palconf lint` runs them; so do the tests."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from palconf.cases.loader import Case, locate
from palconf.cases.open_reasons import open_reasons
from palconf.core import json_read
from palconf.core.outcomes import BASE, case_folder
from palconf.engines.oracle_engine import OracleEngine
from palconf.oracle import Rules, StateError
from palconf.registry import Registry
from palconf.running.runner import run_case

SCHEMA_LINE = "#:schema ../../palconf/schemas/case.schema.json"
INTERACTIONS = "interactions"
#: Words that make a title a wish instead of a fact, or say nothing.
VAGUE = re.compile(
    r"\b(should|must work|works correctly|test(s|ing)?\b|check(s|ing)?\b|"
    r"correct(ly)?|properly|as expected)\b",
    re.IGNORECASE,
)
MIN_TITLE_WORDS = 5


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}{':' + str(self.line) if self.line else ''}: {self.message}"


def expected_folder(case: Case, registry: Registry) -> str:
    """cases/protocol/ for a case citing a P- rule; else the one keyword's folder,
    cases/interactions/ for several, cases/base/ for none (`case_folder`)."""
    return case_folder(case.keywords)


def id_prefix(folder: str) -> str:
    """How the id of a case in cases/`folder`/ starts (`brave-`, `ix-`, `base-`, …)."""
    return {BASE: "base-", INTERACTIONS: "ix-"}.get(folder, folder + "-")


REASONS_RULE = "P-reasons"


@dataclass(frozen=True)
class Demand:
    """An action of a case that demands a reason (or one of a list of reasons), with what the
    oracle finds there: every REASON row it breaks (`codes`, in table order) and the reasons
    a faithful engine may give (`open`, `palconf.cases.open_reasons`: more than one only where the
    protocol leaves the reason open)."""

    step: int
    demanded: tuple[str, ...]
    codes: tuple[str, ...]
    open: tuple[str, ...]


def demands(case: Case, rules: type[Rules] = Rules) -> list[Demand]:
    """The actions of a case that demand a reason, each with what the oracle (`rules`) finds
    there."""
    if case.setup is None:  # no game to ask until a setup step: wire steps demand no reason
        return []
    try:
        game = rules.from_state(case.setup)
    except StateError:
        return []
    out: list[Demand] = []
    for n, step in enumerate(case.steps, start=1):
        exp = case.expectation_after(n)
        if step.wire:  # an answer of the protocol layer: no REASON, no move
            continue
        if step.kind == "setup":
            if exp is None or exp.refused is None:
                try:
                    game = rules.from_state(step.body)
                except StateError:
                    return out
            continue
        if exp is not None and exp.reasons:
            codes = tuple(dict.fromkeys(r.reason for r in game.reasons(step.body)))
            found = open_reasons(game, step.body, codes[0]) if codes else ()
            out.append(Demand(n, exp.reasons, codes, found))
        game.apply(step.body)
    return out


def lint_cases(
    cases: list[Case], registry: Registry, root: Path, version: str | None = None
) -> list[Problem]:
    """The problems of `cases` as files, and as cases of rules `version` (default: current):
    each case that holds for it must pass on its oracle (a case that does not hold for it,
    or belongs to other versions, is judged by its standing, not run here)."""
    from palconf.cases.standing import as_of, standing

    problems: list[Problem] = []
    titles: dict[str, str] = {}
    boards: dict[str, str] = {}
    version = registry.resolve(version)
    rules = registry.oracle(version)
    engine = OracleEngine(rules, rules_version=version)
    engine.start()
    for case in cases:
        path = root / case.path
        if not path.exists():  # `root` is one case folder (cases/protocol): paths start above
            path = root.parent / case.path
        text = _text_of(path)

        def problem(
            message: str, field: list[str | int] | None = None, case: Case = case, text: str = text
        ) -> None:
            problems.append(Problem(case.path, message, locate(text, field) if field else None))

        if text and text.splitlines()[0].strip() != SCHEMA_LINE:
            problem(f"the first line must be `{SCHEMA_LINE}`", [])
        folder = Path(case.path).parts[0] if len(Path(case.path).parts) > 1 else ""
        want = expected_folder(case, registry)
        if folder != want:
            problem(
                f"belongs in cases/{want}/ (it tests {', '.join(case.keywords)}), "
                f"not cases/{folder}/",
                ["clauses"],
            )
        prefix = id_prefix(want)
        if not case.id.startswith(prefix):
            problem(f"the id of a case in cases/{want}/ starts with `{prefix}`", ["id"])
        key = case.title.strip().lower()
        if key in titles:
            problem(f"title also used by {titles[key]}", ["title"])
        titles.setdefault(key, case.id)
        vague = VAGUE.search(case.title)
        if vague:
            problem(f"title is not a plain statement of fact: {vague.group(0)!r}", ["title"])
        if len(case.title.split()) < MIN_TITLE_WORDS:
            problem(
                f"title is too short to say what happens ({len(case.title.split())} words)",
                ["title"],
            )
        board = json.dumps([case.setup, case.actions], sort_keys=True)
        if board in boards:
            problem(f"same setup and actions as {boards[board]}", ["setup"])
        boards.setdefault(board, case.id)
        # (an illegal setup never gets here: the loader refuses it, palconf.cases.checks)
        fits = standing(case, registry, version).runs  # judged on `version`'s oracle
        for d in demands(case, rules) if fits else []:
            n, demanded, codes = d.step, d.demanded, d.codes
            wanted = " or ".join(repr(r) for r in demanded)
            if len(d.open) > 1 and set(demanded) != set(d.open):
                problem(
                    f"action {n} demands {wanted}, but the protocol leaves the reason open "
                    f"here ({' or '.join(map(repr, d.open))}): demand exactly those (a list), "
                    "and cite the ruling",
                    ["expect"],
                )
            elif len(d.open) == 1 and len(demanded) > 1:
                problem(
                    f"action {n} accepts {wanted}, but only {d.open[0]!r} is right here: "
                    "a list of reasons is for a reason the protocol leaves open",
                    ["expect"],
                )
            if len(codes) < 2:
                continue
            if REASONS_RULE not in case.rules:
                problem(
                    f"action {n} demands {wanted} where several rules are broken "
                    f"({', '.join(codes)}): demand none (`refused = true`), or test the "
                    f"order and cite {REASONS_RULE}",
                    ["expect"],
                )
            elif codes[0] not in demanded:
                problem(
                    f"action {n} demands {wanted}, but the order of the REASON table "
                    f"gives {codes[0]!r} (broken: {', '.join(codes)})",
                    ["expect"],
                )
        if any(isinstance(e.refused, tuple) for e in case.expect) and not case.interpretations:
            problem(
                "a list of reasons says the protocol leaves the reason open between them: "
                "cite the interpretation that rules so (`interpretations`)",
                ["expect"],
            )
        if not fits:
            continue
        result = run_case(engine, as_of(case, registry, version))
        if result.outcome != "pass":
            engine.start()  # a fresh session after a failure
            detail = "; ".join(str(d) for d in result.diffs[:3])
            problem(
                f"does not pass on the oracle: {result.message}"
                + (f" ({detail})" if detail else "")
            )
    return problems


def interaction_pairs(registry: Registry) -> list[tuple[str, str]]:
    kws = list(registry.keywords)
    return [(a, b) for i, a in enumerate(kws) for b in kws[i:]]


def pair_key(a: str, b: str) -> str:
    return f"{a}+{b}"


def instances_in_setup(case: Case, keyword: str) -> int:
    """How many instances of a keyword the case's setup holds (abilities count for On X)."""
    when = {"on-deploy": "deploy", "on-attack": "attack", "on-assign": "assign"}.get(keyword)
    n = 0

    def card(c: dict[str, Any]) -> None:
        nonlocal n
        for kw in c.get("keywords", []):
            word = str(kw).split(" ")[0].lower()
            if word == keyword:
                n += 1
        for ab in c.get("abilities", []):
            if when and ab.get("when") == when:
                n += 1
            if keyword == "quick" and ab.get("quick"):
                n += 1
        for p in c.get("assigned", []):
            card(p)

    for pdata in (case.setup or {}).get("players", {}).values():
        for zone in ("hand", "battle", "structures", "graveyard"):
            for c in pdata.get(zone, []):
                card(c)
    return n


def pair_cases(cases: list[Case], registry: Registry) -> dict[str, list[str]]:
    """For each keyword pair, the cases that exercise it: a case tests both keywords (cites
    clauses of each); for a keyword with itself, it tests the keyword with two or more
    instances of it in play or in hand."""
    table: dict[str, list[str]] = defaultdict(list)
    for case in cases:
        tested = [k for k in case.keywords if k in registry.keywords]
        for i, a in enumerate(tested):
            for b in tested[i + 1 :]:
                x, y = sorted((a, b), key=list(registry.keywords).index)
                table[pair_key(x, y)].append(case.id)
            if instances_in_setup(case, a) >= 2:
                table[pair_key(a, a)].append(case.id)
    return table


def _text_of(path: Path) -> str:
    """A case file's text, to locate a field in ("" when it cannot be read: the one bounded
    reader, palconf.core.json_read)."""
    try:
        return json_read.read_text(path, ValueError, "a case file")
    except ValueError:
        return ""
