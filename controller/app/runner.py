"""The runner: the one owner of the loop's heartbeat, handing each front end a model to present.

A front end (controller/screens/frontend.py: the projector's :class:`~controller.screens.window.Window`,
the :class:`~controller.screens.terminal.Terminal`) only polls its own input and presents
frames; :func:`run` does the rest, on the loop's thread:

1. wait for input -- the loop's queue (a press enqueued by an input thread wakes the wait at
   once: the loop's wake pipe, or the queue itself) and the front end's own file, if it has one
   (the terminal's stdin) -- at most until the engine's next deadline or the front end's
   :attr:`~controller.screens.frontend.FrontEnd.max_wait_s`;
2. step: everything queued, journaled first (:meth:`Loop.drain`), then the due deadline
   (:meth:`Loop.tick_if_due`: the race's decision, a countdown's end);
3. a frame -- paced by the front end's ``fps`` while nothing changed, and never started while
   the engine's next deadline is near (:meth:`Loop.deadline_near`: a pending race decision
   leaves the CPU to the input threads, docs/performance.md «End to end»): the model is built
   once (:func:`model`) and presented.

:func:`run_window` and :func:`run_headless` are ``buzzer run``'s two front ends
(:data:`controller.app.startup.FrontEnd`).
"""

from __future__ import annotations

import select
import time
from typing import Any

from controller.games import engine
from controller.inputs.keys import mode_labels, team_keys
from controller.screens import viewmodel
from controller.screens.frontend import Frame, FrontEnd, Keys, Pictures


class LoopShell:
    """What a front end gets of the loop (:class:`~controller.screens.frontend.Shell`): its
    public input methods, nothing of its state or its stepping."""

    def __init__(self, loop: Any):
        self._loop = loop

    @property
    def typing(self) -> bool:
        return self._loop.typing

    @property
    def pictures(self) -> Pictures | None:
        return self._loop.pack_pictures

    def key_down(self, names: list[str]) -> None:
        self._loop.key_down(names)

    def key_up(self, names: list[str]) -> None:
        self._loop.key_up(names)

    def text_input(self, text: str) -> None:
        self._loop.text_input(text)

    def stop(self) -> None:
        self._loop.stop()

    def set_screen(self, screen: Any) -> None:
        self._loop.set_screen(screen)

    def use(self, out: Any = None, scrollback: Any = None) -> None:
        self._loop.use(out=out, scrollback=scrollback)

    def notice(self, key: str, /, **params) -> None:
        self._loop.say(key, **params)


def model(loop: Any) -> Frame:
    """The frame of ``loop`` now: the view model (with the buttons' status, the notice, the
    flash and the key help's state), the keys in force while the help is up, the ruling flash,
    the host link on the projector."""
    cfg = loop.cfg
    now = loop.clock.now()
    view = engine.view(loop.state, now)
    flash = loop.current_flash()
    vm = viewmodel.build(view, lang=cfg["language"], status=loop.status(), flash=flash, help_on=loop.help)
    link = loop.shown_link()   # (it may just have hidden itself: a change to draw)
    keys = None
    if loop.help:
        keys = Keys(actions=loop.key_map(), teams=team_keys(cfg, view, loop.state), host=loop.host_keys,
                    labels=mode_labels(cfg, loop.state))
    return Frame(now=now, vm=vm, changed=loop.dirty, help=loop.help, keys=keys, flash=flash,
                 flash_until=loop.flash_until, link=link)


def heartbeat(loop: Any, front: FrontEnd) -> None:
    """Wait for input (the loop's queue and the front end's file) or the next deadline, at most
    the front end's ``max_wait_s``; hand the front end's input over; step what came and what is due."""
    fd = front.fileno()
    if fd is None:
        front.poll()
        loop.step_once(loop.timeout_s(front.max_wait_s))
        return
    # the loop's wake pipe is in the set: a press enqueued by an input thread wakes this
    # select at once (not after its timeout)
    wake = loop.wake_fd()
    # (an event queued before the wake pipe was first made wrote no byte: no wait then)
    wait = 0.0 if not loop.queue.empty() else loop.timeout_s(front.max_wait_s)
    ready, _, _ = select.select([fd, wake], [], [], wait)
    if wake in ready:
        loop.clear_wake()   # before the queue is drained: a later press writes a new byte
    if fd in ready:
        front.poll()
    loop.drain()
    loop.tick_if_due()


def run(loop: Any, front: FrontEnd, seconds: float | None = None) -> None:
    """Run ``loop`` with ``front`` until the host quits (or ``seconds`` have passed)."""
    frame_s = 1.0 / front.fps if front.fps else 0.0
    end = None if seconds is None else time.monotonic() + seconds
    last = 0.0
    front.open(LoopShell(loop))
    try:
        while loop.running and (end is None or time.monotonic() < end):
            heartbeat(loop, front)
            near = loop.deadline_near()
            front.hold(near)
            wall = time.monotonic()
            if front.fps is not None and not loop.dirty and wall - last < frame_s:
                continue
            if near:
                continue  # a deadline (the arbiter's decision) is about to fall due: no frame now
            last = wall
            if front.present(model(loop)):
                loop.drawn()
    finally:
        front.close()


def run_window(loop: Any, seconds: float | None = None) -> None:
    """``buzzer run`` with the projector's window (pygame): drawn in a process of its own
    (:class:`~controller.screens.window_process.WindowProcess`), or with ``[display]
    separate_process = false`` in the loop's process (:func:`run_window_here`)."""
    if not loop.cfg["display"]["separate_process"]:
        run_window_here(loop, seconds)
        return
    from controller.screens.window_process import WindowProcess

    run(loop, WindowProcess(loop.cfg), seconds)


def run_window_here(loop: Any, seconds: float | None = None) -> None:
    """The projector's window drawn on the loop's own thread (a press read while a frame is
    drawn waits for the frame's end: docs/performance.md «The window in its own process»)."""
    from controller.screens.window import Window

    run(loop, Window(loop.cfg), seconds)


def run_headless(loop: Any, seconds: float | None = None, stream=None, stdin=None) -> None:
    """``buzzer run`` in the terminal (no display, or ``--headless``); ``stream``: where the
    status goes (stdout), ``stdin``: where the keys come from (stdin)."""
    from controller.screens.terminal import Terminal

    run(loop, Terminal(loop.cfg, stream=stream, stdin=stdin), seconds)
