"""The game engine: one pure interface over every game mode.

    state = engine.new_game(config, seed)
    state, effects = engine.step(state, event)
    engine.wakeup(state)   # when the next Tick is due (engine ns) or None
    engine.view(state, now)  # what the screen shows

Nothing here does I/O, starts a thread or reads a clock: the time comes in with
every event.  Replaying the same events from the same config and seed gives
the same state, which is what the journal relies on.  Ticks carry no
information of their own: a game replayed without its ticks, then ticked once
at the end, is in the same state.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from controller.core.errors import GameError

MODES = {
    "erudite": "controller.games.erudite",
    "own-game": "controller.games.own_game",
    "brain-ring": "controller.games.brain_ring",
    "chgk": "controller.games.chgk.game",
    "programme": "controller.games.programme",
    "mafia": "controller.games.mafia.game",
}
"""Mode name -> module implementing it."""


def mode_module(name: str) -> ModuleType:
    try:
        return importlib.import_module(MODES[name])
    except KeyError:
        raise GameError(f"mode {name!r} is not available; available: {', '.join(MODES)}") from None


_MODULE_OF: dict[type, ModuleType] = {}


def _module_of(state: Any) -> ModuleType:
    cls = type(state)
    try:
        return _MODULE_OF[cls]
    except KeyError:
        module = _MODULE_OF[cls] = importlib.import_module(cls.__module__)
        return module


def new_game(config: dict, seed: int) -> Any:
    """The initial state of the game described by ``config``."""
    return mode_module(config["mode"]).initial(config, seed)


def step(state: Any, event: Any) -> tuple[Any, list]:
    """Apply one event; return the new state and the effects."""
    return _module_of(state).step(state, event)


def wakeup(state: Any) -> int | None:
    """Engine time at which the state next needs a Tick, or None."""
    return _module_of(state).wakeup(state)


def view(state: Any, now: int | None = None) -> dict:
    return _module_of(state).view(state, now)


def summary(state: Any) -> dict:
    return _module_of(state).summary(state)


def finished(state: Any) -> bool:
    """True once the game is over (its journal can be archived)."""
    return getattr(state, "stage", None) == "finished" or getattr(state, "phase", None) == "ended"


def host_actions(mode: str) -> tuple[str, ...]:
    return tuple(mode_module(mode).HOST_ACTIONS)


def actions_now(state: Any) -> tuple[str, ...]:
    """The host actions the game in ``state`` takes now (a programme: its current round's
    game plus moving on; another mode: all of its own)."""
    module = _module_of(state)
    current = getattr(module, "host_actions", None)
    return tuple(current(state)) if current is not None else tuple(module.HOST_ACTIONS)
