"""The screen of a game of teams and buttons, from its view: the default ``Game.screen``.

The button games (Эрудит-квартет, Своя игра, Брейн-ринг, ЧГК and a programme of them) share
one shape of view (``teams`` or ``players``, ``question`` with its ``presses``,
``countdown``, ``captain``, ``standings``, a package's ``pack``); :func:`screen_of` turns it
into the typed widgets of :mod:`controller.core.screen`.  The decisions every screen shares
are made here, once, without a screen: what the big panel holds (who answers, else the
countdown, else the captain's timer, else the question, else its outcome), the side
column's numbers, the header's structure, the cards' tags, the standings between rounds.
A game whose screen is of another shape (the «Мафия» table) builds its own.

Pure: catalog keys and values only, no words in a language (the screens say them).
"""

from __future__ import annotations

import math

from typing import Any, Mapping

from controller.core.screen import (
    Board, BoardCell, BoardTheme, Card, Cards, Cell, Clock, Content, Header, Holder, HostPart, MainPanel, Media, Option,
    Outcome, PlayerRow, Press, PressOrder, QuestionCard, Race, RacePress, Result, Screen, Standings, StandingRow, Tag,
    ThemeLine, Words)
from controller.games.race import COUNTED

TAG_KEYS = {"false_start": "false_start", "early": "early", "blocked": "blocked", "stuck": "stuck",
            "locked": "locked_out", "disqualified": "disqualified", "skipped": "skipped",
            "not_in_tiebreak": "not_in_tiebreak", "not_in_fight": "not_in_fight"}
"""Team card marker -> catalog key of its tag."""

TAG_TONES = {"false_start": "bad", "early": "warn", "blocked": "warn", "stuck": "alert", "locked": "muted",
             "disqualified": "bad", "skipped": "muted", "not_in_tiebreak": "muted", "not_in_fight": "muted"}
"""Team card marker -> its tag's tone."""

PRESS_TAG_KEYS = {"early": "early", "false_start": "false_start", "blocked": "blocked", "locked": "locked_out",
                  "disabled": "disqualified", "late": "late", "stuck": "stuck"}
"""Press kind -> catalog key of the tag shown next to it in the press order."""

PRESS_TAG_TONES = {"early": "warn", "false_start": "bad", "blocked": "warn", "locked": "muted", "disabled": "muted",
                   "late": "muted", "stuck": "alert"}
"""Press kind -> its tag's tone."""

TIE_TAG_KEY = "press_tie"
"""The tag of a press with the same edge time as the winner's (``"tie"`` in its row): an exact
tie, decided by lot or by the team order, not by a gap of «+0.000 с»."""

TIE_WITHIN_KEY = "press_tie_within"
"""The tag of a press tied within the presses' uncertainty (a phone's: ``tie_ms`` in its row):
«ничья ±{ms} мс», the same words as the pages'."""

COUNTDOWN_LABELS = {"think": "think_time", "answer": "answer_time", "captain": "captain_timer",
                    "minute": "speech", "defence": "defence", "last_word": "last_word",
                    "discussion": "discussion", "press_window": "press_window", "answers": "hand_in",
                    "main": "think_time", "after_wrong": "think_time"}
"""Countdown kind -> catalog key of its label."""


# --- what goes where (on the view) ------------------------------------------------------------

def press_order_shown(view: Mapping[str, Any]) -> bool:
    """The game races for the buttons: the screens show the press order (a game
    without a race says ``"press_order": False`` in its view)."""
    return view.get("press_order", True)


def armed(view: Mapping[str, Any]) -> bool:
    """A press now races for the answer: the game races for the buttons, its question is open,
    nobody holds the answer and the buttons are on (a view's question says ``"armed": False``
    or ``"started": False`` while they are not yet: before the end-of-reading mark, the start
    signal; a game that arms them at the announcement says neither)."""
    q = view.get("question") or {}
    if not press_order_shown(view) or not q.get("open") or holder_index(view) is not None:
        return False
    return q.get("armed", True) is not False and q.get("started", True) is not False \
        and not q.get("waiting_start")


def answered_by_phone(q: Mapping[str, Any], button: Any) -> bool:
    """The holder's answering press (its button's latest ``answer`` row) came from a phone: the
    row carries the stamp's uncertainty (``unc_ms``), which only a phone's press has."""
    rows = [r for r in q.get("presses") or () if r.get("button") == button and r.get("kind") == "answer"]
    return bool(rows and rows[-1].get("unc_ms"))


def countdown_label_key(cd: Mapping[str, Any]) -> str:
    """What a countdown counts, as a catalog key; "" when the view does not say."""
    kind = cd.get("kind")
    return COUNTDOWN_LABELS.get(kind, kind) if kind else ""


def timer_of(view: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The countdown a view shows in the big slot (the question's, or a mode's ``timer``)."""
    cd = view.get("countdown")
    if cd:
        return cd
    tm = view.get("timer")
    if tm and tm.get("state", "running") not in ("idle",) and tm.get("total_ms"):
        return tm
    return None


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


def teams_of(view: Mapping[str, Any]) -> list:
    """The teams (Своя игра: the players) of a view, in the order of their cards."""
    return list(view.get("teams") or view.get("players") or ())


def holder_index(view: Mapping[str, Any]) -> int | None:
    """The team holding the answer right, by its index in ``teams``."""
    return next((i for i, tm in enumerate(teams_of(view)) if tm.get("holder")), None)


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


# --- words ---------------------------------------------------------------------------------

def title_words(mode: Any, title_key: str | None) -> Words:
    """A game in words: its title's catalog key, else the name as it is."""
    return Words(key=title_key) if title_key else Words.literal(mode)


def series_head(view: Mapping[str, Any]) -> Words | None:
    """Which game of a programme is on («Игра 2 из 3»), None outside one."""
    series = view.get("series") or {}
    return Words.of("series_n_of", n=series.get("round"), of=series["rounds"]) if series.get("rounds") else None


def structure(view: Mapping[str, Any], title: Words | None) -> tuple[Words, ...]:
    """The header's second line: fight · round · fight type (ЧГК: the tour; «Мафия»: the day);
    the game's ``title`` when the view has no structure."""
    parts: list[Words] = []
    series = series_head(view)
    if series is not None:   # a programme: which of its games is on
        parts.append(series)
    if view.get("tiebreak"):
        parts.append(Words("extra_fight"))
    else:
        if view.get("fight") and (view.get("fights") is None or view["fights"] > 1):
            parts.append(Words.of("fight_n", n=view["fight"]))
        if view.get("tour"):
            tour = Words.of("tour_n", n=view["tour"])
            parts.append(Words.join(tour, f"/{view['tours']}") if view.get("tours") else tour)
            if view.get("tour_title"):        # the event file's name of the tour
                parts.append(Words.literal(view["tour_title"]))
        if view.get("round") and view.get("rounds"):
            parts.append(Words.of("round_n_of", n=view["round"], total=view["rounds"]))
        elif view.get("round"):
            parts.append(Words.of("round_n", n=view["round"]))
        if view.get("fight_type"):
            parts.append(Words(view["fight_type"]))
    if view.get("day"):
        parts.append(Words.of("day_n", n=view["day"]))
    if not parts and view.get("mode") and title is not None:
        parts.append(title)
    return tuple(parts)


def question_head(q: Mapping[str, Any]) -> Words:
    """How a question is named, the same on every screen: «Вопрос 2/5» (its place in the
    round) where the game has rounds, else «Вопрос № 7» (or its label, «Вопрос № 2.5»), or
    «Вопрос»."""
    if q.get("index") and q.get("of"):
        return Words.join(Words("question"), f" {q['index']}/{q['of']}")
    ref = q.get("label") or q.get("number")
    return Words.of("question_n", n=ref) if ref else Words("question")


def fight_over(result: Mapping[str, Any]) -> tuple[Words, str | None, tuple]:
    """A finished fight: («Окончен бой 1», the winner's name or None when it was stopped with
    no winner, the points (shown «3 : 1»), the winner's first, then the most)."""
    head = Words.of("fight_n_over", fight=result.get("fight", ""))
    scores = dict(result.get("scores") or {})
    order = sorted(scores, key=lambda name: (name != result.get("winner"), -scores[name]))
    return head, result.get("winner"), tuple(scores[name] for name in order)


def pack_phase(q: Mapping[str, Any], pack: Mapping[str, Any]) -> list[Words]:
    """A package question's stage in words (a cat given, the bids, «без риска», everyone's
    stakes and answers): the lines above its text."""
    phase = pack.get("phase")
    play = q.get("played_as")
    if play in ("secret", "secretPublicPrice", "secretNoQuestion"):
        out = [Words.of("pack.screen.secret", theme=q.get("secret_theme") or q["theme"])]
        opts = q.get("price_options")
        if opts:
            lo, hi, step = opts
            out.append(Words.of("pack.screen.price_ends", low=lo, high=hi) if step == hi - lo
                       else Words.of("pack.screen.price_choice", low=lo, high=hi, step=step))
        elif q.get("nominal") is not None and phase == "player":
            out.append(Words.of("pack.screen.price", points=q["nominal"]))
        if play == "secretNoQuestion" and phase == "board" and q.get("player"):
            out.append(Words.of("pack.screen.awarded", team=q["player"], points=q.get("nominal")))
        else:
            out.append(Words.of("pack.screen.player", team=q["player"]) if q.get("player")
                       else Words("pack.screen.who"))
        return out
    if play == "stake":
        if phase == "bids":
            if pack.get("choosing"):   # equal points: the host names who bids next
                return [Words.of("pack.screen.bids_choice", teams=", ".join(pack["choosing"]))]
            if q.get("stake") is None:
                return [Words.of("pack.screen.bids_first", team=q.get("bidder") or "", points=q["price"])]
            points: Any = Words.join(f"{q['stake']} (", Words("pack.screen.all_in"), ")") if q.get("all_in") \
                else q["stake"]
            return [Words.of("pack.screen.bids", team=q.get("bidder") or "", points=points)]
        return []
    if play == "noRisk":
        return [Words.of("pack.screen.no_risk", team=q.get("player") or "", points=q.get("nominal"))]
    if play in ("final", "stakeAll", "forAll"):
        players = pack.get("final_players") or []
        if phase == "final_stakes":
            key = "pack.screen.final_stakes" if play == "final" else "pack.screen.stake_all"
            return [Words.of(key, done=sum(1 for p in players if p["staked"]), count=len(players))]
        if play == "forAll":
            return [Words("pack.screen.for_all")]
        return [Words("pack.screen.final_rulings")]
    return []


# --- the widgets ---------------------------------------------------------------------------

def clock(cd: Mapping[str, Any], label: str | None = None, paused: bool = False) -> Clock:
    """A countdown of the view as a :class:`Clock` (its label from its kind unless given);
    ``paused``: the game is paused (the view's ``paused``), so a countdown standing still says
    «Пауза», not «Остановлено»."""
    return Clock.of(cd, countdown_label_key(cd) if label is None else label, paused)


def _colours(teams: list) -> dict[Any, tuple[int, Any]]:
    """Card name -> (its index, its colour) (the last card of a name, as a lookup by name finds)."""
    return {tm.get("name"): (i, tm.get("color")) for i, tm in enumerate(teams)}


def series_over(view: Mapping[str, Any]) -> Words | None:
    """A programme's game that has ended while the programme goes on, in the programme's words:
    «Окончена игра 1 из 3, дальше игра 2 «Брейн-ринг»»; None outside a programme, while its game
    is played, and for its last game (whose end is the whole programme's: «Игра окончена»)."""
    series = view.get("series") or {}
    n, of = series.get("round"), series.get("rounds")
    if view.get("stage") != "finished" or series.get("finished") or not of or not isinstance(n, int) or n >= of:
        return None
    titles = list(series.get("titles") or ())
    title = str(titles[n]) if n < len(titles) else ""
    if not title or title == str(n + 1):   # a round without a title is named by its number
        return Words.of("series_game_over_untitled", n=n, of=of, next=n + 1)
    return Words.of("series_game_over", n=n, of=of, next=n + 1, next_title=title)


def header(view: Mapping[str, Any], title_key: str | None) -> Header:
    mode = view.get("mode")
    title = title_words(mode, title_key)
    q = view.get("question")
    return Header(title=title if mode else Words.literal(""), structure=structure(view, title),
                  theme=theme(view), paused=bool(view.get("paused")), series=series_head(view),
                  question=QuestionCard(head=question_head(q), nominal=q.get("nominal"), theme=q.get("theme"),
                                        waiting_start=bool(q.get("waiting_start"))) if q else None,
                  finished=view.get("stage") == "finished")


def cell(what: str, data: Mapping[str, Any], paused: bool = False) -> Cell:
    if what == "index":
        return Cell("index", index=data["index"], of=data["of"])
    if what == "nominal":
        return Cell("nominal", nominal=data["nominal"], index=data.get("index"), of=data.get("of"))
    if what == "label":
        return Cell("label", label=data.get("label") or data.get("number"))
    return Cell(what, clock=clock(data, "captain_timer" if what == "captain" else None, paused))


def bar(view: Mapping[str, Any]) -> Clock | None:
    """The countdown the bar under the big panel shows (None: no bar on this screen)."""
    if show_table(view):
        return None
    paused = bool(view.get("paused"))
    if view.get("answer_countdown") and any(tm.get("holder") for tm in view.get("teams") or ()):
        return clock(view["answer_countdown"], "", paused)
    cd = timer_of(view) or view.get("captain") or None
    return clock(cd, "", paused) if cd else None


def main(view: Mapping[str, Any], title_key: str | None) -> MainPanel:
    teams = teams_of(view)
    panel = main_panel(view)
    q = view.get("question") or {}
    paused = bool(view.get("paused"))   # the host's pause key: a clock standing still says «Пауза»
    side = tuple(cell(what, data, paused) for what, data in info_slots(view))
    themes: tuple[ThemeLine, ...] = ()
    if panel in ("captain", "title") and any(x.get("theme") for x in view.get("themes") or ()):
        # the themes announced so far (a game from an event file): under the captain's timer
        themes = tuple(ThemeLine(round=th.get("round", i + 1), theme=th.get("theme"), current=bool(th.get("current")))
                       for i, th in enumerate(view["themes"]))
    own = view.get("countdown") or ((view.get("timer") or {}).get("total_ms") and view["timer"]) or None
    common = dict(side=side, themes=themes, content=content(view), bar=bar(view),
                  clock=clock(own, None, paused) if own else None,
                  aside=clock(view["captain"], "captain_timer", paused) if view.get("captain") else None)
    if panel == "holder":
        i = holder_index(view)
        tm = teams[i]
        return MainPanel("holder", holder=Holder(name=str(tm.get("name", "")), index=i, colour=tm.get("color"),
                                                 order=tm.get("answer_order") or None,
                                                 button=tm.get("button") or None,
                                                 phone=answered_by_phone(q, tm.get("button"))), **common)
    if panel == "countdown":
        return MainPanel("timer", timer=clock(timer_of(view), None, paused), **common)
    if panel == "captain":
        return MainPanel("timer", timer=clock(view["captain"], "captain_timer", paused), **common)
    if panel == "question":
        return MainPanel("question", question=QuestionCard(head=question_head(q), nominal=q.get("nominal"),
                                                           theme=q.get("theme"),
                                                           waiting_start=bool(q.get("waiting_start"))), **common)
    if panel == "fight_over":
        head, winner, points = fight_over(view["fight_result"])
        idx = next((i for i, tm in enumerate(teams) if tm.get("name") == winner), 0)
        return MainPanel("result", result=Result(head=head, winner=winner, points=points, index=idx,
                                                 colour=teams[idx].get("color") if teams else None), **common)
    if panel == "closed":
        kind, right = closed_outcome(view)
        if right is None:
            return MainPanel("outcome", outcome=Outcome(kind, head=question_head(q)), **common)
        idx = next((i for i, tm in enumerate(teams) if tm.get("name") == right.get("team")), 0)
        return MainPanel("outcome", outcome=Outcome("right", head=question_head(q), name=str(right.get("team", "")),
                                                    index=idx, colour=teams[idx].get("color") if teams else None,
                                                    delta=right.get("delta", 0)), **common)
    title = title_words(view.get("mode"), title_key)
    return MainPanel("title", title=title, subtitle=structure(view, title), **common)


def _media(m: Mapping[str, Any], kind: str | None = None) -> Media:
    return Media(kind=str(kind or m.get("kind", "")), name=str(m.get("name", "")), member=m.get("member"))


def content(view: Mapping[str, Any]) -> Content | None:
    """A package's question while it is live (None: no package, or its board is on)."""
    pack = view.get("pack") or {}
    q = pack.get("question") or {}
    if not pack or not q.get("live"):
        return None
    answer = q.get("answer") or None
    shown = answer or q   # the part on screen: the answer's files once it is ruled
    image = (shown.get("media") or {}).get("image")
    stake = None
    if q.get("played_as") == "stake" and q.get("stake") and pack.get("phase") != "bids":
        stake = Words.of("pack.screen.stake", team=q.get("player") or "", points=q["stake"])
    return Content(lines=tuple(pack_phase(q, pack)), theme_comment=q.get("theme_comment") or None,
                   text=q.get("text") or "",
                   options=tuple(Option(str(o["label"]), str(o["text"]),
                                        media=tuple(str(m["name"]) for m in o.get("media") or ()))
                                 for o in q.get("options") or ()),
                   answer=(answer or {}).get("answer") or None,
                   theme=str(q.get("theme", "")), nominal=q.get("nominal"), stake=stake,
                   answer_shown=answer is not None, answer_text=(answer or {}).get("text") or "",
                   answer_comment=(answer or {}).get("comment") or "",
                   image=_media(image, "image") if image else None, images=len(shown.get("images") or ()),
                   image_index=int(shown.get("image_index") or 0),
                   items=tuple(_media(m) for m in shown.get("items") or ()))


def board(view: Mapping[str, Any]) -> Board | None:
    """A package's board while no question of it is live."""
    pack = view.get("pack") or {}
    if not pack or (pack.get("question") or {}).get("live"):
        return None
    return Board(title=Words.of("pack.screen.round", n=pack["round_number"], count=pack["rounds"], name=pack["round"]),
                 left=bool(pack.get("left")), final=bool(pack.get("final")),
                 themes=tuple(BoardTheme(name=th["name"], removed=bool(th.get("removed")),
                                         cells=tuple(BoardCell(price=c.get("price"), played=bool(c.get("played")),
                                                               empty=bool(c.get("empty")))
                                                     for c in th.get("cells") or ()))
                              for th in pack.get("board") or ()),
                 prompt=final_prompt(pack), picking=pack.get("picking_theme"))


def final_prompt(pack: Mapping[str, Any]) -> Words:
    """Under the final's board: who removes a theme (or that the host names who of players with
    equal points), or that the theme left is played."""
    if pack.get("choosing"):
        return Words.of("pack.screen.remove_choice", teams=", ".join(pack["choosing"]))
    who = pack.get("remover")
    return Words.of("pack.screen.remove", team=who) if who else Words("pack.screen.final_theme")


def race(record: Mapping[str, Any] | None) -> Race | None:
    """The latest race's record (``race.race_record``) as the host's widget."""
    if not record:
        return None
    tie = record.get("tie") or {}
    return Race(presses=tuple(RacePress(name=str(p.get("team", "")), gap_ms=float(p.get("gap_ms") or 0.0),
                                        rule=str(p.get("rule", "")), resolution_us=p.get("resolution_us") or 0,
                                        uncertainty_ms=_unc_ms(p.get("uncertainty_ms")))
                              for p in record.get("presses") or ()),
                tie=bool(tie), seed=tie.get("seed"), salt=tie.get("salt"), tie_rule=str(tie.get("rule") or ""),
                within_ms=tie.get("within_ms"))


def host_part(view: Mapping[str, Any]) -> HostPart:
    """The host's part (the view's ``host``): the question's text and answer (an event file's,
    else a package's, with its answer content and comment), the latest race's record."""
    pack = view.get("pack") or {}
    own = view.get("host") or {}
    host = own.get("pack") or {}
    answer = own.get("answer") or own.get("answers") or host.get("answer") or None
    if isinstance(answer, (list, tuple)):
        answer = " / ".join(str(a) for a in answer)
    return HostPart(text=own.get("question_text") or host.get("text") or "", answer=answer,
                    answer_text=host.get("answer_text") or "", comment=host.get("comment") or "",
                    next=host.get("next") if pack.get("phase") == "final_rulings" and host.get("next") else None,
                    race=race(own.get("race")))


def card_place(tm: Mapping[str, Any]) -> Any:
    """A card's place: a shared one as its range where the game names one (``place_label``
    «1–2», as the standings show it), else the place (None: none shown)."""
    label = tm.get("place_label")
    if label and str(label) != str(tm.get("place")):
        return str(label)
    return tm.get("place") or None


def cards(view: Mapping[str, Any]) -> Cards:
    out = []
    for i, tm in enumerate(teams_of(view)):
        out.append(Card(name=str(tm.get("name", "")), index=i, score=tm.get("score"), colour=tm.get("color"),
                        place=card_place(tm), total=tm.get("series_total"),
                        tags=tuple(Tag(TAG_KEYS[m], TAG_TONES[m]) for m in team_marks(tm)),
                        holder=bool(tm.get("holder")), dim=bool(tm.get("locked") or tm.get("disabled")),
                        extra=tm.get("tiebreak_score"), player=tm.get("player") or None,
                        entry=tm.get("number") or None, button=tm.get("button") or None,
                        barred=bool(tm.get("locked") or tm.get("disabled") or tm.get("blocked")
                                    or tm.get("stuck"))))
    return Cards(tuple(out))


def _positive_ms(ms: Any) -> float | None:
    """``ms`` when it is a number of milliseconds above 0 (a view's tie or uncertainty), else None."""
    return float(ms) if isinstance(ms, (int, float)) and not isinstance(ms, bool) and ms > 0 else None


def _tie_ms(row: Mapping[str, Any]) -> int | None:
    """The ±N ms of a press row's tie within the presses' uncertainty (``tie_ms``), or None."""
    ms = _positive_ms(row.get("tie_ms") if row.get("tie") else None)
    return None if ms is None else int(ms)


def _unc_ms(ms: Any) -> int | None:
    """A press's declared uncertainty as said: whole ms, rounded up (the touch was within it),
    at least 1; None for a wired button's exact stamp (no uncertainty)."""
    ms = _positive_ms(ms)
    return None if ms is None else max(1, math.ceil(ms - 1e-9))


def presses(view: Mapping[str, Any]) -> PressOrder:
    q = view.get("question") or {}
    rows = list(q.get("presses") or ())
    numbers = press_numbers(q)
    where = _colours(teams_of(view))
    out = []
    for r in rows:
        w = r.get("wave", 0)
        kind = r.get("kind", "")
        idx, colour = where.get(r.get("team"), (None, None))
        out.append(Press(name=str(r.get("team", "")), wave=w, number=numbers.get((w, r.get("button"), r.get("at"))),
                         tag=Tag(PRESS_TAG_KEYS[kind], PRESS_TAG_TONES[kind]) if kind in PRESS_TAG_KEYS else None,
                         tie=bool(r.get("tie")), gap_ms=float(r.get("gap_ms", 0.0)), index=idx, colour=colour,
                         answer=kind == "answer", kind=kind, button=r.get("button"), tie_ms=_tie_ms(r),
                         unc_ms=_unc_ms(r.get("unc_ms"))))
    return PressOrder(shown=bool(press_order_shown(view)), entries=tuple(out),
                      wave=q.get("wave", max((r.get("wave", 0) for r in rows), default=0)), armed=armed(view),
                      open=bool(press_order_shown(view) and q.get("open")))


COLUMN_LABELS = {"fights_won": "fights_won_column", "total": "points"}
"""A standings row's field the view puts in a column (``standings_columns``) -> its heading's key."""


def _columns(view: Mapping[str, Any]) -> tuple[str, str]:
    """The standings rows' fields in the points column and in the second one: ``points`` and
    ``won_points`` unless the view's ``standings_columns`` names others (Брейн-ринг's final
    table: fights won, then the points of every fight)."""
    cols = view.get("standings_columns") or {}
    return cols.get("points", "points"), cols.get("won", "won_points")


def standing_rows(view: Mapping[str, Any]) -> tuple[StandingRow, ...]:
    rows = list(view.get("standings") or ())
    where = _colours(teams_of(view))
    points, won = _columns(view)
    return tuple(StandingRow(place=r.get("place", ""), name=str(r.get("team", "")), points=r.get(points, ""),
                             won=r.get(won) if won in r else None,
                             extra=r.get("tiebreak_points") if "tiebreak_points" in r else None,
                             index=where.get(r.get("team"), (None, None))[0],
                             colour=where.get(r.get("team"), (None, None))[1],
                             shared=str(r["place_label"]) if r.get("tied") and r.get("place_label") else None)
                  for r in rows)


def standings(view: Mapping[str, Any], title_key: str | None) -> Standings:
    if not show_table(view):
        return Standings(rows=standing_rows(view))
    series = view.get("series") or {}
    finished = view.get("stage") == "finished"
    rows = list(view.get("standings") or ())
    points, won = _columns(view)
    best = view.get("best_players") or {}
    best_rows = []
    for key, title in (("fight", Words.of("screen.best_fight", fight=best.get("fight_number", ""))),
                       ("game", Words("screen.best_game"))):
        who = best.get(key) or []
        if who:
            best_rows.append((title, tuple(PlayerRow(r["name"], r["team"], r["points"]) for r in who)))
    over = series_over(view)   # a programme's game is over, the programme goes on: said so, not «Игра окончена»
    return Standings(
        shown=True, title=Words("series_standings" if series.get("finished") else "standings"), finished=finished,
        title_final=bool(series.get("finished")), over=over,
        structure=structure(view, title_words(view.get("mode"), title_key)) if not finished and view.get("round")
        else (),
        rows=standing_rows(view),
        has_won=any(won in r for r in rows), has_extra=any("tiebreak_points" in r for r in rows),
        points_label=Words(COLUMN_LABELS[points]) if points in COLUMN_LABELS else None,
        won_label=Words(COLUMN_LABELS[won]) if won in COLUMN_LABELS else None,
        players=tuple(PlayerRow(str(r.get("name", "")), str(r.get("team", "")), r.get("points", 0))
                      for r in view.get("player_points") or ()),
        best=tuple(best_rows),
        note=_note(view.get("standings_note")) if finished else None)


def _note(note: Any) -> Words | None:
    """The view's ``standings_note`` (a catalog key and its params) as words."""
    return Words.of(note["key"], **dict(note.get("params") or {})) if isinstance(note, Mapping) and note.get("key") \
        else None


def screen_of(view: Mapping[str, Any], title_key: str | None = None) -> Screen:
    """The screen of a button game's view (``title_key``: its title's catalog key)."""
    return Screen(header=header(view, title_key), main=main(view, title_key), cards=cards(view),
                  presses=presses(view), standings=standings(view, title_key), board=board(view),
                  host=host_part(view))
