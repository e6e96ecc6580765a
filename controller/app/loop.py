"""The loop: the one place that owns the game state.

Every input source (button backends, host buttons on GPIO, the keypad, the
window's and the terminal's keys) hands typed events to one sink,
:meth:`Loop.enqueue` (``docs/inputs.md``); input threads only timestamp
events and put them on :attr:`Loop.queue`.  The loop takes them in order, writes each to the
journal, steps the pure engine, and carries out the effects: sounds, lamps,
the screen.  When the engine has a deadline (the settle window, a countdown)
the loop wakes up at that engine time and sends a Tick, so deadlines are
exact and never counted in ticks.

The same loop runs with a pygame window or, where no display exists, headless
with a one-line text status in the terminal (keys typed in the terminal act as
buttons and host keys).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable

from controller import games
from controller.core import engine
from controller.app import journal as journal_mod
from controller.screens import notices
from controller.inputs import KeyInput
from controller.core.clock import EngineClock
from controller.core.effects import Flash, Lamp, Log, Notice, Sound
from controller.core.errors import GameError
from controller.core.events import NS_PER_MS, NS_PER_S, Host, HostKey, InputStatus, Press, Release, Tick
from controller.inputs.keys import HostKeys, physical_names
from controller.core.values import replace
from controller.app.lineup_entry import LineupEntry, digit_of
from controller.i18n import action_label, notice, t, translation
from controller.sound.pack_sounds import PackSounds

log = logging.getLogger(__name__)

CLOCK_RECORD_NS = 250 * NS_PER_MS
"""While a deadline is pending, the time is journaled this often, so that a
resumed countdown continues from (almost) where it was."""

FRAME_GUARD_NS = 40 * NS_PER_MS
"""A front end draws no frame while the next deadline is nearer than this (see
:meth:`Loop.deadline_near`): the settle window and the GPIO quiet period fit in it."""

SWITCH_INTERVAL_S = 0.001
"""Python's GIL hand-over interval while a game runs (the default is 5 ms)."""

QUIT_CONFIRM_NS = notices.CONFIRM_NS

NOTICE_NS = notices.NOTICE_NS
"""How long a host notice stays at most (it leaves sooner once what it says is over:
see :mod:`controller.screens.notices`)."""

QUIET_FLASHES = frozenset({"standings"})
"""Flashes that do not replace a ruling flash still on screen."""

@dataclass
class Rename:
    """The host renaming a team from the keyboard: first pick it (its number, typed
    with the digits, or its button), then type the name; Enter sends one ``rename``
    host action, Esc leaves it.  The text comes from text input (pygame TEXTINPUT, the
    terminal's characters), so a Cyrillic name types as it is."""

    number: int | None = None   # the team (seat) picked, 1-based; None while picking
    digits: str = ""            # a team number being typed
    text: str = ""              # the new name being typed (starts as the current name)
    ready: bool = False         # text is taken only after the key that picked the team is up


NAME_TYPING_MAX = 40
"""Characters the rename dialogue takes (the engine refuses longer names too)."""


class Loop:
    """Runs one game: journal, engine, effects, screen.

    :param cfg: validated config
    :param state: the engine state to start from (new or replayed)
    :param clock: engine clock (already resumed when recovering)
    :param journal: open journal, or None (tests)
    :param screen: object with ``draw(view, now, flash, status)`` or None
    :param audio: object with ``play(name)`` or None
    """

    def __init__(self, cfg: dict, state: Any, clock: EngineClock, journal=None, screen=None,
                 audio=None, backend=None, keypad=None, out=sys.stdout):
        translation(cfg.get("language", "ru"))  # read the catalogs now, not at the first notice of the game
        self.cfg = cfg
        self.state = state
        self.clock = clock
        self.journal = journal
        self.screen = screen
        self.audio = audio
        self.backend = backend
        self.keypad = keypad
        self.out = out
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self._sink_lock = threading.Lock()
        self.host_keys = HostKeys.from_config(cfg)
        self.flash: dict | None = None
        self.flash_until = 0
        self.notice: str = ""
        self.notice_screen: str | None = None
        """The projector's words for :attr:`notice` when they differ (None: the same): a notice
        naming a file (where the old journal went) says it without the path, which only the
        host's terminal and page show."""
        """The host notice on screen now ("" when none): see :meth:`status`."""
        self.notice_at = 0
        self.notice_until = 0
        self._notice_scope: tuple[str, Any] | None = None
        self._notice_check = False
        self.help = False
        self.running = True
        self.quit_armed: int | None = None
        self.new_game_armed: int | None = None
        self.confirm_armed: tuple[str, int] | None = None
        """(action, when) of a key that ends a stage early and waits for its second press."""
        self.last_clock_record = 0
        self.on_new_game: Callable[[], None] | None = self.start_new_game
        self.dirty = True
        self.config_path: str | None = None
        """The config file of this game, recorded in the header of a new game's journal."""
        self.game = games.get(cfg["mode"])
        """The game played (its declarations: what a rename picks, its keys …)."""
        self.extras = games.extras(cfg["mode"])
        """The game's impure part (a protocol file, results read from a file)."""
        self.games_started = 0
        """Games started with the new-game key since the program started."""
        self.rename: Rename | None = None
        self.pack_media = None
        """The extracted media of a SIGame package being played (controller/content/packs.py)."""
        self.pack_sounds = PackSounds(lambda: self.audio, self._pack_path, self._pack_unplayed)
        """A question's package sounds, one after another (controller/sound/pack_sounds.py)."""
        self.lineup_entry: LineupEntry | None = None
        """A line-up being typed on the keypad (controller/app/lineup_entry.py), or None."""
        self.publish: Callable[[], None] | None = None
        """Called after every :meth:`tick_if_due` (loop thread): hands the view model to the web pages
        (:class:`controller.web.attach.Publisher`); it must return at once."""
        self.shell_actions: dict[str, Callable[[], None]] = {}
        """Host actions of a shell part (the web pages' ``new_token``): action -> what it does."""
        self.link: dict | None = None
        """The festival link's state (``connected``, ``detail``), when this hall publishes."""
        self.link_on_screen: dict | None = None
        """The host page's link shown on the projector at the host's request (the ``host_link``
        key, controller/web/attach.py): ``{"url", "qr", "text", "until"}``, or None."""
        self.phone_wait_ns = 0
        """How long a race waits for the joined phones' presses still on their way (their measured
        delay to this computer and its bound, capped by ``[phones] wait_max_ms``; 0: no phone
        plays): the sink stamps it on every press as its quiet period, so it is journaled and a
        replay decides the same (controller/web/phones.py sets it)."""
        self._wake_r = self._wake_w = -1
        self._woken = False

    # -- input side (any thread) -----------------------------------------
    def enqueue(self, event) -> None:
        """The one input sink, ``sink(event)``: thread-safe; backends, host buttons,
        the keypad and the loop's own keys call it with an
        :data:`~controller.core.events.InputEvent` (engine events such as a
        :class:`~controller.core.events.Host` from a test or a benchmark pass as they are).

        A host key is stamped with the time it came (its Host's ``at``).  A press or
        release is stamped ``delivered`` here, under the same lock
        under which :meth:`tick_if_due` reads the clock: whatever was delivered
        before the time of a Tick is in the queue when that Tick is made, so a
        deadline (the arbiter's decision) never passes over an event that had
        already arrived (the queue is also in delivery order)."""
        with self._sink_lock:
            if isinstance(event, (Press, Release)):
                now = self.clock.now()
                if event.delivered < now:
                    event = replace(event, delivered=now)
                if self.phone_wait_ns and isinstance(event, Press) and event.quiet < self.phone_wait_ns:
                    # phones play: an earlier press of a phone may still be on its way (docs/inputs.md
                    # «Phones»): the race waits that long after this delivery, whatever the path
                    event = replace(event, quiet=self.phone_wait_ns, stream=False)
            elif isinstance(event, HostKey):
                # its Host is stamped when the key came, in order with the presses around it
                event = replace(event, delivered=self.clock.now())
            self.queue.put(event)
        self.wake()

    # -- waking a front end that waits in select() (any thread, a signal handler) ------
    def wake_fd(self) -> int:
        """A file descriptor that becomes readable whenever an event is enqueued (or
        :meth:`wake` is called): a front end that waits in ``select()`` on other files (the
        terminal's stdin) puts it in the set, so a press wakes it at once, never after the
        select's timeout. Made on first use; :meth:`clear_wake` empties it."""
        if self._wake_r < 0:
            r, w = os.pipe()
            os.set_blocking(r, False)
            os.set_blocking(w, False)
            self._wake_r, self._wake_w = r, w
        return self._wake_r

    def wake(self) -> None:
        """Make :meth:`wake_fd` readable (one byte until it is cleared); never blocks."""
        if self._wake_w >= 0 and not self._woken:
            self._woken = True
            try:
                os.write(self._wake_w, b"!")
            except (BlockingIOError, OSError):
                pass

    def clear_wake(self) -> None:
        """Empty :meth:`wake_fd` (before draining the queue: an event enqueued after this
        writes a new byte)."""
        if self._wake_r >= 0:
            try:
                while os.read(self._wake_r, 4096):
                    pass
            except (BlockingIOError, OSError):
                pass
            # only now: a wake() between the read and this line wrote nothing, but its event is
            # already queued and the caller drains the queue next. Clearing the flag before the
            # read let a byte written in between be read here with the flag left set, and every
            # later wake() wrote nothing (a press then waited for the select's timeout).
            self._woken = False

    def stop(self) -> None:
        """End the front end's loop (a signal handler may call it): ``running`` goes false and
        a front end waiting in ``select()`` wakes."""
        self.running = False
        self._woken = False
        self.wake()

    def close_wake(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            if fd >= 0:
                os.close(fd)
        self._wake_r = self._wake_w = -1

    # -- keys from the window or the terminal (loop thread) ------------------
    def key_down(self, names: list[str]) -> None:
        names = physical_names(names)
        if self.rename is not None:
            self._rename_key([n.lower() for n in names])  # the dialogue takes every key
            return
        if self.lineup_entry is not None and self._lineup_key([n.lower() for n in names]):
            return
        now = self.clock.now()
        action = self.host_keys.action(names)
        if action is not None:
            # the window's host keys take the path of every other host key; the loop
            # thread then acts on it at once (the next key may depend on it: rename)
            self.enqueue(HostKey(action))
            self.drain()
            return
        if isinstance(self.backend, KeyInput):
            for n in names:
                if self.backend.key_down(n, now):
                    return

    def key_up(self, names: list[str]) -> None:
        if self.rename is not None and self.rename.number is not None:
            self.rename.ready = True
        if not isinstance(self.backend, KeyInput):
            return
        names = physical_names(names)
        now = self.clock.now()
        for n in names:
            if self.backend.key_up(n, now):
                return

    def _input_status(self, ev: InputStatus) -> None:
        if ev.source == "keypad":
            self._notice("keypad_back" if ev.connected else "keypad_away")
        elif ev.source == "festival":
            # the festival's link (controller/festival/hall.py): the status corner, and a
            # problem as one line for the host; the game goes on either way
            self.link = {"connected": ev.connected, "detail": ev.detail}
            from controller.festival.link import status_words
            self._notice("festival_link_up" if ev.connected else "festival_link_down",
                         detail=status_words(ev.detail, self.cfg["language"]))
        elif ev.source == "serial":
            # the button box sent something refused or out of order (controller/inputs/serial.py)
            try:
                info = json.loads(ev.detail)
                self._notice("serial_box_" + str(info.pop("kind")), **info)
            except (ValueError, KeyError, TypeError, AttributeError):
                self._notice_text(ev.detail)
        elif ev.source == "gpio":
            # the GPIO chip went away (buttons = "gpiod"): one notice; the buttons read missing
            self._notice("gpio_back" if ev.connected else "gpio_lost", detail=ev.detail)
            self.dirty = True
        elif ev.source == "gpio-overflow":
            # the kernel's edge buffer overflowed: said, never a silent loss; the race waits
            self._notice("gpio_lost_edges", detail=ev.detail)

    def _host_key(self, key: HostKey, now: int) -> None:
        """Act on a host key from any source (loop thread): the loop's own actions here,
        the game's as one :class:`Host` event (journaled, then stepped) with the key's params."""
        action = key.action
        if action in self.shell_actions:
            self.shell_actions[action]()
            return
        if action in ("new_token", "host_link"):   # the web pages' own keys, with no pages
            self._notice("web_off")
            return
        if action == "help":
            self.help = not self.help
            self.dirty = True
            return
        if action == "mute":
            if self.audio is not None and hasattr(self.audio, "toggle_mute"):
                self._notice("sound_off" if self.audio.toggle_mute() else "sound_on")
            return
        if action == "quit":
            if self.quit_armed is not None and now - self.quit_armed < QUIT_CONFIRM_NS:
                self.running = False
            else:
                self.quit_armed = now
                self._notice("confirm_quit")
            return
        if action == "new_game":
            if self.new_game_armed is not None and now - self.new_game_armed < QUIT_CONFIRM_NS:
                self.new_game_armed = None
                if self.on_new_game:
                    self.on_new_game()
            else:
                self.new_game_armed = now
                self._notice("confirm_new_game")
            return
        if action in self.extras.actions:
            self.extras.act(self, action, now)
            return
        if action == "rename" and not key.params:   # with its parameters (a web page): one Host
            self.rename = Rename()
            self.dirty = True
            return
        if action == "digit":   # the keypad's digits while a line-up is typed
            if self.lineup_entry is not None:
                self._lineup_digit(str(key.params.get("digit", "")))
            return
        if action == "lineup" and not key.params and "lineup" in engine.actions_now(self.state):
            # the keypad's entry: team, round, player (a web page or a script sends them all)
            if self.lineup_entry is not None:
                self.lineup_entry = None
                self._notice("lineup_entry_cancelled")
            else:
                self.lineup_entry = LineupEntry()
            self.dirty = True
            return
        action = self.game.key_action(self.state, action)   # pause on a paused clock resumes it
        if action not in engine.actions_now(self.state):  # in a programme: this round's game
            self._notice("not_in_this_mode", action=action, label=action_label(action, self.cfg["language"]))
            return
        ask = None if key.confirmed else self.game.confirm(self.state, action)
        if ask is None and action == "end_game" and not key.confirmed:
            ask = ("confirm_end_game", {})   # the whole game ends: never on one stray press
        if ask is not None:
            # it ends a stage early (a programme's game, a fight with no winner): a second press acts
            armed, self.confirm_armed = self.confirm_armed, None
            if armed is None or armed[0] != action or now - armed[1] >= QUIT_CONFIRM_NS:
                self.confirm_armed = (action, now)
                self._notice(ask[0], **ask[1])
                return
        self.apply(Host(action, now, dict(key.params)))

    # -- renaming a team (loop thread) ----------------------------------------
    @property
    def typing(self) -> bool:
        """True while the host types a name: characters are text, not keys."""
        return self.rename is not None and self.rename.number is not None

    def members_now(self) -> list[dict]:
        """The teams (or «Мафия» seats) as the engine has them now: name, button, number."""
        v = engine.view(self.state)
        if "seats" in v:
            return [{"number": st["seat"], "name": st["name"], "button": None} for st in v["seats"]]
        return [{"number": i + 1, "name": tm["name"], "button": tm.get("button")}
                for i, tm in enumerate(v.get("teams") or ())]

    def _rename_pick(self, number: int) -> None:
        teams = self.members_now()
        if not 1 <= number <= len(teams):
            self.rename.digits = ""
            self._notice("rename_no_seat" if self.game.members == "seat" else "rename_no_team", number=number)
            return
        self.rename.number = number
        self.rename.text = teams[number - 1]["name"]
        self.rename.ready = False
        self.dirty = True

    def _rename_key(self, names: list[str]) -> None:
        r = self.rename
        self.dirty = True
        if "escape" in names:
            self.rename = None
            self._notice("rename_cancelled")
            return
        enter = "return" in names or "enter" in names or "[enter]" in names
        backspace = "backspace" in names
        if r.number is None:
            digit = next((n.strip("[]") for n in names if len(n.strip("[]")) == 1 and n.strip("[]").isdigit()),
                         None)
            if digit is not None:
                r.digits = (r.digits + digit).lstrip("0")
                count = len(self.members_now())
                if r.digits and int(r.digits) * 10 > count:   # no longer number starts so
                    self._rename_pick(int(r.digits))
            elif enter and r.digits:
                self._rename_pick(int(r.digits))
            elif backspace:
                r.digits = r.digits[:-1]
            elif self.game.members == "team":  # a team may be picked by its button too
                buttons = {tm["key"].lower(): tm["button"] for tm in self.cfg["teams"] if tm.get("key")}
                button = next((buttons[n] for n in names if n in buttons), None)
                number = next((tm["number"] for tm in self.members_now() if button and tm["button"] == button), None)
                if number is not None:
                    self._rename_pick(number)
            return
        if backspace or "delete" in names:
            r.text = r.text[:-1] if backspace else ""   # Delete: start the name afresh
            r.ready = True
        elif enter:
            self.rename = None
            self.queue.put(Host("rename", self.clock.now(), {self.game.members: r.number, "name": r.text}))

    def _lineup_key(self, names: list[str]) -> bool:
        """A key of the window or the terminal while a line-up is typed: digits, Backspace,
        Esc. Other keys (the line-up key itself, to cancel) go their usual way."""
        if "escape" in names:
            self.lineup_entry = None
            self._notice("lineup_entry_cancelled")
        elif "backspace" in names:
            self.lineup_entry.back()
        elif (d := digit_of(names)) is not None:
            self._lineup_digit(d)
        else:
            return False
        self.dirty = True
        return True

    def _lineup_digit(self, digit: str) -> None:
        params = self.lineup_entry.add(digit)
        self.dirty = True
        if params is not None:
            self.lineup_entry = None
            self.queue.put(Host("lineup", self.clock.now(), params))

    def text_input(self, text: str) -> None:
        """Typed characters (pygame TEXTINPUT, the terminal): the name being typed, if any."""
        r = self.rename
        if r is None or r.number is None or not r.ready:
            return
        text = "".join(ch for ch in text if ch.isprintable())
        r.text = (r.text + text)[:NAME_TYPING_MAX]
        self.dirty = True

    def _rename_press(self, button: str) -> bool:
        """A player's button while the host picks the team to rename: it picks that team."""
        if self.rename is None or self.rename.number is not None:
            return False
        number = next((tm["number"] for tm in self.members_now() if tm["button"] == button), None)
        if number is None:
            return False
        self._rename_pick(number)
        self.rename.ready = True
        return True

    def entry(self) -> dict | None:
        """What the rename dialogue shows the host: ``title``, ``text`` (typed), ``hint``; or None."""
        r = self.rename
        if r is None and self.lineup_entry is not None:
            lang = self.cfg["language"]
            return {"title": t("lineup_entry_title", lang), "text": self.lineup_entry.shown(),
                    "hint": t("lineup_entry_hint", lang)}
        if r is None:
            return None
        lang = self.cfg["language"]
        if r.number is None:
            return {"title": t("rename_pick_seat" if self.game.members == "seat" else "rename_pick", lang),
                    "text": r.digits, "hint": t("rename_pick_hint", lang)}
        teams = self.members_now()
        old = teams[r.number - 1]["name"] if r.number <= len(teams) else ""
        return {"title": t("rename_type", lang, number=r.number, team=old), "text": r.text,
                "hint": t("rename_hint", lang)}

    # -- the engine side (loop thread) -----------------------------------
    def apply(self, event, journaled: bool = False) -> list:
        """Journal the event (unless the caller already did), then step the engine
        and carry out its effects."""
        if isinstance(event, HostKey):
            self._host_key(event, event.delivered or self.clock.now())
            return []
        if isinstance(event, InputStatus):
            self._input_status(event)
            return []
        if self.journal is not None and not journaled:
            self.journal.append(event)
        try:
            self.state, fx = engine.step(self.state, event)
        except GameError as exc:
            # the engine refused the event as malformed (the keys never send one; a web action's
            # parameters are checked before, but the game may have moved on since): say which
            # action, in the game's language.  The English details only at INFO: the log's
            # warnings are printed into the terminal's status (buzzer run)
            log.info("%s", exc)
            action = event.action if isinstance(event, Host) else type(event).__name__
            key = "refused_params" if isinstance(event, Host) and event.params else "refused"
            own = {a.name: a.label for a in self.game.declared(self.state).values() if a.label}
            self._notice(key, action=action_label(action, self.cfg["language"], own))
            return []
        self._effects(fx)
        self.dirty = True
        if isinstance(event, Host) and event.action.startswith("digit"):
            # a seat / team number being typed: echo it to the host (a game that says what the
            # digits type -- a player, a price, a stake -- names it; nothing once it is taken)
            label = getattr(self.state, "entry_label", False)
            if label is False:
                self._notice_text(f"№ {getattr(self.state, 'entry', '')}", key="entry")
            elif label is not None and not any(isinstance(f, Notice) for f in fx):   # a refusal stays
                self._notice(label[0], **label[1])
        self.extras.after_step(self)
        self._notice_check = True  # the notice may be over now: looked at when next shown
        return fx

    def _effects(self, fx: list) -> None:
        sounds: list | None = None      # the package sounds of this step, played one after another
        for f in fx:
            if isinstance(f, Sound) and f.name.startswith("pack:"):
                if f.name == "pack:":   # own_game_pack.STOP_SOUND: its question is over
                    self.pack_sounds.stop()
                    sounds = None
                else:
                    sounds = (sounds or []) + [(f.name[5:], f.seconds)]
            elif isinstance(f, Sound):
                if self.audio is not None:
                    # a press with a team's own sound (Audio.handle); a plain player just plays the name
                    handle = getattr(self.audio, "handle", None)
                    handle(f) if handle is not None else self.audio.play(f.name)
                if self.backend is not None:
                    self.backend.beep(f.name)
            elif isinstance(f, Lamp):
                if self.backend is not None:
                    try:
                        self.backend.set_lamp(f.button, f.state)
                    except Exception as exc:  # a lamp must never stop the game
                        log.warning("lamp %s: %s", f.button, exc)
            elif isinstance(f, Flash):
                if f.kind in QUIET_FLASHES and self.current_flash() is not None:
                    continue  # keep «Верно» on screen; the standings show by themselves
                self.flash = {"kind": f.kind, "team": f.team}
                self.flash_until = self.clock.now() + int(self.cfg["display"]["flash_s"] * NS_PER_S)
            elif isinstance(f, Notice):
                self._notice(f.key, **dict(f.params))
            elif isinstance(f, Log):
                log.debug("%s %s", f.kind, f.data)
        if sounds:
            self.pack_sounds.start(sounds, self.clock.now())

    def _pack_path(self, member: str) -> str | None:
        """A package sound as a file for the mixer (written out of the archive when first played)."""
        return self.pack_media.path(member) if self.pack_media is not None else None

    def _pack_unplayed(self, member: str) -> None:
        self._notice("pack.sound_unplayed", name=member.split("/", 1)[-1])

    def say(self, key: str, /, **params) -> None:
        """Show the host the notice ``key`` (a game's extras call it)."""
        self._notice(key, **params)

    def say_text(self, text: str) -> None:
        """Show the host ``text`` as it is."""
        self._notice_text(text)

    def _notice(self, key: str, **params) -> None:
        try:
            text = notice(key, self.cfg["language"], **params)
        except Exception:
            text = key
        self._notice_text(text, key=key)

    def _notice_text(self, text: str, key: str | None = None, hold_ns: int | None = None,
                     echo: bool = True, screen: str | None = None) -> None:
        """Show ``text`` to the host; ``key`` (the notice's i18n key) says what it depends on,
        so that it leaves once that is over (:mod:`controller.screens.notices`); ``hold_ns`` keeps a
        notice that depends on nothing longer than usual (the journal's, at start-up).  With no
        screen (or a headless one) it is printed as a line of its own too, unless ``echo`` is
        False: the caller has printed it already, or the terminal says it in its own way.
        ``screen``: the projector's words for it, when the audience must not see all of it."""
        now = self.clock.now()
        self.notice = text
        self.notice_screen = screen
        self.notice_at = now
        self.notice_until = now + (hold_ns if hold_ns is not None else notices.lifetime_ns(key))
        scope = notices.depends_on(key)
        # what it depends on is read when the host first sees it (notice_now), not here:
        # a notice can come with every press, and a view costs far more than a press
        self._notice_scope = (scope, None) if scope else None
        self._notice_check = True
        self.dirty = True
        if echo and (self.screen is None or getattr(self.screen, "headless", False)):
            print(f"\n! {text}", file=self.out, flush=True)

    def _expire_notice(self) -> None:
        """The notice leaves if what it describes is over: compared with what that was when
        the notice was first shown.  Called when a screen asks (:meth:`notice_now`), and only
        if the game changed since the last look: never on the press path."""
        if not self._notice_check or self._notice_scope is None or not self.notice:
            return
        self._notice_check = False
        scope, then = self._notice_scope
        now = notices.snapshot(scope, engine.view(self.state, self.clock.now()))
        if then is None:
            self._notice_scope = (scope, now)
        elif now != then:
            self.notice = ""
            self._notice_scope = None
            self.dirty = True

    def notice_now(self) -> str:
        """The host notice to show now: "" once it has timed out or what it said is over."""
        self._expire_notice()
        return self.notice if self.clock.now() < self.notice_until else ""

    def start_new_game(self) -> None:
        """Archive the current journal (never deleted) and start a fresh game."""
        self.extras = games.extras(self.cfg["mode"])   # a new game writes a new protocol
        self.games_started += 1
        if self.journal is None:
            self.state = engine.new_game(self.cfg, journal_mod.choose_seed(self.cfg))
            return
        jdir = self.cfg["journal"]["dir"]
        self.journal.close()
        dest = journal_mod.archive(jdir)
        seed = journal_mod.choose_seed(self.cfg)
        self.clock.resume_at(0)
        self.journal = journal_mod.Journal(journal_mod.current_path(jdir),
                                           header=journal_mod.new_header(self.cfg, seed, self.config_path),
                                           fsync=self.cfg["journal"]["fsync"])
        self.state = engine.new_game(self.cfg, seed)
        self.flash = None
        self.dirty = True
        self._notice_text(notice("new_game_started", self.cfg["language"], path=dest), key="new_game_started",
                          screen=notice("new_game_started.screen", self.cfg["language"]))
        if self.backend is not None:
            for b in self.backend.buttons:
                self.backend.set_lamp(b, "off")

    def tick_if_due(self) -> None:
        """Send a Tick if a deadline is due (or a clock record is); first apply
        every event delivered before the Tick's time (see :meth:`enqueue`)."""
        with self._sink_lock:
            now = self.clock.now()
            arrived = self._take_queued()
        if arrived:
            self._apply_batch(arrived)
        raw = engine.wakeup(self.state)
        due = self._held(raw)
        if due is not None and due <= now:
            self.apply(Tick(now))
        elif raw is not None and raw > now and now - self.last_clock_record >= CLOCK_RECORD_NS:
            # (never while a due deadline is held back: that Tick would decide it)
            # a deadline is pending: record the time so a resume continues from here
            self.last_clock_record = now
            self.apply(Tick(now))
        if self.pack_sounds.waiting:
            self.pack_sounds.poll(now)
        if self.publish is not None:
            self.publish()

    def drain(self, first=None) -> None:
        """Apply everything queued.  Group commit: the events taken together are
        written to the journal with one fsync, then applied one by one -- each is
        still on disk before any of its effects (a burst of presses pays one fsync,
        not one each)."""
        while True:
            batch = ([] if first is None else [first]) + self._take_queued()
            first = None
            if not batch:
                return
            self._apply_batch(batch)

    def _take_queued(self) -> list:
        batch = []
        while True:
            try:
                batch.append(self.queue.get_nowait())
            except queue.Empty:
                return batch

    def _apply_batch(self, batch: list) -> None:
        if self.rename is not None:
            # the host picks the team to rename by its button: that press is not a game press
            batch = [ev for ev in batch if not (isinstance(ev, Press) and self._rename_press(ev.button))]
        # engine events are journaled together (one fsync), then applied; a host key or an
        # input status is the loop's own (never journaled) and may step the engine itself
        # (a HostKey's Host), so the events before it go first: the journal keeps the order
        # in which the engine saw them
        run: list = []
        for ev in batch:
            if isinstance(ev, (HostKey, InputStatus)):
                self._apply_run(run)
                run = []
                self.apply(ev)
            else:
                run.append(ev)
        self._apply_run(run)

    def _apply_run(self, run: list) -> None:
        if not run:
            return
        if self.journal is not None:
            self.journal.append_many(run)
        for ev in run:
            self.apply(ev, journaled=True)

    def deadline_near(self) -> bool:
        """True while the engine's next deadline is less than :data:`FRAME_GUARD_NS` away.

        A front end does not start a frame then: while a race waits for its decision
        (the settle window, the GPIO quiet period) the CPU is left to the input threads,
        whose callbacks a frame would delay (on a busy or throttled machine it also spends
        the CPU time the process is allowed, and the process stalls), and the decision
        is carried out on time.  The frame follows at once."""
        due = engine.wakeup(self.state)   # a held deadline (below) has passed: no frame either
        return due is not None and due - self.clock.now() < FRAME_GUARD_NS

    def _due(self) -> int | None:
        """The engine's next deadline as the loop keeps it (:meth:`_held`)."""
        return self._held(engine.wakeup(self.state))

    def _held(self, due: int | None) -> int | None:
        """``due``, once it has passed, held back by the time the input threads have been kept
        from running since the latest press (``ButtonBackend.input_stall_ns``): a GPIO quiet
        period is the callback thread's own time, so a starved machine does not pass over an
        earlier edge whose callback still waits for a CPU.  A press delivered before the Tick
        joins the race (``controller.games.race.fire_due``): a later Tick only lets more
        deliveries in.  Asked only once ``due`` has come (it reads a few /proc files)."""
        if due is not None and self.backend is not None and due <= self.clock.now():
            due += self.backend.input_stall_ns()
        return due

    def timeout_s(self, max_wait_s: float) -> float:
        due = self._due()
        look = self.pack_sounds.next_look(self.clock.now())   # the next of a question's sounds
        if look is not None:
            due = look if due is None else min(due, look)
        if due is None:
            return max_wait_s
        return min(max(due - self.clock.now(), 0) / NS_PER_S, max_wait_s)

    def status(self) -> dict:
        st = self.backend.status() if self.backend is not None else None
        return {"backend": st.name if st else "none", "connected": st.connected if st else False,
                "missing": list(st.missing) if st else [], "detail": st.detail if st else "",
                # the keys the players press for their buttons (simulated on the keyboard): named so
                "keys": dict(self.backend.button_keys()) if self.backend is not None else {},
                "notice": self.notice_now(),
                **({"notice_screen": self.notice_screen if self.notice_now() else ""}
                   if self.notice_screen is not None else {}),
                "entry": self.entry(), **({"link": self.link} if self.link is not None else {})}

    def shown_link(self) -> dict | None:
        """The host link on the projector now (:attr:`link_on_screen` until it hides itself)."""
        shown = self.link_on_screen
        if shown is not None and self.clock.now() >= shown["until"]:
            self.link_on_screen = shown = None
            self.dirty = True
        return shown

    def current_flash(self) -> dict | None:
        if self.flash is not None and self.clock.now() < self.flash_until:
            return self.flash
        return None

    def step_once(self, max_wait_s: float) -> None:
        """Wait for input or the next deadline (at most ``max_wait_s``), then process."""
        try:
            ev = self.queue.get(timeout=self.timeout_s(max_wait_s))
        except queue.Empty:
            ev = None
        self.drain(ev)
        self.tick_if_due()
