"""The audience screen (projector scoreboard).

:class:`Scoreboard` draws a game mode's view dict onto a pygame surface;
:class:`TextCache` keeps rendered text.  Both are shell code: they read
snapshots and decide nothing.  They are loaded on first use, so that a module of this
package without pygame (the terminal, the notices, the view model) does not load it.
"""

__all__ = ["Scoreboard", "TextCache", "countdown_phase", "layout"]


def __getattr__(name: str):
    if name in ("Scoreboard", "countdown_phase", "layout"):
        from controller.screens import scoreboard
        return getattr(scoreboard, name)
    if name == "TextCache":
        from controller.screens.textcache import TextCache
        return TextCache
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
