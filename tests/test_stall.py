"""controller.inputs.stall: the time the process's Python threads waited for a CPU, read from
Linux's own accounting, with a real competitor for the CPU (a busy process on the same core)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from controller.inputs import stall
from controller.inputs.stall import CpuStall

MS = 1_000_000


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.fixture
def one_busy_core():
    """This thread and a busy process pinned to the same CPU: each gets about half of it."""
    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                           preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    os.sched_setaffinity(0, {cpu})          # this thread only (Linux: pid 0 is the calling thread)
    try:
        spin(0.05)                           # the hog is running
        yield
    finally:
        os.sched_setaffinity(0, before)
        hog.kill()
        hog.wait()


def test_run_delay_is_readable_here():
    """CI's kernel keeps the per-thread accounting the mechanism reads (else the quiet
    period would silently fall back to the wall clock)."""
    s = CpuStall(10 * MS)
    s.mark()
    assert s.available is True
    s.close()


def test_a_thread_sharing_its_cpu_with_a_busy_process_is_counted_as_stalled(one_busy_core):
    s = CpuStall(window_ns=10_000 * MS)
    s.mark()
    spin(0.3)                                # wants the CPU all the time, gets about half of it
    waited = s.since_mark()
    s.close()
    assert 50 * MS < waited < 300 * MS


def test_a_thread_with_a_cpu_of_its_own_is_not_stalled():
    s = CpuStall(window_ns=10_000 * MS)
    s.mark()
    time.sleep(0.05)                         # asleep: not waiting for a CPU
    assert s.since_mark() < 20 * MS         # (a loaded CI machine: a few ms at most, not 50)
    s.close()


def test_the_stall_counts_only_within_its_window(one_busy_core):
    """A stall holds a decision back only while the mark's quiet period (plus the stall)
    lasts: a deadline long after the latest press (a countdown's end) is never held."""
    s = CpuStall(window_ns=20 * MS)
    s.mark()
    spin(0.1)
    time.sleep(0.2)
    assert s.since_mark() == 0
    s.close()


def test_the_stall_of_another_python_thread_counts(one_busy_core):
    """The callback is held up while the thread holding the GIL waits for a CPU: the
    stall of every Python thread counts, not only the marking one's."""
    s = CpuStall(window_ns=10_000 * MS)
    marked = threading.Event()

    def mark_then_sleep():
        s.mark()
        marked.set()

    t = threading.Thread(target=mark_then_sleep)
    t.start()
    marked.wait(5)
    t.join()
    spin(0.3)                                # this thread, not the marking one, waits for the CPU
    assert s.since_mark() > 50 * MS
    s.close()


def test_below_the_floor_nothing_is_held(monkeypatch):
    s = CpuStall(window_ns=10_000 * MS)
    monkeypatch.setattr(s, "_read", lambda: {1: 0})
    s.mark()
    monkeypatch.setattr(s, "_read", lambda: {1: stall.FLOOR_NS - 1})
    assert s.since_mark() == 0
    monkeypatch.setattr(s, "_read", lambda: {1: 3 * MS})
    assert s.since_mark() == 3 * MS
    s.close()
