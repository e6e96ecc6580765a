"""Button backends: where players' presses come from.

Like gpiozero's pin factories, every backend implements one small interface,
:class:`~controller.inputs.base.ButtonBackend`, and the rest of the program
never knows which one is in use.  Adding a backend touches no game rule.

Backends are declared once, in :data:`controller.inputs.backends.BACKENDS` (a
:class:`~controller.core.plugins.Registry`), and created by the name used in config
(``buttons = "keyboard"``) through :func:`create_backend`.  Beside them: the engine clock
(:mod:`.clock`), the host's keys and keypad, debouncing, the CPU-stall measure, and the
inputs' config sections (:mod:`.options`).
"""

from controller.inputs.backends import create_backend, register_backend
from controller.inputs.base import BackendStatus, ButtonBackend, KeyInput, Sink

__all__ = ["BackendStatus", "ButtonBackend", "KeyInput", "Sink", "create_backend", "register_backend"]
