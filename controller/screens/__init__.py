"""The audience screen (projector scoreboard).

:class:`Scoreboard` draws a game mode's view dict onto a pygame surface;
:class:`TextCache` keeps rendered text.  Both are shell code: they read
snapshots and decide nothing.
"""

from controller.screens.scoreboard import Scoreboard, countdown_phase, layout
from controller.screens.textcache import TextCache

__all__ = ["Scoreboard", "TextCache", "countdown_phase", "layout"]
