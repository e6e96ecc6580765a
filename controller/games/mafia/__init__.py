"""«Мафия»: the rules (:mod:`.game`), its screen (:mod:`.screen`), the game protocol
(:mod:`.protocol`, :mod:`.polemica`), the tournament table (:mod:`.tournament`) and the impure
part that writes the protocol (:mod:`.extras`); here, the game's declaration in the registry
of games (controller/games/__init__.py)."""

from controller.core.plugins import Plugin

PLUGIN = Plugin("mafia", "controller.games.mafia.game:GAME", "controller.games.mafia.game:GAME.sections",
                extras="controller.games.mafia.extras:EXTRAS")
