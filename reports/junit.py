"""JUnit XML for CI test reporters (GitLab, Jenkins, GitHub actions that read JUnit).

One `<testsuite>` per engine, one `<testcase>` per case: `classname` is `palconf.<keyword>`
(`palconf.protocol` for a case citing a protocol rule, `palconf.interactions` for one testing
several keywords, `palconf.base` for one testing none — the folders of `cases/`), `name` the
case id. Outcomes map as pytest maps them:

    pass            passed
    fail            <failure>  (message, then each differing field: expected / observed)
    error, timeout  <error type="error" | "timeout">  (the engine's stderr in <system-err>)
    skip            <skipped>
    xfail           <skipped type="xfail">  (a known failure listed in the expectations file)
    xpass           passed, with a note in <system-out>

`<testsuites name>` says the runs' rules version ("palconf 1.00"; "palconf 1.00, 1.01 (runs
of different rules versions)" when they differ), and each testsuite's `rules.version`
property is its own run's, from its results file ("unknown" when the file does not say).

Text from results files is untrusted: ElementTree escapes it, and characters XML 1.0 cannot
hold (NUL and other control characters) are replaced by U+FFFD first.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from palconf.core import Outcome, Result
from palconf.core.outcomes import junit_classname

from .model import Report
from .render import show_json, tail

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def classname(groups: tuple[str, ...]) -> str:
    """From a case's groups (`Result.groups`): the folder of `cases/` it belongs in."""
    return junit_classname(groups)


def failure_text(r: Result) -> str:
    lines = [r.message]
    if r.title:
        lines.append(f"case: {r.title}")
    if r.clauses:
        lines.append(f"clauses: {', '.join(r.clauses)}")
    if r.step is not None:
        lines.append(f"at step {r.step}")
    if r.expected or r.note:
        lines.append(
            f"expectations: listed as {' or '.join(r.expected) or 'pass'}"
            f"{' (' + r.note + ')' if r.note else ''}"
        )
    for d in r.diffs:
        lines.append(
            f"{d.path}: expected {show_json(d.expected)}, observed {show_json(d.observed)}"
        )
    if r.diffs_omitted:
        lines.append(f"… and {r.diffs_omitted} more difference(s)")
    return clean("\n".join(lines))


def _rules_words(report: Report) -> str:
    """The runs' rules version, or their versions and that they differ."""
    if report.mixed_rules:
        return f"{report.rules_version} (runs of different rules versions)"
    return report.rules_version


def render_junit(report: Report) -> str:
    root = ET.Element("testsuites", name=clean(f"palconf {_rules_words(report)}"))
    totals = dict(tests=0, failures=0, errors=0, skipped=0)
    total_time = 0.0
    for engine in report.engines:
        suite = ET.SubElement(root, "testsuite", name=clean(f"palconf: {engine.label}"))
        counts = dict(tests=0, failures=0, errors=0, skipped=0)
        suite_time = 0.0
        props = ET.SubElement(suite, "properties")
        for key, value in (
            ("engine", engine.name),
            ("engine.version", engine.version),
            ("rules.version", engine.rules_version),
            ("palconf", report.palconf),
            ("source", engine.source),
            # whole, partial or unfinished, and in words (palconf.core.results_meta)
            ("run.completeness", engine.completeness.state),
            ("run.completeness.words", engine.completeness.words),
        ):
            ET.SubElement(props, "property", name=key, value=clean(value))
        for r in engine.results.values():
            seconds = max(r.duration_ms, 0.0) / 1000
            suite_time += seconds
            case = ET.SubElement(
                suite,
                "testcase",
                classname=classname(r.groups),
                name=clean(r.id),
                time=f"{seconds:.3f}",
            )
            counts["tests"] += 1
            if r.outcome == Outcome.FAIL:
                counts["failures"] += 1
                el = ET.SubElement(case, "failure", type="fail", message=clean(r.message))
                el.text = failure_text(r)
            elif r.outcome in (Outcome.ERROR, Outcome.TIMEOUT):
                counts["errors"] += 1
                el = ET.SubElement(case, "error", type=r.outcome.value, message=clean(r.message))
                el.text = failure_text(r)
            elif r.outcome == Outcome.SKIP:
                counts["skipped"] += 1
                ET.SubElement(case, "skipped", message=clean(r.message))
            elif r.outcome == Outcome.XFAIL:
                counts["skipped"] += 1
                el = ET.SubElement(
                    case, "skipped", type="xfail", message=clean(f"expected failure: {r.message}")
                )
                el.text = failure_text(r)
            elif r.outcome == Outcome.XPASS:
                out = ET.SubElement(case, "system-out")
                out.text = (
                    "unexpectedly passed (xpass): the expectations file lists this case as failing"
                )
            if r.stderr and r.outcome != Outcome.PASS:
                err = ET.SubElement(case, "system-err")
                err.text = clean(tail(r.stderr))
        suite.set("tests", str(counts["tests"]))
        suite.set("failures", str(counts["failures"]))
        suite.set("errors", str(counts["errors"]))
        suite.set("skipped", str(counts["skipped"]))
        suite.set("time", f"{suite_time:.3f}")
        date = (engine.meta or {}).get("date")
        if isinstance(date, str) and date:
            suite.set("timestamp", clean(date.removesuffix("Z")))
        for k in totals:
            totals[k] += counts[k]
        total_time += suite_time
    for k in ("tests", "failures", "errors"):  # the schema has no `skipped` on <testsuites>
        root.set(k, str(totals[k]))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
