"""The phone endpoints' security (issue 27), against a real ``buzzer run --headless``: real HTTP
and WebSocket clients of the test's own speak /api/play and POST /api/phones as a phone (or a
forger) would.  A team's link presses for that team only; a wrong or renewed link, a foreign page,
an oversized or too fast sender are refused with the server's memory bounded; a forged clock
exchange or an absurd stamp cannot place a press outside what the sync allows (it is bounded and
flagged); nothing a phone sends changes another team's state; the links' tokens are in no
journal, log or world-readable file."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
import urllib.error
import urllib.request
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import aiohttp  # noqa: E402
import pytest  # noqa: E402

from tests.browser import WAIT_S, Game, until, state  # noqa: E402

CONFIG = "[erudite]\nthink_time_s = 300\n"
OFFSET_MS = 987_654.321
"""The test phones' clock runs this far from this computer's (any phone's clock is its own)."""


@pytest.fixture
def game(tmp_path):
    g = Game(tmp_path, extra_config=CONFIG)
    yield g
    g.close()


def links(game) -> dict[str, str]:
    """Button -> its team's token, from the host's view."""
    return {t["button"]: t["url"].split("#t=")[1] for t in state(game, game.token)["host"]["phones"]["teams"]}


def phones_of(game, button) -> list[dict]:
    return next(t["phones"] for t in state(game, game.token)["host"]["phones"]["teams"] if t["button"] == button)


def team(game, name) -> dict:
    return next(t for t in state(game)["audience"]["game"]["teams"] if t["name"] == name)


def renew(game, button, token=None, origin=None) -> int:
    req = urllib.request.Request(game.base + "/api/phones", data=json.dumps({"renew": button}).encode(), method="POST")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if origin:
        req.add_header("Origin", origin)
    try:
        with urllib.request.urlopen(req, timeout=WAIT_S) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def clock() -> float:
    """The test phone's clock, ms (as a page's performance.timeOrigin + performance.now())."""
    return time.monotonic_ns() / 1e6 + OFFSET_MS


class Phone:
    """A phone's WebSocket, spoken by the test: join, clock exchanges, presses."""

    def __init__(self, game, headers=None):
        self.url = game.base.replace("http", "ws") + "/api/play"
        self.headers = headers or {}
        self.session = self.ws = None
        self.me = None
        self.done = None
        self.views = 0

    async def open(self):
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(self.url, headers=self.headers, max_msg_size=0)
        return self

    async def join(self, token, **extra):
        await self.open()
        await self.ws.send_str(json.dumps({"t": "join", "token": token, **extra}))
        self.me = await self.reply("me", "error")
        return self.me

    async def reply(self, *kinds, timeout=WAIT_S):
        """The next message of one of ``kinds`` (the view models in between are counted)."""
        end = time.monotonic() + timeout
        while True:
            msg = await self.ws.receive(timeout=max(0.01, end - time.monotonic()))
            if msg.type != aiohttp.WSMsgType.TEXT:
                return {"closed": msg.type.name, "code": self.ws.close_code}
            data = json.loads(msg.data)
            if "seq" in data:
                self.views += 1
            elif data.get("t") in kinds:
                return data

    async def sync(self, n=6):
        """``n`` honest clock exchanges (the last completes the one before it)."""
        for _ in range(n):
            msg = {"t": "sync", "c": clock()}
            if self.done:
                msg["d"] = self.done
            await self.ws.send_str(json.dumps(msg))
            r = await self.reply("sync")
            self.done = [r["c"], clock()]
        await self.ws.send_str(json.dumps({"t": "sync", "c": clock(), "d": self.done}))
        self.done = None
        await self.reply("sync")

    async def press(self, at=None, sent=None, **extra):
        now = clock()
        await self.ws.send_str(json.dumps({"t": "press", "at": now if at is None else at,
                                           "sent": now if sent is None else sent, "n": 1, **extra}))
        return await self.reply("press")

    async def ended(self, timeout=WAIT_S):
        """Until the server ends the connection: its close code."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            msg = await self.ws.receive(timeout=max(0.01, end - time.monotonic()))
            if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING,
                            aiohttp.WSMsgType.ERROR):
                return self.ws.close_code
        raise AssertionError("the server did not end the connection")

    async def close(self):
        if self.ws is not None:
            await self.ws.close()
        if self.session is not None:
            await self.session.close()


async def until_joined(game, token) -> Phone:
    """A phone joined with ``token`` once the server takes joins from this address again (the
    wrong tokens' limit refills at [web] host_rate_per_s)."""
    end = time.monotonic() + WAIT_S
    while True:
        p = Phone(game)
        r = await p.join(token)
        if r.get("t") == "me":
            return p
        await p.close()
        assert r.get("why") == "too many requests" and time.monotonic() < end, r
        await asyncio.sleep(0.2)


def journal_presses(game) -> list[dict]:
    """The phones' presses in the journal (each line: its checksum, then the record)."""
    recs = [json.loads(line.split(" ", 1)[1]) for line in game.journal().splitlines() if line.strip()]
    return [r for r in recs if r.get("type") == "press" and "unc" in r]


def run(coro):
    return asyncio.run(coro)


async def armed(game):
    game.type("n ")        # the next question; reading done: the countdown starts
    until(lambda: (state(game)["audience"]["game"].get("countdown") or {}).get("running"), what="armed")


# -- a team's link is that team's button, and nothing else ------------------------------------

def test_a_team_s_link_presses_for_its_team_only_whatever_the_phone_claims(game):
    tokens = links(game)

    async def scenario():
        alpha = Phone(game)
        me = await alpha.join(tokens["A"], button="B", team="Бета")    # a claim of another team: ignored
        assert me["t"] == "me" and me["button"] == "A"
        await alpha.sync()
        await armed(game)
        r = await alpha.press(button="B", team="Бета")
        assert r["ok"]
        until(lambda: team(game, "Альфа").get("holder"), what="Альфа holds")
        rows = state(game)["audience"]["game"]["question"]["presses"]
        assert [x["team"] for x in rows] == ["Альфа"] and not team(game, "Бета").get("holder")
        await alpha.close()

    run(scenario())


def test_a_wrong_or_renewed_link_is_refused_and_only_the_host_renews(game):
    tokens = links(game)

    async def scenario():
        alpha = Phone(game)
        assert (await alpha.join(tokens["A"]))["button"] == "A"
        assert renew(game, "A") == 401                                    # no host token
        assert renew(game, "A", game.token, origin="http://evil.example") == 403
        assert renew(game, "A", tokens["A"]) == 401                      # a team's token is not the host's
        assert renew(game, "A", game.token) == 200
        assert await alpha.ended() == 4001                               # its phones are told and let go
        await alpha.close()
        old = Phone(game)
        assert await old.join(tokens["A"]) == {"t": "error", "why": "bad token"}
        await old.close()
        whys = []
        for bad in ("", "x" * 43, tokens["A"][:-1] + ("A" if tokens["A"][-1] != "A" else "B"), tokens["A"] + "x",
                    "é" * 30, 12345, None, *(f"guess{i:038d}" for i in range(12))):
            p = Phone(game)
            r = await p.join(bad)
            assert r["t"] == "error", bad
            whys.append(r["why"])
            await p.ended()
            await p.close()
        # wrong links, then a guesser's burst: refused without even a comparison
        assert whys[:5] == ["bad token"] * 5 and whys[-1] == "too many requests", whys
        new = links(game)
        assert new["A"] != tokens["A"] and new["B"] == tokens["B"]
        fresh = await until_joined(game, new["A"])
        assert fresh.me["button"] == "A"
        await fresh.close()

    run(scenario())


def test_a_foreign_page_cannot_open_a_phone_connection(game):
    token = links(game)["A"]

    async def scenario():
        for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                        {"Origin": game.base.replace("127.0.0.1", "localhost")},
                        {"Host": f"evil.example:{game.port}"}):
            p = Phone(game, headers)
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await p.join(token)
            assert e.value.status == 403, headers
            await p.close()
        same = Phone(game, {"Origin": game.base})                       # the page itself
        assert (await same.join(token))["button"] == "A"
        await same.close()

    run(scenario())


# -- sizes and rates -------------------------------------------------------------------------------

def rss_kb(root_pid: int) -> int:
    """Resident memory of ``buzzer run`` and every process under it (its pages' process), kB."""
    kids: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d.name))
    total, todo = 0, [root_pid]
    while todo:
        pid = todo.pop()
        todo += kids.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def test_oversized_and_too_fast_senders_are_cut_off_with_memory_bounded(game):
    tokens = links(game)

    async def scenario():
        beta = Phone(game)
        await beta.join(tokens["B"])
        await beta.sync()
        # one message over the 256 bytes a phone may send: the connection ends
        p = Phone(game)
        await p.join(tokens["A"])
        await p.ws.send_str(json.dumps({"t": "sync", "c": clock(), "pad": "x" * 300}))
        assert await p.ended() == 1009
        await p.close()
        before = rss_kb(game.proc.pid)
        blob = "x" * (4 << 20)          # 4 MB a frame, forty times: refused, not kept
        for _ in range(40):
            p = Phone(game)
            await p.join(tokens["A"])
            try:
                await p.ws.send_str(blob)
            except (ConnectionError, aiohttp.ClientError):
                pass
            await p.ended()
            await p.close()
        grown = rss_kb(game.proc.pid) - before
        assert grown < 40_000, f"the server grew by {grown} kB"     # not the 160 MB sent
        # faster than [phones] rate_per_s (20 a second, a burst of as many): the connection ends
        p = Phone(game)
        await p.join(tokens["A"])
        for _ in range(200):
            try:
                await p.ws.send_str(json.dumps({"t": "sync", "c": clock()}))
            except (ConnectionError, aiohttp.ClientError):
                break
        answers = 0
        while True:
            r = await p.reply("sync")
            if "closed" in r:
                break
            answers += 1
        assert answers <= 25, answers
        await p.close()
        # meanwhile Бета's phone was answered as before, and the pages still are
        await beta.sync(2)
        assert phones_of(game, "B")[0]["synced"]
        await beta.close()

    run(scenario())


# -- forged clock exchanges and stamps -------------------------------------------------------------

def test_a_forged_clock_exchange_is_not_believed(game):
    tokens = links(game)

    async def scenario():
        p = Phone(game)
        await p.join(tokens["A"])
        # completions of exchanges this computer never answered, one with the answer's T0 and a
        # T3 before it (a round trip shorter than nothing): no sample, the phone stays unsynced
        await p.ws.send_str(json.dumps({"t": "sync", "c": clock(), "d": [clock() - 50, clock()]}))
        r = await p.reply("sync")
        await p.ws.send_str(json.dumps({"t": "sync", "c": clock(), "d": [r["c"], r["c"] - 5]}))
        await p.reply("sync")
        for bad in ({"t": "sync", "c": "now"}, {"t": "sync", "c": 1e300}, {"t": "sync", "c": True},
                    {"t": "sync", "c": clock(), "d": ["a", None]}, {"t": "sync", "c": clock(), "d": [1, 2, 3]}):
            await p.ws.send_str(json.dumps(bad))
        await p.ws.send_str(json.dumps({"t": "sync", "c": clock()}))
        await p.reply("sync")
        assert [x["synced"] for x in phones_of(game, "A")] == [False]
        await armed(game)
        t0 = time.monotonic()
        r = await p.press()       # kept for a first exchange that never comes, then refused
        assert r["ok"] is False and r["why"] == "sync"               # not synced: no press
        assert time.monotonic() - t0 >= 3.0                          # [phones] first_sync_wait_s
        assert not team(game, "Альфа").get("holder")
        await p.close()

    run(scenario())


def test_a_tap_right_after_the_page_opens_is_kept_for_the_first_exchange_and_wins(game):
    """The press comes before any round trip is done: it is answered only once the first one
    is (not refused, not taken without a clock), and then the team holds the question."""
    tokens = links(game)

    async def scenario():
        p = Phone(game)
        await p.join(tokens["A"])
        await armed(game)
        now = clock()
        await p.ws.send_str(json.dumps({"t": "press", "at": now, "sent": now, "n": 1}))
        answers, done = [], None
        while not answers:   # the page's first exchanges: the press is answered once one is done
            await p.ws.send_str(json.dumps({"t": "sync", "c": clock(), **({"d": done} if done else {})}))
            r = await p.reply("sync", "press", timeout=10)
            if r["t"] == "press":
                answers.append(r)
            else:
                done = [r["c"], clock()]
        r = answers[0]
        assert r["ok"] is True and r["unc_ms"] > 0, r
        until(lambda: team(game, "Альфа").get("holder"), what="Альфа holds the question")
        await p.close()

    run(scenario())


def test_an_absurd_stamp_is_bounded_to_what_the_sync_allows_and_flagged(game):
    tokens = links(game)

    async def scenario():
        p = Phone(game)
        await p.join(tokens["A"])
        await p.sync()
        bound = phones_of(game, "A")[0]
        await armed(game)
        now = clock()
        # a press «made and sent» three seconds ago, the message held back since: the stamp
        # cannot be earlier than the path to this computer allows
        r = await p.press(at=now - 3000, sent=now - 3000)
        assert r["ok"] and "held" in r.get("flags", []), r
        await p.close()
        return bound

    bound = run(scenario())
    until(lambda: journal_presses(game), what="the press journaled")
    presses = journal_presses(game)
    assert len(presses) == 1, presses
    at, delivered = presses[0]["at"], presses[0]["delivered"]
    # at most the phone's delay (its path, its bound, the margin) plus the handler's limit before
    # the press came, with the machine's slack: not three seconds
    slack_ms = bound["delay_ms"] + 100 + 200
    assert 0 <= (delivered - at) / 1e6 <= slack_ms, (at, delivered, bound)


def test_a_stamp_after_the_server_had_the_press_is_cut_at_the_receipt(game):
    tokens = links(game)

    async def scenario():
        p = Phone(game)
        await p.join(tokens["A"])
        await p.sync()
        await armed(game)
        now = clock()
        r = await p.press(at=now + 5000, sent=now + 5000)
        assert r["ok"] and "after_receipt" in r["flags"], r
        await p.close()

    run(scenario())
    until(lambda: team(game, "Альфа").get("holder"), what="Альфа holds")
    (event,) = journal_presses(game)
    assert event["at"] <= event["delivered"]


# -- one team's phone never touches another team ---------------------------------------------------

def test_nothing_a_phone_sends_changes_another_team_s_state(game):
    tokens = links(game)

    async def scenario():
        beta = Phone(game)
        await beta.join(tokens["B"])
        await beta.sync()
        seen = phones_of(game, "B")[0]
        alpha = Phone(game)
        await alpha.join(tokens["A"])
        await alpha.sync()
        for msg in ({"t": "join", "token": tokens["B"]}, {"t": "host", "host": "right"}, {"renew": "B"},
                    {"t": "press", "button": "B", "at": clock(), "sent": clock(), "n": 1},
                    {"t": "sync", "c": clock(), "d": [clock(), clock()], "button": "B"},
                    {"host": "wrong", "token": game.token}, {"t": "leave", "phone": seen["id"]}):
            await alpha.ws.send_str(json.dumps(msg))
            await asyncio.sleep(0.06)   # under the rate limit (a message a 50 ms)
        await alpha.sync(1)
        return seen, alpha, beta

    async def rest():
        seen, alpha, beta = await scenario()
        after = phones_of(game, "B")
        assert [(x["id"], x["presses"], x["refused"], x["flagged"]) for x in after] == \
               [(seen["id"], 0, 0, 0)]
        assert team(game, "Бета").get("score", 0) == 0 and not team(game, "Бета").get("holder")
        assert links(game)["B"] == tokens["B"]
        views = beta.views
        game.type("n")                          # Бета's phone is still connected and kept informed
        end = time.monotonic() + WAIT_S
        while beta.views == views and time.monotonic() < end:
            msg = await beta.ws.receive(timeout=WAIT_S)
            assert msg.type == aiohttp.WSMsgType.TEXT
            beta.views += "seq" in json.loads(msg.data)
        assert beta.views > views
        await alpha.close()
        await beta.close()

    run(rest())


# -- the tokens stay private -----------------------------------------------------------------------

def test_the_links_tokens_are_in_no_journal_log_or_world_readable_file(game, tmp_path):
    first = links(game)

    async def scenario():
        p = Phone(game)
        await p.join(first["A"])
        await p.sync()
        await armed(game)
        await p.press(at=clock() - 3000, sent=clock() - 3000)         # a flagged press: logged
        await p.close()
        bad = Phone(game)
        await bad.join(first["A"] + "x")                                 # a refused one
        await bad.close()

    run(scenario())
    assert renew(game, "B", game.token) == 200
    tokens = set(first.values()) | set(links(game).values())
    until(lambda: journal_presses(game), what="the press journaled")
    found = {}
    for path in tmp_path.rglob("*"):
        if path.is_file() and "chromium-profile" not in path.parts:
            try:
                text = path.read_bytes().decode("utf-8", "replace")
                mode = stat.S_IMODE(path.stat().st_mode)
            except FileNotFoundError:      # a file the running game replaced meanwhile (a temporary one)
                continue
            if any(tok in text for tok in tokens):
                found[path.name] = mode
    assert set(found) == {"team-tokens"}, found                        # not the journal, not the output
    assert found["team-tokens"] & 0o077 == 0


def test_the_class_config_seats_four_teams_on_phones_and_two_on_wired_buttons():
    """config/class-phones.toml (docs/phones.md, «A class»): six teams of Эрудит-квартет, the pages
    open to the hall's network, phones on, Эпсилон's and Зета's buttons (with lamps) on the Pi's
    pins, Альфа … Дельта on their phones only (``phone = true``: no pin)."""
    from controller.app import config as config_mod
    from controller.inputs.options import gpio_covers_teams, wired_buttons

    cfg = config_mod.load(Path(__file__).resolve().parents[1] / "config" / "class-phones.toml")
    assert [t["name"] for t in cfg["teams"]] == ["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Зета"]
    assert cfg["erudite"]["max_teams"] == 6 and cfg["buttons"] == "gpio" and cfg["phones"]["enabled"]
    assert cfg["web"]["bind"] == "0.0.0.0" and cfg["display"]["host_overlay"] is False
    gpio_covers_teams(cfg)                            # every wired team has an input pin
    assert wired_buttons(cfg) == ["E", "F"] and set(cfg["gpio"]["pins"]) == {"E", "F"}
    assert set(cfg["gpio"]["lamps"]) == {"E", "F"}


# -- what the page needs to word its answers; the browser's own requests ---------------------------

@pytest.mark.parametrize("rule", ["random", "order"])
def test_the_join_tells_the_game_s_tie_rule_and_the_clock_s_limit(tmp_path, rule):
    """The phone words a tie as the projector does («жребий выбрал: …» or «… по порядку команд»)
    and says before a race that its clock is known too badly: the join names the config's
    [arbiter] tie_rule, [phones] uncertain_tie, bound_max_ms and exclude_over_bound."""
    game = Game(tmp_path, extra_config=CONFIG + f'[arbiter]\ntie_rule = "{rule}"\n'
                '[phones]\nuncertain_tie = "rearm"\nbound_max_ms = 42.5\nexclude_over_bound = false\n')
    try:
        async def scenario():
            p = Phone(game)
            me = await p.join(links(game)["B"])
            await p.close()
            return me

        me = run(scenario())
        assert me["t"] == "me" and me["button"] == "B"
        assert (me["tie_rule"], me["uncertain_tie"], me["bound_max_ms"], me["exclude_over_bound"]) == \
            (rule, "rearm", 42.5, False), me
    finally:
        game.close()


def test_a_phone_page_where_phones_are_off_is_told_so(tmp_path):
    """[phones] enabled = false: a phone's connection is told «phones off» (its page says so on one
    screen) instead of a refused upgrade the page can only retry forever; a plain GET stays a 404."""
    game = Game(tmp_path, extra_config=CONFIG + "[phones]\nenabled = false\n")
    try:
        async def scenario():
            p = Phone(game)
            await p.open()
            r = await p.reply("error")
            await p.close()
            return r

        assert run(scenario()) == {"t": "error", "why": "phones off"}
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(game.base + "/api/play", timeout=WAIT_S)
        assert e.value.code == 404
    finally:
        game.close()


def test_the_favicon_answers_and_is_never_refused(game):
    """Every browser asks for /favicon.ico: 204 (no 404 in the page's console), as often
    as a hall of phones asks: never refused (no 404 counted, no 429)."""
    for _ in range(40):
        with urllib.request.urlopen(game.base + "/favicon.ico", timeout=WAIT_S) as r:
            assert r.status == 204 and r.read() == b""
