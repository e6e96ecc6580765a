"""The rating site's results sheet: ``Team ID | Название | Город | 1 … N`` (docs/exports.md).

The tournament site of «Что? Где? Когда?» takes a tournament's results as a spreadsheet
in this layout: one row per team, its rating ID, its name and city, then one cell per
question, ``1`` taken and ``0`` not (the site's API gives the same results back as a
team's ``mask`` of question results).  This module builds those rows from a game's
summary (ЧГК, Брейн-ринг: any game whose questions list each team's ``answers``), writes
them with openpyxl, reads the file back to check it, and reads the same layout as the
jury's sheet (:func:`read`).

The teams' rating IDs and cities come from the event file (``rating_id``, ``city`` of a
``[[teams]]`` entry, docs/event-file.md), carried in the game's config
(``cfg["event"]["teams"]``), so a journal or a festival board has them with the game.
A team without an ID is written with an empty ID cell and named in one warning line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from controller.core.errors import BuzzerError

HEADER = ("Team ID", "Название", "Город")
"""The first three columns; question columns are headed 1 … N."""

MAX_QUESTIONS = 1000
MAX_ROWS = 5000


class RatingError(BuzzerError):
    """A rating sheet that cannot be written or read; the message names the file (and cell)."""


@dataclass(frozen=True, slots=True)
class TeamRow:
    """One team's row of the sheet."""

    team_id: int | None
    name: str
    city: str
    results: tuple[bool | None, ...]
    """Per question: True taken, False not, None (reading only) an empty cell."""
    row: int = 0
    """1-based row of the sheet it was read from (0: built here)."""

    @property
    def mask(self) -> str:
        return "".join("1" if r else "0" for r in self.results)


def team_list(cfg: Mapping[str, Any] | None) -> list[dict]:
    """[{"name", "rating_id", "city"}] of a game's config (its event file's teams), in the
    teams' order: team i of the game is entry i, whatever it is called now."""
    event = (cfg or {}).get("event") or {}
    return [{"name": t["name"], "rating_id": t.get("rating_id"), "city": t.get("city", "")}
            for t in event.get("teams") or () if isinstance(t, Mapping) and isinstance(t.get("name"), str)]


def team_info(cfg: Mapping[str, Any] | None) -> dict[str, dict]:
    """{team name (as the event file names it): {"name", "rating_id", "city"}} of a game's config."""
    return {t["name"]: t for t in team_list(cfg)}


def event_team_info(event: Mapping[str, Any]) -> dict[str, dict]:
    """The same from a parsed event file (:func:`controller.content.event.parse_file`)."""
    return {t["name"]: {"rating_id": t.get("rating_id"), "city": t.get("city", "")} for t in event["teams"]
            if "rating_id" in t or "city" in t}


def question_results(summary: Mapping[str, Any]) -> tuple[list[str], int, dict[str, dict[int, bool]]] | None:
    """(teams, N, {team: {question number: taken}}) of a game's summary, or None when the game
    keeps no per-question answers (a shoot-out's and a withdrawn question's are left out; a
    replacement question keeps its number)."""
    questions = [q for q in summary.get("questions") or () if isinstance(q, Mapping)
                 and not q.get("shootout") and not q.get("withdrawn") and isinstance(q.get("number"), int)]
    if not questions or not all(isinstance(q.get("answers"), list) for q in questions):
        return None
    scores = summary.get("scores")
    teams = list(scores) if isinstance(scores, Mapping) else \
        [r.get("team") for r in summary.get("standings") or () if isinstance(r, Mapping)]
    taken: dict[str, dict[int, bool]] = {t: {} for t in teams}
    for q in questions:
        right = {a.get("team") for a in q["answers"] if isinstance(a, Mapping) and a.get("result") == "right"}
        for t in teams:
            taken[t][q["number"]] = t in right
    return teams, max(q["number"] for q in questions), taken


def rows_of(summary: Mapping[str, Any], teams_info: Sequence[Mapping],
            override: Mapping[str, Mapping] | None = None) -> tuple[int, list[TeamRow]] | None:
    """(N, the teams' rows) of one game, or None (no per-question answers).  A team's ID and
    city are ``override``'s for its name now (another event file), else ``teams_info``'s entry
    of its index (:func:`team_list`: a team renamed during the game keeps them)."""
    got = question_results(summary)
    if got is None:
        return None
    teams, n, taken = got
    rows = []
    for i, t in enumerate(teams):
        ti = (override or {}).get(t) or (teams_info[i] if i < len(teams_info) else {})
        rows.append(TeamRow(ti.get("rating_id"), t, ti.get("city") or "",
                            tuple(taken[t].get(k, False) for k in range(1, n + 1))))
    return n, rows


def missing_ids(rows: Iterable[TeamRow]) -> str:
    """The one warning line for teams without a rating ID ("" when every team has one)."""
    names = [r.name for r in rows if r.team_id is None]
    if not names:
        return ""
    return (f"{len(names)} team(s) without a rating ID (rating_id in the event file's [[teams]]): "
            + ", ".join(names))


def _sheet_title(title: str, used: set[str]) -> str:
    base = "".join("_" if c in '[]:*?/\\' else c for c in title).strip() or "Results"
    base = base[:31]
    name, n = base, 1
    while name.casefold() in used:
        n += 1
        name = f"{base[:28]}-{n}"
    used.add(name.casefold())
    return name


def write(path: str | Path, sheets: Sequence[tuple[str, int, Sequence[TeamRow]]]) -> None:
    """Write ``(title, N, rows)`` sheets to an .xlsx file, then read it back and compare
    (a :class:`RatingError` if the file does not hold what was meant)."""
    from openpyxl import Workbook

    p = Path(path)
    if p.suffix.lower() != ".xlsx":
        raise RatingError(f"{path}: the rating sheet is an .xlsx file; name it FILE.xlsx")
    if not sheets:
        raise RatingError(f"{path}: no game with per-question results to write (ЧГК, Брейн-ринг)")
    wb = Workbook()
    wb.remove(wb.active)
    used: set[str] = set()
    for title, n, rows in sheets:
        ws = wb.create_sheet(_sheet_title(title, used))
        ws.append(list(HEADER) + list(range(1, n + 1)))
        for r in rows:
            ws.append([r.team_id, r.name, r.city] + [1 if x else 0 for x in r.results])
            for cell in ws[ws.max_row]:
                if cell.data_type == "f":   # a name starting with "=" is text, never a formula
                    cell.data_type = "s"
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        wb.save(p)
    except OSError as exc:
        raise RatingError(f"{path}: cannot write: {exc.strerror}") from None
    back = read_all(p)
    for (title, n, rows), (_name, got) in zip(sheets, back):
        want = [(r.team_id, r.name, r.city, r.mask) for r in rows]
        have = [(r.team_id, r.name, r.city, r.mask) for r in got]
        if want != have:
            raise RatingError(f"{path}: read back, the sheet {title!r} differs from what was written")


def _cell_text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v).strip()


def _result(v: Any, where: str) -> bool | None:
    text = _cell_text(v).lower()
    if text == "":
        return None
    if text in ("1", "+", "да", "true"):
        return True
    if text in ("0", "-", "−", "нет", "false", "x", "х"):
        return False
    raise RatingError(f"{where}: unknown result {text!r} (use 1 or 0)")


def _sheet_rows(ws, source: str) -> list[TeamRow]:
    rows = ws.iter_rows(values_only=True)
    head = next(rows, None)
    if head is None:
        raise RatingError(f"{source}: sheet {ws.title!r} is empty")
    head = [_cell_text(c) for c in head]
    while head and head[-1] == "":
        head.pop()
    if len(head) < 4 or [h.casefold() for h in head[:3]] != [h.casefold() for h in HEADER]:
        raise RatingError(f"{source}: sheet {ws.title!r}, row 1: expected the header "
                          f"{' | '.join(HEADER)} | 1 … N, got {' | '.join(head[:4]) or 'nothing'}")
    for k, h in enumerate(head[3:], start=1):
        if h != str(k):
            raise RatingError(f"{source}: sheet {ws.title!r}, row 1: question column {k + 3} is headed "
                              f"{h!r}, expected {k}")
    n = len(head) - 3
    if n > MAX_QUESTIONS:
        raise RatingError(f"{source}: sheet {ws.title!r}: {n} questions, at most {MAX_QUESTIONS}")
    out: list[TeamRow] = []
    for i, cells in enumerate(rows, start=2):
        if i > MAX_ROWS:
            raise RatingError(f"{source}: sheet {ws.title!r}: more than {MAX_ROWS} rows")
        cells = list(cells) + [None] * (3 + n - len(cells))
        if all(_cell_text(c) == "" for c in cells):
            continue
        where = f"{source}: sheet {ws.title!r}, row {i}"
        raw_id, name, city = _cell_text(cells[0]), _cell_text(cells[1]), _cell_text(cells[2])
        if not name:
            raise RatingError(f"{where}: no team name (column Название)")
        if raw_id and not raw_id.isdigit():
            raise RatingError(f"{where}: Team ID {raw_id!r} is not a number")
        results = tuple(_result(c, f"{where}, question {k}") for k, c in enumerate(cells[3:3 + n], start=1))
        out.append(TeamRow(int(raw_id) if raw_id else None, name, city, results, i))
    return out


def read_all(path: str | Path) -> list[tuple[str, list[TeamRow]]]:
    """Every sheet of a rating file as (sheet title, rows); a one-line error names the cell."""
    from openpyxl import load_workbook

    source = str(path)
    p = Path(path)
    if not p.exists():
        raise RatingError(f"{source}: file not found")
    if p.is_dir():
        raise RatingError(f"{source}: is a folder, not a file")
    try:
        wb = load_workbook(p, read_only=True, data_only=True)
    except OSError as exc:
        raise RatingError(f"{source}: cannot read: {exc.strerror}") from None
    except Exception as exc:   # zipfile.BadZipFile, KeyError, openpyxl's InvalidFileException ...
        raise RatingError(f"{source}: not an .xlsx spreadsheet ({type(exc).__name__})") from None
    try:
        return [(ws.title, _sheet_rows(ws, source)) for ws in wb.worksheets]
    finally:
        wb.close()


def read(path: str | Path) -> list[TeamRow]:
    """The rows of the first sheet (the jury's sheet of one game)."""
    sheets = read_all(path)
    if not sheets:
        raise RatingError(f"{path}: no sheet")
    return sheets[0][1]
