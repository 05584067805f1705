"""The keywords a case (and a protocol STATE) may write, derived from the rules registry.

A new rules version may add a keyword: its `[keywords.X]` entry in rules/registry.toml is
all that the case format, the case schema, the protocol schemas and the messages need. The
registry carries every version side by side, so what is derived here is the keywords of
*all* its versions: loading a case never depends on which version is current (whether a
case belongs to the suite of the version chosen is its standing, palconf/cases/standing.py).

From each `[keywords.X]` entry: `name` is how it is written on a card; `heading` ending in
`(number)` makes it a numbered keyword (`Brave 200`); `when` makes it an ability's timing
(`On Deploy`), not a word on the card.

The JSON schemas under palconf/schemas/ stay the documents of the base game (rules 1.00), as
published for outside tools; `palconf.cases.checks.schema` and `protocol_schemas` give them
with the keyword `pattern`s and the `keyword_id` enum rebuilt from the registry (for the
project's own registry the result is the files as they are: tests/test_new_keyword.py holds
them to it).
"""

from __future__ import annotations

import copy
from typing import Any

from palconf.oracle.model import Lexicon
from palconf.registry import Registry

__all__ = [
    "CASE_NUMBER",
    "PROTOCOL_NUMBER",
    "keyword_pattern",
    "known_keywords",
    "lexicon",
    "protocol_schemas",
]

#: The N of `Brave N` as the case schema writes it (bounded: a case holds no huge number).
CASE_NUMBER = "0|[1-9][0-9]{0,8}"
#: The N of `Brave N` as the protocol's common.json writes it.
PROTOCOL_NUMBER = "0|[1-9][0-9]*"
_SPECIAL = set(".^$*+?()[]{}|\\/")

_LEXICONS: dict[int, tuple[Registry, Lexicon]] = {}
_PATTERNS: dict[tuple[int, str], tuple[Registry, str]] = {}


def lexicon(registry: Registry) -> Lexicon:
    """What a STATE may write of the keywords of every version `registry` carries."""
    found = _LEXICONS.get(id(registry))
    if found is None or found[0] is not registry:
        whens = registry.keyword_when
        lex = Lexicon(
            words={name: kid for kid, name in registry.keywords.items() if kid not in whens},
            numbered=frozenset(
                kid
                for kid, heading in registry.headings.items()
                if heading.rstrip().endswith("(number)")
            ),
            whens={when: kid for kid, when in whens.items()},
        )
        found = _LEXICONS[id(registry)] = (registry, lex)
    return found[1]


def _escape(name: str) -> str:
    return "".join("\\" + c if c in _SPECIAL else c for c in name)


def keyword_pattern(registry: Registry, number: str) -> str:
    """The schema `pattern` of a keyword written on a card: the plain names in rules order,
    then the numbered ones with `number` (CASE_NUMBER or PROTOCOL_NUMBER). Made once per
    registry (every case file loaded asks it for its schema check)."""
    found = _PATTERNS.get((id(registry), number))
    if found is None or found[0] is not registry:
        found = _PATTERNS[id(registry), number] = (registry, _keyword_pattern(registry, number))
    return found[1]


def _keyword_pattern(registry: Registry, number: str) -> str:
    lex = lexicon(registry)
    plain = [_escape(name) for name, kid in lex.words.items() if kid not in lex.numbered]
    numbered = [_escape(name) for name, kid in lex.words.items() if kid in lex.numbered]
    if numbered:
        plain.append(f"({'|'.join(numbered)}) ({number})")
    return f"^({'|'.join(plain)})$"


def known_keywords(registry: Registry) -> str:
    """The keywords a card may carry, as a message lists them: `Quick, Brave N, …`."""
    lex = lexicon(registry)
    return ", ".join(
        f"{name} N" if kid in lex.numbered else name for name, kid in lex.words.items()
    )


def protocol_schemas(
    documents: dict[str, dict[str, Any]], registry: Registry
) -> dict[str, dict[str, Any]]:
    """The protocol's schemas (by file stem) with common.json's `keyword_id` enum and
    `keyword_text` pattern of `registry`'s keywords."""
    out = dict(documents)
    common = out["common"] = copy.deepcopy(documents["common"])
    common["$defs"]["keyword_id"]["enum"] = list(registry.keywords)
    common["$defs"]["keyword_text"]["pattern"] = keyword_pattern(registry, PROTOCOL_NUMBER)
    return out
