"""The terminal (``buzzer run --headless``) shows every state the window shows, in words,
from the same view: captain's timer, rounds, «Время!», closed questions, standings, «Мафия»."""

import io
import os

import pytest

from controller.games import engine
from controller.sessions import script
from controller.i18n import t
from controller.screens.terminal import TextScreen, status_lines

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


def lines_at(text: str, at: float, lang: str = "ru") -> list[str]:
    """The terminal's status of a scripted session (JSON lines) at ``at`` seconds."""
    run = script.run(script.parse(text.strip().splitlines()), until=at)
    return status_lines(engine.view(run.state, int(at * 1e9)), lang)


ERUDITE = """
{"at": 1.0, "host": "captain"}
{"at": 70.0, "host": "question", "nominal": 30}
{"at": 71.0, "host": "reading_done"}
{"at": 72.0, "press": "B"}
{"at": 73.0, "host": "right"}
{"at": 74.0, "host": "question"}
{"at": 74.5, "host": "reading_done"}
{"at": 75.0, "host": "pause"}
{"at": 80.0, "host": "resume"}
{"at": 81.0, "host": "withdraw"}
{"at": 82.0, "host": "next_round"}
{"at": 83.0, "host": "question"}
{"at": 84.0, "host": "reading_done"}
"""


def test_the_captains_timer_shows_in_the_terminal():
    lines = lines_at(ERUDITE, 11.0)
    assert lines[1] == "Время капитана: 50"


def test_a_question_ruled_right_shows_its_outcome_not_the_open_question():
    assert lines_at(ERUDITE, 72.5)[1].startswith("Отвечает: Бета (Кнопка B) | Номинал 30 · Вопрос 1/5")
    assert lines_at(ERUDITE, 73.5)[1] == "✓ Верно — Бета +30 | Номинал 30 · Вопрос 1/5"
    assert "Бета 30 (место 1)" in lines_at(ERUDITE, 73.5)[-1]


def test_pause_withdrawal_and_the_next_round_show_in_the_terminal():
    paused = lines_at(ERUDITE, 76.0)
    assert paused[0].endswith("ПАУЗА") and paused[1] == "Время на размышление: 7 (Пауза) | Номинал 20 · Вопрос 2/5"
    assert "Вопрос снят" in lines_at(ERUDITE, 81.5)[1]
    assert "Раунд 1 из 4" in lines_at(ERUDITE, 81.5)[0]
    assert "Раунд 2 из 4" in lines_at(ERUDITE, 82.5)[0]
    assert lines_at(ERUDITE, 85.0)[1] == "Время на размышление: 6 | Номинал 10 · Вопрос 1/5"


def test_brain_ring_time_signal_shows_before_and_after_the_start():
    text = """
{"setup": {"mode": "brain-ring", "seed": 5, "settings": {"brain_ring.start_delay": true}}}
{"at": 1.0, "host": "question"}
{"at": 5.0, "host": "start_clock"}
"""
    assert lines_at(text, 3.0)[1] == "Вопрос № 1 · Номинал 1"
    assert lines_at(text, 5.1)[1] == "Вопрос № 1 · Номинал 1 · «Время!»: ждём сигнала старта"
    assert lines_at(text, 10.0)[1].startswith("Время на размышление: ")


def test_a_question_that_ran_out_of_time_says_time():
    with open("examples/own-game.jsonl", encoding="utf-8") as f:
        text = f.read()
    assert lines_at(text, 14.0)[1] == "Вопрос № 2: Время! | Номинал 200"


def test_the_standings_at_the_end_of_the_game():
    with open("examples/erudite-standings.jsonl", encoding="utf-8") as f:
        text = f.read()
    lines = lines_at(text, 28.0)
    assert lines[1] == "Турнирная таблица · Игра окончена"
    assert lines[2] == "  ★ 1. Альфа 60 (За верные: 60)"
    assert lines[-1] == "  4. Гамма −30 (За верные: 0)"


def test_mafia_speech_timer_pause_and_seats():
    text = """
{"setup": {"mode": "mafia", "settings": {"mafia.players": ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]}}}
{"at": 1.0, "host": "foul", "seat": 4}
{"at": 2.0, "host": "speech", "seat": 3}
{"at": 20.0, "host": "pause"}
"""
    assert lines_at(text, 11.0)[1] == "Речь · 3 Вика: 51"
    assert lines_at(text, 25.0)[1] == "Речь · 3 Вика: 42 (Пауза)"
    seats = "\n".join(lines_at(text, 11.0)[2:])
    assert "▶ 3 Вика" in seats and "4 Глеб •" in seats


def test_english_terminal():
    assert lines_at(ERUDITE, 11.0, "en")[1] == "Captain's time: 50"


# --- the same texts as the window ----------------------------------------------------------

SESSIONS = ["examples/erudite-round.jsonl", "examples/erudite-standings.jsonl", "examples/brain-ring.jsonl",
            "examples/chgk.jsonl", "examples/own-game.jsonl", "examples/mafia-table.jsonl",
            "examples/programme.jsonl", ERUDITE]


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s if s.startswith("examples") else "captain-pause-round")
def test_every_text_the_window_draws_is_in_the_terminal(session, monkeypatch):
    """Draw the audience screen at 21 moments of a session and record every text it draws;
    the terminal's status of the same view must say each of them (the empty tables' column
    titles and the empty press order's title aside)."""
    import pygame

    from controller.screens import scoreboard as sb
    from controller.i18n import t

    pygame.display.init()
    pygame.font.init()
    drawn: list[str] = []
    for name in ("_text", "_tag"):
        original = getattr(sb.Scoreboard, name)
        monkeypatch.setattr(sb.Scoreboard, name, lambda self, surface, text, *a, _o=original, **k:
                            (drawn.append(str(text)), _o(self, surface, text, *a, **k))[1])
    if session.startswith("examples"):
        with open(session, encoding="utf-8") as f:
            session = f.read()
    parsed = script.parse(session.strip().splitlines())
    last = max(ev.now for _, ev in script.timeline(parsed)) / 1e9
    for k in range(21):
        at = last * k / 20 + 0.01
        view = engine.view(script.run(parsed, until=at).state, int(at * 1e9))
        for lang in ("ru", "en"):
            labels = {t(key, lang) for key in ("press_order", "place", "team", "points")}
            drawn.clear()
            sb.Scoreboard((800, 450), lang=lang).draw(pygame.Surface((800, 450)), view, int(at * 1e9))
            text = "\n".join(status_lines(view, lang))
            for shown in drawn:
                for part in shown.split(t("separator", lang)):
                    assert part in text or part in labels, (at, lang, part, text)


# --- the live block -----------------------------------------------------------------------

class Tty(io.StringIO):
    def isatty(self):
        return True


def test_a_live_terminal_rewrites_the_status_block_in_place_and_cuts_long_lines():
    out = Tty()
    screen = TextScreen(out, live=True, columns=lambda: 20)
    screen.show(["Вопрос 1/5 · Номинал 10", "Альфа 0"])
    screen.show(["Вопрос 1/5 · Номинал 10", "Альфа 0"])         # unchanged: nothing written
    first = out.getvalue()
    assert first == "Вопрос 1/5 · Номин…\nАльфа 0"
    screen.history("» Верно: Альфа")
    screen.show(["✓ Верно — Альфа +10", "Альфа 10"])
    rest = out.getvalue()[len(first):]
    # back to the block's first line, clear to the end, the history line, the block again
    assert rest.startswith("\r\x1b[1A\x1b[J» Верно: Альфа\n")
    assert rest.endswith("\r\x1b[1A\x1b[J✓ Верно — Альфа +10\nАльфа 10")


def test_a_log_gets_one_line_per_change():
    out = io.StringIO()
    screen = TextScreen(out, live=False)
    screen.show(["a", "b"])
    screen.show(["a", "b"])
    screen.show(["a", "c"])
    assert out.getvalue() == "a | b\na | c\n"


# --- a real run in a terminal -----------------------------------------------------------------

def test_buzzer_run_headless_in_a_pseudo_terminal_shows_the_captains_timer_and_the_ruling(tmp_path):
    """``buzzer run --headless`` on a pty: the host types N (question), Space, Z (Бета), Enter
    (right), then C (captain's timer); the terminal says each of them."""
    import pty
    import select
    import subprocess
    import sys
    import time
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(root),
               PYGAME_HIDE_SUPPORT_PROMPT="1", COLUMNS="160", LINES="40")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--new", "--seconds", "20"],
                            cwd=tmp_path, env=env, stdin=slave, stdout=slave, stderr=subprocess.PIPE, close_fds=True)
    os.close(slave)
    out = b""

    def read_until(marker: str, timeout: float = 10.0) -> str:
        nonlocal out
        end = time.monotonic() + timeout
        while marker.encode() not in out and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    out += os.read(master, 4096)
                except OSError:
                    break
        return out.decode("utf-8", "replace")

    try:
        assert "Альфа 0 (место 1)" in read_until("Альфа 0 (место 1)")
        for key, marker in ((b"n", "Вопрос 1/5 · Номинал 10"), (b" ", "Время на размышление: "),
                            (b"z", "Отвечает: Бета"), (b"\r", "✓ Верно — Бета +10"), (b"c", "Время капитана: ")):
            os.write(master, key)
            assert marker in read_until(marker), (key, out.decode("utf-8", "replace")[-800:])
        text = out.decode("utf-8", "replace")
        assert "» Верно: Бета" in text                    # the ruling flash, above the status
        assert "\x1b[J" in text                            # the status block is rewritten in place
    finally:
        os.write(master, b"\x1b\x1b")                      # Esc twice: quit
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)


def test_brain_ring_countdown_after_a_wrong_answer_is_named_in_words():
    with open("examples/brain-ring.jsonl", encoding="utf-8") as f:
        text = f.read()
    line = lines_at(text, 104.0)[1]
    assert line.startswith("Время на размышление: ") and "after_wrong" not in line


def test_a_tie_within_the_phones_uncertainty_says_its_bound():
    text = """
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "host": "reading_done"}
{"at": 3.000, "press": "A", "delivered": 3.03, "unc": 0.015, "quiet": 0.05}
{"at": 3.010, "press": "B", "delivered": 3.04, "unc": 0.015, "quiet": 0.05}
"""
    order = [line for line in lines_at(text, 3.5) if line.startswith("Порядок нажатий")]
    assert order and order[0].count("ничья ±15 мс") == 2, order
    order_en = [line for line in lines_at(text, 3.5, "en") if "tie ±15 ms" in line]
    assert order_en and order_en[0].count("tie ±15 ms") == 2, order_en


class _Terminal:
    """What a terminal shows after the bytes a program wrote to it: enough of a VT100 for the
    status block (``\\r``, ``\\n``, ``ESC[nA``, ``ESC[J``; other sequences are dropped), lines as
    wide as they come."""

    def __init__(self):
        self.rows, self.row, self.col = [""], 0, 0

    def feed(self, text: str) -> None:
        import re

        for part in re.split(r"(\x1b\[[0-9;?]*[@-~]|\x1b.|\r|\n)", text):
            if part == "\r":
                self.col = 0
            elif part == "\n":
                self.row, self.col = self.row + 1, 0
                while len(self.rows) <= self.row:
                    self.rows.append("")
            elif part.startswith("\x1b["):
                if part.endswith("A"):
                    self.row = max(0, self.row - int(part[2:-1] or 1))
                elif part.endswith("J"):
                    self.rows[self.row] = self.rows[self.row][:self.col]
                    del self.rows[self.row + 1:]
            elif part and not part.startswith("\x1b"):
                line = self.rows[self.row].ljust(self.col)
                self.rows[self.row] = line[:self.col] + part + line[self.col + len(part):]
                self.col += len(part)

    def text(self) -> str:
        return "\n".join(self.rows)


def test_the_new_host_link_after_f9_and_f12_stays_readable_above_the_status_block(tmp_path):
    """The walk (item 2): after F9 (a new host key) and F12 F12 (a new game) every screen says
    «новая ссылка в терминале», yet the status block's redraw wiped the printed link at once.
    On a real pty, the terminal's picture after each must hold the whole new link, on a line
    of its own, above the status."""
    import pty
    import select
    import subprocess
    import sys
    import time
    from pathlib import Path

    from controller.web import host_token
    from tests.browser import free_port

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "game.toml").write_text(f"[web]\nport = {free_port()}\n", encoding="utf-8")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(root),
               PYGAME_HIDE_SUPPORT_PROMPT="1", COLUMNS="400", LINES="40")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--new", "--seconds", "40",
                             "-c", "game.toml"], cwd=tmp_path, env=env, stdin=slave, stdout=slave,
                            stderr=subprocess.PIPE, close_fds=True)
    os.close(slave)
    screen = _Terminal()
    out = b""

    def read_until(marker: str, timeout: float = 20.0) -> None:
        nonlocal out
        end = time.monotonic() + timeout
        while marker.encode() not in out and time.monotonic() < end:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    out += os.read(master, 65536)
                except OSError:
                    break
        assert marker.encode() in out, (marker, out.decode("utf-8", "replace")[-1500:])

    def settled() -> str:
        """The terminal's picture once the program has written what it will (0.5 s quiet)."""
        nonlocal out
        quiet = time.monotonic() + 0.5
        while time.monotonic() < quiet:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                out += os.read(master, 65536)
                quiet = time.monotonic() + 0.5
        screen.rows, screen.row, screen.col = [""], 0, 0
        screen.feed(out.decode("utf-8", "replace"))
        return screen.text()

    def link_line(token: str) -> str:
        lines = [line for line in settled().splitlines() if f"/host#token={token}" in line]
        assert lines, (token, screen.text()[-1500:])
        return lines[-1]

    try:
        read_until("Альфа 0 (место 1)")
        first = host_token.load(tmp_path / "journal")
        os.write(master, b"\x1b[20~")                      # F9: a new host key
        read_until("Новый ключ ведущего")
        token = host_token.load(tmp_path / "journal")
        assert token != first
        assert link_line(token).startswith("Страница ведущего (ссылку никому не показывайте): http://")
        os.write(master, b"\x1b[24~")                      # F12 twice: a new game, a new key
        read_until("Нажмите ещё раз: новая игра")
        os.write(master, b"\x1b[24~")
        end = time.monotonic() + 10
        while host_token.load(tmp_path / "journal") == token and time.monotonic() < end:
            time.sleep(0.1)
        newer = host_token.load(tmp_path / "journal")
        assert newer != token
        assert link_line(newer).startswith("Страница ведущего (ссылку никому не показывайте): http://")
    finally:
        os.write(master, b"\x1b\x1b")                      # Esc twice: quit
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master)


def test_a_terminal_left_without_echo_by_a_killed_run_gets_its_echo_back_at_the_quit(tmp_path):
    """The walk (item 17): `kill -9` of `buzzer run` leaves the shell with echo off (its
    keys-as-buttons mode), and the resumed game put that mode back when it quit. A run that
    starts on such a terminal leaves it with echo and line editing on."""
    import pty
    import subprocess
    import sys
    import termios
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(root),
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    (tmp_path / "game.toml").write_text("[web]\nenabled = false\n", encoding="utf-8")
    master, slave = pty.openpty()
    try:
        mode = termios.tcgetattr(slave)
        mode[3] &= ~(termios.ECHO | termios.ICANON)          # as a killed run leaves it
        termios.tcsetattr(slave, termios.TCSANOW, mode)
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--new", "--seconds", "1",
                                 "-c", "game.toml"], cwd=tmp_path, env=env, stdin=slave, stdout=slave,
                                stderr=subprocess.PIPE, close_fds=True)
        drained = b""
        while proc.poll() is None:                           # keep the pty's buffer from filling
            import select
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                drained += os.read(master, 65536)
        assert proc.wait(30) == 0, proc.stderr.read().decode(errors="replace")
        after = termios.tcgetattr(slave)[3]
        assert after & termios.ECHO and after & termios.ICANON
    finally:
        os.close(master)
        os.close(slave)


def test_own_games_press_window_is_named_as_the_rules_name_it():
    """Walk 1, item 19: Своя игра called its press window (docs/rules.md) «Время на размышление»."""
    text = """
{"setup": {"mode": "own-game", "seed": 1}}
{"at": 1.0, "host": "question", "nominal": 100}
{"at": 2.0, "host": "reading_done"}
"""
    assert lines_at(text, 3.0)[1].startswith("Время на нажатие: ")
    assert lines_at(text, 3.0, "en")[1].startswith("Press window: ")


def test_a_phone_press_says_its_uncertainty_and_a_wired_one_its_exact_gap():
    """Wired Альфа first, wired Дельта 20 ms later, Бета's phone 50 ms later ±12.4 ms: the
    phone's gap says «±13 мс», the wired ones none (their stamps are exact)."""
    from tests.test_screen_model import MIXED as text   # the same race the screen model's test reads
    for lang, unc in (("ru", "±13 мс"), ("en", "±13 ms")):
        order = [line for line in lines_at(text, 3.5, lang) if line.startswith(t("press_order", lang))]
        assert order and order[0].count(unc) == 1, order
        items = order[0].split(": ", 1)[1].split(", ")
        assert items[2].startswith("3. Бета") and items[2].endswith(unc), items
        assert unc not in items[0] and unc not in items[1] and "0.020" in items[1], items
