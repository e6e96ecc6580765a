"""A pupil's phone on /play in a real Chromium (390×844, touch), at the page's dead ends found by
walking through it (issue 27): a link that cannot work (malformed, revoked, renewed, too many
phones, phones off) is one screen that says why in the page's language; a new link pasted into
the same tab joins without a reload; a locked-out team's button looks locked and says so; the
pause is shown; every text is readable on each default team colour (contrast ≥ 4.5:1 computed from
the rendered colours); a clock known too badly is said before the race; a host page left open
after F9 says its link works no more.  Screenshots land in the test's tmp folder."""

from __future__ import annotations

import json
import os
import urllib.request

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

from controller.i18n import t as tr  # noqa: E402
from tests.browser import game_and_phones, phone_tab, run, state, team_links, until  # noqa: E402
from tests.test_web_play import ANSWER, Proxy, tap  # noqa: E402

ERUDITE = "[erudite]\nthink_time_s = 300\n"
"""The games' config here: a question stays open for five minutes."""

GONE = ("(() => { const g = document.getElementById('gone');"
        " return g && !g.hidden && g.offsetParent !== null ? g.textContent : ''; })()")
"""The one-screen message of a link that cannot work, when it is shown."""
ONE_SCREEN = ("(() => { const b = document.getElementById('buzz'); const r = document.getElementById('gone')"
              ".getBoundingClientRect(); return [b.offsetParent === null, document.documentElement.scrollHeight,"
              " r.bottom, document.body.innerText.trim()]; })()")
CONTRAST = """(() => {
  const rgba = (s) => { const m = s.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const lum = (c) => { const v = c.slice(0, 3).map((x) => x / 255)
    .map((x) => (x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4)));
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const bgOf = (e) => { for (let n = e; n; n = n.parentElement) { const c = rgba(getComputedStyle(n).backgroundColor);
    if (c[3] > 0) return c; } return [255, 255, 255, 1]; };
  const opacity = (e) => { let o = 1; for (let n = e; n; n = n.parentElement) o *= Number(getComputedStyle(n).opacity); return o; };
  const out = {};
  for (const id of ["team", "conn", "buzz", "answer", "tie", "paused", "countdown", "detail", "sync", "gone-text"]) {
    const e = document.getElementById(id);
    if (!e || e.offsetParent === null || !e.textContent.trim()) continue;
    const bg = bgOf(e), fg = rgba(getComputedStyle(e).color), a = fg[3] * opacity(e);
    const ink = [0, 1, 2].map((i) => fg[i] * a + bg[i] * (1 - a));
    const l1 = lum(ink), l2 = lum(bg);
    out[id] = [Math.round((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05) * 100) / 100, e.textContent,
               getComputedStyle(e).color, bg.slice(0, 3).join(",")];
  }
  return out;
})()"""
"""Each shown text's contrast with what is rendered behind it (WCAG 2's ratio; a text's own and
its ancestors' opacity blended in), its text, its colour and the background's."""


async def opened(chromium, url):
    """A phone's tab (390×844, touch) on ``url``, not waiting for a join."""
    return await phone_tab(chromium, url, touch_points=1, joined=False)


async def gone_screen(page, said, shot):
    """The page is the one screen saying ``said``: no button, nothing below the fold."""
    assert await page.wait_for(GONE) == said
    hidden, height, bottom, text = await page.eval(ONE_SCREEN)
    assert hidden and height <= 844 and bottom <= 844 and text == said, (hidden, height, bottom, text)
    await page.screenshot(shot)


def renew(game, button):
    req = urllib.request.Request(game.base + "/api/phones", data=json.dumps({"renew": button}).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + game.token})
    with urllib.request.urlopen(req, timeout=60) as r:
        assert r.status == 200


def joined(game, button) -> int:
    teams = state(game, game.token)["host"]["phones"]["teams"]
    return len(next(t["phones"] for t in teams if t["button"] == button))


def test_links_that_cannot_work_are_one_screen_in_the_page_s_language(tmp_path):
    """A malformed link (its fragment not even a token), one without a token, a revoked one (the host
    renewed the team's link: the phone joined with it is let go, the old link opened again is
    refused), one more phone than [phones] max_phones_per_team: each is one screen saying why,
    in Russian (the game's language), never a blank page."""
    with game_and_phones(tmp_path, extra_config=ERUDITE + "[phones]\nmax_phones_per_team = 1\n") as (game, chromium):
        urls = team_links(game)
        bad = tr("web.play_bad_link", "ru")

        async def scenario():
            for n, url in enumerate((game.base + "/play#t=%E0%A4%A", game.base + "/play#t=<script>",
                                     game.base + "/play")):
                page = await opened(chromium, url)
                await gone_screen(page, bad, tmp_path / f"play-bad-{n}.png")
                await page.close()
            beta = await phone_tab(chromium, urls["Бета"])
            more = await opened(chromium, urls["Бета"])            # one phone per team: this one is one too many
            await gone_screen(more, tr("web.play_team_full", "ru"), tmp_path / "play-full.png")
            alpha = await phone_tab(chromium, urls["Альфа"])
            renew(game, "A")                                       # the host hands Альфа a new link
            await gone_screen(alpha, tr("web.play_renewed", "ru"), tmp_path / "play-renewed.png")
            old = await opened(chromium, urls["Альфа"])            # the old link, opened again
            await gone_screen(old, bad, tmp_path / "play-revoked.png")
            for p in (alpha, old, beta, more):
                await p.close()

        run(scenario())


def test_a_new_link_pasted_into_the_same_tab_joins_without_a_reload(tmp_path):
    """Only the fragment changes when a link of the same page is pasted into its tab: the page joins
    that team with it (no reload: what the page had stays), from a joined page and from a dead one,
    and the pasted link presses for its team."""
    with game_and_phones(tmp_path, extra_config=ERUDITE) as (game, chromium):
        urls = team_links(game)

        async def scenario():
            dead = await opened(chromium, game.base + "/play#t=%E0%A4%A")
            # the page's own script has run and said the link is bad (readyState alone may be the
            # blank page's before the navigation commits: a hash set then is lost with it)
            await dead.wait_for("window.buzzer !== undefined && window.buzzer.gone() === 'bad'")
            await dead.eval("window.untouched = 7; true")
            await dead.eval(f"location.hash = {json.dumps('#' + urls['Гамма'].split('#')[1])}; true")
            await dead.wait_for("window.buzzer.me() && window.buzzer.me().button === 'C' &&"
                                " document.getElementById('team').textContent")
            assert await dead.eval("[window.untouched, document.getElementById('team').textContent,"
                                   " document.getElementById('gone').hidden]") == [7, "Гамма", True]
            beta = await phone_tab(chromium, urls["Бета"])
            await beta.eval("window.untouched = 8; true")
            await beta.eval(f"location.hash = {json.dumps('#' + urls['Дельта'].split('#')[1])}; true")
            await beta.wait_for("document.getElementById('team').textContent === 'Дельта' && window.buzzer.bound() !== null")
            assert await beta.eval("[window.untouched, window.buzzer.me().button]") == [8, "D"]
            # the host's snapshot tells the phones' joins and leaves at its next publish: wait for it
            until(lambda: (joined(game, "B"), joined(game, "C"), joined(game, "D")) == (0, 1, 1),
                  what="Бета's phone gone over to Дельта, Гамма's joined")
            game.type("n ")
            await beta.wait_for(ANSWER + " === 'Можно нажимать'")
            await tap(beta)                                        # the pasted link presses for its team
            await beta.wait_for(ANSWER + " === 'Вы отвечаете'")
            assert [c for c in state(game)["audience"]["game"]["teams"] if c.get("holder")][0]["name"] == "Дельта"
            for p in (dead, beta):
                await p.close()

        run(scenario())


def test_a_phone_page_where_phones_are_off_says_so_in_english(tmp_path):
    """[phones] enabled = false in an English game: a team's old link opened is one English screen
    saying the phones are not buttons here (not «Waiting…» retried forever)."""
    with game_and_phones(tmp_path, top='language = "en"\n',
                         extra_config="[phones]\nenabled = false\n") as (game, chromium):
        async def scenario():
            page = await opened(chromium, game.base + "/play#t=" + "A" * 43)
            await gone_screen(page, tr("web.play_off", "en"), tmp_path / "play-off-en.png")
            assert await page.eval("document.documentElement.lang") == "en"
            await page.close()

        run(scenario())


def test_every_text_is_readable_on_each_default_team_colour(tmp_path):
    """The four default teams' phones, armed: every text shown (the header's name and state on the
    team's colour, the button's word, the answer, the clock) contrasts ≥ 4.5:1 with what is
    rendered behind it, and the header keeps the team's own colour."""
    with game_and_phones(tmp_path, extra_config=ERUDITE) as (game, chromium):
        teams = state(game, game.token)["host"]["phones"]["teams"]
        urls, colours = {t["name"]: t["url"] for t in teams}, {t["name"]: t["color"] for t in teams}
        assert sorted(colours.values()) == sorted(["#e53935", "#1e88e5", "#43a047", "#fdd835"])

        async def scenario():
            pages = {name: await phone_tab(chromium, url) for name, url in urls.items()}
            game.type("n ")
            for name, page in pages.items():
                await page.wait_for(ANSWER + " === 'Можно нажимать'")
                await page.fonts_ready()
                seen = await page.eval(CONTRAST)
                assert {"team", "conn", "buzz", "answer", "sync"} <= set(seen), seen
                assert await page.eval("getComputedStyle(document.querySelector('header')).backgroundColor") \
                    == "rgb({}, {}, {})".format(*(int(colours[name][i:i + 2], 16) for i in (1, 3, 5)))
                low = {k: v for k, v in seen.items() if v[0] < 4.5}
                assert not low, (name, colours[name], low)
            await pages["Дельта"].screenshot(tmp_path / "play-yellow.png")
            for p in pages.values():
                await p.close()

        run(scenario())


def test_a_locked_out_team_s_button_looks_locked_and_the_pause_is_shown(tmp_path):
    """Альфа answers wrong: its button is locked for the question and looks it (grey, flat, dashed,
    «Заблокировано», still readable), the line says «Кнопка заблокирована»; Бета's stays pressable.
    The host pauses the clock: the phones say «Пауза», and no more once it goes on."""
    with game_and_phones(tmp_path, extra_config=ERUDITE) as (game, chromium):
        urls = team_links(game)

        async def scenario():
            alpha, beta = await phone_tab(chromium, urls["Альфа"]), await phone_tab(chromium, urls["Бета"])
            game.type("n ")
            await alpha.wait_for(ANSWER + " === 'Можно нажимать'")
            assert await alpha.eval("document.getElementById('buzz').className") == "buzz"
            await tap(alpha)
            await alpha.wait_for(ANSWER + " === 'Вы отвечаете'")
            game.type("\x7f")                                      # wrong: Альфа is out of this question
            await alpha.wait_for(ANSWER + " === 'Кнопка заблокирована'")
            look = await alpha.eval("(() => { const b = document.getElementById('buzz'), s = getComputedStyle(b);"
                                    " return [b.className, b.textContent, s.backgroundColor, s.boxShadow,"
                                    " s.borderTopStyle, b.getAttribute('aria-disabled')]; })()")
            assert look == ["buzz is-locked", "Заблокировано", "rgb(58, 58, 58)", "none", "dashed", "true"], look
            seen = await alpha.eval(CONTRAST)
            assert seen["buzz"][0] >= 4.5 and seen["answer"][0] >= 4.5, seen
            await alpha.screenshot(tmp_path / "play-locked.png")
            assert await beta.eval(ANSWER) == "Можно нажимать"
            assert await beta.eval("document.getElementById('buzz').className") == "buzz"   # Бета may press

            game.type("s")                                         # the host pauses the clock
            await beta.wait_for("(() => { const p = document.getElementById('paused');"
                                " return p && !p.hidden && p.offsetParent !== null && p.textContent === 'Пауза'; })()")
            assert (await beta.eval(CONTRAST))["paused"][0] >= 4.5
            await beta.screenshot(tmp_path / "play-paused.png")
            game.type("s")                                         # and goes on
            await beta.wait_for("document.getElementById('paused').hidden")
            for p in (alpha, beta):
                await p.close()

        run(scenario())


def test_a_host_page_left_open_after_f9_says_its_link_works_no_more(tmp_path):
    """The host renews the host token (F9): the host page left open with the old link loses the
    host's part and says why (the new link is in the terminal or its QR code), not silently."""
    with game_and_phones(tmp_path, extra_config=ERUDITE) as (game, chromium):
        async def scenario():
            hostp = await chromium.page(game.base + "/host#token=" + game.token)
            await hostp.wait_for("document.querySelectorAll('#phones .phone-link').length === 4")
            assert await hostp.eval("document.getElementById('auth').hidden")
            game.type("\x1b[20~")                                  # F9: a new host token
            said = await hostp.wait_for("!document.getElementById('auth').hidden &&"
                                        " document.getElementById('auth').textContent")
            assert said == tr("web.host_renewed", "ru"), said
            await hostp.screenshot(tmp_path / "host-renewed.png")
            await hostp.close()

        run(scenario())


SLOW = ("[erudite]\nthink_time_s = 300\n[phones]\ntouch_latency_ms = 5.0\nbound_max_ms = 40.0\n"
        "sync_interval_s = 0.4\nwait_max_ms = 800.0\n")


@pytest.mark.parametrize("exclude", [True, False])
def test_a_clock_known_too_badly_is_said_before_the_race(tmp_path, exclude):
    """Гамма's phone is behind a path so slow (150 ms one way) that its clock is known only to ±75 ms
    or so, over bound_max_ms = 40: while the first exchanges narrow the clock the page says it is
    syncing, never «Часы сверены»; then, before any question, it says the clock is known too
    badly.  Kept out of races (exclude_over_bound) it says its presses are not taken now and its
    button looks it; taken (exclude_over_bound = false), a press is sent and the phone says how
    sure the game is of it: at least the clock's bound.  Бета's phone, straight to the game, says
    its clock is synced."""
    over = f"exclude_over_bound = {'true' if exclude else 'false'}\n"
    with game_and_phones(tmp_path, extra_config=SLOW + over) as (game, chromium):
        urls = team_links(game)

        async def scenario():
            proxy = await Proxy(game.port).start()
            proxy.up_ms = 150.0
            gamma = await opened(chromium, urls["Гамма"].replace(f":{game.port}/", f":{proxy.port}/"))
            # every text the clock's line shows, recorded by the page itself
            await gamma.wait_for("document.getElementById('sync') && (window.said = new Set(), new MutationObserver(() =>"
                                 " window.said.add(document.getElementById('sync').textContent)).observe("
                                 "document.getElementById('sync'), {childList: true, characterData: true, subtree: true}),"
                                 " window.said.add(document.getElementById('sync').textContent), true)")
            out = await gamma.wait_for("document.body.dataset.sync === 'out' && document.getElementById('sync').textContent")
            said = await gamma.eval("[...window.said]")
            assert not [s for s in said if s.startswith("Часы сверены")], said
            assert [s for s in said if s.startswith("Сверяем часы")], said
            ms = await gamma.eval("window.buzzer.bound()")
            assert ms > 40 and out == tr("web.play_out", "ru").format(ms=ms, max=40), (out, ms)
            assert not state(game)["audience"]["game"].get("question")              # before any race
            if exclude:
                assert await gamma.eval(ANSWER) == tr("web.play_out_excluded", "ru")
                assert await gamma.eval("document.getElementById('buzz').className") == "buzz is-locked"
            else:
                assert await gamma.eval(ANSWER) == "Ждите вопроса"
                # no question yet: idle (no press races), not locked
                assert await gamma.eval("document.getElementById('buzz').className") == "buzz is-idle"
            await gamma.screenshot(tmp_path / "play-out.png")
            beta = await phone_tab(chromium, urls["Бета"])
            await beta.wait_for("document.body.dataset.sync === 'good'")
            assert (await beta.eval("document.getElementById('sync').textContent")).startswith("Часы сверены: ±")
            assert await beta.eval(ANSWER) == "Ждите вопроса"
            if not exclude:
                game.type("n ")
                await gamma.wait_for(ANSWER + " === 'Можно нажимать'")
                await tap(gamma)
                unc = float(await gamma.wait_for("(document.getElementById('detail').textContent"
                                                 ".match(/принято: ±([\\d.]+)/) || [])[1]"))
                assert unc >= await gamma.eval("window.buzzer.bound()") - 1, unc
                await gamma.wait_for(ANSWER + " === 'Вы отвечаете'")
            for p in (gamma, beta):
                await p.close()
            await proxy.close()

        run(scenario())
