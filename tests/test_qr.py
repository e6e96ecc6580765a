"""The host link's QR code (controller/web/qr.py), read back by a real decoder (zbarimg)."""

from __future__ import annotations

import os
import shutil
import subprocess

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller.web import qr  # noqa: E402


def decode(m, path) -> str:
    zbar = shutil.which("zbarimg")
    assert zbar, "zbarimg is not installed: sh .ci/install-system-deps (zbar-tools)"
    n, q, s = len(m), 4, 6
    surf = pygame.Surface(((n + 2 * q) * s, (n + 2 * q) * s))
    surf.fill((255, 255, 255))
    for r, row in enumerate(m):
        for c, dark in enumerate(row):
            if dark:
                pygame.draw.rect(surf, (0, 0, 0), ((c + q) * s, (r + q) * s, s, s))
    pygame.image.save(surf, str(path))
    return subprocess.run([zbar, "-q", "--raw", str(path)], capture_output=True, text=True).stdout.rstrip("\n")


@pytest.mark.parametrize("text", ["http://192.168.1.23:8080/host#token=" + "x" * 24, "a",
                                  "http://10.0.0.5:8080/host#token=" + "Zz9_-" * 30, "HOST page: 0123456789"])
def test_a_decoder_reads_back_what_was_encoded(text, tmp_path):
    assert decode(qr.matrix(text), tmp_path / "qr.png") == text


def test_too_long_is_a_value_error_and_the_terminal_drawing_is_square():
    with pytest.raises(ValueError):
        qr.matrix("x" * 300)
    lines = qr.half_blocks(qr.matrix("hi")).splitlines()
    assert len({len(line) for line in lines}) == 1 and len(lines) == (21 + 6 + 1) // 2
