"""A whole Эрудит-квартет game run from a phone (#14 "Done means"): the host uses only the
/host page in real Chromium with a phone's screen (390×844, touch), the players press their
buttons (the terminal's team keys of ``buzzer run --headless``), the projector's page ``/``
shows only the audience view all along.  And a rename typed on the phone shows on ``/``.
Screenshots land in the test's tmp folder."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.request
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pytest  # noqa: E402

from tests.browser import WAIT_S, Chromium, Game, run  # noqa: E402

# thinking time long enough for a page on a busy machine: no question runs out while the phone acts
SHORT_GAME = "[erudite]\nfights = 1\nrounds_per_fight = 2\nnominals = [10, 20]\nthink_time_s = 300\n"
HOLDER = "document.querySelector('#holder:not([hidden]) .name')?.textContent"
# every text the audience page ever showed, recorded by the page itself (a MutationObserver)
RECORD = """(() => { window.seen = new Set([document.documentElement.outerHTML]);
  new MutationObserver(() => window.seen.add(document.documentElement.outerHTML))
    .observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  return true; })()"""

# every notice the host page showed, recorded by the page itself
WATCH_NOTICES = """(() => { if (window.noticesSeen) return true;
  window.noticesSeen = new Set();
  const note = () => { const n = document.getElementById('notice');
    if (n && !n.hidden && n.textContent) window.noticesSeen.add(n.textContent); };
  note();
  new MutationObserver(note).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
  return true; })()"""


@pytest.fixture
def game(tmp_path):
    # a host who taps as fast as a quiet machine lets the test tap: this test is not about the
    # rate limit (test_web_server.py is), so the host's bucket is wide
    g = Game(tmp_path, extra_config=SHORT_GAME, web_config="host_rate_per_s = 100.0\nhost_burst = 100\n")
    yield g
    g.close()


@pytest.fixture
def chromium(tmp_path):
    c = Chromium(tmp_path, size=(390, 844))
    yield c
    c.close()


def state(game) -> dict:
    with urllib.request.urlopen(game.base + "/api/state", timeout=WAIT_S) as r:
        return json.loads(r.read())


async def phone(chromium, url):
    page = await chromium.page(url)
    await page.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
    await page.call("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
    return page


class Host:
    """The host's phone: taps on /host only."""

    def __init__(self, page, tmp):
        self.page = page
        self.tmp = tmp
        self.notices: set[str] = set()
        self.shots = 0

    async def touch(self, action: str) -> None:
        """One real tap on the button's centre (touch events, as a phone sends them)."""
        sel = f"button[data-action={action}]"
        await self.page.wait_for(f"!!document.querySelector('{sel}')")
        box = await self.page.eval(f"(() => {{ const b = document.querySelector('{sel}'); b.scrollIntoView({{block: 'center'}});"
                                   f" const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        for kind in ("touchStart", "touchEnd"):
            points = [{"x": box[0], "y": box[1]}] if kind == "touchStart" else []
            await self.page.call("Input.dispatchTouchEvent", type=kind, touchPoints=points)

    async def tap(self, action: str, twice: bool = False) -> None:
        """Tap the action's button (``twice``: an action that ends a stage asks for a second tap)."""
        await self.page.wait_for(f"!!document.querySelector('button[data-action={action}]')")
        await self.page.eval("document.getElementById('result').textContent = ''")
        await self.touch(action)
        if twice:
            await self.page.wait_for(f"document.querySelector('button[data-action={action}]').classList.contains('armed')")
            await self.touch(action)
        if not await self.page.eval(f"!!document.querySelector('form[data-action={action}]')"):
            await self.page.wait_for("document.getElementById('result').textContent.length > 0")
            result = await self.page.eval("document.getElementById('result').textContent")
            assert await self.page.eval("document.getElementById('result').className") == "result ok", (action, result)
        await self.note()

    async def watch(self) -> None:
        """Record every notice the page shows, as it shows it (on a busy machine a notice may
        come and go between two taps)."""
        await self.page.eval(WATCH_NOTICES)

    async def note(self) -> None:
        text = await self.page.eval("document.getElementById('notice').hidden ? '' : document.getElementById('notice').textContent")
        if text:
            self.notices.add(text)
        self.notices.update(await self.page.eval("window.noticesSeen ? [...window.noticesSeen] : []") or [])

    async def screenshot(self, name: str) -> None:
        self.shots += 1
        await self.page.screenshot(self.tmp / f"phone-{self.shots:02d}-{name}.png")

    async def score(self, team: int) -> str:
        return await self.page.eval(f"document.querySelectorAll('#teams .team .score')[{team}].textContent")


async def audience_and_phone(chromium, game, tmp) -> tuple:
    """The audience's page (recording every text it shows), the host's phone and its taps."""
    audience = await chromium.page(game.base + "/")
    await audience.wait_for("document.body.dataset.seq !== undefined")
    await audience.eval(RECORD)
    page = await phone(chromium, f"{game.base}/host#token={game.token}")
    return audience, page, Host(page, tmp)


def test_a_whole_game_from_the_phone(game, chromium, tmp_path):
    async def scenario():
        audience, page, host = await audience_and_phone(chromium, game, tmp_path)
        await page.wait_for("!!document.querySelector('button[data-action=question]')")
        await host.watch()
        assert await page.eval("document.documentElement.scrollWidth <= innerWidth")   # fits the phone
        await host.screenshot("start")
        # a host notice for the phone alone, whenever the page came up (the start-up hint lasts
        # 6 s, gone before a busy machine shows the page): «wrong» with nobody answering
        await host.tap("wrong")
        await page.wait_for("window.noticesSeen.size > 0")

        async def question(number, nominal):   # the number in the game, the nominal
            before = await page.eval("document.getElementById('question').textContent")
            await host.tap("question")
            await page.wait_for(f"document.getElementById('question').textContent !== {json.dumps(before)} && "
                                f"document.getElementById('question').textContent.endsWith(' · {nominal}')")
            assert (await page.eval("window.buzzer.last.audience.game.question.number")) == number
            await host.tap("reading_done")
            await page.wait_for("!document.getElementById('countdown').hidden")

        async def press(key, name):
            for view in (page, audience):         # the last ruling has reached both pages
                await view.wait_for(f"({HOLDER}) === undefined")
            game.type(key)                       # the team's button
            await page.wait_for(f"({HOLDER}) === '{name}'")
            await audience.wait_for(f"({HOLDER}) === '{name}'")

        async def scores(want):
            js = "[...document.querySelectorAll('#teams .team .score')].map(e => e.textContent).join(' ')"
            await page.wait_for(f"{js} === '{want}'")
            await audience.wait_for(f"{js} === '{want}'")

        # round 1, question 1 (10): Альфа right
        await question(1, 10)
        await press("q", "Альфа")
        await host.screenshot("alpha-answers")
        await host.tap("right")
        await scores("10 0 0 0")
        # question 2 (20): Бета wrong, then Гамма takes the next answer right (§4.6) ...
        await question(2, 20)
        await press("z", "Бета")
        await host.tap("wrong")
        await scores("10 -20 0 0")
        await press("p", "Гамма")
        await host.tap("right")
        await scores("10 -20 20 0")
        # ... the host undoes that ruling: Гамма holds the answer again, and it is wrong
        await page.wait_for("document.getElementById('undo').textContent.includes('Гамма')")
        await host.screenshot("undo-preview")
        await host.tap("undo")
        await scores("10 -20 0 0")
        await page.wait_for(f"({HOLDER}) === 'Гамма'")
        await host.tap("wrong")
        await press("m", "Дельта")
        await host.tap("right")
        await scores("10 -20 -20 20")
        # a pause and back, then the next round
        await host.tap("pause")
        for view in (page, audience):
            await view.wait_for("!document.getElementById('paused').hidden")
        await host.screenshot("paused")
        await host.tap("pause")
        for view in (page, audience):
            await view.wait_for("document.getElementById('paused').hidden")
        await host.tap("next_round", twice=True)
        # round 2: Альфа right (10), Бета right (20): the last question ends the game
        await question(3, 10)
        await press("q", "Альфа")
        await host.tap("right")
        await question(4, 20)
        await press("z", "Бета")
        await host.tap("right")
        await scores("20 0 -20 20")
        await audience.wait_for("!document.getElementById('standings-box').hidden")
        await host.screenshot("final")
        await audience.screenshot(tmp_path / "audience-final.png")
        standings = await audience.eval("[...document.querySelectorAll('#standings tr')]"
                                        ".map(r => [...r.children].map(c => c.textContent).join(' '))")
        await host.note()
        seen = await audience.eval("[...window.seen].join('\\n')")
        keys = await page.eval("[...document.querySelectorAll('#keys td.a')].map(e => e.textContent)")
        await page.close()
        await audience.close()
        return standings, seen, host.notices, keys

    standings, seen, notices, keys = run(scenario())
    assert standings[0].split()[1:] == ["Альфа", "20"] and standings[-1].split()[1:] == ["Гамма", "-20"]
    final = state(game)["audience"]["game"]
    assert [t["score"] for t in final["teams"]] == [20, 0, -20, 20]
    journal = [json.loads(line.split(" ", 1)[1]) for line in game.journal().splitlines()[1:]]
    actions = [e.get("action") for e in journal if e.get("type") == "host"]
    for a in ("question", "reading_done", "right", "wrong", "undo", "pause", "resume", "next_round"):
        assert a in actions, a
    # the projector's page never showed anything of the host's
    assert game.token not in seen
    assert notices, "the host page showed no notice at all: nothing checked"
    # the key help's «Время капитана» is also the captain's timer's name, which the projector
    # and the audience's page show everyone
    for text in notices | set(keys) - {"Время капитана"}:
        assert text not in seen, text


def test_a_rename_on_the_phone_shows_on_the_audience_page(game, chromium, tmp_path):
    async def scenario():
        audience = await chromium.page(game.base + "/")
        await audience.wait_for("document.querySelectorAll('#teams .team').length === 4")
        page = await phone(chromium, f"{game.base}/host#token={game.token}")
        host = Host(page, tmp_path)
        await host.tap("rename")
        await page.wait_for("!document.querySelector('form[data-action=rename]').hidden")
        await page.eval("(() => { const f = document.querySelector('form[data-action=rename]');"
                        " f.querySelector('select').value = '2'; f.querySelector('input[name=name]').value = 'Ястребы';"
                        " return true; })()")
        maxlen = await page.eval("document.querySelector('form[data-action=rename] input[name=name]').maxLength")
        await host.screenshot("rename-form")
        await page.eval("document.querySelector('form[data-action=rename] button.send').click()")
        name = await audience.wait_for("document.querySelectorAll('#teams .team .name')[1].textContent === 'Ястребы'"
                                       " && document.querySelectorAll('#teams .team .name')[1].textContent")
        await host.screenshot("renamed")
        await page.close()
        await audience.close()
        return name, maxlen

    name, maxlen = run(scenario())
    assert name == "Ястребы" and maxlen == 40
    hosts = [json.loads(line.split(" ", 1)[1]) for line in game.journal().splitlines()[1:]]
    renames = [e for e in hosts if e.get("type") == "host" and e.get("action") == "rename"]
    assert len(renames) == 1 and renames[0]["params"] == {"team": 2, "name": "Ястребы"}
    assert [t["name"] for t in state(game)["audience"]["game"]["teams"]][:2] == ["Альфа", "Ястребы"]


def test_ending_the_game_on_the_phone_needs_a_second_tap(game, chromium, tmp_path):
    button = "document.querySelector('button[data-action=end_game]')"

    def ended() -> bool:
        return any(json.loads(line.split(" ", 1)[1]).get("action") == "end_game"
                   for line in game.journal().splitlines()[1:])

    async def scenario():
        page = await phone(chromium, f"{game.base}/host#token={game.token}")
        host = Host(page, tmp_path)
        await page.wait_for(f"!!{button}")
        label = await page.eval(f"{button}.textContent")
        await host.touch("end_game")                 # one tap: the button asks, nothing is sent
        asked = await page.wait_for(f"{button}.textContent.startsWith('Нажмите ещё раз') && {button}.textContent")
        await host.screenshot("end-game-armed")
        # the question goes on: the time to confirm runs out, the button is itself again
        await page.wait_for(f"{button}.textContent === {json.dumps(label)}")
        sent_after_one = ended() or await page.eval("document.getElementById('result').textContent")
        await host.touch("end_game")                 # a tap after that asks again ...
        await page.wait_for(f"{button}.classList.contains('armed')")
        await page.wait_for(f"{button}.textContent === {json.dumps(label)}")   # ... and runs out again
        sent_after_late = ended()
        await host.tap("end_game", twice=True)       # ... two taps within the time end the game
        end = asyncio.get_running_loop().time() + WAIT_S
        while not ended() and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(0.05)
        await page.close()
        return label, asked, sent_after_one, sent_after_late

    label, asked, sent_after_one, sent_after_late = run(scenario())
    assert label == "Закончить игру" and asked == "Нажмите ещё раз: закончить игру"
    assert not sent_after_one and not sent_after_late
    assert ended()


EVENT = Path(__file__).resolve().parents[1] / "examples" / "event.toml"


@pytest.mark.parametrize("mode, text, answer", [
    ("erudite", "Самая длинная река Европы.", "Волга"),     # examples/event.toml's first question
    ("chgk", "Вопрос 1", "Ответ 1"),                        # its first ЧГК tour
])
def test_the_phone_shows_the_event_files_question_and_answer_to_the_host_only(tmp_path, mode, text, answer):
    """#23 item 7: the host reads the question's text and its answer from the event file on the
    phone, in sight below the top block when the question is announced; the audience's page and
    the state without the token never carry them."""
    box = ("(() => ['q-text', 'answer'].map(id => { const e = document.getElementById(id), r = e.getBoundingClientRect();"
           " return [id, e.textContent, e.offsetParent !== null, r.top, r.bottom]; }))()")
    g = Game(tmp_path, extra_config="[erudite]\nthink_time_s = 300\n", top=f'mode = "{mode}"\n', args=("--event", str(EVENT)),
             web_config="host_rate_per_s = 100.0\nhost_burst = 100\n")
    c = Chromium(tmp_path, size=(390, 844))
    try:
        async def scenario():
            audience, page, host = await audience_and_phone(c, g, tmp_path)
            await host.tap("question")
            await page.wait_for(f"document.getElementById('q-text').textContent === {json.dumps(text)}")
            await page.eval("window.scrollTo(0, 0)")
            await page.fonts_ready()
            got = await page.eval(box)
            await host.screenshot(f"{mode}-question-text")
            seq = await page.eval("window.buzzer.seq()")
            await audience.wait_for(f"window.buzzer.seq() >= {seq}")      # the audience has the same state
            seen = await audience.eval("[...window.seen].join('\\n')")
            await page.close()
            await audience.close()
            return got, seen

        got, seen = run(scenario())
        public = json.dumps(state(g), ensure_ascii=False)
    finally:
        c.close()
        g.close()
    assert [(name, shown) for name, _, shown, _, _ in got] == [("q-text", True), ("answer", True)], got
    assert got[0][1] == text and got[1][1] == answer, got
    for name, _, _, top, bottom in got:
        assert 0 <= top and bottom <= 844, (name, top, bottom)   # on the screen without scrolling
    for secret in (text, answer):
        assert secret not in seen and secret not in public, secret


def test_the_pages_show_the_captains_timer_and_the_holder_over_it(game, chromium, tmp_path):
    """#23 item 8 on the pages: the captain's timer (C) shows by its name where a question's
    countdown would; with a question and a press, the holder has its place on the host's phone and
    on the audience's page, the question's countdown beside it and the captain's timer a small line."""
    cd = ("(() => { const b = document.getElementById('countdown'), l = b.querySelector('.cd-label'),"
          " c = b.querySelector('.cd-captain'), h = document.getElementById('holder');"
          " const r = h.getBoundingClientRect();"
          " return {shown: !b.hidden, label: l.hidden ? '' : l.textContent, number: b.querySelector('.cd-number').textContent,"
          " small: c.hidden ? '' : c.textContent, holder: h.hidden ? '' : h.querySelector('.name').textContent,"
          " holder_box: [r.width, r.height]}; })()")

    async def scenario():
        audience, page, host = await audience_and_phone(chromium, game, tmp_path)
        await host.tap("captain")
        for view in (page, audience):
            await view.wait_for("document.querySelector('#countdown .cd-label').textContent === 'Время капитана'")
        alone = [await view.eval(cd) for view in (page, audience)]
        await host.screenshot("captain-alone")
        await host.tap("question")
        await host.tap("reading_done")
        game.type("q")                                  # Альфа's button
        for view in (page, audience):
            await view.wait_for(f"({HOLDER}) === 'Альфа'")
            await view.wait_for("document.querySelector('#countdown .cd-captain').textContent.startsWith('Время капитана ')")
        holding = [await view.eval(cd) for view in (page, audience)]
        await host.screenshot("captain-and-holder")
        await audience.screenshot(tmp_path / "audience-captain-and-holder.png")
        await page.close()
        await audience.close()
        return alone, holding

    alone, holding = run(scenario())
    for got in alone:
        assert got["shown"] and got["label"] == "Время капитана" and got["small"] == "" and got["holder"] == "", got
        assert 0 < float(got["number"]) <= 60, got
    for got in holding:
        assert got["holder"] == "Альфа" and min(got["holder_box"]) > 0, got
        assert got["label"] == "" and float(got["number"]) > 60, got   # the thinking time (300 s here), not the minute
        assert 0 < float(got["small"].split()[-1]) <= 60, got


MAFIA_CARDS = "[...document.querySelectorAll('#teams .team .score')].map(e => e.textContent)"


def test_the_mafia_seat_actions_take_a_seat_picked_on_the_phone(tmp_path):
    """The phone has no digits to type a seat with: each «Мафия» seat action (a foul, a
    nomination, a vote ...) is a small form with a seat picker, and the seat picked is the one
    the action acts on (a foul to seat 3 shows on seat 3's card on both pages; a vote counts)."""
    g = Game(tmp_path, top='mode = "mafia"\n', web_config="host_rate_per_s = 100.0\nhost_burst = 100\n")
    c = Chromium(tmp_path, size=(390, 844))
    try:
        async def scenario():
            audience, page, host = await audience_and_phone(c, g, tmp_path)
            await page.wait_for("document.querySelectorAll('#teams .team').length === 10")
            await host.watch()

            async def form(action, **fields):
                await host.tap(action)
                sel = f"form[data-action={action}]"
                await page.wait_for(f"!document.querySelector('{sel}').hidden")
                labels = await page.eval(f"[...document.querySelectorAll('{sel} .field-name')].map(e => e.textContent)")
                filled = json.dumps({k: str(v) for k, v in fields.items()})
                await page.eval(f"(() => {{ const f = document.querySelector('{sel}'), v = {filled};"
                                " for (const k in v) f.querySelector('[name=' + k + ']').value = v[k];"
                                " return true; })()")
                if action == "vote":
                    await host.screenshot("mafia-vote-form")
                await page.eval(f"document.querySelector('{sel} button.send').click()")
                await page.wait_for("document.getElementById('result').textContent.length > 0")
                result = await page.eval("[document.getElementById('result').className,"
                                         " document.getElementById('result').title]")
                assert result == ["result ok", ""], (action, fields, result)
                await host.note()
                return labels

            foul_labels = await form("foul", seat=3)
            for view in (page, audience):
                await view.wait_for(f"{MAFIA_CARDS}[2] === '⚠'")
            cards = await audience.eval(MAFIA_CARDS)
            await form("nominate", seat=5, by=1)
            vote_labels = await form("vote", seat=3, candidate=5)
            await page.wait_for("[...window.noticesSeen].includes('Игрок 5: голосов 1')")
            await host.note()
            await host.screenshot("mafia-voted")
            await page.close()
            await audience.close()
            return foul_labels, vote_labels, cards, host.notices

        foul_labels, vote_labels, cards, seen = run(scenario())
        final = state(g)["audience"]["game"]
    finally:
        c.close()
        g.close()
    assert foul_labels == ["Место"] and vote_labels == ["Место", "Кандидат"]
    assert cards == ["", "", "⚠", "", "", "", "", "", "", ""]
    assert [s["fouls"] for s in final["seats"]] == [0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
    assert {"Игрок 3: фол (1)", "Выставлен игрок 5 (выставил игрок 1)", "Игрок 5: голосов 1"} <= seen
    assert not any("номер" in n.lower() for n in seen), seen      # never «type the seat's number»
    hosts = [json.loads(line.split(" ", 1)[1]) for line in g.journal().splitlines()[1:]]
    got = [(e["action"], e.get("params")) for e in hosts if e.get("type") == "host"]
    assert got == [("foul", {"seat": 3}), ("nominate", {"seat": 5, "by": 1}), ("vote", {"seat": 3, "candidate": 5})]
