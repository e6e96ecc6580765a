"""«Мафия» tournament points, ranking, finalists and the `buzzer tournament` command."""

import csv
import io
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from controller.cli import main
from controller.core.events import NS_PER_S, Host
from controller.games.mafia.protocol import ProtocolError, from_dict, from_table, save
from controller.games.mafia import game as mafia
from controller.games.mafia.tournament import build_table, game_points, standings, to_csv, to_html, to_text, validate_extra_points

REPO = Path(__file__).resolve().parent.parent


def game(number, winner, players, *, final=False, table=1):
    """players: (name, role) or (name, role, extra) or (name, role, extra, disqualified), on
    seats 1, 2 ... of a table that has just as many seats (the protocol records them)."""
    rows = []
    for seat, p in enumerate(players, 1):
        name, role, extra, dq = tuple(p) + (None, None, 0, False)[len(p):]
        rows.append({"seat": seat, "name": name, "role": role, "extra": extra, "disqualified": dq,
                     "fouls": 4 if dq else 0})
    return {"tournament": "Кубок «Пале»", "stage": "Финал" if final else "Отборочный", "final": final,
            "game": number, "table": table, "date": "2015-03-06", "ended_at": "2015-03-06T12:00:00",
            "winner": winner, "seats": len(rows), "players": rows}


def proto(*args, settings=None, **kw):
    return from_dict(game(*args, **kw), settings)


def ranked(protocols, seed=0, settings=None):
    return [r.name for r in standings(protocols, settings, seed)]


TEN = [("Дон", "don"), ("М1", "mafia"), ("М2", "mafia"), ("Ком", "commissar"), ("Док", "doctor"),
       ("Ж1", "civilian"), ("Ж2", "civilian"), ("Ж3", "civilian"), ("Ж4", "civilian"), ("Ж5", "civilian")]


# ---------------------------------------------------------------- points (§4.2, §4.7)

def test_town_win_gives_3_to_each_town_player_and_0_to_the_mafia():
    pts = game_points(proto(1, "town", TEN))
    assert [pts[s] for s in range(1, 11)] == [0, 0, 0, 3, 3, 3, 3, 3, 3, 3]


def test_mafia_win_gives_4_to_each_mafia_player_and_0_to_the_town():
    pts = game_points(proto(1, "mafia", TEN))
    assert [pts[s] for s in range(1, 11)] == [4, 4, 4, 0, 0, 0, 0, 0, 0, 0]


def test_disqualification_costs_1_and_extra_points_add():
    players = list(TEN)
    players[5] = ("Ж1", "civilian", 0, True)   # disqualified, team won
    players[1] = ("М1", "mafia", 0, True)      # disqualified, team lost
    players[6] = ("Ж2", "civilian", 1)
    players[0] = ("Дон", "don", 0.5)
    pts = game_points(proto(1, "town", players))
    assert (pts[6], pts[2], pts[7], pts[1]) == (2, -1, 4, Fraction(1, 2))


def test_disqualified_player_can_be_denied_the_win_points_by_config():
    players = list(TEN)
    players[5] = ("Ж1", "civilian", 0, True)
    settings = {"disqualified_keeps_win_points": False}
    assert game_points(proto(1, "town", players, settings=settings), settings)[6] == -1


def test_final_game_points_are_multiplied_by_1_5():
    players = list(TEN)
    players[3] = ("Ком", "commissar", 1)
    pts = game_points(proto(9, "town", players, final=True))
    assert pts[4] == 6 and pts[5] == Fraction(9, 2) and pts[1] == 0
    pts = game_points(proto(9, "mafia", players, final=True))
    assert pts[1] == 6 and pts[4] == Fraction(3, 2)


def test_point_values_come_from_config():
    s = {"town_win_points": 2, "mafia_win_points": 5, "final_multiplier": 2}
    assert game_points(proto(1, "mafia", TEN, final=True), s)[1] == 10


# ---------------------------------------------------------------- extra points (§4.3)

def test_extra_points_validation_is_exported_for_the_tournament():
    players = from_dict(game(1, "town", TEN)).players
    validate_extra_points(players)  # none given: fine
    with pytest.raises(ProtocolError, match="at most 3 may get them"):
        from_dict(game(1, "town", [(n, r, 0.5) for n, r in TEN[:4]] + TEN[4:]))


# ---------------------------------------------------------------- ranking (§4.4)

def test_more_points_ranks_first():
    rows = standings([proto(1, "mafia", TEN), proto(2, "town", TEN)])
    assert {r.name for r in rows[:3]} == {"Дон", "М1", "М2"}  # 4 points beat 3
    assert [float(r.total) for r in rows] == [4] * 3 + [3] * 7


def test_tie_on_points_goes_to_more_extra_points():
    # A: town win 3 + extra 1 = 4; B: mafia win 4, no extra
    g1 = proto(1, "town", [("A", "civilian", 1), ("X", "mafia")])
    g2 = proto(2, "mafia", [("B", "mafia"), ("Y", "civilian")])
    rows = standings([g2, g1], seed=1)
    assert [r.name for r in rows[:2]] == ["A", "B"] and rows[0].total == rows[1].total == 4
    assert not rows[0].by_lot


def test_then_more_wins():
    s = {"disqualification_points": -3}
    # A: two town wins, one disqualified: 3 + 0 = 3 points, 2 wins; B: one town win: 3 points, 1 win
    g1 = proto(1, "town", [("A", "civilian"), ("B", "civilian"), ("X", "mafia")], settings=s)
    g2 = proto(2, "town", [("A", "civilian", 0, True), ("B", "mafia"), ("Y", "civilian")], settings=s)
    rows = standings([g1, g2], s, seed=0)
    by = {r.name: r for r in rows}
    assert by["A"].total == by["B"].total == 3 and by["A"].wins == 2 and by["B"].wins == 1
    assert [r.name for r in rows].index("A") < [r.name for r in rows].index("B")


def test_then_more_wins_as_don_or_commissar():
    for seed in range(5):  # never down to the lot
        g = proto(1, "town", [("Civ", "civilian"), ("Com", "commissar"), ("X", "mafia")])
        g2 = proto(2, "mafia", [("Don", "don"), ("Maf", "mafia"), ("Y", "civilian")])
        names = ranked([g, g2], seed)
        assert names.index("Com") < names.index("Civ")
        assert names.index("Don") < names.index("Maf")


def test_then_a_lot_whose_seed_is_recorded():
    g = proto(1, "town", [("C", "civilian"), ("D", "civilian"), ("X", "mafia")])
    orders = {seed: tuple(ranked([g], seed)[:2]) for seed in range(30)}
    assert set(orders.values()) == {("C", "D"), ("D", "C")}  # the lot really decides
    assert all(tuple(ranked([g], seed)[:2]) == orders[seed] for seed in range(30))  # and repeats
    table = build_table([g], seed=12345)
    assert [r.by_lot for r in table.rows] == [True, True, False]
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows[0][-1] == "Жребий" and [r[-1] for r in rows[1:]] == ["12345", "12345", ""]
    line = "Равные места решил жребий номер 12345 (тот же жребий ещё раз: --seed 12345)"
    assert to_text(table).splitlines()[-1] == line and line in to_html(table)
    assert "Жребий: seed" not in to_text(table)     # not the program's word for it


def test_a_table_the_lot_did_not_touch_says_so():
    g = proto(1, "town", [("C", "civilian", 0, True), ("D", "civilian"), ("X", "mafia")])
    table = build_table([g], seed=365416)
    assert not any(r.by_lot for r in table.rows)
    assert to_text(table).splitlines()[-1] == "Жребий не понадобился: полностью равных мест нет"
    assert "365416" not in to_text(table)


# ---------------------------------------------------------------- finalists (§4.6)

def test_finalists_are_the_top_of_the_games_before_the_final():
    protos = [proto(1, "mafia", TEN), proto(2, "mafia", TEN[1:] + [("Новый", "don")])]
    table = build_table(protos, {"finalists": 3}, seed=0)
    # М1, М2: 8 points; Дон and Новый: 4 points and one win as Don each -> the lot picks one
    assert table.finalists[:2] in (["М1", "М2"], ["М2", "М1"]) and len(table.finalists) == 3
    assert table.finalists[2] in ("Дон", "Новый")
    assert sum(r.finalist for r in table.rows) == 3


def test_the_final_does_not_change_who_qualified_and_counts_x1_5_in_the_total():
    qual = [proto(1, "town", TEN), proto(2, "town", TEN, table=2)]
    final = proto(3, "mafia", TEN, final=True)
    table = build_table(qual + [final], {"finalists": 2}, seed=0)
    # after the qualifying games the town leads; the final's mafia win does not change the finalists
    assert all(n not in ("Дон", "М1", "М2") for n in table.finalists)
    by = {r.name: r for r in table.rows}
    assert by["Дон"].qualifying == 0 and by["Дон"].final == 6 and by["Дон"].total == 6
    assert by["Ком"].final == 0 and by["Ком"].total == 6
    # everyone has 6: the town players have more wins (2 against 1); the Commissar's and
    # the Don's wins in their roles put them first of their groups
    assert table.rows[0].name == "Ком" and by["Дон"].place == 8 and by["М1"].place > 8
    assert table.winners == ["Дон", "М1", "М2"]


def test_default_number_of_finalists_is_10():
    players = [(f"P{i}", "civilian") for i in range(11)] + [("X", "mafia")]
    table = build_table([proto(1, "town", players)], seed=0)
    assert len(table.finalists) == 10


# ---------------------------------------------------------------- the command

def write_folder(folder: Path, games):
    folder.mkdir(exist_ok=True)
    for i, g in enumerate(games, 1):
        (folder / f"game{i:02d}.json").write_text(json.dumps(g, ensure_ascii=False), encoding="utf-8")
    return folder


def test_command_prints_and_exports_csv_and_html(tmp_path, capsys):
    games = [game(1, "town", [(n, r, 1 if n == "Ком" else 0) for n, r in TEN]),
             game(2, "mafia", TEN, table=2),
             game(3, "town", [(n, r) for n, r in TEN], final=True)]
    folder = write_folder(tmp_path / "protocols", games)
    (folder / "notes.txt").write_text("not a protocol")  # ignored
    out_csv, out_html = tmp_path / "table.csv", tmp_path / "table.html"
    code = main(["tournament", str(folder), "--csv", str(out_csv), "--html", str(out_html), "--seed", "7",
                 "--finalists", "4"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Турнирная таблица: Кубок «Пале»" in printed and "seed 7" in printed
    assert "Финалисты (4):" in printed and "Победители турнира (финал):" in printed
    rows = list(csv.DictReader(io.StringIO(out_csv.read_text(encoding="utf-8"))))
    by = {r["Участник"]: r for r in rows}
    # Ком: town win 3 + extra 1, loss 0, final town win 3 x 1.5 = 4.5 -> 8.5
    assert by["Ком"]["Итого"] == "8.5" and by["Ком"]["Баллы до финала"] == "4"
    assert by["Ком"]["Баллы финала (×1,5)"] == "4.5" and by["Ком"]["Побед Доном/Комиссаром"] == "2"
    assert by["Дон"]["Итого"] == "4" and by["Дон"]["Побед"] == "1"
    assert rows[0]["Место"] == "1" and rows[0]["Участник"] == "Ком"
    assert [r["Место"] for r in rows] == [str(i) for i in range(1, 11)]
    assert sum(r["Финалист"] == "да" for r in rows) == 4
    page = out_html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "Кубок «Пале»" in page and "<td>Ком</td>" in page
    assert 'class="finalist"' in page and "8,5" in page


def test_command_refuses_a_bad_protocol_with_exit_2_and_one_line(tmp_path, capsys):
    bad = game(2, "town", [(n, r, 1) for n, r in TEN[:4]] + TEN[4:])  # 4 players with extra points
    folder = write_folder(tmp_path / "p", [game(1, "town", TEN), bad])
    assert main(["tournament", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err == (f"buzzer: {folder / 'game02.json'}: players: 4 players have extra points "
                   "(seats 1, 2, 3, 4); at most 3 may get them (§4.3.1)\n")


def test_command_refuses_the_same_game_twice_and_an_empty_folder(tmp_path, capsys):
    folder = write_folder(tmp_path / "p", [game(1, "town", TEN), game(1, "mafia", TEN)])
    assert main(["tournament", str(folder)]) == 2
    assert "game 1 at table 1 (Отборочный) is also in game01.json" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["tournament", str(tmp_path / "empty")]) == 2
    assert capsys.readouterr().err == f"buzzer: нет протоколов (*.json) в папке {tmp_path / 'empty'}\n"
    assert main(["tournament", str(tmp_path / "empty"), "--lang", "en"]) == 2
    assert capsys.readouterr().err == f"buzzer: no protocol files (*.json) in {tmp_path / 'empty'}\n"


def test_command_runs_as_a_real_process(tmp_path):
    folder = write_folder(tmp_path / "p", [game(1, "town", TEN)])
    (folder / "broken.json").write_text('{"game": 1,', encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run = subprocess.run([sys.executable, "-m", "controller.cli", "tournament", str(folder), "--seed", "1"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().endswith("broken.json: ошибка в JSON, строка 1: Expecting property name enclosed "
                                       "in double quotes") and run.stderr.count("\n") == 1
    (folder / "broken.json").unlink()
    run = subprocess.run([sys.executable, "-m", "controller.cli", "tournament", str(folder)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert run.returncode == 0 and run.stdout.splitlines()[-1].startswith(("Равные места решил жребий номер ",
                                                                           "Жребий не понадобился"))


def test_protocol_command_checks_renders_and_enters_protests(tmp_path, capsys):
    folder = write_folder(tmp_path / "p", [game(1, "town", TEN)])
    path = folder / "game01.json"
    assert main(["protocol", "check", str(path)]) == 0
    assert main(["protocol", "html", str(path)]) == 0
    assert "Протокол игры" in (folder / "game01.html").read_text(encoding="utf-8")
    assert main(["protocol", "protest", str(path), "--text", "Не согласен", "--seat", "3",
                 "--at", "2015-03-06T12:09:59"]) == 0
    assert json.loads(path.read_text(encoding="utf-8"))["protests"][0]["seat"] == 3
    capsys.readouterr()
    assert main(["protocol", "protest", str(path), "--text", "Поздно", "--at", "2015-03-06T12:10:01"]) == 2
    assert "too late: entered 10 min 1 s after the game ended" in capsys.readouterr().err


@pytest.mark.parametrize("extra, problem", [
    (["--at", "2015-03-06T12:10:01"], "protests: too late: entered 10 min 1 s after the game ended"),
    (["--at", "2015-03-06T11:00:00"], "protests: entered 1 h 0 min before the game ended"),
    (["--at", "2015-03-06T12:05:00", "--seat", "42"], "protests.seat: no player at seat 42"),
])
def test_a_refused_protest_names_the_protocol_file(tmp_path, capsys, extra, problem):
    """docs/cli.md: `buzzer: <file>: <key>: <problem>`, the file the protest was for."""
    folder = write_folder(tmp_path / "p", [game(1, "town", TEN)])
    path = folder / "game01.json"
    before = path.read_text(encoding="utf-8")
    assert main(["protocol", "protest", str(path), "--text", "Не согласен", *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"buzzer: {path}: {problem}")
    assert path.read_text(encoding="utf-8") == before


def test_protocol_check_answers_in_the_language_asked_for_and_keeps_file_ok_for_scripts(tmp_path, capsys):
    """The success line of `protocol check`: `FILE: ok` as always (what a script looks for), the
    rest in words of --lang, else of the --config's language, else Russian."""
    folder = write_folder(tmp_path / "p", [game(1, "town", TEN)])
    path = folder / "game01.json"
    assert main(["protocol", "check", str(path)]) == 0
    ru = capsys.readouterr().out
    assert ru.startswith(f"{path}: ok (") and "игра 1, стол 1, 10 мест" in ru and "Победа мирных" in ru
    words = ru[len(f"{path}: ok ("):]
    assert "game" not in words and "winner" not in words and "town" not in words
    assert main(["protocol", "check", str(path), "--lang", "en"]) == 0
    en = capsys.readouterr().out
    assert en.startswith(f"{path}: ok (game 1, table 1, 10 seats, ") and en.endswith("Town wins)\n")
    cfg = tmp_path / "en.toml"
    cfg.write_text('mode = "mafia"\nlanguage = "en"\n', encoding="utf-8")
    assert main(["protocol", "check", str(path), "-c", str(cfg)]) == 0
    assert capsys.readouterr().out == en
    assert main(["protocol", "protest", str(path), "--text", "Не согласен", "--at", "2015-03-06T12:05:00"]) == 0
    assert capsys.readouterr().out == f"{path}: протест внесён, время 2015-03-06T12:05:00\n"


@pytest.mark.parametrize("players, message", [
    (TEN + [("Лишний", "civilian")], "players[10].seat: no seat 11 at a table of 10 seats"),
    (TEN[:4], "players: 4 players at a table of 10 seats"),
])
def test_protocol_check_refuses_an_impossible_table(tmp_path, capsys, players, message):
    """A table of `[mafia] seats = 10` has ten players on seats 1–10: one line, exit 2."""
    data = game(1, "town", players)
    del data["seats"]  # as written by hand: the table is the config's
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    cfg = tmp_path / "mafia.toml"
    cfg.write_text('mode = "mafia"\n[mafia]\nseats = 10\n', encoding="utf-8")
    for argv in (["protocol", "check", str(path)], ["protocol", "check", str(path), "-c", str(cfg)]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and err.startswith(f"buzzer: {path}: {message}")
    # a config that says the table is smaller accepts a full small table
    if len(players) < 10:
        cfg.write_text(f"[mafia]\nseats = {len(players)}\n", encoding="utf-8")
        assert main(["protocol", "check", str(path), "-c", str(cfg)]) == 0
        assert "4 места" in capsys.readouterr().out


# ---------------------------------------------------------------- a whole game, end to end

def test_a_judge_runs_a_table_and_the_organiser_gets_the_table(tmp_path, capsys):
    """Engine -> protocol file -> tournament command, as on the day."""
    folder = tmp_path / "protocols"
    folder.mkdir()
    names = [n for n, _ in TEN]
    for number, winner in ((1, "town"), (2, "mafia")):
        state = mafia.initial({}, names)
        t = 0
        for i, (_, role) in enumerate(TEN):
            state, _ = mafia.step(state, Host("role", t, {"seat": i + 1, "role": role}))
        for _ in range(10):  # day 1: everyone's minute, run to the end
            state, _ = mafia.step(state, Host("next_speaker", t, {}))
            t += 60 * NS_PER_S
        state, _ = mafia.step(state, Host("disqualify", t, {"seat": 6}))
        state, _ = mafia.step(state, Host("end_game", t, {"winner": winner}))
        p = from_table(mafia.summary(state), tournament="Кубок", stage="Отбор", game=number, table=1,
                       date="2015-03-06", ended_at="2015-03-06T12:00:00", extra={4: 1})
        save(p, folder / f"g{number}.json")
    assert main(["tournament", str(folder), "--seed", "3", "--csv", str(tmp_path / "t.csv")]) == 0
    rows = {r["Участник"]: r for r in csv.DictReader(io.StringIO((tmp_path / "t.csv").read_text(encoding="utf-8")))}
    assert rows["Ком"]["Итого"] == "5"   # 3 + 1 extra, then 0 + 1 extra
    assert rows["Ж1"]["Итого"] == "1" and rows["Ж1"]["Дисквалификаций"] == "2"  # 3 - 1, then 0 - 1
    assert rows["Дон"]["Итого"] == "4"
