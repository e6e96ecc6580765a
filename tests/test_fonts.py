"""The bundled fonts draw every character the UI shows (no tofu on the projector)."""

import os
import string
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
import pygame.freetype  # noqa: E402

from controller.i18n import all_strings  # noqa: E402

FONTS = Path(__file__).resolve().parents[1] / "controller" / "data" / "fonts"
UI_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
FALLBACK = "NotoSansSymbols2-Regular.ttf"

# Symbols the issue names, plus what team names and numbers need.
SYMBOLS = "№✓✗★⏱▶«»–·+−"
ALPHABETS = (string.ascii_letters + string.digits + string.punctuation
             + "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя")


@pytest.fixture(scope="module")
def fonts():
    pygame.freetype.init()
    loaded = {name: pygame.freetype.Font(str(FONTS / name), 32)
              for name in UI_FONTS + (FALLBACK, "DejaVuSansMono.ttf")}
    yield loaded
    pygame.freetype.quit()


def _has(font, char):
    # get_metrics() gives None for a glyph the font lacks (Font.metrics() is unreliable).
    return font.get_metrics(char)[0] is not None


def _needed():
    """Every character of every UI string, with one key that uses it."""
    chars = {}
    for lang, key, text in all_strings():
        for ch in text:
            chars.setdefault(ch, f"{lang}:{key}")
    for ch in SYMBOLS + ALPHABETS:
        chars.setdefault(ch, "symbol/alphabet")
    return {ch: where for ch, where in chars.items() if not ch.isspace()}


@pytest.mark.parametrize("face", UI_FONTS)
def test_every_ui_character_is_drawable(fonts, face):
    missing = {ch: where for ch, where in _needed().items()
               if not _has(fonts[face], ch) and not _has(fonts[FALLBACK], ch)}
    assert not missing, f"{face} + {FALLBACK} lack: " + ", ".join(
        f"{ch!r} U+{ord(ch):04X} ({where})" for ch, where in missing.items())


@pytest.mark.parametrize("face", UI_FONTS)
def test_text_is_mostly_in_the_main_font(fonts, face):
    # The fallback is for the odd pictogram only; words must not mix faces.
    for ch in ALPHABETS + "№✓✗★▶«»–·−":
        assert _has(fonts[face], ch), f"{face} lacks {ch!r}"


def test_fallback_covers_what_dejavu_lacks(fonts):
    assert not _has(fonts["DejaVuSans.ttf"], "⏱")
    assert _has(fonts[FALLBACK], "⏱")


def test_mono_font_has_digits_and_minus(fonts):
    for ch in string.digits + ":.−+":
        assert _has(fonts["DejaVuSansMono.ttf"], ch)


def test_licenses_travel_with_the_fonts():
    assert "Bitstream Vera" in (FONTS / "LICENSE-DejaVu.txt").read_text(encoding="utf-8")
    assert "Open Font License" in (FONTS / "LICENSE-Noto.txt").read_text(encoding="utf-8")
