"""SIGame's rules of a package's question types, played through the real loop on the keyboard
with the projector rendered (tests/packs/make_packs.py's ``rules.siq``, our own): empty cells,
«кот в мешке» in every price mode and receiver, «без риска», the auction, for all, stakes of
all, the final's theme removal and hidden stakes, its end screen, package times -- judged by
the scores and by the words the rendered frame draws (docs/packages.md, «SIGame's rules»)."""

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
from controller.app.loop import Loop  # noqa: E402
from controller.content import packs, siq  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import ManualClock  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.screens.scoreboard import Scoreboard  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402
from test_own_game_pack import _share  # noqa: E402

MS = 1_000_000


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return make_packs.make(tmp_path_factory.mktemp("packs"))


class Screen(Scoreboard):
    """The projector's real drawing, with every word it draws kept (what the hall reads)."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.words: list[str] = []

    def _text(self, surface, text, rect, size, colour, *a, **kw):
        if text:
            self.words.append(str(text))
        return super()._text(surface, text, rect, size, colour, *a, **kw)


class Hall:
    """A game of the package on the keyboard through the loop, the projector drawn to PNG."""

    def __init__(self, made, key, tmp_path, scores=None, **settings):
        cfg = config.load(str(ROOT / "config" / "own-game.toml"))
        cfg["journal"]["dir"] = str(tmp_path / "journal")
        cfg["own_game"].update(settings)
        err = io.StringIO()
        assert packs.attach(cfg, str(made[key]), out=err), err.getvalue()
        pygame.display.init()
        pygame.font.init()
        self.clock = ManualClock(1_000 * MS)
        self.loop = Loop(cfg, engine.new_game(cfg, 1), self.clock, out=io.StringIO())
        self.keys = {t["name"]: t["key"] for t in cfg["teams"]}
        self.loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], self.clock, self.loop.enqueue,
                                            {"keys": {t["button"]: t["key"] for t in cfg["teams"]}})
        self.screen = Screen((1280, 720), lang="ru")
        self.surface = pygame.Surface((1280, 720))
        self.tmp = tmp_path
        # the package's pictures, read when first shown (as `buzzer run` does)
        self.loop.pack_media = packs.open_media(cfg)
        self.screen.pack.media_data = self.loop.pack_media.data
        for i, pts in enumerate(scores or (), 1):   # the host's corrections give the players points
            if pts:
                self._adjust(i, pts)

    def _adjust(self, team, points):
        from controller.core.events import Host
        self.loop.enqueue(Host("adjust", self.clock.now(), {"team": team, "points": points}))
        self.loop.drain()

    def key(self, *names):
        for n in names:
            self.loop.key_down([n])
            self.loop.key_up([n])
            self.loop.drain()
            self.clock.advance(5 * MS)
            self.loop.tick_if_due()

    def press(self, player):
        self.key(self.keys[player])
        self.clock.advance(50 * MS)
        self.loop.tick_if_due()

    def shot(self, name) -> str:
        """Draw the projector's frame to ``name``.png; the words it shows, joined (a wrapped
        line's parts with a space; each drawn piece is in ``self.screen.words``)."""
        view = engine.view(self.loop.state, self.clock.now())
        self.screen.words = []
        self.screen._layer_key = None
        self.screen.draw(self.surface, view, self.clock.now(), status=None)
        pygame.image.save(self.surface, str(self.tmp / f"{name}.png"))
        return " ".join(self.screen.words)

    def shown(self) -> set[str]:
        """The package files the web's ``/media`` would serve now (only what the audience is shown)."""
        from controller.screens import viewmodel
        from controller.web.server import shown_members
        return shown_members(viewmodel.from_loop(self.loop))

    def close(self):
        self.loop.pack_media.close()

    @property
    def scores(self):
        return list(self.loop.state.scores)

    @property
    def notice(self):
        return self.loop.notice


def test_an_empty_cell_keeps_its_place_on_the_board(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    board = engine.view(h.loop.state)["pack"]["board"]
    assert [c["price"] for c in board[0]["cells"]] == [100, 200, 300, -1, 500]   # not shifted left
    assert board[0]["cells"][3]["empty"]
    words = h.shot("board")
    assert "500" in words and "-1" not in words
    h.key("1", "4")
    assert "пустая" in h.notice.lower() and engine.view(h.loop.state)["pack"]["question"] is None
    h.key("1", "5")                     # the 500 is in the fifth place, where the package put it
    assert engine.view(h.loop.state)["pack"]["question"]["price"] == 500


def test_cat_with_a_price_range_the_player_picks_and_not_the_chooser(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h.key("1", "1", "space"); h.press("Борис"); h.key("return")       # Борис right: he chooses next
    assert h.scores == [0, 100, 0]
    h.key("1", "2")                                                  # the cat (range 100..500 by 200)
    words = h.shot("cat-who")
    assert "Кот в мешке! Тема: Календарь" in words and "сколько дней" not in words
    assert "№1 Аня" in words and "№3 Вера" in words                  # numbers, not places, while typed
    h.key("2")                                                       # Борис chose it: not his
    assert h.notice.startswith("Вопрос выбирал игрок Борис:") and h.loop.state.pack.phase == "player"
    h.key("3")                                                       # Вера gets it
    words = h.shot("cat-price")
    assert "Цена: 100–500 (шаг 200)" in words
    h.key("4", "0", "0", "return")                                   # 400 is not on the step
    assert "шаг: 200" in h.notice
    h.key("5", "0", "0", "return")                                   # she picks 500
    words = h.shot("cat-question")
    assert "Коты · 500" in words and "сколько дней в неделе?" in words and "200" not in h.screen.words
    h.key("backspace")
    assert h.scores == [0, 100, -500]
    assert not h.loop.state.question.open                           # only she answers


def test_cat_zero_zero_is_the_rounds_minimum_or_maximum_to_anyone_and_v4_alike(made, tmp_path):
    for key in ("rules", "rules_v4"):
        h = Hall(made, key, tmp_path)
        h.key("1", "3")                              # nobody has answered: Аня (fewest points, first) chose
        h.key("1")                                   # «any»: she may take it herself
        q = engine.view(h.loop.state)["pack"]["question"]
        round_prices = [100, 200, 300, 500] + ([100, 200, 300, 400, 500] if key == "rules" else [200])
        assert q["price_options"] == [min(round_prices), max(round_prices), max(round_prices) - min(round_prices)]
        assert "Цена на выбор: 100 / 500" in h.shot(f"cat-ends-{key}")
        h.key("3", "0", "0", "return")               # neither end
        assert h.loop.state.pack.phase == "secret_price"
        h.key("1", "0", "0", "return", "return")     # the minimum, then right
        assert h.scores == [100, 0, 0], key


def test_v4_and_v5_forms_of_the_same_cats_give_the_same_prices():
    import tempfile
    out = Path(tempfile.mkdtemp())
    made = make_packs.make(out)
    v5 = {q.text: (q.type, q.price_range, q.selection or "exceptCurrent")
          for th in siq.read(made["rules"]).rounds[0].themes for q in th.questions if q.type.startswith("secret")}
    v4 = {q.text: (q.type, q.price_range, q.selection)
          for th in siq.read(made["rules_v4"]).rounds[0].themes for q in th.questions if q.type.startswith("secret")}
    assert v4 == v5 and len(v4) == 4


def test_cat_with_its_price_told_first_and_cat_with_no_question(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h.key("1", "5")                                   # secretPublicPrice: the price before the player
    words = h.shot("cat-public")
    assert "Цена: 400" in words and "Коты · 400" in words and "500" not in h.screen.words
    h.key("2", "return")                              # Борис, right: +400
    assert h.scores == [0, 400, 0]
    h.key("2", "2")                                   # secretNoQuestion: Борис chose, Аня gets 250
    h.key("1")
    assert h.scores == [250, 400, 0]
    assert h.loop.state.question is None or not h.loop.state.question.open   # no question to rule
    assert h.loop.state.pack.phase == "board"


def test_no_risk_only_the_chooser_answers_for_double_and_loses_nothing(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h.key("1", "1", "space"); h.press("Вера"); h.key("return")      # Вера chooses
    h.key("2", "1")
    words = h.shot("no-risk")
    assert "Без риска: Вера отвечает за 200" in words and "Особые · 200" in words
    view = engine.view(h.loop.state, h.clock.now())
    assert view["answer_countdown"]["total_ms"] == 12_000          # the package's answer time
    h.press("Аня")                                                  # nobody else answers
    assert h.loop.state.question.holder == 2
    h.key("backspace")
    assert h.scores == [0, 0, 100] and not h.loop.state.question.open


def test_no_risk_factor_and_penalty_are_config_keys(made, tmp_path):
    h = Hall(made, "rules", tmp_path, no_risk_factor=3, no_risk_penalty=True)
    h.key("2", "1", "backspace")                                   # Аня (fewest points) answers, wrong
    assert h.scores == [-300, 0, 0]


def test_auction_bids_all_in_and_the_highest_bidder_answers(made, tmp_path):
    h = Hall(made, "rules", tmp_path, scores=[800, 600, 1000])
    h._adjust(1, -800 + 200)                   # Аня 200: the fewest points, she chooses
    assert h.scores == [200, 600, 1000]
    h.key("2", "3")                            # the auction, price 300
    # Аня has less than the price: she plays for the price unless outbid (SIGame), Борис bids next
    words = h.shot("auction-first")
    assert "Аукцион: ставит Борис (высшая ставка: 300)" in words and "столица Италии" not in words
    assert engine.view(h.loop.state)["pack"]["question"]["text"] == ""
    st = h.loop.state.pack
    assert [h.loop.state.teams[i].name for i in st.bidders] == ["Аня", "Борис", "Вера"]
    h.key("4", "5", "0", "return")             # Борис 450: not on the step of 100
    assert "шаг: 100" in h.notice
    h.key("5", "0", "0", "return")             # Борис 500
    words = h.shot("auction-bids")
    assert "Аукцион: ставит Вера (высшая ставка: 500)" in words
    h.key("1", "0", "0", "0", "return")        # Вера all in: 1000
    st = h.loop.state.pack
    assert st.all_in and h.loop.state.question is not None and h.loop.state.question.open
    words = h.shot("auction-question")
    assert "Особые · Аукцион: Вера играет на 1000" in words and "столица Италии?" in words
    h.key("return")
    assert h.scores == [200, 600, 2000]


def test_auction_pass_leaves_the_highest_bidder(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    for i, pts in enumerate([500, 700, 900], 1):
        h._adjust(i, pts)
    h.key("2", "3")                            # Аня chooses (fewest)
    h.key("4", "0", "0", "return")             # Аня 400
    h.key("return")                            # Борис passes (Enter with nothing)
    h.key("return")                            # Вера passes
    assert h.loop.state.question.holder == 0 and h.loop.state.question.nominal == 400
    h.key("backspace")
    assert h.scores == [100, 700, 900]


def test_auction_after_the_chooser_the_fewest_points_bid_first_not_the_next_seat(made, tmp_path):
    """SIGame's order of bidders: the chooser, then whoever has the fewest points of those left."""
    h = Hall(made, "rules", tmp_path, scores=[200, 1000, 600])
    h.key("2", "3")                            # Аня (fewest) chooses; 200 < 300: she plays for the price unless outbid
    assert "Аукцион: ставит Вера (высшая ставка: 300)" in h.shot("auction-order")   # Вера 600 before Борис 1000
    h.key("4", "0", "0", "return")             # Вера 400
    assert "Аукцион: ставит Борис (высшая ставка: 400)" in h.shot("auction-order-2")
    h.key("return")                            # Борис passes: Вера plays for 400
    assert h.loop.state.question.holder == 2 and h.loop.state.question.nominal == 400


def test_auction_equal_points_after_the_chooser_the_host_names_who_bids_next(made, tmp_path):
    """SIGame asks the showman who of the players with equal points bids next; the cards show
    the players' numbers while the host types one."""
    h = Hall(made, "rules", tmp_path, scores=[200, 600, 600])
    h.key("2", "3")
    words = h.shot("auction-tie")
    assert "Аукцион: кто ставит следующим? Борис, Вера — выбирает ведущий" in words
    view = engine.view(h.loop.state, h.clock.now())
    assert [t.get("number") for t in view["teams"]] == [1, 2, 3]
    h.key("5", "0", "0", "return")             # a bid before the host has named the bidder: refused
    assert "Сначала назовите, кто следующий: Борис, Вера" in h.notice and h.loop.state.pack.stake == 300
    h.key("3")                                 # the host names Вера
    assert "Аукцион: ставит Вера (высшая ставка: 300)" in h.shot("auction-tie-named")
    h.key("5", "0", "0", "return")             # Вера 500
    assert "Аукцион: ставит Борис (высшая ставка: 500)" in h.shot("auction-tie-next")   # then Борис, unasked
    h.key("6", "0", "0", "return")             # Борис all in: 600; Вера cannot top it
    assert h.loop.state.question.holder == 1 and h.loop.state.question.nominal == 600


def test_auction_equal_points_the_host_page_names_the_next_bidder(made, tmp_path):
    from controller.core.events import Host
    from controller.screens import viewmodel

    h = Hall(made, "rules", tmp_path, scores=[200, 600, 600])
    h.key("2", "3")
    acts = {a["action"]: a for a in viewmodel.web_actions(h.loop.state, "ru")}
    assert [p["name"] for p in acts["next_player"]["params"]] == ["team"]
    h.loop.enqueue(Host("next_player", h.clock.now(), {"team": 1}))   # Аня is not one of them
    h.loop.drain()
    assert "Аня" in h.notice and h.loop.state.pack.choosing == (1, 2)
    h.loop.enqueue(Host("next_player", h.clock.now(), {"team": "Борис"}))
    h.loop.drain()
    assert "Аукцион: ставит Борис (высшая ставка: 300)" in h.shot("auction-tie-page")


def test_for_all_every_answer_ruled_in_turn(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h.key("2", "4")
    words = h.shot("for-all")
    assert "Для всех: отвечают все" in words and "сколько цветов у радуги?" in words
    h.key("return", "backspace", "return")
    assert h.scores == [400, -400, 400]
    assert h.loop.state.pack.phase == "board"


def test_stakes_of_all_in_an_ordinary_round_are_hidden_stakes_not_a_final(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h._adjust(1, 300)
    h._adjust(2, 100)
    h.key("2", "5")                            # stakeAll: Вера (0 points) stakes 1 without asking
    words = h.shot("stake-all")
    assert "Ставки всех: 1 из 3" in words and "самая высокая гора" not in words and "Финал" not in words
    h.key("2", "0", "0", "return")             # Аня 200
    h.key("5", "0", "return")                  # Борис 50
    words = h.shot("stake-all-question")
    assert "самая высокая гора?" in words
    h.key("return", "backspace", "return")
    assert h.scores == [500, 50, 1]
    assert h.loop.state.pack.phase == "board" and h.loop.state.stage != "finished"


def test_pack_show_names_stakes_of_all_and_the_empty_cell(made):
    text = packs.show_text(siq.read(made["rules"]), "ru")
    assert "ставки всех" in text and "финал (ставки)" not in text
    assert "4)     —  пустая ячейка" in text and "кот в мешке (цена известна)" in text


def test_the_final_removes_themes_in_turns_takes_hidden_stakes_and_ends_with_the_standings(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h._adjust(1, 300)
    h._adjust(2, 500)
    h.key("r")
    words = h.shot("final-board")
    assert "1. Реки" in words and h.screen.words.count("0") == 1  # theme names, no «0» cells (Вера's 0)
    assert "Коты" not in words and "Особые" not in words           # nor the last round's theme
    # two players in the game, three themes: two removals, the one with most points removes last
    assert "Финал: тему убирает Аня" in words
    h.key("2")                                                     # Аня removes «Горы»
    assert "Финал: тему убирает Борис" in h.shot("final-board-2")
    h.key("2")
    assert "уже убрана" in h.notice.lower()
    h.key("3")                                                     # Борис removes «Моря»: «Реки» is played
    words = h.shot("final-stakes")
    assert "Финал: ставки (1 из 3)" in words and "Реки" in words and "Африки" not in words
    h.key("3", "0", "0", "return")                                # Аня 300 (all)
    h.key("1", "0", "0", "return")                                # Борис 100; Вера's is 1
    words = h.shot("final-question")
    assert "Самая длинная река Африки?" in words
    assert engine.view(h.loop.state, h.clock.now())["countdown"]["total_ms"] == 45_000   # SIGame's 45 s
    h.key("backspace", "return", "return")
    assert h.scores == [0, 600, 1]
    words = h.shot("final-answer")                                 # the last answer first (SIGame)
    assert "Правильный ответ: Нил" in words and h.loop.state.stage != "finished"
    h.clock.advance(2_000 * MS)                                    # pack_answer_show_s
    h.loop.tick_if_due()
    assert h.loop.state.stage == "finished"
    words = h.shot("final-standings")
    assert words.index("Борис") < words.index("Вера") < words.index("Аня")


def test_the_final_equal_points_the_host_names_who_removes_a_theme(made, tmp_path):
    """SIGame's final with equal points: the showman names which of those players removes a
    theme; the next removal of that level goes to the other without asking."""
    h = Hall(made, "rules", tmp_path, scores=[300, 300, 0])
    h.key("r")
    words = h.shot("final-tie")
    assert "Финал: кто убирает тему? Аня, Борис — выбирает ведущий" in words
    assert [t.get("number") for t in engine.view(h.loop.state, h.clock.now())["teams"]] == [1, 2, 3]
    h.key("3")                                  # Вера has no points: not hers to remove
    assert "Вера" in h.notice and not h.loop.state.pack.removed
    h.key("2")                                  # the host names Борис
    assert "Финал: тему убирает Борис" in h.shot("final-tie-named")
    h.key("3")                                  # Борис removes «Моря»
    assert h.loop.state.pack.removed == frozenset({2})
    assert "Финал: тему убирает Аня" in h.shot("final-tie-next")   # Аня next, unasked
    h.key("2")                                  # Аня removes «Горы»: «Реки» is played
    assert "Финал: ставки" in h.shot("final-tie-stakes")


def test_the_final_with_nobody_on_points_the_host_names_each_remover_but_the_last(made, tmp_path):
    h = Hall(made, "rules", tmp_path)           # 0, 0, 0: everyone plays (everyone_plays_hidden_stakes)
    h.key("r")
    assert "Аня, Борис, Вера — выбирает ведущий" in h.shot("final-zero")
    h.key("3", "1")                              # Вера removes «Реки»
    assert "Аня, Борис — выбирает ведущий" in h.shot("final-zero-2")
    h.key("1", "3")                              # Аня removes «Моря»: «Горы» is played
    assert h.loop.state.pack.removed == frozenset({0, 2}) and h.loop.state.pack.phase == "final_rulings"


def test_rule_keys_have_sigames_defaults():
    cfg = config.load(str(ROOT / "config" / "own-game.toml"))["own_game"]
    assert (cfg["no_risk_factor"], cfg["no_risk_penalty"], cfg["for_all_penalty"],
            cfg["everyone_plays_hidden_stakes"], cfg["solo_answer_time_s"], cfg["hidden_answer_time_s"],
            cfg["wrong_penalty"]) == (2, False, True, True, 25.0, 45.0, True)


def test_without_the_wrong_answer_penalty_a_button_question_costs_nothing_but_a_cat_still_does(made, tmp_path):
    """``wrong_penalty = false`` (SIGame's QuestionWithButtonPenalty: none) is for the questions the
    buttons race for; «кот в мешке» and the auction keep SIGame's penalty (it has no option for them)."""
    h = Hall(made, "rules", tmp_path, wrong_penalty=False)
    h.key("1", "1", "space")                   # simple, 100: Аня wrong, Борис right
    h.press("Аня")
    h.key("backspace")
    assert h.scores == [0, 0, 0]
    h.press("Борис")
    h.key("return")
    assert h.scores == [0, 100, 0]
    h.key("1", "5", "1")                       # the cat with its price told first (400): Борис chose, Аня gets it
    h.key("backspace")
    assert h.scores == [-400, 100, 0]


MAIN = pygame.Rect(16, 108, 1248, 400)
"""The projector's game area at 1280×720 (where the question and its pictures are drawn)."""


def test_the_auctions_picture_waits_for_the_stake_then_shows(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    try:
        for i, pts in enumerate([500, 700, 900], 1):
            h._adjust(i, pts)
        h.key("2", "3")                                  # the auction: Аня bids first
        words = h.shot("auction-picture-hidden")
        assert "Аукцион: первым ставит Аня (от 300)" in words and "столица Италии" not in words
        assert _share(h.surface, MAIN, make_packs.GREEN) == 0     # its picture is not on the projector
        assert engine.view(h.loop.state, h.clock.now())["pack"]["question"]["items"] == []
        assert h.shown() == set()                        # nor served to a page
        h.key("4", "0", "0", "return")                   # Аня 400
        h.key("5", "0", "0", "return")                   # Борис 500: Аня (500) is out
        assert "Аукцион: ставит Вера (высшая ставка: 500)" in h.shot("auction-picture-bids")
        assert h.shown() == set() and _share(h.surface, MAIN, make_packs.GREEN) == 0
        h.key("return")                                  # Вера passes: Борис plays for 500
        words = h.shot("auction-picture-shown")
        assert "столица Италии?" in words
        assert _share(h.surface, MAIN, make_packs.GREEN) > 0.03
        assert h.shown() == {"Images/рим.png"}
    finally:
        h.close()


def test_the_answer_content_shows_after_a_no_risk_ruling(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    try:
        h.key("2", "1")                                  # «без риска»: Аня (fewest points) answers
        words = h.shot("no-risk-question")
        assert "Три раза по три" not in words and _share(h.surface, MAIN, make_packs.ORANGE) == 0
        assert h.shown() == set()                        # the answer's picture: not before the ruling
        h.key("backspace")                               # wrong: nobody else answers, it is over
        assert h.scores == [0, 0, 0]
        words = h.shot("no-risk-answer")
        assert "Правильный ответ: Девять" in words and "Три раза по три" in words
        assert _share(h.surface, MAIN, make_packs.ORANGE) > 0.03
        assert h.shown() == {"Images/девять.png"}
        h.clock.advance(5_000 * MS)                      # pack_image_s for its one picture: the board again
        h.loop.tick_if_due()
        assert "Правильный ответ" not in h.shot("no-risk-board") and h.shown() == set()
    finally:
        h.close()


def test_a_cat_with_no_question_shows_none_of_its_content(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    try:
        h.key("2", "2")                                  # secretNoQuestion: Аня chose it
        h.shot("gift-who")
        h.key("2")                                       # Борис gets 250, no question
        assert h.scores == [0, 250, 0]
        view = engine.view(h.loop.state, h.clock.now())
        assert view["pack"]["question"]["items"] == [] and view["pack"]["question"]["answer"] is None
        h.shot("gift-given")
        assert _share(h.surface, MAIN, make_packs.MAGENTA) == 0 and h.shown() == set()
    finally:
        h.close()


def test_everyones_answers_end_with_the_answer_shown(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    try:
        h.key("2", "4")                                  # forAll
        h.key("return", "backspace")
        assert "Правильный ответ" not in h.shot("for-all-rulings")   # one answer still to rule
        h.key("return")
        words = h.shot("for-all-answer")
        assert "Правильный ответ: Семь" in words and h.loop.state.pack.phase == "board"
    finally:
        h.close()


def test_withdraw_during_everyones_rulings_withdraws_that_question_not_the_last_ordinary_one(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h.key("1", "1", "space"); h.press("Борис"); h.key("return")     # an ordinary question: Борис +100
    assert h.scores == [0, 100, 0]
    h.key("2", "4")                                                 # forAll: 400 each
    h.key("return", "backspace")                                    # Аня +400, Борис −400
    assert h.scores == [400, -300, 0]
    h.key("x")                                                      # withdraw the forAll question
    assert h.scores == [0, 100, 0]                                  # its rulings undone, Борис keeps his 100
    words = h.shot("for-all-withdrawn")
    assert "Правильный ответ" not in words and "Семь" not in words  # no answer shown
    assert h.loop.state.pack.phase == "board" and h.loop.state.pack.answer_until is None
    h.key("x")                                                      # nothing left to withdraw
    assert h.scores == [0, 100, 0] and h.loop.state.question.closed == "right"   # the ordinary one stays
    assert "не объявлен" in h.notice
    h.key("u")                                                      # nor to undo: the ordinary question stays
    assert h.scores == [0, 100, 0] and h.loop.state.pack.phase == "board"
    assert (0, 1, 3) in h.loop.state.pack.played                    # the forAll cell stays played


def test_undo_during_everyones_rulings_does_not_go_back_to_the_last_ordinary_question(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h.key("1", "1", "space"); h.press("Борис"); h.key("return")     # Борис +100: an undo would take it back
    h.key("2", "4", "return")                                       # forAll, Аня +400
    h.key("u")                                                      # Аня's ruling taken back, Борис's kept
    assert h.scores == [0, 100, 0] and h.loop.state.pack.phase == "final_rulings"
    assert (0, 1, 3) in h.loop.state.pack.played


def test_withdraw_during_the_stakes_of_all_rulings_and_after_its_answer(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h._adjust(1, 300)
    h._adjust(2, 100)
    h.key("2", "5", "2", "0", "0", "return", "5", "0", "return")    # stakeAll: Аня 200, Борис 50, Вера 1
    h.key("return", "backspace", "return")                          # all ruled: the answer shows
    assert h.scores == [500, 50, 1] and "Правильный ответ" in h.shot("stake-all-answer")
    h.key("x")                                                      # withdrawn after its answer
    assert h.scores == [300, 100, 0]
    assert "Правильный ответ" not in h.shot("stake-all-withdrawn")


def test_withdraw_during_the_finals_rulings_undoes_them_and_ends_without_the_answer(made, tmp_path):
    h = Hall(made, "rules", tmp_path)
    h._adjust(1, 300)
    h._adjust(2, 500)
    h.key("r", "2", "3")                                            # the final: «Реки» is played
    h.key("3", "0", "0", "return", "1", "0", "0", "return")         # Аня 300, Борис 100, Вера 1
    h.key("backspace")                                              # Аня wrong: −300
    assert h.scores == [0, 500, 0]
    h.key("x")
    assert h.scores == [300, 500, 0]
    words = h.shot("final-withdrawn")
    assert "Правильный ответ" not in words and "Нил" not in words
    assert h.loop.state.stage == "finished"                         # the final was the last question


def test_undo_in_a_for_all_question_takes_back_its_last_ruling_not_the_previous_question(made, tmp_path):
    """U («Отменить последнее») while everyone's answers are ruled takes back the last of
    those rulings; the question before it (its ruling and its cell) stays as it was."""
    h = Hall(made, "rules", tmp_path)
    h.key("1", "1", "space")                         # simple: Борис wrong (−100), Вера right (+100)
    h.press("Борис")
    h.key("backspace")
    h.press("Вера")
    h.key("return")
    h.key("2", "4")                                  # forAll, 400
    h.key("return")                                  # Аня right, +400
    assert h.scores == [400, -100, 100]
    h.key("u")
    assert h.scores == [0, -100, 100]                # Аня's ruling taken back, the others' stay
    words = h.shot("for-all-undone")
    assert "сколько цветов у радуги?" in words and "цвет неба?" not in words
    h.key("backspace", "return", "return")           # Аня wrong now, Борис and Вера right
    assert h.scores == [-400, 300, 500]
    assert h.loop.state.pack.phase == "board"


def test_undo_while_the_auction_is_bid_does_not_reopen_the_previous_question(made, tmp_path):
    h = Hall(made, "rules", tmp_path, scores=(0, 600, 0))
    h.key("1", "1", "space")                         # simple: Вера answers right, +100
    h.press("Вера")
    h.key("return")
    h.key("2", "3")                                  # auction: the bids are being typed
    h.key("u")
    assert h.scores == [0, 600, 100]
    assert h.loop.state.pack.phase == "bids"
    assert "Нечего отменять" in h.notice


def terminal(h) -> str:
    """The host's terminal status (buzzer run without a display), as its lines."""
    from controller.app import runner
    from controller.screens import terminal as term
    return "\n".join(term.status_block(runner.model(h.loop), h.loop.cfg["language"]))


def test_the_terminal_shows_the_board_whose_answer_is_ruled_and_who_removes_a_final_theme(made, tmp_path):
    """Without a display the host plays from the terminal: it shows the board the projector
    shows (themes, numbers, prices left), the stage of a question and whose answer Enter /
    Backspace rules now, and the final's themes with who removes one."""
    h = Hall(made, "rules", tmp_path, scores=(300, 200, 100))
    text = terminal(h)
    assert "Раунд 1 из 2: Раунд правил" in text
    assert "1. Коты: 100  200  300  ·  500" in text and "2. Особые: 100  200  300  400  500" in text
    h.key("2", "4")                                   # forAll
    text = terminal(h)
    assert "Для всех: отвечают все" in text and "На очереди ответ: Аня" in text
    h.key("return")
    assert "На очереди ответ: Борис" in terminal(h)
    h.key("return", "return")
    h.clock.advance(60_000 * MS)                      # the right answer has been shown
    h.loop.tick_if_due()
    assert "2. Особые: 100  200  300  —  500" in terminal(h)
    h.key("r")                                        # the final
    text = terminal(h)
    assert "1. Реки" in text and "3. Моря" in text and "Финал: тему убирает" in text


def test_the_key_help_says_what_the_number_keys_type_in_a_package_game(made, tmp_path):
    """H in Своя игра with a package: the number keys pick a cell and type a player, a price, a
    bid or a stake -- not «Номер команды» (there are no teams, and no number picks one)."""
    from controller.screens import terminal as term
    h = Hall(made, "rules", tmp_path)
    help_text = term.key_help(h.loop.cfg, "ru")
    line = next(x for x in help_text.splitlines() if x.strip().startswith("0–9"))
    assert "Ячейка: тема, цена" in line and "ставка" in line and "команды" not in line
    assert "Cell: theme, price" in term.key_help(h.loop.cfg, "en")
