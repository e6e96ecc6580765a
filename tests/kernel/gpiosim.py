"""Inside the test guest: a simulated GPIO chip (the kernel's gpio-sim) and its buttons.

    from kernel import gpiosim
    with gpiosim.Chip(lines=28) as chip:        # /dev/gpiochipN, lines GPIO0..GPIO27
        chip.path, chip.number, chip.dev_name   # '/dev/gpiochip0', 0, 'gpio-sim.0'
        t = chip.press(17)                      # pull line 17 to its pressed level
        t.before_ns <= <the kernel's edge stamp>  # (CLOCK_MONOTONIC) ... <= t.after_ns
        chip.release(17)
        chip.sequence([(3, "press", 0), (1, "press", 10), (0, "press", 10)])  # gaps in us
        chip.remove()                           # the unplug: the device goes away

How it works (Documentation/admin-guide/gpio/gpio-sim.rst in the kernel source):
the chip is made in configfs (``/sys/kernel/config/gpio-sim/<name>/gpio-bank0``,
``num_lines``, ``lineN/name``, then ``live`` = 1), and a line's input level is its
simulated pull, ``/sys/devices/platform/gpio-sim.X/gpiochipY/sim_gpioN/pull``
(``pull-up`` / ``pull-down``). Writing the pull of a line a program has requested
with edge detection fires the edge interrupt (irq_sim) at once; the kernel stamps
the event then. A button wired as on the Pi (pull-up, pressed = low; the default,
``active_low=True``) is pressed by ``pull-down`` and released by ``pull-up``.

Every line starts released (pulled to its idle level). Note that a program that
requests a line with a bias (``pull_up = true``) also sets the simulated pull: request
first, then press.
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass
from pathlib import Path

CONFIGFS = Path("/sys/kernel/config/gpio-sim")
PLATFORM = Path("/sys/devices/platform")
PI_LINES = 28
"""GPIO0..GPIO27: the Broadcom numbers of the Pi's 40-pin header."""


class SimError(Exception):
    pass


@dataclass(frozen=True)
class Edge:
    """One pull change: the line, pressed or released, and CLOCK_MONOTONIC (ns)
    just before and just after the write that made the kernel's edge."""

    line: int
    pressed: bool
    before_ns: int
    after_ns: int


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


class Chip:
    """A gpio-sim chip with one bank of ``lines`` lines (named ``GPIO<n>`` unless
    ``names`` is given), made live on construction."""

    _count = 0

    def __init__(self, lines: int = PI_LINES, names: list[str] | None = None, *,
                 label: str = "buzzer-sim", active_low: bool = True, name: str | None = None):
        if not CONFIGFS.is_dir():
            raise SimError(f"{CONFIGFS} missing: not in the test guest (configfs, CONFIG_GPIO_SIM)")
        Chip._count += 1
        self.name = name or f"buzzer{os.getpid()}-{Chip._count}"
        self.lines = lines
        self.active_low = active_low
        self._fds: dict[int, int] = {}
        self._dev = CONFIGFS / self.name
        self._bank = self._dev / "gpio-bank0"
        names = names if names is not None else [f"GPIO{n}" for n in range(lines)]
        self._dev.mkdir()
        try:
            self._bank.mkdir()
            _write(self._bank / "num_lines", str(lines))
            _write(self._bank / "label", label)
            for n, line_name in enumerate(names[:lines]):
                if line_name:
                    (self._bank / f"line{n}").mkdir()
                    _write(self._bank / f"line{n}" / "name", line_name)
            _write(self._dev / "live", "1")
            self.dev_name = (self._dev / "dev_name").read_text().strip()
            self.chip_name = (self._bank / "chip_name").read_text().strip()
        except BaseException:
            self._rmtree()
            raise
        self.path = f"/dev/{self.chip_name}"
        self.number = int(self.chip_name.removeprefix("gpiochip"))
        self.sysfs = PLATFORM / self.dev_name / self.chip_name
        for n in range(lines):
            self.set_released(n)

    # -- levels ------------------------------------------------------------------

    def _fd(self, line: int) -> int:
        fd = self._fds.get(line)
        if fd is None:
            if not 0 <= line < self.lines:
                raise SimError(f"line {line} out of range 0..{self.lines - 1}")
            fd = os.open(self.sysfs / f"sim_gpio{line}" / "pull", os.O_WRONLY)
            self._fds[line] = fd
        return fd

    def set_pull(self, line: int, pull: str) -> Edge:
        """Set line's simulated pull ('pull-up' or 'pull-down'); when each happened."""
        data = pull.encode()
        fd = self._fd(line)
        before = time.monotonic_ns()
        os.pwrite(fd, data, 0)
        after = time.monotonic_ns()
        return Edge(line, (pull == "pull-down") == self.active_low, before, after)

    def _pull_for(self, pressed: bool) -> str:
        return "pull-down" if pressed == self.active_low else "pull-up"

    def press(self, line: int) -> Edge:
        return self.set_pull(line, self._pull_for(True))

    def release(self, line: int) -> Edge:
        return self.set_pull(line, self._pull_for(False))

    def set_released(self, line: int) -> Edge:
        return self.release(line)

    def value(self, line: int) -> int:
        """The line's level as the chip sees it (0 / 1)."""
        return int((self.sysfs / f"sim_gpio{line}" / "value").read_text())

    def sequence(self, steps) -> list[Edge]:
        """Run ``(line, "press" | "release", gap_us)`` steps; each waits ``gap_us``
        after the previous step's write began (busy-waiting on CLOCK_MONOTONIC, so
        gaps down to the write's own cost, a few us, are kept). Returns the edges."""
        fds = [(self._fd(line), line, what, gap) for line, what, gap in steps]
        out = []
        mark = time.monotonic_ns()
        for fd, line, what, gap_us in fds:
            pressed = what == "press"
            if what not in ("press", "release"):
                raise SimError(f"step {what!r}: press or release")
            target = mark + int(gap_us * 1000)
            while time.monotonic_ns() < target:
                pass
            data = self._pull_for(pressed).encode()
            before = time.monotonic_ns()
            os.pwrite(fd, data, 0)
            after = time.monotonic_ns()
            mark = before
            out.append(Edge(line, pressed, before, after))
        return out

    def press_in_order(self, lines, gap_us: float = 0) -> list[Edge]:
        """Press ``lines`` in that order, ``gap_us`` apart."""
        return self.sequence([(line, "press", 0 if i == 0 else gap_us) for i, line in enumerate(lines)])

    def bounce(self, line: int, edges: int, gap_us: float) -> list[Edge]:
        """A bouncing contact: ``edges`` alternating press/release edges ``gap_us`` apart,
        starting with a press (an odd count ends pressed)."""
        return self.sequence([(line, "press" if i % 2 == 0 else "release", 0 if i == 0 else gap_us)
                              for i in range(edges)])

    def sequence_realtime(self, steps, cpu: int = 0, priority: int = 50) -> list[Edge]:
        """:meth:`sequence` run by a separate SCHED_FIFO process pinned to ``cpu``:
        while it presses, no ordinary thread on that CPU runs (pin the program under
        test there too, ``os.sched_setaffinity``, and its callback thread waits until
        every edge is in, as on a loaded machine). Needs root (the guest runs as root)."""
        import json
        import subprocess
        import sys
        code = (
            "import json, os, sys\n"
            f"sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})\n"
            "from kernel import gpiosim\n"
            f"os.sched_setaffinity(0, {{{cpu}}})\n"
            f"os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param({priority}))\n"
            f"c = gpiosim.Chip.attach({str(self.sysfs)!r}, {self.lines}, {self.active_low})\n"
            f"edges = c.sequence({[list(s) for s in steps]!r})\n"
            "print(json.dumps([[e.line, e.pressed, e.before_ns, e.after_ns] for e in edges]))\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise SimError(f"realtime presser failed: {r.stderr.strip()[-500:]}")
        return [Edge(*row) for row in json.loads(r.stdout.strip().splitlines()[-1])]

    @classmethod
    def attach(cls, sysfs: str, lines: int, active_low: bool = True) -> "Chip":
        """The lines of a chip another process made (its ``chip.sysfs``), to press only:
        :meth:`remove` of an attached chip closes its files and leaves the device."""
        c = cls.__new__(cls)
        c.lines, c.active_low, c._fds = lines, active_low, {}
        c.sysfs = Path(sysfs)
        c._dev = c._bank = None
        return c

    # -- removal -----------------------------------------------------------------

    def remove(self) -> None:
        """Take the device away (an unplug): ``live`` = 0, then its configfs tree."""
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        if self._dev is not None and self._dev.exists():
            if (self._dev / "live").read_text().strip() == "1":
                _write(self._dev / "live", "0")
            self._rmtree()

    def _rmtree(self) -> None:
        if not self._dev.exists():
            return
        if self._bank.exists():
            for line_dir in self._bank.glob("line*"):
                hog = line_dir / "hog"
                if hog.exists():
                    hog.rmdir()
                line_dir.rmdir()
            self._bank.rmdir()
        self._dev.rmdir()

    def __enter__(self) -> "Chip":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def remove_all() -> None:
    """Remove every gpio-sim device left (a test that failed half-way)."""
    for dev in glob.glob(str(CONFIGFS / "*")):
        d = Path(dev)
        try:
            if (d / "live").read_text().strip() == "1":
                _write(d / "live", "0")
        except OSError:
            continue
        for bank in d.glob("*"):
            if bank.is_dir():
                for line_dir in bank.glob("line*"):
                    if (line_dir / "hog").exists():
                        (line_dir / "hog").rmdir()
                    line_dir.rmdir()
                bank.rmdir()
        d.rmdir()
