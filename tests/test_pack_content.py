"""Every content item of a SIGame package where the audience sees it (issue 25): generated
packages (tests/packs/make_packs.py: ``content.siq``, ``content4.siq``) played through the
real loop, judged by the projector's rendered frames (pygame headless, saved as PNG in the
test's tmp folder), the host's terminal, and the audience page in a real Chromium."""

from __future__ import annotations

import io
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller.app import config  # noqa: E402
from controller.app import runner  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.content import packs  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import ManualClock  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.screens import terminal  # noqa: E402
from controller.screens.pack_screen import ANSWER_BG  # noqa: E402
from controller.screens.scoreboard import Scoreboard  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "packs"))
import make_packs  # noqa: E402
from test_own_game_pack import RecordingAudio, _keys, _share  # noqa: E402

MS = 1_000_000
S = 1000 * MS
MAIN = pygame.Rect(16, 108, 1248, 400)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return make_packs.make(tmp_path_factory.mktemp("packs"))


class Recording(RecordingAudio):
    """The real mixer (SDL's dummy driver in CI), with what was played and stopped recorded."""

    def __init__(self, cfg):
        super().__init__(cfg)
        self.log = []
        self.played = []      # ("play", path) / ("stop",), in order

    def play_file(self, path):
        self.log.append(("play", Path(path).suffix))
        self.played.append(("play", str(path)))
        return super().play_file(path)

    def stop_file(self):
        self.log.append(("stop",))
        self.played.append(("stop",))
        self.audio.stop_file()

    def file_playing(self):
        return self.audio.file_playing()


class Hall:
    """A package game through the real loop, the projector drawn at 1280×720 and every text it draws kept."""

    def __init__(self, made, key, tmp_path):
        cfg = config.load(str(ROOT / "config" / "own-game.toml"))
        assert packs.attach(cfg, str(made[key]), out=io.StringIO())
        pygame.display.init()
        pygame.font.init()
        self.cfg, self.tmp = cfg, tmp_path
        self.clock = ManualClock(1_000 * MS)
        self.loop = Loop(cfg, engine.new_game(cfg, 1), self.clock, out=io.StringIO())
        keys = {t["button"]: t["key"] for t in cfg["teams"]}
        self.loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], self.clock, self.loop.enqueue,
                                            {"keys": keys})
        self.loop.pack_media = packs.open_media(cfg)
        self.loop.audio = Recording(cfg)
        self.board = Scoreboard((1280, 720), lang="ru")
        self.board.pack.media_data = self.loop.pack_media.data
        self.surface = pygame.Surface((1280, 720))
        self.drawn: list[str] = []
        real = self.board._text
        self.board._text = lambda surf, text, *a, **kw: (self.drawn.append(str(text)), real(surf, text, *a, **kw))[1]

    def keys(self, *names):
        _keys(self.loop, self.clock, *names)

    def later(self, ns):
        self.clock.advance(ns)
        self.loop.tick_if_due()

    def shot(self, name):
        self.drawn.clear()
        view = engine.view(self.loop.state, self.clock.now())
        self.board.draw(self.surface, view, self.clock.now(), status=self.loop.status())
        pygame.image.save(self.surface, str(self.tmp / name))
        return view

    def text(self) -> str:
        return " ".join(self.drawn)   # a wrapped paragraph reads as one

    def right(self, key="q"):
        self.keys("space", key)
        self.later(50 * MS)
        self.keys("return")

    def close(self):
        self.loop.pack_media.close()


@pytest.fixture
def hall(made, tmp_path, request):
    h = Hall(made, getattr(request, "param", "content"), tmp_path)
    yield h
    h.close()


def test_the_window_reads_the_packages_pictures_within_the_games_cache_size(made, tmp_path):
    """The projector's window gets the package's pictures and the memory to keep them decoded in
    from the loop's package media (the game's declared ``pack_picture_cache_mb``), through the
    shell the runner gives it -- not by reading a game's config section itself."""
    from controller.screens.window import Window

    cfg = config.load(str(ROOT / "config" / "own-game.toml"))
    cfg["own_game"]["pack_picture_cache_mb"] = 8.0
    cfg["display"].update(fullscreen=False, width=640, height=360)
    assert packs.attach(cfg, str(made["content"]), out=io.StringIO())
    loop = Loop(cfg, engine.new_game(cfg, 1), ManualClock(1_000 * MS), out=io.StringIO())
    loop.use(pack_media=packs.open_media(cfg))
    window = Window(cfg)
    window.open(runner.LoopShell(loop))
    try:
        assert window.board.pack.cache_bytes == 8 * 1024 * 1024
        member = next(m for m in loop.pack_media.store.members if m.startswith("Images/"))
        assert window.board.pack.media_data(member) == loop.pack_media.data(member) is not None
        assert loop.screen is window.board   # (a window: the notices are not printed as lines)
    finally:
        window.close()
        loop.pack_media.close()


def test_pictures_in_turn_then_the_answer_after_right_then_the_board(hall):
    hall.keys("1", "2")                                   # «Годы» 200: three pictures
    view = hall.shot("pictures-1.png")
    assert [i["name"] for i in view["pack"]["question"]["images"]] == ["первая.png", "вторая.png", "третья.png"]
    assert _share(hall.surface, MAIN, make_packs.GREEN) > 0.03 and _share(hall.surface, MAIN, make_packs.MAGENTA) == 0
    assert "1/3" in hall.text() and "Три картинки подряд: что их объединяет?" in hall.text()
    hall.later(5 * S)                                     # pack_image_s: the next one
    hall.shot("pictures-2.png")
    assert _share(hall.surface, MAIN, make_packs.MAGENTA) > 0.03 and _share(hall.surface, MAIN, make_packs.GREEN) == 0
    hall.later(10 * S)                                    # the last one stays
    hall.shot("pictures-3.png")
    assert _share(hall.surface, MAIN, make_packs.CYAN) > 0.03 and "3/3" in hall.text()
    hall.right()
    view = hall.shot("answer.png")
    assert list(hall.loop.state.scores) == [200, 0, 0]
    assert "Правильный ответ: Квадраты" in hall.text()
    assert _share(hall.surface, MAIN, ANSWER_BG) > 0.3    # the answer's green field
    hall.later(2 * S)                                     # pack_answer_show_s: the board again
    view = hall.shot("board.png")
    assert not view["pack"]["question"]["live"] and "Правильный ответ: Квадраты" not in hall.text()


def test_a_theme_task_in_its_comment_and_the_answer_content_with_its_picture(hall):
    hall.keys("1", "1")                                   # «Годы» 100: the question is just «1990»
    hall.shot("year.png")
    assert "Назовите год события" in hall.text() and "1990" in hall.text()
    assert "Объединение Германии" not in hall.text() and "Так и было" not in hall.text()
    # the host's terminal has the answer (the host's part), the audience's view has not
    lines = "\n".join(terminal.status_block(runner.model(hall.loop)))
    assert "1990" in lines and "Ответ: Объединение Германии · Так и было · Дата по новому стилю" in lines
    assert engine.view(hall.loop.state, hall.clock.now())["pack"]["question"]["answer"] is None
    hall.right()
    hall.shot("year-answer.png")
    text = hall.text()
    assert "Правильный ответ: Объединение Германии" in text and "Так и было" in text
    assert "Дата по новому стилю" in text                # the question's comment, with its answer
    assert _share(hall.surface, MAIN, make_packs.ORANGE) > 0.03   # the answer's picture


def test_select_options_and_video_and_html_announced(hall):
    hall.keys("2", "1")
    hall.shot("select.png")
    assert {"A. Марс", "B. Юпитер", "C. Венера"} <= set(hall.drawn)
    hall.keys("x")                                        # withdrawn: back to the board
    hall.keys("2", "2")
    hall.shot("video-html.png")
    assert "▶ Видео «кадр.webm»: играет на странице зрителей" in hall.text()
    assert "Страница «страница.html»: открыта на странице зрителей" in hall.text()


@pytest.mark.parametrize("hall", ["content4"], indirect=True)
def test_v4_pictures_in_turn_and_the_content_after_its_marker(hall):
    hall.keys("1")                                        # a theme of one question: its number opens it
    hall.shot("v4-1.png")
    assert "Ответ — цвет квадрата" in hall.text()
    assert _share(hall.surface, MAIN, make_packs.GREEN) > 0.03
    hall.later(5 * S)
    hall.shot("v4-2.png")
    assert _share(hall.surface, MAIN, make_packs.MAGENTA) > 0.03
    hall.right()
    hall.shot("v4-answer.png")
    assert "Зелёный, потом пурпурный" in hall.text() and _share(hall.surface, MAIN, make_packs.ORANGE) > 0.03


@pytest.mark.parametrize("hall", ["v5"], indirect=True)
def test_a_question_sound_stops_when_it_is_answered(hall):
    hall.keys("2", "1")                                   # «Звуки» 100: a sound
    assert hall.loop.audio.log == [("play", ".wav")]
    hall.right()
    assert hall.loop.audio.log == [("play", ".wav"), ("stop",)]


@pytest.mark.parametrize("hall", ["v4"], indirect=True)
def test_a_question_sound_stops_when_it_is_withdrawn(hall):
    hall.keys("2", "1")                                   # «Звуки» 100 (v4 «voice»)
    assert hall.loop.audio.log == [("play", ".wav")]
    hall.keys("x")
    assert hall.loop.audio.log == [("play", ".wav"), ("stop",)]


def test_the_picture_cache_stays_within_its_bound(made, tmp_path):
    """40 pictures drawn one after another: the decoded pictures kept never pass the bound
    ([own_game] pack_picture_cache_mb; the benchmark plays 500)."""
    from controller.screens.pack_screen import MB, PackScreen
    datas = {f"Images/p{i}.png": make_packs.png(400, 300, (i * 6 % 256, 100, 100)) for i in range(40)}
    screen = PackScreen(media_data=datas.get, cache_bytes=4 * MB)
    pygame.display.init()
    peak = 0
    for member in datas:
        assert screen._image(member, (700, 500)) is not None
        peak = max(peak, screen.cached_bytes)
    assert 0 < peak <= 4 * MB and len(screen._images) < 40


def _host(game, body: dict) -> int:
    """A host action through ``POST /api/host`` of a real ``buzzer run`` (tests/browser.py's Game)."""
    req = urllib.request.Request(game.base + "/api/host", data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + game.token,
                                          "Content-Type": "application/json", "Origin": game.base})
    with urllib.request.urlopen(req, timeout=60) as r:
        return r.status


def _media(game, member: str) -> tuple[int, str | None, bytes]:
    """``GET /media?m=member``: (status, content type, body)."""
    try:
        with urllib.request.urlopen(game.base + "/media?m=" + urllib.parse.quote(member), timeout=60) as r:
            return r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, None, b""


def test_the_audience_page_shows_pictures_in_turn_the_answer_and_plays_the_video(made, tmp_path):
    """A real ``buzzer run --headless --pack content.siq`` and a real Chromium on ``/``: the
    picture showing now comes from /media, which serves nothing the audience is not shown."""
    from tests.browser import Chromium, Game, run

    game = Game(tmp_path, top='mode = "own-game"\n', extra_config="[own_game]\npack_image_s = 1.0\n"
                "pack_answer_show_s = 600\n", args=("--pack", str(made["content"])))
    chromium = Chromium(tmp_path, size=(1280, 900))

    def host(**body):
        return _host(game, body)

    def media(member):
        return _media(game, member)

    try:
        async def scenario():
            page = await chromium.page(game.base + "/")
            await page.wait_for("document.body.dataset.seq !== undefined", timeout=60)
            assert media("Images/ответ.png")[0] == 404          # nothing shown yet
            host(host="pick", theme=1, cell=2)
            src = "document.querySelector('#pack-media img')?.getAttribute('src')"
            first = await page.wait_for(src, timeout=60)
            await page.wait_for("document.querySelector('#pack-media img')?.naturalWidth === 160", timeout=60)
            await page.screenshot(tmp_path / "page-picture-1.png")
            third = await page.wait_for(f"(s => s && s.includes(encodeURIComponent('третья.png')) && s)({src})",
                                        timeout=60)
            await page.wait_for("document.querySelector('#pack-media img')?.naturalWidth === 160", timeout=60)
            await page.screenshot(tmp_path / "page-picture-3.png")
            host(host="withdraw")
            host(host="pick", theme=1, cell=1)
            await page.wait_for("document.getElementById('pack-text').textContent === '1990'", timeout=60)
            comment = await page.eval("document.getElementById('pack-comment').textContent")
            assert media("Images/ответ.png")[0] == 404          # the answer's picture: not before the ruling
            host(host="reading_done")
            game.type("q")
            await page.wait_for("!!document.querySelector('#holder:not([hidden])')", timeout=60)
            host(host="right")
            await page.wait_for("document.getElementById('pack-box').classList.contains('is-answer')", timeout=60)
            await page.wait_for("document.querySelector('#pack-media img')?.naturalWidth === 160", timeout=60)
            answer = await page.eval("[document.getElementById('pack-text').textContent, "
                                     "document.getElementById('pack-answer-text').textContent]")
            await page.screenshot(tmp_path / "page-answer.png")
            status, kind, data = media("Images/ответ.png")
            host(host="withdraw")
            host(host="pick", theme=2, cell=2)
            await page.wait_for("!!document.querySelector('#pack-media video')", timeout=60)
            frame = await page.wait_for("document.querySelector('#pack-media iframe')?.getAttribute('sandbox')",
                                        timeout=60)
            html = media("Html/страница.html")
            await page.close()
            return first, third, comment, answer, (status, kind, data), frame, html

        first, third, comment, answer, pic, frame, html = run(scenario())
        assert "%D0%BF%D0%B5%D1%80%D0%B2%D0%B0%D1%8F.png" in first     # первая.png, then in turn to третья.png
        assert comment == "Назовите год события"
        assert answer == ["Правильный ответ: Объединение Германии", "Так и было"]
        assert pic[0] == 200 and pic[1] == "image/png" and pic[2] == make_packs.png(160, 120, make_packs.ORANGE)
        assert frame == "allow-scripts"
        assert html[0] == 200 and html[1].startswith("text/html") and "Страница из пакета".encode() in html[2]
    finally:
        chromium.close()
        game.close()


def test_media_serves_an_auctions_picture_only_once_the_stake_is_settled(made, tmp_path):
    """A real ``buzzer run --headless --pack rules.siq``: while the bids are typed, ``GET
    /media`` refuses the auction's picture (404); once the highest bidder plays, it is served."""
    from tests.browser import Game, until

    game = Game(tmp_path, top='mode = "own-game"\n', args=("--pack", str(made["rules"])))

    def host(**body):
        return _host(game, body)

    def pack():
        with urllib.request.urlopen(game.base + "/api/state", timeout=60) as r:
            return json.loads(r.read())["audience"]["game"].get("pack") or {}

    def media(member):
        return _media(game, member)

    try:
        for team, points in ((1, 500), (2, 700), (3, 900), (4, 1000)):
            host(host="adjust", team=team, points=points)
        host(host="pick", theme=2, cell=3)                  # the auction: Альфа (fewest points) bids first
        until(lambda: pack().get("phase") == "bids", what="the bids")
        assert pack()["question"]["live"] and pack()["question"]["text"] == ""
        assert media("Images/рим.png")[0] == 404            # not while the bids are typed
        host(host="stake", points=400)                     # Альфа 400
        host(host="stake", points=600)                     # Бета 600: Альфа (500) is out
        until(lambda: (pack().get("question") or {}).get("bidder") == "Гамма", what="Гамма's turn")
        assert media("Images/рим.png")[0] == 404
        host(host="pass")                                  # Гамма and Дельта pass: Бета plays for 600
        host(host="pass")
        until(lambda: (pack().get("question") or {}).get("text") == "Аукцион: столица Италии?", what="the question")
        status, _kind, data = media("Images/рим.png")
        assert status == 200 and data == make_packs.png(160, 120, make_packs.GREEN)
    finally:
        game.close()


@pytest.mark.parametrize("hall", ["timed"], indirect=True)
def test_the_packages_own_times_of_its_pictures_are_honoured(hall):
    """SIGame shows each content item for its own time where the package gives one (v5
    ``duration``): 2 s, then 8 s, then the config's; the answer picture's 9 s keep the answer up."""
    hall.keys("1", "1")
    assert hall.shot("timed-1.png")["pack"]["question"]["image_index"] == 0
    hall.later(2 * S + 100 * MS)
    assert hall.shot("timed-2.png")["pack"]["question"]["image_index"] == 1
    hall.later(7 * S)                                      # 7.1 s into the second one's 8 s: not yet
    assert hall.shot("timed-2b.png")["pack"]["question"]["image_index"] == 1
    hall.later(1 * S)
    view = hall.shot("timed-3.png")
    assert view["pack"]["question"]["image_index"] == 2 and _share(hall.surface, MAIN, make_packs.CYAN) > 0.03
    hall.right()
    hall.later(8 * S)                                      # the answer picture's own 9 s, not pack_answer_show_s (2 s)
    hall.shot("timed-answer.png")
    assert "Правильный ответ: Три" in hall.text()
    hall.later(2 * S)
    view = hall.shot("timed-board.png")
    assert not view["pack"]["question"]["live"] and "Правильный ответ: Три" not in hall.text()


@pytest.mark.parametrize("hall", ["timed4"], indirect=True)
def test_a_v4_atoms_time_is_honoured(hall):
    hall.keys("1", "1")
    assert hall.shot("t4-1.png")["pack"]["question"]["image_index"] == 0
    hall.later(3 * S - 100 * MS)                           # (each key moved the clock by 5 ms)
    assert hall.shot("t4-1b.png")["pack"]["question"]["image_index"] == 0
    hall.later(200 * MS)                                   # its own 3 s, not pack_image_s (5 s)
    assert hall.shot("t4-2.png")["pack"]["question"]["image_index"] == 1
