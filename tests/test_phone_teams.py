"""Teams on phones beside teams on wired buttons (issue 27, docs/phones.md «A class»): a team with
``phone = true`` presses with a phone only, so the wired backends (buttons = "gpio" on gpiozero's
mock pins, "gpiod" on a fake GPIO chip, "serial" on a virtual box over a real pty) open the wired
teams' buttons only, both kinds of press reach the one game through the loop's sink, and a team
with neither a wired button nor a phone is one line of check-config."""

from __future__ import annotations

import io
import os
import threading
import time
from pathlib import Path

import pytest

from controller.app import config
from controller.app.loop import Loop
from controller.app.startup import make_backend
from controller.cli import main
from controller.games import engine
from controller.core.events import NS_PER_MS, HostKey, Press
from controller.inputs.clock import EngineClock
from controller.web.attach import PhoneBridge

ROOT = Path(__file__).resolve().parent.parent
MS = NS_PER_MS

TEAMS = [{"name": "Альфа", "button": "A", "phone": True},
         {"name": "Бета", "button": "B"},
         {"name": "Гамма", "button": "C", "phone": True},
         {"name": "Дельта", "button": "D"}]
"""Two teams on phones (Альфа, Гамма), two on wired buttons (Бета, Дельта)."""


def hall(buttons: str, **settings) -> dict:
    return config.build({"buttons": buttons, "teams": TEAMS, "journal.fsync": False, **settings})


def holder(loop):
    q = loop.state.question
    return None if q is None or q.holder is None else loop.state.teams[q.holder].name


def phone_press(bridge: PhoneBridge, button: str, at_mono_ns: int, unc_ms: float = 2.0) -> None:
    """A press of ``button``'s phone as the pages' process hands it on: stamped on the phone,
    converted to this computer's monotonic clock, with its uncertainty."""
    bridge.message({"t": "press", "button": button, "at": at_mono_ns, "unc": int(unc_ms * MS)})


# -- the config --------------------------------------------------------------------------------

@pytest.mark.parametrize("buttons", ["gpio", "gpiod", "serial", "serial-sim"])
def test_two_wired_teams_and_two_phone_teams_validate(buttons):
    cfg = hall(buttons, **({"gpio.pins": {"B": "GPIO17", "D": "GPIO27"}} if "gpio" in buttons else
                           {"serial.inputs": [5, 2]}))
    assert [t.get("phone", False) for t in cfg["teams"]] == [True, False, True, False]
    from controller.inputs.options import wired_buttons
    assert wired_buttons(cfg) == ["B", "D"]


def write(tmp_path, text):
    path = tmp_path / "hall.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


HALL = """buttons = "{buttons}"
{section}
[[teams]]
name = "Альфа"
phone = true
[[teams]]
name = "Бета"
[[teams]]
name = "Гамма"
phone = true
[[teams]]
name = "Дельта"
"""


@pytest.mark.parametrize("buttons,section,line", [
    ("gpio", '[gpio]\npins = { B = "GPIO17" }',
     "gpio.pins.D: нет входного вывода для кнопки D (команда 'Дельта'): задайте его в [gpio] pins или "
     "phone = true в [[teams]] команды, если она нажимает с телефона"),
    ("gpiod", '[gpio]\npins = { B = "GPIO17" }',
     "gpio.pins.D: нет входного вывода для кнопки D (команда 'Дельта'): задайте его в [gpio] pins или "
     "phone = true в [[teams]] команды, если она нажимает с телефона"),
    ("serial", "[serial]\ninputs = [5]",
     "serial.inputs: нет входа блока для команды 'Дельта' (кнопка D): входов в списке: 1, команд с "
     "кнопками: 2 (команда с phone = true входа не занимает)"),
])
def test_a_team_with_neither_a_wired_button_nor_a_phone_is_one_line(tmp_path, capsys, buttons, section, line):
    path = write(tmp_path, HALL.format(buttons=buttons, section=section))
    assert main(["check-config", path]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"buzzer: {path}: {line}\n" and captured.out == ""
    # the same file with Дельта on a phone too is a hall
    fixed = write(tmp_path, HALL.format(buttons=buttons, section=section).replace(
        'name = "Дельта"\n', 'name = "Дельта"\nphone = true\n'))
    assert main(["check-config", fixed]) == 0
    assert "OK" in capsys.readouterr().out


def test_a_phone_team_without_the_phones_is_one_line(tmp_path, capsys):
    for off in ("[phones]\nenabled = false", "[web]\nenabled = false"):
        path = write(tmp_path, HALL.format(buttons="keyboard", section=off))
        assert main(["check-config", path]) == 2
        key = off.splitlines()[0].strip("[]")
        assert capsys.readouterr().err == (f"buzzer: {path}: teams[0].phone: команда 'Альфа' нажимает с телефона "
                                           f"(phone = true), но телефоны выключены ({key}.enabled = false)\n")


def test_phone_is_true_or_false():
    with pytest.raises(Exception) as exc:
        config.build({"teams": [{"name": "Альфа", "phone": "yes"}]})
    assert "teams[0].phone" in str(exc.value)


def test_the_class_config_puts_four_teams_on_phones_and_two_on_the_pis_pins(capsys):
    path = ROOT / "config" / "class-phones.toml"
    cfg = config.load(path)
    assert [t["name"] for t in cfg["teams"] if t.get("phone")] == ["Альфа", "Бета", "Гамма", "Дельта"]
    assert cfg["gpio"]["pins"] == {"E": "GPIO17", "F": "GPIO27"}
    assert main(["check-config", str(path)]) == 0    # as docs/phones.md shows it
    assert capsys.readouterr().out.endswith(": OK (Эрудит-квартет, 6 команд, кнопки: gpio, на телефонах: 4)\n")


# -- buttons = "gpio": gpiozero's mock pins ---------------------------------------------------

def test_gpio_a_wired_press_and_a_phone_press_reach_the_game(factory, fake_time):
    cfg = hall("gpio", **{"gpio.pin_factory": "mock", "gpio.pins": {"A": "GPIO22", "B": "GPIO17", "D": "GPIO27"},
                          "gpio.lamps": {"A": "GPIO13", "B": "GPIO5", "D": "GPIO6"}})
    clock = fake_time.engine_clock()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=None, out=io.StringIO())
    backend = make_backend(cfg, clock, loop.enqueue)
    loop.backend = backend
    bridge = PhoneBridge(loop, [t["button"] for t in cfg["teams"]])
    # only the wired teams' pins are opened: Альфа's pin in the table stays free
    assert sorted(backend.stats()) == ["B", "D"] and not backend.has_lamp("A") and backend.has_lamp("B")
    pin = {b: factory.pin(p) for b, p in cfg["gpio"]["pins"].items()}
    backend.start()

    def at(ms):
        fake_time.ms = ms
        loop.drain()
        loop.tick_if_due()

    def host(ms, action):
        fake_time.ms = ms
        loop.enqueue(HostKey(action))
        at(ms)

    def mono(ms):
        return clock.origin_ns + int(ms * MS)

    try:
        # 1: Дельта's wired button alone
        host(1000, "question")
        host(1100, "reading_done")
        fake_time.ms = 1500
        pin["D"].drive_low()
        at(1600)
        assert holder(loop) == "Дельта"
        fake_time.ms = 1700
        pin["D"].drive_high()
        host(2000, "wrong")
        # ... then Альфа's phone, with Дельта out of this question
        phone_press(bridge, "A", mono(2500))
        at(2600)
        assert holder(loop) == "Альфа"
        host(3000, "right")

        # 2: phones play, so a race waits for them: Бета's wire is read first, Гамма's phone
        # press (50 ms earlier on the phone) comes after it and answers
        loop.set_phone_wait(200 * MS)
        host(4000, "question")
        host(4100, "reading_done")
        fake_time.ms = 4600
        pin["B"].drive_low()
        at(4610)
        phone_press(bridge, "C", mono(4550))
        at(4650)
        assert holder(loop) is None                      # the race waits for the phones ...
        at(4900)
        assert holder(loop) == "Гамма"                   # ... and the earlier press wins
        presses = {p.button: p for p in loop.state.question.presses}
        assert set(presses) == {"B", "C"}
        host(5000, "right")

        # 3: a wired press 100 ms before a phone's: the wire answers
        host(6000, "question")
        host(6100, "reading_done")
        fake_time.ms = 6500
        pin["B"].drive_high()
        fake_time.ms = 6600
        pin["B"].drive_low()
        fake_time.ms = 6700
        phone_press(bridge, "A", mono(6700))
        at(6710)
        at(7000)
        assert holder(loop) == "Бета"
        # a press on Альфа's unused pin is nothing
        fake_time.ms = 7100
        pin["A"].drive_low()
        at(7200)
        assert "A" not in backend.edges_seen()
    finally:
        backend.close()


def test_test_buttons_lists_the_phone_teams_as_phones(factory, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    path = write(tmp_path, HALL.format(buttons="gpio", section='[gpio]\npins = { A = "GPIO22", B = "GPIO17", '
                                       'D = "GPIO27" }\nlamps = {}'))
    script = tmp_path / "presses.txt"
    script.write_text("0.05 B tap\n0.10 D tap\n", encoding="utf-8")
    assert main(["test-buttons", "--config", path, "--seconds", "0.5", "--script", str(script), "--no-lamps"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "Кнопка A   телефон: команда Альфа нажимает с телефона (проверять провод не нужно)" in lines
    assert "Кнопка C   телефон: команда Гамма нажимает с телефона (проверять провод не нужно)" in lines
    assert any(l.startswith("Кнопка B   вывод GPIO17") for l in lines)
    assert "  A   телефон" in lines and "  C   телефон" in lines
    assert "Все кнопки работают." in lines                  # the phones are not waited for
    assert "GPIO22" not in out                              # Альфа's pin is not opened


# -- buttons = "gpiod": a fake GPIO chip in place of libgpiod's request ------------------------

class FakeRequest:
    """What the gpiod backend uses of a libgpiod v2 line request: an fd that polls readable when
    edges wait, the edges, the lines' levels (idle: pulled up, high) and the outputs' values."""

    def __init__(self, offsets):
        self.offsets = list(offsets)
        self.r, self.w = os.pipe()
        self.pending = []
        self.lock = threading.Lock()
        self.values = {}
        self.seq = 0
        self.line_seq = {}

    @property
    def fd(self):
        return self.r

    def edge(self, offset, falling, timestamp_ns):
        import gpiod
        from types import SimpleNamespace

        with self.lock:
            self.seq += 1
            self.line_seq[offset] = self.line_seq.get(offset, 0) + 1
            kind = gpiod.EdgeEvent.Type.FALLING_EDGE if falling else gpiod.EdgeEvent.Type.RISING_EDGE
            self.pending.append(SimpleNamespace(line_offset=offset, event_type=kind, timestamp_ns=timestamp_ns,
                                                global_seqno=self.seq, line_seqno=self.line_seq[offset]))
        os.write(self.w, b"e")

    def wait_edge_events(self, timeout=None):
        with self.lock:
            return bool(self.pending)

    def read_edge_events(self):
        os.read(self.r, 4096)
        with self.lock:
            out, self.pending = self.pending, []
        return out

    def get_values(self, lines):
        from gpiod.line import Value
        return [Value.ACTIVE for _ in lines]

    def set_value(self, offset, value):
        self.values[offset] = value

    def release(self):
        for fd in (self.r, self.w):
            try:
                os.close(fd)
            except OSError:
                pass


class FakeChip:
    def __init__(self):
        self.requests = []

    def request_lines(self, path, consumer=None, config=None):
        offsets = [o for key in config for o in (key if isinstance(key, tuple) else (key,))]
        req = FakeRequest(offsets)
        self.requests.append(req)
        return req

    def chip(self, path):
        from types import SimpleNamespace

        class Opened:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def get_info(self):
                return SimpleNamespace(label="pinctrl-bcm2711", num_lines=58)
        return Opened()


@pytest.fixture
def fake_chip(monkeypatch):
    from controller.inputs import gpiochip

    chip = FakeChip()
    monkeypatch.setattr(gpiochip.gpiod, "request_lines", chip.request_lines)
    monkeypatch.setattr(gpiochip.gpiod, "Chip", chip.chip)
    monkeypatch.setattr(gpiochip, "find_chip", lambda name: ("/dev/gpiochip0", "test"))
    return chip


def wait_for(pred, what, timeout=30.0, step=None):
    deadline = time.monotonic() + timeout
    while True:
        if step is not None:
            step()
        got = pred()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        if step is None:
            time.sleep(0.002)


def open_question(loop, clock, after_ms=150):
    loop.enqueue(HostKey("question"))
    loop.drain()
    loop.enqueue(HostKey("reading_done"))
    loop.drain()
    armed = loop.state.question.armed_at
    wait_for(lambda: clock.now() > armed + after_ms * MS, "the question to be armed a while")


def wired_hall(cfg):
    """A loop on the config's real-time backend with the phones' bridge; ``seen`` holds every
    event the backend sends, in order."""
    clock = EngineClock()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=None, out=io.StringIO())
    seen = []

    def sink(ev):
        seen.append(ev)
        loop.enqueue(ev)

    backend = make_backend(cfg, clock, sink)
    loop.backend = backend
    bridge = PhoneBridge(loop, [t["button"] for t in cfg["teams"]])
    return clock, loop, seen, backend, bridge


def press_and_release(clock, seen, close, release, what):
    """A wired press: ``close()`` the contacts, wait until the backend reads the press (``what``
    says how it comes), hold it past the debounce window, ``release()``."""
    before = len(seen)
    close()
    down = wait_for(lambda: next((e for e in seen[before:] if isinstance(e, Press)), None), what)
    wait_for(lambda: clock.now() > down.at + 20 * MS, "the debounce window to pass")
    release()


def race_wired_then_earlier_phone(loop, clock, bridge, seen, wired_press, wired, phone, wired_name, phone_name):
    """The two races of the real-time backends: a wired press alone answers; with phones
    playing, a phone press stamped 50 ms before a wired one answers though it comes after."""
    step = lambda: loop.step_once(0.01)   # noqa: E731

    open_question(loop, clock)
    wired_press(wired)
    wait_for(lambda: holder(loop), f"{wired_name}'s wired press to answer", step=step)
    assert holder(loop) == wired_name
    loop.enqueue(HostKey("right"))
    loop.drain()

    loop.set_phone_wait(300 * MS)
    open_question(loop, clock)
    before = len(seen)
    wired_press(wired)
    press = wait_for(lambda: next((e for e in seen[before:] if isinstance(e, Press) and e.button == wired), None),
                     f"{wired_name}'s wired press to be read")
    phone_press(bridge, phone, press.at + clock.origin_ns - 50 * MS)
    wait_for(lambda: holder(loop), "the race to be decided", step=step)
    assert holder(loop) == phone_name
    assert {p.button for p in loop.state.question.presses} == {wired, phone}


def test_gpiod_a_wired_press_and_a_phone_press_reach_the_game(fake_chip):
    cfg = hall("gpiod", **{"gpio.pins": {"A": "GPIO22", "B": "GPIO17", "D": "GPIO27"},
                           "gpio.lamps": {"A": "GPIO13", "B": "GPIO5", "D": "GPIO6"}})
    clock, loop, seen, backend, bridge = wired_hall(cfg)
    inputs, lamps = fake_chip.requests
    # the wired teams' lines only: Альфа's pin (line 22) and lamp (line 13) are not requested
    assert sorted(inputs.offsets) == [17, 27] and sorted(lamps.offsets) == [5, 6]
    assert sorted(backend.stats()) == ["B", "D"]
    backend.start()

    def press(button):
        line = {"B": 17, "D": 27}[button]
        press_and_release(clock, seen,
                          lambda: inputs.edge(line, True, time.monotonic_ns()),   # closed (pulled up: falling)
                          lambda: inputs.edge(line, False, time.monotonic_ns()),  # and open again
                          f"{button}'s press to be read")

    try:
        race_wired_then_earlier_phone(loop, clock, bridge, seen, press, "D", "C", "Дельта", "Гамма")
    finally:
        backend.close()


# -- buttons = "serial": the virtual box over a real pty and pyserial ---------------------------

def test_serial_a_wired_press_and_a_phone_press_reach_the_game():
    from firmware_bridge.virtual_box import VirtualBox

    with VirtualBox() as box:
        # the box's inputs of the wired teams only, in their order: Бета on 5, Дельта on 2
        cfg = hall("serial", **{"serial.inputs": [5, 2], "serial.port": box.path, "serial.reconnect_min_s": 0.01})
        clock, loop, seen, backend, bridge = wired_hall(cfg)
        assert backend.button_of_input == {5: "B", 2: "D"}
        backend.start()

        def press(button):
            index = backend.input_of_button[button]
            press_and_release(clock, seen, lambda: box.press(index), lambda: box.release(index),
                              f"{button}'s press to come over the line")

        try:
            wait_for(lambda: backend.status().connected, "the box to answer")
            box.press(0)            # an input no team uses (Альфа is on a phone): nothing
            race_wired_then_earlier_phone(loop, clock, bridge, seen, press, "B", "A", "Бета", "Альфа")
            assert not any(isinstance(e, Press) and e.button == "A" and e.unc == 0 for e in seen)
        finally:
            backend.close()


def test_more_wired_teams_than_the_box_has_inputs_is_one_line_and_phones_make_room():
    from controller.core.errors import ConfigError

    teams = [{"name": f"Игрок {i + 1}", "key": ""} for i in range(17)]
    with pytest.raises(ConfigError) as exc:
        config.build({"mode": "own-game", "buttons": "serial", "teams": teams})
    assert exc.value.words() == ("serial.inputs: команд с кнопками: 17, а входов у блока: 16; остальные пусть "
                                 "нажимают с телефонов (phone = true в их [[teams]])")
    teams[16]["phone"] = True
    with pytest.raises(ConfigError) as exc:   # (Своя игра itself seats 16 at most)
        config.build({"mode": "own-game", "buttons": "serial", "teams": teams})
    assert exc.value.key == "teams"


def test_an_event_files_team_may_press_with_a_phone(tmp_path):
    event = tmp_path / "event.toml"
    event.write_text('[[teams]]\nname = "Альфа"\nphone = true\n[[teams]]\nname = "Бета"\n', encoding="utf-8")
    cfg = config.attach_event(config.build({"buttons": "gpio"}), event)
    assert [(t["name"], t.get("phone", False)) for t in cfg["teams"]] == [("Альфа", True), ("Бета", False)]
    from controller.inputs.options import wired_buttons
    assert wired_buttons(cfg) == ["B"]


def test_on_the_keyboard_a_phone_teams_key_still_presses_for_it():
    """buttons = "keyboard" stands in for every button (docs/phones.md): a phone team's key presses."""
    cfg = hall("keyboard")
    clock = EngineClock()
    got = []
    backend = make_backend(cfg, clock, got.append)
    assert list(backend.buttons) == ["B", "D"]
    assert backend.key_down(cfg["teams"][0]["key"], 5) and [(e.button, e.at) for e in got] == [("A", 5)]
