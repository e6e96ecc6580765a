"""«Что? Где? Когда?» through the engine (one test per rule clause of rules.md / seed §3),
the results CSV parser, and `buzzer simulate`."""

import json
from pathlib import Path

import pytest
from harness import Played

from controller.games.chgk import results as chgk_results
from controller.cli import main
from controller.core.effects import Flash, Notice
from controller.core.errors import GameError
from controller.core.events import NS_PER_S

S = NS_PER_S
NAMES = ["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Дзета", "Эта"]


def ns(t):
    return int(round(t * S))


class Game(Played):
    """ЧГК with ``teams`` teams (Альфа on button A, Бета on B ...)."""

    def __init__(self, teams=4, **settings):
        super().__init__({"mode": "chgk", "teams": [{"name": NAMES[i], "button": chr(65 + i)} for i in range(teams)],
                          **settings}, 1)

    def places(self):
        return {r["team"]: r["place_label"] for r in self.view()["standings"]}

    def play(self, right_per_team):
        """One question per entry of ``right_per_team`` lists: the teams that answered right."""
        for right in right_per_team:
            self.host("question")
            self.host("results", results=right)


def timed_sounds(g, until, step=0.5):
    out = []
    t = g.now
    while t < until:
        t = round(t + step, 3)
        out += [(t, name) for name in g.sounds(g.run_to(t))]
    return out


def test_no_buttons_presses_change_nothing():
    g = Game()
    g.host("question", 1)
    before = g.view()
    g.press("A", 2)
    assert g.view() == before


def test_timer_start_signal_warning_ten_seconds_before_the_end_end_signal_and_hand_in():
    g = Game()
    g.host("start_clock", 0)
    assert g.sounds() == ["start"]
    assert g.view()["countdown"]["kind"] == "discussion" and g.view()["countdown"]["total_ms"] == 60_000
    assert timed_sounds(g, 80) == [(50.0, "warning"), (60.0, "time_up"), (70.0, "time_up")]
    assert [x.at for x in g.entries("time_up")] == [ns(60)]
    assert [x.at for x in g.entries("answers_closed")] == [ns(70)]
    assert Flash("answers_closed") in g.effects and g.view()["phase"] == "done"


def test_timer_lengths_are_configurable():
    g = Game(**{"chgk.discussion_s": 30, "chgk.warn_at_s": [5], "chgk.answer_s": 0})
    g.host("start_clock", 0)
    assert timed_sounds(g, 50) == [(25.0, "warning"), (30.0, "time_up")]


def test_blitz_preset_of_twenty_seconds():
    for action, params in (("blitz", {}), ("start_clock", {"seconds": 20})):
        g = Game()
        g.host(action, 0, **params)
        assert g.view()["countdown"]["total_ms"] == 20_000
        assert timed_sounds(g, 40) == [(10.0, "warning"), (20.0, "time_up"), (30.0, "time_up")]


def test_start_clock_moves_to_the_next_question_after_the_clock_has_run():
    g = Game()
    g.host("start_clock", 0)
    g.run_to(75)
    g.host("start_clock", 80)
    assert g.view()["question"]["label"] == "1.2"
    fx = g.host("start_clock", 81)
    assert any(isinstance(f, Notice) and f.key == "chgk.clock_running" for f in fx)


def test_a_tournament_is_four_tours_of_twelve_questions():
    g = Game()
    g.play([[]] * 12)
    g.host("question")
    assert g.view()["question"]["label"] == "2.1" and g.view()["tour"] == 2
    g.play([[]] * 35)
    assert g.view()["question"]["label"] == "4.12"
    fx = g.host("question")
    assert any(isinstance(f, Notice) and f.key == "no_more_questions" for f in fx)
    small = Game(**{"chgk.tours": 2, "chgk.questions_per_tour": 3})
    small.play([[]] * 6)
    assert any(isinstance(f, Notice) and f.key == "no_more_questions" for f in small.host("question"))


def test_results_entered_per_team_and_ranked_by_right_answers():
    g = Game()
    g.host("question", 1)
    g.host("result", team="Гамма", value=True)
    g.host("result", team="Альфа", value=False)
    g.host("question", 2)
    g.host("results", results={"Гамма": True, "Бета": "+", "Дельта": 0})
    g.host("question", 3)
    g.host("results", results=["Бета", "Гамма"])
    s = g.summary()
    assert s["scores"] == {"Альфа": 0, "Бета": 2, "Гамма": 3, "Дельта": 0}
    assert [r["team"] for r in s["standings"]][:2] == ["Гамма", "Бета"]
    with pytest.raises(GameError, match="unknown result"):
        g.host("result", team="Альфа", value="maybe")


def test_results_for_a_named_question_by_number_or_tour_dot_question():
    g = Game()
    g.host("results", question=14, results=["Альфа"])
    g.host("result", team="Бета", value=True, question="2.2")
    s = g.summary()
    labels = {q["label"]: q["results"] for q in s["questions"] if q["results"]}
    assert labels == {"2.2": {"Альфа": True, "Бета": True, "Гамма": False, "Дельта": False}}


def test_shared_places_below_third_are_shown_as_a_range():
    g = Game(teams=7)
    # right answers: Альфа 5, Бета 4, Гамма 3, Дельта/Эпсилон/Дзета 2, Эта 0
    g.play([["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон", "Дзета"]] * 2
           + [["Альфа", "Бета", "Гамма"], ["Альфа", "Бета"], ["Альфа"]])
    assert g.places() == {"Альфа": "1", "Бета": "2", "Гамма": "3", "Дельта": "4–6", "Эпсилон": "4–6",
                          "Дзета": "4–6", "Эта": "7"}
    assert g.view()["shootout"]["needed"] is False
    fx = g.host("shootout")
    assert any(isinstance(f, Notice) and f.key == "no_tie" for f in fx)


def test_shootout_for_a_tie_in_places_one_to_three_until_they_are_settled():
    g = Game(teams=5)
    # Альфа, Бета, Гамма 3 right each; Дельта 1; Эпсилон 0
    g.play([["Альфа", "Бета", "Гамма", "Дельта"], ["Альфа", "Бета", "Гамма"], ["Альфа", "Бета", "Гамма"]])
    assert g.view()["shootout"] == {"needed": True, "teams": ["Альфа", "Бета", "Гамма"], "questions": 0,
                                    "running": False}
    assert g.places()["Альфа"] == "1–3"
    g.host("shootout", 10)
    assert g.view()["stage"] == "shootout"
    g.host("start_clock", 11)
    assert g.view()["question"]["label"] == "s1"
    g.host("results", 80, results=["Гамма"])            # Гамма right, Альфа and Бета not
    assert g.places() == {"Гамма": "1", "Альфа": "2–3", "Бета": "2–3", "Дельта": "4", "Эпсилон": "5"}
    assert g.view()["stage"] == "shootout"
    g.host("question", 81)
    g.host("results", 90, results=[])                    # both wrong: still tied
    assert g.view()["stage"] == "shootout"
    g.host("question", 91)
    g.host("result", 95, team="Бета", value=True)
    assert g.view()["stage"] == "shootout"              # Альфа's result not in yet
    g.host("result", 96, team="Альфа", value=False)
    assert g.places() == {"Гамма": "1", "Бета": "2", "Альфа": "3", "Дельта": "4", "Эпсилон": "5"}
    assert g.view()["stage"] == "finished"
    assert g.logs("shootout_over")[0]["standings"][:3] == ["Гамма", "Бета", "Альфа"]
    assert [r["right"] for r in g.view()["standings"][:3]] == [3, 3, 3]   # the shoot-out adds no points


def test_a_tie_across_third_place_is_shot_out_and_the_rest_share_places():
    g = Game(teams=5)
    # Альфа 3, Бета 2, Гамма/Дельта/Эпсилон 1
    g.play([["Альфа", "Бета", "Гамма", "Дельта", "Эпсилон"], ["Альфа", "Бета"], ["Альфа"]])
    assert g.places()["Гамма"] == "3–5"
    g.host("shootout", 10)
    assert g.view()["shootout"]["teams"] == ["Гамма", "Дельта", "Эпсилон"]
    g.host("question", 11)
    g.host("results", 12, results=["Эпсилон"])
    assert g.view()["stage"] == "finished"
    assert g.places() == {"Альфа": "1", "Бета": "2", "Эпсилон": "3", "Гамма": "4–5", "Дельта": "4–5"}


def test_accepted_appeal_gives_the_team_the_question_and_is_logged():
    g = Game()
    g.play([["Альфа"], ["Бета"]])
    g.host("appeal", 50, team="Альфа", question=2, accepted=True)
    g.host("appeal", 51, team="Бета", question="1.1", accepted=False)
    s = g.summary()
    assert s["scores"]["Альфа"] == 2 and s["scores"]["Бета"] == 1
    assert [(a["team"], a["accepted"]) for a in g.logs("appeal")] == [("Альфа", True), ("Бета", False)]
    assert [a["question"] for a in s["appeals"]] == ["1.2", "1.1"]
    assert s["questions"][1]["appeals"][0]["accepted"] is True


def test_a_tie_made_by_an_appeal_after_the_shootout_gets_a_shootout_of_its_own():
    g = Game(teams=4, chgk={"tours": 1, "questions_per_tour": 2})
    g.play([["Альфа", "Бета", "Гамма"], ["Альфа"]])
    g.host("shootout", 10)
    g.host("question", 11)
    g.host("results", results=["Бета"])              # Бета 2nd, Гамма 3rd
    assert g.state.stage == "finished"
    g.host("appeal", 20, team="Дельта", question="1.1", accepted=True)
    g.host("appeal", 21, team="Дельта", question="1.2", accepted=True)
    assert g.places() == {"Альфа": "1–2", "Дельта": "1–2", "Бета": "3", "Гамма": "4"}
    g.host("shootout", 22)                           # only the new tie plays
    assert g.logs("shootout")[-1]["teams"] == ["Альфа", "Дельта"]
    g.host("question", 23)
    assert g.view()["question"]["label"] == "s2" and g.view()["question"]["results"] == {}
    assert g.places() == {"Альфа": "1–2", "Дельта": "1–2", "Бета": "3", "Гамма": "4"}
    g.host("results", results=["Дельта"])
    assert g.places() == {"Дельта": "1", "Альфа": "2", "Бета": "3", "Гамма": "4"}
    assert g.state.stage == "finished"


def test_no_appeals_on_shootout_questions():
    g = Game(teams=2)
    g.play([["Альфа", "Бета"]])
    g.host("shootout", 10)
    g.host("question", 11)
    g.host("results", 12, results=["Альфа"])
    fx = g.host("appeal", 13, team="Бета", question="s1", accepted=True)
    assert any(isinstance(f, Notice) and f.key == "appeal_not_allowed" for f in fx)
    assert g.places() == {"Альфа": "1", "Бета": "2"}


def test_view_has_the_common_keys():
    g = Game()
    g.host("start_clock", 1)
    v = g.view()
    assert {"mode", "stage", "paused", "teams", "question", "countdown", "standings"} <= set(v)
    assert {"name", "button", "color", "score", "place", "holder", "locked", "disabled", "early",
            "blocked"} <= set(v["teams"][0])
    assert v["countdown"]["running"] is True


# ---------------------------------------------------------------- the CSV import

def test_csv_results_are_parsed_and_entered_through_the_engine():
    text = "команда,вопрос,результат\nАльфа,1,1\nБета,1,0\nАльфа,1.2,+\nГамма,14,да\n\n# comment\n"
    rows = chgk_results.parse(text, "r.csv", teams=NAMES[:4], tours=4, per_tour=12)
    assert [(r.team, r.question, r.result, r.row) for r in rows] == [
        ("Альфа", 1, True, 2), ("Бета", 1, False, 3), ("Альфа", 2, True, 4), ("Гамма", 14, True, 5)]
    g = Game()
    g.send(chgk_results.to_host(rows, ns(1)))
    assert g.summary()["scores"] == {"Альфа": 2, "Бета": 0, "Гамма": 1, "Дельта": 0}


def test_csv_with_semicolons_and_no_header():
    rows = chgk_results.parse("Альфа;3;1\nБета;3;нет\n")
    assert [(r.team, r.question, r.result) for r in rows] == [("Альфа", 3, True), ("Бета", 3, False)]


@pytest.mark.parametrize("text,message", [
    ("Альфа,1,1\nБета,1\n", "r.csv: row 2: expected 3 fields (team,question,result), got 2"),
    ("Альфа,1,1\nБета,1,может\n", "r.csv: row 2: unknown result 'может'"),
    ("Альфа,1,1\nБета,x,1\n", "r.csv: row 2: bad question 'x'"),
    ("Альфа,49,1\n", "r.csv: row 1: question 49 is out of range (1..48)"),
    ("Альфа,5.1,1\n", "r.csv: row 1: no question 5.1"),
    ("Омега,1,1\n", "r.csv: row 1: unknown team 'Омега'"),
])
def test_csv_errors_are_one_line_naming_the_row(text, message):
    with pytest.raises(chgk_results.ResultsError) as exc:
        chgk_results.parse(text, "r.csv", teams=NAMES, tours=4, per_tour=12)
    assert str(exc.value).startswith(message) and "\n" not in str(exc.value)


def test_csv_load_reads_a_real_file(tmp_path):
    f = tmp_path / "results.csv"
    f.write_text("\ufeffteam,question,result\nАльфа,1,1\n", encoding="utf-8")
    assert [r.team for r in chgk_results.load(f)] == ["Альфа"]
    with pytest.raises(chgk_results.ResultsError, match="file not found"):
        chgk_results.load(tmp_path / "missing.csv")


def test_a_missing_csv_is_named_with_the_folder_it_was_looked_for_in(tmp_path, monkeypatch):
    """«results.csv: файл не найден» left the host guessing where the program looked."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(chgk_results.ResultsError) as exc:
        chgk_results.load("results.csv")
    assert str(exc.value) == f"{tmp_path / 'results.csv'}: file not found"


# ---------------------------------------------------------------- buzzer simulate

def test_buzzer_simulate_plays_a_chgk_script(tmp_path, capsys):
    script = tmp_path / "chgk.jsonl"
    lines = [
        {"setup": {"mode": "chgk", "teams": [{"name": n} for n in NAMES[:3]],
                   "settings": {"chgk.tours": 1, "chgk.questions_per_tour": 2}}},
        {"at": 0, "host": "start_clock"},
        {"at": 75, "host": "results", "results": ["Альфа", "Бета"]},
        {"at": 80, "host": "blitz"},
        {"at": 110, "host": "results", "results": {"Альфа": True, "Бета": True, "Гамма": True}},
        {"at": 111, "host": "appeal", "team": "Гамма", "question": 1, "accepted": True},
        {"at": 120, "host": "shootout"},
        {"at": 121, "host": "question"},
        {"at": 130, "host": "results", "results": ["Бета"]},
        {"at": 131, "host": "question"},
        {"at": 140, "host": "results", "results": ["Гамма"]},
    ]
    script.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    assert main(["simulate", str(script)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "chgk" and out["stage"] == "finished"
    assert out["scores"] == {"Альфа": 2, "Бета": 2, "Гамма": 2}
    assert [r["team"] for r in out["standings"]] == ["Бета", "Гамма", "Альфа"]
    assert [e["kind"] for e in out["events"]].count("warning") == 2


def test_the_example_script_runs(capsys):
    example = Path(__file__).resolve().parent.parent / "examples" / "chgk.jsonl"
    assert main(["simulate", str(example)]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "chgk"


def test_undo_takes_back_the_last_result_entry_and_reopens_a_shootout_it_settled():
    g = Game(teams=3)
    g.play([["Альфа", "Бета"]])
    g.host("shootout", 10)
    g.host("start_clock", 11)
    g.host("result", 80, team="Альфа", value=True)
    g.host("result", 81, team="Бета", value=False)
    assert g.view()["stage"] == "finished"
    g.host("undo", 82)                                   # Бета's mark was a slip: the shoot-out goes on
    assert g.view()["stage"] == "shootout" and g.view()["question"]["results"] == {"Альфа": True}
    assert g.logs("undo")[-1]["changes"] == [{"question": "s1", "team": "Бета", "result": None}]
    g.host("appeal", 83, team="Гамма", question=1, accepted=True)   # the jury's decision: no undo past it
    g.host("undo", 84)
    assert g.view()["question"]["results"] == {"Альфа": True}
    assert g.logs("refused")[-1]["reason"] == "nothing_to_undo"
