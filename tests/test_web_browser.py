"""The web pages in a real browser (#14 item 5): Debian's Chromium, headless, over the
DevTools protocol, against a real ``buzzer run --headless`` whose terminal keys press the
buttons.  Screenshots land in the test's tmp folder (looked at when the pages change)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import urllib.error
import urllib.request
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from tests.browser import WAIT_S, Chromium, Game, run, until, state  # noqa: E402

HOLDER = "document.querySelector('#holder:not([hidden]) .name')?.textContent"
LONG_THINK = "[erudite]\nthink_time_s = 300\n"


@pytest.fixture
def game(tmp_path):
    # thinking time long enough for a page on a busy machine: no question runs out while it acts
    g = Game(tmp_path, extra_config=LONG_THINK)
    yield g
    g.close()


@pytest.fixture
def slow_rate_game(tmp_path):
    """A game whose host rate (0.1 a second after the burst of 10) a page's taps exceed however
    slowly a busy machine lets the page tap."""
    g = Game(tmp_path, extra_config=LONG_THINK, web_config="host_rate_per_s = 0.1\n")
    yield g
    g.close()


@pytest.fixture
def chromium(tmp_path):
    c = Chromium(tmp_path, size=(1920, 1080))
    yield c
    c.close()


def post(game, body: bytes, headers: dict) -> int:
    req = urllib.request.Request(game.base + "/api/host", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_a_press_shows_the_holder_on_the_audience_page(game, chromium, tmp_path):
    async def scenario():
        page = await chromium.page(game.base + "/")
        await page.wait_for("document.body.dataset.seq !== undefined")
        assert await page.eval(HOLDER) is None
        game.type("n ")          # the next question; reading done: the countdown starts
        await page.wait_for("!document.getElementById('countdown').hidden")
        game.type("q")           # Альфа's key presses its button
        name = await page.wait_for(HOLDER)
        await page.screenshot(tmp_path / "audience-holder.png")
        text = await page.eval("document.body.innerText")
        await page.close()
        return name, text

    name, text = run(scenario())
    assert name == "Альфа"
    assert "отвечает" in text.lower() and "порядок нажатий" in text.lower()   # Russian by default


def test_the_overlay_is_transparent_with_no_scrollbars_at_1920x1080(game, chromium, tmp_path):
    async def scenario():
        page = await chromium.page(game.base + "/overlay")
        await page.wait_for("document.body.dataset.seq !== undefined")
        await page.call("Emulation.setDeviceMetricsOverride", width=1920, height=1080, deviceScaleFactor=1, mobile=False)
        fits = await page.eval("document.documentElement.scrollHeight <= innerHeight && "
                               "document.documentElement.scrollWidth <= innerWidth")
        png = await page.screenshot(tmp_path / "overlay.png", transparent=True)
        await page.close()
        return fits, png

    fits, png = run(scenario())
    assert fits
    img = pygame.image.load(io.BytesIO(png), "overlay.png")
    assert img.get_size() == (1920, 1080)
    assert img.get_at((960, 200)).a == 0 and img.get_at((10, 10)).a == 0   # the camera shows through
    assert img.get_at((200, 1080 - 60)).a > 0                               # the lower third is drawn


def test_right_on_the_host_page_changes_the_score_and_the_journal(game, chromium, tmp_path):
    async def scenario():
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.wait_for("!!document.querySelector('button[data-action=right]')")
        game.type("n q")   # question, reading done, Альфа presses
        await page.wait_for(HOLDER)
        await page.eval("document.querySelector('button[data-action=right]').click()")
        await page.wait_for("document.getElementById('result').textContent.length > 0")
        result = await page.eval("document.getElementById('result').className")
        await page.wait_for("document.querySelector('#teams .team .score').textContent === '10'")
        await page.screenshot(tmp_path / "host-after-right.png")
        await page.close()
        return result

    assert run(scenario()) == "result ok"
    # the projector draws the audience part of the same view model
    teams = until(lambda: (lambda ts: ts if ts[0]["score"] == 10 else None)(state(game)["audience"]["game"]["teams"]),
                  what="Альфа's 10 points in /api/state")
    assert teams[0]["name"] == "Альфа" and teams[0]["score"] == 10
    actions = [json.loads(line.split(" ", 1)[1]).get("action") for line in game.journal().splitlines()[1:]]
    assert "right" in actions


def test_a_request_without_the_token_changes_nothing(game, chromium, tmp_path):
    game.type("n ")
    before = until(lambda: (lambda st: st if st["audience"]["game"].get("countdown") else None)(state(game)),
                   what="the countdown in /api/state")
    journal_before = game.journal()
    right = json.dumps({"host": "right"}).encode()
    assert post(game, right, {"Content-Type": "application/json"}) == 401
    assert post(game, right, {"Authorization": "Bearer wrong-token"}) == 401
    # from a page of another origin, even with the token
    assert post(game, right, {"Authorization": "Bearer " + game.token, "Origin": "http://evil.example"}) == 403

    async def from_the_page():
        page = await chromium.page(game.base + "/host")  # no token in the link
        await page.wait_for("!document.getElementById('auth').hidden")
        status = await page.eval("fetch('/api/host', {method: 'POST', body: '{\"host\": \"withdraw\"}'})"
                                 ".then(r => r.status)")
        text = await page.eval("document.getElementById('auth').textContent")
        hidden = await page.eval("document.getElementById('actions').children.length")
        await page.close()
        return status, text, hidden

    status, text, buttons = run(from_the_page())
    assert status == 401 and "ключ" in text and buttons == 0
    after = state(game)
    assert after["audience"]["game"]["teams"] == before["audience"]["game"]["teams"]
    assert after["audience"]["game"]["question"]["number"] == before["audience"]["game"]["question"]["number"]
    assert "host" not in after                      # no token: no host part
    assert game.journal().count('"type":"host"') == journal_before.count('"type":"host"')


def test_a_refusal_on_the_host_page_is_said_in_the_pages_language(slow_rate_game, chromium, tmp_path):
    """The API's reasons are English (for programs); the host reads the page's language:
    tapping faster than [web] host_rate_per_s allows says so in Russian."""
    game = slow_rate_game

    async def scenario():
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.wait_for("!!document.querySelector('button[data-action=wrong]')")
        texts = []
        for _ in range(30):   # the burst (10) runs out long before this
            await page.eval("document.getElementById('result').textContent = ''")
            await page.eval("document.querySelector('button[data-action=wrong]').click()")
            await page.wait_for("document.getElementById('result').textContent.length > 0")
            texts.append(await page.eval("document.getElementById('result').textContent"))
            if "Слишком часто" in texts[-1]:
                break
        tip = await page.eval("document.getElementById('result').title")
        await page.screenshot(tmp_path / "host-too-fast.png")
        await page.close()
        return texts, tip

    texts, tip = run(scenario())
    assert texts[0] == "Отправлено"                  # nobody holds the answer: the loop tells the host
    assert texts[-1] == "Отклонено: Слишком часто: подождите секунду и нажмите снова.", texts
    assert tip == "too many requests"                # the API's own reason, kept for a curious host


def test_the_press_order_shows_the_waves_and_the_catalog_unit(game, chromium, tmp_path):
    """Альфа answers wrong, Бета presses later: two waves, each with its own first press, as the
    projector draws them -- not «1. Альфа / 2. Бета +0.0 ms», a dead heat in English."""
    rows = "[...document.querySelectorAll('#presses li')]"

    async def scenario():
        page = await chromium.page(game.base + "/")
        await page.wait_for("document.body.dataset.seq !== undefined")
        game.type("n ")
        await page.wait_for("!document.getElementById('countdown').hidden")
        game.type("q")                                   # Альфа
        await page.wait_for(f"({HOLDER}) === 'Альфа'")
        assert post(game, b'{"host": "wrong"}', {"Authorization": "Bearer " + game.token}) == 202
        await page.wait_for(f"({HOLDER}) === undefined")
        await asyncio.sleep(1.0)                         # the scenario: a second passes (not a wait for an event)
        game.type("z")                                   # Бета, a second later
        await page.wait_for(f"({HOLDER}) === 'Бета'")
        await page.wait_for(f"{rows}.length === 2")
        shown = await page.eval(f"{rows}.map(li => [...li.children].map(c => c.textContent))")
        classes = await page.eval(f"{rows}.map(li => li.className)")
        colours = await page.eval(f"{rows}.map(li => getComputedStyle(li).color)")
        text = await page.eval("document.getElementById('presses-box').innerText")
        await page.screenshot(tmp_path / "audience-waves.png")
        await page.close()
        return shown, classes, colours, text

    shown, classes, colours, text = run(scenario())
    from controller.screens.common import fmt_gap
    q = state(game)["audience"]["game"]["question"]
    assert [r["team"] for r in q["presses"]] == ["Альфа", "Бета"]
    assert len({r["wave"] for r in q["presses"]}) == 2
    # each wave's race has its own first place and gap, in the projector's words and unit
    assert shown == [["1.", "Альфа", fmt_gap(q["presses"][0]["gap_ms"], "ru")],
                     ["1.", "Бета", fmt_gap(q["presses"][1]["gap_ms"], "ru")]]
    assert shown[1][2].endswith(" с") and "ms" not in text
    # the earlier wave is faint and a line parts the waves, as on the projector
    assert "press-old" in classes[0] and "press-old" not in classes[1] and "press-wave" in classes[1]
    assert colours[0] != colours[1]


def test_a_refused_key_shows_no_empty_host_sections(game, chromium, tmp_path):
    headings = ("Действия", "Отмена вернёт", "Клавиши")

    async def scenario():
        page = await chromium.page(f"{game.base}/host#token=not-the-token")
        # the host's sections are shown or hidden by the same render that sets seq (app.js)
        await page.wait_for("!document.getElementById('auth').hidden && document.body.dataset.seq !== undefined")
        refused = await page.eval("document.body.innerText")
        await page.screenshot(tmp_path / "host-bad-token.png")
        await page.close()
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.wait_for("!!document.querySelector('button[data-action=right]')")
        accepted = await page.eval("document.body.innerText")
        await page.close()
        return refused, accepted

    refused, accepted = run(scenario())
    assert "Ключ не принят" in refused
    for heading in headings:
        assert heading.upper() not in refused.upper(), heading
        assert heading.upper() in accepted.upper(), heading     # the right key shows them


def test_the_overlay_fits_a_phone_and_obs(game, chromium, tmp_path):
    """/overlay is for OBS at 1920×1080, and on a phone (390×844) «Отвечает Альфа» is not cut
    off either: every box of the lower third lies inside the screen."""
    boxes = ("(() => [...document.querySelectorAll('.lower-third > :not([hidden]), .lower-third .team')]"
             ".map(e => { const r = e.getBoundingClientRect(); return [e.id || e.className, r.left, r.right]; }))()")

    async def scenario():
        game.type("n ")
        until(lambda: state(game)["audience"]["game"].get("countdown"), what="the countdown")   # reading done
        game.type("q")
        out = {}
        for w, h, mobile in ((390, 844, True), (390, 844, False), (1920, 1080, False)):
            page = await chromium.page(game.base + "/overlay")
            await page.call("Emulation.setDeviceMetricsOverride", width=w, height=h, deviceScaleFactor=1, mobile=mobile)
            await page.wait_for(f"({HOLDER}) === 'Альфа'")
            await page.fonts_ready()   # the boxes' widths are final
            out[w, mobile] = (await page.eval("[innerWidth, document.documentElement.scrollWidth]"), await page.eval(boxes))
            await page.screenshot(tmp_path / f"overlay-{w}x{h}{'-mobile' if mobile else ''}.png", transparent=True)
            await page.close()
        return out

    for (w, mobile), ((inner, scroll), rects) in run(scenario()).items():
        assert inner == w and scroll <= w, (w, mobile, inner, scroll)
        assert any(name == "holder" for name, _, _ in rects)
        for name, left, right in rects:
            assert 0 <= left and right <= w, (w, mobile, name, left, right)


def test_the_host_page_names_the_keys_as_the_host_reads_them(game, chromium, tmp_path):
    async def scenario():
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.wait_for("document.querySelectorAll('#keys tr').length > 3")
        rows = await page.eval("[...document.querySelectorAll('#keys tr')].map(r => [...r.children].map(c => c.textContent))")
        await page.close()
        return rows

    rows = run(scenario())
    keys = {label: k for k, label in rows}
    raw = state(game, game.token)["host"]["keys"]
    named = {r["label"]: (r["keys"], r["twice"]) for r in raw}
    from controller.screens.common import key_label
    for label, (names, twice) in named.items():   # the projector's key help words, one label per key
        said = ", ".join(dict.fromkeys(key_label(n, "ru") for n in names))
        assert keys[label] == said + (" дважды" if twice else ""), label   # «Esc дважды»: its first press asks
    assert named["Выход"][1] and not named["Ответ верный"][1]
    shown = [name.removesuffix(" дважды") for text in keys.values() for name in text.split(", ")]
    assert {"Пробел", "Num 0", "Enter"} <= set(shown)
    for raw_name in ("return", "enter", "space", "[0]", "[.]", "pause"):
        assert raw_name not in shown, raw_name


def test_the_audience_page_says_when_the_game_is_over(game, chromium, tmp_path):
    async def scenario():
        page = await chromium.page(game.base + "/")
        await page.wait_for("document.body.dataset.seq !== undefined")
        before = await page.eval("document.getElementById('question').textContent")
        assert post(game, json.dumps({"host": "end_game"}).encode(),
                    {"Authorization": "Bearer " + game.token}) == 202
        await page.wait_for("document.getElementById('question').textContent === 'Игра окончена'")
        await page.screenshot(tmp_path / "audience-game-over.png")
        await page.close()
        return before

    assert run(scenario()) != "Игра окончена"


def _audience_line_after(tmp_path, chromium, top: str, actions, line: str, shot: str, read: str = "null"):
    """A game of ``top`` with the audience page open: the host's ``actions`` posted (each a body,
    or a list of bodies answered by one snapshot each), until the page's main line is ``line``;
    the screenshot ``shot``, and ``read`` evaluated in the page then."""
    game = Game(tmp_path, top=top)
    try:
        async def scenario():
            page = await chromium.page(game.base + "/")
            await page.wait_for("document.body.dataset.seq !== undefined")
            auth = {"Authorization": "Bearer " + game.token}
            for body in actions:
                assert post(game, json.dumps(body).encode(), auth) in (200, 202)
            await page.wait_for(f"document.getElementById('question').textContent === {json.dumps(line)}")
            value = await page.eval(read)
            await page.screenshot(tmp_path / shot)
            await page.close()
            return value

        return run(scenario())
    finally:
        game.close()


def test_the_audience_page_says_a_chgk_game_ended_on_shared_prize_places(tmp_path, chromium):
    """ЧГК ended with places 1–2 shared: the page says the shoot-out is due, as the projector does,
    and shows both teams' place as «1–2»."""
    top = 'mode = "chgk"\n' + "".join(f'[[teams]]\nname = "{n}"\n' for n in ("Альфа", "Бета", "Гамма"))
    places = _audience_line_after(
        tmp_path, chromium, top,
        [{"host": "question"}, {"host": "result", "team": 1, "value": True},
         {"host": "result", "team": 2, "value": True}, {"host": "end_game"}],
        "Игра окончена · Поделены места 1–2: их решит перестрелка", "audience-chgk-shared.png",
        "[...document.querySelectorAll('#standings .place')].map(e => e.textContent)")
    assert places == ["1–2", "1–2", "3"]


def test_a_locked_team_on_the_overlay_is_a_solid_card_readable_over_a_bright_picture(game, chromium, tmp_path):
    """Over a white camera picture the locked team's card is a solid dark card (no see-through),
    its name and score in light ink, with a lock mark."""
    card = ("(() => { const c = [...document.querySelectorAll('.team.is-out')][0]; if (!c) return null;"
            " const s = getComputedStyle(c); return [c.textContent, s.opacity, s.backgroundColor, s.color,"
            " getComputedStyle(c.querySelector('.name'), '::before').content]; })()")

    async def scenario():
        page = await chromium.page(game.base + "/overlay")
        await page.wait_for("document.querySelectorAll('.team').length === 4", timeout=60.0)
        game.type("n ")
        game.type("q")
        await page.wait_for(f"({HOLDER}) === 'Альфа'", timeout=30.0)
        game.type("\x7f")                                    # wrong: Альфа is locked out
        await page.wait_for("document.querySelector('.team.is-out') !== null", timeout=30.0)
        await page.eval("document.body.style.background = '#ffffff'")   # a bright camera picture
        got = await page.eval(card)
        await page.screenshot(tmp_path / "overlay-locked.png")
        await page.close()
        return got

    text, opacity, background, colour, mark = run(scenario())
    assert "Альфа" in text
    assert float(opacity) == 1.0
    assert background in ("rgb(16, 19, 26)", "rgba(16, 19, 26, 1)"), background
    r, g, b = (int(x) for x in colour[colour.index("(") + 1:colour.index(")")].split(",")[:3])
    assert min(r, g, b) >= 180, colour                       # light ink on the dark card
    assert "\u2298" in mark


def test_the_audience_page_fits_1280x720_during_a_race(game, chromium, tmp_path):
    """A hall's TV at 1280×720: the holder, the countdown, the teams, the press order and the
    standings are all on the screen, without scrolling."""
    c = chromium
    boxes = ("(() => ['holder', 'countdown', 'teams-box', 'presses-box', 'standings-box'].map(id => {"
             " const e = document.getElementById(id); const r = e.getBoundingClientRect();"
             " return [id, e.hidden, r.top, r.bottom, r.left, r.right]; }))()")

    async def scenario():
        page = await c.page(game.base + "/")
        await page.call("Emulation.setDeviceMetricsOverride", width=1280, height=720, deviceScaleFactor=1, mobile=False)
        await page.wait_for("document.querySelectorAll('.team').length === 4", timeout=60.0)
        game.type("n ")
        game.type("q")
        await page.wait_for(f"({HOLDER}) === 'Альфа'", timeout=30.0)
        game.type("zpm")                                     # the others press during Альфа's answer
        await page.wait_for("document.querySelectorAll('#presses li').length === 4", timeout=30.0)
        await page.wait_for("!document.getElementById('standings-box').hidden", timeout=30.0)
        got = (await page.eval("[innerHeight, document.documentElement.scrollHeight]"), await page.eval(boxes))
        await page.screenshot(tmp_path / "audience-1280x720.png")
        await page.close()
        return got

    (inner, scroll), rects = run(scenario())
    assert scroll <= inner, (inner, scroll)
    for name, hidden, top, bottom, left, right in rects:
        assert not hidden and 0 <= top and bottom <= 720 and 0 <= left and right <= 1280, (name, top, bottom)


def test_the_host_page_on_a_phone_keeps_the_reply_the_undo_and_the_scores_in_sight(game, chromium, tmp_path):
    """390×844: the reply to a tap, what undo would undo and the scores are at the top of the
    screen however far the host scrolls down the 17 buttons; the ruling's flash covers no
    button; a button's label wraps between words only, and an Эрудит-квартет page names no
    «Мафия» action («Дисквалифицирующий фол»)."""
    inside = ("(() => ['result', 'undo', 'teams'].map(id => { const r = document.getElementById(id)"
              ".getBoundingClientRect(); return [id, r.top, r.bottom, r.height]; }))()")
    # the flash lies inside the sticky top block; a button scrolled under that block is out of
    # sight anyway: no button in sight may be under the flash
    covered = ("(() => { const f = document.getElementById('flash'); if (f.hidden) return null;"
               " const r = f.getBoundingClientRect(), top = document.querySelector('.top').getBoundingClientRect();"
               " if (r.top < top.top || r.bottom > top.bottom) return ['flash outside the top block'];"
               " return [...document.querySelectorAll('.action')].filter(b => { const q = b.getBoundingClientRect();"
               " const seen = q.bottom > top.bottom;"
               " return seen && q.bottom > r.top && q.top < r.bottom && q.right > r.left && q.left < r.right; })"
               ".map(b => b.textContent); })()")
    broken = ("[...document.querySelectorAll('.action')].filter(b => { const s = getComputedStyle(b);"
              " return s.overflowWrap !== 'normal' || s.hyphens !== 'manual' || b.scrollWidth > b.clientWidth; })"
              ".map(b => b.textContent)")   # a word too long for its button would stick out of it

    async def scenario():
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
        await page.wait_for("document.querySelectorAll('.action').length >= 10", timeout=30.0)
        labels = await page.eval("[...document.querySelectorAll('.action')].map(b => b.textContent)")
        await page.eval("document.querySelector('button[data-action=question]').click()")
        await page.wait_for("document.getElementById('result').textContent.length > 0", timeout=30.0)
        game.type(" q")
        await page.wait_for(f"({HOLDER}) === 'Альфа'", timeout=30.0)
        await page.eval("window.scrollTo(0, document.documentElement.scrollHeight)")   # down to the last button
        await page.eval("document.getElementById('result').textContent = ''")
        await page.eval("document.querySelector('button[data-action=right]').click()")
        await page.wait_for("document.getElementById('result').textContent.length > 0", timeout=30.0)
        await page.wait_for("!document.getElementById('flash').hidden", timeout=30.0)
        got = {"scrolled": await page.eval("[scrollY, document.documentElement.scrollHeight, innerHeight]"),
               "boxes": await page.eval(inside), "covered": await page.eval(covered),
               "broken": await page.eval(broken), "labels": labels,
               "undo": await page.eval("document.getElementById('undo').textContent"),
               "score": await page.eval("document.querySelector('#teams .team').textContent")}
        await page.screenshot(tmp_path / "host-phone.png")
        await page.eval("document.querySelector('button[data-action=disqualify]').scrollIntoView({block: 'end'})")
        await page.screenshot(tmp_path / "host-phone-buttons.png")   # the longest word's button
        await page.close()
        return got

    got = run(scenario())
    y, height, inner = got["scrolled"]
    assert height > inner and y > 0, got["scrolled"]             # the buttons go on below the screen
    for name, top, bottom, h in got["boxes"]:
        assert h > 0 and 0 <= top and bottom <= 844, (name, top, bottom)
    assert "Альфа" in got["undo"] and "Альфа" in got["score"] and "10" in got["score"]
    assert got["covered"] == [], got["covered"]
    assert got["broken"] == [], got["broken"]
    assert not any("фол" in label for label in got["labels"]), got["labels"]


def test_the_host_page_shows_the_last_races_record(game, chromium, tmp_path):
    """Альфа presses, then Бета: the host page lists both presses with the rule that decided
    each (first, lost or late), as `buzzer journal races` records them; the audience page has
    no such section."""
    rows = "[...document.querySelectorAll('#race li')]"

    async def scenario():
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.wait_for("document.body.dataset.seq !== undefined")
        game.type("n ")
        await page.wait_for("!document.getElementById('countdown').hidden")
        game.type("q")                                   # Альфа
        await page.wait_for(f"({HOLDER}) === 'Альфа'")
        game.type("z")                                   # Бета, after the race was decided
        await page.wait_for(f"{rows}.length === 2")
        shown = await page.eval(f"{rows}.map(li => li.textContent)")
        title = await page.eval("document.querySelector('#race-box h2').textContent")
        await page.screenshot(tmp_path / "host-race.png")
        audience = await chromium.page(game.base + "/")
        await audience.wait_for("document.body.dataset.seq !== undefined")
        on_audience = await audience.eval("!!document.getElementById('race-box')")
        await audience.close()
        await page.close()
        return shown, title, on_audience

    shown, title, on_audience = run(scenario())
    assert title == "Последняя гонка за ответ"
    assert shown[0].startswith("Альфа · ") and shown[0].endswith("первым")
    assert shown[1].startswith("Бета · ") and shown[1].split(" · ")[-1] in ("поздно", "рано", "проиграл гонку")
    assert not on_audience


CHGK_TEAMS = 'mode = "chgk"\n' + "".join(f'[[teams]]\nname = "{n}"\n' for n in ("Альфа", "Бета", "Гамма"))
SCORES = "[...document.querySelectorAll('#teams .team')].map(c => c.querySelector('.name').textContent + ' ' + " \
         "c.querySelector('.score').textContent).join(', ')"


def test_chgk_on_the_host_page_a_result_is_given_to_a_team_picked_from_the_teams(tmp_path, chromium):
    """The walk (item 3): ЧГК from a phone. «Набранная команда: верно» had no digits and no team
    picker, and a tap answered «Нет команды с номером 0». Its declaration now asks for a team:
    the button opens a picker of the teams (as «Мафия»'s seat picker), and the picked team
    gets the point; «неверно» likewise."""
    game = Game(tmp_path, top=CHGK_TEAMS)
    try:
        async def scenario():
            page = await chromium.page(f"{game.base}/host#token={game.token}")
            await page.wait_for("!!document.querySelector('button[data-action=mark_right]')")
            assert post(game, json.dumps({"host": "question"}).encode(), {"Authorization": "Bearer " + game.token}) == 202
            await page.eval("document.querySelector('button[data-action=mark_right]').click()")
            await page.wait_for("!!document.querySelector('form[data-action=mark_right]:not([hidden]) select[name=team]')")
            picks = await page.eval("[...document.querySelectorAll('form[data-action=mark_right] select[name=team] option')]"
                                    ".map(o => o.textContent)")
            await page.eval("(() => { const f = document.querySelector('form[data-action=mark_right]');"
                            " f.querySelector('select[name=team]').value = '2'; f.querySelector('.send').click(); })()")
            await page.wait_for(f"{SCORES} === '№1 Альфа 0, №2 Бета 1, №3 Гамма 0'")
            await page.eval("document.querySelector('button[data-action=mark_wrong]').click()")
            await page.eval("(() => { const f = document.querySelector('form[data-action=mark_wrong]');"
                            " f.querySelector('select[name=team]').value = '2'; f.querySelector('.send').click(); })()")
            await page.wait_for(f"{SCORES} === '№1 Альфа 0, №2 Бета 0, №3 Гамма 0'")
            reply = await page.eval("document.getElementById('result').textContent")
            await page.screenshot(tmp_path / "host-chgk-picked.png")
            await page.close()
            return picks, reply

        picks, reply = run(scenario())
        assert picks == ["—", "1. Альфа", "2. Бета", "3. Гамма"]
        assert "Нет команды" not in reply
    finally:
        game.close()


def test_chgk_on_the_host_page_end_game_warns_of_a_tie_and_shows_the_final_table(tmp_path, chromium):
    """The walk (item 13): with places 1–2 shared, F4 says a shoot-out would decide them; the
    host page's first tap on «Закончить игру» only said «Нажмите ещё раз: закончить игру», and
    after the end the page had no standings table."""
    game = Game(tmp_path, top=CHGK_TEAMS)
    try:
        async def scenario():
            page = await chromium.page(f"{game.base}/host#token={game.token}")
            auth = {"Authorization": "Bearer " + game.token}
            assert post(game, json.dumps({"host": "question"}).encode(), auth) == 202
            # a result is refused (422, nothing changes) until the loop has opened the question:
            # on a loaded machine the next request can come first
            for team in (1, 2):
                body = json.dumps({"host": "result", "team": team, "value": True}).encode()
                until(lambda: post(game, body, auth) == 202, what=f"the result of team {team} taken")
            await page.wait_for(f"{SCORES} === '№1 Альфа 1, №2 Бета 1, №3 Гамма 0'")
            await page.eval("document.querySelector('button[data-action=end_game]').click()")
            asked = await page.eval("document.querySelector('button[data-action=end_game]').textContent")
            await page.eval("document.querySelector('button[data-action=end_game]').click()")
            await page.wait_for("!document.getElementById('standings-box').hidden")
            rows = await page.eval("[...document.querySelectorAll('#standings tr')].map(r => r.textContent)")
            await page.screenshot(tmp_path / "host-chgk-final.png")
            await page.close()
            return asked, rows

        asked, rows = run(scenario())
        assert asked == "Поделены места 1–2: их решила бы перестрелка. Нажмите ещё раз, чтобы закончить игру без неё"
        assert rows == ["1–2Альфа1", "1–2Бета1", "3Гамма0"]
    finally:
        game.close()


def test_chgk_cards_on_the_audience_page_show_the_number_the_host_types_as_the_projector_does(tmp_path, chromium):
    """A card's ``entry`` (ЧГК's «№1», the number the host types for the team) is in the screen
    model; the projector draws it before the name, the live pages left it out."""
    game = Game(tmp_path, top=CHGK_TEAMS)
    try:
        async def scenario():
            page = await chromium.page(game.base + "/")
            await page.wait_for("document.querySelectorAll('#teams .team').length === 3")
            names = await page.eval("[...document.querySelectorAll('#teams .team .name')].map(e => e.textContent)")
            await page.close()
            return names

        assert run(scenario()) == ["№1 Альфа", "№2 Бета", "№3 Гамма"]
    finally:
        game.close()


def test_the_audience_page_titles_a_finished_programmes_table_as_the_projector_does(tmp_path, chromium):
    """Walk 1, item 19: at the end of a programme the projector says «Итоги программы», the
    audience page titled the same table «Таблица»."""
    top = ('mode = "programme"\n[[programme.rounds]]\nmode = "chgk"\ntitle = "ЧГК"\n'
           + "".join(f'[[teams]]\nname = "{n}"\n' for n in ("Альфа", "Бета")))
    game = Game(tmp_path, top=top)
    try:
        async def scenario():
            page = await chromium.page(game.base + "/")
            await page.wait_for("document.body.dataset.seq !== undefined")
            assert post(game, json.dumps({"host": "next_game"}).encode(),
                        {"Authorization": "Bearer " + game.token}) == 202
            await page.wait_for("document.getElementById('question').textContent === 'Игра окончена'")
            await page.wait_for("!document.getElementById('standings-box').hidden")
            title = await page.eval("document.querySelector('#standings-box h2').textContent")
            await page.screenshot(tmp_path / "audience-programme-end.png")
            await page.close()
            return title

        assert run(scenario()) == "Итоги программы"
    finally:
        game.close()


def test_the_host_pages_top_has_no_empty_band_when_nobody_answers(game, chromium, tmp_path):
    """390×844, between questions: no holder, countdown, pause or flash to show, so the sticky top
    block holds no empty band above the reply and the scores (a newcomer saw ~90 px of nothing);
    once the countdown runs, its strip is there again and the holder takes its place in it."""
    rects = ("(() => { const r = id => document.getElementById(id).getBoundingClientRect();"
             " const top = document.querySelector('.top').getBoundingClientRect(),"
             " strip = document.querySelector('.top .strip').getBoundingClientRect();"
             " return {top: top.top, strip: strip.height, result: r('result').top, teams: r('teams').top}; })()")

    async def scenario():
        page = await chromium.page(f"{game.base}/host#token={game.token}")
        await page.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
        await page.wait_for("document.querySelectorAll('.action').length >= 10"
                            " && document.querySelectorAll('#teams .team').length === 4", timeout=30.0)
        idle = await page.eval(rects)
        await page.screenshot(tmp_path / "host-390x844-idle.png")
        game.type("n ")
        await page.wait_for("!document.getElementById('countdown').hidden", timeout=30.0)
        counting = await page.eval(rects)
        game.type("q")
        await page.wait_for(f"({HOLDER}) === 'Альфа'", timeout=30.0)
        answering = await page.eval(rects)
        await page.screenshot(tmp_path / "host-390x844-answering.png")
        await page.close()
        return idle, counting, answering

    idle, counting, answering = run(scenario())
    assert idle["strip"] == 0 and idle["result"] - idle["top"] < 20, idle       # no band above the reply
    assert counting["strip"] > 40, counting                                      # the countdown's strip
    assert answering["teams"] == counting["teams"], (counting, answering)        # the holder moved nothing


def test_the_audience_page_says_a_programmes_first_game_ended_and_which_follows(tmp_path, chromium):
    """A programme of three games, the first ended by the host: the page says that game is over
    and which comes next, as the projector and the terminal do (not «Игра окончена»)."""
    top = (Path(__file__).resolve().parents[1] / "examples" / "programme.toml").read_text(encoding="utf-8")
    _audience_line_after(tmp_path, chromium, top, [{"host": "end_game"}] * 2,   # the end is asked twice
                         "Окончена игра 1 из 3, дальше игра 2 «Брейн-ринг»", "audience-programme-over.png")
