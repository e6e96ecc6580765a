"""A newcomer's walk through every game (issue 23, what was still misleading after the first
round of fixes): what the host sees on the projector (the words the scoreboard draws), in the
terminal and in the notices, through the real loop and the keys of the shipped configs."""

from __future__ import annotations

from test_host_evening import F4, MS, frame, make_loop, press_f4, terminal, type_keys

from controller.app import config
from controller.games import engine
from controller.screens import viewmodel
from controller.screens.terminal import flash_line


def game(tmp_path, path: str):
    cfg = config.load(path)
    cfg["journal"]["dir"] = str(tmp_path)
    cfg["mafia"]["protocol_dir"] = str(tmp_path / "protocols")   # «Мафия» saves its protocol there
    return make_loop(cfg)


def help_frame(loop, name: str) -> list[str]:
    """Every text the projector draws with its key help (H) up, as the window builds it."""
    import os

    import pygame

    from controller.inputs.keys import mode_keys, mode_labels, team_keys
    from controller.screens import scoreboard as sb

    view = engine.view(loop.state, loop.clock.now())
    board = sb.Scoreboard((1280, 720), lang=loop.cfg["language"], keys=mode_keys(loop.cfg),
                          team_keys=team_keys(loop.cfg), labels=mode_labels(loop.cfg, loop.state))
    drawn: list[str] = []
    real = board._text
    board._text = lambda surface, text, *a, **kw: (drawn.append(str(text)), real(surface, text, *a, **kw))[1]
    surface = pygame.Surface((1280, 720))
    board.draw(surface, view, loop.clock.now(), help_overlay=True)
    if os.environ.get("BUZZER_TEST_PNG_DIR"):
        pygame.image.save(surface, os.path.join(os.environ["BUZZER_TEST_PNG_DIR"], f"{name}.png"))
    return drawn


def settle(loop, clock, ms: int = 3_000) -> None:
    """Time passes (a ruling's flash goes), nothing is pressed."""
    clock.advance(ms * MS)
    loop.tick_if_due()
    loop.drain()


# ---------------------------------------------------------------------------
# «Что? Где? Когда?»: a tie for the prize places is never ended silently

def chgk_tied(tmp_path):
    """ЧГК (config/chgk.toml: Альфа, Бета, Гамма): one question, Альфа and Бета right, Гамма wrong."""
    loop, clock = game(tmp_path, "config/chgk.toml")
    type_keys(loop, clock, "n1=2=3-")
    return loop, clock


def test_chgk_f4_on_a_tie_for_first_place_says_a_shootout_decides_it(tmp_path):
    loop, clock = chgk_tied(tmp_path)
    press_f4(loop, clock)
    assert "Поделены места 1–2" in loop.notice and "перестрелк" in loop.notice
    assert not loop.game.finished(loop.state)
    press_f4(loop, clock)
    assert loop.game.finished(loop.state)
    assert "Поделены места 1–2" in loop.notice_now()
    settle(loop, clock, 10_000)                       # the notice is long gone: the end screen says it
    _, drawn = frame(loop, "chgk-over-tied")
    assert any("Поделены места 1–2" in text and "перестрелк" in text for text in drawn)
    assert drawn.count("1–2") == 2                    # both teams' place, not «★ 1» twice
    assert not any(text.startswith("★") for text in drawn)
    line = terminal(loop)
    assert "Игра окончена" in line and "Поделены места 1–2" in line and "1–2. Альфа" in line
    standings = viewmodel.from_loop(loop)["audience"]["screen"]["standings"]   # what the pages get
    assert standings["note"] == "Поделены места 1–2: их решит перестрелка"
    assert [r["shared"] for r in standings["rows"]] == ["1–2", "1–2", None]


def test_chgk_f4_without_a_tie_asks_as_every_game_does_and_says_nothing_of_a_shootout(tmp_path):
    loop, clock = game(tmp_path, "config/chgk.toml")
    type_keys(loop, clock, "n1=2=3-n1=2-3-")          # 2, 1, 0: nothing shared
    press_f4(loop, clock)
    assert loop.notice == "Нажмите ещё раз: закончить игру и показать итоги"
    press_f4(loop, clock)
    settle(loop, clock, 10_000)
    _, drawn = frame(loop, "chgk-over")
    assert not any("перестрелк" in text for text in drawn)
    assert "★ 1" in drawn


def test_chgk_the_shootout_key_after_the_end_says_the_game_is_open_again(tmp_path):
    loop, clock = chgk_tied(tmp_path)
    press_f4(loop, clock)
    press_f4(loop, clock)
    settle(loop, clock, 10_000)
    type_keys(loop, clock, "o")
    assert not loop.game.finished(loop.state)
    assert loop.notice_now() == "Игра снова открыта: перестрелка за места 1–2"
    assert "Игра окончена" not in terminal(loop)
    # the shoot-out settles it: Бета right, Альфа wrong; the game ends by itself
    type_keys(loop, clock, "n1-2=")
    assert loop.game.finished(loop.state)
    settle(loop, clock, 10_000)
    _, drawn = frame(loop, "chgk-over-settled")
    assert not any("перестрелк" in text for text in drawn)
    assert [r["team"] for r in engine.view(loop.state)["standings"]][:2] == ["Бета", "Альфа"]
    type_keys(loop, clock, "o")                      # nothing left to decide: refused, the game stays over
    assert loop.game.finished(loop.state)
    assert loop.notice_now() == "Равенства нет — дополнительный бой не нужен"


# ---------------------------------------------------------------------------
# «Мафия»: the keys that end the game ask first, as F4 does

def test_mafia_t_and_m_end_the_game_only_on_a_second_press(tmp_path):
    loop, clock = game(tmp_path, "config/mafia.toml")
    type_keys(loop, clock, "t")
    assert loop.notice_now() == "Нажмите ещё раз: победа мирных, игра закончится"
    assert not loop.game.finished(loop.state)
    type_keys(loop, clock, "m")                      # another key: its own question, nothing ends
    assert loop.notice_now() == "Нажмите ещё раз: победа мафии, игра закончится"
    assert not loop.game.finished(loop.state)
    settle(loop, clock, 4_000)                       # too late for a second press: asked again
    assert loop.notice_now() == ""
    type_keys(loop, clock, "m")
    assert not loop.game.finished(loop.state)
    type_keys(loop, clock, "m")
    assert loop.game.finished(loop.state) and engine.view(loop.state)["winner"] == "mafia"
    assert "Победа мафии" in terminal(loop)


def test_mafia_the_host_pages_second_tap_ends_the_game_at_once(tmp_path):
    from controller.core.events import HostKey

    loop, clock = game(tmp_path, "config/mafia.toml")
    button = next(a for a in viewmodel.from_loop(loop)["host"]["actions"] if a["action"] == "town_wins")
    assert button["confirm"]                         # the page asks for its second tap itself
    loop.enqueue(HostKey("town_wins", {}, confirmed=True))
    loop.drain()
    assert loop.game.finished(loop.state) and engine.view(loop.state)["winner"] == "town"


# ---------------------------------------------------------------------------
# A typed number («№ 2») goes when what it was typed for has gone

def test_chgk_a_team_number_typed_before_the_next_question_is_forgotten_with_it(tmp_path):
    loop, clock = game(tmp_path, "config/chgk.toml")
    type_keys(loop, clock, "n2")
    assert loop.notice_now() == "№ 2"
    type_keys(loop, clock, "n")                       # the next question: the «2» was for the last one
    assert loop.notice_now() == "" and "№ 2" not in terminal(loop)
    type_keys(loop, clock, "3=")                      # Гамма, not «team 23»
    assert loop.notice_now() == "Гамма: ответ засчитан ✓"
    assert engine.view(loop.state)["question"]["results"] == {"Гамма": True}


def test_mafia_a_seat_typed_before_a_new_day_is_not_fouled_the_next_day(tmp_path):
    loop, clock = game(tmp_path, "config/mafia.toml")
    type_keys(loop, clock, "5")
    assert loop.notice_now() == "№ 5"
    type_keys(loop, clock, "n")                       # a new day
    assert loop.notice_now() == "" and "№ 5" not in terminal(loop)
    type_keys(loop, clock, "f")
    assert loop.notice_now() == "Сначала наберите номер места"
    assert engine.view(loop.state)["seats"][4]["fouls"] == 0


# ---------------------------------------------------------------------------
# «Мафия» has players at seats, not teams: its rename says so

def test_mafia_rename_is_worded_for_players_in_the_help_the_page_and_the_dialogue(tmp_path):
    from controller.screens.terminal import key_help

    loop, clock = game(tmp_path, "config/mafia.toml")
    f2 = next(line for line in key_help(loop.cfg, "ru").splitlines() if line.strip().startswith("F2"))
    assert f2.split(None, 1)[1].strip() == "Переименовать игрока"
    assert "команд" not in key_help(loop.cfg, "ru")
    vm = viewmodel.from_loop(loop)
    assert next(k["label"] for k in vm["host"]["keys"] if k["action"] == "rename") == "Переименовать игрока"
    assert next(a["label"] for a in vm["host"]["actions"] if a["action"] == "rename") == "Переименовать игрока"
    drawn = help_frame(loop, "mafia-help")            # the projector's key help (H)
    assert "Переименовать игрока" in drawn and not any("команд" in text for text in drawn)
    assert "Rename a player" in key_help(loop.cfg, "en")
    loop.key_down(["f2"])                             # the dialogue: a seat that is not at the table
    for d in "12":
        loop.key_down([d])
    loop.drain()
    assert loop.notice_now() == "Нет места № 12"


def test_a_team_games_rename_still_names_the_team(tmp_path):
    from controller.screens.terminal import key_help

    loop, _ = game(tmp_path, "config/default.toml")
    f2 = next(line for line in key_help(loop.cfg, "ru").splitlines() if line.strip().startswith("F2"))
    assert "Переименовать команду" in f2


# ---------------------------------------------------------------------------
# The holder's button, named as the player pressed it

def test_the_holder_is_shown_with_the_key_pressed_on_the_keyboard_not_the_buttons_id(tmp_path):
    loop, clock = game(tmp_path, "config/brain-ring.toml")
    type_keys(loop, clock, "ntq")                     # Альфа's button is the key Q (button id A)
    _, drawn = frame(loop, "brain-ring-holder-key")
    assert "Альфа" in drawn and "Клавиша Q" in drawn and "Кнопка A" not in drawn
    line = terminal(loop)
    assert "Отвечает: Альфа (Клавиша Q)" in line and "Кнопка A" not in line


def test_real_buttons_keep_their_names(tmp_path):
    """On GPIO or the serial box the id is what is written on the button: «Кнопка A» stays."""
    from controller.core.events import Host, Press

    loop, clock = game(tmp_path, "config/brain-ring.toml")
    loop.backend = None                               # no keyboard: the buttons of a box
    loop.apply(Host("question", clock.now(), {}))
    loop.apply(Host("start_clock", clock.now(), {}))
    loop.enqueue(Press("A", clock.now() + 1 * MS, 0))
    settle(loop, clock, 300)
    _, drawn = frame(loop, "brain-ring-holder-button")
    assert "Кнопка A" in drawn
    assert "Отвечает: Альфа (Кнопка A)" in terminal(loop)


# ---------------------------------------------------------------------------
# «Пауза» is what the host's pause key did, not a clock a team's press stopped

def test_brain_ring_a_press_stops_the_clock_and_only_the_pause_key_says_pause(tmp_path):
    loop, clock = game(tmp_path, "config/brain-ring.toml")
    type_keys(loop, clock, "ntq")                     # Альфа's press stops the clock: no pause
    line = terminal(loop)
    assert "Пауза" not in line and "ПАУЗА" not in line
    assert "Время на размышление: 60 (Остановлено)" in line
    type_keys(loop, clock, "s")                       # the host's pause key
    line = terminal(loop)
    assert "ПАУЗА" in line and "Время на размышление: 60 (Пауза)" in line
    type_keys(loop, clock, "s\x7f")                   # resumed, Альфа wrong: the clock runs for Бета
    assert "Пауза" not in terminal(loop) and "Остановлено" not in terminal(loop)


def test_brain_ring_the_big_countdown_says_pause_only_when_paused(tmp_path):
    loop, clock = game(tmp_path, "config/brain-ring.toml")
    type_keys(loop, clock, "nts")                     # the clock runs, the host pauses it
    _, drawn = frame(loop, "brain-ring-big-paused")
    assert "Пауза" in drawn and "Остановлено" not in drawn
    assert "(Пауза)" in terminal(loop)


# ---------------------------------------------------------------------------
# The second walk (notes/walk1.md): Брейн-ринг's final table is the whole game's, a fight
# with no winner says so, and R says what it does to a fight nobody played

def brain_ring_four_fights(tmp_path):
    """config/brain-ring.toml from the keys (Альфа q, Бета z): fights 3:0 (Альфа), 1:3 (Бета),
    3:2 (Альфа), then 1:0 stopped with R R (no winner); fight 5 is on, nothing played in it."""
    loop, clock = game(tmp_path, "config/brain-ring.toml")
    for fight in ("qqq", "zqzz", "zqzqq"):
        for team in fight:
            type_keys(loop, clock, f"nt{team}\n")
        type_keys(loop, clock, "r")
    type_keys(loop, clock, "ntq\nrr")
    return loop, clock


def test_brain_ring_the_final_table_counts_every_fight_not_the_last(tmp_path):
    loop, clock = brain_ring_four_fights(tmp_path)
    assert engine.view(loop.state)["fight"] == 5
    press_f4(loop, clock)
    press_f4(loop, clock)
    assert loop.game.finished(loop.state)
    settle(loop, clock, 10_000)
    line = terminal(loop)
    assert "Альфа · Победы в боях: 2 (Очки: 8)" in line and "Бета · Победы в боях: 1 (Очки: 5)" in line
    assert line.index("★ 1. Альфа") < line.index("2. Бета")      # one winner, by fights won
    _, drawn = frame(loop, "brain-ring-final-table")
    assert "Победы в боях" in drawn and "Очки" in drawn
    assert drawn.count("★ 1") == 1 and "2" in drawn and "8" in drawn and "5" in drawn
    standings = viewmodel.from_loop(loop)["audience"]["screen"]["standings"]   # what the pages get
    assert [(r["name"], r["points"], r["won"]) for r in standings["rows"]] == [("Альфа", 2, 8), ("Бета", 1, 5)]
    summary = engine.summary(loop.state)
    assert [(r["team"], r["place"], r["fights_won"]) for r in summary["standings"]] == [("Альфа", 1, 2), ("Бета", 2, 1)]


def test_programme_brain_ring_round_table_counts_every_fight(tmp_path):
    loop, clock = game(tmp_path, "examples/programme.toml")
    type_keys(loop, clock, "rr")                             # on to Брейн-ринг (fights to 2)
    for fight in ("qq", "zz"):                               # Альфа 2:0, then Бета 2:0
        for team in fight:
            type_keys(loop, clock, f"nt{team}\n")
        type_keys(loop, clock, "r")
    type_keys(loop, clock, "ntq\n")                          # fight 3: Альфа 1:0
    press_f4(loop, clock)
    press_f4(loop, clock)
    settle(loop, clock, 10_000)
    line = terminal(loop)
    assert "Альфа · Победы в боях: 1 (Очки: 3)" in line and "Бета · Победы в боях: 1 (Очки: 2)" in line
    assert "★ 1. Альфа" in line and "2. Бета" in line


def test_brain_ring_a_fight_stopped_with_no_winner_flashes_so(tmp_path):
    loop, clock = game(tmp_path, "config/brain-ring.toml")
    type_keys(loop, clock, "ntz\nr")
    assert loop.notice == "Нажмите ещё раз: бой 1 — закончится без победителя, начнётся бой 2"
    type_keys(loop, clock, "r")
    flash = loop.current_flash()
    assert flash_line(flash, "ru") == "» Бой без победителя"
    assert flash_line(flash, "en") == "» Fight with no winner"
    assert loop.notice == "Бой 1 — закончен без победителя, начался бой 2"


def test_brain_ring_r_in_a_fight_nobody_played_asks_and_says_it_skipped_it(tmp_path):
    loop, clock = game(tmp_path, "examples/programme.toml")
    type_keys(loop, clock, "rr")                             # on to Брейн-ринг, as asked
    assert engine.view(loop.state)["fight"] == 1
    type_keys(loop, clock, "r")                              # nothing played in fight 1: R asks
    assert loop.notice == "Нажмите ещё раз: бой 1 — не сыгран и будет пропущен, начнётся бой 2"
    assert engine.view(loop.state)["fight"] == 1
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["fight"] == 2
    assert loop.notice == "Бой 1 — пропущен, начался бой 2"
    assert "Бой 1 — пропущен, начался бой 2" in terminal(loop)


def test_brain_ring_r_after_a_won_fight_starts_the_next_at_once_and_says_so(tmp_path):
    loop, clock = game(tmp_path, "config/brain-ring.toml")
    for _ in range(3):
        type_keys(loop, clock, "ntz\n")
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["fight"] == 2
    assert loop.notice == "Начался бой 2"


# ---------------------------------------------------------------------------
# «Мафия»: the roles are the judge's alone, even with the host's notices on the projector

def projector_texts(loop, name: str) -> list[str]:
    """Every text the projector draws now, with the config's own [display] host_overlay (true
    by default: the host's notices are drawn on it), as the window builds its frame."""
    import os

    import pygame

    from controller.screens import scoreboard as sb

    vm = viewmodel.from_loop(loop)
    view, flash, status, help_on = viewmodel.projector(vm, loop.cfg["display"]["host_overlay"])
    board = sb.Scoreboard((1280, 720), lang=loop.cfg["language"])
    drawn: list[str] = []
    real = board._text
    board._text = lambda surface, text, *a, **kw: (drawn.append(str(text)), real(surface, text, *a, **kw))[1]
    surface = pygame.Surface((1280, 720))
    board.draw(surface, view, loop.clock.now(), flash=flash, status=status, help_overlay=help_on)
    if os.environ.get("BUZZER_TEST_PNG_DIR"):
        pygame.image.save(surface, os.path.join(os.environ["BUZZER_TEST_PNG_DIR"], f"{name}.png"))
    return drawn


def test_mafia_a_role_entered_is_told_to_the_judge_but_never_drawn_on_the_projector(tmp_path):
    """The walk (item 15): `9` `r` answers «Игрок 9: …» in the host notice line, which the
    projector draws by default (host_overlay = true). The judge's terminal and page say it;
    the projector shows no role, and no night check (whose check, whom: secrets too)."""
    loop, clock = game(tmp_path, "config/mafia.toml")
    assert loop.cfg["display"]["host_overlay"] is True
    type_keys(loop, clock, "5")
    assert "№ 5" in " ".join(projector_texts(loop, "mafia-typed"))   # the host's notices are drawn there
    type_keys(loop, clock, "9r")
    assert loop.notice_now().startswith("Игрок 9: ")
    assert loop.notice_now() in terminal(loop)
    assert viewmodel.from_loop(loop)["host"]["notice"] == loop.notice_now()       # the host page's line
    drawn = " ".join(projector_texts(loop, "mafia-role"))
    assert "Игрок 9:" not in drawn and loop.notice_now() not in drawn, drawn


# ---------------------------------------------------------------------------
# Walk 1, items 9-12: ЧГК's team numbers, shared places, the running clock, undo

def programme_chgk(tmp_path):
    """examples/programme.toml played on to its ЧГК round (Бета, Альфа, Гамма: «1» is Бета)."""
    from test_programme import type_keys as programme_keys

    loop, clock = game(tmp_path, "examples/programme.toml")
    programme_keys(loop, clock, "rr<F4><F4>rr")           # Своя игра, Брейн-ринг ended at once, on to game 3
    assert engine.view(loop.state)["mode"] == "chgk"
    return loop, clock


def test_programme_chgk_the_typed_team_number_shows_as_when_played_alone(tmp_path):
    loop, clock = programme_chgk(tmp_path)
    type_keys(loop, clock, "n2")
    assert loop.notice_now() == "№ 2"
    assert "№ 2" in terminal(loop)
    type_keys(loop, clock, "=")
    assert loop.notice_now() == "Альфа: ответ засчитан ✓"


def test_chgk_each_card_shows_the_number_the_host_types_for_the_team(tmp_path):
    loop, clock = programme_chgk(tmp_path)
    line = terminal(loop)
    assert "№1 Бета 0" in line and "№2 Альфа 0" in line and "№3 Гамма 0" in line
    _, drawn = frame(loop, "programme-chgk-numbers")
    assert "№1 Бета" in drawn and "№2 Альфа" in drawn and "№3 Гамма" in drawn
    cards = viewmodel.from_loop(loop)["audience"]["screen"]["cards"]["items"]   # what the pages get
    assert [(c["entry"], c["name"]) for c in cards] == [(1, "Бета"), (2, "Альфа"), (3, "Гамма")]
    alone, clock = game(tmp_path / "alone", "config/chgk.toml")
    assert "№1 Альфа 0" in terminal(alone) and "№3 Гамма 0" in terminal(alone)


def test_chgk_tied_teams_cards_show_the_shared_range_as_the_table_does(tmp_path):
    loop, clock = chgk_tied(tmp_path)
    settle(loop, clock)
    line = terminal(loop)
    assert "Альфа 1 (место 1–2)" in line and "Бета 1 (место 1–2)" in line and "Гамма 0 (место 3)" in line
    _, drawn = frame(loop, "chgk-tied-cards")
    assert drawn.count("1–2") == 2 and "3" in drawn
    cards = viewmodel.from_loop(loop)["audience"]["screen"]["cards"]["items"]
    assert [c["place"] for c in cards] == ["1–2", "1–2", 3]


def test_chgk_the_clock_running_notice_names_the_keys_that_go_on(tmp_path):
    loop, clock = game(tmp_path, "config/chgk.toml")
    type_keys(loop, clock, "n ")                          # the question, «Время!»
    type_keys(loop, clock, "n")
    assert loop.notice_now() == ("Отсчёт уже идёт: дождитесь его конца или остановите его (S / Num .), "
                                 "затем N — следующий вопрос")
    type_keys(loop, clock, "s")                           # as it says: the pause, then N
    type_keys(loop, clock, "n")
    assert engine.view(loop.state)["question"]["label"] == "1.2"
    cfg = config.load("config/chgk.toml")                 # the words follow the key map
    cfg["journal"]["dir"] = str(tmp_path / "own-keys")
    cfg["chgk"]["keys"]["question"] = ["q"]
    cfg["keys"]["pause"] = ["p"]
    loop, clock = make_loop(cfg)
    type_keys(loop, clock, "q q")
    assert loop.notice_now().endswith("остановите его (P), затем N / Q — следующий вопрос")


def test_chgk_undo_takes_back_the_last_mark(tmp_path):
    loop, clock = game(tmp_path, "config/chgk.toml")
    type_keys(loop, clock, "n1=2=")
    assert "Альфа 1" in terminal(loop) and "Бета 1" in terminal(loop)
    preview = viewmodel.from_loop(loop)["host"]["undo"]     # the host page says what it would change
    assert preview == {"changes": [{"team": "Бета", "score": 1, "after": 0}]}
    type_keys(loop, clock, "u")
    assert "Отменено" in terminal(loop)
    assert engine.view(loop.state)["question"]["results"] == {"Альфа": True}
    type_keys(loop, clock, "u")
    assert engine.view(loop.state)["question"]["results"] == {}
    type_keys(loop, clock, "u")
    assert loop.notice_now() == "Нечего отменять"
    type_keys(loop, clock, "1=n")                         # the next question: the last one's marks stay
    type_keys(loop, clock, "u")
    assert loop.notice_now() == "Нечего отменять" and "Альфа 1" in terminal(loop)
