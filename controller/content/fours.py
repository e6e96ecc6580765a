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
before it`` (in the host's language: :meth:`FoursError.words`).  Each game's plan
(:mod:`controller.games.event_plan`, ``from_4s``) turns a pack into the keys of its
``[[games]]`` table (docs/event-file.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.core.errors import BuzzerError, located
from controller.i18n import DEFAULT_LANG, Text, t, words

# longest first: a line is matched against these in order
MARKERS = ("###LJ", "###", "#DATE", "#EDITOR", "##", "#", "№№", "№", "!=", "?", "!", "=", "/", "^", "@")
QUESTION_FIELDS = {"!": "answer", "=": "accepted", "!=": "not_accepted", "/": "comment", "^": "source",
                   "@": "author"}
WHAT = {"!": "fours.what_answer", "=": "fours.what_accepted", "!=": "fours.what_not_accepted",
        "/": "fours.what_comment", "^": "fours.what_source", "@": "fours.what_author"}
"""What each question field is, as the catalog key of its words («!»: an answer)."""
MAX_BYTES = 5_000_000
_HANDOUT = re.compile(r"\[\s*Раздаточный материал\s*:?\s*(.*?)\]", re.S | re.I)
_IMG = re.compile(r"\(img\s+([^)]+?)\s*\)")
_SCREEN = re.compile(r"\(screen\s+([^|)]*)\|[^)]*\)")


class FoursError(BuzzerError):
    """A malformed 4s file; the message names the file and the line: ``source: line N: problem``
    (``line`` None: the file as a whole).  ``problem`` is a catalog text, said in the host's
    language by :meth:`words` (``str`` is the English line)."""

    def __init__(self, source: str, line: int | None, problem: Text):
        self.source = source
        self.line = line
        self.problem = problem
        super().__init__(self._line(str(problem), "en"))

    def _line(self, problem: str, lang: str) -> str:
        return located(self.source, None if self.line is None else t("fours.line", lang, n=self.line), problem)

    def words(self, lang: str = DEFAULT_LANG) -> str:
        return self._line(str(words(self.problem, lang)), lang)


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
        raise FoursError(source, q.line, Text("fours.handout_not_closed"))
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
                raise FoursError(source, n, Text("fours.outside_field", got=repr(line.strip()[:40])))
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
            raise FoursError(source, q.line, Text("fours.no_answer"))
        _handouts(q, source)
        if not q.text and not q.handouts:
            raise FoursError(source, q.line, Text("fours.empty_question"))

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
                raise FoursError(source, n, Text("fours.no_question_before", marker=m, what=Text(WHAT[m])))
            key = QUESTION_FIELDS[m]
            if getattr(q, key):
                raise FoursError(source, n, Text("fours.second_field", marker=m, what=Text(WHAT[m]), line=q.line))
            if not body and m == "!":
                raise FoursError(source, n, Text("fours.empty_answer"))
            setattr(q, key, body)
            q.lines[key] = n
        elif m == "##":
            close(q)
            q = None
            if not body:
                raise FoursError(source, n, Text("fours.untitled_tour"))
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
                raise FoursError(source, n, Text("fours.number_inside"))
            own_number = body
        elif m == "№№":
            if not body.isdigit():
                raise FoursError(source, n, Text("fours.renumber_needs_number", got=repr(body)))
            renumber = int(body)
    close(q)
    if not pack.questions:
        raise FoursError(source, None, Text("fours.no_questions"))
    return pack


def load(path: str | Path) -> Pack:
    p = Path(path)
    try:
        if p.is_dir():
            raise FoursError(str(path), None, Text("fours.is_folder"))
        if p.stat().st_size > MAX_BYTES:
            raise FoursError(str(path), None, Text("fours.too_large", mb=MAX_BYTES // 1_000_000))
        text = p.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise FoursError(str(path), None, Text("file.not_found")) from None
    except UnicodeDecodeError:
        raise FoursError(str(path), None, Text("file.not_utf8")) from None
    except OSError as exc:
        raise FoursError(str(path), None, Text("file.cannot_read", problem=exc.strerror)) from None
    return parse(text, str(path))
