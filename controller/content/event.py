"""The event file: what is played and who plays it (docs/event-file.md).

One TOML file the organiser prepares before the day::

    title = "Изумрудный город: 7 классы"

    [[teams]]
    name = "Альфа"
    players = ["Аня", "Борис", "Вера", "Глеб"]     # at most 8, names unique in the team [§2.4]
    sound = "press-2"                               # optional: its own press sound

    [[games]]
    mode = "erudite"
    [[games.fights]]
    themes = ["Реки", "Кино", "Химия", "Спорт"]

    [[games]]
    mode = "own-game"
    pack = "club.siq"

Loading is data only (TOML, never code).  :func:`load` reads and checks the
file and returns a plain dict; :func:`apply` puts the chosen game and its teams
into a validated config (``cfg["event"]``, ``cfg["teams"]``), so the journal's
header, which holds the config, holds the event too and a replay needs no
file.  Every problem is a :class:`~controller.core.errors.ConfigError` naming
the file and the key (``event.toml: teams[1].players: at most 8 players
(seed §2.4), got 9``); the command line prints it as one line, exit code 2.

Without an event file nothing here runs and every game is as before.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any, Mapping

from controller.core.errors import ConfigError

MAX_PLAYERS = 8
"""Players on a team's entry [seed §2.4]."""

MAX_FILE_BYTES = 2_000_000
"""An event file larger than this is refused (it is a few kilobytes in practice)."""

MAX_TEXT = 2000
"""Longest text (a question, an answer) taken from the file."""

MAX_NAME = 60
"""Longest team, player, theme or title name."""

GAME_MODES = ("erudite", "chgk", "own-game", "brain-ring")
FIGHT_TYPES = ("light", "half-dark", "dark")

TEAM_KEYS = {"name", "players", "button", "key", "color", "sound"}
GAME_KEYS = {
    "erudite": {"mode", "title", "teams", "fights"},
    "chgk": {"mode", "title", "teams", "tours"},
    "own-game": {"mode", "title", "teams", "pack"},
    "brain-ring": {"mode", "title", "teams"},
}
FIGHT_KEYS = {"type", "themes", "questions"}
QUESTION_KEYS = {"round", "nominal", "text", "answer"}
TOUR_KEYS = {"title", "questions"}
TOUR_QUESTION_KEYS = {"text", "answer"}


def _show(v: Any) -> str:
    return repr(v) if not isinstance(v, str) else f'"{v}"'


def _name(value: Any, path: str, what: str = "name") -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(path, f"expected a non-empty {what}, got {_show(value)}")
    value = value.strip()
    if len(value) > MAX_NAME:
        raise ConfigError(path, f"at most {MAX_NAME} characters, got {len(value)}")
    return value


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(path, f"expected a string, got {_show(value)}")
    if len(value) > MAX_TEXT:
        raise ConfigError(path, f"at most {MAX_TEXT} characters, got {len(value)}")
    return value


def _table_list(value: Any, path: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise ConfigError(path, "expected an array of tables")
    return value


def _unknown(table: Mapping, allowed: set, path: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise ConfigError(f"{path}.{extra[0]}" if path else extra[0],
                          f"unknown key; allowed: {', '.join(sorted(allowed))}")


# ---------------------------------------------------------------------------
# checking a parsed file

def _team(t: dict, i: int) -> dict:
    path = f"teams[{i}]"
    _unknown(t, TEAM_KEYS, path)
    out = {"name": _name(t.get("name"), f"{path}.name")}
    players = t.get("players", [])
    if not isinstance(players, list):
        raise ConfigError(f"{path}.players", "expected a list of player names")
    if len(players) > MAX_PLAYERS:
        raise ConfigError(f"{path}.players", f"at most {MAX_PLAYERS} players on an entry (seed §2.4), "
                          f"got {len(players)}")
    names: list[str] = []
    for j, p in enumerate(players):
        name = _name(p, f"{path}.players[{j}]", "player name")
        if name.casefold() in (n.casefold() for n in names):
            raise ConfigError(f"{path}.players[{j}]", f"player {name!r} is named twice in the team")
        names.append(name)
    out["players"] = names
    for key in ("button", "key", "color"):
        if key in t:
            out[key] = t[key]      # checked with the config's own [[teams]] rules
    if "sound" in t:
        out["sound"] = _name(t["sound"], f"{path}.sound", "sound name or WAV file")
    return out


def _erudite_fights(fights: Any, path: str) -> list[dict]:
    out = []
    for k, f in enumerate(_table_list(fights, path)):
        fp = f"{path}[{k}]"
        _unknown(f, FIGHT_KEYS, fp)
        fight: dict[str, Any] = {}
        if "type" in f:
            if f["type"] not in FIGHT_TYPES:
                raise ConfigError(f"{fp}.type", f"unknown fight type {_show(f['type'])}; use light, "
                                  "half-dark or dark")
            fight["type"] = f["type"]
        themes = f.get("themes", [])
        if not isinstance(themes, list):
            raise ConfigError(f"{fp}.themes", "expected a list of the rounds' themes")
        fight["themes"] = [_name(x, f"{fp}.themes[{r}]", "theme") for r, x in enumerate(themes)]
        questions = []
        seen = set()
        for q_i, q in enumerate(_table_list(f.get("questions", []), f"{fp}.questions")):
            qp = f"{fp}.questions[{q_i}]"
            _unknown(q, QUESTION_KEYS, qp)
            rnd, nominal = q.get("round"), q.get("nominal")
            if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
                raise ConfigError(f"{qp}.round", f"expected a round number from 1, got {_show(rnd)}")
            if not isinstance(nominal, int) or isinstance(nominal, bool) or nominal <= 0:
                raise ConfigError(f"{qp}.nominal", f"expected a whole number > 0, got {_show(nominal)}")
            if (rnd, nominal) in seen:
                raise ConfigError(qp, f"round {rnd} has two questions of {nominal}")
            seen.add((rnd, nominal))
            questions.append({"round": rnd, "nominal": nominal, "text": _text(q.get("text", ""), f"{qp}.text"),
                              "answer": _text(q.get("answer", ""), f"{qp}.answer")})
        fight["questions"] = questions
        out.append(fight)
    return out


def _chgk_tours(tours: Any, path: str) -> list[dict]:
    out = []
    for k, tour in enumerate(_table_list(tours, path)):
        tp = f"{path}[{k}]"
        _unknown(tour, TOUR_KEYS, tp)
        qs = []
        for q_i, q in enumerate(_table_list(tour.get("questions", []), f"{tp}.questions")):
            _unknown(q, TOUR_QUESTION_KEYS, f"{tp}.questions[{q_i}]")
            qs.append({"text": _text(q.get("text", ""), f"{tp}.questions[{q_i}].text"),
                       "answer": _text(q.get("answer", ""), f"{tp}.questions[{q_i}].answer")})
        out.append({"title": _name(tour["title"], f"{tp}.title", "title") if "title" in tour else "",
                    "questions": qs})
    return out


def _game(g: dict, i: int, team_names: list[str], base: Path | None) -> dict:
    path = f"games[{i}]"
    mode = g.get("mode")
    if mode not in GAME_MODES:
        raise ConfigError(f"{path}.mode", f"expected one of {', '.join(GAME_MODES)}, got {_show(mode)}")
    _unknown(g, GAME_KEYS[mode], path)
    out: dict[str, Any] = {"mode": mode, "title": _name(g["title"], f"{path}.title", "title") if "title" in g else ""}
    teams = g.get("teams", team_names)
    if not isinstance(teams, list) or not teams:
        raise ConfigError(f"{path}.teams", "expected a list of team names")
    for j, name in enumerate(teams):
        if name not in team_names:
            raise ConfigError(f"{path}.teams[{j}]", f"no team {_show(name)} in [[teams]]")
        if teams.index(name) != j:
            raise ConfigError(f"{path}.teams[{j}]", f"team {name!r} is named twice")
    out["teams"] = list(teams)
    if mode == "erudite":
        out["fights"] = _erudite_fights(g.get("fights", []), f"{path}.fights")
    elif mode == "chgk":
        out["tours"] = _chgk_tours(g.get("tours", []), f"{path}.tours")
    elif mode == "own-game" and "pack" in g:
        pack = g["pack"]
        if not isinstance(pack, str) or not pack.strip():
            raise ConfigError(f"{path}.pack", f"expected the path of a .siq file, got {_show(pack)}")
        p = Path(pack).expanduser()
        if base is not None and not p.is_absolute():
            p = base / p
        out["pack"] = str(p)   # read by the Своя игра package reader, not here
    return out


def check(data: Mapping[str, Any], base: Path | None = None) -> dict:
    """Check a parsed event file; return it normalised (pure: no file is opened).

    ``base`` is the folder relative paths (a package, a sound file) are taken from."""
    _unknown(data, {"title", "teams", "games"}, "")
    title = _name(data["title"], "title", "title") if "title" in data else ""
    teams = [_team(t, i) for i, t in enumerate(_table_list(data.get("teams", []), "teams"))]
    if not teams:
        raise ConfigError("teams", "an event needs at least one [[teams]] entry")
    names = [t["name"] for t in teams]
    for i, n in enumerate(names):
        if names.index(n) != i:
            raise ConfigError(f"teams[{i}].name", f"duplicate team name {n!r}")
    for t in teams:
        snd = t.get("sound")
        if snd and snd.lower().endswith(".wav") and base is not None and not Path(snd).is_absolute():
            t["sound"] = str(base / snd)
    games = [_game(g, i, names, base) for i, g in enumerate(_table_list(data.get("games", []), "games"))]
    return {"title": title, "teams": teams, "games": games}


def parse_file(path: str | Path) -> dict:
    """Read and check an event file; a problem names the file and the key."""
    p = Path(path)
    source = str(path)
    try:
        if not p.exists():
            raise ConfigError("", "event file not found", source)
        if p.is_dir():
            raise ConfigError("", "is a folder, not an event file", source)
        if p.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError("", f"larger than {MAX_FILE_BYTES // 1000} kB; is it an event file?", source)
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError("", "not UTF-8 text", source) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", f"bad TOML: {exc}", source) from None
    except OSError as exc:
        raise ConfigError("", f"cannot read: {exc.strerror}", source) from None
    try:
        out = check(data, p.resolve().parent)
    except ConfigError as exc:
        raise ConfigError(exc.key, exc.problem, source) from None
    out["source"] = str(p.resolve())
    return out


def looks_like_event(data: Mapping[str, Any]) -> bool:
    """A parsed TOML that is an event file rather than a config (it has ``[[games]]``,
    or teams whose ``players`` are names)."""
    if "games" in data:
        return True
    teams = data.get("teams")
    return isinstance(teams, list) and any(isinstance(t, dict) and isinstance(t.get("players"), list)
                                           for t in teams)


def choose_game(event: dict, mode: str, number: int = 0) -> tuple[int, dict | None]:
    """The event's game for a config of ``mode``: game ``number`` (1-based) if given,
    else the first game of that mode; ``(0, None)`` when it has none."""
    if number:
        if not 1 <= number <= len(event["games"]):
            raise ConfigError("event_game", f"the event file has {len(event['games'])} games, got {number}")
        g = event["games"][number - 1]
        if g["mode"] != mode:
            raise ConfigError("event_game", f"game {number} of the event file is {g['mode']}, "
                              f"the config plays {mode}")
        return number, g
    for i, g in enumerate(event["games"]):
        if g["mode"] == mode:
            return i + 1, g
    return 0, None


def apply(cfg: dict, event: dict, build) -> dict:
    """A config that plays ``event``: its chosen game under ``cfg["event"]`` and the
    game's teams as ``[[teams]]`` (their buttons, keys and colours as the event or the
    defaults give them; ``players`` is the entry's size).  ``build`` is
    :func:`controller.app.config.build` (passed in so this module imports no shell)."""
    number, game = choose_game(event, cfg["mode"], cfg.get("event_game", 0))
    by_name = {t["name"]: t for t in event["teams"]}
    chosen = game["teams"] if game is not None else [t["name"] for t in event["teams"]]
    if cfg["mode"] in ("mafia", "programme"):
        raise ConfigError("event_file", f"an event file is not used in mode {cfg['mode']}")
    teams = []
    for name in chosen:
        t = by_name[name]
        row = {k: t[k] for k in ("name", "button", "key", "color", "sound") if k in t}
        if t["players"]:
            row["players"] = len(t["players"])
        teams.append(row)
    try:
        out = build({"teams": teams}, base=cfg)
    except ConfigError as exc:
        # the teams came from the event file: name them as it does
        key = exc.key
        if key.startswith("teams[") and "]" in key:
            i = int(key[6:key.index("]")])
            key = f"teams[{[t['name'] for t in event['teams']].index(chosen[i])}]" + key[key.index("]") + 1:]
        raise ConfigError(key, exc.problem, event.get("source")) from None
    if game is not None and game["mode"] == "erudite":
        try:
            _fit_erudite(out, game, number)
        except ConfigError as exc:
            raise ConfigError(exc.key, exc.problem, event.get("source")) from None
    for row in out["teams"]:
        roster = by_name[row["name"]]["players"]
        if roster:
            row["roster"] = list(roster)
    out["event"] = {"title": event["title"], "source": event.get("source", ""), "game_number": number,
                    "game": copy.deepcopy(game) if game is not None else {"mode": cfg["mode"], "title": "",
                                                                         "teams": chosen}}
    return out


def _fit_erudite(cfg: dict, game: dict, number: int) -> None:
    """The event's fights must fit the config's rules: at most ``rounds_per_fight`` themes
    a fight, questions only in those rounds and of the configured nominals."""
    e = cfg["erudite"]
    for k, f in enumerate(game.get("fights", [])):
        path = f"games[{number - 1}].fights[{k}]"
        if len(f["themes"]) > e["rounds_per_fight"]:
            raise ConfigError(f"{path}.themes", f"{len(f['themes'])} themes, but a fight has "
                              f"{e['rounds_per_fight']} rounds (erudite.rounds_per_fight)")
        for j, q in enumerate(f["questions"]):
            if q["round"] > e["rounds_per_fight"]:
                raise ConfigError(f"{path}.questions[{j}].round", f"a fight has {e['rounds_per_fight']} rounds, "
                                  f"got {q['round']}")
            if q["nominal"] not in e["nominals"]:
                raise ConfigError(f"{path}.questions[{j}].nominal", f"not one of erudite.nominals "
                                  f"({', '.join(map(str, e['nominals']))}), got {q['nominal']}")


def game_of(cfg: Mapping[str, Any]) -> dict | None:
    """The event game a config plays (None: no event file)."""
    ev = cfg.get("event")
    return None if not ev else ev.get("game")


def pack_path(cfg: Mapping[str, Any]) -> str | None:
    """The Своя игра package the event file names for this game (an absolute path), or None."""
    game = game_of(cfg)
    return None if game is None else game.get("pack")
