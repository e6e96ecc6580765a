#!/usr/bin/env python3
"""End-to-end fairness: does the true first presser win through the real loop?

``benchmarks/fairness.py`` proves the arbiter fair in a model (presses with
synthetic delivery times go straight into the engine).  This benchmark runs
the program as ``buzzer run`` runs it and presses buttons through each real
input path:

* the game is started by ``controller.cli.main(["run", "--config", F, "--new"])``
  -- config load (the defaults of config/default.toml plus a few keys written to
  F: ``buttons``, ``[gpio] pin_factory = "mock"`` or ``[serial] port``, a
  1920x1080 window, the journal in a temp folder with ``fsync = true``),
  ``prepare_game``, the backend, the audio (SDL's dummy driver) and
  ``controller.app.runner.run_window`` (the runner with the window) in the main thread; the window's own
  process (forked at the start, ``[display] separate_process``) renders the audience screen at 1920x1080 on
  SDL's dummy video driver (before 7 Dec 2026 the main thread drew it).  Two things are patched:
  ``controller.app.startup.display_available`` says yes (the dummy driver reads as
  "no display", as in run.py's start-up benchmark), and ``run_window`` is
  wrapped so that, once the loop exists, a driver thread starts and a hook
  on ``Loop.apply`` and ``backend.set_lamp`` watches the loop (it only
  records and wakes the driver; the real methods do all the work);
* the driver plays the host through ``Loop.enqueue(HostKey(...))`` (as a keypad does):
  ``question``, ``reading_done``; then the two presses; it waits until the
  loop switches a winner's lamp on (the Lamp "on" effect carried out by
  ``backend.set_lamp``), records whether that is the true first presser and
  the decision latency (true first edge -> that lamp call returned); then
  ``withdraw``, both buttons are released, and the next pair follows once the
  releases are applied and the debounce window has passed.

Paths:

``gpio``
    ``buttons = "gpio"`` on gpiozero's MockFactory pins.  A feeder thread
    plays lgpio's callback thread: one thread calling the pin callbacks one
    at a time, each pair reported as one batch out of timestamp order (the
    LATER edge's callback first, the earlier one's ``follow_ms`` = δ after
    it), delivered ``delay_ms`` = D after the later edge, with explicit
    ``ticks`` = the edge time in monotonic seconds (what lgpio's
    ``_call_when_changed(ticks / 1e9, level)`` passes; MockFactory's ticks
    are ``time.monotonic()``, which the backend's ``_ticks_to_engine``
    converts like lgpio's).  The mock pin's state is kept consistent.
``serial-virtual``
    ``buttons = "serial-sim"``: the virtual box (firmware_bridge/virtual_box.py)
    over a pty, in-process, as ``buzzer run`` does it.  Both edges are stamped
    on the box clock ``gap`` apart and handed to the box ``D`` after the later
    edge (a late USB delivery), in time order -- the box is an ordered
    stream, so δ does not apply (``follow_ms`` = 0).
``serial-simavr``
    ``buttons = "serial"`` on the pty of the real firmware in simavr
    (wall-clock mode): both edges are scheduled at exact cycles 2 ms ahead,
    ``gap`` apart.  The firmware sends them as soon as it has them: D = δ = 0.
``gpiod-host``
    ``buttons = "gpiod"`` (controller/inputs/gpiochip.py, libgpiod v2's ordered stream) on
    this machine's own kernel, natively, with a stand-in for the kernel's line request: the
    backend gets it the way tests/test_phone_teams.py's ``fake_chip`` gives it one
    (``gpiochip.gpiod.request_lines``, ``gpiochip.gpiod.Chip`` and ``gpiochip.find_chip``
    patched for the game's run).  Its ``fd`` is the read end of a real pipe: a separate
    *presser process* (unthrottled, real-time priority where allowed) "presses" by taking a
    ``CLOCK_MONOTONIC`` stamp and writing at once one edge event record (line, edge type,
    that stamp, ``global_seqno``, ``line_seqno``) into the pipe, the second one ``gap`` later
    (spun, so 10 µs is 10 µs).  So the backend's poll/read thread, its seqno bookkeeping and
    its stamps are the real ones; what is *not* measured is the kernel's own part on a Pi
    (the GPIO interrupt's latency, the interrupt thread putting the event in the buffer):
    the record is in the pipe a few µs after its stamp.  Loads: plain, ``hog`` (one CPU-bound
    process per CPU beside the game) and throttled; the decision latency is from the *later*
    edge's stamp to the winner's lamp on, as on the ``gpiod-kernel`` rows
    (benchmarks/e2e_kernel.py); negative when the first press alone was decided (its settle
    window over) before the later edge came.

Throttled runs put the whole benchmark process (loop, window, backend,
feeder, in-process virtual box) in a cgroup with a CPU quota (default 2.5 ms
per 10 ms period: 25 % of one core, both slower and stalled, as a busy Pi is).
simavr's harness (the box's own CPU) is moved back out of it.

    python benchmarks/e2e_fairness.py                 # the full grid, plain and throttled
    python benchmarks/e2e_fairness.py --quick         # a few cells (CI)
    python benchmarks/e2e_fairness.py --cell gpio,1,3,0.01 --pairs 50 [--throttled]
    python benchmarks/e2e_fairness.py --paths gpiod-host [--quick]   # the gpiod path only
    E2E_SIMAVR_LOG=FILE python benchmarks/e2e_fairness.py --paths serial-simavr ...  # a line per simavr pair

From Python (while changing the loop)::

    import e2e_fairness
    e2e_fairness.run_cell("gpio", gap_us=1, delay_ms=3, follow_ms=0.01, pairs=50)
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import queue
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

Press = None  # controller.core.events.Press, imported with the program in Session.run
HostKey = None  # controller.core.events.HostKey, likewise

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

GPIOD_HOST = "gpiod-host"
WINDOW_IN_LOOP_ENV = "E2E_WINDOW_IN_LOOP"
NO_WEB_ENV = "E2E_NO_WEB"
"""Set: the game runs without its web pages ([web] enabled = false), to see their share."""
"""Set (``--window-in-loop``): the games draw their window in the loop's own process
(``[display] separate_process = false``), as before 7 Dec 2026 -- for before/after runs."""
PATHS = ("gpio", "serial-virtual", "serial-simavr", GPIOD_HOST)
CLASSIC_PATHS = PATHS[:3]
"""The paths measured plain and throttled by :func:`measure`'s first part (the ``e2e_decision*``
keys); ``gpiod-host`` has loads of its own (:func:`measure_gpiod_host`)."""

GPIO_GAPS_US = (1, 10, 100, 1000, 10000)
SERIAL_GAPS_US = (10, 100, 1000, 10000)
DELAYS_MS = (0.5, 3, 10, 30, 50)
FOLLOWS_MS = (0.01, 1, 10)
VIRTUAL_DELAYS_MS = (0, 3, 30)
PAIRS_FULL = 50
PAIRS_QUICK = 5
THROTTLED_PAIRS_FULL = 20
"""The throttled run is 2-3 times slower: fewer pairs per cell keep the whole run near 15 minutes."""
THROTTLED_PAIRS_QUICK = 3

GPIOD_HOST_GAPS_US = (10, 100, 1000, 10000)
GPIOD_HOST_QUICK_GAPS_US = (10, 1000)
GPIOD_HOST_LOADS = ("plain", "hog", "throttled")
GPIOD_HOST_PAIRS = {"plain": 100, "hog": 100, "throttled": 50}
GPIOD_HOST_QUICK_PAIRS = {"plain": 4, "hog": 4, "throttled": 3}

THROTTLE_PERIOD_US = 10_000
THROTTLE_QUOTA_US = 2_500

SESSION_MAX_PAIRS = 400
"""Pairs played in one game (one ``buzzer run``): a real game has ~60 questions,
so long runs start a fresh game now and then instead of growing one history."""

RULING_TIMEOUT_S = 3.0
STEP_TIMEOUT_S = 5.0
SIMAVR_LEAD_MS = 20.0
"""simavr's presses are scheduled this far ahead of the cycle read just before, so
that both commands reach the harness before their cycle even when the driver
thread waits for the GIL (or the throttle) in between."""
WARMUP_PAIRS = 2
ARM_MARGIN_NS = 1_000_000
SERIAL_ARM_MARGIN_NS = 10 * 1_000_000
"""The serial paths' first edge comes this long after the end of reading. Their stamps are on
the box clock, mapped onto the host's by the link's clock offset, which is good to half the
best time query's round trip (docs/serial-protocol.md, «Clock mapping»): tens of µs on a quiet
machine, but under the CPU quota the in-process virtual box answers its queries late and the
mapping was seen 3-5 ms early for a whole game, so an edge 1 ms after the end of reading was
stamped before it and ruled early (a false start: the pair lost as ``early``, on the tree of
issue 24 and on the one before it alike).  The race between the two edges, which this benchmark
measures, is on the box clock alone and does not depend on the offset."""
SIMAVR_SYNC_NS = 2 * 1_000_000
SIMAVR_SLIP_NS = 10 * 1_000_000
SIMAVR_RESYNC_S = 4.0
SIMAVR_TICK_NS = 1_000   # the firmware's Timer1 counts 0.5 µs; one tick either way
SIMAVR_HOLD_MS = 40.0
"""simavr's buttons are released this long (box time) after the later press, scheduled with
the presses: released at an arbitrary moment by the host, the firmware sometimes holds a
release back until the next edge (seen with a release 0.1 ms into the debounce window), and a
held button would be reported stuck at the next question."""

MS = 1_000_000
US = 1_000


@dataclass(frozen=True)
class Cell:
    path: str
    gap_us: float
    delay_ms: float
    follow_ms: float

    def key(self) -> tuple:
        return (self.path, self.gap_us, self.delay_ms, self.follow_ms)


def grid(quick: bool = False, paths: Iterable[str] = PATHS) -> list[Cell]:
    """The cells of a run (see the module docstring)."""
    cells: list[Cell] = []
    for path in paths:
        if path == "gpio":
            gaps = (1, 1000) if quick else GPIO_GAPS_US
            delays = (0.5, 10) if quick else DELAYS_MS
            follows = (0.01,) if quick else FOLLOWS_MS
            cells += [Cell(path, g, d, f) for d in delays for f in follows for g in gaps]
        elif path == "serial-virtual":
            gaps = (100,) if quick else SERIAL_GAPS_US
            delays = (3,) if quick else VIRTUAL_DELAYS_MS
            cells += [Cell(path, g, d, 0) for d in delays for g in gaps]
        elif path == "serial-simavr":
            gaps = (100,) if quick else SERIAL_GAPS_US
            cells += [Cell(path, g, 0, 0) for g in gaps]
        elif path == GPIOD_HOST:
            gaps = GPIOD_HOST_QUICK_GAPS_US if quick else GPIOD_HOST_GAPS_US
            cells += [Cell(path, g, 0, 0) for g in gaps]
        else:
            raise ValueError(f"unknown path {path!r}; known: {', '.join(PATHS)}")
    return cells


def percentile(values, p: float):
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, min(len(ordered), -(-len(ordered) * p // 100)))
    return ordered[int(rank) - 1]


def _ms(ns) -> float | None:
    return None if ns is None else round(ns / MS, 3)


# ---------------------------------------------------------------------------
# waiting (sleep most of the way, spin the last bit: a 10 µs δ is 10 µs)

SPIN_NS = 300 * US


def wait_until(t_ns: int) -> None:
    """Sleep (the GIL is free meanwhile), then spin the last 0.3 ms holding it:
    two callbacks less than that apart come from one batch of lgpio's reports,
    called back to back by one Python thread."""
    while True:
        left = t_ns - time.monotonic_ns()
        if left <= 0:
            return
        if left > SPIN_NS:
            time.sleep((left - SPIN_NS) / 1e9)


# ---------------------------------------------------------------------------
# the lgpio-like feeder


class LgpioFeeder:
    """One thread calling the pins' callbacks one at a time, as lgpio's
    callback thread does.  A *batch* is a list of ``(when_ns, pin, edge_ns,
    level)`` in the order the callbacks are called, with ``ticks = edge_ns /
    1e9``: the first callback no earlier than the monotonic time ``when_ns``,
    each further one no earlier than ``when_ns`` ns after the previous one
    was entered (δ follows the first callback, however late that was)."""

    def __init__(self):
        self._q: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="lgpio-like-callbacks", daemon=True)
        self.error: BaseException | None = None
        self._thread.start()

    def submit(self, batch: list) -> threading.Event:
        """Queue a batch; the event is set when its last callback has returned.
        Its ``.called_ns`` lists when each callback was entered."""
        done = threading.Event()
        done.called_ns = []  # type: ignore[attr-defined]
        self._q.put((batch, done))
        return done

    def close(self) -> None:
        self._q.put(None)
        self._thread.join(2.0)

    @staticmethod
    def fire(pin, edge_ns: int, level: int) -> None:
        """Set the mock pin's level as of ``edge_ns`` and call its callback with
        lgpio's arguments (``ticks`` in seconds, the level as 0/1)."""
        from gpiozero.pins.mock import PinState
        from gpiozero.pins.pi import PiPin

        ticks = edge_ns / 1e9
        pin._state = bool(level)
        pin.states.append(PinState(ticks - pin._last_change, bool(level)))
        pin._last_change = ticks
        if pin._when_changed is not None:
            PiPin._call_when_changed(pin, ticks, level)

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            batch, done = item
            try:
                for i, (when, pin, edge_ns, level) in enumerate(batch):
                    wait_until(when if i == 0 else done.called_ns[-1] + when)
                    done.called_ns.append(time.monotonic_ns())
                    self.fire(pin, edge_ns, level)
            except BaseException as exc:  # reported by the driver
                self.error = exc
            finally:
                done.set()


# ---------------------------------------------------------------------------
# gpiod-host: a stand-in for the kernel's line request, fed by a presser process

EDGE_RECORD = struct.Struct("<IIqQQ")
"""One edge event as the presser writes it: line offset, falling (1) or rising (0), its
CLOCK_MONOTONIC stamp (ns), global_seqno, line_seqno.  32 bytes: a pipe write of it is atomic."""


def _presser_main(fd: int) -> int:
    """The presser process (``e2e_fairness.py --presser FD``).  Commands on stdin, one a line:
    ``press L1 L2 GAP_NS`` (line L1's contacts close, L2's GAP_NS later: falling edges, pulled
    up) and ``release L1 L2`` (rising edges); each edge is stamped with CLOCK_MONOTONIC and its
    record written to FD at once, as the kernel stamps an edge and queues it.  Replies ``T1 T2
    W2``: the two stamps and the time the second record was in the pipe."""
    try:
        # real time, as the kernel's interrupt handling is; hogs are not its children
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(20))
    except (OSError, AttributeError):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, 0, -10)
    seq = 0
    line_seq: dict[int, int] = {}

    def edge(line: int, falling: bool) -> int:
        nonlocal seq
        t = time.monotonic_ns()
        seq += 1
        line_seq[line] = line_seq.get(line, 0) + 1
        os.write(fd, EDGE_RECORD.pack(line, int(falling), t, seq, line_seq[line]))
        return t

    for cmd in sys.stdin:
        parts = cmd.split()
        if not parts:
            continue
        a, b = int(parts[1]), int(parts[2])
        falling = parts[0] == "press"
        gap = int(parts[3]) if falling else 0
        t0 = edge(a, falling)
        while time.monotonic_ns() < t0 + gap:
            pass
        t1 = edge(b, falling)
        w1 = time.monotonic_ns()
        sys.stdout.write(f"{t0} {t1} {w1}\n")
        sys.stdout.flush()
    return 0


class Presser:
    """The game's side of the presser process: ``press(l1, l2, gap_ns)`` -> the edges' stamps."""

    def __init__(self):
        self.r, w = os.pipe()
        os.set_blocking(self.r, False)
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--presser", str(w)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     pass_fds=(w,))
        os.close(w)

    def _ask(self, line: str) -> tuple[int, int, int]:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().split()
        if len(reply) != 3:
            raise RuntimeError(f"the presser stopped (exit {self.proc.poll()})")
        return tuple(int(x) for x in reply)  # type: ignore[return-value]

    def press(self, first: int, second: int, gap_ns: int) -> tuple[int, int, int]:
        return self._ask(f"press {first} {second} {gap_ns}")

    def release(self, first: int, second: int) -> tuple[int, int, int]:
        return self._ask(f"release {first} {second}")

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.proc.stdin.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        with contextlib.suppress(OSError):
            os.close(self.r)


class HostLineRequest:
    """What the gpiod backend uses of libgpiod v2's input line request (as tests/test_phone_teams.py's
    FakeRequest), on the presser's pipe: ``fd`` polls readable while edges wait, ``read_edge_events``
    returns them in the order they were written (the kernel's order), with their own stamps."""

    def __init__(self, fd: int, offsets):
        self.fd = fd
        self.offsets = list(offsets)
        self._rest = b""

    def wait_edge_events(self, timeout=None) -> bool:
        t = None if timeout is None else (timeout.total_seconds() if hasattr(timeout, "total_seconds")
                                          else float(timeout))
        return bool(self._rest) or bool(select.select([self.fd], [], [], t)[0])

    def read_edge_events(self):
        from types import SimpleNamespace
        import gpiod

        try:
            data = self._rest + os.read(self.fd, EDGE_RECORD.size * 16)   # up to 16 a read
        except BlockingIOError:
            data = self._rest
        n = len(data) // EDGE_RECORD.size * EDGE_RECORD.size
        self._rest = data[n:]
        out = []
        for k in range(0, n, EDGE_RECORD.size):
            line, falling, ts, gseq, lseq = EDGE_RECORD.unpack_from(data, k)
            kind = gpiod.EdgeEvent.Type.FALLING_EDGE if falling else gpiod.EdgeEvent.Type.RISING_EDGE
            out.append(SimpleNamespace(line_offset=line, event_type=kind, timestamp_ns=ts,
                                       global_seqno=gseq, line_seqno=lseq))
        return out

    def get_values(self, lines):
        from gpiod.line import Value
        return [Value.ACTIVE for _ in lines]      # idle: pulled up, high

    def set_value(self, offset, value) -> None:
        pass

    def release(self) -> None:
        pass                                      # the pipe is the presser's, closed with it


class HostOutputRequest:
    """The lamps' (and beeper's) output request: remembers the levels."""

    def __init__(self, offsets):
        self.values: dict[int, Any] = {}

    def set_value(self, offset, value) -> None:
        self.values[offset] = value

    def release(self) -> None:
        pass


@contextlib.contextmanager
def host_chip(presser: Presser):
    """The gpiod backend on the presser's pipe: gpiod's ``request_lines`` and ``Chip`` and
    the backend's ``find_chip`` replaced while the game runs (restored after)."""
    from types import SimpleNamespace
    from controller.inputs import gpiochip

    def request_lines(path, consumer=None, config=None):
        offsets = [o for key in config for o in (key if isinstance(key, tuple) else (key,))]
        if any(getattr(st, "edge_detection", None) not in (None, gpiochip.Edge.NONE) for st in config.values()):
            return HostLineRequest(presser.r, offsets)
        return HostOutputRequest(offsets)

    class Chip:
        def __init__(self, path):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def get_info(self):
            return SimpleNamespace(label="pinctrl-bcm2711 (stand-in: e2e_fairness gpiod-host)", num_lines=58)

    saved = (gpiochip.gpiod.request_lines, gpiochip.gpiod.Chip, gpiochip.find_chip)
    gpiochip.gpiod.request_lines, gpiochip.gpiod.Chip = request_lines, Chip
    gpiochip.find_chip = lambda name: ("/dev/gpiochip0", "the e2e benchmark's stand-in")
    try:
        yield
    finally:
        gpiochip.gpiod.request_lines, gpiochip.gpiod.Chip, gpiochip.find_chip = saved


class Hogs:
    """``hog`` load: one CPU-bound process per CPU at normal priority beside the game."""

    def __enter__(self) -> "Hogs":
        self.procs = [subprocess.Popen([sys.executable, "-S", "-c", "while True: pass"])
                      for _ in range(os.cpu_count() or 2)]
        return self

    def __exit__(self, *exc) -> None:
        for h in self.procs:
            h.kill()
        for h in self.procs:
            h.wait()


# ---------------------------------------------------------------------------
# one game: buzzer run with a driver thread


@dataclass
class Pair:
    cell: Cell
    first: str
    won: str | None
    decision_ns: int | None          # true first edge -> winner's lamp on
    after_delivery_ns: int | None    # last callback / box hand-over -> lamp on
    follow_ns: int | None            # measured δ between the two callbacks
    skew_ns: int | None = None       # the first press's stamp (engine -> monotonic) - its true edge
    stamp_gap_ns: int | None = None  # second press's stamp - first press's stamp, as the engine got them
    invalid: str | None = None       # why this pair does not count (simavr fell behind real time)
    first_kind: str | None = None    # how the engine recorded the true first press (answer, lockout, early ...)
    true_gap_ns: int | None = None   # gpiod-host: the presser's stamp of the later edge - the earlier one's
    read_ns: int | None = None       # gpiod-host: later edge -> its Press handed to the loop's sink (reader thread)
    applied_ns: int | None = None    # gpiod-host: later edge -> the loop applied that Press (journal fsync'ed)
    journal_ns: int | None = None    # gpiod-host: time in the journal's writes (fsync) between the later edge and the lamp


@dataclass
class Session:
    """One ``buzzer run`` playing ``pairs`` press pairs in each of ``cells``."""

    path: str
    cells: list[Cell]
    pairs: int
    results: list[Pair] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    trace: list | None = None
    resyncs: int = 0
    """simavr: 0.1 s waits for the link to re-map the box clock (see _simavr_sync)."""
    """When a list: (monotonic ns, event) of every event the loop applied (debugging)."""

    # -- set-up -------------------------------------------------------------

    def _config_text(self, tmp: str, port: str | None) -> str:
        backend = {"gpio": "gpio", "serial-virtual": "serial-sim", "serial-simavr": "serial",
                   GPIOD_HOST: "gpiod"}[self.path]
        lines = [f'buttons = "{backend}"',
                 "", "[display]", "width = 1920", "height = 1080", "fullscreen = false",
                 *(["separate_process = false"] if os.environ.get(WINDOW_IN_LOOP_ENV) else []),
                 "", "[journal]", f"dir = {json.dumps(str(Path(tmp) / 'journal'))}", "fsync = true",
                 "", "[gpio]", 'pin_factory = "mock"',
                 *(["", "[web]", "enabled = false"] if os.environ.get(NO_WEB_ENV) else [])]
        if os.environ.get("E2E_CGROUP_PROCS"):
            # throttled: a CPU quota holds only normal-priority threads (a real-time game would
            # escape it where the kernel has no real-time group scheduling), as a slow machine's
            lines += ["", "[process]", "realtime_priority = 0"]
        if port is not None:
            # time queries every 0.5 s: after simavr falls behind real time, the link's
            # clock mapping follows within ~1 s of quiet (see Session._simavr_sync)
            lines += ["", "[serial]", f"port = {json.dumps(port)}", "reconnect_min_s = 0.01",
                      "time_query_interval_s = 0.5"]
        return "\n".join(lines) + "\n"

    def run(self) -> list[Pair]:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        if str(REPO) not in sys.path:
            sys.path.insert(0, str(REPO))
        import controller.app.startup as loop_mod  # where buzzer run is put together
        import controller.app.runner as window_mod   # run_window: the runner with the window (buzzer run)
        from controller import cli
        global Press, HostKey
        from controller.core.events import HostKey, Press

        box = None
        chip = contextlib.nullcontext()
        if self.path == GPIOD_HOST:
            # the presser is the box here: out of the throttle, real time (see _box_cpu)
            box = Presser()
            self._box_cpu(box.proc.pid, "the presser")
            chip = host_chip(box)
        elif self.path == "serial-simavr":
            from firmware_bridge import simavr_box
            simavr_box.build()
            box = simavr_box.SimulatedBox(wallclock=True)
            self._box_cpu(box._proc.pid)
        driver_error: list[BaseException] = []
        real_run_window = window_mod.run_window
        real_display = loop_mod.display_available

        def run_window(loop, seconds=None):
            t = threading.Thread(target=self._drive_safely, args=(loop, box, driver_error),
                                 name="e2e-driver", daemon=True)
            t.start()
            try:
                real_run_window(loop, seconds)
            finally:
                loop.running = False
                t.join(30)

        try:
            with tempfile.TemporaryDirectory(prefix="buzzer-e2e-") as tmp:
                cfg = Path(tmp) / "e2e.toml"
                cfg.write_text(self._config_text(tmp, getattr(box, "link_path", None)), encoding="utf-8")
                window_mod.run_window = run_window
                loop_mod.display_available = lambda: True
                chatter = io.StringIO()
                with contextlib.redirect_stdout(chatter), chip:
                    rc = cli.main(["run", "--config", str(cfg), "--new"])
                if rc != 0:
                    raise RuntimeError(f"buzzer run exited {rc}: {chatter.getvalue()[-500:]}")
        finally:
            window_mod.run_window = real_run_window
            loop_mod.display_available = real_display
            if box is not None:
                box.close()
        if driver_error:
            raise driver_error[0]
        return self.results

    def _box_cpu(self, pid: int, what: str = "simavr") -> None:
        """The simulated box has a CPU of its own: take simavr's harness out of
        the throttle's cgroup and give it a real-time priority, or in wall-clock
        mode it falls behind real time on a busy machine (tens of ms, then it
        drops the backlog) and the box clock drifts from the host's, which no
        real box's crystal does."""
        out_of_throttle = os.environ.get("E2E_UNTHROTTLED_PROCS")
        if out_of_throttle:
            try:
                Path(out_of_throttle).write_text(str(pid))
            except OSError as exc:
                self.notes.append(f"{what} stays in the throttled cgroup: {exc}")
        try:
            os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(10))
        except (OSError, AttributeError) as exc:
            try:
                os.setpriority(os.PRIO_PROCESS, pid, -10)
                self.notes.append(f"{what} at nice -10 (no SCHED_FIFO: {exc})")
            except OSError as exc2:
                self.notes.append(f"{what} at normal priority ({exc2})" + (": its clock may drift" if what == "simavr" else ""))

    # -- the driver thread ----------------------------------------------------

    def _drive_safely(self, loop, box, errors: list) -> None:
        try:
            self._drive(loop, box)
        except BaseException as exc:
            errors.append(exc)
        finally:
            loop.running = False

    def _drive(self, loop, box) -> None:
        backend = loop.backend
        cond = threading.Condition()
        lamps: list[tuple[str, int]] = []
        self._pressed_at: dict[str, int] = {}
        self._delivered_at: dict[str, int] = {}
        self._applied_at: dict[str, int] = {}
        real_apply, real_set_lamp = loop.apply, backend.set_lamp

        def apply(event, journaled=False):
            if isinstance(event, Press):
                self._applied_at[event.button] = time.monotonic_ns()
                self._delivered_at[event.button] = loop.clock.origin_ns + event.delivered
            fx = real_apply(event, journaled)
            if isinstance(event, Press):
                self._pressed_at[event.button] = loop.clock.origin_ns + event.at
            if self.trace is not None:
                self.trace.append((time.monotonic_ns(), event))
            with cond:
                cond.notify_all()
            return fx

        def set_lamp(button, state):
            real_set_lamp(button, state)
            if state == "on":
                t = time.monotonic_ns()
                with cond:
                    lamps.append((button, t))
                    cond.notify_all()

        loop.apply = apply
        backend.set_lamp = set_lamp
        self._journal_spans: list[tuple[int, int]] = []
        jour = getattr(loop, "journal", None)
        if jour is not None and self.path == GPIOD_HOST:
            spans = self._journal_spans

            def timed(real):
                def call(*a, **kw):
                    t = time.monotonic_ns()
                    try:
                        return real(*a, **kw)
                    finally:
                        spans.append((t, time.monotonic_ns()))
                        del spans[:-64]
                return call

            jour.append, jour.append_many = timed(jour.append), timed(jour.append_many)

        def wait(pred, timeout=STEP_TIMEOUT_S, what="") -> bool:
            with cond:
                ok = cond.wait_for(lambda: pred() or not loop.running, timeout)
            if not loop.running:
                raise RuntimeError("the loop stopped")
            if not ok and what:
                raise RuntimeError(f"timed out waiting for {what}")
            return ok

        deadline = time.monotonic() + self.ready_timeout_s
        while loop.screen is None or not backend.status().connected:
            if time.monotonic() > deadline:
                raise RuntimeError(f"backend not ready: {backend.status()}")
            time.sleep(0.01)
        if self.path.startswith("serial"):
            time.sleep(1.2)  # the link's first time queries; its offset moves only when quiet
        self._sync0 = None
        if self.path == "serial-simavr":
            # the reference is the link's mapping now: only once its best round trip leaves it
            # within SIMAVR_SYNC_NS / 2 (a busy start-up answers the first queries late), or a
            # later, better re-map would differ from it by more than the guard for good
            deadline = time.monotonic() + SIMAVR_RESYNC_S
            while (backend.link.status().rtt_ns or SIMAVR_SYNC_NS + 1) > SIMAVR_SYNC_NS \
                    and time.monotonic() < deadline:
                time.sleep(0.1)
            rtt = backend.link.status().rtt_ns
            if rtt is None or rtt > SIMAVR_SYNC_NS:
                self.notes.append(f"simavr: the link's best round trip at the start was "
                                  f"{'none' if rtt is None else f'{rtt / MS:.1f} ms'}")
            errs = []
            for _ in range(7):
                errs.append(self._box_clock(box, backend.link)[2])
                time.sleep(0.01)
            if None in errs:
                raise RuntimeError("the link has no clock mapping for the simulated box")
            self._sync0 = statistics.median(errs)

        feeder = LgpioFeeder() if self.path == "gpio" else None
        pins = {}
        if feeder is not None:
            pins = {b: dev.pin for b, dev in backend._inputs.items()}
        debounce_ns = self._debounce_ns(loop)
        buttons = [t["button"] for t in loop.cfg["teams"]][:2]
        k = 0
        try:
            warm = Cell(self.cells[0].path, 10_000, 0, 0)
            for _ in range(WARMUP_PAIRS):  # first sounds, fonts, flashes: not counted
                self._pair(loop, box, feeder, pins, warm, buttons[k % 2], buttons[1 - k % 2],
                           lamps, cond, wait, debounce_ns)
                k += 1
            for cell in self.cells:
                for _ in range(self.pairs):
                    first, second = (buttons[0], buttons[1]) if k % 2 == 0 else (buttons[1], buttons[0])
                    k += 1
                    self.results.append(self._pair(loop, box, feeder, pins, cell, first, second,
                                                   lamps, cond, wait, debounce_ns))
                    if feeder is not None and feeder.error is not None:
                        raise feeder.error
        finally:
            if feeder is not None:
                feeder.close()

    ready_timeout_s: float = 15.0
    """Longest wait for the first frame and a connected backend."""

    def _debounce_ns(self, loop) -> int:
        section = "gpio" if self.path.startswith("gpio") else "serial"
        return int(float(loop.cfg[section]["debounce_ms"]) * MS)

    def _open_question(self, loop, lamps: list, cond, wait, timeout: float = STEP_TIMEOUT_S) -> int:
        """The host announces a question and ends its reading at once (both keys in one go);
        returns once its buttons may signal (plus the arming margin) with the number of lamps
        that had come on before."""
        state = lambda: loop.state  # noqa: E731  (read from the loop thread's latest)
        self._pressed_at.clear()
        self._applied_at.clear()
        self._delivered_at.clear()
        q0 = state().question
        announced = q0.announced_at if q0 is not None else -1
        loop.enqueue(HostKey("question"))
        loop.enqueue(HostKey("reading_done"))
        # (a question after a withdrawn one keeps its number, §4.9: a new one is told by its time)
        wait(lambda: state().question is not None and state().question.announced_at > announced
             and state().question.open and state().question.reading_done, timeout=timeout,
             what="the end of reading")
        with cond:
            n_lamps = len(lamps)
        # a press stamped before the end of reading is early: the edges come a margin after it
        margin = SERIAL_ARM_MARGIN_NS if self.path.startswith("serial") else ARM_MARGIN_NS
        wait_until(loop.clock.origin_ns + state().question.armed_at + margin)
        return n_lamps

    def _outcome(self, loop, first: str, second: str) -> tuple[str | None, int | None]:
        """How the engine recorded the true first press in this wave (answer, lockout, early
        ...), and the second press's stamp minus the first's as the engine got them."""
        q = loop.state.question
        first_kind = next((r.kind for r in q.presses if r.button == first and r.wave == q.wave), None)
        stamp_gap = None
        if first in self._pressed_at and second in self._pressed_at:
            stamp_gap = self._pressed_at[second] - self._pressed_at[first]
        return first_kind, stamp_gap

    def _pair(self, loop, box, feeder, pins, cell: Cell, first: str, second: str,
              lamps: list, cond, wait, debounce_ns: int) -> Pair:
        state = lambda: loop.state  # noqa: E731  (read from the loop thread's latest)
        n_lamps = self._open_question(loop, lamps, cond, wait)
        gap_ns = int(round(cell.gap_us * US))
        follow_ns = None
        handed_ns = None
        invalid = None
        true_gap = None
        if self.path == GPIOD_HOST:
            lines = loop.backend._line_of
            t0, t1, handed_ns = box.press(lines[first], lines[second], gap_ns)
            true_gap = t1 - t0
        elif self.path == "gpio":
            t0 = time.monotonic_ns()
            t1 = t0 + gap_ns
            deliver = t1 + int(round(cell.delay_ms * MS))
            follow = int(round(cell.follow_ms * MS))
            # active-low with the pull-up: pressed = level 0; the later edge's callback first
            done = feeder.submit([(deliver, pins[second], t1, 0), (follow, pins[first], t0, 0)])
            done.wait(cell.delay_ms / 1000 + cell.follow_ms / 1000 + STEP_TIMEOUT_S)
            if len(done.called_ns) == 2:
                follow_ns = done.called_ns[1] - done.called_ns[0]
                handed_ns = done.called_ns[1]
        elif self.path == "serial-virtual":
            vbox = loop.backend.box
            hz = vbox.tick_hz
            at0 = vbox.now_ticks()
            at1 = at0 + gap_ns * hz // 1_000_000_000
            t0 = vbox._boot_ns + at0 * 1_000_000_000 // hz
            t1 = vbox._boot_ns + at1 * 1_000_000_000 // hz
            wait_until(t1 + int(round(cell.delay_ms * MS)))
            ins = loop.backend.input_of_button
            vbox.press(ins[first], at0)
            vbox.press(ins[second], at1)
            handed_ns = time.monotonic_ns()
        else:  # serial-simavr
            from firmware_bridge.simavr_box import CYCLES_PER_US, F_CPU
            ins = loop.backend.input_of_button
            invalid = self._simavr_sync(box, loop.backend.link)
            cycle, mono, _ = self._box_clock(box, loop.backend.link)
            lead = int(SIMAVR_LEAD_MS * F_CPU / 1000)
            c0 = cycle + lead
            c1 = c0 + int(round(cell.gap_us * CYCLES_PER_US))
            with box._lock:  # both at once: no GIL hand-over between them
                # the releases too, SIMAVR_HOLD_MS of box time later (see SIMAVR_HOLD_MS)
                c2 = c1 + int(SIMAVR_HOLD_MS * F_CPU / 1000)
                box._proc.stdin.write(f"press {ins[first]} at {c0}\npress {ins[second]} at {c1}\n"
                                      f"release {ins[first]} at {c2}\nrelease {ins[second]} at {c2 + 3}\n")
                box._proc.stdin.flush()
                replies = [box._proc.stdout.readline().split() for _ in range(4)]
            if any(not r or r[0] != "ok" for r in replies):
                raise RuntimeError(f"buzzer-sim: {replies!r}")
            t0 = mono + lead * 1_000_000_000 // F_CPU
        got = wait(lambda: len(lamps) > n_lamps, timeout=cell.delay_ms / 1000 + cell.follow_ms / 1000
                   + RULING_TIMEOUT_S)
        with cond:
            won, lamp_ns = lamps[n_lamps] if got else (None, None)
        if self.path == "serial-simavr":
            handed_ns = None
            cycle2, mono2, _ = self._box_clock(box, loop.backend.link)
            slip = (mono2 - mono) - (cycle2 - cycle) * 1_000_000_000 // F_CPU
            if slip > SIMAVR_SLIP_NS:
                invalid = invalid or f"simavr fell {slip / MS:.1f} ms behind real time during the pair"
        if self.path == "serial-simavr" and first in self._pressed_at:
            t0 = self._pressed_at[first]  # the harness's cycle -> time reply is only good to a few ms
        decision = None if lamp_ns is None else lamp_ns - t0
        if self.path == GPIOD_HOST and lamp_ns is not None:
            decision = lamp_ns - t1   # from the later edge, as on the gpiod-kernel rows
        after = None if (lamp_ns is None or handed_ns is None) else lamp_ns - handed_ns
        # let a late second press reach the engine before the host moves on
        if self.path == "gpio":
            done.wait(STEP_TIMEOUT_S)
        wait(lambda: {first, second} <= set(self._pressed_at), timeout=STEP_TIMEOUT_S, what="both presses")
        loop.enqueue(HostKey("withdraw"))
        release_ns = time.monotonic_ns()  # the players let go as the host rules
        if self.path == "gpio":
            feeder.submit([(release_ns, pins[first], release_ns, 1), (0, pins[second], release_ns, 1)])
        elif self.path == GPIOD_HOST:
            lines = loop.backend._line_of
            release_ns = box.release(lines[first], lines[second])[1]
        elif self.path == "serial-virtual":
            vbox = loop.backend.box
            vbox.release(loop.backend.input_of_button[first])
            vbox.release(loop.backend.input_of_button[second])
        first_kind, stamp_gap = self._outcome(loop, first, second)
        released = lambda: not ({first, second} & state().held) and not state().question.open  # noqa: E731
        if not wait(released) and self.path == "serial-simavr":
            # simavr far behind real time: its release edges may still be coming; nudge it once
            self.notes.append("simavr: a release took over 5 s; released again")
            invalid = invalid or "simavr was too late with the releases"
            box.release(loop.backend.input_of_button[first])
            box.release(loop.backend.input_of_button[second])
        if not wait(released):
            q = state().question
            link = getattr(loop.backend, "link", None)
            raise RuntimeError(f"timed out waiting for the withdrawal and the releases: held {sorted(state().held)}, "
                               f"question open {q.open}, box {loop.backend.status().detail!r}"
                               + (f", link {link.status()}" if link is not None else "")
                               + (f", simavr {self._box_progress(box)}" if self.path == "serial-simavr" else ""))
        wait_until(max(release_ns, t0) + debounce_ns + 2 * MS)
        skew = self._pressed_at.get(first)
        if self.path == "serial-simavr":
            skew = None
        if stamp_gap is not None and self.path == "serial-simavr" and abs(stamp_gap - gap_ns) > SIMAVR_TICK_NS \
                and not invalid:
            # simavr catching up on a backlog ran past both cycles before the commands came
            invalid = f"the presses reached simavr after their cycles (stamp gap {stamp_gap / US:g} µs)"
        read = applied = in_journal = None
        if self.path == GPIOD_HOST and second in self._applied_at:
            read, applied = self._delivered_at[second] - t1, self._applied_at[second] - t1
            if lamp_ns is not None:
                in_journal = sum(max(0, min(b, lamp_ns) - max(a, t1)) for a, b in list(self._journal_spans))
        return Pair(cell, first, won, decision, after, follow_ns, None if skew is None else skew - t0, stamp_gap,
                    invalid, first_kind, true_gap, read, applied, in_journal)

    @staticmethod
    def _box_progress(box) -> str:
        c0, m0 = (int(x) for x in box.command("release 7")[2:4])
        time.sleep(0.2)
        c1, m1 = (int(x) for x in box.command("release 7")[2:4])
        return (f"ran {(c1 - c0) / 16e3:.1f} ms in {(m1 - m0) / 1e6:.1f} ms, lamps {box.lamps():#x}, "
                f"inputs {box.command('peek 41 1')}")

    @staticmethod
    def _box_clock(box, link) -> tuple[int, int, int | None]:
        """simavr's (cycle, CLOCK_MONOTONIC) now, and how far the link maps that
        cycle's box time from it (plus a constant: the box clock starts after
        cycle 0)."""
        _, cycle, mono = box.command("release 7")[1:4]  # input 7 is idle: no edge, just the clock
        cycle, mono = int(cycle), int(mono)
        mapped = link.box_to_monotonic_ns(cycle * 1000 // 16)  # Timer1: F_CPU / 8, 0.5 µs ticks
        return cycle, mono, None if mapped is None else mapped - mono

    def _simavr_sync(self, box, link) -> str | None:
        """Wait until the link maps box time onto host time as it did at the start
        (within SIMAVR_SYNC_NS).  simavr in wall-clock mode falls behind real time
        when the machine is busy (or the VM's CPU is stolen), and the link moves its
        clock offset only after a quiet moment (``remap_quiet_s``): a real box's
        crystal never drifts that fast.  Returns why the pair is invalid, or None."""
        start = time.monotonic()
        deadline = start + SIMAVR_RESYNC_S
        err = None
        first = None
        why = None
        while True:
            cycle, mono, err = self._box_clock(box, link)
            first = first or (cycle, mono, err)
            if err is not None and abs(err - self._sync0) <= SIMAVR_SYNC_NS:
                break
            if time.monotonic() > deadline:
                off = None if err is None else (err - self._sync0) / MS
                why = f"the link's box clock mapping stayed {off:.1f} ms off"
                break
            self.resyncs += 1
            time.sleep(0.1)
        self._log_sync(link, first, err, time.monotonic() - start, why)
        return why

    def _log_sync(self, link, first, err, waited_s: float, why: str | None) -> None:
        """With E2E_SIMAVR_LOG=FILE, one JSON line per pair: how far the link's mapping of
        simavr's clock was from the session's start (ms) before and after the wait, simavr's own
        time minus CLOCK_MONOTONIC (ms: constant while it keeps real time; it steps when simavr
        drops a backlog), the link's offset and best round trip (ms) and its quiet time (s)."""
        path = os.environ.get("E2E_SIMAVR_LOG")
        if not path:
            return
        cycle, mono, err0 = first
        st = link.status()
        rel = lambda e: None if e is None else round((e - self._sync0) / MS, 3)  # noqa: E731
        rec = {"t": round(time.monotonic(), 3), "pair": len(self.results), "err_ms": rel(err0),
               "err_after_ms": rel(err), "waited_s": round(waited_s, 2),
               "simavr_minus_real_ms": round((cycle * 1_000_000_000 // 16_000_000 - mono) / MS, 3),
               "offset_ms": None if st.offset_ns is None else round(st.offset_ns / MS, 3),
               "rtt_ms": None if st.rtt_ns is None else round(st.rtt_ns / MS, 3),
               "quiet_s": round((time.monotonic_ns() - getattr(link, "_last_event_rx", 0)) / 1e9, 2),
               "invalid": why}
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec) + "\n")


# ---------------------------------------------------------------------------
# summarising


def summarise(cells: list[Cell], pairs: list[Pair], throttled: bool, load: str | None = None) -> list[dict]:
    """One row per cell; ``load`` (plain, hog, throttled) defaults to what ``throttled`` says."""
    by_cell: dict[tuple, list[Pair]] = {}
    for p in pairs:
        by_cell.setdefault(p.cell.key(), []).append(p)
    rows = []
    for c in cells:
        ps = by_cell.get(c.key(), [])
        bad = [p for p in ps if p.invalid]
        ps = [p for p in ps if not p.invalid]
        wins = sum(1 for p in ps if p.won == p.first)
        dec = [p.decision_ns for p in ps if p.decision_ns is not None]
        aft = [p.after_delivery_ns for p in ps if p.after_delivery_ns is not None]
        fol = [p.follow_ns for p in ps if p.follow_ns is not None]
        skew = [abs(p.skew_ns) for p in ps if p.skew_ns is not None]
        gap_err = [abs(p.stamp_gap_ns - int(round(c.gap_us * US))) for p in ps if p.stamp_gap_ns is not None]
        rows.append({
            "path": c.path, "gap_us": c.gap_us, "delay_ms": c.delay_ms, "follow_ms": c.follow_ms,
            "throttled": throttled, "pairs": len(ps), "invalid": len(bad),
            "ours": round(wins / len(ps), 3) if ps else None,
            "no_ruling": sum(1 for p in ps if p.won is None),
            "first_lost_as": dict(sorted(collections.Counter(p.first_kind for p in ps if p.won != p.first).items(),
                                         key=lambda kv: str(kv[0]))),
            "decision_p50_ms": _ms(percentile(dec, 50)), "decision_p99_ms": _ms(percentile(dec, 99)),
            "after_delivery_p50_ms": _ms(percentile(aft, 50)), "after_delivery_p99_ms": _ms(percentile(aft, 99)),
            "follow_measured_p50_ms": _ms(percentile(fol, 50)),
            "follow_measured_max_ms": _ms(max(fol)) if fol else None,
            # the callback spacing the program saw in each lost pair: a loss beyond the quiet
            # period is the documented limit, one within it is a defect
            "lost_follow_ms": [_ms(p.follow_ns) for p in ps if p.won != p.first and p.follow_ns is not None],
            "stamp_error_max_ms": _ms(max(skew)) if skew else None,
            "stamp_gap_error_max_us": round(max(gap_err) / US, 3) if gap_err else None,
        })
        rows[-1]["load"] = load or ("throttled" if throttled else "plain")
        for name in ("read", "applied", "journal"):
            vals = [getattr(p, f"{name}_ns") for p in ps if getattr(p, f"{name}_ns") is not None]
            if vals:
                rows[-1][f"{name}_p50_ms"] = _ms(percentile(vals, 50))
                rows[-1][f"{name}_p99_ms"] = _ms(percentile(vals, 99))
        true_gaps = [p.true_gap_ns for p in ps if p.true_gap_ns is not None]
        if true_gaps:
            rows[-1]["true_gap_min_us"] = round(min(true_gaps) / US, 1)
            rows[-1]["true_gap_max_us"] = round(max(true_gaps) / US, 1)
    return rows


def _chunks(cells: list[Cell], pairs: int) -> list[list[Cell]]:
    """Cells grouped by path, at most SESSION_MAX_PAIRS pairs a game."""
    out: list[list[Cell]] = []
    for c in cells:
        if out and out[-1][0].path == c.path and (len(out[-1]) + 1) * pairs <= SESSION_MAX_PAIRS:
            out[-1].append(c)
        else:
            out.append([c])
    return out


def run_cells(cells: list[Cell], pairs: int) -> dict:
    """Play ``cells`` in this process (unthrottled unless this process is in a
    throttled cgroup); rows, every decision latency (ns) and notes."""
    all_pairs: list[Pair] = []
    notes: list[str] = []
    for chunk in _chunks(cells, pairs):
        s = Session(chunk[0].path, chunk, pairs)
        try:
            all_pairs += s.run()
        except Exception as exc:  # one broken path must not hide the others
            all_pairs += s.results
            notes.append(f"{chunk[0].path}: {type(exc).__name__}: {exc}")
        notes += [n for n in s.notes if n not in notes]
        if s.resyncs:
            notes.append(f"{s.path}: waited {s.resyncs / 10:.1f} s for the link to re-map simavr's clock")
    return {"pairs": all_pairs, "notes": notes}


# ---------------------------------------------------------------------------
# the throttle: a cgroup CPU quota


class ThrottleUnavailable(Exception):
    pass


class Throttle:
    """A cgroup (v1 ``cpu`` controller, else v2 ``cpu.max``) with a CPU quota.
    ``procs`` is the file a process writes its pid to, to join it."""

    def __init__(self, period_us: int = THROTTLE_PERIOD_US, quota_us: int = THROTTLE_QUOTA_US):
        self.period_us, self.quota_us = period_us, quota_us
        self.dir: Path | None = None
        self.kind = ""
        self.home_procs: str | None = None
        self._stat0: dict = {}

    @property
    def procs(self) -> str:
        return str(self.dir / "cgroup.procs")

    def describe(self) -> str:
        return (f"{self.kind}: quota {self.quota_us} µs per {self.period_us} µs period "
                f"({100 * self.quota_us / self.period_us:g} % of one core), group {self.dir}")

    def __enter__(self) -> "Throttle":
        name = f"buzzer-e2e-{os.getpid()}"
        own = {}
        with contextlib.suppress(OSError):
            for line in Path("/proc/self/cgroup").read_text().splitlines():
                _, ctrls, path = line.split(":", 2)
                for c in ctrls.split(","):
                    own[c] = path
        why = []
        v1 = Path("/sys/fs/cgroup/cpu")
        if (v1 / "cpu.cfs_quota_us").exists():
            try:
                d = v1 / name
                d.mkdir()
                self.dir, self.kind = d, "cgroup v1 cpu"
                (d / "cpu.cfs_period_us").write_text(str(self.period_us))
                (d / "cpu.cfs_quota_us").write_text(str(self.quota_us))
                self.home_procs = str(v1 / own.get("cpu", "/").lstrip("/") / "cgroup.procs")
                self._stat0 = self.stat()
                return self
            except OSError as exc:
                why.append(f"cgroup v1 {v1}: {exc.strerror or exc}")
                self._remove()
        for root in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
            controllers = root / "cgroup.controllers"
            if not controllers.exists():
                continue
            if "cpu" not in controllers.read_text().split():
                why.append(f"cgroup v2 {root}: no cpu controller")
                continue
            try:
                with contextlib.suppress(OSError):
                    (root / "cgroup.subtree_control").write_text("+cpu")
                d = root / name
                d.mkdir()
                self.dir, self.kind = d, "cgroup v2"
                (d / "cpu.max").write_text(f"{self.quota_us} {self.period_us}")
                self.home_procs = str(root / own.get("", "/").lstrip("/") / "cgroup.procs")
                self._stat0 = self.stat()
                return self
            except OSError as exc:
                why.append(f"cgroup v2 {root}: {exc.strerror or exc}")
                self._remove()
        raise ThrottleUnavailable("; ".join(why) or "no cgroup cpu controller mounted")

    def stat(self) -> dict:
        out = {}
        with contextlib.suppress(OSError, ValueError):
            for line in (self.dir / "cpu.stat").read_text().splitlines():
                k, v = line.split()
                out[k] = int(v)
        return out

    def stat_delta(self) -> dict:
        now = self.stat()
        d = {k: v - self._stat0.get(k, 0) for k, v in now.items()}
        out = {k: d[k] for k in ("nr_periods", "nr_throttled") if k in d}
        if "throttled_time" in d:  # v1: ns
            out["throttled_ms"] = round(d["throttled_time"] / 1e6, 1)
        if "throttled_usec" in d:  # v2
            out["throttled_ms"] = round(d["throttled_usec"] / 1e3, 1)
        return out

    def _remove(self) -> None:
        if self.dir is None:
            return
        for _ in range(50):
            try:
                self.dir.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.1)
        self.dir = None

    def __exit__(self, *exc) -> None:
        self._remove()


def _run_child(cells: list[Cell], pairs: int, throttle: Throttle | None, timeout: float) -> dict:
    """run_cells in a fresh process (in the throttle's cgroup when given)."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    env.pop("E2E_CGROUP_PROCS", None)
    env.pop("E2E_UNTHROTTLED_PROCS", None)
    if throttle is not None:
        env["E2E_CGROUP_PROCS"] = throttle.procs
        if throttle.home_procs:
            env["E2E_UNTHROTTLED_PROCS"] = throttle.home_procs
    with tempfile.TemporaryDirectory(prefix="buzzer-e2e-child-") as tmp:
        spec = Path(tmp) / "spec.json"
        out = Path(tmp) / "out.json"
        spec.write_text(json.dumps({"cells": [c.__dict__ for c in cells], "pairs": pairs}))
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(spec), str(out)],
                              env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=timeout)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"child exited {proc.returncode}: {proc.stderr[-800:]}")
        data = json.loads(out.read_text())
    data["pairs"] = [Pair(**{**p, "cell": Cell(**p["cell"])}) for p in data["pairs"]]
    return data


def _child_main(spec_path: str, out_path: str) -> int:
    procs = os.environ.get("E2E_CGROUP_PROCS")
    if procs:
        Path(procs).write_text(str(os.getpid()))  # before anything else runs
    spec = json.loads(Path(spec_path).read_text())
    cells = [Cell(**c) for c in spec["cells"]]
    res = run_cells(cells, spec["pairs"])
    res["pairs"] = [{**p.__dict__, "cell": p.cell.__dict__} for p in res["pairs"]]
    Path(out_path).write_text(json.dumps(res))
    return 0


def _timeout_for(cells: list[Cell], pairs: int, throttled: bool) -> float:
    per_pair = sum(c.delay_ms + c.follow_ms + 60 for c in cells) / 1000 * pairs
    return 120 + per_pair * (6 if throttled else 3)


# ---------------------------------------------------------------------------
# the API


def run_cell(path: str, gap_us: float, delay_ms: float, follow_ms: float, pairs: int,
             throttled: bool = False) -> dict:
    """One cell: the row of ``e2e_fairness`` (``ours`` = fraction won by the
    true first presser, plus decision latencies).  Unthrottled it runs in this
    process (the loop takes over the main thread while it runs); throttled, in
    a child process in a cgroup (raises ThrottleUnavailable when none can be
    made)."""
    cell = Cell(path, gap_us, delay_ms, follow_ms)
    if throttled:
        with Throttle() as th:
            res = _run_child([cell], pairs, th, _timeout_for([cell], pairs, True))
    else:
        res = run_cells([cell], pairs)
    row = summarise([cell], res["pairs"], throttled)[0]
    if res["notes"]:
        row["notes"] = res["notes"]
    return row


def measure(quick: bool = False, pairs: int | None = None, paths: Iterable[str] = PATHS,
            throttle: bool = True, throttled_pairs: int | None = None,
            host_loads: Iterable[str] = GPIOD_HOST_LOADS) -> dict:
    """The whole benchmark: every cell plain (in a child process) and, when a
    cgroup can be made, throttled; ``gpiod-host`` plain, beside CPU hogs and throttled
    (:func:`measure_gpiod_host`).  Returns the ``e2e_*`` results keys (those of the paths
    asked for: ``e2e_paths`` lists them, and run.py replaces only their rows)."""
    paths = list(paths)
    unknown = [p for p in paths if p not in PATHS]
    if unknown:
        raise ValueError(f"unknown path {unknown[0]!r}; known: {', '.join(PATHS)}")
    classic = [p for p in paths if p in CLASSIC_PATHS]
    out: dict[str, Any] = {}
    if classic:
        out = _measure_classic(quick, pairs, classic, throttle, throttled_pairs)
    if GPIOD_HOST in paths:
        host = measure_gpiod_host(quick, pairs, throttle, loads=host_loads)
        out["e2e_fairness"] = out.get("e2e_fairness", []) + host.pop("rows")
        out.update(host)
    out["e2e_paths"] = paths
    return out


def _measure_classic(quick: bool, pairs: int | None, paths: list[str], throttle: bool,
                     throttled_pairs: int | None) -> dict:
    pairs = pairs or (PAIRS_QUICK if quick else PAIRS_FULL)
    throttled_pairs = throttled_pairs or (THROTTLED_PAIRS_QUICK if quick else min(pairs, THROTTLED_PAIRS_FULL))
    cells = grid(quick, paths)
    out: dict[str, Any] = {"e2e_pairs_per_cell": pairs, "e2e_throttled_pairs_per_cell": throttled_pairs}
    rows: list[dict] = []
    notes: list[str] = []
    t0 = time.perf_counter()
    try:
        plain = _run_child(cells, pairs, None, _timeout_for(cells, pairs, False))
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        plain = {"pairs": [], "notes": [f"plain run failed: {exc}"]}
    out["e2e_plain_s"] = round(time.perf_counter() - t0, 1)
    rows += summarise(cells, plain["pairs"], False)
    notes += plain["notes"]
    _latency_keys(out, plain["pairs"], "e2e_decision")
    throttled: list[Pair] = []
    if throttle:
        try:
            with Throttle() as th:
                out["e2e_throttle"] = th.describe()
                t1 = time.perf_counter()
                res = _run_child(cells, throttled_pairs, th, _timeout_for(cells, throttled_pairs, True))
                out["e2e_throttled_s"] = round(time.perf_counter() - t1, 1)
                out["e2e_throttle_stats"] = th.stat_delta()
            throttled = res["pairs"]
            notes += [f"throttled: {n}" for n in res["notes"]]
        except ThrottleUnavailable as exc:
            out["e2e_throttle"] = f"unavailable: {exc}"
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            notes.append(f"throttled run failed: {exc}")
        if throttled:
            rows += summarise(cells, throttled, True)
    else:
        out["e2e_throttle"] = "unavailable: not asked for (--no-throttle)"
    _latency_keys(out, throttled, "e2e_decision_throttled")
    out["e2e_fairness"] = rows
    judged = [r for r in rows if r["ours"] is not None]
    out["e2e_all_first_win"] = bool(judged) and all(r["ours"] == 1.0 for r in judged)
    out["e2e_cells_won"] = {f"{'throttled' if th else 'plain'}": [sum(1 for r in judged if r["throttled"] == th
                                                                       and r["ours"] == 1.0),
                                                                   sum(1 for r in judged if r["throttled"] == th)]
                            for th in (False, True)}
    out["e2e_note"] = "; ".join(notes) or None  # (None replaces an older note when run.py merges)
    out["e2e_measured"] = MEASURED
    return out


def measure_gpiod_host(quick: bool = False, pairs: int | None = None, throttle: bool = True,
                       loads: Iterable[str] = GPIOD_HOST_LOADS) -> dict:
    """The ``gpiod-host`` path (see the module docstring) under each load, each in a child
    process: ``hog`` with one CPU-bound process per CPU running beside it, ``throttled`` in
    the cgroup CPU quota.  Returns ``rows`` (for ``e2e_fairness``: path, load, gap_us, pairs,
    ours, gpio_tie_us, ...) and the ``e2e_gpiod_host_*`` keys."""
    cells = grid(quick, [GPIOD_HOST])
    per_load = dict(GPIOD_HOST_QUICK_PAIRS if quick else GPIOD_HOST_PAIRS)
    if pairs:
        per_load = {k: pairs for k in per_load}
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from controller.app import config as config_mod
    defaults = config_mod.build({})
    tie_us = float(defaults["gpio"]["tie_us"])
    settle_ms = float(defaults["arbiter"]["settle_ms"])
    rows: list[dict] = []
    notes: list[str] = []
    p50: dict[str, float | None] = {}
    p99: dict[str, float | None] = {}
    seconds: dict[str, float] = {}
    parts: dict[str, dict[str, list]] = {}
    throttle_desc = throttle_stats = None
    for load in loads:
        n = per_load[load]
        t0 = time.perf_counter()
        try:
            if load == "throttled":
                if not throttle:
                    notes.append("throttled: not asked for (--no-throttle)")
                    continue
                with Throttle() as th:
                    throttle_desc = th.describe()
                    res = _run_child(cells, n, th, _timeout_for(cells, n, True))
                    throttle_stats = th.stat_delta()
            elif load == "hog":
                with Hogs():
                    res = _run_child(cells, n, None, _timeout_for(cells, n, True))
            else:
                res = _run_child(cells, n, None, _timeout_for(cells, n, False))
        except ThrottleUnavailable as exc:
            notes.append(f"throttled: unavailable: {exc}")
            continue
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            notes.append(f"{load} run failed: {exc}")
            continue
        seconds[load] = round(time.perf_counter() - t0, 1)
        notes += [f"{load}: {x}" for x in res["notes"]]
        rows += host_rows(cells, res["pairs"], load, tie_us)
        dec = [p.decision_ns for p in res["pairs"] if p.decision_ns is not None and not p.invalid]
        p50[load] = _ms(percentile(dec, 50))
        p99[load] = _ms(percentile(dec, 99))
        for name in ("read", "applied", "journal"):
            vals = [getattr(p, f"{name}_ns") for p in res["pairs"] if getattr(p, f"{name}_ns") is not None]
            parts.setdefault(name, {})[load] = [_ms(percentile(vals, 50)), _ms(percentile(vals, 99))]
    try:
        loadavg = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        loadavg = None
    return {
        "rows": rows,
        "e2e_gpiod_host_decision_p50_ms": p50,
        "e2e_gpiod_host_decision_p99_ms": p99,
        # where the decision's time goes: the later edge -> its Press at the loop's sink (the
        # backend's reader thread), -> that Press applied (the loop woke, the journal fsync'ed);
        # the time spent in the journal's writes (fsync) between the later edge and the lamp;
        # [p50, p99] per load
        "e2e_gpiod_host_read_ms": parts.get("read", {}),
        "e2e_gpiod_host_applied_ms": parts.get("applied", {}),
        "e2e_gpiod_host_journal_ms": parts.get("journal", {}),
        "e2e_gpiod_host_pairs_per_cell": per_load,
        "e2e_gpiod_host_s": seconds,
        "e2e_gpiod_host_settle_ms": settle_ms,
        "e2e_gpiod_host_throttle": throttle_desc,
        # how much of the run the quota held the game (periods throttled / all)
        "e2e_gpiod_host_throttle_stats": throttle_stats,
        "e2e_gpiod_host_loadavg_at_end": loadavg,
        "e2e_gpiod_host_note": "; ".join(notes) or None,
        "e2e_gpiod_host_measured": GPIOD_HOST_MEASURED,
    }


def host_rows(cells: list[Cell], pairs: list[Pair], load: str, tie_us: float) -> list[dict]:
    """The ``e2e_fairness`` rows of the ``gpiod-host`` path under one load (summarise's, with
    the tie resolution, and the stamps' gap as the engine got them against the true gap)."""
    rows = summarise(cells, pairs, load == "throttled", load)
    for row, cell in zip(rows, cells):
        mine = [p for p in pairs if p.cell.key() == cell.key() and not p.invalid]
        errs = [abs(p.stamp_gap_ns - p.true_gap_ns) for p in mine
                if p.stamp_gap_ns is not None and p.true_gap_ns is not None]
        row["stamp_gap_error_max_us"] = round(max(errs) / US, 3) if errs else None
        row["gpio_tie_us"] = tie_us
        row["above_tie"] = row["gap_us"] > tie_us
        for k in ("follow_measured_p50_ms", "follow_measured_max_ms", "lost_follow_ms"):
            row.pop(k)
    return rows


GPIOD_HOST_MEASURED = (
    "gpiod-host: buttons = 'gpiod' through controller.cli.main(['run', ...]) (fsync'ed journal, 1920x1080 "
    "window on SDL dummy) on this machine's own kernel, not in an emulator; the backend's line request is a "
    "stand-in whose fd is a real pipe: a separate presser process (real-time priority where allowed, outside "
    "the CPU quota) stamps each edge with CLOCK_MONOTONIC and writes its event record (line, edge, stamp, "
    "global_seqno, line_seqno) at once, the two edges gap_us apart (true gaps: true_gap_min/max_us); ours = "
    "fraction the true first presser's lamp lit; decision = the later edge's stamp -> the winner's Lamp 'on' "
    "carried out (negative: the first press was decided alone before the later edge); loads: plain, hog (one "
    "CPU-bound process per CPU beside the game), throttled (the e2e cgroup quota; the game at normal priority, "
    "[process] realtime_priority = 0: a quota holds no real-time thread; plain and hog at the default "
    "real-time priority where allowed). Not measured: the kernel's "
    "own part on a Pi (GPIO interrupt latency, the edge stamped at interrupt service and queued by the line's "
    "interrupt thread, the BCM2835 pin-order service of near-simultaneous edges) nor a Pi's CPU speed")

MEASURED = (
    "ours = fraction of pairs in which the loop switched the true first presser's lamp on, through "
    "controller.cli.main(['run', ...]) with the fsync'ed journal and a 1920x1080 window (SDL dummy); "
    "decision = true first edge -> the winner's Lamp 'on' carried out (serial-simavr: from the press's own "
    "stamp), so it includes D; beyond_delay = decision - gap - D (what the program adds after the later "
    "edge's delivery); gpio: lgpio-like feeder (the later edge's callback first, the earlier one follow_ms "
    "after it, delivered delay_ms after the later edge); serial-virtual: both presses handed to the box "
    "delay_ms after the later edge, in time order; serial-simavr: the real firmware, edges at exact "
    "cycles, no added delay")


def _latency_keys(out: dict, pairs: list[Pair], prefix: str) -> None:
    pairs = [p for p in pairs if not p.invalid]
    dec = [p.decision_ns for p in pairs if p.decision_ns is not None]
    out[f"{prefix}_p50_ms"] = _ms(percentile(dec, 50))
    out[f"{prefix}_p99_ms"] = _ms(percentile(dec, 99))
    beyond = [p.decision_ns - int(p.cell.gap_us * US) - int(p.cell.delay_ms * MS)
              for p in pairs if p.decision_ns is not None]
    out[f"{prefix}_beyond_delay_p50_ms"] = _ms(percentile(beyond, 50))
    out[f"{prefix}_beyond_delay_p99_ms"] = _ms(percentile(beyond, 99))
    # from the last callback (GPIO: the earlier edge's, δ after the other) or the hand-over to
    # the box: what the program adds once it has everything (the quiet period is counted from
    # there); the serial-simavr pairs have no hand-over time and are left out
    after = [p.after_delivery_ns for p in pairs if p.after_delivery_ns is not None]
    out[f"{prefix}_after_delivery_p50_ms"] = _ms(percentile(after, 50))
    out[f"{prefix}_after_delivery_p99_ms"] = _ms(percentile(after, 99))
    by_delay: dict[float, list[int]] = {}
    for p in pairs:
        if p.decision_ns is not None:
            by_delay.setdefault(p.cell.delay_ms, []).append(p.decision_ns)
    out[f"{prefix}_p99_by_delay_ms"] = {f"{d:g}": _ms(percentile(v, 99)) for d, v in sorted(by_delay.items())}


# ---------------------------------------------------------------------------
# text


def table(rows: list[dict]) -> list[str]:
    """Per path: one line per (D, δ), one column per gap; 'plain/throttled'."""
    lines = []
    for path in CLASSIC_PATHS:
        rs = [r for r in rows if r["path"] == path]
        if not rs:
            continue
        gaps = sorted({r["gap_us"] for r in rs})
        cell = {(r["gap_us"], r["delay_ms"], r["follow_ms"], r["throttled"]): r for r in rs}
        lines.append(f"{path}: ours (fraction won by the true first presser), plain / throttled")
        lines.append(f"{'D ms':>6} {'δ ms':>6} " + "".join(f"{f'{g:g} µs':>14}" for g in gaps))
        for d, f in sorted({(r["delay_ms"], r["follow_ms"]) for r in rs}):
            line = f"{d:>6g} {f:>6g} "
            for g in gaps:
                vals = []
                for th in (False, True):
                    r = cell.get((g, d, f, th))
                    vals.append("-" if r is None or r["ours"] is None else f"{r['ours']:.2f}")
                line += f"{' / '.join(vals):>14}"
            lines.append(line)
    host = [r for r in rows if r["path"] == GPIOD_HOST]
    if host:
        gaps = sorted({r["gap_us"] for r in host})
        lines.append(f"{GPIOD_HOST}: ours (pairs), decision p99 ms (later edge -> lamp)")
        lines.append(f"{'load':>10} " + "".join(f"{f'{g:g} µs':>22}" for g in gaps))
        for load in GPIOD_HOST_LOADS:
            cell = {r["gap_us"]: r for r in host if r.get("load") == load}
            if cell:
                lines.append(f"{load:>10} " + "".join(f"{_host_value(cell.get(g)):>22}" for g in gaps))
    return lines


def _host_value(r: dict | None) -> str:
    if r is None or r.get("ours") is None:
        return "-"
    return f"{r['ours']:.2f} ({r['pairs']}) {r['decision_p99_ms']}"


def markdown_table(rows: list[dict]) -> list[str]:
    """The same as :func:`table`, as Markdown: one table per path."""
    lines = ["End to end through `buzzer run`'s loop: fraction of pairs won by the true first presser, "
             "plain / throttled."]
    for path in CLASSIC_PATHS:
        rs = [r for r in rows if r["path"] == path]
        if not rs:
            continue
        gaps = sorted({r["gap_us"] for r in rs})
        cell = {(r["gap_us"], r["delay_ms"], r["follow_ms"], r["throttled"]): r for r in rs}
        lines += ["", f"`{path}`", "", "| D | δ | " + " | ".join(f"{g:g} µs" for g in gaps) + " |",
                  "|---:|---:|" + "---|" * len(gaps)]
        for d, f in sorted({(r["delay_ms"], r["follow_ms"]) for r in rs}):
            vals = []
            for g in gaps:
                v = [cell.get((g, d, f, th)) for th in (False, True)]
                vals.append(" / ".join("-" if r is None or r["ours"] is None else f"{r['ours']:.2f}" for r in v))
            lines.append(f"| {d:g} ms | {f:g} ms | " + " | ".join(vals) + " |")
    lines += host_markdown_table(rows)
    return lines


def host_markdown_table(rows: list[dict]) -> list[str]:
    """The ``gpiod-host`` rows as Markdown: one line per load, one column per gap."""
    host = [r for r in rows if r["path"] == GPIOD_HOST]
    if not host:
        return []
    gaps = sorted({r["gap_us"] for r in host})
    lines = ["", f"`{GPIOD_HOST}`: fraction won by the true first presser (pairs), decision p99 "
             "(later edge's stamp -> winner's lamp)", "",
             "| load | " + " | ".join(f"{g:g} µs" for g in gaps) + " |", "|---|" + "---|" * len(gaps)]
    for load in GPIOD_HOST_LOADS:
        cell = {r["gap_us"]: r for r in host if r.get("load") == load}
        if cell:
            vals = [_host_value(cell.get(g)).replace(") ", "), ") + (" ms" if cell.get(g) else "") for g in gaps]
            lines.append(f"| {load} | " + " | ".join(vals) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return _child_main(argv[1], argv[2])
    if argv[:1] == ["--presser"]:
        return _presser_main(int(argv[1]))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a few cells, 5 pairs each")
    p.add_argument("--pairs", type=int, help=f"pairs per cell (default {PAIRS_FULL}, quick {PAIRS_QUICK})")
    p.add_argument("--paths", default=",".join(PATHS), help="comma-separated: " + ",".join(PATHS))
    p.add_argument("--throttled-pairs", type=int,
                   help=f"pairs per cell throttled (default {THROTTLED_PAIRS_FULL}, quick {THROTTLED_PAIRS_QUICK})")
    p.add_argument("--no-throttle", action="store_true", help="skip the throttled run")
    p.add_argument("--cell", help="one cell: PATH,GAP_US,DELAY_MS,FOLLOW_MS")
    p.add_argument("--throttled", action="store_true", help="with --cell: run it throttled")
    p.add_argument("--out", help="write the results keys as JSON here")
    p.add_argument("--window-in-loop", action="store_true",
                   help="draw the window in the loop's process ([display] separate_process = false), as before")
    p.add_argument("--no-web", action="store_true", help="the game without its web pages ([web] enabled = false)")
    p.add_argument("--loads", default=",".join(GPIOD_HOST_LOADS),
                   help="gpiod-host's loads, comma-separated: " + ",".join(GPIOD_HOST_LOADS))
    args = p.parse_args(argv)
    if args.window_in_loop:
        os.environ[WINDOW_IN_LOOP_ENV] = "1"   # (the sessions' child processes inherit it)
    if args.no_web:
        os.environ[NO_WEB_ENV] = "1"
    if args.cell:
        path, gap, d, f = args.cell.split(",")
        row = run_cell(path, float(gap), float(d), float(f), args.pairs or PAIRS_FULL, args.throttled)
        print(json.dumps(row, ensure_ascii=False, indent=1))
        return 0
    t0 = time.perf_counter()
    res = measure(args.quick, args.pairs, args.paths.split(","), throttle=not args.no_throttle,
                  throttled_pairs=args.throttled_pairs, host_loads=args.loads.split(","))
    for line in table(res["e2e_fairness"]):
        print(line)
    for k in ("e2e_decision_p50_ms", "e2e_decision_p99_ms", "e2e_decision_beyond_delay_p99_ms",
              "e2e_decision_after_delivery_p50_ms", "e2e_decision_after_delivery_p99_ms",
              "e2e_decision_throttled_p50_ms", "e2e_decision_throttled_p99_ms",
              "e2e_decision_throttled_beyond_delay_p99_ms", "e2e_throttle", "e2e_throttle_stats", "e2e_note",
              "e2e_gpiod_host_decision_p50_ms", "e2e_gpiod_host_decision_p99_ms",
              "e2e_gpiod_host_throttle_stats", "e2e_gpiod_host_note",
              "e2e_gpiod_host_loadavg_at_end"):
        if k in res:
            print(f"{k}: {res[k]}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    if args.out:
        Path(args.out).write_text(json.dumps(res, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
