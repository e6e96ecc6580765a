"""The audience screen (projector scoreboard).

:class:`Scoreboard` draws a game mode's view dict onto a pygame surface;
:class:`TextCache` keeps rendered text.  Both are shell code: they read
snapshots and decide nothing.  They are loaded on first use, so that a module of this
package without pygame (the terminal, the notices, the view model) does not load it.
"""

__all__ = ["LAYOUTS", "Scoreboard", "TextCache", "countdown_phase", "layout", "projector"]

from controller.screens.layouts import LAYOUTS  # noqa: E402


def projector(name: str):
    """The projector's screen class of a ``[display] layout``."""
    return LAYOUTS.load(name)


def __getattr__(name: str):
    if name in ("Scoreboard", "countdown_phase", "layout"):
        from controller.screens import scoreboard
        return getattr(scoreboard, name)
    if name == "TextCache":
        from controller.screens.textcache import TextCache
        return TextCache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
