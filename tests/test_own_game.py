"""Своя игра through the engine, one test per rule clause of rules.md, and through `buzzer simulate`."""

import json

import pytest
from harness import Played
from replay import play

from controller.app import config
from controller.cli import main
from controller.core.effects import Flash, Lamp
from controller.core.errors import ConfigError
from controller.core.events import NS_PER_S

S = NS_PER_S


class Game(Played):
    """Своя игра with ``players`` players P1, P2 ... on buttons B1, B2 ..."""

    def __init__(self, players=3, seed=1, **settings):
        teams = [{"name": f"P{i + 1}", "button": f"B{i + 1}"} for i in range(players)]
        super().__init__({"mode": "own-game", "teams": teams, **settings}, seed)


def test_takes_at_least_twelve_buttons_and_each_can_win():
    g = Game(players=12)
    g.host("question", 1, nominal=100)
    g.host("reading_done", 2)
    g.press(12, 2.3)
    g.run_to(2.5)
    assert g.holder() == "P12"
    g.host("right", 3)
    assert g.score(12) == 100


def test_more_players_than_the_configured_maximum_is_a_config_error():
    teams = [{"name": f"P{i}", "button": f"B{i}"} for i in range(17)]
    with pytest.raises(ConfigError, match="^teams: .*at most 16"):
        config.build({"mode": "own-game", "teams": teams})
    assert len(config.build({"mode": "own-game", "teams": teams, "own_game.max_players": 20})["teams"]) == 17


def test_buttons_are_armed_only_at_the_end_of_reading_mark():
    g = Game()
    g.host("question", 1)
    g.press(1, 1.5)                      # while the host reads: early, not an answer
    g.run_to(1.6)
    assert g.holder() is None
    assert g.view()["teams"][0]["early"] is True
    g.host("reading_done", 4)
    g.press(2, 4.1)
    g.run_to(4.2)
    assert g.holder() == "P2"


def test_early_press_blocks_that_button_for_one_second_by_default():
    g = Game()
    g.host("question", 1)
    g.press(1, 2.5)                      # early: blocked until 3.5
    assert Lamp("B1", "blink") in g.effects
    g.host("reading_done", 3.0)
    g.press(1, 3.4)                      # still blocked
    g.run_to(3.45)
    assert g.holder() is None and g.view()["teams"][0]["blocked"] is True
    g.run_to(3.5)
    assert Lamp("B1", "off") in g.effects and g.view()["teams"][0]["blocked"] is False
    g.press(1, 3.6)
    g.run_to(3.7)
    assert g.holder() == "P1"


def test_the_block_time_is_configurable():
    g = Game(**{"own_game.early_block_s": 2.0})    # the TV format
    g.host("question", 1)
    g.press(1, 2.5)
    g.host("reading_done", 3.0)
    g.press(1, 4.4)                                # 1.9 s after the early press: blocked
    g.press(2, 4.45)
    g.run_to(4.6)
    assert g.holder() == "P2"


def test_every_early_press_restarts_its_block():
    g = Game()
    g.host("question", 1)
    g.press(1, 2.0)
    g.press(1, 2.8)                      # restarts: blocked until 3.8, not 3.0
    g.host("reading_done", 3.0)
    g.press(1, 3.5)
    g.run_to(3.6)
    assert g.holder() is None
    assert [r["kind"] for r in g.view()["question"]["presses"]] == ["early", "early", "blocked"]
    g.press(1, 3.85)
    g.run_to(3.9)
    assert g.holder() == "P1"


def test_early_press_is_silent_unless_early_sound_is_on():
    quiet, loud = Game(), Game(**{"own_game.early_sound": True})
    for g in (quiet, loud):
        g.host("question", 1)
        g.press(1, 1.5)
    assert "false_start" not in quiet.sounds()
    assert "false_start" in loud.sounds()


def test_press_window_of_five_seconds_then_the_question_closes_with_no_score():
    g = Game()
    g.host("question", 1, nominal=300)
    g.host("reading_done", 2)
    g.run_to(6.99)
    assert g.view()["question"]["open"] is True
    assert g.view()["countdown"]["kind"] == "press_window"
    g.run_to(7.01)
    assert g.view()["question"]["closed"] == "time"
    assert "time_up" in g.sounds() and Flash("time_up") in g.effects
    assert [g.score(i) for i in (1, 2, 3)] == [0, 0, 0]


def test_a_press_just_inside_the_window_counts_and_one_after_it_does_not():
    g = Game()
    g.host("question", 1)
    g.host("reading_done", 2)
    g.press(1, 7.0005, delivered=7.0015)  # edge after the window: late
    g.run_to(7.1)
    assert g.view()["question"]["closed"] == "time"
    g2 = Game()
    g2.host("question", 1)
    g2.host("reading_done", 2)
    g2.press(1, 6.9995, delivered=7.001)  # edge inside, delivered after the deadline
    g2.run_to(7.1)
    assert g2.holder() == "P1"


def test_press_window_length_is_configurable():
    g = Game(**{"own_game.press_window_s": 3.0})
    g.host("question", 1)
    g.host("reading_done", 2)
    g.run_to(5.01)
    assert g.view()["question"]["closed"] == "time"


def test_right_answer_scores_the_nominal_and_ends_the_question():
    g = Game()
    g.host("question", 1, nominal=400)
    g.host("reading_done", 2)
    g.press(2, 2.5)
    g.run_to(2.6)
    g.host("right", 3)
    assert g.score(2) == 400
    assert g.view()["question"]["closed"] == "right"
    g.press(1, 3.5)
    g.run_to(3.6)
    assert g.holder() is None and g.score(1) == 0


def test_wrong_answer_costs_the_nominal_and_the_others_may_press_again_from_the_ruling():
    g = Game()
    g.host("question", 1, nominal=200)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    g.press(2, 2.8)                     # while P1 answers: an early press of the next wave
    g.host("wrong", 3.0)
    assert g.score(1) == -200
    g.press(3, 3.2)
    g.run_to(3.3)
    assert g.holder() == "P3"          # P2 is blocked until 3.8
    g.host("right", 4)
    assert (g.score(1), g.score(2), g.score(3)) == (-200, 0, 200)
    assert [x["wave"] for x in g.logs("armed")] == [0, 1]


def test_without_the_wrong_answer_penalty_a_wrong_answer_costs_nothing_and_the_others_still_press():
    """SIGame's QuestionWithButtonPenalty set to none: ``own_game.wrong_penalty = false``."""
    g = Game(**{"own_game.wrong_penalty": False})
    g.host("question", 1, nominal=200)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    g.host("wrong", 3.0)
    assert g.score(1) == 0 and [x["delta"] for x in g.logs("ruling")] == [0]
    g.press(3, 3.2)
    g.run_to(3.3)
    assert g.holder() == "P3"
    g.host("right", 4)
    assert (g.score(1), g.score(3)) == (0, 200)


def test_the_wrong_answer_penalty_must_be_true_or_false():
    with pytest.raises(ConfigError, match="^own_game.wrong_penalty: expected true or false"):
        config.build({"mode": "own-game", "own_game.wrong_penalty": "нет"})


def test_the_press_window_starts_again_after_a_wrong_answer():
    g = Game()
    g.host("question", 1)
    g.host("reading_done", 2)
    g.press(1, 6.5)
    g.run_to(6.6)
    g.host("wrong", 10.0)
    g.run_to(14.9)
    assert g.view()["question"]["open"] is True
    g.run_to(15.01)
    assert g.view()["question"]["closed"] == "time"


def test_each_player_answers_once_per_question():
    g = Game()
    g.host("question", 1)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    g.host("wrong", 3)
    g.press(1, 3.5)
    g.run_to(3.6)
    assert g.holder() is None
    assert g.view()["teams"][0]["locked"] is True
    assert g.view()["question"]["presses"][-1]["kind"] == "locked"


def test_question_closes_when_every_player_has_answered_wrong():
    g = Game(players=2)
    g.host("question", 1, nominal=100)
    g.host("reading_done", 2)
    for n, t in ((1, 2.5), (2, 3.5)):
        g.press(n, t)
        g.run_to(t + 0.1)
        g.host("wrong", t + 0.5)
    assert g.view()["question"]["closed"] == "exhausted"
    assert (g.score(1), g.score(2)) == (-100, -100)


def test_the_earliest_edge_wins_even_when_delivered_later():
    g = Game()
    g.host("question", 1)
    g.host("reading_done", 2)
    g.press(2, 2.5000, delivered=2.5005)
    g.press(1, 2.4995, delivered=2.5010)     # 0.5 ms earlier, arrives 1 ms later
    g.run_to(2.6)
    assert g.holder() == "P1"
    assert g.logs("answer_right")[0]["order"] == ["B1", "B2"]


def test_no_answer_countdown_by_default():
    g = Game()
    g.host("question", 1)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(30)
    assert g.view()["answer_countdown"] is None
    assert g.holder() == "P1" and "time_up" not in g.sounds()


def test_optional_answer_countdown_after_a_press():
    g = Game(**{"own_game.answer_time_s": 3.0})
    g.host("question", 1)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    cd = g.view()["answer_countdown"]
    assert cd["kind"] == "answer" and cd["running"] and cd["total_ms"] == 3000
    g.run_to(5.51)
    assert "time_up" in g.sounds() and g.logs("answer_time_up") == [{"team": "P1"}]
    assert g.holder() == "P1"              # the host still rules
    g.host("wrong", 6)
    assert g.score(1) == -100


def test_nominals_come_from_the_question_action_or_the_configured_list():
    g = Game(**{"own_game.nominals": [10, 20]})
    got = []
    for i, params in enumerate(({}, {}, {"nominal": 75}, {"theme": "Новая"})):
        g.host("question", 1 + i * 10, **params)
        got.append(g.view()["question"]["nominal"])
        g.host("withdraw", 2 + i * 10)
    assert got == [10, 20, 75, 10]
    assert Game().state.rules.nominals == (100, 200, 300, 400, 500)


def test_withdraw_undoes_the_questions_score_changes():
    g = Game()
    g.host("question", 1, nominal=500)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    g.host("wrong", 3)
    g.host("withdraw", 4)
    assert g.score(1) == 0 and g.logs("withdraw")[0]["undone"] == [{"team": "P1", "delta": 500}]


def test_undo_reverts_the_last_ruling():
    g = Game()
    g.host("question", 1, nominal=100)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    g.host("wrong", 3)
    g.host("undo", 3.5)
    assert g.score(1) == 0 and g.holder() == "P1"
    g.host("right", 4)
    assert g.score(1) == 100


def test_undo_of_a_ruling_keeps_a_later_manual_adjustment():
    g = Game()
    g.host("question", 1, nominal=100)
    g.host("reading_done", 2)
    g.press(1, 2.5)
    g.run_to(2.6)
    g.host("wrong", 3)
    g.host("adjust", 3.2, team="P2", points=50)   # a correction from an earlier question
    g.host("undo", 3.5)                           # then the ruling is taken back
    assert g.score(1) == 0 and g.holder() == "P1"
    assert g.score(2) == 50


def test_view_has_the_common_keys():
    g = Game()
    g.host("question", 1)
    v = g.view()
    assert {"mode", "stage", "paused", "teams", "question", "countdown", "standings"} <= set(v)
    assert {"name", "button", "color", "score", "place", "holder", "locked", "disabled", "early",
            "blocked"} <= set(v["teams"][0])
    assert v["mode"] == "own-game" and {"nominal", "presses"} <= set(v["question"])


def test_buzzer_simulate_plays_an_own_game_script(tmp_path, capsys):
    script = tmp_path / "own.jsonl"
    lines = [
        {"setup": {"mode": "own-game", "seed": 4,
                   "teams": [{"name": n, "button": b} for n, b in (("Аня", "A"), ("Борис", "B"), ("Вера", "C"))]}},
        {"at": 1.0, "host": "question", "theme": "Кино", "nominal": 200},
        {"at": 2.5, "press": "A"},
        {"at": 3.0, "host": "reading_done"},
        {"at": 3.2, "press": "A"},
        {"at": 3.3, "press": "B"},
        {"at": 4.0, "host": "wrong"},
        {"at": 4.3, "press": "C"},
        {"at": 5.0, "host": "right"},
        {"at": 6.0, "host": "question"},
        {"at": 7.0, "host": "reading_done"},
        {"at": 20.0, "tick": True},
    ]
    script.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    assert main(["simulate", str(script)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "own-game"
    assert out["scores"] == {"Аня": 0, "Борис": -200, "Вера": 200}
    assert [p["kind"] for p in out["questions"][0]["presses"]] == ["early", "blocked", "answer", "answer"]
    assert out["questions"][1]["closed"] == "time"


def test_the_example_script_runs(capsys):
    from pathlib import Path
    example = Path(__file__).resolve().parent.parent / "examples" / "own-game.jsonl"
    assert main(["simulate", str(example)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "own-game" and out["questions"]


# ---------------------------------------------------------------- replay property

from hypothesis import given, settings, strategies as st  # noqa: E402

ACTIONS = ["question", "reading_done", "right", "wrong", "withdraw", "undo", "pause"]
_events = st.lists(st.tuples(st.integers(0, 3_000), st.sampled_from(ACTIONS + ["B1", "B2", "B3"] * 3),
                             st.integers(0, 3)), max_size=40)


def _play(events, with_ticks):
    return play(Game(**{"own_game.answer_time_s": 1.0}).state, events, with_ticks, 20 * S)


@settings(max_examples=150, deadline=None)
@given(_events)
def test_ticks_carry_no_information(events):
    """A game replayed without its ticks, then ticked once at the end, is the same game."""
    assert _play(events, True) == _play(events, False)
