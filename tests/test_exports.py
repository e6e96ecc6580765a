"""The organisers' formats (issue #28): the rating site's sheet, 4s packs, the race record.

Each file is written by a real ``buzzer`` subprocess and read back by an independent reader
(openpyxl for the sheet, the standard json/csv readers for the race record); the 4s packs
are our own, written for these tests."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from controller.app import config
from controller.sessions import journal
from controller.core import cells
from controller.games import engine
from controller.core.events import Host, Press, Tick

BUZZER = [sys.executable, "-m", "controller.cli"]
ROOT = Path(__file__).resolve().parents[1]
S = 1_000_000_000

EVENT = """title = "Кубок проверки"
[[teams]]
name = "Альфа"
rating_id = 51234
city = "Казань"
[[teams]]
name = "Бета"
rating_id = 60001
city = "Пермь"
[[teams]]
name = "Гамма"
"""

PACK = """### Тестовый пакет для проверки
#DATE 2026-12-05

## Тур 1
#EDITOR Редактор Проверкин

? Сколько сторон у квадрата?
! Четыре.
= 4
!= пять
/ Квадрат — правильный четырёхугольник.
^ Школьная геометрия
@ Автор Тестов

? [Раздаточный материал:
Три строки
раздатки
]
(img circle.png)
Сколько строк на раздатке?
! Две.

## Тур 2

? Какого цвета снег
в ясный день?
! Белого.
"""


def buzzer(*args, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(BUZZER + list(args), capture_output=True, text=True, cwd=cwd or ROOT, env=env,
                          timeout=120)


def event_config(tmp_path: Path, mode: str, extra: str = "", game: str = "") -> dict:
    ev = tmp_path / "event.toml"
    ev.write_text(EVENT + f'\n[[games]]\nmode = "{mode}"\n{game}', encoding="utf-8")
    cfg_file = tmp_path / "game.toml"
    cfg_file.write_text(f'mode = "{mode}"\nevent_file = "event.toml"\n{extra}', encoding="utf-8")
    return config.load(cfg_file)


def write_journal(path: Path, cfg: dict, seed: int, events) -> Path:
    jr = journal.Journal(path, header=journal.new_header(cfg, seed, None), fsync=False)
    for ev in events:
        jr.append(ev)
    jr.close()
    return path


# -- the rating site's sheet ----------------------------------------------------------------

def chgk_journal(tmp_path: Path) -> Path:
    cfg = event_config(tmp_path, "chgk", "[chgk]\ntours = 1\nquestions_per_tour = 3\n")
    rows = [{"team": "Альфа", "question": 1, "result": True}, {"team": "Бета", "question": 1, "result": False},
            {"team": "Гамма", "question": 1, "result": True}, {"team": "Альфа", "question": 2, "result": False},
            {"team": "Бета", "question": 2, "result": True}, {"team": "Альфа", "question": 3, "result": True}]
    return write_journal(tmp_path / "chgk.jsonl", cfg, 1, [Host("results", S, {"results": rows})])


def test_a_chgk_game_becomes_the_rating_sites_sheet(tmp_path):
    out = tmp_path / "rating.xlsx"
    r = buzzer("journal", "rating", str(chgk_journal(tmp_path)), str(out))
    assert r.returncode == 0, r.stderr
    ws = load_workbook(out).worksheets[0]
    got = [list(row) for row in ws.iter_rows(values_only=True)]
    assert got[0] == ["Team ID", "Название", "Город", 1, 2, 3]
    assert got[1:] == [[51234, "Альфа", "Казань", 1, 0, 1], [60001, "Бета", "Пермь", 0, 1, 0],
                       [None, "Гамма", None, 1, 0, 0]]
    # the team without an ID: one warning line naming it, not a silent blank
    warnings = [ln for ln in r.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and "Гамма" in warnings[0] and "Альфа" not in warnings[0]


def test_a_team_renamed_during_the_game_keeps_its_rating_id_and_city(tmp_path):
    """The ID and city are the team's (its index in the event file), not its name's: after a
    rename the sheet has the new name with the old ID and city, and no warning for it."""
    cfg = event_config(tmp_path, "brain-ring", "[brain_ring]\n")
    events = [Host("rename", S, {"team": 2, "name": "Бета-2"}), Host("question", 2 * S, {}),
              Host("arm", 3 * S, {})]
    path = write_journal(tmp_path / "ring.jsonl", cfg, 1, events)
    out = tmp_path / "rating.xlsx"
    r = buzzer("journal", "rating", str(path), str(out))
    assert r.returncode == 0, r.stderr
    got = [list(row)[:3] for row in load_workbook(out).worksheets[0].iter_rows(values_only=True)]
    assert got[1:] == [[51234, "Альфа", "Казань"], [60001, "Бета-2", "Пермь"], [None, "Гамма", None]]
    warnings = [ln for ln in r.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and "Бета" not in warnings[0]


def test_the_sheet_reads_back_as_the_jurys_results(tmp_path):
    """The same layout, filled by the jury, enters the game's results (an empty cell: not entered)."""
    from controller.games.chgk.extras import ChgkExtras

    cfg = event_config(tmp_path, "chgk", "[chgk]\ntours = 1\nquestions_per_tour = 3\n")
    wb = Workbook()
    ws = wb.active
    ws.append(["Team ID", "Название", "Город", 1, 2, 3])
    ws.append([51234, "Альфа", "Казань", 1, 1, None])
    ws.append([60001, "Команда Б", "Пермь", 0, 1, 1])      # found by its rating ID
    wb.save(tmp_path / "jury.xlsx")
    cfg["chgk"]["results_csv"] = str(tmp_path / "jury.xlsx")

    class Shell:
        def __init__(self):
            self.cfg, self.events, self.said = cfg, [], []
            self.state = engine.new_game(cfg, 1)

        def members_now(self):
            return [{"name": t["name"]} for t in cfg["teams"]]

        def say(self, key, **params):
            self.said.append((key, params))

        def enqueue(self, ev):
            self.events.append(ev)

    shell = Shell()
    ChgkExtras().act(shell, "import_results", 5 * S)
    assert shell.said[-1][0] == "results_loaded", shell.said
    state, _ = engine.step(shell.state, shell.events[0])
    assert engine.summary(state)["scores"] == {"Альфа": 2, "Бета": 2, "Гамма": 0}

    ws.append(["", "Дельта", "", 1, 0, 0])
    wb.save(tmp_path / "jury.xlsx")
    shell = Shell()
    ChgkExtras().act(shell, "import_results", 5 * S)
    assert shell.said[-1][0] == "chgk.csv_unknown_team" and not shell.events


@pytest.mark.parametrize("content, problem", [
    (b"not a spreadsheet", "not an .xlsx spreadsheet"),
    (None, "expected the header"),
])
def test_a_bad_sheet_is_one_line(tmp_path, content, problem):
    from controller.games import rating

    path = tmp_path / "bad.xlsx"
    if content is None:
        wb = Workbook()
        wb.active.append(["Команда", "Очки"])
        wb.save(path)
    else:
        path.write_bytes(content)
    with pytest.raises(rating.RatingError) as exc:
        rating.read(path)
    assert problem in str(exc.value) and "\n" not in str(exc.value)


def test_a_journal_without_per_question_results_is_refused_in_one_line(tmp_path):
    cfg = config.load(None)
    path = write_journal(tmp_path / "erudite.jsonl", cfg, 1, [])
    r = buzzer("journal", "rating", str(path), str(tmp_path / "x.xlsx"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    r = buzzer("journal", "rating", str(tmp_path / "nope.jsonl"), str(tmp_path / "x.xlsx"))
    assert r.returncode == 2 and r.stderr.strip() == f"buzzer: {tmp_path / 'nope.jsonl'}: file not found"


def test_a_bad_rating_id_in_the_event_file_is_one_line(tmp_path):
    (tmp_path / "event.toml").write_text('[[teams]]\nname = "Альфа"\nrating_id = "много"\n', encoding="utf-8")
    r = buzzer("check-config", str(tmp_path / "event.toml"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "teams[0].rating_id" in r.stderr and "Traceback" not in r.stderr


# -- 4s packs -----------------------------------------------------------------------------

def read_4s_for_test(text: str) -> list[tuple[str, str]]:
    """An independent reader from the format's documentation: (question, answer) pairs -- a
    field runs from its marker to a blank line or the next marker."""
    out, field, q = [], None, {}
    for line in text.splitlines() + [""]:
        marker = line.split(" ", 1)[0] if line else ""
        if marker in ("?", "!", "=", "!=", "/", "^", "@", "##", "#", "###", "#DATE", "#EDITOR"):
            field = marker
            if marker == "?":
                if q:
                    out.append((q["?"], q["!"]))
                q = {"?": "", "!": ""}
            value = line[len(marker):].strip()
            if marker in ("?", "!"):
                q[marker] = value
        elif not line:
            field = None
        elif field in ("?", "!"):
            q[field] += "\n" + line
    out.append((q["?"], q["!"]))
    return out


def test_a_4s_pack_gives_the_chgk_tours_and_the_host_sees_question_and_answer(tmp_path):
    (tmp_path / "pack.4s").write_text(PACK, encoding="utf-8")
    cfg = event_config(tmp_path, "chgk", "[chgk]\ntours = 2\nquestions_per_tour = 2\n", 'questions_4s = "pack.4s"\n')
    tours = cfg["event"]["game"]["tours"]
    assert [t["title"] for t in tours] == ["Тур 1", "Тур 2"]
    first, second = tours[0]["questions"]
    assert first == {"text": "Сколько сторон у квадрата?", "answer": "Четыре.", "accepted": "4",
                     "not_accepted": "пять", "comment": "Квадрат — правильный четырёхугольник.",
                     "source": "Школьная геометрия", "author": "Автор Тестов"}
    assert second["text"] == "Сколько строк на раздатке?" and second["handouts"] == ["Три строки\nраздатки",
                                                                                       "circle.png"]
    # the independent reader finds the same answers, question by question
    theirs = read_4s_for_test(PACK)
    ours = [(q["text"], q["answer"]) for t in tours for q in t["questions"]]
    assert [a for _q, a in theirs] == [a for _q, a in ours]
    assert theirs[2][0] == ours[2][0] == "Какого цвета снег\nв ясный день?"
    # the host's view shows the question and its answer while it is played; the audience's does not
    state, _ = engine.step(engine.new_game(cfg, 1), Host("start_clock", S))
    view = engine.view(state)
    assert view["host"]["question_text"] == "Сколько сторон у квадрата?" and view["host"]["answer"] == "Четыре."
    assert view["host"]["accepted"] == "4"
    assert "Четыре." not in json.dumps({k: v for k, v in view.items() if k != "host"}, ensure_ascii=False)


def test_a_4s_pack_gives_brain_ring_and_erudite_their_questions(tmp_path):
    (tmp_path / "pack.4s").write_text(PACK, encoding="utf-8")
    cfg = event_config(tmp_path, "brain-ring", "", 'questions_4s = "pack.4s"\n')
    state, _ = engine.step(engine.new_game(cfg, 1), Host("question", S))
    assert engine.view(state)["host"]["answer"] == "Четыре."
    state, _ = engine.step(state, Host("withdraw", 2 * S))
    erudite = event_config(tmp_path / ".." / tmp_path.name, "erudite", "", 'questions_4s = "pack.4s"\n')
    fight = erudite["event"]["game"]["fights"][0]
    assert fight["themes"] == ["Тур 1", "Тур 2"]
    assert [(q["round"], q["nominal"], q["answer"]) for q in fight["questions"]] == [
        (1, 10, "Четыре."), (1, 20, "Две."), (2, 10, "Белого.")]


@pytest.mark.parametrize("text, line, problem", [
    ("? Вопрос без ответа\n\n? Второй\n! Ответ\n", 1, "у вопроса нет ответа (строки «!»)"),
    ("## Тур\n! Ответ без вопроса\n", 2, "«!» (ответ) без вопроса («?») перед ним"),
    ("### Пакет\n\nпросто строка\n", 3, "текст вне поля"),
    ("? [Раздаточный материал: открыта\nВопрос\n! Ответ\n", 1, "не закрыт скобкой «]»"),
    ("? Вопрос\n! Один\n! Два\n", 3, "второе поле «!» (ответ) у вопроса строки 1"),
])
def test_a_malformed_4s_file_is_one_line_naming_the_line(tmp_path, text, line, problem):
    (tmp_path / "bad.4s").write_text(text, encoding="utf-8")
    (tmp_path / "event.toml").write_text(EVENT + '\n[[games]]\nmode = "chgk"\nquestions_4s = "bad.4s"\n',
                                         encoding="utf-8")
    r = buzzer("check-config", str(tmp_path / "event.toml"))
    assert r.returncode == 2, r.stdout
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"bad.4s: строка {line}:" in err and problem in err and "games[0].questions_4s" in err


LONG_TITLE = "## " + "Очень длинное название тура " * 3 + "\n\n? Вопрос\n! Ответ\n"   # 83 characters


@pytest.mark.parametrize("mode, text, line, problem", [
    ("chgk", LONG_TITLE, 1, "название тура («##») слишком длинное: длина 83, можно не больше 60"),
    ("erudite", LONG_TITLE, 1, "название тура («##») слишком длинное: длина 83, можно не больше 60"),
    ("chgk", "## Тур\n\n? Начало вопроса\n" + "слово " * 400 + "\n! Ответ\n", 3,
     "вопрос («?»): слишком длинно: длина 2414, можно не больше 2000"),
    ("brain-ring", "? Вопрос\n! Ответ\n= " + "а" * 2001 + "\n", 3,
     "зачёт («=»): слишком длинно: длина 2001, можно не больше 2000"),
    ("chgk", "? Вопрос\n! Ответ\n\n/ Комментарий\n" + "к" * 2001 + "\n", 4,
     "комментарий («/»): слишком длинно: длина 2013, можно не больше 2000"),
])
def test_a_4s_text_too_long_for_the_event_names_the_4s_file_and_line(tmp_path, mode, text, line, problem):
    """A tour title or a question's text over the event file's limits is the pack's mistake:
    the one line names the 4s file and its line, not only the event file's key it became."""
    (tmp_path / "long.4s").write_text(text, encoding="utf-8")
    (tmp_path / "event.toml").write_text(EVENT + f'\n[[games]]\nmode = "{mode}"\nquestions_4s = "long.4s"\n',
                                         encoding="utf-8")
    r = buzzer("check-config", str(tmp_path / "event.toml"))
    err = r.stderr.strip()
    assert r.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"long.4s: строка {line}: {problem}" in err, err
    assert "tours[" not in err and "fights[" not in err and "questions[" not in err, err


def test_a_brain_ring_pack_may_have_long_tour_titles_it_never_shows(tmp_path):
    (tmp_path / "long.4s").write_text(LONG_TITLE, encoding="utf-8")
    (tmp_path / "event.toml").write_text(EVENT + '\n[[games]]\nmode = "brain-ring"\nquestions_4s = "long.4s"\n',
                                         encoding="utf-8")
    r = buzzer("check-config", str(tmp_path / "event.toml"))
    assert r.returncode == 0, r.stderr


def test_4s_own_number_leaves_the_counter_and_a_misfit_pack_names_its_file(tmp_path):
    from controller.content import fours

    # «№ 0» (a warm-up question) numbers that question alone: the counter goes on from 16 to 17
    pack = fours.parse("№№ 16\n? Первый\n! А\n\n№ 0\n? Разминка\n! Б\n\n? Второй\n! В\n")
    assert [q.number for q in pack.questions] == ["16", "0", "17"]
    # a pack that does not fit the game (six questions in a theme of five nominals) names the file
    text = "## Тема\n" + "\n".join(f"? Вопрос {k}\n! Ответ\n" for k in range(1, 7))
    (tmp_path / "big.4s").write_text(text, encoding="utf-8")
    (tmp_path / "event.toml").write_text(EVENT + '\n[[games]]\nmode = "erudite"\nquestions_4s = "big.4s"\n',
                                         encoding="utf-8")
    r = buzzer("check-config", str(tmp_path / "event.toml"))
    err = r.stderr.strip()
    assert r.returncode == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "big.4s: строка 17: в теме 'Тема': вопросов больше, чем номиналов (10, 20, 30, 40, 50)" in err, err


# -- the race record --------------------------------------------------------------------------

def brain_ring_journal(tmp_path: Path, before=()) -> Path:
    """A Брейн-ринг question whose first two presses tie exactly (the lot decides), a third
    comes late, and a press before «Время!» is a false start."""
    cfg = config.load(None, {"mode": "brain-ring", "arbiter": {"tie_rule": "random"},
                              "brain_ring": {"default_teams": 4}})
    ms = 1_000_000
    events = [*before, Host("question", 1 * S), Press("B", 1 * S + 500 * ms, 1 * S + 500 * ms), Host("start_clock", 2 * S),
              Press("A", 3 * S, 3 * S + 2 * ms), Press("C", 3 * S, 3 * S + 3 * ms),
              Press("D", 3 * S + 4 * ms, 3 * S + 5 * ms), Tick(3 * S + 200 * ms)]
    return write_journal(tmp_path / "br.jsonl", cfg, 77, events)


def test_the_race_record_of_a_journal_as_json_lines_and_csv(tmp_path):
    path = brain_ring_journal(tmp_path)
    r = buzzer("journal", "races", str(path))
    assert r.returncode == 0, r.stderr
    races = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert len(races) == 1
    race = races[0]
    rules = {p["team"]: p["rule"] for p in race["presses"]}
    names = [t["name"] for t in config.load(None)["teams"][:4]]
    a, b_, c, d = names
    assert rules[b_] == "false_start" and rules[d] == "late"
    winner = race["winner"]
    assert winner in (a, c) and rules[winner] == "tie_lot" and rules[({a, c} - {winner}).pop()] == "lost"
    assert race["tie"]["seed"] == 77 and race["tie"]["rule"] == "random" and race["tie"]["salt"]
    assert race["seed"] == 77 and race["settle_ms"] > 0
    first = next(p for p in race["presses"] if p["team"] == a)
    assert first["at_ns"] == 3 * S and first["delivered_ns"] == 3 * S + 2_000_000
    assert first["input"] == "keyboard:" + config.load(None)["teams"][0]["key"]
    # the lot can be drawn again from the seed and the salt (the arbiter's published rule)
    from controller.core import arbiter
    again = arbiter.order([Press("A", 3 * S, 0), Press("C", 3 * S, 0)], "random", 77, race["tie"]["salt"],
                          ["A", "B", "C", "D"])
    assert {"A": a, "C": c}[again[0].button] == winner

    r = buzzer("journal", "races", str(path), "--csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [row["team"] for row in rows][:1] == [b_] and len(rows) == 4
    assert {row["rule"] for row in rows} == {"false_start", "tie_lot", "lost", "late"}
    assert all(row["seed"] == "77" for row in rows)


FORMULAS = ["=HYPERLINK(\"http://x\")", "+Бета", "@Гамма", "-Дельта"]
"""Team names a spreadsheet would take for formulas (CSV injection)."""


def test_a_name_a_spreadsheet_would_compute_is_written_as_text_in_every_csv(tmp_path):
    """docs/exports.md: a text cell that starts with =, +, -, @, a tab or CR gets a leading '
    in every CSV we write (the race record, the festival's tables, the «Мафия» tournament
    table); numbers stay numbers."""
    from controller.festival import export
    from controller.games.mafia.tournament import build_table, to_csv
    from controller.games.mafia.protocol import from_dict

    path = brain_ring_journal(tmp_path, [Host("rename", S // 2 + k, {"team": k + 1, "name": n})
                                         for k, n in enumerate(FORMULAS)])
    r = buzzer("journal", "races", str(path), "--csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert {row["team"] for row in rows} == {"'" + n for n in FORMULAS}
    assert rows[1]["winner"].startswith("'") and all(row["at_ns"].isdigit() for row in rows)

    table = {"rows": [{"place": 1, "team": "=1+2", "points": -5, "note": "-3", "x": "\t=1"},
                      {"place": 2, "team": "@A", "points": 0, "note": "-0,5", "x": "a=b"}]}
    got = list(csv.reader(io.StringIO(export.to_csv(table))))
    assert got[1:] == [["1", "'=1+2", "-5", "-3", "'\t=1"], ["2", "'@A", "0", "-0,5", "a=b"]]
    assert [cells.safe(v) for v in ("\r=1", "+1", "+1+1", "-", -2.5, None)] == ["'\r=1", "+1", "'+1+1", "'-", -2.5, None]

    players = [("=cmd|' /C calc'!A0", "don"), ("-Маф", "mafia"), ("Ком", "commissar")]
    proto = from_dict({"tournament": "Кубок", "stage": "Отбор", "final": False, "game": 1, "table": 1,
                       "date": "2026-12-05", "ended_at": "2026-12-05T12:00:00", "winner": "mafia", "seats": 3,
                       "players": [{"seat": k, "name": n, "role": role, "extra": 0, "disqualified": False, "fouls": 0}
                                   for k, (n, role) in enumerate(players, 1)]})
    text = to_csv(build_table([proto], seed=1))
    names = {cell for row in csv.reader(io.StringIO(text)) for cell in row}
    assert {"'=cmd|' /C calc'!A0", "'-Маф", "Ком"} <= names and "=cmd|' /C calc'!A0" not in names


def test_a_name_a_spreadsheet_would_compute_is_text_in_the_rating_sheet(tmp_path):
    """The .xlsx sheet keeps its cells typed: a team named "=1+2" is a text cell, never a formula."""
    import zipfile

    cfg = event_config(tmp_path, "chgk", "[chgk]\ntours = 1\nquestions_per_tour = 1\n")
    rows = [{"team": "=1+2", "question": 1, "result": True}]
    path = write_journal(tmp_path / "f.jsonl", cfg, 1, [Host("rename", S // 2, {"team": 1, "name": "=1+2"}),
                                                        Host("results", S, {"results": rows})])
    out = tmp_path / "rating.xlsx"
    r = buzzer("journal", "rating", str(path), str(out))
    assert r.returncode == 0, r.stderr
    cell = load_workbook(out).worksheets[0]["B2"]
    assert (cell.value, cell.data_type) == ("=1+2", "s")
    with zipfile.ZipFile(out) as z:
        assert "<f>" not in z.read("xl/worksheets/sheet1.xml").decode()


def test_a_bad_journal_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n", encoding="utf-8")
    for args in (["journal", "races", str(bad)], ["journal", "races", str(tmp_path)]):
        r = buzzer(*args)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_journal_whose_header_holds_no_game_is_one_line(tmp_path):
    import zlib

    def record(obj) -> str:
        text = json.dumps(obj)
        return f"{zlib.crc32(text.encode()):08x} {text}\n"

    for name, header in (("no-config", {"type": "header", "version": 1}),
                         ("bare-config", {"type": "header", "version": 1, "config": {"mode": "chgk"}, "seed": 1})):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(record(header), encoding="utf-8")
        for args in (["journal", "races", str(path)], ["journal", "rating", str(path), str(tmp_path / "r.xlsx")]):
            r = buzzer(*args)
            assert r.returncode == 2, (name, args, r.stdout)
            assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, (name, r.stderr)
            assert f"{name}.jsonl" in r.stderr or "replayed" in r.stderr, r.stderr


def test_the_race_record_goes_to_the_host_part_of_the_view_model_only():
    """The host page shows the last race's record; the audience's part (/, /overlay, /api/state
    without the token) carries the game's presses as the projector draws them, never the record
    (nor the host's other data)."""
    from controller.screens import viewmodel

    cfg = config.load(None, {"mode": "brain-ring", "brain_ring": {"default_teams": 2}})
    ms = 1_000_000
    state = engine.new_game(cfg, 5)
    for ev in (Host("question", S), Host("start_clock", 2 * S), Press("A", 3 * S, 3 * S + ms),
               Press("B", 3 * S + 3 * ms, 3 * S + 4 * ms), Tick(3 * S + 200 * ms)):
        state, _ = engine.step(state, ev)
    vm = viewmodel.build(engine.view(state, 3 * S + 200 * ms))
    race = vm["host"]["game"]["race"]
    assert race["winner"] and [p["rule"] for p in race["presses"]] == ["first", "late"]   # 3 ms after: past the 2 ms settle window
    audience = json.dumps(viewmodel.audience_only(vm), ensure_ascii=False)
    assert '"race"' not in audience and "delivered_ns" not in audience and "host" not in vm["audience"]["game"]


@pytest.mark.parametrize("text, ru, en", [
    ("? Вопрос без ответа\n", "строка 1: у вопроса нет ответа (строки «!»)",
     "line 1: the question has no answer («!» line)"),
    ("## Тур\n\n/ Комментарий\n", "строка 3: «/» (комментарий) без вопроса («?») перед ним",
     "line 3: «/» (a comment) with no question («?») before it"),
    ("№№ пять\n? Вопрос\n! Ответ\n", "строка 1: после «№№» нужно число, а не 'пять'",
     "line 1: «№№» needs a number, got 'пять'"),
    ("### Только название\n", "в файле нет ни одного вопроса (строки «?»)", "no question («?» line) in the file"),
    ("## " + "Т" * 61 + "\n? Вопрос\n! Ответ\n", "строка 1: название тура («##») слишком длинное: длина 61, можно не больше 60",
     "line 1: the tour's title («##»): at most 60 characters, got 61"),
])
def test_a_4s_packs_mistake_is_said_in_the_hosts_language(tmp_path, capsys, text, ru, en):
    """The pack's one line is Russian by default and English with --lang en: the file, its line
    and what is wrong there."""
    from controller.cli import main

    (tmp_path / "bad.4s").write_text(text, encoding="utf-8")
    event = tmp_path / "event.toml"
    event.write_text(EVENT + '\n[[games]]\nmode = "chgk"\nquestions_4s = "bad.4s"\n', encoding="utf-8")
    for argv, words in ((["check-config", "--event", str(event)], ru),
                        (["run", "--event", str(event), "--lang", "en"], en)):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == f"buzzer: {event}: games[0].questions_4s: {tmp_path / 'bad.4s'}: {words}\n", err


def test_a_4s_error_is_english_as_a_string_and_the_hosts_words_when_said():
    from controller.content import fours

    with pytest.raises(fours.FoursError) as caught:
        fours.parse("? Вопрос\n! Один\n! Два\n", "pack.4s")
    assert str(caught.value) == "pack.4s: line 3: a second «!» (an answer) for the question of line 1"
    assert caught.value.words("ru") == "pack.4s: строка 3: второе поле «!» (ответ) у вопроса строки 1"
    with pytest.raises(fours.FoursError) as caught:
        fours.load("/nonexistent/pack.4s")
    assert caught.value.words("ru") == "/nonexistent/pack.4s: нет такого файла"
    assert caught.value.words("en") == "/nonexistent/pack.4s: file not found"
