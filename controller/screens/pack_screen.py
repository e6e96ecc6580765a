"""The projector's part of a SIGame package, drawn from the screen model's widgets (the
:class:`~controller.core.screen.Board` and the main panel's
:class:`~controller.core.screen.Content`): the board of themes × prices with played cells
emptied, the theme being picked lit, and the question on screen -- its
text, the theme's comment, its pictures one after another (read from the package when first
shown, kept in a bounded cache), a select question's options, its sound, video and HTML
announced (the audience page plays and shows them) -- and, after the ruling, its right
answer with the package's answer content.

Never draws the screen's ``host`` part: that is the host's only.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from typing import Any, Callable

from controller.sdl import pygame
from pygame import Rect

from controller.core.screen import Board, Content
from controller.i18n import t
from controller.screens.common import say

BOARD_BG = (18, 36, 110)
CELL_BG = (30, 60, 170)
CELL_PICKED = (200, 150, 20)
INK = (240, 240, 250)
PRICE_INK = (250, 210, 60)
NOTE_INK = (170, 190, 240)
ANSWER_BG = (16, 80, 48)

MB = 1024 * 1024


class PackScreen:
    """Draws the board or the question; ``media_data(member)`` gives a package file's bytes
    (:class:`controller.content.packs.PackMedia`). Decoded, scaled pictures are kept up to
    ``cache_bytes`` (``[own_game] pack_picture_cache_mb``), the least recently shown dropped first."""

    def __init__(self, media_data: Callable[[str], bytes | None] | None = None, cache_bytes: int = 48 * MB):
        self.media_data = media_data
        self.cache_bytes = cache_bytes
        self._images: OrderedDict[tuple, Any] = OrderedDict()
        self.cached_bytes = 0

    # -- the board -----------------------------------------------------------------------
    def draw_board(self, sb, surface, rect: Rect, board: Board) -> None:
        lang = sb.lang
        pygame.draw.rect(surface, BOARD_BG, rect, border_radius=8)
        title_h = max(rect.height // 10, 18)
        title = say(board.title, lang)
        if not board.left:
            title += " · " + t("pack.screen.round_over", lang)
        sb._text(surface, title, Rect(rect.x + 8, rect.y + 4, rect.width - 16, title_h), int(title_h * 0.8), INK,
                 bold=True)
        themes = board.themes
        if not themes:
            return
        if board.final:   # the final: its themes only (no prices), removed ones emptied
            self._draw_final_board(sb, surface, Rect(rect.x + 8, rect.y + title_h + 8, rect.width - 16,
                                                     rect.height - title_h - 16), board)
            return
        cols = max(len(th.cells) for th in themes) or 1
        area = Rect(rect.x + 8, rect.y + title_h + 8, rect.width - 16, rect.height - title_h - 16)
        row_h = area.height // len(themes)
        name_w = area.width * 36 // 100
        cell_w = (area.width - name_w) // cols
        gap = max(row_h // 12, 2)
        for i, th in enumerate(themes):
            y = area.y + i * row_h
            name_rect = Rect(area.x, y + gap // 2, name_w - gap, row_h - gap)
            pygame.draw.rect(surface, CELL_PICKED if board.picking == i + 1 else CELL_BG, name_rect, border_radius=6)
            sb._text(surface, f"{i + 1}. {th.name}", name_rect.inflate(-12, -4), int(row_h * 0.42), INK,
                     align="left")
            for j, cell in enumerate(th.cells):
                r = Rect(area.x + name_w + j * cell_w, y + gap // 2, cell_w - gap, row_h - gap)
                pygame.draw.rect(surface, CELL_BG, r, border_radius=6)
                if not cell.played and not cell.empty:
                    sb._text(surface, str(cell.price), r.inflate(-6, -4), int(row_h * 0.5), PRICE_INK, bold=True)

    def _draw_final_board(self, sb, surface, area: Rect, board: Board) -> None:
        lang = sb.lang
        themes = board.themes
        foot_h = max(area.height // 7, 16)
        row_h = (area.height - foot_h) // len(themes)
        gap = max(row_h // 12, 2)
        for i, th in enumerate(themes):
            r = Rect(area.x, area.y + i * row_h + gap // 2, area.width, row_h - gap)
            pygame.draw.rect(surface, BOARD_BG if th.removed else CELL_BG, r, border_radius=6)
            if not th.removed:
                sb._text(surface, f"{i + 1}. {th.name}", r.inflate(-12, -4), int(row_h * 0.5), INK)
        line = say(board.prompt, lang)
        sb._text(surface, line, Rect(area.x, area.bottom - foot_h, area.width, foot_h), int(foot_h * 0.7),
                 PRICE_INK, bold=True)

    # -- the question --------------------------------------------------------------------
    def _image(self, member: str | None, size: tuple[int, int]):
        """The picture ``member`` scaled into ``size`` (None: missing or not a picture)."""
        if not member or self.media_data is None:
            return None
        key = (member, size)
        if key in self._images:
            self._images.move_to_end(key)
            return self._images[key]
        img = None
        data = self.media_data(member)
        if data:
            try:
                raw = pygame.image.load(io.BytesIO(data), member)
                del data
                w, h = raw.get_size()
                scale = min(size[0] / max(w, 1), size[1] / max(h, 1))
                img = pygame.transform.smoothscale(raw.convert_alpha() if pygame.display.get_surface() else raw,
                                                   (max(int(w * scale), 1), max(int(h * scale), 1)))
            except (pygame.error, OSError, ValueError, MemoryError):
                img = None
        self._images[key] = img
        self.cached_bytes += self._cost(img)
        while self.cached_bytes > self.cache_bytes and len(self._images) > 1:
            _, old = self._images.popitem(last=False)
            self.cached_bytes -= self._cost(old)
        return img

    @staticmethod
    def _cost(img) -> int:
        return img.get_width() * img.get_height() * img.get_bytesize() if img is not None else 0

    def draw_question(self, sb, surface, rect: Rect, c: Content) -> None:
        lang = sb.lang
        answer = c.answer_shown
        pygame.draw.rect(surface, ANSWER_BG if answer else BOARD_BG, rect, border_radius=8)
        head_h = max(rect.height // 8, 18)
        # the price it is played for, once known (a cat's, a bid, «без риска»'s double); never the
        # cell's beside a different one
        head = f"{c.theme} · {c.nominal}" if c.nominal is not None else c.theme
        if c.stake is not None:
            head = f"{c.theme} · " + say(c.stake, lang)
        sb._text(surface, head, Rect(rect.x + 8, rect.y + 4, rect.width - 16, head_h), int(head_h * 0.8), PRICE_INK,
                 bold=True)
        top = rect.y + head_h + 4
        if c.theme_comment and not answer:   # the theme's task: read with each of its questions
            note_h = max(head_h * 2 // 3, 14)
            sb._text(surface, c.theme_comment, Rect(rect.x + 12, top, rect.width - 24, note_h), int(note_h * 0.7),
                     NOTE_INK, align="left", fit=True)
            top += note_h + 4
        body = Rect(rect.x + 12, top + 4, rect.width - 24, rect.bottom - top - 12)
        if answer:
            lines = [t("pack.screen.answer", lang, answer=c.answer or ""), c.answer_text, c.answer_comment]
        else:
            lines = [say(w, lang) for w in c.lines] + [c.text]
            lines += [f"{o.label}. {o.text or ', '.join(o.media)}" for o in c.options]
        notes = []
        for item in c.items:
            if item.kind == "audio":
                notes.append("♪ " + t("pack.screen.audio", lang, name=item.name))
            elif item.kind == "video":
                notes.append("▶ " + t("pack.screen.video_web", lang, name=item.name))
            elif item.kind == "html":
                notes.append(t("pack.screen.html_web", lang, name=item.name))
        img = None
        if c.image is not None:
            img = self._image(c.image.member, (body.width * 55 // 100, body.height - (head_h // 2 if c.images > 1 else 0)))
            if img is None:
                notes.append(t("pack.screen.image_missing", lang, name=c.image.name))
        text_rect = body
        if img is not None:
            text_rect = Rect(body.x, body.y, body.width - img.get_width() - 12, body.height)
            x, y = body.right - img.get_width(), body.y + (body.height - img.get_height()) // 2
            surface.blit(img, (x, y))
            if c.images > 1:   # which of the question's pictures this is
                sb._text(surface, f"{c.image_index + 1}/{c.images}",
                         Rect(x, body.bottom - head_h // 2, img.get_width(), head_h // 2), int(head_h * 0.4), NOTE_INK)
        self._paragraph(sb, surface, text_rect, lines + notes)

    @staticmethod
    def _paragraph(sb, surface, rect: Rect, texts: list[str]) -> None:
        """Word-wrapped lines, as large as fits."""
        texts = [x for x in texts if x]
        if not texts:
            return
        size = max(min(rect.height // 5, 56), 12)
        while True:
            lines = []
            for text in texts:
                for para in text.split("\n"):
                    line = ""
                    for word in para.split():
                        trial = (line + " " + word).strip()
                        if line and sb.text.render(trial, size, INK, False).get_width() > rect.width:
                            lines.append(line)
                            line = word
                        else:
                            line = trial
                    lines.append(line)
            line_h = int(size * 1.25)
            if len(lines) * line_h <= rect.height or size <= 12:
                break
            size = int(size * 0.88)
        y = rect.y + max((rect.height - len(lines) * line_h) // 2, 0)
        for line in lines:
            sb._text(surface, line, Rect(rect.x, y, rect.width, line_h), size, INK, align="left", fit=True)
            y += line_h
