"""What each game reads from the organiser's event file (controller/content/event.py,
docs/event-file.md): the keys of its ``[[games]]`` table and their checks.

Pure: data in, data (or a :class:`~controller.core.errors.ConfigError` naming the key)
out.  The event file's own parts (teams, players) are checked in controller/content;
what is played (Эрудит-квартет fights with themes, ЧГК tours, a Своя игра package)
lives here, with the games.  Adding a game's plan: a :class:`Plan` in :data:`PLANS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from controller.core.errors import ConfigError

MAX_TEXT = 2000
"""Longest text (a question, an answer) taken from the file."""

MAX_NAME = 60
"""Longest team, player, theme or title name."""

FIGHT_TYPES = ("light", "half-dark", "dark")
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


def _erudite_fights(fights: Any, path: str) -> list[dict]:
    """The fights of an Эрудит-квартет game: type, themes, questions."""
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




def _erudite_fit(cfg: dict, game: dict, number: int) -> None:
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


def _own_game_pack(g: dict, path: str, base: str | None) -> dict:
    """A Своя игра package: its path, relative to the event file (read by the package reader)."""
    if "pack" not in g:
        return {}
    pack = g["pack"]
    if not isinstance(pack, str) or not pack.strip():
        raise ConfigError(f"{path}.pack", f"expected the path of a .siq file, got {_show(pack)}")
    pack = pack.strip()
    if base is not None and not pack.startswith(("/", "~")):
        pack = base.rstrip("/") + "/" + pack
    return {"pack": pack}


@dataclass(frozen=True)
class Plan:
    """One game's part of a ``[[games]]`` table."""

    keys: frozenset
    """Keys besides ``mode``, ``title``, ``teams``."""
    check: Callable[[dict, str, "str | None"], dict]
    """(table, its key path, the event file's folder) -> the checked keys."""
    fit: Callable[[dict, dict, int], None] = lambda cfg, game, number: None
    """(config, checked game, its 1-based number): check the game against the config's rules."""


PLANS: dict[str, Plan] = {
    "erudite": Plan(frozenset({"fights"}), lambda g, path, base: {
        "fights": _erudite_fights(g.get("fights", []), f"{path}.fights")}, _erudite_fit),
    "chgk": Plan(frozenset({"tours"}), lambda g, path, base: {
        "tours": _chgk_tours(g.get("tours", []), f"{path}.tours")}),
    "own-game": Plan(frozenset({"pack"}), _own_game_pack),
    "brain-ring": Plan(frozenset(), lambda g, path, base: {}),
}
"""The games an event file may name, with what each reads from it."""
