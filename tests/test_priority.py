"""``[process] realtime_priority``: ``buzzer run``'s loop and its buttons' readers run at the
real-time priority, the web pages' process at normal priority below the game, and a machine that
refuses it gets one line naming why (controller/inputs/priority.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from controller.inputs import priority
from tests.browser import free_port, until
from tests.test_window_process import WINDOW_RUN

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setscheduler"), reason="Linux scheduling calls")


def _config(tmp_path: Path, level: int | None, port: int) -> Path:
    lines = ['buttons = "gpio"', "", "[gpio]", 'pin_factory = "mock"', "",
             "[web]", f"port = {port}", "next_free_port = false", ""]
    if level is not None:
        lines += ["[process]", f"realtime_priority = {level}", ""]
    path = tmp_path / "table.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _start(tmp_path: Path, cfg: Path, prefix: tuple[str, ...] = (), window: bool = False):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT),
               PYTHONUNBUFFERED="1")
    env.pop("BUZZER_EXIT_AFTER_FIRST_FRAME", None)   # (the suite's: a window's first frame ends it)
    # the window: with SDL's dummy driver as the display (read as none otherwise)
    program = ["-c", WINDOW_RUN] if window else ["-m", "controller.cli"]
    proc = subprocess.Popen([*prefix, sys.executable, *program, "run", *([] if window else ["--headless"]),
                             "--config", str(cfg)], cwd=tmp_path, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = bytearray()
    reader = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                              daemon=True)
    reader.start()
    return proc, out, reader


def _threads(pid: int) -> dict[int, tuple[int, int]]:
    """Thread id -> (policy, real-time level) of every thread of ``pid``."""
    found = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            found[int(tid)] = (os.sched_getscheduler(int(tid)), os.sched_getparam(int(tid)).sched_priority)
        except OSError:
            pass   # a thread that just ended
    return found


def _children(pid: int) -> list[int]:
    kids = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            kids += [int(k) for k in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            pass
    return kids


def _nice(pid: int) -> int:
    return os.getpriority(os.PRIO_PROCESS, pid)


def _playing(out: bytearray) -> bool:
    return "Эрудит-квартет" in out.decode(errors="replace")


def _stop(proc, reader) -> tuple[int, str]:
    proc.terminate()
    try:
        rc = proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait(10)
    reader.join(10)
    return rc, proc.stderr.read().decode()


def _may_raise() -> bool:
    raised = priority.Raised(1)
    raised.restore()
    return raised.problem is None


@pytest.mark.skipif(not _may_raise(), reason="needs root or CAP_SYS_NICE (CI runs as root)")
def test_the_game_loop_and_the_buttons_reader_run_real_time_and_the_pages_at_normal_priority(tmp_path):
    """The default (10): the game's main thread (the loop) and the thread that reads the buttons
    (gpiozero's debounce thread here) are SCHED_FIFO 10; the web pages' process is back at the
    normal policy with its nice value 10 -- a crowd of viewers never runs at the buttons' level."""
    port = free_port()
    proc, out, reader = _start(tmp_path, _config(tmp_path, None, port))
    try:
        until(lambda: _playing(out), what="the game's status line")
        pid = proc.pid   # (prlimit and setpriv exec the game: the same process)
        # the buttons' reader (started by backend.start()) and the web's bridge threads are up
        until(lambda: len(_threads(pid)) >= 2 and _children(pid), what="the reader's thread and the pages' process")
        threads = _threads(pid)
        assert threads[pid] == (os.SCHED_FIFO, 10), threads
        assert all(t == (os.SCHED_FIFO, 10) for t in threads.values()), threads
        web = _children(pid)
        assert web, "no web pages' process"
        for child in web:
            until(lambda: _nice(child) == 10, what="the pages at nice 10")   # (its own first step)
            assert set(_threads(child).values()) == {(os.SCHED_OTHER, 0)}, _threads(child)
    finally:
        rc, err = _stop(proc, reader)
    assert rc == 0 and "Traceback" not in err, (rc, err)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _child_where(pid: int, test) -> int | None:
    """The first child process of ``pid`` whose command line passes ``test``."""
    return next((k for k in _children(pid) if test(_cmdline(k))), None)


@pytest.mark.skipif(not _may_raise(), reason="needs root or CAP_SYS_NICE (CI runs as root)")
def test_the_projectors_window_opened_again_runs_at_normal_priority_below_the_game(tmp_path):
    """The window's process is forked at the start (normal priority, nice 5); killed, it is
    started again by the loop's real-time thread: the new one is at the normal policy too, and
    the game's loop stays at its real-time level."""
    proc, out, reader = _start(tmp_path, _config(tmp_path, None, free_port()), window=True)
    try:
        pid = proc.pid
        # the forked window: the program's own command line, at nice 5 (the web pages' process
        # has that command line too for a moment, before it execs its own, at nice 10)
        forked = lambda: next((k for k in _children(pid) if "controller.web.child" not in _cmdline(k)  # noqa: E731
                               and _nice(k) == 5), None)
        until(lambda: forked() is not None, what="the forked window")
        first = forked()
        assert set(_threads(first).values()) == {(os.SCHED_OTHER, 0)}, _threads(first)
        until(lambda: _threads(pid).get(pid) == (os.SCHED_FIFO, 10), what="the loop at FIFO 10")
        os.kill(first, 9)
        again = lambda: _child_where(pid, lambda cmd: "controller.screens.window_process" in cmd)  # noqa: E731
        until(lambda: proc.poll() is not None or again() is not None, what="a window opened again")
        assert proc.poll() is None, (out.decode()[-600:], proc.stderr.read().decode()[-1500:])
        second = again()
        until(lambda: _nice(second) == 5, what="the new window at nice 5")
        assert set(_threads(second).values()) == {(os.SCHED_OTHER, 0)}, _threads(second)
        assert _threads(pid)[pid] == (os.SCHED_FIFO, 10)
    finally:
        rc, err = _stop(proc, reader)
    assert rc == 0 and "Traceback" not in err, (rc, err)


def test_realtime_priority_zero_leaves_every_thread_at_normal_priority(tmp_path):
    proc, out, reader = _start(tmp_path, _config(tmp_path, 0, free_port()))
    try:
        until(lambda: _playing(out), what="the game's status line")
        pid = proc.pid   # (prlimit and setpriv exec the game: the same process)
        until(lambda: len(_threads(pid)) >= 2, what="the reader's thread")
        assert set(_threads(pid).values()) == {(os.SCHED_OTHER, 0)}, _threads(pid)
    finally:
        rc, err = _stop(proc, reader)
    assert rc == 0 and "Traceback" not in err, (rc, err)
    assert "приоритет" not in err, err


@pytest.mark.skipif(os.geteuid() != 0, reason="drops root's CAP_SYS_NICE with setpriv (CI runs as root)")
def test_a_machine_that_refuses_the_real_time_priority_gets_one_line_and_the_game_plays(tmp_path):
    """Without CAP_SYS_NICE and with RLIMIT_RTPRIO 0 (a user's login without the service's
    LimitRTPRIO) the kernel refuses: the wired buttons' game says so in one line, in the host's
    language, naming the reason and the key, and plays at normal priority."""
    prefix = ("prlimit", "--rtprio=0", "setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice")
    proc, out, reader = _start(tmp_path, _config(tmp_path, 10, free_port()), prefix)
    try:
        until(lambda: _playing(out), what="the game's status line")
        pid = proc.pid   # (prlimit and setpriv exec the game: the same process)
        assert set(_threads(pid).values()) == {(os.SCHED_OTHER, 0)}, _threads(pid)
    finally:
        rc, err = _stop(proc, reader)
    assert rc == 0 and "Traceback" not in err, (rc, err)
    lines = [line for line in err.splitlines() if "приоритет" in line]
    assert len(lines) == 1, err
    assert "Кнопки работают с обычным приоритетом (Operation not permitted)" in lines[0], lines
    assert "[process] realtime_priority" in lines[0], lines
