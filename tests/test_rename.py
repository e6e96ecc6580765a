"""Renaming a team during a game: a journaled host action in every mode that changes the
shown name only -- never who wins, the scores or the standings order."""

from __future__ import annotations

import json

import pytest

from controller.app import config
from controller.sessions import journal
from controller.games import engine
from controller.sessions import script as script_mod
from controller.cli import main
from controller.core.effects import Log, Notice
from controller.core.events import NS_PER_S, Host, Press, Tick

S = NS_PER_S
TEAMS = ('"teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}, '
         '{"name": "Гамма", "button": "C"}]')

# One game per mode.  Each has an exact tie between A and B (the seeded draw decides it),
# scores for Бета (team 2) and a RENAME slot in the middle of the game.
GAMES = {
    "erudite": """{"setup": {"mode": "erudite", %s, "seed": 11}}
{"at": 1.0, "host": "question", "nominal": 10}
{"at": 2.0, "press": "A"}
{"at": 2.0, "press": "B"}
{"at": 3.0, "host": "wrong"}
{"at": 3.5, "press": "C"}
{"at": 4.0, "host": "right"}
RENAME
{"at": 11.0, "host": "question", "nominal": 20}
{"at": 12.0, "press": "B"}
{"at": 13.0, "host": "right"}
{"at": 14.0, "host": "end_game"}""",
    "own-game": """{"setup": {"mode": "own-game", %s, "seed": 11}}
{"at": 1.0, "host": "question", "nominal": 100}
{"at": 1.5, "host": "reading_done"}
{"at": 2.0, "press": "A"}
{"at": 2.0, "press": "B"}
{"at": 3.0, "host": "wrong"}
{"at": 3.5, "press": "C"}
{"at": 4.0, "host": "right"}
RENAME
{"at": 11.0, "host": "question", "nominal": 200}
{"at": 11.5, "host": "reading_done"}
{"at": 12.0, "press": "B"}
{"at": 13.0, "host": "right"}""",
    "brain-ring": """{"setup": {"mode": "brain-ring", %s, "seed": 11, "settings": {"brain_ring.fight_points": 2}}}
{"at": 1.0, "host": "question"}
{"at": 1.5, "host": "start_clock"}
{"at": 2.0, "press": "A"}
{"at": 2.0, "press": "B"}
{"at": 3.0, "host": "wrong"}
{"at": 3.5, "press": "C"}
{"at": 4.0, "host": "right"}
RENAME
{"at": 11.0, "host": "question"}
{"at": 11.5, "host": "start_clock"}
{"at": 12.0, "press": "B"}
{"at": 13.0, "host": "right"}""",
    "chgk": """{"setup": {"mode": "chgk", %s, "seed": 11, "settings": {"chgk": {"tours": 1, "questions_per_tour": 2}}}}
{"at": 1.0, "host": "question"}
{"at": 2.0, "host": "results", "results": ["Бета", "Альфа"]}
RENAME
{"at": 11.0, "host": "question"}
{"at": 12.0, "host": "result", "team": 2, "value": true}
{"at": 12.5, "host": "result", "team": 1, "value": true}
{"at": 13.0, "host": "end_game"}""",
}
RENAME = '{"at": 10.0, "host": "rename", "team": 2, "name": "Бета-2"}'


def run(text: str) -> dict:
    return script_mod.result(script_mod.run(script_mod.parse(text.splitlines(), "test")))


def game(mode: str, rename: str | None) -> str:
    return (GAMES[mode] % TEAMS).replace("RENAME", rename or '{"at": 10.0, "tick": true}')


@pytest.mark.parametrize("mode", GAMES)
def test_the_new_name_shows_in_the_view_scores_standings_and_every_record(mode):
    r = run(game(mode, RENAME))
    assert "Бета" not in r["scores"] and r["scores"]["Бета-2"] >= 1
    assert "Бета-2" in [row["team"] for row in r["standings"]]
    assert not any(a["team"] == "Бета" for q in r["questions"] for a in q["answers"])
    assert [e for e in r["events"] if e["kind"] == "rename"] == [
        {"t": 10.0, "kind": "rename", "number": 2, "button": "B", "old": "Бета", "name": "Бета-2"}]
    state = script_mod.run(script_mod.parse(game(mode, RENAME).splitlines(), "test")).state
    assert [t["name"] for t in engine.view(state)["teams"]] == ["Альфа", "Бета-2", "Гамма"]


@pytest.mark.parametrize("mode", GAMES)
def test_a_rename_changes_nothing_but_the_name(mode):
    """Same game with and without the rename: the same tie draws, winners, scores, standings
    order and log, apart from the name (and the rename's own log entry)."""
    plain = run(game(mode, None))
    renamed = run(game(mode, RENAME))
    renamed["events"] = [e for e in renamed["events"] if e["kind"] != "rename"]
    assert json.dumps(renamed, ensure_ascii=False).replace("Бета-2", "Бета") == json.dumps(plain, ensure_ascii=False)
    assert [row["team"] for row in renamed["standings"]] == [
        "Бета-2" if row["team"] == "Бета" else row["team"] for row in plain["standings"]]


def test_a_tie_draw_decided_by_the_seed_goes_the_same_way_after_the_rename():
    """Exact ties are drawn by button and seed: across seeds, renaming the teams before the
    press never changes who takes the answer right."""
    for seed in range(12):
        def winner(rename):
            lines = [f'{{"setup": {{"mode": "erudite", {TEAMS}, "seed": {seed}}}}}']
            if rename:
                lines += ['{"at": 0.5, "host": "rename", "team": 1, "name": "Я"}',
                          '{"at": 0.6, "host": "rename", "team": 2, "name": "Аа"}']
            lines += ['{"at": 1.0, "host": "question"}', '{"at": 2.0, "press": "A"}', '{"at": 2.0, "press": "B"}']
            return [e["button"] for e in run("\n".join(lines))["events"] if e["kind"] == "answer_right"]
        assert winner(False) == winner(True)


def new_state(mode="erudite", **extra):
    teams = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}, {"name": "Гамма", "button": "C"}]
    return engine.new_game(config.build({"mode": mode, "teams": teams, **extra}), 1)


def rename(state, at=1.0, **params):
    state, fx = engine.step(state, Host("rename", int(at * S), params))
    return state, fx


@pytest.mark.parametrize("name,reason", [
    ("", "rename_empty"), ("   ", "rename_empty"), (None, "rename_empty"),
    ("Ж" * 41, "rename_too_long"),
    ("Гамма", "rename_taken"), ("гАММА", "rename_taken"), ("  Гамма ", "rename_taken"),
    ("C", "rename_taken"),          # another team's button id: "C" would name two teams in a script
    ("Бета", "rename_unchanged"),
])
@pytest.mark.parametrize("mode", ["erudite", "own-game", "brain-ring", "chgk"])
def test_a_bad_name_is_refused_with_a_notice_and_changes_nothing(mode, name, reason):
    s0 = new_state(mode)
    s1, fx = rename(s0, team=2, name=name)
    assert [t["name"] for t in engine.view(s1)["teams"]] == ["Альфа", "Бета", "Гамма"]
    assert [f.key for f in fx if isinstance(f, Notice)] == [reason]
    assert [f.data["reason"] for f in fx if isinstance(f, Log) and f.kind == "refused"] == [reason]


def test_names_are_tidied_and_may_be_forty_characters_long():
    s, fx = rename(new_state(), team="B", name="  Бета \t  вторая\x07 ")
    assert engine.view(s)["teams"][1]["name"] == "Бета вторая"
    assert [(f.key, dict(f.params)) for f in fx if isinstance(f, Notice)] == [
        ("renamed", {"old": "Бета", "name": "Бета вторая"})]
    s, _ = rename(s, team="Бета вторая", name="Ж" * 40)     # by its (new) name: it is the team's name now
    assert engine.view(s)["teams"][1]["name"] == "Ж" * 40
    s, _ = rename(s, team=1, name="альфа")                 # the case of its own name may change
    assert engine.view(s)["teams"][0]["name"] == "альфа"


def test_an_undo_after_a_rename_keeps_the_new_name():
    s = new_state()
    for ev in (Host("question", 1 * S), Press("B", 2 * S, 2 * S), Tick(3 * S), Host("right", 4 * S)):
        s, _ = engine.step(s, ev)
    s, _ = rename(s, at=5, team=2, name="Бета-2")
    s, _ = engine.step(s, Host("undo", 6 * S))
    v = engine.view(s)
    assert v["teams"][1]["name"] == "Бета-2" and v["teams"][1]["score"] == 0 and v["teams"][1]["holder"]

    s = new_state("own-game")
    for ev in (Host("question", 1 * S, {"nominal": 100}), Host("reading_done", 1 * S + 1), Press("B", 2 * S, 2 * S),
               Tick(3 * S), Host("wrong", 4 * S)):
        s, _ = engine.step(s, ev)
    s, _ = rename(s, at=5, team=2, name="Бета-2")
    s, _ = engine.step(s, Host("undo", 6 * S))
    assert engine.view(s)["teams"][1]["name"] == "Бета-2" and engine.view(s)["teams"][1]["score"] == 0


def test_brain_ring_a_fight_won_before_the_rename_is_recorded_under_the_new_name_and_can_be_withdrawn():
    s = new_state("brain-ring", brain_ring={"fight_points": 1})
    for ev in (Host("question", 1 * S), Host("start_clock", 2 * S), Press("B", 3 * S, 3 * S), Tick(4 * S),
               Host("right", 5 * S)):
        s, _ = engine.step(s, ev)
    s, _ = rename(s, at=6, team=2, name="Бета-2")
    summary = engine.summary(s)
    assert summary["fights"][0]["winner"] == "Бета-2" and summary["fights_won"] == {
        "Альфа": 0, "Бета-2": 1, "Гамма": 0}
    s, _ = engine.step(s, Host("withdraw", 7 * S))      # finds the fight's winner under its new name
    assert engine.summary(s)["fights_won"]["Бета-2"] == 0 and engine.view(s)["stage"] == "play"


def test_chgk_results_stay_with_the_team_and_the_new_name_enters_more():
    s = new_state("chgk")
    s, _ = engine.step(s, Host("question", 1 * S))
    s, _ = engine.step(s, Host("result", 2 * S, {"team": "Бета", "value": True}))
    s, _ = rename(s, at=3, team=2, name="Бета-2")
    s, _ = engine.step(s, Host("question", 4 * S))
    s, _ = engine.step(s, Host("results", 5 * S, {"results": ["Бета-2"]}))
    rows = {r["team"]: r["right"] for r in engine.view(s)["standings"]}
    assert rows == {"Бета-2": 2, "Альфа": 0, "Гамма": 0}


def test_mafia_renames_a_seat_checked_also_after_the_game():
    s = engine.new_game(config.load("config/mafia.toml"), 1)
    s, fx = rename(s, seat=3, name="Виктория")
    assert engine.view(s)["seats"][2]["name"] == "Виктория"
    assert [(f.key, dict(f.params)) for f in fx if isinstance(f, Notice)] == [
        ("mafia.renamed", {"seat": 3, "old": "Вика", "name": "Виктория"})]
    s, _ = rename(s, team=4, name="Глеб Г.")              # "team" names the seat as in the other modes
    assert engine.view(s)["seats"][3]["name"] == "Глеб Г."
    for name, reason in (("анна", "rename_taken"), ("", "rename_empty"), ("Ж" * 41, "rename_too_long")):
        s2, fx = rename(s, seat=3, name=name)
        assert s2 == s and [f.key for f in fx if isinstance(f, Notice)] == [reason]
    s, _ = engine.step(s, Host("end_game", 2 * S, {"winner": "town"}))
    s, _ = rename(s, at=3, seat=1, name="Анна-Мария")     # fixing the record after the game
    assert engine.summary(s)["seats"][0]["name"] == "Анна-Мария"
    from controller.games.mafia import protocol as mafia_protocol
    roles = dict(enumerate(["don", "mafia", "mafia", "commissar", "doctor"] + ["civilian"] * 5, start=1))
    protocol = mafia_protocol.from_table(engine.summary(s), tournament="T", stage="s", game=1, table=1,
                                         date="2024-01-01", ended_at="2024-01-01T12:00:00", roles=roles)
    assert [p.name for p in protocol.players][:4] == ["Анна-Мария", "Борис", "Виктория", "Глеб Г."]


def programme(rounds):
    teams = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]
    return engine.new_game(config.build({"mode": "programme", "teams": teams, "programme": {"rounds": rounds}}), 3)


def test_programme_totals_follow_a_renamed_team_into_later_rounds():
    rounds = [{"mode": "own-game", "title": "1"}, {"mode": "chgk", "title": "2",
                                                   "settings": {"chgk": {"tours": 1, "questions_per_tour": 2}}}]
    s = programme(rounds)
    for ev in (Host("question", 1 * S, {"nominal": 300}), Host("reading_done", 2 * S), Press("B", 3 * S, 3 * S),
               Tick(4 * S), Host("right", 5 * S), Host("next_game", 6 * S)):
        s, _ = engine.step(s, ev)
    s, _ = rename(s, at=7, team=2, name="Бета-2")         # in round 2, after Бета scored in round 1
    s, _ = engine.step(s, Host("question", 8 * S))
    s, _ = engine.step(s, Host("results", 9 * S, {"results": ["Бета-2"]}))
    summary = engine.summary(s)
    assert summary["scores"] == {"Альфа": 0, "Бета-2": 301}
    assert [r["team"] for r in summary["standings"]] == ["Бета-2", "Альфа"]
    assert summary["rounds"][0]["scores"] == {"Альфа": 0, "Бета": 300}   # a finished round as it was played


def test_programme_a_rename_in_an_early_round_carries_into_the_rounds_after_it():
    s = programme([{"mode": "own-game"}, {"mode": "brain-ring"}])
    s, _ = rename(s, team=1, name="Альфа-Центавра")
    s, _ = engine.step(s, Host("next_game", 2 * S))
    assert [t["name"] for t in engine.view(s)["teams"]] == ["Альфа-Центавра", "Бета"]


def test_programme_refuses_a_name_another_team_of_the_programme_has():
    rounds = [{"mode": "own-game"},
              {"mode": "chgk", "settings": {"teams": [{"name": "Альфа"}, {"name": "Бета"}, {"name": "Гамма"}]}}]
    s0 = programme(rounds)
    s, fx = rename(s0, team=1, name="Гамма")              # Гамма plays only in round 2: totals would merge
    assert engine.summary(s) == engine.summary(s0) and s.renames == ()
    assert [f.key for f in fx if isinstance(f, Notice)] == ["rename_taken"]


def test_a_rename_survives_a_restart_by_replay(tmp_path):
    cfg = config.load()
    jr = journal.Journal(journal.current_path(tmp_path), header={"config": cfg, "seed": 4, "started": "now"})
    s = engine.new_game(cfg, 4)
    events = [Host("question", 1 * S), Press("D", 2 * S, 2 * S), Tick(3 * S), Host("right", 4 * S),
              Host("rename", 5 * S, {"team": 4, "name": "Дельта-плюс"}), Host("rename", 6 * S, {"team": 1, "name": ""})]
    for ev in events:
        jr.append(ev)
        s, _ = engine.step(s, ev)
    jr.close()
    state, _, _, _ = journal.replay(journal.read(journal.current_path(tmp_path)))
    assert state == s
    assert {t["name"]: t["score"] for t in engine.view(state)["teams"]} == {
        "Альфа": 0, "Бета": 0, "Гамма": 0, "Дельта-плюс": 10}


def test_buzzer_simulate_prints_the_new_name(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(game("erudite", '{"at": 12.0, "host": "rename", "team": 2, "name": "Бета-2"}'),
                    encoding="utf-8")
    assert main(["simulate", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == {"Альфа": 0, "Бета-2": 10, "Гамма": 10}       # Бета won the tie, then −10 +20
    assert [(r["place"], r["team"]) for r in out["standings"]] == [(1, "Бета-2"), (2, "Гамма"), (3, "Альфа")]
    assert [a["team"] for q in out["questions"] for a in q["answers"]] == ["Бета-2", "Гамма", "Бета-2"]


def test_the_documented_script_example_renames_team_two():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "scripted-sessions.md").read_text(encoding="utf-8")
    block = doc.split("```json\n", 1)[1].split("```", 1)[0]
    assert '{"at": 12.0, "host": "rename", "team": 2, "name": "Бета-2"}' in block
    r = run(block)
    assert list(r["scores"]) == ["Альфа", "Бета-2"] and r["scores"]["Альфа"] == -30
