"""palconf's argument parser: argparse's, with "did you mean" for a subcommand, a choice or
an option typed a little wrong, and a word on positional arguments where a command takes
none (`palconf run brave-2`: cases are chosen with --case). Exit 2 as argparse's own."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Sequence

from palconf.core.suggest import hint
from palconf.core.text import terminal_safe

_CHOICE = re.compile(
    r"invalid choice: (?P<value>'[^']*'|\"[^\"]*\") \(choose from (?P<choices>.*)\)"
)


def _literal(text: str) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return value if isinstance(value, str) else text


class Parser(argparse.ArgumentParser):
    """Every parser of palconf's (subcommands get the same class from add_subparsers)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        found = _CHOICE.search(message)
        if found:
            choices = [_literal(c) for c in re.findall(r"'[^']*'|\"[^\"]*\"", found["choices"])]
            message += hint(_literal(found["value"]), choices)
        super().error(terminal_safe(message, keep_newlines=True))  # argv may hold anything

    def options(self) -> list[str]:
        return [s for a in self._actions for s in a.option_strings]

    def unrecognized(self, extras: Sequence[str]) -> str:
        """The message for arguments no parser took, with the near miss of each option and,
        where the command has --case, how to choose a case."""
        notes = []
        after_option = False
        for arg in extras:
            if arg.startswith("-") and len(arg) > 1:
                name = arg.split("=", 1)[0]
                near = hint(name, self.options(), 2)
                if near:
                    notes.append(f"{name}: {near.removeprefix('; ')}")
                after_option = "=" not in arg
            elif not after_option and "--case" in self.options():
                notes.append(f"cases are chosen with --case: --case {arg}")
            else:
                after_option = False
        return "unrecognized arguments: " + " ".join(extras) + "".join(f"\n  {n}" for n in notes)


def parse(parser: Parser, argv: list[str]) -> argparse.Namespace:
    """`parser.parse_args(argv)`, with the unrecognized arguments told by the subcommand's
    parser (its usage line, its options to suggest)."""
    args, extras = parser.parse_known_args(argv)
    if extras:
        chosen: Parser = parser
        for action in parser._subparsers._group_actions if parser._subparsers else ():
            found = getattr(action, "choices", {}).get(getattr(args, "command", None))
            if isinstance(found, Parser):
                chosen = found
        chosen.error(chosen.unrecognized(extras))
    return args
