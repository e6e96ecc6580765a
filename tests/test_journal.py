"""The journal: durable records, torn tails dropped, archive never deletes, replay is exact."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from controller.app import config
from controller.sessions import journal
from controller.games import engine
from controller.core.errors import JournalError
from controller.core.events import Host, Press, Release, Tick

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


def _run_headless(cwd, keys: bytes, *extra, kill_after=None, kill_when=None):
    """``buzzer run --headless`` in ``cwd`` with ``keys`` typed one by one; SIGKILL it
    ``kill_after`` seconds after the last key, or as soon as ``kill_when()`` is true."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "6",
                             *extra], cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out = bytearray()
    reader = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                              daemon=True)
    reader.start()
    # keys typed before the game is up would arrive in one batch (a ruling before the press
    # it rules on is settled): wait for the line of team keys the game prints when it starts
    deadline = time.monotonic() + 120
    while keys and b"Q = " not in out and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    for k in keys:
        proc.stdin.write(bytes([k]))
        proc.stdin.flush()
        time.sleep(0.15)
    if kill_when is not None:
        deadline = time.monotonic() + 120
        while not kill_when() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    elif kill_after is not None:
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    proc.stdin.close()
    proc.wait(timeout=30)
    reader.join(10)
    err = proc.stderr.read()
    return proc.returncode, out.decode(), err.decode()


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
    from controller.inputs.clock import ManualClock
    from controller.app.loop import Loop

    cfg = config.load()
    cfg["journal"]["dir"] = str(tmp_path)
    jr = journal.Journal(journal.current_path(tmp_path), header={"config": cfg, "seed": 1})
    clock = ManualClock(1_000_000_000)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=jr)
    from controller.inputs.keyboard import KeyboardBackend
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


def _ten_line_journal(tmp_path) -> Path:
    """header + 9 events: question, Гамма presses, right (Гамма 10), question, Бета presses, wrong (Бета -20) ..."""
    jr, _ = new_journal(tmp_path)
    for ev in [Host("question", 1_000_000_000), Press("C", 2_000_000_000, 2_000_000_000),
               Tick(2_010_000_000), Host("right", 3_000_000_000), Host("question", 4_000_000_000),
               Press("B", 5_000_000_000, 5_000_000_000), Tick(5_010_000_000), Host("wrong", 6_000_000_000),
               Host("question", 7_000_000_000)]:
        jr.append(ev)
    jr.close()
    p = journal.current_path(tmp_path)
    assert len(p.read_bytes().splitlines()) == 10
    return p


def _damage_line(p: Path, n: int) -> bytes:
    lines = p.read_bytes().splitlines(keepends=True)
    body = bytearray(lines[n - 1])
    body[20] = ord("#") if body[20] != ord("#") else ord("%")  # one character changed
    lines[n - 1] = bytes(body)
    p.write_bytes(b"".join(lines))
    return p.read_bytes()


def test_damaged_middle_record_deletes_nothing_and_is_named(tmp_path):
    """A damaged record on line 4 of 10: the 3 good lines before it are resumed; the whole
    original, with the 6 intact records after the damaged one, is kept beside the journal."""
    p = _ten_line_journal(tmp_path)
    original = _damage_line(p, 4)
    c = journal.read(p)
    assert c.damaged_at == 4 and c.records == 10 and c.dropped == 7
    assert len(c.events) == 2
    kept = journal.set_aside(tmp_path, c)
    assert kept.parent == tmp_path / "archive" and "damaged" in kept.name
    assert kept.read_bytes() == original                      # every byte of the original, intact
    assert p.read_bytes() == original[:c.valid_bytes]          # the journal goes on from the trusted part
    jr = journal.Journal(p, truncate_to=c.valid_bytes)
    jr.append(Host("question", 8_000_000_000))
    jr.close()
    assert journal.read(p).events == c.events + [Host("question", 8_000_000_000)]
    assert kept.read_bytes() == original


def test_journal_never_cuts_more_than_a_torn_last_record(tmp_path):
    p = _ten_line_journal(tmp_path)
    original = _damage_line(p, 4)
    c = journal.read(p)
    with pytest.raises(JournalError, match="damaged"):
        journal.Journal(p, truncate_to=c.valid_bytes)
    assert p.read_bytes() == original


def test_buzzer_run_with_a_damaged_middle_record_keeps_the_original_and_says_so(tmp_path):
    jdir = tmp_path / "journal"
    p = _ten_line_journal(jdir)
    original = _damage_line(p, 4)
    rc, out, err = _run_headless(tmp_path, b"", "--lang", "en", "--seconds", "1")
    assert rc == 0, err
    kept = list((jdir / "archive").glob("*damaged*.jsonl"))
    assert len(kept) == 1 and kept[0].read_bytes() == original
    line = next(ln for ln in out.splitlines() if "damaged" in ln)
    assert "record 4 of 10" in line and "7 records" in line and str(kept[0].relative_to(tmp_path)) in line
    c = journal.read(p)
    assert c.damaged_at is None and c.events[:2] == journal.read(kept[0]).events[:2]
    # the old code cut the file to the 3 good lines: the 6 intact records after line 4 are still there
    assert original.splitlines()[4:] == kept[0].read_bytes().splitlines()[4:]


# -- start-up with another game's config (buzzer run -c …) ---------------------------------

OWN_GAME = ROOT / "config" / "own-game.toml"
DEFAULT = ROOT / "config" / "default.toml"


def _unfinished_erudite_game(tmp_path):
    """A real Эрудит-квартет game (default config) killed after Гамма's right answer."""
    p = journal.current_path(tmp_path / "journal")

    def ruled():
        try:
            return any(getattr(e, "action", "") == "right" for e in journal.read(p).events)
        except (JournalError, OSError):
            return False

    rc, _, _ = _run_headless(tmp_path, b"np\n", kill_when=ruled)
    assert rc == -signal.SIGKILL
    c = journal.read(p)
    assert c.header["config"]["mode"] == "erudite" and not c.finished
    return p, c


def _run_in_terminal(cwd, answer: bytes, *extra):
    """``buzzer run`` with a terminal on stdin: wait for its question, type ``answer``."""
    import pty

    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy", PYTHONPATH=str(ROOT))
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "1",
                             *extra], cwd=cwd, env=env, stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    os.close(slave)
    out = bytearray()
    reader = threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                              daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not out.rstrip().endswith(b"]") and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    question = out.decode()
    os.write(master, answer)
    proc.wait(timeout=30)
    reader.join(10)
    os.close(master)
    return proc.returncode, question, out.decode(), proc.stderr.read().decode()


def test_another_games_config_without_a_terminal_changes_nothing_and_says_why(tmp_path):
    p, c = _unfinished_erudite_game(tmp_path)
    before = p.read_bytes()
    rc, out, err = _run_headless(tmp_path, b"", "-c", str(OWN_GAME), "--lang", "en")
    assert rc == 2                                             # the old code resumed the Эрудит game
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "Erudite Quartet" in err and c.header["started"] in err and str(DEFAULT) in err
    assert f"{len(c.events)} events" in err and "Own Game" in err and str(OWN_GAME) in err
    assert "--new" in err and "--resume" in err
    assert p.read_bytes() == before and not (tmp_path / "journal" / "archive").exists()


def test_another_games_config_in_a_terminal_names_the_game_and_enter_keeps_it(tmp_path):
    p, c = _unfinished_erudite_game(tmp_path)
    before = p.read_bytes()
    rc, question, out, err = _run_in_terminal(tmp_path, b"\n", "-c", str(OWN_GAME))
    assert rc == 0, err
    assert "Эрудит-квартет" in question and c.header["started"] in question and str(DEFAULT) in question
    assert "Своя игра" in question and "journal/archive" in question and question.rstrip().endswith("[д/Н]")
    assert "Resumed" not in out and "Ничего не изменено" in out
    assert p.read_bytes() == before and not (tmp_path / "journal" / "archive").exists()


def test_another_games_config_yes_archives_the_old_game_and_starts_the_new_one(tmp_path):
    p, c = _unfinished_erudite_game(tmp_path)
    before = p.read_bytes()
    rc, question, out, err = _run_in_terminal(tmp_path, b"y\n", "-c", str(OWN_GAME), "--lang", "en")
    assert rc == 0, err
    assert question.rstrip().endswith("[y/N]")
    archived = list((tmp_path / "journal" / "archive").glob("game-*.jsonl"))
    assert len(archived) == 1 and archived[0].read_bytes() == before   # the Эрудит game, whole
    assert str(archived[0].relative_to(tmp_path)) in out
    new = journal.read(p)
    assert new.header["config"]["mode"] == "own-game" and new.header["config_path"] == str(OWN_GAME)


def test_the_same_config_in_a_terminal_names_the_game_and_enter_resumes(tmp_path):
    p, c = _unfinished_erudite_game(tmp_path)
    assert c.header["config_path"] == str(DEFAULT)             # the header records the config file
    rc, question, out, err = _run_in_terminal(tmp_path, b"\n", "--lang", "en")
    assert rc == 0, err
    assert f"An unfinished Erudite Quartet game (started {c.header['started']}, config {DEFAULT}" in question
    assert question.rstrip().endswith("Resume it? [Y/n]")
    assert "Resumed the unfinished game" in out and "Гамма 10" in out   # --lang en


def test_resume_flag_with_another_games_config_resumes_it_and_says_so(tmp_path):
    p, c = _unfinished_erudite_game(tmp_path)
    rc, out, err = _run_headless(tmp_path, b"", "-c", str(OWN_GAME), "--resume", "--lang", "en")
    assert rc == 0, err
    assert f"Resumed the unfinished Erudite Quartet game (config {DEFAULT}) as --resume asks" in out
    assert "Гамма 10" in out                                   # the Эрудит game, with its own teams


def test_a_journal_without_the_config_file_in_its_header_still_resumes(tmp_path):
    jdir = tmp_path / "journal"
    jr, cfg = new_journal(jdir)                                # a header as older versions wrote it
    for ev in [Host("question", 1_000_000_000), Press("C", 2_000_000_000, 2_000_000_000),
               Tick(2_010_000_000), Host("right", 3_000_000_000)]:
        jr.append(ev)
    jr.close()
    assert "config_path" not in journal.read(journal.current_path(jdir)).header
    rc, out, err = _run_headless(tmp_path, b"", "--seconds", "1")
    assert rc == 0, err
    assert "Незавершённая игра продолжена: 4 события" in out and "Гамма 10" in out


def test_an_unplayed_game_of_another_config_is_archived_without_a_question(tmp_path):
    # the host ended the Эрудит game with the new-game key: a fresh game nobody has played yet
    rc, _, _ = _run_headless(tmp_path, b"", "--seconds", "0.5")
    assert rc == 0
    p = journal.current_path(tmp_path / "journal")
    before = p.read_bytes()
    assert journal.read(p).events == []
    rc, out, err = _run_headless(tmp_path, b"", "-c", str(OWN_GAME), "--lang", "en", "--seconds", "0.5")
    assert rc == 0, err
    archived = list((tmp_path / "journal" / "archive").glob("game-*.jsonl"))
    assert len(archived) == 1 and archived[0].read_bytes() == before
    assert f"archived to {archived[0].relative_to(tmp_path)}" in out
    assert journal.read(p).header["config"]["mode"] == "own-game"


def test_a_game_killed_mid_countdown_resumes_paused_and_says_so_in_the_hosts_words(tmp_path):
    """SIGKILL while the 7 s countdown runs: the resumed game waits, paused at the moment it
    stopped (it must not run on while the program starts or from the moment the host answered
    «Продолжить?»), and the terminal says so in words a host reads, naming the key."""
    p = journal.current_path(tmp_path / "journal")

    def counting():
        try:
            return any(getattr(e, "action", "") == "reading_done" for e in journal.read(p).events)
        except (JournalError, OSError):
            return False

    rc, _, _ = _run_headless(tmp_path, b"n ", kill_when=counting)
    assert rc == -signal.SIGKILL
    killed = journal.read(p)
    state, _, _, last = journal.replay(killed)
    left_at_kill = engine.view(state, last)["countdown"]["remaining_ms"]
    assert engine.view(state, last)["countdown"]["running"]

    rc, out, err = _run_headless(tmp_path, b"", "--seconds", "1.5")
    assert rc == 0, err
    assert "Время шло, когда программа остановилась: оно стоит на паузе, S / Num . — продолжить." in out
    assert "часы на" not in out
    resumed = journal.read(p)
    assert resumed.events[-1] == Host("pause", last)          # journaled, at the moment it stopped
    state, _, _, _ = journal.replay(resumed)
    cd = engine.view(state, last + 60 * 1_000_000_000)["countdown"]   # a minute later: still waiting
    assert not cd["running"] and cd["remaining_ms"] == left_at_kill


def test_a_torn_last_record_is_said_in_the_hosts_language_at_start_up(tmp_path):
    """The power went off while the last record was written: `buzzer run` says so in Russian
    (not logging's English «last record torn»), and the game resumes from the records before it."""
    p, _ = _unfinished_erudite_game(tmp_path)
    p.write_bytes(p.read_bytes()[:-7])
    rc, out, err = _run_headless(tmp_path, b"", "--seconds", "1")
    assert rc == 0, err
    assert ("journal/current.jsonl: последняя запись оборвана (питание пропало, пока она писалась?); "
            "она отброшена, записи до неё целы") in out
    assert "torn" not in out + err
