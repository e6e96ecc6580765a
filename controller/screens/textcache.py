"""Rendered text, cached: the display's only way to put words on the screen.

Rendering a string with FreeType costs far more than blitting the result, and
a scoreboard shows the same few dozen strings frame after frame, so every
rendered string is kept in a bounded least-recently-used cache keyed by
``(text, size, colour, bold)``.  A countdown adds at most one new entry per
displayed value, which the bound keeps in check.

Fonts are the bundled DejaVu Sans (regular and bold, see
``controller/data/fonts/README.md``), loaded once per :class:`TextCache`.
DejaVu lacks a few pictograms (⏱, ⏸); characters it cannot draw are taken
from Noto Sans Symbols 2, so no string ever shows an empty box.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from controller.sdl import pygame
import pygame.freetype

FONT_DIR = Path(__file__).resolve().parent.parent / "data" / "fonts"
REGULAR = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"
FALLBACK = FONT_DIR / "NotoSansSymbols2-Regular.ttf"

Colour = tuple[int, int, int]


class TextCache:
    """Renders and remembers text surfaces.

    :param limit: how many rendered strings to keep (least recently used go first).
    """

    def __init__(self, limit: int = 768) -> None:
        if not pygame.freetype.get_init():
            pygame.freetype.init()
        self.limit = limit
        self._faces = {False: pygame.freetype.Font(str(REGULAR), 16),
                       True: pygame.freetype.Font(str(BOLD), 16)}
        self._fallback = pygame.freetype.Font(str(FALLBACK), 16)
        for face in (*self._faces.values(), self._fallback):
            face.antialiased = True
            face.pad = False
        self._surfaces: OrderedDict[tuple, pygame.Surface] = OrderedDict()
        self._fits: OrderedDict[tuple, int] = OrderedDict()
        self._covered: dict[str, bool] = {}
        self.renders = 0
        """How many strings were actually rendered (cache misses), for tests and benchmarks."""

    # -- glyph coverage ------------------------------------------------------
    def _in_main(self, ch: str) -> bool:
        known = self._covered.get(ch)
        if known is None:
            # get_metrics() gives None for a glyph the font lacks
            known = ch.isspace() or self._faces[False].get_metrics(ch, size=16)[0] is not None
            self._covered[ch] = known
        return known

    def _runs(self, text: str) -> list[tuple[str, bool]]:
        """Split ``text`` into (piece, drawn_by_main_font) runs."""
        runs: list[tuple[str, bool]] = []
        for ch in text:
            main = self._in_main(ch)
            if runs and runs[-1][1] == main:
                runs[-1] = (runs[-1][0] + ch, main)
            else:
                runs.append((ch, main))
        return runs

    # -- rendering -------------------------------------------------------------
    def render(self, text: str, size: int, colour: Colour, bold: bool = False) -> pygame.Surface:
        """The surface of ``text`` at ``size`` px in ``colour`` (per-pixel alpha)."""
        size = max(int(size), 4)
        key = (text, size, colour, bold)
        surf = self._surfaces.get(key)
        if surf is not None:
            self._surfaces.move_to_end(key)
            return surf
        surf = self._render(text, size, colour, bold)
        self.renders += 1
        self._surfaces[key] = surf
        if len(self._surfaces) > self.limit:
            self._surfaces.popitem(last=False)
        return surf

    def _render(self, text: str, size: int, colour: Colour, bold: bool) -> pygame.Surface:
        face = self._faces[bold]
        if not text:
            return pygame.Surface((1, max(face.get_sized_height(size), 1)), pygame.SRCALPHA)
        runs = self._runs(text)
        if len(runs) == 1 and runs[0][1]:
            return self._render_line(face, text, size, colour)
        pieces = [self._render_line(face if main else self._fallback, piece, size, colour)
                  for piece, main in runs]
        height = max(p.get_height() for p in pieces)
        out = pygame.Surface((sum(p.get_width() for p in pieces), height), pygame.SRCALPHA)
        x = 0
        for p in pieces:
            out.blit(p, (x, (height - p.get_height()) // 2))
            x += p.get_width()
        return out

    @staticmethod
    def _render_line(face, text: str, size: int, colour: Colour) -> pygame.Surface:
        # Lay the text out on a box of the font's full line height, so that
        # strings of one size share a baseline whatever letters they hold.
        ascender = face.get_sized_ascender(size)
        height = face.get_sized_height(size)
        rect = face.get_rect(text, size=size)
        surf = pygame.Surface((max(rect.width, 1), max(height, rect.height, 1)), pygame.SRCALPHA)
        face.render_to(surf, (0, ascender - rect.y), text, fgcolor=colour, size=size)
        return surf

    def width(self, text: str, size: int, bold: bool = False) -> int:
        """Width in px of ``text`` at ``size`` (without rendering it)."""
        return sum((self._faces[bold] if main else self._fallback).get_rect(piece, size=max(int(size), 4)).width
                   for piece, main in self._runs(text))

    def fit(self, text: str, max_width: int, max_size: int, bold: bool = False, min_size: int = 8) -> int:
        """The largest size <= ``max_size`` at which ``text`` is at most ``max_width`` px wide."""
        key = (text, int(max_width), int(max_size), bold)
        size = self._fits.get(key)
        if size is not None:
            return size
        size = max(int(max_size), min_size)
        w = self.width(text, size, bold)
        if w > max_width > 0:
            size = max(int(size * max_width / w), min_size)
            while size > min_size and self.width(text, size, bold) > max_width:
                size -= 1
        self._fits[key] = size
        if len(self._fits) > self.limit:
            self._fits.popitem(last=False)
        return size

    def line_height(self, size: int, bold: bool = False) -> int:
        return self._faces[bold].get_sized_height(max(int(size), 4))

    def __len__(self) -> int:
        return len(self._surfaces)
