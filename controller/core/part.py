"""The interface of the loop's parts: what a piece of the shell around the engine provides.

The loop's core steps the engine and journals; everything else that acts on the world -- the
sounds, the lamps, a package's media, the web pages, the festival link -- is a :class:`Part`
the loop holds in a list.  A part declares the effect types it carries out (:attr:`effects`:
the loop hands each effect to the parts that declare its type, through one table) and the host
actions it owns (:meth:`actions`), and may provide the hooks below; the defaults do nothing.
This module is the interface only (no I/O): the parts live in the shell
(controller/app/parts.py, controller/web/attach.py, controller/festival/hall.py).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Mapping


class Part:
    """A part of the loop.  May override every hook; the loop calls them on its own thread."""

    effects: ClassVar[tuple[type, ...]] = ()
    """The effect types it carries out (:meth:`effect`)."""

    def start(self, loop: Any) -> None:
        """Added to ``loop`` (:meth:`controller.app.loop.Loop.add_part`)."""

    def effect(self, effect: Any, now: int) -> None:
        """Carry out one effect of a declared type (in the order the engine returned them)."""

    def stepped(self, now: int) -> None:
        """After one step's effects have been handed out."""

    def beat(self, now: int) -> None:
        """Every heartbeat of the loop (after deadlines are due)."""

    def next_look(self, now: int) -> int | None:
        """The engine time at which the part wants the next heartbeat, or None."""
        return None

    def actions(self) -> Mapping[str, Callable[[], None]]:
        """Host actions the part carries out (the web pages' ``new_token``): action -> what it does."""
        return {}

    def new_game(self) -> None:
        """The host started a new game (after the loop's own start)."""

    def stop(self) -> None:
        """The program ends: release what the part holds."""
