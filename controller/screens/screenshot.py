"""``buzzer screenshot``: the audience screen at one moment of a scripted session, as a PNG.

    buzzer screenshot examples/erudite-round.jsonl --at 3.6 --out press.png
    buzzer screenshot game.jsonl --at 12 --out en.png --size 1280x720 --lang en

The script is played on its virtual clock up to ``--at`` seconds
(:func:`controller.sessions.script.run` with ``until``), the mode's view is taken at
that instant and :class:`~controller.screens.scoreboard.Scoreboard` draws it
on an off-screen surface: no window, no display needed, and the same
arguments always give the same picture.  The ruling flash shown is the
latest Flash effect at most ``[display] flash_s`` seconds before ``--at``,
as the live screen would show it.

Used for the README pictures, for bug reports ("this is what the hall saw")
and by the tests, which check pixels of the rendered frames.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path
from typing import Any

from controller.core.errors import BuzzerError
from controller.games import engine
from controller.sessions import script as script_mod
from controller.core.events import seconds_to_ns
from controller.i18n import LANGUAGES, Text
from controller.core.commandline import Command
from controller.inputs.keys import mode_keys, mode_labels, team_keys

MIN_SIDE, MAX_SIDE = 160, 8192


class ScreenshotError(BuzzerError):
    """Bad arguments of ``buzzer screenshot`` or an unwritable output file."""


def parse_size(text: str) -> tuple[int, int]:
    """``"1920x1080"`` -> (1920, 1080)."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", text or "")
    if not m:
        raise ScreenshotError(f"--size: expected WIDTHxHEIGHT such as 1920x1080, got {text!r}")
    w, h = int(m.group(1)), int(m.group(2))
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise ScreenshotError(f"--size: each side must be {MIN_SIDE}..{MAX_SIDE} px, got {w}x{h}")
    return w, h


def _headless() -> None:
    """No display server: let SDL draw off-screen (set before pygame starts its display)."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


def latest_flash(flashes: list, now_ns: int, flash_s: float) -> dict | None:
    """The flash on screen at ``now_ns``: the latest one the screen draws, if younger than ``flash_s``."""
    from controller.screens.common import flash_dict
    from controller.screens.scoreboard import SILENT_FLASHES

    window = int(round(flash_s * 1e9))
    shown = [(at, f) for at, f in flashes if at <= now_ns and f.kind not in SILENT_FLASHES]
    if not shown:
        return None
    at, f = shown[-1]
    if now_ns - at >= window:
        return None
    return flash_dict(f.kind, f.team, text=f.text, line=f.line, tone=f.tone)


def render(script_path: str, at: float, size: tuple[int, int] = (1920, 1080), lang: str | None = None,
           config_path: str | None = None, help_overlay: bool = False, status: dict | None = None,
           layout: str | None = None) -> Any:
    """The audience screen at ``at`` seconds of the script, as a pygame Surface, in ``layout``
    (``[display] layout``: ``wide`` or ``compact``; default: the config's)."""
    _headless()
    from controller.sdl import pygame  # the screen is drawn with pygame: loaded only when a screenshot is taken

    from controller.screens import LAYOUTS, projector

    if not math.isfinite(at) or at < 0:
        raise ScreenshotError(f"--at: expected seconds >= 0, got {at:g}")
    if layout is not None and layout not in LAYOUTS:
        raise ScreenshotError(f"--layout: expected one of {', '.join(LAYOUTS)}, got {layout!r}")
    script = script_mod.load(script_path)
    run = script_mod.run(script, config_path, until=at)
    now = seconds_to_ns(at)
    cfg = run.config
    view = engine.view(run.state, now)
    flash = latest_flash(run.flashes, now, cfg["display"]["flash_s"])

    # the help overlay as the window shows it: this game's keys, the players' keys first
    board = projector(layout or cfg["display"]["layout"])(size, lang=lang or cfg.get("language", "ru"),
                                                          keys=mode_keys(cfg, run.state),
                                                          team_keys=team_keys(cfg, view, run.state),
                                                          labels=mode_labels(cfg, run.state))
    surface = pygame.Surface(size)
    board.draw(surface, view, now, flash=flash, status=status, help_overlay=help_overlay)
    return surface


def save(surface: Any, out: str) -> Path:
    from controller.sdl import pygame

    path = Path(out)
    if path.suffix.lower() != ".png":
        raise ScreenshotError(f"--out: the file name must end with .png, got {out!r}")
    if not path.parent.is_dir():
        raise ScreenshotError(Text("screenshot.no_folder", folder=str(path.parent)))
    try:
        pygame.image.save(surface, str(path))
    except (pygame.error, OSError) as exc:
        raise ScreenshotError(f"--out: cannot write {out}: {exc}") from None
    return path


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("script", help="script file (JSON lines, see docs/scripted-sessions.md)")
    p.add_argument("--at", type=float, required=True, metavar="SECONDS", help="moment on the script's clock")
    p.add_argument("--out", "-o", required=True, metavar="FILE.png", help="PNG file to write")
    p.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT in px (default 1920x1080)")
    p.add_argument("--lang", choices=LANGUAGES, help="language of the screen (default: the config's)")
    p.add_argument("--config", "-c", help="config file the script's settings apply on top of")
    p.add_argument("--help-overlay", action="store_true", help="draw the host's key overlay on top")
    p.add_argument("--layout", choices=("wide", "compact"),
                   help="the projector's layout (default: the config's [display] layout)")


def cmd_screenshot(args) -> int:
    size = parse_size(args.size)
    surface = render(args.script, args.at, size, args.lang, args.config, args.help_overlay, layout=args.layout)
    path = save(surface, args.out)
    print(f"{path} ({size[0]}x{size[1]}, {args.at:g} s)")
    return 0


COMMAND = Command("screenshot", "draw the audience screen at a moment of a scripted session (PNG)", _arguments,
                  cmd_screenshot)
