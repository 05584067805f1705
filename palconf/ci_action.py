"""What the GitHub Action (`action.yml` at the top of the repository) runs, and what any other
CI can run the same way:

    python -m palconf.ci_action --engine-cmd CMD [--expectations FILE] [--baseline FILE]
                                [--rules VERSION] [-j N|auto] [--timeout SECONDS]
                                [--engine-version VERSION] [--label TEXT] [--out DIR]

1. `palconf run --engine-cmd CMD --results DIR/results.jsonl --report DIR/report`
   (with `--expectations FILE`: the engine's known failures count as xfail; with
   `--rules VERSION`: the cases and oracle of that rules version, else the one the engine's
   hello names, else the current one; `-j`, `--timeout`, `--engine-version` and `--label`
   are `palconf run`'s, checked here as it checks them, before anything runs);
2. the report's Markdown summary (DIR/report/report.md) is appended to the file named by
   `GITHUB_STEP_SUMMARY`, when it is set (the job's summary page on GitHub);
3. the JUnit XML is copied to DIR/junit.xml, for a test reporter;
4. with `--baseline FILE` (an earlier results file), `palconf report --compare FILE
   DIR/results.jsonl` is added to the summary, and DIR/compare.md written;
5. `results`, `report`, `junit` and `regressed` (how many cases) are written to the file
   named by `GITHUB_OUTPUT`, when it is set.

Exit status: with a baseline, 1 when some case regressed (passed in the baseline, fails
now), else 0: an engine that is still being written is held to what it already did. Without
a baseline, `palconf run`'s own status: 1 when a case failed that the expectations file does
not list. 2 when the suite could not run at all (a bad engine command, a broken file): the
message says why.

This is a module of palconf (not a script beside action.yml) so that it is installed with the
palconf it drives, runs in any CI with `python -m`, and is tested like the rest.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path

from palconf.core.errors import ExitCode, UsageError, internal_error
from palconf.core.safe_write import UnsafeWrite, ensure_folder, open_stream, write_text_atomic
from palconf.engines.options import AUTO, job_count, numbers_help, timeout_seconds

#: How palconf itself is run: the console entry, in a child process (it cleans up after the
#: engine's processes, which an in-process call does not).
PALCONF = (sys.executable, "-m", "palconf.cli")


def _palconf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*PALCONF, *args], capture_output=True, text=True)


def _append(env_name: str, text: str) -> None:
    """Add `text` to the file the runner names in `env_name`, through the one safe writer
    (palconf.core.safe_write: never a folder or a socket; a full disk is a message)."""
    target = os.environ.get(env_name)
    if not target:
        return
    stream = open_stream(Path(target))
    try:
        stream.write(text if text.endswith("\n") else text + "\n")
    finally:
        stream.close()


def outputs_text(values: dict[str, str]) -> str:
    """`GITHUB_OUTPUT` lines for `values`, each in GitHub's multi-line syntax with a random
    delimiter (`name<<DELIM`, the value, `DELIM`), so that no value (a folder name with a
    newline in it) can end its own value early and set another output."""
    parts = []
    for name, value in values.items():
        delimiter = f"palconf_{secrets.token_hex(16)}"
        while delimiter in value:  # (never, in practice)
            delimiter = f"palconf_{secrets.token_hex(16)}"
        parts.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    return "".join(parts)


def _say(text: str) -> None:
    if text:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m palconf.ci_action",
        description="Run the palconf suite on an engine in CI: results, report, step "
        "summary, JUnit, and a comparison with a baseline that fails on regressions.",
    )
    p.add_argument("--engine-cmd", required=True, help="the engine's command (protocol v1)")
    p.add_argument("--expectations", type=Path, help="the engine's known outcomes (TOML)")
    p.add_argument("--baseline", type=Path, help="an earlier results file to compare with")
    p.add_argument(
        "--rules",
        metavar="VERSION",
        help="the rules version to run (palconf run --rules; default: the engine's, else "
        "the current one)",
    )
    p.add_argument(
        "-j",
        "--jobs",
        type=job_count,
        metavar="N|auto",
        help=numbers_help("engines at once (palconf run -j; default 1)", job_count),
    )
    p.add_argument(
        "--timeout",
        type=timeout_seconds,
        metavar="SECONDS",
        help=numbers_help(
            "seconds to wait for each reply (palconf run --timeout)", timeout_seconds
        ),
    )
    p.add_argument(
        "--engine-version",
        metavar="VERSION",
        help="the engine version to record, in place of its hello's (palconf run --engine-version)",
    )
    p.add_argument(
        "--label",
        metavar="TEXT",
        help="a free label recorded with the results (palconf run --label)",
    )
    p.add_argument("--out", type=Path, default=Path("palconf-results"), help="output folder")
    args = p.parse_args(argv)

    if args.baseline is not None and not args.baseline.is_file():
        print(f"palconf ci: --baseline {args.baseline}: no such file", file=sys.stderr)
        return 2
    try:
        return _main(args)
    except UnsafeWrite as e:  # an output folder or file that cannot be written
        print(f"palconf ci: {e}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:
    out: Path = args.out
    ensure_folder(out)
    results, report = out / "results.jsonl", out / "report"
    # (a fresh run, not a resumed one: `palconf run` empties the file once it holds its lock)
    run_args = ["run", "--engine-cmd", args.engine_cmd, "--results", str(results)]
    run_args += ["--report", str(report)]
    if args.expectations is not None:
        run_args += ["--expectations", str(args.expectations)]
    if args.rules:  # (an empty action input: the default)
        run_args += ["--rules", args.rules]
    if args.jobs is not None:
        run_args += ["--jobs", "auto" if args.jobs == AUTO else str(args.jobs)]
    if args.timeout is not None:
        run_args += ["--timeout", repr(args.timeout)]
    # (as `--option=VALUE`: a version or a label may begin with a dash)
    if args.engine_version:
        run_args += [f"--engine-version={args.engine_version}"]
    if args.label:
        run_args += [f"--label={args.label}"]
    run = _palconf(*run_args)
    _say(run.stdout)
    sys.stderr.write(run.stderr)
    summary = report / "report.md"
    if run.returncode not in (0, 1) or not summary.is_file():  # 2: not run; 3: palconf's bug
        from palconf.reports.render import md_escape

        _append(
            "GITHUB_STEP_SUMMARY",
            f"## palconf\n\nThe suite could not run on {md_escape(args.engine_cmd)} "
            f"(exit status {run.returncode}); see the job's log.\n",
        )
        print(f"palconf ci: the suite could not run (exit {run.returncode})", file=sys.stderr)
        return run.returncode if run.returncode == ExitCode.INTERNAL else ExitCode.USAGE
    _append("GITHUB_STEP_SUMMARY", summary.read_text(encoding="utf-8"))
    junit = write_text_atomic(
        out / "junit.xml", (report / "junit.xml").read_text(encoding="utf-8"), inside=out
    )

    status = 1 if run.returncode else 0
    regressed = 0
    if args.baseline is not None:
        cmp = _palconf(
            "report", "--compare", str(args.baseline), str(results), "--format", "markdown"
        )
        if cmp.returncode not in (0, 1):
            sys.stderr.write(cmp.stderr)
            return 2
        write_text_atomic(out / "compare.md", cmp.stdout, inside=out)
        _append("GITHUB_STEP_SUMMARY", "\n## Against the baseline\n\n" + cmp.stdout)
        regressed = _count_regressed(args.baseline, results)
        status = 1 if cmp.returncode == 1 else 0
        _say(
            f"palconf ci: {regressed} case(s) regressed against {args.baseline}"
            if regressed
            else f"palconf ci: nothing regressed against {args.baseline}"
        )
    _append(
        "GITHUB_OUTPUT",
        outputs_text(
            {
                "results": str(results),
                "report": str(report),
                "junit": str(junit),
                "regressed": str(regressed),
            }
        ),
    )
    return status


def _count_regressed(baseline: Path, results: Path) -> int:
    from palconf.core.results_file import duplicates_warning, read_results
    from palconf.reports.compare import compare

    old, new = read_results(baseline), read_results(results)
    for run in (old, new):
        warning = duplicates_warning(run)
        if warning:
            print(f"palconf ci: {warning}", file=sys.stderr)
    return len(compare(old, new).regressed)


def entry(argv: Sequence[str] | None = None) -> int:
    """`python -m palconf.ci_action`: `main` behind the same boundary as the `palconf`
    command, so that the action's own failure is exit 3, never 1 ("the engine failed")."""
    debug = bool(os.environ.get("PALCONF_DEBUG"))
    try:
        return main(argv)
    except UsageError as e:
        print(f"palconf ci: {e}", file=sys.stderr)
        return ExitCode.USAGE
    except Exception as e:
        if debug:
            traceback.print_exc()
        print(internal_error(e, "ci", debug), file=sys.stderr)
        return ExitCode.INTERNAL


if __name__ == "__main__":
    sys.exit(entry())
