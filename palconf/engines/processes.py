"""The operating system's side of engine processes: seeing at once that one exited, killing
its whole tree, and not letting it outlive palconf. Linux first; elsewhere each part degrades
to nothing, and the adapter behaves as it did without it (docs/INTERPRETING.md, "Engine
processes and cleanup").

- `open_pidfd(pid)`: a descriptor that becomes readable when the process exits (Linux 5.3
  `pidfd_open`), so that one `poll` waits for a reply *or* the exit; `exited` and
  `wait_exit` ask without reaping.
- `kill_tree(pid)`: SIGKILL a child process, its process group, and every descendant found by
  the parent links in /proc, whatever process group or session it moved to.
- `die_with_parent()`: a `preexec_fn` asking the kernel to SIGKILL the engine when palconf
  dies, even by SIGKILL (PR_SET_PDEATHSIG); `outlives_its_engines()` marks a worker thread
  (`palconf run -j`, `palconf mutants -j`) whose engines may have it too.
- `become_subreaper()` and `kill_adopted()`: the `palconf` command adopts the orphaned
  descendants of its engines (PR_SET_CHILD_SUBREAPER) and kills them when it exits.

Only the standard library; `ctypes` is loaded on first use.
"""

from __future__ import annotations

import functools
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "become_subreaper",
    "core_seconds",
    "cpu_count",
    "descendants",
    "die_with_parent",
    "exited",
    "is_subreaper",
    "kill_adopted",
    "kill_tree",
    "open_pidfd",
    "outlives_its_engines",
    "wait_exit",
]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
#: How often `kill_tree` looks again for processes forked while it was looking.
WALKS = 8


def open_pidfd(pid: int) -> int | None:
    """A pidfd of the process (readable once it has exited), or None where there is none:
    not Linux, a kernel before 5.3, a sandbox refusing the call."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None:
        return None
    try:
        fd: int = pidfd_open(pid)
    except OSError:
        return None
    return fd


def exited(proc: subprocess.Popen[bytes]) -> bool:
    """Has the process exited? Does not reap it: its pid, and so its process group id, stay
    reserved until it has been killed (`kill_tree`) and waited for."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def wait_exit(proc: subprocess.Popen[bytes], pidfd: int | None, grace: float) -> bool:
    """Wait up to `grace` seconds for the process to exit, without reaping it: on its pidfd
    where there is one (woken at the exit), else by looking again and again."""
    if pidfd is not None and not exited(proc):
        waiting = select.poll()
        waiting.register(pidfd, select.POLLIN)
        waiting.poll(grace * 1000)
        return exited(proc)
    deadline = time.monotonic() + grace
    delay = 0.001
    while not exited(proc):
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    return True


# ---------------------------------------------------------------- the tree, from /proc


def _parents() -> dict[int, int]:
    """pid → parent pid of every process /proc shows (empty without /proc)."""
    table: dict[int, int] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
            # "pid (comm) state ppid …": comm may hold spaces and parentheses
            table[int(name)] = int(data[data.rfind(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
    return table


def descendants(pid: int, table: dict[int, int] | None = None) -> set[int]:
    """The children of `pid`, their children, and so on (not `pid` itself)."""
    table = _parents() if table is None else table
    children: dict[int, list[int]] = {}
    for child, parent in table.items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found and child != pid:
                found.add(child)
                todo.append(child)
    return found


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _frozen_tree(root: int) -> set[int]:
    """Stop the descendants of `root` as they are found (a stopped process cannot fork), and
    look again until a look finds nothing new; the set found."""
    seen: set[int] = set()
    for _ in range(WALKS):
        new = descendants(root) - seen
        if not new:
            break
        _signal(new, signal.SIGSTOP)
        seen |= new
    return seen


def kill_tree(pid: int, *, walk: bool = True) -> set[int]:
    """SIGKILL the process `pid` (a child of this process, not yet reaped, so that its pid
    and process group id are still its own), the process group it leads, and (with `walk`,
    where /proc exists) every descendant, in whatever group or session. The process and its
    group are stopped first, so that nothing forks while the tree is walked. Returns the
    descendants found. A process that left the tree before (its parent exited, so it was
    re-parented away) is not found: see `kill_adopted`."""
    found: set[int] = set()
    if walk and os.path.isdir("/proc"):
        _signal([pid], signal.SIGSTOP)
        _killpg(pid, signal.SIGSTOP)
        found = _frozen_tree(pid)
    _killpg(pid, signal.SIGKILL)
    _signal([pid, *found], signal.SIGKILL)  # the engine too, had it left its own group
    return found


# ---------------------------------------------------------------- prctl (Linux)


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl, loaded once (in the parent: never in a forked child), or None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        fn: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None
    return fn


def _ulong(value: int) -> Any:
    import ctypes

    return ctypes.c_ulong(value)


#: Per thread: set by `outlives_its_engines` in a thread that closes every engine it starts.
_THREAD = threading.local()


def outlives_its_engines() -> None:
    """Say that the calling thread closes every engine it starts before it ends (a worker of
    `palconf run -j`, palconf.running.parallel, or of `palconf mutants -j` with an engine
    command), so that `die_with_parent` may arm the engines it starts: they then die with
    palconf however palconf ends, as the main thread's do."""
    _THREAD.outlives_its_engines = True


def die_with_parent() -> Callable[[], None] | None:
    """A `preexec_fn` for an engine: the kernel SIGKILLs it when the thread that forked it
    exits (PR_SET_PDEATHSIG), which for palconf means when palconf dies, even by SIGKILL.
    None (no preexec_fn) off Linux, and in a thread other than the main thread that has not
    said `outlives_its_engines`: the death signal follows the forking *thread*, so an engine
    started from a short-lived thread would be killed when that thread ends. palconf starts
    its engines from main threads (`palconf run`, `smoke`, `fuzz`, `perft`, the pytest
    plugin, the forked workers of `palconf mutants -j`) and from worker threads that close
    them before they end (`palconf run -j`, `palconf mutants -j` with an engine command)."""
    prctl = _prctl()
    if prctl is None:
        return None
    if threading.current_thread() is not threading.main_thread() and not getattr(
        _THREAD, "outlives_its_engines", False
    ):
        return None
    parent = os.getpid()
    args = (PR_SET_PDEATHSIG, _ulong(int(signal.SIGKILL)), _ulong(0), _ulong(0), _ulong(0))

    def preexec() -> None:  # in the child, between fork and exec
        prctl(*args)
        if os.getppid() != parent:  # palconf died before the kernel was told: too late
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def become_subreaper() -> bool:
    """Make this process a child subreaper (Linux 3.4): orphans among its descendants are
    re-parented to it, not to init, so that `kill_adopted` can find them. False where
    that cannot be done."""
    prctl = _prctl()
    if prctl is None:
        return False
    return prctl(PR_SET_CHILD_SUBREAPER, _ulong(1), _ulong(0), _ulong(0), _ulong(0)) == 0


def is_subreaper() -> bool:
    prctl = _prctl()
    if prctl is None:
        return False
    import ctypes

    value = ctypes.c_int(0)
    prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(value), _ulong(0), _ulong(0), _ulong(0))
    return value.value != 0


def kill_adopted(grace: float = 2.0) -> set[int]:
    """Kill every process still under this one, and reap it. For the end of the `palconf`
    command: by then it has waited for everything it started itself, so what is left was
    adopted (as a subreaper) or leaked. Returns the pids killed."""
    if not os.path.isdir("/proc"):
        return set()
    found = _frozen_tree(os.getpid())
    _signal(found, signal.SIGKILL)
    pending = set(found)
    deadline = time.monotonic() + grace
    while pending:  # our dead children, and the descendants re-parented to us as they died
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            pending.discard(pid)
            continue
        pending = {p for p in pending if os.path.exists(f"/proc/{p}")}
        if time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    return found


def cpu_count() -> int:
    """The cores this process may run on (`sched_getaffinity`), else `os.cpu_count()`."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def core_seconds(pid: int | None = None) -> tuple[float, float] | None:
    """The seconds the threads of process `pid` have been on a core, and the seconds they
    were runnable but waiting for one, from /proc/PID/task/*/schedstat; with no `pid`, the
    calling thread's alone. None where the kernel does not say (no /proc, no schedstats) or
    the process is gone. `palconf run -j auto` (palconf.running.auto_jobs) tells by them an
    engine that computes from one that waits, and either from a machine busy elsewhere."""
    try:
        if pid is None:
            paths = ["/proc/thread-self/schedstat"]
        else:
            paths = [f"/proc/{pid}/task/{t}/schedstat" for t in os.listdir(f"/proc/{pid}/task")]
        on_core = waiting = 0
        for path in paths:
            try:
                with open(path, "rb") as f:
                    fields = f.read().split()
            except FileNotFoundError:  # a thread that ended meanwhile
                continue
            on_core, waiting = on_core + int(fields[0]), waiting + int(fields[1])
        return on_core / 1e9, waiting / 1e9
    except (OSError, ValueError, IndexError):
        return None
