"""Events: everything that can happen to a game, as plain immutable values.

All times are integers in nanoseconds on the *engine clock*: a monotonic clock
whose origin the shell chooses (the start of the game).  The engine never reads
a clock itself; it learns the time only from the events it is given.

* :class:`Press` / :class:`Release` -- an edge of a player's button.  ``at`` is
  the edge's own timestamp (kernel GPIO timestamp, microcontroller timer,
  keyboard event time); ``delivered`` is when the event reached the loop.  The
  arbiter orders presses by ``at``, never by ``delivered``.
* :class:`Host` -- an action of the host (keypad key, script line).
* :class:`Tick` -- the clock moved on; lets the engine fire deadlines
  (settle window, countdowns) when no other event arrives.

Input sources (button backends, the host keypad, host buttons on GPIO, the
window's keys) hand the loop :data:`InputEvent` values through one sink,
``sink(event)`` (see ``docs/inputs.md``): :class:`Press` / :class:`Release`,
and two events the loop handles itself and never journals:

* :class:`HostKey` -- a host key or button meaning an action (with its
  parameters), from any source; the loop turns it into a :class:`Host`
  exactly as it does a key in the window (pause toggles, help, quit ...);
* :class:`InputStatus` -- an input device came or went (the keypad unplugged).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
NS_PER_US = 1_000


def seconds_to_ns(seconds: float) -> int:
    """Convert seconds (as written in scripts and configs) to integer ns."""
    return int(round(seconds * NS_PER_S))


@dataclass(frozen=True, slots=True)
class Press:
    """A button went down at edge time ``at``; the program saw it at ``delivered``.

    Two optional fields tell the arbiter what the input path guarantees about
    the order of delivery (see :mod:`controller.core.arbiter`):

    * ``quiet`` (ns): an edge stamped *earlier* may still be delivered up to
      this long after this one (per-line callbacks that run in file-descriptor
      order, not time order, as lgpio's do); the arbiter waits that long after
      the latest delivery before it names a winner;
    * ``stream``: the press came on one ordered stream that carries every
      button (the serial box: one queue, sequence numbers, gaps replayed), so
      no earlier edge can be delivered after it; ``quiet`` is then only how
      long to wait for an edge with the *same* timestamp (an exact tie).

    And one about the stamps themselves:

    * ``tie`` (ns): the stamps' resolution.  Two presses whose edges are less
      than this apart cannot be told apart by their stamps (a GPIO interrupt
      services a bank's pending pins in pin order, ``[gpio] tie_us``): they
      are a tie, broken by the published tie rule.  0: only equal stamps tie.
    * ``unc`` (ns): the stamp's own uncertainty: the edge was somewhere in
      ``at ± unc`` (a phone's press: the clock sync's bound and the touch-to-event
      latency, :mod:`controller.core.clocksync`).  When the two earliest presses'
      intervals overlap the race is a tie within that uncertainty, resolved by
      ``[phones] uncertain_tie``.  0: a wired button, exact to its path.
    """

    button: str
    at: int
    delivered: int
    quiet: int = 0
    stream: bool = False
    tie: int = 0
    unc: int = 0

    @property
    def now(self) -> int:
        return self.delivered


@dataclass(frozen=True, slots=True)
class Release:
    """A button went up at edge time ``at``."""

    button: str
    at: int
    delivered: int

    @property
    def now(self) -> int:
        return self.delivered


@dataclass(frozen=True, slots=True)
class Host:
    """A host action such as ``question``, ``right`` or ``wrong``.

    ``params`` carries the action's arguments (``nominal``, ``theme``,
    ``team`` ...) as a read-only mapping.
    """

    action: str
    at: int
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def now(self) -> int:
        return self.at


@dataclass(frozen=True, slots=True)
class Tick:
    """The clock reached ``at``; no input arrived."""

    at: int

    @property
    def now(self) -> int:
        return self.at


Event = Press | Release | Host | Tick


@dataclass(frozen=True, slots=True)
class HostKey:
    """The host pressed a key or button meaning ``action`` (keypad key, host button
    on GPIO, a key in the window or the terminal, the web host page).

    ``params`` are the action's arguments; the loop passes them on in the
    :class:`Host` event it makes.  ``delivered`` is stamped by the loop's sink
    (engine time the key reached it; sources leave it 0) and becomes the Host's
    ``at``, so the game sees the key where it came among the presses.
    """

    action: str
    params: Mapping[str, Any] = field(default_factory=dict)
    delivered: int = field(default=0, compare=False)
    confirmed: bool = field(default=False, compare=False)
    """The source has had the host confirm it already (the host page's second tap): an action
    that ends a stage early (:meth:`~controller.games.base.Game.confirm`) takes no second key."""


@dataclass(frozen=True, slots=True)
class InputStatus:
    """An input device (``source``: ``"keypad"``) was connected or lost.

    ``detail`` is the device's name when connected, the reason when lost.
    """

    source: str
    connected: bool
    detail: str = ""


InputEvent = Press | Release | HostKey | InputStatus
"""What an input source hands to its sink (:data:`controller.inputs.base.Sink`)."""
