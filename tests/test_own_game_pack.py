"""Своя игра from a .siq package: the board, the host's pick, every question type, the journal,
and a round played through the real loop on the keyboard with the projector rendered."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller.app import config  # noqa: E402
from controller.sessions import journal as journal_mod  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.content import packs  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import ManualClock  # noqa: E402
from controller.core.events import Host, Press, Tick  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.screens.scoreboard import Scoreboard  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402

MS = 1_000_000


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return make_packs.make(tmp_path_factory.mktemp("packs"))


def _cfg(made, key="v5", tmp_path=None):
    cfg = config.load(str(ROOT / "config" / "own-game.toml"))
    if tmp_path is not None:
        cfg["journal"]["dir"] = str(tmp_path / "journal")
    err = io.StringIO()
    assert packs.attach(cfg, str(made[key]), out=err), err.getvalue()
    return cfg


class Game:
    def __init__(self, cfg):
        self.s = engine.new_game(cfg, 1)
        self.t = 0
        self.fx = []

    def host(self, action, **params):
        self.t += 100 * MS
        self.s, self.fx = engine.step(self.s, Host(action, self.t, params))
        return self.fx

    def press(self, button):
        self.t += 100 * MS
        self.s, _ = engine.step(self.s, Press(button, self.t, self.t))
        self.t += 10 * MS
        self.s, _ = engine.step(self.s, Tick(self.t))

    def notices(self):
        return [f.key for f in self.fx if type(f).__name__ == "Notice"]

    @property
    def scores(self):
        return list(self.s.scores)


def test_board_pick_by_digits_empties_the_cell_and_answer_is_for_the_host_only(made):
    g = Game(_cfg(made))
    g.host("digit_1")
    v = engine.view(g.s)
    assert v["pack"]["picking_theme"] == 1 and v["pack"]["question"] is None
    g.host("digit_1")
    v = engine.view(g.s)
    assert v["pack"]["question"]["text"] == "Что изображено на картинке?"
    assert v["pack"]["question"]["media"]["image"]["member"] == "Images/Снимок 1.png"
    from controller.screens.viewmodel import split_view
    audience, host = split_view(v)            # what the projector and the audience pages get
    assert "Красный квадрат" not in repr(audience)
    assert host["pack"]["answer"] == "Красный квадрат"
    g.host("reading_done")
    g.press("A")
    g.host("right")
    assert g.scores == [100, 0, 0]
    board = engine.view(g.s)["pack"]["board"]
    assert board[0]["cells"][0]["played"] and not board[0]["cells"][1]["played"]
    g.host("pick", theme=1, cell=1)
    assert g.notices() == ["pack.played"]


def test_no_risk_only_the_chooser_answers_for_double_and_loses_nothing(made):
    g = Game(_cfg(made))
    g.host("pick", theme=1, cell=1); g.host("reading_done"); g.press("C"); g.host("right")   # Вера 100
    g.host("pick", theme=1, price=200)                               # Вера chose: she answers
    assert g.s.question.holder == 2 and g.s.question.nominal == 400
    g.press("B")                                                     # nobody else can
    g.host("wrong")
    assert g.scores == [0, 0, 100] and not g.s.question.open


def test_cat_in_the_bag_goes_to_the_named_player_for_its_own_price(made):
    g = Game(_cfg(made))
    g.host("pick", theme=2, cell=2)
    q = engine.view(g.s)["pack"]["question"]
    assert q["text"] == "" and q["secret_theme"] == "Животные"      # the question is not shown yet
    g.host("digit_3")                                                # Вера gets it
    assert engine.view(g.s)["pack"]["question"]["player"] == "Вера"
    g.press("A")                                                     # nobody else can answer
    g.host("wrong")
    assert g.scores == [0, 0, -300]
    assert not g.s.question.open


def test_auction_bids_typed_by_the_host(made):
    g = Game(_cfg(made))
    g.host("adjust", team=1, points=500); g.host("adjust", team=2, points=300)
    g.host("pick", theme=3, cell=1)                                  # the auction (price 100); Вера chose
    # Вера (0 points) bid the price; then the fewest points first (SIGame): Борис (300), then Аня (500)
    assert engine.view(g.s)["pack"]["question"]["bidder"] == "Борис"
    g.host("digit_5"); g.host("right")                               # 5: below the next bid
    assert g.notices() == ["pack.bad_bid"]
    g.host("digit_2"); g.host("reading_done"); g.host("reading_done")   # keypad 0 types zeros: 200
    g.host("right")                                                  # Борис bids 200
    assert engine.view(g.s)["pack"]["question"]["bidder"] == "Аня"
    g.host("pass")                                                   # Аня passes: Борис answers
    assert engine.view(g.s)["pack"]["question"]["stake"] == 200 and g.s.question.holder == 1
    g.host("right")
    assert g.scores == [500, 500, 0]


def test_other_types_are_played_as_simple_with_a_notice(made):
    import copy
    cfg = _cfg(made)
    cfg["own_game"]["package"] = copy.deepcopy(cfg["own_game"]["package"])
    cfg["own_game"]["package"]["rounds"][0]["themes"][2]["questions"][1]["type"] = "choice"
    g = Game(cfg)
    g.host("pick", theme=3, cell=2)
    assert g.notices() == ["pack.played_as_simple"]
    assert g.s.question.open and g.s.question.holder is None


def test_final_round_removes_themes_then_stakes_and_rulings(made):
    g = Game(_cfg(made))
    g.host("pick", theme=1, cell=1); g.host("reading_done"); g.press("A"); g.host("right")   # Аня 100
    g.host("pick", theme=2, cell=1); g.host("reading_done"); g.press("C"); g.host("right")   # Вера 100
    g.host("adjust", team=3, points=100)                                                      # Вера 200
    g.host("pack_round")
    assert engine.view(g.s)["pack"]["final"] is True
    assert engine.view(g.s)["pack"]["remover"] == "Вера"      # two themes: the one with most removes
    g.host("digit_1")                                        # Вера removes «История»: «География» is played
    assert engine.view(g.s)["pack"]["phase"] == "final_stakes"
    assert engine.view(g.s)["pack"]["question"]["text"] == ""
    g.host("digit_5"); g.host("digit_0"); g.host("right")      # Аня stakes 50 (Борис, 0 points, stakes 1)
    g.host("stake", team="Вера", points=300)
    assert g.notices() == ["pack.bad_stake"]                  # more than she has
    g.host("digit_2"); g.host("reading_done"); g.host("reading_done"); g.host("right")   # 200
    v = engine.view(g.s)
    assert v["pack"]["phase"] == "final_rulings"
    assert v["pack"]["question"]["text"] == "Самая длинная река Европы?"
    assert v["host"]["pack"]["stakes"] == {"Аня": 50, "Борис": 1, "Вера": 200}
    g.host("wrong")                                   # Аня
    g.host("wrong")                                   # Борис
    g.host("right")                                   # Вера
    assert g.scores == [50, -1, 400]
    assert engine.summary(g.s)["pack"]["final_results"] == {"Аня": "wrong", "Борис": "wrong", "Вера": "right"}
    # the last answer shows (pack_answer_show_s), then the game is over
    assert engine.view(g.s)["pack"]["question"]["answer"]["answer"] == "Волга" and g.s.stage != "finished"
    g.t += 2_000 * MS
    g.s, _ = engine.step(g.s, Tick(g.t))
    assert g.s.stage == "finished"


def test_without_a_package_digits_are_not_keys_and_summary_is_unchanged():
    cfg = config.load(str(ROOT / "config" / "own-game.toml"))
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock(0), out=io.StringIO())
    assert loop.host_keys.action(["1"]) is None
    assert "pack" not in engine.summary(loop.state) and "pack" not in engine.view(loop.state)


def test_a_broken_package_lets_the_game_go_on_without_it(made):
    cfg = config.load(str(ROOT / "config" / "own-game.toml"))
    err = io.StringIO()
    assert not packs.attach(cfg, str(made["traversal"]), out=err)
    assert err.getvalue().count("\n") == 1 and "unsafe file name" in err.getvalue()
    assert engine.new_game(cfg, 1).pack is None


def _keys(loop, clock, *names):
    for n in names:
        loop.key_down([n])
        loop.key_up([n])
        loop.drain()
        clock.advance(5 * MS)
        loop.tick_if_due()


def _share(surface, rect, colour, tol=20):
    hits = total = 0
    for x in range(rect.x, rect.right, 3):
        for y in range(rect.y, rect.bottom, 3):
            c = surface.get_at((x, y))
            total += 1
            hits += all(abs(c[i] - colour[i]) <= tol for i in range(3))
    return hits / max(total, 1)


class RecordingAudio:
    """The real mixer's file player, recorded (CI has no sound card: SDL's dummy driver)."""

    def __init__(self, cfg):
        from controller.sound.audio import Audio
        self.audio = Audio(cfg)
        self.files = []

    def play(self, name):
        self.audio.play(name)

    def play_file(self, path):
        self.files.append(path)
        return self.audio.play_file(path) or True


def test_a_round_played_on_the_keyboard_through_the_loop(made, tmp_path):
    """A new user's game: the board on the projector, keys 1 1 open the picture question (the
    picture on the screen), Space, Аня's key Q, Enter; keys 2 1 open the audio question (played
    through the mixer); then the journal resumes the same board."""
    cfg = _cfg(made, tmp_path=tmp_path)
    pygame.display.init()
    pygame.font.init()
    clock = ManualClock(1_000 * MS)
    jdir = Path(cfg["journal"]["dir"])
    jr = journal_mod.Journal(journal_mod.current_path(jdir), header=journal_mod.new_header(cfg, 1, None), fsync=False)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, journal=jr, out=io.StringIO())
    keys = {t["button"]: t["key"] for t in cfg["teams"]}
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue, {"keys": keys})
    loop.pack_media = packs.open_media(cfg)
    loop.audio = RecordingAudio(cfg)
    board = Scoreboard((1280, 720), lang="ru")
    board.pack.media_data = loop.pack_media.data
    surface = pygame.Surface((1280, 720))
    try:
        def shot(name):
            view = engine.view(loop.state, clock.now())
            board.draw(surface, view, clock.now(), status=loop.status())
            pygame.image.save(surface, str(tmp_path / name))
            return view

        view = shot("board.png")
        assert [th["name"] for th in view["pack"]["board"]] == ["Картины", "Звуки", "Разное"]
        middle = pygame.Rect(16, 108, 1248, 400)
        assert _share(surface, middle, (30, 60, 170)) > 0.3           # the board's cells fill the middle
        _keys(loop, clock, "1", "1")
        view = shot("picture.png")
        assert view["pack"]["question"]["live"]
        # the picture: its red square and yellow stripe on the projector, in the main area
        main = pygame.Rect(16, 108, 799, 370)
        assert _share(surface, main, (220, 30, 30)) > 0.05
        assert _share(surface, main, (240, 210, 20)) > 0.01
        _keys(loop, clock, "space", "q")
        clock.advance(50 * MS)
        loop.tick_if_due()
        _keys(loop, clock, "return")
        assert list(loop.state.scores) == [100, 0, 0]
        view = shot("board-after.png")
        assert view["pack"]["board"][0]["cells"][0]["played"]
        _keys(loop, clock, "2", "1")                                   # the audio question
        assert loop.audio.files and loop.audio.files[0].endswith(".wav")
        assert Path(loop.audio.files[0]).parent == loop.pack_media.store.folder
        view = shot("audio.png")
        assert view["pack"]["question"]["media"]["audio"]["name"] == "звук.wav"
        jr.close()
        state, _, _, _ = journal_mod.replay(journal_mod.read(journal_mod.current_path(jdir)))
        assert state.pack.played == loop.state.pack.played == frozenset({(0, 0, 0), (0, 1, 0)})
        assert list(state.scores) == [100, 0, 0]
        assert (tmp_path / "picture.png").stat().st_size > 0
    finally:
        loop.pack_media.close()
    assert not loop.pack_media.store


def test_with_a_package_a_plain_question_is_refused_the_board_gives_them(made):
    from controller.core.effects import Notice

    g = Game(_cfg(made))
    fx = g.host("question", nominal=100)
    assert [f.key for f in fx if isinstance(f, Notice)] == ["pack.pick_a_cell"]
    assert engine.view(g.s)["question"] is None        # nothing opened: the host picks a cell instead


def test_the_host_page_offers_the_package_actions_as_forms(made):
    """A phone replaces the keypad in a package game too: pick (theme, cell), the player of
    «кот в мешке», a stake, and the next package round, each with its label."""
    from controller.screens import viewmodel

    g = Game(_cfg(made))
    acts = {a["action"]: a for a in viewmodel.web_actions(g.s, "ru")}
    assert [p["name"] for p in acts["pick"]["params"]] == ["theme", "cell"]
    assert [p["name"] for p in acts["player"]["params"]] == ["team"]
    assert [p["name"] for p in acts["stake"]["params"]] == ["points", "team"]
    assert acts["pack_round"]["label"] == "Следующий раунд пакета" and "params" not in acts["pack_round"]
