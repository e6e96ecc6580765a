"""The pygame window: the audience screen plus the keyboard.

The window's key events become button presses (simulated buttons) and host
actions; the screen is redrawn when the game changes and while a countdown or
a flash runs.  The picture itself is drawn by
:class:`controller.screens.scoreboard.Scoreboard`.
"""

from __future__ import annotations

import os
import time

from controller.screens import viewmodel
from controller.core import engine
from controller.i18n import t
from controller.inputs.keys import mode_keys, team_keys



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
                                               team_keys=team_keys(cfg))


def _pack_media(board, loop) -> None:
    """A SIGame package's pictures: the screen reads them from the package when first shown,
    and keeps at most ``[own_game] pack_picture_cache_mb`` of them decoded."""
    if getattr(loop, "pack_media", None) is not None:
        board.pack.media_data = loop.pack_media.data
        board.pack.cache_bytes = int(loop.cfg.get("own_game", {}).get("pack_picture_cache_mb", 48.0) * 1024 * 1024)


def run_window(loop, seconds: float | None = None) -> None:
    from controller.sdl import pygame


    cfg = loop.cfg
    surface = _open_window(cfg)
    board = _scoreboard(cfg, surface.get_size())
    _pack_media(board, loop)
    loop.set_screen(board)
    frame_s = 1.0 / cfg["display"]["fps"]
    end = None if seconds is None else time.monotonic() + seconds
    last_draw = 0.0
    title = ""
    try:
        while loop.running and (end is None or time.monotonic() < end):
            for ev in pygame.event.get():
                if ev.type == pygame.QUIT:
                    loop.stop()
                elif ev.type == pygame.KEYDOWN:
                    loop.key_down([pygame.key.name(ev.key)])
                elif ev.type == pygame.KEYUP:
                    loop.key_up([pygame.key.name(ev.key)])
                elif ev.type == pygame.TEXTINPUT:
                    loop.text_input(ev.text)  # a team's new name (Cyrillic too); ignored otherwise
                elif ev.type in (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED):
                    surface = pygame.display.get_surface()
                    board = _scoreboard(cfg, surface.get_size())
                    _pack_media(board, loop)
                    loop.set_screen(board)
            # short waits keep key latency low while the queue is idle
            loop.step_once(min(0.004, loop.timeout_s(0.004)))
            wall = time.monotonic()
            if not loop.dirty and wall - last_draw < frame_s:
                continue
            if loop.deadline_near():
                continue  # a deadline (the arbiter's decision) is about to fall due: no frame now
            last_draw = wall
            now = loop.clock.now()
            # the projector shows the audience part of the view model; the host's part only
            # when [display] host_overlay asks for it (a laptop game with no phone)
            vm = viewmodel.build(engine.view(loop.state, now), lang=cfg["language"], status=loop.status(),
                                 flash=loop.current_flash(), help_on=loop.help)
            view, flash, status, help_on = viewmodel.projector(vm, cfg["display"]["host_overlay"])
            link = loop.shown_link()   # the host asked for it (the host_link key): never in the view model
            if link is not None:
                status = dict(status, host_link={k: link[k] for k in ("url", "qr", "text", "warning") if k in link})
            if help_on:
                board.set_team_keys(team_keys(cfg, view, loop.state))  # the names the teams have now
                board.set_keys(loop.key_map())   # the keys of the game on now (a programme's round's)
            if loop.dirty or board.needs_redraw(view, now, flash, status, help_on):
                board.draw(surface, view, now, flash=flash, status=status, help_overlay=help_on)
                pygame.display.flip()
                loop.drawn()
                if os.environ.get("BUZZER_EXIT_AFTER_FIRST_FRAME") == "1":
                    # start-up benchmark (benchmarks/run.py): command to first frame
                    print("first frame", flush=True)
                    loop.stop()
                new_title = f"buzzer-controller — {t('backend_' + status['backend'], cfg['language'])}" + (
                    "" if status["connected"] and not status["missing"] else " (!)")
                if new_title != title:
                    pygame.display.set_caption(new_title)
                    title = new_title
    finally:
        pygame.display.quit()
