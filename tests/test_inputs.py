"""One input path: every source hands typed events to one sink, ``sink(event)``.

GPIO host buttons, keypad keys and the window's host keys are the same
:class:`HostKey` through the same sink; a host key reaches the game once, with
its params; the loop calls the backend's declared hooks and never probes it
(docs/inputs.md).
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from controller.app import config
from controller.games import engine
from controller.inputs.base import ButtonBackend, KeyInput, create_backend
from controller.inputs.gpio import GPIOBackend
from controller.inputs.keyboard import KeyboardBackend
from controller.inputs.clock import EngineClock, ManualClock
from controller.core.effects import Sound
from controller.core.errors import BackendError
from controller.core.events import Host, HostKey, InputStatus, Press, Release
from controller.app.loop import Loop

ROOT = Path(__file__).resolve().parent.parent
MS = 1_000_000


class Journal:
    """Records what the loop makes durable, in order."""

    def __init__(self):
        self.events = []

    def append(self, event):
        self.events.append(event)

    def append_many(self, events):
        self.events.extend(events)


class Spy:
    """Wraps a sink and records every call."""

    def __init__(self, sink=None):
        self.sink = sink
        self.calls = []
        self.lock = threading.Lock()

    def __call__(self, event):
        with self.lock:
            self.calls.append(event)
        if self.sink is not None:
            self.sink(event)


@pytest.fixture
def factory(factory, fake_time):
    """conftest's mock pin factory with its clock pinned (edge times do not move on their own)."""
    return factory


def make_loop(journal=None, **cfg_over):
    cfg = config.build(cfg_over) if cfg_over else config.load()
    clock = ManualClock(1_000 * MS)
    return Loop(cfg, engine.new_game(cfg, 1), clock, journal=journal), clock


def test_a_gpio_host_button_reaches_the_game_once_with_its_params(factory):
    jr = Journal()
    loop, clock = make_loop(jr, mode="brain-ring")
    backend = GPIOBackend(["A", "B"], EngineClock(), loop.enqueue,
                          {"pin_factory": "mock", "host_pins": {"question": "GPIO20"}})
    loop.backend = backend
    backend.start()
    try:
        factory.pin("GPIO20").drive_low()
        # one trip through the queue: the HostKey, nothing queued behind it
        assert loop.queue.qsize() == 1
        batch = loop._take_queued()
        assert batch == [HostKey("question")]
        loop._apply_batch(batch)
        assert loop.queue.empty()
        hosts = [e for e in jr.events if isinstance(e, Host)]
        assert [(h.action, dict(h.params)) for h in hosts] == [("question", {})]
        assert loop.state.question is not None and loop.state.question.number == 1
    finally:
        backend.close()


def test_host_key_params_reach_the_game():
    jr = Journal()
    loop, clock = make_loop(jr, mode="brain-ring")
    loop.enqueue(HostKey("question", {"nominal": 30}))   # as the web host page will send it
    loop.drain()
    assert [(e.action, dict(e.params)) for e in jr.events] == [("question", {"nominal": 30})]
    assert loop.state.question.value == 30


def test_the_journal_keeps_the_order_the_engine_saw_around_a_host_key():
    jr = Journal()
    loop, clock = make_loop(jr)
    loop.enqueue(HostKey("question"))
    loop.drain()
    loop.enqueue(Press("A", clock.now(), clock.now()))
    loop.enqueue(HostKey("withdraw"))
    loop.enqueue(Release("A", clock.now(), clock.now()))
    loop.drain()
    assert [type(e).__name__ + ":" + getattr(e, "action", "") for e in jr.events] == \
        ["Host:question", "Press:", "Host:withdraw", "Release:"]


def test_a_host_key_is_stamped_when_it_came_in_order_with_the_presses():
    jr = Journal()
    loop, clock = make_loop(jr, mode="brain-ring")
    t0 = clock.now()
    loop.enqueue(HostKey("question"))                 # e.g. the keypad, from its thread
    clock.advance(3 * MS)
    loop.enqueue(Press("A", clock.now(), clock.now()))
    clock.advance(5 * MS)                             # the loop gets round to the batch later
    loop.drain()
    host, press = jr.events
    assert host.at == t0 and press.delivered == t0 + 3 * MS
    assert loop.state.question.announced_at == t0     # the question came before the press


def test_keypad_gpio_host_buttons_and_window_keys_share_one_sink_and_one_event_type(factory):
    import evdev  # noqa: F401  (the keypad extra: installed by make test)
    from evdev import InputEvent, ecodes

    from controller.inputs.keypad import Keypad

    loop, clock = make_loop()
    spy = Spy(loop.enqueue)
    loop.enqueue = spy                                  # the loop's keys use its sink too
    loop.backend = KeyboardBackend(["A"], clock, spy, {"keys": {"A": "q"}})
    pad = Keypad(spy)
    gpio = GPIOBackend(["B"], EngineClock(), spy, {"pin_factory": "mock", "host_pins": {"question": "GPIO20"}})
    gpio.start()
    try:
        pad.handle(InputEvent(1000, 0, ecodes.EV_KEY, ecodes.KEY_KPPLUS, 1))   # keypad +: question
        factory.pin("GPIO20").drive_low()                                    # GPIO host button
        loop.key_down(["n"])                                                 # the window's N
    finally:
        gpio.close()
        pad.close()
    assert spy.calls == [HostKey("question")] * 3
    assert {type(e) for e in spy.calls} == {HostKey}


def test_the_keypad_is_wired_to_the_loops_sink_and_reports_itself_typed(tmp_path):
    import evdev  # noqa: F401  (the keypad extra: installed by make test)
    from controller.app.startup import _start_keypad

    loop, clock = make_loop(keypad={"device": str(tmp_path / "no-such-keypad"), "reconnect_s": 5.0})
    kp = _start_keypad(loop.cfg, loop)
    try:
        assert kp is not None and kp.sink == loop.enqueue
        deadline = time.monotonic() + 3.0
        while loop.queue.empty() and time.monotonic() < deadline:
            time.sleep(0.01)
        ev = loop.queue.get_nowait()
        assert isinstance(ev, InputStatus) and ev.source == "keypad" and not ev.connected
    finally:
        kp.close()
    loop._apply_batch([ev])
    assert loop.notice                                   # the host is told the keypad is away


class Bare(ButtonBackend):
    """A backend with only the hooks it must provide."""

    name = "bare"

    def __init__(self, *args):
        super().__init__(*args)
        self.started = False

    def start(self):
        self.started = True


def test_a_backend_with_only_the_required_hooks_runs_a_loop():
    loop, clock = make_loop()
    backend = Bare(["A", "B"], clock, loop.enqueue)
    loop.backend = backend
    loop._effects([Sound("press")])                     # no beeper: the base's beep does nothing
    loop.key_down(["q"])                                # team A's key: not a KeyInput, no press
    loop.key_up(["q"])
    assert loop.queue.empty()
    loop.enqueue(HostKey("question"))
    loop.drain()
    assert loop.state.question is not None
    assert backend.has_lamp("A") is False and backend.stats() == {} and backend.edges_seen() == {}
    with pytest.raises(BackendError):
        backend.press_button("A")


def test_key_driven_backends_declare_it():
    clock = ManualClock(0)
    sink = Spy()
    kb = create_backend("keyboard", ["A"], clock, sink, {"keys": {"A": "q"}})
    assert isinstance(kb, KeyInput)
    assert not isinstance(Bare(["A"], clock, sink), KeyInput)
    kb.press_button("A")
    kb.press_button("A")                                # still held: not a second press
    kb.release_button("A")
    assert [type(e) for e in sink.calls] == [Press, Release]


def test_the_loop_does_not_probe_backends():
    source = (ROOT / "controller" / "app" / "loop.py").read_text(encoding="utf-8")
    probes = re.findall(r"(?:hasattr|getattr)\((?:self\.|loop\.)?backend\b[^)]*\)", source)
    assert probes == []
    assert "when_host" not in source


def test_edge_input_uses_gpiozeros_public_pin_hook(factory):
    source = (ROOT / "controller" / "inputs" / "gpio.py").read_text(encoding="utf-8")
    assert "def _pin_changed" not in source
    backend = GPIOBackend(["A"], EngineClock(), Spy(), {"pin_factory": "mock"})
    try:
        device = backend._inputs["A"]
        assert device.pin.when_changed == device.pin_changed
        factory.pin("GPIO" + str(device.pin.info.name).removeprefix("GPIO")).drive_low()
        assert device.is_active                          # gpiozero's own reading still works
    finally:
        backend.close()
