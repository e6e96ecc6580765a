"""What the host and the hall are told about a press that did not win: a press 50 ms after
the winner lost the race («Поздно», not «Рано»); presses at the very same moment are a tie
the lot decided, and the press order says «ничья» instead of a gap of +0.000 s.  Driven by
keys through the real loop; the frame drawn by the real scoreboard, its words recorded."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import pygame  # noqa: E402

from controller.games import engine  # noqa: E402
from controller.screens import scoreboard, viewmodel  # noqa: E402
from controller.screens.scoreboard import Scoreboard  # noqa: E402
from controller.screens.terminal import status_lines  # noqa: E402

from tests.test_notices import keys, make_loop, shown, MS  # noqa: E402


def words_on_the_projector(loop, monkeypatch, path):
    words: list[str] = []
    text = scoreboard.Scoreboard._text

    def recording(self, surface, s, rect, *a, **k):
        words.append(s)
        return text(self, surface, s, rect, *a, **k)

    tag = scoreboard.Scoreboard._tag

    def recording_tag(self, surface, label, *a, **k):
        words.append(label)
        return tag(self, surface, label, *a, **k)

    monkeypatch.setattr(scoreboard.Scoreboard, "_text", recording)
    monkeypatch.setattr(scoreboard.Scoreboard, "_tag", recording_tag)
    pygame.init()
    surface = pygame.Surface((1280, 720))
    vm = viewmodel.from_loop(loop)
    view, flash, status, _ = viewmodel.projector(vm, True)
    Scoreboard((1280, 720), lang="ru").draw(surface, view, loop.clock.now(), flash=flash, status=status)
    pygame.image.save(surface, str(path))
    return words


def test_a_press_50_ms_after_the_winner_is_late_not_early(tmp_path, monkeypatch):
    loop, clock = make_loop()
    keys(loop, clock, "n", "space")
    keys(loop, clock, "z", "m", gap_ms=50)          # Бета, then Дельта 50 ms later
    assert shown(loop) == "Поздно: Дельта, на 0.050 с позже, чем Бета"
    words = words_on_the_projector(loop, monkeypatch, tmp_path / "late.png")
    assert "Поздно" in words and "Рано" not in words
    rows = engine.view(loop.state)["question"]["presses"]
    assert [(r["team"], r["kind"]) for r in rows] == [("Бета", "answer"), ("Дельта", "late")]


def test_a_press_long_into_the_answer_is_still_early_for_the_next_wave(tmp_path, monkeypatch):
    loop, clock = make_loop()
    keys(loop, clock, "n", "space")
    keys(loop, clock, "z", "m", gap_ms=3000)        # Дельта 3 s into Бета's answer (§4.6)
    assert shown(loop) == "Рано: Дельта"


def test_presses_at_the_same_moment_are_a_tie_the_lot_decided(tmp_path, monkeypatch):
    loop, clock = make_loop()
    keys(loop, clock, "n", "space")
    loop.key_down(["z"])
    loop.key_down(["m"])                            # the same instant (the clock did not move)
    loop.drain()
    clock.advance(100 * MS)
    loop.tick_if_due()
    loop.drain()
    loop.status()
    holder = next(tm["name"] for tm in engine.view(loop.state)["teams"] if tm.get("holder"))
    assert shown(loop) == f"Ничья (одно и то же мгновение): Бета, Дельта; жребий отдал ответ: {holder}" \
        or shown(loop) == f"Ничья (одно и то же мгновение): Дельта, Бета; жребий отдал ответ: {holder}"
    words = words_on_the_projector(loop, monkeypatch, tmp_path / "tie.png")
    assert words.count("ничья") == 2 and "+0.000 с" not in words
    rows = engine.view(loop.state)["question"]["presses"]
    assert rows[0]["team"] == holder and rows[0]["kind"] == "answer"      # the one who answers is 1.
    vm = viewmodel.from_loop(loop)
    view, status = viewmodel.host_screen(vm)
    lines = "\n".join(status_lines(view, "ru", status))
    assert f"1. {holder} — ничья" in lines
