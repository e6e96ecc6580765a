"""Эрудит-квартет (controller/games/erudite.py), one group of tests per rule
clause of rules.md / seed §4, driven only through events as a game would be.

Times in these tests are seconds on the engine clock (converted to ns at the
event boundary).  The settle window is the default 2 ms unless a test says
otherwise.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from controller.app import config
from controller.core.effects import Flash, Lamp, Log, Notice, Sound
from controller.core.errors import ConfigError
from controller.core.events import NS_PER_MS, Host, Press, Release, Tick, seconds_to_ns
from controller.games import erudite

NAMES = ["Альфа", "Бета", "Гамма", "Дельта"]
BUTTONS = "ABCD"


def make_config(n=4, players=None, settings=None):
    players = players or [4] * n
    teams = [{"name": NAMES[i], "button": BUTTONS[i], "players": players[i]} for i in range(n)]
    cfg = config.build({"teams": teams})
    if settings:
        cfg = config.build(settings, base=cfg)
    return cfg


class Table:
    """A host at the table: sends events in delivery order, keeps every effect.

    ``press`` is a tap by default: the button's release is delivered 50 ms
    after the edge (before any later event), as a real finger would.
    """

    def __init__(self, n=4, players=None, seed=1, settings=None):
        self.state = erudite.initial(make_config(n, players, settings), seed)
        self.effects: list = []
        self.releases: list[Release] = []

    def _step(self, event):
        self.state, fx = erudite.step(self.state, event)
        self.effects += fx
        return fx

    def send(self, event):
        due = sorted((r for r in self.releases if r.delivered <= event.now), key=lambda r: r.delivered)
        for r in due:
            self.releases.remove(r)
            self._step(r)
        return self._step(event)

    def host(self, action, at, **params):
        return self.send(Host(action, seconds_to_ns(at), params))

    def press(self, button, at, delivered=None, hold=False):
        at_ns = seconds_to_ns(at)
        fx = self.send(Press(button, at_ns, seconds_to_ns(delivered if delivered is not None else at)))
        if not hold:
            self.releases.append(Release(button, at_ns + 50 * NS_PER_MS,
                                         max(at_ns + 50 * NS_PER_MS, seconds_to_ns(delivered or at))))
        return fx

    def release(self, button, at):
        return self.send(Release(button, seconds_to_ns(at), seconds_to_ns(at)))

    def tick(self, at):
        return self.send(Tick(seconds_to_ns(at)))

    def run_to(self, at):
        """Tick at every deadline the engine asks for up to ``at``, then at ``at``."""
        out = []
        end = seconds_to_ns(at)
        while (due := erudite.wakeup(self.state)) is not None and due <= end:
            out += self.send(Tick(due))
        return out + self.send(Tick(end))

    # -- what the host and the audience see
    def view(self):
        return erudite.view(self.state)

    @property
    def scores(self):
        return erudite.summary(self.state)["scores"]

    def team(self, name):
        return next(t for t in self.view()["teams"] if t["name"] == name)

    @property
    def holder(self):
        return next((t["name"] for t in self.view()["teams"] if t["holder"]), None)

    def logs(self, kind, effects=None):
        return [dict(e.data) for e in (self.effects if effects is None else effects)
                if isinstance(e, Log) and e.kind == kind]

    def press_kinds(self, effects=None):
        return [(d["button"], d["press_kind"]) for d in self.logs("press", effects)]

    def notices(self, effects=None):
        return [e.key for e in (self.effects if effects is None else effects) if isinstance(e, Notice)]

    def questions(self):
        return erudite.summary(self.state)["questions"]


def flat(scores):
    return [scores[n] for n in NAMES[:len(scores)]]


# =========================================================================
# §4.1  at most four teams, one button each, at least two players

def test_five_teams_are_a_config_error_naming_teams():
    make_config(4)  # four is fine
    teams = [{"name": f"T{i}", "button": f"B{i}"} for i in range(5)]
    with pytest.raises(ConfigError) as err:
        config.build({"teams": teams})
    assert err.value.key == "teams"
    assert "4" in str(err.value)


def test_one_button_per_team():
    with pytest.raises(ConfigError) as err:
        config.build({"teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "A"}]})
    assert err.value.key == "teams[1].button"
    # each button answers for its own team
    g = Table()
    g.host("question", 1.0)
    g.press("C", 2.0)
    g.run_to(2.1)
    assert g.holder == "Гамма"


def test_a_team_needs_two_players():
    with pytest.raises(ConfigError) as err:
        make_config(2, players=[4, 1])
    assert err.value.key == "teams[1].players"
    make_config(2, players=[2, 2])  # two is enough


def test_team_of_three_skips_the_round_its_captain_picks():
    g = Table(n=2, players=[4, 3])
    g.host("skip_round", 0.5, team="Бета", round=2)
    assert g.logs("skip_round") == [{"team": "Бета", "fight": 1, "round": 2}]
    # round 1: Бета plays
    g.host("question", 1.0)
    g.press("B", 1.5)
    g.run_to(1.6)
    assert g.holder == "Бета"
    g.host("right", 2.0)
    for k in range(4):
        g.host("question", 3.0 + k)
        g.press("A", 3.5 + k)
        g.host("right", 3.8 + k)
    # round 2: Бета's button is inactive
    g.host("question", 10.0)
    assert g.view()["round"] == 2
    assert g.team("Бета")["disabled"] == "skipped"
    g.press("B", 10.5)
    g.press("A", 10.6)
    g.run_to(10.7)
    assert ("B", "disabled") in g.press_kinds()
    assert g.holder == "Альфа"


def test_more_skips_than_missing_players_are_refused():
    g = Table(n=3, players=[4, 3, 2])
    # a full team skips nothing
    g.host("skip_round", 0.1, team="Альфа", round=1)
    assert g.notices()[-1] == "skip_not_allowed"
    # three players: one round per fight
    g.host("skip_round", 0.2, team="Бета", round=1)
    g.host("skip_round", 0.3, team="Бета", round=2)
    assert g.notices()[-1] == "skip_not_allowed"
    # two players: two rounds per fight
    g.host("skip_round", 0.4, team="Гамма", round=3)
    g.host("skip_round", 0.5, team="Гамма", round=4)
    g.host("skip_round", 0.6, team="Гамма", round=1)
    assert g.notices()[-1] == "skip_not_allowed"
    assert [d["team"] for d in g.logs("skip_round")] == ["Бета", "Гамма", "Гамма"]
    # a new fight allows new skips
    g.host("next_fight", 1.0)
    g.host("skip_round", 1.1, team="Бета", round=1)
    assert g.logs("skip_round")[-1] == {"team": "Бета", "fight": 2, "round": 1}


def test_a_round_the_team_has_played_cannot_be_its_skipped_round():
    g = Table(n=2, players=[4, 3])
    for k in range(5):                       # round 1: Бета plays and scores
        g.host("question", 1.0 + k)
        g.press("B", 1.2 + k)
        g.run_to(1.3 + k)
        g.host("right", 1.5 + k)
    g.host("skip_round", 7.0, team="Бета", round=1)
    assert g.notices()[-1] == "skip_not_allowed"
    assert g.logs("skip_round") == []
    g.host("question", 8.0)                  # round 2
    g.press("B", 8.2)
    g.run_to(8.3)
    g.host("skip_round", 8.4, team="Бета")   # holds the answer right: plays this round
    assert g.notices()[-1] == "skip_not_allowed"
    g.host("right", 8.5)
    g.host("skip_round", 8.6, team="Бета", round=3)  # a round still to come: fine
    assert g.logs("skip_round") == [{"team": "Бета", "fight": 1, "round": 3}]


def test_skipping_the_current_round_as_the_last_team_left_closes_the_question():
    g = Table(n=2, players=[4, 3])
    g.host("question", 1.0)
    g.press("A", 1.5)
    g.run_to(1.6)
    g.host("wrong", 2.0)
    g.host("skip_round", 2.5, team="Бета")   # the captain's pick, entered late
    assert g.team("Бета")["disabled"] == "skipped"
    assert g.questions()[-1]["closed"] == "exhausted"


# =========================================================================
# §4.2–4.3, §4.5  3 fights × 4 rounds × 5 questions, nominals 10..50 in order

def test_a_game_is_three_fights_of_four_rounds_of_five_rising_nominals():
    g = Table()
    t = 0.0
    for _ in range(60):
        t += 1.0
        g.host("question", t)
        g.press("A", t + 0.1)
        g.host("right", t + 0.5)
    qs = g.questions()
    assert [q["nominal"] for q in qs] == [10, 20, 30, 40, 50] * 12
    assert [(q["fight"], q["round"]) for q in qs[::5]] == [(f, r) for f in (1, 2, 3) for r in (1, 2, 3, 4)]
    assert [d["type"] for d in g.logs("fight")] == ["half-dark", "dark"]
    assert g.state.stage == "finished"
    assert len(g.logs("game_over")) == 1
    assert g.scores["Альфа"] == 12 * 150
    # no 61st question
    g.host("question", t + 1)
    assert g.notices()[-1] == "game_over"
    assert len(g.questions()) == 60


def test_round_question_counter_and_theme_shown():
    g = Table()
    g.host("question", 1.0, theme="Реки России")
    v = g.view()
    assert v["question"]["nominal"] == 10
    assert (v["question"]["index"], v["question"]["of"]) == (1, 5)
    assert v["theme"] == "Реки России"


@pytest.mark.parametrize("fight, kind, seconds", [(1, "light", 60), (2, "half-dark", 20), (3, "dark", 60)])
def test_captain_timer_of_each_fight_type(fight, kind, seconds):
    g = Table()
    for k in range(fight - 1):
        g.host("next_fight", 0.1 * (k + 1))
    assert g.view()["fight_type"] == kind
    g.host("captain", 1.0)
    assert g.logs("captain_start")[-1] == {"fight_type": kind, "seconds": float(seconds)}
    assert g.view()["captain"]["remaining_ms"] == seconds * 1000
    fx = g.run_to(1.0 + seconds - 0.01)
    assert Flash("captain_time_up") not in fx
    fx = g.run_to(1.0 + seconds)
    assert Flash("captain_time_up") in fx and Sound("time_up") in fx
    assert g.view()["captain"] is None


# =========================================================================
# §4.4  right +nominal, wrong −nominal

def test_right_adds_and_wrong_subtracts_the_nominal():
    g = Table()
    for k, (nominal, rulings) in enumerate([(10, ["right"]), (20, ["right"]), (30, ["wrong", "right"])]):
        t = 10.0 * k
        g.host("question", t + 1)
        assert g.view()["question"]["nominal"] == nominal
        for j, ruling in enumerate(rulings):
            g.press("AB"[j], t + 2 + j)
            g.run_to(t + 2.5 + j)
            g.host(ruling, t + 2.7 + j)
    assert g.scores == {"Альфа": 10 + 20 - 30, "Бета": 30, "Гамма": 0, "Дельта": 0}
    assert g.logs("ruling")[2] == {"result": "wrong", "team": "Альфа", "delta": -30, "score": 0}


# =========================================================================
# §4.6, §4.8  pressing while the question is read; the first press answers

def test_press_while_reading_takes_the_answer_right():
    g = Table()
    g.press("B", 0.5)  # nothing announced yet: does not count
    g.host("question", 1.0)
    fx = g.press("C", 1.3)
    fx += g.run_to(1.4)
    assert g.holder == "Гамма"
    assert Lamp("C", "on") in fx and Sound("press", "C") in fx
    assert g.view()["question"]["reading_done"] is False
    assert g.logs("idle_press")[0]["button"] == "B"


def test_second_third_fourth_answer_in_order_after_each_wrong():
    g = Table()
    g.host("question", 1.0)
    g.press("B", 2.0)
    g.run_to(2.1)
    g.host("wrong", 3.0)
    g.press("D", 3.5)
    g.run_to(3.6)
    assert g.holder == "Дельта"
    g.host("wrong", 4.0)
    g.press("A", 4.5)
    g.run_to(4.6)
    assert g.holder == "Альфа"
    g.host("wrong", 5.0)
    g.press("C", 5.5)
    g.run_to(5.6)
    assert g.holder == "Гамма"
    g.host("right", 6.0)
    assert g.scores == {"Альфа": -10, "Бета": -10, "Гамма": 10, "Дельта": -10}
    assert [(a["team"], a["result"]) for a in g.questions()[0]["answers"]] == [
        ("Бета", "wrong"), ("Дельта", "wrong"), ("Альфа", "wrong"), ("Гамма", "right")]


def test_four_wrong_answers_close_the_question():
    g = Table()
    g.host("question", 1.0)
    for k, b in enumerate("ABCD"):
        g.press(b, 2.0 + k)
        g.run_to(2.1 + k)
        g.host("wrong", 2.5 + k)
    assert g.questions()[0]["closed"] == "exhausted"
    assert g.scores == dict.fromkeys(NAMES, -10)


def test_press_before_the_wrong_ruling_is_early_and_does_not_count():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    fx = g.press("B", 2.5)  # while Альфа answers
    assert ("B", "early") in g.press_kinds(fx)
    assert "early_press" in g.notices(fx)
    assert g.team("Бета")["early"] is True
    g.host("wrong", 3.0)
    g.press("C", 3.2)
    g.run_to(3.3)
    assert g.holder == "Гамма"  # Бета's early press gave it nothing


def test_edge_before_the_ruling_delivered_after_it_is_early():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    g.host("wrong", 3.0)
    g.press("B", 2.999, delivered=3.0005)
    g.press("C", 3.001)
    g.run_to(3.1)
    assert ("B", "early") in g.press_kinds()
    assert g.holder == "Гамма"


def test_early_press_block_from_config():
    g = Table(settings={"erudite.early_block_s": 1.0})
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    fx = g.press("B", 4.5)  # early: blocked until 5.5
    assert Lamp("B", "blink") in fx
    g.host("wrong", 5.0)
    g.press("B", 5.2)  # still blocked
    g.press("C", 5.3)
    g.run_to(5.4)
    assert ("B", "blocked") in g.press_kinds()
    assert g.holder == "Гамма"
    fx = g.run_to(5.6)
    assert Lamp("B", "off") in fx  # block over
    g.host("wrong", 6.0)
    g.press("B", 6.2)
    g.run_to(6.3)
    assert g.holder == "Бета"


def test_early_press_without_block_by_default():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    fx = g.press("B", 4.5)
    assert Lamp("B", "blink") not in fx
    g.host("wrong", 5.0)
    g.press("B", 5.01)
    g.run_to(5.1)
    assert g.holder == "Бета"


def test_one_answer_per_button_per_question():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    g.host("wrong", 3.0)
    g.press("A", 3.1)  # answered already: locked
    g.press("B", 3.2)
    g.run_to(3.3)
    assert ("A", "locked") in g.press_kinds()
    assert g.holder == "Бета"
    assert g.team("Альфа")["locked"] is True
    g.host("right", 4.0)
    assert g.scores["Альфа"] == -10


# =========================================================================
# §4.7  seven seconds to think

def test_countdown_runs_seven_seconds_from_reading_done_and_expires_with_no_score():
    g = Table()
    g.host("question", 1.0)
    assert g.view()["countdown"] is None  # still reading
    g.host("reading_done", 3.0)
    assert g.view()["countdown"]["remaining_ms"] == 7000
    fx = g.run_to(9.99)
    assert Flash("time_up") not in fx
    fx = g.run_to(10.01)
    assert Flash("time_up") in fx and Sound("time_up") in fx
    assert g.questions()[0]["closed"] == "time"
    assert g.scores == dict.fromkeys(NAMES, 0)
    g.press("A", 10.5)  # too late: nothing happens
    g.run_to(10.6)
    assert g.holder is None and g.scores["Альфа"] == 0


def test_think_time_from_config():
    g = Table(settings={"erudite.think_time_s": 5})
    g.host("question", 1.0)
    g.host("reading_done", 2.0)
    assert Flash("time_up") not in g.run_to(6.99)
    assert Flash("time_up") in g.run_to(7.01)


def test_countdown_restarts_at_once_after_wrong_when_reading_finished():
    g = Table()
    g.host("question", 1.0)
    g.host("reading_done", 2.0)          # would expire at 9
    g.press("A", 4.0)
    g.run_to(4.1)
    assert g.view()["countdown"]["running"] is False  # the press stops the clock
    g.host("wrong", 6.0)                  # 7 s again: expires at 13
    assert g.view()["countdown"]["remaining_ms"] == 7000
    assert Flash("time_up") not in g.run_to(12.99)
    assert Flash("time_up") in g.run_to(13.01)


def test_countdown_starts_at_next_reading_done_when_wrong_came_during_reading():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 1.5)
    g.run_to(1.6)
    g.host("wrong", 2.0)
    assert g.view()["countdown"] is None
    assert Flash("time_up") not in g.run_to(20.0)  # no clock while the host reads on
    g.host("reading_done", 21.0)
    assert Flash("time_up") not in g.run_to(27.99)
    assert Flash("time_up") in g.run_to(28.01)


def test_after_wrong_resume_continues_the_remaining_time():
    g = Table(settings={"erudite.after_wrong": "resume"})
    g.host("question", 1.0)
    g.host("reading_done", 2.0)          # 7 s: to 9
    g.press("A", 4.0)                     # 5 s left
    g.run_to(4.1)
    g.host("wrong", 6.0)                  # 5 s more: to 11
    assert g.view()["countdown"]["remaining_ms"] == 5000
    assert Flash("time_up") not in g.run_to(10.99)
    assert Flash("time_up") in g.run_to(11.01)


def test_after_wrong_resume_a_last_moment_press_leaves_only_that_moment():
    # the press stops the clock at its edge, not when the settle window ends
    g = Table(settings={"erudite.after_wrong": "resume"})
    g.host("question", 1.0)
    g.host("reading_done", 2.0)          # deadline 9.0
    g.press("B", 8.9995, delivered=9.0015)
    g.run_to(9.1)
    assert g.holder == "Бета"
    g.host("wrong", 10.0)                 # 0.5 ms left, not a fresh 7 s
    assert g.view()["countdown"]["remaining_ms"] == pytest.approx(0.5)
    assert Flash("time_up") in g.run_to(10.01)


def test_after_wrong_resume_never_gives_more_than_the_full_time():
    g = Table(settings={"erudite.after_wrong": "resume"})
    g.host("question", 1.0)
    g.host("reading_done", 3.0)
    g.press("A", 2.999, delivered=3.001)  # edge before the countdown started
    g.run_to(3.1)
    g.host("wrong", 5.0)
    assert g.view()["countdown"]["remaining_ms"] == 7000


def test_press_just_before_the_deadline_delivered_just_after_it_counts():
    g = Table()  # settle 2 ms
    g.host("question", 1.0)
    g.host("reading_done", 2.0)          # deadline 9.0
    fx = g.press("B", 8.9995, delivered=9.0015)
    fx += g.run_to(9.1)
    assert Flash("time_up") not in fx
    assert g.holder == "Бета"
    g.host("right", 10.0)
    assert g.scores["Бета"] == 10


def test_press_after_the_deadline_is_late():
    g = Table()
    g.host("question", 1.0)
    g.host("reading_done", 2.0)
    fx = g.press("B", 9.0005, delivered=9.001)
    fx += g.run_to(9.1)
    assert ("B", "late") in g.press_kinds()
    assert Flash("time_up") in fx
    assert g.holder is None


def test_warning_beeps_from_config():
    g = Table(settings={"erudite.warn_at_s": [5, 1]})
    g.host("question", 1.0)
    g.host("reading_done", 2.0)
    assert Sound("warning") not in g.run_to(3.99)
    assert Sound("warning") in g.run_to(4.01)
    assert [e for e in g.run_to(8.5) if e == Sound("warning")] == [Sound("warning")]


# =========================================================================
# §4.9  withdraw; undo of the last ruling

def test_withdraw_undoes_every_score_change_and_keeps_the_log():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    g.host("wrong", 3.0)
    g.press("B", 3.5)
    g.run_to(3.6)
    g.host("right", 4.0)
    assert flat(g.scores) == [-10, 10, 0, 0]
    fx = g.host("withdraw", 5.0)
    assert flat(g.scores) == [0, 0, 0, 0]
    assert Flash("withdrawn") in fx
    assert [d["result"] for d in g.logs("ruling")] == ["wrong", "right"]  # both kept
    assert g.logs("withdraw") == [{"question": 1, "nominal": 10,
                                   "undone": [{"team": "Альфа", "delta": 10}, {"team": "Бета", "delta": -10}]}]
    # the replacement question has the same nominal
    g.host("question", 6.0)
    assert g.view()["question"]["nominal"] == 10
    assert [q["withdrawn"] for q in g.questions()] == [True, False]


def test_withdraw_while_someone_answers_switches_the_lamp_off():
    g = Table()
    g.host("question", 1.0)
    g.press("C", 2.0)
    g.run_to(2.1)
    fx = g.host("withdraw", 3.0)
    assert Lamp("C", "off") in fx
    assert g.holder is None and g.questions()[0]["closed"] == "withdrawn"


def test_undo_reverts_the_last_ruling():
    g = Table()
    g.host("question", 1.0)
    g.host("question", 1.1)  # refused: a question is open
    assert g.notices()[-1] == "question_open"
    g.press("A", 2.0)
    g.run_to(2.1)
    g.host("right", 3.0)
    assert g.scores["Альфа"] == 10
    fx = g.host("undo", 4.0)
    assert g.scores["Альфа"] == 0
    assert g.holder == "Альфа" and Lamp("A", "on") in fx
    assert g.logs("undo")[0]["ruling"] == {"team": "Альфа", "result": "right", "delta": 10}
    g.host("wrong", 5.0)  # the host meant "wrong"
    assert g.scores["Альфа"] == -10
    g.host("undo", 6.0)
    g.host("undo", 6.5)  # nothing more to undo
    assert g.notices()[-1] == "nothing_to_undo"
    assert g.scores["Альфа"] == 0


# =========================================================================
# §4.10  placement: total, then points won by right answers

def _standings(g):
    return [(r["place"], r["team"]) for r in erudite.standings(g.state)]


def test_placement_by_total_even_when_all_are_negative():
    g = Table(n=3)
    g.host("question", 1.0)
    for k, b in enumerate("ABC"):
        g.press(b, 2 + k)
        g.run_to(2.1 + k)
        g.host("wrong", 2.5 + k)          # −10 each
    g.host("question", 10.0)
    g.press("B", 10.5)
    g.run_to(10.6)
    g.host("wrong", 11.0)                 # Бета −30
    g.press("C", 11.5)
    g.run_to(11.6)
    g.host("wrong", 12.0)                 # Гамма −30
    g.host("reading_done", 12.5)
    g.run_to(19.6)                        # Альфа lets the time run out
    g.host("question", 20.0)
    g.press("C", 20.5)
    g.run_to(20.6)
    g.host("wrong", 21.0)                 # Гамма −60
    assert flat(g.scores) == [-10, -30, -60]
    assert _standings(g) == [(1, "Альфа"), (2, "Бета"), (3, "Гамма")]


def test_placement_equal_total_then_won_points():
    g = Table(n=3)
    # Альфа: +10 +20 −20 ... total 10 with 30 won; Бета: +10 total 10 with 10 won
    g.host("question", 1.0)
    g.press("B", 1.5)
    g.run_to(1.6)
    g.host("right", 2.0)                  # Бета +10
    g.host("question", 3.0)
    g.press("A", 3.5)
    g.run_to(3.6)
    g.host("right", 4.0)                  # Альфа +20
    g.host("question", 5.0, nominal=10)   # a replacement-sized question
    g.press("A", 5.5)
    g.run_to(5.6)
    g.host("wrong", 6.0)                  # Альфа −10
    assert flat(g.scores) == [10, 10, 0]
    st_ = erudite.standings(g.state)
    assert [(r["place"], r["team"], r["won_points"]) for r in st_] == [
        (1, "Альфа", 20), (2, "Бета", 10), (3, "Гамма", 0)]


# =========================================================================
# §4.11  tie-break fight

def _tied_ab():
    """Альфа and Бета tied on total and won points; Гамма behind."""
    g = Table(n=3)
    for k, b in enumerate("AB"):
        g.host("question", 1.0 + 2 * k, nominal=20)
        g.press(b, 1.5 + 2 * k)
        g.run_to(1.6 + 2 * k)
        g.host("right", 2.0 + 2 * k)
    assert _standings(g) == [(1, "Альфа"), (1, "Бета"), (3, "Гамма")]
    return g


def test_tiebreak_fight_orders_the_tied_teams():
    g = _tied_ab()
    g.host("end_game", 9.0)
    g.host("tiebreak", 10.0)
    assert g.logs("tiebreak") == [{"teams": ["Альфа", "Бета"]}]
    assert g.view()["tiebreak"] is True
    assert g.team("Гамма")["disabled"] == "not_in_tiebreak"
    t = 11.0
    for k in range(5):
        g.host("question", t)
        if k == 0:
            g.press("C", t + 0.2)         # not in the tie-break: ignored
            g.press("B", t + 0.3)
            g.run_to(t + 0.4)
            assert g.holder == "Бета"
            g.host("right", t + 0.5)
        else:
            g.host("reading_done", t + 0.1)
            g.run_to(t + 7.2)
        t += 10
    assert ("C", "disabled") in g.press_kinds()
    assert [q["nominal"] for q in g.questions() if q["tiebreak"]] == [10, 20, 30, 40, 50]
    assert g.state.stage == "finished"
    assert g.scores == {"Альфа": 20, "Бета": 20, "Гамма": 0}  # main totals unchanged
    assert _standings(g) == [(1, "Бета"), (2, "Альфа"), (3, "Гамма")]


def test_tiebreak_still_tied_is_a_shared_place():
    g = _tied_ab()
    g.host("tiebreak", 10.0)
    t = 11.0
    for _ in range(5):
        g.host("question", t)
        g.host("reading_done", t + 0.1)
        g.run_to(t + 7.2)
        t += 10
    assert g.state.stage == "finished"
    assert _standings(g) == [(1, "Альфа"), (1, "Бета"), (3, "Гамма")]


def test_tiebreak_without_a_tie_is_refused():
    g = Table(n=2)
    g.host("question", 1.0)
    g.press("A", 1.5)
    g.run_to(1.6)
    g.host("right", 2.0)
    g.host("tiebreak", 3.0)
    assert g.notices()[-1] == "no_tie"
    assert g.state.stage == "play"


# =========================================================================
# §4.13  disqualification

def test_disqualification_until_end_of_fight_then_of_tournament():
    g = Table()
    g.host("disqualify", 0.5, team="Бета")
    assert g.logs("disqualify")[-1]["until"] == "fight"
    g.host("question", 1.0)
    g.press("B", 1.5)
    g.press("C", 1.6)
    g.run_to(1.7)
    assert ("B", "disabled") in g.press_kinds()
    assert g.holder == "Гамма"
    g.host("right", 2.0)
    g.host("next_fight", 3.0)
    # fight 2: Бета plays again
    g.host("question", 4.0)
    g.press("B", 4.5)
    g.run_to(4.6)
    assert g.holder == "Бета"
    g.host("right", 5.0)
    g.host("disqualify", 6.0, team="Бета")
    assert g.logs("disqualify")[-1]["until"] == "tournament"
    g.host("next_fight", 7.0)
    g.host("question", 8.0)
    assert g.view()["fight"] == 3
    assert g.team("Бета")["disabled"] == "disqualified"
    g.press("B", 8.5)
    g.run_to(8.6)
    assert g.holder is None


def test_disqualifying_the_answering_team_rearms_the_others():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 1.5)
    g.run_to(1.6)
    g.host("disqualify", 2.0, team="A")
    assert g.holder is None
    g.press("D", 2.5)
    g.run_to(2.6)
    assert g.holder == "Дельта"
    assert g.scores["Альфа"] == 0


def test_disqualifying_the_answering_team_gives_the_others_their_countdown():
    g = Table()
    g.host("question", 1.0)
    g.host("reading_done", 2.0)
    g.press("A", 3.0)
    g.run_to(3.1)
    g.host("disqualify", 4.0, team="Альфа")  # as after a wrong answer: 7 s again
    assert g.view()["countdown"]["running"] is True
    assert Flash("time_up") not in g.run_to(10.99)
    assert Flash("time_up") in g.run_to(11.01)
    assert g.scores == dict.fromkeys(NAMES, 0)


def test_disqualified_inside_the_settle_window_does_not_take_the_answer():
    g = Table()  # settle 2 ms
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.press("B", 2.001)
    g.host("disqualify", 2.0015, team="Альфа")  # before the arbiter names Альфа
    g.run_to(2.1)
    assert g.holder == "Бета"
    assert erudite.summary(g.state)["questions"][0]["presses"][0]["kind"] == "disabled"
    # alone in the window: nobody holds the answer and the others may still press
    g.host("wrong", 3.0)
    g.press("C", 4.0)
    g.host("disqualify", 4.001, team="Гамма")
    g.run_to(4.1)
    assert g.holder is None
    g.press("D", 5.0)
    g.run_to(5.1)
    assert g.holder == "Дельта"


def test_disqualification_in_the_tiebreak_fight_disables_the_button():
    g = _tied_ab()
    g.host("tiebreak", 10.0)
    g.host("question", 11.0)
    g.host("disqualify", 11.5, team="Бета")  # until the end of this (extra) fight
    assert g.team("Бета")["disabled"] == "disqualified"
    g.press("B", 12.0)
    g.run_to(12.1)
    assert g.holder is None
    assert ("B", "disabled") in g.press_kinds()


def test_disqualification_that_closes_the_last_question_ends_the_game():
    g = Table(n=2, settings={"erudite": {"fights": 1, "rounds_per_fight": 1}})
    for k in range(4):
        g.host("question", 10.0 * k + 1)
        g.host("reading_done", 10.0 * k + 1.5)
        g.run_to(10.0 * k + 9)
    g.host("question", 50.0)
    g.press("A", 51.0)
    g.run_to(51.1)
    g.host("wrong", 52.0)
    g.host("disqualify", 53.0, team="Бета")  # nobody left to answer the last question
    assert g.questions()[-1]["closed"] == "exhausted"
    assert g.state.stage == "finished"
    assert g.logs("game_over")


def test_undo_of_a_ruling_keeps_a_later_disqualification():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    g.host("wrong", 3.0)
    g.host("disqualify", 4.0, team="Гамма")   # misconduct, then the host corrects the ruling
    g.host("undo", 5.0)
    assert g.holder == "Альфа" and g.scores["Альфа"] == 0
    assert g.team("Гамма")["disabled"] == "disqualified"
    g.host("wrong", 6.0)
    g.press("C", 6.5)
    g.run_to(6.6)
    assert g.holder is None


def test_undo_does_not_give_the_answer_back_to_a_disqualified_team():
    g = Table()
    g.host("question", 1.0)
    g.press("A", 2.0)
    g.run_to(2.1)
    g.host("wrong", 3.0)
    g.host("disqualify", 4.0, team="Альфа")
    g.host("undo", 5.0)                      # the wrong ruling is taken back ...
    assert g.scores["Альфа"] == 0
    assert g.holder is None                  # ... but Альфа may not answer
    g.press("B", 5.5)
    g.run_to(5.6)
    assert g.holder == "Бета"


# =========================================================================
# pause / resume

def test_a_second_end_of_reading_mark_during_a_pause_does_not_restart_the_seven_seconds():
    g = Table(n=2)
    g.host("question", 1.0)
    g.host("reading_done", 2.0)
    g.host("pause", 6.0)                      # 3 s left
    g.host("reading_done", 7.0)               # the key pressed again by mistake
    assert g.notices()[-1] == "countdown_running"
    g.host("resume", 10.0)
    assert Flash("time_up") in g.run_to(13.01)

def test_pause_freezes_the_countdown():
    g = Table()
    g.host("question", 1.0)
    g.host("reading_done", 2.0)          # to 9
    g.host("pause", 4.0)                  # 5 s left
    assert g.view()["paused"] is True
    assert Flash("time_up") not in g.run_to(60.0)
    assert g.view()["countdown"]["remaining_ms"] == 5000
    g.host("resume", 60.0)
    assert Flash("time_up") not in g.run_to(64.99)
    assert Flash("time_up") in g.run_to(65.01)


def test_pause_freezes_the_captain_timer():
    g = Table()
    g.host("captain", 0.0)
    g.host("pause", 10.0)
    assert Flash("captain_time_up") not in g.run_to(100.0)
    g.host("pause", 100.0)  # the same key resumes
    assert Flash("captain_time_up") not in g.run_to(149.99)
    assert Flash("captain_time_up") in g.run_to(150.01)


# =========================================================================
# stuck button

def test_button_held_at_arming_is_reported_and_ignored_until_released():
    g = Table()
    g.press("A", 0.5, hold=True)          # held down before the question
    fx = g.host("question", 1.0)
    assert Notice("button_stuck", {"button": "A", "team": "Альфа"}) in fx
    assert g.team("Альфа")["stuck"] is True
    g.press("A", 1.5, hold=True)          # a stray edge while stuck
    g.run_to(1.6)
    assert ("A", "stuck") in g.press_kinds()
    assert g.holder is None
    g.release("A", 2.0)
    assert g.team("Альфа")["stuck"] is False
    g.press("A", 2.5)
    g.run_to(2.6)
    assert g.holder == "Альфа"


# =========================================================================
# ticks carry no information: replay without ticks + one final tick = same state

BUTTON = st.sampled_from(list(BUTTONS) + ["A", "B"])
OPS = st.one_of(
    st.tuples(st.just("press"), BUTTON, st.integers(0, 3_000), st.booleans()),   # edge µs before delivery
    st.tuples(st.just("release"), BUTTON),
    st.tuples(st.just("host"), st.sampled_from(
        ["question", "question", "reading_done", "reading_done", "right", "wrong", "wrong", "withdraw",
         "undo", "pause", "pause", "resume", "captain", "next_round", "next_fight", "end_game", "tiebreak"])),
    st.tuples(st.just("host"), st.sampled_from(["disqualify", "reinstate", "skip_round"]), BUTTON),
)


def _events(ops_gaps):
    t = 0
    out = []
    for op, gap_ms in ops_gaps:
        t += gap_ms * NS_PER_MS
        if op[0] == "press":
            out.append(Press(op[1], max(t - op[2] * 1000, 0), t))
            if not op[3]:
                out.append(Release(op[1], t + 1, t + 1))
        elif op[0] == "release":
            out.append(Release(op[1], t, t))
        elif len(op) == 3:
            out.append(Host(op[1], t, {"team": op[2]}))
        else:
            out.append(Host(op[1], t, {}))
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=st.lists(st.tuples(OPS, st.sampled_from([0, 1, 2, 3, 5, 100, 1500, 4000, 8000])), max_size=40),
       extra=st.lists(st.integers(0, 60_000), max_size=10),
       after_wrong=st.sampled_from(["restart", "resume"]))
def test_replay_without_ticks_gives_the_same_state(ops, extra, after_wrong):
    cfg = make_config(settings={"erudite.after_wrong": after_wrong, "erudite.early_block_s": 0.5,
                                "erudite.warn_at_s": [3]})
    events = _events(ops)
    end = (events[-1].now if events else 0) + 90 * 10 ** 9
    extra_ticks = sorted(x * NS_PER_MS for x in extra)

    plain = erudite.initial(cfg, 5)
    for ev in events:
        plain, _ = erudite.step(plain, ev)
    plain, _ = erudite.step(plain, Tick(end))

    ticked = erudite.initial(cfg, 5)
    for ev in events + [Tick(end)]:
        # the shell ticks at every wakeup, plus at arbitrary moments
        while True:
            due = erudite.wakeup(ticked)
            spare = extra_ticks[0] if extra_ticks else None
            nxt = min(x for x in (due, spare) if x is not None) if (due, spare) != (None, None) else None
            if nxt is None or nxt > ev.now:
                break
            if spare is not None and nxt == spare:
                extra_ticks.pop(0)
            ticked, _ = erudite.step(ticked, Tick(max(nxt, ticked.now)))
        ticked, _ = erudite.step(ticked, ev)
    assert ticked == plain
