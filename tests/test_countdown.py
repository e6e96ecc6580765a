"""Countdowns are deadlines on the engine clock: irregular ticks cannot make them drift."""

import random

from controller.app import config
from controller.core import countdown as cdn
from controller.games import engine
from controller.core.effects import Flash, Sound
from controller.core.events import Host, Tick

S = 1_000_000_000


def test_remaining_is_deadline_minus_now_whatever_the_ticks():
    cd = cdn.start("think", 60 * S, now=5 * S)
    assert cdn.remaining(cd, 5 * S) == 60 * S
    assert cdn.remaining(cd, 35 * S + 123) == 30 * S - 123
    assert cdn.remaining(cd, 70 * S) == 0


def test_pause_keeps_what_was_left_and_resume_sets_a_new_deadline():
    cd = cdn.pause(cdn.start("think", 7 * S, now=0), now=3 * S)
    assert cdn.remaining(cd, 100 * S) == 4 * S
    cd = cdn.resume(cd, now=50 * S)
    assert cd.deadline == 54 * S


def test_sixty_second_countdown_with_irregular_ticks_ends_exactly_on_time():
    cfg = config.build({"erudite": {"think_time_s": 60.0}})
    rng = random.Random(4)
    s = engine.new_game(cfg, 1)
    s, _ = engine.step(s, Host("question", 1 * S))
    s, _ = engine.step(s, Host("reading_done", 2 * S))
    now = 2 * S
    fired_at = None
    while fired_at is None:
        now += rng.randint(1_000_000, 900_000_000)  # 1 ms .. 0.9 s between ticks
        s, fx = engine.step(s, Tick(now))
        if any(isinstance(f, Sound) and f.name == "time_up" for f in fx):
            fired_at = [f for f in fx if type(f).__name__ == "Log" and f.kind == "time_up"][0].at
    settle = int(cfg["arbiter"]["settle_ms"] * 1_000_000)
    # the expiry is stamped with the deadline itself (+ the settle window), not the tick that found it
    assert fired_at == 2 * S + 60 * S + settle
    assert engine.summary(s)["questions"][0]["closed"] == "time"


def test_warnings_fire_once_each_at_their_marks_even_if_one_tick_jumps_over_several():
    cfg = config.build({"erudite": {"think_time_s": 10.0, "warn_at_s": [5, 3, 2, 1]}})
    s = engine.new_game(cfg, 1)
    s, _ = engine.step(s, Host("question", 0))
    s, _ = engine.step(s, Host("reading_done", 0))
    s, fx = engine.step(s, Tick(int(8.5 * S)))   # passes the 5, 3 and 2 s marks at once
    assert [f.name for f in fx if isinstance(f, Sound)] == ["warning"] * 3
    s, fx = engine.step(s, Tick(int(9.5 * S)))
    assert [f.name for f in fx if isinstance(f, Sound)] == ["warning"]
    s, fx = engine.step(s, Tick(11 * S))
    assert [f.name for f in fx if isinstance(f, Sound)] == ["time_up"]
    assert any(isinstance(f, Flash) and f.kind == "time_up" for f in fx)
