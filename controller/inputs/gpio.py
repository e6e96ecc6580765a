"""Buttons and lamps on a Raspberry Pi's GPIO header, through gpiozero.

Each player's button is a :class:`EdgeInput` -- a gpiozero
:class:`~gpiozero.InputDevice` (pull-up, active-low by default) whose pin's
public ``when_changed`` hook passes every edge *with its pin factory
timestamp* (``ticks``) to the backend.  With the lgpio factory that timestamp is the kernel's, taken when
the interrupt fired, so a press is stamped when the contacts closed, not when
Python got round to the callback.  The backend converts it onto the engine
clock, runs it through the one debounce rule of :mod:`controller.inputs.debounce`
(the same for every button; the first edge keeps its time) and hands
:class:`~controller.core.events.Press` / :class:`~controller.core.events.Release` to the
sink.  The pin factory's own ``bounce_time`` is never used: lgpio's would
delay and re-stamp every press.

Lamps (an LED or a lamp relay per button) and an optional beeper are gpiozero
output devices that do what the engine's :class:`~controller.core.effects.Lamp`
effects say; the backend never decides a lamp's state itself.

Host buttons wired to the header (``[gpio] host_pins``) are debounced the same
way and reported to the same sink as :class:`~controller.core.events.HostKey`, like
the USB keypad's keys (:mod:`controller.inputs.keypad`).
"""

from __future__ import annotations

import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from controller.inputs.base import BackendStatus, ButtonBackend, Sink
from controller.inputs.clock import EngineClock
from controller.inputs.options import GPIO
from controller.inputs.debounce import Debouncer, Transition
from controller.inputs.stall import CpuStall
from controller.core.errors import BackendError, BackendUnavailable, ConfigError
from controller.inputs.base import NoPinFactory
from controller.core.events import NS_PER_MS, HostKey, Press, Release

try:  # gpiozero is a hard dependency, but keep the import error readable
    from gpiozero import Buzzer, Device, InputDevice, LED
    from gpiozero.exc import (BadPinFactory, GPIOPinInUse, PinInvalidPin, PinError, PinUnknownPi,
                              GPIOZeroError)
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise BackendUnavailable(f"the gpio backend needs gpiozero ({exc})") from None


BEEPS = {"press": 1, "right": 1, "wrong": 2, "false_start": 3, "time_up": 4, "start": 1, "warning": 1}
"""How many beeps the optional buzzer pin gives for each sound name."""


def _option_defaults() -> dict[str, Any]:
    return {k.name: k.default for k in GPIO.keys}


class EdgeInput(InputDevice):
    """A digital input that reports each edge with its timestamp to
    ``when_edge(ticks, active)``.

    Only public gpiozero hooks are used.  The device-level callbacks
    (``when_activated`` / ``when_deactivated`` of a DigitalInputDevice) carry
    no time: they pass the device, so a press would be stamped when Python got
    round to the callback.  The pin's public ``when_changed`` hook carries the
    edge's ``ticks`` (with lgpio, the kernel's timestamp) and its state.  A pin
    has one ``when_changed``, and DigitalInputDevice takes it for its own event
    machinery; so an EdgeInput is an :class:`~gpiozero.InputDevice` (which
    takes none) that sets the pin's public ``bounce``, ``edges`` and
    ``when_changed`` as DigitalInputDevice would.  ``value`` and ``is_active``
    read the pin as usual; ``when_activated`` and ``wait_for_active`` are not
    offered (nothing here uses them).

    The pin holds the hook through a weak reference (to this device's bound
    method), so whoever creates an EdgeInput must keep it.
    """

    def __init__(self, pin, *, when_edge: Callable[[float, bool], None], pull_up=True,
                 active_state=None, pin_factory=None):
        # gpiozero devices refuse new attributes once constructed
        self.when_edge = when_edge
        self.active_level = bool(active_state) if pull_up is None else not pull_up
        """The pin state that means pressed (1: active high)."""
        super().__init__(pin, pull_up=pull_up, active_state=active_state, pin_factory=pin_factory)
        try:
            self.pin.bounce = None      # the pin factory's debounce would delay and re-stamp
            self.pin.edges = "both"
            self.pin.when_changed = self.pin_changed
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Free the pin, its edge callback first: lgpio's pin ``close()`` keeps the
        callback registered with lgpio's one callback thread, and the next pin factory
        gets the same chip handle, so its edges would reach this closed pin, whose
        dead hook then makes gpiozero touch the closed factory and kills that thread
        (no presses at all after a backend was re-opened in the same process)."""
        try:
            pin = self._pin
            if pin is not None:
                pin.when_changed = None
        except Exception:  # closing must not hide the reason we are closing
            pass
        try:
            super().close()
        except Exception:
            # the chip went away under the pin (lgpio: "unexpected error"): nothing is left
            # to free, and gpiozero's __del__ must not try again
            self._pin = None
            raise

    def pin_changed(self, ticks, state) -> None:
        """The pin's ``when_changed``: an edge at ``ticks``, the pin now at ``state``."""
        self.when_edge(ticks, bool(state) == self.active_level)


@dataclass(frozen=True)
class InputStats:
    """What :meth:`GPIOBackend.stats` tells about one input (for test-buttons)."""

    pin: str
    pressed: bool
    edges: int
    presses: int
    press_bounces: int
    """Bounce edges after the latest press edge (while it was held)."""
    release_bounces: int
    """Bounce edges after the latest release edge."""


BOARD_HINT = ("no Raspberry Pi revision in /proc/device-tree or /proc/cpuinfo: set [gpio] "
              "board_revision to the revision code of the Pi whose GPIO numbers the chip's lines "
              "follow (e.g. \"c03111\", a Pi 4B)")


def lgpio_workdir() -> str | None:
    """Make sure lgpio can create its notification pipes (``.lgd-nfy*``).

    lgpio makes them in ``$LG_WD``, else in the working directory, when it is
    imported; in a read-only one (a service started in ``/``) the import fails.
    With no ``LG_WD`` and a working directory we may not write, ``LG_WD`` is
    pointed at a private folder (``$XDG_RUNTIME_DIR/buzzer-lgpio``, else one in the
    temporary folder, mode 0700). Returns the folder lgpio will use, or None when
    no writable one could be had (lgpio's import then fails and is reported).
    """
    import os
    import tempfile
    wd = os.environ.get("LG_WD")
    if wd:
        return wd if os.access(wd, os.W_OK | os.X_OK) else None
    if os.access(".", os.W_OK | os.X_OK):
        return os.getcwd()
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    folder = os.path.join(base, f"buzzer-lgpio-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if st.st_uid != os.getuid() or not os.access(folder, os.W_OK | os.X_OK):
            return None
    except OSError:
        return None
    os.environ["LG_WD"] = folder   # putenv: lgpio's C library reads it when it is loaded
    return folder


def make_pin_factory(name: str, board_revision: str = ""):
    """The gpiozero pin factory named in config (``""``: gpiozero's default).

    ``board_revision`` (``[gpio] board_revision``, a Pi revision code in hex) gives
    the factory the board whose header the pins are named by, where gpiozero finds
    none to read (a board that is not a Pi, a container): gpiozero's local pin
    factories take their board from ``_get_revision()``, which is overridden here.

    gpiozero warns (``PinFactoryFallback``) about every factory it tries and
    cannot load; those warnings are caught here, so that a machine without GPIO
    gets one line naming the problem instead of a screenful of warnings.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        return _make_pin_factory(name, caught, board_revision)


RELATIVE_TICKS = frozenset({"pigpio"})
"""Pin factories (by the name gpiozero registers them under) whose edge ticks count from the
daemon's own start, not the monotonic clock."""

NO_EDGE_TIMESTAMPS = frozenset({"rpigpio"})
"""Pin factories that give no edge timestamps (a callback's run time is all there is)."""

CHIP_DEVICE = frozenset({"lgpio"})
"""Pin factories holding a /dev/gpiochipN open (``factory.chip``), which can go away."""


def registered_name(factory) -> str:
    """The name gpiozero registers ``factory``'s class under (its ``gpiozero_pin_factories``
    entry points: "lgpio", "mock" ...), or "" for none.  Only entry points whose module is
    already imported are looked at: a factory's class is, so nothing new is loaded."""
    if factory is None:
        return ""
    import sys
    from importlib.metadata import entry_points
    for ep in entry_points(group="gpiozero_pin_factories"):
        cls = getattr(sys.modules.get(ep.module), ep.attr, None)
        if isinstance(cls, type) and isinstance(factory, cls):
            return ep.name
    return ""


def _with_board(cls, board_revision: str):
    """``cls`` (a gpiozero pin factory class) reporting ``board_revision`` as its board."""
    if not board_revision:
        return cls
    revision = int(board_revision, 16)
    return type(cls.__name__, (cls,), {"_get_revision": lambda self: revision,
                                       "__module__": cls.__module__})


def _make_pin_factory(name: str, caught: list, board_revision: str = ""):
    import os
    try:
        if name in ("", "lgpio"):
            lgpio_workdir()
        if not name and board_revision:
            # a board given: gpiozero's own choice cannot take it, so name the factory
            name = os.environ.get("GPIOZERO_PIN_FACTORY", "") or "lgpio"
        if not name:
            Device.ensure_pin_factory()
            return Device.pin_factory
        if name == "mock" and registered_name(Device.pin_factory) == "mock":
            return Device.pin_factory
        from importlib.metadata import entry_points
        for ep in entry_points(group="gpiozero_pin_factories"):
            if ep.name == name:
                return _with_board(ep.load(), board_revision)()
        raise BadPinFactory(f"unknown pin factory {name!r}")
    except (BadPinFactory, ImportError, OSError, RuntimeError, GPIOZeroError) as exc:
        if isinstance(exc, PinUnknownPi) and "unable to locate" in str(exc):
            exc = BOARD_HINT
        # the first factory gpiozero fell back from (lgpio) says best what is missing
        tried = [str(w.message).removeprefix("Falling back from ") for w in caught
                 if "Falling back from" in str(w.message)]
        if tried:
            if "unable to locate Pi revision" in tried[0]:
                tried[0] = BOARD_HINT
            exc = f"{exc} ({tried[0]})"
        raise NoPinFactory(name, str(exc)) from None


class GPIOBackend(ButtonBackend):
    """Player buttons, lamps, a beeper and host buttons on GPIO pins.

    ``options`` is the validated ``[gpio]`` config section; missing keys take
    their defaults.  Pins are opened at construction, so a bad pin is reported
    at once (as a :class:`~controller.core.errors.ConfigError` naming the key);
    events flow from :meth:`start` on.
    """

    name = "gpio"

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        opts = _option_defaults()
        opts.update(options or {})
        super().__init__(buttons, clock, sink, opts)
        self._window = int(round(float(opts["debounce_ms"]) * NS_PER_MS))
        self._quiet = int(round(float(opts["quiet_ms"]) * NS_PER_MS))
        # the quiet period counted in the callback thread's own time (controller.inputs.stall)
        self._stall = CpuStall(self._quiet)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._running = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self._inputs: dict[str, EdgeInput] = {}
        self._host_inputs: dict[str, EdgeInput] = {}
        self._debouncers: dict[str, Debouncer] = {}
        self._pins: dict[str, str] = {}
        self._leds: dict[str, LED] = {}
        self._buzzer: Buzzer | None = None
        self.factory = make_pin_factory(opts["pin_factory"], opts.get("board_revision", ""))
        # a factory made for this backend (not gpiozero's shared default) holds the chip
        # open (lgpio: /dev/gpiochipN) until it is closed: close() closes it too
        self._own_factory = self.factory is not Device.pin_factory
        kind = registered_name(self.factory)
        self._relative_ticks = kind in RELATIVE_TICKS
        self._edge_timestamps = kind not in NO_EDGE_TIMESTAMPS
        self._chip_device = kind in CHIP_DEVICE
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------

    def _input_kwargs(self) -> dict[str, Any]:
        pull_up, active_low = self.options["pull_up"], self.options["active_low"]
        if pull_up and not active_low:
            raise ConfigError("gpio.active_low", "must be true with pull_up = true (a pulled-up "
                              "input reads high when idle, so pressed is low)")
        if pull_up:
            return {"pull_up": True}
        if not active_low:
            return {"pull_up": False}           # internal pull-down, pressed = high
        return {"pull_up": None, "active_state": False}  # external pull-up resistor

    def _open_input(self, key: str, pin, ident: str) -> None:
        def when_edge(ticks, active, ident=ident):
            self._edge(ident, ticks, active)
        try:
            device = EdgeInput(pin, when_edge=when_edge, pin_factory=self.factory, **self._input_kwargs())
        except ConfigError:
            raise
        except (PinInvalidPin, GPIOPinInUse, PinError, ValueError) as exc:
            raise ConfigError(key, f"cannot use pin {pin!r} as an input: {exc}") from None
        except GPIOZeroError as exc:
            raise BackendError(f"{key}: pin {pin!r}: {exc}") from None
        # when_edge is a closure held only by the device: keep both alive here
        self._pins[ident] = str(pin)
        if ident.startswith("host:"):
            self._host_inputs[ident] = device
        else:
            self._inputs[ident] = device

    def _open_output(self, key: str, pin, cls, active_high: bool):
        try:
            return cls(pin, active_high=active_high, initial_value=False, pin_factory=self.factory)
        except (PinInvalidPin, GPIOPinInUse, PinError, ValueError) as exc:
            raise ConfigError(key, f"cannot use pin {pin!r} as an output: {exc}") from None
        except GPIOZeroError as exc:
            raise BackendError(f"{key}: pin {pin!r}: {exc}") from None

    def _open(self) -> None:
        pins, lamps = self.options["pins"], self.options["lamps"]
        for button in self.buttons:
            if button not in pins:
                raise ConfigError(f"gpio.pins.{button}", f"no input pin for button {button}")
            self._open_input(f"gpio.pins.{button}", pins[button], button)
        for action, pin in self.options["host_pins"].items():
            self._open_input(f"gpio.host_pins.{action}", pin, f"host:{action}")
        for button, pin in lamps.items():
            if button in self.buttons:
                self._leds[button] = self._open_output(
                    f"gpio.lamps.{button}", pin, LED, self.options["lamp_active_high"])
        if self.options["buzzer_pin"]:
            self._buzzer = self._open_output("gpio.buzzer_pin", self.options["buzzer_pin"], Buzzer, True)

    # -- time ----------------------------------------------------------------

    def _ticks_to_engine(self, ticks) -> int:
        """Engine time of an edge from its pin factory ``ticks``."""
        if ticks is None:
            return self.clock.now()
        if self._relative_ticks:
            # pigpio: a wrapping 32-bit microsecond counter of its own
            age_us = self.factory.ticks_diff(self.factory.ticks(), ticks)
            return self.clock.from_monotonic_ns(time.monotonic_ns() - int(age_us) * 1000)
        return self.clock.from_monotonic_s(ticks)

    def _factory_now(self) -> int:
        """The current time on the scale of edge timestamps (engine ns)."""
        if self._relative_ticks:
            return self.clock.from_monotonic_ns(time.monotonic_ns())
        return self.clock.from_monotonic_s(self.factory.ticks())

    # -- events ----------------------------------------------------------------

    def _deliver(self, ident: str, transitions: list[Transition]) -> None:
        """Hand accepted transitions on (called with the lock held)."""
        if not transitions:
            return
        if ident.startswith("host:"):
            # a host button: its action, as a keypad key gives it (no params on a pin)
            for tr in transitions:
                if tr.pressed:
                    self.sink(HostKey(ident[5:]))
            return
        if any(tr.pressed for tr in transitions):
            # the stall counts from here: before the press is queued, so that the loop can
            # never decide on it before it can hold the decision back
            self._stall.mark()
        delivered = self.clock.now()
        for tr in transitions:
            if tr.pressed:
                # callbacks of different lines may run out of time order: say how long the
                # arbiter must wait for an earlier edge still to come (controller.core.arbiter)
                self.sink(Press(ident, tr.at, delivered, self._quiet))
            else:
                self.sink(Release(ident, tr.at, delivered))

    def _edge(self, ident: str, ticks, active: bool) -> None:
        at = self._ticks_to_engine(ticks)
        with self._lock:
            if not self._running:
                return
            deb = self._debouncers[ident]
            self._deliver(ident, deb.edge(at, active))
            if deb.due() is not None:
                self._wake.notify()

    def poll(self) -> None:
        """Settle every button whose debounce window has passed.

        The backend's own thread calls this; tests with a pinned mock clock
        call it directly after moving the clock on.
        """
        with self._lock:
            self._poll_locked()

    def _poll_locked(self) -> None:
        if not self._running:
            return
        now = self._factory_now()
        for ident, deb in self._debouncers.items():
            self._deliver(ident, deb.settle(now))

    def _settle_loop(self) -> None:
        interval = max(self._window / 1e9, 0.001)
        with self._wake:
            while not self._closed:
                pending = any(d.due() is not None for d in self._debouncers.values())
                self._wake.wait(interval if pending else None)
                if not self._closed:
                    self._poll_locked()

    def start(self) -> None:
        """Start delivering events.

        A button already held down is reported at once as a Press stamped
        now, so that the engine can tell the host it is stuck; its Release
        follows when it comes up.
        """
        if self._running:
            return
        with self._lock:
            now = self._factory_now()
            delivered = self.clock.now()
            devices = {**self._inputs, **self._host_inputs}
            for ident, device in devices.items():
                held = bool(device.is_active)
                self._debouncers[ident] = Debouncer(self._window, pressed=held, at=now)
                if held and not ident.startswith("host:"):
                    self.sink(Press(ident, now, delivered))
            self._running = True
        self._thread = threading.Thread(target=self._settle_loop, name="gpio-debounce", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop events, switch lamps off and free the pins."""
        with self._lock:
            self._running = False
            self._closed = True
            self._wake.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        for led in self._leds.values():  # a freed pin may keep its level: switch off first
            try:
                led.off()
            except Exception:
                pass
        for device in [*self._leds.values(), *([self._buzzer] if self._buzzer else []),
                       *self._inputs.values(), *self._host_inputs.values()]:
            try:
                device.close()
            except Exception:  # closing must not hide the reason we are closing
                try:  # (a chip that went away): gpiozero's __del__ must not close it again
                    device._pin = None
                except Exception:
                    pass
        self._leds.clear()
        self._inputs.clear()
        self._host_inputs.clear()
        self._buzzer = None
        if self._own_factory:
            try:
                self.factory.close()
            except Exception:
                pass
        self._stall.close()

    def input_stall_ns(self) -> int:
        return self._stall.since_mark()

    # -- outputs ---------------------------------------------------------------

    def set_lamp(self, button: str, state: str) -> None:
        previous = self.lamps.get(button)
        super().set_lamp(button, state)
        led = self._leds.get(button)
        if led is None or self._closed:
            return
        if state == "on":
            led.on()
        elif state == "off":
            led.off()
        elif previous != "blink":  # re-starting would jump the blink phase
            half = self.options["blink_ms"] / 1000.0
            led.blink(on_time=half, off_time=half)

    def has_lamp(self, button: str) -> bool:
        return button in self._leds

    def beep(self, name: str) -> None:
        """Sound the optional buzzer pin for the named sound (no-op without one)."""
        if self._buzzer is None or self._closed:
            return
        n = BEEPS.get(name, 1)
        t = self.options["beep_ms"] / 1000.0
        self._buzzer.beep(on_time=t, off_time=t, n=n, background=True)

    # -- reports ---------------------------------------------------------------

    def edges_seen(self) -> dict[str, int]:
        """Raw edges seen per player button since :meth:`start` (bounce included).

        A button with 0 at the end of a game never changed state: it may be
        unplugged or miswired.
        """
        with self._lock:
            return {b: (self._debouncers[b].edges if b in self._debouncers else 0) for b in self.buttons}

    def stats(self) -> dict[str, InputStats]:
        """Per input (player buttons by id, host buttons as ``host:<action>``)."""
        with self._lock:
            out = {}
            for ident, pin in self._pins.items():
                deb = self._debouncers.get(ident)
                if deb is None:
                    out[ident] = InputStats(pin, False, 0, 0, 0, 0)
                    continue
                out[ident] = InputStats(pin, deb.stable, deb.edges, deb.presses,
                                        deb.bounces_of[True], deb.bounces_of[False])
            return out

    def chip_gone(self) -> str | None:
        """The GPIO chip device lgpio opened, when it has gone away (an unplugged
        GPIO expander, a removed overlay, the kernel tests' gpio-sim), else None."""
        chip = getattr(self.factory, "chip", None)
        if not self._chip_device or not isinstance(chip, int):
            return None
        import os
        path = f"/dev/gpiochip{chip}"
        return None if os.path.exists(path) else path

    def status(self) -> BackendStatus:
        factory = type(self.factory).__name__
        stamps = "edge" if self._edge_timestamps else "callback"
        detail = f"{factory}, {len(self._inputs)} buttons, {len(self._leds)} lamps"
        if not self._edge_timestamps:
            detail += "; no edge timestamps with RPi.GPIO, use lgpio"
        gone = self.chip_gone()
        if gone is not None:
            detail = f"{gone} is gone: no presses come from its pins ({detail})"
        return BackendStatus(self.name, not self._closed and gone is None, detail,
                             extra={"pin_factory": factory, "timestamps": stamps,
                                    "pins": dict(self._pins)})
