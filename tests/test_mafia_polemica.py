"""«Мафия» protocols in the Polemica platform's JSON (docs/exports.md): a scripted game played
through the real loop records nominations, votes, the night's shot, the checks, fouls with their
stage, the best move and extra points; `buzzer protocol polemica` and `buzzer tournament
--polemica` export them and the files are read back as that format's models read them."""

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

from controller.sessions import script
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import ManualClock

ROOT = Path(__file__).resolve().parent.parent
BUZZER = [sys.executable, "-m", "controller.cli"]

NAMES = ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл"]
ROLES = ["civilian", "don", "civilian", "sheriff", "mafia", "civilian", "mafia", "civilian", "civilian", "civilian"]
# the format's role numbers: DON 0, MAFIA 1, PEACE 2, SHERIFF 3
POLEMICA_ROLES = [2, 0, 2, 3, 1, 2, 1, 2, 2, 2]

DAY_1 = [
    {"at": 1, "host": "speech", "seat": 1},
    {"at": 20, "host": "nominate", "seat": 5},                   # by the speaker, seat 1
    {"at": 30, "host": "foul", "seat": 3},                       # during seat 1's minute
    {"at": 61, "host": "speech", "seat": 2},
    {"at": 70, "host": "nominate", "seat": 4},
    {"at": 121, "host": "speech", "seat": 3},
    {"at": 130, "host": "nominate", "seat": 7, "by": 3},
    {"at": 200, "host": "vote", "candidate": 5, "voters": [1, 3, 6]},
    {"at": 201, "host": "vote", "candidate": 4, "voters": [2, 5, 7, 8]},
    {"at": 202, "host": "vote", "candidate": 7, "voters": [4, 9, 10]},
    {"at": 210, "host": "out", "seat": 4, "reason": "voted"},
    {"at": 211, "host": "speech", "seat": 4, "kind": "last_word"},
    {"at": 230, "host": "foul", "seat": 8},                      # during seat 4's last word
    # night 1
    {"at": 300, "host": "killed", "seat": 1},
    {"at": 301, "host": "don_check", "seat": 6},
]
DAY_2 = [
    {"at": 400, "host": "day"},
    {"at": 401, "host": "speech", "seat": 1, "kind": "last_word"},
    {"at": 420, "host": "guess", "seats": [5, 7]},               # the first killed's best move
    {"at": 461, "host": "speech", "seat": 6},
    {"at": 470, "host": "nominate", "seat": 5},
    {"at": 521, "host": "speech", "seat": 8},
    {"at": 530, "host": "nominate", "seat": 7},
    {"at": 600, "host": "vote", "candidate": 5, "voters": [6, 8, 9, 10]},
    {"at": 601, "host": "vote", "candidate": 7, "voters": [2, 3, 5, 7]},
    {"at": 602, "host": "revote"},
    {"at": 603, "host": "speech", "seat": 5, "kind": "defence"},
    {"at": 610, "host": "foul", "seat": 9},                      # during seat 5's defence, round 2
    {"at": 640, "host": "vote", "candidate": 5, "voters": [6, 8, 9, 10]},
    {"at": 641, "host": "vote", "candidate": 7, "voters": [2, 3, 5, 7]},
    {"at": 650, "host": "lift", "voters": [3, 6, 8, 9, 10]},
    {"at": 651, "host": "out", "seat": 5, "reason": "voted"},
    {"at": 652, "host": "out", "seat": 7, "reason": "voted"},
    {"at": 660, "host": "disqualify", "seat": 10},
]


def write_script(path: Path, protocols: Path, game: int, end: str) -> Path:
    lines = [{"setup": {"mode": "mafia", "settings": {"mafia.players": NAMES, "mafia.protocol_dir": str(protocols),
                                                        "mafia.tournament": "Кубок", "mafia.game_number": game}}}]
    lines += [{"at": 0.5, "host": "role", "seat": i + 1, "role": r} for i, r in enumerate(ROLES)]
    lines += DAY_1 + DAY_2 + [{"at": 700, "host": "end_game", "winner": end},
                              {"at": 710, "host": "extra", "seat": 6, "points": 1},
                              {"at": 711, "host": "extra", "seat": 9}]   # the key's first step: 1
    lines += [{"at": 712, "host": "extra", "seat": 9}]                    # its second: 0.5
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def play_through_the_loop(path: Path) -> Loop:
    """The script's host lines into the real loop (what `buzzer run` does with the judge's keys)."""
    s = script.load(path)
    cfg = script.config_for(s)
    clock = ManualClock(0)
    loop = Loop(cfg, engine.new_game(cfg, script.seed_for(s, cfg)), clock)
    for _line, event in script.timeline(s):
        clock.set(event.at)
        loop.apply(event)
        loop.drain()
    return loop


def buzzer(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(BUZZER + list(args), capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def stamp(value: str) -> dt.datetime:
    """The format's LocalDateTime: an ISO time without a zone."""
    moment = dt.datetime.fromisoformat(value)
    assert moment.tzinfo is None, value
    return moment


def test_a_scripted_game_exports_roles_votes_kills_checks_fouls_bonuses_and_guess(tmp_path):
    protocols = tmp_path / "protocols"
    loop = play_through_the_loop(write_script(tmp_path / "game.jsonl", protocols, 3, "town"))
    saved = protocols / "game-003-table-1.json"
    assert loop.extras.protocol_complete and loop.extras.protocol_path == saved
    ours = json.loads(saved.read_text(encoding="utf-8"))
    assert ours["format"] == "buzzer-mafia-protocol" and ours["version"] == 1   # our format, extended
    assert [p["extra"] for p in ours["players"]] == [0, 0, 0, 0, 0, 1, 0, 0, 0.5, 0]

    done = buzzer("protocol", "polemica", str(saved), "-o", str(tmp_path / "g3.json"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "g3.json")
    game = json.loads((tmp_path / "g3.json").read_text(encoding="utf-8"))

    players = {p["position"]: p for p in game["players"]}
    assert [players[n]["username"] for n in range(1, 11)] == NAMES
    assert [players[n]["role"] for n in range(1, 11)] == POLEMICA_ROLES
    assert game["result"] == 0 and game["num"] == 3 and game["table"] == 1      # RED_WIN
    # nominations are votes with num 0, rounds 1, 2; the vote to lift both tied has no num
    votes = game["votes"]
    assert [(v["voter"], v["candidate"]) for v in votes if v["day"] == 1 and v.get("num") == 0] == [(1, 5), (2, 4), (3, 7)]
    day1 = {}
    for v in votes:
        if v["day"] == 1 and v.get("num") == 1:
            day1.setdefault(v["candidate"], []).append(v["voter"])
    assert day1 == {5: [1, 3, 6], 4: [2, 5, 7, 8], 7: [4, 9, 10]}
    assert [(v["voter"], v["candidate"]) for v in votes if v["day"] == 2 and v.get("num") == 0] == [(6, 5), (8, 7)]
    assert sorted(v["voter"] for v in votes if v["day"] == 2 and v.get("num") == 2) == [2, 3, 5, 6, 7, 8, 9, 10]
    assert sorted(v["voter"] for v in votes if "num" not in v) == [3, 6, 8, 9, 10]
    # the night's kill: every mafia player at the table shot seat 1
    assert game["shots"] == [{"night": 1, "shooter": s, "victim": 1} for s in (2, 5, 7)]
    assert game["checks"] == [{"night": 1, "role": 0, "player": 6}]              # the don's
    # fouls with their time and stage
    (f3,), (f8,), (f9,) = players[3]["fouls"], players[8]["fouls"], players[9]["fouls"]
    assert f3["stage"] == {"type": "speech", "day": 1, "player": 1}
    assert f8["stage"] == {"type": "voted", "day": 1, "player": 4}              # a voted-out's last word
    assert f9["stage"] == {"type": "reSpeech", "day": 2, "player": 5, "voting": 2}
    assert (stamp(f8["time"]) - stamp(f3["time"])).total_seconds() == 200
    # the first line (roles) at 0.5 s, the foul at 30 s; the stamps are whole seconds
    assert 29 <= (stamp(f3["time"]) - stamp(game["started"])).total_seconds() <= 30
    assert players[10]["disqual"] == {"type": "voting", "day": 2}               # removed after the votes
    assert "disqual" not in players[9]
    assert players[1]["guess"] == {"civs": None, "mafs": [5, 7], "vice": None}
    assert sorted((b["position"], b["scores"]) for b in game["bonuses"]) == [(6, 1.0), (9, 0.5)]


def test_tournament_table_in_the_format(tmp_path):
    protocols = tmp_path / "protocols"
    for number, end in ((3, "town"), (4, "mafia")):
        play_through_the_loop(write_script(tmp_path / f"g{number}.jsonl", protocols, number, end))
    out = tmp_path / "table.json"
    done = buzzer("tournament", str(protocols), "--seed", "1", "--polemica", str(out))
    assert done.returncode == 0, done.stderr
    rows = {r["username"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    assert set(rows) == set(NAMES) and all(r["id"] == 0 for r in rows.values())
    egor = rows["Егор"]["metrics"]["civ"]            # seat 6: a civilian, 1 extra point in each game
    assert (egor["games"], egor["wins"], egor["totalScores"], egor["totalAwards"]) == (2, 1, 5.0, 2.0)
    boris = rows["Борис"]["metrics"]["don"]          # the don: won the second game
    assert (boris["games"], boris["wins"], boris["totalScores"]) == (2, 1, 4.0)
    anna = rows["Анна"]["metrics"]["civ"]            # killed on the first night, twice
    assert anna["firstShot"] == 2
    kirill = rows["Кирилл"]["metrics"]["civ"]        # disqualified twice: −1 each, 3 for the town's win
    assert kirill["totalScores"] == 1.0
    assert [r["username"] for r in json.loads(out.read_text(encoding="utf-8"))][0] == "Егор"   # our ranking order


def test_a_doctor_or_a_foul_without_its_time_is_one_line(tmp_path):
    base = {"tournament": "Кубок", "stage": "тур", "game": 1, "table": 1, "date": "2015-03-06", "winner": "town",
            "players": [{"seat": i + 1, "name": f"Игрок {i + 1}", "role": r}
                        for i, r in enumerate(["don", "mafia", "doctor"] + ["civilian"] * 7)]}
    doctor = tmp_path / "doctor.json"
    doctor.write_text(json.dumps(base, ensure_ascii=False), encoding="utf-8")
    done = buzzer("protocol", "polemica", str(doctor))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{doctor}: players[2].role: seat 3 is the doctor: Polemica's format has no doctor" in done.stderr
    base["players"][2]["role"] = "commissar"
    base["players"][5]["fouls"] = 2
    fouls = tmp_path / "fouls.json"
    fouls.write_text(json.dumps(base, ensure_ascii=False), encoding="utf-8")
    done = buzzer("protocol", "polemica", str(fouls))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "players[5].foul_log: seat 6 has fouls without their time and stage" in done.stderr
    assert not (tmp_path / "fouls.polemica.json").exists()


def test_the_judges_keys_nominate_and_count_votes(tmp_path):
    """The keypad way: the seat number, then the action's key (docs/mafia.md's key table)."""
    from controller.app import config
    from controller.games.mafia import game as mafia

    cfg = config.build({"mode": "mafia", "mafia": {"players": NAMES, "protocol_dir": str(tmp_path)}})
    clock = ManualClock(1_000_000_000)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock)
    for keys in (["1"], ["return"], ["5"], ["a"], ["5"], ["g"], ["3"], ["y"], ["8"], ["y"], ["3"], ["y"]):
        clock.advance(100_000_000)
        loop.key_down(keys)
        loop.drain()
    assert loop.notice == "Игрок 3 уже голосовал в этом круге"   # voting twice: refused, in words
    record = mafia.protocol_summary(loop.state)["record"]
    assert [(m["kind"], m.get("by"), m.get("seat")) for m in record] == [
        ("nomination", 1, 5), ("vote", 3, 5), ("vote", 8, 5)]


def test_a_night_of_separate_shots_and_a_miss():
    from controller.games.mafia import polemica
    from controller.games.mafia.protocol import from_dict

    data = {"tournament": "Кубок", "stage": "тур", "game": 1, "table": 1, "date": "2015-03-06", "winner": "mafia",
            "players": [{"seat": i + 1, "name": NAMES[i], "role": r} for i, r in enumerate(ROLES)],
            "shots": [{"night": 1, "shooter": 2, "victim": 9}, {"night": 1, "shooter": 5, "victim": 8},
                      {"night": 1, "shooter": 7, "victim": 9}, {"night": 2}, {"night": 3, "victim": 6}]}
    game = polemica.game_json(from_dict(data))
    assert game["result"] == 1                                       # BLACK_WIN
    assert game["shots"] == [{"night": 1, "shooter": 2, "victim": 9}, {"night": 1, "shooter": 5, "victim": 8},
                             {"night": 1, "shooter": 7, "victim": 9}] + \
        [{"night": 3, "shooter": s, "victim": 6} for s in (2, 5, 7)]  # night 2: a miss, no shots
