"""The journal: durable records, torn tails dropped, archive never deletes, replay is exact."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller import config, engine, journal
from controller.errors import JournalError
from controller.events import Host, Press, Release, Tick

ROOT = Path(__file__).resolve().parents[1]


def new_journal(tmp_path, fsync=True):
    cfg = config.load()
    return journal.Journal(journal.current_path(tmp_path), header={"config": cfg, "seed": 5}, fsync=fsync), cfg


def test_events_round_trip(tmp_path):
    jr, cfg = new_journal(tmp_path)
    events = [Host("question", 1_000, {"nominal": 30, "theme": "Реки"}), Press("A", 2_000, 2_500),
              Release("A", 3_000, 3_000), Tick(4_000), Host("right", 5_000)]
    for ev in events:
        jr.append(ev)
    jr.close()
    c = journal.read(journal.current_path(tmp_path))
    assert c.events == events
    assert c.header["seed"] == 5 and c.header["config"]["mode"] == "erudite"
    assert not c.finished and c.dropped == 0


def test_torn_last_record_is_dropped_not_fatal(tmp_path):
    jr, _ = new_journal(tmp_path)
    jr.append(Host("question", 1_000))
    jr.append(Press("B", 2_000, 2_000))
    jr.close()
    p = journal.current_path(tmp_path)
    data = p.read_bytes()
    p.write_bytes(data[:-7])  # the power went off in the middle of the last write
    c = journal.read(p)
    assert c.events == [Host("question", 1_000)]
    assert c.dropped == 1
    # appending after recovery first cuts the torn tail away
    jr = journal.Journal(p, truncate_to=c.valid_bytes)
    jr.append(Press("C", 3_000, 3_000))
    jr.close()
    assert journal.read(p).events == [Host("question", 1_000), Press("C", 3_000, 3_000)]


def test_bad_crc_in_last_record_is_dropped(tmp_path):
    jr, _ = new_journal(tmp_path)
    jr.append(Host("question", 1_000))
    jr.append(Host("reading_done", 2_000))
    jr.close()
    p = journal.current_path(tmp_path)
    lines = p.read_bytes().splitlines(keepends=True)
    lines[-1] = lines[-1].replace(b"reading_done", b"reading_dona")
    p.write_bytes(b"".join(lines))
    assert journal.read(p).events == [Host("question", 1_000)]


def test_not_a_journal_is_a_clear_error(tmp_path):
    p = tmp_path / "current.jsonl"
    p.write_text("hello\n")
    with pytest.raises(JournalError):
        journal.read(p)


def test_archive_moves_never_deletes(tmp_path):
    jr, _ = new_journal(tmp_path)
    jr.append(Host("question", 1))
    jr.close()
    first = journal.archive(tmp_path)
    jr, _ = new_journal(tmp_path)
    jr.close()
    second = journal.archive(tmp_path)
    assert first.exists() and second.exists() and first != second
    assert not journal.current_path(tmp_path).exists()
    assert journal.read(first).events == [Host("question", 1)]


def test_replay_restores_scores_holder_and_countdown(tmp_path):
    jr, cfg = new_journal(tmp_path)
    s = engine.new_game(cfg, 5)
    events = [Host("question", 1_000_000_000), Host("reading_done", 2_000_000_000),
              Press("C", 3_000_000_000, 3_000_000_000), Tick(3_010_000_000), Host("wrong", 4_000_000_000),
              Tick(6_500_000_000)]
    for ev in events:
        jr.append(ev)
        s, _ = engine.step(s, ev)
    jr.close()
    state, _, seed, last = journal.replay(journal.read(journal.current_path(tmp_path)))
    assert state == s and seed == 5 and last == 6_500_000_000
    v = engine.view(state)
    assert {t["name"]: t["score"] for t in v["teams"]}["Гамма"] == -10
    assert v["countdown"]["remaining_ms"] == pytest.approx(4_500)  # restarted at 4.0 s, 2.5 s gone


def _run_headless(cwd, keys: bytes, *extra, kill_after=None):
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "6",
                             *extra], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    head = b""
    if keys:
        # type only once the game reads keys (a slow start must not bunch them into one read)
        deadline = time.monotonic() + 30
        while b"Q = " not in head and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            head += line
    for k in keys:
        proc.stdin.write(bytes([k]))
        proc.stdin.flush()
        time.sleep(0.15)
    if kill_after is not None:
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=20)
    else:
        out, err = proc.communicate(timeout=30)
    return proc.returncode, (head + out).decode(), err.decode()


def test_buzzer_run_killed_resumes_the_same_game(tmp_path):
    # question, team Гамма (key p) presses, host says right (Enter): Гамма 10
    rc, out, _ = _run_headless(tmp_path, b"np\n" + b"nz\x7f", kill_after=0.3)
    assert rc == -signal.SIGKILL
    c = journal.read(journal.current_path(tmp_path / "journal"))
    state, _, _, _ = journal.replay(c)
    scores = {t["name"]: t["score"] for t in engine.view(state)["teams"]}
    assert scores == {"Альфа": 0, "Бета": -20, "Гамма": 10, "Дельта": 0}
    # a restart resumes it (stdin is not a terminal: resume without asking)
    rc, out, err = _run_headless(tmp_path, b"")
    assert rc == 0, err
    assert "Незавершённая игра продолжена" in out      # in the game's language (Russian by default)
    assert "Гамма 10" in out and "Бета −20" in out      # as the screen writes it: a true minus


def test_new_game_archives_the_unfinished_one(tmp_path):
    rc, _, _ = _run_headless(tmp_path, b"np\n", kill_after=0.2)
    rc, out, err = _run_headless(tmp_path, b"", "--new")
    assert rc == 0, err
    archived = list((tmp_path / "journal" / "archive").glob("game-*.jsonl"))
    assert len(archived) == 1
    old_game, _, _, _ = journal.replay(journal.read(archived[0]))
    assert engine.view(old_game)["teams"][2]["score"] == 10      # Гамма's point is kept in the archive
    new_game, _, _, _ = journal.replay(journal.read(journal.current_path(tmp_path / "journal")))
    assert [t["score"] for t in engine.view(new_game)["teams"]] == [0, 0, 0, 0]


def test_new_game_key_twice_archives_and_starts_fresh(tmp_path):
    from controller.clock import ManualClock
    from controller.loop import Loop

    cfg = config.load()
    cfg["journal"]["dir"] = str(tmp_path)
    jr = journal.Journal(journal.current_path(tmp_path), header={"config": cfg, "seed": 1})
    clock = ManualClock(1_000_000_000)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=jr)
    from controller.backends.keyboard import KeyboardBackend
    loop.backend = KeyboardBackend(["A", "B", "C", "D"], clock, loop.enqueue,
                                   {"keys": {t["button"]: t["key"] for t in cfg["teams"]}})
    loop.key_down(["n"])
    loop.drain()
    loop.key_down(["q"])
    clock.advance(10_000_000)
    loop.drain()
    loop.tick_if_due()
    loop.key_down(["return"])
    loop.drain()
    assert engine.view(loop.state)["teams"][0]["score"] == 10
    loop.key_down(["f12"])            # first press only asks
    assert engine.view(loop.state)["teams"][0]["score"] == 10
    clock.advance(500_000_000)
    loop.key_down(["f12"])            # second press within 3 s: new game
    assert engine.view(loop.state)["teams"][0]["score"] == 0
    archived = list((tmp_path / "archive").glob("*.jsonl"))
    assert len(archived) == 1
    old = journal.read(archived[0])
    assert [e.action for e in old.events if hasattr(e, "action")] == ["question", "right"]
    assert journal.read(journal.current_path(tmp_path)).events == []


def test_a_refused_action_in_the_journal_does_not_stop_recovery(tmp_path):
    jr, cfg = new_journal(tmp_path)
    events = [Host("question", 1_000), Host("no_such_action", 2_000), Press("A", 3_000, 3_000),
              Tick(10_000_000)]
    for ev in events:
        jr.append(ev)
    jr.close()
    state, _, _, _ = journal.replay(journal.read(journal.current_path(tmp_path)))
    assert engine.view(state)["teams"][0]["holder"] is True
