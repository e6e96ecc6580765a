"""ЧГК results from a CSV file: ``team,question,result`` per row.

The score-keepers often fill a spreadsheet instead of keying each result in;
this module turns its CSV export into the engine's ``results`` host action.
Parsing is pure (text in, rows out); any problem is one line naming the row::

    results.csv: row 4: unknown result 'может' (use 1/0, +/-, да/нет, true/false)

and carries an i18n key with its parameters (:attr:`ResultsError.key`), so the
host reads it in the game's language («results.csv, строка 4: непонятный
результат «может» …»).

``question`` is the question's number in the tournament (1..48) or
``tour.question`` (``2.5`` = tour 2, question 5).  A header row (``team,
question, result`` or ``команда,вопрос,результат``) is skipped; ``;`` works as
the separator too (spreadsheets with a decimal comma export it).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

from controller.core.errors import BuzzerError
from controller.core.events import Host

TRUE_WORDS = {"1", "+", "true", "yes", "y", "да", "д", "верно", "right", "v", "✓"}
FALSE_WORDS = {"0", "-", "−", "false", "no", "n", "нет", "н", "неверно", "wrong"}
_TOUR_Q = re.compile(r"(\d+)\.(\d+)")


class ResultsError(BuzzerError):
    """A results file has a bad row (the message names the file and row).

    ``key`` and ``params``: the same problem as an i18n key (``chgk.csv_*``) for the host."""

    def __init__(self, message: str, key: str, **params: Any):
        super().__init__(message)
        self.key = key
        self.params = params


class BadCell(ValueError):
    """A cell that is not a result or a question; ``key`` / ``params`` name the problem for i18n."""

    def __init__(self, message: str, key: str, **params: Any):
        super().__init__(message)
        self.key = key
        self.params = params


@dataclass(frozen=True, slots=True)
class Row:
    team: str
    question: int | str      # a number, or "tour.question"
    result: bool
    row: int                 # 1-based row of the file


def parse_result(value: Any) -> bool:
    """True/False from the ways people write a result; ValueError otherwise."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise BadCell(f"unknown result {value!r} (use 1/0, +/-, да/нет, true/false)", "chgk.csv_result", value=value)


def parse_question(value: Any, tours: int | None = None, per_tour: int | None = None) -> int | str:
    """A question reference: a whole number >= 1 or ``"tour.question"``; ValueError otherwise.
    With ``tours``/``per_tour`` the reference is checked and returned as a number."""
    if isinstance(value, int) and not isinstance(value, bool):
        n = value
    elif isinstance(value, str) and value.strip().isdigit():
        n = int(value.strip())
    elif isinstance(value, str) and _TOUR_Q.fullmatch(value.strip()):
        tour, q = map(int, _TOUR_Q.fullmatch(value.strip()).groups())
        if per_tour is None:
            return value.strip()
        if not (1 <= tour <= (tours or tour)) or not 1 <= q <= per_tour:
            raise BadCell(f"no question {value.strip()} ({tours} tours × {per_tour} questions)",
                          "chgk.csv_no_question", value=value.strip(),
                          range=f"1.1–{tours}.{per_tour}" if tours else f"{tour}.1–{tour}.{per_tour}")
        n = (tour - 1) * per_tour + q
    else:
        raise BadCell(f"bad question {value!r} (a number such as 17, or tour.question such as 2.5)",
                      "chgk.csv_question", value=value)
    if n < 1 or (tours and per_tour and n > tours * per_tour):
        total = f"1..{tours * per_tour}" if tours and per_tour else ">= 1"
        raise BadCell(f"question {n} is out of range ({total})", "chgk.csv_no_question", value=n,
                      range=f"1–{tours * per_tour}" if tours and per_tour else "≥ 1")
    return n


def _is_header(cells: Sequence[str]) -> bool:
    try:
        parse_result(cells[2])
        return False
    except (ValueError, IndexError):
        return True


def parse(text: str, source: str = "<csv>", teams: Iterable[str] | None = None,
          tours: int | None = None, per_tour: int | None = None) -> list[Row]:
    """Rows of a results CSV; raise :class:`ResultsError` naming the first bad row."""
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")), "")
    delimiter = ";" if ";" in first and "," not in first else ","
    known = set(teams) if teams is not None else None
    rows: list[Row] = []
    seen_data = False
    for n, cells in enumerate(csv.reader(io.StringIO(text), delimiter=delimiter), start=1):
        cells = [c.strip() for c in cells]
        if not any(cells) or cells[0].startswith("#"):
            continue
        if not seen_data and _is_header(cells):
            seen_data = True
            continue
        seen_data = True
        where = f"{source}: row {n}"
        at = {"path": source, "row": n}
        if len(cells) != 3:
            raise ResultsError(f"{where}: expected 3 fields (team,question,result), got {len(cells)}",
                               "chgk.csv_fields", got=len(cells), **at)
        team, question, result = cells
        if not team:
            raise ResultsError(f"{where}: empty team name", "chgk.csv_no_team", **at)
        if known is not None and team not in known:
            raise ResultsError(f"{where}: unknown team {team!r}", "chgk.csv_unknown_team", team=team, **at)
        try:
            q = parse_question(question, tours, per_tour)
            r = parse_result(result)
        except BadCell as exc:
            raise ResultsError(f"{where}: {exc}", exc.key, **exc.params, **at) from None
        rows.append(Row(team, q, r, n))
    return rows


def load(path: str | Path, **kwargs) -> list[Row]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        where = os.path.abspath(path)   # the folder it looked in, not only the name the config gave
        raise ResultsError(f"{where}: file not found", "chgk.csv_not_found", path=where) from None
    except IsADirectoryError:
        raise ResultsError(f"{path}: is a folder, not a file", "chgk.csv_is_folder", path=str(path)) from None
    except UnicodeDecodeError:
        raise ResultsError(f"{path}: not UTF-8 text", "chgk.csv_not_utf8", path=str(path)) from None
    except OSError as exc:
        raise ResultsError(f"{path}: cannot read: {exc.strerror}", "chgk.csv_unreadable", path=str(path),
                           problem=str(exc.strerror)) from None
    return parse(text, source=str(path), **kwargs)


def to_host(rows: Sequence[Row], at: int) -> Host:
    """The engine event that enters every row: ``Host("results", at, {"results": [...]})``."""
    return Host("results", at, {"results": [{"team": r.team, "question": r.question, "result": r.result}
                                            for r in rows]})
