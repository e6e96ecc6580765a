"""The host link survives a restart of the same game: ``buzzer run`` resuming an unfinished
game (after a crash, a power cut or a plain quit) serves the host token the phone already has;
a new game (``--new``, F12) or F9 makes a new one. The token lives next to the journal in a
file only its owner can read."""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

from controller.app import config
from controller.sessions import journal
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import ManualClock
from controller.core.events import NS_PER_S
from controller.web import attach, host_token

from tests.browser import free_port

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"/host#token=([A-Za-z0-9_-]+)")


def _run(cwd: Path, *extra: str, kill: bool = False, keys: bytes = b"") -> tuple[str, str]:
    """``buzzer run --headless`` in ``cwd``; the host token it printed, and its whole output.
    ``keys``: typed at once (``n``: the next question, so the game has an event to resume).
    ``kill``: SIGKILL it once the link is out and the keys are taken (a crash or a power cut)."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "1.5",
                             "--config", str(cwd / "game.toml"), *extra], cwd=cwd, env=env,
                            stdin=subprocess.PIPE if keys else subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if keys:
        proc.stdin.write(keys)
        proc.stdin.close()
        proc.stdin = None   # (communicate() would flush it)
    out = b""
    if kill:
        os.set_blocking(proc.stdout.fileno(), False)
        deadline = time.monotonic() + 30
        while not (LINK.search(_link_file(cwd)) and b"host-link" in out) and time.monotonic() < deadline:
            out += proc.stdout.read() or b""
            time.sleep(0.02)
        jr = journal.current_path(cwd / "journal")
        while keys and time.monotonic() < deadline and len(journal.read(jr).events) < 1:
            time.sleep(0.02)   # the typed question is on disk
        proc.send_signal(signal.SIGKILL)
    rest, err = proc.communicate(timeout=60)
    text = out.decode() + (rest or b"").decode()
    assert kill or proc.returncode == 0, err.decode()
    assert not LINK.search(text + err.decode()), "the token is in the output: " + text   # not a terminal
    found = LINK.findall(_link_file(cwd))
    assert found, text + err.decode()
    return found[-1], text + err.decode()


def _link_file(cwd: Path) -> str:
    """The host link ``buzzer run`` wrote for its host (its output is no terminal)."""
    try:
        return (cwd / "journal" / "host-link").read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _game_dir(tmp_path: Path) -> Path:
    (tmp_path / "game.toml").write_text(f"[web]\nport = {free_port()}\n", encoding="utf-8")
    return tmp_path


def test_a_resumed_game_keeps_its_host_token_and_a_new_game_gets_another(tmp_path):
    cwd = _game_dir(tmp_path)
    first, _ = _run(cwd, kill=True, keys=b"n")      # the game starts; the power goes off
    saved = cwd / "journal" / "host-token"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600   # only the owner reads it
    again, out = _run(cwd)                          # the Pi boots: the same game goes on
    assert "Незавершённая игра продолжена" in out
    assert again == first                           # the phone's link still works
    third, _ = _run(cwd)                            # quit and started again: still the same game
    assert third == first
    fresh, _ = _run(cwd, "--new", keys=b"n")        # a new game: a new link
    assert fresh != first
    after, _ = _run(cwd)                            # and that new game keeps its own
    assert after == fresh


def test_a_fresh_game_gets_a_fresh_token_even_after_a_finished_one(tmp_path):
    cwd = _game_dir(tmp_path)
    first, _ = _run(cwd)
    journal.archive(cwd / "journal")                # the game ended and was archived
    second, _ = _run(cwd)
    assert second != first


def _loop(tmp_path: Path):
    cfg = config.build({"web": {"port": free_port()}, "journal": {"dir": str(tmp_path / "journal")}})
    jdir = cfg["journal"]["dir"]
    jr = journal.Journal(journal.current_path(jdir), header=journal.new_header(cfg, 1, None), fsync=False)
    return Loop(cfg, engine.new_game(cfg, 1), ManualClock(1_000 * NS_PER_S), journal=jr, out=io.StringIO())


def test_the_new_token_key_and_a_new_game_overwrite_the_stored_token(tmp_path):
    loop = _loop(tmp_path)
    server = attach.attach(loop, out=io.StringIO())
    try:
        jdir = loop.cfg["journal"]["dir"]
        assert host_token.load(jdir) == server.token
        old = server.token
        loop.shell_actions["new_token"]()            # F9
        assert server.token != old and host_token.load(jdir) == server.token
        f9 = server.token
        loop.on_new_game()                           # F12 twice: a new journal, a new token
        assert server.token != f9 and host_token.load(jdir) == server.token
        assert stat.S_IMODE(host_token.path(jdir).stat().st_mode) == 0o600
    finally:
        server.stop()
        loop.journal.close()


def test_a_token_file_others_can_read_is_not_trusted(tmp_path):
    loop = _loop(tmp_path)
    jdir = loop.cfg["journal"]["dir"]
    host_token.save(jdir, "x" * 24)
    assert host_token.load(jdir) == "x" * 24
    os.chmod(host_token.path(jdir), 0o644)
    assert host_token.load(jdir) is None
    loop.journal.close()
