"""Headless mode: the status line and the key help a host reads in the terminal."""

import os

from controller.app import config
from controller.games import engine
from controller.core.events import Host, Press, Tick
from controller.screens.terminal import key_help, status_line


def test_key_help_lists_the_team_keys_and_only_this_modes_actions():
    text = key_help(config.load(), "ru")
    assert "Q = Альфа" in text and "M = Дельта" in text
    assert "Ответ верный" in text and "Следующий вопрос" in text
    assert "«Время!»" not in text            # Брейн-ринг's key is not offered in Эрудит-квартет
    assert "Answer is right" in key_help(config.load(), "en")


def test_status_line_shows_question_holder_countdown_and_scores():
    cfg = config.load()
    s = engine.new_game(cfg, 1)
    for ev in (Host("question", 0, {"nominal": 30}), Host("reading_done", 1_000_000_000),
               Press("B", 2_000_000_000, 2_000_000_000), Tick(2_010_000_000)):
        s, _ = engine.step(s, ev)
    line = status_line(engine.view(s, 2_010_000_000), "ru")
    assert "Номинал 30 · Вопрос 1/5" in line and "Отвечает: Бета" in line
    # the screen's number; stopped by Бета's press, not by the host's pause key
    assert "Время на размышление: 6 (Остановлено)" in line and "Пауза" not in line and "Альфа 0" in line


def test_mode_keys_offer_only_what_acts_in_this_game():
    from controller.screens.terminal import mode_keys

    erudite = mode_keys(config.load())
    assert "start_clock" not in erudite and erudite["right"] == ["return", "enter"]
    assert list(erudite)[-6:] == ["help", "mute", "new_token", "host_link", "new_game", "quit"]   # the program's keys last
    mafia = mode_keys(config.load("config/mafia.toml"))
    assert mafia["foul"] == ["[+]", "f"] and mafia["seat_number"] == ["0–9", "[0–9]"]
    assert "question" not in mafia and "right" not in mafia and "digit_4" not in mafia
    chgk = mode_keys(config.load("config/chgk.toml"))
    assert chgk["mark_right"] == ["[+]", "="] and "import_results" in chgk and "right" not in chgk
    programme = mode_keys(config.load("examples/programme.toml"))   # own-game, brain-ring, chgk rounds
    assert "start_clock" in programme and "reading_done" in programme and "captain" not in programme


def test_key_help_of_the_mafia_judge_is_his_own_map_in_words():
    text = key_help(config.load("config/mafia.toml"), "ru")
    assert "Фол набранному месту" in text and "Номер места" in text
    assert "Следующий вопрос" not in text and "Q = " not in text
    en = key_help(config.load("config/mafia.toml"), "en")
    assert "Foul to the typed seat" in en           # labels in words, never the action's name
    labels = {line[27:] for line in en.splitlines()}
    assert not labels & {"foul", "next_role", "killed", "kind", "start", "seat_number"}


def test_function_and_arrow_keys_are_not_read_as_esc():
    from controller.screens.terminal import split_keys

    # an arrow key twice used to be Esc twice: the game quit
    assert split_keys("\x1b[A\x1b[A") == [["up"], ["up"]]
    assert split_keys("\x1b[24~") == [["f12"]] and split_keys("\x1bOP") == [["f1"]]
    assert split_keys("\x1b") == [["escape"]] and split_keys("q\x1bz") == [["q"], ["escape"], ["z"]]
    assert split_keys("й+") == [["й"], ["[+]", "+"]]


def test_a_key_of_another_game_is_named_in_words(capsys):
    import io

    from controller.inputs.clock import EngineClock
    from controller.app.loop import Loop

    for lang, words in (("ru", "«Время!»: старт отсчёта — не в"), ("en", "“Time!”: start the clock — not in")):
        cfg = config.load()
        cfg["language"] = lang
        loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock(), out=io.StringIO())
        loop.key_down(["t"])                     # Брейн-ринг's «Время!» in Эрудит-квартет
        assert loop.notice.startswith(words)     # what the key does, then its [keys] name


def test_in_chgk_the_help_says_what_0_does_on_the_keypad_and_in_the_terminal():
    """ЧГК: the top row's 0 is a team's digit, the keypad's 0 starts the clock; the help names
    each once, as the key the host presses, and never lists a 0 for both."""
    import io

    from controller.app.loop import Loop
    from controller.inputs.clock import ManualClock
    from controller.screens.common import key_label as _key_label
    from controller.screens.terminal import feed, mode_keys

    cfg = config.load("config/chgk.toml")
    keys = mode_keys(cfg)
    assert keys["team_number"] == ["0–9", "[1–9]"] and "[0]" in keys["start_clock"]
    window = {a: [_key_label(k, "ru") for k in names] for a, names in keys.items()}
    assert window["team_number"] == ["0–9", "Num 1–9"] and "Num 0" in window["start_clock"]
    # the terminal: a typed 0 is the digit (the keypad sends the same character)
    lines = {line[27:]: line[:27].strip() for line in key_help(cfg, "ru").splitlines()}
    assert lines["Номер команды"] == "0–9"
    assert lines["«Время!»: старт отсчёта"] == "Пробел, T"
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock(0), out=io.StringIO())
    feed(loop, "n10")
    view = engine.view(loop.state)
    assert view["entry"] == "10" and view["countdown"] is None   # typed the number; no clock started


def test_a_phone_s_press_is_shown_as_the_phone_s_not_as_the_team_s_key():
    """The keyboard's key is shown beside the holder («Отвечает: Гамма (Клавиша P)»); a press from
    the team's phone says it came from a phone instead (walk1 item 19)."""
    cfg = config.load()
    for unc, said in ((0, "Отвечает: Гамма (Клавиша P)"), (3_000_000, "Отвечает: Гамма (телефон)")):
        s = engine.new_game(cfg, 1)
        for ev in (Host("question", 0, {"nominal": 30}), Host("reading_done", 1_000_000_000),
                   Press("C", 2_000_000_000, 2_000_000_000, unc=unc), Tick(2_100_000_000)):
            s, _ = engine.step(s, ev)
        line = status_line(engine.view(s, 2_100_000_000), "ru", {"keys": {"C": "p"}})
        assert said in line, line


# --- the teams by name in the buttons' lines (never «A, B, C») ------------------------------

def _phone_loop():
    """Альфа and Бета press only with their phone link (none joined), Дельта's wire does not answer."""
    from controller.app.loop import Loop
    from controller.inputs.base import BackendStatus
    from controller.inputs.clock import ManualClock

    cfg = config.build({"buttons": "gpio", "gpio": {"pins": {"C": "GPIO22", "D": "GPIO23"}},
                        "teams": [{"name": "Альфа", "button": "A", "phone": True},
                                  {"name": "Бета", "button": "B", "phone": True},
                                  {"name": "Гамма", "button": "C"}, {"name": "Дельта", "button": "D"}]})
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock())

    class Chip:
        buttons = ("C", "D")

        def status(self):
            return BackendStatus("gpiod", True, missing=("D",))

        def button_keys(self):
            return {}

        def edges_seen(self):
            return {"C": 0, "D": 3}

        def set_lamp(self, button, state):
            pass

    loop.use(backend=Chip())
    loop.set_phone_buttons(["A", "B", "C", "D"])
    return loop


def test_the_terminal_names_the_teams_without_a_phone_and_those_not_answering():
    import io

    from controller.app.runner import model
    from controller.screens.terminal import Terminal

    loop = _phone_loop()
    out = io.StringIO()
    with open(os.devnull) as stdin:
        term = Terminal(loop.cfg, stream=out, stdin=stdin)
        term.open(loop)
        term.present(model(loop))
    text = out.getvalue()
    assert "Нет телефона: Альфа, Бета" in text, text
    assert "Не отвечают: Дельта (кнопка D)" in text, text
    en = status_line(engine.view(loop.state), "en", loop.status())
    assert "No phone: Альфа, Бета" in en and "Not responding: Дельта (button D)" in en, en


def test_the_projector_names_them_too(monkeypatch):
    import pygame

    from controller.screens import scoreboard as sb

    loop = _phone_loop()
    pygame.display.init()
    pygame.font.init()
    drawn: list[str] = []
    original = sb.Scoreboard._text
    monkeypatch.setattr(sb.Scoreboard, "_text", lambda self, surface, text, *a, **k:
                        (drawn.append(str(text)), original(self, surface, text, *a, **k))[1])
    status = loop.status()
    sb.Scoreboard((1280, 720)).draw(pygame.Surface((1280, 720)), engine.view(loop.state), 0, status=status)
    assert "Не отвечают: Дельта" in drawn, drawn
    status["missing"] = []
    drawn.clear()
    sb.Scoreboard((1280, 720)).draw(pygame.Surface((1280, 720)), engine.view(loop.state), 0, status=status)
    assert "Нет телефона: Альфа, Бета" in drawn, drawn


def test_the_buttons_never_pressed_at_the_end_are_named_by_their_teams(tmp_path, capsys):
    from controller.app import startup
    from controller.sessions import journal

    loop = _phone_loop()
    loop.cfg["journal"]["dir"] = str(tmp_path)
    loop.state = engine.step(loop.state, Host("end_game", 1_000_000_000, {}))[0]
    jr = journal.Journal(tmp_path / "current.jsonl", header={"config": loop.cfg, "seed": 1})
    startup._finish(loop, jr, loop.cfg)
    out = capsys.readouterr().out
    assert "Кнопки, ни разу не сработавшие за игру (проверьте подключение): Гамма (кнопка C)" in out, out
