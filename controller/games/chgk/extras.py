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
            if str(path).lower().endswith(".xlsx"):
                rows = ChgkExtras.rating_rows(shell, path, names, chgk["tours"] * chgk["questions_per_tour"])
            else:
                rows = results.load(path, teams=list(names), tours=chgk["tours"],
                                    per_tour=chgk["questions_per_tour"])
        except results.ResultsError as exc:
            shell.say(exc.key, **exc.params)
            return
        shell.enqueue(results.to_host([replace(r, team=names[r.team]) for r in rows], now))
        shell.say("results_loaded", n=len(rows), path=path)


    @staticmethod
    def rating_rows(shell: Shell, path: str, names: dict, total: int) -> list:
        """The jury's sheet in the rating site's layout (``Team ID | Название | Город | 1 … N``,
        controller/games/rating.py): a team by its name, else by its rating ID from the event
        file; an empty cell is a result not entered."""
        from controller.games import rating

        try:
            sheet = rating.read(path)
        except rating.RatingError as exc:
            raise results.ResultsError(str(exc), "chgk.xlsx_bad", problem=str(exc)) from None
        by_id = {v["rating_id"]: k for k, v in rating.team_info(shell.cfg).items() if v.get("rating_id")}
        rows = []
        for r in sheet:
            team = r.name if r.name in names else by_id.get(r.team_id)
            if team not in names:
                raise results.ResultsError(f"{path}: row {r.row}: unknown team {r.name!r}", "chgk.csv_unknown_team",
                                           team=r.name, path=str(path), row=r.row)
            if len(r.results) > total:
                raise results.ResultsError(f"{path}: {len(r.results)} question columns, the game has {total}",
                                           "chgk.csv_no_question", value=len(r.results), range=f"1–{total}",
                                           path=str(path), row=1)
            rows += [results.Row(team, k, v, r.row) for k, v in enumerate(r.results, start=1) if v is not None]
        return rows


EXTRAS = ChgkExtras
