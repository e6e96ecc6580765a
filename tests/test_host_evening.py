"""A host's evening without a dead end (issue 23, items 1-6): what the host sees on the
projector (frames drawn headless; the words the scoreboard draws on them), in the terminal
and on the pages, at the places where an evening used to stop."""

from __future__ import annotations

import io
import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402

from controller.app import config  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.games import engine  # noqa: E402
from controller.inputs.clock import ManualClock  # noqa: E402
from controller.inputs.keyboard import KeyboardBackend  # noqa: E402
from controller.screens import scoreboard as sb, viewmodel  # noqa: E402
from controller.screens.terminal import feed, key_help, status_line  # noqa: E402

MS = 1_000_000
OUT = os.environ.get("BUZZER_TEST_PNG_DIR")   # set it to keep the frames and look at them


def make_loop(cfg: dict) -> tuple[Loop, ManualClock]:
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, 1), clock, out=io.StringIO())
    loop.backend = KeyboardBackend([t["button"] for t in cfg["teams"]], clock, loop.enqueue,
                                   {"keys": {t["button"]: t["key"] for t in cfg["teams"] if t.get("key")}})
    return loop, clock


def type_keys(loop: Loop, clock: ManualClock, text: str, step_ms: int = 300) -> None:
    """Keys typed in the terminal, ``step_ms`` apart (the settle window passes in between)."""
    for ch in text:
        feed(loop, ch)
        clock.advance(step_ms * MS)
        loop.tick_if_due()
        loop.drain()


def frame(loop: Loop, name: str, size=(1280, 720)) -> tuple[pygame.Surface, list[str]]:
    """The projector's frame of the loop now, and every text the scoreboard drew on it."""
    vm = viewmodel.from_loop(loop)
    view, flash, status, help_on = viewmodel.projector(vm, host_overlay=False)
    drawn: list[str] = []
    board = sb.Scoreboard(size, lang=loop.cfg["language"])
    real = board._text

    def spy(surface, text, *a, **kw):
        drawn.append(str(text))
        return real(surface, text, *a, **kw)

    board._text = spy
    surface = pygame.Surface(size)
    board.draw(surface, view, loop.clock.now(), flash=None, status=status)
    if OUT:
        pygame.image.save(surface, os.path.join(OUT, f"{name}.png"))
    return surface, drawn


def terminal(loop: Loop) -> str:
    view, status = viewmodel.host_screen(viewmodel.from_loop(loop))
    return status_line(view, loop.cfg["language"], status)


# ---------------------------------------------------------------------------
# 1. Брейн-ринг: the next fight from a key and a button; the winner named

def brain_ring_won(tmp_path) -> tuple[Loop, ManualClock]:
    cfg = config.load("config/brain-ring.toml")
    cfg["journal"]["dir"] = str(tmp_path)
    loop, clock = make_loop(cfg)
    for _ in range(3):                              # Бета (key z) answers three questions right
        type_keys(loop, clock, "ntz\n")
    return loop, clock


def test_brain_ring_the_fight_over_screen_names_the_winner(tmp_path):
    loop, clock = brain_ring_won(tmp_path)
    clock.advance(3_000 * MS)                       # the «Победитель» flash is long gone
    surface, drawn = frame(loop, "brain-ring-fight-over")
    assert "Окончен бой 1" in drawn and "Победитель" in drawn and "Бета" in drawn
    assert "3 : 0" in drawn
    assert not any(text.startswith("✓") for text in drawn)          # not «✓ Верно Бета +1»
    line = terminal(loop)
    assert "Окончен бой 1 — Победитель: Бета (3 : 0)" in line and "Верно" not in line
    main = sb.layout((1280, 720), 2, "game")["main"]
    band = pygame.Rect(main.x + 40, main.y + main.height * 22 // 100, main.width - 80, main.height // 20)
    colours = [tuple(surface.get_at((x, band.centery)))[:3] for x in range(band.x, band.right, 7)]
    assert sum(c == sb.hex_colour("#1E88E5") for c in colours) > len(colours) // 2   # a band of Бета's blue


def test_brain_ring_the_next_fight_has_a_key_a_help_line_and_a_button(tmp_path):
    loop, clock = brain_ring_won(tmp_path)
    help_text = key_help(loop.cfg, "ru")
    assert any(line.strip().startswith("R") and "Следующий бой" in line for line in help_text.splitlines())
    vm = viewmodel.from_loop(loop)
    assert "Следующий бой" in [k["label"] for k in vm["host"]["keys"]]     # the projector's H, the page's keys
    button = next(a for a in vm["host"]["actions"] if a["action"] == "next_fight")
    assert button["label"] == "Следующий бой" and button["confirm"]        # a second tap sends it
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["fight"] == 2
    assert "Бой 2" in terminal(loop) and "Окончен" not in terminal(loop)
    _, drawn = frame(loop, "brain-ring-fight-2")
    assert any("Бой 2" in text for text in drawn) and "Победитель" not in drawn


# ---------------------------------------------------------------------------
# 2. The host page's «Выбрать ячейку…» (Своя игра with a package), in a real Chromium

def api_state(game) -> dict:
    import json
    import urllib.request

    with urllib.request.urlopen(game.base + "/api/state", timeout=60) as r:   # a loaded machine
        return json.loads(r.read())


def test_the_host_page_picks_a_cell_and_the_board_shows_it_played(tmp_path):
    import asyncio
    import time
    from pathlib import Path

    from tests.browser import Chromium, Game
    from tests.test_web_phone import phone

    pack = Path(__file__).resolve().parents[1] / "examples" / "own-game.siq"
    game = Game(tmp_path, top='mode = "own-game"\n', extra_config="[own_game]\npress_window_s = 0.5\n",
                args=("--pack", str(pack)))
    chromium = Chromium(tmp_path, size=(390, 844))
    try:
        async def scenario():
            page = await phone(chromium, f"{game.base}/host#token={game.token}")
            await page.wait_for("!!document.querySelector('button[data-action=pick]')", timeout=60)
            await page.eval("document.querySelector('button[data-action=pick]').click()")
            await page.wait_for("!document.querySelector('form[data-action=pick]').hidden", timeout=60)
            await page.eval("""(() => { const f = document.querySelector('form[data-action=pick]');
                f.querySelector('[name=theme]').value = '1'; f.querySelector('[name=cell]').value = '2';
                f.querySelector('button.send').click(); return true; })()""")
            await page.wait_for("document.getElementById('result').textContent.length > 0", timeout=60)
            result = await page.eval("[document.getElementById('result').className, "
                                     "document.getElementById('result').textContent]")
            assert result[0] == "result ok", result                         # «Отправлено», not a 400
            # the 200 of «Картины» is «без риска»: played for double its price (SIGame's rule)
            await page.wait_for("(window.buzzer.last.audience.game.question || {}).nominal === 400", timeout=60)
            header = await page.eval("document.getElementById('question').textContent")
            await page.eval("document.querySelector('button[data-action=reading_done]').click()")
            # only the chooser answers «без риска»: the host rules it wrong (it costs nothing)
            await page.wait_for("!!document.querySelector('button[data-action=wrong]')", timeout=60)
            await page.eval("document.querySelector('button[data-action=wrong]').click()")
            await page.wait_for("!window.buzzer.last.audience.game.pack.question.live", timeout=60)
            await page.close()
            return header

        header = asyncio.run(scenario())
        assert "400" in header and "Картины" in header
        view = api_state(game)["audience"]["game"]
        assert [c["played"] for c in view["pack"]["board"][0]["cells"]] == [False, True]
        # the projector draws this audience view: the board with the 200 of «Картины» emptied
        surface = pygame.Surface((1280, 720))
        drawn: list[str] = []
        board = sb.Scoreboard((1280, 720), lang="ru")
        real = board._text
        board._text = lambda surf, text, *a, **kw: (drawn.append(str(text)), real(surf, text, *a, **kw))[1]
        board.draw(surface, view, time.monotonic_ns())
        if OUT:
            pygame.image.save(surface, os.path.join(OUT, "own-game-board-after-pick.png"))
        assert "1. Картины" in drawn and drawn.count("200") == 2 and drawn.count("100") == 3
    finally:
        chromium.close()
        game.close()


# ---------------------------------------------------------------------------
# 6. The pages and the projector name a question alike («Вопрос 1/2» in round 2, not 3/2)

def wait_state(game, check, timeout: float = 60.0) -> dict:
    import time

    end = time.monotonic() + timeout
    vm = None
    while time.monotonic() < end:
        vm = api_state(game)
        if check(vm["audience"]["game"]):
            return vm
        time.sleep(0.05)
    raise AssertionError(f"not reached within {timeout} s: {vm and vm['audience']['game'].get('question')}")


def test_the_pages_and_the_projector_number_round_2s_question_alike(tmp_path):
    import asyncio

    from tests.browser import Chromium, Game
    from tests.test_web_phone import phone

    game = Game(tmp_path, extra_config="[erudite]\nfights = 1\nrounds_per_fight = 2\nnominals = [10, 20]\n")
    chromium = Chromium(tmp_path, size=(1280, 720))
    try:
        for n in (1, 2):                                   # round 1: two questions, Альфа right
            game.type("n")
            wait_state(game, lambda g: (g.get("question") or {}).get("number") == n)
            game.type(" q")                                # the reading is over, Альфа presses
            wait_state(game, lambda g: any(t["holder"] for t in g["teams"]))
            game.type("\n")
            wait_state(game, lambda g: not g["question"]["open"])
        game.type("r")
        wait_state(game, lambda g: g.get("round") == 2)
        game.type("n")
        vm = wait_state(game, lambda g: (g.get("question") or {}).get("number") == 3)

        async def scenario():
            audience = await chromium.page(game.base + "/")
            host = await phone(chromium, f"{game.base}/host#token={game.token}")
            heads = []
            for page in (audience, host):
                await page.wait_for("document.getElementById('question').textContent.length > 0", timeout=60)
                heads.append(await page.eval("document.getElementById('question').textContent"))
            for page in (audience, host):
                await page.close()
            return heads

        heads = asyncio.run(scenario())
        assert all(h.startswith("Вопрос 1/2 · 10") for h in heads), heads
        surface = pygame.Surface((1280, 720))
        drawn: list[str] = []
        board = sb.Scoreboard((1280, 720), lang="ru")
        real = board._text
        board._text = lambda surf, text, *a, **kw: (drawn.append(str(text)), real(surf, text, *a, **kw))[1]
        board.draw(surface, vm["audience"]["game"], 0)
        if OUT:
            pygame.image.save(surface, os.path.join(OUT, "erudite-round-2-question.png"))
        assert "Вопрос 1/2" in drawn and not any("3/2" in text for text in drawn)
    finally:
        chromium.close()
        game.close()


# ---------------------------------------------------------------------------
# 4. A programme: R asks twice; which game of how many, the running totals; the final totals

def press(loop: Loop, clock: ManualClock, button: str) -> None:
    from controller.core.events import Press

    loop.enqueue(Press(button, clock.now(), clock.now()))
    clock.advance(300 * MS)
    loop.tick_if_due()
    loop.drain()


def test_a_programme_asks_before_r_ends_a_game_and_shows_the_running_totals(tmp_path):
    cfg = config.load("examples/programme.toml")
    cfg["journal"]["dir"] = str(tmp_path)
    loop, clock = make_loop(cfg)
    type_keys(loop, clock, "n ")                          # Своя игра: a question, the reading is over
    press(loop, clock, "A")
    type_keys(loop, clock, "\n")                          # Альфа right
    won = engine.view(loop.state)["teams"][0]["score"]
    assert won > 0
    _, drawn = frame(loop, "programme-game-1")
    assert any("Игра 1 из 3" in text for text in drawn) and f"Всего {won}" in drawn
    assert "Игра 1 из 3" in terminal(loop) and f"Альфа {won} (место 1) [Всего {won}]" in terminal(loop)

    type_keys(loop, clock, "r")                           # R once: asked, nothing ended
    assert loop.notice == ("Нажмите ещё раз: игра 1 «Своя игра» закончится, "
                           "начнётся игра 2 из 3 «Брейн-ринг»")
    assert engine.view(loop.state)["series"]["round"] == 1
    _, drawn = frame(loop, "programme-asked")
    assert any("Игра 1 из 3" in text for text in drawn)
    clock.advance(4_000 * MS)                             # too late for a second press: asks again
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["series"]["round"] == 1 and loop.notice.startswith("Нажмите ещё раз")
    type_keys(loop, clock, "r")                           # the second press within 3 s
    assert engine.view(loop.state)["series"]["round"] == 2

    _, drawn = frame(loop, "programme-game-2")
    assert any("Игра 2 из 3" in text for text in drawn)
    assert f"Всего {won}" in drawn and "Всего 0" in drawn   # Альфа's points of game 1 on her card
    for _ in range(2):                                    # Брейн-ринг: Бета wins the fight 2 : 0
        type_keys(loop, clock, "nt")
        press(loop, clock, "B")
        type_keys(loop, clock, "\n")
    assert f"Альфа 0 (место 2) [Всего {won}]" in terminal(loop) and "Бета 2 (место 1) [Всего 2]" in terminal(loop)
    type_keys(loop, clock, "h")                           # R is Брейн-ринг's next fight, as when played alone
    assert "Следующий бой" in [k["label"] for k in viewmodel.from_loop(loop)["host"]["keys"]]
    type_keys(loop, clock, "h")
    for _ in range(2):                                    # F4 twice: this Брейн-ринг is over
        feed(loop, "\x1bOS")
    assert engine.view(loop.state)["stage"] == "finished" and engine.view(loop.state)["series"]["round"] == 2
    type_keys(loop, clock, "rr")                          # R now moves on: to ЧГК, then the programme's end
    assert engine.view(loop.state)["series"]["round"] == 3
    type_keys(loop, clock, "r")
    assert loop.notice == "Нажмите ещё раз: последняя игра «Что? Где? Когда?» закончится, итоги программы"
    type_keys(loop, clock, "r")
    view = engine.view(loop.state)
    assert view["stage"] == "finished"
    _, drawn = frame(loop, "programme-final")
    assert "Итоги программы" in drawn
    rows = {r["team"]: r["points"] for r in view["standings"]}
    assert rows == {"Альфа": won, "Бета": 2, "Гамма": 0}   # every game's points, not the last game's table
    lines = terminal(loop)
    assert "Итоги программы" in lines and f"Альфа {won}" in lines


def test_the_pages_of_a_programme_say_which_game_and_the_running_totals(tmp_path):
    import asyncio
    from pathlib import Path

    from tests.browser import Chromium, Game
    from tests.test_web_phone import phone

    programme = (Path(__file__).resolve().parents[1] / "examples" / "programme.toml").read_text(encoding="utf-8")
    programme = programme.replace('button = "A"\n', 'button = "A"\nkey = "q"\n', 1)
    game = Game(tmp_path, top=programme + "\n")
    chromium = Chromium(tmp_path, size=(1280, 720))
    try:
        game.type("n")
        wait_state(game, lambda g: (g.get("question") or {}).get("open"))
        game.type(" q")                    # the reading is over, Альфа presses (within the 4 s window)
        wait_state(game, lambda g: any(t["holder"] for t in g["teams"]))
        game.type("\n")
        wait_state(game, lambda g: g["teams"][0]["score"] > 0)
        game.type("rr")                                       # the second press: on to game 2
        wait_state(game, lambda g: g["series"]["round"] == 2)

        async def scenario():
            audience = await chromium.page(game.base + "/")
            host = await phone(chromium, f"{game.base}/host#token={game.token}")
            seen = []
            for page in (audience, host):
                await page.wait_for("document.getElementById('title').textContent.includes('Игра 2 из 3')", timeout=60)
                seen.append(await page.eval("[document.getElementById('title').textContent, "
                                            "[...document.querySelectorAll('#teams .team')].map(e => e.textContent)]"))
            for page in (audience, host):
                await page.close()
            return seen

        for title, cards in asyncio.run(scenario()):
            assert title == "Брейн-ринг · Игра 2 из 3"
            assert cards[0].startswith("Альфа0") and cards[0].endswith("Всего 100")   # game 1's points
            assert cards[1].endswith("Всего 0")
    finally:
        chromium.close()
        game.close()


def test_brain_ring_r_in_the_middle_of_a_fight_asks_before_it_ends_it_with_no_winner(tmp_path):
    cfg = config.load("config/brain-ring.toml")
    cfg["journal"]["dir"] = str(tmp_path)
    loop, clock = make_loop(cfg)
    type_keys(loop, clock, "ntz\n")                      # 1 : 0, the fight goes on
    type_keys(loop, clock, "r")
    assert loop.notice == "Нажмите ещё раз: бой 1 — закончится без победителя, начнётся бой 2"
    assert engine.view(loop.state)["fight"] == 1
    type_keys(loop, clock, "r")
    assert engine.view(loop.state)["fight"] == 2
    assert engine.summary(loop.state)["fights"][0]["winner"] is None


# ---------------------------------------------------------------------------
# 3. --pack with an unfinished game without that package in the journal

def test_a_package_asked_for_over_an_unfinished_plain_game_is_said_and_never_resumed_silently(tmp_path):
    import signal
    import subprocess
    import sys
    import threading
    import time

    from controller.sessions import journal
    from tests.test_startup import ENV, OWN_GAME, ROOT, _in_terminal, one_line, run, snapshot

    pack = ROOT / "examples" / "own-game.siq"
    # a plain Своя игра, one question announced, left unfinished
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--headless", "--seconds", "30",
                             "-c", str(OWN_GAME)], cwd=tmp_path, env=ENV, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = bytearray()
    threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: proc.stdout.read1(4096), b"")],
                     daemon=True).start()
    p = journal.current_path(tmp_path / "journal")
    deadline = time.monotonic() + 60
    while b"Q = " not in out and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.stdin.write(b"n")
    proc.stdin.flush()
    while not (p.exists() and journal.read(p).events) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)                     # the game is left unfinished
    proc.wait(timeout=60)
    proc.stdin.close()
    assert journal.read(p).events and "package" not in journal.read(p).header["config"]["own_game"]

    # no terminal to ask: nothing changes, one line says why and what to add
    def files():
        return {k: v for k, v in snapshot(tmp_path / "journal").items() if k.name != "buzzer.lock"}

    before = files()
    done = run(tmp_path, "run", "--headless", "--seconds", "0.5", "-c", OWN_GAME, "--pack", pack)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "без пакета" in line and "«Тестовый пакет»" in line and "--new" in line and "--resume" in line
    assert files() == before

    # in a terminal: the question says it; Enter starts a new game with the package, the old one archived
    rc, text, err = _in_terminal(tmp_path, "-c", OWN_GAME, "--pack", pack)
    assert rc == 0, err
    assert "«Своя игра» без пакета" in text and "запрошен пакет «Тестовый пакет»" in text
    assert "Продолжить старую игру без пакета? [д/Н]" in text
    assert "Продолжить её?" not in text and "Незавершённая игра продолжена" not in text
    assert "Журнал предыдущей игры перенесён в архив" in text
    archived = list((tmp_path / "journal" / "archive").glob("*.jsonl"))
    assert len(archived) == 1 and '"question"' in archived[0].read_text(encoding="utf-8")
    assert journal.read(p).header["config"]["own_game"]["package"]["name"] == "Тестовый пакет"


def test_a_game_with_another_package_is_named_by_its_package():
    from controller.app import startup

    old = {"config": {"own_game": {"package": {"name": "Осенний кубок", "rounds": []}}}}
    cfg = config.load("config/own-game.toml")
    assert not startup.pack_differs(old, cfg)                       # no package asked for: the journal's plays
    cfg["own_game"]["package"] = {"name": "Тестовый пакет", "rounds": []}
    assert startup.pack_differs(old, cfg) and not startup.pack_differs({"config": cfg}, cfg)
    assert startup._pack_words(old["config"], "ru") == "с пакетом «Осенний кубок»"
    assert startup._pack_words({}, "en") == "without a package"


# ---------------------------------------------------------------------------
# 5. The festival board's config exactly as docs/festival.md writes it

def hall_key_of(path) -> str:
    """``BUZZER_FESTIVAL_KEY`` for a hall, from its key file (``<id>:<hex>``, docs/festival.md)."""
    import tomllib

    entry = tomllib.loads(path.read_text(encoding="utf-8"))["key"][0]
    return f"{entry['id']}:{entry['secret']}"


def test_the_board_config_of_the_docs_is_taken_as_written(tmp_path):
    import re
    import signal
    import subprocess
    import threading
    import time
    import tomllib
    from pathlib import Path

    from tests.mosquitto import Broker
    from tests.test_festival import BUZZER, CHGK, _env, buzzer

    doc = (Path(__file__).resolve().parents[1] / "docs" / "festival.md").read_text(encoding="utf-8")
    board_part = doc[doc.index("**4. The board**"):]
    example = re.search(r"```toml\n(.*?)```", board_part, re.S).group(1)
    fest = tomllib.loads(example)["festival"]
    assert set(fest) == {"broker", "username", "password", "key_file", "schedule"}   # what the text says
    broker = Broker(tmp_path / "broker")
    subprocess.run(["mosquitto_passwd", "-b", str(broker.passwords), fest["username"], fest["password"]],
                   check=True, capture_output=True)                        # the board's user of the example
    broker.start()
    board = None
    try:
        # the keys as step 2 makes them, in the folder the example names
        buzzer("festival", "keys", tmp_path / "keys", "--hall", "Зал 1", "--hall", "Зал 2", cwd=tmp_path)
        halls = tmp_path / "halls"
        halls.mkdir()
        hall_key = {"BUZZER_FESTIVAL_KEY": hall_key_of(tmp_path / "keys" / "Зал 1.key")}
        buzzer("simulate", CHGK, "--festival", broker.plain_url, "--hall", "Зал 1", "--competition", "ЧГК",
               cwd=halls, env=hall_key)
        # the example as written; only the broker's address is this test's own
        config = tmp_path / "board.toml"
        config.write_text(example.replace("192.168.1.10:1883", f"127.0.0.1:{broker.port}"), encoding="utf-8")
        config.chmod(0o600)   # as the example's comment says: it holds a password
        assert buzzer("check-config", config, cwd=tmp_path).returncode == 0
        board = subprocess.Popen(BUZZER + ["festival", "-c", str(config), "--headless", "--seconds", "120"],
                                 cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = bytearray()
        threading.Thread(target=lambda: [out.extend(c) for c in iter(lambda: board.stdout.read1(4096), b"")],
                         daemon=True).start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and board.poll() is None:
            text = out.decode("utf-8", "replace")
            if "Лидер:" in text and "не начата (16:00)" in text:
                break
            time.sleep(0.05)
        assert board.poll() is None, board.stderr.read().decode()
        text = out.decode("utf-8", "replace")
        assert "Зал 1 · ЧГК" in text and "Лидер:" in text            # the board's credentials took it in
        assert "Зал 2 · Своя игра" in text and "не начата (16:00)" in text
    finally:
        if board is not None and board.poll() is None:
            os.kill(board.pid, signal.SIGTERM)
            board.wait(timeout=30)
        broker.stop()


def test_a_hall_without_its_names_is_one_line_before_anything_changes(tmp_path):
    from tests.test_startup import one_line, run

    config = tmp_path / "hall.toml"
    config.write_text('[festival]\nbroker = "mqtt://127.0.0.1:1883"\nusername = "hall"\n', encoding="utf-8")
    done = run(tmp_path, "run", "--headless", "--seconds", "0.5", "-c", config)
    assert done.returncode == 2 and "festival.hall" in one_line(done.stderr)
    assert not (tmp_path / "journal").exists()


# ---------------------------------------------------------------------------
# 8. The captain's timer never covers the holder

def test_the_captains_timer_running_leaves_the_big_panel_to_the_team_holding_the_answer(tmp_path):
    """#23 item 8: C (the captain's timer), a question, a press: the big panel is the holder's, in
    its colour, with its name; the captain's timer goes on as a small number in the side column."""
    cfg = config.load()
    cfg["journal"]["dir"] = str(tmp_path)
    loop, clock = make_loop(cfg)
    type_keys(loop, clock, "c")
    _, drawn = frame(loop, "captain-alone")
    assert drawn[2:4] == ["Время капитана", "60"], drawn          # alone, it is the big panel
    clock.advance(30_000 * MS)                                   # the captain's half minute on
    type_keys(loop, clock, "n q")                                # a question, its reading, Альфа's button
    surface, drawn = frame(loop, "captain-and-holder")
    assert drawn[2:4] == ["Отвечает", "Альфа"], drawn
    assert "Время капитана" in drawn and drawn[drawn.index("Время капитана") + 1] == "29", drawn
    main = sb.layout((1280, 720), 4, "game")["main"].inflate(-60, -60)
    red = sb.hex_colour(cfg["teams"][0].get("color"), 0)
    pts = [surface.get_at((x, y))[:3] for x in range(main.x, main.right, 6) for y in range(main.y, main.bottom, 6)]
    assert sum(all(abs(a - b) <= 12 for a, b in zip(c, red)) for c in pts) / len(pts) > 0.5   # Альфа's colour
    assert "Отвечает: Альфа" in terminal(loop).split(" | ")[1]


# ---------------------------------------------------------------------------
# The end of a game from the keyboard: Брейн-ринг has no last fight, so only the host ends it

F4 = "\x1bOS"   # the terminal's F4


def press_f4(loop: Loop, clock: ManualClock) -> None:
    feed(loop, F4)                                  # one escape sequence: one key
    clock.advance(300 * MS)
    loop.tick_if_due()
    loop.drain()


def test_brain_ring_ends_from_the_keyboard_with_the_final_totals(tmp_path):
    loop, clock = brain_ring_won(tmp_path)
    help_text = key_help(loop.cfg, "ru")
    assert any(line.strip().startswith("F4") and "Закончить игру" in line for line in help_text.splitlines())
    press_f4(loop, clock)                           # ends the evening: the key asks first
    assert loop.notice == "Нажмите ещё раз: закончить игру и показать итоги"
    assert not loop.game.finished(loop.state)
    press_f4(loop, clock)
    assert loop.game.finished(loop.state)
    assert "Игра окончена" in terminal(loop)
    clock.advance(3_000 * MS)
    _, drawn = frame(loop, "brain-ring-game-over")
    assert "Бета" in drawn and "Альфа" in drawn


def test_the_projector_says_the_game_is_over_on_its_final_table(tmp_path):
    """The final table is not one more table between rounds: the projector says «Игра окончена»,
    as the terminal and the audience page do."""
    from controller.core.events import Host

    cfg = config.load("config/default.toml")
    cfg["journal"]["dir"] = str(tmp_path)
    loop, clock = make_loop(cfg)
    type_keys(loop, clock, "nq\n")
    clock.advance(3_000 * MS)
    loop.tick_if_due()
    _, drawn = frame(loop, "erudite-mid-game")
    assert not any("Игра окончена" in text for text in drawn)
    loop.enqueue(Host("end_game", clock.now(), {}))
    loop.drain()
    clock.advance(3_000 * MS)
    loop.tick_if_due()
    _, drawn = frame(loop, "erudite-game-over")
    assert "Турнирная таблица · Игра окончена" in drawn
    assert "Игра окончена" in terminal(loop)


def test_the_key_help_hint_names_the_key_that_opens_it_in_mafia():
    """The first line names the key that really opens the help: «Мафия»'s don's check once took
    H (it is Z now, and a game key may no longer take the program's), and a club may move the
    help to another key."""
    from controller.screens.terminal import help_hint

    mafia = config.load("config/mafia.toml")
    assert help_hint(mafia, "ru") == "H — подсказка по клавишам"
    mafia["keys"]["help"] = ["f1"]
    assert help_hint(mafia, "ru") == "F1 — подсказка по клавишам"
    assert help_hint(mafia, "en") == "F1 — key help"
    assert help_hint(config.load("config/default.toml"), "ru") == "H — подсказка по клавишам"
