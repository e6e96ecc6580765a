"""Nobody forges a festival result, nothing leaks, nothing grows (issue 24, items 1-5).

A real mosquitto with the shipped ACL file (config/mosquitto/festival.acl) and a broker
user per hall (mosquitto_passwd); the organiser's keys made by ``buzzer festival keys``.
The attacker has a hall's broker password (leaked, or a hall of its own), or the board's."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from controller.sessions import journal as journal_mod
from controller.festival import auth, link
from controller.festival.command import board_options
from controller.festival.hall import begin_from_journal, broker_of
from controller.festival.publisher import Publisher
from controller.festival.results import MB, Listener

from mosquitto import Broker
from test_festival import BUZZER, ERUDITE, ROOT, _env, buzzer, simulated

ACL = ROOT / "config" / "mosquitto" / "festival.acl"
USERS = {"board": "board-pw-7", "Зал 1": "hall-one-pw-3", "Зал 2": "hall-two-pw-5"}
COMP = "Эрудит"
PREFIX = link.DEFAULT_PREFIX


def creds(user: str) -> dict:
    return {"BUZZER_FESTIVAL_USERNAME": user, "BUZZER_FESTIVAL_PASSWORD": USERS[user]}


@pytest.fixture
def site(tmp_path):
    """The broker (ACL, a user per hall and the board's), the keys, a config per role."""
    broker = Broker(tmp_path / "broker", users=USERS, acl=ACL).start()
    keys = tmp_path / "keys"
    made = buzzer("festival", "keys", keys, "--hall", "Зал 1", "--hall", "Зал 2", cwd=tmp_path).stdout.split("\n")
    assert sorted(Path(p).name for p in made if p) == ["board.keys", "Зал 1.key", "Зал 2.key"]
    for name in ("board.keys", "Зал 1.key", "Зал 2.key"):
        assert stat.S_IMODE((keys / name).stat().st_mode) == 0o600
    configs = {}
    for role, keyfile in (("board", "board.keys"), ("Зал 1", "Зал 1.key"), ("Зал 2", "Зал 2.key")):
        cfg = tmp_path / f"{role}.toml"
        cfg.write_text(f'[festival]\nkey_file = "{keys / keyfile}"\n', encoding="utf-8")
        configs[role] = cfg
    halls = tmp_path / "halls"
    halls.mkdir()
    yield broker, keys, configs, halls
    broker.stop()


class Raw:
    """A plain MQTT client logged in as ``user``: what an attacker with that password does."""

    def __init__(self, broker: Broker, user: str, password: str | None = None):
        self.c = link.client(link.Broker("127.0.0.1", broker.port, False, user, password or USERS[user]))
        self.up = threading.Event()
        self.got: list[tuple[str, bytes]] = []
        self.c.on_connect = lambda c, u, f, rc, p=None: self.up.set() if not rc.is_failure else None
        self.c.on_message = lambda c, u, m: self.got.append((m.topic, m.payload))
        self.c.connect("127.0.0.1", broker.port)
        self.c.loop_start()
        assert self.up.wait(10), f"{user} could not log in"

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(10)

    def subscribe(self, pattern: str) -> None:
        done = threading.Event()
        self.c.on_subscribe = lambda *a: done.set()
        self.c.subscribe(pattern, qos=1)
        assert done.wait(10)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def board_listener(broker: Broker, configs: dict, **caps) -> Listener:
    from controller.app import config

    fest = config.load(configs["board"], {"festival": caps} if caps else None)["festival"]
    lst = Listener(broker_of({"username": "board", "password": USERS["board"]}, broker.plain_url), PREFIX,
                   **board_options(fest))
    lst.start()
    wait(lambda: lst.subscribed, lst)
    return lst


def wait(cond, lst: Listener | None = None, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        if lst is not None:
            lst.pump(0.05)
        else:
            time.sleep(0.02)


def publish_hall(configs, halls, broker, hall="Зал 1") -> None:
    r = buzzer("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", hall, "--competition", COMP,
               "-c", configs[hall], cwd=halls, env=creds(hall))
    assert "брокер подтвердил все" in r.stderr, r.stderr


def forged_standings(game: str, seq: int = 9999) -> bytes:
    rows = [{"place": 1, "team": "ХАКЕРЫ", "points": 9999}]
    return link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "seq": seq, "mode": "erudite",
                        "finished": True, "standings": rows, "view": {}, "summary": {"mode": "erudite",
                        "stage": "finished", "standings": rows}, "t": time.time()})


class BoardProcess:
    """``buzzer festival --headless``: its terminal lines, collected as they come."""

    def __init__(self, broker: Broker, configs: dict, cwd: Path):
        self.p = subprocess.Popen(BUZZER + ["festival", "--headless", "-c", str(configs["board"]), "--broker",
                                            broker.plain_url], cwd=cwd, env=_env(**creds("board")),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.out: list[str] = []
        self.err: list[str] = []
        for stream, into in ((self.p.stdout, self.out), (self.p.stderr, self.err)):
            threading.Thread(target=lambda s=stream, i=into: [i.append(line) for line in s], daemon=True).start()

    def screen(self) -> str:
        """The latest board the terminal shows (the text after the last blank-line-separated print)."""
        text = "".join(self.out)
        return text.rsplit("\n\n\n", 1)[-1] if "\n\n\n" in text else text

    def wait_for(self, what, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while not what(self):
            assert self.p.poll() is None, "".join(self.err)
            assert time.monotonic() < deadline, f"timed out; stdout: {''.join(self.out)[-2000:]}\n{''.join(self.err)}"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait(10)


def test_a_forged_standings_with_a_higher_seq_is_refused_and_the_real_one_stays(site):
    broker, keys, configs, halls = site
    real = simulated(ERUDITE)["standings"]
    leader = f"{real[0]['team']}  {real[0]['points']}"
    board = BoardProcess(broker, configs, halls)
    lst = board_listener(broker, configs)
    try:
        publish_hall(configs, halls, broker)
        wait(lambda: lst.festival.results()["competitions"]
             and lst.festival.results()["competitions"][0]["from"] == "events", lst)
        game = lst.festival.results()["competitions"][0]["game"]
        board.wait_for(lambda b: leader in b.screen())
        topic = link.topic(PREFIX, COMP, "Зал 1", game, "standings")

        # hall 2's user may not write hall 1's topics: the broker drops it (the ACL file)
        other = Raw(broker, "Зал 2")
        other.publish(topic, forged_standings(game), retain=True)
        hall2_key = auth.load_keys(keys / "Зал 2.key")
        status2 = link.topic(PREFIX, COMP, "Зал 2", "status")
        other.publish(status2, auth.sign(next(iter(hall2_key.values())), status2,
                                         link.encode({"hall": "Зал 2", "competition": COMP, "online": True})))
        wait(lambda: lst.festival.online.get((COMP, "Зал 2")) is True, lst)   # came after the forged one
        assert sum(lst.festival.refused.values()) == 0        # the forged one never reached the board
        other.close()

        # hall 1's broker password, leaked: unsigned, signed with hall 2's key, a wrong MAC
        thief = Raw(broker, "Зал 1")
        thief.publish(topic, forged_standings(game), retain=True)
        thief.publish(topic, auth.sign(next(iter(hall2_key.values())), topic, forged_standings(game, 10000)),
                      retain=True)
        mine = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
        wrong = auth.sign(auth.HallKey("Зал 1", mine.id, b"\0" * 32), topic, forged_standings(game, 10001))
        thief.publish(topic, wrong, retain=True)
        thief.close()
        wait(lambda: sum(lst.festival.refused.values()) == 3, lst)
        assert dict(lst.festival.refused) == {"unsigned": 1, "wrong_hall": 1, "bad_mac": 1}
        res = lst.festival.results()["competitions"]
        assert [c["standings"] for c in res] == [real] and res[0]["seq"] == 31

        # the board's terminal: the real table, and what it refused, in words
        board.wait_for(lambda b: "Отклонено сообщений: 3" in b.screen())
        shown = board.screen()
        assert leader in shown and "ХАКЕРЫ" not in shown
        assert "без подписи: 1" in shown and "ключ другого зала: 1" in shown and "неверная подпись: 1" in shown
        board.wait_for(lambda b: any("табло отклонило сообщений" in line for line in b.err))
        # and its page: /api/state says the same
        import re
        import urllib.request
        url = next(m[0] for line in board.err for m in [re.search(r"http://127\.0\.0\.1:\d+/", line)] if m)
        with urllib.request.urlopen(url + "api/state", timeout=10) as r:
            page = json.loads(r.read())
        assert page["refused"]["count"] == 3 and page["refused"]["reasons"]["bad_mac"] == 1
        assert page["refused"]["text"].startswith("Отклонено сообщений: 3 (")
        assert "ХАКЕРЫ" not in json.dumps(page, ensure_ascii=False)

        # a board started now gets the forged retained message only, refuses it; the hall publishes
        # again and its real standings show (before: the forged seq 10001 stayed above it)
        late = board_listener(broker, configs)
        wait(lambda: late.festival.refused.get("bad_mac") == 1, late)
        for f in (halls / "journal" / "festival").glob("*.acked"):
            f.unlink()              # the hall sends its game again (as after a start with a new broker)
        publish_hall(configs, halls, broker)
        wait(lambda: late.festival.results()["competitions"], late)
        assert late.festival.results()["competitions"][0]["standings"] == real
        late.close()
    finally:
        lst.close()
        board.stop()
    assert "ХАКЕРЫ" not in "".join(board.out)


def test_a_hall_without_a_key_is_refused_by_a_board_with_keys_unless_allowed(site):
    broker, keys, configs, halls = site
    strict = board_listener(broker, configs)
    lenient = board_listener(broker, configs, accept_unsigned=True)
    try:
        # «Зал 3» has no key (and the broker user «hall», whose ACL pattern is its own hall «hall»)
        r = buzzer("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "hall", "--competition", COMP,
                   cwd=halls)
        assert "брокер подтвердил все" in r.stderr, r.stderr
        wait(lambda: lenient.festival.results()["competitions"], lenient)
        assert lenient.festival.results()["competitions"][0]["standings"] == simulated(ERUDITE)["standings"]
        wait(lambda: strict.festival.refused.get("unsigned", 0) >= 31, strict)
        assert strict.festival.results()["competitions"] == []
        # a hall that has a key must sign, even for a lenient board
        thief = Raw(broker, "Зал 1")
        name = link.topic(PREFIX, COMP, "Зал 1", "0123456789abcdef", "standings")
        thief.publish(name, forged_standings("0123456789abcdef"))
        thief.close()
        wait(lambda: lenient.festival.refused.get("unsigned") == 1, lenient)
        assert all(c["hall"] == "hall" for c in lenient.festival.results()["competitions"])
    finally:
        strict.close()
        lenient.close()


def test_oversized_and_gapped_messages_keep_the_boards_memory_bounded(site):
    """The attack of issue 24 item 2 (40 messages of 3.9 MB past a gap), by an attacker with a
    hall's key itself: the board keeps at most its caps, in bytes, and counts the rest."""
    broker, keys, configs, halls = site
    lst = board_listener(broker, configs, board_game_mb=1.0, board_total_mb=3.0)
    key = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
    thief = Raw(broker, "Зал 1")
    try:
        big = "x" * 3_900_000
        for i in range(40):      # 3.9 MB events past a gap: too long for an event, refused unread
            game = f"{i:016x}"
            name = link.topic(PREFIX, COMP, "Зал 1", game, "events")
            body = link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "seq": 1000 + i,
                                "event": {"type": "host", "action": big}})
            thief.publish(name, auth.sign(key, name, body))
        wait(lambda: lst.festival.refused.get("too_large") == 40, lst, timeout=120)
        # events of 60 KB past a gap (each one allowed), 40 games, then 3.9 MB standings for each
        pad = "y" * 60_000
        for i in range(40):
            game = f"{i:016x}"
            for seq in range(100, 140):
                name = link.topic(PREFIX, COMP, "Зал 1", game, "events")
                body = link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "seq": seq,
                                    "event": {"type": "host", "at": 1, "action": "question", "params": {"p": pad}}})
                thief.publish(name, auth.sign(key, name, body))
        sent = 40 * 40
        wait(lambda: lst.festival.accepted + lst.festival.refused.get("memory", 0) >= sent, lst, timeout=180)
        rows = [{"place": 1, "team": "z" * 3_800_000, "points": 1}]
        for i in range(40):
            game = f"{i:016x}"
            name = link.topic(PREFIX, COMP, "Зал 1", game, "standings")
            body = link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "seq": 5000, "mode": "erudite",
                                "finished": False, "standings": rows, "view": {}, "summary": {}})
            thief.publish(name, auth.sign(key, name, body), retain=True)
        wait(lambda: lst.festival.accepted + sum(lst.festival.refused.values()) >= sent + 80, lst, timeout=180)
        f = lst.festival
        assert f.bytes <= 3 * MB
        assert all(g.bytes <= 1 * MB for g in f.games.values())
        assert f.bytes == sum(g.bytes for g in f.games.values())          # accounted honestly
        assert f.bytes == sum(len(raw) for g in f.games.values() for raw in g.pending.values()) + sum(
            g.snapshot_bytes + g.info_bytes for g in f.games.values())
        assert f.refused["memory"] >= 40 * 40 + 40 - (3 * MB) // 60_000 - 10
        assert f.bytes > 2 * MB       # it kept what fits
    finally:
        thief.close()
        lst.close()


def _events(n: int) -> list[dict]:
    from controller.core.events import Host, Press, Release, Tick

    out, t, i = [], 1_000_000_000, 0
    while len(out) < n:
        b = "ABCD"[i % 4]
        out += [journal_mod.encode_event(e) for e in (Host("question", t, {}), Press(b, t + 300_000_000, t + 300_000_000),
                                                      Tick(t + 310_000_000), Release(b, t + 350_000_000, t + 350_000_000),
                                                      Host("right", t + 500_000_000, {}))]
        t += 10_000_000_000
        i += 1
    return out[:n]


def _journal(folder: Path, name: str, records: list[dict], seed: int) -> Path:
    from controller.app import config

    cfg = config.load(None)
    path = folder / name
    jr = journal_mod.Journal(path, header=journal_mod.new_header(cfg, seed, None), fsync=False)
    jr.append_many([journal_mod.decode_event(r) for r in records])
    jr.close()
    return path


def _hall(broker, tmp_path, key=None, **bounds) -> Publisher:
    pub = Publisher(broker_of({"username": "Зал 1", "password": USERS["Зал 1"]}, broker.plain_url), "Зал 1", COMP,
                    tmp_path / "state", standings_interval_s=0.0, key=key, **bounds)
    pub.start()
    wait(lambda: pub._status is not None and pub._status[0])
    return pub


def test_forged_replay_requests_are_bounded_and_refused_without_the_key(site, tmp_path):
    """50 replay requests (issue 24 item 3: today 16,350 events re-sent): a hall without a key
    re-sends at most its window; a hall with a key answers only requests signed with it."""
    broker, keys, configs, halls = site
    folder = tmp_path / "journal"
    folder.mkdir()
    path = _journal(folder, "current.jsonl", _events(327), 3)
    counter = Raw(broker, "board")
    counter.subscribe(f"{PREFIX}/{COMP}/Зал 1/+/events")
    pub = _hall(broker, tmp_path, replay_window_events=5000)
    try:
        game = begin_from_journal(pub, path)
        wait(lambda: pub.pending() == 0 and len(counter.got) >= 327)
        name = link.topic(PREFIX, COMP, "Зал 1", "replay")
        # the board's password, stolen: 50 requests, each under another board's name
        for i in range(50):
            counter.publish(name, link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "from": 1,
                                               "to": 100000, "board": f"forger-{i}"}))
        wait(lambda: pub.replayed + pub.replays_refused["bounded"] >= 5000 and pub.replays_refused["bounded"] > 0)
        wait(lambda: len(counter.got) - 327 >= pub.replayed and pub.pending() == 0)
        assert pub.replayed <= 5000 and len(counter.got) - 327 <= 5000
        # one requester: at most replay_requests_per_minute of them answered
    finally:
        pub.close(5.0)
    counter.got.clear()
    key = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
    pub = _hall(broker, tmp_path / "2", key=key, replay_max=100)
    try:
        game = begin_from_journal(pub, path)
        wait(lambda: pub.pending() == 0 and len(counter.got) >= 327)
        assert all(auth.split(p)[1] is not None for _, p in counter.got)       # every event signed
        counter.got.clear()
        for i in range(50):
            counter.publish(name, link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "from": 1,
                                               "to": 100000}))
        wait(lambda: pub.replays_refused["unsigned"] == 50)
        # the board's request, signed with the hall's key: answered, at most replay_max events
        board = board_options(__import__("controller.app.config", fromlist=["load"]).load(configs["board"])["festival"])
        signed = auth.sign(key, name, link.encode({"hall": "Зал 1", "competition": COMP, "game": game, "from": 1,
                                                    "to": 327}))
        assert board["keys"][key.id] == key
        counter.publish(name, signed)
        wait(lambda: pub.replayed == 100 and len(counter.got) == 100)
        assert pub.replayed == 100
    finally:
        pub.close(5.0)
        counter.close()


def test_the_publisher_forgets_games_the_broker_acknowledged_and_replays_them_from_the_journal(site, tmp_path):
    broker, keys, configs, halls = site
    folder = tmp_path / "journal"
    folder.mkdir()
    key = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
    lst = board_listener(broker, configs)
    pub = _hall(broker, tmp_path, key=key)
    try:
        games = []
        for n in range(5):
            path = _journal(folder, "current.jsonl" if n == 4 else f"game-{n}.jsonl", _events(200 + n), 10 + n)
            games.append(begin_from_journal(pub, path))
        # the old game files move to the archive, as the loop does on a new game
        (folder / "archive").mkdir()
        for n in range(4):
            os.replace(folder / f"game-{n}.jsonl", folder / "archive" / f"game-{n}.jsonl")
        wait(lambda: pub.pending() == 0 and set(pub.forgotten) == set(games[:4]))
        assert list(pub.games) == [games[4]]          # only the game being played is held
        assert len(pub.games[games[4]].records) == 204
        wait(lambda: len(lst.festival.results()["competitions"]) == 5, lst)
        # a board that missed game 1: its replay request is answered from the archived journal
        name = link.topic(PREFIX, COMP, "Зал 1", "replay")
        body = {"hall": "Зал 1", "competition": COMP, "game": games[1], "from": 1, "to": 201}
        fresh = Raw(broker, "board")
        fresh.subscribe(f"{PREFIX}/{COMP}/Зал 1/{games[1]}/events")
        fresh.publish(name, auth.sign(key, name, link.encode(body)))
        wait(lambda: len(fresh.got) == 201)
        seqs = sorted(json.loads(auth.split(p)[0])["seq"] for _, p in fresh.got)
        assert seqs == list(range(1, 202))
        fresh.close()
    finally:
        pub.close(5.0)
        lst.close()


def test_the_board_lets_go_of_the_replica_of_a_game_its_hall_left_unfinished(site, tmp_path):
    """The host starts a new game before the last one finished (every game of the festival day
    does): the board used to keep that game's replica and last standings (about 100 KB a game,
    +6 MB over the day).  Once the hall's messages are another game's and the left game has
    every event and is quiet, it keeps its summary and header only -- and still shows it."""
    from controller.games import engine
    from controller.festival.results import SETTLE_QUIET_S

    broker, keys, configs, halls = site
    folder = tmp_path / "journal"
    folder.mkdir()
    key = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
    lst = board_listener(broker, configs)
    now = [1000.0]
    lst.festival.clock = lambda: now[0]
    pub = _hall(broker, tmp_path, key=key)
    try:
        games, expected = [], {}
        for n in range(6):
            records = _events(40 + 5 * n)           # 8 to 13 questions: none of the games finished
            path = _journal(folder, f"game-{n}.jsonl", records, 20 + n)
            games.append(begin_from_journal(pub, path))
            state = engine.new_game(journal_mod.read(path).header["config"], 20 + n)
            for rec in records:
                try:
                    state = engine.step(state, journal_mod.decode_event(rec))[0]
                except Exception:
                    pass
            expected[games[-1]] = link.standings_of(engine.summary(state))
            wait(lambda: any(g.id == games[-1] and g.complete and g.contiguous == len(records)
                             for g in lst.festival.games.values()), lst)
            now[0] += 1.0
        # the left games' last standings have gone out (the hall forgot them); the game being
        # played goes on: 2 more questions
        wait(lambda: set(games[:5]) <= set(pub.forgotten), lst)
        more = _events(40 + 5 * 5 + 10)
        jr = journal_mod.Journal(path, fsync=False, truncate_to=journal_mod.read(path).valid_bytes)
        jr.append_many([journal_mod.decode_event(r) for r in more[len(records):]])
        jr.close()
        begin_from_journal(pub, path)
        for rec in more[len(records):]:
            try:
                state = engine.step(state, journal_mod.decode_event(rec))[0]
            except Exception:
                pass
        expected[games[5]] = link.standings_of(engine.summary(state))
        wait(lambda: any(g.id == games[5] and g.complete and g.contiguous == len(more)
                         for g in lst.festival.games.values()), lst)
        now[0] += SETTLE_QUIET_S + 1
        lst.pump(0.05)
        by_id = {g.id: g for g in lst.festival.games.values()}
        for gid in games[:5]:       # left: replica and standings message let go, the summary counted
            assert by_id[gid].done and by_id[gid].state is None and by_id[gid].snapshot is not None, gid
            assert 0 < by_id[gid].snapshot_bytes < by_id[games[5]].snapshot_bytes, gid
        f = lst.festival
        assert f.bytes == sum(g.snapshot_bytes + g.info_bytes + g.pending_bytes for g in f.games.values())
        assert not by_id[games[5]].done and by_id[games[5]].state is not None    # the game being played
        res = {r["game"]: r for r in lst.festival.results()["competitions"]}
        assert set(res) == set(games)
        for gid in games:           # every game still shown, from its events, unfinished
            assert res[gid]["from"] == "events" and not res[gid]["finished"]
            assert res[gid]["standings"] == expected[gid]
    finally:
        pub.close(5.0)
        lst.close()


def test_a_late_boards_replay_of_a_forgotten_game_goes_out_paced_by_the_brokers_acks(site, tmp_path):
    """A board started late asks for every game of the day (``buzzer festival results`` does):
    the hall used to publish a whole request at once, so that paho held every message of it
    until the broker acknowledged it (the festival day's publishers grew by 4 MB at the end,
    answering one such board).  Now at most REPLAY_IN_FLIGHT replayed messages wait, and
    every event asked for still comes, once."""
    from controller.festival.publisher import REPLAY_IN_FLIGHT

    broker, keys, configs, halls = site
    folder = tmp_path / "journal"
    folder.mkdir()
    key = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
    pub = _hall(broker, tmp_path, key=key, replay_max=2000)
    try:
        old = begin_from_journal(pub, _journal(folder, "game-0.jsonl", _events(1800), 10))
        begin_from_journal(pub, _journal(folder, "current.jsonl", _events(5), 11))
        wait(lambda: pub.pending() == 0 and old in pub.forgotten)
        fresh = Raw(broker, "board")
        fresh.subscribe(f"{PREFIX}/{COMP}/Зал 1/{old}/events")
        peak = [0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], len(pub.client._out_messages))
                time.sleep(0.0005)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        name = link.topic(PREFIX, COMP, "Зал 1", "replay")
        body = {"hall": "Зал 1", "competition": COMP, "game": old, "from": 1, "to": 1800}
        fresh.publish(name, auth.sign(key, name, link.encode(body)))
        wait(lambda: len(fresh.got) >= 1800)
        stop.set()
        sampler.join(5)
        seqs = sorted(json.loads(auth.split(p)[0])["seq"] for _, p in fresh.got)
        assert seqs == list(range(1, 1801))          # every event asked for, once
        assert pub.replayed == 1800
        assert peak[0] <= REPLAY_IN_FLIGHT + 8, peak[0]   # (+ a few live messages: status, standings)
        fresh.close()
    finally:
        pub.close(5.0)


def test_no_password_in_the_journal_archives_logs_or_ps_of_a_real_run(site, tmp_path):
    broker, keys, configs, halls = site
    secret = USERS["Зал 1"]
    hall = tmp_path / "hall"
    hall.mkdir()
    creds_file = hall / "broker.toml"
    creds_file.write_text(f'username = "Зал 1"\npassword = "{secret}"\n', encoding="utf-8")
    cfg = hall / "hall.toml"
    body = (f'buttons = "keyboard"\n[journal]\ndir = "{hall / "journal"}"\n[web]\nenabled = false\n'
            f'[festival]\nbroker = "{broker.plain_url}"\nhall = "Зал 1"\ncompetition = "{COMP}"\n'
            f'credentials_file = "{creds_file}"\nkey_file = "{keys / "Зал 1.key"}"\n')
    cfg.write_text(body, encoding="utf-8")

    # a credentials file others can read: refused, one line naming the fix
    os.chmod(creds_file, 0o644)
    r = buzzer("run", "--headless", "-c", cfg, "--seconds", "1", cwd=hall, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "readable by other users" in r.stderr and "chmod 600" in r.stderr
    os.chmod(creds_file, 0o600)
    # a password on the command line: refused, one line naming the safe ways
    r = buzzer("festival", "results", "--broker", f"mqtt://board:{USERS['board']}@127.0.0.1:{broker.port}",
               cwd=hall, check=False)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "ps" in r.stderr and "BUZZER_FESTIVAL_PASSWORD" in r.stderr and "credentials_file" in r.stderr
    # the password in a config file others can read: refused; the same file mode 0600: taken
    loose = hall / "loose.toml"
    loose.write_text(body.replace(f'credentials_file = "{creds_file}"', f'username = "Зал 1"\npassword = "{secret}"'),
                     encoding="utf-8")
    os.chmod(loose, 0o644)
    r = buzzer("check-config", loose, cwd=hall, check=False)
    assert r.returncode == 2 and "festival.password" in r.stderr and "chmod 600" in r.stderr, r.stderr
    os.chmod(loose, 0o600)
    assert buzzer("check-config", loose, cwd=hall, check=False).returncode == 0

    lst = board_listener(broker, configs)
    seen = []
    env = {k: v for k, v in _env().items() if not k.startswith("BUZZER_FESTIVAL")}
    for run, config_file in ((1, cfg), (2, loose)):
        p = subprocess.Popen(BUZZER + ["run", "--headless", "--new", "-c", str(config_file), "--seconds", "60"],
                             cwd=hall, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        try:
            wait(lambda: len(lst.festival.games) >= run, lst, timeout=60)       # it published, signed
            seen.append(subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout)
            assert f" {p.pid} " in seen[-1]        # the hall's processes: the game, its publisher
        finally:
            p.send_signal(signal.SIGINT)     # (SIGTERM in --headless: issue 24 item 8, another change)
            try:
                out, err = p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate(timeout=30)
        seen += [out, err]
    assert sum(lst.festival.refused.values()) == 0
    lst.close()
    files = [f for f in (hall / "journal").rglob("*") if f.is_file()]
    assert any("archive" in f.parts for f in files) and (hall / "journal" / "current.jsonl").exists()
    for f in files:
        assert secret.encode() not in f.read_bytes(), f
        if stat.S_IMODE(f.stat().st_mode) & 0o004:
            assert b"password" not in f.read_bytes() or secret.encode() not in f.read_bytes()
    for text in seen:
        assert secret not in text
    # the broker's log has no password either
    assert secret not in (broker.folder / "mosquitto.log").read_text(errors="replace")


def test_a_game_archived_before_the_publisher_read_it_is_published_from_its_own_file(site, tmp_path):
    """The accelerated festival day found it: the host starts a new game before the publisher's
    process has read the last one (its journal is archived meanwhile): the game's own events go
    out under its id, never the new game's."""
    from controller.festival.hall import info_of
    from controller.festival.outbox import OutboxProcess
    from controller.festival.publisher import game_id_of

    broker, keys, configs, halls = site
    folder = tmp_path / "journal"
    (folder / "archive").mkdir(parents=True)
    first = _journal(folder, "current.jsonl", _events(50), 1)
    game = game_id_of(first.read_bytes().split(b"\n", 1)[0] + b"\n")
    header = journal_mod.read(first).header
    os.replace(first, folder / "archive" / "game-1.jsonl")
    _journal(folder, "current.jsonl", _events(20), 2)          # the next game, already begun
    lst = board_listener(broker, configs)
    key = next(iter(auth.load_keys(keys / "Зал 1.key").values()))
    pub = OutboxProcess(broker_of({"username": "Зал 1", "password": USERS["Зал 1"]}, broker.plain_url), "Зал 1",
                        COMP, tmp_path / "state", standings_interval_s=0.0, key=key)
    pub.start()
    try:
        pub.begin_journal(game, info_of(header), folder / "current.jsonl", 50)
        wait(lambda: any(c["game"] == game and c["from"] == "events" and c["seq"] >= 50
                         for c in lst.festival.results()["competitions"]), lst)
        c = next(c for c in lst.festival.results()["competitions"] if c["game"] == game)
        assert c["seq"] == 50
        assert lst.festival.games[(COMP, "Зал 1", game)].contiguous == 50
    finally:
        assert pub.close(10.0)
        lst.close()
