"""``buzzer festival``: the organisers' board -- every hall live, every competition's standings.

One card per hall (and per scheduled hall that has not started): the competition,
the game's stage, its current question, its leader; under it that game's table
(:func:`controller.festival.link.table_of`: rows of a place, a name, points and tags,
built from the game's screen model, whatever the game).  The board draws those rows
and the values every game's summary already has (``questions``, ``stage``: see
:func:`controller.festival.link.headline`), never one game's own fields; a hall older
than the table is read through :func:`rows_of_older_hall`.

``--headless`` prints the same as text whenever it changes.  The same cards are
served as a read-only web page (:mod:`controller.festival.web`, ``[festival] web_port``).
"""

from __future__ import annotations

import os
import sys
import time

from controller import i18n
from controller.i18n import t
from controller.screens.common import display_available, mode_title

BG = (16, 20, 28)
CARD = (30, 36, 48)
TEXT = (236, 238, 242)
MUTED = (150, 158, 172)
GREEN = (76, 175, 80)
RED = (229, 57, 53)
AMBER = (255, 179, 0)
CARD_LINES = 11
"""A card's line is this share of its height (its four head lines, six rows and its margins)."""
READABLE_ROW_PX = 23
"""A table row on the window is never drawn smaller than this (its text about 14 px), nor smaller
than 3/4 of the card's line: rather than shrink further, the card leaves rows out (:func:`shown_rows`)."""


def cards(halls: list[dict], schedule: list[dict]) -> list[dict]:
    """The board's cards: every hall that published, then every scheduled one that did not."""
    out = list(halls)
    seen = {(h["competition"], h["hall"]) for h in halls}
    for item in schedule:
        if (item["competition"], item["hall"]) not in seen:
            out.append({"competition": item["competition"], "hall": item["hall"], "game": None, "mode": "",
                        "finished": False, "headline": {}, "standings": [], "table": None, "online": None,
                        "time": item.get("time", "")})
            seen.add((item["competition"], item["hall"]))
    return out


OLDER_HALL_SEAT_TAGS = {"in_game": "seat_in_game", "silenced": "silenced", "removed": "removed", "out": "out"}
"""A hall older than the table publishes a table of seats as its standings, each seat with its
``status``: the status -> the catalog key of its words («В игре», «Без речи», «Выбыл»)."""


def rows_of_older_hall(standings: list) -> list[dict]:
    """The table rows (as :func:`controller.festival.link.table_of` gives them) of a hall older than
    the table, from the standings it published: a team's place (its label when shared), name and
    points; a seat's number, name and status (:data:`OLDER_HALL_SEAT_TAGS`) as its tag."""
    rows = []
    for row in standings:
        if not isinstance(row, dict):
            continue
        status = row.get("status")
        key = OLDER_HALL_SEAT_TAGS.get(status) if isinstance(status, str) else None
        tags = [{"key": key or "", "tone": "", "text": "" if key else str(status)}] \
            if "points" not in row and "total" not in row and status is not None else []
        rows.append({"place": row.get("place_label", row.get("place", row.get("seat", ""))),
                     "name": row.get("team", row.get("name", "")),
                     "points": row.get("points", row.get("total")), "tags": tags})
    return rows


def table_rows(card: dict) -> list[dict]:
    """A card's table rows: the hall's table (:meth:`controller.festival.results.Game.table`), or
    those of an older hall's standings (:func:`rows_of_older_hall`)."""
    table = card.get("table")
    if isinstance(table, dict):
        return table["rows"]
    return rows_of_older_hall(card.get("standings") or [])


def keep_order(rows: list[dict]) -> list[int]:
    """The order in which a card too small for its whole table keeps its rows (their indices):
    the leader (the first row), then every row with a tag (a tag is news: a warning, an
    elimination), then the others by place.  Whatever the game: it reads the rows alone."""
    tagged = [i for i, row in enumerate(rows) if i and row.get("tags")]
    rest = [i for i, row in enumerate(rows) if i and not row.get("tags")]
    return ([0] if rows else []) + tagged + rest


def shown_rows(rows: list[dict], room: int | None) -> tuple[list[dict], int]:
    """The rows a card with ``room`` lines for its table shows (in table order) and how many it
    leaves out: every row when they fit (``room`` None: no limit), else the first ``room - 1`` of
    :func:`keep_order`, the last line saying «ещё N» (:func:`more_line`)."""
    if room is None or len(rows) <= room:
        return list(rows), 0
    kept = sorted(keep_order(rows)[:max(room - 1, 0)])
    return [rows[i] for i in kept], len(rows) - len(kept)


def more_line(n: int, lang: str) -> str:
    """«ещё 5»: the line of a card under the rows it left out."""
    return f"{'':>3}  " + t("board_more", lang, n=n)


def tag_words(tag: dict, lang: str) -> str:
    """A tag in ``lang`` when the board's catalog knows its key, else as the hall wrote it."""
    key = tag.get("key") or ""
    return t(key, lang) if key and i18n.has(key) else str(tag.get("text") or key)


def row_words(row: dict, lang: str) -> tuple[str, str, str, str]:
    """A table row as text: (place, name, points, tags); "" for what it has not (a seat's points)."""
    def text(value) -> str:
        return "" if value is None else str(value)

    return (text(row.get("place")), text(row.get("name")), text(row.get("points")),
            ", ".join(w for w in (tag_words(tag, lang) for tag in row.get("tags") or ()) if w))


def row_line(row: dict, lang: str) -> str:
    """«  1  Дельта  30», «  7  Жанна  Без речи»: the board's line of a row."""
    place, name, points, tags = row_words(row, lang)
    return f"{place:>3}  " + "  ".join(x for x in (name, points, tags) if x)


def question_words(q: dict, lang: str) -> str:
    """The current question as the host would say it: «Тур 2, вопрос 5», «Перестрелка, вопрос 2»,
    «Вопрос 3»; the game's own label («s2», «2.5») only when the headline has nothing better."""
    number = q.get("number")
    if q.get("shootout") and number is not None:
        return t("board_question_shootout", lang, n=number)
    if q.get("tour") is not None and q.get("in_tour") is not None:
        return t("board_question_tour", lang, tour=q["tour"], n=q["in_tour"])
    label = q.get("label", number)
    return t("board_question", lang, question=label) if label is not None else ""


def competition_words(name: str, lang: str) -> str:
    """A competition as the board names it: a hall that gave none publishes under its game's
    mode (``erudite``, ``chgk``): that is the game's title («Эрудит-квартет»), not the id."""
    from controller import games

    return mode_title(name, lang) if name in games.names() else str(name)


def card_lines(card: dict, lang: str, room: int | None = None) -> list[tuple[str, str]]:
    """A card as (text, colour name) lines: the text board and the window draw the same.
    ``room``: lines for the table's rows (None: every row, as the text board and ``buzzer
    festival results`` print them); rows left out are said in the last line (:func:`shown_rows`)."""
    return head_lines(card, lang) + row_lines(card, lang, room)


def row_lines(card: dict, lang: str, room: int | None = None) -> list[tuple[str, str]]:
    """The card's table as lines, at most ``room`` of them (:func:`shown_rows`)."""
    if card["game"] is None:
        return []
    rows, left_out = shown_rows(table_rows(card), room)
    lines = [(row_line(row, lang), "muted") for row in rows]
    if left_out:
        lines.append((more_line(left_out, lang), "muted"))
    return lines


def head_lines(card: dict, lang: str) -> list[tuple[str, str]]:
    """The card's lines above its table: the hall and competition, the game and its state, the
    question, the leader."""
    head = f"{card['hall']} · {competition_words(card['competition'], lang)}"
    if card["game"] is None:
        state = t("board_waiting", lang) + (f" ({card['time']})" if card.get("time") else "")
        return [(head, "text"), (state, "muted")]
    lines = [(head, "text")]
    state = t("board_finished" if card["finished"] else "board_playing", lang)
    colour = "green" if card["finished"] else "amber"
    if card.get("online") is False and not card["finished"]:
        state, colour = t("board_offline", lang), "red"
    lines.append((f"{mode_title(card['mode'], lang)} · {state}", colour))
    h = card["headline"]
    q = h.get("question") or {}
    words = question_words(q, lang)
    if words:
        extra = " · ".join(str(q[k]) for k in ("theme", "nominal") if q.get(k) not in (None, ""))
        lines.append((words + (f" · {extra}" if extra else ""), "muted"))
    if "leader" in h:
        lines.append((t("board_leader", lang, name=h["leader"]["name"], points=h["leader"]["points"]), "text"))
    return lines


def row_fit(rows: int, space: int, line_h: int) -> tuple[int, int | None]:
    """(row height, room) for ``rows`` table rows in ``space`` px of a card whose line is
    ``line_h``: the card's line when they all fit; else rows as small as it takes, but not below
    :data:`READABLE_ROW_PX` nor 3/4 of the line, and the room of lines they have at that height
    (:func:`shown_rows` leaves the rest out)."""
    if rows * line_h <= space:
        return line_h, None
    smallest = min(line_h, max(line_h * 3 // 4, READABLE_ROW_PX))
    row_h = max(smallest, space // max(rows, 1))
    return row_h, None if rows * row_h <= space else max(space // row_h, 1)


def reasons_words(refused, lang: str) -> str:
    """«без подписи: 3, неверная подпись: 1»: the refusals by reason, the most first."""
    return ", ".join(f"{t('festival.refused.' + reason, lang)}: {n}" for reason, n in refused.most_common())


def refused_line(festival, lang: str) -> str:
    """The board's line on what it refused («Отклонено сообщений: 4 (без подписи: 4)»), "" if nothing."""
    n = sum(festival.refused.values())
    return t("board_refused", lang, n=n, reasons=reasons_words(festival.refused, lang)) if n else ""


class RefusalLog:
    """The board's log of what it refused: a line on stderr when the count grew, at most every
    ``every_s`` seconds (a flood of forged messages is a few lines, never one per message)."""

    def __init__(self, lang: str, out=None, every_s: float = 5.0):
        self.lang = lang
        self.out = out
        self.every_s = every_s
        self.said = 0
        self.at = -1e9

    def check(self, festival) -> None:
        n = sum(festival.refused.values())
        now = time.monotonic()
        if n <= self.said or now - self.at < self.every_s:
            return
        reason, hall, topic = festival.last_refused or ("", "", "")
        line = t("festival.refused_log", self.lang, n=n, reasons=reasons_words(festival.refused, self.lang),
                 hall=hall, topic=topic[:120])
        print(f"buzzer: {line}", file=self.out or sys.stderr, flush=True)
        self.said, self.at = n, now


def text_board(halls: list[dict], schedule: list[dict], lang: str, refused: str = "") -> str:
    all_cards = cards(halls, schedule)
    tail = f"{refused}\n" if refused else ""
    if not all_cards:
        return t("board_no_games", lang) + "\n" + tail
    return "\n".join("\n".join(text for text, _ in card_lines(c, lang)) + "\n" for c in all_cards) + tail


class BoardScreen:
    """Draws the board on a pygame surface."""

    def __init__(self, surface, lang: str):
        from controller.sdl import pygame

        from controller.screens.textcache import TextCache

        self.pygame = pygame
        self.surface = surface
        self.lang = lang
        self.text = TextCache()
        self.drawn: list[tuple[str, int, int, int, tuple]] = []
        """What the last :meth:`draw` put on the surface: (text, x, y, size, colour) per line."""

    def _put(self, text: str, x: int, y: int, size: int, colour, width: int) -> None:
        size = self.text.fit(text, width, size)
        self.surface.blit(self.text.render(text, size, colour), (x, y))
        self.drawn.append((text, x, y, size, colour))

    def draw(self, halls: list[dict], schedule: list[dict], connected: bool, problem: str,
             refused: str = "") -> None:
        pygame = self.pygame
        s = self.surface
        w, h = s.get_size()
        s.fill(BG)
        self.drawn = []
        top = h // 12
        self._put(t("board_title", self.lang), w // 40, top // 5, top * 3 // 5, TEXT, w // 2)
        status = problem or ("" if connected else "…")
        if status:
            self._put(status, w // 2, top // 6, top // 3, RED, w // 2 - w // 40)
        if refused:
            self._put(refused, w // 2, top // 2, top // 3, AMBER, w // 2 - w // 40)
        all_cards = cards(halls, schedule)
        if not all_cards:
            self._put(t("board_no_games", self.lang), w // 40, top * 2, top // 2, MUTED, w - w // 20)
            return
        cols = 1 if len(all_cards) == 1 else 2 if len(all_cards) <= 4 else 3
        rows = (len(all_cards) + cols - 1) // cols
        gap = max(w // 80, 4)
        cw = (w - gap * (cols + 1)) // cols
        ch = (h - top - gap * (rows + 1)) // rows
        palette = {"text": TEXT, "muted": MUTED, "green": GREEN, "red": RED, "amber": AMBER}
        for i, card in enumerate(all_cards):
            x = gap + (i % cols) * (cw + gap)
            y = top + gap + (i // cols) * (ch + gap)
            pygame.draw.rect(s, CARD, (x, y, cw, ch), border_radius=max(gap // 2, 2))
            line_h = max(ch // CARD_LINES, 10)   # the same in every card
            head = head_lines(card, self.lang)
            for k, (text, colour) in enumerate(head):
                size = int(line_h * (0.8 if k == 0 else 0.62))
                self._put(text, x + gap, y + gap // 2 + k * line_h, size, palette[colour], cw - 2 * gap)
            top_rows = y + gap // 2 + len(head) * line_h
            row_h, room = row_fit(len(table_rows(card)) if card["game"] is not None else 0,
                                  y + ch - gap // 2 - top_rows, line_h)
            for k, (text, colour) in enumerate(row_lines(card, self.lang, room)):
                self._put(text, x + gap, top_rows + k * row_h, int(row_h * 0.62), palette[colour], cw - 2 * gap)


def run(args, cfg: dict, listener, page=None) -> int:
    """The board until the window is closed (or ``--seconds`` passed); ``--headless``: text.
    ``page`` (:class:`controller.festival.web.BoardPage`) gets the board after every pump."""
    lang = cfg["language"]
    schedule = cfg["festival"]["schedule"]
    listener.start()
    end = time.monotonic() + args.seconds if args.seconds else None
    try:
        if args.headless or (not display_available() and not getattr(args, "png", None)):
            if not args.headless:   # as buzzer run does: no screen, the board as text
                print(t("festival.no_display", lang), file=sys.stderr, flush=True)
            return _run_text(listener, schedule, lang, end, page)
        return _run_window(args, cfg, listener, schedule, lang, end, page)
    finally:
        listener.close()


def _run_text(listener, schedule, lang: str, end: float | None, page=None) -> int:
    shown = None
    problem = None
    refusals = RefusalLog(lang)
    while end is None or time.monotonic() < end:
        listener.pump(0.2)
        refusals.check(listener.festival)
        if page is not None:
            page.update(listener)
        if listener.problem != problem:
            problem = listener.problem
            if problem:
                print(f"buzzer: festival: {problem}", file=sys.stderr, flush=True)
        text = text_board(listener.festival.halls(), schedule, lang, refused_line(listener.festival, lang))
        if text != shown:
            shown = text
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
    return 0


def _run_window(args, cfg: dict, listener, schedule, lang: str, end: float | None, page=None) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from controller.sdl import pygame

    pygame.display.init()
    pygame.font.init()
    display = cfg["display"]
    flags = pygame.FULLSCREEN if getattr(args, "fullscreen", False) or display["fullscreen"] else 0
    size = (0, 0) if flags else (display["width"], display["height"])
    surface = pygame.display.set_mode(size, flags)
    pygame.display.set_caption(t("board_title", lang))
    screen = BoardScreen(surface, lang)
    running = True
    refusals = RefusalLog(lang)
    try:
        while running and (end is None or time.monotonic() < end):
            listener.pump(0.1)
            refusals.check(listener.festival)
            if page is not None:
                page.update(listener)
            for ev in pygame.event.get():
                if ev.type == pygame.QUIT or (ev.type == pygame.KEYDOWN and ev.key == pygame.K_ESCAPE):
                    running = False
            if listener.festival.changed:
                listener.festival.changed = False
                screen.draw(listener.festival.halls(), schedule, listener.connected, listener.problem,
                            refused_line(listener.festival, lang))
                pygame.display.flip()
        if getattr(args, "png", None):
            screen.draw(listener.festival.halls(), schedule, listener.connected, listener.problem,
                        refused_line(listener.festival, lang))
            pygame.image.save(surface, args.png)
    finally:
        pygame.display.quit()
    return 0
