"""The real firmware in simavr, through the host bridge (pty + pyserial + link).

The session fixture builds the firmware and the harness with make; a missing
toolchain is a failure, not a skip (CI runs firmware_bridge/sim/install-deps.sh).
"""

import subprocess
import threading
import time

import pytest

from firmware_bridge import simavr_box
from firmware_bridge.link import SerialLink
from firmware_bridge.simavr_box import CYCLES_PER_TICK, CYCLES_PER_US, SimulatedBox

MS = simavr_box.F_CPU // 1000


@pytest.fixture(scope="session")
def built():
    try:
        simavr_box.build()
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        output = getattr(exc, "stdout", b"") or b""
        pytest.fail("cannot build the firmware/harness (run sh firmware_bridge/sim/install-deps.sh):\n"
                    + output.decode(errors="replace"))


class Rig:
    """A simulated box in step mode plus a link reading it."""

    def __init__(self):
        self.box = SimulatedBox()
        self.events = []
        self.lock = threading.Lock()
        # stepped, the simulated box's clock runs at the simulator's pace, not the wall's: the
        # link's stamp check gets the widest tolerance here (test_wallclock_... checks it at its
        # default against a box whose clock runs with the wall's)
        self.link = SerialLink(self.box.link_path, when_event=self._got, reconnect_min_s=0.01,
                               reconnect_max_s=0.05, time_query_interval_s=0.5, stamp_tolerance_ms=1000.0)
        self.link.start()
        self.run_until(lambda: self.link.connected_event.is_set())

    def _got(self, ev):
        with self.lock:
            self.events.append(ev)

    def run_until(self, predicate, step_ms=2, timeout=60.0):
        """Advance the simulation in small steps until ``predicate()``; wall
        time passes too so the link thread can read and answer."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; link status {self.link.status()}")
            self.box.run_ms(step_ms)
            time.sleep(0.001)

    def wait_events(self, n, **kw):
        self.run_until(lambda: len(self.events) >= n, **kw)
        self.box.run_ms(5)
        time.sleep(0.02)
        with self.lock:
            return list(self.events)

    def close(self):
        self.link.close()
        self.box.close()


@pytest.fixture
def rig(built):
    r = Rig()
    yield r
    r.close()


def test_presses_10us_apart_keep_order_and_gap(rig):
    c = rig.box.cycle + MS
    rig.box.press(3, c)
    rig.box.press(6, c + 10 * CYCLES_PER_US)   # another port, 10 us later
    rig.box.press(1, c + 25 * CYCLES_PER_US)   # same port as input 3, 15 us after that
    events = rig.wait_events(3)
    assert [e.input for e in events] == [3, 6, 1]
    at = {e.input: e.box_ns for e in events}
    assert abs((at[6] - at[3]) - 10_000) <= 1_000
    assert abs((at[1] - at[6]) - 15_000) <= 1_000
    assert all(e.pressed for e in events)


def test_too_close_presses_tie_and_never_invert(rig):
    seen = 0
    for gap in list(range(0, 24)) + [32, 48, 64, 96, 160]:
        for first, second in ((0, 1), (6, 2), (2, 7)):
            c = rig.box.cycle + MS
            rig.box.press(first, c)
            rig.box.press(second, c + gap)
            rig.box.release(first, c + 7 * MS)
            rig.box.release(second, c + 7 * MS)
            rig.box.run_until(c + 14 * MS)
            seen += 4
            events = rig.wait_events(seen)[-4:]
            p = {e.input: e for e in events if e.pressed}
            assert p[second].ticks >= p[first].ticks, f"gap {gap} cycles inverted"
            if gap <= 2:
                assert p[second].ticks == p[first].ticks, f"gap {gap} cycles not a tie"
            if gap >= 160:
                assert abs((p[second].ticks - p[first].ticks) * CYCLES_PER_TICK - gap) <= CYCLES_PER_US * 1


def test_burst_of_1000_presses_arrives_complete_and_in_order(rig):
    c0 = rig.box.cycle + MS
    period = 3 * MS // 2           # a press every 1.5 ms, 8 inputs in turn
    schedule = []
    for k in range(1000):
        i = k % 8
        at = c0 + k * period
        rig.box.press(i, at)
        rig.box.release(i, at + 6 * MS)
        schedule.append((i, at))
    end = c0 + 1000 * period + 8 * MS
    while rig.box.cycle < end:
        rig.box.run_for(10 * MS)
        time.sleep(0.002)
    events = rig.wait_events(2000, timeout=20)
    presses = [e for e in events if e.pressed]
    st = rig.link.status()
    assert st.overflows == 0 and st.lost_events == 0
    assert len(presses) == 1000 and len(events) == 2000
    assert [e.input for e in presses] == [i for i, _ in schedule]
    assert [e.seq for e in events] == list(range(events[0].seq, events[0].seq + 2000))
    ticks = [e.ticks for e in presses]
    assert ticks == sorted(ticks)
    gaps = {round((b - a) * CYCLES_PER_TICK / MS, 3) for a, b in zip(ticks, ticks[1:])}
    assert max(abs(g - 1.5) for g in gaps) <= 0.001   # within 1 us even in a burst


def test_lamp_commands_drive_the_output_pins(rig):
    rig.link.set_lamps(0b1001_0001, 0)
    rig.run_until(lambda: rig.box.lamps() == 0b1001_0001)
    rig.link.set_lamps(0b0000_0001, 0b0100_0000)
    rig.run_until(lambda: rig.box.lamps() & 0b1 and not rig.box.lamps() & 0b1001_0000)
    states = set()
    for _ in range(12):             # blink: ~0.5 s on, ~0.5 s off
        rig.box.run_ms(100)
        states.add(bool(rig.box.lamps() & 0b0100_0000))
    assert states == {True, False}


def test_reset_and_reopen_lose_and_duplicate_nothing(rig):
    c = rig.box.cycle + MS
    rig.box.press(0, c)
    rig.box.release(0, c + 7 * MS)
    rig.wait_events(2)
    boot = rig.link.status().boot_id

    rig.box.reset()                              # the box reboots mid-game
    rig.box.run_ms(30)
    c = rig.box.cycle + MS
    rig.box.press(1, c)
    events = rig.wait_events(3)
    assert (events[2].input, events[2].seq) == (1, 0) and events[2].boot_id != boot
    rig.run_until(lambda: rig.link.status().resets == 1)

    rig.link.reopen()                            # host closes and reopens the port ...
    c = rig.box.cycle + 10
    rig.box.release(1, c)                         # ... while the box is talking
    rig.box.press(2, c + 8 * MS)
    rig.box.run_until(c + 9 * MS)
    rig.box.unplug()                              # then the cable is pulled
    rig.box.press(4, rig.box.cycle + 100)
    rig.box.run_ms(5)
    rig.box.replug()
    events = rig.wait_events(6)
    assert [(e.input, e.pressed) for e in events[2:]] == [(1, True), (1, False), (2, True), (4, True)]
    assert [e.seq for e in events[2:]] == [0, 1, 2, 3]
    st = rig.link.status()
    assert st.lost_events == 0 and st.resets == 1 and st.connects >= 3


def test_unplug_replug_100_times_with_the_real_firmware(rig):
    """The cable pulled and put back 100 times, a press made while it is out each
    time: every press arrives once, in order, and the link is back within 1 s."""
    expected = []
    for cycle in range(100):
        rig.box.unplug()
        c = rig.box.cycle + 100
        rig.box.press(cycle % 8, c)                   # pressed while the cable is out
        rig.box.release(cycle % 8, c + 7 * MS)        # held 7 ms, beyond the 5 ms debounce
        rig.box.run_ms(10)
        expected.append((cycle % 8, True))
        expected.append((cycle % 8, False))
        connects = rig.link.status().connects
        t0 = time.monotonic()
        rig.box.replug()
        rig.run_until(lambda: rig.link.status().connects > connects and rig.link.connected_event.is_set(),
                      step_ms=1, timeout=1.0)
        assert time.monotonic() - t0 < 1.0, f"cycle {cycle}: no reconnect within 1 s"
        rig.wait_events(len(expected))                # what was pressed meanwhile comes through
    events = rig.wait_events(200)
    assert [(e.input, e.pressed) for e in events] == expected     # none lost, none twice, in order
    assert [e.seq for e in events] == list(range(events[0].seq, events[0].seq + 200))
    assert rig.link.status().lost_events == 0


def test_wallclock_firmware_presses_pass_the_links_plausibility_checks_at_their_defaults(built):
    """Issue 24 item 6: the link refuses stamps the box's clock cannot have read and events on
    inputs with no button; the real firmware, its clock running with the wall's, never trips
    either: every press and release arrives, none refused, none late."""
    got = []
    problems = []
    lock = threading.Lock()

    def on_event(ev):
        with lock:
            got.append(ev)

    with SimulatedBox(wallclock=True) as box:
        link = SerialLink(box.link_path, when_event=on_event, when_problem=lambda k, d: problems.append((k, d)),
                          reconnect_min_s=0.01, reconnect_max_s=0.05, time_query_interval_s=0.2,
                          inputs_in_use={0, 1, 2, 3})
        link.start()
        try:
            assert link.connected_event.wait(20), link.status()

            def until(predicate, timeout=20.0):
                deadline = time.monotonic() + timeout
                while not predicate():
                    assert time.monotonic() < deadline, (link.status(), problems)
                    time.sleep(0.002)

            for n in range(24):
                cycle, _ = box.press(n % 4)
                until(lambda: len(got) >= 2 * n + 1)
                until(lambda: box.cycle > cycle + 7 * MS)      # held past the 5 ms debounce
                box.release(n % 4)
                until(lambda: len(got) >= 2 * n + 2)
        finally:
            link.close()
    assert [(e.input, e.pressed) for e in got] == [(n % 4, p) for n in range(24) for p in (True, False)]
    assert problems == [] and not any(e.late for e in got)
    st = link.status()
    assert st.refused == 0 and st.conflicts == 0 and st.lost_events == 0
