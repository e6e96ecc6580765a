"""The festival board on a web page: ``buzzer festival`` serves ``/`` (read-only).

The web server of the live pages (:class:`controller.web.server.WebServer`: aiohttp on
a thread of its own, every viewer gets the newest snapshot, a slow one is dropped,
bounded messages, security headers, the ``Host`` and ``Origin`` checks on the
WebSocket) with the board's routes only:

* ``GET /`` -- the page (plain HTML, CSS and JS, no inline script);
* ``GET /api/state`` -- the board as JSON (:func:`snapshot`), with its ``seq``;
* ``GET /api/stream`` -- a WebSocket: the board on connect, then every change.

Nothing on this server changes anything: there is no POST route and no token, a
message a page sends on the socket is answered with an error.  It listens on
``[festival] web_bind`` (127.0.0.1 unless configured), port ``[festival] web_port``
(0: no page); the other limits are the ``[web]`` section's.  No CORS headers.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from aiohttp import web

from controller.festival import board
from controller.i18n import t
from controller.screens.common import mode_title
from controller.web.server import WebServer

log = logging.getLogger(__name__)

STATIC = {"board.js": "application/javascript", "board.css": "text/css"}
LABELS = ("board_title", "board_no_games", "board_more", "board_less")


def settings_of(cfg: dict) -> dict:
    """The server's settings: the ``[web]`` section's limits, the festival's address."""
    fest = cfg["festival"]
    return {**cfg["web"], "bind": fest["web_bind"], "port": fest["web_port"]}


def snapshot(halls: list[dict], schedule: list[dict], lang: str, connected: bool, problem: str | None,
             festival=None) -> dict:
    """What the page shows: one card per hall (the lines the pygame board draws, and the
    values they come from: mode, state, question, leader, the table's rows as ``standings``,
    each with its ``rank`` in :func:`controller.festival.board.keep_order`: a card with room for
    ``k`` rows but not for all shows those of rank below ``k - 1`` and «ещё N»)."""
    out = []
    for card in board.cards(halls, schedule):
        h = card.get("headline") or {}
        leader = h.get("leader")
        rows = board.table_rows(card)
        rank = {i: k for k, i in enumerate(board.keep_order(rows))}
        out.append({
            "hall": card["hall"], "competition": card["competition"], "game": card["game"],
            "mode": card["mode"], "mode_title": mode_title(card["mode"], lang) if card["mode"] else "",
            "finished": bool(card["finished"]), "online": card.get("online"),
            "question": h.get("question"), "leader": leader,
            "standings": [dict(_row_json(row, lang), rank=rank[i]) for i, row in enumerate(rows)],
            "lines": [{"text": text, "colour": colour} for text, colour in board.card_lines(card, lang)],
        })
    refused = dict(festival.refused) if festival is not None else {}
    return {"lang": lang, "title": t("board_title", lang), "connected": bool(connected),
            "problem": problem or "", "cards": out,
            "refused": {"count": sum(refused.values()), "reasons": refused,
                        "text": board.refused_line(festival, lang) if festival is not None else ""}}


def _row_json(row: dict, lang: str) -> dict:
    """A table row for the page: its place, name and points as text, its tags in words."""
    place, name, points, _ = board.row_words(row, lang)
    return {"place": place, "name": name, "points": points,
            "tags": [w for w in (board.tag_words(tag, lang) for tag in row.get("tags") or ()) if w]}


class BoardServer(WebServer):
    """The live pages' server with the board's read-only routes."""

    pages = {"/": "board.html"}
    static_files = STATIC
    package = "controller.festival"

    def __init__(self, cfg: dict):
        lang = cfg["language"]
        super().__init__(settings_of(cfg), lang, enqueue=lambda event: None,
                         page_labels={k: t(k, lang) for k in LABELS})

    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=int(self.settings["max_body_bytes"]), middlewares=[self._guard])
        app.router.add_get("/", self.page)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/api/state", self.state)
        app.router.add_get("/api/stream", self.stream)
        return app

    async def state(self, request: web.Request) -> web.Response:
        return web.Response(text=self.encoded(False), content_type="application/json", charset="utf-8")

    def encoded(self, host: bool) -> str:
        text = self._json.get(False)
        if text is None:
            vm = self.snapshot or {"seq": 0, "lang": self.lang, "title": "", "cards": []}
            text = self._json[False] = json.dumps(vm, ensure_ascii=False, separators=(",", ":"))
        return text

    def _viewer_message(self, viewer, text: str, client: str) -> str | None:
        self.refused += 1
        return json.dumps({"error": "read-only"})


class BoardPage:
    """Hands the board to the server when it changed (the board's own thread)."""

    def __init__(self, server: BoardServer, schedule: list[dict], lang: str):
        self.server = server
        self.schedule = schedule
        self.lang = lang
        self.seq = 0
        self._body: dict | None = None
        self._failed = False

    def url(self) -> str:
        from controller.web.attach import base_url
        return base_url(self.server) + "/"

    def update(self, listener: Any) -> None:
        try:
            body = snapshot(listener.festival.halls(), self.schedule, self.lang, listener.connected,
                            listener.problem, listener.festival)
            if body == self._body:
                return
            self._body = body
            self.seq += 1
            self.server.publish({**body, "seq": self.seq})
        except Exception:
            if not self._failed:
                log.exception("festival: the board's page stops updating")
            self._failed = True


def start(cfg: dict, out) -> BoardPage | None:
    """Serve the board's page (``[festival] web_port`` not 0); None when off or the port is
    taken (one line says why)."""
    lang = cfg["language"]
    if not cfg["festival"]["web_port"]:
        return None
    server = BoardServer(cfg)
    try:
        server.start()
    except Exception as exc:   # WebError: the port is taken
        print(t("web_unavailable", lang, problem=str(exc)), file=out, flush=True)
        return None
    page = BoardPage(server, cfg["festival"]["schedule"], lang)
    print(t("board_web", lang, url=page.url()), file=out, flush=True)
    return page


