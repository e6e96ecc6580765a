"""Presses with a declared uncertainty (a phone's: Press.unc) in the arbiter and the games: a tie
within ±N ms when the two earliest presses' intervals overlap, resolved by
[phones] uncertain_tie (lot or rearm) and shown as a tie in the press order; wired presses unchanged."""

from __future__ import annotations

import pytest

from controller.app import config
from controller.sessions import journal, script as script_mod
from controller.core import arbiter as arb
from controller.games import engine
from controller.core.effects import Notice
from controller.core.events import NS_PER_MS, Host, Press, Tick
from controller.games import brain_ring, erudite, own_game
from controller.i18n import t

MS = NS_PER_MS
NAMES = {"A": "Альфа", "B": "Бета", "C": "Гамма", "D": "Дельта"}


def phone(button, at_ms, unc_ms, delivered_ms=None):
    at = int(at_ms * MS)
    return Press(button, at, int((delivered_ms if delivered_ms is not None else at_ms) * MS), unc=int(unc_ms * MS))


# -- the arbiter ------------------------------------------------------------------

def test_overlapping_intervals_are_a_tie_within_the_uncertainty():
    a, b = phone("A", 1000, 15), phone("B", 1012, 15)      # 12 ms apart, each ±15 ms
    assert arb.uncertain([b, a]) == [a, b]
    assert arb.is_tie(arb.order([a, b], "random", 1, "1/0", "AB"))
    assert arb.within_ns([a, b]) == 15 * MS


def test_intervals_apart_are_ordered_by_stamp():
    a, b = phone("A", 1000, 5), phone("B", 1012, 5)        # 12 ms apart, ±5 ms: A was first
    assert arb.uncertain([a, b]) == []
    ordered = arb.order([b, a], "random", 1, "1/0", "AB")
    assert [p.button for p in ordered] == ["A", "B"] and not arb.is_tie(ordered)


def test_a_wired_press_against_a_phone_ties_only_within_the_phone_s_uncertainty():
    wired = Press("A", 1000 * MS, 1000 * MS)
    assert arb.uncertain([wired, phone("B", 1009, 10)])          # the phone may have been first
    assert not arb.uncertain([wired, phone("B", 1011, 10)])      # it cannot have been


def test_the_lot_inside_an_uncertain_tie_is_the_exact_tie_s_draw():
    winners = set()
    for n in range(40):
        ordered = arb.order([phone("A", 1000, 15), phone("B", 1010, 15)], "random", 7, f"{n}/0", "AB")
        winners.add(ordered[0].button)
    assert winners == {"A", "B"}      # not always the earlier stamp: inside ±15 ms nobody knows
    # the same salt draws the same
    assert [arb.order([phone("A", 1000, 15), phone("B", 1010, 15)], "random", 7, "3/0", "AB")[0].button
            for _ in range(3)] == [arb.order([phone("A", 1000, 15), phone("B", 1010, 15)], "random", 7, "3/0",
                                             "AB")[0].button] * 3


def test_wired_presses_order_as_before():
    ps = [Press("B", 1000 * MS + 300, 1000 * MS), Press("A", 1000 * MS + 100, 1000 * MS), Press("C", 999 * MS, 0)]
    assert [p.button for p in arb.order(ps, "random", 1, "1/0", "ABC")] == ["C", "A", "B"]
    assert arb.uncertain(ps) == []


def test_a_wired_press_surely_after_another_is_never_in_a_phone_s_tie():
    # a phone stamped first, ±200 ms; wired Альфа 10 ms after it, wired Бета 10 ms after Альфа:
    # both wired presses are inside the phone's interval, but Бета is surely after Альфа (exact
    # stamps): the lot is between the phone and Альфа, never Бета (it cannot have been first)
    c = phone("C", 1000, 200)
    a, b = Press("A", 1010 * MS, 1010 * MS), Press("B", 1020 * MS, 1020 * MS)
    assert arb.uncertain([b, c, a]) == [c, a]
    firsts = {arb.order([c, a, b], "random", 7, f"{n}/0", "ABC")[0].button for n in range(60)}
    assert firsts == {"A", "C"}
    for n in range(60):
        ordered = arb.order([c, a, b], "random", 7, f"{n}/0", "ABC")
        assert ordered.index(a) < ordered.index(b)          # the wired order holds whatever the lot
    # two phones: one surely after the other is out of the earlier's tie with a third
    d, e = phone("D", 1100, 5), phone("E", 1200, 5)          # E surely after D; both inside ±200
    assert arb.uncertain([c, d, e]) == [c, d]
    # two wired presses at the same stamp inside a phone's interval: all three may be first
    w1, w2 = Press("A", 1010 * MS, 0), Press("B", 1010 * MS, 0)
    assert arb.uncertain([c, w1, w2]) == [c, w1, w2]
    # ... but two wired presses at the same stamp, no phone among them, are an exact tie (the
    # exact tie's rule and words, «одно и то же мгновение»), not one «within ±N ms»
    assert arb.uncertain([w1, w2]) == [] and arb.is_tie(arb.order([w1, w2], "random", 1, "1/0", "AB"))
    assert arb.uncertain([w1, w2, phone("C", 1500, 5)]) == []       # the phone is surely after both


def test_the_press_order_does_not_tie_a_wired_press_that_came_surely_second():
    g, fx = play(game(), START + [phone("C", 1000, 200, 1040), Press("A", 1010 * MS, 1010 * MS, quiet=300 * MS),
                                  Press("B", 1020 * MS, 1020 * MS, quiet=300 * MS)], until_ms=2000)
    assert holder(g) in ("Альфа", "Гамма")
    r = {x["team"]: x for x in rows(g)}
    assert r["Альфа"].get("tie") and r["Гамма"].get("tie") and r["Альфа"]["tie_ms"] == 200
    assert not r["Бета"].get("tie") and r["Бета"]["kind"] == "lockout"       # shown with its gap


# -- through the games ------------------------------------------------------------

def game(uncertain_tie="lot", tie_rule="random", module=erudite, **settings):
    teams = [{"name": NAMES[b], "button": b} for b in "ABCD"]
    cfg = config.build({"teams": teams})
    cfg = config.build({"phones.uncertain_tie": uncertain_tie, "arbiter.tie_rule": tie_rule, **settings}, base=cfg)
    return module, module.initial(cfg, 3)


def play(g, events, until_ms=None):
    module, s = g
    fx_all = []
    last = 0
    for ev in events:
        s, fx = module.step(s, ev)
        fx_all += fx
        last = max(last, ev.now)
    s, fx = module.step(s, Tick(until_ms * MS if until_ms is not None else last + 300 * MS))
    return (module, s), fx_all + fx


def holder(g):
    s = g[1]
    return None if s.question.holder is None else s.teams[s.question.holder].name


def rows(g, now_ms=5000):
    return engine.view(g[1], now_ms * MS)["question"]["presses"]


def notices(fx):
    return [(n.key, n.params) for n in fx if isinstance(n, Notice)]


START = [Host("question", 100 * MS, {"nominal": 10}), Host("reading_done", 200 * MS)]


def test_erudite_phones_within_the_uncertainty_tie_by_lot_and_say_so():
    g, fx = play(game(), START + [phone("B", 1000, 15, 1040), phone("A", 1012, 15, 1030)])
    assert holder(g) in ("Альфа", "Бета")
    (key, params), = [n for n in notices(fx) if n[0].startswith("race_tie")]
    assert key == "race_tie_within_draw" and params["ms"] == 15 and params["teams"] == "Бета, Альфа"
    text = t(key, "ru", **params)
    assert "±15 мс" in text and holder(g) in text
    r = rows(g)
    assert [x["tie"] for x in r] == [True, True] and [x["tie_ms"] for x in r] == [15, 15]
    assert r[0]["team"] == holder(g) and r[0]["kind"] == "answer"     # the lot's winner is listed first


def test_erudite_phones_apart_the_earlier_stamp_holds_even_when_it_arrived_later():
    g, fx = play(game(), START + [phone("A", 1030, 4, 1045), phone("B", 1000, 4, 1090)])
    assert holder(g) == "Бета"
    assert not [n for n in notices(fx) if n[0].startswith("race_tie")]
    r = rows(g)
    assert [x["team"] for x in r] == ["Бета", "Альфа"] and not any(x.get("tie") for x in r)
    assert r[1]["gap_ms"] == pytest.approx(30.0)


def test_rearm_names_nobody_and_the_next_press_wins():
    g, fx = play(game(uncertain_tie="rearm"), START + [phone("A", 1000, 15, 1030), phone("B", 1010, 15, 1035)],
                 until_ms=1300)
    assert holder(g) is None
    (key, params), = [n for n in notices(fx) if n[0].startswith("race_tie")]
    assert key == "race_tie_rearm" and params["ms"] == 15
    assert "нажимайте ещё раз" in t(key, "ru", **params)
    assert [(x["kind"], x["tie"], x["tie_ms"]) for x in rows(g)] == [("rearmed", True, 15)] * 2
    # a phone press stamped inside the re-armed race, delivered late, belongs to that race
    g, fx = play(g, [phone("C", 1005, 15, 1400)], until_ms=1700)
    assert holder(g) is None
    # the teams press again: the first of the new race answers
    g, fx = play(g, [phone("B", 2000, 5, 2030), phone("A", 2020, 5, 2025)])
    assert holder(g) == "Бета"
    assert [x["kind"] for x in rows(g)] == ["rearmed", "rearmed", "rearmed", "answer", "lockout"]


def test_rearm_leaves_wired_races_alone():
    g, fx = play(game(uncertain_tie="rearm"), START + [Press("A", 1000 * MS, 1000 * MS),
                                                       Press("B", 1000 * MS + 500, 1000 * MS + 900)])
    assert holder(g) == "Альфа"
    assert [x["kind"] for x in rows(g)] == ["answer", "lockout"] and not any(x.get("tie") for x in rows(g))


@pytest.mark.parametrize("module", [own_game, brain_ring])
def test_the_other_button_games_tie_and_rearm_alike(module):
    start = [Host("question", 100 * MS, {"nominal": 10} if module is own_game else {}),
             Host("start_clock" if module is brain_ring else "reading_done", 200 * MS)]
    for rule, expect in (("lot", "race_tie_within_draw"), ("rearm", "race_tie_rearm")):
        g, fx = play(game(uncertain_tie=rule, module=module), start + [phone("A", 1000, 10, 1020),
                                                                      phone("B", 1005, 10, 1025)])
        assert [n[0] for n in notices(fx) if n[0].startswith("race_tie")] == [expect]
        assert (holder(g) is None) == (rule == "rearm")
        assert all(x.get("tie") for x in rows(g))


def test_the_race_record_names_the_uncertainty():
    g, _ = play(game(), START + [phone("A", 1000, 15, 1030), phone("B", 1012, 15, 1035)])
    race = engine.view(g[1], 5000 * MS)["host"]["race"]
    assert race["tie"]["within_ms"] == 15 and set(race["tie"]["teams"]) == {"Альфа", "Бета"}
    assert [p["uncertainty_ms"] for p in race["presses"]] == [15.0, 15.0]


# -- the journal and scripts keep it; old ones read as before --------------------------

def test_the_journal_keeps_a_press_s_uncertainty_and_reads_old_records_as_exact():
    p = phone("A", 1000, 12.5, 1030)
    rec = journal.encode_event(p)
    assert rec["unc"] == 12_500_000 and journal.decode_event(rec) == p
    wired = journal.encode_event(Press("A", 5, 6))
    assert "unc" not in wired and journal.decode_event(wired).unc == 0


def test_a_scripted_press_may_declare_its_uncertainty(tmp_path):
    # the phones' wait is each press's quiet period (the loop stamps it: docs/inputs.md «Phones»)
    path = tmp_path / "s.jsonl"
    path.write_text('{"setup": {"teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]}}\n'
                    '{"at": 0.1, "host": "question", "nominal": 10}\n{"at": 0.2, "host": "reading_done"}\n'
                    '{"at": 1.000, "press": "A", "delivered": 1.03, "unc": 0.015, "quiet": 0.05}\n'
                    '{"at": 1.010, "press": "B", "delivered": 1.04, "unc": 0.015, "quiet": 0.05}\n', encoding="utf-8")
    out = script_mod.result(script_mod.run(script_mod.load(path)))
    presses = out["questions"][0]["presses"]
    assert all(p["tie"] for p in presses) and {p["tie_ms"] for p in presses} == {15}
