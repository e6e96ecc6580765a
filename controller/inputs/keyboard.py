"""Simulated buttons on the computer's keyboard: the embedded default.

Each team's ``key`` in ``[[teams]]`` acts as its button.  The loop owns the
window (or the terminal) and hands every key to :meth:`KeyboardBackend.key_down`
/ :meth:`key_up`; a key that belongs to a button becomes a
:class:`~controller.core.events.Press` / :class:`~controller.core.events.Release` stamped
with the time the loop saw the key -- the best a keyboard can give.

Lamps have nowhere to go on a laptop: their state is kept in :attr:`lamps`
(the screen shows the same information).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from controller.inputs.base import BackendStatus, ButtonBackend, KeyInput, Sink
from controller.inputs.clock import EngineClock
from controller.core.events import Press, Release


class KeyboardBackend(KeyInput, ButtonBackend):
    """Buttons from keyboard keys.

    ``options["keys"]`` maps button id -> key name (pygame key names such as
    ``"q"``); the loop builds it from ``[[teams]]``.
    """

    name = "keyboard"
    wired = False

    def __init__(self, buttons: Sequence[str], clock: EngineClock, sink: Sink,
                 options: Mapping[str, Any] | None = None):
        super().__init__(buttons, clock, sink, options)
        keys = dict(self.options.get("keys") or {})
        self.key_to_button = {str(k).lower(): b for b, k in keys.items() if k}
        self.down: set[str] = set()
        self._edges = {b: 0 for b in self.buttons}

    def key_down(self, key: str, engine_ns: int) -> bool:
        button = self.key_to_button.get(key.lower())
        if button is None:
            return False
        self._down(button, engine_ns)
        return True

    def key_up(self, key: str, engine_ns: int) -> bool:
        button = self.key_to_button.get(key.lower())
        if button is None:
            return False
        self._up(button, engine_ns)
        return True

    def press_button(self, button: str) -> None:
        self._down(button, self.clock.now())

    def release_button(self, button: str) -> None:
        self._up(button, self.clock.now())

    def _down(self, button: str, engine_ns: int) -> None:
        if button in self.down:       # key auto-repeat is not a new press
            return
        self.down.add(button)
        self._edges[button] = self._edges.get(button, 0) + 1
        self.sink(Press(button, engine_ns, engine_ns))

    def _up(self, button: str, engine_ns: int) -> None:
        if button in self.down:
            self.down.discard(button)
            self._edges[button] = self._edges.get(button, 0) + 1
            self.sink(Release(button, engine_ns, engine_ns))

    def edges_seen(self) -> dict[str, int]:
        return dict(self._edges)

    def status(self) -> BackendStatus:
        unmapped = tuple(b for b in self.buttons if b not in self.key_to_button.values())
        return BackendStatus(self.name, True, "keys: " + " ".join(
            f"{b}={k}" for k, b in sorted(self.key_to_button.items(), key=lambda x: x[1])), missing=unmapped, unmapped=unmapped)
