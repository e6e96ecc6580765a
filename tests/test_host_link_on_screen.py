"""The host page's link on the projector, at the host's request (the host_link key, F8):
rendered by the real window loop, read back from the frame by a real QR decoder (zbarimg),
hidden again by F8, by the new-token key and after a minute; never in the view model."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller.app import config  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import ManualClock  # noqa: E402
from controller.core.events import NS_PER_S, HostKey  # noqa: E402
from controller.screens import viewmodel  # noqa: E402
from controller.web import attach  # noqa: E402

from tests.browser import free_port  # noqa: E402


def decode(path) -> str:
    zbar = shutil.which("zbarimg")
    assert zbar, "zbarimg is not installed: sh .ci/install-system-deps (zbar-tools)"
    return subprocess.run([zbar, "-q", "--raw", str(path)], capture_output=True, text=True).stdout.rstrip("\n")


@pytest.fixture
def game():
    cfg = config.build({"web": {"port": free_port(), "next_free_port": True}})
    clock = ManualClock(1_000 * NS_PER_S)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    out = io.StringIO()
    server = attach.attach(loop, out=out)
    assert server is not None
    yield loop, clock, server, out
    server.stop()


def frame(loop, path, keys=()):
    """Run the real window loop briefly (dummy video driver), pressing ``keys`` first; save the
    last frame."""
    from controller.app.runner import run_window_here as run_window

    step_once, posted = loop.step_once, []

    def post_once(wait):
        if not posted:
            posted.append(True)
            for k in keys:
                pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k))
                pygame.event.post(pygame.event.Event(pygame.KEYUP, key=k))
        step_once(wait)

    loop.step_once = post_once
    loop.dirty = True
    saved = []
    flip = pygame.display.flip

    def keep():
        flip()
        saved.append(pygame.display.get_surface().copy())

    pygame.display.flip = keep
    try:
        run_window(loop, 0.6)
    finally:
        pygame.display.flip = flip
        loop.step_once = step_once
    pygame.image.save(saved[-1], str(path))


def test_f8_shows_the_host_link_on_the_projector_and_a_phone_can_scan_it(game, tmp_path):
    loop, clock, server, out = game
    frame(loop, tmp_path / "shown.png", keys=[pygame.K_F8])
    url = attach.Publisher.server_links(server)["host"]
    assert decode(tmp_path / "shown.png") == url and f"#token={server.token}" in url
    # the terminal here is no terminal (a log, journald): the link is never printed there; the
    # line says where it is instead (the journal's host-link file, docs/web.md)
    assert "Страница ведущего" in out.getvalue() and server.token not in out.getvalue()
    # the view model (the pages' JSON, the audience's too) never carries it
    vm = viewmodel.from_loop(loop, 1)
    assert server.token not in json.dumps(vm, ensure_ascii=False)

    frame(loop, tmp_path / "hidden.png", keys=[pygame.K_F8])   # pressed again: hidden
    assert decode(tmp_path / "hidden.png") == ""


def test_a_new_token_hides_the_link_on_the_screen_and_a_minute_hides_it_too(game, tmp_path):
    loop, clock, server, out = game
    loop.enqueue(HostKey("host_link"))
    loop.drain()
    old = server.token
    assert loop.shown_link()["url"].endswith(old)
    assert "F8 — скрыть, F9 — новый ключ" in loop.shown_link()["text"]   # the keys as the host reads them
    loop.enqueue(HostKey("new_token"))
    loop.drain()
    assert server.token != old and loop.shown_link() is None
    loop.enqueue(HostKey("host_link"))
    loop.drain()
    assert loop.shown_link()["url"].endswith(server.token)
    clock.advance(attach.LINK_ON_SCREEN_NS)
    assert loop.shown_link() is None


def test_with_the_pages_off_the_key_says_so():
    cfg = config.build({"web": {"enabled": False}})
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock(0), out=io.StringIO())
    assert attach.attach(loop) is None
    loop.enqueue(HostKey("host_link"))
    loop.drain()
    assert loop.shown_link() is None
    assert "Веб-страницы выключены" in loop.notice_now()


def _words_drawn(monkeypatch):
    from controller.screens import scoreboard

    words: list[str] = []
    text = scoreboard.Scoreboard._text

    def recording(self, surface, s, rect, *a, **k):
        words.append(s)
        return text(self, surface, s, rect, *a, **k)

    monkeypatch.setattr(scoreboard.Scoreboard, "_text", recording)
    return words


def test_with_the_default_bind_the_link_on_the_projector_says_a_phone_cannot_open_it(game, tmp_path, monkeypatch):
    """127.0.0.1 (the default): the QR code on the screen is a link no phone opens; the box says
    so and names the fix, as the terminal does."""
    loop, clock, server, out = game
    words = _words_drawn(monkeypatch)
    frame(loop, tmp_path / "local.png", keys=[pygame.K_F8])
    assert "Телефон эту ссылку не откроет: страницы открываются только на этом компьютере." in words
    assert "Задайте в конфиге [web] bind = \"0.0.0.0\" (docs/web.md)." in words
    assert decode(tmp_path / "local.png") == attach.Publisher.server_links(server)["host"]   # still scannable


def test_on_the_halls_network_the_link_box_has_no_warning(tmp_path, monkeypatch):
    cfg = config.build({"web": {"port": free_port(), "next_free_port": True, "bind": "0.0.0.0"}})
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock(1_000 * NS_PER_S), out=io.StringIO())
    server = attach.attach(loop, out=io.StringIO())
    try:
        words = _words_drawn(monkeypatch)
        frame(loop, tmp_path / "lan.png", keys=[pygame.K_F8])
        assert any("Страница ведущего" in w for w in words)
        assert not any("не откроет" in w for w in words)
    finally:
        server.stop()
