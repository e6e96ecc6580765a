"""What the audience screen shows, in words and numbers: the decisions both screens share.

The projector scoreboard (:mod:`controller.screens.scoreboard`, pygame) and the
terminal status (:mod:`controller.screens.terminal`, text) draw the same engine *view*
(the plain dict ``engine.view(state, now)`` returns).  What they show is decided
here, once, without pygame: the header's structure (fight · round · fight type,
ЧГК's tour, «Мафия»'s day), what the big panel holds (who answers, else the
countdown, else the captain's timer, else the question, else its outcome), the
numbers in the side column, the countdown's number and colour phase, the team
tags, the standings between rounds, the words of a ruling flash.  The
scoreboard turns these into pixels, the terminal into a few lines of text, so
a state the window shows is never missing from the terminal.
"""

from __future__ import annotations

import os
import sys

from typing import Any, Mapping

from controller import games
from controller.core.screen import Words, countdown_fraction, countdown_phase, countdown_text  # noqa: F401
from controller.games import present
from controller.games.present import (  # noqa: F401  (re-exported: the projector reads views still)
    COUNTDOWN_LABELS, PRESS_TAG_KEYS, TAG_KEYS, TIE_TAG_KEY, TIE_WITHIN_KEY, closed_outcome, countdown_label_key, holder_index,
    info_slots, main_panel, press_numbers, press_order_shown, show_table, team_marks, teams_of, theme, timer_of)
from controller.i18n import MINUS, signed, t  # noqa: F401  (re-exported)
from controller.inputs.keys import PRESSED_TWICE
from controller.games.race import COUNTED  # noqa: F401  (re-exported)

def tie_words(tie_ms: int | None, lang: str) -> str:
    """A tied press's tag: «ничья ±N мс» within the presses' uncertainty, «ничья» for an exact tie."""
    return t(TIE_WITHIN_KEY, lang, ms=tie_ms) if tie_ms else t(TIE_TAG_KEY, lang)


def unc_words(unc_ms: int | None, lang: str) -> str:
    """How sure a press's gap is: «±N мс» for a phone's press, "" for a wired button's exact stamp."""
    return t("press_unc", lang, ms=unc_ms) if unc_ms else ""


def gap_words(ms: float, unc_ms: int | None, lang: str) -> str:
    """A press's gap to the first with its certainty: «+0.120 с ±26 мс» (a phone), «+0.004 с» (wired)."""
    unc = unc_words(unc_ms, lang)
    return fmt_gap(ms, lang) + (" " + unc if unc else "")


FLASH_TEXT = {"captain_time_up": "time_up", "undo": "undone", "fight_over": "winner",
              "answers_closed": "hand_in", "answer_time_up": "time_up"}
"""Flash kind -> i18n key when the two differ."""

SILENT_FLASHES = frozenset({"standings"})
"""Flash kinds the screen shows by other means (the standings table)."""


def display_available() -> bool:
    """A screen to open a window on (else the front ends run in the terminal)."""
    if os.environ.get("SDL_VIDEODRIVER") in ("dummy", "offscreen"):
        return False
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                    or os.environ.get("SDL_VIDEODRIVER") in ("kmsdrm", "fbcon"))
    return True


def mode_title(mode: Any, lang: str) -> str:
    """A game in words: ``mode_title("own-game", "ru")`` gives «Своя игра» (a name that
    is no game is shown as it is)."""
    key = games.title_key(mode)
    return t(key, lang) if key else str(mode)


# --- countdowns ------------------------------------------------------------------

def countdown_label(cd: Mapping[str, Any], lang: str) -> str:
    """What a countdown counts («Время на размышление», «Речь» …); "" when the view does not say."""
    key = countdown_label_key(cd)
    return t(key, lang) if key else ""


# --- numbers -------------------------------------------------------------------------

def fmt_gap(ms: float, lang: str) -> str:
    """Gap to the first press in seconds with ms precision: ``+0.004 с``."""
    s = ms / 1000
    text = f"{abs(s):.3f}"
    sign = "+" if s >= 0 else MINUS
    return t("gap_s", lang, s=sign + text)


def key_label(name: str, lang: str) -> str:
    """A key name (pygame's, as in config ``[keys]``) as the host reads it: «Пробел», «Enter»,
    «Num 0» (the projector's key help and the host page's)."""
    if name == "enter":  # pygame's name of the keypad Enter
        return "Num " + t("key_enter", lang)
    special = {"space": "key_space", "return": "key_enter", "backspace": "key_backspace",
               "escape": "key_escape", "tab": "key_tab", "delete": "key_delete"}
    if name in special:
        return t(special[name], lang)
    if name.startswith("[") and name.endswith("]") and len(name) > 2:
        inner = name[1:-1].replace("-", MINUS)
        return f"Num {inner}"
    if len(name) == 1:
        return name.upper()
    return name.upper() if name.startswith("f") and name[1:].isdigit() else name.capitalize()


def keys_said(labels: list[str], action: str, lang: str) -> str:
    """A key help line's keys as the host reads them (``labels``: :func:`key_label`'s or the
    terminal's), «Esc дважды» where the action acts on a second press only (:data:`PRESSED_TWICE`,
    which the host page's ``twice`` says too): the projector's and the terminal's key help."""
    said = ", ".join(labels)
    return t("web.key_twice", lang, key=said) if said and action in PRESSED_TWICE else said


def button_words(button: str, keys: Mapping[str, str] | None, lang: str) -> str:
    """A player's button as the hall knows it: «Клавиша Q» where the players press keys for their
    buttons (``keys``: button id -> key, the loop's status for the keyboard), else «Кнопка A»."""
    key = (keys or {}).get(button)
    return t("key_name", lang, key=key_label(str(key), lang)) if key else t("button_name", lang, button=button)


def teams_words(buttons, names: Mapping[str, str] | None, lang: str, with_button: bool = False) -> str:
    """Buttons named as the host knows their teams: «Альфа, Бета» (``names``: button id -> its
    team's name now, the loop's status); ``with_button``: each with its button id in brackets,
    for what is a matter of wiring («Гамма (кнопка C)»).  A button of no team stays its id."""
    names = names or {}
    out = []
    for b in buttons:
        b = str(b)
        name = names.get(b)
        if not name or name == b:
            out.append(b)
        elif with_button:
            out.append(t("team_with_button", lang, team=name, button=b))
        else:
            out.append(name)
    return ", ".join(out)


def place_text(row: Any, finished: bool, lang: str) -> str:
    """A standings row's (:class:`~controller.core.screen.StandingRow`) place as every screen shows
    it: a shared place as its range («1–2»), the winner's marked at the end («★ 1»)."""
    if row.shared:
        return str(row.shared)
    return f"{t('mark_best', lang)} {row.place}" if finished and row.place == 1 else str(row.place)


def fmt_score(n: Any) -> str:
    if isinstance(n, (int, float)) and not isinstance(n, bool):
        if isinstance(n, float) and n.is_integer():
            n = int(n)
        return signed(n) if n < 0 else (f"{n:g}" if isinstance(n, float) else str(n))
    return str(n)


# --- what goes where: decided by the game's screen (controller/games/present.py) -------------

def say(words: Words | None, lang: str) -> str:
    """A model's :class:`~controller.core.screen.Words` in ``lang`` ("" for None)."""
    return words.render(t, lang) if words is not None else ""


def says(parts, lang: str) -> str:
    """Several :class:`~controller.core.screen.Words` as one line, with the separator between."""
    return t("separator", lang).join(say(w, lang) for w in parts)


def structure(view: Mapping[str, Any], lang: str) -> str:
    """The header's second line as the game presents it (its screen model's
    :attr:`~controller.core.screen.Header.structure`: fight · round · fight type, a tour, a day;
    the game's title when it has no structure)."""
    return says(games.screen_of(dict(view)).header.structure, lang)


def series_head(view: Mapping[str, Any], lang: str) -> str:
    """Which game of a programme is on («Игра 2 из 3»), "" outside one."""
    return say(present.series_head(view), lang)


def series_total(tm: Mapping[str, Any], lang: str) -> str:
    """A team's running total in a programme («Всего 35»), "" outside one."""
    total = tm.get("series_total")
    return "" if total is None else f"{t('series_total', lang)} {fmt_score(total)}"


def standings_title(view: Mapping[str, Any], lang: str) -> str:
    """The standings table's title: «Итоги программы» at a programme's end, else «Итоги»."""
    return t("series_standings" if (view.get("series") or {}).get("finished") else "standings", lang)


def question_head(q: Mapping[str, Any], lang: str) -> str:
    """How a view's question is named, the same on the screen and in the terminal:
    «Вопрос 2/5» (its place in the round) where the mode has rounds, else «Вопрос № 7»
    (or its label, «Вопрос № 2.5»), or «Вопрос»."""
    return say(present.question_head(q), lang)


def fight_over_words(result: Mapping[str, Any], lang: str) -> tuple[str, str | None, str]:
    """A finished fight as both screens say it: («Окончен бой 1», the winner's name or None
    when it was stopped with no winner, the points «3 : 1», the winner's first, then the most)."""
    head, winner, points = present.fight_over(result)
    return say(head, lang), winner, " : ".join(fmt_score(p) for p in points)


def flash_dict(kind: str, team: str | None, text: Words | None = None, line: Words | None = None,
                tone: str | None = None) -> dict:
    """A flash as the screens get it: ``{"kind", "team"}``, plus the game's own words for it
    (``text``, ``line``: :class:`~controller.core.screen.Words`) and its ``tone`` when its
    :class:`~controller.core.effects.Flash` says them."""
    out: dict[str, Any] = {"kind": kind, "team": team}
    out.update((k, v) for k, v in (("text", text), ("line", line), ("tone", tone)) if v is not None)
    return out


def flash_words(flash: Mapping[str, Any], lang: str) -> tuple[str, str | None]:
    """A ruling flash's (big text, the line under it): («Верно», «Альфа»), («Время!», «Время капитана») …;
    a flash whose game says its words (``text``, and ``line`` or none) shows those."""
    kind = str(flash.get("kind", ""))
    team = flash.get("team")
    own = flash.get("text")
    if isinstance(own, Words):
        line = flash.get("line")
        return say(own, lang), (say(line, lang) if isinstance(line, Words) else None)
    if kind == "fight_over" and not team:   # stopped before anyone reached the fight's points
        return t("fight_no_winner", lang), None
    text = t(FLASH_TEXT.get(kind, kind), lang)
    if kind == "captain_time_up":
        team = t("captain_timer", lang)
    return text, (str(team) if team else None)


def final_board_line(pack: Mapping[str, Any], lang: str) -> str:
    """Under the final's board, in words (:func:`controller.games.present.final_prompt`)."""
    return say(present.final_prompt(pack), lang)


def pack_phase_lines(q: Mapping[str, Any], pack: Mapping[str, Any], lang: str) -> list[str]:
    """A package question's stage in words (a cat given, the bids, «без риска», everyone's
    stakes and answers): the lines above its text, on the projector and in the terminal."""
    return [say(w, lang) for w in present.pack_phase(q, pack)]
