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
from typing import Any, Callable

from controller import games
from controller.games import engine
from controller.sessions import journal as journal_mod
from controller.app import dialogues as dialogues_mod
from controller.app.feedback import Confirmations, Flashes, Notices, ShownLink
from controller.app.parts import Buttons, PackMedia, Speakers, picture_cache_bytes
from controller.screens import notices
from controller.screens.common import key_label
from controller.inputs import KeyInput
from controller.inputs.clock import EngineClock
from controller.core.effects import Flash, Log, Notice
from controller.core.errors import GameError
from controller.core.events import NS_PER_MS, NS_PER_S, Host, HostKey, InputStatus, Press, Release, Tick
from controller.core.part import Part
from controller.inputs.keys import HostKeys, mode_keys, physical_names
from controller.core.values import replace
from controller.i18n import action_label, notice, translation

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

NAME_TYPING_MAX = dialogues_mod.NAME_TYPING_MAX
"""Characters the rename dialogue takes (the engine refuses longer names too)."""

Rename = dialogues_mod.Rename


class Loop:
    """Runs one game: journal, engine, effects, screen.

    The core steps the engine and journals; the host's dialogues
    (:mod:`controller.app.dialogues`) and feedback (:mod:`controller.app.feedback`) are small
    state machines it holds; the sounds, the lamps, a package's media, the web pages and the
    festival link are :class:`~controller.core.part.Part`\\ s (:meth:`add_part`) to which it
    hands the effects by their type.

    :param cfg: validated config
    :param state: the engine state to start from (new or replayed)
    :param clock: engine clock (already resumed when recovering)
    :param journal: open journal, or None (tests)
    :param screen: object with ``draw(view, now, flash, status)`` or None
    :param audio: object with ``play(name)`` or None
    :param config_path: the config file of this game, recorded in the header of a new game's journal
    """

    def __init__(self, cfg: dict, state: Any, clock: EngineClock, journal=None, screen=None,
                 audio=None, backend=None, keypad=None, out=sys.stdout, config_path: str | None = None):
        translation(cfg.get("language", "ru"))  # read the catalogs now, not at the first notice of the game
        self.cfg = cfg
        self.state = state
        self.clock = clock
        self.journal = journal
        self._wraps: list[Callable[[Any], Any]] = []
        """What the journal is written through (:meth:`wrap_journal`), innermost first."""
        self._journal_raw = journal
        self.screen = screen
        self.audio = audio
        self.backend = backend
        self.keypad = keypad
        self.out = out
        self.scrollback = None
        """Where a front end wants lines printed that must stay readable in the terminal (the
        new host link after the new-token key or a new game): a stream, or None (the caller's
        own). The terminal's sets it (:meth:`use`): a line printed under its status block would
        be wiped by the block's next redraw."""
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self._sink_lock = threading.Lock()
        self.keys_enqueued = 0
        """Host keys taken by the sink so far (any thread reads it)."""
        self.keys_applied = 0
        """Host keys the loop has carried out so far: while it is below :attr:`keys_enqueued`, a
        key is on its way (the web's check judges the next action after it,
        :func:`controller.web.attach.make_check`)."""
        self._keys_of: tuple[Any, HostKeys, dict[str, list[str]] | None] | None = None
        """(the state, its host key map, its key help) while the state is the same (:attr:`host_keys`)."""
        self.notices = Notices()
        """The host notice on screen now (:meth:`status`)."""
        self.flashes = Flashes(cfg["display"]["flash_s"])
        self.confirmations = Confirmations()
        """Keys that act on their second press («Нажмите ещё раз»)."""
        self.link_shown = ShownLink()
        """The host page's link shown on the projector at the host's request (the ``host_link``
        key, controller/web/attach.py)."""
        self.help = False
        self.running = True
        self.last_clock_record = 0
        self.on_new_game: Callable[[], None] | None = self.new_game
        self.dirty = True
        self.config_path: str | None = config_path
        """The config file of this game, recorded in the header of a new game's journal."""
        self.game = games.get(cfg["mode"])
        """The game played (its declarations: what a rename picks, its keys …)."""
        self.extras = games.extras(cfg["mode"])
        """The game's impure part (a protocol file, results read from a file)."""
        self.games_started = 0
        """Games started with the new-game key since the program started."""
        self.open_dialogues: dict[str, dialogues_mod.Dialogue] = {}
        """The host's dialogues open now, by name (:data:`controller.app.dialogues.DIALOGUES`)."""
        self.publish: Callable[[], None] | None = None
        """Called after every :meth:`tick_if_due` (loop thread): hands the view model to the web pages;
        it must return at once (:meth:`publish_with`)."""
        self.link: dict | None = None
        """The festival link's state (``connected``, ``detail``), when this hall publishes."""
        self.phone_wait_ns = 0
        """How long a race waits for the joined phones' presses still on their way (their measured
        delay to this computer and its bound, capped by ``[phones] wait_max_ms``; 0: no phone
        plays): the sink stamps it on every press as its quiet period, so it is journaled and a
        replay decides the same (controller/web/phones.py sets it, :meth:`set_phone_wait`)."""
        self.phone_buttons: frozenset[str] = frozenset()
        """The buttons a team's phone link presses for (controller/web/attach.py's PhoneBridge)."""
        self.phones_joined: frozenset[str] = frozenset()
        """Those of them with a phone joined now (the web process tells, :meth:`set_phones_joined`)."""
        self._wake_r = self._wake_w = -1
        self._woken = False
        self.parts: list[Part] = []
        self._by_effect: dict[type, list[Callable[[Any, int], None]]] = {
            Flash: [self._flash], Notice: [self._notice_effect], Log: [self._log_effect]}
        """Effect type -> who carries it out, in the parts' order (:meth:`add_part`)."""
        self._part_actions: dict[str, Callable[[], None]] = {}
        self._pack = PackMedia(lambda: self.audio, self._pack_unplayed, picture_cache_bytes(self.game, cfg))
        for part in (Speakers(lambda: self.audio), Buttons(lambda: self.backend), self._pack):
            self.add_part(part)
        self._host_actions: dict[str, Callable[[HostKey, int], None]] = {
            "help": self._key_help, "mute": self._key_mute, "quit": self._key_quit,
            "new_game": self._key_new_game, "digit": self._key_digit,
            "new_token": self._key_web_off, "host_link": self._key_web_off}
        """The program's own host actions (:data:`controller.inputs.keys.PROGRAM_ACTIONS`) and the
        dialogues' keys: action -> what the loop does; the rest go to the game."""

    # -- parts ----------------------------------------------------------------
    def add_part(self, part: Part) -> Part:
        """Hold ``part``: it gets the effects of the types it declares, its host actions, every
        heartbeat and the new-game hook; :meth:`stop_parts` stops it."""
        self.parts.append(part)
        for kind in part.effects:
            self._by_effect.setdefault(kind, []).append(part.effect)
        self._part_actions.update(part.actions())
        part.start(self)
        return part

    def stop_parts(self) -> None:
        """Stop every part, the last added first (the festival's before the journal closes)."""
        for part in reversed(self.parts):
            part.stop()

    @property
    def shell_actions(self) -> dict[str, Callable[[], None]]:
        """Host actions of the parts (the web pages' ``new_token``): action -> what it does."""
        return self._part_actions

    def wrap_journal(self, wrap: Callable[[Any], Any]) -> None:
        """Write the journal through ``wrap(journal)`` from now on, and every new game's
        (the festival's outbox); :meth:`unwrap_journal` ends it."""
        self._wraps.append(wrap)
        if self.journal is not None:
            self.journal = wrap(self.journal)

    def unwrap_journal(self) -> None:
        """The journal itself again, without what :meth:`wrap_journal` put around it."""
        self._wraps.clear()
        self.journal = self._journal_raw

    @property
    def pack_media(self):
        """The extracted media of a SIGame package being played (controller/content/packs.py)."""
        return self._pack.media

    @pack_media.setter
    def pack_media(self, media) -> None:
        self._pack.media = media

    @property
    def pack_pictures(self):
        """The package's pictures for the projector (:class:`~controller.screens.frontend.Pictures`),
        when a package is played."""
        return self._pack.pictures()

    @property
    def pack_sounds(self):
        """A question's package sounds, one after another (controller/sound/pack_sounds.py)."""
        return self._pack.sounds

    def publish_with(self, publish: Callable[[], None] | None) -> None:
        """Call ``publish()`` after every heartbeat (the web pages' :class:`~controller.web.attach.Publisher`)."""
        self.publish = publish

    def set_phone_wait(self, ns: int) -> None:
        """The joined phones' delay (see :attr:`phone_wait_ns`)."""
        self.phone_wait_ns = max(0, int(ns))

    def set_phone_buttons(self, buttons) -> None:
        """The buttons a team's phone link presses for (see :attr:`phone_buttons`)."""
        self.phone_buttons = frozenset(str(b) for b in buttons)
        self.dirty = True

    def set_phones_joined(self, buttons) -> None:
        """The buttons with a phone joined now (see :attr:`phones_joined`; any thread)."""
        joined = frozenset(str(b) for b in buttons)
        if joined != self.phones_joined:
            self.phones_joined = joined
            self.dirty = True

    def use(self, backend=None, audio=None, out=None, pack_media=None, scrollback=None) -> None:
        """Give the loop its button backend, its speakers, where its notice lines go, the
        media of the package played or the front end's :attr:`scrollback` (each when given)."""
        if pack_media is not None:
            self._pack.media = pack_media
        if backend is not None:
            self.backend = backend
        if audio is not None:
            self.audio = audio
        if out is not None:
            self.out = out
        if scrollback is not None:
            self.scrollback = scrollback

    def set_screen(self, screen) -> None:
        """The front end's screen (a redraw follows)."""
        self.screen = screen
        self.dirty = True

    def changed(self) -> None:
        """Something on screen changed outside the game: the next frame draws it."""
        self.dirty = True

    def drawn(self) -> None:
        """A front end drew the frame: nothing is pending until the next change."""
        self.dirty = False

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
                self.keys_enqueued += 1
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
    @property
    def host_keys(self) -> HostKeys:
        """The host's key map now: the game's key layers in the state it is in (a programme's
        follow its current round's game: the round changes, the map changes)."""
        if self._keys_of is None or self._keys_of[0] is not self.state:
            self._keys_of = (self.state, HostKeys.from_config(self.cfg, self.state), None)
        return self._keys_of[1]

    def key_map(self) -> dict[str, list[str]]:
        """The keys the key help lists now (:func:`~controller.inputs.keys.mode_keys` of the
        state the game is in): the projector's H, the terminal's help, the host page."""
        host_keys = self.host_keys   # the cache is of the state now
        keys = self._keys_of[2]
        if keys is None:
            keys = mode_keys(self.cfg, self.state)
            self._keys_of = (self.state, host_keys, keys)
        return keys

    def key_down(self, names: list[str]) -> None:
        names = physical_names(names)
        lower = [n.lower() for n in names]
        for name, dialogue in list(self._dialogues_in_order()):
            out = dialogue.key(lower, self._dialogue_context())
            if out is not None:
                self._dialogue_outcome(name, out)
                return
            if dialogue.takes_all_keys:   # (a rename's key always returns an outcome)
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
        self._key_not_taken(names)

    def _key_not_taken(self, names: list[str]) -> None:
        """A key of the host's key map (config ``[keys]``) that the game on now leaves out of its
        own key layers (its declared keys: «Мафия»'s judge's table has no end-game key): one line
        saying the key does nothing here, not silence; a key no map names stays silent."""
        bound = {str(n).lower() for keys in self.cfg.get("keys", {}).values() if isinstance(keys, list)
                 for n in keys}
        for n in names:
            if n.lower() in bound:
                self._notice("key_not_in_this_game", name=key_label(n.lower(), self.cfg["language"]))
                return

    def key_up(self, names: list[str]) -> None:
        for dialogue in self.open_dialogues.values():
            dialogue.key_up()
        if not isinstance(self.backend, KeyInput):
            return
        names = physical_names(names)
        now = self.clock.now()
        for n in names:
            if self.backend.key_up(n, now):
                return

    def _input_status(self, ev: InputStatus) -> None:
        handler = self._input_statuses.get(ev.source)
        if handler is not None:
            handler(ev)

    def _status_keypad(self, ev: InputStatus) -> None:
        self._notice("keypad_back" if ev.connected else "keypad_away")

    def _status_festival(self, ev: InputStatus) -> None:
        # the festival's link (controller/festival/hall.py): the status corner, and a
        # problem as one line for the host; the game goes on either way
        self.link = {"connected": ev.connected, "detail": ev.detail}
        from controller.festival.link import status_words
        self._notice("festival_link_up" if ev.connected else "festival_link_down",
                     detail=status_words(ev.detail, self.cfg["language"]))

    def _status_serial(self, ev: InputStatus) -> None:
        # the button box sent something refused or out of order (controller/inputs/serial.py)
        try:
            info = json.loads(ev.detail)
            self._notice("serial_box_" + str(info.pop("kind")), **info)
        except (ValueError, KeyError, TypeError, AttributeError):
            self._notice_text(ev.detail)

    def _status_gpio(self, ev: InputStatus) -> None:
        # the GPIO chip went away (buttons = "gpiod"): one notice; the buttons read missing
        self._notice("gpio_back" if ev.connected else "gpio_lost", detail=ev.detail)
        self.dirty = True

    def _status_gpio_overflow(self, ev: InputStatus) -> None:
        # the kernel's edge buffer overflowed: said, never a silent loss; the race waits
        self._notice("gpio_lost_edges", detail=ev.detail)

    @property
    def _input_statuses(self) -> dict[str, Callable[[InputStatus], None]]:
        """An input's status by its source -> what the loop does with it."""
        return {"keypad": self._status_keypad, "festival": self._status_festival, "serial": self._status_serial,
                "gpio": self._status_gpio, "gpio-overflow": self._status_gpio_overflow}

    def _host_key(self, key: HostKey, now: int) -> None:
        """Act on a host key from any source (loop thread), through tables: a part's action
        (:meth:`add_part`), the program's own (:attr:`_host_actions`), the game's extras, a
        dialogue the key opens, else the game's as one :class:`Host` event (journaled, then
        stepped) with the key's params."""
        action = key.action
        if action in self._part_actions:
            self._part_actions[action]()
            return
        own = self._host_actions.get(action)
        if own is not None:
            own(key, now)
            return
        if action in self.extras.actions and self.extras.takes(self.state, action):
            self.extras.act(self, action, now)
            return
        if not key.params and self._open_dialogue(action):
            return
        self._game_key(key, now)

    def _key_help(self, key: HostKey, now: int) -> None:
        self.help = not self.help
        self.dirty = True

    def _key_mute(self, key: HostKey, now: int) -> None:
        if self.audio is not None and hasattr(self.audio, "toggle_mute"):
            self._notice("sound_off" if self.audio.toggle_mute() else "sound_on")

    def _key_web_off(self, key: HostKey, now: int) -> None:
        self._notice("web_off")   # the web pages' own keys, with no pages

    def _key_quit(self, key: HostKey, now: int) -> None:
        if self.confirmations.second("quit", now):
            self.running = False
        else:
            self.confirmations.arm("quit", now, "confirm_quit")
            self._notice("confirm_quit")

    def _key_new_game(self, key: HostKey, now: int) -> None:
        if self.confirmations.second("new_game", now):
            self.confirmations.disarm("new_game")
            self._prompt_done("confirm_new_game")
            if self.on_new_game:
                self.on_new_game()
        else:
            self.confirmations.arm("new_game", now, "confirm_new_game")
            self._notice("confirm_new_game")

    def _key_digit(self, key: HostKey, now: int) -> None:
        """The keypad's digits while a dialogue types digits (a line-up); nothing otherwise."""
        for name, dialogue in list(self._dialogues_in_order()):
            if dialogue.takes_digits:
                self._dialogue_outcome(name, dialogue.digit(str(key.params.get("digit", "")),
                                                            self._dialogue_context()))
                return

    def _game_key(self, key: HostKey, now: int) -> None:
        action = self.game.key_action(self.state, key.action)   # pause on a paused clock resumes it
        if action not in engine.actions_now(self.state):  # in a programme: this round's game
            self._notice("not_in_this_mode", action=action, label=action_label(action, self.cfg["language"]))
            return
        ask = None if key.confirmed else self.game.confirm(self.state, action)
        if ask is None and action == "end_game" and not key.confirmed:
            ask = ("confirm_end_game", {})   # the whole game ends: never on one stray press
        if ask is not None and engine.refuses(self.state, Host(action, now, dict(key.params))):
            # the game would refuse it now (a question still open): no «Нажмите ещё раз» for
            # nothing -- it goes as it is and the game's refusal says why at the first press
            ask = None
        # it ends a stage early (a programme's game, a fight with no winner): a second press acts
        prompt, done = self.confirmations.stage(action, now, ask[0] if ask is not None else None)
        if prompt:
            self._notice(ask[0], **ask[1])
            return
        if done is not None:
            # the second press (or the host page's confirmed tap) acts: the prompt goes with it,
            # and what the action did shows (its own notice, if it has one)
            self._prompt_done(done)
        self.apply(Host(action, now, dict(key.params)))

    def _prompt_done(self, key: str) -> None:
        """The «Нажмите ещё раз» notice ``key`` leaves: what it asked for is being done."""
        if self.notices.done(key):
            self.dirty = True

    # -- the host's dialogues (loop thread): controller/app/dialogues.py ---------------
    def _dialogue_of(self, action: str) -> str | None:
        """The dialogue ``action``'s key opens now: the program's own (rename), or one the game
        declares on an action it takes now (a line-up)."""
        name = dialogues_mod.PROGRAM_DIALOGUES.get(action)
        if name is not None:
            return name
        declared = self.game.declared(self.state).get(action)
        name = getattr(declared, "dialogue", None)
        if name is not None and action in engine.actions_now(self.state):
            return name
        return None

    def _open_dialogue(self, action: str) -> bool:
        name = self._dialogue_of(action)
        if name is None:
            return False
        open_now = self.open_dialogues.get(name)
        if open_now is not None and open_now.toggles:
            del self.open_dialogues[name]
            self._notice(open_now.cancelled)
        else:
            self.open_dialogues[name] = dialogues_mod.DIALOGUES[name]()
        self.dirty = True
        return True

    def _dialogues_in_order(self):
        for name in dialogues_mod.DIALOGUES:
            if name in self.open_dialogues:
                yield name, self.open_dialogues[name]

    def _dialogue_context(self) -> dialogues_mod.Context:
        return dialogues_mod.Context(
            members=self.members_now, kind=self.game.members, lang=self.cfg["language"],
            team_keys={tm["key"].lower(): tm["button"] for tm in self.cfg["teams"] if tm.get("key")})

    def _dialogue_outcome(self, name: str, out: dialogues_mod.Outcome) -> None:
        self.dirty = True
        if out.close:
            self.open_dialogues.pop(name, None)
        if out.notice is not None:
            self._notice(out.notice[0], **out.notice[1])
        if out.send is not None:
            self.queue.put(Host(out.send[0], self.clock.now(), out.send[1]))

    @property
    def rename(self) -> dialogues_mod.Rename | None:
        """The rename dialogue, while it is open."""
        return self.open_dialogues.get("rename")

    @property
    def lineup_entry(self) -> dialogues_mod.Lineup | None:
        """The line-up being typed, while it is open."""
        return self.open_dialogues.get("lineup")

    def wants_digits(self) -> bool:
        """A dialogue types the keypad's digits now (``Keypad.digits_wanted``; any thread)."""
        return any(d.takes_digits for d in list(self.open_dialogues.values()))

    @property
    def typing(self) -> bool:
        """True while the host types a name: characters are text, not keys."""
        return any(d.typing for d in self.open_dialogues.values())

    def members_now(self) -> list[dict]:
        """The teams (or a table's seats) as the screen shows their cards now: name, button,
        number (a numbered card's own: a seat's; else its place in the row)."""
        cards = games.screen_of(engine.view(self.state)).cards
        if cards.numbered:
            return [{"number": c.number, "name": c.name, "button": None} for c in cards.items]
        return [{"number": i + 1, "name": c.name, "button": c.button} for i, c in enumerate(cards.items)]

    def text_input(self, text: str) -> None:
        """Typed characters (pygame TEXTINPUT, the terminal): the name being typed, if any."""
        for _, dialogue in self._dialogues_in_order():
            if dialogue.text(text):
                self.dirty = True
                return

    def _dialogue_press(self, button: str) -> bool:
        """A player's button while a dialogue takes buttons (the team to rename): not a game press."""
        for name, dialogue in list(self._dialogues_in_order()):
            out = dialogue.press(button, self._dialogue_context())
            if out is not None:
                self._dialogue_outcome(name, out)
                return True
        return False

    def entry(self) -> dict | None:
        """What the open dialogue shows the host: ``title``, ``text`` (typed), ``hint``; or None."""
        for _, dialogue in self._dialogues_in_order():
            return dialogue.entry(self._dialogue_context())
        return None

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
        self.notices.game_moved()  # the notice may be over now: looked at when next shown
        return fx

    def _effects(self, fx: list) -> None:
        """Hand each effect to whoever carries out its type (:meth:`add_part`), in order; then
        tell the parts the step's effects are out."""
        now = self.clock.now()
        table = self._by_effect
        for f in fx:
            for handle in table.get(type(f), ()):
                handle(f, now)
        for part in self.parts:
            part.stepped(now)

    def _flash(self, f: Flash, now: int) -> None:
        self.flashes.show(f.kind, f.team, now, text=f.text, line=f.line, tone=f.tone)

    def _notice_effect(self, f: Notice, now: int) -> None:
        self._notice(f.key, _screen="" if f.host_only else None, **dict(f.params))

    def _log_effect(self, f: Log, now: int) -> None:
        log.debug("%s %s", f.kind, f.data)

    def _pack_unplayed(self, member: str) -> None:
        self._notice("pack.sound_unplayed", name=member.split("/", 1)[-1])

    # -- the host's notices (loop thread): controller/app/feedback.py --------------------
    def say(self, key: str, /, **params) -> None:
        """Show the host the notice ``key`` (a game's extras, a part)."""
        self._notice(key, **params)

    def say_text(self, text: str, key: str | None = None, hold_ns: int | None = None,
                 echo: bool = True, screen: str | None = None) -> None:
        """Show ``text`` to the host; ``key`` (the notice's i18n key) says what it depends on,
        so that it leaves once that is over (:mod:`controller.screens.notices`); ``hold_ns`` keeps a
        notice that depends on nothing longer than usual (the journal's, at start-up).  With no
        screen (or a headless one) it is printed as a line of its own too, unless ``echo`` is
        False: the caller has printed it already, or the terminal says it in its own way.
        ``screen``: the projector's words for it, when the audience must not see all of it."""
        self.notices.show(text, key, self.clock.now(), hold_ns=hold_ns, screen=screen)
        self.dirty = True
        if echo and (self.screen is None or getattr(self.screen, "headless", False)):
            print(f"\n! {text}", file=self.out, flush=True)

    _notice_text = say_text

    def _notice(self, key: str, _screen: str | None = None, **params) -> None:
        """The notice ``key`` in the host's language; ``_screen``: the projector's words for it
        (``""``: a host-only notice, never drawn there)."""
        keys = None
        for name, value in params.items():
            if name.endswith("_key") and isinstance(value, str):   # a host action: its keys now
                keys = self.key_map() if keys is None else keys
                if keys.get(value):
                    labels = list(dict.fromkeys(key_label(str(k), self.cfg["language"]) for k in keys[value]))
                    params[name] = " / ".join(labels[:2])
        try:
            text = notice(key, self.cfg["language"], **params)
        except Exception:
            text = key
        self.say_text(text, key=key, screen=_screen)

    @property
    def notice(self) -> str:
        """The host notice on screen now ("" when none): see :meth:`status`."""
        return self.notices.text

    @property
    def notice_key(self) -> str | None:
        """The catalog key of :attr:`notice` (None: a text of its own)."""
        return self.notices.key

    @property
    def notice_screen(self) -> str | None:
        """The projector's words for :attr:`notice` when they differ (None: the same)."""
        return self.notices.screen

    @property
    def notice_until(self) -> int:
        return self.notices.until

    def notice_now(self) -> str:
        """The host notice to show now: "" once it has timed out or what it said is over."""
        if self.notices.expire(lambda: engine.view(self.state, self.clock.now())):
            self.dirty = True
        return self.notices.current(self.clock.now())

    def new_game(self) -> None:
        """The new-game key's second press (:attr:`on_new_game`): a fresh game, then every part's
        ``new_game`` (the web pages' new key, the festival's new game)."""
        self.start_new_game()
        for part in self.parts:
            part.new_game()

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
        self._journal_raw = self.journal
        for wrap in self._wraps:   # the festival's outbox: the new game's journal too
            self.journal = wrap(self.journal)
        self.state = engine.new_game(self.cfg, seed)
        self.flashes.clear()
        self.dirty = True
        self.say_text(notice("new_game_started", self.cfg["language"], path=dest), key="new_game_started",
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
        for part in self.parts:   # a package's next sound
            part.beat(now)
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
        if self.open_dialogues:
            # the host picks the team to rename by its button: that press is not a game press
            batch = [ev for ev in batch if not (isinstance(ev, Press) and self._dialogue_press(ev.button))]
        # engine events are journaled together (one fsync), then applied; a host key or an
        # input status is the loop's own (never journaled) and may step the engine itself
        # (a HostKey's Host), so the events before it go first: the journal keeps the order
        # in which the engine saw them
        run: list = []
        for ev in batch:
            if isinstance(ev, (HostKey, InputStatus)):
                self._apply_run(run)
                run = []
                try:
                    self.apply(ev)
                finally:
                    if isinstance(ev, HostKey):
                        self.keys_applied += 1
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
        now = self.clock.now()
        for part in self.parts:   # the next of a question's sounds
            look = part.next_look(now)
            if look is not None:
                due = look if due is None else min(due, look)
        if due is None:
            return max_wait_s
        return min(max(due - self.clock.now(), 0) / NS_PER_S, max_wait_s)

    def status(self) -> dict:
        st = self.backend.status() if self.backend is not None else None
        # a team that presses with its phone link (phone = true, or no wired input at all: a team
        # without a key) does not «not answer»: it has no phone yet («нет телефона»), or it is fine;
        # a wired team is never named there
        unmapped = set(st.unmapped) if st else set()
        by_phone = [t["button"] for t in self.cfg["teams"] if t["button"] in self.phone_buttons
                    and (t.get("phone") or t["button"] in unmapped)]
        missing = [b for b in st.missing if b not in by_phone] if st else []
        no_phone = [b for b in by_phone if b not in self.phones_joined]
        return {"backend": st.name if st else "none", "connected": st.connected if st else False,
                "missing": missing, "no_phone": no_phone,
                # the teams of those buttons by name, as the screens say them (only when there are any)
                "names": self.team_names() if missing or no_phone else {},
                "detail": st.detail if st else "",
                # the keys the players press for their buttons (simulated on the keyboard): named so
                "keys": dict(self.backend.button_keys()) if self.backend is not None else {},
                "notice": self.notice_now(),
                **({"notice_screen": self.notice_screen if self.notice_now() else ""}
                   if self.notice_screen is not None else {}),
                "entry": self.entry(), **({"link": self.link} if self.link is not None else {})}

    def team_names(self) -> dict[str, str]:
        """Each team's button -> its name now (a rename included): the buttons' lines name the
        teams, never their button ids (the view's ``teams``, docs/modes.md)."""
        return {str(tm["button"]): str(tm.get("name") or "") for tm in engine.view(self.state).get("teams") or ()
                if tm.get("button")}

    def shown_link(self) -> dict | None:
        """The host link on the projector now (until it hides itself)."""
        shown, hid = self.link_shown.current(self.clock.now())
        if hid:
            self.dirty = True
        return shown

    def show_link(self, link: dict | None) -> None:
        """Put the host link on the projector (``{"url", "qr", "text", "until"[, "warning"]}``),
        or take it off (None)."""
        if link is None:
            self.link_shown.hide()
        else:
            self.link_shown.show(link)
        self.dirty = True

    @property
    def link_on_screen(self) -> dict | None:
        return self.link_shown.link

    @property
    def flash(self) -> dict | None:
        return self.flashes.flash

    @property
    def flash_until(self) -> int:
        return self.flashes.until

    def current_flash(self) -> dict | None:
        return self.flashes.current(self.clock.now())

    def step_once(self, max_wait_s: float) -> None:
        """Wait for input or the next deadline (at most ``max_wait_s``), then process."""
        try:
            ev = self.queue.get(timeout=self.timeout_s(max_wait_s))
        except queue.Empty:
            ev = None
        self.drain(ev)
        self.tick_if_due()
