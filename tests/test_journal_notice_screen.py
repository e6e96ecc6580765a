"""Where the previous game's journal went: the host's terminal names the file; the projector
says it in words, without a path (the audience never sees one), and for no longer than any
notice (docs/screen.md: at most 6 s). Rendered by the real window loop (dummy video driver)
from a real `buzzer run --new` start-up."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import pygame  # noqa: E402

from controller import cli  # noqa: E402
from controller.app import config, startup  # noqa: E402
from controller.sessions import journal  # noqa: E402
from controller.app.loop import Loop  # noqa: E402
from controller.core.events import NS_PER_S, Host  # noqa: E402
from controller.screens import scoreboard, viewmodel  # noqa: E402
from controller.app.runner import run_window_here as run_window  # noqa: E402


def test_the_archive_notice_names_no_path_on_the_projector_and_leaves_within_6_s(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "game.toml").write_text("[web]\nenabled = false\n", encoding="utf-8")
    cfg = config.load(tmp_path / "game.toml")
    old = journal.Journal(journal.current_path(tmp_path / "journal"), header=journal.new_header(cfg, 5, None))
    old.append(Host("question", NS_PER_S))
    old.close()

    drawn: list[dict] = []
    draw = scoreboard.Scoreboard.draw

    def recording(self, surface, view, now, flash=None, status=None, help_overlay=False):
        drawn.append(dict(status or {}))
        return draw(self, surface, view, now, flash=flash, status=status, help_overlay=help_overlay)

    monkeypatch.setattr(scoreboard.Scoreboard, "draw", recording)
    # the loop's terminal lines to this test's stdout (its default is the one at import)
    monkeypatch.setattr(startup, "Loop", lambda *a, **k: Loop(*a, out=sys.stdout, **k))
    seen = {}

    def front_end(loop, seconds):
        flip = pygame.display.flip
        frames = []

        def keep():
            flip()
            frames.append(pygame.display.get_surface().copy())

        pygame.display.flip = keep
        try:
            run_window(loop, 0.8)
        finally:
            pygame.display.flip = flip
        pygame.image.save(frames[-1], str(tmp_path / "start.png"))
        real = loop.clock.now
        later = real() + 6 * NS_PER_S + 1
        loop.clock.now = lambda: later                        # six seconds on
        vm = viewmodel.from_loop(loop)
        seen["after_6_s"] = viewmodel.projector(vm, True)[2]["notice"]
        seen["host_after_6_s"] = vm["host"]["notice"]
        loop.clock.now = real

    args = cli.build_parser().parse_args(["run", "-c", "game.toml", "--new", "--seconds", "1"])
    assert startup.run_from_args(args, "game.toml", front_end, front_end) == 0
    out = capsys.readouterr().out
    archived = list((tmp_path / "journal" / "archive").glob("game-*.jsonl"))
    assert len(archived) == 1
    # the terminal names the file
    assert f"перенесён в архив: {archived[0].relative_to(tmp_path)}" in out
    # the projector says it, in words, without the path
    notices = [s.get("notice") for s in drawn if s.get("notice")]
    assert "Журнал прежней игры перенесён в архив (где — сказано в терминале)" in notices, notices
    assert not any("journal" in n or ".jsonl" in n or "/" in n for n in notices), notices
    # and it is gone after 6 s
    assert seen["after_6_s"] == "" and seen["host_after_6_s"] == ""


def test_a_new_game_by_the_new_game_key_names_the_old_journal_on_the_host_page_only(tmp_path):
    cfg = config.build({"journal": {"dir": str(tmp_path / "journal")}})
    from controller.games import engine
    from controller.inputs.clock import ManualClock
    import io

    clock = ManualClock(1_000 * NS_PER_S)
    jr = journal.Journal(journal.current_path(tmp_path / "journal"), header=journal.new_header(cfg, 5, None))
    loop = Loop(cfg, engine.new_game(cfg, 5), clock, journal=jr, out=io.StringIO())
    loop.start_new_game()
    vm = viewmodel.from_loop(loop)
    archived = list((tmp_path / "journal" / "archive").glob("game-*.jsonl"))
    assert str(archived[0]) in vm["host"]["notice"]                      # the host's page and terminal
    assert viewmodel.projector(vm, True)[2]["notice"] == "Новая игра; прежняя сохранена в архиве журналов"
    assert viewmodel.audience_only(vm) == {k: v for k, v in vm.items() if k != "host"}
    assert "journal" not in repr(viewmodel.audience_only(vm))
