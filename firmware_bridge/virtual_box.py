"""A button box in pure Python, speaking the real protocol over a pty.

:class:`VirtualBox` behaves like the firmware as the host sees it: a HELLO
with a boot id at start, debounced edges with 48-bit box timestamps (a 1 MHz
virtual timer by default), an event ring the host can ask to replay, lamp
outputs, time replies and cumulative error/overflow reports.  It exists so
that ``buzzer run`` works with ``buttons = "serial-sim"`` on any machine, and
so that the host bridge is tested through a real pty opened by pyserial.

Like udev's ``/dev/serial/by-id/...``, :attr:`VirtualBox.path` is a symlink
that always points at the current pty; :meth:`unplug` removes the pty (the
host's reads fail like a pulled USB cable) and :meth:`replug` makes a new one.
Faults for tests: :meth:`reset`, :meth:`stop_answering`, :meth:`inject`
(garbage on the line) and :meth:`drop_bytes` (bytes lost on the line).
"""

from __future__ import annotations

import collections
import errno
import os
import random
import select
import tempfile
import threading
import time
import tty
from typing import Callable

from firmware_bridge import codec


class VirtualBox:
    """A simulated box; start it, then open :attr:`path` with pyserial.

    :param n_inputs: number of button inputs
    :param tick_hz: virtual timer rate (box ticks per second)
    :param debounce_us: the same debounce for every input (first edge wins)
    :param history: events kept for replay (and the unsent-queue limit)
    :param link_path: where to keep the stable symlink (default: a temp dir)
    """

    def __init__(self, n_inputs: int = 8, tick_hz: int = 1_000_000, debounce_us: int = 5000,
                 history: int = 64, link_path: str | os.PathLike | None = None,
                 monotonic_ns: Callable[[], int] = time.monotonic_ns):
        self.n_inputs = n_inputs
        self.tick_hz = tick_hz
        self.debounce_us = debounce_us
        self.history = history
        self._mono = monotonic_ns
        self._tmp = None
        if link_path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="buzzer-vbox-")
            link_path = os.path.join(self._tmp.name, "usb-buzzer-box-virtual")
        self.path = str(link_path)
        self._lock = threading.RLock()
        self._master = self._slave = -1
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._decoder = codec.StreamDecoder()
        self._answering = True
        self._drop = 0
        self.lamp_on = 0
        self.lamp_blink = 0
        self.frames_received = 0
        self.when_lamps: Callable[[int, int], None] | None = None
        self._boot()

    # ------------------------------------------------------------ state

    def _boot(self) -> None:
        self.boot_id = random.getrandbits(32)
        self._boot_ns = self._mono()
        self._ring: collections.deque[codec.Event] = collections.deque(maxlen=self.history)
        self._next_seq = 0
        self._send_seq = 0
        self._hello_pending = True
        self._time_pending: list[int] = []
        self._report_reason: int | None = None
        self.events_dropped = 0
        self.rx_errors = 0
        self._reported = (0, 0)
        self._level = [False] * self.n_inputs       # raw level, True = pressed
        self._reported_level = [False] * self.n_inputs
        self._until = [None] * self.n_inputs        # debounce window end (ticks)
        self._last_edge = [0] * self.n_inputs
        self.lamp_on = self.lamp_blink = 0

    def now_ticks(self) -> int:
        """The virtual timer: box ticks since boot."""
        return (self._mono() - self._boot_ns) * self.tick_hz // 1_000_000_000

    @property
    def debounce_ticks(self) -> int:
        return self.debounce_us * self.tick_hz // 1_000_000

    @property
    def next_seq(self) -> int:
        return self._next_seq

    # ------------------------------------------------------------ life cycle

    def start(self) -> "VirtualBox":
        with self._lock:
            self._open_pty()
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name="virtual-box", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        with self._lock:
            self._close_pty()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # before anything is written, or the line discipline echoes
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        tmp = self.path + ".tmp"
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.path)
        self._decoder.reset()

    def _close_pty(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1

    @property
    def plugged(self) -> bool:
        return self._master >= 0

    # ------------------------------------------------------------ faults

    def unplug(self) -> None:
        """Pull the cable: the pty goes away and the host's reads fail.  The
        box keeps running (and keeps counting presses) meanwhile."""
        with self._lock:
            self._close_pty()

    def replug(self) -> None:
        """Plug the cable back in: a new pty behind the same :attr:`path`."""
        with self._lock:
            if self._master < 0:
                self._open_pty()

    def reset(self) -> None:
        """Power-cycle the box: new boot id, sequence back to 0, queue and
        lamps cleared, a HELLO at once."""
        with self._lock:
            self._boot()
            self._pump()

    def stop_answering(self, stop: bool = True) -> None:
        """A hung box: the pty stays, but nothing is read or sent."""
        with self._lock:
            self._answering = not stop
            if not stop:
                self._pump()

    def inject(self, data: bytes) -> None:
        """Put raw bytes (garbage) on the line towards the host."""
        with self._lock:
            self._write(bytes(data))

    def drop_bytes(self, count: int) -> None:
        """Lose the next ``count`` bytes sent to the host."""
        with self._lock:
            self._drop += count

    # ------------------------------------------------------------ buttons

    def press(self, input_index: int, at: int | None = None) -> int:
        """Input ``input_index`` goes down at box time ``at`` (ticks; default
        now).  Returns the timestamp used.  Edges are debounced like the
        firmware does it."""
        return self._edge(input_index, True, at)

    def release(self, input_index: int, at: int | None = None) -> int:
        return self._edge(input_index, False, at)

    def tap(self, input_index: int, at: int | None = None, hold_us: int = 20_000) -> int:
        """Press and release (the release ``hold_us`` later, past the debounce)."""
        at = self.press(input_index, at)
        self.release(input_index, at + hold_us * self.tick_hz // 1_000_000)
        return at

    def _edge(self, i: int, pressed: bool, at: int | None) -> int:
        if not 0 <= i < self.n_inputs:
            raise ValueError(f"input {i} out of range 0..{self.n_inputs - 1}")
        with self._lock:
            if at is None:
                at = self.now_ticks()
            self._settle(at)
            if self._level[i] == pressed:
                return at
            self._level[i] = pressed
            self._last_edge[i] = at
            if self._until[i] is None and self._reported_level[i] != pressed:
                self._emit(i, pressed, at)
            self._pump()
            return at

    def _emit(self, i: int, pressed: bool, at: int) -> None:
        self._reported_level[i] = pressed
        self._until[i] = at + self.debounce_ticks
        if self._next_seq - self._send_seq >= self.history:
            self.events_dropped += 1  # unsent queue full: counted and reported
            return
        self._ring.append(codec.Event(self._next_seq % codec.SEQ_MOD, i, pressed, at & codec.TICKS_MASK))
        self._next_seq += 1

    def _settle(self, now: int) -> None:
        for i, until in enumerate(self._until):
            if until is None or now < until:
                continue
            self._until[i] = None
            if self._level[i] != self._reported_level[i]:
                self._emit(i, self._level[i], self._last_edge[i])
                if self._until[i] is not None and now >= self._until[i]:
                    self._until[i] = None

    # ------------------------------------------------------------ wire

    def _write(self, data: bytes) -> None:
        if self._drop:
            cut = min(self._drop, len(data))
            self._drop -= cut
            data = data[cut:]
        if self._master < 0 or not data:
            return  # unplugged: the bytes go nowhere
        try:
            os.write(self._master, data)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EIO):
                raise  # a full pty drops bytes, like a line nobody listens to

    def _oldest_seq(self) -> int:
        return self._next_seq - len(self._ring)

    def _pump(self) -> None:
        """Send everything pending, in the firmware's priority order."""
        if not self._answering:
            return
        seq = self._send_seq % codec.SEQ_MOD
        if self._hello_pending:
            self._hello_pending = False
            self._write(codec.Hello(seq, self.boot_id, self.n_inputs, self.tick_hz, self.debounce_us,
                                    self.now_ticks() & codec.TICKS_MASK).encode())
        while self._time_pending:
            token = self._time_pending.pop(0)
            self._write(codec.TimeReply(seq, token, self.boot_id, self.now_ticks() & codec.TICKS_MASK).encode())
        counters = (0, self.events_dropped)
        if counters != self._reported and self._report_reason is None:
            self._report_reason = codec.REPORT_OVERFLOW
        if self._report_reason is not None:
            self._reported = counters
            self._write(codec.Report(seq, self._report_reason, 0, self.events_dropped, self.rx_errors,
                                     self._oldest_seq() % codec.SEQ_MOD).encode())
            self._report_reason = None
        while self._send_seq < self._next_seq:
            event = self._ring[self._send_seq - self._oldest_seq()]
            self._send_seq += 1
            self._write(event.encode())

    def _receive(self, data: bytes) -> None:
        errors = self._decoder.errors
        for frame in self._decoder.feed(data):
            self.frames_received += 1
            message = codec.parse_message(frame)
            if isinstance(message, codec.HelloRequest):
                self._hello_pending = True
            elif isinstance(message, codec.TimeRequest):
                self._time_pending.append(message.token)
            elif isinstance(message, codec.SetLamps):
                self.lamp_on, self.lamp_blink = message.on_mask, message.blink_mask
                if self.when_lamps is not None:
                    self.when_lamps(self.lamp_on, self.lamp_blink)
            elif isinstance(message, codec.Replay):
                self._replay(message.from_seq)
            else:
                self.rx_errors += 1
                self._report_reason = codec.REPORT_RX_ERROR
        if self._decoder.errors != errors:
            self.rx_errors += self._decoder.errors - errors
            self._report_reason = self._report_reason or codec.REPORT_RX_ERROR

    def _replay(self, from_seq: int) -> None:
        back = (self._next_seq - from_seq) % codec.SEQ_MOD
        if back <= len(self._ring):
            if back > self._next_seq - self._send_seq:
                self._send_seq = self._next_seq - back
        else:
            self._send_seq = self._oldest_seq()
            self._report_reason = codec.REPORT_REPLAY_GONE

    def _serve(self) -> None:
        while not self._stop.is_set():
            fd = self._master
            if fd < 0 or not self._answering:
                with self._lock:
                    self._settle(self.now_ticks())
                self._stop.wait(0.005)
                continue
            try:
                ready, _, _ = select.select([fd], [], [], 0.005)
            except (OSError, ValueError):
                continue  # closed under us by unplug()
            with self._lock:
                if ready and fd == self._master:
                    try:
                        data = os.read(fd, 4096)
                    except OSError:
                        data = b""
                    if data:
                        self._receive(data)
                self._settle(self.now_ticks())
                self._pump()
