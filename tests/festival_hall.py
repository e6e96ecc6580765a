"""A festival hall as ``buzzer run`` is one, driven on a virtual clock: the loop, its journal and
an Эрудит-квартет game (``attach`` from ``controller.festival.hall`` adds the publisher).  Shared by
tests/test_festival_hall.py and benchmarks/festival_day.py."""

from __future__ import annotations

from pathlib import Path

from controller.app import config
from controller.sessions import journal as journal_mod
from controller.app.loop import Loop
from controller.games import engine
from controller.inputs.clock import ManualClock
from controller.core.events import NS_PER_MS, Host, Press, Release

MS = NS_PER_MS
SEED = 5


def hall_loop(folder, url: str, hall: str = "Зал 1", competition: str = "Эрудит", **festival):
    """The hall's loop (journal under ``folder/journal``), its clock and config; ``festival``:
    more ``[festival]`` keys."""
    cfg = config.load(None, {"festival": {"broker": url, "hall": hall, "competition": competition, **festival},
                             "journal": {"dir": str(Path(folder) / "journal"), "fsync": False}})
    jr = journal_mod.Journal(journal_mod.current_path(cfg["journal"]["dir"]),
                             header=journal_mod.new_header(cfg, SEED, None), fsync=False)
    clock = ManualClock(1_000 * MS)
    loop = Loop(cfg, engine.new_game(cfg, SEED), clock, journal=jr)
    return loop, clock, cfg


def question(loop, clock, i: int, right: bool = True, think_ms: int = 300, answer_ms: int = 200,
             after_ms: int = 8000) -> None:
    """One question: asked, a button pressed ``think_ms`` later and released, the host's ruling
    ``answer_ms`` after that, then ``after_ms`` until the next."""
    loop.enqueue(Host("question", clock.now(), {}))
    loop.drain()
    clock.advance(think_ms * MS)
    button = "ABCD"[i % 4]
    loop.enqueue(Press(button, clock.now(), clock.now()))
    loop.drain()
    clock.advance(10 * MS)
    loop.tick_if_due()
    loop.enqueue(Release(button, clock.now(), clock.now()))
    loop.drain()
    clock.advance(answer_ms * MS)
    loop.enqueue(Host("right" if right else "wrong", clock.now(), {}))
    loop.drain()
    clock.advance(after_ms * MS)
    loop.tick_if_due()


def play(loop, clock, rounds: int) -> None:
    for i in range(rounds):
        question(loop, clock, i)
