"""Driving an engine that runs as a child process and speaks protocol v1 on stdin/stdout.

`ProcessEngine` starts the engine's command as an argument list (never through a shell) in a
process group of its own, says `hello`, and then serves the whole run with that one process;
the runner restarts it only after a fault. Every request has a deadline (`timeout`, 10 s by
default): one `poll` and usually one `read` per reply, no thread hand-off on the hot path.
On Linux the `poll` also watches a pidfd of the engine, so an engine that exits is seen at
once, even when a process it forked keeps its stdout open; the engine dies with palconf
(PR_SET_PDEATHSIG), and a kill takes its whole tree (palconf.engines.processes).

What counts as a fault, and what it becomes (docs/INTERPRETING.md):

- no reply before the deadline → `EngineTimeout`, and the engine and its tree are killed;
- the engine exits or closes stdout → `EngineCrash`, with its exit status (a reply it wrote
  just before it exited still counts);
- a reply over `max_reply_bytes`, a line that is not JSON, or output nobody asked for (a
  second line, a log line on stdout) → `ProtocolViolation`; the stream can no longer be
  trusted, so the engine is marked `broken` and the runner restarts it;
- a JSON reply of the wrong shape (checked against palconf/schemas/protocol/) →
  `ProtocolViolation` naming the field; the stream is fine, no restart.

stderr is drained all the time by a thread into a bounded buffer (palconf.engines.stderr_buffer);
`take_stderr` hands the latest part to the case's result. The replies' schemas are
palconf.engines.schemas'.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from palconf.core.engine import (
    BYE_GRACE,
    DEFAULT_TIMEOUT,
    BaseEngine,
    EngineCrash,
    EngineFault,
    EngineInfo,
    EngineTimeout,
    ProtocolViolation,
    parse_hello,
)
from palconf.engines.command import EngineCommandError, split_command
from palconf.engines.json_lines import (
    ENCODER,
    decode_line,
    exit_description,
    not_found,
    snippet,
)
from palconf.engines.pipes import PipeIO
from palconf.engines.processes import die_with_parent, exited, kill_tree, open_pidfd, wait_exit
from palconf.engines.schemas import check_message, check_reply_shape
from palconf.engines.stderr_buffer import StderrBuffer

__all__ = ["DEFAULT_TIMEOUT", "EngineCommandError", "ProcessEngine", "split_command"]

MAX_REPLY_BYTES = 1 << 20
STDERR_LIMIT = 32 * 1024
#: How long `close` waits for the engine to answer `bye` and exit before it kills it:
#: `BYE_GRACE` (palconf.core.engine), as a case's `bye` step waits.
#: How long to wait for a process that closed stdout to exit, to report its status.
EXIT_GRACE = 0.5
#: The requests that are a command alone, encoded once (a fuzz campaign sends two per action).
BARE = {cmd: ENCODER.encode({"cmd": cmd}).encode() + b"\n" for cmd in ("observe", "legal")}


# ---------------------------------------------------------------- the engine process


class ProcessEngine(PipeIO, BaseEngine):
    """An engine in a child process, speaking protocol v1 as JSON lines on stdin/stdout."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout: float = DEFAULT_TIMEOUT,
        start_timeout: float | None = None,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        stderr_limit: int = STDERR_LIMIT,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        check_replies: bool = True,
    ) -> None:
        """`timeout`: seconds to wait for each reply. `start_timeout`: for `hello` (the
        process is starting; default the larger of `timeout` and 10 s). `check_replies`:
        check each reply against the protocol schemas (turn off only to measure)."""
        self.argv = split_command(command)
        self.command = command if isinstance(command, str) else shlex.join(self.argv)
        self.timeout = float(timeout)
        self.start_timeout = float(
            start_timeout if start_timeout is not None else max(self.timeout, DEFAULT_TIMEOUT)
        )
        self.max_reply_bytes = max_reply_bytes
        self.stderr_limit = stderr_limit
        self.env = dict(env) if env is not None else None
        self.cwd = cwd
        self.check_replies = check_replies
        self.broken = False  # the process is gone or its stdout cannot be trusted
        self.starts = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._pidfd: int | None = None
        self._stderr: StderrBuffer | None = None
        self._buf = bytearray()
        self._last = "start"  # what the last reply answered, for messages
        self._aborted = False  # `abort`: palconf is stopping, no start any more
        self._kill_lock = threading.Lock()  # `abort` (another thread) against reaping
        #: the requests posted, waiting for their replies: (label, the command whose reply
        #: shape is checked or None, timeout, when posted and then when written, written
        #: whole)
        self._pending: deque[tuple[str, str | None, float, float, bool]] = deque()
        self._answered = 0.0  # when the last reply was read
        self._outbox = bytearray()  # requests posted, not yet written
        self._queued = 0  # how many of them
        self.waited, self.replies = 0.0, 0  # seconds waiting for replies, replies (-j auto)

    # -- lifecycle

    def start(self) -> EngineInfo:
        """Start the process and say hello. A fault here is raised like any other."""
        if self._proc is not None:
            self.close()
        try:
            # A process group of its own, to kill the engine's children with it; not a new
            # session, which with scheduler autogroups would slow every round trip. On Linux
            # the engine dies with palconf, even one killed by SIGKILL (`die_with_parent`:
            # the death signal follows the thread that forks: the main thread, or a worker
            # that closes its engines before it ends, `outlives_its_engines`). A preexec_fn
            # costs the vfork fast path: 2 ms more per start, next to an engine's `hello`.
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                process_group=0,
                close_fds=True,
                env=self.env,
                cwd=self.cwd,
                preexec_fn=die_with_parent(),
            )
        except FileNotFoundError:
            raise EngineCommandError(
                f"cannot start the engine: {not_found(self.argv[0], self.argv)} "
                f"(command: {self.command})"
            ) from None
        except PermissionError:
            raise EngineCommandError(
                f"cannot start the engine: {self.argv[0]!r} is not "
                f"executable (command: {self.command})"
            ) from None
        except OSError as e:
            raise EngineCommandError(
                f"cannot start the engine ({self.command}): {e.strerror or e}"
            ) from None
        assert proc.stdin and proc.stdout and proc.stderr
        with self._kill_lock:
            self._proc = proc
            aborted = self._aborted
        if aborted:  # `abort` came before (or while the process was being started)
            self._kill()
            raise EngineCrash("palconf is stopping: the engine is not started again")
        self.starts += 1
        self.broken = False
        self._buf = bytearray()
        self._last = "start"
        self._pending.clear()
        self._outbox, self._queued = bytearray(), 0
        self._in, self._out = proc.stdin.fileno(), proc.stdout.fileno()
        os.set_blocking(self._in, False)
        self._poll_quiet = select.poll()  # stdout alone, for the check between requests
        self._poll_quiet.register(self._out, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(self._out, select.POLLIN)
        self._poll_in = select.poll()
        self._poll_in.register(self._in, select.POLLOUT)
        # The pidfd wakes the waits for a reply and for room in stdin when the engine exits:
        # a process it forked may hold the pipes open, and then they alone would only say so
        # at the deadline.
        self._pidfd = open_pidfd(proc.pid)
        if self._pidfd is not None:
            self._poll_out.register(self._pidfd, select.POLLIN)
            self._poll_in.register(self._pidfd, select.POLLIN)
        self._stderr = StderrBuffer(proc.stderr, self.stderr_limit)
        reply = self._exchange({"cmd": "hello", "protocol": 1}, "hello", self.start_timeout)
        problem = check_message("hello.response", reply)
        if problem is not None:
            self._fail(f"the engine's reply to `hello` does not follow the protocol: {problem}")
        if reply.get("ok") is False:
            self._fail(
                f"the engine refused `hello` (protocol 1): {reply.get('error')}: "
                f"{reply.get('message', '')}"
            )
        try:
            self.info = parse_hello(reply)
        except EngineFault:
            self._kill()
            raise
        return self.info

    def close(self) -> None:
        """Say `bye` to a healthy engine, give it a moment to exit, then kill its process
        group (its own children too) and release the pipes."""
        proc = self._proc
        if proc is None:
            return
        if not self.broken and not self._exited(proc):
            try:
                self._exchange({"cmd": "bye"}, "bye", min(self.timeout, BYE_GRACE))
                if proc.stdin:
                    proc.stdin.close()  # end of input too, for an engine that waits for it
                self._wait_exit(proc, BYE_GRACE)
            except (EngineFault, OSError):
                pass
        self._kill()

    def abort(self) -> None:
        """Kill the engine's tree where it stands, from another thread (^C or SIGTERM under
        `palconf run -j`): the thread using it sees the exit at once, and closes it."""
        with self._kill_lock:
            self._aborted = True
            self.broken = True
            proc = self._proc
            if proc is not None and proc.returncode is None:
                kill_tree(proc.pid, walk=not exited(proc))

    def core_seconds(self) -> tuple[float, float] | None:
        """Seconds on a core and waiting for one so far (`processes.core_seconds`)."""
        from palconf.engines.processes import core_seconds

        proc = self._proc
        return core_seconds(proc.pid) if proc is not None and proc.returncode is None else None

    def take_stderr(self) -> str:
        return self._stderr.take() if self._stderr else ""

    def wait_exit(self, grace: float) -> bool:
        """Wait up to `grace` seconds for the process to exit by itself (after `bye`)."""
        return self._proc is None or self._wait_exit(self._proc, grace)

    # -- requests

    def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.post(msg)
        reply: dict[str, Any] = self.collect()
        return reply

    def request_line(self, line: bytes, label: str) -> Any:
        """Send one raw line (no newline) and return the decoded reply, unchecked. For
        `palconf smoke`, which sends lines that are not requests on purpose."""
        self.post_line(line, label)
        return self.collect()

    # Pipelining (protocol v1: one reply per request, in order): `post` queues a request
    # without waiting (what is queued is written in one go before the next read), `collect`
    # reads the reply to the oldest request posted. The faults
    # fall to the request they belong to: a reply that does not come, does not parse or has
    # the wrong shape is `collect`'s for that request; an engine that closed its stdin
    # before a later request could be written is seen when that request's turn comes, after
    # the replies it wrote before. The caller bounds what is in flight (the pipe's 64 KiB).

    def post(self, msg: dict[str, Any]) -> int:
        """Write one request; its reply is `collect`ed later, in order. The bytes written."""
        cmd = str(msg.get("cmd"))
        data = BARE.get(cmd) if len(msg) == 1 else None  # `observe`, `legal`: most requests
        if data is None:
            data = ENCODER.encode(msg).encode() + b"\n"
        return self._post(data, cmd, cmd, self.timeout)

    def post_line(self, line: bytes, label: str) -> int:
        """Write one raw line (no newline), its reply collected unchecked."""
        return self._post(line + b"\n", label, None, self.timeout)

    @property
    def in_flight(self) -> int:
        """How many requests posted wait for their reply."""
        return len(self._pending)

    def request_unchecked(self, msg: dict[str, Any]) -> Any:
        """`request` without `checked`, for a caller that calls it when it must."""
        self.post(msg)
        return self.collect(check=False)

    def collect(self, check: bool = True) -> Any:
        """The reply to the oldest request posted (`checked` for a request `post`ed, as it
        is for `request`, unless `check` is off)."""
        cmd = self._pending[0][1] if self._pending else None
        reply = self._receive()
        return reply if cmd is None or not check else self.checked(cmd, reply)

    def checked(self, cmd: str, reply: Any) -> dict[str, Any]:
        """`reply` if it has the protocol's shape of a reply to `cmd`, else ProtocolViolation."""
        if self.check_replies:
            problem = check_reply_shape(cmd, reply)
            if problem is not None:
                raise ProtocolViolation(
                    f"the reply to `{cmd}` does not follow the protocol: {problem}"
                )
        if not isinstance(reply, dict):
            raise ProtocolViolation(
                f"the reply to `{cmd}` is not a JSON object: {snippet(json.dumps(reply).encode())}"
            )
        return reply

    def _exchange(self, msg: dict[str, Any], label: str, timeout: float) -> Any:
        self._post(ENCODER.encode(msg).encode() + b"\n", label, None, timeout)
        return self._receive()

    def _usable(self) -> None:
        if self._proc is None:
            raise EngineCrash("the engine is not running")
        if self.broken:
            raise EngineCrash(f"the engine is not usable since `{self._last}`")

    def _post(self, data: bytes, label: str, cmd: str | None, timeout: float) -> int:
        """Queue a request; what is queued is written in one go before the next read."""
        self._usable()
        if not self._pending:  # (with replies due, what is readable is theirs)
            try:
                self._check_quiet(label)
            except BaseException:  # a fault, or ^C: the stream is out of step
                self.broken = True
                raise
        self._outbox += data
        self._pending.append((label, cmd, timeout, time.monotonic(), True))
        self._queued += 1
        return len(data)

    def _receive(self) -> Any:
        if not self._pending:
            raise RuntimeError("ProcessEngine.collect: no request is waiting for its reply")
        self._usable()
        waiting = time.monotonic()  # (`waited`: for -j auto's "answers in")
        try:
            self._flush()
            label, _, timeout, written, _ = self._pending[0]
            # the deadline runs from when the engine could start on it: written, and the
            # reply before it given (a reply already there is never late: `_read_line`)
            deadline = max(written, self._answered) + timeout
            sent = self._pending[0][4]
            if not sent:  # its stdin was closed when it was written: after the replies before
                self._crashed(f"while receiving `{label}`", closed="stdin")
            line = self._read_line(label, deadline, timeout)
        except BaseException:  # a fault, or ^C while waiting: the reply may still come
            self.broken = True
            self._pending.clear()
            self._outbox.clear()
            raise
        self._pending.popleft()
        self._answered = time.monotonic()
        self.waited, self.replies = self.waited + self._answered - waiting, self.replies + 1
        self._last = label
        try:
            reply = decode_line(line)
        except ValueError as e:
            if not line.strip():
                what = "an empty line"
            elif isinstance(e, json.JSONDecodeError):
                what = f"not JSON ({e.msg} at column {e.colno}): {snippet(line)}"
            elif isinstance(e, UnicodeDecodeError):
                what = f"not UTF-8: {snippet(line)}"
            else:
                what = f"not JSON ({e}): {snippet(line)}"
            self._fail(
                f"the reply to `{label}` is {what}; stdout is for one JSON reply per "
                f"line, logs go to stderr"
            )
        if self._buf and not self._pending:  # what came with the reply, in the same read
            self._fail(
                f"the engine wrote more than one line in reply to `{label}`; the extra: "
                f"{snippet(bytes(self._buf))}; only replies go to stdout, logs go to "
                f"stderr"
            )
        return reply

    # -- faults

    def _fail(self, message: str) -> NoReturn:
        """The stream is out of step: kill the engine and raise a ProtocolViolation."""
        self._kill()
        raise ProtocolViolation(message, stderr=self.take_stderr())

    def _timed_out(self, label: str, what: str, partial: bytes = b"") -> NoReturn:
        self._kill()
        tail = (
            f" (it had written {snippet(partial)} of its reply, no end of line)" if partial else ""
        )
        raise EngineTimeout(f"timeout on `{label}`: {what}{tail}", stderr=self.take_stderr())

    def _crashed(self, when: str, partial: bytes = b"", closed: str = "stdout") -> NoReturn:
        proc = self._proc
        assert proc is not None
        exited = self._wait_exit(proc, EXIT_GRACE)
        self._kill()
        status = proc.returncode if exited else None
        tail = f" (it had written {snippet(partial)} of its reply)" if partial else ""
        raise EngineCrash(
            f"the engine {exit_description(status, closed)} {when}{tail}",
            stderr=self.take_stderr(),
        )

    def _exited(self, proc: subprocess.Popen[bytes]) -> bool:
        return exited(proc)

    def _wait_exit(self, proc: subprocess.Popen[bytes], grace: float) -> bool:
        return wait_exit(proc, self._pidfd if proc is self._proc else None, grace)

    def _kill(self) -> None:
        """Kill the engine, its process group and (on Linux, while the engine lives, so that
        the parent links lead to them) every descendant in whatever group or session; reap
        the engine, close the pipes. Idempotent."""
        self.broken = True
        self._pending.clear()
        self._outbox, self._queued = bytearray(), 0
        proc = self._proc
        if proc is None:
            return
        with self._kill_lock:  # (reaped under the lock: `abort` never signals a reused pid)
            if proc.returncode is None:
                kill_tree(proc.pid, walk=not self._exited(proc))
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot fail
                    pass
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        if self._stderr:
            self._stderr.finish(0.5)
        self._proc = None

    def __repr__(self) -> str:
        return f"ProcessEngine({self.command!r})"
