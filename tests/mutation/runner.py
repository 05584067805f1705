"""`python -m tests.mutation`: mutmut over `oracle/`, with the case corpus as the only tests.

The run happens in a work folder of its own (`.mutation/` at the top of the checkout, ignored
by git), so the checkout is never mutated and other runs of the suite are not disturbed:

1. `.mutation/` gets a copy of `oracle/`, `corpus.py` as `test_corpus.py` (one pytest test per
   case, see `tests.mutation.corpus`) and a `pyproject.toml` holding mutmut's configuration
   (`CONFIG` below: only `oracle/` is mutated; the tests are `test_corpus.py`, nothing else).
2. `python -m mutmut run --max-children N` runs there: mutmut copies `oracle/` into
   `.mutation/mutants/`, writes every mutant of each function into the copy behind a
   trampoline, records which cases reach which function, and then, for each mutant, runs only
   the cases that reach its function, in a forked worker. The cases are read from the
   checkout's `cases/` (PALCONF_CASES), the harness (`palconf`) is the checkout's.
3. Each mutant that is not killed is named by what it changes (file, function, line, the
   original and the mutated code) and looked up in `equivalent.toml`; the verdict is printed,
   ending with `mutation score: K/N killed, E equivalent (listed in …)`.

Exit 0 when every mutant is killed or listed in equivalent.toml, 1 when one survives unlisted
or was not checked (or the list is wrong: an entry whose mutant was killed, or that matches no
mutant), 2 when the run could not be made (mutmut missing, mutmut failing). mutmut's own
commands work in the work folder too: `cd .mutation && python -m mutmut show NAME` (or
`browse`), with PALCONF_CASES set to the checkout's `cases/`.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
WORK = ROOT / ".mutation"
EQUIVALENT = HERE / "equivalent.toml"
EQUIVALENT_SHOWN = "tests/mutation/equivalent.toml"
WORKERS = 2  # this project's machines have 2 cores, shared with other runs
RUN_FILE = "run.json"  # in the work folder: what the last run mutated

#: mutmut's configuration, written to the work folder's pyproject.toml. `-p no:palconf`: the
#: cases are `test_corpus.py`'s, not the plugin's (whose node ids mutmut cannot select).
CONFIG = """\
[tool.mutmut]
source_paths = ["oracle"]
only_mutate = {only}
pytest_add_cli_args_test_selection = ["test_corpus.py"]
pytest_add_cli_args = ["-p", "no:palconf", "-p", "no:cacheprovider", "-p", "no:xdist"]
use_git_change_detection = false

[tool.pytest.ini_options]
addopts = ""
"""

#: mutmut's statuses that count as killed: a case failed, or the oracle hung or crashed.
KILLED = frozenset({"killed", "timeout", "segfault"})
#: the statuses an equivalent mutant may have: it survived, or no case reaches it at all.
SURVIVED = frozenset({"survived", "no tests"})
#: why a listed mutant cannot be killed by a case (equivalent.toml's `kind`):
KINDS = {
    # no answer of the oracle to any request changes, or only a message's free text
    "equivalent": "no answer changes but free text",
    # answers change only where protocol v1 leaves the answer open or says no case sends it
    "unspecified": "protocol v1 leaves the answer open",
    # answers change only for requests no case can send (bad-request, bye, …) or in a field
    # the harness does not check
    "beyond-cases": "only requests or fields no case reaches",
}


@dataclass(frozen=True)
class Mutant:
    """One mutant, by mutmut's name and by what it changes (stable across runs)."""

    name: str  # mutmut's id, e.g. oracle.keywords.xǁTauntǁrestrict_targets__mutmut_3
    status: str  # mutmut's status: killed, survived, no tests, timeout …
    file: str  # oracle/keywords.py
    function: str  # Taunt.restrict_targets, or a module-level function's name
    line: int  # the first line it changes, in the file as it was mutated
    original: str  # the changed line(s) of the original, each stripped, joined by newlines
    mutated: str  # the same lines in the mutant
    context: str = ""  # the line before them (stripped): tells apart two equal lines

    @property
    def killed(self) -> bool:
        return self.status in KILLED

    def describe(self) -> str:
        return (
            f"{self.file}:{self.line} {self.function} [{self.status}] ({self.name})\n"
            f"    - {self.original.replace(chr(10), chr(10) + '      ')}\n"
            f"    + {self.mutated.replace(chr(10), chr(10) + '      ')}"
        )


@dataclass(frozen=True)
class Entry:
    """One entry of equivalent.toml."""

    index: int  # 1-based, for messages
    file: str
    function: str
    original: str | None  # None: every mutant of the function (scope = "function")
    mutated: str | None
    reason: str
    kind: str = "equivalent"
    context: str | None = None  # only where the same change is made to two equal lines

    def matches(self, m: Mutant) -> bool:
        if m.file != self.file or m.function != self.function:
            return False
        if self.original is None:
            return True
        if self.context is not None and _norm(self.context) != _norm(m.context):
            return False
        return _norm(m.original) == _norm(self.original) and _norm(m.mutated) == _norm(
            self.mutated or ""
        )

    def describe(self) -> str:
        what = "every mutant" if self.original is None else f"{self.original!r} → {self.mutated!r}"
        return f"entry {self.index} ({self.file} {self.function}: {what})"


def _norm(code: str) -> str:
    return "\n".join(" ".join(line.split()) for line in code.strip().splitlines())


# ---------------------------------------------------------------- the equivalent list


class ListError(Exception):
    pass


def load_equivalent(path: Path = EQUIVALENT) -> list[Entry]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ListError(f"{EQUIVALENT_SHOWN}: cannot be read: {e}") from None
    entries: list[Entry] = []
    for i, raw in enumerate(data.get("equivalent", []), 1):
        where = f"{EQUIVALENT_SHOWN}: [[equivalent]] number {i}"
        if not isinstance(raw, dict):
            raise ListError(f"{where}: not a table")
        for key in ("file", "function", "reason"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():
                raise ListError(f"{where}: `{key}` must be a non-empty string")
        scope = raw.get("scope", "mutant")
        if scope not in ("mutant", "function"):
            raise ListError(f'{where}: `scope` must be "mutant" or "function"')
        if scope == "mutant":
            for key in ("original", "mutated"):
                if not isinstance(raw.get(key), str):
                    raise ListError(f"{where}: `{key}` must be a string (the changed code)")
        kind = raw.get("kind", "equivalent")
        if kind not in KINDS:
            raise ListError(f"{where}: `kind` must be one of {', '.join(KINDS)}")
        if "context" in raw and not isinstance(raw["context"], str):
            raise ListError(f"{where}: `context` must be a string (the line before the change)")
        keys = {"file", "function", "line", "original", "mutated", "context", "reason", "scope"}
        unknown = set(raw) - keys - {"kind"}
        if unknown:
            raise ListError(f"{where}: unknown key(s) {sorted(unknown)}")
        entries.append(
            Entry(
                index=i,
                file=raw["file"],
                function=raw["function"],
                original=raw["original"] if scope == "mutant" else None,
                mutated=raw["mutated"] if scope == "mutant" else None,
                reason=raw["reason"],
                kind=kind,
                context=raw.get("context"),
            )
        )
    return entries


# ---------------------------------------------------------------- reading mutmut's results

_KEY = re.compile(r"^(?P<module>[\w.]+)\.(?P<mangled>x(?:_|ǁ)[^.]+?)__mutmut_(?P<n>\d+)$")


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of a module by name (methods by `Class.name` and by their own name)."""
    out: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    out[f"{node.name}.{item.name}"] = item
                    out.setdefault(item.name, item)
    return out


def _body(lines: Sequence[str], node: ast.AST) -> list[str]:
    """A function's lines after its `def` line (the name differs between the copies)."""
    start, end = node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]
    return list(lines[start:end])


class MutatedFile:
    """One file of oracle/ as mutmut wrote it, beside the original it was made from."""

    def __init__(self, original: Path, mutated: Path, shown: str) -> None:
        self.shown = shown
        self.orig_lines = original.read_text(encoding="utf-8").splitlines()
        self.orig_funcs = _functions(ast.parse("\n".join(self.orig_lines)))
        self.mut_lines = mutated.read_text(encoding="utf-8").splitlines()
        self.mut_funcs = _functions(ast.parse("\n".join(self.mut_lines)))

    def mutant(self, key: str, status: str) -> Mutant:
        m = _KEY.match(key)
        if m is None:
            raise RuntimeError(f"unexpected mutmut mutant name {key!r}")
        mangled = m["mangled"]
        if mangled.startswith("xǁ"):
            _, cls, name = mangled.split("ǁ")
            function = f"{cls}.{name}"
        else:
            function = mangled[2:]
        orig_copy = self.mut_funcs[f"{mangled}__mutmut_orig"]
        mutant = self.mut_funcs[f"{mangled}__mutmut_{m['n']}"]
        a, b = _body(self.mut_lines, orig_copy), _body(self.mut_lines, mutant)
        opcodes = difflib.SequenceMatcher(None, a, b).get_opcodes()
        changed = [op for op in opcodes if op[0] != "equal"]
        if not changed:  # the def line itself (a default value, an annotation)
            a, b = [self.mut_lines[orig_copy.lineno - 1]], [self.mut_lines[mutant.lineno - 1]]
            changed, offset = [("replace", 0, 1, 0, 1)], -1
        else:
            offset = 0
        before = [ln.strip() for ln in a[: changed[0][1]] if ln.strip()] if offset == 0 else []
        original = [ln.strip() for _, i1, i2, _, _ in changed for ln in a[i1:i2]]
        mutated = [ln.strip() for _, _, _, j1, j2 in changed for ln in b[j1:j2]]
        where = self.orig_funcs.get(function)
        line = 0
        if where is not None:
            same = _body(self.orig_lines, where) == a or offset == -1
            line = where.lineno + 1 + changed[0][1] + offset if same else where.lineno
        return Mutant(
            name=key,
            status=status,
            file=self.shown,
            function=function,
            line=line,
            original="\n".join(original),
            mutated="\n".join(mutated),
            context=before[-1] if before else "",
        )


def read_results(work: Path) -> list[Mutant]:
    from mutmut.stats import status_by_exit_code

    mutants: list[Mutant] = []
    for meta in sorted((work / "mutants" / "oracle").glob("*.py.meta")):
        source = meta.with_suffix("")  # …/mutants/oracle/x.py
        shown = f"oracle/{source.name}"
        data = json.loads(meta.read_text(encoding="utf-8"))
        keys: dict[str, Any] = data.get("exit_code_by_key", {})
        if not keys:
            continue
        mf = MutatedFile(work / "oracle" / source.name, source, shown)
        for key, code in sorted(keys.items()):
            mutants.append(mf.mutant(key, status_by_exit_code[code]))
    return mutants


# ---------------------------------------------------------------- the verdict


@dataclass
class Verdict:
    total: int
    killed: int
    equivalent: list[tuple[Mutant, Entry]]
    unlisted: list[Mutant]  # survivors not in the list
    wrongly_listed: list[tuple[Mutant, Entry]]  # listed as equivalent, but killed
    stale: list[Entry]  # entries that match no mutant of this run
    other: list[Mutant]  # neither killed nor survived: not checked, suspicious, skipped …

    @property
    def ok(self) -> bool:
        return not (self.unlisted or self.wrongly_listed or self.stale or self.other)


def judge(mutants: Iterable[Mutant], entries: Sequence[Entry], files: set[str]) -> Verdict:
    mutants = list(mutants)
    used: set[int] = set()
    v = Verdict(len(mutants), 0, [], [], [], [], [])
    for m in mutants:
        entry = next((e for e in entries if e.matches(m)), None)
        if entry is not None:
            used.add(entry.index)
        if m.killed:
            v.killed += 1
            if entry is not None:
                v.wrongly_listed.append((m, entry))
        elif m.status in SURVIVED:
            if entry is None:
                v.unlisted.append(m)
            else:
                v.equivalent.append((m, entry))
        else:
            v.other.append(m)
    v.stale = [e for e in entries if e.index not in used and e.file in files]
    return v


def report(v: Verdict, verbose: bool, seconds: float | None, workers: int) -> None:
    if verbose and v.equivalent:
        print(f"\nequivalent ({len(v.equivalent)}):")
        for m, e in v.equivalent:
            print(m.describe())
            print(f"    why ({e.kind}): {e.reason}")
    if v.unlisted:
        print(f"\nsurviving mutants not listed as equivalent ({len(v.unlisted)}):")
        for m in v.unlisted:
            print(m.describe())
        print(
            "  each needs a case that kills it (cases/…, then `palconf lint --strict` and "
            f"`palconf rules bless ID`), or an entry in {EQUIVALENT_SHOWN} saying why no case "
            "can tell it from the oracle through protocol v1"
        )
    if v.other:
        print(f"\nmutants neither killed nor survived ({len(v.other)}): run again")
        for m in v.other:
            print(m.describe())
    if v.wrongly_listed:
        print(f"\nlisted as equivalent, but a case kills them ({len(v.wrongly_listed)}):")
        for m, e in v.wrongly_listed:
            print(f"{m.describe()}\n    {EQUIVALENT_SHOWN}: {e.describe()}: remove it")
    if v.stale:
        print(f"\n{EQUIVALENT_SHOWN}: entries matching no mutant of this run ({len(v.stale)}):")
        for e in v.stale:
            print(f"  {e.describe()}: the code changed; check it again or remove it")
    if seconds is None:
        print(f"\n{v.total} mutants (the last run's results, judged again)")
    else:
        print(f"\n{v.total} mutants in {seconds:.0f} s with {workers} worker(s)")
    if v.equivalent:
        counts = {k: sum(1 for _, e in v.equivalent if e.kind == k) for k in KINDS}
        shown = "; ".join(f"{n} {k} ({KINDS[k]})" for k, n in counts.items() if n)
        print(f"not killed but listed: {shown}")
    print(
        f"mutation score: {v.killed}/{v.total} killed, {len(v.equivalent)} equivalent "
        f"(listed in {EQUIVALENT_SHOWN})"
    )


# ---------------------------------------------------------------- running mutmut


def prepare(work: Path, only: Sequence[str]) -> None:
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    shutil.copytree(ROOT / "oracle", work / "oracle", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(HERE / "corpus.py", work / "test_corpus.py")
    (work / "pyproject.toml").write_text(
        CONFIG.format(only=json.dumps(list(only))), encoding="utf-8"
    )
    (work / RUN_FILE).write_text(json.dumps({"only": list(only)}), encoding="utf-8")


def earlier_run_problem(work: Path) -> str | None:
    """Why the work folder holds no usable earlier run, or None: it must hold a finished run
    of mutmut on a copy of oracle/ equal to the checkout's oracle/ now."""
    if not (work / RUN_FILE).is_file() or not (work / "mutants").is_dir():
        return f"no earlier run in {work}"
    copies = sorted(p.name for p in (work / "oracle").glob("*.py"))
    sources = sorted((ROOT / "oracle").glob("*.py"))
    if copies != [p.name for p in sources] or any(
        (work / "oracle" / p.name).read_bytes() != p.read_bytes() for p in sources
    ):
        return "oracle/ changed since the last run"
    return None


def run_mutmut(work: Path, workers: int, names: Sequence[str]) -> int:
    env = dict(os.environ)
    env["PALCONF_CASES"] = str(ROOT / "cases")
    env["PALCONF_RULES"] = str(ROOT / "rules")
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", str(workers), *names]
    log = work / "mutmut.log"
    if sys.stdout.isatty():
        return subprocess.call(cmd, cwd=work, env=env)
    print(f"mutmut is running; its output goes to {log}", flush=True)
    with log.open("w", encoding="utf-8") as out:
        return subprocess.call(cmd, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)


def _oracle_file(name: str) -> str:
    p = Path(name)
    shown = f"oracle/{p.name}" if p.parent in (Path("."), Path("oracle")) else name
    if not (ROOT / shown).is_file() or not shown.endswith(".py"):
        raise SystemExit(f"--file {name}: no such file in oracle/")
    return shown


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.mutation",
        description="Mutation testing of oracle/ with mutmut; the case corpus is the only test.",
    )
    parser.add_argument(
        "--workers", type=int, default=WORKERS, help=f"mutants run at once (default {WORKERS})"
    )
    parser.add_argument(
        "--file",
        action="append",
        default=[],
        metavar="FILE",
        help="mutate only this file of oracle/ (repeatable; e.g. keywords.py)",
    )
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="keep the last run's work folder and run again only its mutants that were "
        "not killed (after adding cases; the oracle must be unchanged)",
    )
    parser.add_argument(
        "--judge",
        action="store_true",
        help="run nothing: judge the last run's results again (after editing equivalent.toml)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=WORK,
        metavar="DIR",
        help="the work folder (default .mutation/; emptied by every run but --judge and "
        "--survivors)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also list the equivalent mutants"
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    if importlib.util.find_spec("mutmut") is None:
        print(
            "mutmut is not installed: pip install -e '.[mutation]' (see README, "
            '"Suite strength: mutant engines")',
            file=sys.stderr,
        )
        return 2
    try:
        entries = load_equivalent()
    except ListError as e:
        print(e, file=sys.stderr)
        return 2
    only = [_oracle_file(f) for f in args.file]
    work = args.work.resolve()
    if work == ROOT or ROOT.is_relative_to(work) or (work / ".git").exists():
        parser.error(f"--work {args.work}: not a folder to empty (it holds the checkout)")
    start = time.monotonic()
    ran = True
    if args.judge or args.survivors:
        problem = earlier_run_problem(work)
        if problem is not None:
            print(
                f"{problem}: run `python -m tests.mutation` without --judge / --survivors",
                file=sys.stderr,
            )
            return 2
        only = json.loads((work / RUN_FILE).read_text(encoding="utf-8"))["only"]
    if args.judge:
        code, ran = 0, False
    elif args.survivors:
        names = [m.name for m in read_results(work) if not m.killed]
        code = run_mutmut(work, args.workers, names) if names else 0
    else:
        prepare(work, only)
        code = run_mutmut(work, args.workers, [])
    if code != 0:
        log = work / "mutmut.log"
        if log.is_file():
            print(log.read_text(encoding="utf-8", errors="replace")[-3000:])
        print(f"mutmut failed (exit {code}); see above", file=sys.stderr)
        return 2
    mutants = read_results(work)
    # the files whose entries must match a mutant: those mutated (all of oracle/ by default)
    files = set(only) if only else {m.file for m in mutants} | {e.file for e in entries}
    verdict = judge(mutants, entries, files)
    seconds = time.monotonic() - start if ran else None
    report(verdict, args.verbose, seconds, args.workers)
    return 0 if verdict.ok else 1
