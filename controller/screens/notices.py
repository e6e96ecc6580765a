"""Host notices and when they leave.

A host notice (the amber line under the theme; a line in the terminal) says
something about the game at the moment it is given: an action was refused
because a question is still open («Сначала завершите или снимите текущий
вопрос»), a player pressed early («Рано: Аня»), a seat number is being typed.
Once that moment is gone the notice is wrong, so it leaves:

* each notice key depends on one part of the game (:func:`scopes`, as the games
  declare it: ``Game.notices``): the
  question in play, its wave of presses, who holds the answer, whether a clock
  runs, the number being typed, the «Мафия» speech timer, the stage, whether
  there is something to undo, the stuck buttons;
* when the notice is given the loop takes that part of the engine view
  (:func:`snapshot`); after every engine step it takes it again, and the
  notice leaves as soon as the two differ (the question was ruled, closed or
  withdrawn; the clock stopped; the number was used);
* a notice that depends on nothing, and every notice in the end, leaves after
  :data:`NOTICE_NS`; «press again to quit» leaves when pressing again would no
  longer quit (:data:`LIFETIME_NS`).

Pure functions of the view: the loop owns the notice itself.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Mapping

from controller import games
from controller.core.events import NS_PER_S
from controller.games.actions import merge_scopes

NOTICE_NS = 6 * NS_PER_S
"""The longest a host notice stays."""

CONFIRM_NS = 3 * NS_PER_S
"""«Press again to quit / for a new game»: the time in which the second press counts."""

LIFETIME_NS = {"confirm_quit": CONFIRM_NS, "confirm_new_game": CONFIRM_NS}
"""Notices that leave sooner than :data:`NOTICE_NS`."""
LIFETIME_NS.update(dict.fromkeys(("confirm_next_game", "confirm_programme_end", "confirm_fight_end", "confirm_fight_skip"),
                                 CONFIRM_NS))
# the second press of a key that ends a stage early (Game.confirm) counts as long as the quit key's


def _question(view: Mapping[str, Any]) -> tuple:
    """The question in play and where it stands: which question (in which programme round),
    open or closed, its phase (ЧГК), the stage of the game."""
    q = view.get("question") or {}
    return (view.get("stage"), (view.get("series") or {}).get("round"), view.get("fight"), view.get("round"),
            q.get("number"), q.get("label"), bool(q.get("open")), q.get("closed"), q.get("phase"))


def _wave(view: Mapping[str, Any]) -> tuple:
    return _question(view) + ((view.get("question") or {}).get("wave"),)


def _holder(view: Mapping[str, Any]) -> tuple:
    return _wave(view) + (next((t.get("name") for t in view.get("teams") or () if t.get("holder")), None),)


def _running(cd: Any) -> bool:
    return bool(cd) and bool(cd.get("running", True))


def _clock(view: Mapping[str, Any]) -> tuple:
    q = view.get("question") or {}
    return _question(view) + (_running(view.get("countdown")), _running(view.get("captain")),
                              bool(q.get("armed")), bool(q.get("started")), bool(q.get("waiting_start")),
                              bool((view.get("shootout") or {}).get("running")))


def _entry(view: Mapping[str, Any]) -> Any:
    return view.get("entry")


def _pack_entry(view: Mapping[str, Any]) -> tuple:
    pack = view.get("pack") or {}
    return (pack.get("phase"), pack.get("entry"), pack.get("picking_theme"), (pack.get("question") or {}).get("bidder"),
            tuple(pack.get("choosing") or ()))


def _speech(view: Mapping[str, Any]) -> tuple:
    tm = view.get("timer") or {}
    return tm.get("seat"), tm.get("kind"), tm.get("state"), view.get("phase")


def _stage(view: Mapping[str, Any]) -> tuple:
    return (view.get("stage"), view.get("phase"), view.get("fight"), (view.get("series") or {}).get("round"),
            view.get("winner"))


def _undo(view: Mapping[str, Any]) -> tuple:
    return _question(view) + (len((view.get("question") or {}).get("answers") or ()), view.get("can_undo"),
                              view.get("undo"))


def _stuck(view: Mapping[str, Any]) -> tuple:
    return tuple(t.get("name") for t in view.get("teams") or () if t.get("stuck"))


SCOPES: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "question": _question, "wave": _wave, "holder": _holder, "clock": _clock, "entry": _entry, "pack_entry": _pack_entry,
    "speech": _speech, "stage": _stage, "undo": _undo, "stuck": _stuck,
}
"""What a notice can depend on: name -> that part of the view."""

PROGRAM: dict[str, str] = {"entry": "entry", "refused": "question"}
"""What the program's own notices describe: the number being typed, an event the game refused."""


@functools.cache
def scopes() -> dict[str, str]:
    """Notice key -> the part of the game (:data:`SCOPES`) it describes: the games' declarations
    (``Game.notices``) and :data:`PROGRAM`.  Keys not named there (a ruling's echo, «Звук
    выключен», a saved protocol) leave after :data:`NOTICE_NS`."""
    return merge_scopes((games.notice_scopes(), PROGRAM))


def depends_on(key: str | None) -> str | None:
    """The scope of notice ``key``, or None."""
    return scopes().get(key) if key else None


def snapshot(scope: str, view: Mapping[str, Any]) -> Any:
    """The part of ``view`` a notice of this ``scope`` describes (compared, never shown)."""
    return SCOPES[scope](view)


def lifetime_ns(key: str | None) -> int:
    """How long notice ``key`` stays at most: :data:`LIFETIME_NS`; a game's own «press again»
    (``Game.confirm``: a key ``<game>.confirm_…``) as long as the second press counts."""
    game, dot, name = (key or "").rpartition(".")
    if dot and name.startswith("confirm_"):
        return CONFIRM_NS
    return LIFETIME_NS.get(key or "", NOTICE_NS)
