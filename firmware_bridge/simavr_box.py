"""Drive the real firmware inside simavr through the C harness (``sim/``).

:class:`SimulatedBox` starts ``firmware_bridge/sim/build/buzzer-sim`` with the
compiled firmware, talks to it over its stdin/stdout command channel and
exposes the pty the firmware's UART is wired to (``link_path``, a symlink that
plays the part of ``/dev/serial/by-id/...``).  :func:`build` runs
``make firmware sim``.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIRMWARE_ELF = HERE / "firmware" / "build" / "buzzer-box.elf"
HARNESS = HERE / "sim" / "build" / "buzzer-sim"
F_CPU = 16_000_000
CYCLES_PER_TICK = 8          # Timer1 runs at F_CPU / 8
CYCLES_PER_US = F_CPU // 1_000_000


def build() -> None:
    """Build the firmware and the harness (``make firmware sim``).

    Raises :class:`subprocess.CalledProcessError` with make's output when a
    tool is missing (run ``sh firmware_bridge/sim/install-deps.sh``).
    """
    subprocess.run(["make", "-C", str(HERE), "firmware", "sim"], check=True,
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


class SimulatedBox:
    """The firmware in simavr, in step mode (deterministic) or wall-clock mode.

    In step mode nothing happens between commands: schedule edges with
    :meth:`press` / :meth:`release` at exact cycles, then :meth:`run_until`.
    """

    def __init__(self, wallclock: bool = False, link_path: str | os.PathLike | None = None,
                 elf: os.PathLike | str = FIRMWARE_ELF, harness: os.PathLike | str = HARNESS):
        self._tmp = None
        if link_path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="buzzer-sim-")
            link_path = os.path.join(self._tmp.name, "usb-buzzer-box-sim")
        self.link_path = str(link_path)
        self.wallclock = wallclock
        args = [str(harness), str(elf), "--link", self.link_path]
        if wallclock:
            args.append("--wallclock")
        self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self._lock = threading.Lock()
        ready = self._proc.stdout.readline().split()
        if not ready or ready[0] != "ready":
            self.close()
            raise RuntimeError(f"buzzer-sim did not start: {ready!r}")
        self.pty = ready[1]

    def command(self, line: str) -> list[str]:
        """Send one command and return its reply line split into words."""
        with self._lock:
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            answer = self._proc.stdout.readline().split()
        if not answer:
            raise RuntimeError(f"buzzer-sim gave no reply to {line!r} (exit code {self._proc.poll()})")
        if answer[0] == "error":
            raise RuntimeError(f"buzzer-sim: {' '.join(answer[1:])} (command {line!r})")
        return answer

    @property
    def cycle(self) -> int:
        return int(self.command("cycle")[1])

    def press(self, input_index: int, at_cycle: int | None = None):
        """Input goes low (pressed) at ``at_cycle``, or now.  Without a cycle
        the reply carries the cycle and the CLOCK_MONOTONIC time of the edge."""
        return self._edge("press", input_index, at_cycle)

    def release(self, input_index: int, at_cycle: int | None = None):
        return self._edge("release", input_index, at_cycle)

    def _edge(self, verb: str, input_index: int, at_cycle: int | None):
        if at_cycle is None:
            answer = self.command(f"{verb} {input_index}")
            return int(answer[2]), int(answer[3])
        self.command(f"{verb} {input_index} at {at_cycle}")
        return at_cycle, None

    def run_until(self, cycle: int) -> int:
        return int(self.command(f"run {cycle}")[1])

    def run_for(self, cycles: int) -> int:
        return int(self.command(f"runfor {cycles}")[1])

    def run_ms(self, ms: float) -> int:
        return self.run_for(int(ms * F_CPU / 1000))

    def lamps(self) -> int:
        """Bit i set = lamp i's output pin is high."""
        return int(self.command("lamps")[1])

    def reset(self) -> None:
        self.command("reset")

    def unplug(self) -> None:
        self.command("unplug")

    def replug(self) -> None:
        self.command("replug")

    def close(self) -> None:
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            try:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.wait(timeout=5)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        if proc is not None:
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except (OSError, ValueError):
                    pass
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
