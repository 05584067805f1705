"""The game's data: cards, players, the state of a game, and loading a protocol STATE.

Static card data (`CardDef`) never changes during a game; what does (zone, stand/rest, which
structure holds a Pal) lives in `CardState`. `GameState.copy()` copies only what can change,
so that an action can be tried on a copy and thrown away when it is refused (B-21).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Player = Literal["A", "B"]
PLAYERS: tuple[Player, Player] = ("A", "B")
Zone = Literal["hand", "battle", "structures", "assigned", "graveyard", "resolving"]
IN_PLAY: frozenset[str] = frozenset({"battle", "structures", "assigned"})

#: The ability timings that no keyword names: an activated ability (B-9a).
ACTIVATE = "activate"


@dataclass(frozen=True)
class Lexicon:
    """The keywords a STATE of one rules version may carry, as `oracle.keywords` defines
    them: how each is written on a card (`Brave` → `brave`), which take a number (`Brave
    200`), and the ability timings that name one (`deploy` → `on-deploy`)."""

    words: Mapping[str, str]
    numbered: frozenset[str]
    whens: Mapping[str, str]


def other(player: Player) -> Player:
    return "B" if player == "A" else "A"


class StateError(Exception):
    """A STATE that cannot be loaded. `code` is the protocol error: invalid-state or unsupported."""

    def __init__(self, code: Literal["invalid-state", "unsupported"], message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Effect:
    op: str
    target: str | None = None  # "self" | "chosen"
    player: str | None = None  # "opponent" | "self"
    amount: int = 0
    value: bool = False

    @property
    def needs_choice(self) -> bool:
        return self.target == "chosen"


@dataclass(frozen=True, slots=True)
class Ability:
    when: str  # deploy | attack | assign | activate
    effect: Effect
    quick: bool = False
    cost: int = 0


@dataclass(frozen=True, slots=True)
class KeywordInstance:
    id: str  # keyword id, e.g. "brave"
    number: int | None = None  # N of Brave N / Serious N
    text: str = ""  # as written on the card


@dataclass(frozen=True, slots=True)
class CardDef:
    id: str
    kind: str  # pal | event | structure
    name: str = ""
    power: int = 0
    strike: int = 0
    cost: int = 0
    keywords: tuple[KeywordInstance, ...] = ()
    abilities: tuple[Ability, ...] = ()
    effect: Effect | None = None
    slots: int = 1

    def instances(self, keyword: str) -> list[KeywordInstance]:
        return [k for k in self.keywords if k.id == keyword]

    def has(self, keyword: str) -> bool:
        return any(k.id == keyword for k in self.keywords)


@dataclass(slots=True)
class CardState:
    card: CardDef
    owner: Player
    zone: Zone
    state: Literal["stand", "rest"] = "stand"
    host: str | None = None  # the structure holding an assigned Pal

    @property
    def id(self) -> str:
        return self.card.id

    @property
    def in_play(self) -> bool:
        return self.zone in IN_PLAY

    def has(self, keyword: str) -> bool:
        return self.card.has(keyword)

    def copy(self) -> CardState:
        """A copy sharing the (immutable) card definition. Spelled out: `dataclasses.replace`
        costs about five times as much, and every action copies every card."""
        return CardState(self.card, self.owner, self.zone, self.state, self.host)


@dataclass(slots=True)
class Attack:
    attacker: str
    target: str  # a card id or "master"
    defender: Player
    blocked: bool = False
    passes: int = 0  # passes in a row in the quick step (two end it, B-14)

    def copy(self) -> Attack:
        """Spelled out, as `CardState.copy`: `dataclasses.replace` costs about five times as
        much, and every action during an attack copies it. A plain `Attack`: a subclass
        (palconf.mutants has some) overrides it to keep its kind and fields in copies."""
        return Attack(self.attacker, self.target, self.defender, self.blocked, self.passes)


@dataclass(frozen=True, slots=True)
class Pump:
    """A power change that lasts until end of turn (B-18), on one card. Frozen: a copy of
    the state shares them."""

    card: str
    amount: int


@dataclass(slots=True)
class GameState:
    active: Player
    turn: int
    night: bool
    life: dict[Player, int]
    energy: dict[Player, int]
    cards: dict[str, CardState]  # every card of the game, by id
    step: Literal["main", "block", "quick", "over"] = "main"
    priority: Player | None = None
    attack: Attack | None = None
    winner: Player | None = None
    pumps: list[Pump] = field(default_factory=list)

    def copy(self) -> GameState:
        return GameState(
            active=self.active,
            turn=self.turn,
            night=self.night,
            life=dict(self.life),
            energy=dict(self.energy),
            cards={cid: c.copy() for cid, c in self.cards.items()},
            step=self.step,
            priority=self.priority,
            attack=self.attack.copy() if self.attack else None,
            winner=self.winner,
            pumps=list(self.pumps),
        )

    def zone(self, player: Player, zone: str) -> list[CardState]:
        return [c for c in self.cards.values() if c.owner == player and c.zone == zone]

    def battle_pals(self) -> list[CardState]:
        """Every Pal in either battle area: the Pals an effect may choose (B-19)."""
        return [c for c in self.cards.values() if c.zone == "battle"]


# --------------------------------------------------------------------------- loading a STATE

_KEYWORD_RE = re.compile(r"^([A-Z][a-z]+(?: [A-Z][a-z]+)*)(?: (0|[1-9][0-9]*))?$")
_OPS = {"pump", "damage", "destroy", "rest", "stand", "night", "energy"}
_CARD_KEYS = {
    "id",
    "kind",
    "name",
    "power",
    "strike",
    "cost",
    "state",
    "keywords",
    "abilities",
    "effect",
    "slots",
    "assigned",
}


def _invalid(message: str) -> StateError:
    return StateError("invalid-state", message)


def _int(
    obj: Mapping[str, Any],
    key: str,
    where: str,
    default: int | None = None,
    minimum: int | None = 0,
) -> int:
    if key not in obj:
        if default is None:
            raise _invalid(f"{where}: `{key}` is required")
        return default
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise _invalid(f"{where}: `{key}` must be an integer, not {value!r}")
    if minimum is not None and value < minimum:
        raise _invalid(f"{where}: `{key}` must be at least {minimum}, not {value}")
    return value


def parse_keyword(text: Any, where: str, lexicon: Lexicon) -> KeywordInstance:
    if not isinstance(text, str):
        raise _invalid(f"{where}: a keyword must be a string, not {text!r}")
    m = _KEYWORD_RE.match(text)
    if not m or m.group(1) not in lexicon.words:
        raise StateError("unsupported", f"{where}: unknown keyword {text!r}")
    kid = lexicon.words[m.group(1)]
    number = int(m.group(2)) if m.group(2) is not None else None
    if (kid in lexicon.numbered) != (number is not None):
        raise _invalid(
            f"{where}: keyword {text!r} is malformed"
            + (" (it needs a number)" if kid in lexicon.numbered else " (it takes no number)")
        )
    return KeywordInstance(kid, number, text)


def parse_effect(obj: Any, where: str) -> Effect:
    if not isinstance(obj, dict):
        raise _invalid(f"{where}: an effect must be an object")
    op = obj.get("op")
    if not isinstance(op, str):
        raise _invalid(f"{where}: effect `op` is required")
    if op not in _OPS:
        raise StateError("unsupported", f"{where}: unknown effect op {op!r}")
    target = obj.get("target")
    player = obj.get("player")
    if op in ("pump", "rest", "stand") and target not in ("self", "chosen"):
        raise _invalid(f'{where}: `{op}` needs target "self" or "chosen"')
    if op == "destroy" and target != "chosen":
        raise _invalid(f'{where}: `destroy` needs target "chosen"')
    if op == "damage" and player not in ("opponent", "self"):
        raise _invalid(f'{where}: `damage` needs player "opponent" or "self"')
    amount = 0
    if op in ("pump", "damage", "energy"):
        amount = _int(obj, "amount", where, minimum=None if op == "pump" else 0)
    value = obj.get("value", False)
    if op == "night" and not isinstance(obj.get("value"), bool):
        raise _invalid(f"{where}: `night` needs a boolean `value`")
    return Effect(op=op, target=target, player=player, amount=amount, value=bool(value))


def parse_ability(obj: Any, where: str, lexicon: Lexicon) -> Ability:
    if not isinstance(obj, dict):
        raise _invalid(f"{where}: an ability must be an object")
    when = obj.get("when")
    if when != ACTIVATE and (not isinstance(when, str) or when not in lexicon.whens):
        raise StateError("unsupported", f"{where}: unknown ability timing `when` = {when!r}")
    effect = parse_effect(obj.get("effect"), f"{where}.effect")
    quick = obj.get("quick", False)
    if not isinstance(quick, bool):
        raise _invalid(f"{where}: `quick` must be a boolean")
    return Ability(
        when=when,
        effect=effect,
        quick=quick and when == ACTIVATE,
        cost=_int(obj, "cost", where, default=0),
    )


def parse_card(
    obj: Any, where: str, lexicon: Lexicon
) -> tuple[CardDef, Literal["stand", "rest"], list[Any]]:
    """A CARD object → its definition, its stand/rest state, and its raw `assigned` list."""
    if not isinstance(obj, dict):
        raise _invalid(f"{where}: a card must be an object")
    cid = obj.get("id")
    if not isinstance(cid, str) or not cid:
        raise _invalid(f"{where}: `id` must be a non-empty string")
    if cid == "master":
        raise _invalid(f'{where}: a card id may not be "master"')
    where = f"card {cid!r}"
    unknown = set(obj) - _CARD_KEYS
    if unknown:
        raise _invalid(f"{where}: unknown field(s) {sorted(unknown)}")
    if "kind" not in obj:
        raise _invalid(f"{where}: `kind` is required")
    kind = obj.get("kind")
    if kind not in ("pal", "event", "structure"):
        raise _invalid(f"{where}: `kind` must be pal, event or structure, not {kind!r}")
    name = obj.get("name", "")
    if not isinstance(name, str):
        raise _invalid(f"{where}: `name` must be a string")
    raw_state = obj.get("state", "stand")
    if raw_state == "stand" or raw_state == "rest":
        state: Literal["stand", "rest"] = raw_state
    else:
        raise _invalid(f"{where}: `state` must be stand or rest, not {raw_state!r}")
    kws = obj.get("keywords", [])
    abilities = obj.get("abilities", [])
    if not isinstance(kws, list) or not isinstance(abilities, list):
        raise _invalid(f"{where}: `keywords` and `abilities` must be lists")
    effect = None
    if kind == "event":
        if "effect" not in obj:
            raise _invalid(f"{where}: an event needs an `effect`")
        effect = parse_effect(obj["effect"], f"{where}.effect")
    elif "effect" in obj:
        raise _invalid(f"{where}: only an event has an `effect`")
    assigned = obj.get("assigned", [])
    if kind != "structure" and "assigned" in obj:
        raise _invalid(f"{where}: only a structure has `assigned`")
    if not isinstance(assigned, list):
        raise _invalid(f"{where}: `assigned` must be a list")
    # P-state: `power`, `strike`, `cost` and `slots` must be integers >= 0 on any card that
    # has them, even where the kind gives them no meaning (an event's `power`, a Pal's
    # `slots`); `power` is required only for a Pal.
    power = _int(obj, "power", where, default=None if kind == "pal" else 0)
    strike = _int(obj, "strike", where, default=0)
    slots = _int(obj, "slots", where, default=1)
    card = CardDef(
        id=cid,
        kind=kind,
        name=name,
        power=power if kind == "pal" else 0,
        strike=strike if kind == "pal" else 0,
        cost=_int(obj, "cost", where, default=0),
        keywords=tuple(parse_keyword(k, where, lexicon) for k in kws),
        abilities=tuple(
            parse_ability(a, f"{where}.abilities[{i}]", lexicon) for i, a in enumerate(abilities)
        ),
        effect=effect,
        slots=slots if kind == "structure" else 1,
    )
    return card, state, assigned


def load_state(data: Any, lexicon: Lexicon) -> GameState:
    """Build a game from a protocol STATE: the active player's main phase, no attack under way.
    `lexicon`: the keywords of the rules version (`Rules.lexicon()`; `oracle.load_state` has
    the base game's by default).

    Raises StateError (invalid-state or unsupported) for anything that is not a legal STATE.
    """
    if not isinstance(data, dict):
        raise _invalid("STATE must be an object")
    unknown = set(data) - {"active", "turn", "night", "players"}
    if unknown:
        raise _invalid(f"STATE: unknown field(s) {sorted(unknown)}")
    active = data.get("active", "A")
    if active not in PLAYERS:
        raise _invalid(f'`active` must be "A" or "B", not {active!r}')
    turn = _int(data, "turn", "STATE", default=1, minimum=1)
    night = data.get("night", False)
    if not isinstance(night, bool):
        raise _invalid("`night` must be a boolean")
    players = data.get("players")
    if not isinstance(players, dict) or set(players) != {"A", "B"}:
        raise _invalid('`players` must be an object with exactly "A" and "B"')
    life: dict[Player, int] = {}
    energy: dict[Player, int] = {}
    cards: dict[str, CardState] = {}

    def add(cs: CardState) -> None:
        if cs.id in cards:
            raise _invalid(f"duplicate card id {cs.id!r}")
        cards[cs.id] = cs

    for p in PLAYERS:
        pdata = players[p]
        where = f"player {p}"
        if not isinstance(pdata, dict):
            raise _invalid(f"{where} must be an object")
        unknown = set(pdata) - {"life", "energy", "hand", "battle", "structures", "graveyard"}
        if unknown:
            raise _invalid(f"{where}: unknown field(s) {sorted(unknown)}")
        life[p] = _int(pdata, "life", where, minimum=1)
        energy[p] = _int(pdata, "energy", where, default=0)
        for zone in ("hand", "battle", "structures", "graveyard"):
            items = pdata.get(zone, [])
            if not isinstance(items, list):
                raise _invalid(f"{where}: `{zone}` must be a list")
            for i, raw in enumerate(items):
                card, state, assigned = parse_card(raw, f"{where}.{zone}[{i}]", lexicon)
                if zone == "battle" and card.kind != "pal":
                    raise _invalid(f"card {card.id!r}: only a Pal can be in `battle`")
                if zone == "structures" and card.kind != "structure":
                    raise _invalid(f"card {card.id!r}: only a structure can be in `structures`")
                if assigned and zone != "structures":
                    raise _invalid(f"card {card.id!r}: a structure out of play holds no Pals")
                in_play = zone in ("battle", "structures")
                add(CardState(card, p, zone, state if in_play else "stand"))
                if len(assigned) > card.slots:
                    raise _invalid(
                        f"structure {card.id!r}: {len(assigned)} assigned Pals for "
                        f"{card.slots} slot(s)"
                    )
                for j, rawp in enumerate(assigned):
                    pal, pstate, _ = parse_card(
                        rawp, f"structure {card.id!r}.assigned[{j}]", lexicon
                    )
                    if pal.kind != "pal":
                        raise _invalid(f"card {pal.id!r}: only a Pal can be assigned")
                    add(CardState(pal, p, "assigned", pstate, host=card.id))
    return GameState(active=active, turn=turn, night=night, life=life, energy=energy, cards=cards)
