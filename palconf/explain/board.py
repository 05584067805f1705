"""A STATE as text: who is active, each player's life, energy and zones, each card with its
power, keywords, abilities and state (`palconf explain`). Card text comes from case files
and engines, so every string goes through `terminal_safe`."""

from __future__ import annotations

from typing import Any

from palconf.core import terminal_safe

ZONES = ("battle", "structures", "hand", "graveyard")


def _t(value: Any, limit: int = 80) -> str:
    return terminal_safe(value, limit)


def effect_text(effect: Any) -> str:
    if not isinstance(effect, dict):
        return _t(effect)
    op = effect.get("op")
    if op == "pump":
        amount = effect.get("amount", 0)
        sign = "+" if isinstance(amount, int) and amount >= 0 else ""
        return f"pump {_t(effect.get('target', '?'))} {sign}{_t(amount)}"
    if op == "damage":
        return f"damage {_t(effect.get('player', '?'))} {_t(effect.get('amount', '?'))}"
    if op in ("destroy", "rest", "stand"):
        return f"{op} {_t(effect.get('target', '?'))}"
    if op == "night":
        return "night on" if effect.get("value") is True else "night off"
    if op == "energy":
        return f"energy +{_t(effect.get('amount', '?'))}"
    return _t(effect)


def ability_text(ability: Any) -> str:
    if not isinstance(ability, dict):
        return _t(ability)
    when = ability.get("when")
    what = effect_text(ability.get("effect"))
    if when == "activate":
        quick = "quick " if ability.get("quick") is True else ""
        return f"{quick}activate (cost {_t(ability.get('cost', 0))}): {what}"
    names = {"deploy": "On Deploy", "attack": "On Attack", "assign": "On Assign"}
    return f"{names.get(str(when), _t(when))}: {what}"


def card_text(card: Any, in_play: bool) -> str:
    if not isinstance(card, dict):
        return _t(card)
    parts = [_t(card.get("id", "?"), 40), _t(card.get("kind", "?"), 20)]
    if "power" in card:
        parts.append(_t(card["power"]))
    for field, label in (("strike", "strike"), ("cost", "cost")):
        if card.get(field):
            parts.append(f"{label} {_t(card[field])}")
    if in_play:
        parts.append(_t(card.get("state", "stand"), 20))
    keywords = card.get("keywords") or []
    if isinstance(keywords, list) and keywords:
        parts.append("[" + ", ".join(_t(k, 40) for k in keywords) + "]")
    if "effect" in card:
        parts.append(f"effect: {effect_text(card['effect'])}")
    abilities = card.get("abilities") or []
    if isinstance(abilities, list):
        parts += [ability_text(a) for a in abilities]
    if card.get("kind") == "structure":
        parts.append(f"slots {_t(card.get('slots', 1))}")
    return "  ".join(parts)


def render_board(state: Any, indent: str = "  ") -> list[str]:
    if not isinstance(state, dict):
        return [indent + _t(state, 200)]
    night = "night" if state.get("night") is True else "day"
    lines = [
        f"{indent}player {_t(state.get('active', 'A'))} to act, turn {_t(state.get('turn', 1))}, "
        f"{night}"
    ]
    players = state.get("players")
    if not isinstance(players, dict):
        return [*lines, f"{indent}players: {_t(players, 200)}"]
    for name, player in players.items():
        if not isinstance(player, dict):
            lines.append(f"{indent}{_t(name)}: {_t(player, 200)}")
            continue
        lines.append(
            f"{indent}{_t(name)}: life {_t(player.get('life', '?'))}, energy "
            f"{_t(player.get('energy', 0))}"
        )
        for zone in ZONES:
            cards = player.get(zone) or []
            if not isinstance(cards, list) or not cards:
                continue
            lines.append(f"{indent}  {zone}:")
            for card in cards:
                lines.append(f"{indent}    {card_text(card, zone in ('battle', 'structures'))}")
                assigned = card.get("assigned") if isinstance(card, dict) else None
                if isinstance(assigned, list):
                    for pal in assigned:
                        lines.append(f"{indent}      assigned: {card_text(pal, True)}")
    return lines
