"""Fair end to end: the true first presser wins through the real loop, whatever
order and delay the input path delivers the two edges with.

* GPIO: gpiozero's mock pins, delivered the way lgpio's callback thread does
  it -- late by a delay D after the edges, the *later* edge's callback first,
  the earlier one's δ after it -- on a pinned clock, with the loop draining and
  ticking in between as it would while it waits;
* the serial box: the virtual box over a real pty, presses at box times a
  gap apart.

What the mechanism claims (docs/performance.md, controller/core/arbiter.py) is
checked in every combination below; so is its limit, so that the
documentation cannot drift from the code.
"""

from __future__ import annotations

import io
import time

import pytest

from controller.app import config
from controller.games import engine
from controller.inputs.base import create_backend
from controller.inputs.clock import EngineClock, ManualClock
from controller.core.events import NS_PER_MS, HostKey, Press
from controller.app.loop import Loop
from firmware_bridge.virtual_box import VirtualBox

QUIET_MS = config.load()["gpio"]["quiet_ms"]


def gpio_game(fake):
    cfg = config.build({"buttons": "gpio", "gpio": {"pin_factory": "mock"}})
    clock = fake.engine_clock()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=None, out=io.StringIO())
    backend = create_backend("gpio", [t["button"] for t in cfg["teams"]], clock, loop.enqueue, cfg["gpio"])
    loop.backend = backend
    backend.start()
    return cfg, loop, backend


def lgpio_pair(factory, fake, loop, cfg, first, second, t0_ms, gap_us, delay_ms, follow_ms, wake_ms=None):
    """Edges of ``first`` at t0 and ``second`` gap later; both callbacks delivered
    late by ``delay_ms``, the later edge's first, the earlier one's ``follow_ms``
    after it.  The loop drains and ticks before, between (``wake_ms`` after the
    first callback, half of ``follow_ms`` by default) and after them."""
    pins = {b: factory.pin(p) for b, p in cfg["gpio"]["pins"].items()}

    def loop_at(ms):
        fake.ms = ms
        loop.drain()
        loop.tick_if_due()

    fake.ms = t0_ms
    pins[first]._change_state(False)              # the contacts close: the edge's timestamp
    fake.ms = t0_ms + gap_us / 1000
    pins[second]._change_state(False)
    deliver = t0_ms + gap_us / 1000 + delay_ms
    fake.ms = deliver
    pins[second]._call_when_changed()             # lgpio: the later edge's callback first ...
    loop_at(deliver)
    loop_at(deliver + (follow_ms / 2 if wake_ms is None else wake_ms))   # ... the loop wakes up meanwhile ...
    fake.ms = deliver + follow_ms
    pins[first]._call_when_changed()              # ... then the earlier edge's
    loop_at(deliver + follow_ms)
    return deliver + follow_ms


@pytest.mark.parametrize("first,second", [("A", "B"), ("C", "A")])
@pytest.mark.parametrize("gap_us", [1, 10, 1000, 10_000])
@pytest.mark.parametrize("delay_ms", [0.5, 3, 10, 30, 50])
@pytest.mark.parametrize("follow_ms", [0.01, 1, 10])
def test_gpio_later_edge_delivered_first_and_late_the_true_first_presser_wins(
        factory, fake_time, first, second, gap_us, delay_ms, follow_ms):
    cfg, loop, backend = gpio_game(fake_time)
    fake_time.ms = 1000
    loop.enqueue(HostKey("question"))
    loop.drain()
    last = lgpio_pair(factory, fake_time, loop, cfg, first, second, 2000, gap_us, delay_ms, follow_ms)
    fake_time.ms = last + QUIET_MS - 0.1
    loop.tick_if_due()
    assert loop.state.question.holder is None      # still waiting: a callback may follow
    fake_time.ms = last + QUIET_MS + 0.1
    loop.tick_if_due()
    names = [t["button"] for t in cfg["teams"]]
    assert loop.state.question.holder == names.index(first)
    assert backend.lamps[first] == "on" and backend.lamps[second] == "off"
    backend.close()


def test_limit_an_earlier_edge_whose_callback_follows_after_the_quiet_period_is_late(factory, fake_time):
    """The documented limit: the earlier edge's callback more than [gpio] quiet_ms
    after the later one's, while the callback thread was not kept from running,
    arrives after the decision, which is never taken back."""
    cfg, loop, backend = gpio_game(fake_time)
    fake_time.ms = 1000
    loop.enqueue(HostKey("question"))
    loop.drain()
    lgpio_pair(factory, fake_time, loop, cfg, "A", "B", 2000, 10, 3, QUIET_MS + 1, wake_ms=QUIET_MS + 0.5)
    assert loop.state.question.holder == 1         # Бета: named before Альфа's callback ran
    kinds = {r.button: r.kind for r in loop.state.question.presses}
    assert kinds == {"B": "answer", "A": "lockout"}
    assert backend.lamps["B"] == "on" and backend.lamps["A"] == "off"
    backend.close()


def test_a_starved_callback_thread_holds_the_decision_back_and_the_true_first_presser_wins(
        factory, fake_time, monkeypatch):
    """The callback thread waited 10 ms for a CPU after the later edge's callback (a busy
    Pi, a CPU quota): the loop, due to decide at the end of the quiet period, holds the
    decision back by as much, and the earlier edge's callback, 5 ms past the quiet period
    on the wall clock, still takes part."""
    cfg, loop, backend = gpio_game(fake_time)
    monkeypatch.setattr(backend._stall, "since_mark", lambda: 10 * NS_PER_MS)
    fake_time.ms = 1000
    loop.enqueue(HostKey("question"))
    loop.drain()
    last = lgpio_pair(factory, fake_time, loop, cfg, "A", "B", 2000, 10, 3, QUIET_MS + 5, wake_ms=QUIET_MS + 0.5)
    assert loop.state.question.holder is None      # held at the end of the quiet period
    fake_time.ms = last + QUIET_MS + 10.1          # Альфа's own quiet period, held back as well
    loop.tick_if_due()
    assert loop.state.question.holder == 0
    kinds = {r.button: r.kind for r in loop.state.question.presses}
    assert kinds == {"A": "answer", "B": "lockout"}
    assert backend.lamps["A"] == "on" and backend.lamps["B"] == "off"
    backend.close()


def test_the_stall_counts_from_before_the_press_reaches_the_loop(factory, fake_time):
    """The backend marks the callback thread before it queues the press: the loop can never
    face a due decision on that press without a mark to hold it back by (a mark taken after
    the press was queued left a window in which a starved loop decided unheld)."""
    cfg, loop, backend = gpio_game(fake_time)
    marks = []
    sink = backend.sink
    backend.sink = lambda ev: (marks.append((type(ev).__name__, backend._stall._mark)), sink(ev))
    fake_time.ms = 2000
    factory.pin(cfg["gpio"]["pins"]["A"]).drive_low()
    assert marks and marks[0][0] == "Press" and marks[0][1] is not None
    backend.close()


def test_a_starved_loop_decides_from_every_press_delivered_before_its_tick(factory, fake_time):
    """The loop itself was kept from running past the end of the quiet period (it did
    not wake in between): the earlier edge's callback came before the loop's Tick, so
    it takes part, however late that Tick is."""
    cfg, loop, backend = gpio_game(fake_time)
    fake_time.ms = 1000
    loop.enqueue(HostKey("question"))
    loop.drain()
    last = lgpio_pair(factory, fake_time, loop, cfg, "C", "A", 2000, 1, 10, QUIET_MS + 20, wake_ms=1)
    fake_time.ms = last + QUIET_MS + 0.1
    loop.tick_if_due()
    names = [t["button"] for t in cfg["teams"]]
    assert loop.state.question.holder == names.index("C")
    assert backend.lamps["C"] == "on" and backend.lamps["A"] == "off"
    backend.close()


def test_the_loop_stamps_delivery_when_an_event_reaches_its_queue():
    """A press is ``delivered`` when it reaches the loop (under the lock a Tick's
    time is read under), so the queue is in delivery order and no Tick is made
    for a time before an event that had already arrived."""
    cfg = config.load()
    clock = ManualClock(1000 * NS_PER_MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    loop.enqueue(Press("A", 5 * NS_PER_MS, 6 * NS_PER_MS, quiet=3))   # stamped by a backend long ago
    clock.advance(1 * NS_PER_MS)
    loop.enqueue(Press("B", 4 * NS_PER_MS, 1001 * NS_PER_MS))
    a, b = loop.queue.get_nowait(), loop.queue.get_nowait()
    assert (a.at, a.delivered, a.quiet) == (5 * NS_PER_MS, 1000 * NS_PER_MS, 3)
    assert (b.at, b.delivered) == (4 * NS_PER_MS, 1001 * NS_PER_MS)


@pytest.fixture
def serial_game():
    with VirtualBox() as box:
        cfg = config.build({"buttons": "serial", "serial": {"port": box.path, "reconnect_min_s": 0.01}})
        clock = EngineClock()
        loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=None, out=io.StringIO())
        backend = create_backend("serial", [t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                 cfg["serial"])
        loop.backend = backend
        backend.start()
        deadline = time.monotonic() + 5
        while not backend.status().connected and time.monotonic() < deadline:
            time.sleep(0.005)
        assert backend.status().connected
        try:
            yield box, loop
        finally:
            backend.close()


def run_until(loop, predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        loop.step_once(0.005)
    return predicate()


@pytest.mark.parametrize("gap_us", [10, 100, 1000])
def test_serial_box_stream_the_true_first_presser_wins(serial_game, gap_us):
    box, loop = serial_game
    loop.enqueue(HostKey("question"))
    run_until(loop, lambda: loop.state.question is not None)
    for n, (first, second) in enumerate([(2, 0), (1, 3), (0, 1)]):
        if n:
            time.sleep(0.03)                      # past the box's 5 ms debounce of the presses
            for i in range(4):
                box.release(i)
            assert run_until(loop, lambda: not loop.state.held)
            loop.enqueue(HostKey("withdraw"))
            loop.enqueue(HostKey("question"))
            assert run_until(loop, lambda: loop.state.question.open and loop.state.question.holder is None)
        t = box.now_ticks()
        box.press(first, at=t)
        box.press(second, at=t + gap_us)          # 1 MHz box ticks: 1 tick = 1 µs
        assert run_until(loop, lambda: len(loop.state.question.presses) == 2)
        # the decision may fall a little after both are in (the tie wait, an edge stamped by the
        # box clock a little after its delivery on a loaded machine): wait for it, then check it
        assert run_until(loop, lambda: loop.state.question.holder is not None)
        assert loop.state.question.holder == first
        kinds = {r.team: r.kind for r in loop.state.question.presses}
        assert kinds == {first: "answer", second: "lockout"}
