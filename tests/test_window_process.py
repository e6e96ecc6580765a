"""The projector's window in a process of its own (controller/screens/window_process.py): the
real child process on SDL's dummy driver, driven by the real runner; what it draws is saved to
PNG and compared with the same frame drawn in this process."""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller.app import config, runner  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.core.events import HostKey, Press  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import EngineClock  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.screens.window_process import WindowProcess  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from browser import until  # noqa: E402

WAIT = 60.0   # a loaded machine starts a Python process with pygame slowly


def make_loop(cfg=None) -> Loop:
    cfg = cfg or config.load()
    cfg["erudite"]["think_time_s"] = 600.0
    cfg["display"].update(fullscreen=False, width=960, height=540)
    cfg["web"]["enabled"] = False
    clock = EngineClock()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    keys = {t["button"]: t["key"] for t in cfg["teams"] if t.get("key")}
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue, {"keys": keys})
    return loop


class Running:
    """``loop`` run by the runner with the window process on a thread (the child draws)."""

    def __init__(self, loop: Loop):
        self.loop = loop
        self.front = WindowProcess(loop.cfg)
        self.failure: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        until(lambda: self.front.frames_drawn >= 1, WAIT, 0.01, "the child's first frame")

    def _run(self) -> None:
        try:
            runner.run(self.loop, self.front, seconds=300)
        except BaseException as exc:   # reported by the test
            self.failure.append(exc)

    def drawn_after(self, n: int) -> int:
        """Wait until the child drew a frame after its ``n``-th and nothing waits to be drawn."""
        front = self.front
        until(lambda: front.frames_drawn > n and not front._in_flight and front._waiting is None
              and not self.loop.dirty, WAIT, 0.01, "the child drew the frame")
        return front.frames_drawn

    def shot(self, path: Path) -> pygame.Surface:
        n = len(self.front.saved)
        self.front.save(str(path))
        until(lambda: len(self.front.saved) > n, WAIT, 0.01, "the child saved its screen")
        return pygame.image.load(str(path))

    def stop(self) -> None:
        self.loop.stop()
        self.thread.join(WAIT)
        assert not self.thread.is_alive()
        assert not self.failure, self.failure


@pytest.fixture
def running():
    made: list[Running] = []

    def start(loop=None) -> Running:
        made.append(Running(loop or make_loop()))
        return made[-1]

    yield start
    for r in made:
        if r.thread.is_alive():
            r.stop()


def here(r: Running, size=(960, 540)) -> pygame.Surface:
    """The last frame handed to the child, drawn in this process by the window's own board."""
    from controller.screens import viewmodel
    from controller.screens.window import _scoreboard

    pygame.display.init()
    pygame.font.init()
    loop, frame = r.loop, r.front.last_sent
    board = _scoreboard(loop.cfg, size)
    surface = pygame.Surface(size)
    view, flash, status, help_on = viewmodel.projector(frame.vm, loop.cfg["display"]["host_overlay"])
    board.draw(surface, view, frame.now, flash=flash, status=status, help_overlay=help_on)
    return surface


def holder(frame) -> str | None:
    """The name the big panel of the audience's screen shows as answering, if any."""
    main = frame.vm["audience"]["screen"]["main"]
    return (main.get("holder") or {}).get("name") if main.get("kind") == "holder" else None


def same_picture(a: pygame.Surface, b: pygame.Surface) -> bool:
    return a.get_size() == b.get_size() and pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")


def test_the_child_draws_the_games_frame_and_its_keys_play_the_game(running, tmp_path):
    """N pressed in the child's window opens the question in the loop; the projector then shows
    exactly the picture the window draws in the loop's own process."""
    r = running()
    loop = r.loop
    assert loop.state.question is None
    n = r.front.frames_drawn
    r.front.test_events([("KEYDOWN", {"key": pygame.K_n}), ("KEYUP", {"key": pygame.K_n})])
    until(lambda: loop.state.question is not None, WAIT, 0.01, "the question opened by the child's N")
    r.drawn_after(n)
    child = r.shot(tmp_path / "child.png")
    assert same_picture(child, here(r)), "the child's screen differs from the frame drawn here"
    assert r.front.proc.pid != os.getpid()
    r.stop()


def test_a_press_is_decided_and_its_lamp_lit_while_the_window_hangs(running, tmp_path):
    """The child stopped (a hung window): the loop still takes the press, decides the race and
    lights the winner's lamp; the frames meanwhile wait, and the window shows the winner once
    it goes on."""
    r = running()
    loop = r.loop
    open_question(loop)
    lamps = []
    real = loop.backend.set_lamp
    r.front.hold = lambda on: None   # (its SIGCONT would wake the hung window: tested below)
    os.kill(r.front.proc.pid, signal.SIGSTOP)
    stopped_at = r.front.frames_drawn
    try:
        button = loop.cfg["teams"][1]["button"]
        loop.backend.set_lamp = lambda b, s: (lamps.append((b, s)), real(b, s))[1]
        at = loop.clock.now()
        loop.enqueue(Press(button, at, at))
        until(lambda: loop.state.question.holder == 1, WAIT, 0.01, "the press decided (team 2 answers)")
        until(lambda: (button, "on") in lamps, WAIT, 0.01, "the winner's lamp")
        frames = r.front.frames_sent
        loop.changed()
        until(lambda: r.front._waiting is not None, WAIT, 0.01, "a frame waiting for the window")
        assert r.front.frames_sent == frames      # none sent while the last one is not drawn
        assert r.front.frames_drawn <= stopped_at + 1   # (the one it may have been finishing)
    finally:
        os.kill(r.front.proc.pid, signal.SIGCONT)
    r.drawn_after(r.front.frames_drawn)
    assert holder(r.front.last_sent) == "Бета"
    assert same_picture(r.shot(tmp_path / "after.png"), here(r))
    r.stop()


def test_a_window_that_dies_is_opened_again_and_the_host_is_told(running, tmp_path):
    r = running()
    loop = r.loop
    first = r.front.proc.pid
    os.kill(first, signal.SIGKILL)
    until(lambda: r.front.proc is not None and r.front.proc.pid != first, WAIT, 0.01, "a new window")
    assert "Окно проектора закрылось с ошибкой" in loop.notice
    n = r.front.frames_drawn
    loop.changed()
    r.drawn_after(n)
    assert same_picture(r.shot(tmp_path / "again.png"), here(r))
    assert r.front.restarts == 1
    r.stop()


def test_closing_the_window_ends_the_program(running):
    r = running()
    child = r.front.proc
    r.front.test_events([("QUIT", {})])
    r.thread.join(WAIT)
    assert not r.thread.is_alive() and not r.loop.running
    assert child.wait(WAIT) == 0
    assert not r.failure


def test_the_window_is_held_while_a_race_waits_for_its_decision(running):
    """While the settle window runs the child is stopped (the frame it may be drawing takes no CPU
    from the input threads and the loop): stopped when the race is decided, going on after."""
    loop = make_loop()
    loop.cfg["arbiter"]["settle_ms"] = 30.0   # inside the runner's frame guard (40 ms)
    r = running(loop)
    open_question(loop)
    pid = r.front.proc.pid
    at_decision = []
    real_apply = loop.apply

    def apply(event, journaled=False):
        before = loop.state.question.holder
        fx = real_apply(event, journaled)
        if before is None and loop.state.question.holder is not None:
            at_decision.append(proc_state(pid))
        return fx

    loop.apply = apply
    at = loop.clock.now()
    loop.enqueue(Press(loop.cfg["teams"][0]["button"], at, at))
    until(lambda: at_decision, WAIT, 0.01, "the decision")
    assert at_decision == ["T"], at_decision        # stopped (SIGSTOP) while the race waited
    until(lambda: proc_state(pid) != "T", WAIT, 0.01, "the child going on")
    n = r.front.frames_drawn
    loop.changed()
    r.drawn_after(n)
    assert r.front.holds == 1
    r.stop()


def open_question(loop: Loop) -> None:
    """The host opens a question and ends its reading: the buttons may press."""
    loop.enqueue(HostKey("question"))
    loop.enqueue(HostKey("reading_done"))
    until(lambda: loop.state.question is not None and loop.state.question.reading_done, WAIT, 0.01,
          "the question open for presses")


def proc_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_the_child_shows_a_packages_picture_read_by_the_loops_process(running, tmp_path):
    """Своя игра from a package: the child asks for the question's picture, a thread of the
    loop's process reads it from the package; the projector shows it (its colour fills the
    question's panel)."""
    sys.path.insert(0, str(ROOT / "tests" / "packs"))
    import make_packs
    from controller.content import packs
    from test_own_game_pack import _share

    made = make_packs.make(tmp_path / "packs")
    cfg = config.load(str(ROOT / "config" / "own-game.toml"))
    assert packs.attach(cfg, str(made["content"]), out=io.StringIO())
    cfg["display"].update(fullscreen=False, width=1280, height=720)
    cfg["web"]["enabled"] = False
    loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock(), out=io.StringIO())
    loop.use(pack_media=packs.open_media(cfg))
    try:
        r = running(loop)
        n = r.front.frames_drawn
        keys = [pygame.K_1, pygame.K_2]                       # «Годы» 200: three pictures
        r.front.test_events([e for k in keys for e in (("KEYDOWN", {"key": k}), ("KEYUP", {"key": k}))])
        until(lambda: loop.state.question is not None, WAIT, 0.01, "the package's question")
        r.drawn_after(n)
        shot = r.shot(tmp_path / "picture.png")
        assert _share(shot, pygame.Rect(16, 108, 1248, 400), make_packs.GREEN) > 0.03
        r.stop()
    finally:
        loop.pack_media.close()


WINDOW_RUN = ("import sys, controller.app.startup as s\n"
              "s.display_available = lambda: True  # SDL's dummy driver reads as 'no display'\n"
              "from controller.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")


def sig_ignored(pid: int) -> str:
    return next(line.split()[1] for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                if line.startswith("SigIgn:"))


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _buzzer_run_with_a_window(tmp_path):
    """``buzzer run`` in its own session, SDL's dummy driver as its display, no web pages."""
    import subprocess

    (tmp_path / "game.toml").write_text("[web]\nenabled = false\n", encoding="utf-8")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1",
               PYTHONPATH=str(ROOT))
    env.pop("BUZZER_EXIT_AFTER_FIRST_FRAME", None)
    return subprocess.Popen([sys.executable, "-c", WINDOW_RUN, "run", "-c", "game.toml", "--new",
                             "--seconds", "120"], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def cmdline(pid: int) -> bytes:
    return Path(f"/proc/{pid}/cmdline").read_bytes()


def test_buzzer_run_forks_its_window_early_and_ctrl_c_ends_both_quietly(tmp_path):
    """``buzzer run`` with a display: the window's process is a fork made at the start (the same
    command line: nothing imported twice); Ctrl+C in the terminal (SIGINT to the process group)
    ends the program and its window without a traceback or a «window closed» notice."""
    proc = _buzzer_run_with_a_window(tmp_path)
    try:
        window = until(lambda: [c for c in children(proc.pid) if cmdline(c) == cmdline(proc.pid)],
                       WAIT, 0.02, "the window's process, forked")[0]
        # its own start under way: it ignores the terminal's Ctrl+C (the program ends it)
        until(lambda: int(sig_ignored(window), 16) & (1 << (signal.SIGINT - 1)), WAIT, 0.02,
              "the window ignoring SIGINT")
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 0, (out, err)
    assert "Traceback" not in err and "Окно проектора" not in out + err, (out, err)
    assert not Path(f"/proc/{window}").exists() or proc_state(window) == "Z"


def test_a_window_that_dies_in_its_first_moment_is_opened_again_and_the_game_goes_on(tmp_path):
    """The window's process killed as soon as it is forked (as a display that is not ready yet
    would end it): the program used to take the failed hello for a closed window and end quietly
    («Ничего не сыграно»); it opens the window again and plays on."""
    proc = _buzzer_run_with_a_window(tmp_path)
    try:
        first = until(lambda: [c for c in children(proc.pid) if cmdline(c) == cmdline(proc.pid)],
                      WAIT, 0.001, "the window's process, forked")[0]
        os.kill(first, signal.SIGKILL)
        again = until(lambda: proc.poll() is not None or [c for c in children(proc.pid)
                                                           if b"controller.screens.window_process" in cmdline(c)],
                      WAIT, 0.01, "a window opened again")
        assert proc.poll() is None and again, proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 0 and "Traceback" not in err, (out, err)


def test_a_picture_larger_than_the_sockets_buffer_reaches_the_window_whole():
    """A package's photo of a few MB: the picture thread sends it all while the child reads it
    (the loop's thread never waits for the socket)."""
    import socket

    from controller.screens import window_process as wp
    from controller.screens.frontend import Pictures

    big = bytes(range(256)) * (3 * 1024 * 1024 // 256)
    front = WindowProcess(make_loop().cfg)
    front._pictures = Pictures(lambda member: big if member == "Images/big.jpg" else None, 1 << 26)
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    parent.setblocking(False)
    front.sock = parent
    reader = threading.Thread(target=front._read_pictures, daemon=True)
    reader.start()
    conn = wp._Conn(child.detach())
    got: list = []
    asking = threading.Thread(target=lambda: got.append(conn.picture("Images/big.jpg")), daemon=True)
    asking.start()
    until(lambda: not asking.is_alive() or _take_requests(front), WAIT, 0.01, "the picture answered")
    asking.join(WAIT)
    assert not asking.is_alive(), "the child still waits for the rest of the picture"
    assert got == [big]
    front._reads.put((None, None))
    parent.close()


def _take_requests(front) -> bool:
    """The loop's side: read the child's lines (its picture request) as poll() does."""
    try:
        data = front.sock.recv(1 << 16)
    except BlockingIOError:
        return False
    for line in data.split(b"\n"):
        if line:
            front._take(line)
    return False
