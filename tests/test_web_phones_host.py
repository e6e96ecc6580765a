"""The host's side of a class on phones (issue 27), against a real ``buzzer run --headless`` and
the host page in real Chromium at a phone's 390×844: a team that presses only with its phone link
is «Нет телефона», never «Не отвечают»; the press order is in sight without scrolling and the
buttons never move when a press comes; «Новая ссылка» asks for a second tap; a tie decided by lot
is said in the projector's words; a key pressed twice says so with the keys bound; a game started
again in another language gets the page's words in it.  Screenshots land in the test's tmp folder."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

import tests.browser as browser  # noqa: E402
from tests.browser import Chromium, Game, run, state, until  # noqa: E402
from tests.test_web_phones import Phone, clock, links  # noqa: E402

# Альфа has no key (it presses only with its phone), Бета is a phone team (phone = true) whose key
# the keyboard still stands in for; Гамма's key is its wired button (P)
CLASS = ("[erudite]\nthink_time_s = 300\n"
         '[[teams]]\nname = "Альфа"\nbutton = "A"\nkey = ""\n'
         '[[teams]]\nname = "Бета"\nbutton = "B"\nkey = "z"\nphone = true\n'
         '[[teams]]\nname = "Гамма"\nbutton = "C"\nkey = "p"\n')


@pytest.fixture
def chromium(tmp_path):
    c = Chromium(tmp_path, size=(390, 844))
    yield c
    c.close()


async def host_page(chromium, game, token=None):
    page = await chromium.page(f"{game.base}/host#token={token or game.token}")
    await page.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=1, mobile=True)
    await page.wait_for("document.body.dataset.seq !== undefined && !document.getElementById('phones-box').hidden")
    return page


# the test reads the host's state often: the host's bucket is wide (the rate limit is not this test's)
WIDE = "host_rate_per_s = 100.0\nhost_burst = 100\n"


def inputs(game) -> dict:
    return state(game)["audience"]["inputs"]


def test_a_team_on_its_phone_alone_is_no_phone_until_one_joins_never_not_responding(tmp_path, chromium):
    game = Game(tmp_path, extra_config=CLASS, web_config=WIDE)
    try:
        # by the teams' names, as the host page says them (never «A, B»)
        until(lambda: "Нет телефона: Альфа, Бета" in game.output(), what="the terminal's status line")
        assert "Не отвечают" not in game.output()
        assert inputs(game)["missing"] == [] and inputs(game)["no_phone"] == ["A", "B"]

        async def scenario():
            page = await host_page(chromium, game)
            said = await page.wait_for("!document.getElementById('phone-missing').hidden"
                                       " && document.getElementById('phone-missing').textContent")
            assert said == "Нет телефона: Альфа, Бета"           # the wired Гамма is not in it
            rows = await page.eval("Object.fromEntries([...document.querySelectorAll('.phone-team')].map(c =>"
                                   " [c.querySelector('.phone-name').textContent, c.querySelector('.phone').textContent]))")
            assert rows == {"Альфа": "телефон не подключён", "Бета": "телефон не подключён",
                            "Гамма": "проводная кнопка: телефон не нужен"}
            phone = Phone(game)
            assert (await phone.join(links(game)["A"]))["t"] == "me"
            said = await page.wait_for("document.getElementById('phone-missing').textContent !== "
                                       f"{said!r} && document.getElementById('phone-missing').textContent")
            assert said == "Нет телефона: Бета"
            assert inputs(game)["no_phone"] == ["B"]
            await page.eval("scrollTo(0, document.getElementById('phone-missing').getBoundingClientRect().top + scrollY - 260)")
            await page.screenshot(tmp_path / "host-no-phone.png")
            await phone.close()                                  # it leaves: Альфа has none again
            until(lambda: inputs(game)["no_phone"] == ["A", "B"], what="Альфа's phone gone")
            await page.close()

        run(scenario())
    finally:
        game.close()


def test_without_phones_a_team_with_no_input_still_does_not_answer(tmp_path):
    game = Game(tmp_path, extra_config=CLASS.replace("phone = true\n", "") + "[phones]\nenabled = false\n")
    try:
        until(lambda: "Не отвечают: Альфа (кнопка A)" in game.output(), what="the terminal's status line")
        assert inputs(game)["missing"] == ["A"] and inputs(game)["no_phone"] == []
    finally:
        game.close()


PRESSES_BOX = ("(() => { const r = document.getElementById('presses-box').getBoundingClientRect();"
               " return [r.top, r.bottom]; })()")
ACTIONS_TOP = "document.getElementById('actions').getBoundingClientRect().top"


def test_the_host_on_a_phone_sees_the_press_order_first_and_the_buttons_stay_put(tmp_path, chromium):
    game = Game(tmp_path, extra_config="[erudite]\nthink_time_s = 300\n", web_config=WIDE)
    try:
        async def scenario():
            page = await host_page(chromium, game)
            game.type("n ")
            await page.wait_for("!document.getElementById('countdown').hidden")
            before = await page.eval(ACTIONS_TOP)
            top, bottom = await page.eval(PRESSES_BOX)
            game.type("qz")                                  # Альфа, then Бета
            await page.wait_for("document.querySelectorAll('#presses li.press:not(.press-none)').length === 2")
            await page.screenshot(tmp_path / "host-390x844-presses.png")
            rows = await page.eval("[...document.querySelectorAll('#presses li')].map(li => "
                                   "[li.getBoundingClientRect().bottom, li.querySelector('.who').textContent])")
            phones_top = await page.eval("document.getElementById('phones-box').getBoundingClientRect().top")
            return before, (top, bottom), rows, phones_top, await page.eval(ACTIONS_TOP), await page.eval(PRESSES_BOX)

        before, box, rows, phones_top, after, box_after = run(scenario())
        assert [r[1] for r in rows] == ["Альфа", "Бета"]
        assert all(bottom <= 844 for bottom, _ in rows), rows      # in sight without scrolling
        assert box[1] <= phones_top                                 # above the phones and their links
        assert after == before and box_after == list(box)           # nothing moved under the thumb
    finally:
        game.close()


def test_a_new_link_needs_a_second_tap(tmp_path, chromium):
    game = Game(tmp_path, extra_config="[erudite]\nthink_time_s = 300\n", web_config=WIDE)
    try:
        old = links(game)["A"]
        button = "document.querySelector('.phone-team[data-button=\"A\"] .phone-renew')"

        async def scenario():
            page = await host_page(chromium, game)
            await page.wait_for(f"!!{button}")
            await page.eval(f"{button}.click()")                   # a stray tap
            said = await page.eval(f"{button}.textContent")
            assert await page.eval(f"{button}.classList.contains('armed')")
            await asyncio.sleep(0.5)                               # the scenario: half a second passes
            assert links(game)["A"] == old                         # nothing renewed
            await page.eval(f"{button}.click()")                   # the second tap renews
            until(lambda: links(game)["A"] != old, what="the link renewed")
            await page.close()
            return said

        assert run(scenario()) == "Нажмите ещё раз: старая ссылка перестанет работать"
    finally:
        game.close()


def test_a_tie_by_lot_reads_as_the_projector_says_it(tmp_path, chromium):
    """Two phones press at one instant, far inside their ±200 ms: the host's record of the race
    says the tie as the press order does («ничья ±N мс») and who the draw chose, by its seed."""
    game = Game(tmp_path, extra_config="[erudite]\nthink_time_s = 300\n[phones]\ntouch_latency_ms = 200.0\n",
                web_config=WIDE)
    try:
        async def scenario():
            page = await host_page(chromium, game)
            tokens = links(game)
            a, b = Phone(game), Phone(game)
            await a.join(tokens["A"])
            await b.join(tokens["B"])
            await a.sync()
            await b.sync()
            game.type("n ")
            until(lambda: (state(game)["audience"]["game"].get("countdown") or {}).get("running"), what="armed")
            now = clock()
            await asyncio.gather(a.press(at=now, sent=now), b.press(at=now, sent=now))
            lot = await page.wait_for("!document.getElementById('race-lot').hidden"
                                      " && document.getElementById('race-lot').textContent")
            tags = await page.eval("[...document.querySelectorAll('#presses .tag')].map(e => e.textContent)")
            holder = await page.wait_for("document.querySelector('#holder:not([hidden]) .name')?.textContent")
            await page.screenshot(tmp_path / "host-lot.png")
            for p in (a, b):
                await p.close()
            await page.close()
            return lot, tags, holder

        lot, tags, holder = run(scenario())
        tie = tags[0]
        assert tie.startswith("ничья ±") and tags == [tie, tie]
        seed = state(game, game.token)["host"]["screen"]["race"]["seed"]
        assert lot.startswith("Н" + tie[1:] + "; жребий выбрал: " + holder + f" (зерно {seed}, соль "), lot
    finally:
        game.close()


def test_a_key_pressed_twice_says_so_with_the_keys_bound(tmp_path, chromium):
    game = Game(tmp_path, extra_config="[erudite]\nthink_time_s = 300\n[keys]\nend_game = [\"f6\"]\n")
    try:
        async def scenario():
            page = await host_page(chromium, game)
            rows = await page.wait_for("document.querySelectorAll('#keys tr').length > 3 && "
                                       "Object.fromEntries([...document.querySelectorAll('#keys tr')]"
                                       ".map(tr => [tr.querySelector('.a').textContent, tr.querySelector('.k').textContent]))")
            await page.close()
            return rows

        rows = run(scenario())
        assert rows["Закончить игру"] == "F6 дважды"           # the key bound, not the default F4
        assert rows["Выход"] == "Esc дважды"
        assert rows["Ответ верный"].endswith("Enter") and "дважды" not in rows["Ответ верный"]
    finally:
        game.close()


def test_the_host_page_takes_the_words_of_a_game_started_again_in_another_language(tmp_path, chromium, monkeypatch):
    (tmp_path / "ru").mkdir()
    first = Game(tmp_path / "ru")
    port = first.port
    try:
        async def scenario():
            page = await host_page(chromium, first)
            assert await page.eval("document.querySelector('#presses-box h2').textContent") == "Порядок нажатий"
            first.close()                                   # the game ends; it is started again in English
            monkeypatch.setattr(browser, "free_port", lambda: port)
            (tmp_path / "en").mkdir()
            second = Game(tmp_path / "en", top='language = "en"\n')
            try:
                assert second.port == port
                await page.wait_for("document.documentElement.lang === 'en'")
                said = await page.wait_for("document.querySelector('#presses-box h2').textContent === 'Press order'"
                                           " && document.querySelector('#presses-box h2').textContent")
                await page.close()
                return said
            finally:
                second.close()

        assert run(scenario()) == "Press order"
    finally:
        first.close()
