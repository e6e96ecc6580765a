"""The host keypad: key map, key-down only, grab, unplug and reconnect.

Where the machine has ``/dev/uinput`` the reader is tested against a real
virtual input device; otherwise against a stand-in device that hands the
reader python-evdev's own ``InputEvent`` objects.  The run says which (printed,
and recorded as the ``evdev_path`` property in JUnit XML).
"""

from __future__ import annotations

import errno
import os
import threading
import time

import pytest
from evdev import InputEvent, ecodes

from controller.app import config
from controller.core.errors import ConfigError
from controller.core.events import HostKey, InputStatus
from controller.inputs.keypad import Keypad, build_keymap, evdev_key_name, keymap_names

NAME = "buzzer-test-keypad"


def uinput_usable() -> bool:
    if not os.access("/dev/uinput", os.W_OK):
        return False
    try:
        from evdev import UInput
        UInput({ecodes.EV_KEY: [ecodes.KEY_KP1]}, name="buzzer-probe").close()
        return True
    except Exception:
        return False


UINPUT = uinput_usable()


class Recorder:
    def __init__(self):
        self.calls = []
        self.lock = threading.Lock()
        self.connected = []
        self.lost = []

    def __call__(self, event):
        """The keypad's sink: host keys and the keypad's comings and goings, typed."""
        with self.lock:
            if isinstance(event, HostKey):
                self.calls.append((event.action, dict(event.params)))
            elif isinstance(event, InputStatus):
                assert event.source == "keypad"
                (self.connected if event.connected else self.lost).append(event.detail)
            else:
                raise AssertionError(f"a keypad sent {event!r}")

    def wait(self, what, n, timeout=3.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(getattr(self, what)) >= n:
                break
            time.sleep(0.005)
        return list(getattr(self, what))


def key(code, value, t=1000.0):
    sec = int(t)
    return InputEvent(sec, int((t - sec) * 1e6), ecodes.EV_KEY, code, value)


def syn():
    return InputEvent(1000, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0)


class PipeDevice:
    """Stands in for evdev.InputDevice: a pipe to select on, InputEvents to read."""

    def __init__(self, name=NAME):
        self.name = name
        self._r, self._w = os.pipe()
        self.fd = self._r
        self.queue = []
        self.unplugged = False
        self.grabbed = False
        self.closed = False

    def push(self, *events):
        self.queue.extend(events)
        os.write(self._w, b".")

    def unplug(self):
        self.unplugged = True
        os.write(self._w, b".")

    def read(self):
        os.read(self._r, 4096)
        if self.unplugged:
            raise OSError(errno.ENODEV, "No such device")
        events, self.queue = self.queue, []
        return iter(events)

    def grab(self):
        self.grabbed = True

    def ungrab(self):
        self.grabbed = False

    def close(self):
        self.closed = True
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass


class PipeWorld:
    """Plugs and unplugs PipeDevices for the keypad's opener."""

    def __init__(self):
        self.device = None
        self.opened = []

    def plug(self):
        self.device = PipeDevice()
        return self.device

    def unplug(self):
        self.device.unplug()
        self.device = None

    def opener(self, spec):
        if self.device is None or spec not in (NAME, "/dev/input/event-test"):
            raise LookupError(f"no input device named like {spec!r}")
        self.opened.append(self.device)
        return self.device

    def press(self, *codes):
        for code in codes:
            self.device.push(key(code, 1), syn(), key(code, 0), syn())


class UinputWorld:
    """The same, with a real virtual keyboard through /dev/uinput."""

    def __init__(self):
        self.ui = None
        self.opener = None  # the real open_device

    def plug(self):
        from evdev import UInput
        codes = [c for c in ecodes.KEY if isinstance(c, int) and c < 256]
        self.ui = UInput({ecodes.EV_KEY: codes}, name=NAME)
        return self.ui

    def unplug(self):
        self.ui.close()
        self.ui = None

    def press(self, *codes):
        for code in codes:
            self.ui.write(ecodes.EV_KEY, code, 1)
            self.ui.syn()
            self.ui.write(ecodes.EV_KEY, code, 0)
            self.ui.syn()


@pytest.fixture
def world(record_property):
    path = "uinput" if UINPUT else "inputevent"
    record_property("evdev_path", path)
    print(f"keypad reader tested through: {path}"
          + ("" if UINPUT else " (no /dev/uinput on this machine: evdev InputEvent objects)"))
    w = UinputWorld() if UINPUT else PipeWorld()
    yield w
    if w.__class__ is UinputWorld and w.ui is not None:
        w.unplug()


def test_default_keymap_follows_the_keys_section():
    names = keymap_names(build_keymap())
    assert names["KEY_KPPLUS"] == "question"
    assert names["KEY_KP0"] == "reading_done"
    assert names["KEY_KPENTER"] == "right"
    assert names["KEY_ENTER"] == "right"
    assert names["KEY_KPMINUS"] == "wrong"
    assert names["KEY_KPSLASH"] == "withdraw"
    assert names["KEY_KPASTERISK"] == "undo"
    assert names["KEY_KPDOT"] == "pause"
    assert names["KEY_R"] == "next_round"
    assert names["KEY_KP9"] == "next_round"               # [keypad] keymap defaults
    assert names["KEY_KP5"] == "start_clock"
    assert "KEY_ESC" not in names                      # a keypad never quits the program
    # every key of [keys] that a keyboard can send is mapped
    for action, keys in config.defaults()["keys"].items():
        if action != "quit":
            assert any(evdev_key_name(k) for k in keys), action


def test_config_keymap_overrides_and_bad_names():
    cfg = config.build({"keypad": {"keymap": {"KEY_KP1": "right", "KEY_KPPLUS": "next_round"}},
                        "keys": {"question": ["n"]}})
    keymap = build_keymap(cfg["keys"], cfg["keypad"]["keymap"])
    names = keymap_names(keymap)
    assert names["KEY_KP1"] == "right" and names["KEY_KPPLUS"] == "next_round"
    assert names["KEY_N"] == "question"
    with pytest.raises(ConfigError) as err:
        build_keymap(cfg["keys"], {"KEY_NOPE": "right"})
    assert err.value.key == "keypad.keymap.KEY_NOPE"
    with pytest.raises(ConfigError) as err:
        config.build({"keypad": {"keymap": {"KP1": "right"}}})
    assert err.value.key == "keypad.keymap"


def test_only_key_downs_become_actions():
    rec = Recorder()
    pad = Keypad(rec)
    assert pad.handle(key(ecodes.KEY_KPENTER, 1)) == "right"
    assert pad.handle(key(ecodes.KEY_KPENTER, 2)) is None        # auto-repeat
    assert pad.handle(key(ecodes.KEY_KPENTER, 0)) is None        # key up
    assert pad.handle(syn()) is None
    assert pad.handle(key(ecodes.KEY_KP3, 1)) is None            # not mapped
    assert rec.calls == [("right", {})]
    pad.close()


def test_reader_grabs_maps_and_reconnects(world):
    rec = Recorder()
    opener_kwargs = {"opener": world.opener} if world.opener else {}
    pad = Keypad(rec, NAME, grab=True, reconnect_s=0.02, **opener_kwargs)
    pad.start()
    try:
        # not plugged in yet: reported once, not on every retry
        assert rec.wait("lost", 1)[0].startswith("no input device")
        time.sleep(0.1)
        assert len(rec.lost) == 1
        world.plug()
        assert rec.wait("connected", 1) == [NAME]
        if isinstance(world, PipeWorld):
            assert world.opened[-1].grabbed
        world.press(ecodes.KEY_KPPLUS, ecodes.KEY_KP0, ecodes.KEY_KPENTER, ecodes.KEY_KP3,
                    ecodes.KEY_KPMINUS)
        assert [a for a, _ in rec.wait("calls", 4)] == ["question", "reading_done", "right", "wrong"]
        # unplug: reported, then found again when it comes back
        world.unplug()
        lost = rec.wait("lost", 2)
        assert "unplugged" in lost[1]
        assert not pad.connected
        world.plug()
        assert rec.wait("connected", 2) == [NAME, NAME]
        world.press(ecodes.KEY_KPASTERISK)
        assert rec.wait("calls", 5)[-1] == ("undo", {})
    finally:
        pad.close()
    if isinstance(world, PipeWorld):
        assert world.opened[-1].closed and not world.opened[-1].grabbed


def test_from_config_and_close_is_prompt():
    world = PipeWorld()
    cfg = config.build({"keypad": {"device": "/dev/input/event-test", "grab": False,
                                   "keymap": {"KEY_KP5": "start_clock"}}})
    rec = Recorder()
    pad = Keypad.from_config(cfg, rec, opener=world.opener)
    assert pad.reconnect_s == 1.0 and pad.grab is False
    world.plug()
    pad.start()
    assert rec.wait("connected", 1) == [NAME]
    world.press(ecodes.KEY_KP5)
    assert rec.wait("calls", 1) == [("start_clock", {})]
    assert not world.opened[-1].grabbed
    t0 = time.monotonic()
    pad.close()
    assert time.monotonic() - t0 < 0.5


def test_options_form_used_by_the_loop():
    world = PipeWorld()
    rec = Recorder()
    pad = Keypad(sink=rec, options={"device": NAME, "grab": True, "reconnect_s": 0.05,
                                    "keymap": {"KEY_KP1": "right"}}, opener=world.opener)
    assert pad.device == NAME and pad.reconnect_s == 0.05
    assert pad.handle(key(ecodes.KEY_KP1, 1)) == "right"
    assert pad.handle(key(ecodes.KEY_KPMINUS, 1)) == "wrong"     # [keys] defaults still apply
    pad.close()
