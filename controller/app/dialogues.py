"""The host's dialogues: small state machines that turn keys into one host action.

A dialogue opens when its host action comes with no parameters from a key (a web page or a
script sends the parameters themselves); it takes keys (and typed text, and players' buttons)
until it sends its action or is cancelled.  It decides nothing about the game: what it sends
is journaled and stepped like any host action, and the game checks it.

* :class:`Rename` (``rename``, the program's own, in every game): pick a team or seat by its
  number or its button, type the new name;
* :class:`Lineup` (a game declares it on its action: ``Spec(dialogue="lineup")``,
  controller/games/actions.py): team, round, player as three digits (controller/app/lineup_entry.py).

A dialogue never touches the loop: each call returns an :class:`Outcome` (a notice to show,
an action to send, whether it closed), which the loop carries out.  :data:`DIALOGUES` names
them for the declarations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, ClassVar

from controller.app.lineup_entry import LineupEntry, digit_of
from controller.i18n import t

NAME_TYPING_MAX = 40
"""Characters the rename dialogue takes (the engine refuses longer names too)."""


@dataclass(frozen=True)
class Context:
    """What a dialogue may know of the game: the members now, what a rename picks, the teams'
    keys and the language."""

    members: Callable[[], list[dict]]
    """The teams (or seats) now: ``{"number", "name", "button"}``."""
    kind: str
    """``team`` or ``seat``: what a rename picks and its parameter's name."""
    team_keys: dict[str, str]
    """A team's key (lower case) -> its button."""
    lang: str


@dataclass(frozen=True)
class Outcome:
    notice: tuple[str, dict] | None = None
    send: tuple[str, dict] | None = None
    """A host action to send (it goes on the loop's queue, journaled like any other)."""
    close: bool = False


TAKEN = Outcome()
"""The key was the dialogue's and nothing else follows."""


class Dialogue:
    """The hooks a dialogue may provide; the defaults take nothing."""

    takes_all_keys: ClassVar[bool] = False
    """Every key is the dialogue's while it is open (a name being typed)."""
    takes_digits: ClassVar[bool] = False
    """The keypad's digit keys type digits while it is open (``Keypad.digits_wanted``)."""
    toggles: ClassVar[bool] = False
    """Its key again closes it (with :attr:`cancelled`); otherwise the key opens it afresh."""
    cancelled: ClassVar[str] = ""
    """The notice said when it is cancelled."""

    def key(self, names: list[str], ctx: Context) -> Outcome | None:
        """A key (lower-case names) of the window or the terminal; None: not the dialogue's."""
        return None

    def key_up(self) -> None:
        pass

    def text(self, text: str) -> bool:
        """Typed characters; True when taken."""
        return False

    def press(self, button: str, ctx: Context) -> Outcome | None:
        """A player's button; None: a game press as usual."""
        return None

    def digit(self, digit: str, ctx: Context) -> Outcome | None:
        """A digit from the keypad (the ``digit`` host key)."""
        return None

    @property
    def typing(self) -> bool:
        """Characters are text, not keys."""
        return False

    def entry(self, ctx: Context) -> dict:
        """What it shows the host: ``title``, ``text`` (typed), ``hint``."""
        raise NotImplementedError


@dataclass
class Rename(Dialogue):
    """The host renaming a team from the keyboard: first pick it (its number, typed with the
    digits, or its button), then type the name; Enter sends one ``rename`` host action, Esc
    leaves it.  The text comes from text input (pygame TEXTINPUT, the terminal's characters),
    so a Cyrillic name types as it is."""

    takes_all_keys: ClassVar[bool] = True
    cancelled: ClassVar[str] = "rename_cancelled"

    number: int | None = None   # the team (seat) picked, 1-based; None while picking
    digits: str = ""            # a team number being typed
    text_: str = field(default="", repr=True)   # the new name being typed (starts as the current name)
    ready: bool = False         # text is taken only after the key that picked the team is up

    @property
    def typing(self) -> bool:
        return self.number is not None

    def _pick(self, number: int, ctx: Context) -> Outcome:
        teams = ctx.members()
        if not 1 <= number <= len(teams):
            self.digits = ""
            return Outcome(notice=("rename_no_seat" if ctx.kind == "seat" else "rename_no_team",
                                   {"number": number}))
        self.number = number
        self.text_ = teams[number - 1]["name"]
        self.ready = False
        return TAKEN

    def key(self, names: list[str], ctx: Context) -> Outcome:
        if "escape" in names:
            return Outcome(notice=(self.cancelled, {}), close=True)
        enter = "return" in names or "enter" in names or "[enter]" in names
        backspace = "backspace" in names
        if self.number is None:
            digit = next((n.strip("[]") for n in names if len(n.strip("[]")) == 1 and n.strip("[]").isdigit()),
                         None)
            if digit is not None:
                self.digits = (self.digits + digit).lstrip("0")
                count = len(ctx.members())
                if self.digits and int(self.digits) * 10 > count:   # no longer number starts so
                    return self._pick(int(self.digits), ctx)
            elif enter and self.digits:
                return self._pick(int(self.digits), ctx)
            elif backspace:
                self.digits = self.digits[:-1]
            elif ctx.kind == "team":  # a team may be picked by its button too
                button = next((ctx.team_keys[n] for n in names if n in ctx.team_keys), None)
                number = next((tm["number"] for tm in ctx.members() if button and tm["button"] == button), None)
                if number is not None:
                    return self._pick(number, ctx)
            return TAKEN
        if backspace or "delete" in names:
            self.text_ = self.text_[:-1] if backspace else ""   # Delete: start the name afresh
            self.ready = True
        elif enter:
            return Outcome(send=("rename", {ctx.kind: self.number, "name": self.text_}), close=True)
        return TAKEN

    def key_up(self) -> None:
        if self.number is not None:
            self.ready = True

    def text(self, text: str) -> bool:
        if self.number is None or not self.ready:
            return False
        text = "".join(ch for ch in text if ch.isprintable())
        self.text_ = (self.text_ + text)[:NAME_TYPING_MAX]
        return True

    def press(self, button: str, ctx: Context) -> Outcome | None:
        """A player's button while the host picks the team to rename: it picks that team."""
        if self.number is not None:
            return None
        number = next((tm["number"] for tm in ctx.members() if tm["button"] == button), None)
        if number is None:
            return None
        out = self._pick(number, ctx)
        self.ready = True
        return out

    def entry(self, ctx: Context) -> dict:
        lang = ctx.lang
        if self.number is None:
            return {"title": t("rename_pick_seat" if ctx.kind == "seat" else "rename_pick", lang),
                    "text": self.digits, "hint": t("rename_pick_hint", lang)}
        teams = ctx.members()
        old = teams[self.number - 1]["name"] if self.number <= len(teams) else ""
        return {"title": t("rename_type", lang, number=self.number, team=old), "text": self.text_,
                "hint": t("rename_hint", lang)}


class Lineup(Dialogue):
    """A line-up typed on the keypad or the keyboard: team, round, player; the third digit
    sends one ``lineup`` host action.  Backspace takes a digit back; Esc or the key again
    cancels (other keys go their usual way)."""

    takes_digits: ClassVar[bool] = True
    toggles: ClassVar[bool] = True
    cancelled: ClassVar[str] = "lineup_entry_cancelled"

    def __init__(self) -> None:
        self.typed = LineupEntry()

    def __repr__(self) -> str:
        return f"Lineup({self.typed.digits!r})"

    def key(self, names: list[str], ctx: Context) -> Outcome | None:
        if "escape" in names:
            return Outcome(notice=(self.cancelled, {}), close=True)
        if "backspace" in names:
            self.typed.back()
            return TAKEN
        d = digit_of(names)
        return self.digit(d, ctx) if d is not None else None

    def digit(self, digit: str, ctx: Context) -> Outcome:
        params = self.typed.add(digit)
        return TAKEN if params is None else Outcome(send=("lineup", params), close=True)

    def entry(self, ctx: Context) -> dict:
        return {"title": t("lineup_entry_title", ctx.lang), "text": self.typed.shown(),
                "hint": t("lineup_entry_hint", ctx.lang)}


DIALOGUES: dict[str, Callable[[], Dialogue]] = {"rename": Rename, "lineup": Lineup}
"""The dialogues by the name an action declares (``Spec(dialogue=…)``), in the order in which
they take a key when more than one is open."""

PROGRAM_DIALOGUES = {"rename": "rename"}
"""The program's own dialogues, in every game whatever it declares: action -> dialogue."""
