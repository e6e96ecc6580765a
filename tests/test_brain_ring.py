"""Брейн-ринг through the engine, one test per rule clause of rules.md, and through `buzzer simulate`."""

import json
from pathlib import Path

import pytest
from harness import Played
from replay import play

from controller.games import engine
from controller.cli import main
from controller.core.effects import Flash, Lamp, Sound
from controller.core.errors import ConfigError
from controller.core.events import NS_PER_S
from controller.games import brain_ring

S = NS_PER_S


def ns(t):
    return int(round(t * S))


class Game(Played):
    """Брейн-ринг with ``teams`` teams T1, T2 ... on buttons B1, B2 ... (``named=False``: the built-in teams)."""

    def __init__(self, teams=2, seed=1, named=True, **settings):
        data = {"mode": "brain-ring", **settings}
        if named:
            data["teams"] = [{"name": f"T{i + 1}", "button": f"B{i + 1}"} for i in range(teams)]
        super().__init__(data, seed)

    def answer(self, n, start, result="right"):
        """One question: «Время!» at ``start``, team n presses 1 s later, the host rules."""
        self.host("question", start - 1)
        self.host("start_clock", start)
        self.press(n, start + 1)
        self.run_to(start + 1.1)
        self.host(result, start + 2)


def test_two_teams_by_default_more_allowed():
    g = Game(named=False)          # no [[teams]] in the config: two teams play
    assert [(t["name"], t["disabled"]) for t in g.view()["teams"]] == [("Альфа", None), ("Бета", None)]
    assert len(Game(teams=10).view()["standings"]) == 10
    with pytest.raises(ConfigError, match="^teams: .*at most 10"):
        Game(teams=11)


def test_start_clock_gives_the_start_signal_and_sixty_seconds():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    assert "start" in g.sounds()
    cd = g.view()["countdown"]
    assert cd["kind"] == "main" and cd["total_ms"] == 60_000 and cd["running"]


def test_no_random_delay_by_default():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    assert g.entries("start")[0].at == ns(2)


def test_random_delay_of_one_to_four_seconds_is_deterministic_per_seed_and_question():
    def delays(seed):
        g = Game(seed=seed, **{"brain_ring.start_delay": True})
        out = []
        for q in range(6):
            t = 100 * q + 1
            g.host("question", t)
            g.host("start_clock", t + 1)
            g.run_to(t + 6)
            out.append((g.entries("start")[-1].at - ns(t + 1)) / S)
            g.host("withdraw", t + 7)
        return out
    a, b = delays(7), delays(7)
    assert a == b
    assert all(1.0 <= d <= 4.0 for d in a)
    assert len(set(a)) > 1 and delays(8) != a


def test_the_random_delay_range_is_configurable():
    g = Game(**{"brain_ring.start_delay": True, "brain_ring.start_delay_min_s": 2.5,
                "brain_ring.start_delay_max_s": 2.5})
    g.host("question", 1)
    g.host("start_clock", 2)
    g.run_to(4.49)
    assert g.logs("start") == []
    g.run_to(4.5)
    assert g.entries("start")[0].at == ns(4.5)


def test_press_before_the_start_signal_is_a_false_start_and_the_others_play_on():
    g = Game(**{"brain_ring.start_delay": True})
    g.host("question", 1)
    g.host("start_clock", 2)
    g.press(1, 2.5)                                   # during the random pause
    assert "false_start" in g.sounds() and Flash("false_start", "T1") in g.effects
    assert Lamp("B1", "blink") in g.effects
    assert g.view()["teams"][0]["false_start"] is True
    g.run_to(10)
    g.press(1, 10.5)                                  # out for this question
    g.run_to(10.6)
    assert g.holder() is None
    g.press(2, 11)
    g.run_to(11.1)
    assert g.holder() == "T2"
    g.host("right", 12)
    assert g.score(2) == 1
    g.host("question", 13)                            # the next question: T1 may answer again
    g.host("start_clock", 14)
    g.run_to(20)
    g.press(1, 20.5)
    g.run_to(20.6)
    assert g.holder() == "T1"


def test_a_press_while_the_host_reads_is_a_false_start_too():
    g = Game()
    g.host("question", 1)
    g.press(2, 1.5)
    g.host("start_clock", 2)
    g.press(2, 3)
    g.press(1, 4)
    g.run_to(4.1)
    assert g.holder() == "T1"


def test_an_edge_before_the_signal_delivered_after_it_is_still_a_false_start():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2.0)
    g.press(1, 1.9995, delivered=2.001)
    g.run_to(2.1)
    assert g.holder() is None and g.view()["teams"][0]["false_start"]


def test_when_every_team_false_starts_the_question_closes_and_carries_over():
    g = Game()
    g.host("question", 1)
    g.press(1, 1.2)
    g.press(2, 1.3)
    assert g.view()["question"]["closed"] == "false_starts"
    g.host("question", 2)
    assert g.view()["question"]["nominal"] == 2


def test_a_press_stops_the_clock():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    g.press(1, 12)
    g.run_to(40)
    cd = g.view()["countdown"]
    assert cd["running"] is False and cd["remaining_ms"] == pytest.approx(50_000, abs=3)
    assert "time_up" not in g.sounds()


def test_the_earliest_edge_wins_even_when_delivered_later():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    g.press(2, 5.0000, delivered=5.0004)
    g.press(1, 4.9990, delivered=5.0012)
    g.run_to(5.1)
    assert g.holder() == "T1"


def test_right_answer_scores_the_questions_value():
    g = Game()
    g.answer(2, 2)
    assert (g.score(1), g.score(2)) == (0, 1)
    g2 = Game(**{"brain_ring.question_value": 2})
    g2.answer(1, 2)
    assert g2.score(1) == 2


def test_wrong_answer_gives_the_other_team_twenty_seconds():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    g.press(1, 12)
    g.run_to(12.1)
    g.host("wrong", 15)
    cd = g.view()["countdown"]
    assert cd["kind"] == "after_wrong" and cd["total_ms"] == 20_000 and cd["running"]
    g.press(1, 16)                                    # already answered
    g.run_to(16.1)
    assert g.holder() is None
    g.run_to(34.9)
    assert g.view()["question"]["open"]
    g.run_to(35.01)
    assert g.view()["question"]["closed"] == "time"


@pytest.mark.parametrize("rule,press_at,expected_s", [
    ("remaining", 12, 50), ("remaining", 55, 7), ("max", 12, 50), ("max", 55, 20), ("fixed", 55, 20)])
def test_after_wrong_time_rule(rule, press_at, expected_s):
    g = Game(**{"brain_ring.after_wrong": rule})
    g.host("question", 1)
    g.host("start_clock", 2)
    g.press(1, press_at)
    g.run_to(press_at + 0.1)
    g.host("wrong", press_at + 3)
    assert g.view()["countdown"]["total_ms"] == pytest.approx(expected_s * 1000, abs=3)


def test_pause_during_the_random_start_pause_holds_the_start_signal():
    g = Game(**{"brain_ring.start_delay": True})
    g.host("question", 1)
    g.host("start_clock", 2)
    delay = (g.state.question.start_at - ns(2)) / S
    assert delay >= 1.0
    g.host("pause", 2.5)                              # a technical problem: hold everything
    g.run_to(30)
    assert "start" not in g.sounds()
    assert g.view()["question"]["waiting_start"]
    g.press(1, 29)                                    # still before the signal
    assert g.view()["teams"][0]["false_start"]
    g.host("resume", 40)
    g.run_to(40 + delay - 0.5 - 0.01)
    assert "start" not in g.sounds()                  # the rest of the pause runs after the resume
    g.run_to(40 + delay - 0.5 + 0.01)
    assert g.sounds().count("start") == 1
    assert g.view()["countdown"] == pytest.approx(
        {"kind": "main", "remaining_ms": 60_000 - 10, "total_ms": 60_000, "running": True}, abs=1)


def test_start_clock_while_paused_gives_the_signal_at_the_resume():
    g = Game()
    g.host("question", 1)
    g.host("pause", 1.5)
    g.host("start_clock", 2)
    g.run_to(5)
    assert "start" not in g.sounds()
    g.host("resume", 6)
    assert g.sounds().count("start") == 1
    assert g.view()["countdown"]["running"]


def test_presses_during_an_answer_are_early_not_false_starts():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    g.press(1, 5)
    g.run_to(5.1)
    g.press(2, 6)                                     # T1 is answering
    g.host("wrong", 7)
    assert g.view()["teams"][1]["false_start"] is False
    g.press(2, 7.5)
    g.run_to(7.6)
    assert g.holder() == "T2"


def test_unanswered_questions_carry_their_point_over():
    g = Game(**{"brain_ring.fight_points": 10})
    values = []
    for i in range(3):
        g.host("question", 100 * i + 1)
        values.append(g.view()["question"]["nominal"])
        g.host("start_clock", 100 * i + 2)
        g.run_to(100 * i + 70)                          # nobody presses
    g.host("question", 400)
    values.append(g.view()["question"]["nominal"])
    g.host("start_clock", 401)
    g.press(1, 402)
    g.run_to(402.1)
    g.host("right", 403)
    g.host("question", 500)
    values.append(g.view()["question"]["nominal"])
    assert values == [1, 2, 3, 4, 1]
    assert g.score(1) == 4


def test_both_teams_wrong_carries_over():
    g = Game()
    g.answer(1, 2, "wrong")
    g.press(2, 5)
    g.run_to(5.1)
    g.host("wrong", 6)
    assert g.view()["question"]["closed"] == "exhausted"
    g.host("question", 10)
    assert g.view()["question"]["nominal"] == 2


def test_carry_over_can_be_switched_off():
    g = Game(**{"brain_ring.carry_over": False})
    g.host("question", 1)
    g.host("start_clock", 2)
    g.run_to(70)
    g.host("question", 80)
    assert g.view()["question"]["nominal"] == 1


def test_fight_ends_at_three_points_by_default():
    g = Game()
    for i in range(3):
        assert g.view()["stage"] == "play"
        g.answer(2, 10 * i + 2)
    assert g.view()["stage"] == "fight_over"
    assert Flash("fight_over", "T2") in g.effects
    assert g.logs("fight_over")[0]["winner"] == "T2"
    fx = g.host("question", 50)
    assert g.view()["question"]["closed"] == "right"          # refused: no new question
    assert any(getattr(f, "key", None) == "fight_over" for f in fx)
    g.host("next_fight", 60)
    assert g.view()["stage"] == "play" and (g.score(1), g.score(2)) == (0, 0)
    assert engine.summary(g.state)["fights_won"] == {"T1": 0, "T2": 1}


def test_fight_points_are_configurable():
    g = Game(**{"brain_ring.fight_points": 5})
    for i in range(4):
        g.answer(1, 10 * i + 2)
    assert g.view()["stage"] == "play"
    g.answer(1, 50)
    assert g.view()["stage"] == "fight_over"


def test_signals_at_start_ten_seconds_left_each_of_the_last_five_and_the_end():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    timeline = []
    t = 2.0
    while t < 63:
        t = round(t + 0.25, 2)
        for f in g.run_to(t):
            if isinstance(f, Sound):
                timeline.append((t, f.name))
    assert timeline == [(52.0, "warning"), (57.0, "warning"), (58.0, "warning"), (59.0, "warning"),
                        (60.0, "warning"), (61.0, "warning"), (62.25, "time_up")]
    assert g.sounds()[0] == "start"


def test_next_fight_may_pick_other_teams():
    g = Game(teams=4)
    g.host("next_fight", 1, teams=["T3", "T4"])
    assert [t["disabled"] for t in g.view()["teams"]] == ["not_in_fight", "not_in_fight", None, None]
    g.host("question", 2)
    g.host("start_clock", 3)
    g.press(1, 4)
    g.press(3, 4.5)
    g.run_to(4.6)
    assert g.holder() == "T3"


def test_withdraw_undoes_the_point_and_restores_the_carry():
    g = Game()
    g.host("question", 1)
    g.host("start_clock", 2)
    g.run_to(70)                                        # carry 1
    g.answer(1, 100)                                  # worth 2
    assert g.score(1) == 2
    g.host("withdraw", 110)
    assert g.score(1) == 0
    g.host("question", 111)
    assert g.view()["question"]["nominal"] == 2


def test_withdraw_after_the_game_ended_reopens_it_and_the_final_table_is_the_corrected_one():
    """A withdrawal once the host ended the game must not leave a «final» table that changed under
    «Игра окончена»: the game is open again, and ending it again shows the corrected totals."""
    g = Game()
    g.answer(1, 10)
    g.answer(1, 20)
    g.host("end_game", 30)
    assert g.view()["stage"] == "finished" and g.score(1) == 2
    g.host("withdraw", 31)
    view = g.view()
    assert view["stage"] == "play" and g.score(1) == 1
    g.host("end_game", 32)
    view = g.view()
    assert view["stage"] == "finished"
    assert [(r["team"], r["points"]) for r in view["standings"]][:1] == [("T1", 1)]


def test_view_has_the_common_keys():
    g = Game()
    g.host("question", 1)
    v = g.view()
    assert {"mode", "stage", "paused", "teams", "question", "countdown", "standings"} <= set(v)
    assert {"name", "button", "color", "score", "place", "holder", "locked", "disabled", "early",
            "blocked"} <= set(v["teams"][0])


def test_start_delay_is_a_pure_function_of_seed_fight_and_question():
    rules = Game(seed=3, **{"brain_ring.start_delay": True}).state.rules
    assert brain_ring.start_delay(rules, 1, 5) == brain_ring.start_delay(rules, 1, 5)
    assert brain_ring.start_delay(rules, 1, 5) % 1_000_000 == 0


def test_buzzer_simulate_plays_a_brain_ring_script(tmp_path, capsys):
    script = tmp_path / "br.jsonl"
    lines = [
        {"setup": {"mode": "brain-ring", "seed": 5, "teams": [{"name": "Север", "button": "A"},
                                                             {"name": "Юг", "button": "B"}]}},
        {"at": 1, "host": "question"},
        {"at": 1.5, "press": "A"},
        {"at": 2, "host": "start_clock"},
        {"at": 9, "press": "B"},
        {"at": 10, "host": "wrong"},
        {"at": 40, "tick": True},
        {"at": 41, "host": "question"},
        {"at": 42, "host": "start_clock"},
        {"at": 43, "press": "B", "delivered": 43.001},
        {"at": 42.9995, "press": "A", "delivered": 43.0015},
        {"at": 44, "host": "right"},
    ]
    script.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    assert main(["simulate", str(script)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "brain-ring"
    assert out["questions"][0]["false_starts"] == ["Север"]
    assert out["questions"][0]["closed"] == "exhausted"
    assert out["questions"][1]["nominal"] == 2
    assert out["scores"] == {"Север": 2, "Юг": 0}


def test_the_example_script_runs(capsys):
    example = Path(__file__).resolve().parent.parent / "examples" / "brain-ring.jsonl"
    assert main(["simulate", str(example)]) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "brain-ring"


# ---------------------------------------------------------------- replay property

from hypothesis import given, settings, strategies as st  # noqa: E402

ACTIONS = ["question", "start_clock", "right", "wrong", "withdraw", "pause", "next_fight"]
_events = st.lists(st.tuples(st.integers(0, 8_000), st.sampled_from(ACTIONS + ["B1", "B2", "B3"] * 3),
                             st.integers(0, 3)), max_size=40)


def _play(events, with_ticks):
    return play(Game(teams=3, seed=9, **{"brain_ring.start_delay": True, "brain_ring.after_wrong": "max"}).state, events, with_ticks, 100 * S)


@settings(max_examples=150, deadline=None)
@given(_events)
def test_ticks_carry_no_information(events):
    """A game replayed without its ticks, then ticked once at the end, is the same game."""
    assert _play(events, True) == _play(events, False)
