"""The screen model: what every screen draws, as typed values that name no game.

A game turns its state into a :class:`Screen` (``Game.present(state, now)``, pure, beside
its rules); the front ends (the terminal, the projector, the live pages) draw its widgets
and decide nothing.  The widgets are the few things every screen of a quiz shows:

* :class:`Header` -- the game's title, its structure («Бой 2 · Раунд 1 из 4», a tour, a day),
  the theme, the pause;
* :class:`MainPanel` -- the big panel: who holds the answer (in the team's colour), a
  countdown (:class:`Clock`, with its colour phase and a label: the question's time, the
  captain's, a speaker's), the open question, a closed question's outcome, a fight's result,
  a message; the side column's numbers (:class:`Cell`); a package question's content;
* :class:`Cards` -- the team (or seat) cards: name, score, colour, :class:`Tag` s;
* :class:`PressOrder` -- the presses of the question with their gaps, ties and kinds;
* :class:`Standings` -- the table between rounds and at the end;
* :class:`Board` -- a package's board: themes × cells.

Text a game chooses is a :class:`Words` (a catalog key and its parameters, or a literal
text): a screen puts it in its language without knowing what it says.  Tags carry their
catalog key and a :data:`TONES` tone, never a game's word for them.  The audience/host split
is part of the model: :attr:`Screen.host` is the host's only (:func:`audience`).

Pure: no I/O, no clock; :func:`to_json` gives the plain value the live pages get.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

TONES = ("bad", "warn", "alert", "muted", "info", "good")
"""A tag's tone, which a screen turns into a colour: ``bad`` (red), ``warn`` (amber),
``alert`` (orange), ``muted`` (grey), ``info`` (steel blue), ``good`` (green)."""


@dataclass(frozen=True)
class Words:
    """A text: a catalog key with its parameters (a parameter may be :class:`Words` too), a
    literal ``text``, or the concatenation of ``parts``."""

    key: str = ""
    params: tuple[tuple[str, Any], ...] = ()
    text: str = ""
    parts: tuple["Words", ...] = ()

    @classmethod
    def of(cls, key: str, **params: Any) -> "Words":
        return cls(key=key, params=tuple(params.items()))

    @classmethod
    def literal(cls, text: Any) -> "Words":
        return cls(text=str(text))

    @classmethod
    def join(cls, *parts: "Words | str") -> "Words":
        return cls(parts=tuple(p if isinstance(p, Words) else cls.literal(p) for p in parts))

    def render(self, t: Callable[..., str], lang: str) -> str:
        """The text in ``lang``; ``t(key, lang, **params)`` looks a key up."""
        if self.parts:
            return "".join(p.render(t, lang) for p in self.parts)
        if not self.key:
            return self.text
        return t(self.key, lang, **{k: v.render(t, lang) if isinstance(v, Words) else v for k, v in self.params})


@dataclass(frozen=True)
class Tag:
    """A small label on a card or a press: its catalog key and its tone (:data:`TONES`)."""

    key: str
    tone: str = "muted"


# --- countdowns ---------------------------------------------------------------------------

def countdown_phase(cd: Mapping[str, Any]) -> str:
    """``normal``, ``warn`` (amber), ``last`` (red), ``paused`` or ``over``.

    Short timers (up to 10 s) turn amber at 3 s and red at 1 s; longer ones
    at 10 s and in their last 5 s.  A view may force the warning colour with
    ``"warning": true`` (a speech timer does).
    """
    left = max(float(cd.get("remaining_ms") or 0.0), 0.0) / 1000
    total = float(cd.get("total_ms") or 0.0) / 1000
    if left <= 0:
        return "over"
    if not cd.get("running", True):
        return "paused"
    warn, last = (3.0, 1.0) if total <= 10 else (10.0, 5.0)
    if left <= last:
        return "last"
    if left <= warn or cd.get("warning"):
        return "warn"
    return "normal"


def countdown_text(cd: Mapping[str, Any]) -> str:
    """The number shown: whole seconds rounded up (``7`` … ``1``, ``0`` when over);
    ``M:SS`` for timers longer than a minute."""
    left_ms = max(float(cd.get("remaining_ms") or 0.0), 0.0)
    secs = math.ceil(left_ms / 1000 - 1e-9)
    if float(cd.get("total_ms") or 0) > 60_000:
        return f"{secs // 60}:{secs % 60:02d}"
    return str(secs)


def countdown_fraction(cd: Mapping[str, Any]) -> float:
    """How much of the countdown is left, 0..1 (the bar's length)."""
    total = float(cd.get("total_ms") or 0.0)
    if total <= 0:
        return 0.0
    return min(max(float(cd.get("remaining_ms") or 0.0) / total, 0.0), 1.0)


@dataclass(frozen=True)
class Clock:
    """A countdown at the screen's moment: what it counts (``label``, a catalog key, "" when
    unnamed), its number (``text``: ``7``, ``0:45``), its colour ``phase`` (``normal``,
    ``warn``, ``last``, ``paused``, ``over``), the bar's ``fraction`` left and, when it stands
    still, why (``stopped``, a catalog key: ``paused`` «Пауза», the host's pause key;
    ``countdown_stopped`` «Остановлено», the game stopped it: a team holds the answer)."""

    label: str
    text: str
    phase: str
    fraction: float
    remaining_ms: float = 0.0
    total_ms: float = 0.0
    stopped: str = ""
    running: bool = True
    """False while it stands (paused, not started, run out and stopped)."""

    @classmethod
    def of(cls, cd: Mapping[str, Any], label: str, paused: bool = False) -> "Clock":
        """The clock of a countdown value (``remaining_ms``, ``total_ms``, ``running``, ``warning``;
        a timer's own ``state`` ``paused``); ``paused``: the game is paused (the host's key)."""
        phase = countdown_phase(cd)
        stopped = "" if phase != "paused" else \
            "paused" if paused or cd.get("state") == "paused" else "countdown_stopped"
        return cls(label=label, text=countdown_text(cd), phase=phase, fraction=countdown_fraction(cd),
                   remaining_ms=float(cd.get("remaining_ms") or 0.0), total_ms=float(cd.get("total_ms") or 0.0),
                   stopped=stopped, running=cd.get("running") is not False)

    @property
    def paused(self) -> bool:
        return self.phase == "paused"


# --- the widgets --------------------------------------------------------------------------

@dataclass(frozen=True)
class Header:
    """The top line: the game's ``title``, its ``structure`` (the parts of its second line,
    never empty: the title when the game has no structure), the ``theme`` and the pause;
    ``series``: which game of a series is on («Игра 2 из 3», None outside one);
    ``question``: the question being played, open or closed (its head, nominal and own
    theme; None between questions); ``finished``: the game is over (how to say it: the
    standings' ``over``)."""

    title: Words
    structure: tuple[Words, ...]
    theme: str | None = None
    paused: bool = False
    series: Words | None = None
    question: "QuestionCard | None" = None
    finished: bool = False


@dataclass(frozen=True)
class Holder:
    """Who holds the answer: the card's name, ``index`` (its place among the cards, for
    its palette colour), ``colour`` (``#rrggbb`` or None), its place in an answer order
    (``order``) and the button it pressed (``phone``: from a phone)."""

    name: str
    index: int
    colour: str | None = None
    order: int | None = None
    button: str | None = None
    phone: bool = False
    """The answer came from a team's phone (its press had a stamp's uncertainty): the screens say
    «телефон», not the button's key."""


@dataclass(frozen=True)
class QuestionCard:
    """The open question as a card: its ``head`` («Вопрос 2/5»), ``nominal``, ``theme``, and
    whether it waits for its start signal."""

    head: Words
    nominal: Any = None
    theme: str | None = None
    waiting_start: bool = False


@dataclass(frozen=True)
class Outcome:
    """A closed question's outcome: ``kind`` (``withdrawn``, ``right``, ``time_up``,
    ``no_answer``, a catalog key too) and, when answered right, the card's ``name``,
    ``index``, ``colour`` and the points won (``delta``); ``head`` names the question."""

    kind: str
    head: Words
    name: str | None = None
    index: int = 0
    colour: str | None = None
    delta: Any = 0


@dataclass(frozen=True)
class Result:
    """A part of the game just won: ``head`` («Окончен бой 1»), the ``winner``'s name (None:
    stopped with none), its ``index`` and ``colour``, and the ``points`` (the winner's
    first, shown «3 : 1»)."""

    head: Words
    winner: str | None
    points: tuple = ()
    index: int = 0
    colour: str | None = None


@dataclass(frozen=True)
class Speaker:
    """Whose timer runs (a seat's): its ``number`` and ``name`` ("" when unnamed); ``known``
    False when the number is on no card."""

    number: Any
    name: str = ""
    known: bool = True


@dataclass(frozen=True)
class Cell:
    """One number of the side column: ``kind`` ``index`` (question ``index``/``of``),
    ``nominal`` (with the question's index when known), ``label`` (a question's label or
    number), ``clock`` (a countdown beside the holder, the captain's timer)."""

    kind: str
    index: Any = None
    of: Any = None
    nominal: Any = None
    label: Any = None
    clock: Clock | None = None


@dataclass(frozen=True)
class ThemeLine:
    """A round's theme as announced so far (None: not yet); ``current``: the coming round."""

    round: Any
    theme: str | None
    current: bool = False


@dataclass(frozen=True)
class Media:
    """A package's file on screen: its ``kind`` (``image``, ``audio``, ``video``, ``html``),
    its ``name`` and the archive ``member`` it is read from (None: a link, or missing)."""

    kind: str
    name: str
    member: str | None = None


@dataclass(frozen=True)
class Option:
    """A select question's option: its ``label``, its ``text`` and the names of its files."""

    label: str
    text: str
    media: tuple[str, ...] = ()


@dataclass(frozen=True)
class Content:
    """A package question on screen: the ``theme`` and the ``nominal`` it is played for (once
    known; a stake's words in ``stake`` once the bids are over), its stage in words
    (``lines``), the theme's comment, its text, a select question's options and, after the
    ruling (``answer_shown``), the right ``answer`` with the answer's text and comment.

    The files of the part on screen (the question's, the answer's once ruled): every one in
    ``items``, the picture showing now (``image``: the part's pictures show in turn, this is
    number ``image_index`` + 1 of ``images``)."""

    lines: tuple[Words, ...] = ()
    theme_comment: str | None = None
    text: str = ""
    options: tuple[Option, ...] = ()
    answer: str | None = None
    theme: str = ""
    nominal: Any = None
    stake: Words | None = None
    answer_shown: bool = False
    answer_text: str = ""
    answer_comment: str = ""
    image: Media | None = None
    images: int = 0
    image_index: int = 0
    items: tuple[Media, ...] = ()


@dataclass(frozen=True)
class MainPanel:
    """The big panel.  ``kind``: ``holder``, ``timer`` (:attr:`timer`, with an optional
    :attr:`speaker`), ``question``, ``outcome``, ``result``, ``message`` (:attr:`message`
    in :attr:`tone`) or ``title`` (:attr:`title` over :attr:`subtitle`).  ``side``: the side
    column's numbers; ``notes``: short lines beside the panel (what the host is typing);
    ``themes``: the rounds' themes under a timer or the title; ``content``: a package's
    question when one is live."""

    kind: str
    holder: Holder | None = None
    timer: Clock | None = None
    speaker: Speaker | None = None
    question: QuestionCard | None = None
    outcome: Outcome | None = None
    result: Result | None = None
    message: Words | None = None
    tone: str = "warn"
    title: Words | None = None
    subtitle: tuple[Words, ...] = ()
    side: tuple[Cell, ...] = ()
    notes: tuple[Words, ...] = ()
    themes: tuple[ThemeLine, ...] = ()
    content: Content | None = None
    bar: Clock | None = None
    """The countdown the bar under the panel shows (None: no bar)."""
    clock: Clock | None = None
    """The game's own countdown now, whatever the panel holds (the question's, a speech's):
    what a small screen shows as its one number."""
    aside: Clock | None = None
    """A second countdown that runs beside it (a captain's timer), named by its label."""


@dataclass(frozen=True)
class Card:
    """A team's (or a seat's) card: ``name``, ``score`` (None: none shown), ``index`` and
    ``colour`` (its palette colour), its ``place`` (a shared one as its range, «1–2», where the
    game names one), a series' running ``total``, the
    ``tags``, whether it holds the answer (``holder``), is out of the question (``dim``),
    ``extra`` (the extra fight's score), the ``player`` at its button, the ``entry`` number
    the host types for it; a seat's ``number``, its ``dots`` (fouls) out of ``dots_of``
    (``alarm`` from that many), ``active`` (speaking); the ``button`` its presses come from
    (None: a card without one, a seat) and whether that button is ``barred`` now."""

    name: str
    index: int = 0
    score: Any = None
    colour: str | None = None
    place: Any = None
    total: Any = None
    tags: tuple[Tag, ...] = ()
    holder: bool = False
    dim: bool = False
    extra: Any = None
    player: str | None = None
    entry: Any = None
    number: Any = None
    dots: int = 0
    dots_of: int = 4
    alarm: int = 3
    active: bool = False
    button: str | None = None
    """The button (the config's id) whose presses are this card's: a team's phone finds its card by it."""
    barred: bool = False
    """Its presses take no part in the race now: locked out of the question, disqualified or not
    in this fight, blocked after a false start, its button stuck (a team's phone says «Кнопка
    заблокирована»)."""


@dataclass(frozen=True)
class Cards:
    """Every card, in order; ``numbered``: seats, shown by number (no scores)."""

    items: tuple[Card, ...] = ()
    numbered: bool = False


@dataclass(frozen=True)
class Press:
    """One press of the question: the card's ``name`` (``index``/``colour``), its ``wave``,
    its place in the wave's race (``number``, None when not counted), its ``tag`` (an early
    or late press …), ``tie`` (the same edge time as the winner's, or within ``tie_ms``: the
    whole milliseconds of a tie within the presses' declared uncertainty, ± that many; None for an
    exact tie), the ``gap_ms`` to the first, ``answer``: the press that took the answer."""

    name: str
    wave: int = 0
    number: int | None = None
    tag: Tag | None = None
    tie: bool = False
    gap_ms: float = 0.0
    index: int | None = None
    colour: str | None = None
    answer: bool = False
    kind: str = ""
    """What the press was in the race (``answer``, ``lockout``, ``early``, ``late`` …)."""
    button: str | None = None
    """The button pressed (shown when the press has no card's name)."""
    tie_ms: Any = None
    """A tie within the presses' stamps' uncertainty (a phone's press): its ±N ms."""
    unc_ms: Any = None
    """How sure the press's stamp is: a phone's press was in ``gap ± unc_ms`` (whole ms, rounded
    up); None for a wired button's exact stamp (its gap is to the microsecond)."""


@dataclass(frozen=True)
class PressOrder:
    """The press order of the question (``shown``: the game races for the buttons), the
    current ``wave`` bright."""

    shown: bool = True
    entries: tuple[Press, ...] = ()
    wave: int = 0
    armed: bool = False
    """A press now races for the answer: the buttons are on and nobody holds the answer (what a
    team's phone says as «Можно нажимать»; a press while a team is locked out still is not its)."""
    open: bool = False
    """A question is open: the game takes a press now, racing (:attr:`armed`) or not (early, a
    false start, locked …: its entry says which).  Between questions a press is no entry at all
    (what a team's phone says as «Вопроса ещё нет»)."""


@dataclass(frozen=True)
class StandingRow:
    """One row of the table; ``shared``: a place the row shares with others, as its range
    («1–2») where the game names one (None: the ``place`` alone)."""

    place: Any
    name: str
    points: Any
    won: Any = None
    extra: Any = None
    index: int | None = None
    colour: str | None = None
    shared: str | None = None


@dataclass(frozen=True)
class PlayerRow:
    name: str
    team: str
    points: Any


@dataclass(frozen=True)
class Standings:
    """The standings table (``shown``: it takes the screen, between rounds and at the end; its
    ``rows`` are there whenever the game keeps standings, for a screen that lists them
    always): its ``title``, whether
    the game is over (``finished``; ``title_final``: the title already says so), the
    structure after the title (``structure``), the rows, each player's points and the best
    players (``best``: (title, rows)); ``note``: what the final table leaves open, under its
    title (ЧГК: «Поделены места 1–2: их решит перестрелка»); ``points_label`` and
    ``won_label``: the headings of the points column and of the second one when the game
    names them (Брейн-ринг's final table: «Победы в боях», «Очки»; None: «Очки», «За верные»);
    ``over``: how a finished table says the end when it is not «Игра окончена» (a programme's
    game before its last: «Окончена игра 1 из 3, дальше игра 2 …»)."""

    shown: bool = False
    title: Words | None = None
    finished: bool = False
    title_final: bool = False
    over: Words | None = None
    structure: tuple[Words, ...] = ()
    rows: tuple[StandingRow, ...] = ()
    has_won: bool = False
    has_extra: bool = False
    players: tuple[PlayerRow, ...] = ()
    best: tuple[tuple[Words, tuple[PlayerRow, ...]], ...] = ()
    note: Words | None = None
    points_label: Words | None = None
    won_label: Words | None = None


@dataclass(frozen=True)
class BoardCell:
    price: Any
    played: bool = False
    empty: bool = False


@dataclass(frozen=True)
class BoardTheme:
    name: str
    cells: tuple[BoardCell, ...] = ()
    removed: bool = False


@dataclass(frozen=True)
class Board:
    """A package's board: its ``title`` (the round), whether cells are ``left``, the themes
    with their cells, the theme being picked (``picking``, its number from 1); in the
    ``final`` the themes only and who removes one (``prompt``)."""

    title: Words
    left: bool = True
    themes: tuple[BoardTheme, ...] = ()
    final: bool = False
    prompt: Words | None = None
    picking: int | None = None


@dataclass(frozen=True)
class RacePress:
    """One press of the latest race as its record has it: the card's ``name``, the ``gap_ms``
    to the decisive edge, the ``rule`` that decided it (docs/exports.md), the input path's
    time ``resolution_us``, a phone press's ``uncertainty_ms``."""

    name: str
    gap_ms: float = 0.0
    rule: str = ""
    resolution_us: float = 0.0
    uncertainty_ms: Any = None
    """A phone's press: its stamp's declared uncertainty (± ms, as the record has it); None for a
    wired button's."""


@dataclass(frozen=True)
class Race:
    """The latest race's record (the host's): every press in edge order; a tie decided by
    lot names its ``seed`` and ``salt`` (``tie``), the published rule that decided it
    (``tie_rule``: ``random``, the lot, or ``order``) and, within the presses' uncertainty,
    its ±``within_ms`` (as the press order says «ничья ±N мс»)."""

    presses: tuple[RacePress, ...] = ()
    tie: bool = False
    seed: Any = None
    salt: Any = None
    tie_rule: str = ""
    within_ms: Any = None


@dataclass(frozen=True)
class HostPart:
    """What only the host sees: the question's ``text`` and its right ``answer`` (an event
    file's question, a package's; a package's answer content and comment too), whose ruling
    is next, the latest ``race``'s record."""

    text: str = ""
    answer: str | None = None
    answer_text: str = ""
    comment: str = ""
    next: str | None = None
    race: Race | None = None


@dataclass(frozen=True)
class Screen:
    """One screen: the audience's widgets and the host's part."""

    header: Header
    main: MainPanel
    cards: Cards = field(default_factory=Cards)
    presses: PressOrder = field(default_factory=PressOrder)
    standings: Standings = field(default_factory=Standings)
    board: Board | None = None
    host: HostPart = field(default_factory=HostPart)

    @property
    def layout(self) -> str:
        """``table`` (the standings only), ``seats`` (numbered cards), ``board`` (a package's
        board instead of the panel and the press order) or ``game``."""
        if self.cards.numbered:
            return "seats"
        if self.standings.shown:
            return "table"
        if self.board is not None:
            return "board"
        return "game"


def audience(screen: Screen) -> Screen:
    """The screen without the host's part (what the audience's screens get)."""
    return dataclasses.replace(screen, host=HostPart())


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def to_json(value: Any, render: Callable[[Words], str]) -> Any:
    """A screen (or any widget) as a plain JSON-ready value; each :class:`Words` becomes
    its text (``render``), a widget a dict of its fields plus, for a :class:`Screen`, its
    ``layout``, for a :class:`Tag` its ``text`` and for a :class:`Clock` its label's
    (``label_text``), so that a page needs no catalog."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Words):
        return render(value)
    cls = type(value)
    names = _FIELD_NAMES.get(cls)
    if names is None and dataclasses.is_dataclass(value):
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(value))
    if names is not None:
        out = {name: to_json(getattr(value, name), render) for name in names}
        if cls is Screen:
            out["layout"] = value.layout
        elif cls is Tag:
            out["text"] = render(Words(value.key))
        elif cls is Clock:
            out["label_text"] = render(Words(value.label)) if value.label else ""
        return out
    if isinstance(value, (tuple, list)):
        return [to_json(v, render) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v, render) for k, v in value.items()}
    return value
