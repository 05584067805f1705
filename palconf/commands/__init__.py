"""Subcommands of `palconf`, one module each, plus what several of them share."""

from __future__ import annotations

import argparse
import fnmatch
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from palconf import paths
from palconf.cases.errors import CaseError
from palconf.cases.loader import Case, CaseLoadError, load_cases
from palconf.core.errors import UsageError
from palconf.core.suggest import hint
from palconf.registry import Registry
from palconf.registry import load as load_registry


def cases_help() -> str:
    """`--cases DIR`'s help: the folder used without it (a wheel's own copy, a checkout's
    cases/, or PALCONF_CASES), as this palconf finds it."""
    return f"the cases folder (default: {paths.cases_default().replace('%', '%%')})"


def add_case_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cases",
        type=Path,
        default=None,
        metavar="DIR",
        help=cases_help(),
    )
    p.add_argument(
        "--keyword",
        "-k",
        action="append",
        default=[],
        metavar="K",
        help="only cases in group K: a keyword id, 'protocol' (cases of the "
        "protocol rules) or 'base' (cases of the base rules); repeatable",
    )
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="ID",
        help="only the case with this id (glob patterns allowed); repeatable",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave out the cases whose id, keyword group, clause or rule matches GLOB "
        "(`taunt-*`, `stealth`, `brave.2`, `P-legal`); repeatable",
    )


def add_color_option(p: argparse.ArgumentParser) -> None:
    from palconf.running.terminal import COLOR_MODES

    p.add_argument(
        "--color",
        choices=COLOR_MODES,
        default="auto",
        help="colour the output: auto (on a terminal, unless NO_COLOR is set), always, never",
    )


def add_display_options(p: argparse.ArgumentParser) -> None:
    from palconf.running.terminal import PROGRESS_MODES

    add_color_option(p)
    p.add_argument(
        "--progress",
        choices=PROGRESS_MODES,
        default="auto",
        help="progress on stderr: a redrawn bar (auto on a terminal), a line every few "
        "seconds (auto otherwise), or none",
    )


def case_file(path: str, cases: Path | None = None) -> str:
    """Where a case file is, to show a user: its path under the cases folder, relative to
    the current folder when it is below it."""
    full = Path(cases or paths.CASES) / path
    if not full.exists() and cases is not None:  # `cases` is one case folder
        full = Path(cases).parent / path
    try:
        return str(full.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(full)


def excluded(case: Case, patterns: list[str]) -> bool:
    names = (case.id, *case.keywords, *case.clauses, *case.rules)
    return any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)


class BrokenCaseFiles(UsageError):
    """Case files that do not load (exit 2): the message lists them; `errors` are they, for
    a command that prints them otherwise (`lint --json`)."""

    def __init__(self, errors: list[CaseError]) -> None:
        problems = "".join(f"\n  {err}" for err in errors)
        super().__init__(f"{len(errors)} problem(s) in the case files:{problems}")
        self.errors = errors


@dataclass
class Selection:
    """The cases the options select (`cases`), among every case of the folder (`everything`),
    and the options that selected, as given (`by`: `--exclude taunt`; empty for all)."""

    cases: list[Case]
    everything: list[Case]
    by: list[str]
    excluded: int = 0  # how many of those `--keyword` and `--case` kept `--exclude` left out

    @property
    def rest(self) -> list[Case]:
        """The cases of the folder the selection left out."""
        chosen = {c.id for c in self.cases}
        return [c for c in self.everything if c.id not in chosen]


def select_cases(args: argparse.Namespace, registry: Registry) -> list[Case]:
    """The cases the options select (`select`)."""
    return select(args, registry).cases


def select(args: argparse.Namespace, registry: Registry) -> Selection:
    """The cases the options select, and what selected them; a `UsageError` saying why when
    there are none or the files cannot be loaded."""
    unknown = [k for k in args.keyword if k not in registry.groups]
    if unknown:
        near = "".join(hint(k, registry.groups, 1) for k in unknown[:1])
        raise UsageError(
            f"unknown keyword(s): {', '.join(unknown)}{near}; known: {', '.join(registry.groups)}"
        )
    folder = args.cases or paths.CASES
    try:
        cases = load_cases(folder, registry)
    except CaseLoadError as e:
        raise BrokenCaseFiles(e.errors) from None
    if not cases:
        raise UsageError(f"no case in {folder}")
    everything = cases
    if args.keyword:
        cases = [c for c in cases if set(c.keywords) & set(args.keyword)]
    if args.case:
        idle = [p for p in args.case if not any(fnmatch.fnmatchcase(c.id, p) for c in cases)]
        cases = [c for c in cases if any(fnmatch.fnmatchcase(c.id, pat) for pat in args.case)]
        if cases and idle:  # the others matched: say so, and go on
            for pat in idle:
                near = hint(pat, (c.id for c in everything))
                print(f"warning: --case {pat!r} matches no case{near}", file=sys.stderr)
    exclude = getattr(args, "exclude", [])
    left_out = 0
    if exclude:  # a pattern that leaves out nothing at all is a typo (`--exclude tuant`)
        idle = [p for p in exclude if not any(excluded(c, [p]) for c in everything)]
        if idle:
            raise UsageError(
                f"--exclude {', '.join(repr(p) for p in idle)} matches no case id, keyword "
                f"group, clause or rule (in {folder})"
            )
        kept = [c for c in cases if not excluded(c, exclude)]
        left_out = len(cases) - len(kept)
        cases = kept
    by = (
        [f"--keyword {k}" for k in args.keyword]
        + [f"--case {shlex.quote(p)}" for p in args.case]
        + [f"--exclude {shlex.quote(p)}" for p in exclude]
    )
    if not cases:
        chosen = (
            [f"--keyword {k}" for k in args.keyword]
            + [f"--case {p!r}" for p in args.case]
            + [f"--exclude {p!r}" for p in exclude]
        )
        near = "".join(hint(p, (c.id for c in everything)) for p in args.case[:1])
        raise UsageError(f"no case matches {' '.join(chosen)} (in {folder}){near}")
    return Selection(cases, everything, by, left_out)


def registry_or_exit() -> Registry:
    """The rules registry (rules/registry.toml); one that is missing, unreadable or not
    complete is a `UsageError` naming the file and the field, never a traceback."""
    missing = paths.missing_data()
    if missing is not None:
        raise UsageError(missing)
    return load_registry()


def add_strict_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when a case of the version's suite does not hold for it as it stands "
        "(stale, not reviewed, orphaned, not blessed: see `palconf rules status --rules V`)",
    )


def warn_unfit(unfit: list[tuple[Case, str]], version: str) -> int:
    """Warn (on stderr) about the cases of rules `version`'s suite that do not hold for it
    as they stand (orphaned, stale, not reviewed for it, not blessed); return how many."""
    for case, why in unfit[:10]:
        print(f"warning: {case.path}: {why}", file=sys.stderr)
    if unfit:
        print(
            f"warning: {len(unfit)} case(s) of rules {version} not run: they do not hold "
            f"for it as they stand (see `palconf rules status --rules {version}`)",
            file=sys.stderr,
        )
    return len(unfit)


def add_rules_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--rules",
        default=None,
        metavar="VERSION",
        help="the rules version whose cases and oracle to use (default: the one the "
        "engine's hello names, else the registry's current version); see "
        "`palconf list versions`",
    )


def chosen_rules(registry: Registry, asked: str | None, declared: str | None = None) -> str:
    """The rules version a command works with: `--rules` (asked), else the one the engine
    declares in its `hello` (declared), else the registry's current one. A version this
    palconf does not carry is a `UsageError` that lists the versions it has."""
    for version, whose in ((asked, "--rules"), (declared, "the engine's hello")):
        if version is not None:
            if version not in registry.versions:
                raise UsageError(
                    f"{whose} names rules version {version!r}, which this palconf does not "
                    f"carry (it has {', '.join(registry.versions)})"
                )
            return version
    return registry.current


def suite_ids(cases: list[Case], registry: Registry, version: str) -> list[str]:
    """The ids of the cases of rules `version`'s suite among `cases` (every case of the
    folder: the suite a run's selection is made from, `palconf.cases.standing`)."""
    from palconf.cases.standing import standing

    return [c.id for c in cases if standing(c, registry, version).in_suite]


def split_by_standing(
    cases: list[Case], registry: Registry, version: str
) -> tuple[list[Case], list[tuple[Case, str]], int]:
    """`cases` under rules `version`: (those that run, [(case, why not) for those of the
    version's suite that do not], how many belong to other versions only). A case that holds
    for `version` by another version's review must also pass on `version`'s oracle
    (`palconf.running.carried`)."""
    from palconf.cases.standing import as_of, standing
    from palconf.running.carried import carried_unfit

    runs: list[Case] = []
    unfit: list[tuple[Case, str]] = []
    other = 0
    for case in cases:
        s = standing(case, registry, version)
        if not s.in_suite:
            other += 1
        elif s.runs:
            runs.append(as_of(case, registry, version))
        else:
            unfit.append((case, s.reason()))
    behaviour = carried_unfit(runs, registry, version)  # another version's review, V's oracle
    unfit += [(c, behaviour[c.id]) for c in runs if c.id in behaviour]
    return [c for c in runs if c.id not in behaviour], unfit, other
