"""Buttons and lamps on a GPIO chip through libgpiod v2 (``buttons = "gpiod"``).

One kernel line request holds every button line and every host pin, with both edges
detected.  The kernel puts the edges of all its lines on one file descriptor **in the
order it detected them**, each with its own timestamp (``CLOCK_MONOTONIC``, the engine
clock's source), a request-wide ``global_seqno`` and a per-line ``line_seqno``
(Documentation/userspace-api/gpio/gpio-v2-line-event-read.rst).  So the first press read
is the earliest: the presses are an *ordered stream* (``Press.stream``), as the serial
box's are, and the arbiter decides at once when a later edge arrives, waiting only the
settle window for a press that ties with the first (:mod:`controller.core.arbiter`).

* **No kernel debounce.**  The kernel stamps a debounced edge when the debounce period
  ends, not when the contacts first closed.  Every edge is read, labelled by the kernel
  with the edge that fired (falling and rising edges are both requested), and run through
  the project's one rule (:mod:`controller.inputs.debounce`): the first edge of a bounce
  train keeps its stamp.
* **Ties.**  The kernel stamps an edge when it services the interrupt.  The BCM2835 /
  BCM2711 driver (Pi 1-4) walks a bank's pending pins in pin-number order inside one
  interrupt, so two edges latched before it ran get stamps a per-pin service step apart,
  in pin order, whatever their true order.  Stamps closer than ``[gpio] tie_us`` are
  therefore a tie (``Press.tie``), broken by ``[arbiter] tie_rule`` and told to the host.
* **Lost edges.**  The kernel's buffer for the request (16 edges per line) drops the
  oldest edge when it is full.  A gap in ``global_seqno`` is told to the host (which
  lines lost edges, by ``line_seqno``), and the race it falls in goes back to waiting:
  the presses read within ``[gpio] quiet_ms`` of the gap are not a stream, so the arbiter
  waits its settle window and the quiet period, as on the lgpio path.
* **A chip that goes away** (unplugged, the driver unbound) is one notice to the host
  (an :class:`~controller.core.events.InputStatus`), the buttons are reported missing and
  the game goes on; nothing is raised.

Lamps and the beeper are lines of a second request on the same chip, driven from a small
thread of this module (blink and beep timing), so that the backend needs nothing but
``gpiod``.  The chip is ``[gpio] chip`` (``""``: the Pi's header chip found by its label,
``pinctrl-rp1`` on a Pi 5, ``pinctrl-bcm2711`` on a Pi 4, ``pinctrl-bcm2835`` before;
else ``gpiochip0``); pins are named as for the gpio backend (``"GPIO17"``, ``"BOARD11"``).
"""

from __future__ import annotations

import errno
import glob
import os
import re
import select
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Mapping, Sequence

from controller.inputs.options import GPIO
from controller.inputs.clock import EngineClock
from controller.core.errors import BackendError, BackendUnavailable, ConfigError
from controller.core.events import NS_PER_MS, NS_PER_US, HostKey, InputStatus, Press, Release
from controller.inputs.base import BackendStatus, ButtonBackend, Sink
from controller.inputs.debounce import Debouncer, Transition
from controller.inputs.stall import CpuStall

try:
    import gpiod
    from gpiod.line import Bias, Direction, Edge, Value
except ImportError as exc:  # pragma: no cover - depends on the machine
    raise BackendUnavailable(f"the gpiod backend needs the gpiod package (pip install "
                             f"'buzzer-controller[gpiod]'): {exc}") from None

BEEPS = {"press": 1, "right": 1, "wrong": 2, "false_start": 3, "time_up": 4, "start": 1, "warning": 1}
"""How many beeps the optional buzzer pin gives for each sound name (as on the gpio backend)."""

HEADER_LABELS = ("pinctrl-rp1", "pinctrl-bcm2712", "pinctrl-bcm2711", "pinctrl-bcm2835")
"""Labels of the chip that carries a Raspberry Pi's 40-pin header, newest first."""

BOARD_TO_BCM = {3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24,
                19: 10, 21: 9, 22: 25, 23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12,
                33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21}
"""Physical pin of the 40-pin header -> Broadcom GPIO number (the line offset on the header chip)."""

PENDING_HOLD_NS = 1_000_000_000
"""While edges wait in the kernel's buffer (or are being read), a due decision is held back
by up to this much: re-asked at every turn of the loop, it ends as soon as they are read."""

HOLE_WAIT_NS = 20_000_000
"""How long an edge read before one with a lower number (another line's, still in its
interrupt thread) waits for it; then the missing numbers count as lost."""

SKIPPED_KEPT = 256
"""How many numbers given up as lost are remembered, for an edge that comes after all."""

PENDING_CAP_NS = 200_000_000
"""Edges pending without a break for longer than this (a floating input chattering) hold
no decision back any more."""


def _option_defaults() -> dict[str, Any]:
    return {k.name: k.default for k in GPIO.keys}


def line_offset(key: str, pin: Any) -> int:
    """The line offset of a pin as config names it: ``GPIO17`` / ``BCM17`` / ``17`` -> 17,
    ``BOARD11`` / ``J8:11`` / ``P1:11`` -> 17 (the header's physical pin)."""
    if isinstance(pin, int) and not isinstance(pin, bool):
        return pin
    text = str(pin).strip().upper()
    m = re.fullmatch(r"(GPIO|BCM)?(\d+)", text)
    if m:
        return int(m.group(2))
    m = re.fullmatch(r"(BOARD|J8:|P1:)(\d+)", text)
    if m:
        n = int(m.group(2))
        if n not in BOARD_TO_BCM:
            raise ConfigError(key, f"header pin {n} is not a GPIO pin (power, ground or ID EEPROM)")
        return BOARD_TO_BCM[n]
    raise ConfigError(key, f"the gpiod backend names pins GPIO17, BCM17, 17 or BOARD11, got {pin!r}")


def _chip_number(path: str) -> int:
    m = re.search(r"(\d+)$", path)
    return int(m.group(1)) if m else 1 << 30


def chip_label(path: str) -> str | None:
    """The label of the GPIO chip at ``path`` (None if it cannot be opened)."""
    try:
        with gpiod.Chip(path) as chip:
            return chip.get_info().label
    except (OSError, ValueError):
        return None


def find_chip(name: str) -> tuple[str, str]:
    """``(path, why)`` of the chip ``[gpio] chip`` names: a path, ``gpiochipN``, ``N`` or a
    chip's label; ``""`` picks the Pi's header chip by its label, else ``gpiochip0``."""
    chips = sorted(glob.glob("/dev/gpiochip*"), key=_chip_number)
    if name:
        if name.startswith("/"):
            return name, "[gpio] chip"
        if re.fullmatch(r"\d+", name):
            return f"/dev/gpiochip{name}", "[gpio] chip"
        if re.fullmatch(r"gpiochip\d+", name):
            return f"/dev/{name}", "[gpio] chip"
        for path in chips:
            if chip_label(path) == name:
                return path, f"[gpio] chip: the chip labelled {name}"
        raise BackendUnavailable(f"[gpio] chip = {name!r}: no GPIO chip is labelled so "
                                 f"(chips: {_chip_list(chips)})")
    labels = {path: chip_label(path) for path in chips}
    for wanted in HEADER_LABELS:
        for path in chips:
            if labels[path] == wanted:
                return path, f"the Raspberry Pi header chip ({wanted})"
    if chips:
        return chips[0], "the first GPIO chip (no Raspberry Pi header chip found)"
    return "/dev/gpiochip0", "gpiochip0"


def _chip_list(chips: Sequence[str]) -> str:
    return ", ".join(f"{os.path.basename(p)} ({chip_label(p) or '?'})" for p in chips) or "none"


@dataclass(frozen=True)
class InputStats:
    """What :meth:`GpiodBackend.stats` tells about one input (for test-buttons), as the gpio
    backend's, with the line."""

    pin: str
    pressed: bool
    edges: int
    presses: int
    press_bounces: int
    release_bounces: int
    line: int = -1


@dataclass(frozen=True)
class Edge_:
    """One edge as the kernel reported it (for ``buzzer test-buttons``)."""

    ident: str
    line: int
    rising: bool
    timestamp_ns: int
    global_seqno: int
    line_seqno: int


class _Outputs:
    """Lamps and the beeper: output lines of one request, blinks and beeps timed here."""

    def __init__(self, path: str, lines: Mapping[str, int], active_high: Mapping[str, bool],
                 blink_s: float, beep_s: float, consumer: str):
        self.lines = dict(lines)
        self.active_high = dict(active_high)
        self.blink_s, self.beep_s = blink_s, beep_s
        self.req = None
        self.lost = False
        self._lock = threading.Condition()
        self._level: dict[str, bool] = {k: False for k in self.lines}
        self._blink: dict[str, float] = {}          # name -> next toggle (monotonic s)
        self._beeps: list[float] = []               # toggle times of the beeper
        self._closed = False
        self._thread: threading.Thread | None = None
        if not self.lines:
            return
        settings = {}
        for name, offset in self.lines.items():
            settings[offset] = gpiod.LineSettings(direction=Direction.OUTPUT,
                                                  output_value=self._value(name, False))
        self.req = gpiod.request_lines(path, consumer=consumer, config=settings)
        self._thread = threading.Thread(target=self._run, name="gpiod-lamps", daemon=True)
        self._thread.start()

    def _value(self, name: str, on: bool) -> Value:
        return Value.ACTIVE if on == self.active_high.get(name, True) else Value.INACTIVE

    def _write(self, name: str, on: bool) -> None:
        self._level[name] = on
        if self.req is None or self.lost:
            return
        try:
            self.req.set_value(self.lines[name], self._value(name, on))
        except (OSError, ValueError, gpiod.RequestReleasedError):
            self.lost = True          # the chip went away: the backend tells the host once

    def set(self, name: str, state: str) -> None:
        import time
        with self._lock:
            if name not in self.lines:
                return
            if state == "blink":
                if name not in self._blink:
                    self._write(name, True)
                    self._blink[name] = time.monotonic() + self.blink_s
            else:
                self._blink.pop(name, None)
                self._write(name, state == "on")
            self._lock.notify()

    def beep(self, n: int) -> None:
        import time
        with self._lock:
            if "buzzer" not in self.lines:
                return
            now = time.monotonic()
            self._beeps = [now + k * self.beep_s for k in range(2 * n)]
            self._lock.notify()

    def _run(self) -> None:
        import time
        with self._lock:
            while not self._closed:
                now = time.monotonic()
                for name, due in list(self._blink.items()):
                    if now >= due:
                        self._write(name, not self._level[name])
                        self._blink[name] = due + self.blink_s if due + self.blink_s > now else now + self.blink_s
                while self._beeps and now >= self._beeps[0]:
                    self._beeps.pop(0)
                    self._write("buzzer", len(self._beeps) % 2 == 1)
                nxt = min([*self._blink.values(), *self._beeps[:1]], default=None)
                self._lock.wait(None if nxt is None else max(0.0, nxt - time.monotonic()))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for name in self.lines:
                self._write(name, False)   # a freed line may keep its level: switch off first
            self._lock.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        if self.req is not None:
            try:
                self.req.release()
            except (OSError, gpiod.RequestReleasedError):
                pass
            self.req = None


class GpiodBackend(ButtonBackend):
    """Player buttons, host buttons, lamps and a beeper on one GPIO chip through libgpiod v2.

    ``options`` is the validated ``[gpio]`` section (missing keys take their defaults), plus
    ``settle_ms`` (``[arbiter] settle_ms``: how long a first press waits for one that ties
    with it).  Lines are requested at construction: a missing chip, a line in use or no
    permission is one :class:`~controller.core.errors.BackendError` line naming the chip and
    the line; events flow from :meth:`start` on.
    """

    name = "gpiod"

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        opts = _option_defaults()
        opts.setdefault("settle_ms", 2.0)
        opts.update(options or {})
        super().__init__(buttons, clock, sink, opts)
        self._window = int(round(float(opts["debounce_ms"]) * NS_PER_MS))
        self._quiet = int(round(float(opts["quiet_ms"]) * NS_PER_MS))
        self._tie_wait = int(round(float(opts["settle_ms"]) * NS_PER_MS))
        self._tie = int(round(float(opts["tie_us"]) * NS_PER_US))
        self._stall = CpuStall(self._quiet)
        self._lock = threading.Lock()
        self._running = False
        self._closed = False
        self._busy = False
        self._pending_since: int | None = None
        self._lost: str | None = None
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._debouncers: dict[str, Debouncer] = {}
        self._line_of: dict[str, int] = {}
        self._ident_of: dict[int, str] = {}
        self._pins: dict[str, str] = {}
        self._last_global = 0
        self._last_line: dict[int, int] = {}
        self._held: dict[int, Any] = {}          # global_seqno -> edge read but not yet taken
        self._hole_since: int | None = None      # since when a number before a held one is missing
        self._skipped: dict[int, int] = {}       # global_seqno given up as lost -> the line counted for it
        self._fallback_until = -1
        self.overflows = 0
        self.lost_edges = 0
        self.lost_by_line: dict[int, int] = {}
        self.recent: list[Edge_] = []
        """The latest raw edges as the kernel gave them (for test-buttons; the newest 64)."""
        self.req = None
        self.outputs: _Outputs | None = None
        self.chip_path, self.chip_why = find_chip(str(opts.get("chip") or ""))
        self.chip = os.path.basename(self.chip_path)
        self.label = ""
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------

    def _bias(self) -> Bias:
        pull_up, active_low = self.options["pull_up"], self.options["active_low"]
        if pull_up and not active_low:
            raise ConfigError("gpio.active_low", "must be true with pull_up = true (a pulled-up "
                              "input reads high when idle, so pressed is low)")
        if pull_up:
            return Bias.PULL_UP
        return Bias.PULL_DOWN if not active_low else Bias.DISABLED

    def _where(self, offsets: Sequence[int]) -> str:
        names = [f"line {o} ({self._what(o)})" for o in offsets]
        return f"{self.chip_path} {', '.join(names)}"

    def _what(self, offset: int) -> str:
        ident = self._ident_of.get(offset)
        if ident is None:
            return "lamp"
        return f"host button {ident[5:]}" if ident.startswith("host:") else f"button {ident}"

    def _open(self) -> None:
        pins = self.options["pins"]
        wanted: list[tuple[str, str, Any]] = []
        for button in self.buttons:
            if button not in pins:
                raise ConfigError(f"gpio.pins.{button}", f"no input pin for button {button}")
            wanted.append((f"gpio.pins.{button}", button, pins[button]))
        for action, pin in self.options["host_pins"].items():
            wanted.append((f"gpio.host_pins.{action}", f"host:{action}", pin))
        used: dict[int, str] = {}
        for key, ident, pin in wanted:
            offset = line_offset(key, pin)
            if offset in used:
                raise ConfigError(key, f"line {offset} is also {used[offset]}")
            used[offset] = key
            self._line_of[ident] = offset
            self._ident_of[offset] = ident
            self._pins[ident] = str(pin)
        outputs: dict[str, int] = {}
        active_high: dict[str, bool] = {}
        for button, pin in self.options["lamps"].items():
            if button in self.buttons:
                key = f"gpio.lamps.{button}"
                offset = line_offset(key, pin)
                if offset in used:
                    raise ConfigError(key, f"line {offset} is also {used[offset]}")
                used[offset] = key
                outputs[button] = offset
                active_high[button] = bool(self.options["lamp_active_high"])
        if self.options["buzzer_pin"]:
            offset = line_offset("gpio.buzzer_pin", self.options["buzzer_pin"])
            if offset in used:
                raise ConfigError("gpio.buzzer_pin", f"line {offset} is also {used[offset]}")
            outputs["buzzer"] = offset
            active_high["buzzer"] = True
        all_lines = [*self._ident_of, *outputs.values()]
        self._check_chip(all_lines)
        settings = gpiod.LineSettings(direction=Direction.INPUT, edge_detection=Edge.BOTH,
                                      bias=self._bias(), debounce_period=timedelta(0))
        try:
            self.req = gpiod.request_lines(self.chip_path, consumer="buzzer",
                                           config={tuple(self._ident_of): settings})
            self.outputs = _Outputs(self.chip_path, outputs, active_high,
                                    float(self.options["blink_ms"]) / 1000.0,
                                    float(self.options["beep_ms"]) / 1000.0, "buzzer")
        except OSError as exc:
            raise self._request_error(exc, all_lines) from None
        self._fd = self.req.fd

    def _check_chip(self, lines: Sequence[int]) -> None:
        """The chip opens and has every line: else one line naming the chip and the line."""
        try:
            with gpiod.Chip(self.chip_path) as chip:
                info = chip.get_info()
                self.label = info.label
                for o in lines:
                    if o >= info.num_lines:
                        raise BackendError(f"{self._where([o])}: {self.chip} ({info.label}) has "
                                           f"lines 0-{info.num_lines - 1} only")
        except FileNotFoundError:
            raise BackendUnavailable(f"{self.chip_path}: no such GPIO chip ({self.chip_why}); "
                                     f"wanted for {self._where(lines)}; chips here: "
                                     f"{_chip_list(sorted(glob.glob('/dev/gpiochip*'), key=_chip_number))}"
                                     ) from None
        except PermissionError:
            raise BackendError(f"{self.chip_path}: no permission to open it (wanted for "
                               f"{self._where(lines)}): add the user to the gpio group "
                               f"(sudo adduser $USER gpio, then log in again)") from None
        except OSError as exc:
            if isinstance(exc, BackendError):
                raise
            raise BackendError(f"{self.chip_path}: not a GPIO chip ({exc.strerror or exc}); wanted "
                               f"for {self._where(lines)}") from None

    def _request_error(self, exc: OSError, lines: Sequence[int]) -> BackendError:
        if exc.errno == errno.EBUSY:
            try:
                with gpiod.Chip(self.chip_path) as chip:
                    for o in lines:
                        info = chip.get_line_info(o)
                        if info.used:
                            who = f" by {info.consumer!r}" if info.consumer else ""
                            return BackendError(f"{self._where([o])} is in use{who}: stop the "
                                                f"program that holds it, or pick another pin")
            except OSError:
                pass
            return BackendError(f"{self._where(lines)}: a line is in use")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return BackendError(f"{self.chip_path}: no permission (wanted for {self._where(lines)}): "
                                f"add the user to the gpio group")
        return BackendError(f"{self._where(lines)}: cannot request the lines: {exc.strerror or exc}")

    # -- events ----------------------------------------------------------------

    def _deliver(self, ident: str, transitions: list[Transition], fallback: bool) -> None:
        """Hand accepted transitions on (called with the lock held)."""
        if not transitions:
            return
        if ident.startswith("host:"):
            for tr in transitions:
                if tr.pressed:
                    self.sink(HostKey(ident[5:]))
            return
        if fallback and any(tr.pressed for tr in transitions):
            self._stall.mark()
        delivered = self.clock.now()
        for tr in transitions:
            if tr.pressed and fallback:
                # edges were lost just before: this race waits, as the lgpio path does
                self.sink(Press(ident, tr.at, delivered, self._quiet, tie=self._tie))
            elif tr.pressed:
                self.sink(Press(ident, tr.at, delivered, self._tie_wait, stream=True, tie=self._tie))
            else:
                self.sink(Release(ident, tr.at, delivered))

    def _events(self, events) -> None:
        """Edges read from the request (called with the lock held).

        The kernel stamps an edge and numbers it (``global_seqno``) in the interrupt itself,
        but each line's event is put in the buffer by that line's interrupt *thread*: edges
        of two lines a few µs apart can be read in the other order.  So they are taken in
        ``global_seqno`` order; a number not read yet is waited for (:data:`HOLE_WAIT_NS`)
        unless a ``line_seqno`` gap shows that the kernel dropped edges (its buffer was full:
        it drops the oldest). An edge whose number was given up comes late, then: it is taken
        (in the quiet period's fallback), not dropped, and no longer counted lost."""
        lost_lines: dict[int, int] = {}
        late = []
        for ev in events:
            prev = self._last_line.get(ev.line_offset, 0)
            if ev.line_seqno > prev + 1:
                lost_lines[ev.line_offset] = lost_lines.get(ev.line_offset, 0) + ev.line_seqno - prev - 1
            self._last_line[ev.line_offset] = max(prev, ev.line_seqno)
            if ev.global_seqno > self._last_global:
                self._held[ev.global_seqno] = ev
            elif ev.global_seqno in self._skipped:
                # a number given up as lost (its line's thread ran more than HOLE_WAIT_NS late):
                # the edge came after all and is taken, never dropped; it was not lost
                line = self._skipped.pop(ev.global_seqno)
                self.lost_edges -= 1
                if self.lost_by_line.get(line):
                    self.lost_by_line[line] -= 1
                late.append(ev)
        self._drain_held(force=bool(lost_lines), lost_lines=lost_lines)
        for ev in late:   # the race around it waits the quiet period (it follows a gap)
            self._take(ev, fallback=True)

    def _drain_held(self, force: bool = False, lost_lines: dict[int, int] | None = None) -> None:
        """Process the held edges in number order, up to the first number not read yet;
        ``force``: past every missing number (they are lost)."""
        now = self.clock.now()
        if not force and self._hole_since is not None and now - self._hole_since >= HOLE_WAIT_NS:
            force = True
        ready = []
        lost = 0
        after_gap: dict[int, int] = {}   # line -> numbers missing just before one of its edges
        for seq in sorted(self._held):
            if seq != self._last_global + 1:
                if not force:
                    break
                lost += seq - self._last_global - 1
                o = self._held[seq].line_offset
                after_gap[o] = after_gap.get(o, 0) + seq - self._last_global - 1
                for missing in range(self._last_global + 1, seq):
                    self._skipped[missing] = o   # (counted against o below, unless a line's gap says)
            ready.append(self._held.pop(seq))
            self._last_global = seq
        self._hole_since = (self._hole_since or now) if self._held else None
        if lost or lost_lines:
            self.overflows += 1
            self.lost_edges += lost
            # a line's interrupt thread that runs once for several of its interrupts puts one
            # event in the buffer, numbered by the latest: the request's numbers skip while the
            # line's own do not. Numbers no line_seqno gap explains are that line's: the line of
            # the edge read right after them
            by_line = dict(lost_lines or {})
            if lost > sum(by_line.values()):
                for o, n in after_gap.items():
                    by_line[o] = max(by_line.get(o, 0), n)
            for o, n in by_line.items():
                self.lost_by_line[o] = self.lost_by_line.get(o, 0) + n
            # the race around the gap waits (settle window + quiet period) instead of trusting
            # the stream: the presses read now and for the quiet period after
            self._fallback_until = now + self._quiet
            where = ", ".join(f"line {o} ({self._what(o)}): {n}" for o, n in sorted(by_line.items()))
            self.sink(InputStatus("gpio-overflow", True,
                                  f"{self.chip}: {max(lost, sum((lost_lines or {}).values()))} edges lost "
                                  f"({where or 'lines unknown'})"))
        while len(self._skipped) > SKIPPED_KEPT:
            self._skipped.pop(next(iter(self._skipped)))
        fallback = now < self._fallback_until
        for ev in ready:
            self._take(ev, fallback)
        del self.recent[:-64]

    def _take(self, ev, fallback: bool) -> None:
        """One edge, in number order (or come late after its number was given up): debounced
        and handed on (called with the lock held)."""
        ident = self._ident_of.get(ev.line_offset)
        if ident is None:
            return
        rising = ev.event_type == gpiod.EdgeEvent.Type.RISING_EDGE
        self.recent.append(Edge_(ident, ev.line_offset, rising, ev.timestamp_ns,
                                 ev.global_seqno, ev.line_seqno))
        at = self.clock.from_monotonic_ns(ev.timestamp_ns)
        deb = self._debouncers[ident]
        self._deliver(ident, deb.settle(at), fallback)
        if deb.in_window(at):
            pressed = rising != bool(self.options["active_low"])
        else:
            # the contact left its resting state: this edge is the change, whatever the
            # label says (for both edges the kernel reads the level back in its thread,
            # after a bounce it may read the bounce)
            pressed = not deb.stable
        self._deliver(ident, deb.edge(at, pressed), fallback)

    def _settle(self) -> None:
        now = self.clock.now()
        fallback = now < self._fallback_until
        for ident, deb in self._debouncers.items():
            self._deliver(ident, deb.settle(now), fallback)

    def _next_due_s(self) -> float | None:
        dues = [d for d in (deb.due() for deb in self._debouncers.values()) if d is not None]
        if self._hole_since is not None:
            dues.append(self._hole_since + HOLE_WAIT_NS)
        if not dues:
            return None
        return max(0.0, (min(dues) - self.clock.now()) / 1e9) + 0.0002

    def _read_loop(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLIN | select.POLLERR | select.POLLHUP)
        poller.register(self._wake_r, select.POLLIN)
        while not self._closed:
            with self._lock:
                timeout = self._next_due_s()
            ready = poller.poll(None if timeout is None else timeout * 1000.0)
            if self._closed:
                return
            if any(fd == self._wake_r for fd, _ in ready):
                continue
            if not ready:
                with self._lock:
                    if self._hole_since is not None:
                        self._drain_held()
                    self._settle()
                continue
            self._busy = True
            try:
                events = self.req.read_edge_events()
            except (OSError, gpiod.RequestReleasedError) as exc:
                self._busy = False
                self._chip_lost(getattr(exc, "strerror", None) or str(exc) or type(exc).__name__)
                return
            with self._lock:
                if self._running:
                    self._events(events)
            self._busy = False

    def _chip_lost(self, why: str) -> None:
        """The chip went away: tell the host once, report the buttons missing, carry on."""
        with self._lock:
            if self._lost is not None:
                return
            self._lost = why
        self.sink(InputStatus("gpio", False, f"{self.chip} ({self.label}): {why}"))

    def start(self) -> None:
        """Start delivering events.  A button already held is reported at once as a Press
        stamped now (the engine tells the host it is stuck); its Release follows."""
        if self._running:
            return
        with self._lock:
            # edges since the request are in the levels read below: only their numbers count
            while self.req.wait_edge_events(0):
                for ev in self.req.read_edge_events():
                    self._last_global = max(self._last_global, ev.global_seqno)
                    self._last_line[ev.line_offset] = max(self._last_line.get(ev.line_offset, 0),
                                                          ev.line_seqno)
            now = self.clock.now()
            delivered = now
            idents = list(self._ident_of.values())
            values = self.req.get_values([self._line_of[i] for i in idents])
            for ident, value in zip(idents, values):
                held = (value == Value.ACTIVE) != bool(self.options["active_low"])
                self._debouncers[ident] = Debouncer(self._window, pressed=held, at=now)
                if held and not ident.startswith("host:"):
                    self.sink(Press(ident, now, delivered, self._tie_wait, stream=True, tie=self._tie))
            self._running = True
        self._thread = threading.Thread(target=self._read_loop, name="gpiod-edges", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop events, switch lamps off and free the lines."""
        with self._lock:
            self._running = False
            self._closed = True
        try:
            os.write(self._wake_w, b"x")
        except OSError:
            pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)
        if self.outputs is not None:
            self.outputs.close()
            self.outputs = None
        if self.req is not None:
            try:
                self.req.release()
            except (OSError, gpiod.RequestReleasedError):
                pass
            self.req = None
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._wake_r = self._wake_w = -1
        self._stall.close()

    def input_stall_ns(self) -> int:
        """0 for the ordered stream, except: while edges wait in the kernel's buffer or are being
        read (they happened before now and may belong to the race), and after lost edges (the
        race waits the quiet period in the reader thread's own time, as on the lgpio path)."""
        if self._closed or self._lost is not None:
            return 0
        now = self.clock.now()
        hold = self._stall.since_mark() if now < self._fallback_until + self._quiet else 0
        pending = self._busy or self._hole_since is not None
        if not pending:
            try:
                p = select.poll()
                p.register(self._fd, select.POLLIN)
                pending = bool(p.poll(0))
            except (OSError, ValueError):
                pending = False
        if not pending:
            self._pending_since = None
            return hold
        if self._pending_since is None:
            self._pending_since = now
        return PENDING_HOLD_NS if now - self._pending_since < PENDING_CAP_NS else hold

    # -- outputs ---------------------------------------------------------------

    def set_lamp(self, button: str, state: str) -> None:
        super().set_lamp(button, state)
        if self.outputs is not None and not self._closed:
            self.outputs.set(button, state)
            if self.outputs.lost:
                self._chip_lost("lamp lines gone")

    def has_lamp(self, button: str) -> bool:
        return self.outputs is not None and button in self.outputs.lines

    def beep(self, name: str) -> None:
        if self.outputs is not None and not self._closed:
            self.outputs.beep(BEEPS.get(name, 1))

    # -- reports ---------------------------------------------------------------

    def edges_seen(self) -> dict[str, int]:
        with self._lock:
            return {b: (self._debouncers[b].edges if b in self._debouncers else 0) for b in self.buttons}

    def stats(self) -> dict[str, InputStats]:
        with self._lock:
            out = {}
            for ident, pin in self._pins.items():
                deb = self._debouncers.get(ident)
                line = self._line_of[ident]
                if deb is None:
                    out[ident] = InputStats(pin, False, 0, 0, 0, 0, line)
                else:
                    out[ident] = InputStats(pin, deb.stable, deb.edges, deb.presses,
                                            deb.bounces_of[True], deb.bounces_of[False], line)
            return out

    def status(self) -> BackendStatus:
        up = not self._closed and self._lost is None
        detail = f"{self.chip} ({self.label}), {len(self._line_of)} lines"
        if self._lost is not None:
            detail = f"{self.chip} ({self.label}): lost ({self._lost})"
        if self.overflows:
            detail += f"; kernel buffer overflowed {self.overflows}x, {self.lost_edges} edges lost"
        extra = {"chip": self.chip, "chip_path": self.chip_path, "label": self.label,
                 "chosen": self.chip_why, "timestamps": "kernel", "tie_us": self._tie / 1000,
                 "lines": dict(self._line_of), "pins": dict(self._pins), "overflows": self.overflows,
                 "lost_edges": self.lost_edges, "lost_by_line": dict(self.lost_by_line),
                 "global_seqno": self._last_global}
        return BackendStatus(self.name, up, detail, missing=() if up else self.buttons, extra=extra)
