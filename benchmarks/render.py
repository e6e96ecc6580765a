"""How long the audience screen takes to draw one frame.

A busy Эрудит-квартет moment is played from a script (four teams, a second
wave after a wrong answer, an early press, the captain's timer and the
thinking countdown both running, a host notice in the corner); then the
scoreboard draws a 1920×1080 frame every 1/60 s of engine time across the
countdown, so every frame differs (the number, the bar, its colour).  Only
``Scoreboard.draw`` is timed; the views are computed beforehand.

``render_*``: frames as the loop draws them (the scoreboard redraws its
cached still layer only when something besides the bar changed).
``full_redraw_*``: the same frames with the cached layer thrown away before
each one, i.e. every panel, card and text drawn again (the worst case).

    python benchmarks/render.py          # 600 frames
    python benchmarks/render.py --quick  # 150 frames

Target (the issue): median <= 4 ms, p99 <= 8 ms on a 2-core machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pygame  # noqa: E402

import controller.app.config  # noqa: E402,F401  registers the config's functions (controller/core/configs.py)
from controller.games import engine  # noqa: E402
from controller.sessions import script as script_mod  # noqa: E402
from controller.screens import Scoreboard  # noqa: E402

SIZE = (1920, 1080)

BUSY_SCRIPT = """\
{"setup": {"mode": "erudite", "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}, {"name": "Гамма", "button": "C"}, {"name": "Дельта", "button": "D"}], "seed": 3}}
{"at": 0.5, "host": "captain"}
{"at": 1.0, "host": "question", "theme": "Великие географические открытия", "nominal": 50}
{"at": 2.0, "press": "A", "delivered": 2.0008}
{"at": 2.0042, "press": "B"}
{"at": 2.0105, "press": "C"}
{"at": 2.5, "press": "D"}
{"at": 2.8, "host": "reading_done"}
{"at": 3.0, "host": "wrong"}
"""

STATUS = {"backend": "keyboard", "connected": True, "missing": [], "notice": "Рано: D"}


def busy_views(frames: int) -> list[tuple[int, dict]]:
    """(now_ns, view) pairs across the running countdown."""
    run = script_mod.run(script_mod.parse(BUSY_SCRIPT.splitlines(), "busy"), until=3.0)
    start = 3_000_000_000
    step = 7_000_000_000 // frames
    return [(start + k * step, engine.view(run.state, start + k * step)) for k in range(frames)]


def measure(quick: bool = False) -> dict:
    """Draw the busy frames; return ``render_p50_ms`` and ``render_p99_ms`` (plus context)."""
    frames = 150 if quick else 600
    views = busy_views(frames)
    surface = pygame.Surface(SIZE)
    board = Scoreboard(SIZE)
    board.draw(surface, views[0][1], views[0][0], status=STATUS)  # load fonts, fill the text cache once
    times = []
    for now, view in views:
        t0 = time.perf_counter_ns()
        board.draw(surface, view, now, status=STATUS)
        times.append((time.perf_counter_ns() - t0) / 1e6)
    full = []
    for now, view in views[: frames // 2]:
        board._layer_key = None  # forget the cached layer: every part drawn again
        t0 = time.perf_counter_ns()
        board.draw(surface, view, now, status=STATUS)
        full.append((time.perf_counter_ns() - t0) / 1e6)
    times.sort()
    full.sort()

    def p99(xs: list[float]) -> float:
        return round(xs[min(len(xs) - 1, int(len(xs) * 0.99))], 3)

    return {
        "render_p50_ms": round(statistics.median(times), 3),
        "render_p99_ms": p99(times),
        "render_max_ms": round(times[-1], 3),
        "full_redraw_p50_ms": round(statistics.median(full), 3),
        "full_redraw_p99_ms": p99(full),
        "frames": frames,
        "size": f"{SIZE[0]}x{SIZE[1]}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer frames")
    args = parser.parse_args(argv)
    result = measure(args.quick)
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
