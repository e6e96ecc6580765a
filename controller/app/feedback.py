"""The host's feedback: small state machines the loop keeps beside the game state.

* :class:`Notices`: the one host notice on screen now (its text, what it depends on, when it
  leaves: :mod:`controller.screens.notices`);
* :class:`Flashes`: the full-screen flash (``right``, ``wrong`` ...) and how long it stays;
* :class:`Confirmations`: a key that acts only on its second press within a few seconds
  (quit, new game, a game's ``ask`` actions: «Нажмите ещё раз»);
* :class:`ShownLink`: the host page's link on the projector at the host's request.

Each is driven by the loop thread alone and reads the time it is given: none of them knows the
loop, the engine or a game.  The loop (controller/app/loop.py) holds one of each and reads them
for its status and its view model.
"""

from __future__ import annotations

from typing import Any, Callable

from controller.screens import notices
from controller.screens.common import flash_dict

CONFIRM_NS = notices.CONFIRM_NS
"""How long a key waits for its second press."""

QUIET_FLASHES = frozenset({"standings"})
"""Flashes that do not replace a ruling flash still on screen."""


class Notices:
    """The host notice on screen now ("" when none).  ``show`` puts one up; it leaves when its
    time is over or, for a notice that depends on a part of the game, once that part changed
    since the host first saw it (:meth:`expire`, asked when a screen reads it: never on the
    press path)."""

    def __init__(self) -> None:
        self.text = ""
        self.key: str | None = None
        """The catalog key of :attr:`text` (None: a text of its own)."""
        self.screen: str | None = None
        """The projector's words for :attr:`text` when they differ (None: the same): a notice
        naming a file says it without the path, which only the host's terminal and page show."""
        self.at = 0
        self.until = 0
        self._scope: tuple[str, Any] | None = None
        self._check = False

    def show(self, text: str, key: str | None, now: int, hold_ns: int | None = None,
             screen: str | None = None) -> None:
        self.text = text
        self.key = key
        self.screen = screen
        self.at = now
        self.until = now + (hold_ns if hold_ns is not None else notices.lifetime_ns(key))
        scope = notices.depends_on(key)
        # what it depends on is read when the host first sees it (expire), not here: a notice
        # can come with every press, and a view costs far more than a press
        self._scope = (scope, None) if scope else None
        self._check = True

    def game_moved(self) -> None:
        """The game stepped: the notice may be over, looked at when it is next read."""
        self._check = True

    def expire(self, view: Callable[[], dict]) -> bool:
        """Drop the notice if what it describes is over (``view()``: the game's view now);
        True when it left."""
        if not self._check or self._scope is None or not self.text:
            return False
        self._check = False
        scope, then = self._scope
        now = notices.snapshot(scope, view())
        if then is None:
            self._scope = (scope, now)
        elif now != then:
            self.text = ""
            self._scope = None
            return True
        return False

    def current(self, now: int) -> str:
        return self.text if now < self.until else ""

    def done(self, key: str) -> bool:
        """The prompt ``key`` leaves (what it asked for is being done); True when it was up."""
        if self.text and self.key == key:
            self.text = ""
            self.screen = None
            self._scope = None
            return True
        return False


class Flashes:
    """The flash on screen (``{"kind", "team"}``, with the game's own ``text``, ``line`` and
    ``tone`` when its :class:`~controller.core.effects.Flash` says them) until its time is over."""

    def __init__(self, seconds: float) -> None:
        self.hold_ns = int(seconds * 1_000_000_000)
        self.flash: dict | None = None
        self.until = 0

    def show(self, kind: str, team: str | None, now: int, **words: Any) -> bool:
        """Show a flash; False when a quiet one gives way to a ruling flash still up.  ``words``:
        the game's own ``text``, ``line`` and ``tone`` for it
        (:func:`~controller.screens.common.flash_dict`)."""
        if kind in QUIET_FLASHES and self.current(now) is not None:
            return False   # keep «Верно» on screen; the standings show by themselves
        self.flash = flash_dict(kind, team, **words)
        self.until = now + self.hold_ns
        return True

    def current(self, now: int) -> dict | None:
        if self.flash is not None and now < self.until:
            return self.flash
        return None

    def clear(self) -> None:
        self.flash = None


class Confirmations:
    """Keys armed by their first press.  The program's own (quit, new game) each wait for their
    second press within :data:`CONFIRM_NS`; of the game's actions that ask (a stage ended
    early, the whole game), one at a time waits: another one's first press takes its place."""

    def __init__(self) -> None:
        self.armed: dict[str, tuple[int, str]] = {}
        self.waiting: tuple[str, int, str] | None = None
        """(action, when, the prompt's notice key) of the game's action waiting for its second press."""

    def second(self, action: str, now: int) -> bool:
        """True when the program's key ``action`` was armed within the confirmation time."""
        armed = self.armed.get(action)
        return armed is not None and now - armed[0] < CONFIRM_NS

    def arm(self, action: str, now: int, prompt: str) -> None:
        self.armed[action] = (now, prompt)

    def disarm(self, action: str) -> str | None:
        """Forget ``action``'s first press; its prompt's notice key, if it was armed."""
        armed = self.armed.pop(action, None)
        return armed[1] if armed is not None else None

    def stage(self, action: str, now: int, prompt: str | None) -> tuple[bool, str | None]:
        """A game's action pressed; ``prompt``: the notice with which it asks (None: it acts at
        once).  Returns (ask now: show the prompt and do nothing, the prompt that leaves
        because the action is being done)."""
        armed = self.waiting
        if prompt is not None:
            self.waiting = None
            if armed is None or armed[0] != action or now - armed[1] >= CONFIRM_NS:
                self.waiting = (action, now, prompt)
                return True, None
        if armed is not None and armed[0] == action:
            self.waiting = None
            return False, armed[2]
        return False, None


class ShownLink:
    """The host link on the projector (``{"url", "qr", "text", "until"[, "warning"]}``) until
    its time is over or it is hidden."""

    def __init__(self) -> None:
        self.link: dict | None = None

    def show(self, link: dict) -> None:
        self.link = dict(link)

    def hide(self) -> None:
        self.link = None

    def current(self, now: int) -> tuple[dict | None, bool]:
        """The link on screen now, and whether it just hid itself."""
        if self.link is not None and now >= self.link["until"]:
            self.link = None
            return None, True
        return self.link, False
