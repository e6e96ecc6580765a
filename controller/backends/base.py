"""The interface every button backend implements.

A backend turns physical (or simulated) button edges into
:class:`~controller.events.Press` / :class:`~controller.events.Release` events
on the engine clock and hands them to a *sink* (the loop's queue).  A backend
never decides anything: it does not know which press wins, which button is
locked or what a lamp means.  It only timestamps, enqueues and switches lamps
when the engine asks.

Rules for implementers:

* stamp each edge with the hardware's own time (kernel timestamp,
  microcontroller timer), converted onto the engine clock with
  :class:`~controller.clock.EngineClock`; never with the time a callback ran,
  unless the hardware gives nothing better;
* apply the same debounce rule to every button, keeping the first edge's
  timestamp;
* the sink is thread-safe; call it from any thread;
* :meth:`ButtonBackend.set_lamp` is called from the loop thread and must not
  block for long.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from controller.clock import EngineClock
from controller.errors import BackendError
from controller.events import Press, Release

Sink = Callable[[Press | Release], None]
"""Where a backend puts its events (thread-safe)."""

LAMP_STATES = ("on", "off", "blink")


@dataclass(frozen=True)
class BackendStatus:
    """What the host and the screen are told about a backend."""

    name: str
    connected: bool
    detail: str = ""
    missing: tuple[str, ...] = ()
    """Buttons the backend cannot currently read."""
    extra: Mapping[str, Any] = field(default_factory=dict)


class ButtonBackend:
    """Base class of button backends.

    :param buttons: button ids in config order (``"A"``, ``"B"`` ...)
    :param clock: the engine clock, to convert edge timestamps
    :param sink: thread-safe callable taking Press/Release events
    :param options: the backend's own config section, already validated
    """

    name = "base"

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        self.buttons = tuple(buttons)
        self.clock = clock
        self.sink = sink
        self.options = dict(options or {})
        self.lamps: dict[str, str] = {b: "off" for b in self.buttons}

    def start(self) -> None:
        """Begin delivering events to the sink."""

    def close(self) -> None:
        """Stop delivering events and release the hardware."""

    def set_lamp(self, button: str, state: str) -> None:
        """Switch a player's lamp: ``on``, ``off`` or ``blink``."""
        if state not in LAMP_STATES:
            raise ValueError(f"lamp state must be one of {LAMP_STATES}, got {state!r}")
        self.lamps[button] = state

    def status(self) -> BackendStatus:
        return BackendStatus(self.name, True)

    def key_down(self, key: str, engine_ns: int) -> bool:
        """A computer key went down (simulated buttons).  Return True if this
        backend turned it into a button press; hardware backends ignore keys."""
        return False

    def key_up(self, key: str, engine_ns: int) -> bool:
        """A computer key went up; see :meth:`key_down`."""
        return False

    def edges_seen(self) -> dict[str, int]:
        """Edges seen per button since start (to list buttons that never moved)."""
        return {}

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()


_REGISTRY: dict[str, str] = {
    # name -> "module:Class"; imported lazily so that a missing optional
    # library (gpiozero on a laptop, evdev on macOS) only matters when used.
    "keyboard": "controller.backends.keyboard:KeyboardBackend",
    "gpio": "controller.backends.gpio:GPIOBackend",
    "serial": "controller.backends.serial:SerialBackend",
    "serial-sim": "controller.backends.serial:SerialSimBackend",
}


def register_backend(name: str, target: str) -> None:
    """Make a backend available under ``name`` (``"module:Class"``)."""
    _REGISTRY[name] = target


def backend_names() -> list[str]:
    return sorted(_REGISTRY)


def create_backend(name: str, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                   options: Mapping[str, Any] | None = None) -> ButtonBackend:
    """Instantiate the backend registered under ``name``."""
    try:
        target = _REGISTRY[name]
    except KeyError:
        raise BackendError(f"unknown button backend {name!r}; known: {', '.join(backend_names())}") from None
    module_name, _, cls_name = target.partition(":")
    module = importlib.import_module(module_name)
    cls = getattr(module, cls_name)
    return cls(buttons, clock, sink, options)
