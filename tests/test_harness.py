"""tests/harness.py, the one harness every game's tests drive the engine with: it must
deliver events as the shell does, or the game tests prove nothing about a real game."""

import json

import pytest

from controller import games
from controller.games import engine
from controller.core.events import NS_PER_MS, Release, Tick
from harness import Played

ERUDITE = {"mode": "erudite", "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]}
OWN_GAME = {"mode": "own-game", "teams": [{"name": "P1", "button": "B1"}, {"name": "P2", "button": "B2"}],
            "own_game": {"answer_time_s": 2.0}}
BRAIN_RING = {"mode": "brain-ring", "teams": [{"name": "T1", "button": "B1"}, {"name": "T2", "button": "B2"}]}


def test_a_tap_is_released_before_any_later_event_and_a_hold_only_when_released(played):
    g = played(ERUDITE)
    g.host("question", 1.0)
    g.press("A", 1.5)
    g.tick(1.52)                                   # 20 ms on: the finger is still down
    assert g.state.held == {"A"}
    g.tick(1.56)                                   # the tap's release (50 ms) went first
    assert g.state.held == set()
    g.press(2, 2.0, hold=True)                     # team 2's button, held
    g.tick(5.0)
    assert g.state.held == {"B"}
    g.release(2, 5.1)
    assert g.state.held == set()


def test_a_late_delivery_holds_the_release_back_until_then(played):
    g = played(ERUDITE)
    g.host("question", 1.0)
    g.press("A", 1.5, delivered=1.6)               # the edge at 1.5 reached the loop at 1.6
    assert g.now == 1.6
    g.tick(1.59)
    assert g.state.held == {"A"}
    g.tick(1.61)
    assert g.state.held == set()


class Recorded(Played):
    """Played, keeping every event it hands the engine."""

    def step(self, event):
        self.sent = [*getattr(self, "sent", []), event]
        return super().step(event)


def test_tick_is_one_tick_and_run_to_ticks_at_every_wakeup_then_at_the_time():
    g = Recorded(BRAIN_RING)
    g.host("question", 1)
    g.host("start_clock", 2)                       # the 60 s clock: a warning, then its end
    g.press(1, 2.5)
    g.sent.clear()
    g.tick(2.6)
    assert g.sent == [Release("B1", g.ns(2.55), g.ns(2.55)), Tick(g.ns(2.6))]   # the tap's release first
    assert g.holder() == "T1"
    g.host("wrong", 3)                             # the clock runs on for T2
    g.sent.clear()
    expected, probe = [], Recorded(BRAIN_RING)     # the wakeups, asked one by one
    probe.state = g.state
    while (due := engine.wakeup(probe.state)) is not None and due <= g.ns(70):
        expected.append(Tick(due))
        probe.step(Tick(due))
    assert len(expected) >= 2
    fx = g.run_to(70)
    assert g.sent == expected + [Tick(g.ns(70))]
    assert g.sounds(fx) == probe.sounds() and "time_up" in g.sounds(fx) and g.now == 70
    assert engine.wakeup(g.state) is None or engine.wakeup(g.state) > g.ns(70)


def test_events_reach_the_engine_in_delivery_order():
    g = Recorded(ERUDITE)
    g.host("question", 1.0)
    g.press("A", 1.5, delivered=1.501)
    g.press("B", 1.49, delivered=1.502)            # earlier edge, later delivery: sent second
    g.host("right", 2.0)                           # B's release (1.54) before A's (1.55), then this
    assert [type(e).__name__ + getattr(e, "button", "") for e in g.sent] == [
        "Host", "PressA", "PressB", "ReleaseB", "ReleaseA", "Host"]
    assert [e.now for e in g.sent] == sorted(e.now for e in g.sent)


def test_the_time_unit_changes_nothing_but_the_numbers_a_test_writes(played):
    def game(g, k):
        g.host("question", 1 * k, nominal=200)
        g.host("reading_done", 2 * k)
        g.press(2, 2.4 * k)
        g.run_to(2.5 * k)
        g.host("right", 3 * k)
        return g
    in_s = game(played(OWN_GAME), 1)
    in_ms = game(played(OWN_GAME, unit=NS_PER_MS), 1000)
    assert in_s.summary() == in_ms.summary() and in_s.score(2) == in_ms.score("P2") == 200
    assert in_s.effects == in_ms.effects


def test_wakeups_sends_the_loops_ticks_before_each_event_and_ends_in_the_same_state(played):
    plain, ticked = played(OWN_GAME), played(OWN_GAME, wakeups=True)
    for g in (plain, ticked):
        g.host("question", 1, nominal=100)
        g.host("reading_done", 2)
        g.press(1, 2.5)
        g.host("wrong", 9)                         # after the answer time ran out
    assert ticked.logs("answer_time_up") == [{"team": "P1"}]
    assert plain.logs("answer_time_up") == [{"team": "P1"}]   # fired by the host's event instead
    assert ticked.entries("answer_time_up")[0].at == plain.entries("answer_time_up")[0].at
    plain.run_to(20)
    ticked.run_to(20)
    assert plain.summary() == ticked.summary()


@pytest.mark.parametrize("mode", sorted(games.GAMES))
def test_every_game_plays_through_the_harness(played, mode):
    data = {"mode": mode}
    if mode == "programme":                        # a programme needs its rounds
        data["programme"] = {"rounds": [{"mode": "own-game"}, {"mode": "chgk"}]}
    g = played(data)
    g.run_to(1)
    json.dumps(g.view())                           # the view a screen draws is plain JSON
    json.dumps(g.summary())
