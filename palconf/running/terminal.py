"""Terminal output for long commands: colour, and live progress.

Colour (`--color auto|always|never`): `auto` colours a stream that is a terminal, unless
`NO_COLOR` is set (no-color.org: any non-empty value) or `TERM=dumb`; `FORCE_COLOR` turns
it on where `auto` would not. Only palconf's own words are coloured (verdicts, outcome
names); text from engines and files goes through `terminal_safe` and is never styled.

Progress (`--progress auto|bar|lines|none`): on a terminal (`auto` when stderr is one) a
single line on stderr, redrawn as results come (counts by outcome, elapsed time); else
(`lines`) a plain line now and then: after the first result if it was slow, then every few
seconds, so a CI log shows a slow run moving. Progress never goes to stdout, so stdout
holds the same text whatever the terminal.

No library: rich would draw the bar, but it interprets `[markup]` in printed strings, and
palconf prints engines' text all the time; ANSI codes for five styles and one redrawn line
are less to audit.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections import Counter
from typing import IO

COLOR_MODES = ("auto", "always", "never")
PROGRESS_MODES = ("auto", "bar", "lines", "none")

_STYLES = {
    "bold": "1",
    "dim": "2",
    "red": "1;31",
    "green": "32",
    "yellow": "33",
    "cyan": "36",
}
#: the style of each outcome's name
OUTCOME_STYLE = {
    "pass": "green",
    "fail": "red",
    "error": "red",
    "timeout": "red",
    "xpass": "yellow",
    "xfail": "dim",
    "skip": "yellow",
}


def use_color(stream: IO[str], mode: str = "auto") -> bool:
    if mode == "never":
        return False
    if mode == "always":
        return True
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Paint:
    """`paint(text, style)`: `text` in ANSI `style` when colour is on, else as it is."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, style: str) -> str:
        code = _STYLES.get(style)
        if not self.enabled or code is None or not text:
            return text
        return f"\x1b[{code}m{text}\x1b[0m"

    def outcome(self, outcome: str, text: str | None = None) -> str:
        return self(text if text is not None else outcome, OUTCOME_STYLE.get(outcome, ""))


def progress_mode(mode: str, stream: IO[str]) -> str:
    """`bar`, `lines` or `none` for the mode asked and the stream progress goes to."""
    if mode != "auto":
        return mode
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return "bar" if tty and os.environ.get("TERM") != "dumb" else "lines"


class Progress:
    """Counts results as they come and shows them on `stream` (stderr)."""

    #: plain mode: seconds between lines; the first result gets a line if it took this long
    EVERY = 2.0
    FIRST = 0.5
    #: bar mode: redraws at most this often (a fast run must not spend its time drawing)
    REDRAW = 0.05

    def __init__(
        self,
        total: int,
        *,
        mode: str = "lines",
        stream: IO[str] | None = None,
        paint: Paint | None = None,
        label: str = "palconf",
    ) -> None:
        self.total = total
        self.mode = mode
        self.stream = stream if stream is not None else sys.stderr
        self.paint = paint or Paint(False)
        self.label = label
        self.counts: Counter[str] = Counter()
        self.done = 0
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def add(self, outcome: str) -> None:
        self.done += 1
        self.counts[str(outcome)] += 1
        now = time.monotonic()
        if self.mode == "bar":
            if now - self._last >= self.REDRAW or self.done == self.total:
                self._draw(now)
        elif self.mode == "lines":
            first = self.done == 1 and now - self.started >= self.FIRST
            if first or (self.done > 1 and now - max(self._last, self.started) >= self.EVERY):
                self._line(now)

    def above(self, text: str, out: IO[str]) -> None:
        """Print `text` on `out` without tearing the bar: clear it, print, draw it again."""
        if self._drawn:
            self._clear()
        print(text, file=out, flush=self.mode == "bar")
        if self.mode == "bar" and self.done:
            self._draw(time.monotonic())

    def close(self) -> None:
        if self._drawn:
            self._clear()

    # -- drawing

    def _summary(self, now: float) -> str:
        parts = [self.paint.outcome(o, f"{o} {n}") for o, n in sorted(self.counts.items()) if n]
        return f"{self.done}/{self.total} case(s)  {'  '.join(parts)}  {now - self.started:.1f} s"

    def _line(self, now: float) -> None:
        print(f"{self.label}: {self._summary(now)}", file=self.stream, flush=True)
        self._last = now

    def _draw(self, now: float) -> None:
        width = max(20, shutil.get_terminal_size((80, 24)).columns - 1)
        slots = max(10, min(30, width // 4))
        filled = slots * self.done // max(self.total, 1)
        bar = "#" * filled + "-" * (slots - filled)
        text = f"[{bar}] {self._summary(now)}"
        self.stream.write("\r\x1b[2K" + text)
        self.stream.flush()
        self._drawn = True
        self._last = now

    def _clear(self) -> None:
        self.stream.write("\r\x1b[2K")
        self.stream.flush()
        self._drawn = False
