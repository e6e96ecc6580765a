"""The compact projector layout (``[display] layout = "compact"``): a small TV beside the host,
or a 4:3 projector far away.

The same widgets as the wide scoreboard (:mod:`controller.screens.scoreboard`), fewer of them
and larger: the header; the big panel (who holds the answer in the team's colour, else the
countdown, the question, its outcome) with the side column's numbers stacked beside it; under
it one wide row per card -- a colour stripe, the name, the score in large type and the
card's tags -- the holder's row in its colour.  No press order: the holder and the scores are
what a viewer across the room must read.  The standings, the seats of a numbered table and a
package's board or question are drawn as on the wide screen, in this layout's regions.

Like every front end it draws the screen model only and names no game: everything here comes
from :class:`~controller.core.screen.Screen`'s widgets.
"""

from __future__ import annotations

from typing import Any, Mapping

from controller.sdl import pygame

from controller.core.screen import Cards, Cell, Screen
from controller.i18n import t
from controller.screens.scoreboard import (
    BG, FAINT, PANEL, TEXT, TONE_COLOURS, Rect, Scoreboard, _grid, fmt_score, hex_colour, ink_on, layout, mix)

MAIN_SHARE = 0.42
"""The big panel's share of the height under the header (the cards' rows get the rest)."""

SIDE_SHARE = 0.27
"""The side column's share of the width beside the big panel."""


def compact_layout(size: tuple[int, int], n_cards: int, kind: str = "game") -> dict[str, Any]:
    """Rectangles of the compact screen's regions: the wide layout's header, then the big
    panel (``main``, its ``bar`` under it, the side column ``info``; ``middle``: the panel's
    whole width, for a package's board) and a grid of wide card rows (``cards``); ``table``:
    the standings only; ``seats``: numbered cards under the panel."""
    W, H = size
    base = layout(size, n_cards, "table")
    out = {k: base[k] for k in ("pad", "portrait", "size", "header", "hdr_left", "hdr_theme", "hdr_status")}
    pad = out["pad"]
    body: Rect = base["table"]
    if kind == "table":
        out["table"] = body
        return out
    n = max(n_cards, 1)
    bar_h = max(round(min(W, H) * 0.03), 6)
    main = Rect(body.x, body.y, body.width, round(body.height * (0.34 if kind == "seats" else MAIN_SHARE)))
    rows = Rect(body.x, main.bottom + pad, body.width, body.bottom - main.bottom - pad)
    out["middle"] = Rect(main.x, main.y, main.width, main.height)
    if kind == "seats":
        out["main"] = Rect(main.x, main.y, main.width, main.height - bar_h - pad // 2)
        out["bar"] = Rect(main.x, main.bottom - bar_h, main.width, bar_h)
        cols = 2 if out["portrait"] else (3 if n <= 12 else 4)
        out["cards"] = _grid(rows, n, cols, pad // 2 + 2)
        return out
    side_w = round(main.width * SIDE_SHARE)
    panel_w = main.width - side_w - pad
    out["main"] = Rect(main.x, main.y, panel_w, main.height - bar_h - pad // 2)
    out["bar"] = Rect(main.x, main.bottom - bar_h, panel_w, bar_h)
    out["info"] = Rect(main.x + panel_w + pad, main.y, side_w, main.height)
    cols = 1 if n <= 3 or out["portrait"] and n <= 6 else 2 if n <= 8 else 3
    out["cards"] = _grid(rows, n, cols, pad // 2 + 2)
    return out


class Compact(Scoreboard):
    """The compact layout: :class:`~controller.screens.scoreboard.Scoreboard`'s overlays
    (flash, notices, key help, dialogues) and redraw bookkeeping, its own regions and rows."""

    def _layout(self, kind: str, n: int) -> dict:
        key = (self.size, kind, n)
        lay = self._layouts.get(key)
        if lay is None:
            lay = self._layouts[key] = compact_layout(self.size, n, kind)
        return lay

    def _draw_widgets(self, surface, lay: dict, scr: Screen, status: Mapping | None = None) -> None:
        cards = scr.cards
        if scr.layout == "seats":
            self._draw_seats_main(surface, lay, scr.main)
            for card, rect in zip(cards.items, lay["cards"]):
                self._draw_seat(surface, rect, card)
        elif scr.layout == "table":
            self._draw_standings(surface, lay["table"], scr.standings)
        elif scr.layout == "board":   # a package's board over the rows
            self.pack.draw_board(self, surface, lay["middle"], scr.board)
            self._draw_rows(surface, lay["cards"], cards)
        else:
            if scr.main.content is not None:   # a package's question
                self.pack.draw_question(self, surface, lay["main"], scr.main.content)
            else:
                self._draw_main(surface, lay, scr.main, cards, (status or {}).get("keys"))
            self._draw_side(surface, lay["info"], scr.main.side)
            self._draw_rows(surface, lay["cards"], cards)

    def _draw_side(self, surface, rect: Rect, slots: tuple[Cell, ...]) -> None:
        """The side column's numbers one above the other (the wide screen puts them side by side)."""
        if not slots:
            self._panel(surface, rect, PANEL, 0.06)
            return
        gap = max(rect.height // 40, 2)
        h = (rect.height - gap * (len(slots) - 1)) // len(slots)
        for i, cell in enumerate(slots):
            self._draw_info(surface, Rect(rect.x, rect.y + i * (h + gap), rect.width, h), (cell,))

    def _draw_rows(self, surface, rects: list[Rect], cards: Cards) -> None:
        """One wide row per card: a stripe in its colour, the name and its tags left, the score
        right in large type; the holder's row in its colour, a card out of the question faint."""
        lang = self.lang
        for c, rect in zip(cards.items, rects):
            colour = hex_colour(c.colour, c.index)
            bg = colour if c.holder else (mix(PANEL, BG, 0.3) if c.dim else PANEL)
            ink = ink_on(colour) if c.holder else (FAINT if c.dim else TEXT)
            self._panel(surface, rect, bg, 0.12)
            stripe = max(rect.height // 7, 4)
            if not c.holder:
                pygame.draw.rect(surface, mix(colour, BG, 0.6) if c.dim else colour,
                                 Rect(rect.x, rect.y, stripe, rect.height),
                                 border_top_left_radius=max(int(rect.height * 0.12), 2),
                                 border_bottom_left_radius=max(int(rect.height * 0.12), 2))
            inner = Rect(rect.x + stripe * 2, rect.y + rect.height // 10, rect.width - stripe * 3,
                         rect.height * 8 // 10)
            score_w = inner.width * 34 // 100
            tag_h = inner.height * 28 // 100 if c.tags or c.total is not None else 0
            name = f"№{c.entry} {c.name}" if c.entry else c.name
            name_r = Rect(inner.x, inner.y, inner.width - score_w - stripe, inner.height - tag_h)
            self._text(surface, name, name_r, int(name_r.height * 0.62), ink, bold=True, align="left")
            if c.score is not None:
                self._text(surface, fmt_score(c.score), Rect(inner.right - score_w, inner.y, score_w, inner.height),
                           int(inner.height * 0.86), ink, bold=True, align="right")
            x, y = inner.x, inner.bottom - tag_h
            for tag in c.tags:
                if x >= name_r.right - tag_h:
                    break
                x += self._tag(surface, t(tag.key, lang), x, y, tag_h, TONE_COLOURS[tag.tone], name_r.right - x) \
                    + tag_h // 4
            if c.total is not None and x < name_r.right - tag_h:   # a programme's running total
                self._text(surface, f"{t('series_total', lang)} {fmt_score(c.total)}",
                           Rect(x, y, name_r.right - x, tag_h), int(tag_h * 0.85), ink, align="left")
