"""The festival over a real mosquitto (tests/mosquitto.py): halls publish with
``buzzer simulate --festival``, boards read with ``buzzer festival results``; after
every fault the results equal what each hall's own ``buzzer simulate`` prints."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mosquitto import PASSWORD, USER, Broker, free_port

ROOT = Path(__file__).resolve().parent.parent
BUZZER = [sys.executable, "-m", "controller.cli"]
ERUDITE = ROOT / "examples" / "erudite-standings.jsonl"
CHGK = ROOT / "examples" / "chgk.jsonl"


def _env(**more):
    """The environment of a ``buzzer`` process: the test broker's credentials in it (never in a URL
    on the command line: it refuses that)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               BUZZER_FESTIVAL_USERNAME=USER, BUZZER_FESTIVAL_PASSWORD=PASSWORD)
    env.update(more)
    return env


def buzzer(*args, cwd, timeout=120, check=True, env=None) -> subprocess.CompletedProcess:
    # a temporary folder of the test's own: media left by another test's killed game in the
    # shared $TMPDIR would be swept, with a line on stderr, by this process's start
    tmp = Path(cwd) / "tmp"
    tmp.mkdir(exist_ok=True)
    r = subprocess.run(BUZZER + [str(a) for a in args], cwd=cwd, env=_env(**{"TMPDIR": str(tmp), **(env or {})}),
                       capture_output=True, text=True, timeout=timeout)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def start(*args, cwd) -> subprocess.Popen:
    return subprocess.Popen(BUZZER + [str(a) for a in args], cwd=cwd, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


WAIT_S = 120
"""The longest a test waits for a hall, a board or the broker (generous: the tests must pass
on a machine with load average 10 on 2 cores, docs/testing.md); a passing test waits only as
long as what it waits for takes."""


def board_ready(broker, mark: int) -> None:
    """Until the board started after ``mark`` has subscribed: from then on it misses nothing."""
    broker.wait_subscribed("/#", since=mark, timeout=WAIT_S)


def journal_events(hall_dir: Path) -> int:
    """Events the hall has journaled so far (the header line is not one)."""
    found = list((hall_dir / "journal" / "festival").glob("simulate-*.jsonl"))
    return max(0, len(found[0].read_text().splitlines()) - 1) if found else 0


def acked_count(hall_dir: Path) -> int:
    """Events the broker has acknowledged to the hall so far."""
    found = list((hall_dir / "journal" / "festival").glob("*.acked"))
    try:
        return int(found[0].read_text() or 0) if found else 0
    except ValueError:   # being rewritten just now
        return 0


def until(predicate, what: str, timeout: float = WAIT_S, interval: float = 0.02):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"not within {timeout} s: {what}")


def simulated(script) -> dict:
    """What the hall's own ``buzzer simulate`` prints (no festival)."""
    return json.loads(buzzer("simulate", script, cwd=ROOT).stdout)


def results(url, cwd, *more) -> dict:
    return json.loads(buzzer("festival", "results", "--broker", url, "--json", *more, cwd=cwd).stdout)


def entry(res: dict, hall: str) -> dict:
    found = [c for c in res["competitions"] if c["hall"] == hall]
    assert len(found) == 1, res
    return found[0]


def assert_same(res: dict, hall: str, sim: dict, source: str | None = None) -> None:
    c = entry(res, hall)
    assert c["standings"] == sim["standings"]
    assert c["finished"] == (sim.get("stage") == "finished")
    if source:
        assert c["from"] == source


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path / "broker").start()
    yield b
    b.stop()


@pytest.fixture
def hall_dir(tmp_path):
    d = tmp_path / "halls"
    d.mkdir()
    return d


def test_two_halls_at_once_a_live_board_and_a_late_one(broker, hall_dir):
    mark = broker.log_mark()
    board = start("festival", "results", "--broker", broker.plain_url, "--json", "--games", "2", "--wait", "90",
                  cwd=hall_dir)
    board_ready(broker, mark)
    a = start("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", "--competition", "Эрудит",
              "--pace", "0.02", cwd=hall_dir)
    b = start("simulate", CHGK, "--festival", broker.plain_url, "--hall", "Зал 2", "--competition", "ЧГК",
              "--pace", "0.02", cwd=hall_dir)
    for p in (a, b):
        out, err = p.communicate(timeout=2 * WAIT_S)
        assert p.returncode == 0, err
        assert "брокер подтвердил все" in err
    out, err = board.communicate(timeout=2 * WAIT_S)
    assert board.returncode == 0, err
    live = json.loads(out)
    assert_same(live, "Зал 1", simulated(ERUDITE), source="events")
    assert_same(live, "Зал 2", simulated(CHGK), source="events")
    assert {c["name"] for c in live["competitions"]} == {"Эрудит", "ЧГК"}
    # a board started after the games finished: the retained standings
    late = results(broker.plain_url, hall_dir)
    assert_same(late, "Зал 1", simulated(ERUDITE))
    assert_same(late, "Зал 2", simulated(CHGK))
    assert len(late["competitions"]) == 2


def test_broker_killed_for_10_s_in_the_middle_of_a_game(broker, hall_dir):
    # the live board keeps a session on the broker: what comes while it reconnects is kept for it
    mark = broker.log_mark()
    board = start("festival", "results", "--broker", broker.plain_url, "--json", "--games", "1", "--wait", "240",
                  "--session", "live", cwd=hall_dir)
    board_ready(broker, mark)
    hall = start("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", "--pace", "0.3",
                 "--festival-timeout", "60", cwd=hall_dir)
    # 10 of the game's events are out, the rest come while the broker is away
    until(lambda: journal_events(hall_dir) >= 10 and acked_count(hall_dir) >= 1,
          "10 events journaled, one acknowledged")
    away_from = journal_events(hall_dir)
    broker.kill()
    # the fault itself: the broker stays away while the game journals 10 more events (about 3 s
    # at this pace, however slow the machine): those reach the board only after it is back
    until(lambda: journal_events(hall_dir) >= away_from + 10 or hall.poll() is not None,
          "10 events journaled while the broker is away")
    assert hall.poll() is None  # the game went on
    broker.start()
    out, err = hall.communicate(timeout=2 * WAIT_S)
    assert hall.returncode == 0, err
    assert "брокер подтвердил все" in err
    assert "связь потеряна" in err or "брокер не отвечает" in err   # said, in one line, in the host's words
    out, err = board.communicate(timeout=3 * WAIT_S)
    assert board.returncode == 0, err
    sim = simulated(ERUDITE)
    assert_same(json.loads(out), "Зал 1", sim, source="events")
    assert_same(results(broker.plain_url, hall_dir), "Зал 1", sim)


def _sent(err: str) -> tuple[int, int, int]:
    m = re.search(r"(\d+) событи[еяй]\w*, отправлено (\d+) \(снова из журнала: (\d+)\)", err)
    assert m, err
    return int(m[1]), int(m[2]), int(m[3])


def test_hall_killed_mid_publishing_then_restarted(broker, hall_dir):
    mark = broker.log_mark()
    board = start("festival", "results", "--broker", broker.plain_url, "--json", "--games", "1", "--wait", "240",
                  cwd=hall_dir)
    board_ready(broker, mark)
    args = ("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", "--pace", "0.15")
    hall = start(*args, cwd=hall_dir)
    # mid-publishing: the broker has acknowledged some events, the game is not over
    until(lambda: acked_count(hall_dir) >= 1 and journal_events(hall_dir) >= 2, "an event acknowledged", interval=0.005)
    os.kill(hall.pid, signal.SIGKILL)
    hall.communicate(timeout=WAIT_S)
    journals = list((hall_dir / "journal" / "festival").glob("simulate-*.jsonl"))
    assert len(journals) == 1
    written = len(journals[0].read_text().splitlines()) - 1
    assert 0 < written < 31     # killed in the middle
    acked = int(next((hall_dir / "journal" / "festival").glob("*.acked")).read_text())
    assert 0 < acked <= written
    again = buzzer(*args[:-2], cwd=hall_dir)
    total, sent, resent = _sent(again.stderr)
    assert total == 31
    assert resent == written - acked           # exactly what the broker had not acknowledged
    # every event not acknowledged goes out; on a loaded machine one whose acknowledgement is late
    # goes out again (QoS 1: at least once; the board counts it once, checked below)
    assert sent >= total - acked
    out, err = board.communicate(timeout=3 * WAIT_S)
    assert board.returncode == 0, err
    sim = simulated(ERUDITE)
    live = json.loads(out)
    assert_same(live, "Зал 1", sim, source="events")
    assert entry(live, "Зал 1")["seq"] == 31   # each event counted once
    assert_same(results(broker.plain_url, hall_dir), "Зал 1", sim)


def _hall_messages(broker, hall_dir) -> tuple[str, dict[str, bytes], dict[int, bytes]]:
    """What a real hall publishes for ERUDITE: (game id, its info and standings topics' last
    messages, its events by seq), read off the broker by a listener of its own."""
    from controller.festival import link
    from controller.festival.hall import broker_of

    got: list[tuple[str, bytes]] = []
    at = broker_of({"username": "", "password": ""}, broker.url)
    c = link.client(at)
    subscribed = threading.Event()
    c.on_connect = lambda client, *a: client.subscribe(link.DEFAULT_PREFIX + "/#", qos=1)
    c.on_subscribe = lambda *a: subscribed.set()
    c.on_message = lambda client, userdata, msg: got.append((msg.topic, msg.payload))
    c.connect(at.host, at.port)
    c.loop_start()
    try:
        assert subscribed.wait(WAIT_S)
        buzzer("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", cwd=hall_dir)
        until(lambda: sum(t.endswith("/events") for t, _ in list(got)) >= 31, "the hall's 31 events")
    finally:
        c.disconnect()
        c.loop_stop()
    events, last = {}, {}
    for t, p in got:
        kind = t.rsplit("/", 1)[1]
        if kind == "events":
            events[json.loads(p)["seq"]] = p
        last[kind] = p
    return json.loads(last["info"])["game"], last, events


def test_an_event_after_the_finished_standings_still_counts(broker, hall_dir):
    # After a broker outage the hall's standings of event 30 (the game finished) may reach the board
    # before event 31 (the host's «end game», journaled after the finish): the board must still
    # count it -- at once while it keeps the game's replica, else by asking the hall for a replay.
    from controller.sessions.journal import decode_event
    from controller.games import engine
    from controller.festival import link
    from controller.festival.results import SETTLE_QUIET_S, Festival

    game, last, events = _hall_messages(broker, hall_dir)
    assert sorted(events) == list(range(1, 32))
    info = json.loads(last["info"])
    state = engine.new_game(info["config"], info["seed"])
    for seq in range(1, 31):
        state = engine.step(state, decode_event(json.loads(events[seq])["event"]))[0]
    summary = engine.summary(state)
    assert link.finished_of(summary)        # finished at event 30: event 31 comes after the finish
    standings_30 = link.encode({"hall": "Зал 1", "competition": info["competition"], "game": game, "seq": 30,
                                "mode": info["mode"], "finished": True, "standings": link.standings_of(summary),
                                "view": link.headline(summary), "summary": summary, "t": time.time()}, large=True)
    topic = lambda kind: link.topic(link.DEFAULT_PREFIX, info["competition"], "Зал 1", game, kind)
    sim = simulated(ERUDITE)
    for quiet in (False, True):
        now = [0.0]
        f = Festival(clock=lambda: now[0])
        f.requester = "live"
        assert f.handle(topic("info"), last["info"])
        for seq in range(1, 31):
            assert f.handle(topic("events"), events[seq])
        assert f.handle(topic("standings"), standings_30)
        assert f.requests() == []
        if quiet:               # the board has let go of the replica of the finished game
            now[0] += SETTLE_QUIET_S + 1
            assert f.requests() == [] and f.games[next(iter(f.games))].done
        assert f.handle(topic("events"), events[31])
        if quiet:               # it plays the game again: the hall is asked for its events
            now[0] += 0.1
            asked = f.requests()
            assert len(asked) == 1 and link.split_topic(link.DEFAULT_PREFIX, asked[0][0])[3] == "replay"
            body = json.loads(asked[0][1])
            assert (body["game"], body["from"], body["to"], body["board"]) == (game, 1, 30, "live")
            assert_same(f.results(), "Зал 1", sim, source="standings")    # meanwhile: what it had
            for seq in range(1, 31):
                assert f.handle(topic("events"), events[seq])
        assert f.handle(topic("standings"), last["standings"])
        assert_same(f.results(), "Зал 1", sim, source="events")
        assert entry(f.results(), "Зал 1")["seq"] == 31
        assert f.settled() and f.finished_games() == 1


def test_the_same_events_delivered_twice_are_counted_once(broker, hall_dir, tmp_path):
    from controller.festival.hall import broker_of
    from controller.festival.results import Listener

    fest = {"username": "", "password": ""}
    lst = Listener(broker_of(fest, broker.url))
    lst.start()
    try:
        deadline = time.monotonic() + WAIT_S
        while not lst.subscribed and time.monotonic() < deadline:
            lst.pump(0.05)
        args = ("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1")
        first = buzzer(*args, cwd=hall_dir)
        assert _sent(first.stderr)[1] == 31
        # the hall forgets what the broker acknowledged: everything goes out again
        for f in (hall_dir / "journal" / "festival").glob("*.acked"):
            f.unlink()
        second = buzzer(*args, cwd=hall_dir)
        assert _sent(second.stderr)[2] == 31
        deadline = time.monotonic() + WAIT_S
        while lst.festival.duplicates < 31 and time.monotonic() < deadline:
            lst.pump(0.1)
    finally:
        lst.close()
    assert lst.festival.duplicates >= 31
    res = lst.festival.results()
    assert_same(res, "Зал 1", simulated(ERUDITE), source="events")
    assert entry(res, "Зал 1")["seq"] == 31


def test_wrong_password_and_unreachable_broker_are_one_line_and_the_game_goes_on(broker, hall_dir):
    wrong = broker.plain_url
    bad = {"BUZZER_FESTIVAL_PASSWORD": "not-the-password"}
    r = buzzer("simulate", ERUDITE, "--festival", wrong, "--hall", "Зал 1", "--festival-timeout", "2",
               cwd=hall_dir, check=False, env=bad)
    assert r.returncode == 1
    assert json.loads(r.stdout)["standings"] == simulated(ERUDITE)["standings"]   # the game went on
    # one line: nothing was sent, and why (never «31 sent» when the broker refused the hall)
    assert r.stderr.count("\n") == 1, r.stderr
    assert "31 событие, ничего не отправлено (" in r.stderr and "not authori" in r.stderr.lower(), r.stderr
    assert "ждут в журнале: 31" in r.stderr and "отправлено 0" not in r.stderr
    r = buzzer("simulate", ERUDITE, "--festival", f"mqtt://127.0.0.1:{free_port()}", "--hall", "Зал 1",
               "--festival-timeout", "2", cwd=hall_dir, check=False)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "ничего не отправлено (" in r.stderr and "брокер не отвечает" in r.stderr, r.stderr
    # the same line in English, the config's language = "en"
    (hall_dir / "en.toml").write_text('language = "en"\n', encoding="utf-8")
    r = buzzer("simulate", ERUDITE, "-c", hall_dir / "en.toml", "--festival", f"mqtt://127.0.0.1:{free_port()}",
               "--hall", "Зал 1", "--festival-timeout", "2", cwd=hall_dir, check=False)
    assert r.returncode == 1 and "31 events, none sent (" in r.stderr and ": the broker does not answer); 31 kept in the journal" in r.stderr, r.stderr
    # the same command with the right password sends them all
    r = buzzer("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", cwd=hall_dir)
    assert "31 событие, отправлено 31" in r.stderr and "брокер подтвердил все" in r.stderr, r.stderr
    # refused again: none sent now, though the broker has them all (exit 1: the password is wrong)
    r = buzzer("simulate", ERUDITE, "--festival", wrong, "--hall", "Зал 1", "--festival-timeout", "2",
               cwd=hall_dir, check=False, env=bad)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "ничего не отправлено (" in r.stderr and "брокер уже подтвердил все раньше" in r.stderr, r.stderr
    r = buzzer("festival", "results", "--broker", wrong, "--wait", "2", cwd=hall_dir, check=False, env=bad)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "not authori" in r.stderr.lower()


@pytest.mark.parametrize("url, problem", [
    ("http://x:1883", "mqtt:// or mqtts://"),
    ("mqtt://", "no host"),
    ("mqtt://host:99999", "not a broker URL"),
])
def test_bad_broker_urls_are_one_line(hall_dir, url, problem):
    r = buzzer("simulate", ERUDITE, "--festival", url, "--hall", "Зал 1", cwd=hall_dir, check=False)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and problem in r.stderr, r.stderr


def test_festival_config_is_validated(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[festival]\nbroker = "mqtt://127.0.0.1:1883"\nhall = "Зал 1"\n')
    r = buzzer("check-config", bad, cwd=tmp_path, check=False)
    assert r.returncode == 2 and "festival.competition" in r.stderr and r.stderr.count("\n") == 1
    bad.write_text('[festival]\nbroker = "mqtt://h"\nhall = "a/b"\ncompetition = "ЧГК"\n')
    r = buzzer("check-config", bad, cwd=tmp_path, check=False)
    assert r.returncode == 2 and "festival.hall" in r.stderr
    bad.write_text('[festival]\nschedule = [{competition = "ЧГК", room = "1"}]\n')
    r = buzzer("check-config", bad, cwd=tmp_path, check=False)
    assert r.returncode == 2 and "festival.schedule" in r.stderr and "room" in r.stderr


def test_a_board_waiting_for_games_says_so_when_the_broker_goes_away(broker, hall_dir):
    mark = broker.log_mark()
    board = start("festival", "results", "--broker", broker.plain_url, "--json", "--games", "1", "--wait", "6",
                  cwd=hall_dir)
    board_ready(broker, mark)
    broker.kill()
    try:
        out, err = board.communicate(timeout=WAIT_S)
    finally:
        broker.start()
    assert board.returncode == 0, err
    assert json.loads(out) == {"competitions": []}
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("buzzer: --games 1: ждали 6 с (--wait)") and "пришло 0 из 1" in lines[0]
    assert "; связь с брокером: " in lines[0] and ("связь потеряна" in lines[0] or "брокер не отвечает" in lines[0])
