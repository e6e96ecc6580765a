"""The «Мафия» game protocol: JSON round trip, validation, protests, HTML."""

import copy
import datetime as dt
import json

import pytest

from controller.core.errors import BuzzerError
from controller.core.events import NS_PER_S, Host
from controller.games.mafia.protocol import (ProtocolError, add_protest, dumps, from_dict, from_table, load,
                                       render_html, save)
from controller.games.mafia import game as mafia

ROLES = ["don", "mafia", "mafia", "commissar", "doctor", "civilian", "civilian", "civilian", "civilian",
         "civilian"]


def protocol_data(**over):
    data = {
        "tournament": "II городской турнир по игре «Мафия»",
        "stage": "Отборочный тур",
        "game": 3,
        "table": 2,
        "date": "2015-03-06",
        "ended_at": "2015-03-06T14:30:00+03:00",
        "judge": "Главный ведущий",
        "winner": "town",
        "players": [{"seat": i + 1, "name": f"Игрок {i + 1}", "role": ROLES[i], "fouls": 0,
                     "disqualified": False, "extra": 0} for i in range(10)],
        "protests": [],
    }
    data.update(over)
    return data


def with_player(data, index, **fields):
    data = copy.deepcopy(data)
    data["players"][index].update(fields)
    return data


def test_round_trip_through_a_json_file(tmp_path):
    p = from_dict(protocol_data())
    path = save(p, tmp_path / "game3.json")
    again = load(path)
    assert again == p
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["format"] == "buzzer-mafia-protocol" and raw["tournament"].endswith("«Мафия»")
    assert "Игрок 1" in path.read_text(encoding="utf-8")  # readable, not \\u-escaped
    assert not (tmp_path / "game3.json.tmp").exists()


def test_protocol_holds_every_field_of_the_regulations():
    """§3.3.2: tournament, stage, game number, table, date, participants, winners."""
    p = from_dict(protocol_data(final=True))
    assert (p.tournament, p.stage, p.game, p.table, p.date, p.winner, p.final) == (
        "II городской турнир по игре «Мафия»", "Отборочный тур", 3, 2, "2015-03-06", "town", True)
    assert [pl.role for pl in p.players] == ROLES


def test_role_and_winner_aliases_are_normalised():
    data = with_player(protocol_data(winner="Мафия"), 3, role="sheriff")
    data = with_player(data, 4, role="Доктор")
    p = from_dict(data)
    assert p.winner == "mafia" and p.player(4).role == "commissar" and p.player(5).role == "doctor"


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d.update(game=0), "game"),
    (lambda d: d.update(table="2"), "table"),
    (lambda d: d.update(date="06.03.2015"), "date"),
    (lambda d: d.update(winner="draw"), "winner"),
    (lambda d: d.update(tournament=""), "tournament"),
    (lambda d: d.update(colour="red"), "colour"),
    (lambda d: d.update(ended_at="after lunch"), "ended_at"),
    (lambda d: d["players"][2].update(role="vampire"), "players[2].role"),
    (lambda d: d["players"][2].update(seat=1), "players[2].seat"),
    (lambda d: d["players"][2].update(name=" игрок   1 "), "players[2].name"),
    (lambda d: d["players"][2].update(fouls=-1), "players[2].fouls"),
    (lambda d: d["players"][2].update(fouls=4), "players[2].disqualified"),
    (lambda d: d["players"][2].update(extra="1"), "players[2].extra"),
    (lambda d: d["players"][2].update(extra=0.7), "players[2].extra"),
    (lambda d: d["players"][5].update(role="don"), "players"),
    (lambda d: d["protests"].append({"text": "x", "at": "2015-03-06T14:35:00+03:00", "seat": 42}),
     "protests[0].seat"),
])
def test_invalid_protocols_are_refused_naming_the_field(mutate, field):
    data = protocol_data()
    mutate(data)
    with pytest.raises(ProtocolError) as err:
        from_dict(data)
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: ")
    assert "\n" not in str(err.value)
    assert isinstance(err.value, BuzzerError) and err.value.exit_code == 2


def test_load_names_the_file_and_the_field(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(with_player(protocol_data(), 0, role="vampire")), encoding="utf-8")
    with pytest.raises(ProtocolError, match=r"bad\.json: players\[0\]\.role: must be one of"):
        load(path)
    path.write_text("{ not json", encoding="utf-8")
    with pytest.raises(ProtocolError, match=r"bad\.json: bad JSON at line 1"):
        load(path)
    with pytest.raises(ProtocolError, match="file not found"):
        load(tmp_path / "missing.json")


# ---------------------------------------------------------------- extra points (§4.3)

def test_valid_extra_points_are_accepted():
    data = with_player(with_player(protocol_data(), 0, extra=1), 5, extra=0.5)
    data = with_player(data, 7, extra=0.5)
    assert [p.extra for p in from_dict(data).players if p.extra] == [1, 0.5, 0.5]


def test_extra_points_for_a_fourth_player_are_refused_with_a_clear_message():
    data = protocol_data()
    for i in range(4):
        data = with_player(data, i, extra=0.5)
    with pytest.raises(ProtocolError) as err:
        from_dict(data)
    assert str(err.value) == ("players: 4 players have extra points (seats 1, 2, 3, 4); "
                              "at most 3 may get them (§4.3.1)")


def test_extra_points_over_2_in_total_are_refused():
    data = with_player(with_player(with_player(protocol_data(), 0, extra=1), 1, extra=1), 2, extra=0.5)
    with pytest.raises(ProtocolError, match=r"players: extra points add up to 2.5; at most 2 in a game"):
        from_dict(data)


def test_extra_points_other_than_1_or_half_are_refused():
    with pytest.raises(ProtocolError, match=r"players\[0\]\.extra: Игрок 1 \(seat 1\) has 2; a player may get 1 or 0.5"):
        from_dict(with_player(protocol_data(), 0, extra=2))


def test_extra_points_rules_come_from_config():
    data = with_player(protocol_data(), 0, extra=2)
    p = from_dict(data, {"extra_allowed": [2, 1], "extra_max_total": 3})
    assert p.player(1).extra == 2


# ---------------------------------------------------------------- protests (§4.5.1)

END = dt.datetime(2015, 3, 6, 14, 30, tzinfo=dt.timezone(dt.timedelta(hours=3)))


def test_protest_within_10_minutes_is_entered():
    p = from_dict(protocol_data())
    p = add_protest(p, "Голосование посчитано неверно", END + dt.timedelta(minutes=10), seat=4)
    assert p.protests[0].seat == 4 and p.protests[0].text == "Голосование посчитано неверно"
    assert from_dict(p.to_dict()) == p  # and survives a round trip


def test_protest_after_10_minutes_is_refused():
    p = from_dict(protocol_data())
    with pytest.raises(ProtocolError) as err:
        add_protest(p, "Поздно", END + dt.timedelta(minutes=10, seconds=1), seat=4)
    assert str(err.value) == ("protests: too late: entered 10 min 1 s after the game ended, "
                              "a protest is accepted within 10 min (§4.5.1)")


def test_protest_window_is_configurable_and_checked_on_load_too():
    late = {"text": "x", "at": "2015-03-06T14:45:00+03:00", "seat": 1}
    with pytest.raises(ProtocolError, match=r"protests\[0\]\.at: too late: entered 15 min 0 s"):
        from_dict(protocol_data(protests=[late]))
    assert from_dict(protocol_data(protests=[late]), {"protest_window_min": 20}).protests


def test_protest_needs_the_end_time_and_cannot_come_before_it():
    p = from_dict(protocol_data(ended_at=None))
    with pytest.raises(ProtocolError, match="ended_at: the end time of the game is needed"):
        add_protest(p, "x", END)
    p = from_dict(protocol_data())
    with pytest.raises(ProtocolError, match="before the game ended"):
        add_protest(p, "x", END - dt.timedelta(minutes=1))
    with pytest.raises(ProtocolError, match="time zone"):
        add_protest(p, "x", dt.datetime(2015, 3, 6, 14, 31))


# ---------------------------------------------------------------- the table's seats

def eleventh_player(data):
    data = copy.deepcopy(data)
    data["players"].append({"seat": 11, "name": "Лишний", "role": "civilian"})
    return data


def test_a_seat_beyond_the_table_is_refused():
    with pytest.raises(ProtocolError) as err:
        from_dict(eleventh_player(protocol_data()))
    assert str(err.value) == ("players[10].seat: no seat 11 at a table of 10 seats (mafia.seats); "
                              "seats are 1–10")


def test_fewer_players_than_the_table_has_seats_are_refused():
    data = protocol_data(players=protocol_data()["players"][:4])
    with pytest.raises(ProtocolError) as err:
        from_dict(data)
    assert str(err.value) == ("players: 4 players at a table of 10 seats (mafia.seats); nobody at seats "
                              "5, 6, 7, 8, 9, 10 (a smaller table is set by mafia.seats in the config)")
    # a table of 4 seats in the config, or recorded in the protocol, is a full table
    assert len(from_dict(data, {"seats": 4}).players) == 4
    assert from_dict(dict(data, seats=4)).seats == 4
    with pytest.raises(ProtocolError, match=r"^players\[0\]\.seat: no seat 12 at a table of 4 seats \(the "
                                            r"protocol's seats\)"):
        from_dict(with_player(dict(data, seats=4), 0, seat=12))


def test_the_protocol_records_the_tables_seats(tmp_path):
    names = [f"Игрок {i}" for i in range(1, 9)]
    state = mafia.initial({"seats": 8}, names)
    for i, r in enumerate(ROLES[:8]):
        state, _ = mafia.step(state, Host("role", 0, {"seat": i + 1, "role": r}))
    state, _ = mafia.step(state, Host("end_game", NS_PER_S, {"winner": "town"}))
    p = from_table(mafia.summary(state), tournament="Т", stage="С", game=1, table=1, date="2015-03-06",
                   ended_at="2015-03-06T12:00:00", settings={"seats": 8})
    path = save(p, tmp_path / "g.json")
    assert json.loads(path.read_text(encoding="utf-8"))["seats"] == 8
    assert load(path).seats == 8  # checked later without the table's config: the protocol says


def test_a_table_with_an_unnamed_seat_gives_no_protocol():
    state = mafia.initial({}, [f"Игрок {i}" for i in range(1, 10)])  # seat 10 has nobody
    for i, r in enumerate(ROLES[:9]):
        state, _ = mafia.step(state, Host("role", 0, {"seat": i + 1, "role": r}))
    state, _ = mafia.step(state, Host("end_game", NS_PER_S, {"winner": "town"}))
    with pytest.raises(ProtocolError, match=r"^players: 9 players at a table of 10 seats .*nobody at seat 10 "):
        from_table(mafia.summary(state), tournament="Т", stage="С", game=1, table=1, date="2015-03-06",
                   ended_at="2015-03-06T12:00:00")


# ---------------------------------------------------------------- from a table session

def test_protocol_from_a_finished_table():
    state = mafia.initial({}, [f"Игрок {i}" for i in range(1, 11)])
    events = [Host("role", 0, {"seat": i + 1, "role": r}) for i, r in enumerate(ROLES)]
    events += [Host("foul", 1, {"seat": 2}), Host("disqualify", 2, {"seat": 6}),
               *[Host("foul", 3, {"seat": 7}) for _ in range(4)],
               Host("end_game", 100 * NS_PER_S, {"winner": "mafia"})]
    for e in events:
        state, _ = mafia.step(state, e)
    p = from_table(mafia.summary(state), tournament="Турнир", stage="Отбор", game=1, table=1,
                   date="2015-03-06", ended_at="2015-03-06T12:00:00", extra={1: 1, 4: 0.5})
    assert p.winner == "mafia"
    assert p.player(2).fouls == 1 and not p.player(2).disqualified
    assert p.player(6).disqualified and p.player(7).disqualified and p.player(7).fouls == 4
    assert p.player(1).extra == 1 and p.player(4).extra == 0.5


def test_a_table_without_a_winner_gives_no_protocol():
    state = mafia.initial({}, ["a", "b"])
    with pytest.raises(ProtocolError, match="winner: the game has not ended"):
        from_table(mafia.summary(state), tournament="T", stage="S", game=1, table=1, date="2015-03-06",
                   ended_at="2015-03-06T12:00:00")


# ---------------------------------------------------------------- HTML

def test_html_is_printable_russian_and_escaped():
    data = with_player(protocol_data(tournament="Турнир <script>alert(1)</script> & Co",
                                     final=True), 0, name="Иван \"Дон\" <b>", extra=1)
    p = add_protest(from_dict(data), "Протест <i>", END + dt.timedelta(minutes=5), seat=1)
    page = render_html(p)
    assert page.startswith("<!DOCTYPE html>") and '<html lang="ru">' in page
    assert "<script>" not in page and "&lt;script&gt;" in page and "&amp; Co" in page
    assert "Иван &quot;Дон&quot; &lt;b&gt;" in page and "Протест &lt;i&gt;" in page
    for label in ("Протокол игры", "Турнир", "Стадия", "Игра №", "Стол №", "Дата", "Роль", "Фолы",
                  "Доп. баллы", "Победа", "мирные жители", "Протесты", "Подпись судьи", "@media print"):
        assert label in page, label
    # the Don lost (town won), extra 1, final ×1.5 -> 1,5 points
    row = next(line for line in page.splitlines() if "Иван" in line)
    assert "<td>Дон</td>" in row and row.endswith('<td class="num">1,5</td></tr>')


def test_html_in_english():
    page = render_html(from_dict(protocol_data()), lang="en")
    assert "Game protocol" in page and "Commissar" in page


def test_dumps_is_stable_json():
    p = from_dict(protocol_data())
    assert json.loads(dumps(p)) == json.loads(dumps(from_dict(json.loads(dumps(p)))))
