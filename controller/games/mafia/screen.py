"""The «Мафия» table as typed widgets (:mod:`controller.core.screen`), from its view: the
day in the header; the big panel with the speaker's timer (the seat and its name), the
winner, or the title; what the judge is typing beside it; a numbered card for every seat,
with its fouls as dots and its status as a tag."""

from __future__ import annotations

from typing import Any, Mapping

from controller.core.screen import Card, Cards, MainPanel, PressOrder, Screen, Speaker, Tag, Words
from controller.games import present

SEAT_TAGS = {"silenced": Tag("silenced", "warn"), "removed": Tag("removed", "bad"), "out": Tag("out", "info")}
"""A seat's status -> its tag (catalog key, tone)."""

GONE = ("removed", "out")
"""The statuses of a seat that has left the game (its card dimmed)."""


def _main(view: Mapping[str, Any], title_key: str) -> MainPanel:
    tm = view.get("timer") or {}
    seats = list(view.get("seats") or ())
    notes = []
    if view.get("entry"):
        notes.append(Words.literal(f"№ {view['entry']}"))
    if view.get("pending_kind") not in (None, "minute"):
        notes.append(Words.of("mafia.kind", kind=Words(present.COUNTDOWN_LABELS[view["pending_kind"]])))
    speech = tm.get("state") in ("running", "paused", "done") and tm.get("total_ms")
    bar = present.clock(tm, "") if speech else None
    # the speech timer, set for the next speech before it starts too (a small screen's number)
    common = dict(notes=tuple(notes), bar=bar, clock=present.clock(tm) if tm.get("total_ms") else None)
    if view.get("winner"):
        return MainPanel("message", message=Words("town_wins" if view["winner"] == "town" else "mafia_wins"),
                         tone="warn", **common)
    if speech:
        seat = next((x for x in seats if x.get("seat") == tm.get("seat")), None)
        speaker = Speaker(number=tm.get("seat"), name=(seat or {}).get("name") or "", known=seat is not None)
        return MainPanel("timer", timer=present.clock(tm), speaker=speaker, **common)
    return MainPanel("title", title=Words(title_key), **common)


def screen_of(view: Mapping[str, Any], title_key: str) -> Screen:
    seats = [Card(name=x.get("name") or "", index=i, number=x.get("seat"), dots=int(x.get("fouls") or 0),
                  tags=(SEAT_TAGS[x["status"]],) if x.get("status") in SEAT_TAGS else (),
                  active=bool(x.get("speaking")), dim=x.get("status") in GONE)
             for i, x in enumerate(view.get("seats") or ())]
    return Screen(header=present.header(view, title_key), main=_main(view, title_key),
                  cards=Cards(tuple(seats), numbered=True), presses=PressOrder(shown=False))
