"""Effects: what the engine asks the outside world to do.

The engine returns effects; the shell carries them out (plays the sound,
switches the lamp, flashes the screen, writes the log).  Effects never change
the game state: a replay that ignores every effect ends in the same state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from controller.core.screen import Words


@dataclass(frozen=True, slots=True)
class Sound:
    """Play one of the named sounds in ``sounds/`` (``press``, ``right``,
    ``wrong``, ``time_up``, ``warning``, ``false_start``, ``start``).  ``button``: the
    button that took the answer right, for ``press`` (the shell plays that team's own
    press sound when it has one: ``[[teams]] sound``).

    (A package's own sounds are :class:`PackSound`.)"""

    name: str
    button: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class PackSound:
    """A sound of a SIGame package (``member``: the archive member); the ones of one step play
    one after another, each for ``seconds`` (the package's own time of it) or, when 0, to its end."""

    member: str
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class PackStop:
    """The package sounds playing stop: their question is over."""


@dataclass(frozen=True, slots=True)
class Lamp:
    """Set a player's lamp: ``on`` (holds the answer right), ``blink`` (false
    start / early-press block), or ``off``."""

    button: str
    state: str


@dataclass(frozen=True, slots=True)
class Flash:
    """A short full-screen message: ``right``, ``wrong``, ``time_up``,
    ``false_start``, ``withdrawn`` ...; the catalog key of its words is its kind (or the
    screens' usual one for it) and the line under them its ``team``, unless the game says
    them itself: ``text`` (the big words), ``line`` (the line under them) and ``tone`` (its
    colour, one of :data:`controller.core.screen.TONES`), so that no screen names a game's
    flash."""

    kind: str
    team: str | None = None
    text: Words | None = None
    line: Words | None = None
    tone: str | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A message for the host (not the audience), e.g. an early press, a
    refused action or a stuck button.  ``key`` names a UI string.  A parameter whose name
    ends in ``_key`` and whose value names a host action («pause») is said as that action's
    keys in the host's key map now («S / Num .»): a pure game names its keys so."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    host_only: bool = False
    """Its words tell what the audience must never see («Мафия»'s roles and night checks):
    the host's terminal and page show it, the projector never, whatever ``[display]
    host_overlay`` says."""


@dataclass(frozen=True, slots=True)
class Log:
    """One entry of the game log: ``kind`` plus JSON-serialisable data."""

    at: int
    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)


Effect = Sound | PackSound | PackStop | Lamp | Flash | Notice | Log
