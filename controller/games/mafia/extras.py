"""The «Мафия» table's impure part: the game protocol, written when the judge ends
the game and kept up to date while the record is completed (roles entered after
the game, players renamed).  See :func:`controller.games.mafia.protocol.write_game`.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from controller.core.errors import BuzzerError
from controller.games.base import Shell, ShellExtras
from controller.games.mafia import game, protocol, tournament

log = logging.getLogger(__name__)


class MafiaExtras(ShellExtras):
    def __init__(self) -> None:
        self.protocol_path: Path | None = None
        self.protocol_complete = False
        self._summary: dict | None = None

    def after_step(self, shell: Shell) -> None:
        """When the judge ends a game, write its protocol; again whenever the record changes
        until the protocol is complete; after that a player renamed, extra points or the best
        move entered change the saved protocol (protests entered into the file in the meantime
        stay)."""
        summary = game.protocol_summary(shell.state)
        if summary.get("winner") is None or summary == self._summary:
            return
        self._summary = summary
        cfg, lang = shell.cfg, shell.cfg["language"]
        if self.protocol_complete:
            try:
                protocol.update_players(self.protocol_path, summary, cfg["mafia"], lang)
            except BuzzerError as exc:
                shell.say_text(str(exc))
            return
        first = self.protocol_path is None
        # the k-th game started with the new-game key is game_number + k: its protocol never
        # takes the place of an earlier game's
        settings = dict(cfg["mafia"], game_number=cfg["mafia"]["game_number"] + shell.games_started)
        self.protocol_path, problem = protocol.write_game(summary, settings, lang, time.localtime())
        self.protocol_complete = problem is None
        if problem is None:
            shell.say("protocol.saved", path=self.protocol_path)
        elif first:
            shell.say("protocol.incomplete", path=self.protocol_path,
                         problem=protocol.problem_text(problem, lang))

    @classmethod
    def competition_table(cls, competition, summaries, cfg, fmt, lang):
        """The tournament table (docs/mafia.md) of a competition's ended tables; None while no
        table ended with every role entered."""
        protocols = []
        for number, (hall, summary) in enumerate(summaries, start=1):
            if summary.get("winner") is None:
                continue
            try:
                protocols.append(protocol.from_table(
                    summary, tournament=competition, stage="festival", game=number, table=number, date="",
                    ended_at=summary.get("ended_at") or "", settings=cfg.get("mafia")))
            except BuzzerError as exc:
                log.warning("festival export: %s, table %s: %s", competition, hall, exc)
        if not protocols:
            return None
        table = tournament.build_table(protocols, cfg.get("mafia"))
        if fmt == "csv":
            return tournament.to_csv(table, lang)
        return json.dumps({"competition": competition, "rows": [
            {"place": r.place, "name": r.name, "games": r.games, "wins": r.wins, "total": float(r.total)}
            for r in table.rows]}, ensure_ascii=False, indent=1) + "\n"


EXTRAS = MafiaExtras
