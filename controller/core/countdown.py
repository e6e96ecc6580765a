"""Countdowns as deadlines on the engine clock.

A running countdown stores the engine time at which it ends, never a number of
ticks, so it cannot drift however irregular the ticks are.  A paused countdown
stores what was left.  All functions are pure and take the time as an
argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.values import replace


@dataclass(frozen=True, slots=True)
class Countdown:
    """``total`` ns long; running until ``deadline`` or paused with ``left``.

    ``kind`` says what it counts (``think``, ``captain``, ``answer``,
    ``press_window``, ``minute`` ...).  ``warn_marks`` are the ns-left marks
    at which a warning is due; ``warned`` counts those already given.
    """

    kind: str
    total: int
    deadline: int | None = None
    left: int = 0
    warn_marks: tuple[int, ...] = ()
    warned: int = 0

    @property
    def running(self) -> bool:
        return self.deadline is not None


def start(kind: str, total: int, now: int, warn_marks: tuple[int, ...] = ()) -> Countdown:
    marks = tuple(sorted((m for m in warn_marks if 0 < m < total), reverse=True))
    return Countdown(kind, total, deadline=now + total, left=total, warn_marks=marks)


def remaining(cd: Countdown, now: int) -> int:
    """ns left at ``now`` (never negative)."""
    if cd.deadline is None:
        return max(cd.left, 0)
    return max(cd.deadline - now, 0)


def pause(cd: Countdown, now: int) -> Countdown:
    if cd.deadline is None:
        return cd
    return replace(cd, deadline=None, left=remaining(cd, now))


def resume(cd: Countdown, now: int) -> Countdown:
    if cd.deadline is not None:
        return cd
    return replace(cd, deadline=now + cd.left)


def next_warning(cd: Countdown) -> int | None:
    """Engine time of the next warning due, or None."""
    if cd.deadline is None or cd.warned >= len(cd.warn_marks):
        return None
    return cd.deadline - cd.warn_marks[cd.warned]


def take_warnings(cd: Countdown, now: int) -> tuple[Countdown, int]:
    """Mark the warnings due by ``now`` as given; return how many were due."""
    n = 0
    while True:
        due = next_warning(cd)
        if due is None or due > now:
            return cd, n
        cd = replace(cd, warned=cd.warned + 1)
        n += 1
