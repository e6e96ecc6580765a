"""Withdrawing a question [§4.9] in every mode that has a withdraw: whatever happened in
the question (presses, rulings, undos, the clock running out), withdrawing it leaves
every team's points and points won by right answers [§4.10] -- and so the standings --
exactly as they were before the question was announced."""

from __future__ import annotations

import json

from harness import Played
from hypothesis import HealthCheck, given, settings, strategies as st

from controller.sessions import script
from controller.games import engine
from controller.cli import main
from controller.screens.scoreboard import Scoreboard
from controller.screens.common import question_head
from controller.screens.terminal import status_line
from controller.core.events import NS_PER_MS

MODES = {
    # mode: (config data, buttons, host actions a question's history may contain)
    "erudite": ({"teams": [{"name": n, "button": b}
                           for n, b in zip(["Альфа", "Бета", "Гамма", "Дельта"], "ABCD")],
                 "erudite": {"early_block_s": 0.5}},
                "ABCD", ["reading_done", "right", "wrong", "wrong", "undo", "pause"]),
    "own-game": ({"teams": [{"name": f"P{i}", "button": f"B{i}"} for i in (1, 2, 3)],
                  "own_game": {"answer_time_s": 1.0}},
                 ["B1", "B2", "B3"], ["reading_done", "reading_done", "right", "wrong", "wrong", "undo", "pause"]),
    "brain-ring": ({"teams": [{"name": f"T{i}", "button": f"B{i}"} for i in (1, 2, 3)],
                    "brain_ring": {"start_delay": True, "after_wrong": "max", "fight_points": 2}},
                   ["B1", "B2", "B3"], ["start_clock", "start_clock", "right", "wrong", "wrong", "pause"]),
    # a programme hands withdraw to its round's mode; its totals must follow
    "programme": ({"teams": [{"name": n, "button": b} for n, b in zip(["Альфа", "Бета", "Гамма"], "ABC")],
                   "programme": {"rounds": [{"mode": "erudite", "title": "Эрудит-квартет"},
                                            {"mode": "own-game", "title": "Своя игра"}]}},
                  "ABC", ["reading_done", "right", "wrong", "wrong", "undo", "pause"]),
}


GAP_MS = st.sampled_from([0, 1, 3, 300, 1_500, 4_000, 8_000])   # inside a settle window ... past a countdown


def _history(mode: str, extra: tuple[str, ...] = ()):
    """One question's history after its announcement: presses (edge up to 3 ms before
    delivery) and the host's actions, each after a gap."""
    _data, buttons, actions = MODES[mode]
    what = st.sampled_from(list(buttons) * 2 + actions + list(extra))
    return st.lists(st.tuples(what, GAP_MS, st.integers(0, 3)), max_size=14)


def _questions(mode: str, extra: tuple[str, ...] = ()):
    """Several questions: each a history and whether the host withdraws it at the end."""
    return st.lists(st.tuples(_history(mode, extra), st.booleans()), max_size=5)


class Game(Played):
    """One mode's game, question by question, each event a gap (ms) after the one before;
    a Tick at every wakeup before each event, as the loop sends them.  A press's release
    follows it at once."""

    unit = NS_PER_MS
    tap = 1
    wakeups = True

    def __init__(self, mode: str):
        self.mode = mode
        self.buttons = MODES[mode][1]
        super().__init__({"mode": mode, **MODES[mode][0]}, 3)

    def act(self, action, gap_ms=1):
        """The host's ``action``, ``gap_ms`` after the last event."""
        return self.host(action, self.now + gap_ms)

    def play(self, history):
        for op, gap_ms, offset_ms in history:
            if op in self.buttons:
                t = self.now + gap_ms
                self.press(op, t - offset_ms, delivered=t)
            else:
                self.act(op, gap_ms)

    def close(self):
        """Bring the open question to an end the plain way (a right answer or the clock)."""
        for _ in range(20):
            view = self.view()
            if view["stage"] == "fight_over":
                self.act("next_fight")
            q = view["question"]
            if q is None or not q["open"]:
                return
            if view["paused"]:
                self.act("resume")
            elif self.holder() is not None:
                self.act("right")
            else:
                self.act("start_clock" if self.mode == "brain-ring" else "reading_done")
                self.tick(self.now + 100_000)
        raise AssertionError("the question does not close")

    def question(self, history, withdraw=False):
        """Announce a question (closing the one before), play its history, maybe withdraw it."""
        self.close()
        assert self.logs("question", self.act("question"))
        self.play(history)
        if withdraw:
            self.act("withdraw")

    def points(self) -> dict:
        """Everything the summary says about points and placement (not the question list)."""
        out = self.summary()
        for part in [out, *out.get("rounds", ())]:      # a programme: every round's own summary
            part.pop("questions")
        return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), mode=st.sampled_from(sorted(MODES)))
def test_withdrawing_a_question_restores_points_and_won_points(data, mode):
    g = Game(mode)
    for history, withdraw in data.draw(_questions(mode)):       # a game so far
        g.question(history, withdraw)
    g.close()
    before = g.points()
    g.question(data.draw(_history(mode)))                        # anything may happen in it ...
    g.act("withdraw", data.draw(GAP_MS))                        # ... and then it is withdrawn
    assert g.points() == before


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), mode=st.sampled_from(["erudite", "own-game"]))
def test_points_and_won_points_add_up_from_the_rulings_that_stand(data, mode):
    """With undos and withdraws anywhere: a team's points are the deltas of its rulings
    in the questions not withdrawn, its won points the right ones among them."""
    g = Game(mode)
    for history, withdraw in data.draw(_questions(mode, extra=("undo", "withdraw"))):
        g.question(history, withdraw)
    out = g.summary()
    standing = [a for q in out["questions"] if not q["withdrawn"] for a in q["answers"]]
    for team in out["scores"]:
        assert out["scores"][team] == sum(a["delta"] for a in standing if a["team"] == team)
        assert out["won_points"][team] == sum(a["delta"] for a in standing
                                              if a["team"] == team and a["result"] == "right")


def _simulate(tmp_path, capsys, lines) -> dict:
    setup = {"setup": {"mode": "erudite", "seed": 7,
                       "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]}}
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in [setup, *lines]), encoding="utf-8")
    assert main(["simulate", str(path)]) == 0
    return json.loads(capsys.readouterr().out)


def test_withdrawn_wrong_and_right_answers_leave_no_won_points(tmp_path, capsys):
    out = _simulate(tmp_path, capsys, [
        {"at": 1.0, "host": "question"},
        {"at": 1.5, "press": "A"}, {"at": 2.0, "host": "wrong"},
        {"at": 2.5, "press": "B"}, {"at": 3.0, "host": "right"},
        {"at": 4.0, "host": "withdraw"},
    ])
    assert out["scores"] == {"Альфа": 0, "Бета": 0}
    assert out["won_points"] == {"Альфа": 0, "Бета": 0}


def test_a_withdrawn_question_does_not_decide_the_places_of_teams_equal_on_points(tmp_path, capsys):
    out = _simulate(tmp_path, capsys, [
        {"at": 1.0, "host": "question"},                                      # 10
        {"at": 1.5, "press": "A"}, {"at": 2.0, "host": "right"},              # Альфа 10, won 10
        {"at": 3.0, "host": "question"},                                      # 20
        {"at": 3.5, "press": "B"}, {"at": 4.0, "host": "wrong"},              # Бета −20
        {"at": 4.1, "host": "reading_done"},                                  # time runs out at 11.1
        {"at": 12.0, "host": "question"},                                     # 30
        {"at": 12.5, "press": "B"}, {"at": 13.0, "host": "right"},            # Бета 10, won 30
        {"at": 14.0, "host": "question"},                                     # 40
        {"at": 14.5, "press": "A"}, {"at": 15.0, "host": "wrong"},
        {"at": 15.5, "press": "B"}, {"at": 16.0, "host": "right"},
        {"at": 17.0, "host": "withdraw"},                                     # both rulings undone
        {"at": 18.0, "host": "end_game"},
    ])
    assert out["scores"] == {"Альфа": 10, "Бета": 10}
    assert out["won_points"] == {"Альфа": 10, "Бета": 30}
    assert [(r["place"], r["team"], r["won_points"]) for r in out["standings"]] == [(1, "Бета", 30),
                                                                                    (2, "Альфа", 10)]


# ---------------------------------------------------------------------------
# numbering: a replacement takes the withdrawn question's place [§4.9], and the
# screen, the terminal and simulate name it alike

def _script(tmp_path, setup, lines):
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in [{"setup": setup}, *lines]),
                    encoding="utf-8")
    return script.run(script.load(path))


ERUDITE_SETUP = {"mode": "erudite", "seed": 7,
                 "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]}
ERUDITE_WITHDRAW = [
    {"at": 1.0, "host": "question"},                                          # 1/5, 10
    {"at": 1.5, "press": "A"}, {"at": 2.0, "host": "right"},
    {"at": 3.0, "host": "question"},                                          # 2/5, 20
    {"at": 3.5, "press": "A"}, {"at": 4.0, "host": "wrong"},
    {"at": 4.5, "press": "B"}, {"at": 5.0, "host": "right"},
    {"at": 6.0, "host": "withdraw"},
]


def test_a_replacement_question_keeps_the_withdrawn_questions_number(tmp_path):
    setup = ERUDITE_SETUP
    withdrawn = engine.view(_script(tmp_path, setup, ERUDITE_WITHDRAW).state)["question"]
    assert (withdrawn["number"], withdrawn["index"], withdrawn["closed"]) == (2, 2, "withdrawn")
    assert "Вопрос 2/5" in status_line(engine.view(_script(tmp_path, setup, ERUDITE_WITHDRAW).state))

    run = _script(tmp_path, setup, ERUDITE_WITHDRAW + [{"at": 7.0, "host": "question"}])
    view = engine.view(run.state)
    q = view["question"]
    assert (q["number"], q["index"], q["of"], q["nominal"]) == (2, 2, 5, 20)
    assert question_head(q, "ru") == "Вопрос 2/5"               # the screen's question card
    assert "Вопрос 2/5" in status_line(view)                    # the terminal
    out = script.result(run)
    assert [(x["number"], x["withdrawn"]) for x in out["questions"]] == [(1, False), (2, True), (2, False)]
    assert [e["number"] for e in out["events"] if e["kind"] == "question"] == [1, 2, 2]

    run = _script(tmp_path, setup, ERUDITE_WITHDRAW + [{"at": 7.0, "host": "question"},
                                                       {"at": 7.5, "press": "B"}, {"at": 8.0, "host": "right"},
                                                       {"at": 9.0, "host": "question"}])
    q = engine.view(run.state)["question"]
    assert (q["number"], q["index"], q["nominal"]) == (3, 3, 30)
    assert "Вопрос 3/5" in status_line(engine.view(run.state))


def test_a_withdrawn_last_question_of_a_round_does_not_bring_up_the_standings(tmp_path):
    setup = ERUDITE_SETUP
    lines = []
    for k in range(5):
        lines += [{"at": 10.0 * k + 1, "host": "question"}, {"at": 10.0 * k + 2, "press": "A"},
                  {"at": 10.0 * k + 3, "host": "right"}]
    assert Scoreboard._show_table(engine.view(_script(tmp_path, setup, lines).state))
    view = engine.view(_script(tmp_path, setup, lines + [{"at": 50.0, "host": "withdraw"}]).state)
    assert view["question"]["index"] == 5 and not Scoreboard._show_table(view)   # its replacement comes next


def test_own_game_and_brain_ring_replacements_keep_the_number(tmp_path):
    players = [{"name": "P1", "button": "B1"}, {"name": "P2", "button": "B2"}]
    own = script.result(_script(tmp_path, {"mode": "own-game", "teams": players}, [
        {"at": 1.0, "host": "question"}, {"at": 2.0, "host": "withdraw"},
        {"at": 3.0, "host": "question"}, {"at": 4.0, "host": "end_game"}]))
    ring = script.result(_script(tmp_path, {"mode": "brain-ring", "teams": players}, [
        {"at": 1.0, "host": "question"}, {"at": 2.0, "host": "withdraw"},
        {"at": 3.0, "host": "question"}]))
    for out in (own, ring):
        assert [(x["number"], x["withdrawn"]) for x in out["questions"]] == [(1, True), (1, False)]
