"""A host's evening without a dead end (issue 23, items 1-6): what the host sees on the
projector (frames drawn headless; the words the scoreboard draws on them), in the terminal
and on the pages, at the places where an evening used to stop."""

from __future__ import annotations

import io
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from controller.app import config  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.core import engine  # noqa: E402
from controller.core.clock import ManualClock  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.screens import scoreboard as sb, viewmodel  # noqa: E402
from controller.screens.terminal import feed, key_help, status_line  # noqa: E402

MS = 1_000_000
OUT = os.environ.get("BUZZER_TEST_PNG_DIR")   # set it to keep the frames and look at them


def make_loop(cfg: dict) -> tuple[Loop, ManualClock]:
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                   {"keys": {t["button"]: t["key"] for t in cfg["teams"] if t.get("key")}})
    return loop, clock


def type_keys(loop: Loop, clock: ManualClock, text: str, step_ms: int = 300) -> None:
    """Keys typed in the terminal, ``step_ms`` apart (the settle window passes in between)."""
    for ch in text:
        feed(loop, ch)
        clock.advance(step_ms * MS)
        loop.tick_if_due()
        loop.drain()


def frame(loop: Loop, name: str, size=(1280, 720)) -> tuple[pygame.Surface, list[str]]:
    """The projector's frame of the loop now, and every text the scoreboard drew on it."""
    vm = viewmodel.from_loop(loop)
    view, flash, status, help_on = viewmodel.projector(vm, host_overlay=False)
    drawn: list[str] = []
    board = sb.Scoreboard(size, lang=loop.cfg["language"])
    real = board._text

    def spy(surface, text, *a, **kw):
        drawn.append(str(text))
        return real(surface, text, *a, **kw)

    board._text = spy
    surface = pygame.Surface(size)
    board.draw(surface, view, loop.clock.now(), flash=None, status=status)
    if OUT:
        pygame.image.save(surface, os.path.join(OUT, f"{name}.png"))
    return surface, drawn


def terminal(loop: Loop) -> str:
    view, status = viewmodel.host_screen(viewmodel.from_loop(loop))
    return status_line(view, loop.cfg["language"], status)


# ---------------------------------------------------------------------------
# 1. Брейн-ринг: the next fight from a key and a button; the winner named

def brain_ring_won(tmp_path) -> tuple[Loop, ManualClock]:
    cfg = config.load("config/brain-ring.toml")
    cfg["journal"]["dir"] = str(tmp_path)
    loop, clock = make_loop(cfg)
    for _ in range(3):                              # Бета (key z) answers three questions right
        type_keys(loop, clock, "ntz\n")
    return loop, clock


def test_brain_ring_the_fight_over_screen_names_the_winner(tmp_path):
    loop, clock = brain_ring_won(tmp_path)
    clock.advance(3_000 * MS)                       # the «Победитель» flash is long gone
    surface, drawn = frame(loop, "brain-ring-fight-over")
    assert "Бой 1 окончен" in drawn and "Победитель" in drawn and "Бета" in drawn
    assert "3 : 0" in drawn
    assert not any(text.startswith("✓") for text in drawn)          # not «✓ Верно Бета +1»
    line = terminal(loop)
    assert "Бой 1 окончен — Победитель: Бета (3 : 0)" in line and "Верно" not in line
    main = sb.layout((1280, 720), 2, "game")["main"]
    band = pygame.Rect(main.x + 40, main.y + main.height * 22 // 100, main.width - 80, main.height // 20)
    colours = [tuple(surface.get_at((x, band.centery)))[:3] for x in range(band.x, band.right, 7)]
    assert sum(c == sb.hex_colour("#1E88E5") for c in colours) > len(colours) // 2   # a band of Бета's blue


def test_brain_ring_the_next_fight_has_a_key_a_help_line_and_a_button(tmp_path):
    loop, clock = brain_ring_won(tmp_path)
    help_text = key_help(loop.cfg, "ru")
    assert any(line.strip().startswith("R") and "Следующий бой" in line for line in help_text.splitlines())
    vm = viewmodel.from_loop(loop)
    assert "Следующий бой" in [k["label"] for k in vm["host"]["keys"]]     # the projector's H, the page's keys
    button = next(a for a in vm["host"]["actions"] if a["action"] == "next_fight")
    assert button["label"] == "Следующий бой" and button["confirm"]        # a second tap sends it
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["fight"] == 2
    assert "Бой 2" in terminal(loop) and "окончен" not in terminal(loop)
    _, drawn = frame(loop, "brain-ring-fight-2")
    assert any("Бой 2" in text for text in drawn) and "Победитель" not in drawn
