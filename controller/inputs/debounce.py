"""Debouncing: turning a button's raw edges into clean presses and releases.

A mechanical contact does not close once: it chatters for a few milliseconds
(a *bounce storm*).  This module applies one rule, the same for every button,
and keeps it free of threads and clocks so that it can be tested exhaustively
and replayed:

* the **first** edge that changes the button's state is accepted at once and
  keeps its own timestamp -- debouncing never delays or re-stamps a press, so
  the arbiter still compares the instants the contacts first closed;
* every further edge within ``window_ns`` of the last accepted edge is a
  *bounce*: it is counted, not reported;
* if, once the window has passed, the contact rests in the other state (a tap
  shorter than the window, or a release hidden in the bounce storm), that
  state is accepted with the timestamp of the raw edge that led to it.  The
  owner asks for this with :meth:`Debouncer.settle` (from a timer, or before
  the next edge -- :meth:`Debouncer.edge` does it itself).

This is the opposite of a stability filter (lgpio's ``bounce_time``), which
reports an edge only after the contact has been still for the bounce time and
so stamps every press late by a variable amount.

Levels are booleans: ``True`` means pressed (active), whatever the wiring.
Times are integers (ns on the engine clock in this program, but any unit works).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Transition:
    """An accepted change of a button's state.

    ``pressed`` is the new state, ``at`` the timestamp of the raw edge that
    caused it.  ``bounces`` is how many edges were ignored after the previous
    accepted transition (i.e. the bounce of the previous press or release).
    """

    pressed: bool
    at: int
    bounces: int


class Debouncer:
    """The debounce rule for one button.

    :param window_ns: how long after an accepted edge further edges count as
        bounce (``gpio.debounce_ms`` in config); ``0`` accepts every change
    :param pressed: the state the button is in when watching starts
    :param at: the time watching starts (the window is not open then)
    """

    __slots__ = ("window", "stable", "raw", "raw_at", "accepted_at",
                 "edges", "bounces", "bounces_of", "transitions", "presses")

    def __init__(self, window_ns: int, pressed: bool = False, at: int | None = None):
        if window_ns < 0:
            raise ValueError("debounce window must be >= 0")
        self.window = int(window_ns)
        self.stable = bool(pressed)
        """The debounced state, as last reported."""
        self.raw = bool(pressed)
        """The state of the contact as of the last raw edge."""
        self.raw_at = at
        self.accepted_at: int | None = None
        """Time of the last accepted transition (None: none yet, no window)."""
        self.edges = 0
        """Raw edges seen (every change of the contact, bounce included)."""
        self.bounces = 0
        """Edges ignored since the last accepted transition."""
        self.bounces_of = {True: 0, False: 0}
        """Bounce edges that followed the latest press (True) / release (False)."""
        self.transitions = 0
        """Accepted transitions so far."""
        self.presses = 0
        """Accepted presses so far (a button held at the start is not one)."""

    def _in_window(self, at: int) -> bool:
        return self.accepted_at is not None and at - self.accepted_at < self.window

    def in_window(self, at: int) -> bool:
        """True if an edge at ``at`` would be bounce of the last accepted transition."""
        return self._in_window(at)

    def _accept(self, pressed: bool, at: int) -> Transition:
        transition = Transition(pressed, at, self.bounces)
        self.stable = pressed
        self.accepted_at = at
        self.bounces = 0
        self.bounces_of[pressed] = 0
        self.transitions += 1
        self.presses += pressed
        return transition

    def _count_bounce(self) -> None:
        self.bounces += 1
        self.bounces_of[self.stable] += 1

    def settle(self, now: int) -> list[Transition]:
        """Accept the contact's resting state if it differs from the reported
        one and the window has passed by ``now``.  Returns 0 or 1 transitions."""
        if self.raw != self.stable and not self._in_window(now):
            # The edge that brought the contact here was counted as bounce
            # when it came; it turned out to be the real change.
            self.bounces -= 1
            self.bounces_of[self.stable] -= 1
            return [self._accept(self.raw, self.raw_at)]
        return []

    def due(self) -> int | None:
        """When :meth:`settle` could next report something, or None."""
        if self.raw == self.stable:
            return None
        return (self.accepted_at or 0) + self.window

    def edge(self, at: int, pressed: bool) -> list[Transition]:
        """Feed one raw edge (the contact is now ``pressed``, since ``at``).

        Returns the transitions to report, oldest first: possibly a pending
        one settled before this edge, then this edge's own if it is accepted.
        """
        out = self.settle(at)
        pressed = bool(pressed)
        self.edges += 1
        self.raw = pressed
        self.raw_at = at
        if pressed == self.stable or self._in_window(at):
            # Inside the window: chatter.  Outside it, an edge that does not
            # change the reported state means an edge was lost in between;
            # it is counted with the bounce as well.
            self._count_bounce()
        else:
            out.append(self._accept(pressed, at))
        return out
