"""When the web pages cannot start (docs/phones.md, docs/web.md): a class whose teams press with
their phones only gets no game and one line naming ``[web] bind``, the ports and why; a hall with
wired buttons plays on without the pages, told so in the host's language.  check-config refuses a
``[web] bind`` that is no address at all (never resolving a name); and the pages' process ending
while the game stops (a SIGTERM to the whole process group, as ``systemctl stop`` sends) is no crash."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from controller.cli import main
from controller.core.schema import bind_address

from controller.web.process import WebProcess

from tests.browser import BUZZER, WAIT_S, free_port, stop
from tests.test_web_process import settings

ROOT = Path(__file__).resolve().parent.parent
NOT_HERE = "192.0.2.1"
"""An address of TEST-NET-1 (RFC 5737): never this machine's, so no socket can listen on it."""

ENV = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}


def class_config(tmp: Path, bind: str, port: int, language: str = "ru", phone: bool = True) -> Path:
    """examples/phones-class.toml (four teams on phones, no key) with ``bind``, ``port`` and a
    journal in ``tmp``; ``phone=False``: the teams keep no key but say nothing of phones (with the
    phones on they press with their links alone all the same)."""
    text = (ROOT / "examples" / "phones-class.toml").read_text(encoding="utf-8")
    text = text.replace('bind = "0.0.0.0"', f'bind = "{bind}"').replace("port = 8080", f"port = {port}")
    text = text.replace('language = "ru"', f'language = "{language}"')
    if not phone:
        text = text.replace("phone = true\n", "")
    path = tmp / "class.toml"
    path.write_text(text + f'\n[journal]\ndir = "{tmp / "journal"}"\nfsync = false\n', encoding="utf-8")
    return path


def run(tmp: Path, config: Path, *args: str, session: bool = False) -> subprocess.Popen:
    return subprocess.Popen([str(BUZZER), "run", "--headless", "--new", "-c", str(config), *args], cwd=tmp,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
                            start_new_session=session)


def read_until(proc: subprocess.Popen, stream, wanted: str, timeout: float = 2 * WAIT_S) -> str:
    """What ``stream`` of ``proc`` printed up to the first line holding ``wanted``."""
    seen = b""
    end = time.monotonic() + timeout
    while wanted.encode() not in seen:
        left = end - time.monotonic()
        ready, _, _ = select.select([stream], [], [], max(left, 0))
        if not ready:
            raise AssertionError(f"no {wanted!r} from buzzer run: " + seen.decode())
        chunk = os.read(stream.fileno(), 65536)
        if not chunk:
            raise AssertionError(f"buzzer run ended before {wanted!r}: " + seen.decode())
        seen += chunk
    return seen.decode()


# -- buzzer run -----------------------------------------------------------------------------

@pytest.mark.parametrize("language, line", [
    ("ru", 'buzzer: Игра не начата: командам на телефонах (Альфа, Бета, Гамма, Дельта) не нажать без '
           'веб-страниц, а страницы не запускаются: [web] bind = "192.0.2.1", порты {port}-{last}: у '
           'этого компьютера нет такого адреса\n'),
    ("en", 'buzzer: The game is not started: the teams on phones (Альфа, Бета, Гамма, Дельта) cannot press '
           'without the web pages, and the pages cannot start: [web] bind = "192.0.2.1", ports {port}-{last}: '
           'this computer has no such address\n'),
])
def test_a_class_on_phones_with_a_bind_not_on_this_machine_does_not_start(tmp_path, language, line):
    port = free_port()
    config = class_config(tmp_path, NOT_HERE, port, language)
    assert main(["check-config", str(config)]) == 0      # a good address, only not this machine's
    proc = run(tmp_path, config)
    out, err = proc.communicate(timeout=2 * WAIT_S)
    assert proc.returncode == 2
    # one line, no traceback; the example moves to the next free port: the ports tried are named
    assert err.decode() == line.format(port=port, last=port + 19) and out.decode() == ""
    # nothing was played: the next start has no journal to archive or ask about
    assert not (tmp_path / "journal" / "current.jsonl").exists()


def test_teams_without_a_key_play_on_phones_too_and_the_one_port_is_named(tmp_path):
    port = free_port()
    config = class_config(tmp_path, NOT_HERE, port, phone=False)
    config.write_text(config.read_text(encoding="utf-8").replace(f"port = {port}\n",
                                                                 f"port = {port}\nnext_free_port = false\n"))
    proc = run(tmp_path, config)
    _, err = proc.communicate(timeout=2 * WAIT_S)
    assert proc.returncode == 2
    assert err.decode().count("\n") == 1 and "Альфа, Бета, Гамма, Дельта" in err.decode()
    assert f'[web] bind = "192.0.2.1", порт {port}: у этого компьютера нет такого адреса\n' in err.decode()


def test_a_hall_with_wired_buttons_plays_on_without_the_pages_told_in_its_language(tmp_path):
    port = free_port()
    config = tmp_path / "hall.toml"
    config.write_text(f'[web]\nbind = "{NOT_HERE}"\nport = {port}\nnext_free_port = false\n'
                      f'[journal]\ndir = "{tmp_path / "journal"}"\nfsync = false\n', encoding="utf-8")
    proc = run(tmp_path, config)
    try:
        out = read_until(proc, proc.stdout, "Раунд 1")   # the game's status: it plays
        assert (f'Веб-страниц нет: [web] bind = "192.0.2.1", порт {port}: у этого компьютера нет такого '
                f'адреса; игра идёт без них\n') in out
        proc.stdin.write(b"q")   # Альфа's key presses
        proc.stdin.flush()
        assert proc.poll() is None
    finally:
        stop(proc)
    assert proc.returncode == 0


def test_the_pages_ending_while_the_game_stops_is_no_crash(caplog):
    # systemctl stop sends SIGTERM to the game and its pages' process at once: the pages' end is
    # often seen before the game has taken its own signal; the game is stopping all the same
    stopping = threading.Event()
    srv = WebProcess(settings(), "ru", print, game_stopping=stopping.is_set)
    srv.start()
    try:
        pages = srv.pid
        stopping.set()                     # the loop was told to end (Loop.stop: running is false)
        os.kill(pages, signal.SIGTERM)
        srv._reader.join(2 * WAIT_S)       # it ends: no restart of the pages
        assert not srv._reader.is_alive() and srv.restarts == 0 and srv.pid == pages
    finally:
        srv.stop()
    assert "exit code" not in caplog.text


# -- buzzer check-config --------------------------------------------------------------------

@pytest.mark.parametrize("bind, line", [
    ("0.0.0.O", "web.bind: не IPv4-адрес: '0.0.0.O' (нужны четыре числа от 0 до 255 через точку, например "
                "\"0.0.0.0\" — все сети или \"127.0.0.1\" — только этот компьютер)"),
    ("10.9.9", "web.bind: не IPv4-адрес: '10.9.9' (нужны четыре числа от 0 до 255 через точку, например "
               "\"0.0.0.0\" — все сети или \"127.0.0.1\" — только этот компьютер)"),
    ("0.0.0 0", "web.bind: не адрес и не имя компьютера: '0.0.0 0' (нужен IP-адрес, например \"0.0.0.0\" или "
                "\"127.0.0.1\", или имя из латинских букв, цифр, дефисов и точек)"),
])
def test_check_config_refuses_a_bind_that_is_no_address(tmp_path, capsys, bind, line):
    config = class_config(tmp_path, bind, 8080)
    assert main(["check-config", str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"buzzer: {config}: {line}\n" and captured.out == ""


def test_the_festivals_board_address_is_checked_alike(tmp_path, capsys):
    config = tmp_path / "f.toml"
    config.write_text('[festival]\nweb_bind = "127.0.0.l"\n', encoding="utf-8")
    assert main(["check-config", str(config)]) == 2
    assert capsys.readouterr().err.startswith(f"buzzer: {config}: festival.web_bind: не IPv4-адрес: '127.0.0.l'")


@pytest.mark.parametrize("bind", ["0.0.0.0", "127.0.0.1", "10.9.9.9", "::", "::1", "fe80::1%eth0", "localhost",
                                  "quiz.local", "pi-4.classroom.lan.", "", "no-such-host.invalid"])
def test_addresses_and_host_names_are_taken_unresolved(bind):
    assert bind_address(bind) is None


@pytest.mark.parametrize("bind", ["0.0.0.O", "192.168.1.l0", "0.0.0.256", "010.0.0.1", "1.2.3.4.5", "127.1",
                                  "quiz local", "-quiz.local", "quiz..local", "[::1]", ":::1", "http://0.0.0.0",
                                  "0.0.0.0:8080", "тест.рф"])
def test_what_is_no_address_is_refused(bind):
    assert bind_address(bind) is not None
