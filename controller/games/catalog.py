"""The games by their config name (``mode``): lookups over the registry of the games'
declarations (:func:`controller.core.plugins.registry` ``("game")``).

Each game declares itself in its own module (its ``PLUGIN``: its name, its ``GAME``, its
config sections and, if it has one, its impure part); :mod:`controller.games` lists the
modules to read.  This module names no game and no game's module, so a game that plays other
games (a programme) looks them up here without an import cycle.
"""

from __future__ import annotations

import functools
from typing import Any

from controller.core import plugins
from controller.core.errors import GameError
from controller.games import actions as _actions
from controller.games.base import Game, ShellExtras

GAMES = plugins.registry("game")
"""Every game's :class:`~controller.core.plugins.Plugin`, in the order the docs list them."""

_BY_STATE: dict[type, Game] = {}


def names() -> tuple[str, ...]:
    return GAMES.names()


def default() -> str:
    """The game a config or a scripted session plays when it names none: the first declared."""
    return names()[0]


def _known(name: Any) -> bool:
    return isinstance(name, str) and name in GAMES


def get(name: str) -> Game:
    """The game called ``name`` in config (a :class:`GameError` naming the choices if none is)."""
    if not _known(name):
        raise GameError(f"mode {name!r} is not available; available: {', '.join(names())}")
    return GAMES.load(name)


def of_state(state: Any) -> Game:
    """The game whose state ``state`` is (its class's module has the ``GAME``)."""
    cls = type(state)
    try:
        return _BY_STATE[cls]
    except KeyError:
        game = _BY_STATE[cls] = plugins.load(f"{cls.__module__}:GAME")
        return game


def _extras_target(name: Any) -> str:
    return GAMES.plugin(name).extras if _known(name) else ""


def extras(name: str) -> ShellExtras:
    """A new :class:`ShellExtras` of the game called ``name`` (one that does nothing if it has none)."""
    return extras_class(name)()


def extras_class(name: str) -> type[ShellExtras]:
    """The :class:`ShellExtras` class of the game called ``name`` (the base if it has none)."""
    target = _extras_target(name)
    return plugins.load(target) if target else ShellExtras


def extras_actions(name: str) -> tuple[str, ...]:
    target = _extras_target(name)
    return tuple(plugins.load(target).actions) if target else ()


@functools.cache
def declared_actions() -> dict[str, _actions.Action]:
    """Every game's host actions, one declaration per name (:func:`controller.games.actions.merge`):
    what the web server and the scripted sessions check an action's fields with."""
    return _actions.merge(get(name).actions for name in names())


@functools.cache
def notice_scopes() -> dict[str, str]:
    """Every game's notice key -> the part of the game it describes (``Game.notices``)."""
    return _actions.merge_scopes(get(name).notices for name in names())


@functools.cache
def label_keys(name: Any) -> dict[str, str]:
    """Action -> the catalog key of its label, where the game called ``name`` declares its own
    (``Action.label``: «Мафия»'s rename renames a player); {} for a name that is no game."""
    return {a.name: a.label for a in get(name).actions if a.label} if _known(name) else {}


def screen_of(view: Any) -> Any:
    """The typed screen (:class:`controller.core.screen.Screen`) of a view, by the game its
    ``mode`` names (a view of no known game: read as a game of teams and buttons)."""
    mode = view.get("mode") if isinstance(view, dict) else None
    return (get(mode) if _known(mode) else _PLAIN).screen(view or {})


_PLAIN = Game()
"""The base game: what reads a view no game claims."""


def title_key(name: Any) -> str | None:
    """The catalog key of a game's title, or None for a name that is no game."""
    return get(name).title_key if _known(name) else None


def event_plans() -> dict[str, Any]:
    """Every game an event file may name -> what it reads from the file (its ``event_file``,
    a :class:`~controller.games.event_plan.Plan`), in the games' order."""
    return {name: get(name).event_file for name in names() if get(name).event_file is not None}


def package_section(mode: Any = None) -> str:
    """The config section holding the SIGame package (``pack``, ``package``, its size limits)
    of the game ``mode`` (its ``package_section``); for a game that plays none, or no ``mode``,
    that of the game that plays packages (where ``--pack`` and ``[…] pack`` are read and
    refused); "" if no game plays packages."""
    if _known(mode) and get(mode).package_section:
        return get(mode).package_section
    return next((get(name).package_section for name in names() if get(name).package_section), "")
