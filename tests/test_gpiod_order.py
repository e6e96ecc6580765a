"""The gpiod backend's ordering of the kernel's numbered edges (controller/inputs/gpiochip.py),
on the host with a stand-in line request (tests/test_phone_teams.py's fake chip) and a manual
clock: an edge whose number was given up as lost still reaches the game."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import gpiod
import pytest

from controller.app import config
from controller.core.events import NS_PER_MS, InputStatus, Press
from controller.inputs import gpiochip
from controller.app.startup import make_backend
from controller.inputs.clock import ManualClock

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_phone_teams import fake_chip  # noqa: E402,F401  (the fixture)

MS = NS_PER_MS


def edge(offset: int, seq: int, line_seq: int, at_ns: int):
    """A falling edge (a press on the pulled-up line) as libgpiod v2 gives it."""
    return SimpleNamespace(line_offset=offset, event_type=gpiod.EdgeEvent.Type.FALLING_EDGE,
                           timestamp_ns=at_ns, global_seqno=seq, line_seqno=line_seq)


@pytest.fixture
def backend(fake_chip):  # noqa: F811
    cfg = config.load()
    cfg["buttons"] = "gpiod"
    clock = ManualClock(1_000 * MS)
    seen: list = []
    b = make_backend(cfg, clock, seen.append)
    b.start()
    yield b, clock, seen
    b.close()


def test_an_edge_read_after_its_number_was_given_up_is_a_press_not_a_silent_loss(backend):
    """A's edge is numbered 1 and B's 2, 10 µs later, but B's line thread puts its edge in the
    buffer first and A's comes more than HOLE_WAIT_NS later (a starved machine): B is taken once
    the wait is over and number 1 counted lost; then A's edge comes after all. It must reach the
    game as A's press with its own, earlier stamp, and not stay counted as lost."""
    b, clock, seen = backend
    a_line, b_line = b._line_of["A"], b._line_of["B"]
    t0 = clock.origin_ns + clock.now()
    with b._lock:
        b._events([edge(b_line, 2, 1, t0 + 10_000)])
    clock.advance(gpiochip.HOLE_WAIT_NS + MS)
    with b._lock:
        b._drain_held()                       # the wait is over: B taken, number 1 given up
    presses = [e for e in seen if isinstance(e, Press)]
    assert [p.button for p in presses] == ["B"]
    assert any(isinstance(e, InputStatus) and e.source == "gpio-overflow" for e in seen)
    assert b.lost_edges == 1
    with b._lock:
        b._events([edge(a_line, 1, 1, t0)])   # A's edge, late
    presses = [e for e in seen if isinstance(e, Press)]
    assert [p.button for p in presses] == ["B", "A"], seen
    assert presses[1].at == clock.from_monotonic_ns(t0) < presses[0].at   # its own stamp: the earlier
    assert presses[1].quiet > 0 and not presses[1].stream   # the race around the gap waits for it
    assert b.lost_edges == 0 and not any(b.lost_by_line.values())


def test_a_number_the_kernel_really_dropped_stays_lost_and_an_old_number_is_not_taken_twice(backend):
    b, clock, seen = backend
    a_line, b_line = b._line_of["A"], b._line_of["B"]
    t0 = clock.origin_ns + clock.now()
    with b._lock:
        b._events([edge(a_line, 1, 1, t0)])
        b._events([edge(a_line, 1, 1, t0)])   # the same number again (never taken twice)
        b._events([edge(b_line, 3, 1, t0 + MS)])
    clock.advance(gpiochip.HOLE_WAIT_NS + MS)
    with b._lock:
        b._drain_held()
    assert [e.button for e in seen if isinstance(e, Press)] == ["A", "B"]
    assert b.lost_edges == 1                   # number 2 never comes
