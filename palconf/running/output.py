"""What a run leaves behind besides its table: the results file and the compliance report.

- the results file (`palconf run --results FILE`, JSON Lines): `write_meta_line` writes its
  first line once the engine has said hello; `read_for_resume` reads it back for `--resume`;
- the report (`palconf report`, `palconf run --report DIR`): `write_report` builds and writes
  it (reports/build.py), `report_after_run` from the run just made.

`reports` (jinja2 …) is imported only when a report or a meta line is made.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from palconf.core import EngineInfo, Result, terminal_safe
from palconf.core.errors import UsageError

if TYPE_CHECKING:
    from palconf.registry import Registry
    from palconf.reports.results import ResultsFile

__all__ = [
    "ResumeError",
    "Resumed",
    "read_for_resume",
    "report_after_run",
    "write_meta_line",
    "write_report",
]


# ---------------------------------------------------------------- the results file


class ResumeError(UsageError):
    """The results file cannot be resumed from."""


@dataclass
class Resumed:
    """What a results file holds for `--resume`: its results, and its first meta line (the
    engine and rules the results were made with), if it has one."""

    results: list[Result] = field(default_factory=list)
    meta: dict[str, Any] | None = None

    def engine(self) -> tuple[str, str] | None:
        engine = (self.meta or {}).get("engine")
        if not isinstance(engine, dict):
            return None
        return str(engine.get("name", "")), str(engine.get("version", ""))

    def mismatch(self, info: EngineInfo, rules_version: str) -> str | None:
        """Why this run must not add to the file, or None: another engine (name or version)
        or another rules version made its results."""
        if not self.results or self.meta is None:
            return None
        was, now = self.engine(), (info.name, info.version)
        if was is not None and was != now:
            return (
                f"its results are from the engine {terminal_safe(' '.join(was), 200)}, this "
                f"run's engine is {terminal_safe(' '.join(now), 200)}"
            )
        rules = self.meta.get("rules_version")
        if rules is not None and rules != rules_version:
            return (
                f"its results were judged against rules {terminal_safe(rules, 50)}, "
                f"the current rules are {rules_version}"
            )
        return None


def read_for_resume(path: Path) -> Resumed:
    """The results already in a results file, and its meta line. A last line without its
    end of line (the run was killed while writing it) is cut off the file, so its case runs
    again. Any other line that is not a result or a meta line is an error: the file is not
    ours."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Resumed()
    except OSError as e:
        raise ResumeError(f"cannot read {path}: {e.strerror or e}") from None
    cut = data.rfind(b"\n") + 1
    if cut < len(data):
        try:
            with path.open("r+b") as f:
                f.truncate(cut)
        except OSError as e:
            raise ResumeError(
                f"cannot cut the unfinished last line off {path}: {e.strerror or e}"
            ) from None
        print(
            f"palconf: {path}: dropped an unfinished last line ({len(data) - cut} bytes); "
            f"its case runs again",
            file=sys.stderr,
        )
    by_id: dict[str, Result] = {}
    meta: dict[str, Any] | None = None
    for n, line in enumerate(data[:cut].split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            raise ResumeError(
                f"{path}:{n}: not a JSON line; is this a palconf results file?"
            ) from None
        if isinstance(obj, dict) and set(obj) == {"meta"}:
            if meta is None and isinstance(obj["meta"], dict):
                meta = obj["meta"]
            continue
        try:
            result = Result.from_json(obj)
        except ValueError as e:
            raise ResumeError(
                f"{path}:{n}: not a palconf result: {terminal_safe(e, 300)}"
            ) from None
        by_id.pop(result.id, None)
        by_id[result.id] = result
    return Resumed(list(by_id.values()), meta)


def recorded_info(info: EngineInfo, version: str | None) -> EngineInfo:
    """The engine as a run records it: `run --engine-version` in place of hello's version."""
    return info if not version else replace(info, version=version)


def write_meta_line(
    out: IO[str],
    info: EngineInfo,
    rules_version: str,
    cases: int,
    recorded: EngineInfo | None = None,
    label: str | None = None,
) -> None:
    """What `palconf run --results FILE` writes first, once the engine has said hello: the
    meta line (reports/results.py), unless the file already has lines (a resumed run keeps
    its first meta line). `cases` is how many cases the run selected, so a reader can tell
    an unfinished run (fewer result lines) from a finished one. `recorded` is the engine as
    `--engine-version` names it (hello's own version is kept as `hello_version` when they
    differ); `label` is `--label`."""
    from palconf.reports.results import meta_line, run_meta

    shown = recorded or info
    if out.tell() == 0:
        meta = run_meta(shown.name, shown.version, info.keywords, rules_version, cases)
        if shown.version != info.version:
            meta["engine"]["hello_version"] = info.version
        if label:
            meta["label"] = label
        out.write(meta_line(meta))
        out.flush()


# ---------------------------------------------------------------- the report


def _fail(message: str) -> int:
    print(f"palconf report: {message}", file=sys.stderr)
    return 2


def write_report(
    runs: list[ResultsFile],
    out: Path,
    registry: Registry,
    mutants_path: Path | None = None,
    title: str = "Pal keyword rules compliance",
    quiet: bool = False,
) -> int:
    """Build and write the report of `runs` into `out`. Returns the exit status (2, with a
    message, when an input or the folder is unusable)."""
    from palconf.reports import build
    from palconf.reports import write_report as write_files
    from palconf.reports.boards import load_suite
    from palconf.reports.mutants import read_mutants
    from palconf.reports.results import ResultsError

    try:
        mutants = None
        if mutants_path is not None:
            mutants = read_mutants(
                mutants_path, {cid: c.keyword for cid, c in registry.clauses.items()}
            )
        report = build(runs, registry, mutants, title=title, suite=load_suite(registry))
    except ResultsError as e:
        return _fail(str(e))
    if out.exists() and not out.is_dir():
        return _fail(f"{out}: exists and is not a folder")
    try:
        written = write_files(report, out)
    except OSError as e:
        return _fail(f"cannot write the report into {out}: {e.strerror or e}")
    for run in runs:
        if run.duplicates:
            print(
                f"palconf report: {run.path}: {len(run.duplicates)} case(s) recorded twice; "
                f"the last result of each is used",
                file=sys.stderr,
            )
    if not quiet:
        engines = terminal_safe(", ".join(e.label for e in report.engines))
        print(
            f"palconf report: {len(report.cases)} case(s), {len(report.engines)} engine(s) "
            f"({engines}): wrote {len(written)} files into {out}"
        )
        print(f"  {out / 'index.html'}")
    return 0


def report_after_run(
    results_path: Path | None,
    report_dir: Path,
    info: EngineInfo,
    results: Sequence[Result],
    registry: Registry,
    cases: int,
) -> int:
    """`palconf run --report DIR`: write the report once every case has run. With a results
    file the report is read back from it (its meta line, and a resumed run's earlier results
    too); without one it is built from `results` in memory.
    Returns 0, or 2 after printing why the report could not be written."""
    from palconf.reports.results import ResultsError, from_json_objects, read_results, run_meta

    try:
        if results_path is not None:
            run = read_results(results_path)
        else:
            meta = run_meta(info.name, info.version, info.keywords, registry.current, cases)
            run = from_json_objects((r.to_json() for r in results), meta)
    except ResultsError as e:
        return _fail(str(e))
    return write_report([run], report_dir, registry)
