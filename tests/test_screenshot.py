"""``buzzer screenshot``: a scripted moment rendered to PNG, headless and repeatable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller import cli  # noqa: E402
from controller.sessions import script as script_mod  # noqa: E402
from controller.screens import scoreboard as sb  # noqa: E402
from controller.screens.scoreboard import layout  # noqa: E402
from controller.core.effects import Flash  # noqa: E402
from controller.screens.screenshot import latest_flash, parse_size, ScreenshotError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "erudite-round.jsonl"
# examples/erudite-round.jsonl: A (red) edges 0.8 ms before B at 3.5 and holds the answer; wrong at 5.0;
# C (green) answers right at 6.0; question 2 read at 10.0, 7 s to think, time runs out at 17.0.


def shoot(tmp_path, *args, name="shot.png") -> tuple[int, pygame.Surface | None, str]:
    out = tmp_path / name
    code = cli.main(["screenshot", str(EXAMPLE), "--out", str(out), *args])
    return code, (pygame.image.load(str(out)) if out.exists() else None), str(out)


def share(surface, rect, colour, tol=12) -> float:
    pts = [surface.get_at((x, y))[:3] for x in range(rect.x, rect.right, 4) for y in range(rect.y, rect.bottom, 4)]
    return sum(all(abs(a - b) <= tol for a, b in zip(c, colour)) for c in pts) / max(len(pts), 1)


def test_press_moment_shows_the_holder_in_its_colour(tmp_path, capsys):
    code, img, out = shoot(tmp_path, "--at", "3.6")
    assert code == 0 and img.get_size() == (1920, 1080)
    assert out in capsys.readouterr().out
    main = layout((1920, 1080), 4, "game")["main"]
    assert share(img, main.inflate(-100, -100), (0xE5, 0x39, 0x35)) > 0.5


def test_ruling_flash_is_shown_for_flash_s_then_gone(tmp_path):
    band = pygame.Rect(0, int(1080 * 0.32), 1920, int(1080 * 0.36))
    _, right, _ = shoot(tmp_path, "--at", "6.3", name="right.png")       # «Верно» at 6.0
    assert share(right, band, sb.GREEN) > 0.6
    _, wrong, _ = shoot(tmp_path, "--at", "5.1", name="wrong.png")       # «Неверно» at 5.0
    assert share(wrong, band, sb.RED) > 0.6
    _, later, _ = shoot(tmp_path, "--at", "7.6", name="later.png")       # 1.6 s > flash_s = 1.5
    assert share(later, band, sb.GREEN) < 0.05
    _, time_up, _ = shoot(tmp_path, "--at", "17.5", name="time.png")     # «Время!» at the deadline
    assert share(time_up, band, sb.AMBER) > 0.6


def test_flash_time_comes_from_the_deadline_not_the_next_event():
    run = script_mod.run(script_mod.load(EXAMPLE), until=20.0)
    kinds = [(f.kind, at) for at, f in run.flashes]
    assert ("wrong", 5_000_000_000) in kinds and ("right", 6_000_000_000) in kinds
    time_up = [at for kind, at in kinds if kind == "time_up"]
    assert time_up and 17_000_000_000 <= time_up[0] < 17_100_000_000


def test_latest_flash_window():
    flashes = [(1_000_000_000, Flash("wrong", "A")), (2_000_000_000, Flash("right", "C")),
               (2_000_000_000, Flash("standings"))]
    assert latest_flash(flashes, 2_500_000_000, 1.5) == {"kind": "right", "team": "C"}
    assert latest_flash(flashes, 1_500_000_000, 1.5) == {"kind": "wrong", "team": "A"}
    assert latest_flash(flashes, 3_600_000_000, 1.5) is None
    assert latest_flash(flashes, 500_000_000, 1.5) is None


def test_countdown_last_seconds_in_the_bar(tmp_path):
    bar = layout((1280, 720), 4, "game")["bar"]
    colours = {}
    for at in ("12.0", "15.5", "16.5"):     # 5 s, 1.5 s, 0.5 s left
        _, img, _ = shoot(tmp_path, "--at", at, "--size", "1280x720", name=f"cd{at}.png")
        colours[at] = img.get_at((bar.x + bar.height, bar.centery))[:3]
    assert colours["12.0"] == sb.WHITE
    assert colours["15.5"] == sb.AMBER
    assert colours["16.5"] == sb.RED


def test_same_arguments_same_picture(tmp_path):
    _, a, _ = shoot(tmp_path, "--at", "3.6", "--size", "1024x768", name="a.png")
    _, b, _ = shoot(tmp_path, "--at", "3.6", "--size", "1024x768", name="b.png")
    assert pygame.image.tobytes(a, "RGB") == pygame.image.tobytes(b, "RGB")


def test_language_and_sizes(tmp_path):
    _, ru, _ = shoot(tmp_path, "--at", "3.6", "--size", "800x1280", name="ru.png")
    _, en, _ = shoot(tmp_path, "--at", "3.6", "--size", "800x1280", "--lang", "en", name="en.png")
    assert ru.get_size() == en.get_size() == (800, 1280)
    assert pygame.image.tobytes(ru, "RGB") != pygame.image.tobytes(en, "RGB")
    main = layout((800, 1280), 4, "game")["main"]
    assert share(en, main.inflate(-60, -60), (0xE5, 0x39, 0x35)) > 0.5


def test_help_overlay_flag(tmp_path):
    _, plain, _ = shoot(tmp_path, "--at", "3.6", name="plain.png")
    _, helped, _ = shoot(tmp_path, "--at", "3.6", "--help-overlay", name="help.png")
    centre = pygame.Rect(600, 300, 700, 400)
    assert share(plain, centre, (0xE5, 0x39, 0x35)) > 0.3
    assert share(helped, centre, (0xE5, 0x39, 0x35)) < 0.01


@pytest.mark.parametrize("args,message", [
    (["--at", "3.6", "--size", "big"], "--size"),
    (["--at", "3.6", "--size", "10x10"], "--size"),
    (["--at", "-1"], "--at"),
    (["--at", "nan"], "--at"),
])
def test_bad_arguments_are_one_line_exit_2(tmp_path, capsys, args, message):
    code, img, _ = shoot(tmp_path, *args)
    err = capsys.readouterr().err.strip()
    assert code == 2 and img is None
    assert len(err.splitlines()) == 1 and message in err


def test_bad_output_and_script(tmp_path, capsys):
    assert cli.main(["screenshot", str(EXAMPLE), "--at", "1", "--out", str(tmp_path / "x.jpg")]) == 2
    assert cli.main(["screenshot", str(EXAMPLE), "--at", "1", "--out", str(tmp_path / "no" / "x.png")]) == 2
    assert cli.main(["screenshot", str(tmp_path / "missing.jsonl"), "--at", "1", "--out",
                     str(tmp_path / "x.png")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith("buzzer") for line in lines)


def test_missing_required_argument_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "controller.cli", "screenshot", str(EXAMPLE), "--out",
                           str(tmp_path / "x.png")], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "SDL_VIDEODRIVER": "dummy"}, timeout=60)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "--at" in proc.stderr


def test_parse_size():
    assert parse_size("1920x1080") == (1920, 1080)
    assert parse_size("800×1280") == (800, 1280)
    with pytest.raises(ScreenshotError):
        parse_size("1920")
