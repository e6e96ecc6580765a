"""What a team's phone (/play, 390×844, touch) says of a press the game did not count, in a real
Chromium against a real ``buzzer run --headless`` (the default Эрудит-квартет config), the host
acting through the host API: between questions the button idles (not «Жми!») and a tap says no
question took it, never «Нажатие принято»; a press while another team answers is the game's
early press, and the phone says so in the projector's words («Рано»), as the terminal and the
audience page show that press.  In both languages.  Screenshots land in the test's tmp folder."""

from __future__ import annotations

import json
import os
import urllib.request

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

from controller.i18n import t as tr  # noqa: E402
from tests.browser import WAIT_S, buzz_centre, game_and_phones, phone_tab, run, state, until  # noqa: E402

ANSWER = "document.getElementById('answer').textContent"
DETAIL = "document.getElementById('detail').textContent"
LABEL = "document.getElementById('buzz-label').textContent"
LOOK = ("(() => { const b = document.getElementById('buzz'), s = getComputedStyle(b);"
        " return [b.className, s.backgroundColor, s.borderStyle, s.boxShadow,"
        " getComputedStyle(document.body).getPropertyValue('--team').trim()]; })()")
"""The big button's look: its classes, background, rim, shadow, and the team's colour."""
RECORD = ("(window.lines = new Set(), new MutationObserver(() => window.lines.add(" + DETAIL + "))"
          ".observe(document.getElementById('detail'), {childList: true, characterData: true, subtree: true}), true)")
"""Every text the line under the button shows from now on, recorded by the page itself."""


def host(game, action: str) -> None:
    """A host action through the host API (POST /api/host with the host's token)."""
    req = urllib.request.Request(game.base + "/api/host", data=json.dumps({"host": action}).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + game.token, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=WAIT_S) as r:
        assert r.status in (200, 202), r.status     # done, or queued for the game


async def phone(chromium, url):
    """A joined phone's tab (390×844, touch), its clock known."""
    return await phone_tab(chromium, url, touch_points=5)


async def touch(page) -> None:
    """A finger's tap on the big button (touch events, as a phone sends them)."""
    n = await page.eval("window.buzzer.presses.length")
    await page.call("Page.bringToFront")              # a tab in the background takes no touch
    box = await buzz_centre(page)
    await page.call("Input.dispatchTouchEvent", type="touchStart", touchPoints=[{"x": box[0], "y": box[1]}])
    await page.call("Input.dispatchTouchEvent", type="touchEnd", touchPoints=[])
    await page.wait_for(f"window.buzzer.presses.length > {n}")     # the page sent it


def entries(game) -> list[dict]:
    return state(game)["audience"]["screen"]["presses"]["entries"]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_a_press_the_game_did_not_count_is_never_accepted_on_the_phone(tmp_path, lang):
    with game_and_phones(tmp_path, top=f'language = "{lang}"\n',
                         extra_config="[erudite]\nthink_time_s = 300\n") as (game, chromium):
        teams = state(game, game.token)["host"]["phones"]["teams"]
        urls = {t["button"]: t["url"] for t in teams}
        names = {t["button"]: t["name"] for t in teams}
        received = tr("web.play_unc", lang, ms="").split(":")[0]    # «Нажатие принято» / «Press received»

        async def scenario():
            alpha, beta = await phone(chromium, urls["A"]), await phone(chromium, urls["B"])
            # 1. between questions (none yet): the button idles, a tap says no question took it
            assert await alpha.eval(ANSWER) == tr("web.play_wait", lang)
            assert await alpha.eval(LABEL) == tr("web.play_button_idle", lang) != tr("web.play_press", lang)
            cls, bg, rim, shadow, colour = await alpha.eval(LOOK)
            assert "is-idle" in cls and rim == "solid" and shadow == "none", (cls, rim, shadow)
            assert bg not in ("", colour) and bg.replace(" ", "") != "rgb(229,57,53)", (bg, colour)  # not the team's red
            await alpha.eval(RECORD)
            await touch(alpha)
            said = await alpha.wait_for(f"{DETAIL} && {DETAIL}")
            assert said == tr("web.play_no_question", lang), said
            await alpha.screenshot(tmp_path / f"play-between-{lang}.png")
            assert not [s for s in await alpha.eval("[...window.lines]") if received in s]
            assert await alpha.eval(ANSWER) == tr("web.play_wait", lang)
            assert entries(game) == []                        # the game took no press indeed

            # 2. a question: a press races («Жми!»); Бета's phone takes the answer
            host(game, "question")
            await alpha.wait_for(f"{ANSWER} === {json.dumps(tr('web.play_armed', lang))}")
            assert await alpha.eval(LABEL) == tr("web.play_press", lang)
            assert "is-idle" not in (await alpha.eval(LOOK))[0]
            assert await alpha.eval(DETAIL) == ""             # the tap between questions is no news any more
            await touch(beta)
            await beta.wait_for(f"{ANSWER} === {json.dumps(tr('web.play_you', lang))}")
            holding = tr("web.play_holder", lang, team=names["B"])
            await alpha.wait_for(f"{ANSWER} === {json.dumps(holding)}")
            assert await alpha.eval(LABEL) == tr("web.play_button_idle", lang)   # no press races now

            # 3. Альфа presses while Бета answers: the game's early press, as the projector names it
            # (well after [arbiter] late_ms, 500 ms: sooner it lost the race, «Поздно»); the
            # pages share this machine's clock
            at = await beta.eval("window.buzzer.presses[window.buzzer.presses.length - 1].at")
            await alpha.wait_for(f"performance.timeOrigin + performance.now() > {at + 1000}")
            await alpha.eval(RECORD)
            await touch(alpha)
            fate = await alpha.wait_for(f"{ANSWER} !== {json.dumps(holding)} && {ANSWER}")
            rows = [e for e in entries(game) if e["button"] == "A"]
            assert [e["kind"] for e in rows] == ["early"], rows
            tag = rows[0]["tag"]["text"]
            assert tag == tr("early", lang)
            assert fate == tr("web.play_fate_holder", lang, tag=tag, team=names["B"]), fate
            line = await alpha.wait_for(f"{DETAIL} !== '' && !{DETAIL}.startsWith({json.dumps(received)}) && {DETAIL}")
            assert line == tr("web.play_fate", lang, tag=tag), line
            # the terminal's press order and the audience page name that press the same
            assert f"{names['A']} — {tag}" in game.output()
            hall = await chromium.page(game.base + "/")
            shown = await hall.wait_for("[...document.querySelectorAll('#presses li')].map(e => e.textContent)"
                                        f".filter(t => t.includes({json.dumps(names['A'])})).join('|')")
            assert tag.lower() in shown.lower(), shown
            await alpha.screenshot(tmp_path / f"play-early-{lang}.png")
            await hall.close()
            for p in (alpha, beta):
                await p.close()

        run(scenario())


def test_a_press_before_the_buttons_are_on_says_it_was_early_as_the_projector_does(tmp_path):
    """Своя игра (default rules): a press after the question is announced and before the host's
    end-of-reading mark is the game's early press (the button blocked a moment): the phone says
    «Рано: кнопки ещё не включены» and, under the idle button, the press order's tag for it."""
    with game_and_phones(tmp_path, top='mode = "own-game"\n') as (game, chromium):
        teams = state(game, game.token)["host"]["phones"]["teams"]
        urls = {t["button"]: t["url"] for t in teams}
        names = {t["button"]: t["name"] for t in teams}

        async def scenario():
            alpha = await phone(chromium, urls["A"])
            host(game, "question")                            # announced: reading, the buttons not on yet
            until(lambda: state(game)["audience"]["screen"]["presses"]["open"], what="the question open")
            await alpha.wait_for(f"{LABEL} === {json.dumps(tr('web.play_button_idle', 'ru'))}")
            await touch(alpha)
            fate = await alpha.wait_for(f"{ANSWER} === {json.dumps(tr('web.play_early', 'ru'))} && {DETAIL}")
            rows = [e for e in entries(game) if e["button"] == "A"]
            assert [e["kind"] for e in rows] == ["early"], rows
            tag = rows[0]["tag"]["text"]
            assert fate == tr("web.play_fate", "ru", tag=tag) == "Не засчитано: Рано", fate
            assert f"{names['A']} — {tag}" in game.output()
            await alpha.screenshot(tmp_path / "play-early-own-game.png")
            await alpha.close()

        run(scenario())
