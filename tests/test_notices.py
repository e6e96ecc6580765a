"""A host notice leaves once what it says is over (and in any case after a while)."""

import io

import pytest

from controller.app import config
from controller.games import engine
from controller.inputs.keyboard import KeyboardBackend
from controller.inputs.clock import ManualClock
from controller.app.loop import Loop

MS = 1_000_000


def make_loop(path=None):
    cfg = config.load(path)
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                   {"keys": {t["button"]: t["key"] for t in cfg["teams"]}})
    return loop, clock


def keys(loop, clock, *names, gap_ms=100):
    """Type keys one by one, ``gap_ms`` apart, letting the settle window and deadlines pass
    (and the screen draw: a notice is measured against the game as the host first saw it)."""
    for name in names:
        loop.key_down([name])
        loop.key_up([name])
        loop.drain()
        loop.drain()
        clock.advance(gap_ms * MS)
        loop.tick_if_due()
        loop.drain()
        loop.status()                           # the frames drawn meanwhile: the host sees it


def shown(loop):
    """The notice the screen (and the terminal) shows now."""
    return loop.status()["notice"]


def test_finish_or_withdraw_first_leaves_once_the_question_is_ruled():
    loop, clock = make_loop()
    keys(loop, clock, "n", "n")                 # a second question while the first is open
    assert shown(loop) == "Сначала завершите или снимите текущий вопрос"
    keys(loop, clock, "space", "z", "backspace")    # Бета answers wrong: the question is still open
    assert shown(loop) == "Сначала завершите или снимите текущий вопрос"
    keys(loop, clock, "m", "return")            # Дельта right: the question is closed
    assert shown(loop) == ""
    keys(loop, clock, "n")                      # what the host asked for now works
    assert engine.view(loop.state)["question"]["number"] == 2 and shown(loop) == ""


def test_finish_or_withdraw_first_leaves_when_the_question_is_withdrawn():
    loop, clock = make_loop()
    keys(loop, clock, "n", "n", "x")
    assert shown(loop) == ""


def test_an_early_press_notice_leaves_when_the_question_is_ruled():
    loop, clock = make_loop("config/own-game.toml")
    keys(loop, clock, "n", "q")                 # Аня presses while the question is read
    assert shown(loop) == "Рано: Аня"
    keys(loop, clock, "space", "z")             # the buttons are armed; Борис presses
    keys(loop, clock, "return")                 # Борис right: the question is over
    assert engine.view(loop.state)["question"]["closed"] == "right"
    assert shown(loop) == ""


def test_nobody_is_answering_leaves_when_someone_answers():
    loop, clock = make_loop()
    keys(loop, clock, "n", "space", "return")
    assert shown(loop) == "Сейчас никто не отвечает"
    keys(loop, clock, "p")                      # Гамма presses and holds the answer
    assert shown(loop) == ""


def test_press_again_to_quit_leaves_when_a_second_press_would_not_quit():
    loop, clock = make_loop()
    keys(loop, clock, "escape", gap_ms=0)
    assert shown(loop) == "Нажмите ещё раз, чтобы выйти"
    clock.advance(3_100 * MS)
    assert shown(loop) == ""
    keys(loop, clock, "escape", gap_ms=0)
    assert loop.running                         # indeed: that press only asked again


def screen_words(loop):
    """The terminal's status of the game now (what the projector shows, in words)."""
    from controller.app import runner
    from controller.screens.terminal import status_block

    return " | ".join(status_block(runner.model(loop), loop.cfg["language"]))


@pytest.mark.parametrize("path,before,key,after,gone", [
    (None, [], "f4", "Игра окончена", "(место"),         # the final table, no team cards
    ("config/chgk.toml", [], "f4", "Поделены места 1–3: их решит перестрелка", "(место"),   # its own notice
    ("examples/programme.toml", [], "r", "Игра 2 из 3", "Своя игра"),         # a programme's next game
    ("examples/programme.toml", ["r", "r", "f4", "f4", "r", "r"], "r", "Итоги программы", "(место"),
    ("config/brain-ring.toml", ["n", "t", "z", "return"], "r", "начался бой 2", "закончится без победителя"),   # no winner
    (None, ["n", "z"], "f12", "Раунд 1 из 4", "Отвечает"),                # a new game (no journal to archive)
], ids=["end-game", "chgk-end-game", "next-game", "programme-end", "next-fight", "new-game"])
def test_press_again_leaves_once_the_second_press_has_acted(path, before, key, after, gone):
    """The second press of a key that asks first does what it said: the prompt goes with it, and
    the screen shows what the key did (a prompt left up for its 3 s said it would happen again)."""
    loop, clock = make_loop(path)
    if key == "f12":
        loop.on_new_game = lambda: setattr(loop, "state", engine.new_game(loop.cfg, 2))
    for name in before:
        keys(loop, clock, name, gap_ms=300)
    keys(loop, clock, key, gap_ms=300)
    assert "Нажмите ещё раз" in shown(loop) and gone in screen_words(loop)
    keys(loop, clock, key, gap_ms=300)
    assert "Нажмите ещё раз" not in shown(loop) and "Нажмите ещё раз" not in screen_words(loop)
    assert after in screen_words(loop) and gone not in screen_words(loop)


def test_a_typed_seat_number_leaves_when_it_is_used():
    loop, clock = make_loop("config/mafia.toml")
    keys(loop, clock, "4")
    assert shown(loop) == "№ 4"
    keys(loop, clock, "c")                      # the judge clears the number
    assert shown(loop) == ""


def test_a_notice_about_nothing_in_particular_stays_its_six_seconds():
    loop, clock = make_loop()
    keys(loop, clock, "t")                      # a key of another game
    keys(loop, clock, "n", "space", "z")        # the game goes on
    assert shown(loop).startswith("«Время!»: старт отсчёта — не в этой игре")
    clock.advance(6_000 * MS)
    assert shown(loop) == ""


def test_a_key_of_another_game_is_named_in_words_without_its_internal_id():
    loop, clock = make_loop("config/brain-ring.toml")
    keys(loop, clock, "space")                  # the end of reading: not a Брейн-ринг key
    assert shown(loop) == "Конец чтения, старт — не в этой игре"
    loop, clock = make_loop("config/chgk.toml")
    keys(loop, clock, "return")                 # «right»: ЧГК has no host ruling by key
    assert shown(loop) == "Ответ верный — не в этой игре"


def test_the_busy_port_notice_leaves_after_six_seconds_like_any_notice():
    """Walk 1, item 18: «Занят порт 8080: веб-страницы на порту 8081» stayed on the host's status
    line through several actions (a minute), against docs/screen.md's «at the latest after 6 s»."""
    import socket

    from controller.web import attach

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cfg = config.build({"web": {"port": port, "next_free_port": True}})
        clock = ManualClock(1_000 * MS)
        loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
        server = attach.attach(loop, out=io.StringIO())
    try:
        assert server is not None and server.port != port
        assert f"Занят порт {port}" in shown(loop)
        clock.advance(5_900 * MS)
        assert f"Занят порт {port}" in shown(loop)
        clock.advance(200 * MS)
        assert shown(loop) == ""
    finally:
        server.stop()
