"""Real Debian Chromium, headless, driven over the Chrome DevTools Protocol with aiohttp's
WebSocket client (no driver, no extra dependency); and a real ``buzzer run`` to point it at.

Used by tests/test_web_browser.py and benchmarks/web.py.  Processes are started and stopped
by their pid.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import urllib.request
import sys
import time
from pathlib import Path
from urllib.parse import quote

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
BUZZER = Path(sys.executable).parent / "buzzer"

WAIT_S = 60.0
"""How long a test waits for what it expects (a page's state, a line, a process) before it
fails: generous, so that a machine with load average 10 on 2 cores passes (docs/testing.md);
a test that passes waits only as long as the event takes."""

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--remote-debugging-port=0"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        raise AssertionError("chromium is not installed: sh .ci/install-system-deps (apt-get install chromium)")
    return path


OPEN_PAGES: set = set()
"""Pages connected and not closed yet (:func:`run` closes what a failed test left open)."""


def run(coro):
    """``asyncio.run(coro)``, then every page the coroutine left open is closed in the same
    event loop: a test that fails half-way leaves no WebSocket or aiohttp session behind
    (a session collected later warns "Unclosed client session" from its finalizer)."""
    async def main():
        try:
            return await coro
        finally:
            for page in list(OPEN_PAGES):
                try:
                    await page.close()
                except Exception:
                    pass

    return asyncio.run(main())


def until(predicate, timeout: float = WAIT_S, interval: float = 0.05, what: str = ""):
    """Poll ``predicate()`` until it is truthy; its value, or AssertionError after ``timeout``."""
    end = time.monotonic() + timeout
    value = None
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"not true within {timeout} s: {what or predicate} (last {value!r})")


def state(game, token=None) -> dict:
    """``/api/state`` of a running game (the host's part too with the host's token)."""
    req = urllib.request.Request(game.base + "/api/state")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(req, timeout=WAIT_S) as r:
        return json.loads(r.read())


PHONE_SIZE = (390, 844)
"""A phone's screen in CSS pixels: the /play tests' tabs."""

JOINED = "window.buzzer && window.buzzer.me() && window.buzzer.bound() !== null"
"""A /play page has joined its team and knows its clock."""


@contextlib.contextmanager
def game_and_phones(tmp: Path, **game_kw):
    """A :class:`Game` (``game_kw`` as its own) and a phone-sized :class:`Chromium` for it; both
    closed after, Chromium first, whatever the test did."""
    game = Game(tmp, **game_kw)
    try:
        chromium = Chromium(tmp, size=PHONE_SIZE)
        try:
            yield game, chromium
        finally:
            chromium.close()
    finally:
        game.close()


def team_links(game, key: str = "name") -> dict[str, str]:
    """Each team's /play link from the host's part of ``/api/state``, by the team's ``key``
    (``"name"`` or ``"button"``)."""
    return {t[key]: t["url"] for t in state(game, game.token)["host"]["phones"]["teams"]}


async def phone_tab(chromium, url: str, touch_points: int = 0, joined: bool = True) -> "Page":
    """A phone's tab on ``url`` (:data:`PHONE_SIZE`, a phone's pixel ratio); with
    ``touch_points`` a touch screen of that many points; with ``joined``, once the page has
    joined its team and knows its clock (:data:`JOINED`)."""
    page = await chromium.page(url)
    await page.call("Emulation.setDeviceMetricsOverride", width=PHONE_SIZE[0], height=PHONE_SIZE[1],
                    deviceScaleFactor=2, mobile=True)
    if touch_points:
        await page.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=touch_points)
    if joined:
        await page.wait_for(JOINED)
    return page


async def buzz_centre(page) -> list[float]:
    """Where a finger lands on a /play page's big button: its centre, in CSS pixels."""
    return await page.eval("(() => { const r = document.getElementById('buzz').getBoundingClientRect();"
                           " return [r.x + r.width / 2, r.y + r.height / 2]; })()")


def stop(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a process this test started, by its pid: SIGTERM, then SIGKILL."""
    if proc.poll() is not None:
        return
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout)


class Game:
    """``buzzer run --headless`` in ``tmp`` on a free port; keys are typed into its stdin."""

    def __init__(self, tmp: Path, extra_config: str = "", seconds: float = 1800, args: tuple = (), top: str = "",
                 web_config: str = ""):
        self.tmp = tmp
        self.port = free_port()
        cfg = tmp / "game.toml"
        cfg.write_text(top + f'[web]\nport = {self.port}\nnext_free_port = false\n{web_config}'
                       f'[journal]\ndir = "{tmp / "journal"}"\nfsync = false\n' + extra_config, encoding="utf-8")
        self.out_path = tmp / "buzzer-out.txt"
        self.out = open(self.out_path, "wb")
        env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
        self.proc = subprocess.Popen([str(BUZZER), "run", "--headless", "--new", "-c", str(cfg), "--seconds", str(seconds), *args],
                                     cwd=tmp, stdin=subprocess.PIPE, stdout=self.out, stderr=subprocess.STDOUT, env=env)
        self.token = self._wait_token()
        self.base = f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        return self.out_path.read_text(encoding="utf-8", errors="replace")

    def _wait_token(self, timeout: float = 2 * WAIT_S) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            # not a terminal: the host link is in the journal folder's host-link file (0600),
            # never in the output (docs/web.md)
            link = self.tmp / "journal" / "host-link"
            m = re.search(r"/host#token=([A-Za-z0-9_-]+)", link.read_text(encoding="utf-8")) if link.exists() else None
            if m and "host-link" in self.output():
                return m.group(1)
            if self.proc.poll() is not None:
                raise AssertionError("buzzer run ended: " + self.output())
            time.sleep(0.05)
        raise AssertionError("no host link in buzzer run's output: " + self.output())

    def type(self, text: str) -> None:
        """Keys typed in the terminal (a team's key presses its button; host keys act)."""
        self.proc.stdin.write(text.encode("utf-8"))
        self.proc.stdin.flush()

    def journal(self) -> str:
        return "".join(p.read_text(encoding="utf-8") for p in sorted((self.tmp / "journal").glob("*.jsonl")))

    def close(self) -> None:
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        stop(self.proc)
        self.out.close()


class Chromium:
    """Headless Chromium with a DevTools port; :meth:`page` opens a tab to drive."""

    def __init__(self, tmp: Path, size: tuple[int, int] = (1280, 900)):
        self.profile = tmp / "chromium-profile"
        self.profile.mkdir(exist_ok=True)
        self.proc = subprocess.Popen([chromium_path(), *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
                                      f"--window-size={size[0]},{size[1]}", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = self.profile / "DevToolsActivePort"
        end = time.monotonic() + 2 * WAIT_S
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > end or self.proc.poll() is not None:
                stop(self.proc)
                raise AssertionError("chromium did not open its DevTools port")
            time.sleep(0.05)
        self.port = int(port_file.read_text().split()[0])

    async def page(self, url: str) -> "Page":
        async with aiohttp.ClientSession() as http:
            # the page's own fragment (#token=...) must not end the DevTools request's URL
            async with http.put(f"http://127.0.0.1:{self.port}/json/new?{quote(url, safe=':/?=&')}") as r:
                target = await r.json(content_type=None)
        page = Page(target["webSocketDebuggerUrl"], target["id"], self.port)
        try:
            await page.connect()
        except BaseException:
            await page.close()   # no client session left behind ("Unclosed client session")
            raise
        return page

    def close(self) -> None:
        stop(self.proc)


class Page:
    """One tab over CDP: evaluate JavaScript, wait for a condition, take screenshots."""

    def __init__(self, ws_url: str, target_id: str, port: int):
        self.ws_url = ws_url
        self.target_id = target_id
        self.port = port
        self._id = 0
        self.session: aiohttp.ClientSession | None = None
        self.ws = None

    async def connect(self) -> None:
        self.session = aiohttp.ClientSession()
        OPEN_PAGES.add(self)
        self.ws = await self.session.ws_connect(self.ws_url, max_msg_size=0)

    async def call(self, method: str, **params) -> dict:
        self._id += 1
        mid = self._id
        await self.ws.send_str(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads((await self.ws.receive(timeout=2 * WAIT_S)).data)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise AssertionError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    async def eval(self, expression: str):
        r = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise AssertionError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = WAIT_S, interval: float = 0.02):
        """Poll ``expression`` until it is truthy; its value, or AssertionError after ``timeout``."""
        end = time.monotonic() + timeout
        value = None
        while time.monotonic() < end:
            try:
                value = await self.eval(expression)
            except AssertionError:   # the page is still loading (no body yet)
                value = None
            if value:
                return value
            await asyncio.sleep(interval)
        raise AssertionError(f"not true within {timeout} s: {expression} (last {value!r})")

    async def screenshot(self, path: Path, transparent: bool = False) -> bytes:
        if transparent:
            await self.call("Emulation.setDefaultBackgroundColorOverride", color={"r": 0, "g": 0, "b": 0, "a": 0})
        data = base64.b64decode((await self.call("Page.captureScreenshot", format="png"))["data"])
        path.write_bytes(data)
        return data

    async def close(self) -> None:
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{self.port}/json/close/{self.target_id}") as r:
                    await r.read()
        finally:
            try:
                if self.ws is not None:
                    await self.ws.close()
            finally:
                if self.session is not None:
                    await self.session.close()
                self.ws = self.session = None
                OPEN_PAGES.discard(self)

    async def __aenter__(self) -> "Page":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def fonts_ready(self) -> None:
        """Until the page's fonts are loaded (a box measured before may still change width)."""
        await self.eval("document.fonts.ready.then(() => true)")
