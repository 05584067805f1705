"""Transcripts: the exact exchange between palconf and an engine, as JSON lines, to replay.

A transcript file (`palconf explain --transcript FILE`, `palconf fuzz --transcript FILE`):

    {"transcript": {"format": "palconf-transcript", "format_version": 1, "palconf": "0.1.0",
                    "engine": {"name": …, "version": …}, "case": "brave-…", "note": "…"}}
    {"request": {"cmd": "hello", "protocol": 1}, "reply": {"ok": true, "engine": {…}, …}}
    {"request": {"cmd": "setup", "state": {…}}, "reply": {"ok": true}}
    {"request": {"cmd": "act", "action": {…}}, "reply": {"ok": false, "error": "illegal", …}}
    {"request": {"cmd": "observe"}, "fault": "timeout: no reply within 10 s"}
    {"line": "{\"cmd\": \"observe\"", "reply": {"ok": false, "error": "bad-json", …}}

Each request is exactly what was sent (a wire step's line, which need not be JSON, as
`line`) (the same JSON value, the same key order); each reply
is the value that came back, or `fault` when none did. `palconf replay FILE --requests`
prints the requests alone, one per line, so an engine in any language can be fed them with
a pipe: `palconf replay t.jsonl --requests | ./my-engine`.

`palconf replay FILE --engine-cmd CMD` sends the same requests to an engine and shows where
its replies differ from the recorded ones. What is compared: every field of every reply,
JSON types strict, zone lists as multisets (palconf.core.compare), except free text:
`message`, and `hello`'s `engine` (the name and version of whoever answered).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from palconf import __version__
from palconf.core import (
    Diff,
    Engine,
    EngineFault,
    EngineInfo,
    compare,
    json_read,
    send_line,
    terminal_safe,
)
from palconf.core.errors import UsageError
from palconf.core.results_file import is_transcript_header

FORMAT = "palconf-transcript"
FORMAT_VERSION = 1
HELLO = {"cmd": "hello", "protocol": 1}
#: reply fields that are free text, not compared by replay
FREE_TEXT = ("message",)

__all__ = [
    "Entry",
    "Recorder",
    "Transcript",
    "TranscriptError",
    "read_transcript",
    "record_game",
    "reply_diffs",
]


class TranscriptError(UsageError):
    """A transcript file that cannot be read; the message names the file and line."""


@dataclass
class Entry:
    request: Any
    reply: Any = None
    fault: str | None = None
    line: str | None = None  # a line sent as it is (a wire step), in place of `request`

    def to_json(self) -> dict[str, Any]:
        sent = {"request": self.request} if self.line is None else {"line": self.line}
        if self.fault is not None:
            return {**sent, "fault": self.fault}
        return {**sent, "reply": self.reply}

    def sent(self) -> str:
        """What went on the wire, one line (no newline)."""
        if self.line is not None:
            return self.line
        return json.dumps(self.request, separators=(",", ":"))


@dataclass
class Transcript:
    meta: dict[str, Any] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)

    def lines(self) -> Iterator[str]:
        yield json.dumps({"transcript": self.meta}, ensure_ascii=True) + "\n"
        for e in self.entries:
            yield json.dumps(e.to_json(), ensure_ascii=True, separators=(",", ":")) + "\n"

    def write(self, path: Path) -> None:
        from palconf.core.safe_write import write_text_atomic

        write_text_atomic(path, "".join(self.lines()))

    def requests(self) -> Iterator[str]:
        """The requests alone, one JSON line each, as they were sent."""
        for e in self.entries:
            yield e.sent() + "\n"


def meta_for(info: EngineInfo | None, case: str = "", note: str = "") -> dict[str, Any]:
    meta: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "palconf": __version__,
    }
    if info is not None:
        meta["engine"] = {"name": info.name, "version": info.version}
    if case:
        meta["case"] = case
    if note:
        meta["note"] = note
    return meta


class Recorder:
    """An engine that records every exchange of the engine it wraps (an `Engine` itself)."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner
        self.entries: list[Entry] = []

    @property
    def info(self) -> EngineInfo:
        return self.inner.info

    @info.setter
    def info(self, value: EngineInfo) -> None:
        self.inner.info = value

    @property
    def broken(self) -> bool:
        return bool(getattr(self.inner, "broken", False))

    def start(self) -> EngineInfo:
        try:
            info = self.inner.start()
        except EngineFault as e:
            self.entries.append(Entry(dict(HELLO), fault=f"{e.outcome}: {e.message}"))
            raise
        self.entries.append(Entry(dict(HELLO), info.hello or None))
        return info

    def request(self, msg: dict[str, Any]) -> Any:
        try:
            reply = self.inner.request(msg)
        except EngineFault as e:
            self.entries.append(Entry(msg, fault=f"{e.outcome}: {e.message}"))
            raise
        self.entries.append(Entry(msg, reply))
        return reply

    def request_line(self, line: bytes, label: str) -> Any:
        """A line sent as it is (palconf.core.send_line), recorded as `line`."""
        text = line.decode("utf-8", errors="replace")
        try:
            reply = send_line(self.inner, line, label)
        except EngineFault as e:
            self.entries.append(Entry(None, fault=f"{e.outcome}: {e.message}", line=text))
            raise
        self.entries.append(Entry(None, reply, line=text))
        return reply

    def restart(self) -> None:
        self.close()
        self.start()

    def take_stderr(self) -> str:
        return self.inner.take_stderr()

    def close(self) -> None:
        self.inner.close()

    def transcript(self, case: str = "", note: str = "") -> Transcript:
        info = getattr(self.inner, "info", None)
        return Transcript(meta_for(info, case, note), list(self.entries))


def read_transcript(path: Path) -> Transcript:
    text = json_read.read_text(path, TranscriptError, "a transcript")
    out = Transcript()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json_read.loads(line)
        except ValueError as e:
            raise TranscriptError(f"{path}:{n}: not JSON: {terminal_safe(e, 300)}") from None
        if not isinstance(obj, dict):
            raise TranscriptError(f"{path}:{n}: a line must be a JSON object")
        if is_transcript_header(obj):
            if n != 1 or not isinstance(obj["transcript"], dict):
                raise TranscriptError(f"{path}:{n}: the `transcript` line comes first")
            if obj["transcript"].get("format") != FORMAT:
                raise TranscriptError(f"{path}:{n}: not a palconf transcript (format)")
            out.meta = obj["transcript"]
            continue
        sent = isinstance(obj.get("line"), str) or "request" in obj
        if not sent or not ({"reply", "fault"} & set(obj)):
            keys = terminal_safe(", ".join(sorted(obj)), 2000)
            raise TranscriptError(
                f"{path}:{n}: a line needs `request` and `reply` (or `fault`; a line sent as "
                f"it is has `line` for `request`); has {keys or 'nothing'}"
            )
        sent_line = obj.get("line")
        if isinstance(sent_line, str) and ("\n" in sent_line or "\r" in sent_line):
            raise TranscriptError(f"{path}:{n}: `line` is one line: no line break in it")
        fault = obj.get("fault")
        out.entries.append(
            Entry(
                obj.get("request"),
                obj.get("reply"),
                None if fault is None else str(fault),
                sent_line if isinstance(sent_line, str) else None,
            )
        )
    if not out.entries:
        raise TranscriptError(f"{path}: no request in the file")
    return out


def _comparable(request: Any, reply: Any) -> Any:
    if not isinstance(reply, dict):
        return reply
    kept = {k: v for k, v in reply.items() if k not in FREE_TEXT}
    if isinstance(request, dict) and request.get("cmd") == "hello":
        kept.pop("engine", None)
    return kept


def reply_diffs(request: Any, recorded: Any, reply: Any) -> list[Diff]:
    """Where `reply` differs from the `recorded` one (free text left out)."""
    return compare(_comparable(request, recorded), _comparable(request, reply), subset=False)


def record_game(
    engine: Engine, state: Any, actions: list[Any], *, case: str = "", note: str = ""
) -> Transcript:
    """Play a game on `engine` (started again, from `hello`) the way the fuzzer compares it:
    `setup`, `observe` (and `legal` if offered), then for each action `act`, `observe`
    (and `legal`); record it all. A fault ends the game; it is in the transcript."""
    recorder = Recorder(engine)
    recorder.close()
    try:
        recorder.start()
        offers_legal = recorder.info.offers_legal
        requests: list[dict[str, Any]] = [{"cmd": "setup", "state": state}]
        for action in [None, *actions]:
            if action is not None:
                requests.append({"cmd": "act", "action": action})
            requests.append({"cmd": "observe"})
            if offers_legal:
                requests.append({"cmd": "legal"})
            for request in requests:
                recorder.request(request)
            requests = []
    except EngineFault:
        pass
    return recorder.transcript(case, note)
