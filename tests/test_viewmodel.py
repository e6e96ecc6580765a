"""The view model (#13 item 2): audience and host parts; host-only data never reaches the audience."""

from __future__ import annotations

import json

from controller.app import config as config_mod
from controller.screens import viewmodel
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import EngineClock
from controller.core.events import Host, HostKey, Press, Tick

S = 1_000_000_000


def play(loop, *events):
    for ev in events:
        loop.apply(ev)


def test_a_games_host_part_moves_to_the_host_and_never_to_the_audience():
    view = {"mode": "x", "teams": [{"name": "A", "score": 1}], "host": {"answer": "Волга"}}
    vm = viewmodel.build(view, seq=3, lang="ru", title="T")
    assert vm["host"]["game"] == {"answer": "Волга"}
    assert "Волга" not in json.dumps(vm["audience"], ensure_ascii=False)
    assert "Волга" not in json.dumps(viewmodel.audience_only(vm), ensure_ascii=False)
    assert view["host"] == {"answer": "Волга"}          # the game's view is not changed
    json.dumps(vm)                                        # JSON-ready


def test_the_loops_view_model_has_the_holder_key_help_and_undo():
    cfg = config_mod.load(None)
    loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock())
    play(loop, Host("question", 1 * S), Host("reading_done", 2 * S), Press("A", 3 * S, 3 * S), Tick(3 * S + S // 10))
    vm = viewmodel.from_loop(loop, seq=1)
    teams = vm["audience"]["game"]["teams"]
    assert [t["name"] for t in teams if t["holder"]] == ["Альфа"]
    assert vm["title"] == "Эрудит-квартет"
    keys = {k["action"]: k["keys"] for k in vm["host"]["keys"]}
    assert keys["right"] == ["return", "enter"] and "new_token" in keys
    assert "right" in [a["action"] for a in vm["host"]["actions"]]
    assert vm["host"]["undo"] is None                       # nothing ruled yet
    play(loop, Host("right", 4 * S))
    vm = viewmodel.from_loop(loop, seq=2)
    assert vm["audience"]["flash"]["text"] == "Верно"
    assert vm["host"]["undo"] == {"changes": [{"team": "Альфа", "score": 10, "after": 0}]}


def test_the_projector_shows_host_notices_only_with_host_overlay():
    cfg = config_mod.load(None)
    loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock())
    loop.apply(HostKey("help"))
    loop._notice("help_hint", help_key="H")
    vm = viewmodel.from_loop(loop)
    _, _, status, help_on = viewmodel.projector(vm, host_overlay=False)
    assert status["notice"] == "" and status["entry"] is None and help_on is False
    _, _, status, help_on = viewmodel.projector(vm, host_overlay=True)
    assert status["notice"] and help_on is True


def test_the_shell_never_names_a_game():
    """viewmodel and the web package know games only through the engine's interface."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "controller"
    names = ["erudite", "own-game", "own_game", "brain-ring", "brain_ring", "chgk", "mafia", "programme"]
    for path in [root / "screens" / "viewmodel.py", *sorted((root / "web").rglob("*.py")),
                 *sorted((root / "web" / "static").glob("*"))]:
        text = path.read_text(encoding="utf-8")
        for name in names:
            assert f'"{name}"' not in text and f"'{name}'" not in text, f"{path.name} names {name}"


def test_the_projector_draws_no_host_notice_or_key_help_without_host_overlay(tmp_path):
    import os

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from controller.screens.scoreboard import Scoreboard
    from controller.screens.terminal import mode_keys, team_keys

    cfg = config_mod.load(None)
    loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock())
    loop.apply(HostKey("help"))
    loop._notice("help_hint", help_key="H")
    vm = viewmodel.from_loop(loop)
    pygame.display.init()
    pygame.font.init()
    shots = {}
    for overlay in (False, True):
        view, flash, status, help_on = viewmodel.projector(vm, overlay)
        board = Scoreboard((1280, 720), lang="ru", keys=mode_keys(cfg), team_keys=team_keys(cfg))
        surface = pygame.Surface((1280, 720))
        board.draw(surface, view, 0, flash=flash, status=status, help_overlay=help_on)
        pygame.image.save(surface, str(tmp_path / f"projector-host-overlay-{overlay}.png"))
        shots[overlay] = pygame.image.tobytes(surface, "RGB")
    clean = Scoreboard((1280, 720), lang="ru", keys=mode_keys(cfg), team_keys=team_keys(cfg))
    surface = pygame.Surface((1280, 720))
    view, flash, status, _ = viewmodel.projector(vm, False)
    clean.draw(surface, view, 0, flash=None, status={k: v for k, v in status.items() if k not in ("notice", "entry")})
    assert shots[False] == pygame.image.tobytes(surface, "RGB")   # the audience picture alone
    assert shots[True] != shots[False]                             # the key help and the notice on top


def test_the_view_model_carries_the_typed_screen_in_its_language_beside_the_view():
    """``screen`` (controller/core/screen.py) next to the game's view: the audience's widgets,
    their words in the model's language; the host's part only under ``host``."""
    cfg = config_mod.load(None)
    loop = Loop(cfg, engine.new_game(cfg, 1), EngineClock())
    play(loop, Host("question", 1 * S), Host("reading_done", 2 * S), Press("A", 3 * S, 3 * S), Tick(3 * S + S // 10))
    vm = viewmodel.from_loop(loop, seq=1)
    scr = vm["audience"]["screen"]
    assert scr["layout"] == "game" and scr["main"]["kind"] == "holder" and scr["main"]["holder"]["name"] == "Альфа"
    assert scr["header"]["title"] == "Эрудит-квартет" and "Раунд 1 из 4" in scr["header"]["structure"]
    assert [p["name"] for p in scr["presses"]["entries"]] == ["Альфа"] and "host" not in scr
    assert vm["audience"]["game"]["teams"][0]["holder"]          # the view's fields stay
    en = viewmodel.build(engine.view(loop.state), lang="en")["audience"]["screen"]
    assert en["header"]["title"] == "Erudite Quartet"


def test_a_packages_answer_is_in_the_hosts_screen_only():
    view = {"mode": "x", "teams": [{"name": "A", "score": 1}],
            "pack": {"phase": "question", "question": {"live": True, "text": "Какая река?"}},
            "host": {"pack": {"answer": "Волга"}}}
    vm = viewmodel.build(view, lang="ru")
    assert vm["audience"]["screen"]["main"]["content"]["text"] == "Какая река?"
    assert vm["host"]["screen"]["answer"] == "Волга"
    assert "Волга" not in json.dumps(viewmodel.audience_only(vm), ensure_ascii=False)
