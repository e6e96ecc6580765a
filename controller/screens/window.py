"""The pygame window: the audience screen plus the keyboard.

:class:`Window` is a front end (controller/screens/frontend.py) the runner drives
(controller/app/runner.py): the window's key events become button presses (simulated
buttons) and host actions; a frame is drawn when the game changes and while a countdown or a
flash runs.  The picture itself is drawn by the projector's layout
(:class:`controller.screens.scoreboard.Scoreboard` and the others of :mod:`.layouts`).
"""

from __future__ import annotations

import os

from controller.screens import viewmodel
from controller.screens.frontend import Frame, FrontEnd, Shell
from controller.i18n import t
from controller.inputs.keys import mode_keys, mode_labels, team_keys


PYGAME_ALIASES = {"break": "pause"}
"""Key names pygame gives that the config knows by another name: SDL 2 names the Pause key
«break» (pygame 2.6), the config's ``[keys] pause`` says ``"pause"``; both are passed on."""


def key_names(pygame, key: int) -> list[str]:
    """The names a key of the window goes by (pygame's own first)."""
    name = pygame.key.name(key)
    return [name, PYGAME_ALIASES[name]] if name in PYGAME_ALIASES else [name]


def _open_window(cfg: dict):
    from controller.sdl import pygame

    pygame.display.init()
    pygame.font.init()
    d = cfg["display"]
    if d["fullscreen"]:
        surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
    else:
        surface = pygame.display.set_mode((d["width"], d["height"]), pygame.RESIZABLE)
    pygame.display.set_caption("buzzer-controller")
    pygame.mouse.set_visible(not d["fullscreen"])
    return surface


def _scoreboard(cfg: dict, size):
    """The audience screen in its ``[display] layout``; its help overlay lists only the keys
    that act in this game."""
    from controller.screens import projector

    return projector(cfg["display"]["layout"])(size, lang=cfg["language"], keys=mode_keys(cfg),
                                               team_keys=team_keys(cfg), labels=mode_labels(cfg))


def _pictures(board, pictures) -> None:
    """A SIGame package's pictures: the screen reads them from the package when first shown,
    and keeps at most the package media's cache size of them decoded."""
    if pictures is not None:
        board.pack.media_data = pictures.read
        board.pack.cache_bytes = pictures.cache_bytes


class Window(FrontEnd):
    """The projector's pygame window (:class:`~controller.screens.frontend.FrontEnd`): its key
    and text events go to the shell, its frames are the audience part of the model (the
    host's only with ``[display] host_overlay``)."""

    max_wait_s = 0.004   # short waits keep key latency low while the queue is idle

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.fps = cfg["display"]["fps"]
        self.shell: Shell | None = None
        self.surface = None
        self.board = None
        self.title = ""

    def open(self, shell: Shell) -> None:
        self.shell = shell
        self.surface = _open_window(self.cfg)
        self._new_board()

    def _new_board(self) -> None:
        self.board = _scoreboard(self.cfg, self.surface.get_size())
        _pictures(self.board, self.shell.pictures)
        self.shell.set_screen(self.board)

    def poll(self) -> None:
        from controller.sdl import pygame

        shell = self.shell
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                shell.stop()
            elif ev.type == pygame.KEYDOWN:
                shell.key_down(key_names(pygame, ev.key))
            elif ev.type == pygame.KEYUP:
                shell.key_up(key_names(pygame, ev.key))
            elif ev.type == pygame.TEXTINPUT:
                shell.text_input(ev.text)  # a team's new name (Cyrillic too); ignored otherwise
            elif ev.type in (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED):
                self.surface = pygame.display.get_surface()
                self._new_board()

    def present(self, frame: Frame) -> bool:
        from controller.sdl import pygame

        cfg, board = self.cfg, self.board
        # the projector shows the audience part of the view model; the host's part only
        # when [display] host_overlay asks for it (a laptop game with no phone)
        view, flash, status, help_on = viewmodel.projector(frame.vm, cfg["display"]["host_overlay"])
        link = frame.link   # the host asked for it (the host_link key): never in the view model
        if link is not None:
            status = dict(status, host_link={k: link[k] for k in ("url", "qr", "text", "warning") if k in link})
        if help_on and frame.keys is not None:
            board.set_team_keys(frame.keys.teams)   # the names the teams have now
            board.set_keys(frame.keys.actions)      # the keys of the game on now (a programme's round's)
            board.set_labels(frame.keys.labels)     # and its own words for them
        if not (frame.changed or board.needs_redraw(view, frame.now, flash, status, help_on)):
            return False
        board.draw(self.surface, view, frame.now, flash=flash, status=status, help_overlay=help_on)
        pygame.display.flip()
        if os.environ.get("BUZZER_EXIT_AFTER_FIRST_FRAME") == "1":
            # start-up benchmark (benchmarks/run.py): command to first frame
            print("first frame", flush=True)
            self.shell.stop()
        new_title = f"buzzer-controller — {t('backend_' + status['backend'], cfg['language'])}" + (
            "" if status["connected"] and not status["missing"] else " (!)")
        if new_title != self.title:
            pygame.display.set_caption(new_title)
            self.title = new_title
        return True

    def close(self) -> None:
        from controller.sdl import pygame

        pygame.display.quit()
