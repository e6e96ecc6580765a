"""Every text the host reads during a game is in the game's language: notices on the
screen and the terminal's lines come from controller/i18n/__init__.py, never from an English
exception message or a raw key."""

import io
import random
import re

import pytest

from controller.app import config, startup
from controller.games import engine
from controller.inputs.keyboard import KeyboardBackend
from controller.inputs.clock import ManualClock
from controller.app.loop import Loop

MS = 1_000_000
CYRILLIC = re.compile("[А-Яа-яЁё]")
LATIN_WORD = re.compile("[A-Za-z]{3,}")

CONFIGS = [None, "config/own-game.toml", "config/brain-ring.toml", "config/chgk.toml", "config/mafia.toml",
           "examples/programme.toml"]


def _loop(path, tmp_path, seed):
    cfg = config.load(path)
    cfg["journal"]["dir"] = str(tmp_path / "journal")
    cfg["mafia"]["protocol_dir"] = str(tmp_path / "protocols")
    cfg["chgk"]["results_csv"] = str(tmp_path / "results.csv")       # not there: the import is refused
    clock = ManualClock(1_000 * MS)
    out = io.StringIO()
    loop = Loop(cfg, engine.new_game(cfg, seed), clock, out=out)
    loop.on_new_game = None
    keys = {t["button"]: t["key"] for t in cfg["teams"] if t.get("key")}
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue, {"keys": keys})
    return loop, clock, out


def _english(line: str) -> bool:
    """A notice with a Latin word and no Russian one («№ 4» and «Кнопка B залипла» are fine)."""
    return not CYRILLIC.search(line) and bool(LATIN_WORD.search(line))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p or "erudite")
def test_every_notice_of_a_russian_game_is_russian(path, tmp_path):
    """The host plays every key of the game (and of the other games) in random order,
    with pauses from a millisecond to 20 s; every notice shown must be Russian."""
    seen = set()
    for seed in range(4):
        loop, clock, out = _loop(path, tmp_path / str(seed), seed)
        keys = sorted(set(loop.host_keys.actions) | {t["key"] for t in loop.cfg["teams"] if t.get("key")})
        keys = [k for k in keys if loop.host_keys.actions.get(k) not in ("quit", "new_game", "help")]
        rnd = random.Random(seed)
        for _ in range(250):
            k = rnd.choice(keys)
            loop.key_down([k])
            loop.key_up([k])
            loop.drain()
            loop.drain()
            clock.advance(rnd.choice([1, 10, 500, 3_000, 20_000]) * MS)
            loop.tick_if_due()
            loop.drain()
        seen |= {line[2:] for line in out.getvalue().splitlines() if line.startswith("! ")}
    assert len(seen) > 5
    english = sorted(n for n in seen if _english(n))
    assert not english, english


def test_the_mafia_protocol_notice_is_russian(tmp_path):
    loop, clock, out = _loop("config/mafia.toml", tmp_path, 1)
    loop.key_down(["m"])                             # the mafia wins; no roles entered yet
    loop.drain()
    assert loop.notice.startswith("Нажмите ещё раз")    # it ends the game: a second press confirms
    loop.key_down(["m"])
    loop.drain()
    assert loop.notice.startswith("Протокол не составлен: не введена роль места 1. Запись стола сохранена: ")
    assert "incomplete" not in loop.notice and "players[0]" not in loop.notice


def test_the_chgk_jury_csv_problems_are_russian(tmp_path):
    loop, clock, out = _loop("config/chgk.toml", tmp_path, 1)
    csv = tmp_path / "results.csv"
    loop.key_down(["i"])
    loop.drain()
    assert loop.notice == f"{csv}: файл не найден"
    team = loop.cfg["teams"][0]["name"]
    csv.write_text(f"team,question,result\n{team},1,может\n", encoding="utf-8")
    loop.key_down(["i"])
    assert loop.notice == f"{csv}, строка 2: непонятный результат «может» (1/0, +/−, да/нет)"
    csv.write_text(f"{team};99;1\n", encoding="utf-8")            # 4 tours × 12 questions
    loop.key_down(["i"])
    assert loop.notice == f"{csv}, строка 1: нет вопроса 99 (номера 1–48)"


def test_a_key_of_another_round_of_a_programme_is_named_in_words(tmp_path):
    loop, clock, out = _loop("examples/programme.toml", tmp_path, 1)
    loop.key_down(["t"])            # «Время!» of Брейн-ринг while Своя игра is played
    loop.drain()
    assert loop.notice.startswith("«Время!»: старт отсчёта — не в этой игре")


def test_mafia_judge_notices_name_the_role_and_the_speech_in_words(tmp_path):
    loop, clock, out = _loop("config/mafia.toml", tmp_path, 1)
    for key in (["3"], ["r"], ["3"], ["r"], ["3"], ["r"]):      # civilian, mafia, don
        loop.key_down(key)
        loop.drain()
    assert loop.notice == "Игрок 3: дон"
    loop.key_down(["k"])
    loop.drain()
    assert loop.notice == "Вид: Оправдательная речь"


def test_the_lines_after_the_game_are_in_its_language(tmp_path, capsys):
    from controller.sessions import journal

    loop, clock, out = _loop(None, tmp_path, 1)
    jr = journal.Journal(tmp_path / "current.jsonl", header={"config": loop.cfg, "seed": 1})
    startup._finish(loop, jr, loop.cfg)
    # nothing was played: the next start archives this journal and begins anew, and says so
    assert "Ничего не сыграно: `buzzer run` начнёт новую игру" in capsys.readouterr().out
