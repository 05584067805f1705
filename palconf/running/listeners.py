"""Listeners of a run (`CaseRun.subscribe`) that `palconf run` uses: the results file, and
the progress on stderr."""

from __future__ import annotations

import sys

from palconf.core import Result
from palconf.core.results_file import ResultsWriter
from palconf.running.session import RunEnd
from palconf.running.terminal import Paint, Progress

__all__ = ["ProgressListener", "ResultsFileListener"]


class ResultsFileListener:
    """Listener: each result as a line of the results file, written at once (the file
    itself, its lock and its meta line are palconf.core.results_file's)."""

    def __init__(self, out: ResultsWriter) -> None:
        self.out = out

    def on_result(self, result: Result) -> None:
        self.out.write_result(result)

    def on_finish(self, end: RunEnd) -> None:
        self.out.close()


class ProgressListener:
    """Listener: the progress bar or lines on stderr, and `-v`'s line per case."""

    def __init__(self, progress: Progress, paint: Paint, verbose: bool) -> None:
        self.progress, self.paint, self.verbose = progress, paint, verbose

    def on_result(self, result: Result) -> None:
        self.progress.add(result.outcome)
        if self.verbose:
            shown = self.paint.outcome(result.outcome, f"{result.outcome:<8}")
            self.progress.above(f"{shown} {result.id}", sys.stdout)

    def on_finish(self, end: RunEnd) -> None:
        self.progress.close()
