"""Scripted sessions (controller/sessions/script.py): JSON-lines files played on a
virtual clock, as ``buzzer simulate`` plays them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.sessions import script as script_mod
from controller.core.errors import ScriptError
from controller.core.events import Press, Release

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "erudite-round.jsonl"
TEAMS = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}, {"name": "Гамма", "button": "C"}]


def write(tmp_path, lines, name="game.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines) + "\n",
                    encoding="utf-8")
    return path


def simulate(path, **kw):
    return script_mod.result(script_mod.run(script_mod.load(path), **kw))


def test_the_example_round_plays_as_its_story_says():
    out = simulate(EXAMPLE)
    # Альфа's edge was 0.8 ms earlier though Бета's press arrived first; Альфа
    # answered wrong, Гамма right; question 2 ran out; Дельта took question 3.
    assert out["scores"] == {"Альфа": -10, "Бета": 0, "Гамма": 10, "Дельта": 30}
    q1, q2, q3 = out["questions"]
    assert [(r["button"], r["kind"], r["gap_ms"]) for r in q1["presses"]] == [
        ("A", "answer", 0.0), ("B", "lockout", 0.8), ("C", "answer", 0.0)]
    assert [(a["team"], a["result"], a["delta"]) for a in q1["answers"]] == [
        ("Альфа", "wrong", -10), ("Гамма", "right", 10)]
    assert (q2["nominal"], q2["closed"], q2["answers"]) == (20, "time", [])
    assert (q3["nominal"], q3["answers"][0]["team"]) == (30, "Дельта")
    assert [r["team"] for r in out["standings"]] == ["Дельта", "Гамма", "Бета", "Альфа"]
    assert out["seed"] == 7


def test_result_is_json_with_the_documented_keys(tmp_path):
    path = write(tmp_path, [{"setup": {"teams": TEAMS, "seed": 3}},
                            {"at": 1, "host": "question", "theme": "Кино"},
                            {"at": 2, "press": "B"}, {"at": 2.0005, "press": "C"},
                            {"at": 3, "host": "wrong"},
                            {"at": 3.5, "press": "C"},
                            {"at": 4, "host": "right"}])
    out = json.loads(json.dumps(simulate(path)))
    assert {"scores", "standings", "questions", "events", "seed"} <= set(out)
    q = out["questions"][0]
    assert q["nominal"] == 10 and q["theme"] == "Кино"
    assert [(r["button"], r["gap_ms"]) for r in q["presses"]] == [("B", 0.0), ("C", 0.5), ("C", 0.0)]
    assert [(a["team"], a["result"], a["delta"]) for a in q["answers"]] == [("Бета", "wrong", -10),
                                                                           ("Гамма", "right", 10)]
    kinds = [e["kind"] for e in out["events"]]
    assert kinds.count("ruling") == 2 and "question" in kinds
    assert all("t" in e for e in out["events"])


def test_events_are_applied_in_delivery_order_and_taps_are_released():
    script = script_mod.parse([
        '{"at": 2.0, "press": "B", "delivered": 2.003}',
        '{"at": 2.001, "press": "A"}',
        '{"at": 3.0, "press": "C", "hold": true}',
    ])
    events = [ev for _, ev in script_mod.timeline(script)]
    assert events[0] == Press("A", 2_001_000_000, 2_001_000_000)
    assert events[1] == Press("B", 2_000_000_000, 2_003_000_000)
    releases = [ev for ev in events if isinstance(ev, Release)]
    assert {r.button for r in releases} == {"A", "B"}  # C is held
    assert all(r.at == p.at + script_mod.TAP_NS for r in releases for p in events
               if isinstance(p, Press) and p.button == r.button)


def test_until_stops_the_virtual_clock(tmp_path):
    out = simulate(EXAMPLE, until=5.5)
    assert out["scores"]["Альфа"] == -10 and out["scores"]["Гамма"] == 0
    assert len(out["questions"]) == 1


def test_settings_in_setup_change_the_rules(tmp_path):
    path = write(tmp_path, [{"setup": {"teams": TEAMS[:2], "settings": {"erudite.nominals": [100, 200]}}},
                            {"at": 1, "host": "question"}, {"at": 2, "press": "A"}, {"at": 3, "host": "right"}])
    out = simulate(path)
    assert out["scores"]["Альфа"] == 100


def test_comments_and_blank_lines_are_skipped(tmp_path):
    path = write(tmp_path, ["# a comment", "", {"at": 1, "host": "question"}])
    assert len(simulate(path)["questions"]) == 1


@pytest.mark.parametrize("line, words", [
    ('{"at": 2, "press": "A", "colour": "red"}', ['unknown field "colour"']),
    ('{"at": 2, "host": "question"', ["not valid JSON"]),
    ('{"host": "question"}', ['missing "at"']),
    ('{"at": 2, "press": "Z"}', ['unknown button "Z"']),
    ('{"at": 2, "host": "explode"}', ["explode"]),
    ('{"at": "two", "host": "question"}', ['"at" must be a number']),
    ('{"at": 2, "press": "A", "delivered": 1}', ['"delivered" cannot be before "at"']),
    ('{"at": 2, "host": "question", "press": "A"}', ["exactly one of"]),
    ('{"setup": {"mode": "erudite"}}', ["only on the first line"]),
    ('[1, 2]', ["JSON object"]),
])
def test_a_malformed_line_is_named_by_its_number(tmp_path, line, words):
    path = write(tmp_path, [{"setup": {"teams": TEAMS}}, {"at": 1, "host": "question"}, line])
    with pytest.raises(ScriptError) as err:
        simulate(path)
    assert err.value.line == 3
    assert f"{path}:3:" in str(err.value)
    for w in words:
        assert w in str(err.value)


def test_a_bad_setup_is_named_as_line_one(tmp_path):
    path = write(tmp_path, [{"setup": {"teams": TEAMS, "settings": {"erudite.think_time_s": "seven"}}}])
    with pytest.raises(ScriptError) as err:
        simulate(path)
    assert err.value.line == 1 and "erudite.think_time_s" in str(err.value)
    path = write(tmp_path, [{"setup": {"teams": TEAMS, "colour": 1}}])
    with pytest.raises(ScriptError) as err:
        simulate(path)
    assert 'unknown setup field "colour"' in str(err.value)


def test_a_missing_script_is_one_error():
    with pytest.raises(ScriptError) as err:
        script_mod.load("/nonexistent/game.jsonl")
    assert str(err.value) == "/nonexistent/game.jsonl: file not found" and err.value.line is None


# Every deadline fires at its own time, as in `buzzer run` (the loop wakes at
# engine.wakeup), whether or not a script line falls near it: here the next line
# comes long after every signal of the countdown.
DEADLINE_CASES = {
    "mafia speech": ({"mode": "mafia"}, [{"at": 2.0, "host": "speech", "seat": 3}],
                     [(52.0, "mafia.warning"), (62.0, "mafia.speech_end")]),
    "erudite thinking countdown": ({"teams": TEAMS, "settings": {"erudite.warn_at_s": [3]}},
                                   [{"at": 1.0, "host": "question"}, {"at": 2.0, "host": "reading_done"}],
                                   [(6.0, "warning"), (9.002, "time_up")]),
    "erudite captain's timer": ({"teams": TEAMS}, [{"at": 1.0, "host": "captain"}],
                                [(51.0, "warning"), (61.0, "captain_time_up")]),
    "own-game answer time": ({"mode": "own-game", "teams": TEAMS, "settings": {"own_game.answer_time_s": 3}},
                             [{"at": 1.0, "host": "question"}, {"at": 2.0, "host": "reading_done"},
                              {"at": 3.0, "press": "B"}],
                             [(3.002, "answer_right"), (6.002, "answer_time_up")]),
    "brain-ring clock": ({"mode": "brain-ring", "teams": TEAMS[:2]},
                         [{"at": 1.0, "host": "question"}, {"at": 2.0, "host": "start_clock"}],
                         [(52.0, "warning"), (57.0, "warning"), (61.0, "warning"), (62.002, "time_up")]),
    "ЧГК discussion and hand-in": ({"mode": "chgk", "teams": TEAMS}, [{"at": 1.0, "host": "start_clock"}],
                                   [(51.0, "warning"), (61.0, "time_up"), (71.0, "answers_closed")]),
}


@pytest.mark.parametrize("case", list(DEADLINE_CASES))
def test_deadlines_between_lines_fire_at_their_own_time(tmp_path, case):
    setup, lines, expected = DEADLINE_CASES[case]
    far = {"at": 300.0, "host": "foul", "seat": 1} if setup.get("mode") == "mafia" else \
        {"at": 300.0, "host": "pause"}
    out = simulate(write(tmp_path, [{"setup": setup}, *lines, far]))
    seen = [(e["t"], e["kind"]) for e in out["events"] if e["t"] < 300]
    assert [x for x in seen if x in expected] == expected
