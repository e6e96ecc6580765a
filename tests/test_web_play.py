"""Phones as the teams' buttons in a real Chromium (issue 27): two phone pages (/play, 390×844)
joined with two teams' links from the host page, against a real ``buzzer run --headless``.
The team that pressed first holds the answer, each phone says what the game answered it, and
two presses closer than their uncertainty are a tie «±N мс» on the phones and the audience page.
Screenshots land in the test's tmp folder."""

from __future__ import annotations

import asyncio
import math
import json
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pytest  # noqa: E402

from tests.browser import (PHONE_SIZE, WAIT_S, Chromium, Game, buzz_centre, game_and_phones, phone_tab,  # noqa: E402
                           run, state, team_links, until)

# a touch latency of 200 ms (the most the config allows) makes each phone press ±200 ms or more:
# two presses made by two DevTools calls at once are a tie unless a loaded machine lands them
# further apart than that (tap_at_once then tries the next question); one later by more than both uncertainties is not
CONFIG = "[erudite]\nthink_time_s = 300\n[phones]\ntouch_latency_ms = 200.0\n"
ANSWER = "document.getElementById('answer').textContent"
SAID = ("(document.getElementById('answer').textContent + (document.getElementById('tie').hidden ? '' :"
        " ' · ' + document.getElementById('tie').textContent))")
"""The answer to the phone with its tie line («Вы отвечаете · Ничья ±24 мс: жребий выбрал: Альфа»)."""


@pytest.fixture
def game(tmp_path):
    g = Game(tmp_path, extra_config=CONFIG)
    yield g
    g.close()


@pytest.fixture
def chromium(tmp_path):
    c = Chromium(tmp_path, size=PHONE_SIZE)
    yield c
    c.close()


async def tap(page):
    """A press on the big button, as a finger's: the pointer event's own timeStamp is the press."""
    box = await buzz_centre(page)
    await page.call("Input.dispatchMouseEvent", type="mousePressed", x=box[0], y=box[1], button="left", clickCount=1)
    await page.call("Input.dispatchMouseEvent", type="mouseReleased", x=box[0], y=box[1], button="left", clickCount=1)


async def after_touch(first, then, ms: float):
    """Wait until ``ms`` after ``first``'s last touch on the pages' shared clock (both pages read
    ``performance.timeOrigin + performance.now()`` on this machine): the gap a test needs between
    two touches, counted from the touch itself, however late this coroutine runs."""
    at = await first.eval("window.buzzer.presses[window.buzzer.presses.length - 1].at")
    await then.wait_for(f"performance.timeOrigin + performance.now() > {at + ms}")


async def tap_at_once(game, a, b, tries: int = 5):
    """Both phones tap at once, closer than their uncertainty -- as far as the machine lets two
    DevTools calls land together: a loaded machine can deliver them further apart than that, and
    then the race is (rightly) no tie.  Such a round is ruled right and the next question tried,
    up to ``tries`` times; the answers both phones show once their presses are decided."""
    decided = f"/Вы отвечаете|нажала|Отвечает|Ничья/.test({ANSWER}) && {SAID}"
    for _ in range(tries):
        await asyncio.gather(tap(a), tap(b))
        said, other = await a.wait_for(decided), await b.wait_for(decided)
        if "ничья" in (said + other).lower():
            return said, other
        game.type("\r")                  # no tie this time: right, and the next question
        game.type("n ")
        await a.wait_for(ANSWER + " === 'Можно нажимать'")
    raise AssertionError(f"two taps at once were never closer than their uncertainty in {tries} tries")


def test_two_phones_the_first_holds_and_a_press_within_the_uncertainty_is_a_tie(game, chromium, tmp_path):
    host = state(game, game.token)["host"]["phones"]
    links = {t["name"]: t["url"] for t in host["teams"]}
    assert set(links) >= {"Альфа", "Бета"}
    assert all(u.startswith(game.base + "/play#t=") for u in links.values())
    assert len({u.split("#t=")[1] for u in links.values()}) == len(links)     # one token per team
    audience = json.dumps(state(game))
    assert "phones" not in audience and not any(u.split("#t=")[1] in audience for u in links.values())

    async def scenario():
        alpha = await phone_tab(chromium, links["Альфа"])
        beta = await phone_tab(chromium, links["Бета"])
        assert await alpha.eval("document.getElementById('team').textContent") == "Альфа"
        game.type("n ")                  # the next question; reading done: the countdown starts
        await alpha.wait_for(ANSWER + " === 'Можно нажимать'")
        await tap(beta)
        await beta.wait_for(ANSWER + " === 'Вы отвечаете'")
        await alpha.wait_for(ANSWER + " === 'Отвечает команда Бета'")
        # Альфа presses later than Бета by more than both presses' uncertainties (±200 ms touch
        # latency plus each phone's sync bound), with a margin
        bound = max(await alpha.eval("window.buzzer.bound()"), await beta.eval("window.buzzer.bound()"))
        await after_touch(beta, alpha, 2 * (200 + bound) + 200)
        await tap(alpha)
        # later than Бета's beyond both uncertainties: no tie; Бета still answers (Альфа's press is
        # «lost» or early, by how long after the decision it came)
        hall = await chromium.page(game.base + "/")
        rows = await hall.wait_for("[...document.querySelectorAll('#presses li')].map(e => e.textContent)"
                                   ".filter(t => t.includes('Альфа')).length && "
                                   "[...document.querySelectorAll('#presses li')].map(e => e.textContent)")
        assert rows[0].count("Бета") and not any("ничья" in r for r in rows)
        # the phone says that press's fate as the game recorded it: lost the race, or early
        # (after [arbiter] late_ms: the projector's «Альфа — Рано»), never just who answers
        await alpha.wait_for(f"['Раньше нажала команда Бета', 'Рано: отвечает команда Бета'].includes({ANSWER})")
        await hall.close()
        await beta.screenshot(tmp_path / "play-holder.png")
        await alpha.screenshot(tmp_path / "play-before.png")
        assert await beta.eval("document.getElementById('buzz').getBoundingClientRect().bottom") <= 844

        game.type("\r")                  # right: Бета scores; the next question
        game.type("n ")
        await alpha.wait_for(ANSWER + " === 'Можно нажимать'")
        said, other = await tap_at_once(game, alpha, beta)   # closer than their uncertainty
        # both phones say it was a tie and how the lot broke it, in the projector's words (the
        # host's notice on the projector: «…; жребий выбрал: Альфа»); the other team is not «first»
        winner = "Альфа" if said.startswith("Вы") else "Бета"
        ms = said.split("Ничья ±")[1].split(" мс")[0]
        lot = f"Ничья ±{ms} мс: жребий выбрал: {winner}"
        assert sorted((said, other)) == sorted([f"Вы отвечаете · {lot}", f"Отвечает команда {winner} · {lot}"]), \
            (said, other)
        until(lambda: f"±{ms} мс" in game.output() and f"жребий выбрал: {winner}" in game.output() or None,
              what="the projector's notice of the tie")
        notice = [line for line in game.output().splitlines() if f"жребий выбрал: {winner}" in line][-1]
        assert f"Ничья в пределах ±{ms} мс" in notice, notice
        await alpha.screenshot(tmp_path / "play-tie.png")
        hall = await chromium.page(game.base + "/")
        tags = await hall.wait_for("[...document.querySelectorAll('#presses .tag')].map(e => e.textContent)"
                                   ".filter(t => t.startsWith('ничья ±')).length === 2 && "
                                   "[...document.querySelectorAll('#presses .tag')].map(e => e.textContent)")
        assert len(tags) == 2
        hostp = await chromium.page(game.base + "/host#token=" + game.token)
        rows = await hostp.wait_for("[...document.querySelectorAll('#phones .phone')].map(e => e.textContent)")
        assert [r for r in rows if r.startswith("часы ±")] and len([r for r in rows if "задержка до" in r]) == 2
        assert rows.count("телефон не подключён") == 2                        # Гамма, Дельта
        await hostp.screenshot(tmp_path / "host-phones.png")
        for p in (alpha, beta, hall, hostp):
            await p.close()

    run(scenario())
    journal = game.journal()
    assert '"unc":' in journal                        # the phones' presses, journaled with it
    assert not any(u.split("#t=")[1] in journal for u in links.values())   # never their tokens
    assert not any(u.split("#t=")[1] in game.output() for u in links.values())


# -- several phones at once, one behind a slow path of the test's own -------------------------------

class Proxy:
    """A loopback TCP proxy of the test's own in front of the game's port: what a phone sends
    reaches the game ``up_ms`` later (set at any time: «the Wi-Fi got slow»), in order; the
    answers come back at once.  :meth:`drop` cuts every connection through it (the phone's Wi-Fi
    went away for a moment); it keeps listening."""

    def __init__(self, port):
        self.target = port
        self.up_ms = 0.0
        self.server = None
        self.port = 0
        self.conns = set()

    async def start(self):
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader, writer):
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self.conns.add((writer, up_w))
        loop = asyncio.get_running_loop()

        async def upstream():
            queue = asyncio.Queue()

            async def deliver():
                while True:
                    due, data = await queue.get()
                    if data is None:
                        break
                    await asyncio.sleep(max(0.0, due - loop.time()))   # the slow path itself
                    up_w.write(data)
                    await up_w.drain()
                up_w.close()

            sender = asyncio.ensure_future(deliver())
            try:
                while data := await reader.read(65536):
                    queue.put_nowait((loop.time() + self.up_ms / 1000, data))
            finally:
                queue.put_nowait((0, None))
                await asyncio.gather(sender, return_exceptions=True)

        async def downstream():
            try:
                while data := await up_r.read(65536):
                    writer.write(data)
                    await writer.drain()
            finally:
                writer.close()

        await asyncio.gather(upstream(), downstream(), return_exceptions=True)
        self.conns.discard((writer, up_w))

    def drop(self):
        for w, u in list(self.conns):
            w.transport.abort()
            u.transport.abort()

    async def close(self):
        self.drop()
        self.server.close()
        await self.server.wait_closed()


NETWORK = ("[erudite]\nthink_time_s = 300\n[phones]\ntouch_latency_ms = 5.0\nwait_max_ms = 800.0\n"
           "sync_interval_s = 0.4\nbound_max_ms = 60.0\n")


def host_phones(game, button) -> list[dict]:
    return next(t["phones"] for t in state(game, game.token)["host"]["phones"]["teams"] if t["button"] == button)


async def eventually(predicate, what, interval=0.25):
    """Poll ``predicate()`` (in a thread: the proxy runs on this loop) until it is truthy."""
    end = asyncio.get_running_loop().time() + WAIT_S
    value = None
    while asyncio.get_running_loop().time() < end:
        value = await asyncio.to_thread(predicate)
        if value:
            return value
        await asyncio.sleep(interval)
    raise AssertionError(f"not true within {WAIT_S} s: {what} (last {value!r})")


def test_a_phone_behind_a_slow_path_still_wins_when_it_pressed_first_and_reconnects_on_its_link(tmp_path):
    """Three phones at once: Альфа's and Гамма's straight to the game, Бета's through a proxy whose
    path to the game turns slow (300 ms).  Бета presses first, Альфа 120 ms later: Альфа's press
    comes first, Бета's 180 ms after it, and the race waited for it (the wait follows the measured
    path): Бета holds.  Then Бета's Wi-Fi drops: the page comes back on the same link by itself."""
    with game_and_phones(tmp_path, extra_config=NETWORK) as (game, chromium):
        urls = team_links(game)

        async def scenario():
            proxy = await Proxy(game.port).start()
            alpha = await phone_tab(chromium, urls["Альфа"])
            beta = await phone_tab(chromium, urls["Бета"].replace(f":{game.port}/", f":{proxy.port}/"))
            gamma = await phone_tab(chromium, urls["Гамма"])
            proxy.up_ms = 300.0               # the path turns slow; the phone's exchanges measure it
            await eventually(lambda: ((host_phones(game, "B") or [{}])[0].get("delay_ms") or 0) >= 300, "slow path seen")
            assert not host_phones(game, "B")[0]["over"]      # a slow path, but a well known clock
            game.type("n ")
            await alpha.wait_for(ANSWER + " === 'Можно нажимать'")
            await beta.wait_for(ANSWER + " === 'Можно нажимать'")
            await tap(beta)
            await after_touch(beta, alpha, 120)   # Альфа presses 120 ms after Бета (its press comes first)
            await tap(alpha)
            await beta.wait_for(ANSWER + " === 'Вы отвечаете'")
            await alpha.wait_for(ANSWER + " === 'Раньше нажала команда Бета'")
            assert await gamma.eval(ANSWER) == "Отвечает команда Бета"
            await beta.screenshot(tmp_path / "play-slow-holder.png")
            rows = state(game)["audience"]["game"]["question"]["presses"]
            assert [(r["team"], r["kind"]) for r in rows] == [("Бета", "answer"), ("Альфа", "lockout")], rows
            assert not any(r.get("tie") for r in rows)

            # Бета's Wi-Fi drops for a moment: the page reconnects with the same link
            proxy.up_ms = 0.0
            first = host_phones(game, "B")[0]["id"]
            await beta.wait_for("window.buzzer.me() !== null")
            proxy.drop()
            await beta.wait_for("window.buzzer.me() === null")
            await beta.wait_for("window.buzzer.me() !== null && window.buzzer.bound() !== null")
            await eventually(lambda: [p["id"] for p in host_phones(game, "B")] not in ([], [first]), "rejoined")
            assert len(host_phones(game, "B")) == 1 and await beta.eval("location.hash") == \
                "#" + urls["Бета"].split("#")[1]
            assert await beta.eval("document.getElementById('conn').textContent") == "На связи"
            for p in (alpha, beta, gamma):
                await p.close()
            await proxy.close()

        run(scenario())


REARM = ("[erudite]\nthink_time_s = 300\n[phones]\nuncertain_tie = \"rearm\"\ntouch_latency_ms = 200.0\n"
         "bound_max_ms = 40.0\nsync_interval_s = 0.4\n")


def test_rearm_in_the_browser_and_a_phone_over_the_bound_is_marked_and_kept_out(tmp_path):
    """[phones] uncertain_tie = "rearm": two phones pressing at once (closer than ±200 ms) are a tie,
    nobody answers and both phones say «Ничья ±N мс — нажмите ещё раз»; they press again.  Гамма's
    phone is behind a path so slow its clock is known only to ±60 ms or so (over bound_max_ms = 40):
    the host page marks it «неточно: вне гонок», its press is refused and the phone says why."""
    with game_and_phones(tmp_path, extra_config=REARM) as (game, chromium):
        urls = team_links(game)

        async def scenario():
            proxy = await Proxy(game.port).start()
            proxy.up_ms = 150.0
            alpha = await phone_tab(chromium, urls["Альфа"])
            beta = await phone_tab(chromium, urls["Бета"])
            gamma = await phone_tab(chromium, urls["Гамма"].replace(f":{game.port}/", f":{proxy.port}/"))
            await eventually(lambda: (host_phones(game, "C") or [{}])[0].get("over")
                             and host_phones(game, "C")[0].get("synced"), "Гамма over the bound")
            hostp = await chromium.page(game.base + "/host#token=" + game.token)
            over = await hostp.wait_for("[...document.querySelectorAll('#phones .phone.is-over')]"
                                        ".map(e => e.textContent)")
            assert len(over) == 1 and over[0].endswith("неточно: вне гонок"), over
            # the links are readable on the dark cards (light text, not the browser's default blue)
            ink = await hostp.eval("[...document.querySelectorAll('#phones .phone-link')].map(e => "
                                   "getComputedStyle(e).color.match(/\\d+/g).slice(0, 3).map(Number))")
            assert len(ink) == 4 and all(sum(c) / 3 > 150 for c in ink), ink
            game.type("n ")
            await gamma.wait_for(ANSWER + " === 'Можно нажимать'")
            await tap(gamma)
            await gamma.wait_for(ANSWER + " === 'Связь слишком неточная: нажатие не принято'")
            await gamma.screenshot(tmp_path / "play-over-bound.png")
            said, other = await tap_at_once(game, alpha, beta)   # closer than their uncertainty
            assert said == other and said.startswith("Ничья ±") and " · " not in said, said
            await alpha.screenshot(tmp_path / "play-rearm.png")
            assert not any(t.get("holder") for t in state(game)["audience"]["game"]["teams"])
            rows = state(game)["audience"]["game"]["question"]["presses"]
            assert sorted((r["team"], r["kind"]) for r in rows) == [("Альфа", "rearmed"), ("Бета", "rearmed")]
            await tap(beta)                                  # armed again: the next press answers
            await beta.wait_for(ANSWER + " === 'Вы отвечаете'")
            await alpha.wait_for(ANSWER + " === 'Отвечает команда Бета'")
            for p in (alpha, beta, gamma, hostp):
                await p.close()
            await proxy.close()

        run(scenario())


# -- what the phone says when: armed at the announcement, a press after the time ran out -----------

ARMED = "[erudite]\nthink_time_s = 1.0\n[phones]\ntouch_latency_ms = 5.0\n"


def test_the_phone_says_press_as_soon_as_a_press_is_taken_and_a_press_after_the_time_is_late(tmp_path):
    """Эрудит-квартет arms the buttons at the announcement (§4.6): after `N` alone the phone says
    «Можно нажимать» (not «Ждите вопроса»), and a tap then wins.  A tap after «Время!» (the
    question's time ran out, nobody pressed) says it came too late, not «Нажатие принято»."""
    with game_and_phones(tmp_path, extra_config=ARMED) as (game, chromium):
        urls = team_links(game)

        async def scenario():
            beta = await phone_tab(chromium, urls["Бета"])
            assert await beta.eval(ANSWER) == "Ждите вопроса"
            game.type("n")                   # announced; the reading goes on (no Space)
            await beta.wait_for(ANSWER + " === 'Можно нажимать'")
            await tap(beta)
            await beta.wait_for(ANSWER + " === 'Вы отвечаете'")
            game.type("\r")                  # right; the next question, its 1 s runs out unanswered
            game.type("n ")
            await beta.wait_for(ANSWER + " === 'Можно нажимать'")
            until(lambda: (state(game)["audience"]["game"]["question"] or {}).get("closed") == "time",
                  what="the time ran out")
            assert await beta.wait_for(ANSWER + " !== 'Можно нажимать' && " + ANSWER) == 'Ждите вопроса'
            await tap(beta)
            await beta.wait_for(ANSWER + " === 'Поздно: время уже вышло'")
            assert "принято" not in await beta.eval("document.getElementById('detail').textContent")
            await beta.screenshot(tmp_path / "play-late.png")
            await beta.close()

        run(scenario())


@pytest.mark.parametrize("bind", ["127.0.0.1", "0.0.0.0"])
def test_the_host_page_says_beside_the_phone_links_when_no_phone_can_open_them(tmp_path, bind):
    """With the default bind the phone links (and their QR codes) are 127.0.0.1's: the host page
    says so next to them and how to bind; bound to the hall's network it says nothing of it."""
    with game_and_phones(tmp_path, web_config=f'bind = "{bind}"\n') as (game, chromium):
        async def scenario():
            hostp = await chromium.page(game.base + "/host#token=" + game.token)
            await hostp.wait_for("document.querySelectorAll('#phones .phone-link').length === 4")
            said = await hostp.eval("(() => { const e = document.getElementById('phone-local');"
                                    " return e.hidden || !e.offsetParent ? '' : e.textContent; })()")
            if bind == "127.0.0.1":
                assert said.startswith("Телефоны эти ссылки не откроют") and 'bind = "0.0.0.0"' in said, said
                await hostp.screenshot(tmp_path / "host-phones-local.png")
            else:
                assert said == ""
            await hostp.close()

        run(scenario())


# -- four teams on phones, two on wired buttons, one game ------------------------------------------

MIXED = """[erudite]
think_time_s = 300
max_teams = 6
[phones]
touch_latency_ms = 200.0
wait_max_ms = 1500.0
sync_interval_s = 0.4
bound_max_ms = 60.0
""" + "".join(f'[[teams]]\nname = "{n}"\nbutton = "{b}"\nkey = "{k}"\ncolor = "{c}"\nplayers = 4\n'
              for n, b, k, c in (("Альфа", "A", "q", "#e53935"), ("Бета", "B", "z", "#1e88e5"),
                                 ("Гамма", "C", "p", "#43a047"), ("Дельта", "D", "m", "#fdd835"),
                                 ("Эпсилон", "E", "e", "#8e24aa"), ("Зета", "F", "y", "#fb8c00")))
"""Six teams: Альфа … Дельта press with phones (±200 ms of touch latency each: a wired press
within that of a phone's is a tie), Эпсилон (key E) and Зета (key Y) with wired buttons (the
keyboard: the loop's sink, exact stamps).  A race waits up to 1.5 s for a slow phone."""

ROWS = ("[...document.querySelectorAll('#presses li')].map(li => [li.querySelector('.who').textContent,"
        " (li.querySelector('.gap') || li.querySelector('.tag')).textContent])")


def question_rows(game) -> list[dict]:
    return (state(game)["audience"]["game"].get("question") or {}).get("presses") or []


def test_four_teams_on_phones_and_two_on_wired_buttons_every_press_says_how_sure_it_is(tmp_path):
    """Four phones (Дельта's behind a path slow enough that every race waits ~0.9 s for it) and
    two wired buttons in one game.  Альфа's phone presses first, Эпсилон's wired button later by
    more than the phone's uncertainty, in the same race: Альфа holds, and the press order on the
    audience page, the host page (and its race record) and the terminal shows Альфа's gap with
    «±N мс» and Эпсилон's exact.  Then Бета's phone and Зета's button press at once: a tie
    within ±N ms, shown as «ничья ±N мс» on both presses, the wired one's too."""
    with game_and_phones(tmp_path, extra_config=MIXED) as (game, chromium):
        urls = team_links(game)
        assert set(urls) == {"Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Зета"}

        async def next_question(*pages):
            game.type("\r")                  # right: the holder scores; the next question
            game.type("n ")
            for p in pages:
                await p.wait_for(ANSWER + " === 'Можно нажимать'")

        async def scenario():
            proxy = await Proxy(game.port).start()
            alpha = await phone_tab(chromium, urls["Альфа"])
            beta = await phone_tab(chromium, urls["Бета"])
            gamma = await phone_tab(chromium, urls["Гамма"])
            delta = await phone_tab(chromium, urls["Дельта"].replace(f":{game.port}/", f":{proxy.port}/"))
            proxy.up_ms = 900.0               # Дельта's Wi-Fi is slow: every race waits for its presses
            await eventually(lambda: ((host_phones(game, "D") or [{}])[0].get("delay_ms") or 0) >= 900, "slow path seen")
            hostp = await chromium.page(game.base + "/host#token=" + game.token)
            cards = await hostp.wait_for("[...document.querySelectorAll('#phones .phone')].map(e => e.textContent)"
                                         ".filter(t => t.includes('задержка до')).length === 4 && "
                                         "[...document.querySelectorAll('#phones .phone')].map(e => e.textContent)")
            assert cards.count("телефон не подключён") == 2, cards         # Эпсилон, Зета: wired
            hall = await chromium.page(game.base + "/")
            game.type("n ")
            await alpha.wait_for(ANSWER + " === 'Можно нажимать'")

            # 1. a phone first, a wired button later than the phone's uncertainty, one race
            for _ in range(5):
                await tap(alpha)
                # the press's own answer («Нажатие принято: ±N мс»), not the clock's «Часы сверены: ±N мс»
                unc = float(await alpha.wait_for("(document.getElementById('detail').textContent"
                                                 ".match(/принято: ±([\\d.]+)/) || [])[1]"))
                await after_touch(alpha, alpha, unc + 150)
                game.type("e")                # Эпсилон's wired button
                said = await alpha.wait_for(f"/Вы отвечаете|нажала|Отвечает|Ничья/.test({ANSWER}) && {ANSWER}")
                assert said == "Вы отвечаете", (said, question_rows(game))
                rows = await eventually(lambda: [r for r in question_rows(game) if r["team"] in ("Альфа", "Эпсилон")
                                                 and r["wave"] == max(x["wave"] for x in question_rows(game))]
                                        if len(question_rows(game)) >= 2 else None, "both presses in the order")
                if [(r["team"], r["kind"]) for r in rows] == [("Альфа", "answer"), ("Эпсилон", "lockout")]:
                    break
                await next_question(alpha)     # Эпсилон's press came after the decision: again
            else:
                raise AssertionError(f"the wired press never came within the race's wait: {rows}")
            phone_row, wired_row = rows
            assert not any(r.get("tie") for r in rows) and "unc_ms" not in wired_row
            n = math.ceil(phone_row["unc_ms"] - 1e-9)
            gap = f"+{wired_row['gap_ms'] / 1000:.3f} с"
            want = [["Альфа", f"+0.000 с ±{n} мс"], ["Эпсилон", gap]]
            for page in (hall, hostp):
                shown = await page.wait_for(f"{ROWS}.length >= 2 && {ROWS}")
                assert shown[-2:] == want, shown
            race = await hostp.wait_for("[...document.querySelectorAll('#race li')].map(e => e.textContent)")
            assert f"±{n} мс" in race[0] and race[0].startswith("Альфа") and "мс" not in race[1], race
            await hall.screenshot(tmp_path / "mixed-hall.png")
            await hostp.screenshot(tmp_path / "mixed-host.png")
            until(lambda: f"Альфа +0.000 с ±{n} мс" in game.output() or None, what="the terminal's press order")
            assert f"Эпсилон {gap} ±" not in game.output()

            # 2. a phone and a wired button at once: a tie within the phone's uncertainty
            for _ in range(5):
                await next_question(alpha, beta)
                await asyncio.gather(tap(beta), asyncio.to_thread(game.type, "y"))
                rows = await eventually(lambda: [r for r in question_rows(game) if r["team"] in ("Бета", "Зета")
                                                 and r["wave"] == max(x["wave"] for x in question_rows(game))
                                                 and r["kind"] in ("answer", "lockout")]
                                        if any(r["kind"] == "answer" for r in question_rows(game)) and
                                        len(question_rows(game)) >= 2 else None, "both presses decided")
                if len(rows) == 2 and all(r.get("tie") for r in rows):
                    break
            else:
                raise AssertionError(f"a tap and a key at once were never within the phone's uncertainty: {rows}")
            tie = f"ничья ±{rows[0]['tie_ms']} мс"
            assert rows[0]["tie_ms"] == rows[1]["tie_ms"] >= 200
            shown = await hall.wait_for(f"{ROWS}.filter(r => r[1] === {json.dumps(tie, ensure_ascii=False)})"
                                        ".length === 2 && " + ROWS)
            assert sorted(r[0] for r in shown) == ["Бета", "Зета"], shown
            said = await beta.wait_for("/Ничья ±/.test(" + SAID + ") && " + SAID)
            assert said.split(" · ")[0] in ("Вы отвечаете", "Отвечает команда Зета"), said
            assert said.endswith(f"Ничья ±{rows[0]['tie_ms']} мс: жребий выбрал: "
                                 + ("Бета" if said.startswith("Вы") else "Зета")), said
            await hall.screenshot(tmp_path / "mixed-tie.png")
            for p in (alpha, beta, gamma, delta, hall, hostp):
                await p.close()
            await proxy.close()

        run(scenario())
