"""An engine process's stderr, drained all the time by a thread into a bounded buffer.

An engine that logs a lot never blocks on a full pipe; `take` hands the latest part (at most
`limit` bytes, with a note of how much was dropped) to the result of the case at hand.
"""

from __future__ import annotations

import os
import threading
from typing import IO

__all__ = ["StderrBuffer"]


class StderrBuffer:
    """The last `limit` bytes an engine wrote to stderr, filled by a daemon thread."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0
        self.lock = threading.Lock()
        self.thread = threading.Thread(
            target=self._drain, args=(stream,), daemon=True, name="palconf-engine-stderr"
        )
        self.thread.start()

    def _drain(self, stream: IO[bytes]) -> None:
        """Read until end of file, then close the pipe: the thread owns it, so the pipe is
        never closed under a read in progress."""
        fd = stream.fileno()
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self._add(chunk)
        finally:
            stream.close()

    def _add(self, chunk: bytes) -> None:
        with self.lock:
            self.data += chunk
            over = len(self.data) - self.limit
            if over > 0:
                del self.data[:over]
                self.dropped += over

    def take(self) -> str:
        with self.lock:
            data, dropped = bytes(self.data), self.dropped
            self.data.clear()
            self.dropped = 0
        text = data.decode("utf-8", errors="replace")
        if dropped:
            text = f"[… {dropped} earlier bytes of stderr dropped …]\n" + text
        return text

    def finish(self, wait: float) -> None:
        """Give the thread a moment to read what a dead process left in the pipe."""
        self.thread.join(wait)
