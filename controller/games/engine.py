"""The game engine: one pure interface over every game mode.

    state = engine.new_game(config, seed)
    state, effects = engine.step(state, event)
    engine.wakeup(state)   # when the next Tick is due (engine ns) or None
    engine.view(state, now)  # what the screen shows (a plain dict)
    engine.present(state, now)  # the same as typed widgets (controller/core/screen.py)

Nothing here does I/O, starts a thread or reads a clock: the time comes in with
every event.  Replaying the same events from the same config and seed gives
the same state, which is what the journal relies on.  Ticks carry no
information of their own: a game replayed without its ticks, then ticked once
at the end, is in the same state.
"""

from __future__ import annotations

from typing import Any

from controller import games
from controller.core.effects import Log
from controller.core.errors import GameError


def new_game(config: dict, seed: int) -> Any:
    """The initial state of the game described by ``config``."""
    return games.get(config["mode"]).initial(config, seed)


def step(state: Any, event: Any) -> tuple[Any, list]:
    """Apply one event; return the new state and the effects."""
    return games.of_state(state).step(state, event)


def refuses(state: Any, event: Any) -> bool:
    """Whether the game would refuse ``event`` now, judged on ``state`` without applying it:
    its step fails (a :class:`~controller.core.errors.GameError`), or its rules turn it down --
    an action that does not apply changes nothing and logs ``refused`` (a game's own
    ``<game>.refused``), docs/modes.md.  The loop asks it before a key asks for its second
    press: an action that would be refused says why at once."""
    try:
        _, fx = step(state, event)
    except GameError:
        return True
    return any(isinstance(f, Log) and (f.kind == "refused" or f.kind.endswith(".refused")) for f in fx)


def wakeup(state: Any) -> int | None:
    """Engine time at which the state next needs a Tick, or None."""
    return games.of_state(state).wakeup(state)


def view(state: Any, now: int | None = None) -> dict:
    return games.of_state(state).view(state, now)


def present(state: Any, now: int | None = None) -> Any:
    """What every screen draws now, as typed widgets (:class:`controller.core.screen.Screen`)."""
    return games.of_state(state).present(state, now)


def summary(state: Any) -> dict:
    return games.of_state(state).summary(state)


def finished(state: Any) -> bool:
    """True once the game is over (its journal can be archived)."""
    return games.of_state(state).finished(state)


def actions_now(state: Any) -> tuple[str, ...]:
    """The host actions the game in ``state`` takes now (a programme: its current round's
    game plus moving on; another game: all of its own)."""
    return games.of_state(state).actions_now(state)
