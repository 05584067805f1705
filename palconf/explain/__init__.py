"""One case looked at closely: step by step beside the oracle, as a board, as a transcript.

- `side_by_side`: one case played on an engine and on the oracle, every step's answers side
  by side (`palconf explain`);
- `board`: a STATE drawn as text;
- `transcript`: recording an exchange with an engine, reading it back and comparing replies
  (`palconf explain --transcript`, `palconf fuzz --transcript`, `palconf replay`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from palconf.core.lazy import lazy_face

if TYPE_CHECKING:
    from palconf.explain.board import render_board
    from palconf.explain.side_by_side import StepView, explain_steps
    from palconf.explain.transcript import (
        Recorder,
        Transcript,
        TranscriptError,
        read_transcript,
        reply_diffs,
    )

_EXPORTS = {
    "StepView": ".side_by_side",
    "explain_steps": ".side_by_side",
    "render_board": ".board",
    "Recorder": ".transcript",
    "Transcript": ".transcript",
    "TranscriptError": ".transcript",
    "read_transcript": ".transcript",
    "reply_diffs": ".transcript",
}
__all__ = [
    "Recorder",
    "StepView",
    "Transcript",
    "TranscriptError",
    "explain_steps",
    "read_transcript",
    "render_board",
    "reply_diffs",
]
__getattr__, __dir__ = lazy_face(__name__, _EXPORTS)
