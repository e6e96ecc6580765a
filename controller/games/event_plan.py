"""What each game reads from the organiser's event file (controller/content/event.py,
docs/event-file.md): the keys of its ``[[games]]`` table and their checks.

Pure: data in, data (or a :class:`~controller.core.errors.ConfigError` naming the key)
out.  The event file's own parts (teams, players) are checked in controller/content;
what is played (Эрудит-квартет fights with themes, ЧГК tours, a Своя игра package)
lives here, with the games: the plans they are made of (:data:`FIGHTS`, :data:`TOURS`,
:data:`PACK`, :data:`QUESTIONS`).  Each game declares its own as its ``event_file``
(:attr:`controller.games.base.Game.event_file`); an event file may name the games that do
(:func:`controller.games.event_plans`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from controller.core.errors import ConfigError
from controller.i18n import Text

MAX_TEXT = 2000
"""Longest text (a question, an answer) taken from the file."""

MAX_NAME = 60
"""Longest team, player, theme or title name."""

FIGHT_TYPES = ("light", "half-dark", "dark")
FIGHT_KEYS = {"type", "themes", "questions"}
EXTRA_TEXT_KEYS = ("accepted", "not_accepted", "comment", "source", "author")
"""A question's optional texts besides its text and answer (a 4s pack gives them: accepted answers, comment ...)."""
QUESTION_KEYS = {"round", "nominal", "text", "answer", "handouts", *EXTRA_TEXT_KEYS}
TOUR_KEYS = {"title", "questions"}
TOUR_QUESTION_KEYS = {"text", "answer", "handouts", *EXTRA_TEXT_KEYS}
MAX_HANDOUTS = 20


def _show(v: Any) -> str:
    return repr(v) if not isinstance(v, str) else f'"{v}"'


WHAT_KEYS = {"name": "event.what_name", "title": "event.what_title", "player name": "event.what_player",
             "theme": "event.what_theme", "city": "event.what_city", "sound name or WAV file": "event.what_sound"}
"""What :func:`_name` checks, in English -> the catalog key of its words (the error line
is in the host's language)."""


def _name(value: Any, path: str, what: str = "name") -> str:
    if not isinstance(value, str) or not value.strip():
        said = Text(WHAT_KEYS[what]) if what in WHAT_KEYS else what
        raise ConfigError(path, Text("event.nonempty", what=said, got=_show(value)))
    value = value.strip()
    if len(value) > MAX_NAME:
        raise ConfigError(path, Text("event.too_long", most=MAX_NAME, got=len(value)))
    return value


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(path, Text("event.expected_string", got=_show(value)))
    if len(value) > MAX_TEXT:
        raise ConfigError(path, Text("event.too_long", most=MAX_TEXT, got=len(value)))
    return value


def _table_list(value: Any, path: str) -> list[dict]:
    if not isinstance(value, list) or not all(isinstance(x, dict) for x in value):
        raise ConfigError(path, Text("event.table_array"))
    return value


def _unknown(table: Mapping, allowed: set, path: str) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise ConfigError(f"{path}.{extra[0]}" if path else extra[0],
                          Text("event.unknown_key", allowed=", ".join(sorted(allowed))))


def _erudite_fights(fights: Any, path: str) -> list[dict]:
    """The fights of an Эрудит-квартет game: type, themes, questions."""
    out = []
    for k, f in enumerate(_table_list(fights, path)):
        fp = f"{path}[{k}]"
        _unknown(f, FIGHT_KEYS, fp)
        fight: dict[str, Any] = {}
        if "type" in f:
            if f["type"] not in FIGHT_TYPES:
                raise ConfigError(f"{fp}.type", Text("event.fight_type", got=_show(f["type"])))
            fight["type"] = f["type"]
        themes = f.get("themes", [])
        if not isinstance(themes, list):
            raise ConfigError(f"{fp}.themes", Text("event.themes_list"))
        fight["themes"] = [_name(x, f"{fp}.themes[{r}]", "theme") for r, x in enumerate(themes)]
        questions = []
        seen = set()
        for q_i, q in enumerate(_table_list(f.get("questions", []), f"{fp}.questions")):
            qp = f"{fp}.questions[{q_i}]"
            _unknown(q, QUESTION_KEYS, qp)
            rnd, nominal = q.get("round"), q.get("nominal")
            if not isinstance(rnd, int) or isinstance(rnd, bool) or rnd < 1:
                raise ConfigError(f"{qp}.round", Text("event.round_number", got=_show(rnd)))
            if not isinstance(nominal, int) or isinstance(nominal, bool) or nominal <= 0:
                raise ConfigError(f"{qp}.nominal", Text("event.nominal", got=_show(nominal)))
            if (rnd, nominal) in seen:
                raise ConfigError(qp, Text("event.two_questions", round=rnd, nominal=nominal))
            seen.add((rnd, nominal))
            questions.append({"round": rnd, "nominal": nominal, **_question(q, qp)})
        fight["questions"] = questions
        out.append(fight)
    return out


def _question(q: dict, qp: str) -> dict:
    """A question's texts: ``text`` and ``answer`` (always), the optional ones when given
    (accepted answers, comment, source, author) and its handouts' names."""
    out = {"text": _text(q.get("text", ""), f"{qp}.text"), "answer": _text(q.get("answer", ""), f"{qp}.answer")}
    for key in EXTRA_TEXT_KEYS:
        if key in q:
            out[key] = _text(q[key], f"{qp}.{key}")
    if "handouts" in q:
        h = q["handouts"]
        if not isinstance(h, list) or len(h) > MAX_HANDOUTS:
            raise ConfigError(f"{qp}.handouts", Text("event.handouts_list", most=MAX_HANDOUTS))
        out["handouts"] = [_text(x, f"{qp}.handouts[{j}]") for j, x in enumerate(h)]
    return out


def host_extras(q: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A question's optional texts as ``(key, value)`` pairs for a game's rules (hashable), in
    the order the host reads them: accepted and not accepted answers, comment, source, author,
    handouts (a tuple of names)."""
    out = [(k, q[k]) for k in EXTRA_TEXT_KEYS if q.get(k)]
    if q.get("handouts"):
        out.append(("handouts", tuple(q["handouts"])))
    return tuple(out)


def host_view(text: str, answer: str, extras: tuple = ()) -> dict:
    """The ``host`` part of a game's view for a question from the event file: ``question_text``,
    ``answer`` and its optional texts (``handouts`` as a list)."""
    out: dict[str, Any] = {"question_text": text, "answer": answer}
    out.update({k: list(v) if k == "handouts" else v for k, v in extras})
    return out


def _brain_ring_questions(qs: Any, path: str) -> list[dict]:
    out = []
    for q_i, q in enumerate(_table_list(qs, path)):
        _unknown(q, TOUR_QUESTION_KEYS, f"{path}[{q_i}]")
        out.append(_question(q, f"{path}[{q_i}]"))
    return out


def _chgk_tours(tours: Any, path: str) -> list[dict]:
    out = []
    for k, tour in enumerate(_table_list(tours, path)):
        tp = f"{path}[{k}]"
        _unknown(tour, TOUR_KEYS, tp)
        qs = []
        for q_i, q in enumerate(_table_list(tour.get("questions", []), f"{tp}.questions")):
            _unknown(q, TOUR_QUESTION_KEYS, f"{tp}.questions[{q_i}]")
            qs.append(_question(q, f"{tp}.questions[{q_i}]"))
        out.append({"title": _name(tour["title"], f"{tp}.title", "title") if "title" in tour else "",
                    "questions": qs})
    return out




def _own_game_pack(g: dict, path: str, base: str | None) -> dict:
    """A Своя игра package: its path, relative to the event file (read by the package reader)."""
    if "pack" not in g:
        return {}
    pack = g["pack"]
    if not isinstance(pack, str) or not pack.strip():
        raise ConfigError(f"{path}.pack", Text("event.expected_siq_path", got=_show(pack)))
    pack = pack.strip()
    if base is not None and not pack.startswith(("/", "~")):
        pack = base.rstrip("/") + "/" + pack
    return {"pack": pack}


class PackError(ConfigError):
    """A 4s pack that does not fit a game (its message names the pack's line)."""

    def __init__(self, problem: Text):
        super().__init__("", problem)


FIELD_NAMES = {"text": "fours.field_text", "answer": "fours.field_answer", "accepted": "fours.field_accepted",
               "not_accepted": "fours.field_not_accepted", "comment": "fours.field_comment",
               "source": "fours.field_source", "author": "fours.field_author", "handouts": "fours.field_handout"}
"""A 4s question's field -> the catalog key of its name in an error line («the answer («!»)»)."""


def _line(n: int, problem: Text) -> Text:
    """A pack's problem at its line ``n``: «line 12: …» in the host's language."""
    return Text("fours.at_line", line=Text("fours.line", n=n), problem=problem)


def _fits(pack: Any, titles: bool) -> None:
    """The pack's texts within the event file's limits, checked where the pack has them: a
    :class:`PackError` naming the pack's line (``titles``: the game shows its tours' titles)."""
    for t in pack.tours:
        if titles and t.questions and len(t.title) > MAX_NAME:
            raise PackError(_line(t.line, Text("fours.title_too_long", most=MAX_NAME, got=len(t.title))))
        for q in t.questions:
            if len(q.handouts) > MAX_HANDOUTS:
                raise PackError(_line(q.line, Text("fours.too_many_handouts", most=MAX_HANDOUTS, got=len(q.handouts))))
            for key, value in q.as_dict().items():
                for v in value if key == "handouts" else [value]:
                    if len(v) > MAX_TEXT:
                        raise PackError(_line(q.lines.get(key, q.line), Text(
                            "fours.field_too_long", field=Text(FIELD_NAMES[key]), most=MAX_TEXT, got=len(v))))


def _chgk_from_4s(pack: Any, cfg_defaults: Mapping[str, Any]) -> dict:
    """ЧГК: one tour per ``##`` of the pack (a pack without tours: one tour)."""
    _fits(pack, titles=True)
    return {"tours": [{**({"title": t.title} if t.title else {}), "questions": [q.as_dict() for q in t.questions]}
                      for t in pack.tours if t.questions]}


def _brain_ring_from_4s(pack: Any, cfg_defaults: Mapping[str, Any]) -> dict:
    """Брейн-ринг: every question of the pack in order (question 1 is the first)."""
    _fits(pack, titles=False)
    return {"questions": [q.as_dict() for q in pack.questions]}


def _erudite_from_4s(pack: Any, cfg_defaults: Mapping[str, Any]) -> dict:
    """Эрудит-квартет: each ``##`` is a round's theme, ``rounds_per_fight`` themes a fight; a
    theme's questions are its nominals in order, or the nominal its ``№`` gives."""
    nominals = tuple(cfg_defaults.get("nominals", (10, 20, 30, 40, 50)))
    per_fight = int(cfg_defaults.get("rounds_per_fight", 4))
    _fits(pack, titles=True)
    fights: list[dict] = []
    for k, t in enumerate(x for x in pack.tours if x.questions):
        if not t.title:
            raise PackError(_line(t.line, Text("fours.erudite_untitled")))
        if k % per_fight == 0:
            fights.append({"themes": [], "questions": []})
        fight = fights[-1]
        fight["themes"].append(t.title)
        for j, q in enumerate(t.questions):
            if q.number.isdigit():
                nominal = int(q.number)
            elif j < len(nominals):
                nominal = nominals[j]
            else:
                raise PackError(_line(q.line, Text("fours.more_than_nominals", theme=repr(t.title),
                                                     nominals=", ".join(map(str, nominals)))))
            fight["questions"].append({"round": len(fight["themes"]), "nominal": nominal, **q.as_dict()})
    return {"fights": fights}


@dataclass(frozen=True)
class Plan:
    """One game's part of a ``[[games]]`` table."""

    keys: frozenset
    """Keys besides ``mode``, ``title``, ``teams``."""
    check: Callable[[dict, str, "str | None"], dict]
    """(table, its key path, the event file's folder) -> the checked keys."""
    fit: Callable[[dict, dict, int], None] = lambda cfg, game, number: None
    """(config, checked game, its 1-based number): check the game against the config's rules."""
    from_4s: "Callable[[Any, Mapping], dict] | None" = None
    """(a parsed 4s pack, the game's default settings) -> the keys the pack gives the game
    (``questions_4s``); None: the game takes no 4s pack."""


FIGHTS = Plan(frozenset({"fights"}), lambda g, path, base: {
    "fights": _erudite_fights(g.get("fights", []), f"{path}.fights")}, from_4s=_erudite_from_4s)
"""Эрудит-квартет's fights: type, themes, questions (its game adds its ``fit``)."""

TOURS = Plan(frozenset({"tours"}), lambda g, path, base: {
    "tours": _chgk_tours(g.get("tours", []), f"{path}.tours")}, from_4s=_chgk_from_4s)
"""ЧГК's tours: a title and questions each."""

PACK = Plan(frozenset({"pack"}), _own_game_pack)
"""Своя игра's SIGame package: its path."""

QUESTIONS = Plan(frozenset({"questions"}), lambda g, path, base: {
    "questions": _brain_ring_questions(g["questions"], f"{path}.questions")} if "questions" in g else {},
    from_4s=_brain_ring_from_4s)
"""Брейн-ринг's questions in order."""
