"""The festival board on a web page (#16): ``buzzer festival`` serves a read-only page;
two halls publish (``buzzer simulate --festival``) to a real mosquitto and a real
headless Chromium shows both halls' leaders, live.  The screenshot lands in the
test's tmp folder."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

from controller.app import config  # noqa: E402
from mosquitto import Broker  # noqa: E402
from tests.browser import Chromium, free_port, stop  # noqa: E402
from test_festival import BUZZER, CHGK, ERUDITE, _env, buzzer, simulated  # noqa: E402

LEADER = "document.querySelector('.card[data-hall=\"%s\"] .leader')?.textContent"


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path / "broker").start()
    yield b
    b.stop()


@pytest.fixture
def chromium(tmp_path):
    c = Chromium(tmp_path, size=(1600, 900))
    yield c
    c.close()


def start_board(tmp_path, url: str):
    """``buzzer festival --headless`` with its page on a free port; (process, page URL)."""
    cfg = tmp_path / "board.toml"
    cfg.write_text(f'[festival]\nweb_port = {free_port()}\n'
                   '[[festival.schedule]]\ncompetition = "Своя игра"\nhall = "Зал 3"\ntime = "15:00"\n',
                   encoding="utf-8")
    proc = subprocess.Popen(BUZZER + ["festival", "--headless", "--broker", url, "-c", str(cfg), "--seconds", "120"],
                            cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        found = re.search(r"(http://\S+)", line)
        if found:
            return proc, found.group(1).rstrip("/")
        assert line, "the board ended before it served its page"
    raise AssertionError("no page address in the board's output")


def get(url: str, method: str = "GET", data: bytes | None = None):
    req = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_the_board_page_shows_both_halls_leaders_live(tmp_path, broker, chromium):
    board, base = start_board(tmp_path, broker.plain_url)
    halls = tmp_path / "halls"
    halls.mkdir()
    try:
        # before any hall: the scheduled one is waiting
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            status, headers, body = get(base + "/api/state")
            if json.loads(body)["seq"] > 0:
                break
            time.sleep(0.1)
        assert status == 200 and "Access-Control-Allow-Origin" not in headers
        assert [c["hall"] for c in json.loads(body)["cards"]] == ["Зал 3"]

        async def scenario():
            page = await chromium.page(base + "/")
            await page.wait_for("window.board.seq() > 0")
            assert "не начата" in await page.eval("document.body.innerText")
            first_seq = await page.eval("window.board.seq()")
            for script, hall, comp in ((ERUDITE, "Зал 1", "Эрудит"), (CHGK, "Зал 2", "ЧГК")):
                buzzer("simulate", script, "--festival", broker.plain_url, "--hall", hall, "--competition", comp, cwd=halls)
            a = await page.wait_for(LEADER % "Зал 1", timeout=20)
            b = await page.wait_for(LEADER % "Зал 2", timeout=20)
            # the leaders are the halls' own: what each hall's `buzzer simulate` prints first
            await page.wait_for("(%s || '').includes('(%s)') && (%s || '').includes('(%s)')" % (
                LEADER % "Зал 1", simulated(ERUDITE)["standings"][0]["points"],
                LEADER % "Зал 2", simulated(CHGK)["standings"][0]["points"]), timeout=20)
            a = await page.eval(LEADER % "Зал 1")
            b = await page.eval(LEADER % "Зал 2")
            text = await page.eval("document.body.innerText")
            seq = await page.eval("window.board.seq()")
            await page.screenshot(tmp_path / "festival-board.png")
            await page.close()
            return a, b, text, first_seq, seq

        a, b, text, first_seq, seq = asyncio.run(scenario())
        top1, top2 = simulated(ERUDITE)["standings"][0], simulated(CHGK)["standings"][0]
        assert a == f"Лидер: {top1['team']} ({top1['points']})"
        assert b == f"Лидер: {top2['team']} ({top2['points']})"
        assert seq > first_seq                           # it changed live, without a reload
        for word in ("Зал 1 · Эрудит", "Зал 2 · ЧГК", "Зал 3 · Своя игра", "окончена"):
            assert word in text
        png = (tmp_path / "festival-board.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000
        # read-only: nothing to post, no CORS, the JSON has every card with its standings
        assert get(base + "/api/host", "POST", b'{"host": "right"}')[0] in (404, 405)
        assert get(base + "/", "POST", b"{}")[0] == 405
        status, headers, body = get(base + "/api/state")
        state = json.loads(body)
        assert "Access-Control-Allow-Origin" not in headers and headers["Cache-Control"] == "no-store"
        cards = {c["hall"]: c for c in state["cards"]}
        assert [r["name"] for r in cards["Зал 1"]["standings"]] == [r["team"] for r in simulated(ERUDITE)["standings"]]
        assert cards["Зал 2"]["finished"] is True and cards["Зал 3"]["game"] is None
    finally:
        stop(board)


def test_the_board_page_is_local_only_by_default_and_can_be_off(tmp_path, broker):
    cfg = config.load(None)
    assert cfg["festival"]["web_bind"] == "127.0.0.1" and cfg["festival"]["web_port"] == 8090
    off = tmp_path / "off.toml"
    off.write_text("[festival]\nweb_port = 0\n", encoding="utf-8")
    r = subprocess.run(BUZZER + ["festival", "--headless", "--broker", broker.plain_url, "-c", str(off), "--seconds", "1"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "http://" not in r.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[festival]\nweb_port = 70000\n", encoding="utf-8")
    r = subprocess.run(BUZZER + ["festival", "--headless", "--broker", broker.plain_url, "-c", str(bad), "--seconds", "1"],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "festival.web_port" in r.stderr and "Traceback" not in r.stderr


CARD_VIEW = """(() => {
  const box = document.querySelector('.card[data-hall="%s"]');
  if (!box || !box.querySelector('.standings')) return null;
  const card = box.getBoundingClientRect();
  const rows = [...box.querySelectorAll('.standings tr.row')];
  const inside = (r) => r.top >= card.top && r.bottom <= card.bottom && r.bottom <= window.innerHeight
                        && r.right <= card.right;
  const more = box.querySelector('.standings .more');
  return {rows: rows.map((tr) => [...tr.children].map((td) => td.textContent)),
          visible: rows.every((tr) => inside(tr.getBoundingClientRect())),
          more: more ? more.textContent : null, more_visible: more ? inside(more.getBoundingClientRect()) : null,
          bottom: card.bottom, height: window.innerHeight};
})()"""


def test_a_card_too_small_for_its_table_keeps_the_leaders_and_every_tagged_row_on_the_page(tmp_path, broker):
    """The board's page in a real Chromium, a small window: a 10-seat «Мафия» table shows seat 7
    «Без речи» and seat 9 «Выбыл» in its card (before, the page showed the first 6 rows), a
    12-team ЧГК its top places and «ещё N» — a button: the whole table, then «свернуть» —, a
    3-team one all three; every card fits in the window.  In a bigger window every row shows."""
    from test_festival_board import BIG_TABLES, TEAMS_12, publish_big_tables

    halls = tmp_path / "halls"
    halls.mkdir()
    publish_big_tables(broker, halls)
    board, base = start_board(tmp_path, broker.plain_url)
    chromium = Chromium(tmp_path, size=(1280, 600))
    try:
        async def scenario():
            page = await chromium.page(base + "/")
            await page.wait_for(" && ".join(f"({CARD_VIEW % hall})" for hall in BIG_TABLES), timeout=30)
            await page.fonts_ready()
            views = {hall: await page.eval(CARD_VIEW % hall) for hall in BIG_TABLES}
            await page.screenshot(tmp_path / "festival-rows.png")
            await page.eval("document.querySelector('.card[data-hall=\"Зал 6\"] .more').click()")
            opened = await page.eval(CARD_VIEW % "Зал 6")
            await page.eval("document.querySelector('.card[data-hall=\"Зал 6\"] .more').click()")
            closed = await page.eval(CARD_VIEW % "Зал 6")
            await page.call("Emulation.setDeviceMetricsOverride", width=1600, height=1000, deviceScaleFactor=1,
                            mobile=False)
            await page.wait_for(f"({CARD_VIEW % 'Зал 4'}).rows.length === 10 && ({CARD_VIEW % 'Зал 6'}).rows.length === 12")
            big = {hall: await page.eval(CARD_VIEW % hall) for hall in BIG_TABLES}
            await page.screenshot(tmp_path / "festival-rows-big.png")
            await page.call("Emulation.setDeviceMetricsOverride", width=420, height=800, deviceScaleFactor=1,
                            mobile=True)
            await page.wait_for(f"({CARD_VIEW % 'Зал 4'}).rows.length < 10")
            phone = await page.eval(CARD_VIEW % "Зал 4")
            await page.screenshot(tmp_path / "festival-rows-phone.png")
            await page.close()
            return views, opened, closed, big, phone

        views, opened, closed, big, phone = asyncio.run(scenario())
    finally:
        chromium.close()
        stop(board)
    mafia, top, small = views["Зал 4"], views["Зал 6"], views["Зал 7"]
    for view in (*views.values(), *big.values()):
        assert view["visible"] and view["bottom"] <= view["height"], view   # the board fits the window
    places = [r[0] for r in mafia["rows"]]
    assert ["7", "Жанна", "", "Без речи"] in mafia["rows"] and ["9", "Ира", "", "Выбыл"] in mafia["rows"]
    assert len(places) < 10 and places == [str(n) for n in range(1, len(places) - 1)] + ["7", "9"], mafia
    assert mafia["more"] == f"ещё {10 - len(places)}" and mafia["more_visible"]
    n = len(top["rows"])
    assert 3 < n < 12 and top["rows"] == [[str(i), TEAMS_12[i - 1], str(13 - i), ""] for i in range(1, n + 1)], top
    assert top["more"] == f"ещё {12 - n}" and top["more_visible"]
    assert small["rows"] == [["1", "Альфа", "3", ""], ["2", "Бета", "2", ""], ["3", "Гамма", "1", ""]]
    assert small["more"] is None
    assert [r[0] for r in opened["rows"]] == [str(i) for i in range(1, 13)] and opened["more"] == "свернуть"
    assert closed["rows"] == top["rows"] and closed["more"] == top["more"]
    # a phone: one card under another, the page scrolls, each card still of a readable height
    assert ["7", "Жанна", "", "Без речи"] in phone["rows"] and ["9", "Ира", "", "Выбыл"] in phone["rows"]
    assert len(phone["rows"]) >= 5 and phone["more"] == f"ещё {10 - len(phone['rows'])}"
    assert big["Зал 4"]["more"] is None and big["Зал 6"]["more"] is None and big["Зал 7"] == dict(small, **{
        k: big["Зал 7"][k] for k in ("bottom", "height")})
