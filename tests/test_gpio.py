"""The GPIO backend on gpiozero's mock pin factory, with a pinned mock clock.

Edges are driven on MockPins (the same objects gpiozero's lgpio pins are
replaced by), their ``ticks`` come from a clock the test sets, and the events
the backend hands to its sink are checked.
"""

from __future__ import annotations

import threading
import time

import pytest

from controller.inputs import create_backend
from controller.inputs.gpio import GPIOBackend
from controller.inputs.clock import EngineClock
from controller.core.errors import ConfigError
from controller.core.events import HostKey, Press, Release

MS = 1_000_000


class Sink:
    def __init__(self):
        self.events = []
        self.lock = threading.Lock()

    def __call__(self, event):
        with self.lock:
            self.events.append(event)

    def wait_for(self, n, timeout=2.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            with self.lock:
                if len(self.events) >= n:
                    return list(self.events)
            time.sleep(0.002)
        return list(self.events)


def near(at_ns, ms):
    """Edge times go through float seconds (as gpiozero passes them): allow 1 µs."""
    return abs(at_ns - ms * MS) < 1000


@pytest.fixture
def rig(factory, fake_time):
    """A started 4-button backend on mock pins; yields (backend, sink, pins, fake)."""
    sink = Sink()
    backend = GPIOBackend("ABCD", fake_time.engine_clock(), sink,
                          {"pin_factory": "mock", "blink_ms": 10.0})
    pins = {b: factory.pin(p) for b, p in backend.options["pins"].items()}
    backend.start()
    yield backend, sink, pins, fake_time
    backend.close()


def test_presses_carry_edge_ticks_even_when_delivered_in_reverse(rig):
    backend, sink, pins, fake = rig
    # A's contacts close at 10 ms but its callback is held back (as lgpio can
    # when two edges arrive in one wake-up); B's edge at 12 ms is delivered first.
    fake.ms = 10.0
    pins["A"]._change_state(False)        # the edge happens, no callback yet
    fake.ms = 12.0
    pins["B"].drive_low()                 # B delivered at once
    fake.ms = 13.0
    pins["A"]._call_when_changed()        # A's late delivery, with its own ticks
    events = sink.events
    assert [e.button for e in events] == ["B", "A"]
    b, a = events
    assert isinstance(a, Press) and isinstance(b, Press)
    assert near(a.at, 10) and near(b.at, 12)
    assert a.at < b.at                                # the first edge is A's ...
    assert near(a.delivered, 13) and a.delivered > b.delivered   # ... though it came last
    assert min(events, key=lambda e: e.at).button == "A"


def test_bounce_storm_on_one_button_while_another_presses(rig):
    backend, sink, pins, fake = rig
    fake.ms = 20.0
    pins["A"].drive_low()
    # A chatters every 0.2 ms for 3 ms; B presses cleanly in the middle
    level = False
    for i in range(1, 17):
        fake.ms = 20.0 + 0.2 * i
        level = not level
        (pins["A"].drive_high if level else pins["A"].drive_low)()
        if i == 5:
            pins["B"].drive_low()
    assert not level  # A rests pressed
    fake.ms = 40.0
    backend.poll()
    assert [(type(e), e.button) for e in sink.events] == [(Press, "A"), (Press, "B")]
    assert near(sink.events[0].at, 20.0) and near(sink.events[1].at, 21.0)
    stats = backend.stats()
    assert stats["A"].press_bounces == 16 and stats["A"].edges == 17
    assert stats["B"].press_bounces == 0 and stats["B"].edges == 1
    # releases, A with a little bounce of its own
    fake.ms = 300.0
    pins["A"].drive_high()
    fake.ms = 300.5
    pins["A"].drive_low()
    fake.ms = 301.0
    pins["A"].drive_high()
    fake.ms = 310.0
    pins["B"].drive_high()
    assert [(type(e), e.button) for e in sink.events[2:]] == [(Release, "A"), (Release, "B")]
    assert near(sink.events[2].at, 300.0) and near(sink.events[3].at, 310.0)
    assert backend.stats()["A"].release_bounces == 2
    assert backend.edges_seen() == {"A": 20, "B": 2, "C": 0, "D": 0}


def test_tap_shorter_than_debounce_window_is_released_with_its_edge_time(rig):
    backend, sink, pins, fake = rig
    fake.ms = 50.0
    pins["C"].drive_low()
    fake.ms = 52.0
    pins["C"].drive_high()                # inside the 5 ms window: not reported yet
    assert [type(e) for e in sink.events] == [Press]
    fake.ms = 54.0
    backend.poll()
    assert len(sink.events) == 1
    fake.ms = 55.5
    backend.poll()
    assert [type(e) for e in sink.events] == [Press, Release]
    assert near(sink.events[1].at, 52.0)


def test_button_held_at_start_is_pressed_at_start_and_released_later(factory, fake_time):
    sink = Sink()
    backend = GPIOBackend("AB", fake_time.engine_clock(), sink, {"pin_factory": "mock"})
    pin_a = factory.pin("GPIO17")
    fake_time.ms = 1.0
    pin_a.drive_low()                      # stuck down before the game starts
    assert sink.events == []               # nothing before start()
    fake_time.ms = 100.0
    backend.start()
    assert len(sink.events) == 1
    press = sink.events[0]
    assert isinstance(press, Press) and press.button == "A" and near(press.at, 100.0)
    fake_time.ms = 2500.0
    pin_a.drive_high()
    assert isinstance(sink.events[1], Release) and near(sink.events[1].at, 2500.0)
    assert backend.edges_seen() == {"A": 1, "B": 0}
    backend.close()


def test_lamps_on_off_blink_on_the_pins(rig, factory):
    backend, sink, pins, fake = rig
    lamp = {b: factory.pin(p) for b, p in backend.options["lamps"].items()}
    assert all(p.state is False for p in lamp.values())
    backend.set_lamp("A", "on")
    assert lamp["A"].state is True and lamp["B"].state is False
    backend.set_lamp("A", "off")
    assert lamp["A"].state is False
    lamp["B"].clear_states()
    backend.set_lamp("B", "blink")         # 10 ms half period in this rig
    deadline = time.monotonic() + 2.0
    while len(lamp["B"].states) < 6 and time.monotonic() < deadline:
        time.sleep(0.005)
    values = [s.state for s in lamp["B"].states]
    assert len(values) >= 6, values
    assert all(x != y for x, y in zip(values, values[1:]))   # it toggles
    backend.set_lamp("B", "off")
    time.sleep(0.05)
    assert lamp["B"].state is False
    settled = len(lamp["B"].states)
    time.sleep(0.05)
    assert len(lamp["B"].states) == settled                # and stops toggling
    with pytest.raises(ValueError):
        backend.set_lamp("A", "dim")


def test_active_low_lamp_relays(factory, fake_time):
    backend = GPIOBackend("A", fake_time.engine_clock(), Sink(),
                          {"pin_factory": "mock", "lamp_active_high": False})
    relay = factory.pin("GPIO5")
    assert relay.state is True             # off = high for such boards
    backend.set_lamp("A", "on")
    assert relay.state is False
    backend.close()


def test_buzzer_pin_beeps_per_sound(factory, fake_time):
    backend = GPIOBackend("A", fake_time.engine_clock(), Sink(),
                          {"pin_factory": "mock", "buzzer_pin": "GPIO18", "beep_ms": 2.0})
    pin = factory.pin("GPIO18")
    pin.clear_states()
    backend.beep("wrong")                  # two beeps
    deadline = time.monotonic() + 2.0
    while len(pin.states) < 5 and time.monotonic() < deadline:
        time.sleep(0.002)
    time.sleep(0.02)
    assert [s.state for s in pin.states] == [False, True, False, True, False]
    backend.close()


def test_host_buttons_on_gpio(factory, fake_time):
    sink = Sink()
    backend = GPIOBackend("AB", fake_time.engine_clock(), sink,
                          {"pin_factory": "mock", "host_pins": {"right": "GPIO20", "wrong": "BOARD40"}})
    backend.start()
    fake_time.ms = 5.0
    factory.pin("GPIO20").drive_low()
    fake_time.ms = 5.5
    factory.pin("GPIO20").drive_high()     # bounce
    fake_time.ms = 5.7
    factory.pin("GPIO20").drive_low()
    fake_time.ms = 200.0
    factory.pin("GPIO20").drive_high()
    factory.pin("GPIO21").drive_low()      # BOARD40 is GPIO21
    # host buttons are not player presses: they come to the same sink as host keys
    assert sink.events == [HostKey("right"), HostKey("wrong")]
    backend.close()


def test_pins_by_board_number_and_registry(factory, fake_time):
    sink = Sink()
    backend = create_backend("gpio", ["X"], fake_time.engine_clock(), sink,
                             {"pins": {"X": "BOARD11"}, "lamps": {}})
    backend.start()
    factory.pin("GPIO17").drive_low()      # physical pin 11 is GPIO17
    assert [e.button for e in sink.events] == ["X"]
    assert backend.status().extra["timestamps"] == "edge"
    backend.close()


@pytest.mark.parametrize("options, key", [
    ({"pins": {"A": "GPIO17"}}, "gpio.pins.B"),
    ({"pins": {"A": "GPIO17", "B": "GPIO99"}}, "gpio.pins.B"),
    ({"pins": {"A": "GPIO17", "B": "GPIO17"}}, "gpio.pins.B"),
    ({"lamps": {"A": "GPIO27"}}, "gpio.lamps.A"),
    ({"pull_up": True, "active_low": False}, "gpio.active_low"),
])
def test_bad_pins_name_the_config_key(factory, fake_time, options, key):
    with pytest.raises(ConfigError) as err:
        GPIOBackend("AB", fake_time.engine_clock(), Sink(), {"pin_factory": "mock", **options})
    assert err.value.key == key
    # the pins opened before the error were freed: a new backend can take them
    GPIOBackend("AB", fake_time.engine_clock(), Sink(), {"pin_factory": "mock"}).close()


def test_wiring_polarity_options(factory, fake_time):
    # external pull-up, active low: no internal resistor
    sink = Sink()
    backend = GPIOBackend("A", fake_time.engine_clock(), sink,
                          {"pin_factory": "mock", "pull_up": False, "active_low": True, "lamps": {}})
    pin = factory.pin("GPIO17")
    assert pin.pull == "floating"
    pin.drive_high()
    backend.start()
    pin.drive_low()
    assert [type(e) for e in sink.events] == [Press]
    backend.close()
    # pull-down, active high
    sink = Sink()
    backend = GPIOBackend("A", fake_time.engine_clock(), sink,
                          {"pin_factory": "mock", "pull_up": False, "active_low": False, "lamps": {}})
    assert pin.pull == "down"
    backend.start()
    pin.drive_high()
    assert [type(e) for e in sink.events] == [Press]
    backend.close()


def test_debounce_thread_settles_a_short_tap_in_real_time(factory):
    """Unpinned clock: the backend's own thread delivers the release of a tap."""
    sink = Sink()
    backend = GPIOBackend("A", EngineClock(), sink, {"pin_factory": "mock", "debounce_ms": 20.0})
    backend.start()
    pin = factory.pin("GPIO17")
    pin.drive_low()
    pin.drive_high()                      # well inside 20 ms
    events = sink.wait_for(2, timeout=1.0)
    assert [type(e) for e in events] == [Press, Release]
    press, release = events
    assert 0 <= release.at - press.at < 20 * MS
    assert release.delivered - press.at >= 20 * MS   # released once the window had passed
    backend.close()


def test_close_is_quick_with_a_button_held(factory):
    backend = GPIOBackend("A", EngineClock(), Sink(), {"pin_factory": "mock"})
    backend.start()
    factory.pin("GPIO17").drive_low()
    t0 = time.monotonic()
    backend.close()
    assert time.monotonic() - t0 < 0.2


# -- the service file and the Raspberry Pi guide ---------------------------------

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


def _unit(path):
    sections, current = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def test_service_unit_runs_the_game_full_screen_from_a_writable_directory():
    import shlex
    from controller.cli import build_parser

    unit = _unit(ROOT / "config" / "buzzer.service")
    svc = unit["Service"]
    assert svc["Restart"] == ["on-failure"]
    assert svc["WorkingDirectory"] == ["/var/lib/buzzer"]
    assert svc["StateDirectory"] == ["buzzer"]                 # systemd creates it writable for User
    env = dict(e.split("=", 1) for e in svc["Environment"])
    assert env["LG_WD"] == "/var/lib/buzzer" and env["GPIOZERO_PIN_FACTORY"] == "lgpio"
    assert {"gpio", "input"} <= set(svc["SupplementaryGroups"][0].split())
    from controller.app import config   # the user may take the game's real-time priority
    assert int(svc["LimitRTPRIO"][0]) >= config.defaults()["process"]["realtime_priority"] > 0
    argv = shlex.split(svc["ExecStart"][0])
    assert argv[0] == "/usr/bin/cage"
    buzzer_argv = argv[argv.index("--") + 2:]
    args = build_parser().parse_args(buzzer_argv)              # the flags exist
    assert args.command == "run" and args.fullscreen and args.resume
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_guide_wiring_matches_the_default_config():
    from controller.app import config

    guide = (ROOT / "docs" / "raspberry-pi.md").read_text(encoding="utf-8")
    gpio = config.defaults()["gpio"]
    for button, pin in gpio["pins"].items():
        row = next(l for l in guide.splitlines() if l.startswith(f"| {button} |"))
        assert f"({pin})" in row and f"`{pin}`" in row
        assert f"({gpio['lamps'][button]})" in row
    assert "test-buttons" in guide and "gpio" in guide and "input" in guide and "lgpio" in guide


# -- a whole game through the GPIO backend -------------------------------------------


def test_whole_game_through_the_gpio_backend(factory, fake_time):
    """Эрудит-квартет, one round of two questions, played on mock pins through
    the real loop and engine: late-delivered edges, a bounce storm, a button
    stuck at the start, an early press that blinks its lamp, lamps on the pins."""
    import io

    from controller.app import config
    from controller.games import engine
    from controller.app.loop import Loop

    cfg = config.build({"buttons": "gpio",
                        "erudite": {"fights": 1, "rounds_per_fight": 1, "nominals": [10, 20],
                                    "early_block_s": 1.0},
                        "gpio": {"pin_factory": "mock", "blink_ms": 10.0}})
    clock = fake_time.engine_clock()
    out = io.StringIO()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=None, out=out)
    buttons = [t["button"] for t in cfg["teams"]]
    backend = create_backend("gpio", buttons, clock, loop.enqueue, cfg["gpio"])
    loop.backend = backend
    pin = {b: factory.pin(p) for b, p in cfg["gpio"]["pins"].items()}
    lamp = {b: factory.pin(p) for b, p in cfg["gpio"]["lamps"].items()}

    def at(ms):
        fake_time.ms = ms
        loop.drain()
        loop.tick_if_due()

    def lamps():
        return {b: p.state for b, p in lamp.items()}

    def host(ms, action):
        fake_time.ms = ms
        loop.enqueue(HostKey(action))  # as a host button on GPIO does
        at(ms)

    pin["D"].drive_low()                       # D is stuck down before the game
    backend.start()
    at(0)
    host(1000, "question")                     # 10 points
    assert "D" in loop.state.stuck
    assert "Кнопка D залипла" in out.getvalue()   # the host was told

    # A's contacts close first, but its edge is delivered after B's
    fake_time.ms = 2999.2
    pin["A"]._change_state(False)
    fake_time.ms = 3000.0
    pin["B"].drive_low()
    fake_time.ms = 3000.5
    pin["A"]._call_when_changed()
    for i in range(8):                         # A's contacts chatter
        fake_time.ms = 3000.7 + 0.2 * i
        (pin["A"].drive_high if i % 2 == 0 else pin["A"].drive_low)()
    pin["D"].drive_high()                      # D comes unstuck ...
    for ms, level in ((3002.3, "drive_low"), (3002.5, "drive_high")):
        fake_time.ms = ms                      # ... with a bounce (ignored)
        getattr(pin["D"], level)()
    at(3002.6)
    at(3010)                                   # settle window over, quiet period not
    assert loop.state.question.holder is None  # A's callback might still have company
    at(3016)                                   # 15 ms ([gpio] quiet_ms) after the last callback
    assert loop.state.question.holder == 0     # team A, by edge time
    assert lamps() == {"A": True, "B": False, "C": False, "D": False}

    fake_time.ms = 4000
    pin["B"].drive_high()
    host(5000, "wrong")
    assert lamps()["A"] is False
    fake_time.ms = 5200
    pin["C"].drive_low()
    at(5216)
    assert lamps() == {"A": False, "B": False, "C": True, "D": False}
    host(6000, "right")
    assert lamps() == {"A": False, "B": False, "C": False, "D": False}
    for b in "AC":
        fake_time.ms += 100
        pin[b].drive_high()
    at(6500)

    host(8000, "question")                     # 20 points
    assert "D" not in loop.state.stuck
    fake_time.ms = 8150
    pin["D"].drive_low()
    at(8200)
    assert lamps()["D"] is True
    fake_time.ms = 8800                        # past [arbiter] late_ms (500) after D's press:
    pin["B"].drive_low()                       # while D holds the answer: early, blocked, blinks
    at(8800)
    lamp["B"].clear_states()
    deadline = time.monotonic() + 2.0
    while len(lamp["B"].states) < 4 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(lamp["B"].states) >= 4         # blinking on the pin
    host(9000, "wrong")
    assert lamps()["D"] is False
    fake_time.ms = 9700
    pin["A"].drive_low()
    at(9716)
    assert lamps()["A"] is True
    host(10000, "right")

    result = engine.summary(loop.state)
    assert result["stage"] == "finished"
    assert result["scores"] == {"Альфа": -10 + 20, "Бета": 0, "Гамма": 10, "Дельта": -20}
    assert lamps()["A"] is False
    seen = backend.edges_seen()
    assert seen == {"A": 1 + 8 + 1 + 1, "B": 3, "C": 2, "D": 1 + 2 + 1}
    backend.close()
    assert all(p.state is False for p in lamp.values())
