"""`palconf completion bash|zsh`: a static shell completion script, made from the CLI's own
argparse parser by shtab, an optional package (palconf runs without it)."""

from __future__ import annotations

import argparse
import shlex
import sys

SHELLS = ("bash", "zsh")

DESCRIPTION = """\
Print a completion script for bash or zsh (subcommands, options and their choices), made
from palconf's own parser, so it always matches this palconf. Install it once:

  bash:  palconf completion bash > ~/.local/share/bash-completion/completions/palconf
         (needs the bash-completion package; or `source` the file from ~/.bashrc)
  zsh:   palconf completion zsh > ~/.zfunc/_palconf
         and in ~/.zshrc, before compinit: fpath+=(~/.zfunc); autoload -Uz compinit; compinit

Run it again after upgrading palconf. It needs the optional package shtab (pip install
shtab in palconf's environment; with pipx: pipx inject palconf shtab). Exit 0; 2 when shtab
is not installed."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "completion",
        help="print a bash or zsh completion script (needs the optional shtab)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    try:
        import shtab
    except ImportError:
        python = shlex.quote(sys.executable)
        print(
            "palconf completion: the optional package shtab is not installed; install it "
            f"in palconf's environment (`{python} -m pip install shtab`, or with pipx "
            "`pipx inject palconf shtab`) and run this again",
            file=sys.stderr,
        )
        return 2
    print(shtab.complete(args.full_parser(), shell=args.shell), end="")
    return 0
