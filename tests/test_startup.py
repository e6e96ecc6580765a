"""``buzzer run`` start-up as a host meets it: real processes in a scratch folder
(the default config's journal is ``journal/`` in the working folder)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OWN_GAME = ROOT / "config" / "own-game.toml"
ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))


def run(cwd, *args, timeout=60):
    """``buzzer ARGS`` to the end (no terminal on stdin)."""
    return subprocess.run([sys.executable, "-m", "controller.cli", *map(str, args)], cwd=cwd, env=ENV,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)


class Running:
    """A ``buzzer run --headless`` left playing until :meth:`kill` (by its pid)."""

    def __init__(self, cwd, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless",
                                      "--seconds", "120", *map(str, args)], cwd=cwd, env=ENV,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out = bytearray()
        threading.Thread(target=lambda: [self.out.extend(c) for c in
                                         iter(lambda: self.proc.stdout.read1(4096), b"")], daemon=True).start()
        deadline = time.monotonic() + 120
        while b"Q = " not in self.out and self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)   # the line of team keys: the game is up
        assert self.proc.poll() is None, self.proc.stderr.read().decode()

    def kill(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.proc.stdin.close()


def snapshot(folder: Path) -> dict:
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# =========================================================================
# one buzzer run per journal

def test_a_second_run_on_the_same_journal_is_refused_and_changes_nothing(tmp_path):
    first = Running(tmp_path)
    try:
        jdir = tmp_path / "journal"
        before = snapshot(jdir)
        assert jdir / "current.jsonl" in before
        for args, words in [((), "другая игра"), (("--lang", "en"), "another buzzer run"),
                            (("--new",), "другая игра"), (("-c", OWN_GAME, "--new"), "другая игра")]:
            proc = run(tmp_path, "run", "--headless", "--seconds", "0.5", *args)
            assert proc.returncode == 2, proc.stdout
            line = one_line(proc.stderr)
            assert words in line and f"pid {first.proc.pid}" in line and "journal" in line
            assert proc.stdout == ""
            assert snapshot(jdir) == before            # nothing archived, nothing appended
        assert first.proc.poll() is None               # the first game plays on
    finally:
        first.kill()
    # the killed process held the lock only while it lived: the next start resumes its game
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.5")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""


def test_commands_without_the_journal_run_while_a_game_is_played(tmp_path):
    first = Running(tmp_path)
    try:
        proc = run(tmp_path, "simulate", ROOT / "examples" / "erudite-round.jsonl")
        assert proc.returncode == 0, proc.stderr
        assert '"Дельта": 30' in proc.stdout
        proc = run(tmp_path, "check-config")
        assert proc.returncode == 0 and "OK" in proc.stdout, proc.stderr
    finally:
        first.kill()


def test_games_with_their_own_journal_folders_run_side_by_side(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = Running(tmp_path / "a")
    try:
        proc = run(tmp_path / "b", "run", "--headless", "--seconds", "0.5")
        assert proc.returncode == 0, proc.stderr
    finally:
        first.kill()


# =========================================================================
# the line after an unfinished game

def _played_and_quit(cwd, *args):
    """``buzzer run --headless ARGS``: question, Гамма (key p) presses, right; the time runs out."""
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "3",
                             *map(str, args)], cwd=cwd, env=ENV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out = bytearray()
    reader = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                              daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while b"Q = " not in out and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    for k in b"np\n":
        proc.stdin.write(bytes([k]))
        proc.stdin.flush()
        time.sleep(0.15)
    proc.stdin.close()
    proc.wait(timeout=60)
    reader.join(10)
    return proc.returncode, out.decode(), proc.stderr.read().decode()


def _hint(out: str, lang: str = "en") -> str:
    last = out.strip().splitlines()[-1]
    head, tail = ("The game is not finished: `", "` resumes it.") if lang == "en" else \
        ("Игра не окончена: `", "` её продолжит.")
    assert last.startswith(head) and last.endswith(tail), last
    return last[len(head):-len(tail)]


def test_the_line_after_an_unfinished_game_names_its_config_and_the_command_continues_it(tmp_path):
    import shlex
    import shutil

    (tmp_path / "config").mkdir()
    shutil.copy(ROOT / "config" / "default.toml", tmp_path / "config" / "our game.toml")
    rc, out, err = _played_and_quit(tmp_path, "-c", "config/our game.toml", "--lang", "en", "--new")
    assert rc == 0, err
    command = _hint(out)
    assert command == "buzzer run -c 'config/our game.toml' --lang en"   # the old line: `buzzer run`
    # typed again it continues this game, with no question and nothing archived
    words = shlex.split(command)
    assert words[:2] == ["buzzer", "run"]
    proc = run(tmp_path, *words[1:], "--headless", "--seconds", "0.5")
    assert proc.returncode == 0, proc.stderr
    assert "Resumed the unfinished game" in proc.stdout and "Гамма 10" in proc.stdout
    assert not (tmp_path / "journal" / "archive").exists()
    assert _hint(proc.stdout) == command


def test_the_line_after_an_unfinished_game_keeps_the_event_file_and_drops_new(tmp_path):
    rc, out, err = _played_and_quit(tmp_path, "--event", ROOT / "examples" / "event.toml", "--new")
    assert rc == 0, err
    assert _hint(out, "ru") == f"buzzer run --event {ROOT / 'examples' / 'event.toml'}"


def test_the_line_after_a_game_resumed_from_another_config_names_that_config(tmp_path):
    rc, out, err = _played_and_quit(tmp_path)
    assert rc == 0, err
    assert _hint(out, "ru") == "buzzer run"                  # the default config needs no -c
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.5", "-c", OWN_GAME, "--resume")
    assert proc.returncode == 0, proc.stderr
    assert _hint(proc.stdout, "ru") == f"buzzer run -c {ROOT / 'config' / 'default.toml'}"


# =========================================================================
# --pack: the package the host names, or a one-line error before anything changes

def test_a_package_on_the_command_line_that_cannot_be_played_stops_before_anything_is_archived(tmp_path):
    rc, out, err = _played_and_quit(tmp_path)                  # an unfinished game to lose
    assert rc == 0, err
    jdir = tmp_path / "journal"
    before = snapshot(jdir)
    (tmp_path / "bad.siq").write_text("not a zip", encoding="utf-8")
    for pack, lang, words in [(tmp_path / "nope.siq", "ru", "ничего не изменено"),
                              (tmp_path / "bad.siq", "en", "nothing was changed")]:
        proc = run(tmp_path, "run", "--headless", "--seconds", "0.5", "-c", OWN_GAME, "--pack", pack,
                   "--new", "--lang", lang)
        assert proc.returncode == 2, proc.stdout
        line = one_line(proc.stderr)
        assert "--pack" in line and str(pack) in line and words in line
        assert proc.stdout == ""                               # no game started without the package
        assert snapshot(jdir) == before                        # --new archived nothing
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.5", "-c", OWN_GAME, "--pack",
               ROOT / "examples" / "own-game.siq", "--new")
    assert proc.returncode == 0, proc.stderr                   # a good package plays


def test_a_package_for_a_game_that_plays_none_names_both_games_by_their_titles(tmp_path):
    pack = ROOT / "examples" / "own-game.siq"
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.5", "--pack", pack)
    assert proc.returncode == 2
    line = one_line(proc.stderr)
    assert "«Своя игра»" in line and "«Эрудит-квартет»" in line and "erudite" not in line
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.5", "--pack", pack, "--lang", "en")
    line = one_line(proc.stderr)
    assert "Own Game" in line and "Erudite Quartet" in line and "erudite" not in line
    assert not (tmp_path / "journal").exists()


# =========================================================================
# what a start prints

def test_a_start_does_not_print_the_tie_seed_the_journal_keeps_it(tmp_path):
    from controller.sessions import journal

    for lang in ("ru", "en"):
        proc = run(tmp_path, "run", "--headless", "--seconds", "0.3", "--new", "--lang", lang)
        assert proc.returncode == 0, proc.stderr
        assert "Зерно" not in proc.stdout and "seed" not in proc.stdout.lower()
        assert "Q = " in proc.stdout                              # the start itself is printed
        header = journal.read(journal.current_path(tmp_path / "journal")).header
        assert isinstance(header["seed"], int)


def _in_terminal(cwd, *args):
    """``buzzer run --headless ARGS`` with a terminal on stdin; Enter if it asks a question."""
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "0.5",
                             *map(str, args)], cwd=cwd, env=ENV, stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    os.close(slave)
    out = bytearray()
    reader = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                              daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while (b"Q = " not in out and not out.rstrip().endswith(b"]") and proc.poll() is None
           and time.monotonic() < deadline):
        time.sleep(0.02)
    if b"Q = " not in out:
        os.write(master, b"\n")          # the question's default (a key in the game would be a ruling)
    proc.wait(timeout=30)
    reader.join(10)
    os.close(master)
    return proc.returncode, out.decode(), proc.stderr.read().decode()


def test_a_journal_without_events_starts_a_new_game_without_a_question(tmp_path):
    from controller.sessions import journal

    p = journal.current_path(tmp_path / "journal")
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.3")    # started, nothing played
    assert proc.returncode == 0, proc.stderr
    for starts in (lambda: _in_terminal(tmp_path), lambda: _in_terminal(tmp_path, "--lang", "en"),
                   lambda: (lambda r: (r.returncode, r.stdout, r.stderr))(
                       run(tmp_path, "run", "--headless", "--seconds", "0.3"))):
        before = p.read_bytes()
        assert journal.read(p).events == []
        archived = set((tmp_path / "journal" / "archive").glob("*.jsonl"))
        rc, out, err = starts()
        assert rc == 0, err
        assert "Продолжить" not in out and "Resume it?" not in out
        assert "продолжена" not in out and "Resumed" not in out
        new = set((tmp_path / "journal" / "archive").glob("*.jsonl")) - archived
        assert len(new) == 1 and new.pop().read_bytes() == before   # archived as usual, never deleted
        assert journal.read(p).header["started"] and p.read_bytes() != before


def test_a_journal_with_events_still_asks(tmp_path):
    rc, out, err = _played_and_quit(tmp_path)
    assert rc == 0, err
    rc, out, err = _in_terminal(tmp_path)
    assert rc == 0, err
    assert "Продолжить её? [Д/н]" in out and "Незавершённая игра продолжена" in out


def test_quitting_before_anything_happened_does_not_promise_to_continue_the_game(tmp_path):
    """The next start archives a journal without events and starts anew (prepare_game): the
    line at quitting says so, not «Игра не окончена: … её продолжит»."""
    proc = run(tmp_path, "run", "--headless", "--seconds", "0.3")
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last == "Ничего не сыграно: `buzzer run` начнёт новую игру (этот журнал уйдёт в архив).", last
    assert "продолжит" not in proc.stdout


def test_the_resume_notice_names_the_pause_keys_the_host_has():
    """«…оно стоит на паузе, {key} — продолжить»: a «Мафия» table pauses with the keypad's Num .
    and the keyboard's P; naming only Num . sent a host at a laptop looking for a key it lacks."""
    from controller.app import config, startup

    assert startup._pause_key(config.load("config/mafia.toml")) == "Num . / P"
    assert startup._pause_key(config.load(None)) == "S / Num ."
