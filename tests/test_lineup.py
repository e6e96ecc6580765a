"""Эрудит-квартет line-ups (controller/games/lineup.py, §4.1–4.2, §2.7), themes from the event
file, players' points (§4.3): the pure rules, the game, `buzzer simulate`, the keypad entry,
the screen and the teams' own press sounds."""

import json
from pathlib import Path

import pytest

from controller.app import config
from controller.sessions import script as script_mod
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import ManualClock
from controller.core.events import Host, HostKey, Press
from controller.games import lineup as lu
from controller.games.lineup import Lineups

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
EVENT = EXAMPLES / "event.toml"
S = 1_000_000_000


def simulate(name):
    return script_mod.result(script_mod.run(script_mod.load(EXAMPLES / name)))


def refusals(out):
    return [e["reason"] for e in out["events"] if e["kind"] == "refused"]


# --- the pure rules -------------------------------------------------------------------------

def entry(lineups=Lineups(), **kw):
    args = dict(team=0, fight=0, rnd=0, player=1, entry_size=4, rounds=4, fight_type="light",
                fight_started=False, round_started=False, themes_announced=False, skipped=False)
    args.update(kw)
    return lu.check_entry(lineups, **args)


def test_one_round_per_player_in_a_fight():
    one = lu.assign(Lineups(), 0, 0, 0, 1)
    assert entry(one, rnd=1, player=1) == ("lineup_twice", {"player": 1, "round": 1})
    assert entry(one, rnd=0, player=1) is None            # the same round again: no change
    assert entry(one, rnd=1, player=2) is None
    assert entry(one, fight=1, rnd=1, player=1) is None   # the next fight: he plays again [§4.2]


def test_the_player_must_be_on_the_entry_and_here():
    assert entry(player=5) == ("lineup_no_player", {"player": 5, "players": 4})
    assert entry(rnd=4) == ("lineup_no_round", {"round": 5, "rounds": 4})
    away = lu.mark_absent(Lineups(), 0, 2)
    assert entry(away, player=2) == ("lineup_absent", {"player": 2})


def test_a_latecomer_plays_from_the_next_fight():
    late = lu.arrive(lu.mark_absent(Lineups(), 0, 2), 0, 2, fight=0, fight_started=True)
    assert entry(late, player=2, fight=0, fight_type="half-dark") == ("lineup_latecomer", {"player": 2, "fight": 2})
    assert entry(late, player=2, fight=1) is None
    early = lu.arrive(lu.mark_absent(Lineups(), 0, 2), 0, 2, fight=0, fight_started=False)
    assert entry(early, player=2, fight=0) is None        # came before the first fight began


def test_substitutions_only_between_fights_and_before_a_half_dark_round():
    assert entry(fight_started=True) == ("lineup_fight_started", {"fight": 1})
    assert entry(fight_type="dark", fight_started=True) == ("lineup_fight_started", {"fight": 1})
    assert entry(fight_type="dark", themes_announced=True) == ("lineup_dark_themes", {"fight": 1})
    assert entry(fight_type="light", themes_announced=True) is None   # light: themes first, then the line-up
    assert entry(fight_type="half-dark", fight_started=True) is None  # its round has not begun
    assert entry(fight_type="half-dark", fight_started=True, round_started=True) == \
        ("lineup_round_started", {"round": 1})
    assert entry(skipped=True) == ("lineup_round_skipped", {"round": 1})


def test_a_short_team_skips_as_many_rounds_as_it_lacks_players():
    three = Lineups()
    for rnd, p in ((0, 1), (1, 2)):
        three = lu.assign(three, 0, 0, rnd, p)
    assert not lu.sits_out(three, 0, 3, 0, 3, 4)          # a player is still free
    three = lu.assign(three, 0, 0, 2, 3)
    assert lu.sits_out(three, 0, 3, 0, 3, 4)              # every player has a round: round 4 is skipped
    assert not lu.sits_out(three, 0, 3, 0, 2, 4)
    four = lu.assign(three, 0, 0, 3, 1)
    assert not lu.sits_out(lu.assign(Lineups(), 0, 0, 0, 1), 0, 4, 0, 3, 4)   # a full team never skips
    assert four.entries  # (the rules do not stop a wrong fourth entry: check_entry does)


def test_best_players_are_all_those_sharing_the_top():
    rows = [{"points": 20}, {"points": 20}, {"points": 10}]
    assert lu.best(rows) == rows[:2]
    assert lu.best([{"points": 0}]) == [] and lu.best([]) == []


# --- the game: three fight types from the example event file ---------------------------------

def test_a_light_fight_from_the_event_file():
    out = simulate("erudite-light.jsonl")
    themes = next(e for e in out["events"] if e["kind"] == "themes")
    assert themes["fight_type"] == "light" and themes["t"] == 1.0            # all four, with the captain's timer
    assert [x["theme"] for x in themes["themes"]] == ["Реки России", "Кино", "Химия", "Спорт"]
    assert refusals(out) == ["lineup_twice", "lineup_absent", "lineup_no_player", "lineup_latecomer"]
    assert [q["theme"] for q in out["questions"]] == ["Реки России"] * 2 + ["Кино"] * 2 + ["Химия"] * 2 + \
        ["Спорт"] * 2
    # §4.3: the players' points add up to the team's
    for team, players in out["players"].items():
        assert sum(p["points"] for p in players.values()) == out["scores"][team]
    assert out["players"]["Альфа"]["Аня"] == {"points": 10, "won_points": 10}    # round 1, 10 right
    assert out["questions"][0]["answers"][0]["player"] == "Аня"
    # Гамма's three players have rounds 1-3: it sits out round 4 [§4.1]
    q7 = out["questions"][6]
    assert [(p["team"], p["kind"]) for p in q7["presses"]] == [("Гамма", "disabled"), ("Бета", "answer")]


def test_a_half_dark_fight_announces_each_theme_before_its_round():
    out = simulate("erudite-half-dark.jsonl")
    said = [(e["t"], [x["round"] for x in e["themes"]]) for e in out["events"] if e["kind"] == "themes"]
    assert [r for _, r in said] == [[1], [2], [3], [4]]
    assert all(e["fight_type"] == "half-dark" for e in out["events"] if e["kind"] == "themes")
    caps = [e for e in out["events"] if e["kind"] == "captain_start"]
    assert len(caps) == 4 and all(c["seconds"] == 20.0 for c in caps)       # 20 s per round [§4.2]
    assert refusals(out) == ["lineup_round_started"]
    # a change before round 2 began was taken: Дина (5th on the entry) replaced Борис
    changes = [e for e in out["events"] if e["kind"] == "lineup" and e["team"] == "Альфа" and e["round"] == 2]
    assert [c["name"] for c in changes] == ["Борис", "Дина"]
    assert out["questions"][2]["fight"] == 2 and out["questions"][2]["theme"] == "Космос"


def test_a_dark_fight_takes_the_line_up_before_any_theme():
    out = simulate("erudite-dark.jsonl")
    caps = [e for e in out["events"] if e["kind"] == "captain_start"]
    assert caps[0]["fight_type"] == "dark" and caps[0]["seconds"] == 60.0
    assert not any(e["kind"] == "themes" and e["t"] < 62 for e in out["events"])   # none with the captain
    assert refusals(out) == ["lineup_dark_themes"]
    assert [q["theme"] for q in out["questions"]][::2] == ["Физика", "История Москвы", "Животные", "Литература"]
    assert out["stage"] == "finished"
    for team, players in out["players"].items():
        assert sum(p["points"] for p in players.values()) == out["scores"][team]


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("*.jsonl")
                                        if not p.name.startswith(("erudite-light", "erudite-half", "erudite-dark"))))
def test_scripts_without_players_print_no_players(name):
    """Existing scripts print what they printed: no ``players``, no ``player`` in answers."""
    out = simulate(name)
    assert "players" not in out or out["mode"] not in ("erudite",)
    text = json.dumps(out)
    assert '"player":' not in text


def test_line_ups_survive_undo_and_a_withdrawn_question_scores_no_player():
    cfg = config.attach_event(config.build({"erudite": {"nominals": [10, 20]}}), EVENT)
    s = engine.new_game(cfg, 1)
    for ev in (Host("lineup", 1 * S, {"team": 1, "round": 1, "player": 2}),
               Host("question", 2 * S, {}), Press("A", 3 * S, 3 * S), Host("right", 4 * S, {}),
               Host("undo", 5 * S, {})):
        s, _ = engine.step(s, ev)
    assert lu.player_at(s.line, 0, 0, 0) == 2
    s, _ = engine.step(s, Host("right", 6 * S, {}))
    assert engine.summary(s)["players"]["Альфа"]["Борис"]["points"] == 10
    s, _ = engine.step(s, Host("withdraw", 7 * S, {}))
    assert engine.summary(s)["players"]["Альфа"]["Борис"]["points"] == 0


def test_skip_round_counts_present_players_and_keeps_a_round_with_a_player():
    cfg = config.attach_event(config.load(), EVENT)
    s = engine.new_game(cfg, 1)
    s, fx = engine.step(s, Host("skip_round", 1 * S, {"team": "Бета", "round": 2}))
    assert any(getattr(f, "key", "") == "skip_not_allowed" for f in fx)      # four players: no skip
    s, _ = engine.step(s, Host("absent", 2 * S, {"team": "Бета", "player": "Илья"}))
    s, _ = engine.step(s, Host("lineup", 3 * S, {"team": "Бета", "round": 2, "player": 1}))
    s, fx = engine.step(s, Host("skip_round", 4 * S, {"team": "Бета", "round": 2}))
    assert any(getattr(f, "key", "") == "lineup_round_has_player" for f in fx)
    s, fx = engine.step(s, Host("skip_round", 5 * S, {"team": "Бета", "round": 3}))
    assert (1, 0, 2) in s.skips                                               # three here: one round skipped
    s, fx = engine.step(s, Host("lineup", 6 * S, {"team": "Бета", "round": 3, "player": 2}))
    assert any(getattr(f, "key", "") == "lineup_round_skipped" for f in fx)


def test_the_view_has_themes_players_and_host_only_answer():
    run = script_mod.run(script_mod.load(EXAMPLES / "erudite-light.jsonl"), until=62.5)
    v = engine.view(run.state)
    assert [x["theme"] for x in v["themes"]] == ["Реки России", "Кино", "Химия", "Спорт"]
    assert [t["player"] for t in v["teams"]] == ["Аня", "Илья", "Кира", "Нина"]
    assert v["host"] == {"question_text": "Самая длинная река Европы.", "answer": "Волга"}
    assert "Волга" not in json.dumps({k: x for k, x in v.items() if k != "host"}, ensure_ascii=False)
    end = engine.view(script_mod.run(script_mod.load(EXAMPLES / "erudite-dark.jsonl")).state)
    assert end["best_players"]["fight_number"] == 3
    assert {(r["name"], r["points"]) for r in end["best_players"]["game"]} == {("Глеб", 20), ("Илья", 20), ("Лев", 20)}


def test_a_game_without_an_event_file_has_the_view_it_had():
    cfg = config.load()
    v = engine.view(engine.new_game(cfg, 1))
    assert not {"themes", "player_points", "best_players", "host"} & set(v)
    assert all("player" not in t for t in v["teams"])


# --- the keypad entry through the loop ------------------------------------------------------

class Journal:
    def __init__(self):
        self.events = []

    def append(self, ev):
        self.events.append(ev)

    def append_many(self, evs):
        self.events.extend(evs)


def test_the_host_types_a_line_up_as_three_digits_and_it_is_journaled():
    cfg = config.attach_event(config.load(), EVENT)
    clock = ManualClock(1_000_000_000)
    jr = Journal()
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=jr)
    loop.enqueue(HostKey("lineup"))
    loop.drain()
    assert loop.entry()["text"] == "_ · _ · _"
    loop.key_down(["[2]"])
    loop.enqueue(HostKey("digit", {"digit": "3"}))     # the keypad's digit while the entry is open
    loop.drain()
    assert loop.entry()["text"] == "2 · 3 · _"
    loop.key_down(["4"])
    loop.drain()
    assert loop.lineup_entry is None
    assert [(e.action, dict(e.params)) for e in jr.events if isinstance(e, Host)] == \
        [("lineup", {"team": 2, "round": 3, "player": 4})]
    assert lu.player_at(loop.state.line, 1, 0, 2) == 4
    # a refused entry says why in the host's notice
    loop.enqueue(HostKey("lineup"))
    loop.drain()
    for d in "219":
        loop.key_down([d])
    loop.drain()
    assert "9" in loop.notice and "Бета" in loop.notice
    # Esc leaves the entry
    loop.enqueue(HostKey("lineup"))
    loop.drain()
    loop.key_down(["escape"])
    assert loop.lineup_entry is None


def test_the_keypad_sends_digits_only_while_a_line_up_is_typed():
    from evdev import InputEvent, ecodes

    from controller.inputs.keypad import Keypad
    got = []
    kp = Keypad(got.append, "", keymap={ecodes.KEY_KP7: "captain"})
    wanted = [False]
    kp.digits_wanted = lambda: wanted[0]
    kp.handle(InputEvent(1, 0, ecodes.EV_KEY, ecodes.KEY_KP7, 1))
    wanted[0] = True
    kp.handle(InputEvent(1, 0, ecodes.EV_KEY, ecodes.KEY_KP7, 1))
    assert [(h.action, dict(h.params)) for h in got] == [("captain", {}), ("digit", {"digit": "7"})]


# --- the screen --------------------------------------------------------------------------------

def _draw(view, size=(1280, 720)):
    import os
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame
    from controller.screens.scoreboard import Scoreboard, layout
    pygame.init()
    surface = pygame.Surface(size)
    Scoreboard(size, "ru").draw(surface, view)
    return surface, layout(size, len(view["teams"]), "game")


def _region_differs(a, b, rect):
    return any(a.get_at((x, y)) != b.get_at((x, y))
               for x in range(rect.x, rect.right, 3) for y in range(rect.y, rect.bottom, 3))


def test_the_scoreboard_draws_the_themes_and_the_player_at_each_button_when_the_view_has_them():
    run = script_mod.run(script_mod.load(EXAMPLES / "erudite-light.jsonl"), until=10)
    view = engine.view(run.state, 10 * S)
    plain = {k: v for k, v in view.items() if k not in ("themes", "player_points", "best_players", "host")}
    plain["teams"] = [{k: v for k, v in t.items() if k != "player"} for t in view["teams"]]
    with_all, lay = _draw(view)
    without, _ = _draw(plain)
    main = lay["main"]
    lower_main = type(main)(main.x, main.y + main.height * 60 // 100, main.width, main.height * 40 // 100)
    assert _region_differs(with_all, without, lower_main)                     # the themes list
    for card in lay["cards"]:
        bottom = type(card)(card.x + card.width // 2, card.y + card.height * 75 // 100, card.width // 2,
                            card.height // 4)
        assert _region_differs(with_all, without, bottom)                     # the player's name


def test_the_standings_screen_lists_the_players_beside_the_teams():
    run = script_mod.run(script_mod.load(EXAMPLES / "erudite-dark.jsonl"))
    view = engine.view(run.state)
    assert view["stage"] == "finished" and view["player_points"]
    plain = {k: v for k, v in view.items() if k not in ("player_points", "best_players")}
    a, _ = _draw(view)
    b, _ = _draw(plain)
    right = a.get_rect()
    right = type(right)(right.width * 60 // 100, right.height // 5, right.width * 38 // 100, right.height * 3 // 5)
    assert _region_differs(a, b, right)


def test_the_web_host_page_may_send_a_line_up():
    from controller.web.server import parse_action
    assert parse_action({"host": "lineup", "team": 2, "round": 1, "player": "Аня"}) == \
        ("lineup", {"team": 2, "round": 1, "player": "Аня"})
