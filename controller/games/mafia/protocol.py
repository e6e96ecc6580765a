"""The game protocol of a «Мафия» table (regulations §3.3.2, §4.3, §4.5.1).

A protocol is what the judges fill in after a game: the tournament, stage,
game and table numbers, the date, the players by seat with their roles, the
winning side, fouls, disqualifications, extra points and protests.  It is
saved as JSON (one file per game; ``buzzer tournament`` reads a folder of
them) and rendered as a printable HTML page.

Everything here is pure data handling: times are passed in (a protest's time
comes from the caller, never from a clock read here) and every problem is a
:class:`ProtocolError` whose one-line message names the field, e.g.
``players[3].role: must be one of civilian, mafia, don, commissar, doctor; got 'vampire'``.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import os
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping, Sequence

from controller.core.errors import BuzzerError, located
from controller.i18n import DEFAULT_LANG, Text, labels, notice, words
from controller.games.mafia.game import ROLES, validate_settings

FORMAT = "buzzer-mafia-protocol"
VERSION = 1

MAFIA_ROLES = ("mafia", "don")
WINNERS = ("town", "mafia")

ROLE_ALIASES = {
    "sheriff": "commissar",
    "мирный": "civilian", "мирный житель": "civilian", "мафия": "mafia", "дон": "don",
    "комиссар": "commissar", "шериф": "commissar", "доктор": "doctor",
}
WINNER_ALIASES = {"мирные": "town", "мирные жители": "town", "город": "town", "мафия": "mafia"}


class ProtocolError(BuzzerError):
    """A protocol is invalid or an entry is refused.

    ``field`` is the JSON path of the offending field (``players[2].extra``),
    ``source`` the file it came from, if any.  ``reason`` and ``params`` name the
    problems a judge meets at the table (a role not entered, two Dons) for the
    host's notice in the game's language (i18n ``protocol.<reason>``).
    """

    def __init__(self, field: str, problem: str, source: str | None = None, *, reason: str = "invalid",
                 params: Mapping[str, Any] | None = None):
        self.field = field
        self.problem = problem
        self.source = source
        self.reason = reason
        self.params = dict(params or {})
        super().__init__(self._line(str(problem)))

    def _line(self, problem: str) -> str:
        return located(self.source, self.field, problem)

    def words(self, lang: str = DEFAULT_LANG) -> str:
        """The line in ``lang`` (a ``problem`` that is a catalog text; any other as it is)."""
        return self._line(str(words(self.problem, lang)))


def team_of(role: str) -> str:
    """``town`` or ``mafia``."""
    return "mafia" if role in MAFIA_ROLES else "town"


@dataclass(frozen=True, slots=True)
class Player:
    seat: int
    name: str
    role: str
    fouls: int = 0
    disqualified: bool = False
    extra: float = 0
    left: Mapping[str, Any] | None = None
    """When the player left the table: ``{"day", "reason", "stage"}`` (reason ``voted``,
    ``killed``, ``fouls``, ``disqualified``); None: at the table to the end (or not recorded)."""
    foul_log: tuple[Mapping[str, Any], ...] = ()
    """Each foul's ``at`` (ISO time), ``day`` and ``stage`` (+ ``speaker``, ``round``)."""


@dataclass(frozen=True, slots=True)
class Protest:
    text: str
    at: str
    """ISO 8601 time the protest was entered."""
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Protocol:
    tournament: str
    stage: str
    game: int
    table: int
    date: str
    """ISO date of the game, ``2015-03-06``."""
    winner: str
    players: tuple[Player, ...]
    final: bool = False
    """The final game: its points are multiplied (§4.7)."""
    ended_at: str | None = None
    """ISO 8601 time the game ended; the protest window counts from it."""
    judge: str = ""
    protests: tuple[Protest, ...] = ()
    seats: int = 10
    """Seats at the table (``mafia.seats`` of the table's config): every seat 1..seats has
    exactly one player."""
    started_at: str | None = None
    """ISO 8601 time the game started (the table's record; optional)."""
    nominations: tuple[Mapping[str, Any], ...] = ()
    votes: tuple[Mapping[str, Any], ...] = ()
    lifts: tuple[Mapping[str, Any], ...] = ()
    shots: tuple[Mapping[str, Any], ...] = ()
    checks: tuple[Mapping[str, Any], ...] = ()
    guess: Mapping[str, Any] | None = None
    """The record of the game (docs/mafia.md, "The record"), optional: what a judge entered."""

    def player(self, seat: int) -> Player:
        for p in self.players:
            if p.seat == seat:
                return p
        raise KeyError(seat)

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        if self.started_at:
            out["started_at"] = self.started_at
        for i, p in enumerate(self.players):
            if p.left:
                out["players"][i]["left"] = dict(p.left)
            if p.foul_log:
                out["players"][i]["foul_log"] = [dict(f) for f in p.foul_log]
        for key in RECORD_KEYS:
            if getattr(self, key):
                out[key] = [dict(x) for x in getattr(self, key)]
        if self.guess:
            out["guess"] = {"by": self.guess["by"], "seats": list(self.guess["seats"])}
        return out

    def _base_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "tournament": self.tournament,
            "stage": self.stage,
            "final": self.final,
            "game": self.game,
            "table": self.table,
            "date": self.date,
            "ended_at": self.ended_at,
            "judge": self.judge,
            "winner": self.winner,
            "seats": self.seats,
            "players": [{"seat": p.seat, "name": p.name, "role": p.role, "fouls": p.fouls,
                         "disqualified": p.disqualified, "extra": p.extra} for p in self.players],
            "protests": [{"seat": x.seat, "text": x.text, "at": x.at} for x in self.protests],
        }


# --------------------------------------------------------------------------
# validation


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _text(data: Mapping, key: str, path: str, *, required: bool = True) -> str:
    value = data.get(key, None if required else "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ProtocolError(f"{path}{key}", f"expected a non-empty text, got {_show(value)}")
    return value.strip()


def _whole(data: Mapping, key: str, path: str, minimum: int, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ProtocolError(f"{path}{key}", f"expected a whole number >= {minimum}, got {_show(value)}")
    return value


def _flag(data: Mapping, key: str, path: str, default: bool = False) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise ProtocolError(f"{path}{key}", f"expected true or false, got {_show(value)}")
    return value


def parse_time(value: Any, field: str) -> dt.datetime:
    """An ISO 8601 date-time (``2015-03-06T14:35:00+03:00``)."""
    if not isinstance(value, str):
        raise ProtocolError(field, f"expected a date and time like 2015-03-06T14:35:00, got {_show(value)}")
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        raise ProtocolError(field, f"expected a date and time like 2015-03-06T14:35:00, got {_show(value)}") from None


def _role(value: Any, field: str, seat: int | None = None) -> str:
    role = ROLE_ALIASES.get(str(value).strip().lower(), str(value).strip().lower()) if isinstance(value, str) else None
    if role not in ROLES:
        raise ProtocolError(field, f"must be one of {', '.join(ROLES)}; got {_show(value)}", reason="role",
                            params={"seat": seat})
    return role


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _elapsed(start: dt.datetime, end: dt.datetime, field: str) -> dt.timedelta:
    if (start.tzinfo is None) != (end.tzinfo is None):
        raise ProtocolError(field, "give both times with a time zone or both without one")
    return end - start


def _minutes(delta: dt.timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds >= 3600:
        return f"{seconds // 3600} h {seconds % 3600 // 60} min"
    return f"{seconds // 60} min {seconds % 60} s"


def check_protest_time(ended_at: str | None, at: dt.datetime, window_min: float,
                       field: str = "protests") -> None:
    """Refuse a protest entered before the game ended or after the window (§4.5.1)."""
    if ended_at is None:
        raise ProtocolError("ended_at", "the end time of the game is needed to accept a protest")
    end = parse_time(ended_at, "ended_at")
    delta = _elapsed(end, at, field)
    if delta < dt.timedelta(0):
        raise ProtocolError(field, f"entered {_minutes(-delta)} before the game ended ({ended_at})")
    if delta > dt.timedelta(minutes=window_min):
        raise ProtocolError(field, f"too late: entered {_minutes(delta)} after the game ended, "
                                   f"a protest is accepted within {window_min:g} min (§4.5.1)")


RECORD_KEYS = ("nominations", "votes", "lifts", "shots", "checks")
_RECORD_FIELDS = {
    # list -> {field: (required, kind)}; kind: "seat", "day" (a whole number >= 1), "checker"
    "nominations": {"day": (True, "day"), "by": (True, "seat"), "seat": (True, "seat")},
    "votes": {"day": (True, "day"), "round": (True, "day"), "voter": (True, "seat"), "candidate": (True, "seat")},
    "lifts": {"day": (True, "day"), "voter": (True, "seat")},
    "shots": {"night": (True, "day"), "shooter": (False, "seat"), "victim": (False, "seat")},
    "checks": {"night": (True, "day"), "by": (True, "checker"), "seat": (True, "seat")},
}
_KEYS = {"format", "version", "tournament", "stage", "final", "game", "table", "date", "ended_at",
         "judge", "winner", "seats", "players", "protests", "started_at", "guess", *RECORD_KEYS}
_PLAYER_KEYS = {"seat", "name", "role", "fouls", "disqualified", "extra", "left", "foul_log"}
LEFT_REASONS = ("voted", "killed", "fouls", "disqualified")


def _entry(x: Any, path: str, fields: Mapping[str, tuple[bool, str]], seats: Mapping[int, int]) -> dict:
    """One entry of a record list, checked: known fields, seats of players, days >= 1."""
    if not isinstance(x, dict):
        raise ProtocolError(path, f"expected an object with {', '.join(fields)}")
    unknown = sorted(set(x) - set(fields))
    if unknown:
        raise ProtocolError(f"{path}.{unknown[0]}", f"unknown field; known: {', '.join(fields)}")
    out = {}
    for key, (required, kind) in fields.items():
        value = x.get(key)
        if value is None and not required:
            continue
        if kind == "checker":
            if value not in ("don", "commissar"):
                raise ProtocolError(f"{path}.{key}", f"must be don or commissar; got {_show(value)}")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ProtocolError(f"{path}.{key}", f"expected a whole number >= 1, got {_show(value)}")
        elif kind == "seat" and value not in seats:
            raise ProtocolError(f"{path}.{key}", f"no player at seat {value}")
        out[key] = value
    return out


def _record(data: Mapping, seats: Mapping[int, int]) -> dict[str, Any]:
    """The optional record of the game: nominations, votes, lifts, shots, checks, the guess."""
    out: dict[str, Any] = {}
    for key in RECORD_KEYS:
        raw = data.get(key, [])
        if not isinstance(raw, list):
            raise ProtocolError(key, "expected a list")
        out[key] = tuple(_entry(x, f"{key}[{i}]", _RECORD_FIELDS[key], seats) for i, x in enumerate(raw))
    guess = data.get("guess")
    if guess is not None:
        if not isinstance(guess, dict) or set(guess) != {"by", "seats"}:
            raise ProtocolError("guess", "expected an object with by and seats")
        by = _entry({"by": guess["by"]}, "guess", {"by": (True, "seat")}, seats)["by"]
        named = guess["seats"]
        if not isinstance(named, list) or not 1 <= len(named) <= 3:
            raise ProtocolError("guess.seats", f"expected a list of 1 to 3 seats, got {_show(named)}")
        named = [_entry({"seat": n}, f"guess.seats[{i}]", {"seat": (True, "seat")}, seats)["seat"]
                 for i, n in enumerate(named)]
        if len(set(named)) != len(named) or by in named:
            raise ProtocolError("guess.seats", f"seats named twice or the guesser's own: {named}")
        guess = {"by": by, "seats": tuple(named)}
    out["guess"] = guess
    if data.get("started_at") is not None:
        parse_time(data["started_at"], "started_at")
    out["started_at"] = data.get("started_at")
    return out


def _player_record(p: Mapping, path: str, fouls: int) -> dict[str, Any]:
    """A player's ``left`` and ``foul_log`` (optional)."""
    left = p.get("left")
    if left is not None:
        if not isinstance(left, dict) or not set(left) <= {"day", "reason", "stage"} or "day" not in left:
            raise ProtocolError(path + "left", "expected an object with day, reason and stage")
        _entry({"day": left["day"]}, path + "left", {"day": (True, "day")}, {})
        if left.get("reason") not in LEFT_REASONS:
            raise ProtocolError(path + "left.reason", f"must be one of {', '.join(LEFT_REASONS)}; "
                                                      f"got {_show(left.get('reason'))}")
        left = dict(left)
    log = p.get("foul_log", [])
    if not isinstance(log, list) or len(log) > fouls:
        raise ProtocolError(path + "foul_log", f"expected a list of at most {fouls} fouls (fouls)")
    entries = []
    for i, f in enumerate(log):
        where = f"{path}foul_log[{i}]"
        if not isinstance(f, dict) or not {"at", "day", "stage"} <= set(f) <= {"at", "day", "stage", "speaker", "round"}:
            raise ProtocolError(where, "expected an object with at, day, stage (speaker, round)")
        parse_time(f["at"], where + ".at")
        _entry({"day": f["day"]}, where, {"day": (True, "day")}, {})
        if f["stage"] not in FOUL_STAGES:
            raise ProtocolError(where + ".stage", f"must be one of {', '.join(FOUL_STAGES)}; got {_show(f['stage'])}")
        entries.append(dict(f))
    return {"left": left, "foul_log": tuple(entries)}


FOUL_STAGES = ("speech", "defence", "last_word", "voting", "night", "day")
_PROTEST_KEYS = {"seat", "text", "at"}


def from_dict(data: Any, settings: Mapping[str, Any] | None = None) -> Protocol:
    """Build and validate a protocol from parsed JSON.

    Checks every field's type, that the players fill the table (one player on
    each seat 1..``seats``; the protocol's ``seats``, or ``mafia.seats`` of the
    config when the protocol does not say), unique names, the role line-up (one
    Don, Commissar and Doctor at most; both sides present), that fouls and
    disqualification agree with the foul limit, the extra points rules
    (:func:`check_extra_points`) and that every protest is inside the window.
    """
    s = validate_settings(settings)
    if not isinstance(data, dict):
        raise ProtocolError("", "expected a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ProtocolError(unknown[0], f"unknown field; known: {', '.join(sorted(_KEYS))}")
    if data.get("format", FORMAT) != FORMAT:
        raise ProtocolError("format", f"expected {FORMAT!r}, got {_show(data.get('format'))}")
    if data.get("version", VERSION) != VERSION:
        raise ProtocolError("version", f"this program reads version {VERSION}, got {_show(data.get('version'))}")
    date = _text(data, "date", "")
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        raise ProtocolError("date", f"expected a date like 2015-03-06, got {_show(date)}") from None
    ended_at = data.get("ended_at")
    if ended_at is not None:
        parse_time(ended_at, "ended_at")
    winner = data.get("winner")
    winner = WINNER_ALIASES.get(winner.strip().lower(), winner.strip().lower()) if isinstance(winner, str) else winner
    if winner not in WINNERS:
        raise ProtocolError("winner", f"must be town or mafia; got {_show(data.get('winner'))}")

    if "seats" in data:
        table_seats = _whole(data, "seats", "", 2)
        where = "the protocol's seats"
    else:
        table_seats = s["seats"]
        where = "mafia.seats"
    raw_players = data.get("players")
    if not isinstance(raw_players, list) or len(raw_players) < 2:
        raise ProtocolError("players", "expected a list of at least 2 players")
    players = []
    seats: dict[int, int] = {}
    names: dict[str, int] = {}
    for i, p in enumerate(raw_players):
        path = f"players[{i}]."
        if not isinstance(p, dict):
            raise ProtocolError(f"players[{i}]", "expected an object with seat, name, role")
        unknown = sorted(set(p) - _PLAYER_KEYS)
        if unknown:
            raise ProtocolError(path + unknown[0], f"unknown field; known: {', '.join(sorted(_PLAYER_KEYS))}")
        seat = _whole(p, "seat", path, 1)
        if seat > table_seats:
            raise ProtocolError(path + "seat", f"no seat {seat} at a table of {table_seats} seats "
                                               f"({where}); seats are 1–{table_seats}")
        if seat in seats:
            raise ProtocolError(path + "seat", f"seat {seat} is also players[{seats[seat]}]")
        seats[seat] = i
        name = _text(p, "name", path)
        key = " ".join(name.split()).casefold()
        if key in names:
            raise ProtocolError(path + "name", f"{name!r} is also players[{names[key]}]")
        names[key] = i
        fouls = _whole(p, "fouls", path, 0, default=0)
        disqualified = _flag(p, "disqualified", path)
        if fouls >= s["remove_fouls"] and not disqualified and s["removal_disqualifies"]:
            raise ProtocolError(path + "disqualified", f"{fouls} fouls remove the player (§3.2 of appendix 1.2): "
                                                       "set disqualified to true")
        extra = p.get("extra", 0)
        if not _number(extra) or extra < 0:
            raise ProtocolError(path + "extra", f"expected a number >= 0, got {_show(extra)}")
        players.append(Player(seat, " ".join(name.split()), _role(p.get("role"), path + "role", seat),
                              fouls, disqualified, extra, **_player_record(p, path, fouls)))
    if len(players) != table_seats:
        empty = [str(n) for n in range(1, table_seats + 1) if n not in seats]
        raise ProtocolError("players", f"{len(players)} players at a table of {table_seats} seats ({where}); "
                                       f"nobody at seat{'s' if len(empty) > 1 else ''} {', '.join(empty)} "
                                       "(a smaller table is set by mafia.seats in the config)")
    for role in ("don", "commissar", "doctor"):
        if sum(p.role == role for p in players) > 1:
            raise ProtocolError("players", f"more than one {role}", reason="role_twice", params={"role": role})
    if not any(team_of(p.role) == "mafia" for p in players):
        raise ProtocolError("players", "no mafia or don among the players", reason="no_mafia")
    if not any(team_of(p.role) == "town" for p in players):
        raise ProtocolError("players", "no town player among the players", reason="no_town")
    players.sort(key=lambda p: p.seat)
    check_extra_points(players, s)

    raw_protests = data.get("protests", [])
    if not isinstance(raw_protests, list):
        raise ProtocolError("protests", "expected a list")
    protests = []
    for i, x in enumerate(raw_protests):
        path = f"protests[{i}]"
        if not isinstance(x, dict):
            raise ProtocolError(path, "expected an object with text and at")
        unknown = sorted(set(x) - _PROTEST_KEYS)
        if unknown:
            raise ProtocolError(f"{path}.{unknown[0]}", f"unknown field; known: {', '.join(sorted(_PROTEST_KEYS))}")
        seat = x.get("seat")
        if seat is not None and seat not in seats:
            raise ProtocolError(f"{path}.seat", f"no player at seat {_show(seat)}")
        text = _text(x, "text", f"{path}.")
        at = parse_time(x.get("at"), f"{path}.at")
        check_protest_time(ended_at, at, s["protest_window_min"], f"{path}.at")
        protests.append(Protest(text, x["at"], seat))

    return Protocol(
        **_record(data, seats),
        tournament=_text(data, "tournament", ""), stage=_text(data, "stage", ""),
        game=_whole(data, "game", "", 1), table=_whole(data, "table", "", 1), date=date,
        winner=winner, players=tuple(players), final=_flag(data, "final", ""),
        ended_at=ended_at, judge=_text(data, "judge", "", required=False), protests=tuple(protests),
        seats=table_seats)


def check_extra_points(players, settings: Mapping[str, Any] | None = None) -> None:
    """The extra points rules of §4.3: at most ``extra_max_players`` players
    (3), each ``extra_allowed`` (1 or 0.5), ``extra_max_total`` (2) in all."""
    s = validate_settings(settings)
    allowed = [Fraction(str(a)) for a in s["extra_allowed"]]
    given = []
    for i, p in enumerate(players):
        if not p.extra:
            continue
        if Fraction(str(p.extra)) not in allowed:
            raise ProtocolError(f"players[{i}].extra", f"{p.name} (seat {p.seat}) has {p.extra:g}; a player may get "
                                f"{' or '.join(f'{a:g}' for a in s['extra_allowed'])} extra points (§4.3.2)")
        given.append(p)
    if len(given) > s["extra_max_players"]:
        raise ProtocolError("players", f"{len(given)} players have extra points (seats "
                            f"{', '.join(str(p.seat) for p in given)}); at most {s['extra_max_players']} "
                            "may get them (§4.3.1)")
    total = sum(Fraction(str(p.extra)) for p in given)
    if total > Fraction(str(s["extra_max_total"])):
        raise ProtocolError("players", f"extra points add up to {float(total):g}; at most "
                            f"{s['extra_max_total']:g} in a game (§4.3.3)")


# --------------------------------------------------------------------------
# building, entering protests, saving, loading


def from_table(summary: Mapping[str, Any], *, tournament: str, stage: str, game: int, table: int,
               date: str, ended_at: str, final: bool = False, judge: str = "",
               roles: Mapping[int, str] | None = None, extra: Mapping[int, float] | None = None,
               settings: Mapping[str, Any] | None = None) -> Protocol:
    """A protocol from a finished table (:func:`controller.games.mafia.game.summary`).

    ``roles`` fills or overrides the roles entered at the table; ``extra``
    gives the judges' extra points by seat.  The protocol records the table's
    seats; a seat without a name has no player, which the protocol refuses (a
    table played with fewer players is a config with fewer ``mafia.seats``).
    """
    if summary.get("winner") is None:
        raise ProtocolError("winner", "the game has not ended (no end_game with a winner)")
    roles = dict(roles or {})
    extra = dict(extra or {})
    record = table_record(summary, ended_at)
    players = []
    for seat in summary["seats"]:
        if not seat["name"]:
            continue
        number = seat["seat"]
        players.append({"seat": number, "name": seat["name"],
                        "role": roles.get(number, seat.get("role")), "fouls": seat["fouls"],
                        "disqualified": bool(seat.get("disqualified")),
                        "extra": extra.get(number, seat.get("extra", 0)),
                        **record["players"].get(number, {})})
    return from_dict({"tournament": tournament, "stage": stage, "final": final, "game": game, "table": table,
                      "date": date, "ended_at": ended_at, "judge": judge, "winner": summary["winner"],
                      "seats": len(summary["seats"]), "players": players, **record["game"]}, settings)


def table_record(summary: Mapping[str, Any], ended_at: str) -> dict[str, Any]:
    """The table's record (:class:`controller.games.mafia.game.Mark` entries of the summary)
    as the protocol's lists; engine times become wall-clock times counted back from
    ``ended_at``, the wall-clock time of the summary's ``ended_at``."""
    marks = summary.get("record") or []
    end_ns = summary.get("ended_at")

    def wall(at_ns: int) -> str | None:
        if end_ns is None or not ended_at:
            return None
        moment = parse_time(ended_at, "ended_at") - dt.timedelta(microseconds=(end_ns - at_ns) // 1000)
        return moment.isoformat(timespec="seconds")

    game: dict[str, list] = {key: [] for key in RECORD_KEYS}
    players: dict[int, dict] = {}
    guess: dict[str, Any] | None = None
    for m in marks:
        kind, seat, by = m["kind"], m.get("seat"), m.get("by")
        if kind == "nomination":
            game["nominations"].append({"day": m["day"], "by": by, "seat": seat})
        elif kind == "vote":
            game["votes"].append({"day": m["day"], "round": m["round"], "voter": by, "candidate": seat})
        elif kind == "lift":
            game["lifts"].append({"day": m["day"], "voter": by})
        elif kind == "shot":
            game["shots"].append({k: v for k, v in (("night", m["day"]), ("shooter", by), ("victim", seat))
                                  if v is not None})
        elif kind == "check":
            game["checks"].append({"night": m["day"], "by": by, "seat": seat})
        elif kind == "guess":
            guess = guess if guess and guess["by"] == by else {"by": by, "seats": []}
            guess["seats"].append(seat)
        elif kind == "left":
            players.setdefault(seat, {})["left"] = {"day": m["day"], "reason": by, "stage": m.get("stage")}
        elif kind == "foul" and wall(m["at"]):
            entry = {"at": wall(m["at"]), "day": m["day"], "stage": m["stage"]}
            entry.update({k: m[k] for k in ("speaker", "round") if m.get(k) is not None})
            players.setdefault(seat, {}).setdefault("foul_log", []).append(entry)
    out = {key: value for key, value in game.items() if value}
    if guess:
        out["guess"] = guess
    if summary.get("started_at") is not None and wall(summary["started_at"]):
        out["started_at"] = wall(summary["started_at"])
    return {"game": out, "players": players}


def add_protest(protocol: Protocol, text: str, at: dt.datetime, seat: int | None = None,
                settings: Mapping[str, Any] | None = None) -> Protocol:
    """The protocol with one more protest; refused after the window (§4.5.1).

    ``at`` is the time of the entry, given by the caller."""
    s = validate_settings(settings)
    if not isinstance(text, str) or not text.strip():
        raise ProtocolError("protests.text", "a protest needs its text")
    if seat is not None and seat not in {p.seat for p in protocol.players}:
        raise ProtocolError("protests.seat", f"no player at seat {seat}")
    check_protest_time(protocol.ended_at, at, s["protest_window_min"])
    return replace(protocol, protests=protocol.protests + (Protest(text.strip(), at.isoformat(), seat),))


def dumps(protocol: Protocol) -> str:
    return json.dumps(protocol.to_dict(), ensure_ascii=False, indent=2) + "\n"


def save(protocol: Protocol, path: str | Path) -> Path:
    """Write the protocol as JSON, atomically (a crash never leaves half a file)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(dumps(protocol))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise ProtocolError("", f"cannot write {path}: {exc.strerror}") from None
    return path


def load(path: str | Path, settings: Mapping[str, Any] | None = None) -> Protocol:
    """Read and validate one protocol file; errors name the file and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProtocolError("", Text("file.not_found"), str(path)) from None
    except UnicodeDecodeError:
        raise ProtocolError("", Text("file.not_utf8"), str(path)) from None
    except OSError as exc:
        raise ProtocolError("", Text("file.cannot_read", problem=exc.strerror), str(path)) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProtocolError("", Text("protocols.bad_json", line=exc.lineno, detail=exc.msg), str(path)) from None
    try:
        return from_dict(data, settings)
    except ProtocolError as exc:
        raise ProtocolError(exc.field, exc.problem, str(path)) from None


# --------------------------------------------------------------------------
# printable HTML

# ---------------------------------------------------------------------------
# points of one game (the tournament table adds them up)

def _f(value) -> Fraction:
    return Fraction(str(value))


def _won(protocol: Protocol, role: str) -> bool:
    return team_of(role) == protocol.winner


def game_points(protocol: Protocol, settings: Mapping[str, Any] | None = None) -> dict[int, Fraction]:
    """Points of each seat in one game, the final multiplier applied."""
    s = validate_settings(settings)
    win = {"town": _f(s["town_win_points"]), "mafia": _f(s["mafia_win_points"])}
    out = {}
    for p in protocol.players:
        points = Fraction(0)
        if _won(protocol, p.role) and (not p.disqualified or s["disqualified_keeps_win_points"]):
            points += win[protocol.winner]
        if p.disqualified:
            points += _f(s["disqualification_points"])
        points += _f(p.extra)
        if protocol.final:
            points *= _f(s["final_multiplier"])
        out[p.seat] = points
    return out


CSS = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 2em; color: #000; }
h1 { font-size: 1.6em; margin-bottom: .3em; }
table { border-collapse: collapse; width: 100%; margin: 1em 0; }
th, td { border: 1px solid #444; padding: .35em .6em; text-align: left; }
th { background: #eee; }
td.num { text-align: right; }
dl { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; }
dt { font-weight: bold; }
.sign { margin-top: 3em; }
@media print { body { margin: 1cm; } th { background: none; } a { color: #000; } }
"""


def fmt_points(value, comma: bool = False) -> str:
    """4.5 -> "4.5", 6.0 -> "6", -1 -> "−1" style without trailing zeros."""
    text = f"{float(value):.2f}".rstrip("0").rstrip(".")
    if text == "-0":
        text = "0"
    return text.replace(".", ",") if comma else text


def render_html(protocol: Protocol, lang: str = "ru", settings: Mapping[str, Any] | None = None) -> str:
    """A printable HTML page of the protocol, every value escaped."""
    s = validate_settings(settings)
    L = labels("protocol_html", lang)
    e = html.escape
    comma = lang == "ru"
    points = game_points(protocol, s)
    role_label = {r: L["mafia_role" if r == "mafia" else r] for r in ROLES}
    head = [(L["tournament"], protocol.tournament), (L["stage"], protocol.stage),
            (L["game"], str(protocol.game)), (L["table"], str(protocol.table)), (L["date"], protocol.date)]
    if protocol.ended_at:
        head.append((L["ended_at"], protocol.ended_at))
    if protocol.judge:
        head.append((L["judge"], protocol.judge))
    head.append((L["winner"], L[protocol.winner]))
    out = [f'<!DOCTYPE html>\n<html lang="{e(lang)}">\n<head>\n<meta charset="utf-8">',
           f"<title>{e(L['title'])} — {e(protocol.tournament)}, {e(L['game'])} {protocol.game}</title>",
           f"<style>{CSS}</style>\n</head>\n<body>",
           f"<h1>{e(L['title'])}</h1>"]
    if protocol.final:
        out.append(f"<p><strong>{e(L['final'].format(m=fmt_points(s['final_multiplier'], comma)))}</strong></p>")
    out.append("<dl>" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in head) + "</dl>")
    out.append("<table>\n<thead><tr>" + "".join(
        f"<th>{e(L[k])}</th>" for k in ("seat", "name", "role", "fouls", "disqualified", "extra", "points"))
        + "</tr></thead>\n<tbody>")
    for p in protocol.players:
        out.append(f'<tr><td class="num">{p.seat}</td><td>{e(p.name)}</td><td>{e(role_label[p.role])}</td>'
                   f'<td class="num">{p.fouls}</td><td>{e(L["yes"] if p.disqualified else "")}</td>'
                   f'<td class="num">{e(fmt_points(p.extra, comma)) if p.extra else ""}</td>'
                   f'<td class="num">{e(fmt_points(points[p.seat], comma))}</td></tr>')
    out.append("</tbody>\n</table>")
    out.append(f"<h2>{e(L['protests'].format(w=fmt_points(s['protest_window_min'], comma)))}</h2>")
    if protocol.protests:
        out.append(f"<table><thead><tr><th>{e(L['at'])}</th><th>{e(L['seat'])}</th><th>{e(L['text'])}</th>"
                   "</tr></thead><tbody>")
        for x in protocol.protests:
            out.append(f"<tr><td>{e(x.at)}</td><td>{'' if x.seat is None else x.seat}</td><td>{e(x.text)}</td></tr>")
        out.append("</tbody></table>")
    else:
        out.append(f"<p>{e(L['none'])}</p>")
    out.append(f'<p class="sign">{e(L["signature"])}: ____________________</p>\n</body>\n</html>\n')
    return "\n".join(out)


def write_game(summary: Mapping[str, Any], settings: Mapping[str, Any], lang: str,
               when: Sequence[int]) -> tuple[Path, ProtocolError | None]:
    """Save a finished table (:func:`controller.games.mafia.game.summary`) into
    ``settings["protocol_dir"]``: the protocol as JSON and printable HTML.

    When no protocol can be made yet (most often: roles not entered) the table's
    record is saved instead (``…table.json``), so nothing is lost; returns the path
    written and the problem (see :func:`problem_text`), or None when the protocol is complete.
    ``when``: the local time the game ended (``time.localtime()``: year, month, day, hour,
    minute, second first).  The module reads no clock: its pure parts (the Polemica export
    builds on them) stay pure.
    """
    folder = Path(settings["protocol_dir"])
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"game-{settings['game_number']:03d}-table-{settings['table_number']}"
    try:
        protocol = from_table(summary, tournament=settings["tournament"], stage=settings["stage"],
                              game=settings["game_number"], table=settings["table_number"],
                              date="%04d-%02d-%02d" % tuple(when[:3]),
                              ended_at="%04d-%02d-%02dT%02d:%02d:%02d" % tuple(when[:6]),
                              final=settings["final"], settings=settings)
    except ProtocolError as exc:
        record = folder / f"{stem}.table.json"
        record.write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
        return record, exc
    path = save(protocol, folder / f"{stem}.json")
    (folder / f"{stem}.html").write_text(render_html(protocol, lang, settings), encoding="utf-8")
    return path, None



def problem_text(problem: ProtocolError, lang: str) -> str:
    """Why a table gives no protocol yet, for the judge in the game's language
    («не введена роль места 3»); a problem without its own words names the field."""

    params = dict(problem.params)
    if problem.reason == "invalid":
        params["field"] = problem.field
    return notice(f"protocol.{problem.reason}", lang, **params)


def update_players(path: str | Path, summary: Mapping[str, Any], settings: Mapping[str, Any], lang: str) -> Path:
    """A saved protocol (JSON and HTML) brought up to what the judge entered at the table after
    it was written (:func:`controller.games.mafia.game.summary`): the players' names (a player
    renamed), the extra points and the best move.  Everything else in the file, protests
    entered since included, stays as it is; the new extra points are checked (§4.3)."""
    protocol = load(path, settings)
    seats = {st["seat"]: st for st in summary["seats"]}
    players = tuple(replace(p, name=seats[p.seat]["name"] or p.name, extra=seats[p.seat].get("extra", p.extra))
                    if p.seat in seats else p for p in protocol.players)
    guess = table_record(summary, protocol.ended_at or "")["game"].get("guess", protocol.guess)
    if players == protocol.players and guess == protocol.guess:
        return Path(path)
    check_extra_points(players, settings)
    protocol = from_dict({**protocol.to_dict(), "players": [
        {**row, "name": p.name, "extra": p.extra} for row, p in zip(protocol.to_dict()["players"], players)],
        **({"guess": guess} if guess else {})}, settings)
    path = save(protocol, path)
    path.with_suffix(".html").write_text(render_html(protocol, lang, settings), encoding="utf-8")
    return path
