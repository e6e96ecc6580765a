"""``buzzer run`` as a festival hall: the loop's journal is the outbox (a real mosquitto)."""

from __future__ import annotations

import time

from controller.sessions import journal as journal_mod
from controller.games import engine
from controller.festival.hall import OutboxJournal, attach, broker_of
from controller.festival.results import Listener

from festival_hall import MS, hall_loop as _hall_loop, play
from mosquitto import Broker, free_port


def hall_loop(tmp_path, url: str, hall: str = "Зал 1"):
    return _hall_loop(tmp_path, url, hall, standings_interval_ms=0.0)


def listen(url: str) -> Listener:
    lst = Listener(broker_of({"username": "", "password": ""}, url))
    lst.start()
    deadline = time.monotonic() + 10
    while not lst.subscribed and time.monotonic() < deadline:
        lst.pump(0.05)
    assert lst.subscribed
    return lst


def test_a_hall_publishes_every_journaled_event_and_its_standings(tmp_path):
    broker = Broker(tmp_path / "broker").start()
    try:
        board = listen(broker.url)
        loop, clock, cfg = hall_loop(tmp_path, broker.url)
        publisher = attach(loop, cfg)
        assert isinstance(loop.journal, OutboxJournal)
        play(loop, clock, 6)
        assert publisher.close(10.0)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            board.pump(0.1)
            res = board.festival.results()["competitions"]
            if res and res[0]["from"] == "events" and res[0]["seq"] == len(journal_mod.read(loop.journal.path).events):
                break
        board.close()
        journaled = journal_mod.read(loop.journal.path).events
        assert res[0]["seq"] == len(journaled) > 0     # every journaled event, each once
        assert res[0]["standings"] == engine.summary(loop.state)["standings"]
        assert sorted(row["points"] for row in res[0]["standings"]) != [0, 0, 0, 0]
        assert res[0]["hall"] == "Зал 1" and res[0]["name"] == "Эрудит"
        # the loop's own status: the link was up
        loop.drain()
        assert loop.status()["link"]["connected"] is True
    finally:
        broker.stop()


def test_an_unreachable_broker_is_one_line_for_the_host_and_never_slows_the_loop(tmp_path):
    loop, clock, cfg = hall_loop(tmp_path, f"mqtt://127.0.0.1:{free_port()}")
    out = []
    loop.out = type("Out", (), {"write": lambda self, s: out.append(s), "flush": lambda self: None})()
    publisher = attach(loop, cfg)
    started = time.perf_counter()
    play(loop, clock, 6)
    spent = time.perf_counter() - started
    assert spent < 1.0          # 6 questions, no network wait in the loop
    deadline = time.monotonic() + 10
    while loop.link is None and time.monotonic() < deadline:
        time.sleep(0.05)
        loop.drain()
    assert loop.link == {"connected": False, "detail": loop.link["detail"]}
    assert "unreachable" in loop.link["detail"]
    shown = [line for line in "".join(out).splitlines() if "нет связи" in line]
    assert len(shown) == 1 and "брокер не отвечает" in shown[0]    # one line for the host, in Russian
    assert "unreachable" not in shown[0]
    assert loop.status()["link"]["connected"] is False       # and the status corner says so
    assert publisher.pending() > 0            # kept for later: the journal has them
    assert not publisher.close(0.5)


HALL_SCRIPT = r"""
import sys, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_festival_hall import hall_loop, play
from controller.festival.hall import attach
if __name__ == "__main__":
    loop, clock, cfg = hall_loop(Path({tmp!r}), {url!r})
    pub = attach(loop, cfg)
    play(loop, clock, 4)
    print("child", pub._process.pid, flush=True)
    time.sleep(60)
"""


def test_the_publisher_process_reads_the_journal_and_dies_with_its_hall(tmp_path):
    """``buzzer run``'s publisher is a child process that follows the journal: a SIGKILLed
    hall takes it down at once (no second publisher fights the restarted one), and the
    restarted hall sends what the broker had not acknowledged, from the journal."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    broker = Broker(tmp_path / "broker").start()
    try:
        board = listen(broker.url)
        script = HALL_SCRIPT.format(tests=str(Path(__file__).parent), tmp=str(tmp_path), url=broker.url)
        hall = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        line = ""
        while not line.startswith("child "):
            line = hall.stdout.readline()
            assert line, "the hall ended before it published"
        child = int(line.split()[1])
        os.kill(hall.pid, signal.SIGKILL)
        hall.wait(10)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the publisher's process outlived its hall")
        before = len(journal_mod.read(journal_mod.current_path(tmp_path / "journal")).events)
        assert before > 0
        # the restarted hall: the same journal, 4 more questions
        loop, clock, cfg = hall_loop(tmp_path, broker.url)
        loop.state = journal_mod.replay(journal_mod.read(loop.journal.path))[0]
        clock.advance(100_000 * MS)
        publisher = attach(loop, cfg)
        play(loop, clock, 4)
        assert publisher.close(10.0)
        journaled = journal_mod.read(loop.journal.path).events
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            board.pump(0.1)
            res = board.festival.results()["competitions"]
            if res and res[0]["seq"] == len(journaled):
                break
        board.close()
        assert res[0]["seq"] == len(journaled) > before      # both runs' events, none lost
        assert res[0]["standings"] == engine.summary(loop.state)["standings"]
        assert len(board.festival.games) == 1            # one game, continued, each event once
    finally:
        broker.stop()
