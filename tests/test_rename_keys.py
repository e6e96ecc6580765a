"""Renaming a team from the keyboard: F2, the team's number or button, the name typed as text
(pygame TEXTINPUT, the terminal's characters), Enter; on the screen, in the terminal, in the
journal and after a restart."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from controller.app import config
from controller.sessions import journal
from controller.games import engine  # noqa: E402
from controller.screens import screenshot  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.inputs.clock import ManualClock  # noqa: E402
from controller.screens.scoreboard import Scoreboard  # noqa: E402
from controller.core.events import Host, Press  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.screens.terminal import feed, key_help, status_line  # noqa: E402

MS = 1_000_000
ROOT = Path(__file__).resolve().parents[1]


def make_loop(cfg=None, jr=None):
    cfg = cfg or config.load()
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=jr)
    if cfg["mode"] != "mafia":
        loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                       {"keys": {t["button"]: t["key"] for t in cfg["teams"]}})
    return loop, clock


def key(loop, name, text=None):
    """One keystroke as the pygame window delivers it: KEYDOWN, its TEXTINPUT (if the key
    types a character), KEYUP."""
    loop.key_down([name])
    if text is not None:
        loop.text_input(text)
    loop.key_up([name])
    loop.drain()


def names(loop):
    return [t["name"] for t in engine.view(loop.state)["teams"]]


def test_f2_team_number_typed_name_enter_renames_the_team_and_journals_it(tmp_path):
    jr = journal.Journal(tmp_path / "j.jsonl", header={"config": config.load(), "seed": 1, "started": "now"})
    loop, clock = make_loop(jr=jr)
    key(loop, "f2")
    assert loop.status()["entry"]["title"] == "Переименовать: номер команды или её кнопка"
    key(loop, "2", "2")                          # the digit picks team 2; its own character is not text
    assert loop.status()["entry"]["text"] == "Бета"      # the current name, to correct it
    for ch, name in (("-", "minus"), ("2", "2"), ("x", "x")):
        key(loop, name, ch)
    key(loop, "backspace")                       # a typo taken back
    assert loop.status()["entry"]["text"] == "Бета-2"
    assert names(loop) == ["Альфа", "Бета", "Гамма", "Дельта"]   # nothing happens before Enter
    key(loop, "return")
    assert names(loop) == ["Альфа", "Бета-2", "Гамма", "Дельта"]
    assert loop.status()["entry"] is None and "Бета → Бета-2" in loop.status()["notice"]
    assert "Бета-2 0" in status_line(engine.view(loop.state))             # the terminal's status line
    jr.close()
    events = journal.read(tmp_path / "j.jsonl").events
    assert events == [Host("rename", events[0].at, {"team": 2, "name": "Бета-2"})]
    state, _, _, _ = journal.replay(journal.read(tmp_path / "j.jsonl"))
    assert [t["name"] for t in engine.view(state)["teams"]][1] == "Бета-2"


def test_cyrillic_text_and_the_host_keys_do_nothing_else_while_typing():
    loop, clock = make_loop()
    key(loop, "f2")
    key(loop, "m", "m")                          # team Дельта's key picks Дельта: no press
    key(loop, "delete")                          # start afresh
    for ch in "Новая «Дельта»":
        key(loop, "n" if ch == "Н" else "space" if ch == " " else "unknown", ch)   # N is the question key
    assert engine.view(loop.state)["question"] is None            # no question was announced
    assert loop.backend.lamps == {} or all(v == "off" for v in loop.backend.lamps.values())
    key(loop, "return")
    assert names(loop)[3] == "Новая «Дельта»"
    key(loop, "n")                               # the keys act again after Enter
    assert engine.view(loop.state)["question"] is not None


def test_esc_cancels_and_a_bad_name_is_a_notice():
    loop, clock = make_loop()
    key(loop, "f2")
    key(loop, "3", "3")
    key(loop, "x", "x")
    key(loop, "escape")
    assert names(loop) == ["Альфа", "Бета", "Гамма", "Дельта"] and loop.running
    assert loop.notice == "Переименование отменено" and loop.status()["entry"] is None
    key(loop, "f2")
    key(loop, "3", "3")
    key(loop, "delete")
    for ch in "альфа":
        key(loop, "unknown", ch)
    key(loop, "return")                          # another team's name: refused, told
    assert names(loop)[2] == "Гамма" and loop.notice == "Имя «альфа» уже занято"
    key(loop, "f2")
    key(loop, "7", "7")                          # no team 7
    assert loop.notice == "Нет команды с номером 7" and loop.rename.number is None
    key(loop, "escape")


def test_a_players_button_picks_the_team_and_is_not_a_press(tmp_path):
    jr = journal.Journal(tmp_path / "j.jsonl", header={"config": config.load(), "seed": 1, "started": "now"})
    loop, clock = make_loop(jr=jr)
    key(loop, "n")                               # a question is open: a press would take the answer right
    key(loop, "f2")
    loop.enqueue(Press("C", clock.now(), clock.now()))   # Гамма's button (GPIO, the serial box)
    loop.drain()
    clock.advance(10 * MS)
    loop.tick_if_due()
    assert not any(t["holder"] for t in engine.view(loop.state)["teams"])
    for ch in "-3":
        loop.text_input(ch)
    key(loop, "return")
    assert names(loop)[2] == "Гамма-3"
    jr.close()
    assert [e.action for e in journal.read(tmp_path / "j.jsonl").events if isinstance(e, Host)] == [
        "question", "rename"]
    assert not any(isinstance(e, Press) for e in journal.read(tmp_path / "j.jsonl").events)


def test_mafia_seat_ten_is_typed_and_renamed():
    loop, clock = make_loop(config.load("config/mafia.toml"))
    key(loop, "f2")
    assert loop.status()["entry"]["title"] == "Переименовать: номер места"
    key(loop, "1", "1")                          # 1 may be seat 1 or seat 10: wait
    assert loop.rename.number is None and loop.status()["entry"]["text"] == "1"
    key(loop, "0", "0")
    assert loop.status()["entry"]["text"] == "Кирилл"
    for ch in " К.":
        loop.text_input(ch)
    key(loop, "return")
    assert engine.view(loop.state)["seats"][9]["name"] == "Кирилл К."
    assert loop.notice == "Место 10: Кирилл К."


def test_the_terminal_types_the_name_from_its_characters():
    loop, clock = make_loop()
    feed(loop, "\x1b[12~")                      # F2 as a terminal sends it
    feed(loop, "2")
    feed(loop, "\x7f\x7f\x7f\x7fБэта")           # four Backspaces, then Cyrillic text
    assert loop.entry()["text"] == "Бэта"
    from controller.screens.terminal import entry_line
    assert "Бэта▌" in entry_line(loop.entry()) and "Enter" in entry_line(loop.entry())
    feed(loop, "\n")
    loop.drain()
    assert names(loop)[1] == "Бэта"
    assert "Q = Альфа  Z = Бэта" in key_help(loop.cfg, "ru", engine.view(loop.state))
    assert "F2" in key_help(loop.cfg, "ru") and "Переименовать команду" in key_help(loop.cfg, "ru")


def _draw(view, status=None, size=(1280, 720)):
    surface = pygame.Surface(size)
    Scoreboard(size).draw(surface, view, 0, status=status)
    return pygame.image.tobytes(surface, "RGB")


def test_the_screen_shows_the_new_name_exactly_as_a_team_named_so_from_the_start(tmp_path):
    head = ('{"setup": {"mode": "erudite", "teams": [{"name": "Альфа", "button": "A"}, {"name": "%s", "button": "B"}],'
            ' "seed": 1}}\n{"at": 1.0, "host": "question", "nominal": 30}\n{"at": 2.0, "press": "B"}\n')
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_text(head % "Бета" + '{"at": 3.0, "host": "rename", "team": 2, "name": "Бета-2"}\n',
                       encoding="utf-8")
    born = tmp_path / "born.jsonl"
    born.write_text(head % "Бета-2", encoding="utf-8")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(head % "Бета", encoding="utf-8")

    def shot(path):
        return pygame.image.tobytes(screenshot.render(str(path), 3.5, (1280, 720)), "RGB")
    assert shot(renamed) == shot(born)           # Бета-2 holds the answer right, on its card and the panel
    assert shot(renamed) != shot(plain)


def test_the_screen_shows_the_name_being_typed_to_the_host():
    loop, clock = make_loop()
    key(loop, "f2")
    key(loop, "2", "2")
    view = engine.view(loop.state)
    typing = _draw(view, loop.status())
    loop.text_input("!")
    more = _draw(view, loop.status())
    key(loop, "escape")
    idle = _draw(view, loop.status())
    assert typing != idle and more != typing     # the dialogue is drawn; each letter shows


def test_the_pygame_window_takes_the_keys_and_the_text_input_events():
    """The real window loop (dummy video driver) fed the events SDL sends for F2, 2, «-ё», Enter."""
    from controller.app.runner import run_window_here as run_window

    loop, clock = make_loop()
    step_once, posted = loop.step_once, []

    def post_once(wait):
        if not posted:
            posted.append(True)
            ev = pygame.event.Event
            for e in (ev(pygame.KEYDOWN, key=pygame.K_F2), ev(pygame.KEYUP, key=pygame.K_F2),
                      ev(pygame.KEYDOWN, key=pygame.K_2), ev(pygame.TEXTINPUT, text="2"),
                      ev(pygame.KEYUP, key=pygame.K_2), ev(pygame.TEXTINPUT, text="-"),
                      ev(pygame.TEXTINPUT, text="ё"), ev(pygame.KEYDOWN, key=pygame.K_RETURN)):
                pygame.event.post(e)
        step_once(wait)
    loop.step_once = post_once
    run_window(loop, 0.5)
    assert names(loop) == ["Альфа", "Бета-ё", "Гамма", "Дельта"]


def test_buzzer_run_headless_renames_and_a_restart_keeps_the_name(tmp_path):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))

    def run(chunks, seconds="4"):
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", seconds],
                                cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        for chunk in chunks:
            time.sleep(0.3)
            proc.stdin.write(chunk.encode())
            proc.stdin.flush()
        out, err = proc.communicate(timeout=30)
        return proc.returncode, out.decode(), err.decode()

    rc, out, err = run(["\x1b[12~", "4", "\x7f" * 6, "Дельта-плюс", "\n"])
    assert rc == 0, err
    assert "Дельта → Дельта-плюс" in out and "Дельта-плюс 0" in out
    rc, out, err = run([], seconds="1")
    assert rc == 0, err
    assert "Незавершённая игра продолжена" in out and "Дельта-плюс 0" in out


def test_chgk_jury_csv_finds_a_renamed_team_by_its_new_or_its_first_name(tmp_path):
    csv = tmp_path / "jury.csv"
    cfg = config.build({"mode": "chgk", "teams": [{"name": n} for n in ("Альфа", "Бета", "Гамма")],
                        "chgk": {"results_csv": str(csv)}})
    loop, clock = make_loop(cfg)
    for number, name in ((2, "Бета-2"), (1, "Омега"), (3, "Альфа")):   # Гамма now has Альфа's old name
        loop.apply(Host("rename", clock.now(), {"team": number, "name": name}))
    key(loop, "n")
    csv.write_text("team,question,result\nБета,1,1\nОмега,1,1\nАльфа,1,0\n", encoding="utf-8")
    key(loop, "i")
    loop.drain()
    rows = {r["team"]: r["right"] for r in engine.view(loop.state)["standings"]}
    assert rows == {"Бета-2": 1, "Омега": 1, "Альфа": 0}      # "Альфа" is the team called so now
    csv.write_text("team,question,result\nБета-2,1,0\n", encoding="utf-8")
    key(loop, "i")
    loop.drain()
    assert {r["team"]: r["right"] for r in engine.view(loop.state)["standings"]}["Бета-2"] == 0


def test_mafia_a_rename_after_the_protocol_is_written_updates_it_and_keeps_the_protests(tmp_path):
    import datetime as dt

    from controller.games.mafia import protocol as mafia_protocol

    names = ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]
    roles = ["don", "mafia", "mafia", "commissar", "doctor"] + ["civilian"] * 5
    cfg = config.build({"mode": "mafia", "mafia": {"players": names, "protocol_dir": str(tmp_path)}})
    loop, clock = make_loop(cfg)
    for seat, role in enumerate(roles, start=1):
        loop.apply(Host("role", clock.now(), {"seat": seat, "role": role}))
    key(loop, "t")                                   # the town wins (the key asks first): the protocol
    key(loop, "t")                                   # is complete
    saved = tmp_path / "game-001-table-1.json"
    assert loop.extras.protocol_complete and saved.exists()
    protocol = mafia_protocol.load(saved)
    at = dt.datetime.fromisoformat(protocol.ended_at) + dt.timedelta(minutes=1)
    mafia_protocol.save(mafia_protocol.add_protest(protocol, "Протест", at, seat=2), saved)
    key(loop, "f2")
    key(loop, "2", "2")
    for ch in " Б.":
        loop.text_input(ch)
    key(loop, "return")
    protocol = mafia_protocol.load(saved)
    assert protocol.player(2).name == "Борис Б." and [p.text for p in protocol.protests] == ["Протест"]
    assert "Борис Б." in (tmp_path / "game-001-table-1.html").read_text(encoding="utf-8")


def test_a_live_terminal_shows_the_prompt_and_the_name_being_typed_even_a_long_one():
    """The terminal's status block (a tty 60 columns wide) carries the rename dialogue: the prompt
    naming the team, the name as typed so far with its cursor; a name longer than the line keeps
    its end (what is being typed) in sight, the title and the keys' hint give way."""
    import io

    from controller.app.runner import model
    from controller.screens.terminal import Terminal

    class Tty(io.StringIO):
        def isatty(self):
            return True

    loop, clock = make_loop()
    out = Tty()
    with open(os.devnull) as stdin:
        term = Terminal(loop.cfg, stream=out, stdin=stdin)
        term.out.columns = lambda: 60
        term.open(loop)
        feed(loop, "\x1b[12~")
        feed(loop, "2")
        feed(loop, "Орлы")
        term.present(model(loop))
        assert term.out.shown[0].startswith("Новое имя: 2 · Бета: БетаОрлы▌  (Enter — сохранить"), term.out.shown
        feed(loop, " и Соколы, школа 57")
        term.present(model(loop))
        first = term.out.shown[0]
        assert len(first) <= 59 and first.endswith(": БетаОрлы и Соколы, школа 57▌  (Enter …"), first
        term.out.columns = lambda: 40                     # a narrow terminal: the title gives way
        feed(loop, "!")
        term.present(model(loop))
        assert term.out.shown[0] == "Новое и…: БетаОрлы и Соколы, школа 57!▌", term.out.shown
        term.out.columns = lambda: 20                     # narrower than the name: its end
        feed(loop, "?")
        term.present(model(loop))
    assert term.out.shown[0] == "…околы, школа 57!?▌", term.out.shown
