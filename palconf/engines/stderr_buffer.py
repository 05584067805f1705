"""An engine process's stderr, drained all the time by a thread into a bounded buffer.

An engine that logs a lot never blocks on a full pipe; `take` hands the latest part (at most
`limit` bytes, with a note of how much was dropped) to the result of the case at hand. `take`
first reads what the pipe already holds, so everything the engine wrote to stderr before its
reply is in that case's part, however far behind the thread is. `finish` stops the thread
even when the pipe stays open (a process the engine started, out of palconf's reach, still
holds it), so that no thread or descriptor is left behind.
"""

from __future__ import annotations

import os
import select
import threading
from typing import IO

__all__ = ["StderrBuffer"]

#: At most this many reads of 64 KiB at a time, so that a flood cannot keep `take` busy.
READS = 64


class StderrBuffer:
    """The last `limit` bytes an engine wrote to stderr, filled by a daemon thread."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0
        # Every read of the pipe happens under the lock (by the thread or by `take`), so the
        # bytes are added in the order they came, and none is ever on its way outside it.
        self.lock = threading.Lock()
        self._stream = stream
        self._fd = stream.fileno()
        os.set_blocking(self._fd, False)  # palconf's end only: the engine's end is its own
        # closing the write end of this pipe (`finish`) wakes the thread's poll: stop
        self._stop_read, self._stop_write = os.pipe()
        self.thread = threading.Thread(target=self._drain, daemon=True, name="palconf-stderr")
        self.thread.start()

    def _drain(self) -> None:
        """Read until end of file or until `finish` says stop, then close the pipe: the
        thread owns it, so the pipe is never closed under a read in progress."""
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        poller.register(self._stop_read, select.POLLIN)
        try:
            while True:
                events = poller.poll()
                if any(ready == self._stop_read for ready, _ in events):
                    return
                with self.lock:
                    if not self._read_available():
                        return
        finally:
            with self.lock:
                self._stream.close()
            os.close(self._stop_read)

    def _read_available(self) -> bool:
        """With the lock held: add what the pipe holds now. False at end of file."""
        for _ in range(READS):
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self.data += chunk
            over = len(self.data) - self.limit
            if over > 0:
                del self.data[:over]
                self.dropped += over
        return True

    def take(self) -> str:
        with self.lock:
            if not self._stream.closed:
                self._read_available()  # at end of file the thread closes the pipe
            data, dropped = bytes(self.data), self.dropped
            self.data.clear()
            self.dropped = 0
        text = data.decode("utf-8", errors="replace")
        if dropped:
            text = f"[… {dropped} earlier bytes of stderr dropped …]\n" + text
        return text

    def finish(self, wait: float) -> None:
        """Give the thread a moment to read what a dead process left in the pipe, then stop
        it. Idempotent."""
        if self._stop_write < 0:
            return
        self.thread.join(wait)
        os.close(self._stop_write)
        self._stop_write = -1
        self.thread.join(1.0)
