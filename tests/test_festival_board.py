"""The festival board, export and the fuzz of its topics (a real mosquitto)."""

from __future__ import annotations

import csv
import os
import sys
import json
import random
import time

import pygame
import pytest

from controller.festival import link
from controller.festival.hall import broker_of
from controller.festival.results import Festival, Listener

from mosquitto import Broker
from test_festival import CHGK, ERUDITE, ROOT, buzzer, entry, simulated

ROOT_EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def festival(tmp_path_factory):
    """A broker with two halls' finished games on it, and every message a board got."""
    folder = tmp_path_factory.mktemp("festival")
    broker = Broker(folder / "broker").start()
    lst = Listener(broker_of({"username": "", "password": ""}, broker.url))
    lst.start()
    deadline = time.monotonic() + 10
    while not lst.subscribed and time.monotonic() < deadline:
        lst.pump(0.05)
    captured = []
    original = lst.festival.handle

    def capture(topic, payload, received=None):
        captured.append((topic, payload))
        return original(topic, payload, received)

    lst.festival.handle = capture
    halls = folder / "halls"
    halls.mkdir()
    buzzer("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", "--competition", "Эрудит", cwd=halls)
    buzzer("simulate", CHGK, "--festival", broker.plain_url, "--hall", "Зал 2", "--competition", "ЧГК", cwd=halls)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and lst.festival.finished_games() < 2:
        lst.pump(0.1)
    lst.close()
    yield broker, halls, captured, lst.festival.results()
    broker.stop()


def test_the_board_shows_every_hall_its_question_leader_and_standings(festival, tmp_path):
    broker, halls, _, _ = festival
    cfg = tmp_path / "board.toml"
    cfg.write_text('[festival]\nschedule = [{competition = "Своя игра", hall = "Зал 3", time = "16:00"}]\n'
                   '[display]\nwidth = 1280\nheight = 720\n')
    png = tmp_path / "board.png"
    buzzer("festival", "--config", cfg, "--broker", broker.plain_url, "--seconds", "2.5", "--png", png, cwd=halls)
    image = pygame.image.load(str(png))
    assert image.get_size() == (1280, 720)
    colours = {image.get_at((x, y))[:3] for x in range(0, 1280, 16) for y in range(0, 720, 16)}
    assert len(colours) > 5          # cards and text, not an empty screen
    text = buzzer("festival", "--config", cfg, "--broker", broker.plain_url, "--headless", "--seconds", "2.5",
                  cwd=halls).stdout
    erudite = simulated(ERUDITE)["standings"]
    assert "Зал 1 · Эрудит" in text and "Зал 2 · ЧГК" in text
    assert f"Лидер: {erudite[0]['team']} ({erudite[0]['points']})" in text
    assert "Зал 3 · Своя игра" in text and "не начата (16:00)" in text
    # the ЧГК game ended on the shoot-out's second question: in words, not its label «s2»
    assert simulated(CHGK)["questions"][-1]["label"] == "s2"
    assert "Перестрелка, вопрос 2" in text and "s2" not in text


def test_a_question_is_named_as_the_host_says_it():
    from controller.festival.board import card_lines

    def question_line(summary):
        card = {"hall": "Зал 1", "competition": "ЧГК", "game": "g", "mode": "chgk", "finished": False,
                "online": True, "headline": link.headline(summary), "standings": []}
        return card_lines(card, "ru")[2][0]

    main = {"number": 39, "label": "4.3", "shootout": False, "tour": 4, "in_tour": 3}
    assert question_line({"questions": [main]}) == "Тур 4, вопрос 3"
    shootout = {"number": 2, "label": "s2", "shootout": True, "tour": None, "in_tour": None}
    assert question_line({"questions": [shootout]}) == "Перестрелка, вопрос 2"
    erudite = {"number": 3, "theme": "Реки России", "nominal": 30}   # no tours: its number
    assert question_line({"questions": [erudite]}) == "Вопрос 3 · Реки России · 30"


def test_a_finished_brain_ring_leader_is_named_with_the_fights_won():
    """Брейн-ринг ranks its final table by fights won: the board's «Лидер» shows those, not the
    points of the last fight (an empty last fight made it «Лидер: Альфа (0)»)."""
    from controller.app import config
    from controller.games import engine
    from controller.core.events import Host

    cfg = config.load("config/brain-ring.toml")
    state = engine.new_game(cfg, 1)
    assert "standings_columns" not in engine.summary(state)          # going on: the fight's points
    state, _ = engine.step(state, Host("end_game", 1))
    summary = engine.summary(state)
    assert summary["standings_columns"]["points"] == "fights_won"
    # two fights won, 0 points in the empty last fight
    summary["standings"] = [{"place": 1, "team": "Альфа", "points": 0, "total": 8, "fights_won": 2},
                            {"place": 2, "team": "Бета", "points": 0, "total": 5, "fights_won": 1}]
    assert link.headline(summary)["leader"] == {"name": "Альфа", "points": 2}
    summary.pop("standings_columns")
    assert link.headline(summary)["leader"] == {"name": "Альфа", "points": 0}


def test_export_writes_chgk_answers_and_standings(festival, tmp_path):
    broker, halls, _, _ = festival
    out = tmp_path / "out"
    buzzer("festival", "export", "--broker", broker.plain_url, "--format", "csv", out, cwd=halls)
    files = sorted(p.name for p in out.iterdir())
    assert len(files) == 2, files
    chgk_file = next(p for p in out.iterdir() if p.name.startswith("ЧГК"))
    rows = list(csv.reader(chgk_file.open(encoding="utf-8")))
    assert rows[0] == ["place", "team", "answers", "total"]
    sim = simulated(CHGK)
    questions = [q for q in sim["questions"] if not q["shootout"]]
    for row, st in zip(rows[1:], sim["standings"]):
        assert row[1] == st["team"]
        expected = "".join("1" if q["results"].get(st["team"]) else "0" for q in questions)
        assert row[2] == expected and row[3] == str(st["points"])
        assert row[2].count("1") == st["right"]
    erudite_file = next(p for p in out.iterdir() if p.name.startswith("Эрудит"))
    rows = list(csv.DictReader(erudite_file.open(encoding="utf-8")))
    assert [(r["team"], int(r["points"])) for r in rows] == [(s["team"], s["points"]) for s in simulated(ERUDITE)["standings"]]
    buzzer("festival", "export", "--broker", broker.plain_url, "--format", "json", out / "json", cwd=halls)
    table = json.loads(next((out / "json").glob("ЧГК*.json")).read_text())
    first = sim["standings"][0]["team"]
    assert table["rows"][0]["team"] == first
    assert table["rows"][0]["answers"] == "".join("1" if q["results"].get(first) else "0" for q in questions)


def _mutations(rng: random.Random, topic: str, payload: bytes, prefix: str):
    """A malformed or foreign variant of a real message."""
    body = json.loads(payload)
    kind = rng.randrange(12)
    if kind == 0:
        return topic, payload[: rng.randrange(len(payload))]                       # cut
    if kind == 1:
        return topic, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))  # noise
    if kind == 2:
        return topic, json.dumps(rng.choice([[], 1, "x", None, [body]])).encode()  # not an object
    if kind == 3:
        return topic, json.dumps({**body, "v": rng.choice([0, 2, "1", None])}).encode()  # other version
    if kind == 4:
        return topic, json.dumps({**body, "hall": body.get("hall", "") + "x"}).encode()  # topic mismatch
    if kind == 5:
        return topic.replace(prefix, "other/prefix"), payload                      # foreign topic
    if kind == 6:
        return topic + "/extra", payload                                           # unknown topic
    if kind == 7:
        return topic, json.dumps({**body, "seq": rng.choice([0, -1, 1.5, "3", 10**12, True])}).encode()
    if kind == 8 and topic.endswith("/events"):
        return topic, json.dumps({**body, "event": rng.choice([{"type": "boom"}, {}, [], "press"]),
                                  "seq": body.get("seq", 1) + 1000}).encode()
    if kind == 9 and topic.endswith("/standings"):
        return topic, json.dumps({**body, "standings": rng.choice(["x", [1, 2], None]), "seq": 10**6}).encode()
    if kind == 10:
        parts = topic.split("/")
        parts[-2] = rng.choice(["ZZZ", "12", "../x", ""])
        return "/".join(parts), payload                                            # bad game id
    return topic, b"\xff\xfe" + payload                                            # not UTF-8


def test_fuzz_malformed_and_foreign_messages_change_nothing(festival):
    broker, halls, captured, expected = festival
    prefix = link.DEFAULT_PREFIX
    rng = random.Random(16)
    real = [(t, p) for t, p in captured if not t.endswith("/status")]
    board = Festival(prefix)
    for topic, payload in real:
        board.handle(topic, payload)
    before = board.results()
    assert before == expected
    fuzz = [_mutations(rng, *rng.choice(real), prefix) for _ in range(3000)]
    for n, (topic, payload) in enumerate(fuzz):
        board.handle(topic, payload)
        if n % 100 == 0:
            assert board.results() == before, (topic, payload[:200])
    assert board.results() == before
    assert board.ignored >= 2900
    # and through the broker, to a running board
    c = link.client(broker_of({"username": "", "password": ""}, broker.url))
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    for topic, payload in fuzz[:500]:
        if "+" in topic or "#" in topic:
            continue
        c.publish(topic, payload, qos=0)
    c.loop_stop()
    c.disconnect()
    late = json.loads(buzzer("festival", "results", "--broker", broker.plain_url, "--json", cwd=halls).stdout)
    for hall, script in (("Зал 1", ERUDITE), ("Зал 2", CHGK)):
        assert entry(late, hall)["standings"] == simulated(script)["standings"]


def test_with_no_display_the_board_runs_as_text_and_says_so(tmp_path):
    """As `buzzer run` does: no screen to open a window on, the board is printed in the terminal
    (before, it printed SDL's error and went on silently)."""
    import socket
    import subprocess

    with socket.socket() as s:           # a port nothing listens on: the broker is unreachable
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    run = subprocess.run([sys.executable, "-m", "controller.cli", "festival", "--broker", f"mqtt://127.0.0.1:{port}",
                          "--seconds", "1.5"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "Экран не найден: табло выводится здесь текстом" in run.stderr
    assert "Ни один зал ещё не начал игру" in run.stdout
    assert "Traceback" not in run.stderr


def test_results_as_text_speak_the_users_language(festival):
    broker, halls, _, res = festival
    text = buzzer("festival", "results", "--broker", broker.plain_url, "--wait", "2", cwd=halls).stdout
    assert "Зал 2 · Что? Где? Когда? · игра " in text and "(окончена)" in text
    assert "finished" not in text and " game " not in text
    from controller.festival.command import text_table

    going = {"competitions": [dict(res["competitions"][0], finished=False)]}
    assert text_table(going, "ru").splitlines()[0].endswith("(идёт)")
    assert text_table(going, "en").splitlines()[0].endswith("(playing)")
    assert text_table({"competitions": []}, "ru") == "Ни один зал ещё не начал игру\n"


def test_a_table_of_seats_shows_each_seats_status_in_words():
    from controller.festival.board import card_lines
    from controller.festival.command import text_table

    seats = [{"seat": 1, "name": "Анна", "status": "in_game"}, {"seat": 2, "name": "Борис", "status": "silenced"},
             {"seat": 3, "name": "Вика", "status": "out"}]
    card = {"hall": "Зал 4", "competition": "Клуб", "game": "g", "mode": "mafia", "finished": False,
            "online": True, "headline": {}, "standings": seats}
    rows = [text for text, _ in card_lines(card, "ru")[2:]]
    assert rows == ["  1  Анна  В игре", "  2  Борис  Без речи", "  3  Вика  Выбыл"]
    res = {"competitions": [{"name": "Клуб", "hall": "Зал 4", "mode": "mafia", "game": "g", "finished": False,
                             "standings": seats}]}
    assert text_table(res, "en").splitlines()[1:] == ["    1  Анна  In game", "    2  Борис  No speech",
                                                      "    3  Вика  Out"]


def test_waiting_for_more_finished_games_than_came_says_what_it_waited_for_and_why_it_stopped(festival):
    broker, halls, _, _ = festival
    r = buzzer("festival", "results", "--broker", broker.plain_url, "--json", "--games", "3", "--wait", "2", cwd=halls)
    assert len(json.loads(r.stdout)["competitions"]) == 2      # the results that came, as ever
    line = r.stderr.strip()
    assert line.count("\n") == 0, r.stderr
    # a board started after the halls went away: the games are finished by the halls' standings,
    # but their events are not there for it to count
    assert line.startswith("buzzer: --games 3: ждали 2 с (--wait) оконченных игр со всеми событиями; "
                           "до конца ожидания пришло 0 из 3; окончено по таблицам залов, но без всех событий: ещё 2"), line
    quiet = buzzer("festival", "results", "--broker", broker.plain_url, "--json", "--wait", "1", cwd=halls)
    assert quiet.stderr == ""     # nothing asked for that did not come: nothing to say


def test_a_card_of_a_hall_without_a_competition_names_the_games_title_not_its_mode_id():
    """A rehearsal without --competition publishes under the mode (``erudite``, ``chgk``):
    the board's card says «Эрудит-квартет», «Что? Где? Когда?», never the id."""
    from controller.festival import board as board_mod

    for mode, title in (("erudite", "Эрудит-квартет"), ("chgk", "Что? Где? Когда?")):
        card = {"hall": "Зал 1", "competition": mode, "game": None, "mode": "", "finished": False,
                "standings": [], "headline": {}}
        head = board_mod.card_lines(card, "ru")[0][0]
        assert head == f"Зал 1 · {title}", head
    card = {"hall": "Зал 1", "competition": "Кубок школы", "game": None, "mode": "", "finished": False,
            "standings": [], "headline": {}}
    assert board_mod.card_lines(card, "ru")[0][0] == "Зал 1 · Кубок школы"


def test_export_rating_writes_one_sheet_per_competition_with_every_halls_teams(tmp_path):
    """`buzzer festival export rating FILE.xlsx`: a ЧГК game in one hall and a Брейн-ринг game in
    another, through a real mosquitto; the sheet read back with openpyxl has each game's
    question results, the teams' IDs and cities from `--event`, and one warning line."""
    from openpyxl import load_workbook

    broker = Broker(tmp_path / "broker").start()
    try:
        halls = tmp_path / "halls"
        halls.mkdir()
        ring = ROOT_EXAMPLES / "brain-ring.jsonl"
        buzzer("simulate", CHGK, "--festival", broker.plain_url, "--hall", "Зал 1", "--competition", "ЧГК",
               cwd=halls)
        buzzer("simulate", ring, "--festival", broker.plain_url, "--hall", "Зал 2", "--competition", "Брейн-ринг",
               cwd=halls)
        event = tmp_path / "event.toml"
        event.write_text('[[teams]]\nname = "Альфа"\nrating_id = 51234\ncity = "Казань"\n'
                         '[[teams]]\nname = "Бета"\nrating_id = 60001\ncity = "Пермь"\n'
                         '[[teams]]\nname = "Гамма"\nrating_id = 70002\n[[teams]]\nname = "Дельта"\n',
                         encoding="utf-8")
        out = tmp_path / "rating.xlsx"
        r = buzzer("festival", "export", "rating", out, "--broker", broker.plain_url, "--event", event, cwd=halls)
    finally:
        broker.stop()
    book = load_workbook(out)
    sheets = {ws.title: [list(row) for row in ws.iter_rows(values_only=True)] for ws in book.worksheets}
    assert sorted(sheets) == ["Брейн-ринг", "ЧГК"]
    for name, script in (("ЧГК", CHGK), ("Брейн-ринг", ring)):
        sim = simulated(script)
        questions = [q for q in sim["questions"] if not q.get("shootout") and not q.get("withdrawn")]
        rows = sheets[name]
        assert rows[0] == ["Team ID", "Название", "Город"] + list(range(1, len(questions) + 1))
        by_team = {row[1]: row for row in rows[1:]}
        assert sorted(by_team) == sorted(s["team"] for s in sim["standings"])
        for team, row in by_team.items():
            # ЧГК's questions say each team's result, Брейн-ринг's the answers given
            taken = [q["results"].get(team) if "results" in q else
                     any(a["team"] == team and a["result"] == "right" for a in q["answers"]) for q in questions]
            assert row[3:] == [1 if x else 0 for x in taken], (name, team)
    assert sheets["ЧГК"][1:] and {r[1]: (r[0], r[2]) for r in sheets["ЧГК"][1:]}["Альфа"] == (51234, "Казань")
    assert {r[1]: r[0] for r in sheets["Брейн-ринг"][1:]} == {"Альфа": 51234, "Бета": 60001}
    warnings = [ln for ln in r.stderr.splitlines() if "warning" in ln]
    assert len(warnings) == 1 and "Дельта" in warnings[0] and "Гамма" not in warnings[0]


MAFIA = ROOT_EXAMPLES / "mafia-table.jsonl"


def halls_heard(broker, tables: int, timeout: float = 60.0) -> list[dict]:
    """The halls a board listening to ``broker`` has heard of, once ``tables`` of them have sent
    their game's table (or ``timeout`` passed: the caller's assertions say what is missing)."""
    lst = Listener(broker_of({"username": "", "password": ""}, broker.url))
    lst.start()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and sum(h["table"] is not None for h in lst.festival.halls()) < tables:
            lst.pump(0.1)
        return lst.festival.halls()
    finally:
        lst.close()


def test_a_mafia_hall_and_an_erudite_hall_show_their_rows_and_tags_from_the_halls_table(tmp_path):
    """Each hall publishes its game's table, built from its screen model: a board started after the
    halls went away (no events to replay, the retained standings only) draws «Мафия»'s seats with
    their tags and Эрудит's teams with their points, and knows neither game."""
    from controller.festival.board import text_board

    broker = Broker(tmp_path / "broker").start()
    try:
        halls = tmp_path / "halls"
        halls.mkdir()
        buzzer("simulate", MAFIA, "--festival", broker.plain_url, "--hall", "Зал 4", "--competition", "Клуб",
               cwd=halls)
        buzzer("simulate", ERUDITE, "--festival", broker.plain_url, "--hall", "Зал 1", "--competition", "Эрудит",
               cwd=halls)
        halls_seen = {h["hall"]: h for h in halls_heard(broker, tables=2)}
    finally:
        broker.stop()
    mafia, erudite = halls_seen["Зал 4"]["table"], halls_seen["Зал 1"]["table"]
    assert not halls_seen["Зал 4"]["complete"]          # from the hall's table, not a replica's
    assert mafia["numbered"] is True and len(mafia["rows"]) == 10
    seat7, seat9 = mafia["rows"][6], mafia["rows"][8]
    assert (seat7["place"], seat7["name"], seat7["points"]) == (7, "Жанна", None)
    assert [(t["key"], t["tone"], t["text"]) for t in seat7["tags"]] == [("silenced", "warn", "Без речи")]
    assert [t["text"] for t in seat9["tags"]] == ["Выбыл"] and mafia["rows"][0]["tags"] == []
    top = simulated(ERUDITE)["standings"]
    assert [(r["place"], r["name"], r["points"]) for r in erudite["rows"]] == \
        [(r["place"], r["team"], r["points"]) for r in top]
    text = text_board(list(halls_seen.values()), [], "ru")   # the text board has no height: every row
    assert "  7  Жанна  Без речи\n" in text and "  9  Ира  Выбыл\n" in text and "  1  Анна\n" in text
    assert f"  1  {top[0]['team']}  {top[0]['points']}\n" in text
    assert "  7  Zhanna" not in text_board(list(halls_seen.values()), [], "en")
    assert "  7  Жанна  No speech\n" in text_board(list(halls_seen.values()), [], "en")   # the board's language


def _standings(seq: int, table, hall: str = "Зал 5") -> tuple[str, bytes]:
    """A standings message of a hall that plays a game this board has never heard of."""
    game = "abcdef12"
    body = {"hall": hall, "competition": "Кубок", "game": game, "seq": seq, "finished": False, "mode": "quidditch",
            "standings": [], "summary": {}, "view": {}, "table": table}
    return link.topic(link.DEFAULT_PREFIX, "Кубок", hall, game, "standings"), link.encode(body)


def test_the_board_draws_any_games_table_and_refuses_an_implausible_one_keeping_the_last_good(caplog):
    from controller.festival.board import card_lines
    from controller.festival.results import MALFORMED

    good = {"numbered": False, "rows": [
        {"place": 1, "name": "Гриффиндор", "points": 150, "tags": [{"key": "x.seeker", "tone": "good", "text": "Ловец"}]},
        {"place": "2–3", "name": "Слизерин", "points": 10.5, "tags": []}]}
    board = Festival()
    assert board.handle(*_standings(1, good))

    def rows():
        (card,) = board.halls()
        return [text for text, _ in card_lines(card, "ru")[2:]]

    assert rows() == ["  1  Гриффиндор  150  Ловец", "2–3  Слизерин  10.5"]
    many = {"rows": [{"place": i, "name": f"T{i}", "points": 0, "tags": []} for i in range(500)]}
    bad_tag = {"rows": [{"place": 1, "name": "Пуффендуй", "points": 999, "tags": [{"key": "x", "text": 7}]}]}
    nine_tags = {"rows": [{"place": 1, "name": "Пуффендуй", "points": 999, "tags": [{"key": "x"}] * 9}]}
    long_name = {"rows": [{"place": 1, "name": "Я" * 101, "points": 999, "tags": []}]}
    wrong_points = {"rows": [{"place": 1, "name": "Пуффендуй", "points": [999], "tags": []}]}
    not_a_table = ["Пуффендуй", 999]
    for n, table in enumerate((many, bad_tag, nine_tags, long_name, wrong_points, not_a_table), start=2):
        caplog.clear()
        with caplog.at_level("INFO", logger="controller.festival.results"):
            assert board.handle(*_standings(n, table)) is False
        assert rows() == ["  1  Гриффиндор  150  Ловец", "2–3  Слизерин  10.5"]
        (record,) = [r for r in caplog.records if "refused" in r.getMessage()]
        assert "table" in record.getMessage() and "\n" not in record.getMessage() and record.exc_info is None
    assert board.refused[MALFORMED] == 6
    assert board.handle(*_standings(9, dict(good, rows=good["rows"][1:])))   # the next good one is taken
    assert rows() == ["2–3  Слизерин  10.5"]


def test_an_older_hall_without_a_table_is_drawn_from_its_standings():
    """A hall older than the table publishes its standings only (MQTT payloads are a public
    interface): the board reads its teams' places and points and its seats' statuses."""
    from controller.festival.board import card_lines

    board = Festival()
    topic, payload = _standings(1, None)
    body = json.loads(payload)
    body.pop("table")
    seats = [{"seat": 1, "name": "Анна", "status": "in_game"}, {"seat": 2, "name": "Борис", "status": "out"}]
    body.update(standings=seats, summary={"mode": "mafia", "phase": "day", "seats": seats})
    assert board.handle(topic, link.encode({k: v for k, v in body.items() if k != "v"}))
    (card,) = board.halls()
    assert card["table"] is None
    assert [text for text, _ in card_lines(card, "ru")[2:]] == ["  1  Анна  В игре", "  2  Борис  Выбыл"]


def test_a_settled_game_keeps_its_table(festival):
    """A finished game with every event lets its replica go (a day of games stays small): its
    table stays on the board as it was."""
    from controller.festival.results import SETTLE_QUIET_S

    _, _, captured, _ = festival
    now = [0.0]
    board = Festival(clock=lambda: now[0])
    for topic, payload in captured:
        board.handle(topic, payload)
    before = {h["hall"]: h["table"] for h in board.halls()}
    assert all(table and table["rows"] for table in before.values())
    now[0] += SETTLE_QUIET_S + 1
    board.requests()                                   # settles what is quiet long enough
    assert all(g.done and g.state is None for g in board.games.values())
    assert {h["hall"]: h["table"] for h in board.halls()} == before
    assert [r["name"] for r in before["Зал 1"]["rows"]] == [r["team"] for r in simulated(ERUDITE)["standings"]]


TEAMS_12 = ["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Дзета", "Эта", "Тета", "Йота", "Каппа", "Лямбда", "Мю"]


def chgk_script(folder, teams: list[str]):
    """A ЧГК game of ``len(teams)`` questions: question q answered by all but the last q teams,
    so the teams end in the order given, each with points of its own (12, 11, … 1)."""
    lines = [{"setup": {"mode": "chgk", "teams": [{"name": n, "button": chr(65 + i)} for i, n in enumerate(teams)],
                        "settings": {"chgk.tours": 1, "chgk.questions_per_tour": len(teams)}}},
             {"at": 0.0, "host": "start_clock"}]
    at = 75.0
    for q in range(len(teams)):
        lines.append({"at": at, "host": "results", "results": teams[:len(teams) - q]})
        if q < len(teams) - 1:
            lines.append({"at": at + 1, "host": "question"})
        at += 76
    path = folder / f"chgk-{len(teams)}.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


BIG_TABLES = {"Зал 4": "Клуб", "Зал 6": "Кубок", "Зал 7": "Лига"}
"""The halls of :func:`publish_big_tables`: «Мафия»'s ten seats, a ЧГК of 12 teams, one of 3."""


def publish_big_tables(broker, halls) -> None:
    """Three halls publish to ``broker``: «Мафия»'s ten seats (7 «Без речи», 9 «Выбыл»), a 12-team
    ЧГК game, a 3-team one."""
    for (hall, comp), script in zip(BIG_TABLES.items(), (MAFIA, chgk_script(halls, TEAMS_12),
                                                         chgk_script(halls, TEAMS_12[:3]))):
        buzzer("simulate", script, "--festival", broker.plain_url, "--hall", hall, "--competition", comp, cwd=halls)


@pytest.fixture(scope="module")
def big_tables(tmp_path_factory):
    """A broker with the halls of :func:`publish_big_tables` on it, and a board's halls."""
    folder = tmp_path_factory.mktemp("big")
    broker = Broker(folder / "broker").start()
    halls = folder / "halls"
    halls.mkdir()
    try:
        publish_big_tables(broker, halls)
        seen = halls_heard(broker, tables=3)
        assert sorted(h["hall"] for h in seen if h["table"]) == sorted(BIG_TABLES)
        yield broker, halls, seen
    finally:
        broker.stop()


def _on_image(image, screen, line) -> bool:
    """Whether ``line`` ((text, x, y, size, colour) as the board drew it) is on ``image`` pixel for
    pixel: the text rendered afresh on a card's colour is what the image has there."""
    from controller.festival.board import CARD

    text, x, y, size, colour = line
    glyphs = screen.text.render(text, size, colour)
    expected = pygame.Surface(glyphs.get_size())
    expected.fill(CARD)
    expected.blit(glyphs, (0, 0))
    w, h = glyphs.get_size()
    if x + w > image.get_width() or y + h > image.get_height():
        return False
    got = image.subsurface((x, y, w, h))
    return all(got.get_at((i, j))[:3] == expected.get_at((i, j))[:3] for i in range(w) for j in range(h))


def test_a_card_too_small_for_its_table_keeps_the_leaders_and_every_tagged_row_and_says_how_many_it_left_out(
        big_tables, tmp_path):
    """A 10-seat «Мафия» table, a 12-team ЧГК and a 3-team one on a 1024×600 window: the
    «Мафия» card shows seat 7 «Без речи» and seat 9 «Выбыл» (before, a card showed its first 6
    rows, whatever they were), the 12-team card its top places and «ещё N», the 3-team card all
    three as before; every line drawn is on the window's PNG, inside the card."""
    from controller.festival.board import BoardScreen, card_lines, table_rows

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    broker, halls, seen = big_tables
    pygame.display.init()
    surface = pygame.Surface((1024, 600))
    screen = BoardScreen(surface, "ru")
    screen.draw(seen, [], True, "")
    png = tmp_path / "board-small.png"
    pygame.image.save(surface, str(png))
    image = pygame.image.load(str(png))
    by_hall = {}
    for line in screen.drawn[1:]:                  # the title, then each card's head line and the rest
        if line[0].startswith("Зал "):
            by_hall[line[0].split(" · ")[0]] = [line]
        else:
            by_hall[list(by_hall)[-1]].append(line)
    cards = {h["hall"]: h for h in seen}

    def rows(hall):
        return [line[0] for line in by_hall[hall] if line[0][:3].strip().isdigit()]

    mafia = rows("Зал 4")
    assert "  7  Жанна  Без речи" in mafia and "  9  Ира  Выбыл" in mafia and mafia[0] == "  1  Анна"
    assert len(mafia) < 10                           # the card is too small for the whole table
    kept = len(mafia) - 2                            # the leaders, then seats 7 and 9
    assert [r.split()[0] for r in mafia] == [str(n) for n in range(1, kept + 1)] + ["7", "9"]
    assert by_hall["Зал 4"][-1][0].strip() == f"ещё {10 - len(mafia)}"

    top = rows("Зал 6")
    assert top == [f"{n:>3}  {TEAMS_12[n - 1]}  {13 - n}" for n in range(1, len(top) + 1)] and 3 < len(top) < 12
    assert by_hall["Зал 6"][-1][0].strip() == f"ещё {12 - len(top)}"

    assert [line[0] for line in by_hall["Зал 7"]] == [text for text, _ in card_lines(cards["Зал 7"], "ru")]
    assert rows("Зал 7") == ["  1  Альфа  3", "  2  Бета  2", "  3  Гамма  1"] and len(table_rows(cards["Зал 7"])) == 3
    for hall in BIG_TABLES:
        for line in by_hall[hall]:
            assert _on_image(image, screen, line), (hall, line)

    # the board's own window (`buzzer festival --png`) draws the same
    cfg = tmp_path / "board.toml"
    cfg.write_text("[display]\nwidth = 1024\nheight = 600\n")
    real = tmp_path / "board-window.png"
    buzzer("festival", "--config", cfg, "--broker", broker.plain_url, "--seconds", "3", "--png", real, cwd=halls)
    window = pygame.image.load(str(real))
    for hall in BIG_TABLES:
        for line in by_hall[hall]:
            assert _on_image(window, screen, line), (hall, line)


def test_the_rows_a_card_keeps_are_the_leader_then_every_tagged_row_then_by_place():
    from controller.festival.board import card_lines, shown_rows

    tag = [{"key": "out", "tone": "info", "text": "Выбыл"}]
    rows = [{"place": n, "name": f"T{n}", "points": None, "tags": tag if n in (7, 9) else []} for n in range(1, 11)]
    assert shown_rows(rows, None) == (rows, 0) and shown_rows(rows, 10) == (rows, 0)
    assert [r["place"] for r in shown_rows(rows, 6)[0]] == [1, 2, 3, 7, 9] and shown_rows(rows, 6)[1] == 5
    assert [r["place"] for r in shown_rows(rows, 3)[0]] == [1, 7] and shown_rows(rows, 3)[1] == 8
    assert shown_rows(rows[:3], 3) == (rows[:3], 0)
    card = {"hall": "Зал 1", "competition": "Кубок", "game": "g", "mode": "", "finished": False,
            "online": True, "headline": {}, "table": {"rows": rows}}
    assert card_lines(card, "en", 4)[-1] == ("     7 more", "muted")
    assert len(card_lines(card, "ru")) == 2 + 10         # the text board: every row
