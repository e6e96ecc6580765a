"""The web server inside ``buzzer run``: live pages for the hall, the stream and the host's phone.

It runs an asyncio loop on a thread of its own (:class:`WebServer`).  The game loop
never waits for it: the loop hands it view-model snapshots with :meth:`WebServer.publish`
(a thread-safe, non-blocking call); every viewer gets the newest snapshot, never a
backlog, and a viewer that does not take one within ``send_timeout_s`` is dropped.
A crash in the web thread is logged; the game goes on without its pages.

Endpoints (docs/web.md):

* ``GET /``, ``/overlay``, ``/host`` -- the pages (plain HTML, CSS and JS);
* ``GET /api/state`` -- the view model (the audience part; with the host's token in
  ``Authorization: Bearer ...`` the host part too);
* ``GET /api/stream`` -- a WebSocket: a full snapshot on connect, then every change with
  its ``seq``; a client that sends ``{"token": "..."}`` gets the host part as well;
* ``POST /api/host`` -- a host action (``{"host": "right"}``, the scripted session's host
  line without ``at``) with the token; it goes to the loop as a
  :class:`~controller.core.events.HostKey`, the keypad's event, through the one sink.

Security (docs/web.md, «Threat model»): read-only pages need nothing; every
state-changing request needs the host token (random per game, compared in constant
time, rotatable); POST and WebSocket requests check ``Origin`` and the ``Host`` name;
no CORS headers; a per-client rate limit on host actions and token attempts; bounded
bodies and messages; every malformed request gets a 4xx with a short message.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import mimetypes
import logging
import socket
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Awaitable, Callable, Mapping

from aiohttp import WSMsgType, web

from controller import games
from controller.games import actions
from controller.inputs.keys import program_action
from controller.screens.viewmodel import audience_only
from controller.core.events import HostKey
# these lived here; buzzer run's own process imports them from net, never aiohttp
from controller.web.net import TOKEN_BYTES, WebError, bind_socket, lan_address, local_only, new_token, ports_to_try  # noqa: F401

log = logging.getLogger(__name__)

PAGES = {"/": "audience.html", "/overlay": "overlay.html", "/host": "host.html", "/play": "play.html"}
STATIC = {"app.js": "application/javascript", "style.css": "text/css", "play.js": "application/javascript",
          "play.css": "text/css"}
PLAY_MSG_BYTES = 256
"""The largest message a phone may send on /api/play."""

def token_ok(given: str | None, token: str) -> bool:
    """Constant-time comparison of a token a client sent with the game's."""
    if not given or not token:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def _is_text(value: str) -> bool:
    """Whether ``value`` is Unicode text that UTF-8 can carry (JSON's ``"\\ud800"`` is not:
    a lone surrogate decodes into a str the journal and the pipes cannot write)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_action(data: Any) -> tuple[str, dict]:
    """A host action from the web: ``{"host": "right"}``, ``{"host": "question", "nominal": 30}``.

    Its fields are those its declaration names, of their kinds' JSON types, within their
    bounds (:func:`controller.games.actions.check`; a field of several values, a list, is
    for scripts only).  Raises ValueError with a short message on anything else."""
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object")
    action = data.get("host")
    if not isinstance(action, str) or not action or len(action) > 40 or not action.replace("_", "").isalnum():
        raise ValueError('"host" must be an action name')
    if "at" in data:
        raise ValueError('"at" is not taken from the web: the controller stamps the time')
    params = {k: v for k, v in data.items() if k != "host"}
    # the action's declaration (controller/games/actions.py): its fields, their types and bounds
    why = actions.check(games.declared_actions().get(action) or program_action(action), params)
    if why:
        raise ValueError(why)
    for k, v in params.items():
        if isinstance(v, str) and not _is_text(v):
            raise ValueError(f"{k}: not valid text (a lone UTF-16 surrogate)")
    return action, params


class RateLimit:
    """A token bucket per client address: ``rate`` per second, at most ``burst`` at once."""

    MAX_CLIENTS = 4096

    def __init__(self, rate: float, burst: int):
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, tuple[float, float]] = {}

    def exhausted(self, client: str, now: float | None = None) -> bool:
        """Whether ``client``'s bucket is empty now (nothing is taken from it)."""
        if client not in self.buckets:
            return False
        now = time.monotonic() if now is None else now
        level, at = self.buckets[client]
        return min(float(self.burst), level + (now - at) * self.rate) < 1.0

    def allow(self, client: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        level, at = self.buckets.get(client, (float(self.burst), now))
        level = min(float(self.burst), level + (now - at) * self.rate)
        if len(self.buckets) >= self.MAX_CLIENTS and client not in self.buckets:
            # forget the fullest buckets (clients that have been quiet): memory stays bounded
            for key in [k for k, (lv, _) in self.buckets.items() if lv >= self.burst - 1][: self.MAX_CLIENTS // 2]:
                del self.buckets[key]
            if len(self.buckets) >= self.MAX_CLIENTS:
                self.buckets.clear()
        if level < 1.0:
            self.buckets[client] = (level, now)
            return False
        self.buckets[client] = (level - 1.0, now)
        return True


@dataclass(eq=False)
class Viewer:
    ws: web.WebSocketResponse
    host: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    sent: Any = -1
    phone: Any = None
    """A phone joined with a team's link (:class:`controller.web.phones.Phone`): it gets the
    audience part and its own messages."""


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
        return True
    except ValueError:
        return False


class WebServer:
    """The pages and the API on a thread of their own.

    A server of other pages (the festival board's) sets :attr:`pages`, :attr:`static_files`
    and :attr:`package` (whose ``static/`` folder holds them) and keeps the rest.

    :param settings: the ``[web]`` config section
    :param lang: the game's language (the pages' texts)
    :param enqueue: the loop's sink (:meth:`controller.app.loop.Loop.enqueue`)
    :param check: ``check(action, params)`` -> a problem or None: whether the game takes the
        action now (called in the web thread; must not block)
    :param page_labels: label name -> text for the pages (from the catalogs)
    """

    pages: dict = PAGES
    static_files: dict = STATIC
    package: str = "controller.web"

    def __init__(self, settings: Mapping[str, Any], lang: str, enqueue: Callable[[Any], None],
                 check: Callable[[str, dict], str | None] | None = None,
                 page_labels: Mapping[str, str] | None = None, token: str | None = None,
                 submit: Callable[[str, dict], Awaitable[str | None]] | None = None):
        self.settings = dict(settings)
        self.submit = submit
        self.lang = lang
        self.enqueue = enqueue
        self.check = check
        self.labels = dict(page_labels or {})
        self.token = token or new_token()
        rate, burst = float(self.settings["host_rate_per_s"]), int(self.settings["host_burst"])
        self.limit = RateLimit(rate, burst)
        """The right token's own bucket (keyed by the token): the host's actions, never a guess."""
        self.failures = RateLimit(rate, burst)
        """Wrong or missing tokens, per client address and per connection (never the host's)."""
        self.port = 0
        self.bind = self.settings["bind"]
        self.viewers: set[Viewer] = set()
        self.snapshot: dict | None = None
        self._json: dict[bool, str] = {}
        self._aloop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._stopped = threading.Event()
        self.alive = False
        self.requests = 0
        self.refused = 0
        self.actions = 0
        self.hub = None
        self._release_tasks: set = set()   # presses kept for a phone's first exchange, due to be answered
        """The joined phones (:class:`controller.web.phones.Hub`), when ``[phones] enabled``."""
        self.play_base = ""
        """The pages' address as the phones open it (``http://192.168.1.23:8080``)."""
        self.phone_teams: set[str] = set()
        """The buttons of the teams with ``phone = true`` (the others press a wired button)."""
        self.tie_rule = "random"
        """``[arbiter] tie_rule``: the join tells a phone how a tie is broken (its words for it)."""
        self.on_team_token: Callable[[str, str], None] = lambda button, token: None
        """Told each team token the host page renews (the game's process keeps it)."""
        self._qr: dict[str, list[str]] = {}

    # -- the game loop's side (any thread) ---------------------------------
    def publish(self, vm: dict) -> None:
        """Hand the newest view model to the viewers; never blocks, never raises."""
        aloop = self._aloop
        if aloop is None or not self.alive:
            return
        try:
            aloop.call_soon_threadsafe(self._set_snapshot, vm)
        except RuntimeError:  # the web thread has ended
            self.alive = False

    def rotate_token(self) -> str:
        """A new host token: the old link stops working, host pages connected with it fall back
        to the audience view."""
        self.token = new_token()
        if self._aloop is not None and self.alive:
            try:
                self._aloop.call_soon_threadsafe(self._demote_hosts)
            except RuntimeError:
                pass
        return self.token

    def start(self, sock: socket.socket | None = None,
              before_serve: Callable[[asyncio.AbstractEventLoop], None] | None = None) -> None:
        """Bind (raises :class:`WebError` naming the port) and serve on a new thread; ``sock``:
        a listening socket bound already (the web process gets it from ``buzzer run``)."""
        if sock is None:
            sock = bind_socket(self.bind, int(self.settings["port"]), ports_to_try(self.settings))
        self.port = sock.getsockname()[1]
        started = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(sock, started, before_serve), name="buzzer-web",
                                        daemon=True)
        self._thread.start()
        started.wait(10)

    def stop(self) -> None:
        aloop = self._aloop
        if aloop is not None and self.alive:
            try:
                aloop.call_soon_threadsafe(self._stopped.set)
                aloop.call_soon_threadsafe(aloop.stop)
            except RuntimeError:
                pass
        if self._thread is not None:
            self._thread.join(5)

    # -- the web thread ------------------------------------------------------
    def _run(self, sock: socket.socket, started: threading.Event, before_serve=None) -> None:
        aloop = asyncio.new_event_loop()
        self._aloop = aloop
        listener = watchdog = None
        try:
            asyncio.set_event_loop(aloop)
            app = self.make_app()
            self._runner = web.AppRunner(app, access_log=None, handle_signals=False,
                                         keepalive_timeout=float(self.settings.get("idle_timeout_s", 15.0)))
            aloop.run_until_complete(self._runner.setup())
            if before_serve is not None:
                before_serve(aloop)
            listener = aloop.run_until_complete(aloop.create_server(self._protocol_factory(), sock=sock))
            watchdog = aloop.create_task(self._watch_connections())
            phones_watch = aloop.create_task(self._watch_phones())
            self.alive = True
            started.set()
            aloop.run_forever()
        except Exception:  # the pages are gone; the game goes on
            log.exception("web server stopped")
        finally:
            self.alive = False
            started.set()
            try:
                if listener is not None:
                    listener.close()
                if watchdog is not None:
                    watchdog.cancel()
                    phones_watch.cancel()
                for v in list(self.viewers):
                    aloop.run_until_complete(v.ws.close())
                if self._runner is not None:
                    aloop.run_until_complete(self._runner.cleanup())
            except Exception:
                log.debug("web server clean-up", exc_info=True)
            aloop.close()

    def _protocol_factory(self):
        """aiohttp's protocol for each new connection, or, past ``max_connections``, one that
        answers 503 and closes (the number of file descriptors stays bounded)."""
        server = self._runner.server
        limit = int(self.settings.get("max_connections", 700))
        aloop = asyncio.get_event_loop()
        pending = 0   # made by this factory, not yet in server.connections

        def seen() -> None:
            nonlocal pending
            pending -= 1

        def factory():
            nonlocal pending
            if len(server.connections) + pending >= limit:
                self.refused += 1
                return _TooMany()
            # the transport calls connection_made (which adds the handler to
            # server.connections) with call_soon after this returns; two hops run after it
            pending += 1
            aloop.call_soon(aloop.call_soon, seen)
            return server()
        return factory

    async def _watch_connections(self) -> None:
        """Close every connection that has not sent a whole request header within
        ``header_timeout_s`` of connecting (a slowloris trickling a header byte by byte; aiohttp
        itself waits for the first header as long as its keep-alive timeout). Idle keep-alive
        connections are closed by aiohttp after ``idle_timeout_s``."""
        timeout = float(self.settings.get("header_timeout_s", 10.0))
        server = self._runner.server
        first_seen: dict[int, tuple[Any, float]] = {}
        while True:
            await asyncio.sleep(min(timeout / 4, 1.0))
            now = time.monotonic()
            alive = {}
            for handler in list(server.connections):
                key = id(handler)
                seen = first_seen.get(key)
                since = seen[1] if seen is not None and seen[0] is handler else now
                alive[key] = (handler, since)
                if getattr(handler, "_request_count", 1) == 0 and now - since >= timeout:
                    handler.force_close()
                    self.refused += 1
            first_seen = alive

    def _set_snapshot(self, vm: dict) -> None:
        self.snapshot = vm
        self._json = {}
        for v in self.viewers:
            v.wake.set()

    def _demote_hosts(self) -> None:
        for v in self.viewers:
            if v.host:
                v.host = False
                v.sent = -1
                v.wake.set()

    def encoded(self, host: bool) -> str:
        """The newest snapshot as JSON: the audience part only unless ``host`` (then with the
        phones' links and their connections, ``host.phones``)."""
        key = (host, self.hub.revision if host and self.hub is not None else 0)
        text = self._json.get(key)
        if text is None:
            vm = self.snapshot or {"seq": 0, "lang": self.lang, "title": "", "audience": {}}
            vm = {k: v for k, v in vm.items() if k != "media_file"}   # a path of this machine: never sent
            if host and self.hub is not None:
                vm = dict(vm, host=dict(vm.get("host") or {}, phones=self.phones_view()))
            self._json = {k: v for k, v in self._json.items() if k[0] != host}
            text = self._json[key] = json.dumps(vm if host else audience_only(vm), ensure_ascii=False,
                                                separators=(",", ":"))
        return text

    def _viewer_key(self, viewer: Viewer) -> Any:
        """What a viewer was last sent: the snapshot's seq (and the phones' revision for a host)."""
        seq = (self.snapshot or {}).get("seq", 0)
        return (seq, self.hub.revision) if viewer.host and self.hub is not None else seq

    # -- phones (docs/web.md «/play») -------------------------------------------------
    def phones_view(self) -> dict:
        """The host page's part about phones: each team's link, its QR code, its phones."""
        hub = self.hub
        status = hub.status()
        teams = cards_by_button(self.snapshot or {})
        out = []
        for button, token in hub.tokens.items():
            url = f"{self.play_base}/play#t={token}"
            if url not in self._qr:
                from controller.web import qr
                self._qr = {u: m for u, m in self._qr.items() if u.split("#t=")[1] in hub.tokens.values()}
                self._qr[url] = ["".join("1" if c else "0" for c in row) for row in qr.matrix(url)]
            team = teams.get(button) or {}
            out.append({"button": button, "name": team.get("name", button), "color": team.get("colour"),
                        "url": url, "qr": self._qr[url], "phones": status.get(button, []),
                        # with phone teams named in the config, the others press a wired button
                        "wired": bool(self.phone_teams) and button not in self.phone_teams})
        return {"teams": out, "bound_max_ms": hub.settings["bound_max_ms"], "wait_ms": round(hub.wait / 1e6, 1),
                "exclude_over_bound": bool(hub.settings["exclude_over_bound"]),
                # the default bind: the links are 127.0.0.1's, which no phone can open (the page says so)
                "local_only": local_only(self.bind)}

    def host_request(self, request: web.Request) -> None:
        """A request that changes state: our origin and host name, and the host's token (else 403,
        429 or 401)."""
        if not self.origin_ok(request) or not self.host_name_ok(request):
            raise web.HTTPForbidden(text="foreign origin")
        refused = self.authorise(self._bearer(request), self._client(request), self._connection(request))
        if refused == "too many requests":
            raise web.HTTPTooManyRequests(text=refused)
        if refused:
            raise web.HTTPUnauthorized(text="bad or missing token")

    async def phones_action(self, request: web.Request) -> web.Response:
        """``POST /api/phones`` ``{"renew": BUTTON}`` (the host's token): a new link for that team;
        its phones are disconnected and the old link stops working."""
        self.host_request(request)
        if self.hub is None:
            raise web.HTTPNotFound(text="phones are off ([phones] enabled = false)")
        try:
            data = json.loads((await asyncio.wait_for(request.read(), 10.0)).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError, asyncio.TimeoutError):
            raise web.HTTPBadRequest(text="body is not JSON") from None
        button = data.get("renew") if isinstance(data, dict) else None
        if not isinstance(button, str) or button not in self.hub.tokens:
            raise web.HTTPBadRequest(text='"renew" must be a team\'s button')
        token = new_token()
        gone = self.hub.set_token(button, token)
        self.on_team_token(button, token)
        for v in [v for v in self.viewers if v.phone is not None and v.phone in gone]:
            await v.ws.close(code=4001, message=b"link renewed")
        self._wake_hosts()
        return web.json_response({"ok": True, "button": button}, status=200)

    def _wake_hosts(self) -> None:
        for v in self.viewers:
            if v.host:
                v.wake.set()

    async def _watch_phones(self) -> None:
        """Host pages see the phones' sync as it changes (at most once a second)."""
        seen = -1
        while True:
            await asyncio.sleep(1.0)
            if self.hub is not None and self.hub.revision != seen:
                seen = self.hub.revision
                self._wake_hosts()

    async def play(self, request: web.Request) -> web.StreamResponse:
        """``/api/play``: a phone's WebSocket.  Its first message is ``{"t": "join", "token": …}``
        (a team's token); then clock exchanges and presses (:mod:`controller.web.phones`); it
        gets the audience part as every page does, and ``{"t": "me", …}`` (its team)."""
        if not self.origin_ok(request) or not self.host_name_ok(request):
            raise web.HTTPForbidden(text="foreign origin")
        if self.hub is None and not web.WebSocketResponse().can_prepare(request).ok:
            raise web.HTTPNotFound(text="phones are off ([phones] enabled = false)")
        if len(self.viewers) >= int(self.settings["max_viewers"]):
            raise web.HTTPServiceUnavailable(text="too many viewers")
        ws = web.WebSocketResponse(max_msg_size=PLAY_MSG_BYTES, heartbeat=20, compress=False)
        await ws.prepare(request)
        client, timeout = self._client(request), float(self.settings["send_timeout_s"])
        viewer, sender = None, None
        try:
            if self.hub is None:   # a phone's page opened where phones are off: it says so
                await ws.send_str(json.dumps({"t": "error", "why": "phones off"}))
                return ws
            first = await asyncio.wait_for(ws.receive(), float(self.settings.get("header_timeout_s", 10.0)))
            data = _json_object(first.data) if first.type == WSMsgType.TEXT else None
            connection = f"connection {id(ws)}"
            if self.failures.exhausted(connection) or self.failures.exhausted(client):
                await ws.send_str(json.dumps({"t": "error", "why": "too many requests"}))
                return ws
            button = self.hub.team_of(data.get("token")) if data and data.get("t") == "join" else None
            if button is None:
                self.failures.allow(connection)
                self.failures.allow(client)
                self.refused += 1
                await ws.send_str(json.dumps({"t": "error", "why": "bad token"}))
                return ws
            phone = self.hub.join(button)
            if phone is None:
                await ws.send_str(json.dumps({"t": "error", "why": "team full"}))
                return ws
            viewer = Viewer(ws, phone=phone)
            viewer.wake.set()
            self.viewers.add(viewer)
            hs = self.hub.settings
            await ws.send_str(json.dumps({"t": "me", "button": button, "sync_interval_s": hs["sync_interval_s"],
                                          # what the page words: a tie's rule, a clock known too badly
                                          "tie_rule": self.tie_rule, "uncertain_tie": hs.get("uncertain_tie", "lot"),
                                          "bound_max_ms": hs.get("bound_max_ms"),
                                          "exclude_over_bound": bool(hs.get("exclude_over_bound"))}))
            sender = asyncio.ensure_future(self._send_loop(viewer))
            async for msg in ws:
                received = time.monotonic_ns()
                if msg.type != WSMsgType.TEXT or not self.hub.allow(phone, received):
                    break   # binary, or faster than [phones] rate_per_s: the connection ends
                data = _json_object(msg.data)
                kind = data.get("t") if data else None
                if kind == "sync":
                    reply = self.hub.sync(phone, data, received)
                    if reply is not None:
                        reply = self.hub.answered(phone, reply, time.monotonic_ns())
                elif kind == "press":
                    reply = self.hub.press(phone, data, received)
                    if reply is None:   # kept for the first clock exchange: refused when it is late
                        wait = float(self.hub.settings["first_sync_wait_s"]) + 0.01
                        asyncio.get_running_loop().call_later(wait, self._release_later, ws, phone, timeout)
                else:
                    reply = {"t": "error", "why": "unknown message"}
                if reply is not None:
                    await asyncio.wait_for(ws.send_str(json.dumps(reply)), timeout)
                await self._released(ws, phone, timeout)   # presses kept for the first exchange
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            if viewer is not None:
                self.viewers.discard(viewer)
                self.hub.leave(viewer.phone)
            if sender is not None:
                sender.cancel()
            await ws.close()
        return ws

    def _release_later(self, ws: web.WebSocketResponse, phone, timeout: float) -> None:
        task = asyncio.ensure_future(self._released(ws, phone, timeout))
        self._release_tasks.add(task)   # (a task nothing refers to may be collected before it runs)
        task.add_done_callback(self._release_tasks.discard)

    async def _released(self, ws: web.WebSocketResponse, phone, timeout: float) -> None:
        """The answers of ``phone``'s presses kept for its first clock exchange
        (:meth:`~controller.web.phones.Hub.released`): taken once it is done, refused once
        ``[phones] first_sync_wait_s`` passed without it."""
        if self.hub is None or self.hub.phones.get(phone.id) is not phone or ws.closed:
            return
        for answer in self.hub.released(phone, time.monotonic_ns()):
            try:
                await asyncio.wait_for(ws.send_str(json.dumps(answer)), timeout)
            except (asyncio.TimeoutError, ConnectionError):
                return

    # -- the application -------------------------------------------------------
    def make_app(self) -> web.Application:
        app = web.Application(client_max_size=int(self.settings["max_body_bytes"]),
                              middlewares=[self._guard])
        app.router.add_get("/", self.page)
        app.router.add_get("/overlay", self.page)
        app.router.add_get("/host", self.page)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/favicon.ico", self.favicon)
        app.router.add_get("/api/state", self.state)
        app.router.add_get("/media", self.media)
        app.router.add_get("/api/stream", self.stream)
        app.router.add_post("/api/host", self.host_action)
        if "/play" in self.pages:   # the game's pages (not the festival board's)
            app.router.add_get("/play", self.page)
            app.router.add_get("/api/play", self.play)
            app.router.add_post("/api/phones", self.phones_action)
        return app

    @web.middleware
    async def _guard(self, request: web.Request, handler):
        """Security headers on every answer; an unexpected error is a short 500, never a traceback."""
        self.requests += 1
        try:
            resp = await handler(request)
        except web.HTTPException as exc:
            if exc.status >= 400:
                self.refused += 1
            exc.headers.update(SECURITY_HEADERS)
            raise
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("web: %s %s", request.method, request.path)
            return web.Response(status=500, text="internal error", headers=SECURITY_HEADERS)
        if not resp.prepared:
            resp.headers.update(SECURITY_HEADERS)
        return resp

    def _client(self, request: web.Request) -> str:
        return request.remote or "?"

    def _connection(self, request: web.Request) -> str:
        return f"connection {id(request.transport)}"

    def authorise(self, given: str | None, client: str, connection: str) -> str | None:
        """None when ``given`` is the host token (and the host's own bucket has room), else the
        refusal: ``"bad token"`` (401) or ``"too many requests"`` (429).

        Wrong tokens fill buckets of their own, per client address and per connection, so a
        flood of guesses from the hall's one NAT address never gets the real host's taps
        refused; a connection whose failures are used up is refused without a comparison.
        The right token is limited only by its own bucket (docs/web.md, «Threat model»)."""
        if self.failures.exhausted(connection):
            return "too many requests"
        if token_ok(given, self.token):
            return None if self.limit.allow("host") else "too many requests"
        conn_ok = self.failures.allow(connection)
        addr_ok = self.failures.allow(client)
        return "bad token" if conn_ok and addr_ok else "too many requests"

    def host_name_ok(self, request: web.Request) -> bool:
        """The ``Host`` name a browser used is an IP address, localhost or a configured name
        (a DNS-rebinding page never gets a name of its own through)."""
        name = (request.host or "").rsplit(":", 1)[0] if not request.host.startswith("[") else request.host
        name = name.split("]")[0].strip("[").lower()
        return _is_ip(name) or name == "localhost" or name in [h.lower() for h in self.settings.get("hosts", [])]

    def origin_ok(self, request: web.Request) -> bool:
        """A request from a page: that page is one of ours (same scheme, host and port)."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not sent by a page (curl, a script): the token still decides
        return origin == f"{request.scheme}://{request.host}"

    def _bearer(self, request: web.Request) -> str | None:
        auth = request.headers.get("Authorization", "")
        if not auth:
            return None
        scheme, _, value = auth.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else ""

    async def page(self, request: web.Request) -> web.Response:
        html = _read(self.package, self.pages[request.path])
        html = (html.replace("__LANG__", self.lang)
                .replace("__LABELS__", json.dumps(self.labels, ensure_ascii=False).replace("</", "<\\/")))
        return web.Response(text=html, content_type="text/html", charset="utf-8")

    async def favicon(self, request: web.Request) -> web.Response:
        """``/favicon.ico``, which every browser asks for: nothing (204) -- no 404 in the page's
        console, no refusal counted."""
        return web.Response(status=204)

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self.static_files:
            raise web.HTTPNotFound(text="no such file")
        return web.Response(text=_read(self.package, name), content_type=self.static_files[name], charset="utf-8")

    async def media(self, request: web.Request) -> web.StreamResponse:
        """``GET /media?m=MEMBER``: a picture, video or HTML page of the package, streamed from
        the archive -- only one the audience is being shown now (the question's content, its
        answer's once ruled): nothing of a question reaches a page before the projector shows it.
        A package's HTML page is sandboxed (no script of ours, no cookies, no host token).

        One range of bytes (``Range: bytes=a-b``, ``a-``, ``-n``) is answered with 206 and just
        those bytes, as a browser asks to seek a video (and Safari to play one at all); a range
        past the end is a 416; any other ``Range`` (several ranges, another unit, ``If-Range``:
        we give no validator it could match) gets the whole file.  Read a chunk at a time
        (:meth:`controller.content.siq._Archive.open_from`), never held whole."""
        vm = self.snapshot or {}
        member = request.query.get("m", "")
        path = vm.get("media_file") or ""
        if not member or not path or member not in shown_members(vm):
            raise web.HTTPNotFound(text="not shown now")
        from controller.content import siq
        aloop = asyncio.get_running_loop()
        try:
            archive = await aloop.run_in_executor(None, siq._Archive, path, siq.Limits())
        except siq.PackageError:
            raise web.HTTPNotFound(text="no package") from None
        try:
            info = archive.find(member)
            if info is None or info.is_dir():
                raise web.HTTPNotFound(text="not in the package")
            size = info.file_size
            wanted = None if "If-Range" in request.headers else byte_range(request.headers.get("Range"), size)
            if wanted is False:
                raise web.HTTPRequestRangeNotSatisfiable(text="range not satisfiable",
                                                         headers={"Content-Range": f"bytes */{size}"})
            first, last = wanted or (0, size - 1)
            kind = mimetypes.guess_type(member)[0] or "application/octet-stream"
            resp = web.StreamResponse(status=206 if wanted else 200,
                                      headers={"Content-Type": kind, "Cache-Control": "no-store",
                                               "Accept-Ranges": "bytes", "X-Content-Type-Options": "nosniff"})
            if wanted:
                resp.headers["Content-Range"] = f"bytes {first}-{last}/{size}"
            if kind.startswith("text/html"):
                resp.headers["Content-Security-Policy"] = "sandbox allow-scripts"
            length = last - first + 1 if size else 0
            resp.content_length = length
            f = await aloop.run_in_executor(None, archive.open_from, info, first)
            try:
                await resp.prepare(request)
                sent = 0
                while sent < length:
                    chunk = await aloop.run_in_executor(None, f.read, min(256 * 1024, length - sent))
                    if not chunk:
                        break
                    sent += len(chunk)
                    await resp.write(chunk)
            finally:
                f.close()
            await resp.write_eof()
            return resp
        finally:
            archive.zip.close()

    async def state(self, request: web.Request) -> web.Response:
        given = self._bearer(request)
        host = False
        if given is not None:
            refused = self.authorise(given, self._client(request), self._connection(request))
            if refused == "too many requests":
                raise web.HTTPTooManyRequests(text=refused)
            if refused:
                raise web.HTTPUnauthorized(text=refused)
            host = True
        return web.Response(text=self.encoded(host), content_type="application/json", charset="utf-8")

    async def host_action(self, request: web.Request) -> web.Response:
        self.host_request(request)
        if request.content_length is not None and request.content_length > int(self.settings["max_body_bytes"]):
            raise web.HTTPRequestEntityTooLarge(max_size=int(self.settings["max_body_bytes"]),
                                                actual_size=request.content_length, text="body too large")
        try:
            body = await asyncio.wait_for(request.read(), float(self.settings.get("header_timeout_s", 10.0)))
        except asyncio.TimeoutError:
            raise web.HTTPRequestTimeout(text="body too slow") from None
        except web.HTTPRequestEntityTooLarge:
            raise web.HTTPRequestEntityTooLarge(max_size=int(self.settings["max_body_bytes"]),
                                                actual_size=0, text="body too large") from None
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise web.HTTPBadRequest(text="body is not JSON") from None
        try:
            action, params = parse_action(data)
        except ValueError as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None
        if self.submit is not None:
            # the web process: the game's process checks the action and enqueues it
            problem = await self.submit(action, params)
            if problem:
                raise web.HTTPUnprocessableEntity(text=problem)
        else:
            problem = self.check(action, params) if self.check is not None else None
            if problem:
                raise web.HTTPUnprocessableEntity(text=problem)
            self.enqueue(HostKey(action, params, confirmed=True))   # the page asked for its second tap
        self.actions += 1
        seq = (self.snapshot or {}).get("seq", 0)
        return web.json_response({"ok": True, "action": action, "seq": seq}, status=202)

    async def stream(self, request: web.Request) -> web.StreamResponse:
        if not self.origin_ok(request) or not self.host_name_ok(request):
            raise web.HTTPForbidden(text="foreign origin")
        if len(self.viewers) >= int(self.settings["max_viewers"]):
            raise web.HTTPServiceUnavailable(text="too many viewers")
        ws = web.WebSocketResponse(max_msg_size=1024, heartbeat=20, compress=False)
        await ws.prepare(request)
        viewer = Viewer(ws)
        viewer.wake.set()  # the full snapshot at once
        self.viewers.add(viewer)
        sender = asyncio.ensure_future(self._send_loop(viewer))
        client = self._client(request)
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    break
                reply = self._viewer_message(viewer, msg.data, client)
                if reply is not None:
                    await asyncio.wait_for(ws.send_str(reply), float(self.settings["send_timeout_s"]))
        except (asyncio.TimeoutError, ConnectionError):
            pass
        finally:
            self.viewers.discard(viewer)
            sender.cancel()
            await ws.close()
        return ws

    def _viewer_message(self, viewer: Viewer, text: str, client: str) -> str | None:
        """A viewer's message: only ``{"token": "..."}`` (the host page) means something."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            self.refused += 1
            return json.dumps({"error": "not JSON"})
        if not isinstance(data, dict) or not isinstance(data.get("token"), str):
            self.refused += 1
            return json.dumps({"error": "expected {\"token\": ...}"})
        refused = self.authorise(data["token"], client, f"connection {id(viewer)}")
        if refused:
            self.refused += 1
            return json.dumps({"error": refused})
        viewer.host = True
        viewer.sent = -1
        viewer.wake.set()
        return None

    async def _send_loop(self, viewer: Viewer) -> None:
        """Send the viewer the newest snapshot whenever there is one; a viewer that does not
        take it within ``send_timeout_s`` is dropped (it never holds the others up)."""
        timeout = float(self.settings["send_timeout_s"])
        try:
            while True:
                await viewer.wake.wait()
                viewer.wake.clear()
                seq = self._viewer_key(viewer)
                if seq == viewer.sent and viewer.sent != -1:
                    continue
                text = self.encoded(viewer.host)
                viewer.sent = seq
                await asyncio.wait_for(viewer.ws.send_str(text), timeout)
        except (asyncio.TimeoutError, ConnectionError, RuntimeError):
            self.viewers.discard(viewer)
            await viewer.ws.close()
        except asyncio.CancelledError:
            pass


class _TooMany(asyncio.Protocol):
    """A connection past ``max_connections``: a short 503, then closed."""

    def connection_made(self, transport) -> None:
        body = b"too many connections"
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
        transport.close()


SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
                               "style-src 'self'; script-src 'self'; frame-ancestors 'none'",
}

_CACHE: dict[tuple[str, str], str] = {}


def byte_range(header: str | None, size: int) -> tuple[int, int] | None | bool:
    """The one range of bytes a ``Range`` header asks of a file of ``size`` bytes: (first, last),
    both included; None: the whole file (no header, or not one range of bytes: RFC 9110 lets a
    server ignore those); False: the range starts past the end (416)."""
    if not header:
        return None
    unit, sep, spec = header.partition("=")
    if not sep or unit.strip().lower() != "bytes" or "," in spec:
        return None
    first_s, sep, last_s = spec.strip().partition("-")
    first_s, last_s = first_s.strip(), last_s.strip()
    if not sep or not (first_s or last_s) or any(x and (not x.isdigit() or len(x) > 18) for x in (first_s, last_s)) \
            or not (first_s.isascii() and last_s.isascii()):
        return None
    if not first_s:                     # the last n bytes
        n = int(last_s)
        return (max(size - n, 0), size - 1) if n > 0 and size > 0 else False
    first = int(first_s)
    if last_s and int(last_s) < first:
        return None                     # not a range (RFC 9110: ignored)
    if first >= size:
        return False
    return first, min(int(last_s), size - 1) if last_s else size - 1


def cards_by_button(vm: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The cards of the audience's screen model in ``vm`` (``audience.screen.cards``) by their
    button: what the host page's phones part names each team's link by (its name, its colour)."""
    items = (((vm.get("audience") or {}).get("screen") or {}).get("cards") or {}).get("items") or ()
    return {c["button"]: c for c in items if isinstance(c, dict) and c.get("button") is not None}


def shown_members(vm: Mapping[str, Any]) -> set[str]:
    """The package members the audience part of ``vm`` shows now (``/media`` serves only these)."""
    game = ((vm.get("audience") or {}).get("game") or {})
    q = (game.get("pack") or {}).get("question") or {}
    if not q.get("live"):
        return set()
    found = set()
    for part in (q, q.get("answer") or {}):
        for m in part.get("items") or ():
            if m.get("member"):
                found.add(m["member"])
    for o in q.get("options") or ():
        found.update(m["member"] for m in o.get("media") or () if m.get("member"))
    return found


def _json_object(text: Any) -> dict | None:
    """A phone's message as a JSON object, or None."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _read(package: str, name: str) -> str:
    """A page file from ``package``'s ``static/`` folder (read once)."""
    key = (package, name)
    if key not in _CACHE:
        _CACHE[key] = resources.files(package).joinpath("static", name).read_text(encoding="utf-8")
    return _CACHE[key]
