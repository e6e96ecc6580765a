"""One serial port to one button box: the imperative shell around the codec.

:class:`SerialLink` owns a reader thread that

* opens the port by its stable path (``/dev/serial/by-id/...``) with
  ``exclusive=True``, and after an unplug (``SerialException``) reopens it
  with exponential back-off between ``reconnect_min_s`` and ``reconnect_max_s``;
* asks for a HELLO after every open, recognises a box reset (a new boot id,
  or the box clock going backwards) and starts a new box session -- at once when
  the link had gone quiet as a reset makes it (nothing heard since the port was
  reopened, for longer than the new boot claims to have run); a HELLO claiming a new
  boot from a box that was talking a moment ago waits for the box's own answer to
  a time query: its boot id confirms the reset or shows the old boot alive (the
  HELLO is refused, and the host told); the events that come meanwhile are held
  and go to whichever boot is confirmed, none dropped;
* checks event sequence numbers: a gap (lost bytes, a port reopened while the
  box kept talking) is repaired by asking the box to replay from the first
  missing event; duplicates are dropped; events the box no longer holds are
  counted as lost and logged -- never silently;
* maps box timestamps onto the host's monotonic clock: ``box_ns + offset``.
  The offset is estimated from time queries (midpoint of the fastest recent
  round trip, carried forward by the box clock's rate against the host's, which
  the samples of the last minutes show: a resonator runs up to 0.5 % off; a step,
  which no rate explains, drops the samples before it) and only changes while no
  press is coming in, so presses that compete keep their exact box-time gap;
  ordering never depends on arrival;
* sends lamp commands (a full on/blink mask, re-sent with every time query
  and after every HELLO, so a lost or reset-cleared command heals itself).

Events go to ``when_event(BoxEvent)`` in the reader thread.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import serial

from firmware_bridge import codec
from firmware_bridge.codec import seq_diff

log = logging.getLogger(__name__)

DEFAULT_PORT = "/dev/serial/by-id/usb-buzzer-box"
DEFAULT_BAUD = 1_000_000


@dataclass(frozen=True, slots=True)
class BoxEvent:
    """A debounced edge as the box reported it, with its clock mapping."""

    input: int
    pressed: bool
    ticks: int           # box timer ticks since the box booted
    box_ns: int          # the same, in ns
    monotonic_ns: int    # mapped onto the host's CLOCK_MONOTONIC
    received_ns: int     # host CLOCK_MONOTONIC when the frame arrived
    seq: int
    boot_id: int
    late: bool = False
    """Delivered out of sequence order: an event the link had counted as lost, or a second,
    different event under a number already delivered (the host was told: ``when_problem``).
    Not part of the ordered stream."""


MAX_DRIFT = 0.01
"""How much faster than the host's clock the box's may run (an Uno's resonator: 0.5 %)."""

DRIFT_SAMPLES = 64
"""Time samples kept to estimate how fast the box's clock runs against the host's (at the
default query interval, the last two minutes)."""

DRIFT_MIN_SPAN_NS = 1_000_000_000
"""The box clock's rate is estimated once its samples span this much host time."""

HISTORY = 1024
"""Events whose content the link remembers by sequence number (a replayed duplicate is
recognised as the same event; a different one under the same number is a conflict)."""

CLAIM_RETRY_NS = 100_000_000
"""A new boot claimed mid-stream: the time query that asks the box is sent again this often."""
CLAIM_HELD = 1024
"""Events held while a claim waits for the box's answer; past this the box has kept talking
without confirming its new boot: the claim is refused."""
SESSIONS_KEPT = 4
"""Boots the link remembers (a boot seen again resumes its own numbering and history)."""


@dataclass
class _Claim:
    """A HELLO that claims a new boot while the box was talking: waits for the box's answer."""

    hello: "codec.Hello"
    at: int                    # host time it came
    tokens: set = field(default_factory=set)   # the time queries that asked the box
    asked_at: int = 0
    held: list = field(default_factory=list)   # (event or report, host time) that came meanwhile


@dataclass(frozen=True)
class LinkStatus:
    """Counters since the link was created (the box's own are since its boot)."""

    port: str
    connected: bool = False
    responding: bool = False
    boot_id: int | None = None
    n_inputs: int | None = None
    tick_hz: int | None = None
    box_debounce_us: int | None = None
    connects: int = 0
    resets: int = 0
    seq_gaps: int = 0
    replays: int = 0
    lost_events: int = 0
    duplicates: int = 0
    snapshots_dropped: int = 0
    events_dropped: int = 0
    box_rx_errors: int = 0
    host_rx_errors: int = 0
    offset_ns: int | None = None
    rtt_ns: int | None = None
    last_error: str = ""
    refused: int = 0        # events refused: a stamp the box's clock cannot have read, an unused input
    conflicts: int = 0      # a second, different event under a number already taken
    late_events: int = 0    # events counted as lost that came after all (delivered, late)

    @property
    def overflows(self) -> int:
        return self.snapshots_dropped + self.events_dropped


@dataclass
class _Session:
    """What the link knows about one boot of the box."""

    boot_id: int
    tick_hz: int
    n_inputs: int
    debounce_us: int
    expected: int                       # next event seq to deliver
    last_ticks: int = 0                 # latest box clock reading (HELLO, TIME)
    offset_ns: int | None = None        # monotonic - box ns
    pending_offset: int | None = None   # waits for a quiet moment
    samples: collections.deque = field(default_factory=lambda: collections.deque(maxlen=8))
    """The latest time samples: (round trip, offset, host time of the reading) each."""
    trend: collections.deque = field(default_factory=lambda: collections.deque(maxlen=DRIFT_SAMPLES))
    drift: float = 0.0                  # d(offset) / d(host time): the box clock's rate error
    ref_ticks: int = 0                  # a box clock reading ...
    ref_host_ns: int = 0                # ... and a host time at or before the moment it was read
    last_at: int | None = None          # the stamp of the latest event taken (ticks)
    history: collections.OrderedDict = field(default_factory=collections.OrderedDict)
    lost: set = field(default_factory=set)   # numbers counted as lost (a late one is delivered)
    gone_before: int | None = None      # a REPORT's claim: events before this are no longer held

    def box_ns(self, ticks: int) -> int:
        return ticks * 1_000_000_000 // self.tick_hz

    def add_sample(self, rtt: int, offset: int, host_ns: int) -> bool:
        """Keep a time sample; True when it shows the box clock stepped (the samples before are
        dropped: a host suspended, a box that lost time), which no rate explains: each
        sample's offset is within half its round trip of the true one, and the true one moves
        at most :data:`MAX_DRIFT` of the time between them."""
        stepped = False
        if self.trend:
            prev_rtt, prev_offset, prev_at = self.trend[-1]
            allowed = MAX_DRIFT * max(host_ns - prev_at, 0) + (rtt + prev_rtt) / 2
            if abs(offset - prev_offset) > allowed:
                self.samples.clear()
                self.trend.clear()
                self.drift = 0.0
                stepped = True
        self.samples.append((rtt, offset, host_ns))
        self.trend.append((rtt, offset, host_ns))
        self._fit_drift()
        return stepped

    def _fit_drift(self) -> None:
        """The box clock's rate against the host's, from the best round trip of the older and
        of the newer half of the samples kept: kept at 0 while it is not larger than twice
        what those round trips leave uncertain (a box whose clock runs true), and never
        beyond :data:`MAX_DRIFT`."""
        t = list(self.trend)
        if len(t) < 4 or t[-1][2] - t[0][2] < DRIFT_MIN_SPAN_NS:
            return
        half = len(t) // 2
        a, b = min(t[:half]), min(t[half:])
        dt = b[2] - a[2]
        if dt <= 0:
            return
        rate = (b[1] - a[1]) / dt
        uncertain = (a[0] + b[0]) / 2 / dt
        self.drift = 0.0 if abs(rate) <= 2 * uncertain else max(-MAX_DRIFT, min(MAX_DRIFT, rate))

    def offset_at(self, now: int) -> int | None:
        """The offset for host time ``now``: the best round trip of the latest samples,
        carried forward by the box clock's rate since it was read."""
        if not self.samples:
            return None
        _, offset, at = min(self.samples)
        return offset + int(self.drift * (now - at))

    def clock_bound(self, now: int, tolerance_ns: int) -> int:
        """The latest tick the box's clock can have read by host time ``now``: its latest
        reading, plus the time since at most :data:`MAX_DRIFT` faster, plus the tolerance."""
        elapsed = max(now - self.ref_host_ns, 0) * (1 + MAX_DRIFT) + tolerance_ns
        return self.ref_ticks + int(elapsed * self.tick_hz // 1_000_000_000) + 1

    def remember(self, seq: int, content: tuple) -> None:
        self.history.setdefault(seq, set()).add(content)
        self.history.move_to_end(seq)
        while len(self.history) > HISTORY:
            self.history.popitem(last=False)


class SerialLink:
    """Talks to one button box; see the module docstring.

    :param port: the stable device path
    :param when_event: called with each :class:`BoxEvent` in sequence order
    :param time_query_interval_s: how often the box clock is sampled
    :param remap_quiet_s: the clock offset only moves after this long without events
    """

    def __init__(self, port: str = DEFAULT_PORT, baud: int = DEFAULT_BAUD, *,
                 when_event: Callable[[BoxEvent], None] | None = None,
                 reconnect_min_s: float = 0.05, reconnect_max_s: float = 1.0,
                 time_query_interval_s: float = 2.0, remap_quiet_s: float = 0.5,
                 replay_timeout_s: float = 0.05, debounce_us: int | None = None,
                 monotonic_ns: Callable[[], int] = time.monotonic_ns,
                 inputs_in_use: set[int] | None = None, stamp_tolerance_ms: float = 20.0,
                 when_problem: Callable[[str, dict], None] | None = None,
                 when_unavailable: Callable[[Exception], None] | None = None):
        self.port = port
        self.baud = baud
        self.when_event = when_event
        self.reconnect_min_s = reconnect_min_s
        self.reconnect_max_s = reconnect_max_s
        self.time_query_interval_s = time_query_interval_s
        self.remap_quiet_s = remap_quiet_s
        self.replay_timeout_s = replay_timeout_s
        self.debounce_us = debounce_us
        self._now = monotonic_ns
        self.inputs_in_use = None if inputs_in_use is None else frozenset(inputs_in_use)
        """Box inputs wired to a button: an event on any other is refused (None: all)."""
        self.stamp_tolerance_ns = int(stamp_tolerance_ms * 1_000_000)
        self.when_problem = when_problem
        """Called (reader thread) with ``(kind, details)`` whenever the box sent something the
        link refused or could not deliver in order: ``"stamp"``, ``"input"``, ``"conflict"``,
        ``"lost"``, ``"late"`` (docs/serial-protocol.md, «Plausibility»). Nothing is dropped
        without it."""
        self.when_unavailable = when_unavailable
        """Called (reader thread) with the error once when the port cannot be opened (again after
        the box was back): the host is told in their language.  Without it, a log warning."""

        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._write_lock = threading.Lock()
        self._ser: serial.Serial | None = None
        self._force_reopen = threading.Event()
        self._decoder = codec.StreamDecoder()
        self._session: _Session | None = None
        self._sessions: collections.OrderedDict = collections.OrderedDict()   # boot id -> _Session
        self._claim: _Claim | None = None
        self._heard = 0        # host time of the latest frame of the current boot
        self._opened_at = 0    # host time the port was last opened
        self._ready = False
        self._tokens = itertools.count(1)
        self._time_sent: dict[int, int] = {}
        self._next_hello_req = 0
        self._next_time_query = 0
        self._burst = 0
        self._replay_sent_at: int | None = None
        self._last_rx = 0
        self._last_event_rx = 0
        self._host_seq = 0
        self._lamps = (0, 0)
        self._outage_logged = False
        self._status = LinkStatus(port)
        self._status_lock = threading.Lock()
        self.connected_event = threading.Event()
        """Set while the port is open and the box has said HELLO."""

    # ----------------------------------------------------------- public API

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=f"serial-link {self.port}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def set_lamps(self, on_mask: int, blink_mask: int) -> None:
        """Lamp outputs, a bit per box input; sent now if connected, and again
        after every reconnect or box reset."""
        self._lamps = (on_mask & 0xFFFF, blink_mask & 0xFFFF)
        if self._ready:
            try:
                self._send(codec.SetLamps(*self._lamps))
            except (serial.SerialException, OSError):
                pass  # the reader thread notices and reconnects

    def reopen(self) -> None:
        """Close and reopen the port (as after a cable glitch)."""
        self._force_reopen.set()

    def status(self) -> LinkStatus:
        with self._status_lock:
            return self._status

    def box_to_monotonic_ns(self, box_ns: int) -> int | None:
        s = self._session
        if s is None or s.offset_ns is None:
            return None
        return box_ns + s.offset_ns

    # ----------------------------------------------------------- internals

    def _update(self, **changes) -> None:
        with self._status_lock:
            values = {k: getattr(self._status, k) for k in self._status.__dataclass_fields__}
            for key, value in changes.items():
                if key.startswith("add_"):
                    key = key[4:]
                    value = values[key] + value
                values[key] = value
            self._status = LinkStatus(**values)

    def _send(self, message) -> None:
        with self._write_lock:
            ser = self._ser
            if ser is None:
                return
            self._host_seq = (self._host_seq + 1) % codec.SEQ_MOD
            message = dataclasses.replace(message, seq=self._host_seq)
            ser.write(message.encode())

    def _run(self) -> None:
        delay = self.reconnect_min_s
        while not self._stop.is_set():
            try:
                ser = self._open()
            except (serial.SerialException, OSError, ValueError) as exc:
                if not self._outage_logged:
                    if self.when_unavailable is not None:
                        self.when_unavailable(exc)
                    else:
                        log.warning("button box %s not available: %s", self.port, exc)
                    self._outage_logged = True
                self._update(last_error=str(exc))
                self._stop.wait(delay)
                delay = min(delay * 2, self.reconnect_max_s)
                continue
            delay = self.reconnect_min_s
            self._outage_logged = False
            try:
                self._serve(ser)
            except (serial.SerialException, OSError) as exc:
                log.warning("button box %s lost: %s", self.port, exc)
                self._update(last_error=str(exc))
            finally:
                with self._write_lock:
                    self._ser = None
                try:
                    ser.close()
                except (serial.SerialException, OSError):
                    pass
                self._ready = False
                self.connected_event.clear()
                self._update(connected=False, responding=False)

    def _open(self) -> serial.Serial:
        """Open the port; DTR and RTS are set low before opening so that
        pyserial does not pulse the Arduino's auto-reset line (Linux still
        raises DTR for a moment at open: see docs/serial-box.md)."""
        ser = serial.Serial(timeout=0.02, write_timeout=0.5, exclusive=True)
        ser.port = self.port
        ser.baudrate = self.baud
        ser.dtr = False
        ser.rts = False
        ser.open()
        return ser

    def _serve(self, ser: serial.Serial) -> None:
        with self._write_lock:
            self._ser = ser
        self._decoder.reset()
        self._ready = False
        self._replay_sent_at = None
        self._time_sent.clear()
        now = self._now()
        self._last_rx = now
        self._opened_at = now
        self._claim = None     # (its held events: the replay after the HELLO brings them again)
        self._update(connected=True, add_connects=1)
        log.info("button box port %s open", self.port)
        self._send(codec.HelloRequest())
        self._next_hello_req = now + 100_000_000
        while not self._stop.is_set():
            if self._force_reopen.is_set():
                self._force_reopen.clear()
                log.info("button box %s: reopening the port", self.port)
                return
            data = ser.read(ser.in_waiting or 1)
            now = self._now()
            if data:
                for frame in self._decoder.feed(data):
                    message = codec.parse_message(frame)
                    if message is not None:
                        self._last_rx = now
                        self._handle(message, now)
                self._update(host_rx_errors=self._decoder.errors)
            self._housekeeping(now)

    def _handle(self, message, now: int) -> None:
        if isinstance(message, codec.Event):
            if self._claim is not None:
                self._hold(message, now)
                return
            self._on_event(message, now)
        elif isinstance(message, codec.Hello):
            self._on_hello(message, now)
        elif isinstance(message, codec.TimeReply):
            self._on_time(message, now)
        elif isinstance(message, codec.Report):
            if self._claim is not None:
                self._hold(message, now)
                return
            self._on_report(message)
        if self._claim is None:
            self._heard = now

    def _plausible_reset(self, hello: codec.Hello, now: int) -> bool:
        """Whether a HELLO of a new boot fits a link gone quiet as a reset makes it, so that it
        is taken at once: the box has said nothing since the port was (re)opened, and it has been
        silent for longer than the new boot claims to have run (a box that booted cannot have
        sent the old boot's frames after it).  Anything else waits for the box's answer."""
        silence = now - self._heard
        uptime_ns = hello.now * 1_000_000_000 // (hello.tick_hz or 1)
        return self._heard < self._opened_at and uptime_ns <= silence * (1 + MAX_DRIFT) + self.stamp_tolerance_ns

    def _on_hello(self, hello: codec.Hello, now: int) -> None:
        s = self._session
        reset = s is not None and (hello.boot_id != s.boot_id or hello.now < s.last_ticks)
        c = self._claim
        if c is not None:
            if hello.boot_id == c.hello.boot_id and not reset:
                return      # the claim again: the time query decides
            if s is not None and hello.boot_id == s.boot_id and hello.now >= s.last_ticks:
                self._refuse_claim(now, "the box said HELLO again with its boot id")
                reset = False
            # (another claim: the box's answer to the time query decides the first)
        if reset and self._claim is None and not self._plausible_reset(hello, now):
            self._claim = _Claim(hello, now)
            log.warning("button box HELLO of a new boot (boot id %d -> %d) while the box was talking "
                        "%d ms ago: asking the box", s.boot_id, hello.boot_id, (now - self._heard) // 1_000_000)
            self._ask_claim(now)
            return
        if self._claim is not None:
            return
        self._take_hello(hello, now, reset)

    def _take_hello(self, hello: codec.Hello, now: int, reset: bool) -> None:
        s = self._session
        if s is None or reset:
            known = self._sessions.get(hello.boot_id)
            if known is not None and reset and hello.now >= known.last_ticks:
                # a boot seen before (a forged claim that won the box's answer, undone): its own
                # numbering and history, so that nothing it sent is delivered twice
                log.warning("button box back to boot id %d", hello.boot_id)
                s = known
                self._sessions.move_to_end(hello.boot_id)
                self._session = s
                reset = False
            elif reset:
                log.warning("button box reset (boot id %d -> %d): events restart at 0",
                            s.boot_id, hello.boot_id)
                self._update(add_resets=1)
                expected = 0  # everything the new boot produced is news
            else:
                expected = hello.seq  # older history predates this program
        if s is None or reset:
            s = _Session(hello.boot_id, hello.tick_hz or 1, hello.n_inputs, hello.debounce_us, expected)
            s.offset_ns = now - s.box_ns(hello.now)  # refined by time queries
            # the box read its clock just before sending: the tolerance covers the way here
            s.ref_ticks, s.ref_host_ns = hello.now, now
            self._session = s
            self._sessions[s.boot_id] = s
            while len(self._sessions) > SESSIONS_KEPT:
                self._sessions.popitem(last=False)
            self._time_sent.clear()
            self._replay_sent_at = None
            if self.debounce_us is not None and self.debounce_us != hello.debounce_us:
                log.warning("button box debounces %d us, config says %d us (the firmware value is used)",
                            hello.debounce_us, self.debounce_us)
        s.last_ticks = max(s.last_ticks, hello.now)
        first = not self._ready
        self._ready = True
        self.connected_event.set()
        self._update(responding=True, boot_id=s.boot_id, n_inputs=s.n_inputs, tick_hz=s.tick_hz,
                     box_debounce_us=s.debounce_us, offset_ns=s.offset_ns)
        if first:
            self._send(codec.SetLamps(*self._lamps))
            self._burst = 4
            self._next_time_query = now
        if seq_diff(hello.seq, s.expected) > 0:
            self._request_replay(now, f"hello says next event is {hello.seq}")

    def _ask_claim(self, now: int) -> None:
        c = self._claim
        token = next(self._tokens) & 0xFFFFFFFF
        c.tokens.add(token)
        c.asked_at = now
        self._send(codec.TimeRequest(token))

    def _hold(self, message, now: int) -> None:
        c = self._claim
        c.held.append((message, now))
        if len(c.held) >= CLAIM_HELD:
            self._refuse_claim(now, f"{len(c.held)} events came and no answer confirmed the new boot")

    def _confirm_claim(self, now: int) -> None:
        c, self._claim = self._claim, None
        log.warning("button box confirmed its new boot id %d", c.hello.boot_id)
        self._take_hello(c.hello, c.at, True)
        self._heard = now
        self._release(c.held)

    def _refuse_claim(self, now: int, why: str) -> None:
        """The HELLO of a new boot was not the box's (the old boot is alive): refused, counted, said
        to the host; the events held meanwhile go on in the old boot's numbering."""
        c, self._claim = self._claim, None
        s = self._session
        log.error("button box HELLO of a new boot id %d refused: %s (boot id %d goes on)",
                  c.hello.boot_id, why, s.boot_id)
        self._update(add_refused=1)
        self._problem("hello", boot_id=c.hello.boot_id, held=len(c.held))
        self._heard = now
        self._release(c.held)

    def _release(self, held: list) -> None:
        """The messages held during a claim, in the order they came, to the boot now confirmed."""
        for message, at in held:
            if isinstance(message, codec.Event):
                self._on_event(message, at)
            else:
                self._on_report(message)

    def _on_event(self, event: codec.Event, now: int) -> None:
        s = self._session
        if s is None or not self._ready:
            if now >= self._next_hello_req:
                self._send(codec.HelloRequest())
                self._next_hello_req = now + 100_000_000
            return
        d = seq_diff(event.seq, s.expected)
        content = (event.input, event.pressed, event.at)
        if d < 0:
            self._on_old_number(event, content, d, now)
            return
        if d > 0:
            if s.gone_before is not None and event.seq == s.gone_before:
                # the box said (REPORT) it holds nothing before this one, and this is what it
                # sent on a replay: the events between are gone for good -- counted, logged and
                # said to the host; one of them that comes after all is delivered, late
                lost = d
                log.error("button box events %d..%d are lost (no longer held by the box)",
                          s.expected, (event.seq - 1) % codec.SEQ_MOD)
                for i in range(lost):
                    s.lost.add((s.expected + i) % codec.SEQ_MOD)
                self._update(add_lost_events=lost)
                self._problem("lost", n=lost, first=s.expected, last=(event.seq - 1) % codec.SEQ_MOD)
                s.expected = event.seq
                s.gone_before = None
            else:
                self._request_replay(now, f"got event {event.seq}, expected {s.expected}")
                return
        elif s.gone_before is not None:
            # the box still had it: a REPORT that said otherwise was wrong (or forged)
            log.warning("button box report said events before %d were gone, but event %d came",
                        s.gone_before, event.seq)
            s.gone_before = None
        s.expected = (s.expected + 1) % codec.SEQ_MOD
        self._replay_sent_at = None
        s.remember(event.seq, content)
        refusal = self._refusal(event, now)
        if refusal is not None:
            return
        s.last_at = event.at if s.last_at is None else max(s.last_at, event.at)
        self._deliver(event, now)

    def _refusal(self, event: codec.Event, now: int) -> str | None:
        """Why ``event`` is refused (counted, logged, said to the host), or None: an input the
        box does not have or no button is wired to; a stamp later than the box's clock can
        have read by now, or earlier than the box's debounce can explain."""
        s = self._session
        if event.input >= s.n_inputs or (self.inputs_in_use is not None and event.input not in self.inputs_in_use):
            self._update(add_refused=1)
            log.error("button box event %d on input %d refused: no button is wired to it", event.seq, event.input)
            self._problem("input", input=event.input, seq=event.seq)
            return "input"
        bound = s.clock_bound(now, self.stamp_tolerance_ns)
        slack = (s.debounce_us * s.tick_hz // 1_000_000) + self.stamp_tolerance_ns * s.tick_hz // 1_000_000_000
        if event.at > bound or (s.last_at is not None and event.at < s.last_at - slack):
            ahead_ms = (event.at - bound) * 1000 // s.tick_hz
            self._update(add_refused=1)
            log.error("button box event %d (input %d) refused: stamped %s the box's clock allows "
                      "(%d ms)", event.seq, event.input, "after" if event.at > bound else "before", ahead_ms)
            self._problem("stamp", input=event.input, seq=event.seq, ms=int(ahead_ms))
            return "stamp"
        return None

    def _on_old_number(self, event: codec.Event, content: tuple, d: int, now: int) -> None:
        """An event numbered below the next one expected: a replayed duplicate (the same event
        again: dropped), one counted as lost (delivered late), or a different event under a
        number already taken (a conflict: said to the host, and delivered if it passes the
        checks, so no real press is hidden behind a forged frame)."""
        s = self._session
        seen = s.history.get(event.seq)
        if seen is not None and content in seen:
            self._update(add_duplicates=1)
            return
        if seen is None and event.seq not in s.lost:
            self._update(add_duplicates=1)
            if d < -256:  # far behind: most likely a reset whose HELLO was lost
                self._ready = False
                self._send(codec.HelloRequest())
            return
        if seen is None:
            s.lost.discard(event.seq)
            self._update(add_late_events=1, add_lost_events=-1)
            log.warning("button box event %d, counted as lost, came after all: delivered late", event.seq)
            self._problem("late", input=event.input, seq=event.seq)
        else:
            self._update(add_conflicts=1)
            log.error("button box sent two different events numbered %d (input %d, then input %d)",
                      event.seq, next(iter(seen))[0], event.input)
            self._problem("conflict", input=event.input, seq=event.seq)
        s.remember(event.seq, content)
        if self._refusal(event, now) is None:
            self._deliver(event, now, late=True)

    def _deliver(self, event: codec.Event, now: int, late: bool = False) -> None:
        s = self._session
        if now - self._last_event_rx >= self.remap_quiet_s * 1e9:
            self._remap(s, now)
        self._last_event_rx = now
        box_ns = s.box_ns(event.at)
        box_event = BoxEvent(event.input, event.pressed, event.at, box_ns, box_ns + s.offset_ns,
                             now, event.seq, s.boot_id, late)
        if self.when_event is not None:
            try:
                self.when_event(box_event)
            except Exception:  # a bad sink must not kill the reader thread
                log.exception("button box event handler failed")

    def _remap(self, s: _Session, now: int) -> None:
        """A quiet moment: the clock offset moves to its estimate for now (the box clock's
        rate carries the best sample forward). While presses come in it stays put, so presses
        that race keep their exact box-time gap."""
        offset = s.offset_at(now)
        s.pending_offset = None
        if offset is not None and offset != s.offset_ns:
            s.offset_ns = offset
            self._update(offset_ns=offset)

    def _problem(self, kind: str, **details) -> None:
        if self.when_problem is not None:
            try:
                self.when_problem(kind, details)
            except Exception:
                log.exception("button box problem handler failed")

    def _request_replay(self, now: int, why: str) -> None:
        s = self._session
        if self._replay_sent_at is not None and now - self._replay_sent_at < self.replay_timeout_s * 1e9:
            return  # one request per round trip
        if self._replay_sent_at is None:
            log.info("button box sequence gap (%s): asking for a replay from %d", why, s.expected)
            self._update(add_seq_gaps=1)
        self._update(add_replays=1)
        self._replay_sent_at = now
        self._send(codec.Replay(s.expected))

    def _on_time(self, reply: codec.TimeReply, now: int) -> None:
        s = self._session
        c = self._claim
        if c is not None:
            if reply.boot_id == c.hello.boot_id and reply.token in c.tokens and reply.now >= c.hello.now:
                self._confirm_claim(now)   # the box answers in its new boot: a reset after all
                self._time_sent.pop(reply.token, None)
                return
            if reply.boot_id == s.boot_id and reply.now >= s.last_ticks:
                self._refuse_claim(now, "the box answered in its old boot")
            else:
                return      # neither: wait for the answer to the claim's query
        sent = self._time_sent.pop(reply.token, None)
        if s is None or reply.boot_id != s.boot_id:
            self._ready = False  # a reset we have not been told about
            self._send(codec.HelloRequest())
            self._next_hello_req = now + 100_000_000
            return
        s.last_ticks = max(s.last_ticks, reply.now)
        if sent is not None and reply.now >= s.ref_ticks:
            # read after the query was sent: a reading with a host time before it
            s.ref_ticks, s.ref_host_ns = reply.now, sent
        if sent is not None:
            rtt = now - sent
            mid = (sent + now) // 2
            if s.add_sample(rtt, mid - s.box_ns(reply.now), mid):
                log.info("button box clock stepped against the host's: its earlier time samples dropped")
            if now - self._last_event_rx >= self.remap_quiet_s * 1e9:
                self._remap(s, now)
            else:
                s.pending_offset = s.offset_at(now)
            self._update(offset_ns=s.offset_ns, rtt_ns=min(s.samples)[0])
        if seq_diff(reply.seq, s.expected) > 0:
            self._request_replay(now, f"box has sent up to {reply.seq - 1}")
        elif self._replay_sent_at is not None or s.gone_before is not None:
            # the box has sent nothing the link lacks: no replay is pending after all, and a
            # REPORT that said events were gone was wrong (or forged)
            if s.gone_before is not None:
                log.warning("button box report said events before %d were gone; it has sent "
                            "nothing past %d", s.gone_before, (s.expected - 1) % codec.SEQ_MOD)
            self._replay_sent_at = None
            s.gone_before = None

    def _on_report(self, report: codec.Report) -> None:
        s = self._session
        status = self.status()
        if report.snapshots_dropped > status.snapshots_dropped or report.events_dropped > status.events_dropped:
            log.error("button box queue overflow: %d edge snapshots and %d events dropped since boot",
                      report.snapshots_dropped, report.events_dropped)
        if report.rx_errors > status.box_rx_errors:
            log.info("button box received %d bad frames since boot", report.rx_errors)
        self._update(snapshots_dropped=report.snapshots_dropped, events_dropped=report.events_dropped,
                     box_rx_errors=report.rx_errors)
        if s is not None and self._ready and seq_diff(report.oldest_seq, s.expected) > 0:
            # the box says the events from s.expected on are no longer held. Nothing is skipped
            # on its word: a replay is asked for, and only when the box answers it with exactly
            # its oldest event are the ones before counted as lost (_on_event). A REPORT that
            # cannot be true (oldest past the next event it would send) is ignored.
            if seq_diff(report.seq, report.oldest_seq) < 0:
                log.warning("button box report ignored: oldest event %d is past its next one %d",
                            report.oldest_seq, report.seq)
                return
            s.gone_before = report.oldest_seq
            self._replay_sent_at = None
            self._request_replay(self._now(), f"box holds events from {report.oldest_seq} only")

    def _housekeeping(self, now: int) -> None:
        s = self._session
        if self._claim is not None:
            if now - self._claim.asked_at >= CLAIM_RETRY_NS:
                self._ask_claim(now)
            return
        if not self._ready:
            if now >= self._next_hello_req:
                self._send(codec.HelloRequest())
                self._next_hello_req = now + 100_000_000
            return
        if now >= self._next_time_query:
            token = next(self._tokens) & 0xFFFFFFFF
            if len(self._time_sent) > 16:
                self._time_sent.clear()
            self._time_sent[token] = self._now()
            self._send(codec.TimeRequest(token))
            self._send(codec.SetLamps(*self._lamps))
            if self._burst > 0:
                self._burst -= 1
                self._next_time_query = now + 20_000_000
            else:
                self._next_time_query = now + int(self.time_query_interval_s * 1e9)
        if self._replay_sent_at is not None and now - self._replay_sent_at >= self.replay_timeout_s * 1e9:
            self._request_replay(now, "replay not answered")
        if s is not None and now - self._last_event_rx >= self.remap_quiet_s * 1e9:
            self._remap(s, now)
        silent = now - self._last_rx
        limit = max(3 * self.time_query_interval_s, 1.0) * 1e9
        responding = silent < limit
        if responding != self.status().responding:
            if not responding:
                log.warning("button box %s stopped answering", self.port)
            self._update(responding=responding)
