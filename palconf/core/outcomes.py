"""Outcomes, the one `Result` of a case, and the one `Tally` of outcomes (docs/INTERPRETING.md).

A `Result` is what the runner decides, what a results file holds one line of, what the
pytest plugin reports and what every report is built from. `Result.from_json` is the
type-checking reader for results files (untrusted input): a wrong field is a `ValueError`
naming it, never a traceback.

What one result stores is bounded (docs/broken-input.md, section 16), however it was made
(a run, or a results file of any palconf): at most `MAX_DIFFS` differences, each path and
value at most `MAX_VALUE_CHARS` characters of JSON (a longer one is kept as a string: its
first characters, then how long it was), and `diffs_omitted` counts the differences left
out ("and K more differences"). The bounds are written in a results file's meta line
(`bounds`), and every report shows at most them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from palconf.core.compare import MISSING, Diff, canonical

#: The group of a case that cites no section-12 clause and no protocol rule.
BASE = "base"
#: The group of a case that cites a protocol rule (`P-state`, `P-reasons`, `P-observed`,
#: `P-legal`), beside the keywords of the clauses it cites.
PROTOCOL = "protocol"
PROTOCOL_PREFIX = "P-"

#: The most differences one result stores (the first ones, in the order found).
MAX_DIFFS = 50
#: The longest path, or value as JSON text, one stored difference keeps, in characters.
MAX_VALUE_CHARS = 4000


def bounds() -> dict[str, int]:
    """The bounds on what one result stores, as a results file's meta line says them."""
    return {"diffs": MAX_DIFFS, "value_chars": MAX_VALUE_CHARS}


def _clipped_text(text: str) -> str:
    """The first characters of `text` and its length, in a string whose own JSON text fits
    in MAX_VALUE_CHARS (so clipping again keeps it as it is)."""
    keep = MAX_VALUE_CHARS - 60
    while True:
        out = f"{text[:keep]}… (clipped: {len(text):,} characters in all)"
        if len(canonical(out)) <= MAX_VALUE_CHARS:
            return out
        keep //= 2


def _clipped(value: Any) -> Any:
    """`value`, or, when its JSON text is longer than MAX_VALUE_CHARS, a string of its first
    characters and its length."""
    if value is MISSING or isinstance(value, (bool, int, float)) or value is None:
        return value
    if isinstance(value, str) and len(value) <= MAX_VALUE_CHARS // 6:
        return value  # (an escape is at most 6 characters: its JSON text fits)
    text = canonical(value)
    return value if len(text) <= MAX_VALUE_CHARS else _clipped_text(text)


def bounded_diffs(diffs: Iterable[Diff]) -> tuple[tuple[Diff, ...], int]:
    """The differences a result stores (at most MAX_DIFFS, each clipped) and how many more
    there were."""
    kept: list[Diff] = []
    more = 0
    for d in diffs:
        if len(kept) == MAX_DIFFS:
            more += 1
            continue
        path = d.path if len(d.path) <= MAX_VALUE_CHARS else _clipped_text(d.path)
        exp, obs = _clipped(d.expected), _clipped(d.observed)
        same = path is d.path and exp is d.expected and obs is d.observed
        kept.append(d if same else Diff(path, exp, obs))
    return tuple(kept), more


class Outcome(StrEnum):
    """How one case went. `xfail` / `xpass` only come from an expectations file."""

    PASS = "pass"  # every expectation held
    FAIL = "fail"  # the engine answered, wrongly
    ERROR = "error"  # the engine broke or left the protocol
    TIMEOUT = "timeout"  # the engine did not answer in time
    SKIP = "skip"  # a keyword or command it lacks, or `unsupported`
    XFAIL = "xfail"  # failed, as the expectations file says it does
    XPASS = "xpass"  # passed, although the expectations file says it fails: news


OUTCOMES: tuple[str, ...] = tuple(o.value for o in Outcome)
#: Outcomes that count as the engine behaving as the rules say (an xpass passed, too).
PASSED = frozenset({Outcome.PASS, Outcome.XPASS})
#: Outcomes that count as the engine getting it wrong.
FAILED = frozenset({Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT, Outcome.XFAIL})


def groups_of(keywords: Iterable[str], rules: Iterable[str]) -> tuple[str, ...]:
    """The groups a case is counted under: each keyword it tests, `protocol` when it cites
    a `P-` rule, and `base` when neither."""
    out = [k for k in dict.fromkeys(keywords) if k != BASE]
    if PROTOCOL not in out and any(r.startswith(PROTOCOL_PREFIX) for r in rules):
        out.append(PROTOCOL)
    return tuple(out) or (BASE,)


def case_folder(groups: Iterable[str]) -> str:
    """The folder of `cases/` a case of these groups (`groups_of`) belongs in: `protocol`
    when it cites a P- rule, else its one keyword's, `interactions` for several, `base` for
    none (`palconf lint` checks it; `palconf fuzz --export` writes there)."""
    found = [g for g in groups if g != BASE]
    if PROTOCOL in found:
        return PROTOCOL
    if len(found) > 1:
        return "interactions"
    return found[0] if found else BASE


def junit_classname(groups: Iterable[str]) -> str:
    """A case's JUnit `classname`, from its groups (`groups_of`): the folder of `cases/` it
    belongs in (`palconf.taunt`, `palconf.interactions`, `palconf.protocol`, `palconf.base`).
    `palconf report`'s junit.xml and pytest's `--junitxml` (the plugin) both use it."""
    return f"palconf.{case_folder(groups)}"


def _strings(obj: dict[str, Any], name: str) -> tuple[str, ...]:
    value = obj.get(name)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"`{name}` must be a list of strings")
    return tuple(value)


def _text(obj: dict[str, Any], name: str) -> str:
    value = obj.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"`{name}` must be a string")
    return value


@dataclass
class Result:
    """The outcome of one case on one engine, with what a reader needs to follow it up."""

    id: str
    outcome: Outcome
    keywords: tuple[str, ...] = ()
    clauses: tuple[str, ...] = ()
    path: str = ""  # the case file, as the run found it
    message: str = ""
    duration_ms: float = 0.0
    interpretations: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()
    title: str = ""
    step: int | None = None  # the step (1-based; 0 = setup) where the case went wrong
    diffs: tuple[Diff, ...] = ()
    stderr: str = ""
    engine: str = ""
    # set by an expectations file (palconf.running.expectations):
    actual: str = ""  # the engine's own outcome when it was turned into xfail / xpass
    expected: tuple[str, ...] = ()  # the outcomes the file lists for the case
    note: str = ""  # the listing's note and link
    diffs_omitted: int = 0  # differences found but not stored (MAX_DIFFS): "and K more"

    def __post_init__(self) -> None:
        kept, more = bounded_diffs(self.diffs)
        self.diffs, self.diffs_omitted = kept, self.diffs_omitted + more

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups the case is counted under (see `groups_of`)."""
        return groups_of(self.keywords, self.rules)

    @property
    def depends_on_ruling(self) -> bool:
        return bool(self.interpretations)

    @property
    def passed(self) -> bool:
        return self.outcome in PASSED

    @property
    def failed(self) -> bool:
        return self.outcome in FAILED

    # ------------------------------------------------------------ results files

    _ALWAYS = ("id", "keywords", "clauses", "outcome", "message", "duration_ms")

    def to_json(self) -> dict[str, Any]:
        """One line of a results file: empty fields left out, but for the usual few."""
        data = asdict(self)
        data["outcome"] = self.outcome.value
        data["diffs"] = [d.to_json() for d in self.diffs]
        return {
            k: list(v) if isinstance(v, tuple) else v
            for k, v in data.items()
            if (v not in ("", None, [], ()) or k in self._ALWAYS)
            and not (k == "diffs_omitted" and not v)
        }

    @classmethod
    def from_json(cls, obj: Any) -> Result:
        """A result read back from a results file (unknown fields are ignored); ValueError
        names the field that is wrong."""
        if not isinstance(obj, dict):
            raise ValueError("a result must be a JSON object")
        rid = obj.get("id")
        if not isinstance(rid, str) or not rid:
            raise ValueError("a result needs a non-empty string `id`")
        try:
            return cls._checked(rid, obj)
        except ValueError as e:
            raise ValueError(f"result {rid!r}: {e}") from None

    @classmethod
    def _checked(cls, rid: str, obj: dict[str, Any]) -> Result:
        try:
            outcome = Outcome(str(obj.get("outcome")))
        except ValueError:
            raise ValueError(
                f"`outcome` must be one of {', '.join(OUTCOMES)}, not {obj.get('outcome')!r}"
            ) from None
        duration = obj.get("duration_ms", 0.0)
        if (
            isinstance(duration, bool)
            or not isinstance(duration, (int, float))
            or not math.isfinite(duration)
        ):
            raise ValueError("`duration_ms` must be a number")
        step = obj.get("step")
        if step is not None and (isinstance(step, bool) or not isinstance(step, int)):
            raise ValueError("`step` must be an integer")
        raw_diffs = obj.get("diffs") or []
        if not isinstance(raw_diffs, list):
            raise ValueError("`diffs` must be a list")
        omitted = obj.get("diffs_omitted", 0)
        if isinstance(omitted, bool) or not isinstance(omitted, int) or omitted < 0:
            raise ValueError("`diffs_omitted` must be a whole number from 0")
        if not all(isinstance(d, dict) for d in raw_diffs):
            raise ValueError("each diff must be an object with a string `path`")
        # a file of another palconf may hold more: only the first MAX_DIFFS are built
        omitted += max(0, len(raw_diffs) - MAX_DIFFS)
        return cls(
            id=rid,
            outcome=outcome,
            keywords=_strings(obj, "keywords"),
            clauses=_strings(obj, "clauses"),
            path=_text(obj, "path"),
            message=_text(obj, "message"),
            duration_ms=float(duration),
            interpretations=_strings(obj, "interpretations"),
            rules=_strings(obj, "rules"),
            title=_text(obj, "title"),
            step=step,
            diffs=tuple(Diff.from_json(d) for d in raw_diffs[:MAX_DIFFS]),
            stderr=_text(obj, "stderr"),
            engine=_text(obj, "engine"),
            actual=_text(obj, "actual"),
            expected=_strings(obj, "expected"),
            note=_text(obj, "note"),
            diffs_omitted=omitted,
        )


@dataclass
class Tally:
    """Outcome counts of a set of cases on one engine."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, outcome: str) -> None:
        self.counts[str(outcome)] += 1

    @classmethod
    def of(cls, outcomes: Iterable[str]) -> Tally:
        t = cls()
        for o in outcomes:
            t.add(o)
        return t

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def passed(self) -> int:
        return sum(self.counts[o] for o in PASSED)

    @property
    def failed(self) -> int:
        return sum(self.counts[o] for o in FAILED)

    @property
    def skipped(self) -> int:
        return self.counts[Outcome.SKIP]

    @property
    def ran(self) -> int:
        return self.total - self.skipped

    @property
    def ok(self) -> bool:
        """Nothing failed, broke or timed out (an xfail is expected, so it is ok)."""
        return not (
            self.counts[Outcome.FAIL] or self.counts[Outcome.ERROR] or self.counts[Outcome.TIMEOUT]
        )

    @property
    def rate(self) -> float | None:
        return self.passed / self.ran if self.ran else None

    @property
    def fraction(self) -> str:
        return f"{self.passed}/{self.ran}" if self.ran else "–"

    @property
    def percent(self) -> str:
        """Rounded down, so that 99.6% never shows as 100%."""
        if self.rate is None:
            return "–"
        return f"{math.floor(self.rate * 100)}%"

    @property
    def level(self) -> str:
        """A colour class: full, high, mid, low, zero (nothing passed), none (nothing ran)."""
        rate = self.rate
        if rate is None:
            return "none"
        if rate == 1:
            return "full"
        if rate >= 0.9:
            return "high"
        if rate >= 0.7:
            return "mid"
        if rate > 0:
            return "low"
        return "zero"

    @property
    def badge_color(self) -> str:
        return {
            "full": "brightgreen",
            "high": "green",
            "mid": "yellow",
            "low": "orange",
            "zero": "red",
            "none": "lightgrey",
        }[self.level]

    @property
    def badge_message(self) -> str:
        if self.ran:
            return self.fraction
        return "skipped" if self.total else "no cases"

    @property
    def detail(self) -> str:
        """`3 fail, 1 error, 2 skip`: the outcomes other than pass, for a tooltip or a line."""
        return ", ".join(
            f"{self.counts[o]} {o}" for o in OUTCOMES if o != "pass" and self.counts[o]
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {o: self.counts[o] for o in OUTCOMES}
        data.update(
            total=self.total,
            ran=self.ran,
            passed=self.passed,
            rate=None if self.rate is None else round(self.rate, 4),
        )
        return data
