"""`palconf replay FILE`: send a transcript's requests to an engine; show where its replies
differ from the recorded ones (palconf/transcript.py says what is compared)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from palconf.commands import add_display_options
from palconf.core import MISSING, Engine, EngineFault, send_line, terminal_safe
from palconf.engines.options import add_engine_options, make_engine
from palconf.explain.transcript import Entry, read_transcript, reply_diffs
from palconf.running.terminal import Paint, use_color

SHOW = 160  # characters of a request or reply shown on one line


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help="send a transcript's requests to an engine and show where the replies differ",
        description="Send the requests of a transcript (palconf explain --transcript, "
        "palconf fuzz --transcript) to an engine, one by one, and compare each reply with "
        "the recorded one (free text, `message` and hello's `engine`, left out). Exit 0 "
        "when every reply is the same, 1 when one differs or the engine broke, 2 for a "
        "transcript that cannot be read or an engine that cannot be started. With "
        "--requests, print only the requests, one JSON line each, for a pipe: "
        "palconf replay t.jsonl --requests | ./my-engine",
    )
    p.add_argument("transcript", type=Path, metavar="FILE", help="the transcript (JSON lines)")
    p.add_argument(
        "--requests",
        action="store_true",
        help="print the requests alone (one JSON line each) and exit",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="show every reply, same or not")
    add_engine_options(p, required=False)
    add_display_options(p)
    p.set_defaults(func=main)


def _short(value: Any) -> str:
    if value is MISSING:
        return "(none)"
    return terminal_safe(json.dumps(value, separators=(",", ":"), ensure_ascii=False), SHOW)


def _send(engine: Engine, request: Any) -> Any:
    """The engine's reply to `request`, unchecked (a process engine: the raw line)."""
    raw = getattr(engine, "request_line", None)
    if raw is not None:
        label = request.get("cmd", "?") if isinstance(request, dict) else "?"
        return raw(json.dumps(request, separators=(",", ":")).encode(), str(label))
    return engine.request(request)


def main(args: argparse.Namespace) -> int:
    transcript = read_transcript(args.transcript)  # a TranscriptError is a UsageError
    if args.requests:
        sys.stdout.writelines(transcript.requests())
        return 0
    paint = Paint(use_color(sys.stdout, args.color))
    engine = make_engine(args)
    recorded = transcript.meta.get("engine") or {}
    print(
        f"palconf replay: {len(transcript.entries)} request(s) recorded from "
        f"{terminal_safe(recorded.get('name', '?'), 100)} "
        f"{terminal_safe(recorded.get('version', ''), 50)}"
        + (
            f" (case {terminal_safe(transcript.meta['case'], 100)})"
            if "case" in transcript.meta
            else ""
        )
    )
    differ: list[int] = []
    broke = ""
    started = False
    try:
        for n, entry in enumerate(transcript.entries, start=1):
            try:
                reply = _replay_one(engine, entry, started)
            except EngineFault as e:
                broke = f"{e.outcome}: {e.message}"
                same = entry.fault is not None
                _show(n, entry, paint, same, [f"the engine broke: {terminal_safe(broke, 500)}"])
                if not same:
                    differ.append(n)
                break
            started = True
            if entry.fault is not None:
                differ.append(n)
                _show(
                    n,
                    entry,
                    paint,
                    False,
                    [f"recorded: {terminal_safe(entry.fault, 500)}; now: {_short(reply)}"],
                )
                continue
            diffs = reply_diffs(entry.request, entry.reply, reply)
            if diffs:
                differ.append(n)
            if diffs or args.verbose:
                lines = [
                    f"{terminal_safe(d.path, SHOW) or '(the reply)'}: recorded "
                    f"{_short(d.expected)}, now "
                    f"{_short(d.observed)}"
                    for d in diffs
                ]
                _show(n, entry, paint, not diffs, lines)
    finally:
        engine.close()
    name = terminal_safe(getattr(getattr(engine, "info", None), "name", "the engine"), 100)
    if not differ:
        print(f"palconf replay: {paint('same', 'green')}: {name} gave the recorded replies")
        return 0
    print(
        f"palconf replay: {paint('DIFFERS', 'red')}: {len(differ)} of "
        f"{len(transcript.entries)} replies differ from the recorded ones (first at "
        f"request {differ[0]})" + ("; the engine broke" if broke else "")
    )
    return 1


def _replay_one(engine: Engine, entry: Entry, started: bool) -> Any:
    request = entry.request
    if entry.line is not None:  # a line sent as it is
        if not started:
            engine.start()
        return send_line(engine, entry.line.encode("utf-8"), "a recorded line")
    if isinstance(request, dict) and request.get("cmd") == "hello":
        if started:
            engine.restart()
        else:
            engine.start()
        return engine.info.hello
    if not started:
        engine.start()
    return _send(engine, request)


def _show(n: int, entry: Entry, paint: Paint, same: bool, lines: list[str]) -> None:
    mark = paint("same", "green") if same else paint("DIFFERS", "red")
    sent = _short(entry.request) if entry.line is None else terminal_safe(entry.line, SHOW)
    print(f"  {n:>3} {mark} {sent}")
    for line in lines:
        print(f"        {line}")
