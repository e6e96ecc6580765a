"""One serial port to one button box: the imperative shell around the codec.

:class:`SerialLink` owns a reader thread that

* opens the port by its stable path (``/dev/serial/by-id/...``) with
  ``exclusive=True``, and after an unplug (``SerialException``) reopens it
  with exponential back-off between ``reconnect_min_s`` and ``reconnect_max_s``;
* asks for a HELLO after every open, recognises a box reset (a new boot id,
  or the box clock going backwards) and starts a new box session;
* checks event sequence numbers: a gap (lost bytes, a port reopened while the
  box kept talking) is repaired by asking the box to replay from the first
  missing event; duplicates are dropped; events the box no longer holds are
  counted as lost and logged -- never silently;
* maps box timestamps onto the host's monotonic clock: ``box_ns + offset``.
  The offset is estimated from time queries (midpoint of the fastest recent
  round trip) and only changes while no press is coming in, so presses that
  compete keep their exact box-time gap; ordering never depends on arrival;
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

    def box_ns(self, ticks: int) -> int:
        return ticks * 1_000_000_000 // self.tick_hz


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
                 monotonic_ns: Callable[[], int] = time.monotonic_ns):
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

        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._write_lock = threading.Lock()
        self._ser: serial.Serial | None = None
        self._force_reopen = threading.Event()
        self._decoder = codec.StreamDecoder()
        self._session: _Session | None = None
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
            self._on_event(message, now)
        elif isinstance(message, codec.Hello):
            self._on_hello(message, now)
        elif isinstance(message, codec.TimeReply):
            self._on_time(message, now)
        elif isinstance(message, codec.Report):
            self._on_report(message)

    def _on_hello(self, hello: codec.Hello, now: int) -> None:
        s = self._session
        reset = s is not None and (hello.boot_id != s.boot_id or hello.now < s.last_ticks)
        if s is None or reset:
            if reset:
                log.warning("button box reset (boot id %d -> %d): events restart at 0",
                            s.boot_id, hello.boot_id)
                self._update(add_resets=1)
                expected = 0  # everything the new boot produced is news
            else:
                expected = hello.seq  # older history predates this program
            s = _Session(hello.boot_id, hello.tick_hz or 1, hello.n_inputs, hello.debounce_us, expected)
            s.offset_ns = now - s.box_ns(hello.now)  # refined by time queries
            self._session = s
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

    def _on_event(self, event: codec.Event, now: int) -> None:
        s = self._session
        if s is None or not self._ready:
            if now >= self._next_hello_req:
                self._send(codec.HelloRequest())
                self._next_hello_req = now + 100_000_000
            return
        d = seq_diff(event.seq, s.expected)
        if d < 0:
            self._update(add_duplicates=1)
            if d < -256:  # far behind: most likely a reset whose HELLO was lost
                self._ready = False
                self._send(codec.HelloRequest())
            return
        if d > 0:
            self._request_replay(now, f"got event {event.seq}, expected {s.expected}")
            return
        s.expected = (s.expected + 1) % codec.SEQ_MOD
        self._replay_sent_at = None
        if s.pending_offset is not None and now - self._last_event_rx >= self.remap_quiet_s * 1e9:
            s.offset_ns, s.pending_offset = s.pending_offset, None
        self._last_event_rx = now
        box_ns = s.box_ns(event.at)
        box_event = BoxEvent(event.input, event.pressed, event.at, box_ns, box_ns + s.offset_ns,
                             now, event.seq, s.boot_id)
        if self.when_event is not None:
            try:
                self.when_event(box_event)
            except Exception:  # a bad sink must not kill the reader thread
                log.exception("button box event handler failed")

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
        sent = self._time_sent.pop(reply.token, None)
        if s is None or reply.boot_id != s.boot_id:
            self._ready = False  # a reset we have not been told about
            self._send(codec.HelloRequest())
            self._next_hello_req = now + 100_000_000
            return
        s.last_ticks = max(s.last_ticks, reply.now)
        if sent is not None:
            rtt = now - sent
            s.samples.append((rtt, (sent + now) // 2 - s.box_ns(reply.now)))
            best_rtt, offset = min(s.samples)
            if now - self._last_event_rx >= self.remap_quiet_s * 1e9:
                s.offset_ns, s.pending_offset = offset, None
            else:
                s.pending_offset = offset
            self._update(offset_ns=s.offset_ns, rtt_ns=best_rtt)
        if seq_diff(reply.seq, s.expected) > 0:
            self._request_replay(now, f"box has sent up to {reply.seq - 1}")

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
            lost = seq_diff(report.oldest_seq, s.expected)
            log.error("button box events %d..%d are lost (no longer held by the box)",
                      s.expected, report.oldest_seq - 1)
            self._update(add_lost_events=lost)
            s.expected = report.oldest_seq
            self._replay_sent_at = None

    def _housekeeping(self, now: int) -> None:
        s = self._session
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
        if s is not None and s.pending_offset is not None and now - self._last_event_rx >= self.remap_quiet_s * 1e9:
            s.offset_ns, s.pending_offset = s.pending_offset, None
            self._update(offset_ns=s.offset_ns)
        silent = now - self._last_rx
        limit = max(3 * self.time_query_interval_s, 1.0) * 1e9
        responding = silent < limit
        if responding != self.status().responding:
            if not responding:
                log.warning("button box %s stopped answering", self.port)
            self._update(responding=responding)
