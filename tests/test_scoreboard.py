"""The audience screen: what the hall sees at the key moments of a game.

Frames are rendered headless from scripted sessions and checked by their
pixels in the regions that must change (the holder panel in the team's
colour, the countdown bar turning amber then red, a tag on a team's card,
the flash band), at several resolutions and in both languages.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import pygame  # noqa: E402
import pytest  # noqa: E402

from controller.games import engine  # noqa: E402
from controller.sessions import script as script_mod  # noqa: E402
from controller.screens import scoreboard as sb  # noqa: E402
from controller.screens.scoreboard import Scoreboard, layout  # noqa: E402
from controller.screens.common import key_label  # noqa: E402
from controller.core.events import Host, seconds_to_ns  # noqa: E402
from controller.i18n import messages  # noqa: E402

RED_TEAM = (0xE5, 0x39, 0x35)      # Альфа, first default colour
BLUE_TEAM = (0x1E, 0x88, 0xE5)     # Бета
SIZES = [(1920, 1080), (1280, 720), (1024, 768), (800, 1280)]

SETUP = ('{"setup": {"mode": "erudite", "teams": [{"name": "Альфа", "button": "A"}, {"name": "Бета", "button": "B"},'
         ' {"name": "Гамма", "button": "C"}, {"name": "Дельта", "button": "D"}], "seed": 7}}')

PRESS = SETUP + """
{"at": 1.0, "host": "question", "theme": "Реки России", "nominal": 30}
{"at": 2.0, "press": "A", "delivered": 2.0012}
{"at": 2.0009, "press": "B", "delivered": 2.0015}
{"at": 2.5, "press": "D"}
"""
"""A (red) holds the answer, B lost by 0.9 ms, D pressed during A's answer (early)."""

COUNTDOWN = SETUP + """
{"at": 1.0, "host": "question", "theme": "Реки России", "nominal": 30}
{"at": 2.0, "host": "reading_done"}
"""
"""The 7 s thinking countdown runs from 2.0 to 9.0."""

FINAL = SETUP + "\n" + "\n".join(
    line for k in range(5) for line in (
        f'{{"at": {10 * k + 1}, "host": "question"}}',
        f'{{"at": {10 * k + 2}, "press": "{"B" if k % 2 else "C"}"}}',
        f'{{"at": {10 * k + 3}, "host": "right"}}')) + '\n{"at": 60, "host": "end_game"}\n'
"""Five questions, B and C score, then the host ends the game."""


def view_at(text: str, at: float) -> dict:
    run = script_mod.run(script_mod.parse(text.splitlines(), "test"), until=at)
    return engine.view(run.state, seconds_to_ns(at))


def draw(view: dict, size=(1920, 1080), lang="ru", board: Scoreboard | None = None, **kw) -> pygame.Surface:
    surface = pygame.Surface(size)
    (board or Scoreboard(size, lang=lang)).draw(surface, view, kw.pop("now", 0), **kw)
    return surface


def colours_in(surface: pygame.Surface, rect: pygame.Rect, step: int = 3) -> set[tuple[int, int, int]]:
    rect = rect.clip(surface.get_rect())
    return {tuple(surface.get_at((x, y)))[:3] for x in range(rect.x, rect.right, step)
            for y in range(rect.y, rect.bottom, step)}


def near(c, target, tol=12) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(c, target))


def share(surface, rect, colour, tol=12) -> float:
    cs = [tuple(surface.get_at((x, y)))[:3] for x in range(rect.x, rect.right, 4) for y in range(rect.y, rect.bottom, 4)]
    return sum(near(c, colour, tol) for c in cs) / max(len(cs), 1)


def game_layout(size, n=4):
    return layout(size, n, "game")


# --- who holds the answer -----------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_holder_panel_is_the_team_colour_at_every_size(size):
    v = view_at(PRESS, 2.6)
    assert v["teams"][0]["holder"]
    surface = draw(v, size)
    main = game_layout(size)["main"]
    # most of the big panel is Альфа's red (the rest is its name in white)
    assert share(surface, main.inflate(-main.width // 10, -main.height // 10), RED_TEAM) > 0.5
    # and the team's card is red too, the others are not
    cards = game_layout(size)["cards"]
    assert share(surface, cards[0].inflate(-8, -8), RED_TEAM) > 0.4
    assert share(surface, cards[1].inflate(-8, -8), RED_TEAM) < 0.05


def test_no_holder_no_team_panel():
    v = view_at(COUNTDOWN, 3.0)
    surface = draw(v)
    main = game_layout((1920, 1080))["main"]
    assert share(surface, main, RED_TEAM) < 0.01
    assert near(surface.get_at((main.x + 20, main.centery))[:3], sb.PANEL)


def test_press_order_lists_presses_with_gaps_and_marks_the_winner():
    v = view_at(PRESS, 2.6)
    rows = v["question"]["presses"]
    assert [(r["team"], r["kind"]) for r in rows] == [("Альфа", "answer"), ("Бета", "lockout"), ("Дельта", "early")]
    surface = draw(v)
    presses = game_layout((1920, 1080))["presses"]
    # the winner's gap is green; the early press has an amber «Рано» tag
    right_half = pygame.Rect(presses.centerx, presses.y, presses.width // 2, presses.height)
    found = colours_in(surface, right_half, 2)
    assert any(near(c, sb.GREEN, 30) for c in found)
    assert any(near(c, sb.AMBER, 10) for c in found)
    assert sb.fmt_gap(4.1, "ru") == "+0.004 с"
    assert sb.fmt_gap(4.1, "en") == "+0.004 s"
    assert sb.fmt_gap(-1500, "en") == "\u22121.500 s"


def test_early_press_is_marked_on_the_team_card():
    v = view_at(PRESS, 2.6)
    assert v["teams"][3]["early"] and not v["teams"][1]["early"]
    surface = draw(v)
    cards = game_layout((1920, 1080))["cards"]
    bottom = lambda r: pygame.Rect(r.x, r.y + r.height * 3 // 4, r.width, r.height // 4)  # noqa: E731
    assert share(surface, bottom(cards[3]), sb.AMBER) > 0.05     # «Рано»
    assert share(surface, bottom(cards[1]), sb.AMBER) == 0


def test_locked_out_team_is_dimmed_after_a_wrong_answer():
    v = view_at(PRESS + '{"at": 3.0, "host": "wrong"}\n', 3.1)
    assert v["teams"][0]["locked"]
    surface = draw(v)
    cards = game_layout((1920, 1080))["cards"]
    stripe = lambda r: surface.get_at((r.centerx, r.y + 2))[:3]  # noqa: E731
    assert near(stripe(cards[1]), BLUE_TEAM)           # a team still in play: full colour
    assert not near(stripe(cards[0]), RED_TEAM, 40)    # the locked-out team: dimmed
    assert sum(stripe(cards[0])) < sum(RED_TEAM)


# --- the countdown --------------------------------------------------------------------------

def bar_colour(surface, size=(1920, 1080)):
    bar = game_layout(size)["bar"]
    return surface.get_at((bar.x + bar.height, bar.centery))[:3]


def test_countdown_bar_turns_amber_then_red_in_the_last_seconds():
    board = Scoreboard((1920, 1080))
    seen = {}
    for at in (3.0, 6.5, 8.5):   # 6 s, 2.5 s and 0.5 s left of 7
        surface = draw(view_at(COUNTDOWN, at), board=board)
        seen[at] = bar_colour(surface)
    assert near(seen[3.0], sb.WHITE)
    assert near(seen[6.5], sb.AMBER)
    assert near(seen[8.5], sb.RED)


def test_countdown_bar_shrinks_and_the_number_counts_down():
    bar = game_layout((1920, 1080))["bar"]

    def filled(surface):
        return sum(1 for x in range(bar.x, bar.right, 2) if near(surface.get_at((x, bar.centery))[:3], sb.WHITE))
    a, b = draw(view_at(COUNTDOWN, 2.5)), draw(view_at(COUNTDOWN, 4.5))
    assert filled(a) > filled(b) > 0
    assert sb.countdown_text(view_at(COUNTDOWN, 2.5)["countdown"]) == "7"
    assert sb.countdown_text(view_at(COUNTDOWN, 8.5)["countdown"]) == "1"
    # the big number is drawn in the main panel in the phase colour
    main = game_layout((1920, 1080))["main"]
    assert share(draw(view_at(COUNTDOWN, 8.5)), main, sb.RED) > 0.03


def test_countdown_phases():
    think = {"remaining_ms": 6000, "total_ms": 7000, "running": True}
    assert sb.countdown_phase(think) == "normal"
    assert sb.countdown_phase(dict(think, remaining_ms=3000)) == "warn"
    assert sb.countdown_phase(dict(think, remaining_ms=900)) == "last"
    assert sb.countdown_phase(dict(think, running=False)) == "paused"
    assert sb.countdown_phase(dict(think, remaining_ms=0)) == "over"
    minute = {"remaining_ms": 30_000, "total_ms": 60_000, "running": True}
    assert sb.countdown_phase(minute) == "normal"
    assert sb.countdown_phase(dict(minute, remaining_ms=9000)) == "warn"
    assert sb.countdown_phase(dict(minute, remaining_ms=4000)) == "last"
    assert sb.countdown_text(dict(minute, remaining_ms=59_001)) == "60"
    assert sb.countdown_text({"remaining_ms": 75_500, "total_ms": 90_000}) == "1:16"


def test_captain_timer_is_shown():
    v = view_at(SETUP + '\n{"at": 1.0, "host": "captain"}\n', 20.0)
    assert v["captain"] and v["captain"]["running"]
    surface = draw(v)
    bar = game_layout((1920, 1080))["bar"]
    assert near(surface.get_at((bar.x + bar.height, bar.centery))[:3], sb.WHITE)


def test_paused_badge():
    v = view_at(COUNTDOWN + '{"at": 3.0, "host": "pause"}\n', 3.5)
    assert v["paused"]
    main = game_layout((1920, 1080))["main"]
    corner = pygame.Rect(main.right - main.width // 3, main.y, main.width // 3, main.height // 5)
    assert share(draw(v, now=0), corner, sb.AMBER) > 0.1
    assert share(draw(v, now=700_000_000), corner, sb.AMBER) > 0.1   # steady, not blinking
    assert share(draw(dict(v, paused=False)), corner, sb.AMBER) == 0


# --- flashes, standings, overlays -------------------------------------------------------------

@pytest.mark.parametrize("kind,colour", [("right", sb.GREEN), ("wrong", sb.RED), ("time_up", sb.AMBER),
                                         ("withdrawn", sb.STEEL), ("false_start", sb.ORANGE)])
def test_ruling_flash_band(kind, colour):
    v = view_at(PRESS, 2.6)
    surface = draw(v, flash={"kind": kind, "team": "Альфа"})
    H = 1080
    band = pygame.Rect(0, int(H * 0.32), 1920, int(H * 0.36))
    assert share(surface, band, colour) > 0.6
    assert share(draw(v), band, colour) < 0.05


def test_final_standings_table():
    v = view_at(FINAL, 61)
    assert v["stage"] == "finished"
    assert [r["team"] for r in v["standings"]][:2] == ["Гамма", "Бета"]
    surface = draw(v)
    table = layout((1920, 1080), 4, "table")["table"]
    # the winner's row is highlighted and carries its colour swatch (Гамма is green)
    top = pygame.Rect(table.x, table.y + table.height // 9, table.width, table.height // 5)
    green_team = (0x43, 0xA0, 0x47)
    assert share(surface, top, green_team) > 0.005
    assert share(surface, top, sb.PANEL_HI) > 0.3
    # the title, not the question panels: no team's holder colour, no countdown bar
    assert share(surface, pygame.Rect(table.x, table.y, table.width, table.height // 9), sb.TEXT, 30) > 0.01


def test_standings_between_rounds():
    # after the 5th question of a round and before the next one
    v = view_at(FINAL.replace('\n{"at": 60, "host": "end_game"}', ""), 55)
    assert v["stage"] == "play" and v["question"]["index"] == v["question"]["of"]
    assert Scoreboard._show_table(v)
    assert not Scoreboard._show_table(view_at(PRESS, 2.6))


def test_help_overlay_lists_the_host_keys():
    keys = {"right": ["return"], "wrong": ["backspace"], "question": ["n", "[+]"]}
    board = Scoreboard((1280, 720), keys=keys)
    v = view_at(PRESS, 2.6)
    surface = pygame.Surface((1280, 720))
    board.draw(surface, v, 0, help_overlay=True)
    centre = pygame.Rect(400, 200, 480, 300)
    assert share(surface, centre, RED_TEAM) < 0.01          # the overlay covers the holder panel
    assert share(surface, pygame.Rect(0, 0, 1280, 720), sb.AMBER) > 0.005   # its frame and title
    assert key_label("[+]", "ru") == "Num +" and key_label("space", "ru") == "Пробел"


def test_help_overlay_starts_with_the_players_keys_and_shows_this_games_keys():
    from controller.app import config
    from controller.screens.window import _scoreboard

    v = view_at(PRESS, 2.6)
    plain, with_teams = pygame.Surface((1280, 720)), pygame.Surface((1280, 720))
    Scoreboard((1280, 720), keys={"right": ["return"]}).draw(plain, v, 0, help_overlay=True)
    Scoreboard((1280, 720), keys={"right": ["return"]}, team_keys=[("q", "Альфа"), ("z", "Бета")]).draw(
        with_teams, v, 0, help_overlay=True)
    first_row = pygame.Rect(100, 140, 1000, 80)
    assert pygame.image.tobytes(plain.subsurface(first_row), "RGB") != \
        pygame.image.tobytes(with_teams.subsurface(first_row), "RGB")
    board = _scoreboard(config.load("config/mafia.toml"), (1280, 720))
    assert "foul" in board.keys and "question" not in board.keys and not board.team_keys
    board = _scoreboard(config.load(), (1280, 720))
    assert "start_clock" not in board.keys and board.team_keys[0] == ("q", "Альфа")


def test_the_help_overlay_says_the_games_declared_words_not_the_views_mode():
    """The key help's words for an action are the game's own as it declares them (``Action.label``,
    handed over with the keys), never looked up by the raw view's ``mode``: a view without one (a
    round of a programme, a view of no known game) still has «Мафия»'s words when they are given,
    and none when they are not."""
    from controller import games
    from controller.app import config

    cfg = config.load("config/mafia.toml")
    view = engine.view(engine.new_game(cfg, 1), 0)
    view.pop("mode")
    from controller.i18n import t

    own = games.label_keys("mafia")
    action = "rename" if "rename" in own else next(iter(own))
    drawn = []

    def words(board) -> list[str]:
        drawn.clear()
        real = board._text
        board._text = lambda surface, text, *a, **k: (drawn.append(str(text)), real(surface, text, *a, **k))[1]
        board.draw(pygame.Surface((1280, 720)), view, 0, help_overlay=True)
        return list(drawn)

    board = Scoreboard((1280, 720), keys={action: ["r"]}, labels=own)
    assert t(own[action], "ru") in words(board)          # «Переименовать игрока»
    board.set_labels({})
    assert t(own[action], "ru") not in words(board)


@pytest.mark.parametrize("size, least_px", [((1280, 720), 17), ((1024, 768), 13)])
def test_the_mafia_judges_thirty_keys_fit_the_help_overlay_readably(tmp_path, size, least_px):
    """«Мафия»'s judge has some thirty keys (nominations, votes, checks ...): the key help shows
    every one with its words inside its frame, in letters a judge reads from the table (the
    key column no wider than its keys; the sound key too, which the vote's V used to take)."""
    from controller import games
    from controller.app import config
    from controller.i18n import action_label
    from controller.screens.window import _scoreboard

    cfg = config.load("config/mafia.toml")
    board = _scoreboard(cfg, size)
    drawn = []
    real = board._text

    def keep(surface, text, rect, px, colour, *a, **k):
        where = real(surface, text, rect, px, colour, *a, **k)
        drawn.append((str(text), where))
        return where

    board._text = keep
    surface = pygame.Surface(size)
    board.draw(surface, engine.view(engine.new_game(cfg, 1), 0), 0, help_overlay=True)
    pygame.image.save(surface, str(tmp_path / f"mafia-help-{size[0]}.png"))
    frame = pygame.Rect(0, 0, size[0] * 94 // 100, size[1] * 90 // 100)
    frame.center = (size[0] // 2, size[1] // 2)
    drawn = drawn[[text for text, _ in drawn].index("Клавиши ведущего") + 1:]   # the overlay's rows
    words = {text: where for text, where in drawn}
    for action in board.keys:
        label = action_label(action, "ru", games.label_keys("mafia"))   # its own words: «Переименовать игрока»
        assert label in words, label
        assert frame.contains(words[label]), label
    assert "Звук вкл./выкл." in words and "Проверка дона: набранное место" in words
    rows = [where for _text, where in drawn]
    assert len(rows) == 2 * len(board.keys)
    assert min(r.height for r in rows) >= least_px      # 13 px at 1280×720 before (9 at 1024×768)
    assert sorted(r.height for r in rows)[len(rows) // 2] >= least_px + 2   # most rows larger still


def test_a_long_notice_leaves_the_status_lines_readable():
    v = view_at(PRESS, 2.6)
    lay = game_layout((1280, 720))
    quiet = draw(v, (1280, 720), status={"backend": "keyboard", "connected": True, "missing": [], "notice": ""})
    loud = draw(v, (1280, 720), status={"backend": "keyboard", "connected": True, "missing": [],
                                        "notice": "В этой игре нет действия «Время!»: старт отсчёта"})
    st = lay["hdr_status"]
    line1 = pygame.Rect(st.x, st.y, st.width, st.height // 3)
    # «Кнопки: Клавиатура» keeps its size (it used to shrink to fit the notice beside it)
    assert pygame.image.tobytes(quiet.subsurface(line1), "RGB") == pygame.image.tobytes(loud.subsurface(line1), "RGB")
    # the notice runs left of the corner, in amber, at a readable height
    left_of_corner = pygame.Rect(lay["hdr_theme"].x, st.y + st.height * 2 // 3, st.x - lay["hdr_theme"].x, st.height // 3)
    assert share(loud, left_of_corner, sb.AMBER, 40) > 0.01
    rows = [y for y in range(st.y, st.bottom + 1) if any(near(loud.get_at((x, y))[:3], sb.AMBER, 40)
                                                          for x in range(left_of_corner.x, st.right, 2))]
    assert rows and rows[-1] - rows[0] >= 11                               # glyphs at least 11 px tall


def test_mafia_seat_ten_does_not_run_into_its_name():
    from controller.games.mafia import game as mafia

    state = mafia.initial({"minute_s": 60, "warn_s": 10}, ["Анна", "Борис", "Вика", "Глеб", "Дина", "Егор",
                                                             "Жанна", "Захар", "Ира", "Кирилл"])
    for size in ((1280, 720), (1920, 1080)):
        surface = draw(mafia.view(state, 0), size)
        card = layout(size, 10, "seats")["cards"][9]
        inner = card.inflate(-card.width // 12, -card.height // 10)
        ys = range(inner.y, inner.y + inner.height * 62 // 100)
        blank = [all(sum(surface.get_at((x, y))[:3]) < 400 for y in ys) for x in range(inner.x, inner.right)]
        # the widest run of empty columns after «10» starts and before «Кирилл» ends
        first_ink = blank.index(False)
        runs, run = [], 0
        for b in blank[first_ink:]:
            run = run + 1 if b else 0
            runs.append(run)
        assert max(runs[: len(runs) * 2 // 3]) >= inner.width // 20, size


def test_status_corner_shows_backend_and_missing_buttons():
    v = view_at(PRESS, 2.6)
    lay = game_layout((1920, 1080))
    ok = draw(v, status={"backend": "keyboard", "connected": True, "missing": [], "notice": ""})
    bad = draw(v, status={"backend": "serial", "connected": True, "missing": ["C"], "notice": "Рано: D"})
    corner = lay["hdr_status"]
    assert share(ok, corner, sb.GREEN, 20) > 0
    assert share(ok, corner, sb.RED, 20) == 0
    assert share(bad, corner, sb.RED, 20) > 0
    assert share(bad, corner, sb.AMBER, 20) > 0     # the notice


def test_status_corner_says_no_phone_in_amber_never_not_responding_in_red():
    """A team that presses only with its phone link and has none joined: «Нет телефона: A» in
    amber, not the red of a button that does not answer."""
    v = view_at(PRESS, 2.6)
    corner = game_layout((1920, 1080))["hdr_status"]
    ok = draw(v, status={"backend": "keyboard", "connected": True, "missing": [], "notice": ""})
    waiting = draw(v, status={"backend": "keyboard", "connected": True, "missing": [], "no_phone": ["A"],
                              "notice": ""})
    assert share(waiting, corner, sb.AMBER, 20) > 0 and share(ok, corner, sb.AMBER, 20) == 0
    assert share(waiting, corner, sb.RED, 20) == 0 and share(waiting, corner, sb.GREEN, 20) == 0


def test_english_differs_from_russian():
    v = view_at(PRESS, 2.6)
    ru, en = draw(v, lang="ru"), draw(v, lang="en")
    header = game_layout((1920, 1080))["hdr_left"]
    assert pygame.image.tobytes(ru.subsurface(header), "RGB") != pygame.image.tobytes(en.subsurface(header), "RGB")


def test_every_ui_key_the_screen_uses_exists_in_both_languages():
    source = Path(sb.__file__).read_text(encoding="utf-8")
    keys = set(re.findall(r'\bt\(\s*"([a-z_][a-z0-9_.\-]*)"', source))
    keys |= {k for k, _ in sb.TAGS.values()} | {k for k, _ in sb.PRESS_TAGS.values()}
    keys |= set(sb.FLASH_TEXT.values())
    keys |= {"light", "half-dark", "dark", "think_time", "captain_timer", "hand_in"}
    for lang in ("ru", "en"):
        missing = sorted(k for k in keys if k not in messages(lang))
        assert not missing, f"{lang} lacks {missing}"


# --- other modes ------------------------------------------------------------------------------

def test_own_game_with_twelve_players():
    players = ", ".join(f'{{"name": "Игрок {i + 1}", "button": "{chr(65 + i)}"}}' for i in range(12))
    text = (f'{{"setup": {{"mode": "own-game", "teams": [{players}], "seed": 3}}}}\n'
            '{"at": 1.0, "host": "question", "theme": "Кино", "nominal": 200}\n'
            '{"at": 2.0, "host": "reading_done"}\n'
            '{"at": 2.3, "press": "E"}\n'
            '{"at": 2.3021, "press": "K"}\n')
    v = view_at(text, 2.5)
    holder = next(i for i, t in enumerate(v["teams"]) if t["holder"])
    colour = sb.hex_colour(v["teams"][holder]["color"])
    for size in SIZES:
        surface = draw(v, size)
        lay = layout(size, 12, "game")
        assert len(lay["cards"]) == 12
        assert all(surface.get_rect().contains(c) for c in lay["cards"])
        assert share(surface, lay["main"].inflate(-40, -40), colour) > 0.4


def test_brain_ring_false_start_is_marked():
    text = ('{"setup": {"mode": "brain-ring", "teams": [{"name": "Север", "button": "A"}, '
            '{"name": "Юг", "button": "B"}], "seed": 1}}\n'
            '{"at": 1.0, "host": "question"}\n{"at": 1.5, "press": "B"}\n')
    v = view_at(text, 1.6)
    assert v["teams"][1]["false_start"]
    surface = draw(v, flash={"kind": "false_start", "team": "Юг"})
    band = pygame.Rect(0, int(1080 * 0.32), 1920, int(1080 * 0.36))
    assert share(surface, band, sb.ORANGE) > 0.6
    surface = draw(v)
    card = layout((1920, 1080), 2, "game")["cards"][1]
    assert share(surface, pygame.Rect(card.x, card.y + card.height * 3 // 4, card.width, card.height // 4),
                 sb.RED) > 0.05      # «Фальстарт»


def test_chgk_view_renders():
    text = ('{"setup": {"mode": "chgk", "teams": [{"name": "Знатоки", "button": "A"}, '
            '{"name": "Эрудиты", "button": "B"}], "seed": 1}}\n')
    try:
        v = view_at(text, 1.0)
    except Exception as exc:  # the mode's own errors are its tests' business
        pytest.fail(f"chgk view: {exc}")
    surface = draw(v)
    assert share(surface, pygame.Rect(0, 0, 1920, 1080), sb.BG) > 0.2


def test_mafia_table_speaker_countdown_is_the_largest_element():
    from controller.games.mafia import game as mafia

    state = mafia.initial({"minute_s": 60, "warn_s": 10}, [f"Игрок{i}" for i in range(1, 11)])
    state, _ = mafia.step(state, Host("foul", 0, {"seat": 4}))
    state, _ = mafia.step(state, Host("foul", 0, {"seat": 4}))
    state, _ = mafia.step(state, Host("speech", 1_000_000_000, {"seat": 3}))
    v = mafia.view(state, seconds_to_ns(55))   # 6 s left: warning colours
    assert v["seats"][2]["speaking"]
    surface = draw(v)
    lay = layout((1920, 1080), 10, "seats")
    assert share(surface, lay["cards"][2].inflate(-10, -10), sb.AMBER) > 0.4      # the speaker's seat
    bar = lay["bar"]
    assert near(surface.get_at((bar.x + bar.height, bar.centery))[:3], sb.AMBER)
    # the countdown number (amber, 6 s left) is the largest thing in the main panel
    assert share(surface, lay["main"], sb.AMBER) > 0.03
    for size in SIZES:
        draw(v, size)


# --- redraw bookkeeping and caches --------------------------------------------------------------

def test_needs_redraw_only_when_the_picture_changes():
    board = Scoreboard((1920, 1080))
    surface = pygame.Surface((1920, 1080))
    v = view_at(PRESS, 2.6)        # the countdown is not running: nothing moves
    board.draw(surface, v, 0)
    assert not board.needs_redraw(v, 0)
    assert not board.needs_redraw(view_at(PRESS, 2.9), 0)
    assert board.needs_redraw(v, 0, flash={"kind": "right", "team": "Альфа"})
    assert board.needs_redraw(v, 0, help_overlay=True)
    c1 = view_at(COUNTDOWN, 3.0)
    board.draw(surface, c1, 0)
    assert board.needs_redraw(view_at(COUNTDOWN, 3.1), 0)    # the bar moved


def test_cached_layer_matches_a_fresh_draw():
    board = Scoreboard((1280, 720))
    surface = pygame.Surface((1280, 720))
    for at in (2.2, 2.5, 3.0, 6.6, 8.7):
        v = view_at(COUNTDOWN, at)
        board.draw(surface, v, 0)
        fresh = draw(v, (1280, 720))
        assert pygame.image.tobytes(surface, "RGB") == pygame.image.tobytes(fresh, "RGB"), at


def test_text_cache_is_bounded_and_reused():
    board = Scoreboard((1280, 720), cache_limit=64)
    surface = pygame.Surface((1280, 720))
    v = view_at(COUNTDOWN, 3.0)
    board.draw(surface, v, 0)
    renders = board.text.renders
    board._layer_key = None
    board.draw(surface, v, 0)
    assert board.text.renders == renders            # the same frame again: nothing rendered anew
    for k in range(200):
        board.draw(surface, dict(v, theme=f"Тема {k}"), 0)
    assert len(board.text) <= 64


def test_render_benchmark_runs():
    # benchmarks/render.py judges the speed (docs/performance.md); a test only checks that it works
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "render.py"
    spec = importlib.util.spec_from_file_location("render_benchmark", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.measure(quick=True)
    assert result["size"] == "1920x1080" and result["frames"] > 0
    assert 0 < result["render_p50_ms"] <= result["render_p99_ms"]


@pytest.mark.parametrize("view", [
    {}, {"mode": "unknown"}, {"teams": [{"name": "A"}]}, {"seats": []},
    {"seats": [{"seat": 1}], "timer": {"state": "running", "total_ms": 1000, "remaining_ms": 500}},
    {"teams": [{"name": "A", "holder": True, "color": "not a colour"}], "countdown": {"remaining_ms": -5}},
    {"teams": [], "question": {"presses": [{"team": "Z", "kind": "new-kind"}]}},
    {"stage": "finished", "standings": [{"team": "A"}], "teams": [{"name": "A"}]},
])
def test_partial_or_odd_views_still_draw(view):
    # a mode still being written, or a key it does not have, must never take the screen down
    draw(view, (640, 360), flash={"kind": "new_kind"}, help_overlay=True,
         status={"notice": {"key": "early_press", "params": {"button": "B"}}})


PHONE_TIE = SETUP + """
{"at": 1.0, "host": "question", "theme": "Реки России", "nominal": 30}
{"at": 2.0, "host": "reading_done"}
{"at": 3.000, "press": "A", "delivered": 3.03, "unc": 0.015, "quiet": 0.05}
{"at": 3.010, "press": "B", "delivered": 3.04, "unc": 0.015, "quiet": 0.05}
"""
"""Two phones' presses 10 ms apart, each ±15 ms: a tie within ±15 ms (the lot decides)."""


@pytest.mark.parametrize("lang, words", [("ru", "ничья ±15 мс"), ("en", "tie ±15 ms")])
@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768)])
def test_a_tie_within_the_phones_uncertainty_is_tagged_with_its_bound(tmp_path, lang, words, size):
    """The press order on the projector says how sure it is: both tied presses carry «ничья ±N мс»
    in a tag inside the press-order panel, as the audience page and the terminal say it."""
    board = Scoreboard(size, lang=lang)
    tags = []
    real = board._tag

    def keep(surface, text, x, y, h, *a, **k):
        w = real(surface, text, x, y, h, *a, **k)
        tags.append((text, pygame.Rect(x, y, w, h)))
        return w

    board._tag = keep
    surface = draw(view_at(PHONE_TIE, 3.5), size, board=board)
    pygame.image.save(surface, str(tmp_path / f"phone-tie-{lang}-{size[0]}.png"))
    panel = game_layout(size)["presses"]
    tied = [r for text, r in tags if text == words]
    assert len(tied) == 2 and all(panel.contains(r) for r in tied), tags


MIXED = SETUP + """
{"at": 1.0, "host": "question", "theme": "Реки России", "nominal": 30}
{"at": 2.0, "host": "reading_done"}
{"at": 3.000, "press": "A", "delivered": 3.0002, "quiet": 0.1}
{"at": 3.020, "press": "D", "delivered": 3.0203, "quiet": 0.1}
{"at": 3.050, "press": "B", "delivered": 3.09, "unc": 0.0124, "quiet": 0.1}
"""
"""Wired Альфа first, wired Дельта 20 ms later, Бета's phone 50 ms later ±12.4 ms (no tie);
every press waits 100 ms (``quiet``), as every press does while a phone is joined."""


@pytest.mark.parametrize("lang, gap", [("ru", "+0.050 с ±13 мс"), ("en", "+0.050 s ±13 ms")])
@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768)])
def test_the_projector_s_press_order_says_a_phone_s_uncertainty_and_a_wired_press_s_exact_gap(tmp_path, lang, gap, size):
    board = Scoreboard(size, lang=lang)
    texts = []
    real = board._text

    def keep(surface, text, rect, size, colour, bold=False, *a, **k):
        got = real(surface, text, rect, size, colour, bold, *a, **k)
        texts.append((text, pygame.Rect(rect), size, bold))
        return got

    board._text = keep
    surface = draw(view_at(MIXED, 3.5), size, board=board)
    pygame.image.save(surface, str(tmp_path / f"mixed-{lang}-{size[0]}.png"))
    panel = game_layout(size)["presses"]
    shown = [text for text, r, _, _ in texts if panel.contains(r)]
    assert gap in shown, shown
    # the longer text gets the room it needs: drawn at the row's size, not shrunk to fit the column
    (_, rect, font, bold), = [x for x in texts if x[0] == gap]
    assert board.text.width(gap, font, bold) <= rect.width
    wired = gap.replace("0.050", "0.020").split(" ±")[0]
    assert wired in shown and not any(s.startswith(wired + " ±") for s in shown), shown


def test_the_help_overlay_says_which_keys_want_a_second_press(tmp_path):
    """The projector's key help (H) says «F4 дважды», «Esc дважды» as the host page does (the
    actions whose first press only asks), and not for a key acting at once."""
    from controller.app import config
    from controller.screens.window import _scoreboard

    board = _scoreboard(config.load(), (1280, 720))
    drawn = []
    real = board._text
    board._text = lambda surface, text, *a, **k: (drawn.append(str(text)), real(surface, text, *a, **k))[1]
    surface = pygame.Surface((1280, 720))
    board.draw(surface, view_at(PRESS, 2.6), 0, help_overlay=True)
    pygame.image.save(surface, str(tmp_path / "help.png"))
    assert {"F4 дважды", "Esc дважды", "F12 дважды"} <= set(drawn), drawn
    assert "H, F1" in drawn and "F2" in drawn and "H, F1 дважды" not in drawn
