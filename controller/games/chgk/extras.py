"""ЧГК's impure part: the host's ``import_results`` key reads the jury's CSV.

The rows become one ``results`` host event on the loop's input path, so they
are journaled and replayed like any other ruling (:mod:`controller.games.chgk.results`
parses; this module only reads the file named by ``[chgk] results_csv``).
"""

from __future__ import annotations

from dataclasses import replace

from controller.games.base import Shell, ShellExtras
from controller.games.chgk import results


class ChgkExtras(ShellExtras):
    actions = ("import_results",)

    def act(self, shell: Shell, action: str, now: int) -> None:
        if action == "import_results":
            self.import_results(shell, now)

    @staticmethod
    def import_results(shell: Shell, now: int) -> None:
        """Read the jury's CSV (``[chgk] results_csv``) into the game as one journaled event."""
        chgk = shell.cfg["chgk"]
        path = chgk["results_csv"]
        # a team renamed during the game is found by its name now or by the name it started with
        # (the jury's sheet may have been made before), unless another team has that name now
        teams = shell.members_now()
        names = {tm["name"]: tm["name"] for tm in teams}
        names = {**{t["name"]: teams[i]["name"] for i, t in enumerate(shell.cfg["teams"][:len(teams)])}, **names}
        try:
            rows = results.load(path, teams=list(names), tours=chgk["tours"], per_tour=chgk["questions_per_tour"])
        except results.ResultsError as exc:
            shell.say(exc.key, **exc.params)
            return
        shell.enqueue(results.to_host([replace(r, team=names[r.team]) for r in rows], now))
        shell.say("results_loaded", n=len(rows), path=path)


EXTRAS = ChgkExtras
