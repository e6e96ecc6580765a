"""``buzzer festival export --format csv|json DIR``: each competition's final tables.

One file per game (``<competition>-<hall>-<game>.csv``): its standings as the game
ranks them.  A game whose summary has per-question results for every team (ЧГК)
gets one character per question per team -- ``1`` right, ``0`` wrong -- and the
total, the shape rating sites take.  The «Мафия» games of a competition make one
tournament table (``<competition>-tournament.csv``, computed as ``buzzer
tournament`` does) once their tables have ended with every role entered.
"""

from __future__ import annotations

import io
import json
import logging
import re
from pathlib import Path

from controller import games
from controller.core import cells
from controller.core.errors import BuzzerError

log = logging.getLogger(__name__)


def _safe(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name, flags=re.UNICODE).strip("_") or "x"


def answers(summary: dict) -> dict[str, str] | None:
    """Per team, one character per question (not the shoot-out's): 1 right, 0 wrong;
    None when the game keeps no per-question results for every team."""
    questions = [q for q in summary.get("questions") or () if isinstance(q, dict) and not q.get("shootout")]
    if not questions or not all(isinstance(q.get("results"), dict) for q in questions):
        return None
    teams = [row.get("team") for row in summary.get("standings") or () if isinstance(row, dict)]
    return {team: "".join("1" if q["results"].get(team) is True else "0" for q in questions) for team in teams}


def game_table(entry: dict, summary: dict) -> dict:
    """One game's table: its standings rows, with ``answers`` where the game has them."""
    per_question = answers(summary)
    rows = []
    for row in entry["standings"]:
        out = dict(row)
        if per_question is not None:
            out["answers"] = per_question.get(row.get("team"), "")
        rows.append(out)
    return {"competition": entry["name"], "hall": entry["hall"], "game": entry["game"], "mode": entry["mode"],
            "finished": entry["finished"], "rows": rows}


def to_csv(table: dict) -> str:
    rows = table["rows"]
    buf = io.StringIO()
    writer = cells.writer(buf, lineterminator="\n")
    if rows and "answers" in rows[0]:
        writer.writerow(["place", "team", "answers", "total"])
        for r in rows:
            writer.writerow([r.get("place_label", r.get("place")), r.get("team"), r["answers"], r.get("points")])
        return buf.getvalue()
    keys: list[str] = []
    for r in rows:
        keys += [k for k, v in r.items() if k not in keys and not isinstance(v, (dict, list))]
    writer.writerow(keys)
    for r in rows:
        writer.writerow(["" if r.get(k) is None else r.get(k) for k in keys])
    return buf.getvalue()


def write(festival, folder: str | Path, fmt: str, cfg: dict) -> list[Path]:
    """Write every game's table (and each competition's own table across its games, such as
    the «Мафия» tournament's) into ``folder``; the paths written."""
    out_dir = Path(folder)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BuzzerError(f"{folder}: cannot create the folder: {exc.strerror}") from None
    written: list[Path] = []
    games_by_key = {(g.competition, g.hall, g.id): g for g in festival.games.values()}
    finished: dict[tuple[str, str], list[tuple[str, dict]]] = {}
    for entry in festival.results()["competitions"]:
        summary = games_by_key[(entry["name"], entry["hall"], entry["game"])].summary() or {}
        table = game_table(entry, summary)
        if entry["finished"] and entry["mode"] in games.names():
            finished.setdefault((entry["mode"], entry["name"]), []).append((entry["hall"], summary))
        path = out_dir / f"{_safe(entry['name'])}-{_safe(entry['hall'])}-{entry['game']}.{fmt}"
        text = to_csv(table) if fmt == "csv" else json.dumps(table, ensure_ascii=False, indent=1) + "\n"
        _write(path, text)
        written.append(path)
    for (mode, competition), summaries in finished.items():
        text = games.extras_class(mode).competition_table(competition, summaries, cfg, fmt, cfg["language"])
        if text is None:
            continue
        path = out_dir / f"{_safe(competition)}-tournament.{fmt}"
        _write(path, text)
        written.append(path)
    return written


def write_rating(festival, path: str | Path, event_file: str | None = None) -> str:
    """Every competition whose games have per-question results (ЧГК, Брейн-ринг) as one sheet
    of the rating site's layout in ``path`` (.xlsx), the teams of all its halls in it, their
    IDs and cities from each game's event file (and ``event_file``).  Returns the warning
    line for teams without an ID ("" when none)."""
    from controller.games import rating

    extra = {}
    if event_file:
        from controller.content import event
        extra = rating.event_team_info(event.parse_file(event_file))
    by_competition: dict[str, tuple[int, list]] = {}
    for g in sorted(festival.games.values(), key=lambda g: (g.competition, g.hall, g.id)):
        summary = g.summary() if g.known else None
        if not summary:
            continue
        got = rating.rows_of(summary, rating.team_list((g.info or {}).get("config")), extra)
        if got is None:
            continue
        n, rows = got
        have_n, have = by_competition.get(g.competition, (0, []))
        by_competition[g.competition] = (max(n, have_n), have + rows)
    sheets = []
    for name, (n, rows) in by_competition.items():
        # halls that played fewer questions: the rest are not taken (0)
        rows = [rating.TeamRow(r.team_id, r.name, r.city, r.results + (False,) * (n - len(r.results))) for r in rows]
        sheets.append((name, n, rows))
    rating.write(path, sheets)
    return rating.missing_ids(r for _name, _n, rows in sheets for r in rows)


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise BuzzerError(f"{path}: cannot write: {exc.strerror}") from None
