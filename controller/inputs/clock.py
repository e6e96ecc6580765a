"""The engine clock as the shell sees it.

The engine itself has no clock: it is told the time by every event.  The shell
owns one :class:`EngineClock` that maps the machine's monotonic clock
(``CLOCK_MONOTONIC`` in ns, the same clock the Linux kernel uses for GPIO edge
timestamps) onto engine time, whose zero is the start of the game.  Backends
convert their edge timestamps with :meth:`EngineClock.from_monotonic_ns` so
that every press lands on one time line.
"""

from __future__ import annotations

import time


class EngineClock:
    """Monotonic engine time in integer nanoseconds.

    ``origin_ns`` is the monotonic time that corresponds to engine time zero.
    After a restart the shell may pick an origin such that engine time resumes
    where the journal ended (see :mod:`controller.sessions.journal`).
    """

    def __init__(self, origin_ns: int | None = None, source=time.monotonic_ns):
        self._source = source
        self.origin_ns = source() if origin_ns is None else origin_ns

    def now(self) -> int:
        """The current engine time, ns."""
        return self._source() - self.origin_ns

    def from_monotonic_ns(self, monotonic_ns: int) -> int:
        """Engine time of an instant given on the monotonic clock, ns."""
        return monotonic_ns - self.origin_ns

    def from_monotonic_s(self, monotonic_s: float) -> int:
        """Engine time of an instant given in monotonic seconds (gpiozero ticks)."""
        return int(round(monotonic_s * 1e9)) - self.origin_ns

    def resume_at(self, engine_ns: int) -> None:
        """Shift the origin so that :meth:`now` returns ``engine_ns`` right now."""
        self.origin_ns = self._source() - engine_ns


class ManualClock(EngineClock):
    """A clock that only moves when told to: for tests and scripted sessions."""

    def __init__(self, start_ns: int = 0):
        self._now = start_ns
        super().__init__(origin_ns=0, source=lambda: self._now)

    def set(self, engine_ns: int) -> None:
        self._now = engine_ns

    def advance(self, ns: int) -> None:
        self._now += ns
