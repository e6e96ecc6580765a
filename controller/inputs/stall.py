"""How long an input thread was kept from running: the GPIO quiet period in the thread's own time.

The arbiter waits ``[gpio] quiet_ms`` after the latest press callback for an earlier edge whose
callback is still to come (:mod:`controller.core.arbiter`).  That wait is on the wall clock, but
the callback thread can only deliver while it is given a CPU.  On a starved machine (a Pi busy
with other work, a process under a CPU quota) the thread can be ready to run and not run for
several milliseconds: the quiet period passes while the earlier edge's callback waits, and the
later edge wins.

A Python thread runs only while it has both a CPU and the GIL, so the callback is also held up
while the thread holding the GIL waits for a CPU.  Linux counts, per thread, the time it spent
ready to run but waiting for a CPU (``run_delay``, the second field of
``/proc/self/task/<tid>/schedstat``; a process throttled by a cgroup quota counts there too).
:class:`CpuStall` adds that up over the process's Python threads: the backend marks each
callback (:meth:`CpuStall.mark`), and the loop asks how long the Python threads have waited for
a CPU since (:meth:`CpuStall.since_mark`) and holds its decision back by as much.  The quiet
period is then time in which the callback thread could have run, however starved the machine.
The sum over threads is an upper bound (two threads waiting at once count twice): a starved
machine's decision can come later than it needs to, never earlier.

Not counted: a thread of C code (SDL's audio) does not hold the GIL, and waiting for the GIL
itself is bounded by the switch interval while no frame is drawn (see
:meth:`controller.app.loop.Loop.deadline_near`).  Where ``schedstat`` cannot be read (not Linux,
a kernel without ``CONFIG_SCHED_INFO``) the stall reads 0 and the quiet period is the wall
clock's, as before.
"""

from __future__ import annotations

import os
import threading
import time

_UNREAD = object()

FLOOR_NS = 1_000_000
"""A stall shorter than this holds nothing back: ordinary scheduling (a thread woken waits
tens of µs for its CPU), which the margin of ``quiet_ms`` over the callbacks' spacing covers."""


def run_delay_ns(fd: int) -> int | None:
    """The ``run_delay`` of an open ``schedstat`` file, or None if it cannot be read."""
    try:
        fields = os.pread(fd, 128, 0).split()
        return int(fields[1])
    except (OSError, IndexError, ValueError):
        return None


class CpuStall:
    """Time the process's Python threads spent ready to run without a CPU since the latest mark.

    :param window_ns: how long after a mark its stall still counts (the quiet period): a
        deadline later than the mark's window plus its stall is not held back
    :param cap_ns: the longest a decision is held back, however long the stall
    """

    def __init__(self, window_ns: int, cap_ns: int = 1_000_000_000):
        self.window_ns = int(window_ns)
        self.cap_ns = int(cap_ns)
        self._fds: dict[int, int | None] = {}
        self._mark: tuple[dict[int, int], int] | None = None   # ({tid: run_delay}, monotonic ns)
        self._lock = threading.Lock()
        self.available: bool | None = None                    # None until the first mark

    def _fd(self, tid: int, fresh: bool = False) -> int | None:
        """The thread's open ``schedstat`` (kept open: a read is one ``pread``); ``fresh``
        reopens it (the thread id was reused by a new thread)."""
        with self._lock:
            fd = self._fds.get(tid, _UNREAD)
            if fresh and fd not in (_UNREAD, None):
                os.close(fd)
            if fd is _UNREAD or fresh:
                try:
                    fd = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)
                except OSError:
                    fd = None
                self._fds[tid] = fd
        return fd

    def _read(self) -> dict[int, int]:
        delays = {}
        for t in threading.enumerate():
            tid = t.native_id
            if tid is None:
                continue
            fd = self._fd(tid)
            rd = None if fd is None else run_delay_ns(fd)
            if rd is None and fd is not None:   # a file of an ended thread whose id is in use again
                fd = self._fd(tid, fresh=True)
                rd = None if fd is None else run_delay_ns(fd)
            if rd is not None:
                delays[tid] = rd
        if len(self._fds) > 4 * len(delays) + 16:
            self._forget(delays)
        return delays

    def _forget(self, alive: dict[int, int]) -> None:
        """Close the files of threads that have ended."""
        with self._lock:
            for tid in [t for t in self._fds if t not in alive]:
                fd = self._fds.pop(tid)
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass

    def mark(self) -> None:
        """Called on the input thread at each callback: the stall counts from here."""
        delays = self._read()
        self.available = bool(delays)
        self._mark = (delays, time.monotonic_ns()) if delays else None

    def since_mark(self) -> int:
        """Ns the Python threads have waited for a CPU since the latest mark; 0 once the mark's
        window (plus that stall) is over, or when nothing can be read."""
        mark = self._mark
        if mark is None:
            return 0
        then, at = mark
        if time.monotonic_ns() - at > self.window_ns + self.cap_ns:
            return 0
        now = self._read()
        # a thread that started after the mark counts from its start
        stall = sum(max(0, rd - then.get(tid, 0)) for tid, rd in now.items())
        if stall < FLOOR_NS or time.monotonic_ns() - at > self.window_ns + stall:
            return 0
        return min(stall, self.cap_ns)

    def close(self) -> None:
        with self._lock:
            fds, self._fds = self._fds, {}
            self._mark = None
        for fd in fds.values():
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
