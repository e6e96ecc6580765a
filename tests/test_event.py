"""The organiser's event file (controller/content/event.py, docs/event-file.md): loaded,
checked with one line naming the key, and played: `buzzer check-config` and `buzzer run --event`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from controller.app import config
from controller.sessions import journal as journal_mod
from controller.sessions import script as script_mod
from controller.cli import main
from controller.content import event as event_mod
from controller.games import engine
from controller.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "event.toml"


def buzzer(capsys, *args):
    rc = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_the_example_event_file_loads_with_its_teams_players_and_themes():
    ev = event_mod.parse_file(EXAMPLE)
    assert [t["name"] for t in ev["teams"]] == ["Альфа", "Бета", "Гамма", "Дельта"]
    assert ev["teams"][0]["players"] == ["Аня", "Борис", "Вера", "Глеб", "Дина"]
    assert [g["mode"] for g in ev["games"]] == ["erudite", "chgk", "own-game"]
    fights = ev["games"][0]["fights"]
    assert [f["type"] for f in fights] == ["light", "half-dark", "dark"]
    assert fights[0]["themes"] == ["Реки России", "Кино", "Химия", "Спорт"]
    assert fights[0]["questions"][0] == {"round": 1, "nominal": 10, "text": "Самая длинная река Европы.",
                                         "answer": "Волга"}
    # the package is named for the Своя игра reader, relative to the event file
    assert ev["games"][2]["pack"] == str(EXAMPLE.parent.resolve() / "own-game.siq")


def test_a_config_playing_the_event_has_its_teams_with_names_and_sounds():
    cfg = config.attach_event(config.load(), EXAMPLE)
    assert [(t["name"], t["players"], t["sound"]) for t in cfg["teams"]] == [
        ("Альфа", 5, "press-1"), ("Бета", 4, "press-2"), ("Гамма", 3, "press-3"), ("Дельта", 4, "press-4")]
    assert cfg["teams"][2]["roster"] == ["Кира", "Лев", "Маша"]
    assert cfg["event"]["game"]["fights"][1]["themes"][0] == "Живопись"
    # the game takes the event's fight types over erudite.fight_types
    state = engine.new_game(config.build({"erudite": {"fight_types": ["dark"]}}, base=cfg), 1)
    assert state.rules.fight_types[:3] == ("light", "half-dark", "dark")
    own = config.attach_event(config.load(ROOT / "config" / "own-game.toml"), EXAMPLE)
    assert [t["name"] for t in own["teams"]] == ["Альфа", "Бета", "Гамма"]
    assert event_mod.pack_path(own).endswith("own-game.siq")


def test_without_an_event_file_the_config_is_as_before():
    cfg = config.load()
    assert "event" not in cfg and cfg["event_file"] == ""
    assert all(set(t) == {"name", "button", "key", "color", "players"} for t in cfg["teams"])


BAD = [
    ('[[teams]]\nname = "A"\nplayers = ["1","2","3","4","5","6","7","8","9"]\n',
     "teams[0].players: игроков в заявке: 9, а можно не больше 8 (seed §2.4)"),
    ('[[teams]]\nname = "A"\nplayers = ["Аня", "аня"]\n', "teams[0].players[1]: игрок 'аня' назван в команде дважды"),
    ('[[teams]]\nname = "A"\ncaptain = "x"\n', "teams[0].captain: неизвестный ключ; можно: button, city"),
    ('[[teams]]\nname = "A"\n[[games]]\nmode = "erudite"\n[[games.fights]]\ntype = "grey"\n',
     "games[0].fights[0].type: неизвестный тип боя \"grey\"; можно: light, half-dark или dark"),
    ('[[teams]]\nname = "A"\n[[games]]\nmode = "erudite"\nteams = ["B"]\n', "games[0].teams[0]: в [[teams]] нет команды \"B\""),
    ('[[teams]]\nname = "A"\n[[games]]\nmode = "darts"\n', "games[0].mode: нужно одно из: erudite, "),
    ('[[teams]]\nname = "A"\nsound = "trumpet"\n', "teams[0].sound: нужно имя звука (press-1, "),
    ('[[teams]]\nname = "A"\n[[teams]]\nname = "B"\n[[games]]\nmode = "erudite"\n[[games.fights]]\n'
     'themes = ["1", "2", "3", "4", "5"]\n', "games[0].fights[0].themes: тем: 5, а в бою раундов: 4"),
    ('[[teams]]\nname = "A"\n[[teams]]\nname = "B"\n[[games]]\nmode = "erudite"\n[[games.fights]]\n'
     '[[games.fights.questions]]\nround = 1\nnominal = 15\n', "games[0].fights[0].questions[0].nominal: не из erudite.nominals (10, 20, 30, 40, 50): 15"),
    ('teams = 3\n', "teams: нужен массив таблиц"),
    ('[[teams]\n', "ошибка в TOML: "),
    ('title = 5\n', "title: нужно непустое значение (заголовок), получено 5"),
    ('[buttons]\nx = 1\n', "buttons: неизвестный ключ; можно: games, teams, title"),
    ('[[teams]]\nname = "%s"\n' % ("Я" * 61), "teams[0].name: слишком длинно: длина 61, можно не больше 60"),
]


@pytest.mark.parametrize("text, message", [
    ('title = 5\n', "title: expected a non-empty title, got 5"),
    ('[buttons]\nx = 1\n', "buttons: unknown key; allowed: games, teams, title"),
    ('[[teams]]\nname = "A"\n[[games]]\nmode = "erudite"\n[[games.fights]]\ntype = "grey"\n',
     "games[0].fights[0].type: unknown fight type \"grey\"; use light, half-dark or dark"),
    ('[[teams]]\nname = "A"\n[[teams]]\nname = "B"\n[[games]]\nmode = "erudite"\n[[games.fights]]\n'
     'themes = ["1", "2", "3", "4", "5"]\n',
     "games[0].fights[0].themes: 5 themes, but a fight has 4 rounds (erudite.rounds_per_fight)"),
    ('[[teams]]\nname = "A"\n[[games]]\nmode = "mafia"\nquestions_4s = "pack.4s"\n',
     "games[0].questions_4s: a 4s pack gives questions to a game of mode erudite, brain-ring, chgk, not to 'mafia'"),
])
def test_a_bad_event_file_is_said_in_english_with_lang_en(tmp_path, capsys, text, message):
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    rc, out, err = buzzer(capsys, "run", "--event", path, "--lang", "en")
    assert rc == 2 and out == "" and err == f"buzzer: {path}: {message}\n"


@pytest.mark.parametrize("text, message", BAD)
def test_a_bad_event_file_is_one_line_naming_the_key_and_exit_2(tmp_path, capsys, text, message):
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    rc, out, err = buzzer(capsys, "check-config", "--event", path)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"buzzer: {path}: ") and message in err, err


def test_check_config_accepts_the_example_event_file_alone_or_with_a_config(capsys):
    rc, out, _ = buzzer(capsys, "check-config", EXAMPLE)
    assert rc == 0
    assert "OK («Изумрудный город: 7 классы», игра 1: Эрудит-квартет, 4 команды, 16 игроков, 3 боя с темами" in out
    rc, out, _ = buzzer(capsys, "check-config", ROOT / "config" / "own-game.toml", "--event", EXAMPLE)
    assert rc == 0 and "игра 3: Своя игра, 3 игрока, пакет own-game.siq" in out


def test_the_event_file_key_of_a_config_is_relative_to_the_config(tmp_path, capsys):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "ev.toml").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    cfg_path = tmp_path / "game.toml"
    cfg_path.write_text('event_file = "sub/ev.toml"\n', encoding="utf-8")
    cfg = config.load(cfg_path)
    assert cfg["event_file"] == str((tmp_path / "sub" / "ev.toml").resolve())
    assert cfg["teams"][1]["roster"][0] == "Егор"
    cfg_path.write_text('event_file = "missing.toml"\n', encoding="utf-8")
    rc, _, err = buzzer(capsys, "check-config", cfg_path)
    assert rc == 2 and "missing.toml: файл события не найден" in err
    cfg_path.write_text('event_file = "sub/ev.toml"\nevent_game = 2\n', encoding="utf-8")
    rc, _, err = buzzer(capsys, "check-config", cfg_path)
    assert rc == 2 and "event_game: игра 2 в файле события — chgk, а конфигурация играет erudite" in err


def test_a_mafia_config_with_an_event_file_is_refused_naming_the_key(capsys):
    rc, _, err = buzzer(capsys, "check-config", ROOT / "config" / "mafia.toml", "--event", EXAMPLE)
    assert rc == 2 and "event_file: файл события не используется в режиме mafia" in err


def test_buzzer_run_event_plays_the_event_and_journals_it(tmp_path):
    """`buzzer run --event` (headless): the teams on the screen are the event's, the journal's
    header holds the event so a resumed game needs no file."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "0.5",
                           "--event", str(EXAMPLE)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert "Альфа" in proc.stdout and "Дельта" in proc.stdout
    journals = [p for p in (tmp_path / "journal").rglob("*.jsonl") if p.is_file()]
    assert journals
    cfg = journal_mod.read(journals[0]).header["config"]
    assert cfg["event"]["game"]["fights"][0]["themes"][0] == "Реки России"
    assert cfg["teams"][0]["roster"][0] == "Аня"


CHGK_EVENT = '''title = "Кубок ЧГК"
[[teams]]
name = "Альфа"
[[teams]]
name = "Бета"
[[games]]
mode = "chgk"
[[games.tours]]
title = "Тур 1"
[[games.tours.questions]]
text = "Вопрос"
answer = "Ответ"
'''


def test_an_event_file_of_another_game_alone_is_checked_and_played_as_that_game(tmp_path, capsys):
    """No config chose the game: a ЧГК event file is checked (on its own or with --event) and
    played (`buzzer run --event`) as ЧГК, not as the default config's Эрудит-квартет; a config
    given is still the one that says what is played."""
    path = tmp_path / "chgk.toml"
    path.write_text(CHGK_EVENT, encoding="utf-8")
    for args in ((path,), ("--event", path)):
        rc, out, err = buzzer(capsys, "check-config", *args)
        assert rc == 0, err
        assert out.endswith(": OK («Кубок ЧГК», игра 1: Что? Где? Когда?, 2 команды, кнопки: keyboard)\n"), out
        assert "Эрудит" not in out
    rc, out, _ = buzzer(capsys, "check-config", ROOT / "config" / "default.toml", "--event", path)
    assert rc == 0 and "игра -: Эрудит-квартет" in out      # that config plays Эрудит-квартет
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "0.5",
                           "--event", str(path)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    journals = [p for p in (tmp_path / "journal").rglob("*.jsonl") if p.is_file()]
    cfg = journal_mod.read(journals[0]).header["config"]
    assert cfg["mode"] == "chgk" and cfg["event"]["game_number"] == 1
    assert cfg["event"]["game"]["tours"][0]["questions"][0]["text"] == "Вопрос"


def test_a_script_setup_event_is_relative_to_the_script(tmp_path):
    script = tmp_path / "s.jsonl"
    (tmp_path / "e.toml").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    script.write_text('{"setup": {"event": "e.toml"}}\n{"at": 1.0, "host": "question"}\n', encoding="utf-8")
    out = script_mod.result(script_mod.run(script_mod.load(script)))
    assert out["questions"][0]["theme"] == "Реки России"       # the event's theme, announced with it
    assert set(out["players"]["Гамма"]) == {"Кира", "Лев", "Маша"}
    script.write_text('{"setup": {"event": "nope.toml"}}\n', encoding="utf-8")
    with pytest.raises(Exception) as exc:
        script_mod.run(script_mod.load(script))
    assert "nope.toml: event file not found" in str(exc.value) and ":1:" in str(exc.value)


def test_an_event_file_too_large_is_refused(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text("# " + "x" * (event_mod.MAX_FILE_BYTES + 10) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="larger than"):
        event_mod.parse_file(path)


def test_the_example_event_files_package_is_in_the_repository_and_plays(tmp_path):
    """docs/event-file.md runs `buzzer run -c config/own-game.toml --event examples/event.toml`:
    the package it names is there and is read into the game (no «file not found»)."""
    import io

    from controller.content import packs
    from controller.games import engine

    assert (ROOT / "examples" / "own-game.siq").is_file()
    cfg = config.load(str(ROOT / "config" / "own-game.toml"))
    err = io.StringIO()
    assert packs.attach(cfg, str(ROOT / "examples" / "own-game.siq"), out=err), err.getvalue()
    view = engine.view(engine.new_game(cfg, 1))
    assert view["pack"]["board"], "the board of themes and prices"


def test_a_chgk_game_from_the_event_file_names_its_tour_and_gives_the_host_the_question(tmp_path):
    """The event file's ЧГК tours: the tour's title in the header for everyone; the question's
    text and answer for the host only (the view model keeps them off the audience's part)."""
    from controller.games import engine
    from controller.core.events import Host
    from controller.screens import common, viewmodel

    cfg_path = tmp_path / "chgk.toml"
    cfg_path.write_text(f'mode = "chgk"\nevent_file = "{EXAMPLE}"\nevent_game = 2\n', encoding="utf-8")
    cfg = config.load(str(cfg_path))
    state = engine.new_game(cfg, 1)
    state, _ = engine.step(state, Host("question", 1_000_000, {}))
    view = engine.view(state)
    assert view["tour_title"] == "Тур 1"
    assert view["host"] == {"question_text": "Вопрос 1", "answer": "Ответ 1"}
    assert "Тур 1" in common.structure(view, "ru")     # the header: «Тур 1/4 · Тур 1»
    vm = viewmodel.build(view, lang="ru")
    assert "Ответ 1" not in str(vm["audience"]) and vm["host"]["game"]["answer"] == "Ответ 1"
