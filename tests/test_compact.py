"""The compact projector layout (``[display] layout = "compact"``, controller/screens/compact.py):
rendered headless for several games' moments, tested for what a viewer across the room sees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller import screens  # noqa: E402
from controller.app import config as config_mod  # noqa: E402
from controller.screens import screenshot  # noqa: E402
from controller.screens.compact import Compact, compact_layout  # noqa: E402
from controller.screens.scoreboard import Scoreboard  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SIZE = (1024, 600)
"""A small TV beside the host."""


def drawn(monkeypatch, script: str, at: float, size=SIZE, layout="compact"):
    """(the frame, every text drawn on it as (text, pixel height, where))."""
    texts = []
    real = Scoreboard._text

    def record(self, surface, text, rect, size_px, colour, *args, **kwargs):
        where = real(self, surface, text, rect, size_px, colour, *args, **kwargs)
        if text:
            texts.append((str(text), where.height, where))
        return where

    monkeypatch.setattr(Scoreboard, "_text", record)
    surface = screenshot.render(str(EXAMPLES / script), at, size, layout=layout)
    return surface, texts


def share(surface, rect, colour, tol=12) -> float:
    pts = [surface.get_at((x, y))[:3] for x in range(rect.x, rect.right, 4) for y in range(rect.y, rect.bottom, 4)]
    return sum(all(abs(a - b) <= tol for a, b in zip(c, colour)) for c in pts) / max(len(pts), 1)


def tallest(texts, text) -> int:
    return max((h for x, h, _ in texts if x == text), default=0)


def test_the_config_picks_the_layout_and_refuses_an_unknown_one(tmp_path):
    assert screens.projector("compact") is Compact and screens.projector("wide") is Scoreboard
    assert config_mod.defaults()["display"]["layout"] == "wide"
    bad = tmp_path / "bad.toml"
    bad.write_text('[display]\nlayout = "square"\n', encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "controller.cli", "check-config", str(bad)], capture_output=True,
                         text=True, cwd=ROOT)
    assert run.returncode == 2 and "layout" in run.stderr and len(run.stderr.strip().splitlines()) == 1


def test_the_holder_is_the_largest_name_in_its_colour_and_every_score_is_readable(monkeypatch):
    # examples/erudite-round.jsonl: Альфа (red) holds the answer at 3.6
    img, texts = drawn(monkeypatch, "erudite-round.jsonl", 3.6)
    H = SIZE[1]
    main = compact_layout(SIZE, 4)["main"]
    assert share(img, main.inflate(-60, -60), (0xE5, 0x39, 0x35)) > 0.5
    names = {x for x, _, _ in texts}
    assert {"Альфа", "Бета", "Гамма", "Дельта"} <= names
    assert tallest(texts, "Альфа") >= H * 0.12          # the holder, readable from across the room
    scores = [h for x, h, r in texts if x == "0" and r.y > main.bottom]
    assert len(scores) == 4 and min(scores) >= H * 0.06   # every team's score, large
    assert not [x for x, _, _ in texts if "+0.0" in x]   # no press order with its gaps


def test_the_same_moment_on_the_wide_screen_is_smaller(monkeypatch):
    _, wide = drawn(monkeypatch, "erudite-round.jsonl", 3.6, layout="wide")
    _, compact = drawn(monkeypatch, "erudite-round.jsonl", 3.6)
    score = lambda texts: min(h for x, h, _ in texts if x == "0")   # noqa: E731
    assert score(compact) > score(wide)


@pytest.mark.parametrize("script, at, want", [
    ("erudite-standings.jsonl", 1e4, {"Альфа", "Гамма", "−30"}),
    ("brain-ring.jsonl", 5.0, set()),
    ("chgk.jsonl", 5.0, set()),
    ("own-game.jsonl", 1.0, set()),
    ("mafia-table.jsonl", 5.0, {"1", "10"}),
    ("programme.jsonl", 5.0, set()),
])
def test_other_games_draw_inside_the_frame(monkeypatch, script, at, want):
    img, texts = drawn(monkeypatch, script, at)
    frame = pygame.Rect((0, 0), SIZE)
    assert want <= {x for x, _, _ in texts}
    assert all(frame.contains(r) for _, _, r in texts), [x for x, _, r in texts if not frame.contains(r)]
    assert min(h for _, h, _ in texts) >= 8   # nothing drawn too small to read


def test_a_4_3_projector_fits(monkeypatch):
    img, texts = drawn(monkeypatch, "erudite-round.jsonl", 3.6, size=(1024, 768))
    frame = pygame.Rect(0, 0, 1024, 768)
    assert all(frame.contains(r) for _, _, r in texts)
    assert tallest(texts, "Альфа") >= 768 * 0.12
