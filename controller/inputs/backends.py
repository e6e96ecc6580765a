"""The button backends by their config name (``buttons = "keyboard"``): the one place a
backend is named, and :func:`create_backend`, which makes the one a config asks for.

A :class:`~controller.core.plugins.Registry` of :class:`~controller.core.plugins.Plugin`
declarations, kept apart from the interface (:mod:`controller.inputs.base`) that every
backend imports: the declarations name the backends' modules, so the interface names none.
Adding a backend: its module (a :class:`~controller.inputs.base.ButtonBackend`), a line in
:data:`BACKENDS` (its name, ``"module:Class"``, its config section, a few words), docs/inputs.md.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from controller.core.errors import BackendError
from controller.core.plugins import Plugin, Registry
from controller.inputs.base import ButtonBackend, Sink
from controller.inputs.clock import EngineClock

BACKENDS = Registry("buttons", (
    # imported on first use, so that a missing optional library (gpiozero on a laptop,
    # evdev on macOS) only matters when used
    Plugin("keyboard", "controller.inputs.keyboard:KeyboardBackend",
           doc="simulated on the computer's keyboard"),
    Plugin("gpio", "controller.inputs.gpio:GPIOBackend", "controller.inputs.options:GPIO",
           doc="Raspberry Pi pins through gpiozero"),
    Plugin("gpiod", "controller.inputs.gpiochip:GpiodBackend", "controller.inputs.options:GPIO",
           doc="the same pins through libgpiod v2: the kernel's own edge order, docs/raspberry-pi.md"),
    Plugin("serial", "controller.inputs.serial:SerialBackend", "controller.inputs.options:SERIAL",
           doc="our USB box"),
    Plugin("serial-sim", "controller.inputs.serial:SerialSimBackend", "controller.inputs.options:SERIAL",
           doc="a virtual box"),
))
"""``buttons = NAME`` -> the backend: the one place a backend is named."""


def register_backend(name: str, target: str) -> None:
    """Make a backend available under ``name`` (``"module:Class"``)."""
    BACKENDS.add(Plugin(name, target))


def backend_names() -> list[str]:
    return sorted(BACKENDS.names())


def create_backend(name: str, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                   options: Mapping[str, Any] | None = None) -> ButtonBackend:
    """Instantiate the backend registered under ``name``."""
    if name not in BACKENDS:
        raise BackendError(f"unknown button backend {name!r}; known: {', '.join(backend_names())}")
    cls = BACKENDS.load(name)
    return cls(buttons, clock, sink, options)
