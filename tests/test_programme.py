"""A programme of rounds through the engine and through `buzzer simulate`."""

import json
from pathlib import Path

import pytest
from harness import Played

from controller.app import config
from controller.cli import main
from controller.core.effects import Notice
from controller.core.errors import ConfigError
from controller.core.events import NS_PER_S

S = NS_PER_S
ROOT = Path(__file__).resolve().parent.parent
TEAMS = [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"}]


def ns(t):
    return int(round(t * S))


class Game(Played):
    """A programme of ``rounds`` for ``teams`` (Альфа on A, Бета on B by default)."""

    def __init__(self, rounds, teams=TEAMS, seed=3):
        super().__init__({"mode": "programme", "teams": teams, "programme": {"rounds": rounds}}, seed)

    def own_game_right(self, button, t, nominal):
        self.host("question", t, nominal=nominal)
        self.host("reading_done", t + 1)
        self.press(button, t + 1.5)
        self.run_to(t + 1.6)
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
    g.run_to(8.1)
    g.host("right", 9)
    assert g.view()["series"]["totals"] == {"Альфа": 300, "Бета": 1}
    g.host("next_game", 10)
    g.host("question", 11)
    g.host("results", 12, results=["Альфа", "Гамма"])            # ЧГК lists the teams in another order
    s = g.summary()
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
            g.run_to(100 * i + 8)
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


def test_the_example_programme_plays_to_the_programmes_totals(capsys, monkeypatch):
    from controller.sessions import script
    from controller.games import engine
    from controller.screens.terminal import status_lines

    monkeypatch.chdir(ROOT)
    assert main(["simulate", "examples/programme.jsonl"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["stage"] == "finished" and [r["title"] for r in out["rounds"]] == ["Своя игра", "Брейн-ринг",
                                                                                  "Что? Где? Когда?"]
    assert out["scores"] == {"Альфа": 302, "Бета": 2, "Гамма": 3}
    assert [q["label"] for q in out["questions"] if q["round"] == 3] == ["1.1", "1.2", "1.3"]   # all of ЧГК
    run = script.run(script.load("examples/programme.jsonl"))
    lines = status_lines(engine.view(run.state, run.state.now), "ru")     # the screen at the end
    assert lines[1] == "Итоги программы · Игра окончена"
    assert [line.strip() for line in lines[2:]] == ["★ 1. Альфа 302", "2. Гамма 3", "3. Бета 2"]


# ---------------------------------------------------------------------------
# the host's keys in a programme: the current round's game's own (issue 23, a newcomer's walk:
# a programme's ЧГК could not be scored from the keyboard)

MS = 1_000_000


def keyboard_loop(cfg: dict):
    """The real loop of ``cfg`` with the keyboard as buttons (a laptop evening)."""
    import io

    from controller.app.loop import Loop
    from controller.games import engine
    from controller.inputs.clock import ManualClock
    from controller.inputs.keyboard import KeyboardBackend

    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    loop.on_new_game = None
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                   {"keys": {t["button"]: t["key"] for t in cfg["teams"] if t.get("key")}})
    return loop, clock


def type_keys(loop, clock, text: str, step_ms: int = 300) -> None:
    """Keys typed in the terminal, ``step_ms`` apart; ``<F4>`` is that key (its escape sequence)."""
    import re

    from controller.screens.terminal import feed

    for key in re.findall(r"<F4>|.", text, re.S):
        feed(loop, "\x1bOS" if key == "<F4>" else key)
        clock.advance(step_ms * MS)
        loop.tick_if_due()
        loop.drain()


def press(loop, clock, button: str) -> None:
    """A player's button, then the settle window passes."""
    from controller.core.events import Press

    loop.enqueue(Press(button, clock.now(), clock.now()))
    clock.advance(300 * MS)
    loop.tick_if_due()
    loop.drain()


def screen(loop) -> str:
    """What the terminal shows the host: the status line, its notice included."""
    from controller.screens import viewmodel
    from controller.screens.terminal import status_line

    view, status = viewmodel.host_screen(viewmodel.from_loop(loop))
    return status_line(view, loop.cfg["language"], status)


def help_rows(loop) -> dict[str, list[str]]:
    """The host's key help (H on the projector, the host page's list) as label -> keys."""
    from controller.screens import viewmodel

    return {k["label"]: k["key_labels"] for k in viewmodel.from_loop(loop)["host"]["keys"]}


def terminal_help(loop) -> dict[str, str]:
    """The terminal's key help (H) as label -> keys."""
    from controller.games import engine
    from controller.screens.terminal import key_help

    text = key_help(loop.cfg, "ru", engine.view(loop.state), loop.state)
    return {line[27:]: line[:27].strip() for line in text.splitlines()}


def test_a_programmes_chgk_round_is_scored_from_the_keyboard_to_the_programmes_totals(tmp_path):
    cfg = config.load(str(ROOT / "examples" / "programme.toml"))
    cfg["chgk"]["results_csv"] = str(tmp_path / "jury.csv")
    (tmp_path / "jury.csv").write_text("team,question,result\nБета,3,1\n", encoding="utf-8")
    loop, clock = keyboard_loop(cfg)
    first = help_rows(loop)                               # Своя игра: no team numbers, no ЧГК marks
    assert "Номер команды" not in first and "Набранная команда: верно" not in first
    assert "Номер команды" not in terminal_help(loop)
    type_keys(loop, clock, "rr")                          # on to game 2, Брейн-ринг
    type_keys(loop, clock, "<F4><F4>")                # it ends at once (a fight to play: none)
    type_keys(loop, clock, "rr")                          # on to game 3
    assert "Игра 3 из 3" in screen(loop)
    rows = help_rows(loop)                                # the help lists ЧГК's keys now
    assert rows["Номер команды"] == ["0–9", "Num 1–9"] and rows["Набранная команда: верно"] == ["Num +", "="]
    assert rows["«Время!»: старт отсчёта"] == ["Пробел", "Num 0", "T"] and rows["Следующая игра программы"] == ["R"]
    assert "Верно" not in rows                            # Enter is not a ruling in ЧГК
    words = terminal_help(loop)                           # the terminal's H says the same
    assert words["Номер команды"] == "0–9" and words["Набранная команда: верно"] == "+, ="
    assert words["Следующая игра программы"] == "R" and rows["Загрузить ответы жюри (CSV)"] == ["I"]
    for question, right in enumerate(("13", "3", "23"), start=1):   # Бета 1, Альфа 2, Гамма 3
        type_keys(loop, clock, "n ")                      # the question, «Время!»
        assert f"Вопрос 1.{question}" in screen(loop) and "Обсуждение" in screen(loop)
        clock.advance(75_000 * MS)                        # a minute's discussion, the answers handed in
        loop.tick_if_due()
        for team in right:
            type_keys(loop, clock, team + "+")
            assert "ответ засчитан" in screen(loop)
    type_keys(loop, clock, "2-")                          # Альфа's answer to question 3: wrong after all
    assert "Альфа: ответ не засчитан" in screen(loop)
    type_keys(loop, clock, "i")                           # the jury's sheet: Бета right on question 3
    assert "Ответы жюри загружены: 1 строка" in screen(loop)
    type_keys(loop, clock, "rr")                          # the last game ends: the programme's totals
    line = screen(loop)
    assert "Итоги программы" in line
    assert "1. Гамма 3 |   2. Бета 2 |   3. Альфа 0" in line     # ЧГК's answers, the only points of the evening


def test_a_programmes_brain_ring_keeps_its_next_fight_key_and_then_r_moves_on():
    from controller.games import engine

    loop, clock = keyboard_loop(config.load(str(ROOT / "examples" / "programme.toml")))
    type_keys(loop, clock, "rr")                          # game 2: Брейн-ринг
    assert help_rows(loop)["Следующий бой"] == ["R"] and "Следующая игра программы" not in help_rows(loop)
    type_keys(loop, clock, "nt")
    press(loop, clock, "B")
    type_keys(loop, clock, "\n")                          # Бета 1 : 0, the fight goes on
    type_keys(loop, clock, "r")                           # as in a Брейн-ринг alone: asked first
    assert "Нажмите ещё раз: бой 1 — закончится без победителя, начнётся бой 2" in screen(loop)
    assert engine.view(loop.state)["fight"] == 1
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["fight"] == 2 and "Бой 2" in screen(loop)
    assert engine.view(loop.state)["series"]["round"] == 2
    type_keys(loop, clock, "<F4><F4>")                # this Брейн-ринг is over: R moves on now
    assert help_rows(loop)["Следующая игра программы"] == ["R"] and "Следующий бой" not in help_rows(loop)
    type_keys(loop, clock, "rr")
    assert "Игра 3 из 3" in screen(loop) and "№1 Бета 0 (место 1–3) [Всего 1]" in screen(loop)   # fight 1 counted


def test_the_projectors_key_help_is_the_current_rounds(monkeypatch):
    """The window's H overlay (the real window loop, dummy video driver) lists ЧГК's keys in a
    programme's ЧГК round, not the programme's first game's."""
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    from controller.screens import scoreboard as sb
    from controller.app.runner import run_window_here as run_window

    cfg = config.load(str(ROOT / "examples" / "programme.toml"))
    loop, clock = keyboard_loop(cfg)
    type_keys(loop, clock, "rr<F4><F4>rrh")               # game 3, ЧГК; H: the key help
    drawn: list[str] = []
    real = sb.Scoreboard._text
    monkeypatch.setattr(sb.Scoreboard, "_text", lambda self, surface, text, *a, **k:
                        (drawn.append(str(text)), real(self, surface, text, *a, **k))[1])
    run_window(loop, 0.5)
    assert "Клавиши ведущего" in drawn
    assert "Номер команды" in drawn and "Набранная команда: верно" in drawn and "Следующая игра программы" in drawn


def host_buttons(loop) -> list[str]:
    """The host page's buttons now (their labels)."""
    from controller.screens import viewmodel

    return [a["label"] for a in viewmodel.from_loop(loop)["host"]["actions"]]


def test_the_host_page_offers_one_button_for_moving_on_where_two_actions_do_the_same():
    """Walk 1, item 14: in a programme's ЧГК round «Следующая игра программы» and «Следующий
    раунд» stood side by side, two buttons for one move; where the round's game has a next round
    of its own (Эрудит-квартет) both stay, until that game is finished."""
    loop, clock = keyboard_loop(config.load(str(ROOT / "examples" / "programme.toml")))
    type_keys(loop, clock, "rr")
    type_keys(loop, clock, "<F4><F4>")
    type_keys(loop, clock, "rr")                          # game 3: ЧГК
    buttons = host_buttons(loop)
    assert "Следующая игра программы" in buttons and "Следующий раунд" not in buttons
    from controller.screens import viewmodel

    def labels(g):
        return [a["label"] for a in viewmodel.web_actions(g.state, "ru", g.view())]

    g = Game([{"mode": "erudite", "title": "Эрудит"}, {"mode": "own-game", "title": "Своя игра"}])
    assert {"Следующая игра программы", "Следующий раунд"} <= set(labels(g))   # two moves
    g.host("end_game", 1)                                                     # Эрудит-квартет is over
    assert "Следующая игра программы" in labels(g) and "Следующий раунд" not in labels(g)


def test_ending_a_game_before_the_last_says_the_next_follows_not_that_all_is_over():
    """F4 (end the game) in game 1 of 3: the screen says that game is over and the next one follows,
    in the programme's words; only the last game's end says «Игра окончена»."""
    from controller.games import catalog
    from controller.screens.common import say
    from controller.screens.terminal import status_lines

    g = Game(THREE)
    g.host("end_game", 1)
    model = catalog.screen_of(g.view())
    assert model.standings.shown and model.standings.finished
    assert say(model.standings.over, "ru") == \
        "Окончена игра 1 из 3, дальше игра 2 «Брейн-ринг»"
    assert say(model.standings.over, "en") == "Game 1 of 3 is over; next: game 2 “Брейн-ринг”"
    lines = status_lines(g.view(), "ru")
    assert lines[1] == "Турнирная таблица · Окончена игра 1 из 3, дальше игра 2 «Брейн-ринг»"
    assert "Игра окончена" not in "\n".join(lines)
    g.host("next_game", 2)
    g.host("end_game", 3)                                  # Брейн-ринг, game 2: the next is ЧГК
    assert say(catalog.screen_of(g.view()).standings.over, "ru") == "Окончена игра 2 из 3, дальше игра 3 «ЧГК»"
    g.host("next_game", 4)
    g.host("end_game", 5)                                  # the last game: the whole programme is over
    model = catalog.screen_of(g.view())
    assert model.standings.over is None
    assert status_lines(g.view(), "ru")[1].endswith(" · Игра окончена")


def test_an_untitled_programme_game_is_named_by_its_number_when_the_one_before_ends():
    from controller.games import catalog
    from controller.screens.common import say

    g = Game([{"mode": "own-game"}, {"mode": "brain-ring"}])
    g.host("end_game", 1)
    assert say(catalog.screen_of(g.view()).standings.over, "ru") == "Окончена игра 1 из 2, дальше игра 2"
