"""Question packs in 4s, the plain-text format of the ЧГК question database and chgksuite.

A 4s file is a sequence of fields; a field is a line that starts with its marker, one or
more spaces and its content, and it goes on over the following lines (single line breaks)
until a blank line or the next marker::

    ### The tournament's title        #DATE a date           #EDITOR the editors
    ## A tour (a section)             # information on the tournament or the tour
    ? the question's text             ! the answer           = accepted answers
    != answers not accepted           / the comment          ^ the sources
    @ the authors                     № the question's own number   №№ renumber from here

Inside the question a handout is written ``[Раздаточный материал: …]`` (text, over several
lines if need be) or ``(img file.png)``; lines starting with ``- `` are a list (a doublet's
or a blitz's parts, the sources).  ``4SCOUNTER`` counts up, ``(screen host|screen)`` keeps the
host's version, ``(PAGEBREAK)`` is dropped, ``\\_`` is an underscore.

:func:`parse` is pure (text in, a :class:`Pack` out); a malformed file is one
:class:`FoursError` naming the line: ``pack.4s: line 12: «!» (an answer) with no question
before it``.  Each game's plan (:mod:`controller.games.event_plan`, ``from_4s``) turns a pack into
the keys of its ``[[games]]`` table (docs/event-file.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.core.errors import BuzzerError

# longest first: a line is matched against these in order
MARKERS = ("###LJ", "###", "#DATE", "#EDITOR", "##", "#", "№№", "№", "!=", "?", "!", "=", "/", "^", "@")
QUESTION_FIELDS = {"!": "answer", "=": "accepted", "!=": "not_accepted", "/": "comment", "^": "source",
                   "@": "author"}
WHAT = {"!": "an answer", "=": "accepted answers", "!=": "answers not accepted", "/": "a comment",
        "^": "sources", "@": "authors"}
MAX_BYTES = 5_000_000
_HANDOUT = re.compile(r"\[\s*Раздаточный материал\s*:?\s*(.*?)\]", re.S | re.I)
_IMG = re.compile(r"\(img\s+([^)]+?)\s*\)")
_SCREEN = re.compile(r"\(screen\s+([^|)]*)\|[^)]*\)")


class FoursError(BuzzerError):
    """A malformed 4s file; the message names the file and the line."""


@dataclass
class Question:
    line: int
    text: str = ""
    answer: str = ""
    accepted: str = ""
    not_accepted: str = ""
    comment: str = ""
    source: str = ""
    author: str = ""
    number: str = ""
    """Its own number (``№``), as written; "" when counted."""
    handouts: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    """The line each of its fields starts on (``text``, ``answer``, ``comment`` …)."""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "answer": self.answer}
        for key in ("accepted", "not_accepted", "comment", "source", "author"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.handouts:
            out["handouts"] = list(self.handouts)
        return out


@dataclass
class Tour:
    title: str
    line: int
    info: list[str] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


@dataclass
class Pack:
    title: str = ""
    date: str = ""
    editors: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    tours: list[Tour] = field(default_factory=list)

    @property
    def questions(self) -> list[Question]:
        return [q for t in self.tours for q in t.questions]


def _marker(line: str) -> tuple[str, str] | None:
    """(marker, content) of a line that starts a field, or None (a continuation line)."""
    for m in MARKERS:
        if line.startswith(m):
            rest = line[len(m):]
            if m in ("#", "##", "###") and rest.startswith("#"):
                continue   # a longer run of '#' (checked by the longer markers first)
            if m in ("#DATE", "#EDITOR", "###LJ") or rest == "" or rest[0].isspace():
                return m, rest.strip()
            if m in ("#", "##", "###", "№", "№№"):
                return m, rest.strip()    # "## Тур 1" and "##Тур 1" alike
    return None


def _clean(text: str, counters: dict[str, int]) -> str:
    def count(m: re.Match) -> str:
        key = m.group(1)
        counters[key] = counters.get(key, 0) + 1
        return str(counters[key])

    text = re.sub(r"4SCOUNTER(\d*)", count, text)
    text = _SCREEN.sub(lambda m: m.group(1), text)
    text = text.replace("(PAGEBREAK)", "").replace("\\_", "_")
    return "\n".join(ln.rstrip() for ln in text.strip().splitlines())


def _handouts(q: Question, source: str) -> None:
    """Take the handouts out of the question's text (they stay named in ``handouts``)."""
    text = q.text
    opened = text.lower().count("[раздаточный материал")
    found = _HANDOUT.findall(text)
    if opened > len(found):
        raise FoursError(f"{source}: line {q.line}: a handout «[Раздаточный материал: …» is not closed with «]»")
    for body in found:
        imgs = _IMG.findall(body)
        words = _IMG.sub("", body).strip()
        q.handouts += imgs + ([words] if words else [])
    text = _HANDOUT.sub("", text)
    for img in _IMG.findall(text):
        q.handouts.append(img)
    q.text = _IMG.sub("", text).strip()


def parse(text: str, source: str = "<4s>") -> Pack:
    """A pack from 4s text; :class:`FoursError` names the first malformed line."""
    pack = Pack()
    counters: dict[str, int] = {}
    fields: list[tuple[int, str, list[str]]] = []   # (line, marker, lines)
    current: tuple[int, str, list[str]] | None = None
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip()
        if n == 1:
            line = line.lstrip("\ufeff")
        if not line.strip():
            current = None
            continue
        found = _marker(line)
        if found is None:
            if current is None:
                raise FoursError(f"{source}: line {n}: text outside any field (a 4s field starts with "
                                 f"?, !, =, !=, /, ^, @, ##, # …): {line.strip()[:40]!r}")
            current[2].append(line)
            continue
        current = (n, found[0], [found[1]] if found[1] else [])
        fields.append(current)

    tour: Tour | None = None
    q: Question | None = None
    renumber: int | None = None
    own_number = ""

    def close(q: Question | None) -> None:
        if q is None:
            return
        if not q.answer:
            raise FoursError(f"{source}: line {q.line}: the question has no answer («!» line)")
        _handouts(q, source)
        if not q.text and not q.handouts:
            raise FoursError(f"{source}: line {q.line}: the question («?») is empty")

    for n, m, lines in fields:
        body = _clean("\n".join(lines), counters)
        if m == "?":
            close(q)
            if tour is None:
                tour = Tour("", n)
                pack.tours.append(tour)
            q = Question(n, text=body, number=own_number or (str(renumber) if renumber is not None else ""),
                         lines={"text": n})
            if renumber is not None and not own_number:
                renumber += 1     # «№» numbers one question and leaves the counter as it was
            own_number = ""
            tour.questions.append(q)
        elif m in QUESTION_FIELDS:
            if q is None:
                raise FoursError(f"{source}: line {n}: «{m}» ({WHAT[m]}) with no question («?») before it")
            key = QUESTION_FIELDS[m]
            if getattr(q, key):
                raise FoursError(f"{source}: line {n}: a second «{m}» ({WHAT[m]}) for the question of line {q.line}")
            if not body and m == "!":
                raise FoursError(f"{source}: line {n}: the answer («!») is empty")
            setattr(q, key, body)
            q.lines[key] = n
        elif m == "##":
            close(q)
            q = None
            if not body:
                raise FoursError(f"{source}: line {n}: a tour («##») without a title")
            tour = Tour(body, n)
            pack.tours.append(tour)
        elif m in ("###", "###LJ"):
            if m == "###" and not pack.title:
                pack.title = body
        elif m == "#DATE":
            pack.date = body
        elif m == "#EDITOR":
            (tour.info if tour is not None else pack.editors).append(body)
        elif m == "#":
            (tour.info if tour is not None else pack.info).append(body)
        elif m == "№":
            if q is not None and not q.answer:
                raise FoursError(f"{source}: line {n}: «№» inside a question (before its answer)")
            own_number = body
        elif m == "№№":
            if not body.isdigit():
                raise FoursError(f"{source}: line {n}: «№№» needs a number, got {body!r}")
            renumber = int(body)
    close(q)
    if not pack.questions:
        raise FoursError(f"{source}: no question («?» line) in the file")
    return pack


def load(path: str | Path) -> Pack:
    p = Path(path)
    try:
        if p.is_dir():
            raise FoursError(f"{path}: is a folder, not a 4s file")
        if p.stat().st_size > MAX_BYTES:
            raise FoursError(f"{path}: larger than {MAX_BYTES // 1_000_000} MB; is it a 4s file?")
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise FoursError(f"{path}: file not found") from None
    except UnicodeDecodeError:
        raise FoursError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise FoursError(f"{path}: cannot read: {exc.strerror}") from None
    return parse(text, str(path))
