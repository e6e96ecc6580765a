"""«Мафия» protocols in the JSON of the Polemica platform (docs/exports.md).

The platform's public client library (Vyasma-Mafia/polemica-library) reads a game as
players (seat, name, role number, fouls with their time and stage, the guess,
a disqualification's stage), checks, shots, votes, bonuses and the result, and a
tournament's results as one row per player with metrics per role.  This module
writes both from our protocols (:mod:`controller.games.mafia.protocol`); it is pure
(the caller reads and writes the files).  What our protocol does not know is
written as the format's "unknown" (null, an empty list, 0) and listed in the docs.

Problems are :class:`~controller.games.mafia.protocol.ProtocolError` naming the field:
the format has no doctor, so a game with one is refused, never exported wrong.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Iterable, Mapping

from controller.games.mafia.protocol import Protocol, ProtocolError, game_points, team_of

ROLE = {"don": 0, "mafia": 1, "civilian": 2, "commissar": 3}
"""Our role -> the format's role number (DON 0, MAFIA 1, PEACE 2, SHERIFF 3)."""
METRIC = {"don": "don", "mafia": "maf", "commissar": "com", "civilian": "civ"}
RESULT = {"town": 0, "mafia": 1}
"""The winner -> ``result`` (RED_WIN 0, BLACK_WIN 1)."""
STAGE = {"speech": "speech", "defence": "reSpeech", "voting": "voting", "night": "shooting", "day": "speech"}
"""A foul's stage -> the format's stage type (a last word: ``voted`` or ``shooted``, below)."""
LIFT_CANDIDATE = 1
"""A vote to remove all the tied has no round and this candidate in the platform's own records."""


def _local(value: str | None) -> str | None:
    """An ISO time as the format's LocalDateTime: no zone offset."""
    if not value:
        return None
    return dt.datetime.fromisoformat(value).replace(tzinfo=None).isoformat(timespec="seconds")


def _where(protocol: Protocol, source: str | None) -> str:
    return source or f"game {protocol.game}, table {protocol.table}"


def _role(protocol: Protocol, source: str | None) -> dict[int, str]:
    roles = {}
    for i, p in enumerate(protocol.players):
        if p.role not in ROLE:
            raise ProtocolError(f"players[{i}].role", f"seat {p.seat} is the {p.role}: Polemica's format has "
                                f"no {p.role} (its roles: don, mafia, civilian, sheriff)", _where(protocol, source))
        roles[p.seat] = p.role
    return roles


def _foul(protocol: Protocol, foul: Mapping[str, Any]) -> dict[str, Any]:
    stage = STAGE.get(foul["stage"])
    if foul["stage"] == "last_word":
        speaker = foul.get("speaker")
        left = protocol.player(speaker).left if speaker in {p.seat for p in protocol.players} else None
        stage = "shooted" if left and left.get("reason") == "killed" else "voted"
    out = {"type": stage, "day": foul["day"]}
    if foul.get("speaker") is not None:
        out["player"] = foul["speaker"]
    if foul.get("round") is not None:
        out["voting"] = foul["round"]
    return {"time": _local(foul["at"]), "stage": out}


def _at_table(protocol: Protocol, seat: int, night: int) -> bool:
    """Whether ``seat`` was still at the table for the night after day ``night``."""
    left = protocol.player(seat).left
    if not left:
        return True
    return left["day"] > night or (left["day"] == night and left.get("reason") == "killed")


def _shots(protocol: Protocol, roles: Mapping[int, str]) -> list[dict[str, int]]:
    """Each shooter's shot: recorded ones as they are; a kill (the mafia's shot together) is
    one shot at the victim by every mafia player at the table that night who has none; a miss
    writes none (the format reads a night without agreeing shots as nobody killed)."""
    out = []
    for s in protocol.shots:
        if s.get("shooter") is not None and s.get("victim") is not None:
            out.append({"night": s["night"], "shooter": s["shooter"], "victim": s["victim"]})
    for s in protocol.shots:
        if s.get("shooter") is None and s.get("victim") is not None:
            shot = {x["shooter"] for x in out if x["night"] == s["night"]}
            for seat, role in sorted(roles.items()):
                if team_of(role) == "mafia" and seat not in shot and seat != s["victim"] \
                        and _at_table(protocol, seat, s["night"]):
                    out.append({"night": s["night"], "shooter": seat, "victim": s["victim"]})
    return sorted(out, key=lambda x: (x["night"], x["shooter"]))


def game_json(protocol: Protocol, settings: Mapping[str, Any] | None = None,
              source: str | None = None) -> dict[str, Any]:
    """One game in the format's ``PolemicaGame`` JSON."""
    roles = _role(protocol, source)
    missing = [p.seat for p in protocol.players if p.fouls > len(p.foul_log)]
    if missing:
        i = [p.seat for p in protocol.players].index(missing[0])
        raise ProtocolError(f"players[{i}].foul_log", f"seat {missing[0]} has fouls without their time and "
                            "stage (foul_log); Polemica's format needs each foul's", _where(protocol, source))
    players = []
    for p in protocol.players:
        row: dict[str, Any] = {"position": p.seat, "username": p.name, "role": ROLE[p.role], "techs": [],
                               "fouls": [_foul(protocol, f) for f in p.foul_log], "player": None,
                               "award": None}
        if protocol.guess and protocol.guess["by"] == p.seat:
            row["guess"] = {"civs": None, "mafs": list(protocol.guess["seats"]), "vice": None}
        if p.disqualified:
            left = p.left or {"day": max([1, *(f["day"] for f in p.foul_log)]), "stage": "day"}
            row["disqual"] = {"type": STAGE.get(left.get("stage"), "speech"), "day": left["day"]}
        players.append(row)
    votes = [{"day": n["day"], "num": 0, "voter": n["by"], "candidate": n["seat"]} for n in protocol.nominations]
    votes += [{"day": v["day"], "num": v["round"], "voter": v["voter"], "candidate": v["candidate"]}
              for v in protocol.votes]
    votes += [{"day": v["day"], "voter": v["voter"], "candidate": LIFT_CANDIDATE} for v in protocol.lifts]
    days = [1, *(v["day"] for v in votes), *(s["night"] for s in protocol.shots),
            *(c["night"] for c in protocol.checks), *(p.left["day"] for p in protocol.players if p.left)]
    s = settings or {}
    return {
        "id": None,
        "name": f"{protocol.tournament}, {protocol.stage}",
        "master": 0,
        "referee": None,
        "scoringVersion": None,
        "scoringType": 0,
        "version": 1,
        "zeroVoting": None,
        "tags": [],
        "players": players,
        "checks": [{"night": c["night"], "role": ROLE["don" if c["by"] == "don" else "commissar"],
                    "player": c["seat"]} for c in protocol.checks],
        "shots": _shots(protocol, roles),
        "stage": {"type": "gameOver", "day": max(days)},
        "votes": sorted(votes, key=lambda v: (v["day"], v.get("num") is None, v.get("num") or 0)),
        "comKiller": None,
        "bonuses": [{"position": p.seat, "text": "extra points (§4.3)", "scores": float(p.extra), "basic": False}
                    for p in protocol.players if p.extra],
        "started": _local(protocol.started_at or protocol.ended_at) or f"{protocol.date}T00:00:00",
        "stop": None,
        "isLive": False,
        "result": RESULT[protocol.winner],
        "num": protocol.game,
        "table": protocol.table,
        "phase": None,
        "factor": float(s.get("final_multiplier", 1.5)) if protocol.final else 1.0,
    }


def first_killed(protocol: Protocol) -> int | None:
    """The seat killed on the first night that had a kill (the «первый убиенный»)."""
    kills = sorted((s["night"], s["victim"]) for s in protocol.shots if s.get("victim") is not None
                   and s.get("shooter") is None)
    return kills[0][1] if kills else None


def table_json(protocols: Iterable[Protocol], order: list[str], settings: Mapping[str, Any] | None = None
               ) -> list[dict[str, Any]]:
    """A tournament's results as the format's ``CompetitionPlayerResult`` list: one row per
    player in ``order`` (our ranking's names), metrics per role (games, wins, points, extra
    points, fouls, first killed).  ``id`` is 0: our protocols know no platform accounts."""
    empty = {"games": 0, "wins": 0, "totalScores": 0.0, "totalAwards": 0.0, "guessScore": 0.0,
             "firstShot": 0, "fpr": 0, "fouls": 0, "ciScores": 0.0}
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    names: dict[str, str] = {}
    for protocol in protocols:
        _role(protocol, None)
        points = game_points(protocol, settings)
        first = first_killed(protocol)
        for p in protocol.players:
            key = " ".join(p.name.split()).casefold()
            names.setdefault(key, p.name)
            m = rows.setdefault(key, {role: dict(empty) for role in METRIC.values()})[METRIC[p.role]]
            m["games"] += 1
            m["wins"] += int(team_of(p.role) == protocol.winner)
            m["totalScores"] += float(points[p.seat])
            m["totalAwards"] += float(p.extra)
            m["fouls"] += p.fouls
            m["firstShot"] += int(first == p.seat)
    ranked = [" ".join(n.split()).casefold() for n in order]
    keys = [k for k in ranked if k in rows] + sorted(set(rows) - set(ranked))
    return [{"id": 0, "username": names[k], "metrics": rows[k]} for k in keys]
