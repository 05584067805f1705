"""The reading and writing half of `ProcessEngine` (palconf.engines.process): stdin written
without blocking, stdout read with one `poll` and usually one `read` per reply, the pidfd
waking the waits when the engine exits. Each wait ends in one of the engine's faults
(`_fail`, `_timed_out`, `_crashed`, which `ProcessEngine` defines)."""

from __future__ import annotations

import os
import select
import time
from collections import deque
from typing import NoReturn

from palconf.engines.json_lines import snippet


class PipeIO:
    """The pipes of an engine process: what `ProcessEngine` reads and writes through."""

    _in: int
    _out: int
    _buf: bytearray
    _last: str
    max_reply_bytes: int
    _poll_quiet: select.poll
    _poll_out: select.poll
    _poll_in: select.poll
    #: requests posted, waiting for their replies (ProcessEngine: label, command, timeout,
    #: when posted and then when written, written whole), and those not yet written
    _pending: deque[tuple[str, str | None, float, float, bool]]
    _outbox: bytearray
    _queued: int
    broken: bool

    def _fail(self, message: str) -> NoReturn:
        raise NotImplementedError

    def _timed_out(self, label: str, what: str, partial: bytes = b"") -> NoReturn:
        raise NotImplementedError

    def _crashed(self, when: str, partial: bytes = b"", closed: str = "stdout") -> NoReturn:
        raise NotImplementedError

    def flush(self) -> None:
        """Write what is posted now, for the engine to work on while the caller does
        something else (else it is written before the next reply is read)."""
        if not self._outbox:
            return
        try:
            self._flush()
        except BaseException:  # as in `_receive`: the stream is out of step
            self.broken = True
            self._pending.clear()
            self._outbox.clear()
            raise

    def _flush(self) -> None:
        """Write the queued requests, in one write where the pipe has room (one wake-up of
        the engine for a batch). An engine that closed its stdin: each request not written
        is marked so, for `_receive` to raise its crash when its turn comes."""
        if not self._outbox:
            return
        first = len(self._pending) - self._queued
        label, _, timeout, _, _ = self._pending[first]
        data, self._queued = bytes(self._outbox), 0
        self._outbox.clear()
        sent = self._send(data, label, time.monotonic() + timeout)
        written = time.monotonic()  # each one's timeout runs from here (`_receive`)
        pending = self._pending
        for i in range(first, len(pending)):
            label, cmd, timeout, _, _ = pending[i]
            pending[i] = (label, cmd, timeout, written, sent)

    def _check_quiet(self, label: str) -> None:
        """Between a reply and the next request the engine must write nothing to stdout."""
        if not self._buf:
            if not self._poll_quiet.poll(0):
                return  # (an exit meanwhile is seen by the wait for the reply)
            chunk = self._read_chunk()
            if not chunk:
                self._crashed(f"after its reply to `{self._last}`, before `{label}`")
            self._buf += chunk
        junk = bytes(self._buf)
        self._fail(
            f"the engine wrote to stdout without a request (after its reply to "
            f"`{self._last}`): {snippet(junk)}; only replies go to stdout, logs go to "
            f"stderr"
        )

    def _send(self, data: bytes, label: str, deadline: float) -> bool:
        """Write the whole of `data`; stdin is non-blocking, so an engine that stops
        reading costs a timeout, not a hang. False: the engine has closed its stdin (the
        caller says so when the turn of a request not written comes)."""
        view = memoryview(data)
        while True:
            try:
                n = os.write(self._in, view)
            except BlockingIOError:
                n = 0
            except (BrokenPipeError, ConnectionResetError):
                return False
            if n == len(view):
                return True  # the usual case: the pipe had room for all of it at once
            view = view[n:]
            remaining = deadline - time.monotonic()
            events = self._poll_in.poll(remaining * 1000) if remaining > 0 else []
            if not events:
                self._timed_out(label, "reading its request")
            if len(events) == 1 and events[0][0] != self._in:  # the pidfd: it exited
                self._crashed(f"while receiving `{label}`")

    def _only_exit(self, events: list[tuple[int, int]]) -> bool:
        """Did the poll of stdout wake for the pidfd alone: the engine exited, and stdout
        has nothing to read (yet is not closed: a process it forked holds it)? When stdout
        is readable too, it is read first: a reply written just before the exit counts."""
        return len(events) == 1 and events[0][0] != self._out

    def _read_chunk(self) -> bytes:
        try:
            return os.read(self._out, 65536)
        except OSError:
            return b""

    def _read_line(self, label: str, deadline: float, timeout: float) -> bytes:
        buf = self._buf
        if not buf:  # the usual case: the whole reply arrives in one poll and one read
            remaining = deadline - time.monotonic()
            events = self._poll_out.poll(max(remaining, 0) * 1000)  # (a reply there is on time)
            if not events:
                self._timed_out(label, f"no reply within {timeout:g} s")
            if events[0][0] != self._out and len(events) == 1:  # `_only_exit`, inlined
                self._crashed(f"while answering `{label}`")
            chunk = self._read_chunk()
            if not chunk:
                self._crashed(f"while answering `{label}`")
            end = chunk.find(b"\n")
            if end == len(chunk) - 1 and end <= self.max_reply_bytes:
                return chunk[:end]
            buf += chunk
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end >= 0:
                break
            start = len(buf)
            if start > self.max_reply_bytes:
                self._fail(
                    f"the reply to `{label}` is over the size bound of "
                    f"{self.max_reply_bytes} bytes (no end of line after {start} "
                    f"bytes): {snippet(bytes(buf))}"
                )
            remaining = deadline - time.monotonic()
            events = self._poll_out.poll(max(remaining, 0) * 1000)  # (a reply there is on time)
            if not events:
                self._timed_out(label, f"no reply within {timeout:g} s", bytes(buf))
            if self._only_exit(events):
                self._crashed(f"while answering `{label}`", bytes(buf))
            chunk = self._read_chunk()
            if not chunk:
                self._crashed(f"while answering `{label}`", bytes(buf))
            buf += chunk
        if end > self.max_reply_bytes:
            self._fail(
                f"the reply to `{label}` is over the size bound of "
                f"{self.max_reply_bytes} bytes ({end} bytes): "
                f"{snippet(bytes(buf[:end]))}"
            )
        line = bytes(buf[:end])
        del buf[: end + 1]
        return line
