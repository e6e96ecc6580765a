"""The runner (controller/app/runner.py): the one owner of the loop's heartbeat; front ends only
poll their input and present the frame it builds (controller/screens/frontend.py, issue 26)."""

from __future__ import annotations

import io
import os
import threading
import time

import pytest

from controller.app import config, runner
from controller.app.loop import FRAME_GUARD_NS, Loop
from controller.games import engine
from controller.core.events import HostKey, Press
from controller.inputs.clock import EngineClock
from controller.inputs.keyboard import KeyboardBackend
from controller.screens.frontend import Frame, FrontEnd

TIMEOUT = 30.0


def holder(frame: Frame) -> str | None:
    """The name the big panel of the audience's screen shows as answering, if any."""
    main = frame.vm["audience"]["screen"]["main"]
    return (main.get("holder") or {}).get("name") if main.get("kind") == "holder" else None


class Recorder(FrontEnd):
    """A front end that records every frame it is handed (and, with ``pipe``, has a file the
    runner waits on, as the terminal's stdin)."""

    def __init__(self, max_wait_s: float = 0.1, pipe: bool = False, keys: tuple[str, ...] = ()):
        self.max_wait_s = max_wait_s
        self.frames: list[Frame] = []
        self.polls = 0
        self.keys = list(keys)
        self.shell = None
        self.closed = False
        self.changed = threading.Condition()
        self.r = self.w = None
        if pipe:
            self.r, self.w = os.pipe()

    def open(self, shell) -> None:
        self.shell = shell

    def fileno(self):
        return self.r

    def poll(self) -> None:
        self.polls += 1
        if self.r is not None:
            os.read(self.r, 64)
        for k in self.keys:   # what the host types: through the shell, as the terminal does
            self.shell.key_down([k])
            self.shell.key_up([k])
        self.keys = []

    def present(self, frame: Frame) -> bool:
        with self.changed:
            self.frames.append(frame)
            self.changed.notify_all()
        return True

    def close(self) -> None:
        self.closed = True
        for fd in (self.r, self.w):
            if fd is not None:
                os.close(fd)

    def wait_for(self, predicate, timeout: float = TIMEOUT) -> Frame | None:
        end = time.monotonic() + timeout
        with self.changed:
            while True:
                hit = next((f for f in reversed(self.frames) if predicate(f)), None)
                if hit is not None or time.monotonic() > end:
                    return hit
                self.changed.wait(max(0.0, min(0.5, end - time.monotonic())))


def make_loop(settle_ms: float = 2.0) -> Loop:
    cfg = config.load()
    cfg["arbiter"]["settle_ms"] = settle_ms
    cfg["erudite"]["think_time_s"] = 600.0   # no countdown deadline wakes the runner during a test
    return Loop(cfg, engine.new_game(cfg, 1), EngineClock(), out=io.StringIO())


def run_on_thread(loop: Loop, front: FrontEnd):
    failure: list[BaseException] = []

    def target():
        try:
            runner.run(loop, front, seconds=120)
        except BaseException as exc:  # reported by the test's thread
            failure.append(exc)

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, failure


@pytest.mark.parametrize("pipe", [False, True], ids=["queue", "select"])
def test_a_press_enqueued_from_another_thread_wakes_the_runner_at_once_and_is_decided(pipe):
    """The runner waits 5 s between heartbeats here (the front end's ``max_wait_s``), on the
    loop's queue or, with a file of the front end, in select() on it and the loop's wake pipe:
    a press an input thread enqueues must still be decided and presented far sooner."""
    loop = make_loop()
    front = Recorder(max_wait_s=5.0, pipe=pipe)
    waiting = threading.Event()   # set: the runner asked how long it may wait since its last frame
    real_timeout, record = loop.timeout_s, front.present
    loop.timeout_s = lambda max_wait_s: (waiting.set(), real_timeout(max_wait_s))[1]
    front.present = lambda frame: (waiting.clear(), record(frame))[1]
    t, failure = run_on_thread(loop, front)
    try:
        loop.enqueue(HostKey("question"))
        loop.enqueue(HostKey("reading_done"))
        assert front.wait_for(lambda f: engine.view(loop.state)["question"] is not None)
        assert waiting.wait(TIMEOUT)   # the runner waits again after that frame (up to 5 s) ...
        pressed = time.monotonic()
        now = loop.clock.now()
        loop.enqueue(Press("B", now, now))   # ... when an input thread enqueues a press
        shown = front.wait_for(lambda f: holder(f) == "Бета", timeout=5.0)
        delay = time.monotonic() - pressed
        assert shown is not None, [holder(f) for f in front.frames[-3:]]
        assert delay < 1.0, delay   # a wake-up, not the end of the 5 s wait
    finally:
        loop.stop()
        loop.enqueue(HostKey("help"))   # (wakes a runner waiting on the queue: stop() wakes only the pipe)
        t.join(TIMEOUT)
    assert not failure, failure
    assert front.closed


def test_no_frame_is_presented_while_the_races_decision_is_near():
    """With a 30 ms settle window every heartbeat after a press falls inside the frame guard:
    the runner must not hand a frame over until the decision is made; then the frame shows the
    holder."""
    loop = make_loop(settle_ms=30.0)
    front = Recorder(max_wait_s=0.002)   # heartbeats every 2 ms: many of them fall in the window
    at_present = []
    record = front.present

    def present(frame: Frame) -> bool:   # (the test looks at the loop; a front end cannot)
        at_present.append((loop.clock.now(), engine.wakeup(loop.state)))
        return record(frame)

    front.present = present
    near_seen = []
    real_near = loop.deadline_near
    loop.deadline_near = lambda: near_seen.append(real_near()) or near_seen[-1]
    t, failure = run_on_thread(loop, front)
    try:
        loop.enqueue(HostKey("question"))
        loop.enqueue(HostKey("reading_done"))
        assert front.wait_for(lambda f: engine.view(loop.state)["question"] is not None)
        for button in ("C", "A"):
            now = loop.clock.now()
            loop.enqueue(Press(button, now, now))
            assert front.wait_for(lambda f: holder(f) is not None and f.now > now), "no holder shown"
            loop.enqueue(HostKey("wrong"))
            assert front.wait_for(lambda f: holder(f) is None and f.now > now)
    finally:
        loop.stop()
        t.join(TIMEOUT)
    assert not failure, failure
    assert any(near_seen), "no heartbeat came while the decision was near: the check saw nothing"
    near = [(now, due) for now, due in at_present if due is not None and due - now < FRAME_GUARD_NS]
    assert not near, near
    shown = list(dict.fromkeys(holder(f) for f in front.frames if holder(f)))
    assert shown == ["Гамма", "Альфа"], shown


def test_the_front_ends_input_goes_through_its_shell_and_the_frame_shows_the_holder():
    """A fake front end's keys (as the terminal types them: N opens the question, Z is Бета's
    button) reach the loop through the shell it was opened with; the frames it is handed show
    what the audience sees, with no engine or loop in its hands."""
    loop = make_loop()
    teams = loop.cfg["teams"]
    loop.use(backend=KeyboardBackend([tm["button"] for tm in teams], loop.clock, loop.enqueue,
                                     {"keys": {tm["button"]: tm["key"] for tm in teams}}))
    front = Recorder(keys=("n", "space"))
    t, failure = run_on_thread(loop, front)
    try:
        assert front.wait_for(lambda f: engine.view(loop.state)["question"] is not None), "the key did not act"
        front.keys = ["z"]
        shown = front.wait_for(lambda f: holder(f) == "Бета")
        assert shown is not None, [holder(f) for f in front.frames[-3:]]
    finally:
        loop.stop()
        t.join(TIMEOUT)
    assert not failure, failure
    assert front.polls > 0 and front.closed
    assert not hasattr(front.shell, "state") and not hasattr(front.shell, "step_once")


def test_a_front_end_without_its_must_hooks_cannot_be_made():
    class NoPresent(FrontEnd):
        def poll(self) -> None:
            pass

    with pytest.raises(TypeError):
        NoPresent()


def test_frames_are_paced_by_the_front_ends_fps_while_nothing_changes():
    """With ``fps`` = 5 and nothing happening, about five frames a second are handed over (each
    heartbeat is 2 ms): the runner paces them, not the front end."""
    loop = make_loop()
    front = Recorder(max_wait_s=0.002)
    front.fps = 5.0
    t, failure = run_on_thread(loop, front)
    try:
        assert front.wait_for(lambda f: True)
        start, count = time.monotonic(), len(front.frames)
        assert front.wait_for(lambda f: False, timeout=1.0) is None
        elapsed, n = time.monotonic() - start, len(front.frames) - count
    finally:
        loop.stop()
        t.join(TIMEOUT)
    assert not failure, failure
    assert 1 <= n <= elapsed * 5 + 2, (n, elapsed)


class FakeShell:
    """A shell that records what a front end asks of it."""

    typing = False
    pictures = None

    def __init__(self):
        self.keys, self.screens, self.stopped = [], [], False

    def key_down(self, names):
        self.keys.append(("down", names))

    def key_up(self, names):
        self.keys.append(("up", names))

    def text_input(self, text):
        self.keys.append(("text", text))

    def stop(self):
        self.stopped = True

    def set_screen(self, screen):
        self.screens.append(screen)

    def use(self, out=None, scrollback=None):
        pass


def test_the_window_front_end_keys_resize_title_and_close(monkeypatch):
    """The projector's window on SDL's dummy driver: its key events go to the shell, a resize
    makes a new board for the new size (handed to the shell), a presented frame is drawn with
    the buttons' state in the title, the close event stops the program."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.delenv("BUZZER_EXIT_AFTER_FIRST_FRAME", raising=False)
    from controller.sdl import pygame
    from controller.screens.window import Window

    loop = make_loop()
    loop.cfg["display"].update(fullscreen=False, width=640, height=360)
    window, shell = Window(loop.cfg), FakeShell()
    window.open(shell)
    try:
        first = window.board
        assert shell.screens == [first] and first.size == (640, 360)
        ev = pygame.event.Event
        for e in (ev(pygame.KEYDOWN, key=pygame.K_n), ev(pygame.KEYUP, key=pygame.K_n),
                  ev(pygame.KEYDOWN, key=pygame.K_PAUSE),
                  ev(pygame.TEXTINPUT, text="ё"), ev(pygame.VIDEORESIZE, size=(640, 360), w=640, h=360)):
            pygame.event.post(e)
        window.poll()
        # the Pause key: SDL calls it «break», the config's [keys] pause «pause»: both go on
        pause = [n for n in (pygame.key.name(pygame.K_PAUSE), "pause")]
        assert shell.keys == [("down", ["n"]), ("up", ["n"]), ("down", list(dict.fromkeys(pause))), ("text", "ё")]
        assert "pause" in shell.keys[2][1]
        assert window.board is not first and shell.screens == [first, window.board]
        assert window.present(runner.model(loop))            # the first frame is drawn
        loop.drawn()                                         # (as the runner does then)
        assert not window.present(runner.model(loop))        # the same frame again: nothing to draw
        assert pygame.display.get_caption()[0] == "buzzer-controller — нет (!)", pygame.display.get_caption()
        pygame.event.post(ev(pygame.QUIT))
        window.poll()
        assert shell.stopped
    finally:
        window.close()


def test_the_terminal_front_end_through_the_runner_types_keys_shows_the_help_and_outlives_its_input():
    """The terminal on a pipe: what is typed acts (H: the key help scrolls into the history, N:
    the question opens and the status says so); the end of its input ends reading, not the game."""
    from controller.screens.terminal import Terminal

    loop = make_loop()
    r, w = os.pipe()
    stdin = os.fdopen(r, "rb", buffering=0)
    stream = io.StringIO()
    front = Terminal(loop.cfg, stream=stream, stdin=stdin)
    t, failure = run_on_thread(loop, front)
    try:
        os.write(w, b"hn")
        deadline = time.monotonic() + TIMEOUT
        while not ("Клавиши" in stream.getvalue() or "Пробел" in stream.getvalue()) \
                or engine.view(loop.state)["question"] is None:
            assert time.monotonic() < deadline, stream.getvalue()[-2000:]
            time.sleep(0.01)
        os.close(w)
        w = None
        while front.reading:
            assert time.monotonic() < deadline, "the end of input was not seen"
            time.sleep(0.01)
        assert loop.running and t.is_alive()
    finally:
        if w is not None:
            os.close(w)
        loop.stop()
        t.join(TIMEOUT)
        stdin.close()
    assert not failure, failure
    text = stream.getvalue()
    assert "Вопрос 1/5" in text, text[-2000:]
