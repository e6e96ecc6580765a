"""«Что? Где? Когда?»: the rules (:mod:`.game`), the jury's results read and written
(:mod:`.results`) and the impure part that reads them (:mod:`.extras`); here, the game's
declaration in the registry of games (controller/games/__init__.py)."""

from controller.core.plugins import Plugin

PLUGIN = Plugin("chgk", "controller.games.chgk.game:GAME", "controller.games.chgk.game:GAME.sections",
                extras="controller.games.chgk.extras:EXTRAS")
