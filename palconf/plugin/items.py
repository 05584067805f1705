"""The pytest plugin's collection nodes: the cases folder (`CaseSuite`) and one `CaseItem` per
case, with the report of a case that did not pass (palconf.plugin.hooks registers them).

Every text that comes from an engine or a file goes through `palconf.core.terminal_safe`.
"""

from __future__ import annotations

import json
import os
import shlex
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from palconf.core import Outcome, Result, json_read, terminal_safe
from palconf.plugin.engine import EngineStopped

if TYPE_CHECKING:
    from palconf.cases.loader import Case
    from palconf.plugin.settings import Session
    from palconf.registry import Registry

__all__ = [
    "CaseFile",
    "CaseItem",
    "CaseProblem",
    "CaseSuite",
    "PalconfWarning",
    "anchor",
    "load_problems",
    "marker_name",
]

#: The name of the collector that holds the cases (its items are `<case file>::<case id>`).
ROOT_NAME = "palconf"
STDERR_LINES = 10
LINE_LIMIT = 300
WRAP = 96


class PalconfWarning(pytest.PytestWarning):
    """A problem palconf found that does not stop the run (a stale expectations entry)."""


def marker_name(group: str) -> str:
    """A group (a keyword id, `protocol`, `base`) as a marker: `on-deploy` → `on_deploy`."""
    return group.replace("-", "_")


def anchor(path: Path, rootpath: Path) -> str:
    """A case file as the path part of its items' node ids: relative to pytest's root folder
    when it is inside it (`cases/taunt/x.toml`), else absolute, so that the id printed
    (`cases/taunt/x.toml::x`) can be given back to pytest (and `--lf` finds the file)."""
    try:
        rel = path.relative_to(rootpath)
    except ValueError:
        return path.as_posix()
    return rel.as_posix()


def load_problems(errors: list[Any], root: Path) -> str:
    """Broken case files, as pytest's usage error shows them: the folder, then one line each
    (file:line: field: what is wrong)."""
    return f"palconf: {len(errors)} problem(s) in the case files of {root}:\n" + "\n".join(
        f"  {terminal_safe(e)}" for e in errors
    )


class CaseSuite(pytest.Collector):
    """The cases folder: one `CaseItem` per case, sorted by case id, each with the node id
    `<case file>::<case id>` (see `anchor`)."""

    def __init__(self, *, palconf: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.palconf = palconf

    def collect(self) -> list[CaseItem]:
        palconf = self.palconf
        cases = palconf.suite()
        expectations = palconf.load_expectations()
        # every xdist worker collects: warn once (in the first worker, or without xdist)
        if expectations is not None and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
            text = _read_text(expectations.path)
            for entry in expectations.unmatched(c.id for c in cases):
                warnings.warn_explicit(
                    PalconfWarning(
                        f"cases.{entry.pattern!r} matches no case in {palconf.settings.cases_root}"
                    ),
                    category=None,
                    filename=str(expectations.path),
                    lineno=_line_of(text, entry.pattern),
                )
        root, top = palconf.settings.cases_root, self.config.rootpath
        return [
            CaseItem.from_parent(
                self, name=case.id, case=case, nodeid=f"{anchor(root / case.path, top)}::{case.id}"
            )
            for case in cases
        ]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from palconf.cases.loader import CaseLoadError
        from palconf.core.errors import UsageError

        if isinstance(excinfo.value, CaseLoadError):
            return load_problems(excinfo.value.errors, self.palconf.settings.cases_root)
        if isinstance(excinfo.value, UsageError):  # an expectations file, a results file …
            return f"palconf: {terminal_safe(excinfo.value, keep_newlines=True)}"
        return super().repr_failure(excinfo)


class CaseFile(pytest.File):
    """A case file named on the command line (`pytest cases/taunt/x.toml::x`, or a folder of
    the cases): its case, with the same node id as in the whole suite."""

    def __init__(self, *, palconf: Session, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.palconf = palconf

    def collect(self) -> list[CaseItem]:
        root = self.palconf.settings.cases_root
        return [
            CaseItem.from_parent(self, name=case.id, case=case)
            for case in self.palconf.suite()
            if root / case.path == self.path
        ]


class CaseProblem(Exception):
    """What a case's item raises when the case did not pass; its report is `report`."""

    def __init__(self, report: str, *, stopped: bool = False) -> None:
        super().__init__(report)
        self.report = report
        self.stopped = stopped  # the engine cannot run cases any more: pytest stops


class CaseItem(pytest.Item):
    """One case. The setup phase drives the engine through the case and judges the result;
    the call phase fails when the engine answered wrongly."""

    def __init__(self, *, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.result: Result | None = None
        self._failure: str | None = None
        for group in case.keywords:
            self.add_marker(marker_name(group))
        self.add_marker(ROOT_NAME)
        self.extra_keyword_matches.update(case.clauses + case.rules + case.interpretations)
        expectations = self.palconf.load_expectations()
        entry = expectations.skipped(case.id) if expectations is not None else None
        if entry is not None:  # as `palconf run` does: not run at all
            why = terminal_safe(entry.describe() or f"listed as {entry.pattern!r}")
            self.add_marker(pytest.mark.skip(reason=f"skipped by the expectations file: {why}"))
        unfit = self.palconf.unfit.get(case.id)
        if unfit is not None:  # of the version's suite, but it does not hold for it
            self.add_marker(pytest.mark.skip(reason=terminal_safe(unfit)))

    @property
    def palconf(self) -> Session:
        parent = self.parent
        assert isinstance(parent, (CaseSuite, CaseFile))
        return parent.palconf

    @property
    def path_of_case(self) -> Path:
        return self.palconf.settings.cases_root / self.case.path

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path_of_case, 0, self.case.id

    def setup(self) -> None:
        palconf = self.palconf
        try:
            result = palconf.slot.run(self.case)
        except EngineStopped as e:
            self.session.shouldfail = f"palconf: {terminal_safe(e.message)}"
            raise CaseProblem(self._report_stopped(e), stopped=True) from None
        self.result = result
        expectations = None if self.config.option.runxfail else palconf.load_expectations()
        if expectations is not None:
            expectations.judge(result)
        outcome = result.outcome
        if outcome == Outcome.SKIP:
            # reported at the case file, not at this line (as pytest does for skip marks)
            raise pytest.skip.Exception(terminal_safe(result.message), _use_item_location=True)
        if outcome == Outcome.XFAIL:
            pytest.xfail(self._xfail_reason(result))
        if outcome in (Outcome.ERROR, Outcome.TIMEOUT):
            raise CaseProblem(self._report(result))
        if outcome == Outcome.FAIL:
            self._failure = self._report(result)
        if outcome == Outcome.XPASS:  # strict: `palconf run` exits 1 for it too
            self.add_marker(pytest.mark.xfail(reason=self._xpass_reason(result), strict=True))

    def runtest(self) -> None:
        if self._failure is not None:
            raise CaseProblem(self._failure)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseProblem):
            return excinfo.value.report
        return super().repr_failure(excinfo, style)  # a bug in palconf: its traceback

    # -- reports

    def _xfail_reason(self, r: Result) -> str:
        note = f" [{r.note}]" if r.note else ""
        return terminal_safe(f"{r.actual}: {_first_line(r.message)}{note}")

    def _xpass_reason(self, r: Result) -> str:
        path = self.palconf.settings.expectations_path
        note = f" [{r.note}]" if r.note else ""
        return terminal_safe(
            f"{r.id} passes, but {path} lists it as {' or '.join(r.expected)}"
            f"{note}: update the file (palconf run --expectations FILE "
            f"--update-expectations)"
        )

    def _report(self, r: Result) -> str:
        """The case, what it tests and how the engine's answer differs from the expected."""
        case, reg = self.case, self.palconf.registry
        lines = [
            terminal_safe(f"{r.outcome}: {_first_line(r.message)}"),
            f"case: {case.id}: {terminal_safe(case.title)}",
            f"file: {self.path_of_case}",
        ]
        if r.engine:
            lines.append(f"engine: {terminal_safe(r.engine)}")
        if r.step is not None:
            lines.append(f"at: {self._step(r.step)}")
        lines += [f"  {terminal_safe(m)}" for m in r.message.splitlines()[1:]]
        if r.diffs:
            lines.append("expected vs observed:")
            lines += [terminal_safe(f"  {d}") for d in r.diffs]
            if r.diffs_omitted:
                lines.append(f"  … and {r.diffs_omitted} more difference(s)")
        if r.expected:
            note = f" ({r.note})" if r.note else ""
            lines.append(
                terminal_safe(
                    f"expectations: {self.palconf.settings.expectations_path} "
                    f"lists {' or '.join(r.expected)}{note}"
                )
            )
        lines += _stderr_tail(r.stderr)
        lines += _cited("clauses", case.clauses, lambda c: _clause_text(reg, c))
        lines += _cited("rules", case.rules, reg.rule_text)
        lines += _cited(
            "interpretations",
            case.interpretations,
            lambda i: str(reg.interpretations.get(i, {}).get("text", "")),
        )
        return "\n".join(lines)

    def _step(self, step: int) -> str:
        steps = self.case.steps
        if step == 0:
            return "after setup"
        s = steps[step - 1] if 0 < step <= len(steps) else None
        label = s.label if s is not None else "action"
        body = json.dumps(s.body if s is not None else None, sort_keys=True, ensure_ascii=False)
        return terminal_safe(f"{label} {step} of {len(steps)}: {body}")

    def _report_stopped(self, e: EngineStopped) -> str:
        lines = [
            terminal_safe(f"error: {e.message}"),
            f"case: {self.case.id}: {terminal_safe(self.case.title)} (not run)",
            f"engine: {terminal_safe(self.palconf.settings.engine_label)}",
            "pytest stops here: no case can run against this engine",
        ]
        cmd = self.palconf.settings.engine_cmd
        if cmd is not None:
            lines.append(
                terminal_safe(
                    f"check the engine with: palconf smoke --engine-cmd {shlex.quote(cmd)}"
                )
            )
        return "\n".join(lines + _stderr_tail(e.stderr))


# ---------------------------------------------------------------- formatting


def _read_text(path: Path | None) -> str:
    """The expectations file's text, to find a line in ("" when it cannot be read: the one
    bounded reader, palconf.core.json_read)."""
    try:
        return json_read.read_text(path, ValueError, "a text file") if path is not None else ""
    except ValueError:
        return ""


def _line_of(text: str, pattern: str) -> int:
    """The line of an expectations entry's table header (1 if it cannot be found)."""
    for n, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("[cases.") and pattern in line:
            return n
    return 1


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _clause_text(registry: Registry, clause_id: str) -> str:
    clause = registry.clauses.get(clause_id)
    if clause is None:
        return ""
    return clause.text.get(registry.current) or clause.summary


def _cited(heading: str, ids: tuple[str, ...], text: Callable[[str], str]) -> list[str]:
    if not ids:
        return []
    lines = [f"{heading}:"]
    for i in ids:
        body = " ".join(text(i).split())
        wrapped = textwrap.wrap(
            f"{i}: {body}" if body else i, WRAP, initial_indent="  ", subsequent_indent="      "
        )
        lines += [terminal_safe(w) for w in wrapped]
    return lines


def _stderr_tail(stderr: str) -> list[str]:
    tail = [line for line in stderr.splitlines() if line.strip()][-STDERR_LINES:]
    if not tail:
        return []
    cut = [line if len(line) <= LINE_LIMIT else line[:LINE_LIMIT] + " …" for line in tail]
    return [f"engine stderr (last {len(cut)} line(s)):"] + [f"  | {terminal_safe(x)}" for x in cut]
