"""The audience screen: the projector scoreboard.

:class:`Scoreboard` draws one frame of a game's view as its game presents it:
the typed widgets of :mod:`controller.core.screen` (``games.screen_of(view)``).
It decides nothing and names no game: who holds the answer, what the countdown
says and who is locked out all come from the widgets; the layout is the
screen's (``game``, ``table``, ``board``, or ``seats`` for numbered cards).  A
package's board and question are drawn by :mod:`controller.screens.pack_screen`
from the ``Board`` and the main panel's ``Content``; the redraw key is made from the widgets too.

Readable from the back of a hall: the largest thing on the screen is who
holds the answer (a panel in that team's colour with its name), then the
countdown (a large number and a shrinking bar that turns amber, then red in
the last seconds), then the scores.  Sizes are fractions of the surface, so
any resolution and aspect works (16:9, 4:3, portrait).

Cheap to draw: text comes from :class:`~controller.screens.textcache.TextCache`,
the layout is computed once per surface size and team count, and
:meth:`Scoreboard.frame_key` / :meth:`Scoreboard.needs_redraw` let the loop
skip frames that would look the same (a countdown changes the key only when
its number, colour or bar length on screen changes).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Mapping

from controller.sdl import pygame

from controller.screens.pack_screen import PackScreen

from controller import games
from controller.core.screen import Cards, Cell, Clock, Header, MainPanel, PressOrder, Screen, Standings
from controller.screens.textcache import TextCache
from controller.i18n import DEFAULT_LANG, action_label, signed, t
from controller.screens.common import (  # noqa: F401  (FLASH_TEXT, countdown_phase, countdown_text, fmt_gap: re-exported)
    FLASH_TEXT, PRESS_TAG_KEYS, SILENT_FLASHES, TAG_KEYS, button_words, tie_words, gap_words,
    countdown_phase, countdown_text, flash_words, fmt_gap, fmt_score, key_label, keys_said, place_text, say, says,
    show_table, teams_words)

Rect = pygame.Rect
Colour = tuple[int, int, int]

# --- palette ------------------------------------------------------------------
BG: Colour = (12, 16, 28)
PANEL: Colour = (28, 35, 54)
PANEL_HI: Colour = (40, 50, 76)
TEXT: Colour = (242, 244, 248)
MUTED: Colour = (150, 160, 182)
FAINT: Colour = (88, 98, 122)
WHITE: Colour = (250, 250, 250)
AMBER: Colour = (255, 179, 0)
RED: Colour = (229, 40, 40)
GREEN: Colour = (46, 160, 67)
ORANGE: Colour = (245, 110, 20)
STEEL: Colour = (84, 110, 140)
PAUSED_BAR: Colour = (120, 130, 150)
PALETTE = ["#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00", "#00acc1", "#d81b60",
           "#6d4c41", "#7cb342", "#3949ab", "#c0ca33", "#546e7a", "#f4511e", "#00897b", "#5e35b1"]

FLASH_COLOURS: dict[str, Colour] = {
    "right": GREEN, "wrong": RED, "time_up": AMBER, "captain_time_up": AMBER,
    "withdrawn": STEEL, "undo": STEEL, "false_start": ORANGE, "early": AMBER,
    "fight_over": AMBER, "answers_closed": AMBER,
    "answer_time_up": AMBER,
}
"""Background colour of each ruling flash; a flash with a tone of the game's own (``tone``) is drawn
in that tone's colour (:data:`TONE_COLOURS`), other kinds in steel blue."""

TAG_COLOURS: dict[str, Colour] = {
    "false_start": RED, "early": AMBER, "blocked": AMBER, "stuck": ORANGE, "locked": MUTED, "disqualified": RED,
    "skipped": MUTED, "not_in_tiebreak": MUTED, "not_in_fight": MUTED,
}
TAGS: dict[str, tuple[str, Colour]] = {m: (key, TAG_COLOURS[m]) for m, key in TAG_KEYS.items()}
"""Team card marker -> (i18n key, colour)."""

PRESS_TAG_COLOURS: dict[str, Colour] = {
    "early": AMBER, "false_start": RED, "blocked": AMBER, "locked": MUTED, "disabled": MUTED, "late": MUTED,
    "stuck": ORANGE,
}
PRESS_TAGS: dict[str, tuple[str, Colour]] = {k: (key, PRESS_TAG_COLOURS[k]) for k, key in PRESS_TAG_KEYS.items()}
"""Press kind -> the tag shown next to it in the press order list (i18n key, colour)."""


def hex_colour(value: Any, index: int = 0) -> Colour:
    """``"#1e88e5"`` -> (30, 136, 229); anything else -> a palette colour."""
    if isinstance(value, (tuple, list)) and len(value) >= 3:
        return tuple(int(c) for c in value[:3])  # type: ignore[return-value]
    if not (isinstance(value, str) and len(value) == 7 and value.startswith("#")):
        value = PALETTE[index % len(PALETTE)]
    try:
        return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))
    except ValueError:
        return hex_colour(None, index)


def mix(a: Colour, b: Colour, k: float) -> Colour:
    """``a`` moved towards ``b`` by ``k`` (0..1)."""
    return (round(a[0] + (b[0] - a[0]) * k), round(a[1] + (b[1] - a[1]) * k), round(a[2] + (b[2] - a[2]) * k))


def ink_on(colour: Colour) -> Colour:
    """Text colour readable on a ``colour`` background."""
    r, g, b = colour
    return (16, 18, 24) if 0.299 * r + 0.587 * g + 0.114 * b > 165 else WHITE


PHASE_COLOURS = {"normal": WHITE, "warn": AMBER, "last": RED, "paused": PAUSED_BAR, "over": RED}

TONE_COLOURS: dict[str, Colour] = {"bad": RED, "warn": AMBER, "alert": ORANGE, "muted": MUTED, "info": STEEL,
                                   "good": GREEN}
"""A tag's tone (controller/core/screen.py) -> its colour."""


def card_colour(colour: Any, index: int | None) -> Colour:
    """A card's colour (a press's, a standings row's by its card): faint when it has no card."""
    return FAINT if index is None else hex_colour(colour, index)


# --- layout ------------------------------------------------------------------------

def _grid(area: Rect, n: int, cols: int, gap: int) -> list[Rect]:
    if n <= 0:
        return []
    rows = math.ceil(n / cols)
    w = (area.width - gap * (cols - 1)) / cols
    h = (area.height - gap * (rows - 1)) / rows
    out = []
    for i in range(n):
        r, c = divmod(i, cols)
        out.append(Rect(round(area.x + c * (w + gap)), round(area.y + r * (h + gap)), int(w), int(h)))
    return out


def layout(size: tuple[int, int], n_teams: int, kind: str = "game") -> dict[str, Any]:
    """Rectangles of every screen region for a ``size`` surface.

    ``kind``: ``game`` (teams, holder, countdown, presses), ``seats`` (speaker
    timer and seats) or ``table`` (standings only).
    """
    W, H = size
    portrait = W < H
    pad = max(round(min(W, H) * 0.022), 4)
    out: dict[str, Any] = {"pad": pad, "portrait": portrait, "size": size}
    header_h = round(H * (0.10 if portrait else 0.105))
    header = out["header"] = Rect(pad, pad, W - 2 * pad, header_h)
    if portrait:
        top_h = header_h * 45 // 100
        out["hdr_left"] = Rect(header.x, header.y, header.width * 58 // 100, top_h)
        out["hdr_status"] = Rect(header.right - header.width * 40 // 100, header.y, header.width * 40 // 100, top_h)
        out["hdr_theme"] = Rect(header.x, header.y + top_h, header.width, header_h - top_h)
    else:
        out["hdr_left"] = Rect(header.x, header.y, header.width * 36 // 100, header_h)
        out["hdr_theme"] = Rect(header.x + header.width * 37 // 100, header.y, header.width * 46 // 100, header_h)
        out["hdr_status"] = Rect(header.right - header.width * 16 // 100, header.y, header.width * 16 // 100,
                                 header_h)
    top = pad + header_h + pad
    if kind == "table":
        out["table"] = Rect(pad, top, W - 2 * pad, H - top - pad)
        return out
    n = max(n_teams, 1)
    if kind == "seats":
        cols = (2 if n <= 6 else 3) if portrait else math.ceil(n / 2) if n <= 12 else math.ceil(n / 3)
        rows = math.ceil(n / cols)
        seats_h = round(H * (0.52 if portrait else min(0.2 * rows, 0.46)))
        seats = Rect(pad, H - pad - seats_h, W - 2 * pad, seats_h)
        main = Rect(pad, top, W - 2 * pad, seats.y - pad - top)
        bar_h = max(round(min(W, H) * 0.035), 6)
        out["main"] = Rect(main.x, main.y, main.width, main.height - bar_h - pad // 2)
        out["bar"] = Rect(main.x, main.bottom - bar_h, main.width, bar_h)
        out["seats"] = seats
        out["cards"] = _grid(seats, n, cols, pad // 2 + 2)
        return out
    if portrait:
        cols = 2 if n <= 4 else 3 if n <= 9 else 4
    else:
        cols = n if n <= 6 else math.ceil(n / 2) if n <= 12 else math.ceil(n / 3)
    rows = math.ceil(n / cols)
    if portrait:
        teams_h = round(H * min(0.13 * rows, 0.40))
    else:
        teams_h = round(H * (0.25 if rows == 1 else 0.34 if rows == 2 else 0.42))
    teams = Rect(pad, H - pad - teams_h, W - 2 * pad, teams_h)
    out["teams"] = teams
    out["cards"] = _grid(teams, n, cols, pad // 2 + 2)
    middle = Rect(pad, top, W - 2 * pad, teams.y - pad - top)
    bar_h = max(round(min(W, H) * 0.03), 6)
    if portrait:
        main_h = round(middle.height * 0.56)
        main = Rect(middle.x, middle.y, middle.width, main_h)
        side = Rect(middle.x, main.bottom + pad, middle.width, middle.bottom - main.bottom - pad)
        info_w = round(side.width * 0.34)
        out["info"] = Rect(side.x, side.y, info_w, side.height)
        out["presses"] = Rect(side.x + info_w + pad, side.y, side.width - info_w - pad, side.height)
    else:
        main_w = round(middle.width * 0.64)
        main = Rect(middle.x, middle.y, main_w, middle.height)
        side = Rect(main.right + pad, middle.y, middle.right - main.right - pad, middle.height)
        info_h = round(side.height * 0.36)
        out["info"] = Rect(side.x, side.y, side.width, info_h)
        out["presses"] = Rect(side.x, side.y + info_h + pad, side.width, side.height - info_h - pad)
    out["main"] = Rect(main.x, main.y, main.width, main.height - bar_h - pad // 2)
    out["bar"] = Rect(main.x, main.bottom - bar_h, main.width, bar_h)
    out["middle"] = middle
    return out


# --- the scoreboard --------------------------------------------------------------------

_FIELDS: dict[type, tuple[str, ...]] = {}


def still_key(value: Any) -> Any:
    """A widget (a :class:`~controller.core.screen.Screen` and everything in it) as a plain value
    that changes when it looks different, but for the countdown bar's length: a
    :class:`~controller.core.screen.Clock` counts with its number, colour and state, not the
    fraction or the milliseconds left."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Clock):
        return ("clock", value.label, value.text, value.phase, value.stopped, value.running, value.total_ms)
    cls = type(value)
    names = _FIELDS.get(cls)
    if names is None and dataclasses.is_dataclass(value):
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        return (cls.__name__,) + tuple(still_key(getattr(value, n)) for n in names)
    if isinstance(value, (tuple, list)):
        return tuple(still_key(v) for v in value)
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), still_key(v)) for k, v in value.items()))
    return repr(value)


class Scoreboard:
    """Draws the audience screen.

    :param size: the surface size the layout is made for (a different
        surface size at :meth:`draw` re-lays out).
    :param lang: ``ru`` (default) or ``en``.
    :param keys: the host's keys as in config ``[keys]`` (``{action: [key
        names]}``), for the help overlay.
    :param team_keys: ``[(key, team name)]``, the players' keys shown first
        on the help overlay (a laptop game on one keyboard).
    :param labels: action -> the catalog key of the game's own label for it (the game's
        declared ``Action.label``: :func:`~controller.inputs.keys.mode_labels`), for the help overlay.
    """

    def __init__(self, size: tuple[int, int], lang: str = DEFAULT_LANG,
                 keys: Mapping[str, list[str]] | None = None, cache_limit: int = 768,
                 team_keys: list[tuple[str, str]] | None = None, labels: Mapping[str, str] | None = None) -> None:
        self.size = (int(size[0]), int(size[1]))
        self.lang = lang
        self.keys = dict(keys or {})
        self.labels = dict(labels or {})
        self.team_keys = list(team_keys or ())
        self.text = TextCache(cache_limit)
        self._layouts: dict[tuple, dict] = {}
        self._last_key: Any = None
        self._screen_of: tuple[Any, Screen] | None = None   # (the last view, its screen)
        self._layer: pygame.Surface | None = None
        self._layer_key: Any = None
        self.pack = PackScreen()
        """A SIGame package's board and question; the window sets its ``media_data``."""

    def set_keys(self, keys: Mapping[str, list[str]]) -> None:
        """The host's keys of the help overlay as they are now (a programme's follow its round)."""
        if dict(keys) != self.keys:
            self.keys = dict(keys)
            self._layer_key = None
            self._last_key = None

    def set_labels(self, labels: Mapping[str, str]) -> None:
        """The game's own label keys of its actions (:func:`~controller.inputs.keys.mode_labels`) as
        they are now (a programme's follow its round)."""
        if dict(labels) != self.labels:
            self.labels = dict(labels)
            self._layer_key = None
            self._last_key = None

    def set_team_keys(self, team_keys: list[tuple[str, str]]) -> None:
        """The players' keys of the help overlay, with the teams' names as they are now."""
        if list(team_keys) != self.team_keys:
            self.team_keys = list(team_keys)
            self._layer_key = None
            self._last_key = None

    # -- redraw bookkeeping -------------------------------------------------------------
    def frame_key(self, view: Mapping[str, Any], now_ns: int = 0, flash: Mapping | None = None,
                  status: Mapping | None = None, help_overlay: bool = False) -> tuple:
        """A value that changes exactly when the frame would look different.

        ``(still, bar)``: ``still`` is everything but the countdown bar's length, made from the
        screen model's widgets (:func:`still_key`: a countdown enters with its number and
        colour), ``bar`` the bar's length in pixels.  A running countdown changes the key about
        once per pixel of bar; a paused screen does not change it at all.
        """
        scr = self._screen(view)
        still = (still_key(scr), repr(dict(flash)) if flash else None, repr(dict(status)) if status else None,
                 bool(help_overlay), self.lang, self.size)
        cd = scr.main.bar
        return still, (round(cd.fraction * self.size[0]), cd.phase) if cd else None

    def needs_redraw(self, view: Mapping[str, Any], now_ns: int = 0, flash: Mapping | None = None,
                     status: Mapping | None = None, help_overlay: bool = False) -> bool:
        """True when :meth:`draw` with these arguments would change the screen."""
        return self.frame_key(view, now_ns, flash, status, help_overlay) != self._last_key

    # -- drawing ---------------------------------------------------------------------------
    def _layout(self, kind: str, n: int) -> dict:
        key = (self.size, kind, n)
        lay = self._layouts.get(key)
        if lay is None:
            lay = self._layouts[key] = layout(self.size, n, kind)
        return lay

    def _layout_for(self, scr: Screen) -> dict:
        kind = scr.layout
        return self._layout(kind if kind in ("seats", "table") else "game", len(scr.cards.items))

    def _screen(self, view: Mapping[str, Any]) -> Screen:
        """The typed screen (controller/core/screen.py) of ``view``, as its game presents it (the
        last view's is kept: a frame asks for it more than once)."""
        last = self._screen_of
        if last is not None and last[0] is view:
            return last[1]
        scr = games.screen_of(dict(view))
        self._screen_of = (view, scr)
        return scr

    def draw(self, surface: pygame.Surface, view: Mapping[str, Any], now_ns: int = 0,
             flash: Mapping | None = None, status: Mapping | None = None, help_overlay: bool = False,
             keys: Mapping[str, list[str]] | None = None) -> None:
        """Draw the whole frame for ``view`` onto ``surface``.

        ``flash``: the latest ruling flash still on screen, ``{"kind": "right",
        "team": "Альфа"}``.  ``status``: the input backend's state and the
        latest host notice (``{"backend", "connected", "missing", "notice"}``).
        ``help_overlay``: show the host's keys (``keys`` replaces the ones
        given to the constructor).  ``now_ns`` is the engine time of the
        frame; the countdowns are read from the view (computed at that time),
        so nothing on screen moves unless the view does: a steady screen needs
        no redraws (the pause badge does not blink for the same reason).

        Everything but the countdown bar is drawn into a cached layer that is
        redrawn only when it changes (about once a second while a countdown
        runs); each frame blits that layer and draws the bar on top.
        """
        if surface.get_size() != self.size:
            self.size = surface.get_size()
        if keys is not None and dict(keys) != self.keys:
            self.keys = dict(keys)
            self._layer_key = None
        key = self.frame_key(view, now_ns, flash, status, help_overlay)
        self._last_key = key
        overlay = bool(help_overlay or (flash and flash.get("kind") not in SILENT_FLASHES)
                       or (status and (status.get("entry") or status.get("host_link"))))
        # Under an overlay the bar must stay below it: draw it into the layer.
        still = key if overlay else key[0]
        scr = self._screen(view)
        lay = self._layout_for(scr)
        if self._layer is None or self._layer.get_size() != self.size:
            self._layer = pygame.Surface(self.size).convert() if pygame.display.get_surface() else \
                pygame.Surface(self.size)
            self._layer_key = None
        if still != self._layer_key:
            self._draw_layer(self._layer, lay, view, scr, flash, status, help_overlay, overlay)
            self._layer_key = still
        surface.blit(self._layer, (0, 0))
        if not overlay and "bar" in lay:
            self._draw_bar_fill(surface, lay["bar"], scr.main.bar)

    def _draw_layer(self, surface, lay: dict, view: Mapping[str, Any], scr: Screen, flash, status,
                    help_overlay: bool, overlay: bool) -> None:
        surface.fill(BG)
        self._draw_header(surface, lay, scr.header, notice=bool(status and status.get("notice")))
        self._draw_widgets(surface, lay, scr, status)
        if "bar" in lay:
            self._draw_bar(surface, lay["bar"])
            if overlay:
                self._draw_bar_fill(surface, lay["bar"], scr.main.bar)
        if scr.header.paused:
            self._draw_paused(surface, lay)
        if status:
            st = lay["hdr_status"]
            # landscape: a notice may use the header's width right of the title (not the corner's sixth)
            wide = None if lay["portrait"] else Rect(lay["hdr_theme"].x, st.y, st.right - lay["hdr_theme"].x,
                                                     st.height)
            self._draw_status(surface, st, status, wide)
        if flash and flash.get("kind") not in SILENT_FLASHES:
            self._draw_flash(surface, flash, view)
        if help_overlay:
            self._draw_help(surface, (status or {}).get("host_answer"))
        if status and status.get("entry"):
            self._draw_entry(surface, status["entry"])
        if status and status.get("host_link"):
            self._draw_host_link(surface, status["host_link"])

    def _draw_widgets(self, surface, lay: dict, scr: Screen, status: Mapping | None = None) -> None:
        """Everything between the header and the overlays: the layout's widgets in ``lay``'s
        regions (``status``: the loop's, for the keys that name the holder's button); a layout
        of another shape overrides this and :meth:`_layout`."""
        cards = scr.cards
        if scr.layout == "seats":
            self._draw_seats_main(surface, lay, scr.main)
            for card, rect in zip(cards.items, lay["cards"]):
                self._draw_seat(surface, rect, card)
        elif scr.layout == "table" and scr.standings.players:
            # teams left, players right [§4.3]
            tbl: Rect = lay["table"]
            split = tbl.width * 56 // 100
            self._draw_standings(surface, Rect(tbl.x, tbl.y, split, tbl.height), scr.standings)
            self._draw_player_points(surface, Rect(tbl.x + split + lay["pad"], tbl.y,
                                                   tbl.width - split - lay["pad"], tbl.height), scr.standings, cards)
        elif scr.layout == "table":
            self._draw_standings(surface, lay["table"], scr.standings)
        elif scr.layout == "board":   # a SIGame package: the board (controller/screens/pack_screen.py)
            mid = lay["middle"]
            self.pack.draw_board(self, surface, Rect(mid.x, mid.y, mid.width, lay["main"].height), scr.board)
            self._draw_teams(surface, lay["cards"], cards)
        else:
            if scr.main.content is not None:   # a package's question (controller/screens/pack_screen.py)
                self.pack.draw_question(self, surface, lay["main"], scr.main.content)
            else:
                self._draw_main(surface, lay, scr.main, cards, (status or {}).get("keys"))
            if not scr.presses.shown:
                self._draw_info(surface, lay["info"].union(lay["presses"]), scr.main.side)
            else:
                self._draw_info(surface, lay["info"], scr.main.side)
                self._draw_presses(surface, lay["presses"], scr.presses)
            self._draw_teams(surface, lay["cards"], cards)

    _show_table = staticmethod(show_table)
    """The full standings table: at the end, and between rounds (:func:`controller.screens.common.show_table`)."""

    # -- primitives --------------------------------------------------------------------------
    def _text(self, surface: pygame.Surface, text: str, rect: Rect, size: int, colour: Colour,
              bold: bool = False, align: str = "center", valign: str = "center", fit: bool = True) -> Rect:
        """Draw ``text`` in ``rect`` (shrunk to fit its width); returns where it went."""
        if not text:
            return Rect(rect.x, rect.y, 0, 0)
        if fit:
            size = self.text.fit(text, rect.width, size, bold)
        surf = self.text.render(text, size, colour, bold)
        w, h = surf.get_size()
        x = rect.x if align == "left" else rect.right - w if align == "right" else rect.centerx - w // 2
        y = rect.y if valign == "top" else rect.bottom - h if valign == "bottom" else rect.centery - h // 2
        return surface.blit(surf, (x, y))

    def _panel(self, surface, rect: Rect, colour: Colour = PANEL, radius: float = 0.08) -> None:
        pygame.draw.rect(surface, colour, rect, border_radius=max(int(min(rect.width, rect.height) * radius), 2))

    def _tag(self, surface, text: str, x: int, y: int, h: int, colour: Colour, max_w: int) -> int:
        """A small rounded label at (x, y) ``h`` px tall; returns its width."""
        size = self.text.fit(text, max_w - h // 2, int(h * 0.62), True)
        surf = self.text.render(text, size, ink_on(colour), True)
        w = min(surf.get_width() + h // 2, max_w)
        pygame.draw.rect(surface, colour, Rect(x, y, w, h), border_radius=h // 4)
        surface.blit(surf, (x + (w - surf.get_width()) // 2, y + (h - surf.get_height()) // 2))
        return w

    # -- header ------------------------------------------------------------------------------
    def _draw_header(self, surface, lay: dict, h: Header, notice: bool = False) -> None:
        lang = self.lang
        left: Rect = lay["hdr_left"]
        hh = left.height
        title = say(h.title, lang)
        structure = says(h.structure, lang)
        if title and title != structure:
            size = min(self.text.fit(title, left.width, int(hh * 0.30)),
                       self.text.fit(structure, left.width, int(hh * 0.36), True))
            self._text(surface, title, Rect(left.x, left.y, left.width, hh * 45 // 100), size, MUTED,
                       align="left", valign="top")
            self._text(surface, structure, Rect(left.x, left.y + hh * 45 // 100, left.width, hh * 55 // 100),
                       size, TEXT, bold=True, align="left")
        else:
            self._text(surface, structure, left, int(hh * 0.42), TEXT, bold=True, align="left")
        if h.theme:
            rect: Rect = lay["hdr_theme"]
            if notice and not lay["portrait"]:  # the notice line runs under the theme
                rect = Rect(rect.x, rect.y, rect.width, rect.height * 2 // 3)
            self._text(surface, f"«{h.theme}»" if lang == "ru" else f"“{h.theme}”", rect,
                       int(min(rect.height * 0.55, lay["header"].height * 0.5)), TEXT, bold=True)

    def _draw_status(self, surface, rect: Rect, status: Mapping[str, Any], wide: Rect | None = None) -> None:
        """The input backend, whether every button answers, and the latest host notice (small, top right).

        With ``wide`` (the header right of the title) the notice is a line of its own there, as
        large as the status lines, so a long notice does not shrink them to an unreadable size."""
        lang = self.lang
        h = rect.height
        backend = status.get("backend")
        name = t(f"backend_{backend}", lang) if backend else ""
        missing = list(status.get("missing") or ())
        ok = bool(status.get("connected", True)) and not missing
        line1 = f"{t('backend', lang)}: {name}" if name else t("backend", lang)
        if missing:
            # by the teams' names: the buttons' ids too would shrink the corner's line to nothing
            # (the host's terminal and page name them)
            line2, colour = t("backend_missing", lang, buttons=teams_words(missing, status.get("names"), lang)), RED
        elif not status.get("connected", True):
            line2, colour = t("backend_disconnected", lang), RED
        elif status.get("no_phone"):   # a team that presses only with a phone link has none joined yet
            line2, colour = t("backend_no_phone", lang, buttons=teams_words(status["no_phone"], status.get("names"), lang)), AMBER
        else:
            line2, colour = t("backend_connected", lang), GREEN
        notice = status.get("notice")
        if isinstance(notice, Mapping):
            notice = t(str(notice.get("key", "")), lang, **dict(notice.get("params") or {}))
        lines = [(line1, MUTED), (line2, colour)] + ([(str(notice), AMBER)] if notice else [])
        row = h // 3 if rect.width < rect.height * 6 or notice else h // 2
        link = status.get("link")
        if link:   # a hall of a festival: whether its results reach the organisers (docs/festival.md)
            word = t("festival_link_ok" if link.get("connected") else "festival_link_lost", lang)
            lines.insert(2, (f"{t('festival_link', lang)}: {word}", GREEN if link.get("connected") else RED))
            row = h // len(lines)
        dot = max(int(row * 0.45), 4)
        if notice and wide is not None:
            lines.pop()
            top = len(lines) * row   # under the status lines
            nsize = self.text.fit(str(notice), wide.width, int(row * 0.72))
            self._text(surface, str(notice), Rect(wide.x, rect.y + top, wide.width, h - top), nsize,
                       AMBER, align="right", fit=False)
        size = min(self.text.fit(text, rect.width - dot * 2, int(row * 0.66)) for text, _ in lines)
        for k, (text, c) in enumerate(lines):
            r = self._text(surface, text, Rect(rect.x, rect.y + k * row, rect.width - (dot * 2 if k == 0 else 0),
                                               row), size, c, align="right", fit=False)
            if k == 0:
                # amber: every button answers, but a team on its phone alone has none joined yet
                light = RED if not ok else AMBER if status.get("no_phone") else GREEN
                pygame.draw.circle(surface, light, (rect.right - dot // 2 - 1, r.centery), dot // 2)

    # -- main panel --------------------------------------------------------------------------
    def _draw_main(self, surface, lay: dict, p: MainPanel, cards: Cards,
                   keys: Mapping[str, str] | None = None) -> None:
        lang = self.lang
        rect: Rect = lay["main"]
        if p.themes:
            # the themes announced so far (a game from an event file): under the captain's timer
            th = rect.height * 46 // 100
            self._draw_themes(surface, Rect(rect.x, rect.bottom - th, rect.width, th), p.themes)
            rect = Rect(rect.x, rect.y, rect.width, rect.height - th - lay["pad"] // 2)
        if p.kind == "holder":
            h = p.holder
            colour = hex_colour(h.colour, h.index)
            self._panel(surface, rect, colour, 0.05)
            ink = ink_on(colour)
            label = t("answering", lang)
            if h.order:
                label = t("answer_order", lang, n=h.order)
            self._text(surface, label, Rect(rect.x, rect.y + rect.height * 6 // 100, rect.width,
                                            rect.height * 20 // 100), int(rect.height * 0.15), ink)
            self._text(surface, h.name,
                       Rect(rect.x + rect.width // 20, rect.y + rect.height * 26 // 100, rect.width * 9 // 10,
                            rect.height * 50 // 100), int(rect.height * 0.40), ink, bold=True)
            if h.button:
                # as the players press it: «Клавиша Q» on the keyboard (``keys``), else «Кнопка A»
                self._text(surface, t("from_phone", lang) if h.phone else button_words(h.button, keys, lang),
                           Rect(rect.x, rect.y + rect.height * 78 // 100, rect.width, rect.height * 16 // 100),
                           int(rect.height * 0.09), mix(ink, colour, 0.3))
        elif p.kind == "timer":
            self._panel(surface, rect, PANEL, 0.05)
            self._draw_big_countdown(surface, rect, p.timer, self._countdown_label(p.timer))
        elif p.kind == "question":
            self._panel(surface, rect, PANEL, 0.05)
            self._draw_question_card(surface, rect, p.question)
        elif p.kind == "outcome":
            self._panel(surface, rect, PANEL, 0.05)
            self._draw_closed(surface, rect, p.outcome)
        elif p.kind == "result":
            self._panel(surface, rect, PANEL, 0.05)
            self._draw_fight_over(surface, rect, p.result)
        else:
            self._panel(surface, rect, PANEL, 0.05)
            self._text(surface, say(p.title, lang), Rect(rect.x, rect.y + rect.height // 4, rect.width,
                                                         rect.height // 3), int(rect.height * 0.2), TEXT, bold=True)
            self._text(surface, says(p.subtitle, lang),
                       Rect(rect.x, rect.y + rect.height * 58 // 100, rect.width, rect.height // 6),
                       int(rect.height * 0.09), MUTED)

    def _countdown_label(self, cd: Clock) -> str:
        return t(cd.label, self.lang) if cd.label else ""

    def _draw_big_countdown(self, surface, rect: Rect, cd: Clock, label: str) -> None:
        phase = cd.phase
        colour = PHASE_COLOURS[phase]
        if label:
            self._text(surface, label, Rect(rect.x, rect.y + rect.height * 4 // 100, rect.width,
                                            rect.height * 14 // 100), int(rect.height * 0.09), MUTED)
        if cd.stopped:   # «Пауза»: the host's key; «Остановлено»: the game stopped it (a team answers)
            self._text(surface, t(cd.stopped, self.lang), Rect(rect.x, rect.bottom - rect.height * 16 // 100,
                                                             rect.width, rect.height * 12 // 100),
                       int(rect.height * 0.08), MUTED)
        text = cd.text
        self._text(surface, text, Rect(rect.x, rect.y + rect.height * 16 // 100, rect.width,
                                       rect.height * 70 // 100), int(rect.height * 0.66), colour, bold=True)

    def _draw_question_card(self, surface, rect: Rect, q) -> None:
        head = say(q.head, self.lang)
        self._text(surface, head, Rect(rect.x, rect.y + rect.height * 6 // 100, rect.width,
                                       rect.height * 16 // 100), int(rect.height * 0.11), MUTED)
        if q.nominal is not None:
            self._text(surface, str(q.nominal), Rect(rect.x, rect.y + rect.height * 22 // 100, rect.width,
                                                     rect.height * 56 // 100), int(rect.height * 0.5),
                       TEXT, bold=True)
        if q.theme:
            self._text(surface, str(q.theme), Rect(rect.x + rect.width // 20, rect.y + rect.height * 78 // 100,
                                                   rect.width * 9 // 10, rect.height * 16 // 100),
                       int(rect.height * 0.1), MUTED)

    def _draw_closed(self, surface, rect: Rect, o) -> None:
        """A closed question: its outcome (who answered right, or nobody)."""
        lang = self.lang
        if o.kind == "withdrawn":
            self._text(surface, t("withdrawn", lang), rect, int(rect.height * 0.2), MUTED, bold=True)
            return
        if o.kind == "right":
            colour = hex_colour(o.colour, o.index)
            inner = rect.inflate(-rect.height // 10, -rect.height // 10)
            pygame.draw.rect(surface, colour, Rect(inner.x, inner.y, inner.width, inner.height // 14),
                             border_radius=inner.height // 40)
            self._text(surface, f"{t('mark_right', lang)} {t('right', lang)}",
                       Rect(rect.x, rect.y + rect.height * 12 // 100, rect.width, rect.height * 18 // 100),
                       int(rect.height * 0.13), GREEN, bold=True)
            self._text(surface, o.name,
                       Rect(rect.x + rect.width // 20, rect.y + rect.height * 32 // 100, rect.width * 9 // 10,
                            rect.height * 36 // 100), int(rect.height * 0.3), TEXT, bold=True)
            self._text(surface, signed(o.delta),
                       Rect(rect.x, rect.y + rect.height * 70 // 100, rect.width, rect.height * 20 // 100),
                       int(rect.height * 0.15), GREEN, bold=True)
        else:
            self._text(surface, t(o.kind, lang), rect, int(rect.height * 0.22),
                       AMBER if o.kind == "time_up" else MUTED, bold=True)

    def _draw_fight_over(self, surface, rect: Rect, r) -> None:
        """A fight just over: «Окончен бой 1», the winner's name under a band of its colour, the points."""
        lang = self.lang
        head, winner = say(r.head, lang), r.winner
        points = " : ".join(fmt_score(x) for x in r.points)
        self._text(surface, head, Rect(rect.x, rect.y + rect.height * 6 // 100, rect.width, rect.height * 14 // 100),
                   int(rect.height * 0.11), MUTED)
        if winner is None:
            self._text(surface, t("no_winner", lang), Rect(rect.x, rect.y + rect.height * 30 // 100, rect.width,
                                                             rect.height * 30 // 100), int(rect.height * 0.18),
                       AMBER, bold=True)
        else:
            colour = hex_colour(r.colour, r.index)
            inner = rect.inflate(-rect.height // 10, -rect.height // 10)
            pygame.draw.rect(surface, colour, Rect(inner.x, inner.y + inner.height * 20 // 100, inner.width,
                                                   inner.height // 14), border_radius=inner.height // 40)
            self._text(surface, t("winner", lang), Rect(rect.x, rect.y + rect.height * 30 // 100, rect.width,
                                                          rect.height * 12 // 100), int(rect.height * 0.09),
                       AMBER, bold=True)
            self._text(surface, str(winner), Rect(rect.x + rect.width // 20, rect.y + rect.height * 42 // 100,
                                                  rect.width * 9 // 10, rect.height * 32 // 100),
                       int(rect.height * 0.28), TEXT, bold=True)
        if points:
            self._text(surface, points, Rect(rect.x, rect.y + rect.height * 76 // 100, rect.width,
                                             rect.height * 16 // 100), int(rect.height * 0.12), TEXT, bold=True)

    @staticmethod
    def _draw_bar(surface, rect: Rect) -> None:
        """The countdown bar's empty track."""
        pygame.draw.rect(surface, PANEL, rect, border_radius=rect.height // 2)

    @staticmethod
    def _draw_bar_fill(surface, rect: Rect, cd: Clock | None) -> None:
        """The shrinking part of the bar, coloured by the countdown's phase."""
        if not cd:
            return
        w = round(rect.width * cd.fraction)
        if w > 0:
            pygame.draw.rect(surface, PHASE_COLOURS[cd.phase],
                             Rect(rect.x, rect.y, max(w, rect.height), rect.height), border_radius=rect.height // 2)

    # -- side column -------------------------------------------------------------------------
    def _draw_info(self, surface, rect: Rect, slots: tuple[Cell, ...]) -> None:
        """Nominal and question number; the captain's timer; a paused countdown's number."""
        lang = self.lang
        self._panel(surface, rect, PANEL, 0.06)
        if not slots:
            return
        inner = rect.inflate(-rect.width // 16, -rect.height // 8)
        w = inner.width // len(slots)
        for i, c in enumerate(slots):
            what = c.kind
            cell_h = min(inner.height, w * 45 // 100)
            cell = Rect(inner.x + i * w, inner.y + (inner.height - cell_h) // 2, w, cell_h)
            label_r = Rect(cell.x, cell.y, cell.width, cell.height * 24 // 100)
            value_r = Rect(cell.x, cell.y + cell.height * 24 // 100, cell.width, cell.height * 76 // 100)
            if what == "index":
                self._text(surface, t("question", lang), label_r, int(cell.height * 0.16), MUTED)
                self._text(surface, f"{c.index}/{c.of}", value_r, int(cell.height * 0.62), TEXT,
                           bold=True)
            elif what == "label":
                self._text(surface, t("question", lang), label_r, int(cell.height * 0.16), MUTED)
                self._text(surface, str(c.label), value_r,
                           int(min(cell.height * 0.62, cell.width * 0.5)), TEXT, bold=True)
            elif what == "nominal":
                label = t("nominal", lang)
                if c.index and c.of:
                    label = f"{label}{t('separator', lang)}{t('question', lang)} {c.index}/{c.of}"
                self._text(surface, label, label_r, int(cell.height * 0.16), MUTED)
                self._text(surface, str(c.nominal), value_r, int(cell.height * 0.62), TEXT, bold=True)
            else:
                label = self._countdown_label(c.clock)
                self._text(surface, label, label_r, int(cell.height * 0.16), MUTED)
                self._text(surface, c.clock.text, value_r, int(cell.height * 0.62),
                           PHASE_COLOURS[c.clock.phase], bold=True)

    def _draw_presses(self, surface, rect: Rect, po: PressOrder) -> None:
        """The order of presses of the current question, gaps to the first, current wave bright."""
        lang = self.lang
        self._panel(surface, rect, PANEL, 0.04)
        rows = list(po.entries)
        pad = max(rect.width // 28, 4)
        title_h = max(rect.height // 8, 12)
        self._text(surface, t("press_order", lang), Rect(rect.x + pad, rect.y + pad // 2, rect.width - 2 * pad,
                                                         title_h), int(title_h * 0.62), MUTED, align="left")
        if not rows:
            return
        wave = po.wave
        body = Rect(rect.x + pad, rect.y + pad // 2 + title_h, rect.width - 2 * pad,
                    rect.height - title_h - pad)
        row_h = min(body.height // 5, max(body.height // max(len(rows), 1), 10))
        max_rows = max(body.height // row_h, 1)
        rows = rows[-max_rows:]
        y = body.y
        prev_wave = None
        for r in rows:
            w = r.wave
            current = w == wave
            if prev_wave is not None and w != prev_wave:
                pygame.draw.line(surface, FAINT, (body.x, y + 1), (body.right, y + 1), max(row_h // 24, 1))
            prev_wave = w
            fg = TEXT if current else FAINT
            bold = current and r.answer
            size = int(row_h * (0.58 if bold else 0.5))
            num = r.number
            self._text(surface, f"{num}." if num else "·", Rect(body.x, y, row_h, row_h), size, fg, bold,
                       align="left", fit=False)
            sw = row_h * 4 // 10
            colour = card_colour(r.colour, r.index)
            pygame.draw.rect(surface, colour if current else mix(colour, PANEL, 0.6),
                             Rect(body.x + row_h, y + (row_h - sw) // 2, sw, sw), border_radius=sw // 4)
            gap_w = body.width * 36 // 100
            name_x = body.x + row_h + sw + row_h // 4
            tag = (t(r.tag.key, lang), TONE_COLOURS[r.tag.tone]) if r.tag is not None else \
                ((tie_words(r.tie_ms, lang), AMBER) if r.tie else None)
            name_w = body.right - gap_w - name_x
            if tag:
                label = tag[0]
                th = row_h * 2 // 3
                tw = min(self.text.width(label, self.text.fit(label, gap_w - th // 2, int(th * 0.62), True), True)
                         + th // 2, gap_w)
                self._tag(surface, label, body.right - tw, y + row_h // 6, th,
                          tag[1] if current else mix(tag[1], PANEL, 0.5), gap_w)
                self._text(surface, r.name, Rect(name_x, y, name_w - 4, row_h), size, fg, bold, align="left")
            else:
                # a phone's press says how sure its gap is («+0.120 с ±26 мс»); a wired one's is exact.
                # The longer text takes what it needs of the name's room (up to 60 % of the row)
                gap_text = gap_words(r.gap_ms, r.unc_ms, lang)
                gw = gap_w if not r.unc_ms else \
                    max(gap_w, min(self.text.width(gap_text, size, bold) + row_h // 4, body.width * 60 // 100))
                self._text(surface, r.name, Rect(name_x, y, body.right - gw - name_x - 4, row_h), size, fg, bold,
                           align="left")
                self._text(surface, gap_text, Rect(body.right - gw, y, gw, row_h), size, fg if num != 1 else (
                               GREEN if current and r.answer else fg), bold, align="right")
            y += row_h

    # -- team cards ----------------------------------------------------------------------------
    def _draw_teams(self, surface, rects: list[Rect], cards: Cards) -> None:
        lang = self.lang
        for tm, rect in zip(cards.items, rects):
            colour = hex_colour(tm.colour, tm.index)
            dim = tm.dim
            holder = tm.holder
            bg = colour if holder else (mix(PANEL, BG, 0.3) if dim else PANEL)
            self._panel(surface, rect, bg, 0.07)
            ink = ink_on(colour) if holder else (FAINT if dim else TEXT)
            stripe = mix(colour, BG, 0.6) if dim else colour
            sh = max(rect.height // 11, 3)
            if not holder:
                pygame.draw.rect(surface, stripe, Rect(rect.x, rect.y, rect.width, sh),
                                 border_top_left_radius=max(int(min(rect.size) * 0.07), 2),
                                 border_top_right_radius=max(int(min(rect.size) * 0.07), 2))
            inner = rect.inflate(-max(rect.width // 14, 4), -sh * 2)
            inner.y += sh // 2
            name_h = inner.height * 26 // 100
            place = tm.place
            badge = 0
            if place:
                badge = int(name_h * 0.95)
                bc = (inner.right - badge // 2, inner.y + name_h // 2)
                pygame.draw.circle(surface, mix(bg, ink, 0.18), bc, badge // 2)
                self._text(surface, str(place), Rect(bc[0] - badge // 2, bc[1] - badge // 2, badge, badge),
                           int(badge * 0.6), ink, bold=True)
            name = tm.name
            if tm.entry:   # the host is typing a player's number: each card shows its own
                name = f"№{tm.entry} {name}"
            self._text(surface, name, Rect(inner.x, inner.y, inner.width - badge - 4, name_h),
                       int(name_h * 0.8), ink, bold=True, align="left")
            score = tm.score
            score_r = Rect(inner.x, inner.y + name_h, inner.width, inner.height * 50 // 100)
            if score is not None:
                self._text(surface, fmt_score(score), score_r, int(score_r.height * 0.95), ink, bold=True)
            extra = tm.extra
            tag_h = inner.height * 20 // 100
            tag_y = inner.bottom - tag_h
            x = inner.x
            for tag in tm.tags:
                if x >= inner.right - tag_h:
                    break
                x += self._tag(surface, t(tag.key, lang), x, tag_y, tag_h, TONE_COLOURS[tag.tone],
                               inner.right - x) + tag_h // 4
            total = "" if tm.total is None else f"{t('series_total', lang)} {fmt_score(tm.total)}"
            if total and not tm.player and x < inner.right - tag_h:
                # a programme's running total, every game so far
                self._text(surface, total, Rect(x, tag_y, inner.right - x, tag_h),
                           int(tag_h * 0.85), ink, bold=True, align="right")
            if tm.player and x < inner.right - tag_h:
                # the player at the button this round (a game that knows its players)
                self._text(surface, str(tm.player), Rect(x, tag_y, inner.right - x, tag_h), int(tag_h * 0.85),
                           ink, align="right")
            if extra is not None and not tm.tags:
                self._text(surface, f"{t('extra_fight', lang)}: {fmt_score(extra)}",
                           Rect(inner.x, tag_y, inner.width, tag_h), int(tag_h * 0.8), ink, align="left")

    # -- standings -----------------------------------------------------------------------------
    def _draw_standings(self, surface, rect: Rect, st: Standings) -> None:
        lang = self.lang
        rows = list(st.rows)
        title_h = rect.height // 9
        finished = st.finished
        title = say(st.title, lang)
        if st.structure:
            title = f"{title}{t('separator', lang)}{says(st.structure, lang)}"
        if finished and not st.title_final:
            # the final table, not one more between rounds (as the terminal and the pages say);
            # a programme's says «Итоги программы» already
            # (a programme's game before its last: that game is over, the next one follows)
            over = say(st.over, lang) if st.over is not None else t("game_over", lang)
            title = f"{title}{t('separator', lang)}{over}"
        self._text(surface, title, Rect(rect.x, rect.y, rect.width, title_h), int(title_h * 0.7), TEXT,
                   bold=True)
        if st.note is not None:   # what the final table leaves open (ЧГК: shared prize places, a shoot-out due)
            note_h = title_h * 3 // 4
            self._text(surface, say(st.note, lang), Rect(rect.x, rect.y + title_h, rect.width, note_h),
                       int(note_h * 0.7), AMBER, bold=True)
            title_h += note_h
        body = Rect(rect.x, rect.y + title_h + rect.height // 40, rect.width, rect.height - title_h - rect.height // 40)
        cols = 1 if len(rows) <= 8 or self.size[0] < self.size[1] else 2
        per_col = math.ceil(len(rows) / cols) if rows else 1
        gap = max(rect.width // 60, 4)
        col_w = (body.width - gap * (cols - 1)) // cols
        head_h = max(body.height // 16, 10)
        row_h = min((body.height - head_h) // max(per_col, 1), body.height // 5)
        has_won, has_tb = st.has_won, st.has_extra
        for c in range(cols):
            x0 = body.x + c * (col_w + gap)
            cols_x = self._standings_columns(x0, col_w, has_won, has_tb)
            for key, (cx, cw, align) in cols_x.items():
                label = {"place": t("place", lang), "team": t("team", lang),
                         "points": t("points", lang) if st.points_label is None else say(st.points_label, lang),
                         "won": t("right_points", lang) if st.won_label is None else say(st.won_label, lang),
                         "tb": t("extra_fight", lang)}[key]
                self._text(surface, label, Rect(cx, body.y, cw, head_h), int(head_h * 0.7), MUTED,
                           align=align)
            for j, row in enumerate(rows[c * per_col:(c + 1) * per_col]):
                y = body.y + head_h + j * row_h
                r = Rect(x0, y + row_h // 12, col_w, row_h - row_h // 6)
                first = row.place == 1
                self._panel(surface, r, PANEL_HI if first else PANEL, 0.12)
                colour = card_colour(row.colour, row.index)
                pygame.draw.rect(surface, colour, Rect(r.x, r.y, max(r.height // 6, 4), r.height),
                                 border_top_left_radius=int(r.height * 0.12),
                                 border_bottom_left_radius=int(r.height * 0.12))
                size = int(r.height * 0.56)
                place = place_text(row, finished, lang)
                cells = {"place": (place, AMBER if first else TEXT), "team": (row.name, TEXT),
                         "points": (fmt_score(row.points), TEXT),
                         "won": (fmt_score("" if row.won is None else row.won), MUTED),
                         "tb": (fmt_score(row.extra) if row.extra is not None else "", MUTED)}
                for key, (cx, cw, align) in cols_x.items():
                    text, fg = cells[key]
                    self._text(surface, text, Rect(cx, r.y, cw, r.height), size if key != "won" else size * 4 // 5,
                               fg, bold=key in ("place", "team", "points"), align=align)

    def _draw_themes(self, surface, rect: Rect, themes: tuple) -> None:
        """The round themes announced so far, one line each, the coming round's bright."""
        lang = self.lang
        self._panel(surface, rect, PANEL_HI, 0.06)
        pad = max(rect.height // 14, 3)
        title_h = rect.height // 6
        self._text(surface, t("screen.themes", lang), Rect(rect.x + pad * 2, rect.y + pad, rect.width - 4 * pad,
                                                           title_h), int(title_h * 0.7), MUTED, align="left")
        body = Rect(rect.x + pad * 2, rect.y + pad + title_h, rect.width - 4 * pad, rect.height - title_h - 2 * pad)
        row_h = body.height // max(len(themes), 1)
        for i, th in enumerate(themes):
            r = Rect(body.x, body.y + i * row_h, body.width, row_h)
            text = th.theme or "—"
            fg = TEXT if th.current else (MUTED if th.theme else FAINT)
            self._text(surface, f"{th.round}.", Rect(r.x, r.y, r.height, r.height), int(r.height * 0.6),
                       fg, bold=th.current, align="left")
            self._text(surface, text, Rect(r.x + r.height, r.y, r.width - r.height, r.height), int(r.height * 0.6),
                       fg, bold=th.current, align="left")

    def _draw_player_points(self, surface, rect: Rect, st: Standings, cards: Cards) -> None:
        """Each player's points [§4.3], best first, and the best players of the fight and of the game."""
        lang = self.lang
        rows = list(st.players)
        colours = {c.name: hex_colour(c.colour, c.index) for c in cards.items}
        self._panel(surface, rect, PANEL, 0.04)
        pad = max(rect.width // 40, 4)
        inner = rect.inflate(-2 * pad, -2 * pad)
        line_h = max(inner.height // 16, 10)
        y = inner.y
        for title_words, who in st.best:
            title = say(title_words, lang)
            self._text(surface, title, Rect(inner.x, y, inner.width, line_h), int(line_h * 0.7), AMBER,
                       bold=True, align="left")
            y += line_h
            names = ", ".join(f"{r.name} ({r.team}) {fmt_score(r.points)}" for r in who)
            self._text(surface, names, Rect(inner.x, y, inner.width, line_h), int(line_h * 0.7), TEXT, align="left")
            y += line_h + pad // 2
        room = max((inner.bottom - y) // line_h, 0)
        for r in rows[:room]:
            rr = Rect(inner.x, y, inner.width, line_h)
            sw = line_h * 4 // 10
            pygame.draw.rect(surface, colours.get(r.team, FAINT),
                             Rect(rr.x, rr.y + (line_h - sw) // 2, sw, sw), border_radius=sw // 4)
            self._text(surface, f"{r.name} · {r.team}",
                       Rect(rr.x + sw * 2, rr.y, rr.width * 75 // 100 - sw * 2, line_h), int(line_h * 0.6), TEXT,
                       align="left")
            self._text(surface, fmt_score(r.points), Rect(rr.x + rr.width * 75 // 100, rr.y,
                                                                  rr.width * 25 // 100, line_h),
                       int(line_h * 0.62), TEXT, bold=True, align="right")
            y += line_h

    @staticmethod
    def _standings_columns(x0: int, w: int, has_won: bool, has_tb: bool) -> dict[str, tuple[int, int, str]]:
        spec = [("place", 0.14, "center"), ("team", 0.44, "left"), ("points", 0.16, "right")]
        if has_won:
            spec.append(("won", 0.14, "right"))
        if has_tb:
            spec.append(("tb", 0.12, "right"))
        total = sum(f for _, f, _ in spec)
        out = {}
        x = x0 + w * 4 // 100
        usable = w * 92 // 100
        for key, f, align in spec:
            cw = int(usable * f / total)
            out[key] = (x + (cw // 20 if key == "team" else 0), cw - cw // 10, align)
            x += cw
        return out

    # -- seats (a table whose cards are numbered) ------------------------------------------------
    def _draw_seats_main(self, surface, lay: dict, p: MainPanel) -> None:
        """The big panel over the seats: a message (the winner), the speaker's timer (the seat's
        number and name left, the number of seconds right) or the title."""
        lang = self.lang
        rect: Rect = lay["main"]
        self._panel(surface, rect, PANEL, 0.04)
        if p.kind == "message":
            self._text(surface, say(p.message, lang), rect.inflate(-rect.width // 10, 0), int(rect.height * 0.3),
                       TONE_COLOURS[p.tone], bold=True)
        elif p.kind == "timer":
            sp = p.speaker
            left = Rect(rect.x, rect.y, rect.width * 40 // 100, rect.height)
            right = Rect(left.right, rect.y, rect.width - left.width, rect.height)
            if sp is not None and sp.known:
                self._text(surface, self._countdown_label(p.timer), Rect(left.x, left.y + left.height // 10,
                                                                         left.width, left.height // 6),
                           int(left.height * 0.1), MUTED)
                self._text(surface, str(sp.number), Rect(left.x, left.y + left.height * 25 // 100,
                                                         left.width, left.height * 45 // 100),
                           int(left.height * 0.42), TEXT, bold=True)
                self._text(surface, sp.name or t("player_n", lang, n=sp.number),
                           Rect(left.x + left.width // 12, left.y + left.height * 70 // 100, left.width * 10 // 12,
                                left.height // 6), int(left.height * 0.12), TEXT)
            self._text(surface, p.timer.text, right, int(right.height * 0.9), PHASE_COLOURS[p.timer.phase], bold=True)
        else:
            self._text(surface, say(p.title, lang), rect, int(rect.height * 0.25), TEXT, bold=True)

    def _draw_seat(self, surface, rect: Rect, s) -> None:
        lang = self.lang
        gone = s.dim
        speaking = s.active
        bg = AMBER if speaking else (mix(PANEL, BG, 0.4) if gone else PANEL)
        ink = ink_on(bg) if speaking else (FAINT if gone else TEXT)
        self._panel(surface, rect, bg, 0.08)
        inner = rect.inflate(-rect.width // 12, -rect.height // 10)
        num_w = inner.width * 34 // 100
        # every seat's number at the size two digits fit («10» must not run into its name)
        num_size = self.text.fit("10", num_w * 8 // 10, int(inner.height * 0.55), True)
        self._text(surface, "" if s.number is None else str(s.number),
                   Rect(inner.x, inner.y, num_w, inner.height * 62 // 100), num_size, ink, bold=True)
        name = s.name or t("player_n", lang, n=s.number)
        gap = inner.width // 30
        self._text(surface, name, Rect(inner.x + num_w + gap, inner.y, inner.width - num_w - gap,
                                       inner.height * 62 // 100),
                   int(inner.height * 0.26), ink, bold=True, align="left")
        fouls = s.dots
        dot_r = max(inner.height // 14, 3)
        fy = inner.y + inner.height * 80 // 100
        for k in range(s.dots_of):
            cx = inner.x + dot_r + k * dot_r * 3
            filled = k < fouls
            colour = (RED if fouls >= s.alarm else AMBER) if filled else mix(bg, ink, 0.25)
            pygame.draw.circle(surface, colour, (cx, fy), dot_r, 0 if filled else max(dot_r // 3, 1))
        if s.tags:
            x = inner.x + dot_r * 13
            h = inner.height * 26 // 100
            self._tag(surface, t(s.tags[0].key, lang), x, fy - h // 2, h, TONE_COLOURS[s.tags[0].tone], inner.right - x)

    # -- overlays ----------------------------------------------------------------------------------
    def _draw_paused(self, surface, lay: dict) -> None:
        rect = lay.get("main") or lay.get("table")
        h = max(lay["header"].height * 6 // 10, 12)
        text = t("paused", self.lang).upper()
        size = int(h * 0.6)
        w = self.text.width(text, size, True) + h
        badge = Rect(rect.right - w - h // 3, rect.y + h // 3, w, h)
        self._tag(surface, text, badge.x, badge.y, badge.height, AMBER, badge.width + h)

    def _draw_flash(self, surface, flash: Mapping[str, Any], view: Mapping[str, Any]) -> None:
        lang = self.lang
        W, H = self.size
        kind = str(flash.get("kind", ""))
        tone = flash.get("tone")
        colour = TONE_COLOURS[tone] if tone in TONE_COLOURS else FLASH_COLOURS.get(kind, STEEL)
        band = Rect(0, round(H * 0.30), W, round(H * 0.40))
        pygame.draw.rect(surface, mix(colour, BG, 0.55), band.inflate(0, max(H // 60, 4)))
        pygame.draw.rect(surface, colour, band)
        ink = ink_on(colour)
        text, team = flash_words(flash, lang)
        if team:
            self._text(surface, text, Rect(band.x, band.y + band.height * 6 // 100, band.width,
                                           band.height * 56 // 100), int(band.height * 0.46), ink, bold=True)
            self._text(surface, str(team), Rect(band.x + W // 20, band.y + band.height * 62 // 100, W * 9 // 10,
                                                band.height * 32 // 100), int(band.height * 0.24), ink)
        else:
            self._text(surface, text, band.inflate(-W // 20, 0), int(band.height * 0.5), ink, bold=True)

    def _dialog(self, surface, width_pct: int, height_pct: int) -> Rect:
        """A box over the game, centred, framed in amber (the host's dialogues): its inside."""
        W, H = self.size
        rect = Rect(0, 0, W * width_pct // 100, H * height_pct // 100)
        rect.center = (W // 2, H // 2)
        radius = max(min(W, H) // 40, 4)
        pygame.draw.rect(surface, AMBER, rect.inflate(6, 6), border_radius=radius)
        pygame.draw.rect(surface, (18, 22, 36), rect, border_radius=radius)
        return rect

    def _draw_entry(self, surface, entry: Mapping[str, Any]) -> None:
        """The host's text entry (renaming a team): what to do, the text typed so far with a
        cursor, and the keys; over everything else, so the host sees each letter land."""
        rect = self._dialog(surface, 84, 40)
        pad = rect.width // 24
        inner = rect.inflate(-2 * pad, 0)
        row = rect.height // 8
        self._text(surface, str(entry.get("title", "")), Rect(inner.x, rect.y + row // 2, inner.width, row * 3 // 2),
                   int(row * 0.9), AMBER, bold=True, align="left")
        box = Rect(inner.x, rect.y + row * 5 // 2, inner.width, row * 3)
        pygame.draw.rect(surface, PANEL, box, border_radius=max(box.height // 8, 2))
        text = str(entry.get("text", ""))
        cursor_w = max(box.height // 14, 2)
        where = self._text(surface, text, Rect(box.x + pad // 2, box.y, box.width - pad - cursor_w * 2, box.height),
                           int(box.height * 0.62), TEXT, bold=True, align="left")
        x = (where.right if text else box.x + pad // 2) + cursor_w
        pygame.draw.rect(surface, AMBER, Rect(x, box.y + box.height // 6, cursor_w, box.height * 2 // 3))
        self._text(surface, str(entry.get("hint", "")), Rect(inner.x, rect.y + row * 6, inner.width, row * 3 // 2),
                   int(row * 0.7), MUTED, align="left")

    def _draw_host_link(self, surface, link: Mapping[str, Any]) -> None:
        """The host page's link and its QR code, on the host's request (the host_link key):
        dark modules on white with a quiet zone of four modules, the caption above, the
        address below."""
        rect = self._dialog(surface, 70, 90)
        cap_h = rect.height // 6
        text = str(link.get("text", ""))
        first, dot, rest = text.partition(". ")   # two lines: what it is, then the warning
        lines = [first + dot.strip(), rest] if rest else [text]
        for i, line in enumerate(lines):
            self._text(surface, line, Rect(rect.x + rect.width // 20, rect.y + cap_h // 6 + i * cap_h * 2 // 5,
                       rect.width * 9 // 10, cap_h * 2 // 5), int(cap_h * 0.24), TEXT if i == 0 else AMBER,
                       bold=i == 0)
        warning = str(link.get("warning") or "")   # the pages only open on this computer: say so
        warn_h = cap_h * 4 // 5 if warning else 0
        head, dot, tail = warning.partition(". ")   # two lines: what is wrong, then the fix
        for i, line in enumerate([head + dot.strip(), tail] if tail else [warning] if warning else []):
            self._text(surface, line, Rect(rect.x + rect.width // 40, rect.bottom - cap_h * 3 // 4 - warn_h
                       + i * warn_h // 2, rect.width * 19 // 20, warn_h // 2), int(cap_h * 0.26), RED, bold=True)
        m = link.get("qr") or []
        n = len(m) + 8
        side = min(rect.width * 8 // 10, rect.height - cap_h * 2 - warn_h) // max(n, 1) * max(n, 1)
        if m and side >= n:
            box = Rect(0, 0, side, side)
            box.center = (rect.centerx, rect.y + cap_h + (rect.height - cap_h * 2 - warn_h) // 2 + cap_h // 4)
            pygame.draw.rect(surface, (255, 255, 255), box)
            cell = side // n
            for y, row in enumerate(m):
                for x, dark in enumerate(row):
                    if dark:
                        pygame.draw.rect(surface, (0, 0, 0), Rect(box.x + (x + 4) * cell, box.y + (y + 4) * cell,
                                                                  cell, cell))
        self._text(surface, str(link.get("url", "")), Rect(rect.x, rect.bottom - cap_h * 3 // 4, rect.width,
                   cap_h // 2), int(cap_h * 0.3), AMBER)

    def _draw_help(self, surface, host_answer: str | None = None) -> None:
        lang = self.lang
        own = self.labels   # a game's own words for an action («Мафия»: a player's rename)
        W, H = self.size
        items = [(a, k) for a, k in self.keys.items() if k]
        if self.team_keys:
            names = [n for _, n in self.team_keys]
            label = ", ".join(names) if len(names) <= 6 else t("help_team_keys", lang)
            items.insert(0, (label, [k for k, _ in self.team_keys]))
        dense = len(items) > 20      # «Мафия»'s judge: some thirty keys; the title gives them room
        rect = self._dialog(surface, 94 if dense else 90, 90 if dense else 86)
        title_h = rect.height // (14 if dense else 10)
        self._text(surface, t("help_title", lang), Rect(rect.x, rect.y + title_h // 4, rect.width, title_h),
                   int(title_h * 0.7), AMBER, bold=True)
        if host_answer:   # a package's answer, for a host with no phone: only while the host holds the help up
            self._text(surface, t("pack.host.answer", lang, answer=host_answer),
                       Rect(rect.x + rect.width // 20, rect.y + title_h, rect.width * 9 // 10, title_h // 2),
                       int(title_h * 0.4), TEXT)
        if not items:
            return
        margin = rect.width // (40 if dense else 20)
        body = Rect(rect.x + margin, rect.y + title_h * 3 // 2, rect.width - 2 * margin,
                    rect.height - title_h * 2)
        cols = 1 if len(items) <= 8 or W < H else 2
        per = math.ceil(len(items) / cols)
        row_h = min(body.height // per, body.height // 6)
        gap = max(row_h // 2, 6)
        col_w = (body.width - gap * (cols - 1)) // cols
        rows = []
        for action, names in items:
            labels = list(dict.fromkeys(key_label(str(n), lang) for n in names))
            rows.append((keys_said(labels, action, lang), action_label(action, lang, own)))
        if self.team_keys:
            rows[0] = (rows[0][0], items[0][0])  # the team names, not an action
        # the text as large as a row allows (a dense list: 60 % of its height; a short one as before)
        base = min(int(row_h * 0.6), int(body.height // 6 * 0.45))
        key_size = base * 85 // 100
        # the keys' column as wide as its widest entry (at most 36 % of the column): the rest is the labels'
        key_w = min(max(self.text.width(k, key_size, True) for k, _ in rows) + row_h // 2, col_w * 36 // 100)
        label_w = col_w - key_w - row_h // 4
        # one size for the action labels; the team names row shrinks on its own
        # (not below 3/4 of the row's size: a longer label shrinks alone rather than all of them)
        label_size = max(min(self.text.fit(a, label_w, base) for _, a in rows[1 if self.team_keys else 0:] or rows),
                         base * 3 // 4)
        key_size = min(key_size, label_size)  # a long key list shrinks on its own when drawn
        for i, (keys, label) in enumerate(rows):
            c, r = divmod(i, per)
            y = body.y + r * row_h
            x = body.x + c * (col_w + gap)
            self._text(surface, keys, Rect(x, y, key_w, row_h), key_size, TEXT, bold=True, align="left")
            self._text(surface, label, Rect(x + col_w - label_w, y, label_w, row_h), label_size, MUTED,
                       align="left")
