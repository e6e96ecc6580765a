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
from controller.i18n import Text
from controller.games import catalog, event_plan
from controller.games.event_plan import MAX_NAME, MAX_TEXT, _name, _table_list, _text, _unknown  # noqa: F401
from controller.games.event_plan import _show

MAX_PLAYERS = 8
"""Players on a team's entry [seed §2.4]."""

MAX_FILE_BYTES = 2_000_000
"""An event file larger than this is refused (it is a few kilobytes in practice)."""

TEAM_KEYS = {"name", "players", "button", "key", "color", "sound", "phone", "rating_id", "city"}

MAX_RATING_ID = 10_000_000
"""Highest team ID the rating site's numbers reach (a sanity bound, far above today's)."""
GAME_KEYS = {"mode", "title", "teams"}


def _team(t: dict, i: int) -> dict:
    path = f"teams[{i}]"
    _unknown(t, TEAM_KEYS, path)
    out = {"name": _name(t.get("name"), f"{path}.name")}
    players = t.get("players", [])
    if not isinstance(players, list):
        raise ConfigError(f"{path}.players", Text("event.players_list"))
    if len(players) > MAX_PLAYERS:
        raise ConfigError(f"{path}.players", Text("event.too_many_players", most=MAX_PLAYERS, got=len(players)))
    names: list[str] = []
    for j, p in enumerate(players):
        name = _name(p, f"{path}.players[{j}]", "player name")
        if name.casefold() in (n.casefold() for n in names):
            raise ConfigError(f"{path}.players[{j}]", Text("event.player_twice", name=repr(name)))
        names.append(name)
    out["players"] = names
    for key in ("button", "key", "color", "phone"):
        if key in t:
            out[key] = t[key]      # checked with the config's own [[teams]] rules
    if "sound" in t:
        out["sound"] = _name(t["sound"], f"{path}.sound", "sound name or WAV file")
    if "rating_id" in t:
        rid = t["rating_id"]
        if isinstance(rid, bool) or not isinstance(rid, int) or not 1 <= rid <= MAX_RATING_ID:
            raise ConfigError(f"{path}.rating_id", Text("event.rating_id", most=MAX_RATING_ID, got=_show(rid)))
        out["rating_id"] = rid
    if "city" in t:
        out["city"] = _name(t["city"], f"{path}.city", "city")
    return out


def _game(g: dict, i: int, team_names: list[str], base: Path | None) -> dict:
    path = f"games[{i}]"
    mode = g.get("mode")
    plans = catalog.event_plans()
    if mode not in plans:
        raise ConfigError(f"{path}.mode", Text("event.mode", choices=", ".join(plans), got=_show(mode)))
    plan = plans[mode]
    _unknown(g, GAME_KEYS | plan.keys, path)
    out: dict[str, Any] = {"mode": mode, "title": _name(g["title"], f"{path}.title", "title") if "title" in g else ""}
    teams = g.get("teams", team_names)
    if not isinstance(teams, list) or not teams:
        raise ConfigError(f"{path}.teams", Text("event.teams_list"))
    for j, name in enumerate(teams):
        if name not in team_names:
            raise ConfigError(f"{path}.teams[{j}]", Text("event.no_team", team=_show(name)))
        if teams.index(name) != j:
            raise ConfigError(f"{path}.teams[{j}]", Text("event.team_twice", team=repr(name)))
    out["teams"] = list(teams)
    out.update(plan.check(g, path, str(base) if base is not None else None))
    return out


def check(data: Mapping[str, Any], base: Path | None = None) -> dict:
    """Check a parsed event file; return it normalised (pure: no file is opened).

    ``base`` is the folder relative paths (a package, a sound file) are taken from."""
    _unknown(data, {"title", "teams", "games"}, "")
    title = _name(data["title"], "title", "title") if "title" in data else ""
    teams = [_team(t, i) for i, t in enumerate(_table_list(data.get("teams", []), "teams"))]
    if not teams:
        raise ConfigError("teams", Text("event.no_teams"))
    names = [t["name"] for t in teams]
    for i, n in enumerate(names):
        if names.index(n) != i:
            raise ConfigError(f"teams[{i}].name", Text("event.duplicate_team", team=repr(n)))
    ids = [t.get("rating_id") for t in teams]
    for i, rid in enumerate(ids):
        if rid is not None and ids.index(rid) != i:
            raise ConfigError(f"teams[{i}].rating_id", Text("event.rating_id_twice", id=rid, team=repr(names[ids.index(rid)])))
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
            raise ConfigError("", Text("event.not_found"), source)
        if p.is_dir():
            raise ConfigError("", Text("event.is_folder"), source)
        if p.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError("", Text("event.too_large", kb=MAX_FILE_BYTES // 1000), source)
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ConfigError("", Text("file.not_utf8"), source) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("", Text("event.bad_toml", detail=str(exc)), source) from None
    except OSError as exc:
        raise ConfigError("", Text("file.cannot_read", problem=exc.strerror), source) from None
    try:
        data = with_4s_packs(data, p.resolve().parent)
        out = check(data, p.resolve().parent)
    except ConfigError as exc:
        raise ConfigError(exc.key, exc.problem, source) from None
    out["source"] = str(p.resolve())
    return out


PACK_4S = "questions_4s"
"""A ``[[games]]`` key: a 4s question pack (relative to the event file) that gives the game its
questions (ЧГК tours, Брейн-ринг questions, Эрудит-квартет fights: docs/event-file.md)."""


def with_4s_packs(data: Mapping[str, Any], base: Path) -> Mapping[str, Any]:
    """The event file's data with each game's ``questions_4s`` pack read into its keys."""
    from controller.content import fours

    games = data.get("games")
    if not isinstance(games, list) or not any(isinstance(g, dict) and PACK_4S in g for g in games):
        return data
    out = []
    for i, g in enumerate(games):
        if not isinstance(g, dict) or PACK_4S not in g:
            out.append(g)
            continue
        key = f"games[{i}].{PACK_4S}"
        name = g[PACK_4S]
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(key, Text("event.expected_4s_path", got=repr(name)))
        g = {k: v for k, v in g.items() if k != PACK_4S}
        plan = catalog.event_plans().get(g.get("mode"))
        if plan is None or plan.from_4s is None:
            raise ConfigError(key, Text("event.4s_not_for_mode", games=_4s_games(), mode=repr(g.get("mode"))))
        path = Path(name).expanduser()
        path = path if path.is_absolute() else base / path
        try:
            pack = plan.from_4s(fours.load(path), _defaults(g.get("mode")))
        except (fours.FoursError, event_plan.PackError) as exc:
            # a pack that does not fit the game names the pack's file as a malformed one does
            raise ConfigError(key, ConfigError("", exc.problem, str(path)) if isinstance(exc, ConfigError) else exc) \
                from None
        for own, value in pack.items():
            if own not in g:
                continue
            # the file's own tables may give their types only (the fights' light/dark); the rest is the pack's
            given = g[own] if isinstance(g[own], list) else []
            if not all(isinstance(f, dict) and set(f) <= {"type"} for f in given) or not given:
                raise ConfigError(f"games[{i}].{own}", Text("event.own_and_4s", own=own, pack=PACK_4S))
            for k, f in enumerate(value):
                if k < len(given) and "type" in given[k]:
                    f["type"] = given[k]["type"]
        out.append({**g, **pack})
    return {**data, "games": out}


def _4s_games() -> str:
    """The modes whose games a 4s pack gives questions to, as the event file names them: ``chgk, …``."""
    return ", ".join(mode for mode, plan in catalog.event_plans().items() if plan.from_4s is not None)


def _defaults(mode: Any) -> dict:
    """The default settings of the game ``mode`` (what a 4s pack's questions are laid out by)."""
    try:
        game = catalog.get(mode)
    except Exception:
        return {}
    return {k.name: k.default for sec in game.sections for k in sec.keys}


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
            raise ConfigError("event_game", Text("event.no_such_game", games=len(event["games"]), got=number))
        g = event["games"][number - 1]
        if g["mode"] != mode:
            raise ConfigError("event_game", Text("event.game_mode", number=number, mode=g["mode"], config_mode=mode))
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
    if cfg["mode"] not in catalog.event_plans():
        raise ConfigError("event_file", Text("event.not_used", mode=cfg["mode"]))
    teams = []
    for name in chosen:
        t = by_name[name]
        row = {k: t[k] for k in ("name", "button", "key", "color", "sound", "phone") if k in t}
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
    if game is not None:
        try:
            catalog.event_plans()[game["mode"]].fit(out, game, number)
        except ConfigError as exc:
            raise ConfigError(exc.key, exc.problem, event.get("source")) from None
    for row in out["teams"]:
        roster = by_name[row["name"]]["players"]
        if roster:
            row["roster"] = list(roster)
    out["event"] = {"title": event["title"], "source": event.get("source", ""), "game_number": number,
                    "game": copy.deepcopy(game) if game is not None else {"mode": cfg["mode"], "title": "",
                                                                         "teams": chosen}}
    rating = [{k: by_name[n][k] for k in ("name", "rating_id", "city") if k in by_name[n]} for n in chosen
              if "rating_id" in by_name[n] or "city" in by_name[n]]
    if rating:
        out["event"]["teams"] = rating   # the rating site's IDs and cities (controller/games/rating.py)
    return out


def game_of(cfg: Mapping[str, Any]) -> dict | None:
    """The event game a config plays (None: no event file)."""
    ev = cfg.get("event")
    return None if not ev else ev.get("game")


def pack_path(cfg: Mapping[str, Any]) -> str | None:
    """The Своя игра package the event file names for this game (an absolute path), or None."""
    game = game_of(cfg)
    return None if game is None else game.get("pack")
