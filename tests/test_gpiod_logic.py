"""The gpiod path's pure parts on the host: the tie resolution of the stamps (arbiter, games,
journal, scripts), the pin names and the config keys.  The backend itself, on a real kernel
with a real GPIO chip, is tested in the guest (tests/kernel/guest_tests/test_gpiod.py)."""

from __future__ import annotations

import json

import pytest

from controller.app import config
from controller.sessions import journal, script
from controller.core import arbiter as arb
from controller.core.effects import Notice
from controller.core.errors import ConfigError
from controller.core.events import NS_PER_MS, NS_PER_US, Host, Press, Tick
from controller.games import erudite

MS, US = NS_PER_MS, NS_PER_US


def sp(button, at, delivered, tie=5 * US):
    """A press as the gpiod backend stamps it: an ordered stream, settle window 2 ms, 5 µs ties."""
    return Press(button, at, delivered, 2 * MS, stream=True, tie=tie)


def test_stamps_closer_than_the_resolution_are_a_tie_broken_by_the_rule():
    # B's stamp 3 µs after A's: inside 5 µs, a tie; the order rule names the listed first
    presses = [sp("A", 1000 * MS + 3 * US, 1001 * MS), sp("B", 1000 * MS, 1001 * MS)]
    ordered = arb.order(presses, "order", 1, "1/0", "AB")
    assert [p.button for p in ordered] == ["A", "B"] and arb.is_tie(ordered)
    ordered = arb.order(presses, "order", 1, "1/0", "BA")
    assert [p.button for p in ordered] == ["B", "A"] and arb.is_tie(ordered)
    # 10 µs apart: no tie, the earlier stamp wins under either rule
    apart = [sp("A", 1000 * MS + 10 * US, 1001 * MS), sp("B", 1000 * MS, 1001 * MS)]
    for rule in ("order", "random"):
        ordered = arb.order(apart, rule, 1, "1/0", "AB")
        assert [p.button for p in ordered] == ["B", "A"] and not arb.is_tie(ordered)


def test_a_tie_within_the_resolution_is_a_replayable_draw_that_both_teams_win():
    wins = {"A": 0, "B": 0}
    for q in range(200):
        presses = [sp("A", 1000 * MS + 2 * US, 1001 * MS), sp("B", 1000 * MS, 1001 * MS)]
        first = arb.order(presses, "random", 7, f"{q}/0", "AB")[0].button
        assert arb.order(presses[::-1], "random", 7, f"{q}/0", "AB")[0].button == first
        wins[first] += 1
    assert min(wins.values()) > 50


def test_presses_after_the_tied_group_follow_in_edge_order():
    presses = [sp("C", 100 * US, 1 * MS), sp("A", 4 * US, 1 * MS), sp("B", 0, 1 * MS), sp("D", 50 * US, 1 * MS)]
    ordered = arb.order(presses, "order", 1, "x", "ABCD")
    assert [p.button for p in ordered] == ["A", "B", "D", "C"]


def test_a_stream_decides_at_the_first_press_beyond_the_resolution_not_at_a_tied_one():
    a = arb.offer(arb.Arbiter(), sp("A", 1000 * MS, 1000 * MS + 200 * US))
    assert a.decide_at(2 * MS) == 1002 * MS + 200 * US          # alone: waits the settle window
    tied = arb.offer(a, sp("B", 1000 * MS + 3 * US, 1000 * MS + 300 * US))
    assert tied.decide_at(2 * MS) == 1002 * MS + 200 * US       # a tied press decides nothing
    later = arb.offer(a, sp("B", 1000 * MS + 10 * US, 1000 * MS + 300 * US))
    assert later.decide_at(2 * MS) == 1000 * MS + 300 * US      # a later one: at once


def test_the_tie_is_told_to_the_host_and_logged_as_one():
    cfg = config.build({"teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]})
    cfg = config.build({"arbiter.tie_rule": "order"}, base=cfg)
    s = erudite.initial(cfg, 1)
    fx_all = []
    for ev in (Host("question", 1 * 10**9), Host("reading_done", 2 * 10**9),
               sp("B", 3 * 10**9 + 4 * US, 3 * 10**9 + 1 * MS), sp("A", 3 * 10**9, 3 * 10**9 + 1 * MS),
               Tick(4 * 10**9)):
        s, fx = erudite.step(s, ev)
        fx_all += fx
    notices = [f for f in fx_all if isinstance(f, Notice) and f.key.startswith("race_tie")]
    assert notices == [Notice("race_tie_order", {"teams": "Альфа, Бета", "us": "4.0", "winner": "Альфа"})]
    ruling = [f for f in fx_all if getattr(f, "kind", "") == "answer_right"]
    assert ruling[0].data["tie"] is True


def test_a_race_without_a_tie_tells_the_host_nothing():
    cfg = config.build({"teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]})
    s = erudite.initial(cfg, 1)
    fx_all = []
    for ev in (Host("question", 1 * 10**9), Host("reading_done", 2 * 10**9),
               sp("B", 3 * 10**9 + 10 * US, 3 * 10**9 + 1 * MS), sp("A", 3 * 10**9, 3 * 10**9 + 1 * MS),
               Tick(4 * 10**9)):
        s, fx = erudite.step(s, ev)
        fx_all += fx
    assert not [f for f in fx_all if isinstance(f, Notice) and f.key.startswith("race_tie")]
    assert s.teams[s.question.holder].name == "Альфа"


def test_the_journal_and_scripts_keep_the_resolution():
    p = sp("A", 5, 7)
    assert journal.decode_event(json.loads(json.dumps(journal.encode_event(p)))) == p
    assert "tie" not in journal.encode_event(Press("A", 5, 7))     # older records stay as they were
    ev, _ = script._event({"at": 1.0, "press": "A", "tie": 0.000005, "stream": True}, 3, "s.jsonl")
    assert ev.tie == 5 * US and ev.stream
    with pytest.raises(Exception, match="tie"):
        script._event({"at": 1.0, "press": "A", "tie": -1}, 3, "s.jsonl")


def test_the_config_has_the_backend_and_its_keys():
    cfg = config.build({"buttons": "gpiod", "gpio.chip": "gpiochip4", "gpio.tie_us": 8.0})
    assert cfg["buttons"] == "gpiod" and cfg["gpio"]["chip"] == "gpiochip4" and cfg["gpio"]["tie_us"] == 8.0
    assert config.build({})["gpio"]["tie_us"] == 5.0 and config.build({})["gpio"]["chip"] == ""
    with pytest.raises(ConfigError, match="gpio.tie_us"):
        config.build({"gpio.tie_us": -1.0})
    with pytest.raises(ConfigError, match="gpio.pins.C"):
        config.build({"buttons": "gpiod", "teams": [{"name": "x", "button": "C"}],
                      "gpio.pins": {"A": "GPIO17"}})


def test_pin_names_map_to_line_offsets():
    from controller.inputs import gpiochip
    assert [gpiochip.line_offset("k", p) for p in ("GPIO17", "BCM27", "22", 23, "BOARD11", "J8:40")] == \
        [17, 27, 22, 23, 17, 21]
    with pytest.raises(ConfigError, match="k: header pin 1 is not a GPIO pin"):
        gpiochip.line_offset("k", "BOARD1")
    with pytest.raises(ConfigError, match="gpio.pins.A: the gpiod backend names pins"):
        gpiochip.line_offset("gpio.pins.A", "WPI0")
