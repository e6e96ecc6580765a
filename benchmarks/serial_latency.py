"""Press-to-engine latency through the serial button box path.

Latency is measured in wall time (CLOCK_MONOTONIC) from the box's edge to the
moment the Press event reaches the backend's sink -- the loop's queue in the
real program.  Two boxes:

* **virtual** -- :class:`firmware_bridge.virtual_box.VirtualBox` in-process:
  the edge is the call to ``press()``; the frame goes through a real pty,
  pyserial, the link thread and :class:`SerialBackend`;
* **sim** -- the real firmware in simavr, wall-clock mode (throttled to real
  time): the edge is the moment the harness changes the pin (it reports that
  CLOCK_MONOTONIC time); the path adds the firmware's pin-change interrupt,
  debounce, framing and the 1 Mbaud UART as simavr times it, plus the
  harness's 32 µs pty polling.

Neither includes USB transport (1 ms frames on full-speed USB, up to 16 ms
with an FTDI latency timer left at its default; see docs/serial-box.md).

Run ``python benchmarks/serial_latency.py [--quick]`` for a table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.inputs.serial import SerialBackend  # noqa: E402
from controller.inputs.clock import EngineClock  # noqa: E402
from controller.core.events import Press  # noqa: E402


class _Sink:
    def __init__(self):
        self.arrivals: list[tuple[str, int]] = []
        self.cond = threading.Condition()

    def __call__(self, event):
        now = time.monotonic_ns()
        if isinstance(event, Press):
            with self.cond:
                self.arrivals.append((event.button, now))
                self.cond.notify_all()

    def wait(self, n: int, timeout: float = 2.0) -> int:
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.arrivals) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"press {n} did not arrive within {timeout} s")
                self.cond.wait(left)
            return self.arrivals[n - 1][1]


def _percentiles(samples_ns: list[int]) -> tuple[float, float]:
    ordered = sorted(samples_ns)
    p50 = statistics.median(ordered) / 1e6
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))] / 1e6
    return p50, p99


def _backend(port: str, sink: _Sink) -> SerialBackend:
    backend = SerialBackend(["A", "B", "C", "D"], EngineClock(), sink,
                            {"port": port, "reconnect_min_s": 0.01})
    backend.start()
    deadline = time.monotonic() + 10
    while not backend.status().connected:
        if time.monotonic() > deadline:
            backend.close()
            raise RuntimeError(f"no HELLO from the box on {port}")
        time.sleep(0.005)
    time.sleep(0.15)  # let the first time-query burst pass
    return backend


def measure_virtual(presses: int) -> list[int]:
    from firmware_bridge.virtual_box import VirtualBox
    sink = _Sink()
    samples = []
    with VirtualBox() as box:
        backend = _backend(box.path, sink)
        try:
            for k in range(presses):
                i = k % 4
                t0 = time.monotonic_ns()
                box.press(i)
                samples.append(sink.wait(k + 1) - t0)
                time.sleep(0.006)
                box.release(i)
                time.sleep(0.004)
        finally:
            backend.close()
    return samples


def measure_sim(presses: int) -> list[int]:
    from firmware_bridge import simavr_box
    simavr_box.build()
    sink = _Sink()
    samples = []
    with simavr_box.SimulatedBox(wallclock=True) as box:
        backend = _backend(box.link_path, sink)
        try:
            for k in range(presses):
                i = k % 4
                _, edge_ns = box.press(i)
                samples.append(sink.wait(k + 1) - edge_ns)
                time.sleep(0.007)
                box.release(i)
                time.sleep(0.007)
        finally:
            backend.close()
    return samples


def measure(quick: bool) -> dict:
    """p50/p99 press-to-sink latency (ms) through the virtual box and the
    simulated firmware.  ``quick``: 30 presses each instead of 200."""
    n = 30 if quick else 200
    v50, v99 = _percentiles(measure_virtual(n))
    s50, s99 = _percentiles(measure_sim(n))
    return {
        "serial_virtual_p50_ms": round(v50, 3),
        "serial_virtual_p99_ms": round(v99, 3),
        "serial_sim_p50_ms": round(s50, 3),
        "serial_sim_p99_ms": round(s99, 3),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 presses per box instead of 200")
    args = parser.parse_args(argv)
    result = measure(args.quick)
    print(f"{'path':<28} {'p50 ms':>8} {'p99 ms':>8}")
    print(f"{'virtual box (pty)':<28} {result['serial_virtual_p50_ms']:>8.3f} {result['serial_virtual_p99_ms']:>8.3f}")
    print(f"{'firmware in simavr (pty)':<28} {result['serial_sim_p50_ms']:>8.3f} {result['serial_sim_p99_ms']:>8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
