"""The interface of a front end: what the runner (controller/app/runner.py) drives.

One runner owns the loop's heartbeat -- waiting for input, stepping the engine, the due
deadlines, frame pacing, no frame while a race's decision is near -- and builds the model of
each frame once (:class:`Frame`).  A front end (the projector's window, the terminal) is a small
object with declared hooks, gpiozero-style: it *must* :meth:`~FrontEnd.poll` its own input
and :meth:`~FrontEnd.present` a frame, and *may* :meth:`~FrontEnd.open`,
:meth:`~FrontEnd.close` and name a file the runner waits on (:meth:`~FrontEnd.fileno`).  It
knows nothing of the engine or of the loop's stepping: its input goes to the program through a
:class:`Shell` (the loop's public input methods), and what it shows comes in the frame.

This module is the interface only (no I/O, no pygame).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol


@dataclass(frozen=True)
class Pictures:
    """A SIGame package's pictures for the projector: ``read(member)`` gives a member's bytes (read
    from the package when first shown, None when it cannot be), and the screen keeps at most
    ``cache_bytes`` of them decoded (the game's declared ``pack_picture_cache_mb``)."""

    read: Callable[[str | None], bytes | None]
    cache_bytes: int


@dataclass(frozen=True)
class Keys:
    """The keys in force now, for a key help (built only while the host's help is up)."""

    actions: Mapping[str, list[str]]
    """Host action -> its key names (:func:`~controller.inputs.keys.mode_keys` of the state now)."""
    teams: list[tuple[str, str]]
    """(key, team name as it is now) of every team with a keyboard key, while buttons play."""
    host: Any
    """The host's key map now (:class:`~controller.inputs.keys.HostKeys`): what a key does."""
    labels: Mapping[str, str]
    """Action -> the catalog key of the game's own label for it (:func:`~controller.inputs.keys.mode_labels`)."""


@dataclass(frozen=True)
class Frame:
    """What a front end presents: one frame's model, built once by the runner."""

    now: int
    """The engine time of the frame."""
    vm: Mapping[str, Any]
    """The view model (:func:`controller.screens.viewmodel.build`): the audience's part and the
    host's, with the buttons' status, the host notice, the dialogue's entry, the ruling flash and
    whether the key help is up."""
    changed: bool
    """Something changed since the last frame a front end presented (draw it even when it looks
    the same)."""
    help: bool
    """The host's key help is up."""
    keys: Keys | None
    """The keys in force now, while :attr:`help` is up."""
    flash: Mapping[str, Any] | None
    """The ruling flash on screen now, as the loop has it (``kind``, ``team`` ...)."""
    flash_until: int
    """When :attr:`flash` leaves (a new flash of the same kind and team has a new one)."""
    link: Mapping[str, Any] | None
    """The host page's link on the projector now (the host asked for it), never in the view model."""


class Shell(Protocol):
    """What a front end may do to the program: the loop's public input side."""

    @property
    def typing(self) -> bool:
        """The host types a name now: characters are text, not keys."""

    @property
    def pictures(self) -> Pictures | None:
        """The package's pictures, when a package is played."""

    def key_down(self, names: list[str]) -> None: ...

    def key_up(self, names: list[str]) -> None: ...

    def text_input(self, text: str) -> None: ...

    def stop(self) -> None:
        """End the program's loop (the window was closed)."""

    def set_screen(self, screen: Any) -> None:
        """The front end's screen (a headless one prints the host's notices as lines)."""

    def use(self, out: Any = None, scrollback: Any = None) -> None:
        """Where the host's notice lines go, and lines that must stay readable in the terminal."""

    def notice(self, key: str, /, **params) -> None:
        """Tell the host the notice ``key`` (the catalog's; the window process restarted its window)."""


class FrontEnd(ABC):
    """A front end the runner drives.  Must provide :meth:`poll` and :meth:`present`; may
    provide the rest (the defaults do nothing).  Every hook is called on the loop's thread (a class that lacks a must-hook cannot be made)."""

    fps: float | None = None
    """At most this many frames a second while nothing changed (None: one after every heartbeat,
    each presented only when it differs)."""
    max_wait_s: float = 0.1
    """The longest the runner waits between two heartbeats (the window's 4 ms: pygame's events
    have no file to wait on, so a key waits at most that long)."""

    def open(self, shell: Shell) -> None:
        """Before the first heartbeat: open the window, take the terminal's keys."""

    def fileno(self) -> int | None:
        """A file the runner waits on besides the loop's own wake-up (the terminal's stdin): when
        it is readable :meth:`poll` is called; None: :meth:`poll` is called every heartbeat."""
        return None

    @abstractmethod
    def poll(self) -> None:
        """Take the input waiting now, without waiting for more, and hand it to the shell."""
        raise NotImplementedError

    @abstractmethod
    def present(self, frame: Frame) -> bool:
        """Show ``frame``: True when it is on screen now (drawn, or already shown)."""
        raise NotImplementedError

    def hold(self, on: bool) -> None:
        """The engine's next deadline (a race's decision) is near (``on``) or not any more: a front
        end that draws elsewhere stops drawing meanwhile, leaving the CPU to the input threads and
        the loop, as the runner does by starting no frame then (called on every heartbeat)."""

    def close(self) -> None:
        """After the last heartbeat (also when the loop ends by an error): give back what
        :meth:`open` took."""
