"""What people see: the projector's layouts (:mod:`.layouts` declares them: the wide
:class:`Scoreboard`, the compact one), the front ends' interface (:mod:`.frontend`: what the
runner in controller/app/runner.py drives), the pygame window, the terminal front end, a package's
board, host notices, the view model the pages read and screenshots.  They draw the screen
model's widgets and decide nothing; :class:`TextCache` keeps rendered text.  They are loaded on first use, so that a module of this
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
