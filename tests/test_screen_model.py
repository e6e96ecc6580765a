"""The typed screen model (controller/core/screen.py): each game's ``present(state, now)``
gives the widgets a viewer sees -- who answers, the countdown, the scores, the press order
with its ties, the standings, the «Мафия» seats -- in no language and naming no game."""

import json

from controller.sessions import script
from controller.games import engine
from controller.core.screen import Clock, Screen, Tag, Words, audience, to_json
from controller.i18n import t
from controller.games import screen_of


def present_at(text: str, at: float) -> Screen:
    """The screen of a scripted session (JSON lines) at ``at`` seconds."""
    run = script.run(script.parse(text.strip().splitlines()), until=at)
    return engine.present(run.state, int(at * 1e9))


def say(words: Words, lang: str = "ru") -> str:
    return words.render(t, lang)


def card(scr: Screen, name: str):
    return next(c for c in scr.cards.items if c.name == name)


ERUDITE = """
{"at": 1.0, "host": "captain"}
{"at": 70.0, "host": "question", "nominal": 30}
{"at": 71.0, "host": "reading_done"}
{"at": 72.0, "press": "B"}
{"at": 73.0, "host": "right"}
{"at": 74.0, "host": "question"}
{"at": 74.5, "host": "reading_done"}
{"at": 75.0, "host": "pause"}
"""


def test_erudite_the_captains_timer_is_a_timer_with_its_label():
    scr = present_at(ERUDITE, 11.0)
    assert scr.main.kind == "timer" and scr.main.timer.label == "captain_timer"
    assert scr.main.timer.text == "50" and scr.main.timer.phase == "normal"
    assert scr.main.bar is not None and 0 < scr.main.bar.fraction < 1
    assert say(scr.header.title) == "Эрудит-квартет" and "Раунд 1 из 4" in [say(w) for w in scr.header.structure]


def test_erudite_the_holder_and_then_the_outcome_and_the_score():
    holding = present_at(ERUDITE, 72.5)
    assert holding.main.kind == "holder" and holding.main.holder.name == "Бета"
    assert holding.main.holder.button == "B" and holding.main.holder.colour
    assert [c.kind for c in holding.main.side][:1] == ["nominal"] and holding.main.side[0].nominal == 30
    assert card(holding, "Бета").holder and not card(holding, "Альфа").holder
    ruled = present_at(ERUDITE, 73.5)
    assert ruled.main.kind == "outcome" and ruled.main.outcome.kind == "right"
    assert (ruled.main.outcome.name, ruled.main.outcome.delta) == ("Бета", 30)
    assert card(ruled, "Бета").score == 30 and card(ruled, "Бета").place == 1


def test_erudite_a_paused_countdown():
    scr = present_at(ERUDITE, 76.0)
    assert scr.header.paused
    assert scr.main.kind == "timer" and scr.main.timer.label == "think_time"
    assert scr.main.timer.phase == "paused" and scr.main.timer.text == "7"
    assert scr.main.timer.stopped == "paused"          # the host's pause key: «Пауза»


def test_a_countdown_a_press_stopped_says_so_not_pause():
    holding = present_at(ERUDITE, 72.5)                 # Бета holds the answer: the clock stands still
    clock = next(c.clock for c in holding.main.side if c.kind == "countdown")
    assert clock.phase == "paused" and clock.stopped == "countdown_stopped" and not holding.header.paused


def test_chgk_the_final_table_with_prize_places_shared_says_a_shootout_decides_them():
    text = """
{"setup": {"mode": "chgk", "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}, {"name": "Гамма", "button": "C"}]}}
{"at": 1.0, "host": "question"}
{"at": 2.0, "host": "results", "results": ["Альфа", "Бета"]}
{"at": 3.0, "host": "end_game"}
"""
    st = present_at(text, 4.0).standings
    assert st.shown and st.finished and say(st.note) == "Поделены места 1–2: их решит перестрелка"
    assert [(r.name, r.shared) for r in st.rows] == [("Альфа", "1–2"), ("Бета", "1–2"), ("Гамма", None)]
    playing = present_at(text, 2.5).standings
    assert playing.note is None


def test_a_tie_is_marked_in_the_press_order():
    text = """
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "host": "reading_done"}
{"at": 3.0, "press": "B"}
{"at": 3.0, "press": "C"}
"""
    scr = present_at(text, 3.5)
    first, second = scr.presses.entries[:2]
    assert scr.presses.shown and first.number == 1 and first.answer
    assert second.tie and second.number == 2 and second.tag is None
    assert scr.main.holder.name == first.name


def test_a_false_start_is_tagged_on_the_press_and_on_the_card():
    text = """
{"setup": {"mode": "brain-ring", "seed": 5}}
{"at": 1.0, "host": "question"}
{"at": 1.5, "press": "A"}
"""
    scr = present_at(text, 1.6)
    press = scr.presses.entries[0]
    assert press.name == "Альфа" and press.number is None and press.tag == Tag("false_start", "bad")
    assert card(scr, "Альфа").tags == (Tag("false_start", "bad"),) and not card(scr, "Бета").tags


def test_brain_ring_the_question_card_waits_for_its_start():
    text = """
{"setup": {"mode": "brain-ring", "seed": 5, "settings": {"brain_ring.start_delay": true}}}
{"at": 1.0, "host": "question"}
{"at": 5.0, "host": "start_clock"}
"""
    scr = present_at(text, 5.1)
    assert scr.main.kind == "question" and say(scr.main.question.head) == "Вопрос № 1"
    assert scr.main.question.nominal == 1 and scr.main.question.waiting_start
    assert present_at(text, 10.0).main.timer.label == "think_time"


def test_own_game_a_question_out_of_time():
    with open("examples/own-game.jsonl", encoding="utf-8") as f:
        scr = present_at(f.read(), 14.0)
    assert scr.main.kind == "outcome" and scr.main.outcome.kind == "time_up"
    assert say(scr.main.outcome.head) == "Вопрос № 2"


def test_chgk_the_discussion_minute_and_the_tour():
    with open("examples/chgk.jsonl", encoding="utf-8") as f:
        scr = present_at(f.read(), 30.0)
    assert scr.main.timer == Clock("discussion", "30", "normal", 0.5, 30000.0, 60000.0)
    assert [say(w) for w in scr.header.structure] == ["Тур 1/1"]
    assert not scr.presses.shown   # no buttons race in ЧГК


def test_the_standings_at_the_end():
    with open("examples/erudite-standings.jsonl", encoding="utf-8") as f:
        scr = present_at(f.read(), 28.0)
    assert scr.layout == "table" and scr.standings.finished
    best = scr.standings.rows[0]
    assert (best.place, best.name, best.points, best.won) == (1, "Альфа", 60, 60)
    assert scr.standings.rows[-1].points == -30


def test_mafia_the_speakers_timer_and_the_seats():
    text = """
{"setup": {"mode": "mafia", "settings": {"mafia.players": ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]}}}
{"at": 1.0, "host": "foul", "seat": 4}
{"at": 2.0, "host": "speech", "seat": 3}
{"at": 20.0, "host": "pause"}
"""
    scr = present_at(text, 11.0)
    assert scr.layout == "seats" and len(scr.cards.items) == 10
    assert scr.main.kind == "timer" and scr.main.timer.label == "speech" and scr.main.timer.text == "51"
    assert (scr.main.speaker.number, scr.main.speaker.name) == (3, "Вика")
    seat = {c.number: c for c in scr.cards.items}
    assert seat[3].active and not seat[4].active and seat[4].dots == 1 and seat[4].score is None
    assert present_at(text, 25.0).main.timer.paused


def test_a_programme_names_its_game_and_each_teams_total():
    with open("examples/programme.jsonl", encoding="utf-8") as f:
        scr = present_at(f.read(), 5.5)
    assert say(scr.header.structure[0]) == "Игра 2 из 3"
    assert say(scr.header.title) == "Брейн-ринг"
    assert any(c.total for c in scr.cards.items)


def test_the_json_the_pages_get_has_words_in_the_language_and_no_host_part():
    scr = present_at(ERUDITE, 72.5)
    value = to_json(audience(scr), lambda w: say(w, "en"))
    json.dumps(value)   # plain
    assert value["layout"] == "game" and value["main"]["holder"]["name"] == "Бета"
    assert value["header"]["title"] == t("mode_erudite", "en")
    assert value["host"] == {"text": "", "answer": None, "answer_text": "", "comment": "", "next": None,
                              "race": None}


def test_a_package_question_carries_its_picture_files_and_answer_in_the_model():
    q = {"theme": "Кино", "nominal": 200, "played_as": "simple", "live": True, "text": "Кто это?",
         "theme_comment": "", "options": [{"label": "A", "text": "", "media": [{"name": "a.png", "member": "x"}]}],
         "media": {"image": {"name": "2.png", "member": "Images/2.png"}},
         "images": [{"name": "1.png"}, {"name": "2.png"}], "image_index": 1,
         "items": [{"kind": "image", "name": "1.png", "member": "Images/1.png"},
                   {"kind": "video", "name": "v.mp4", "member": "Video/v.mp4"}], "answer": None}
    view = {"mode": "own-game", "teams": [], "pack": {"question": q, "phase": "question"}}
    c = screen_of(view).main.content
    assert (c.theme, c.nominal, c.answer_shown) == ("Кино", 200, False)
    assert c.image.member == "Images/2.png" and (c.image_index, c.images) == (1, 2)
    assert [m.kind for m in c.items] == ["image", "video"] and c.options[0].media == ("a.png",)
    q["answer"] = {"answer": "Чаплин", "text": "Чарли", "comment": "", "media": {"image": None}, "images": [],
                   "image_index": 0, "items": []}
    c = screen_of(view).main.content
    assert c.answer_shown and (c.answer, c.answer_text, c.image, c.items) == ("Чаплин", "Чарли", None, ())


def test_the_board_names_the_theme_being_picked():
    pack = {"round_number": 1, "rounds": 2, "round": "Раунд", "left": 3, "picking_theme": 2,
            "board": [{"name": "A", "cells": [{"price": 100, "played": False}]}], "question": None}
    assert screen_of({"mode": "own-game", "teams": [], "pack": pack}).board.picking == 2


PHONE_TIE = """
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "host": "reading_done"}
{"at": 3.000, "press": "A", "delivered": 3.03, "unc": 0.015, "quiet": 0.05}
{"at": 3.010, "press": "B", "delivered": 3.04, "unc": 0.015, "quiet": 0.05}
"""
"""Two phones' presses 10 ms apart, each ±15 ms: a tie within ±15 ms (the lot decides)."""


def test_a_tie_within_the_uncertainty_carries_its_bound_in_the_press_order():
    scr = present_at(PHONE_TIE, 3.5)
    first, second = scr.presses.entries[:2]
    assert first.tie and second.tie and (first.tie_ms, second.tie_ms) == (15, 15)
    exact = present_at("""
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "host": "reading_done"}
{"at": 3.0, "press": "B"}
{"at": 3.0, "press": "C"}
""", 3.5)
    assert exact.presses.entries[1].tie and exact.presses.entries[1].tie_ms is None   # an exact tie: no bound


def test_a_card_names_its_button_and_whether_its_presses_race():
    """A team's phone finds its card by its button and says «Кнопка заблокирована» while it is
    barred: here Бета, locked out of the question after its wrong answer."""
    text = """
{"at": 1.0, "host": "captain"}
{"at": 70.0, "host": "question", "nominal": 30}
{"at": 71.0, "host": "reading_done"}
{"at": 72.0, "press": "B"}
{"at": 73.0, "host": "wrong"}
"""
    before = present_at(text, 71.5)
    assert [c.button for c in before.cards.items] == ["A", "B", "C", "D"][:len(before.cards.items)]
    assert not any(c.barred for c in before.cards.items) and before.presses.armed
    after = present_at(text, 73.5)
    assert card(after, "Бета").barred and card(after, "Бета").button == "B"
    assert not card(after, "Альфа").barred
    seats = present_at('{"setup": {"mode": "mafia"}}', 1.0)
    assert all(c.button is None and not c.barred for c in seats.cards.items)


def test_the_press_order_says_whether_a_question_takes_a_press_at_all():
    """Between questions a press is no entry at all (a team's phone says «Вопроса ещё нет»); while a
    team answers the question is still open, a press not armed but taken (an early one)."""
    text = """
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "host": "reading_done"}
{"at": 3.0, "press": "B"}
{"at": 4.0, "press": "A"}
{"at": 5.0, "host": "right"}
"""
    start = present_at(text, 0.5)
    assert not start.presses.open and not start.presses.armed
    assert present_at(text, 2.5).presses.open and present_at(text, 2.5).presses.armed
    answering = present_at(text, 4.5)
    assert answering.presses.open and not answering.presses.armed
    assert [(e.name, e.kind, e.tag.key if e.tag else None) for e in answering.presses.entries] == \
        [("Бета", "answer", None), ("Альфа", "early", "early")]
    after = present_at(text, 5.5)
    assert not after.presses.open and not after.presses.armed


MIXED = """
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "host": "reading_done"}
{"at": 3.000, "press": "A", "delivered": 3.0002, "quiet": 0.1}
{"at": 3.020, "press": "D", "delivered": 3.0203, "quiet": 0.1}
{"at": 3.050, "press": "B", "delivered": 3.09, "unc": 0.0124, "quiet": 0.1}
"""
"""A wired button (Альфа) first, another wired one (Дельта) 20 ms later, a phone (Бета) 50 ms
later, ±12.4 ms: beyond its uncertainty, no tie.  Every press waits 100 ms (``quiet``), as every
press does while a phone is joined (the race waits for a phone press on its way)."""


def test_every_press_says_how_sure_it_is_a_phone_its_bound_a_wired_button_exact():
    scr = present_at(MIXED, 3.5)
    rows = {p.name: p for p in scr.presses.entries}
    assert [p.name for p in scr.presses.entries] == ["Альфа", "Дельта", "Бета"]
    assert not any(p.tie for p in rows.values())
    assert rows["Бета"].unc_ms == 13                    # ±12.4 ms said as whole ms, rounded up
    assert rows["Альфа"].unc_ms is None and rows["Дельта"].unc_ms is None   # wired: exact
    race = {p.name: p for p in scr.host.race.presses}
    assert race["Бета"].uncertainty_ms == 13 and race["Альфа"].uncertainty_ms is None
    page = json.loads(json.dumps(to_json(audience(scr), say)))
    assert [p.get("unc_ms") for p in page["presses"]["entries"]] == [None, None, 13]
