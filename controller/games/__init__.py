"""The games, and the registry that maps a config's ``mode`` to one.

Each game is a :class:`~controller.games.base.Game` object (``GAME`` in its
module); what it does with I/O lives beside it as
:class:`~controller.games.base.ShellExtras`.  The registry names modules, not
objects, so a game is imported only when it is played, and a game that plays
other games (a programme) can look them up here without an import cycle.
Beside the games: the engine over any game (:mod:`.engine`), the host actions'
declarations (:mod:`.actions`) and the rating site's sheet (:mod:`.rating`).

Adding a game: write its module with a ``GAME``, add a line to :data:`GAMES`
(and, if it has extras, to :data:`EXTRAS`), its title to the catalogs.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from controller.core.errors import GameError
from controller.games import actions as _actions
from controller.games.base import Game, ShellExtras

GAMES: dict[str, str] = {
    "erudite": "controller.games.erudite",
    "own-game": "controller.games.own_game",
    "brain-ring": "controller.games.brain_ring",
    "chgk": "controller.games.chgk.game",
    "programme": "controller.games.programme",
    "mafia": "controller.games.mafia.game",
}
"""Config name -> the module whose ``GAME`` it is, in the order the docs list them."""

EXTRAS: dict[str, str] = {
    "chgk": "controller.games.chgk.extras",
    "mafia": "controller.games.mafia.extras",
    "programme": "controller.games.programme",
}
"""Config name -> the module whose ``EXTRAS`` class is the game's impure part."""

DEFAULT = "erudite"
"""The game a config or a scripted session plays when it names none."""

_BY_STATE: dict[type, Game] = {}


def names() -> tuple[str, ...]:
    return tuple(GAMES)


def get(name: str) -> Game:
    """The game called ``name`` in config (a :class:`GameError` naming the choices if none is)."""
    try:
        path = GAMES[name]
    except (KeyError, TypeError):
        raise GameError(f"mode {name!r} is not available; available: {', '.join(GAMES)}") from None
    return importlib.import_module(path).GAME


def of_state(state: Any) -> Game:
    """The game whose state ``state`` is (its class's module has the ``GAME``)."""
    cls = type(state)
    try:
        return _BY_STATE[cls]
    except KeyError:
        game = _BY_STATE[cls] = importlib.import_module(cls.__module__).GAME
        return game


def extras(name: str) -> ShellExtras:
    """A new :class:`ShellExtras` of the game called ``name`` (one that does nothing if it has none)."""
    path = EXTRAS.get(name)
    return importlib.import_module(path).EXTRAS() if path else ShellExtras()


def extras_class(name: str) -> type[ShellExtras]:
    """The :class:`ShellExtras` class of the game called ``name`` (the base if it has none)."""
    path = EXTRAS.get(name)
    return importlib.import_module(path).EXTRAS if path else ShellExtras


def extras_actions(name: str) -> tuple[str, ...]:
    path = EXTRAS.get(name)
    return tuple(importlib.import_module(path).EXTRAS.actions) if path else ()


@functools.cache
def declared_actions() -> dict[str, _actions.Action]:
    """Every game's host actions, one declaration per name (:func:`controller.games.actions.merge`):
    what the web server and the scripted sessions check an action's fields with."""
    return _actions.merge(get(name).actions for name in GAMES)


@functools.cache
def notice_scopes() -> dict[str, str]:
    """Every game's notice key -> the part of the game it describes (``Game.notices``)."""
    return _actions.merge_scopes(get(name).notices for name in GAMES)


@functools.cache
def label_keys(name: Any) -> dict[str, str]:
    """Action -> the catalog key of its label, where the game called ``name`` declares its own
    (``Action.label``: «Мафия»'s rename renames a player); {} for a name that is no game."""
    return {a.name: a.label for a in get(name).actions if a.label} if name in GAMES else {}


def screen_of(view: Any) -> Any:
    """The typed screen (:class:`controller.core.screen.Screen`) of a view, by the game its
    ``mode`` names (a view of no known game: read as a game of teams and buttons)."""
    mode = view.get("mode") if isinstance(view, dict) else None
    return (get(mode) if mode in GAMES else _PLAIN).screen(view or {})


_PLAIN = Game()
"""The base game: what reads a view no game claims."""


def title_key(name: Any) -> str | None:
    """The catalog key of a game's title, or None for a name that is no game."""
    return get(name).title_key if name in GAMES else None


__all__ = ["DEFAULT", "EXTRAS", "GAMES", "Game", "ShellExtras", "declared_actions", "extras", "extras_actions", "extras_class", "get", "label_keys",
           "names", "notice_scopes", "of_state", "screen_of", "title_key"]
