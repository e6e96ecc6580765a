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

import math
from typing import Any, Mapping

from controller import games
from controller.i18n import MINUS, signed, t  # noqa: F401  (re-exported)
from controller.games.race import COUNTED

FLASH_TEXT = {"captain_time_up": "time_up", "undo": "undone", "mafia.removed": "removed", "fight_over": "winner",
              "answers_closed": "hand_in", "answer_time_up": "time_up"}
"""Flash kind -> i18n key when the two differ."""

SILENT_FLASHES = frozenset({"standings"})
"""Flash kinds the screen shows by other means (the standings table)."""

TAG_KEYS = {"false_start": "false_start", "early": "early", "blocked": "blocked", "stuck": "stuck",
            "locked": "locked_out", "disqualified": "disqualified", "skipped": "skipped",
            "not_in_tiebreak": "not_in_tiebreak", "not_in_fight": "not_in_fight"}
"""Team card marker -> i18n key of its tag."""

PRESS_TAG_KEYS = {"early": "early", "false_start": "false_start", "blocked": "blocked", "locked": "locked_out",
                  "disabled": "disqualified", "late": "late", "stuck": "stuck"}

TIE_TAG_KEY = "press_tie"
"""The tag of a press with the same edge time as the winner's (``"tie"`` in its row): an exact
tie, decided by lot or by the team order, not by a gap of «+0.000 с»."""
"""Press kind -> i18n key of the tag shown next to it in the press order."""

# COUNTED: the press kinds that took part in the race (numbered in the press order), as the
# button race (controller.games.race) names them -- one definition for the engine and the screens



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


def press_order_shown(view: Mapping[str, Any]) -> bool:
    """The game races for the buttons: the screens show the press order (a game
    without a race says ``"press_order": False`` in its view)."""
    return view.get("press_order", True)

COUNTDOWN_LABELS = {"think": "think_time", "answer": "answer_time", "captain": "captain_timer",
                    "minute": "speech", "defence": "defence", "last_word": "last_word",
                    "discussion": "discussion", "press_window": "think_time", "answers": "hand_in",
                    "main": "think_time", "after_wrong": "think_time"}
"""Countdown kind -> i18n key of its label."""

SEAT_STATUS = {"silenced": "silenced", "removed": "removed", "out": "out"}
"""«Мафия» seat status -> i18n key of its tag."""


# --- countdowns ------------------------------------------------------------------

def countdown_phase(cd: Mapping[str, Any]) -> str:
    """``normal``, ``warn`` (amber), ``last`` (red), ``paused`` or ``over``.

    Short timers (up to 10 s) turn amber at 3 s and red at 1 s; longer ones
    at 10 s and in their last 5 s.  A view may force the warning colour with
    ``"warning": true`` (the Mafia speech timer does).
    """
    left = max(float(cd.get("remaining_ms") or 0.0), 0.0) / 1000
    total = float(cd.get("total_ms") or 0.0) / 1000
    if left <= 0:
        return "over"
    if not cd.get("running", True):
        return "paused"
    warn, last = (3.0, 1.0) if total <= 10 else (10.0, 5.0)
    if left <= last:
        return "last"
    if left <= warn or cd.get("warning"):
        return "warn"
    return "normal"


def stopped_key(view: Mapping[str, Any], cd: Mapping[str, Any]) -> str | None:
    """The words of a countdown that stands still: ``paused`` («Пауза») when the host's pause key
    stopped it (the game is paused, or the timer says so itself: «Мафия»'s speech), else
    ``countdown_stopped`` («Остановлено»: the game stopped it, a team holds the answer).
    None for a countdown that runs or is over."""
    if countdown_phase(cd) != "paused":
        return None
    return "paused" if view.get("paused") or cd.get("state") == "paused" else "countdown_stopped"


def countdown_text(cd: Mapping[str, Any]) -> str:
    """The number shown: whole seconds rounded up (``7`` … ``1``, ``0`` when over);
    ``M:SS`` for timers longer than a minute."""
    left_ms = max(float(cd.get("remaining_ms") or 0.0), 0.0)
    secs = math.ceil(left_ms / 1000 - 1e-9)
    if float(cd.get("total_ms") or 0) > 60_000:
        return f"{secs // 60}:{secs % 60:02d}"
    return str(secs)


def countdown_fraction(cd: Mapping[str, Any]) -> float:
    total = float(cd.get("total_ms") or 0.0)
    if total <= 0:
        return 0.0
    return min(max(float(cd.get("remaining_ms") or 0.0) / total, 0.0), 1.0)


def countdown_label(cd: Mapping[str, Any], lang: str) -> str:
    """What a countdown counts («Время на размышление», «Речь» …); "" when the view does not say."""
    kind = cd.get("kind")
    return t(COUNTDOWN_LABELS.get(kind, kind or "timer"), lang) if kind else ""


def timer_of(view: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The countdown a view shows in the big slot (the question's, or a mode's ``timer``)."""
    cd = view.get("countdown")
    if cd:
        return cd
    tm = view.get("timer")
    if tm and tm.get("state", "running") not in ("idle",) and tm.get("total_ms"):
        return tm
    return None


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


def button_words(button: str, status: Mapping[str, Any] | None, lang: str) -> str:
    """A player's button as the hall knows it: «Клавиша Q» where the players press keys for their
    buttons (the status's ``keys``: button id -> key, the keyboard backend), else «Кнопка A»."""
    key = ((status or {}).get("keys") or {}).get(button)
    return t("key_name", lang, key=key_label(str(key), lang)) if key else t("button_name", lang, button=button)


def fmt_score(n: Any) -> str:
    if isinstance(n, (int, float)) and not isinstance(n, bool):
        if isinstance(n, float) and n.is_integer():
            n = int(n)
        return signed(n) if n < 0 else (f"{n:g}" if isinstance(n, float) else str(n))
    return str(n)


# --- what goes where ----------------------------------------------------------------------

def structure(view: Mapping[str, Any], lang: str) -> str:
    """The header's second line: fight · round · fight type (ЧГК: the tour; «Мафия»: the day);
    the mode's title when the view has no structure."""
    parts = []
    mode = view.get("mode")
    if series_head(view, lang):   # a programme: which of its games is on
        parts.append(series_head(view, lang))
    if view.get("tiebreak"):
        parts.append(t("extra_fight", lang))
    else:
        if view.get("fight") and (view.get("fights") is None or view["fights"] > 1):
            parts.append(t("fight_n", lang, n=view["fight"]))
        if view.get("tour"):
            parts.append(t("tour_n", lang, n=view["tour"]) + (f"/{view['tours']}" if view.get("tours") else ""))
            if view.get("tour_title"):        # the event file's name of the tour
                parts.append(view["tour_title"])
        if view.get("round") and view.get("rounds"):
            parts.append(t("round_n_of", lang, n=view["round"], total=view["rounds"]))
        elif view.get("round"):
            parts.append(t("round_n", lang, n=view["round"]))
        if view.get("fight_type"):
            parts.append(t(view["fight_type"], lang))
    if view.get("day"):
        parts.append(t("day_n", lang, n=view["day"]))
    if not parts and mode:
        parts.append(mode_title(mode, lang))
    return t("separator", lang).join(parts)


def series_head(view: Mapping[str, Any], lang: str) -> str:
    """Which game of a programme is on («Игра 2 из 3»), "" outside one."""
    series = view.get("series") or {}
    return t("series_n_of", lang, n=series.get("round"), of=series["rounds"]) if series.get("rounds") else ""


def series_total(tm: Mapping[str, Any], lang: str) -> str:
    """A team's running total in a programme («Всего 35»), "" outside one."""
    total = tm.get("series_total")
    return "" if total is None else f"{t('series_total', lang)} {fmt_score(total)}"


def standings_title(view: Mapping[str, Any], lang: str) -> str:
    """The standings table's title: «Итоги программы» at a programme's end, else «Итоги»."""
    return t("series_standings" if (view.get("series") or {}).get("finished") else "standings", lang)


def standings_note(view: Mapping[str, Any], lang: str) -> str:
    """What the game says under its final table (the view's ``standings_note``: a catalog key and
    its params; ЧГК: «Поделены места 1–2: их решит перестрелка»), "" when it says nothing."""
    note = view.get("standings_note") or {}
    return t(note["key"], lang, **dict(note.get("params") or {})) if note.get("key") else ""


def place_text(row: Mapping[str, Any], finished: bool, lang: str) -> str:
    """A standings row's place as both screens show it: a shared place as its range («1–2») where
    the game names one, the winner's marked at the end («★ 1»)."""
    label = row.get("place_label")
    if label and row.get("tied"):
        return str(label)
    place = str(row.get("place", ""))
    return f"{t('mark_best', lang)} {place}" if finished and row.get("place") == 1 else place


def theme(view: Mapping[str, Any]) -> str | None:
    return view.get("theme") or ((view.get("question") or {}).get("theme"))


def show_table(view: Mapping[str, Any]) -> bool:
    """The full standings table: at the end, and between rounds."""
    if not view.get("standings"):
        return False
    if view.get("stage") == "finished" or view.get("show_standings"):
        return True
    q = view.get("question")
    # after the round's last question; not a withdrawn one: its replacement comes next
    if q and not q.get("open") and q.get("closed") != "withdrawn" and q.get("of") \
            and q.get("index", 0) >= q["of"] \
            and not view.get("countdown") and not (view.get("captain") or {}).get("running"):
        return True
    return False


def holder_index(view: Mapping[str, Any]) -> int | None:
    """The team holding the answer right, by its index in ``teams``."""
    return next((i for i, tm in enumerate(teams_of(view)) if tm.get("holder")), None)


def teams_of(view: Mapping[str, Any]) -> list:
    """The teams (Своя игра: the players) of a view, in the order of their cards."""
    return list(view.get("teams") or view.get("players") or ())


def main_panel(view: Mapping[str, Any]) -> str:
    """What the big panel shows: ``holder`` (who answers), ``countdown``, ``captain``
    (the captain's timer), ``question`` (the open question's card), ``closed`` (its
    outcome), ``fight_over`` (a fight just won: its winner, the view's ``fight_result``)
    or ``title`` (the mode and structure)."""
    q = view.get("question")
    if view.get("fight_result"):
        return "fight_over"
    if holder_index(view) is not None:
        return "holder"
    if timer_of(view) is not None:
        return "countdown"
    if view.get("captain"):
        return "captain"
    if q and q.get("open"):
        return "question"
    if q and q.get("closed"):
        return "closed"
    return "title"


def info_slots(view: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The side column's numbers: ``index`` (question n/of), ``nominal``, ``label`` (a
    question's label or number), ``countdown`` (the answer's, beside the holder), ``captain``."""
    q = view.get("question")
    captain = view.get("captain")
    cd = timer_of(view)
    holder = holder_index(view) is not None
    slots: list[tuple[str, Mapping[str, Any]]] = []
    question_card = q and q.get("open") and cd is None and not holder and not captain
    if question_card and q.get("index") and q.get("of"):
        slots.append(("index", q))
    elif q and q.get("nominal") is not None:
        slots.append(("nominal", q))
    elif q and (q.get("label") or q.get("number")):
        slots.append(("label", q))
    if holder and view.get("answer_countdown"):
        slots.append(("countdown", view["answer_countdown"]))
    elif cd is not None and holder:
        slots.append(("countdown", cd))
    if captain and (cd is not None or holder or (q and q.get("open"))):
        slots.append(("captain", captain))
    return slots


def question_head(q: Mapping[str, Any], lang: str) -> str:
    """How a view's question is named, the same on the screen and in the terminal:
    «Вопрос 2/5» (its place in the round) where the mode has rounds, else «Вопрос № 7»
    (or its label, «Вопрос № 2.5»), or «Вопрос»."""
    if q.get("index") and q.get("of"):
        return f"{t('question', lang)} {q['index']}/{q['of']}"
    ref = q.get("label") or q.get("number")
    return t("question_n", lang, n=ref) if ref else t("question", lang)


def closed_outcome(view: Mapping[str, Any]) -> tuple[str, Mapping[str, Any] | None]:
    """A closed question's outcome: (``withdrawn`` | ``right`` | ``time_up`` | ``no_answer``,
    the right answer's row when there was one)."""
    q = view.get("question") or {}
    if q.get("closed") == "withdrawn":
        return "withdrawn", None
    right = next((a for a in q.get("answers") or () if a.get("result") == "right"), None)
    if right is not None:
        return "right", right
    return ("time_up" if q.get("closed") == "time" else "no_answer"), None


def fight_over_words(result: Mapping[str, Any], lang: str) -> tuple[str, str | None, str]:
    """A finished fight as both screens say it: («Окончен бой 1», the winner's name or None
    when it was stopped with no winner, the points «3 : 1», the winner's first, then the most)."""
    head = t("fight_n_over", lang, fight=result.get("fight", ""))
    scores = dict(result.get("scores") or {})
    order = sorted(scores, key=lambda name: (name != result.get("winner"), -scores[name]))
    points = " : ".join(fmt_score(scores[name]) for name in order)
    return head, result.get("winner"), points


def team_marks(tm: Mapping[str, Any]) -> list[str]:
    """A team card's tags (keys of :data:`TAG_KEYS`), in the order they are drawn."""
    marks = []
    if tm.get("false_start"):
        marks.append("false_start")
    if tm.get("early"):
        marks.append("early")
    if tm.get("blocked"):
        marks.append("blocked")
    if tm.get("stuck"):
        marks.append("stuck")
    dis = tm.get("disabled")
    if dis:
        marks.append(dis if isinstance(dis, str) and dis in TAG_KEYS else "disqualified")
    if tm.get("locked"):
        marks.append("locked")
    return marks


def press_numbers(q: Mapping[str, Any]) -> dict[tuple, int]:
    """(wave, button, at) -> the press's place in its wave's race (1, 2 …) for counted presses."""
    numbers: dict[tuple, int] = {}
    n_by_wave: dict[int, int] = {}
    for r in q.get("presses") or ():
        if r.get("kind") in COUNTED:
            w = r.get("wave", 0)
            n_by_wave[w] = n_by_wave.get(w, 0) + 1
            numbers[(w, r.get("button"), r.get("at"))] = n_by_wave[w]
    return numbers


def flash_words(flash: Mapping[str, Any], lang: str) -> tuple[str, str | None]:
    """A ruling flash's (big text, the line under it): («Верно», «Альфа»), («Время!», «Время капитана») …"""
    kind = str(flash.get("kind", ""))
    team = flash.get("team")
    if kind == "mafia.winner":
        return t("town_wins" if team == "town" else "mafia_wins", lang), None
    text = t(FLASH_TEXT.get(kind, kind), lang)
    if kind == "captain_time_up":
        team = t("captain_timer", lang)
    if kind == "mafia.removed" and team:
        team = t("player_n", lang, n=team)
    return text, (str(team) if team else None)


def mafia_main(view: Mapping[str, Any]) -> str:
    """The «Мафия» table's big panel: ``winner``, ``speech`` (the speaker's timer) or ``title``."""
    tm = view.get("timer") or {}
    if view.get("winner"):
        return "winner"
    if tm.get("state") in ("running", "paused", "done") and tm.get("total_ms"):
        return "speech"
    return "title"


def pack_phase_lines(q: Mapping[str, Any], pack: Mapping[str, Any], lang: str) -> list[str]:
    """A package question's stage in words (a cat given, the bids, «без риска», everyone's
    stakes and answers): the lines above its text, on the projector and in the terminal."""
    phase = pack.get("phase")
    play = q.get("played_as")
    if play in ("secret", "secretPublicPrice", "secretNoQuestion"):
        out = [t("pack.screen.secret", lang, theme=q.get("secret_theme") or q["theme"])]
        opts = q.get("price_options")
        if opts:
            lo, hi, step = opts
            out.append(t("pack.screen.price_ends", lang, low=lo, high=hi) if step == hi - lo
                       else t("pack.screen.price_choice", lang, low=lo, high=hi, step=step))
        elif q.get("nominal") is not None and phase == "player":
            out.append(t("pack.screen.price", lang, points=q["nominal"]))
        if play == "secretNoQuestion" and phase == "board" and q.get("player"):
            out.append(t("pack.screen.awarded", lang, team=q["player"], points=q.get("nominal")))
        else:
            out.append(t("pack.screen.player", lang, team=q["player"]) if q.get("player")
                       else t("pack.screen.who", lang))
        return out
    if play == "stake":
        if phase == "bids":
            if q.get("stake") is None:
                return [t("pack.screen.bids_first", lang, team=q.get("bidder") or "", points=q["price"])]
            points = f"{q['stake']} ({t('pack.screen.all_in', lang)})" if q.get("all_in") else q["stake"]
            return [t("pack.screen.bids", lang, team=q.get("bidder") or "", points=points)]
        return []
    if play == "noRisk":
        return [t("pack.screen.no_risk", lang, team=q.get("player") or "", points=q.get("nominal"))]
    if play in ("final", "stakeAll", "forAll"):
        players = pack.get("final_players") or []
        if phase == "final_stakes":
            key = "pack.screen.final_stakes" if play == "final" else "pack.screen.stake_all"
            return [t(key, lang, done=sum(1 for p in players if p["staked"]), count=len(players))]
        if play == "forAll":
            return [t("pack.screen.for_all", lang)]
        return [t("pack.screen.final_rulings", lang)]
    return []
