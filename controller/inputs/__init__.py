"""Button backends: where players' presses come from.

Like gpiozero's pin factories, every backend implements one small interface,
:class:`~controller.inputs.base.ButtonBackend`, and the rest of the program
never knows which one is in use.  Adding a backend touches no game rule.

Backends are looked up by the name used in config (``buttons = "keyboard"``)
through :func:`create_backend`.
"""

from controller.inputs.base import (BackendStatus, ButtonBackend, KeyInput, Sink, create_backend,
                                      register_backend)

__all__ = ["BackendStatus", "ButtonBackend", "KeyInput", "Sink", "create_backend", "register_backend"]
