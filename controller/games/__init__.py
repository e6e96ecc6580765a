"""The games, and where the registry of them finds each one's declaration.

Each game is a :class:`~controller.games.base.Game` object (``GAME`` in its module); what it
does with I/O lives beside it as :class:`~controller.games.base.ShellExtras`.  Each declares
itself in its own module as ``PLUGIN``, a :class:`~controller.core.plugins.Plugin`: its config
name (``mode``), its ``GAME``, its config sections and its extras, if any.  The modules are
listed here (:data:`MODULES`) and read on the first lookup; the lookups are
:mod:`controller.games.catalog`'s (re-exported here), which a game that plays other games (a
programme) imports without importing this package's list.
Beside the games: the engine over any game (:mod:`.engine`), the host actions'
declarations (:mod:`.actions`) and the rating site's sheet (:mod:`.rating`).

Adding a game: write its module (or its folder, with the ``PLUGIN`` in its ``__init__``) with
a ``GAME`` and a ``PLUGIN``, add the module to :data:`MODULES`, its title to the catalogs.
"""

from __future__ import annotations

from controller.games.base import Game, ShellExtras
from controller.games.catalog import (GAMES, declared_actions, default, event_plans, extras,
                                      extras_actions, extras_class, get, label_keys, names, notice_scopes,
                                      of_state, package_section, screen_of, title_key)

MODULES = (
    "controller.games.erudite",
    "controller.games.own_game",
    "controller.games.brain_ring",
    "controller.games.chgk",
    "controller.games.programme",
    "controller.games.mafia",
)
"""The modules declaring a game (each its ``PLUGIN``), in the order the docs list the games:
the first is the one a config plays when it names none."""

GAMES.find_in(*MODULES)

__all__ = ["GAMES", "MODULES", "Game", "ShellExtras", "declared_actions", "default", "event_plans",
           "extras", "extras_actions", "extras_class", "get", "label_keys", "names", "notice_scopes", "of_state",
           "package_section", "screen_of", "title_key"]
