"""Headless mode: the status line and the key help a host reads in the terminal."""

from controller import config, engine
from controller.events import Host, Press, Tick
from controller.terminal import key_help, status_line


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
    assert "Вопрос 1 (30)" in line and "Отвечает: Бета" in line
    assert "⏱ 6.0" in line and "Альфа 0" in line
