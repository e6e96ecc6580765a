"""The terminal front end (``buzzer run --headless``): a press from an input thread wakes it at
once, and SIGTERM / SIGINT / SIGHUP end it cleanly with the journal closed (issue 24, items 8
and 9)."""

from __future__ import annotations

import io
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.app import config
from controller.sessions import journal
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import EngineClock
from controller.core.errors import JournalError
from controller.inputs import create_backend
from controller.app import runner

ROOT = Path(__file__).resolve().parents[1]


def _until(predicate, timeout=30.0, step=0.001):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True


def test_a_press_from_the_box_thread_wakes_the_terminal_loop_with_stdin_open(monkeypatch):
    """Item 9: with a readable stdin the loop waited in select() on stdin only, so a press that
    an input thread enqueued waited for the select's timeout (up to 100 ms). Here the loop's
    wait is made 5 s long: the press must still be decided (its lamp lit) at its own deadline
    (the box's tie wait, 0.5 ms), far inside those 5 s -- the select's timeout is not what
    decides it."""
    cfg = config.load()
    cfg["buttons"] = "serial-sim"
    clock = EngineClock()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    buttons = [tm["button"] for tm in cfg["teams"]]
    backend = create_backend("serial-sim", buttons, clock, loop.enqueue, dict(cfg["serial"]))
    loop.backend = backend
    poll_s = 5.0
    real_timeout = loop.timeout_s
    monkeypatch.setattr(loop, "timeout_s", lambda max_wait_s: real_timeout(poll_s))
    r, w = os.pipe()
    stdin = os.fdopen(r, "rb", buffering=0)
    monkeypatch.setattr(sys, "stdin", stdin)
    delays = []
    failure = []

    def host_and_players():
        try:
            assert backend.link.connected_event.wait(30), backend.link.status()
            os.write(w, b"n")                                       # the host opens the question
            assert _until(lambda: (engine.view(loop.state)["question"] or {}).get("open")), "no question"
            for button in ("C", "A", "D"):
                pressed = time.monotonic()
                backend.press_button(button)
                lit = _until(lambda: backend.lamps.get(button) == "on", timeout=3 * poll_s)
                assert lit, (button, backend.lamps, engine.view(loop.state)["question"], backend.status())
                delays.append(time.monotonic() - pressed)
                backend.release_button(button)
                os.write(w, b"\x7f")                                # wrong (Backspace): the next wave
                assert _until(lambda: backend.lamps.get(button) != "on", timeout=3 * poll_s)
        except BaseException as exc:  # reported by the main thread
            failure.append(exc)
        finally:
            loop.stop()

    backend.start()
    helper = threading.Thread(target=host_and_players, daemon=True)
    helper.start()
    try:
        runner.run_headless(loop, seconds=120, stream=io.StringIO())
    finally:
        helper.join(30)
        backend.close()
        os.close(w)
        stdin.close()
    if failure:
        raise failure[0]
    assert len(delays) == 3
    # each press is decided long before the loop's 5 s wait would have ended (on a machine
    # with load 10 a wake-up takes tens of milliseconds, never seconds)
    assert max(delays) < poll_s / 5, delays


def test_a_wake_that_lands_while_the_pipe_is_being_emptied_does_not_mute_later_wakes(monkeypatch):
    """The interleaving that cost CI a 5 s press: an input thread enqueues (and wakes) while the
    front end is emptying the wake pipe. The next press must still make the pipe readable."""
    cfg = config.load()
    loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock(), out=io.StringIO())
    r = loop.wake_fd()
    loop.wake()                                  # a first press: the pipe is readable
    real_read = os.read
    calls = []

    def read_while_a_press_comes(fd, n):
        data = real_read(fd, n)
        if not calls:                            # between two reads of clear_wake ...
            calls.append(fd)
            loop.wake()                          # ... another input thread wakes the loop
        return data

    monkeypatch.setattr(os, "read", read_while_a_press_comes)
    loop.clear_wake()
    monkeypatch.setattr(os, "read", real_read)
    # the front end drains the queue (that press is in it) and waits in select() again
    loop.wake()                                  # the next press
    ready, _, _ = select.select([r], [], [], 0)
    assert ready == [r], "a press after the interleaving did not wake the front end"
    loop.close_wake()


# =========================================================================
# a real `buzzer run --headless` under a real signal

def _start(tmp_path, unbuffered: bool = False):
    """``buzzer run --headless`` in ``tmp_path`` with its output read as it comes (``unbuffered``:
    its first line at once)."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT),
               **({"PYTHONUNBUFFERED": "1"} if unbuffered else {}))
    env.pop("SDL_NO_SIGNAL_HANDLERS", None)   # as started by systemd or a shell
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless"], cwd=tmp_path, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = bytearray()
    reader = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                              daemon=True)
    reader.start()
    return proc, out, reader


def _reap(proc, reader) -> None:
    """The program ended (killed if it did not) and its output read to the end."""
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)
    reader.join(10)


def _ended_tidily(proc, out, rc) -> None:
    """Exit 0, no traceback, and the last line the one the journal's closing says."""
    err = proc.stderr.read().decode()
    assert rc == 0 and "Traceback" not in err, (rc, err)
    lines = [line for line in out.decode().splitlines() if line.strip()]
    assert lines[-1].startswith("Игра не окончена:"), lines[-3:]   # the journal was closed by _finish


def _events(path):
    try:
        return journal.read(path).events
    except (JournalError, OSError):
        return []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_stops_buzzer_run_headless_cleanly_with_the_journal_closed(tmp_path, sig):
    """Item 8: SDL's mixer took SIGTERM and made it a quit event the terminal loop never read:
    `systemctl stop` and `timeout` waited for SIGKILL."""
    proc, out, reader = _start(tmp_path)
    current = journal.current_path(tmp_path / "journal")
    try:
        assert _until(lambda: b"Q = " in out or proc.poll() is not None, step=0.02), out.decode()
        proc.stdin.write(b"np")             # a question, and Гамма presses (key p)
        proc.stdin.flush()
        assert _until(lambda: any(type(e).__name__ == "Press" for e in _events(current)), step=0.02), out.decode()
        sent = time.monotonic()
        proc.send_signal(sig)
        try:
            rc = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{signal.Signals(sig).name} ignored: still running 20 s later") from None
        took = time.monotonic() - sent
    finally:
        _reap(proc, reader)
    _ended_tidily(proc, out, rc)
    raw = current.read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line.split(" ", 1)[1]) for line in raw)   # every line whole
    events = journal.read(current).events
    assert any(type(e).__name__ == "Press" and e.button == "C" for e in events)
    assert took < 20


def test_a_sigterm_in_the_first_moments_of_buzzer_run_ends_it_as_tidily_as_one_later(tmp_path):
    """SIGTERM right after `buzzer run` has started -- here as soon as it says it resumes the game,
    before its sound, backend and web pages are up and its own handlers installed -- used to end
    it on the spot: no journal closed, no line naming the command that continues the game.  Now
    it stops as on a normal stop, only sooner."""
    import fcntl

    proc, out, reader = _start(tmp_path)                 # a game with a press in its journal
    current = journal.current_path(tmp_path / "journal")
    try:
        assert _until(lambda: b"Q = " in out or proc.poll() is not None, step=0.02), out.decode()
        proc.stdin.write(b"np")
        proc.stdin.flush()
        assert _until(lambda: any(type(e).__name__ == "Press" for e in _events(current)), step=0.02), out.decode()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        _reap(proc, reader)
    before = current.read_text(encoding="utf-8")

    proc, out, reader = _start(tmp_path, unbuffered=True)   # the start's first line comes at once
    try:
        assert _until(lambda: "Незавершённая игра продолжена".encode() in out or proc.poll() is not None,
                      step=0.001), out.decode()
        proc.send_signal(signal.SIGTERM)                 # the start has only just said what it resumes
        rc = proc.wait(timeout=20)
    finally:
        _reap(proc, reader)
    _ended_tidily(proc, out, rc)
    after = current.read_text(encoding="utf-8")
    assert after.startswith(before) and all(json.loads(line.split(" ", 1)[1]) for line in after.splitlines())
    assert any(type(e).__name__ == "Press" and e.button == "C" for e in journal.read(current).events)
    with open(tmp_path / "journal" / journal.LOCK, "rb+") as held:   # the directory is free again
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
