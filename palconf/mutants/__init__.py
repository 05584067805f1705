"""Mutant engines: the oracle with exactly one deliberate misreading of the rules each.

A conformance suite that passes a correct engine proves little; one that fails every wrong
engine proves much. Each mutant is a plausible mistake a real implementer could make, built
as a small override kept out of the oracle's own code path:

- `@mutant(...)` on a subclass of `oracle.rules.Rules` that overrides one method (rarely two
  that carry one misreading together), or
- `@keyword_mutant(...)` on a subclass of one keyword class of `oracle.keywords`: the mutant
  is `Rules` with a copy of the `keywords` mapping in which that one class is replaced.

Every mutant keeps the oracle's keyword list, so the harness runs every case against it
(none is skipped). `palconf mutants` runs the case suite against each one; every mutant must
be killed (some case must fail) — see `palconf.mutants.sweep`.

Modules, by area: `quick` (Quick and the quick step; playing events and activating abilities,
B-9, B-9a), `triggers` (On Deploy / On Attack / On Assign, deploying and assigning), `pumps`
(Brave, Serious), `choices` (choices, what effects affect, the order of triggered abilities),
`interrupt`, `turn` (end of turn, night, Vigilance), `targeting` (Taunt, Assault, attack
targets), `blocking` (block step, Stealth), `battle` (battle, Retaliate, Breakthrough),
`power` (Nocturnal, power and life), `carriers` (a keyword on a card kind the text gives it
nothing on, or read as an aura of its side), `refusals` (B-21), `reasons` (P-reasons: the
order of the REASON table, each field's code), `protocol_state` (P-state: what `setup`
refuses), `protocol_state_allows` (P-state: what it must accept and read as written),
`protocol_observed` (P-observed), `protocol_legal`, `protocol_legal_repeats` (actions listed
once a turn or a step) and `protocol_legal_steps` (who acts when, assigns, `choose`)
(P-legal), `protocol_session` (what a new `setup` keeps of the game before), `protocol_errors`
(P-errors: lines that are not commands, requests before any game), `overreading`
(restrictions, forced choices and side effects the text does not state; no-op transitions),
`lifetimes` (effects after their source is gone), `ignored_fields` (fields accepted and
ignored; P-state and P-reasons rules read as holding on one card kind or zone), `choosing`
(who an effect may choose, B-19: restrictions by the kind of ability, the effect or the Pal).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TypeVar

from palconf.core.outcomes import PROTOCOL, PROTOCOL_PREFIX
from palconf.oracle.keywords import KEYWORDS, Keyword
from palconf.oracle.protocol import Session
from palconf.oracle.rules import Rules
from palconf.registry import BASE

#: The modules that define mutants, in the order `palconf mutants` lists them.
MODULES = (
    "quick",
    "triggers",
    "pumps",
    "choices",
    "interrupt",
    "turn",
    "targeting",
    "blocking",
    "battle",
    "power",
    "carriers",
    "refusals",
    "reasons",
    "protocol_state",
    "protocol_state_allows",
    "protocol_observed",
    "protocol_legal",
    "protocol_legal_repeats",
    "protocol_legal_steps",
    "protocol_session",
    "protocol_errors",
    "overreading",
    "lifetimes",
    "ignored_fields",
    "choosing",
)

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
#: A clause id of section 12 (`taunt.3`), a base rule (`B-13`) or a protocol rule (`P-legal`).
CLAUSE_RE = re.compile(r"^([a-z]+(-[a-z]+)*\.[0-9]+|B-[0-9]+[a-z]?|P-[a-z]+)$")


@dataclass(frozen=True)
class Mutant:
    """One misreading: its name, the clause (or base rule) it breaks, the misreading in one
    sentence, the engine (a `Rules` subclass) and how that engine is built."""

    name: str
    clause: str
    misreading: str
    rules: type[Rules]
    how: str
    #: for a `keyword_mutant`: the keyword class that replaces the oracle's
    keyword_class: type[Keyword] | None = None
    #: the protocol layer it speaks through: `Session`, or for a `session_mutant` the
    #: subclass that carries the misreading (`rules` is then the oracle's own)
    session: type[Session] = Session
    #: the outcome of the cases that kill it: `fail`, or `error` for a misreading whose
    #: answer is one the contract counts as the engine leaving the protocol (an error where
    #: a refusal is due: docs/INTERPRETING.md)
    killed_as: str = "fail"

    @property
    def keyword(self) -> str:
        """The keyword the mutant counts under in the per-keyword score (`base` for B-n,
        `protocol` for P-…)."""
        if self.clause.startswith(PROTOCOL_PREFIX):
            return PROTOCOL
        return self.clause.split(".")[0] if "." in self.clause else BASE


_REGISTRY: dict[str, Mutant] = {}
_loaded = False

R = TypeVar("R", bound=type[Rules])
K = TypeVar("K", bound=type[Keyword])
S = TypeVar("S", bound=type[Session])


def _register(m: Mutant) -> None:
    if not NAME_RE.match(m.name):
        raise ValueError(f"mutant name {m.name!r} is not lowercase-kebab")
    if not CLAUSE_RE.match(m.clause):
        raise ValueError(f"mutant {m.name!r}: {m.clause!r} is not a clause id or base rule")
    if m.name in _REGISTRY:
        raise ValueError(f"mutant {m.name!r} is defined twice")
    _REGISTRY[m.name] = m


def overridden_methods(cls: type, base: type) -> list[str]:
    """The methods and class attributes `cls` defines itself that `base` also has: what a
    mutant overrides."""
    return [n for n in vars(cls) if not n.startswith("__") and hasattr(base, n)]


def overridden_in_chain(cls: type, base: type) -> list[str]:
    """What `cls` and its own base classes up to `base` override (a mutant built on a small
    shared base class overrides what that class does), each name once."""
    chain = cls.__mro__[: cls.__mro__.index(base)] if base in cls.__mro__ else (cls,)
    return list(dict.fromkeys(n for c in chain for n in overridden_methods(c, base)))


def mutant(name: str, clause: str, misreading: str) -> Callable[[R], R]:
    """Register a `Rules` subclass overriding one method as the mutant `name`."""

    def deco(cls: R) -> R:
        methods = overridden_in_chain(cls, Rules)
        _register(
            Mutant(name, clause, misreading, cls, "overrides Rules." + ", Rules.".join(methods))
        )
        return cls

    return deco


def keyword_mutant(name: str, clause: str, misreading: str) -> Callable[[K], K]:
    """Register `Rules` with the keyword class `cls` (a subclass of one oracle keyword class)
    in place of the original, in a copy of the `keywords` mapping, as the mutant `name`."""

    def deco(cls: K) -> K:
        original = type(KEYWORDS[cls.id])
        if not issubclass(cls, original):
            raise TypeError(f"{cls.__name__} must subclass {original.__name__}")
        keywords = MappingProxyType({**KEYWORDS, cls.id: cls()})
        rules = type(
            "Rules_" + name.replace("-", "_"),
            (Rules,),
            {"keywords": keywords, "__doc__": misreading, "__module__": cls.__module__},
        )
        methods = overridden_methods(cls, original)
        _register(
            Mutant(
                name,
                clause,
                misreading,
                rules,
                f"replaces keyword {original.__name__} by {cls.__name__} "
                f"(overrides {original.__name__}." + ", ".join(methods) + ")",
                keyword_class=cls,
            )
        )
        return cls

    return deco


def session_mutant(
    name: str, clause: str, misreading: str, killed_as: str = "fail"
) -> Callable[[S], S]:
    """Register a subclass of the protocol layer `Session` (oracle/protocol.py) overriding
    one method as the mutant `name`: a misreading of the wire (P-errors) or of what a new
    `setup` keeps of the game before. Its game is the oracle's."""

    def deco(cls: S) -> S:
        methods = overridden_methods(cls, Session)
        _register(
            Mutant(
                name,
                clause,
                misreading,
                Rules,
                "overrides Session." + ", Session.".join(methods),
                session=cls,
                killed_as=killed_as,
            )
        )
        return cls

    return deco


def for_rules(m: Mutant, oracle: type[Rules]) -> Mutant:
    """Mutant `m` as a misreading of the oracle `oracle` (the `Rules` class of one rules
    version) rather than of `Rules`: a `@mutant` class is mixed with it, its own overrides
    first (`type(name, (MutantRules, oracle), {})`); a keyword mutant's keyword class
    replaces `oracle`'s keyword (mixed with it, when `oracle` has its own class for that
    keyword) in `oracle`'s keyword mapping; a session mutant plays `oracle`'s game. For
    `Rules` itself, `m` unchanged."""
    if oracle is Rules:
        return m
    if m.session is not Session:
        return replace(m, rules=oracle)
    if m.keyword_class is not None:
        cls = m.keyword_class
        theirs = oracle.keywords.get(cls.id)
        if theirs is None:
            raise ValueError(f"mutant {m.name!r}: {oracle.__name__} has no keyword {cls.id!r}")
        if type(theirs) is not type(KEYWORDS[cls.id]) and not isinstance(theirs, cls):
            cls = type(cls.__name__, (cls, type(theirs)), {"__module__": cls.__module__})
        namespace = {
            "keywords": MappingProxyType({**oracle.keywords, cls.id: cls()}),
            "__doc__": m.misreading,
            "__module__": m.rules.__module__,
        }
        return replace(m, rules=type(m.rules.__name__, (oracle,), namespace))
    mixed = {"__doc__": m.rules.__doc__ or "", "__module__": m.rules.__module__}
    return replace(m, rules=type(m.rules.__name__, (m.rules, oracle), mixed))


def load_all() -> dict[str, Mutant]:
    """Every mutant, by name, in the order of `MODULES` and of definition."""
    global _loaded
    if not _loaded:
        for module in MODULES:
            importlib.import_module(f"{__name__}.{module}")
        _loaded = True
    return dict(_REGISTRY)


def get(name: str) -> Mutant:
    """The mutant called `name`; KeyError (with the known names) if there is none."""
    mutants = load_all()
    if name not in mutants:
        raise KeyError(f"no mutant {name!r} (`palconf mutants --list` lists them)")
    return mutants[name]
