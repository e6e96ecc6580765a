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
        deadline = time.monotonic() + 30
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
