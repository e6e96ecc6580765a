"""A programme of rounds through the engine and through `buzzer simulate`."""

import json
from pathlib import Path

import pytest

from controller.app import config
from controller.core import engine
from controller.cli import main
from controller.core.effects import Log, Notice
from controller.core.errors import ConfigError
from controller.core.events import NS_PER_S, Host, Press, Release, Tick

S = NS_PER_S
ROOT = Path(__file__).resolve().parent.parent
TEAMS = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]


def ns(t):
    return int(round(t * S))


class Game:
    def __init__(self, rounds, teams=TEAMS, seed=3):
        cfg = config.build({"mode": "programme", "teams": teams, "programme": {"rounds": rounds}})
        self.state = engine.new_game(cfg, seed)
        self.fx = []

    def _step(self, ev):
        self.state, fx = engine.step(self.state, ev)
        self.fx += fx
        return fx

    def host(self, action, at, **params):
        return self._step(Host(action, ns(at), params))

    def press(self, button, at):
        self._step(Press(button, ns(at), ns(at)))
        self._step(Release(button, ns(at) + 1, ns(at) + 1))

    def tick(self, at):
        while (due := engine.wakeup(self.state)) is not None and due <= ns(at):
            self._step(Tick(due))
        self._step(Tick(ns(at)))

    def view(self):
        return engine.view(self.state)

    def logs(self, kind):
        return [f.data for f in self.fx if isinstance(f, Log) and f.kind == kind]

    def own_game_right(self, button, t, nominal):
        self.host("question", t, nominal=nominal)
        self.host("reading_done", t + 1)
        self.press(button, t + 1.5)
        self.tick(t + 1.6)
        self.host("right", t + 2)


THREE = [
    {"mode": "own-game", "title": "Своя игра", "settings": {"own_game": {"press_window_s": 4.0}}},
    {"mode": "brain-ring", "title": "Брейн-ринг", "settings": {"brain_ring.fight_points": 1}},
    {"mode": "chgk", "title": "ЧГК", "settings": {"chgk": {"tours": 1, "questions_per_tour": 2},
                                                  "teams": [{"name": "Бета"}, {"name": "Альфа"},
                                                            {"name": "Гамма"}]}},
]


def test_rounds_run_in_order_each_with_its_own_mode_and_settings():
    g = Game(THREE)
    v = g.view()
    assert v["mode"] == "own-game" and v["series"]["round"] == 1 and v["series"]["rounds"] == 3
    assert g.state.game.rules.window == ns(4.0)                  # the round's own setting
    g.host("next_game", 1)
    assert g.view()["mode"] == "brain-ring" and g.view()["series"]["title"] == "Брейн-ринг"
    assert g.state.game.rules.fight_points == 1
    g.host("next_round", 2)                                       # brain-ring has no next_round: moves on
    assert g.view()["mode"] == "chgk"
    assert [x["title"] for x in g.logs("round")] == ["Брейн-ринг", "ЧГК"]


def test_running_totals_across_rounds_match_teams_by_name():
    g = Game(THREE)
    g.own_game_right("A", 1, 300)
    assert g.view()["series"]["totals"] == {"Альфа": 300, "Бета": 0}
    g.host("next_game", 5)
    g.host("question", 6)
    g.host("start_clock", 7)
    g.press("B", 8)
    g.tick(8.1)
    g.host("right", 9)
    assert g.view()["series"]["totals"] == {"Альфа": 300, "Бета": 1}
    g.host("next_game", 10)
    g.host("question", 11)
    g.host("results", 12, results=["Альфа", "Гамма"])            # ЧГК lists the teams in another order
    s = engine.summary(g.state)
    assert s["scores"] == {"Альфа": 301, "Бета": 1, "Гамма": 1}
    assert [r["team"] for r in s["standings"]] == ["Альфа", "Бета", "Гамма"]
    assert [r["title"] for r in s["rounds"]] == ["Своя игра", "Брейн-ринг", "ЧГК"]


def test_erudite_keeps_its_own_next_round_and_next_game_moves_on():
    rounds = [{"mode": "erudite", "title": "Эрудит"}, {"mode": "own-game", "title": "Своя игра"}]
    g = Game(rounds)
    g.host("next_round", 1)
    assert g.view()["mode"] == "erudite" and g.view()["round"] == 2
    g.host("next_game", 2)
    assert g.view()["mode"] == "own-game"


def test_after_the_last_round_the_programme_is_finished():
    g = Game(THREE[:1])
    g.own_game_right("B", 1, 200)
    g.host("next_game", 5)
    assert g.view()["stage"] == "finished"
    assert g.logs("game_over")[-1]["totals"] == {"Альфа": 0, "Бета": 200}
    fx = g.host("question", 6)
    assert any(isinstance(f, Notice) and f.key == "game_over" for f in fx)


def test_each_round_gets_its_own_derived_seed_so_a_replay_is_identical():
    def play(seed):
        g = Game([{"mode": "brain-ring", "settings": {"brain_ring.start_delay": True}}] * 2, seed=seed)
        for i in range(2):
            g.host("question", 100 * i + 1)
            g.host("start_clock", 100 * i + 2)
            g.tick(100 * i + 8)
            g.host("withdraw", 100 * i + 9)
            g.host("next_game", 100 * i + 10)
        return [x["delay_s"] for x in g.logs("start_clock")]
    assert play(5) == play(5)


@pytest.mark.parametrize("rounds,key", [
    ([{"mode": "mafia"}], "programme.rounds"),
    ([{"mode": "own-game", "settings": {"own_game": {"press_window_s": 0}}}],
     "programme.rounds[0].settings.own_game.press_window_s"),
    ([{"mode": "chgk", "bogus": 1}], "programme.rounds"),
    ([], "programme.rounds"),
])
def test_bad_rounds_are_one_line_config_errors_naming_the_key(rounds, key):
    with pytest.raises(ConfigError) as exc:
        config.build({"mode": "programme", "programme": {"rounds": rounds}})
    assert exc.value.key == key and "\n" not in str(exc.value)


def test_buzzer_simulate_plays_a_programme_from_a_toml_config(tmp_path, capsys):
    cfg = tmp_path / "evening.toml"
    cfg.write_text(
        'mode = "programme"\n'
        '[[teams]]\nname = "Альфа"\nbutton = "A"\n[[teams]]\nname = "Бета"\nbutton = "B"\n'
        '[[programme.rounds]]\nmode = "own-game"\ntitle = "Своя игра"\n'
        '[[programme.rounds]]\nmode = "chgk"\ntitle = "ЧГК"\nsettings = { chgk = { tours = 1 } }\n',
        encoding="utf-8")
    script = tmp_path / "evening.jsonl"
    lines = [{"setup": {"config": str(cfg)}},
             {"at": 1, "host": "question", "nominal": 500}, {"at": 2, "host": "reading_done"},
             {"at": 2.5, "press": "B"}, {"at": 3, "host": "wrong"},
             {"at": 4, "host": "next_game"},
             {"at": 5, "host": "start_clock"}, {"at": 80, "host": "results", "results": ["Бета"]}]
    script.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    assert main(["simulate", str(script)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "programme" and out["round"] == 2
    assert out["scores"] == {"Альфа": 0, "Бета": -499}
    assert [q["round"] for q in out["questions"]] == [1, 2]


def test_the_example_programme_runs(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["simulate", "examples/programme.jsonl"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == {"Альфа": 301, "Бета": 2, "Гамма": 1}
