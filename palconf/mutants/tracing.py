"""Tracing the oracle for the sweep's pruning.

Pruning (on by default; `exhaustive=True` turns it off). A mutant is the oracle with some
methods of `Rules`, or one keyword object, replaced. The code is deterministic, so on a given
case the mutant does exactly what the oracle does up to the first call of something it
replaced; if the oracle's own run of the case never calls any of those, the mutant's run is
the oracle's run and the case passes against it too. Finer still: it does what the oracle does
until the first call at which its replacement does something else. So during the baseline run
of the oracle, at every call of something a mutant replaced, the mutant's replacement is run
on a copy of the same input and compared (`Tracer`); a mutant is run only on the cases where
it was once seen to do otherwise. `tests/test_mutants.py` checks that a pruned sweep and an
exhaustive one agree.

`Rules` is made of mixins (`oracle.rules`): "a method of `Rules`" is any it has, from its
own class or a mixin (`rules_attributes`). A `check_<do>` answers with an iterator of
refusals; it is compared, and handed on, as the list of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from functools import partial
from types import MappingProxyType
from typing import Any

from palconf.mutants import Mutant
from palconf.oracle.model import CardState, GameState
from palconf.oracle.protocol import Session
from palconf.oracle.rules import Pending, Refusal, Rules

#: Methods of `Rules` that change neither their arguments, nor the game, nor the `Rules`
#: object: what they answer (a value, or a refusal) is all they do, so a probe need not copy
#: anything. `check_*` only refuse (raise, or yield refusals) or return.
PURE: frozenset[str] = frozenset(
    {
        "keywords_of",
        "keywords_in_play",
        "power",
        "is_quick_event",
        "is_interrupt",
        "triggered_effects",
        "legal_targets",
        "restricted",
        "targetable",
        "can_block",
        "pending_for",
        "battle_losers",
        "trigger_order",
        "choice_options",
        "effect_target",
        "check_shape",
        "check_main_phase",
        "check_quick_timing",
        "check_deploy",
        "check_assign",
        "check_play",
        "check_activate",
        "check_attack",
        "check_block",
        "check_pass",
        "check_interrupt",
        "check_end_turn",
    }
)


def rules_attributes(base: type[Rules] = Rules) -> dict[str, Any]:
    """Every attribute of `base` (the oracle: `Rules`, or the `Rules` class of a rules
    version) from its own class and its bases (not `object`'s), as the class that defines it
    holds it (a function, a staticmethod …), by name."""
    attributes: dict[str, Any] = {}
    for cls in reversed(base.__mro__):
        if cls is not object:
            attributes.update(vars(cls))
    return attributes


def touches(mutant: Mutant, base: type[Rules] = Rules) -> frozenset[str] | None:
    """What the mutant replaced of the oracle `base`: names of its methods and
    `keyword:<id>`; None when it cannot be probed (the mutant then runs on every case)."""
    if mutant.session is not Session:  # the protocol layer is not traced
        return None
    names: set[str] = set()
    oracle = rules_attributes(base)
    for cls in mutant.rules.__mro__:
        if cls is base or cls is Rules:
            break
        for name in vars(cls):
            if name in ("__init__", "__getattribute__", "__getattr__", "__setattr__"):
                return None
            if name == "keywords" or name.startswith("__"):
                continue
            if name in oracle:
                original = oracle[name]
                if not callable(original) or isinstance(original, (staticmethod, classmethod)):
                    return None
                names.add(name)
    keywords: Mapping[str, Any] = mutant.rules.keywords
    theirs: Mapping[str, Any] = base.keywords
    if set(keywords) != set(theirs):
        return None
    names |= {"keyword:" + k for k in theirs if keywords[k] is not theirs[k]}
    return frozenset(names)


#: The fields `_copy_game` copies; checked against the model when this module loads, so that
#: a field added to the model is never silently left out of a copy.
_GAME_FIELDS = (
    "active",
    "turn",
    "night",
    "life",
    "energy",
    "cards",
    "step",
    "priority",
    "attack",
    "winner",
    "pumps",
)
_CARD_FIELDS = ("card", "owner", "zone", "state", "host")
_FAST_COPY = (
    tuple(f.name for f in fields(GameState)) == _GAME_FIELDS
    and tuple(f.name for f in fields(CardState)) == _CARD_FIELDS
)


def _copy_game(g: GameState) -> GameState:
    """`g.copy()`, several times faster (the cards are copied field by field)."""
    if not _FAST_COPY:
        return g.copy()
    return GameState(
        active=g.active,
        turn=g.turn,
        night=g.night,
        life=dict(g.life),
        energy=dict(g.energy),
        cards={
            cid: CardState(c.card, c.owner, c.zone, c.state, c.host) for cid, c in g.cards.items()
        },
        step=g.step,
        priority=g.priority,
        attack=replace(g.attack) if g.attack else None,
        winner=g.winner,
        pumps=[replace(p) for p in g.pumps],
    )


class _Cloner:
    """Copies of a call's input, cheap and enough: a game by `_copy_game` (everything of it
    that can change), a card of a copied game by that copy's card, another card or a
    `Pending` by a shallow copy, containers element by element; everything else (frozen card
    data, effects, battle records, strings, numbers, functions) is immutable and shared."""

    def __init__(self) -> None:
        self.games: list[tuple[GameState, GameState]] = []

    def __call__(self, x: Any) -> Any:
        if isinstance(x, GameState):
            for original, clone in self.games:
                if original is x:
                    return clone
            clone = _copy_game(x)
            self.games.append((x, clone))
            return clone
        if isinstance(x, CardState):
            for original, clone in self.games:
                if original.cards.get(x.id) is x:
                    return clone.cards[x.id]
            return replace(x)
        if isinstance(x, Pending):
            return replace(x)
        if isinstance(x, list):
            return [self(v) for v in x]
        if isinstance(x, tuple):
            return tuple(self(v) for v in x)
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        if isinstance(x, set):
            return {self(v) for v in x}
        return x


def _answer(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call answers: ("ok", value) — an iterator (the refusals of a `check_<do>`)
    read out into a list —, or ("refused", reason)."""
    try:
        value = call()
        return ("ok", list(value) if isinstance(value, Iterator) else value)
    except Refusal as r:
        return ("refused", r.reason)


def _probe(call: Callable[[], Any]) -> tuple[str, Any]:
    try:
        return _answer(call)
    except Exception as e:  # a mutant that breaks here is told apart, not trusted
        return ("error", repr(e))


class Tracer:
    """Watches the oracle run one case and asks each mutant, at every call of something it
    replaced, what it would have done: `diverged` collects the mutants that once did
    otherwise. A `PURE` method is asked with the same arguments and its answer compared; any
    other method is run on copies of its arguments and of the game (`_Cloner`), and both the answer
    and everything it changed (arguments, `Rules.state`) are compared. Keyword hooks are pure.

    Until its first different step a mutant runs exactly as the oracle (the rest of its code
    is the oracle's, and the code is deterministic), so a case on which it never does
    otherwise cannot kill it and need not be run against it."""

    def __init__(self, mutants: Iterable[Mutant] = (), base: type[Rules] = Rules) -> None:
        """`base`: the oracle the mutants misread (`Rules`, or a rules version's class)."""
        self.touched: set[str] = set()
        self.diverged: set[str] = set()
        self.method_probes: dict[str, list[Mutant]] = {}
        self.keyword_probes: dict[str, list[tuple[str, Any]]] = {}
        self._instances: dict[str, Rules] = {}
        for m in mutants:
            for n in touches(m, base) or ():
                if n.startswith("keyword:"):
                    kid = n.split(":", 1)[1]
                    self.keyword_probes.setdefault(kid, []).append((m.name, m.rules.keywords[kid]))
                else:
                    self.method_probes.setdefault(n, []).append(m)

    def reset(self) -> None:
        self.touched.clear()
        self.diverged.clear()
        self._instances.clear()

    def _instance(self, m: Mutant, state: Any) -> Rules:
        """The mutant's `Rules` object for this case (kept, as the mutant's engine keeps one
        per game), on `state`."""
        inst = self._instances.get(m.name)
        if inst is None:
            inst = self._instances[m.name] = m.rules.__new__(m.rules)
        inst.state = state
        return inst

    def method(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        """`func` (a `Rules` method) traced, and probed for the mutants that replaced it."""
        probes = self.method_probes.get(name, [])
        pure = name in PURE

        def traced(oracle: Rules, *args: Any, **kwargs: Any) -> Any:
            self.touched.add(name)
            live = [m for m in probes if m.name not in self.diverged]
            if not live:
                return func(oracle, *args, **kwargs)
            inputs = [None if pure else _Cloner()((oracle.state, args, kwargs)) for _ in live]
            answer = _answer(lambda: func(oracle, *args, **kwargs))
            for m, copied in zip(live, inputs, strict=True):
                if copied is None:
                    inst = self._instance(m, oracle.state)
                    same = _probe(partial(getattr(inst, name), *args, **kwargs)) == answer
                else:
                    state, a, k = copied
                    inst = self._instance(m, state)
                    same = _probe(partial(getattr(inst, name), *a, **k)) == answer and (
                        a,
                        k,
                        inst.state,
                    ) == (args, kwargs, oracle.state)
                if not same:
                    self.diverged.add(m.name)
            if answer[0] == "refused":
                return func(oracle, *args, **kwargs)  # the refusal, raised again
            return answer[1]

        traced.__name__ = name
        return traced

    def keyword_hook(self, kid: str, name: str, hook: Callable[..., Any]) -> Callable[..., Any]:
        probes = self.keyword_probes.get(kid, [])

        def traced(*args: Any, **kwargs: Any) -> Any:
            self.touched.add("keyword:" + kid)
            answer = hook(*args, **kwargs)
            for mname, replacement in probes:
                if mname not in self.diverged and _probe(
                    partial(getattr(replacement, name), *args, **kwargs)
                ) != ("ok", answer):
                    self.diverged.add(mname)
            return answer

        return traced


#: A keyword's attributes that say how it is written (`oracle.keywords.lexicon_of`), not what
#: it does: reading them is not using the keyword.
WRITTEN = frozenset({"id", "name", "numbered", "when"})


class _TracingKeyword:
    """Stands for one keyword object of the oracle; its hooks are traced by the `Tracer`."""

    def __init__(self, keyword: Any, tracer: Tracer) -> None:
        self._keyword = keyword
        self._tracer = tracer

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._keyword, name)
        if name in WRITTEN:  # how the keyword is written, read for every STATE
            return attr
        if not callable(attr):
            self._tracer.touched.add("keyword:" + self._keyword.id)
            return attr
        return self._tracer.keyword_hook(self._keyword.id, name, attr)


def tracing_rules(tracer: Tracer, base: type[Rules] = Rules) -> type[Rules]:
    """The oracle `base` (`Rules`, or a rules version's class), reporting to `tracer` every
    method it calls and every keyword object it uses; it behaves exactly as `base`."""
    namespace: dict[str, Any] = {
        "keywords": MappingProxyType(
            {k: _TracingKeyword(v, tracer) for k, v in base.keywords.items()}
        )
    }

    def static(name: str, func: Callable[..., Any]) -> Any:
        def traced(*args: Any, **kwargs: Any) -> Any:
            tracer.touched.add(name)
            return func(*args, **kwargs)

        return staticmethod(traced)

    for name, value in rules_attributes(base).items():
        if name.startswith("__"):
            continue
        if isinstance(value, staticmethod):
            namespace[name] = static(name, value.__func__)
        elif callable(value) and not isinstance(value, (classmethod, type)):
            namespace[name] = tracer.method(name, value)
    return type("TracingRules", (base,), namespace)


@dataclass(frozen=True)
class Trace:
    """What the oracle's run of one case used, and which mutants it told apart."""

    touched: frozenset[str]
    diverged: frozenset[str]
