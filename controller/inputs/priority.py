"""The press path's place on a busy machine: a real-time priority for the game loop and the
button readers, normal priority for everything the game starts beside them.

On a machine that also runs something busy (a browser or a stream's encoder on the same Pi, a
stuck process), the thread that reads a button's edge and the loop that lights the winner's lamp
would otherwise wait for a CPU like every other process: beside two CPU-bound processes on two
cores, the later press of a race reached the game up to 11 ms after its edge and the lamp 14 ms
(docs/performance.md).  The edge's *stamp* is the kernel's, so the order is never at stake: the
delay is.  ``[process] realtime_priority`` puts the loop's thread under ``SCHED_FIFO`` before the
buttons' backend is made, so the threads it starts inherit it (threads do: lgpio's callback
thread, the gpiod reader, the serial link); the processes the game starts (the projector's
window, the web pages, the festival's outbox) are started inside :func:`children_normal`, so a
crowd of viewers or a frame being drawn never runs at the buttons' priority.  The level stays
below the kernel's interrupt threads (50), which stamp the edges.

Allowed for root, a process with ``CAP_SYS_NICE`` or within ``RLIMIT_RTPRIO`` (the service sets
``LimitRTPRIO``, docs/raspberry-pi.md); refused, the game runs at normal priority and says why
in its log.  Under a CPU quota of a cgroup that has no real-time time of its own the kernel
refuses too, and the quota goes on applying to the game (as it should).
"""

from __future__ import annotations

import os
from contextlib import contextmanager

MAX_LEVEL = 49
"""The kernel's threaded interrupt handlers run at SCHED_FIFO 50: the game stays below them."""


class Raised:
    """The calling thread (and every thread it starts meanwhile) under ``SCHED_FIFO`` at
    ``level`` (1..:data:`MAX_LEVEL`; 0 or less: nothing is changed) until :meth:`restore`, which
    puts back the policy it had (a test or a benchmark runs ``buzzer run`` in its own process,
    whose other work must not stay real-time).  ``problem`` is None when done or not asked
    for, else why it could not be (the system's words: "Operation not permitted")."""

    def __init__(self, level: int):
        self.problem: str | None = None
        self._old = None
        if level <= 0:
            return
        if not hasattr(os, "sched_setscheduler") or not hasattr(os, "SCHED_FIFO"):
            self.problem = "no real-time scheduling on this system"
            return
        try:
            old = (os.sched_getscheduler(0), os.sched_getparam(0))
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(min(level, MAX_LEVEL)))
        except OSError as exc:
            self.problem = exc.strerror or str(exc)
            return
        self._old = old

    def restore(self) -> None:
        if self._old is None:
            return
        policy, param = self._old
        self._old = None
        try:
            os.sched_setscheduler(0, policy, param)
        except OSError:
            pass


@contextmanager
def children_normal():
    """Processes started inside this block start at the normal policy: a child inherits the
    real-time policy of the thread that starts it (the loop's), and would run its interpreter's
    start at the buttons' level -- on a one-core Pi, ahead of the loop.  The calling thread's
    own policy is back after the block (allowed: the limit that let it rise still holds)."""
    try:
        old = (os.sched_getscheduler(0), os.sched_getparam(0))
    except (AttributeError, OSError):
        yield
        return
    if old[0] == os.SCHED_OTHER:
        yield
        return
    try:
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
    except OSError:
        yield
        return
    try:
        yield
    finally:
        try:
            os.sched_setscheduler(0, *old)
        except OSError:
            pass
