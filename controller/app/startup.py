"""Start-up and recovery of ``buzzer run``: resume the unfinished game or start a
new one (:func:`prepare_game`, the rules in docs/cli.md «Start-up»), build the
loop, its backend, audio and keypad, hand it to the front end the command line
chose (:func:`run_from_args`), and close the journal at the end (:func:`_finish`).
"""

from __future__ import annotations

import logging
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.app import config as config_mod
from controller.app import stopping
from controller.content import packs
from controller.games import engine
from controller.sessions import journal as journal_mod
from controller.sound.audio import Audio
from controller.inputs import create_backend
from controller.inputs.options import wired_buttons
from controller.inputs.clock import EngineClock
from controller.core.errors import BackendUnavailable, BuzzerError, JournalError, WebUnavailable
from controller.inputs import priority
from controller.inputs.base import NoPinFactory
from controller.core.events import NS_PER_S, Host, Tick
from controller.core.effects import Notice
from controller import games
from controller.inputs.keys import mode_keys
from controller.app.loop import SWITCH_INTERVAL_S, Loop
from controller.core.commandline import command_name
from controller.i18n import t, tn
from controller.screens.common import display_available, key_label, mode_title, teams_words
from controller.festival.link import festival_cross_check
from controller.web.attach import attach as attach_web

JOURNAL_NOTICE_NS = 6 * NS_PER_S
"""How long a notice about the journal (damaged, archived) stays on the screen after start-up:
as long as any notice (docs/screen.md); the terminal keeps the line with the file's path."""


# ---------------------------------------------------------------------------
# start-up

YES = ("y", "yes", "д", "да")


BACKEND_SECTION = {"serial-sim": "serial", "gpiod": "gpio"}
"""The config section of a backend whose name is not its section's."""


def _interactive() -> bool:
    return sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty()


def _ask(question: str, default: bool, lang: str) -> bool:
    """A yes/no question in the terminal; Enter (or no terminal, or end of input) gives ``default``."""
    if not _interactive():
        return default
    try:
        with stopping.asking():   # a stop signal while the host is asked ends the start at once
            answer = input(f"{question} {t('ask.default_yes' if default else 'ask.default_no', lang)} ").strip().lower()
    except EOFError:
        return default
    return default if not answer else answer in YES


def shown_path(path) -> str:
    """A path as the host should type it: relative to the working folder when inside it."""
    if path is None:
        return ""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(p)


def damage_notice(contents: journal_mod.Contents, kept, lang: str) -> str:
    """One line for the host: which record is damaged, what was not replayed, where the original is."""
    return t("journal.damaged", lang, line=contents.damaged_at, lines=contents.records,
             events=tn("events_n", len(contents.events), lang), rest=tn("records_n", contents.dropped, lang),
             path=shown_path(kept))


NOT_RECORDED = object()
"""A journal header written before the config file was recorded in it."""


def _config_words(path, lang: str) -> str:
    if path is NOT_RECORDED:
        return t("journal.config_unrecorded", lang)
    return shown_path(path) if path else t("journal.config_builtin", lang)


def same_game(header: dict, cfg: dict, config_path: str | None) -> bool:
    """Whether the journal's game is the one this config asks for: the same mode and the
    same config file (a journal written before the file was recorded: the same mode)."""
    if (header.get("config") or {}).get("mode") != cfg["mode"]:
        return False
    return "config_path" not in header or header["config_path"] == config_path


def _package(config: dict) -> dict | None:
    """The package a game's config plays (its data), None for a game without one."""
    return ((config or {}).get(packs.package_section(config or {})) or {}).get("package") or None


def pack_differs(header: dict, cfg: dict) -> bool:
    """The host asks for a package (``--pack``, the config, the event file) that the journal's
    game does not play: it has none, or another one.  (Without a package asked for, a
    resumed game plays the package its journal holds.)"""
    wanted = _package(cfg)
    return wanted is not None and _package(header.get("config") or {}) != wanted


def _pack_words(config: dict, lang: str) -> str:
    """«без пакета» / «с пакетом «Имя»»: a game's package, for the start-up question."""
    package = _package(config)
    if package is None:
        return t("journal.pack_none", lang)
    return t("journal.pack_named", lang, name=package.get("name") or "?")


def _pause_the_clock(state, last: int, jr: journal_mod.Journal):
    """A game resumed with a clock running (a countdown, the captain's timer, a speech, a start
    signal due: any deadline ahead) waits, paused at the moment the program stopped, for the
    host's pause key: it must not run on while the program starts, nor from the moment the
    host answered the question.  The pause is an event like any: journaled, then stepped.
    Returns (state, whether it was paused)."""
    game = games.of_state(state)
    if engine.wakeup(state) is None or engine.finished(state) or "pause" not in game.actions_now(state) \
            or game.key_action(state, "pause") != "pause":
        return state, False
    event = Host("pause", last)
    paused, fx = engine.step(state, event)
    if any(isinstance(e, Notice) for e in fx):   # the game refused it: nothing to pause
        return state, False
    jr.append(event)
    return paused, True


def _pause_key(cfg: dict) -> str:
    """The pause keys in the host's words: the keyboard's and the keypad's (a «Мафия» table pauses
    with the keypad's Num . or the keyboard's P), at most two."""
    labels = []
    for name in mode_keys(cfg).get("pause") or ["s"]:
        label = key_label(name, cfg["language"])
        if label not in labels:
            labels.append(label)
    return " / ".join(labels[:2])


def unplayed(contents: journal_mod.Contents) -> bool:
    """A game nobody has played yet: no press, no host action (clock records at most)."""
    return contents.damaged_at is None and all(isinstance(e, Tick) for e in contents.events)


def empty(contents: journal_mod.Contents) -> bool:
    """A journal with its header only: a game started and left before anything happened --
    nothing to resume (a new game is the same game), so nothing to ask."""
    return contents.damaged_at is None and not contents.events


@dataclass
class Prepared:
    """What :func:`prepare_game` hands the loop."""

    state: Any
    clock: EngineClock
    journal: journal_mod.Journal
    cfg: dict
    seed: int
    config_path: str | None
    """The config file of the game being played (recorded in a new game's journal header)."""
    notices: list[tuple[str, str]] = field(default_factory=list)
    """What happened to the journal: (the terminal's line, naming the files; the projector's
    words for it, without a path -- the audience never sees one)."""
    paused: bool = False
    """A resumed game whose clock was running when the program stopped: it waits, paused."""


def prepare_game(cfg: dict, args, config_path: str | None = None) -> Prepared | None:
    """Resume the unfinished game or start a new one (the rules: docs/cli.md, «Start-up»).

    ``config_path`` is the file ``cfg`` came from (resolved; None: built-in defaults). It goes
    into the journal header; a journal of another mode or config file is never resumed unasked.
    Returns None when the host chose to change nothing (another config's unfinished game stays)."""
    lang = cfg["language"]
    jdir = cfg["journal"]["dir"]
    current = journal_mod.current_path(jdir)
    notices: list[tuple[str, str]] = []
    contents = None
    try:
        contents = journal_mod.unfinished(jdir)
    except BuzzerError as exc:
        dest = journal_mod.archive(jdir, tag="damaged")
        notices.append((t("journal.unreadable", lang, problem=exc, path=shown_path(dest)),
                        t("journal.unreadable.screen", lang)))
    if contents is not None and contents.dropped and contents.damaged_at is None:
        # a torn last record (a power cut while it was written): dropped, said in the host's words
        print(t("journal.torn_tail", lang, path=shown_path(current)))
    if (contents is not None and not getattr(args, "new", False) and not empty(contents)
            and (same_game(contents.header, cfg, config_path) or not unplayed(contents))):
        # (a journal without a single event, or a game nobody has played yet of another config,
        # is not worth a question: it is archived below, as any journal is, and the new game starts)
        header = contents.header
        n = len(contents.events)
        words = {"mode": mode_title((header.get("config") or {}).get("mode"), lang),
                 "started": header.get("started", "?"),
                 "config": _config_words(header.get("config_path", NOT_RECORDED), lang),
                 "events": tn("events_n", n, lang), "new_mode": mode_title(cfg["mode"], lang),
                 "new_config": _config_words(config_path, lang)}
        same = same_game(header, cfg, config_path)
        asked = getattr(args, "resume", False)
        repack = same and pack_differs(header, cfg)
        if repack:   # the package the host asked for is not the journal game's (docs/packages.md)
            words.update(old_pack=_pack_words(header.get("config") or {}, lang),
                         new_pack=_package(cfg).get("name") or "?",
                         pack_path=shown_path(cfg[packs.package_section(cfg)].get("pack")),
                         archive=shown_path(Path(jdir) / "archive"))
        if contents.damaged_at is not None and _interactive() and not asked:
            print(t("journal.damaged_found", lang, line=contents.damaged_at, lines=contents.records,
                    events=words["events"]))
        if asked:
            resume = True  # an answer given in advance -- for another config's game too (and said so)
            if repack:
                notices.append(t("journal.resumed_pack_other", lang, **words))
        elif repack and not _interactive():
            # never resumed without the package unasked, never archived unasked: change nothing
            raise JournalError(t("journal.pack_differs_no_terminal", lang, path=shown_path(current), **words))
        elif repack:
            # the default: the package the host named, in a new game (the old one archived, never deleted)
            resume = _ask(t("journal.pack_differs", lang, **words) + " " + t("journal.pack_resume_q", lang, **words),
                          False, lang)
        elif same:
            resume = _ask(t("journal.unfinished", lang, **words) + " " + t("journal.resume_q", lang), True, lang)
        elif not _interactive():
            # nobody to ask, and the journal holds another game: change nothing, say why
            raise JournalError(t("journal.other_game_no_terminal", lang, path=shown_path(current), **words))
        elif _ask(t("journal.other_game", lang, archive=shown_path(Path(jdir) / "archive"), **words) + " "
                  + t("journal.start_new_q", lang), False, lang):
            resume = False
        else:
            print(t("journal.kept", lang, path=shown_path(current), mode=words["mode"]))
            return None
        if resume:
            if contents.damaged_at is not None:
                # never cut: the whole file goes to the archive, the game goes on from the trusted part
                kept = journal_mod.set_aside(jdir, contents)
                notices.append((damage_notice(contents, kept, lang), t("journal.damaged.screen", lang)))
            state, jcfg, seed, last = journal_mod.replay(contents)
            clock = EngineClock()
            clock.resume_at(last)
            jr = journal_mod.Journal(current, fsync=cfg["journal"]["fsync"], truncate_to=contents.valid_bytes)
            state, paused = _pause_the_clock(state, last, jr)
            print(t("resumed_journal", lang, n=n))
            if paused:
                print(t("resumed_paused", lang, key=_pause_key(jcfg)))
            if same:
                # settings that do not change the rules (screen, sound, keys) come from the current config;
                # so does the festival's link (its password is never in the journal)
                for key in ("display", "keys", "sound", "language", "buttons", "journal", "festival"):
                    if key in cfg:
                        jcfg[key] = cfg[key]
            else:
                # another game's config says nothing about this game: only where the journal lives
                # and a language asked for on the command line apply
                jcfg["journal"] = cfg["journal"]
                if getattr(args, "lang", None):
                    jcfg["language"] = args.lang
                notices.insert(0, (t("journal.resumed_other", jcfg["language"], **words),
                                   t("journal.resumed_other.screen", jcfg["language"], **words)))
            return Prepared(state, clock, jr, jcfg, seed, header.get("config_path"), notices, paused)
    if contents is not None or current.exists():
        damaged = contents is not None and contents.damaged_at is not None
        dest = journal_mod.archive(jdir, tag="damaged" if damaged else "")
        if dest:
            if damaged:
                notices.append((t("journal.damaged_archived", lang, line=contents.damaged_at,
                                  lines=contents.records, path=shown_path(dest)),
                                t("journal.damaged_archived.screen", lang)))
            else:
                notices.append((t("journal.archived", lang, path=shown_path(dest)), t("journal.archived.screen", lang)))
    seed = journal_mod.choose_seed(cfg)
    jr = journal_mod.Journal(current, header=journal_mod.new_header(cfg, seed, config_path), fsync=cfg["journal"]["fsync"])
    return Prepared(engine.new_game(cfg, seed), EngineClock(), jr, cfg, seed, config_path, notices)


FrontEnd = Callable[[Loop, "float | None"], None]
"""Runs the loop until the host quits: ``front_end(loop, seconds)`` (the runner with the window,
:func:`~controller.app.runner.run_window`, or with the terminal, :func:`~controller.app.runner.run_headless`)."""


def run_from_args(args, config_path: str | None, window: FrontEnd, terminal: FrontEnd) -> int:
    """``buzzer run``: the command line passes the config file and both front ends in
    (the terminal's is used when there is no display or ``--headless`` asks for it)."""
    path = config_path
    event = getattr(args, "event", None)
    overrides = {"event_file": str(Path(event).resolve())} if event else None
    if event and not getattr(args, "config", None):
        # no config chose the game: the event's (its first game's mode when the default has none there)
        overrides["mode"] = config_mod.event_mode(event, config_mod.load(path)["mode"])
    cfg = config_mod.load(path, overrides)
    if args.lang:
        cfg["language"] = args.lang
    if args.fullscreen:
        cfg["display"]["fullscreen"] = True
    if args.windowed:
        cfg["display"]["fullscreen"] = False
    pack = getattr(args, "pack", None)
    packs.attach(cfg, pack, required=bool(pack))   # a .siq package as data (docs/packages.md)
    festival_cross_check(cfg, hall=True)   # a hall that publishes needs its name and competition (before anything changes)
    held = _hold_journal(cfg)
    try:
        return _run(args, cfg, path, window, terminal)
    finally:
        spare = sys.modules.get("controller.screens.window_process")
        if spare is not None:
            spare.discard_spare()   # a window's process forked early that no window took
        held.release()


def _hold_journal(cfg: dict) -> journal_mod.DirLock:
    """One ``buzzer run`` per journal directory: a second one is refused before it changes
    anything (one line, exit code 2) -- two games would mix into one journal."""
    try:
        return journal_mod.lock(cfg["journal"]["dir"])
    except journal_mod.Busy as exc:
        raise JournalError(t("journal.busy", cfg["language"], path=shown_path(exc.directory),
                             pid=exc.pid or "?")) from None


def resume_command(args, config_path: str | None, played: str | None) -> str:
    """The command line that continues this game, as the host can type it again: the game's
    config file (``-c``, unless it is the one ``buzzer run`` loads by default), the event file
    and the language given -- without ``--new`` (which would archive the game), ``--resume``
    (not needed: the config is the game's own), ``--pack`` (the journal holds the package)
    and the screen options (they do not change which game continues).

    ``config_path``: the file this run loaded (the default one when ``-c`` was not given);
    ``played``: the config file of the game being played (another one after ``--resume``)."""
    import shlex

    words = [command_name(), "run"]
    given = str(Path(config_path).resolve()) if config_path else None
    same = played == given
    if played and (getattr(args, "config", None) or not same):
        words += ["-c", shown_path(played)]
    event = getattr(args, "event", None)
    if event and same:
        words += ["--event", shown_path(event)]
    if getattr(args, "lang", None):
        words += ["--lang", args.lang]
    return " ".join(words[:1] + [shlex.quote(w) for w in words[1:]])


def make_backend(cfg: dict, clock, sink):
    """The backend of ``cfg``'s buttons (``buttons``), not started: the buttons of the teams
    with a wired button (a pin, a box input, a key); a team with ``phone = true`` presses with
    its phones only, through the pages (docs/phones.md), and gets no pin or box input opened.
    Every team's ``key`` is given: with buttons = "keyboard" the keyboard stands in for any
    button, a phone team's too."""
    options = dict(cfg.get(BACKEND_SECTION.get(cfg["buttons"], cfg["buttons"]), {}) or {})
    options["keys"] = {t["button"]: t["key"] for t in cfg["teams"]}
    options["lang"] = cfg["language"]   # the backend's own lines to the host (a box not found)
    if cfg["buttons"] == "gpiod":   # a press waits the settle window for one that ties with it
        options["settle_ms"] = cfg["arbiter"]["settle_ms"]
    return create_backend(cfg["buttons"], wired_buttons(cfg), clock, sink, options)


def _run(args, cfg: dict, path: str | None, window: FrontEnd, terminal: FrontEnd) -> int:
    prepared = prepare_game(cfg, args, str(Path(path).resolve()) if path else None)
    if prepared is None:
        return 0  # the host kept the unfinished game of another config; nothing was changed
    command = resume_command(args, path, prepared.config_path)
    state, clock, jr, cfg, seed = prepared.state, prepared.clock, prepared.journal, prepared.cfg, prepared.seed
    # the events the resume question counted: the pause a resume may add is not the host's
    resumed = len(journal_mod.read(jr.path).events) - bool(prepared.paused) if jr.path.exists() else 0
    logging.basicConfig(level=logging.WARNING, format="buzzer: %(message)s")
    # input callbacks (lgpio's thread, the serial reader) wait for the interpreter while the
    # loop renders: hand it over every 1 ms instead of every 5, so that two callbacks of one
    # batch follow each other closely (the GPIO quiet period, docs/performance.md)
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    lang = cfg["language"]
    # the tie seed means nothing to a host: it is in the journal's header (and the log), not
    # on the terminal
    logging.getLogger(__name__).info("tie seed: %d", seed)
    headless = args.headless or not display_available()
    if not headless and cfg["display"]["separate_process"]:
        from controller.screens import window_process
        # the window's process, forked before any input thread starts: its imports are shared
        window_process.prefork()
    loop = Loop(cfg, state, clock, journal=jr, config_path=prepared.config_path)
    loop.use(pack_media=packs.open_media(cfg))   # the package's pictures and sounds (resumed: the journal's)
    # the first notice is for the screen: the terminal has said the game was resumed already
    # (prepare_game), and a terminal front end gives the key hint with its own status
    # (controller/screens/terminal.py), not above the web pages' addresses
    if resumed and prepared.paused:   # the clock waits for the host (_pause_the_clock)
        loop.say_text(t("resumed", lang, n=resumed) + ". " + t("resumed_paused", lang, key=_pause_key(cfg)),
                          key="resumed", echo=False)
    elif resumed:
        loop.say_text(t("resumed", lang, n=resumed), key="resumed", echo=False)
    else:
        from controller.screens.terminal import help_hint
        loop.say_text(help_hint(cfg, lang), key="help_hint", echo=False)  # H (F1) shows every key
    for text, screen in prepared.notices:  # what happened to the journal: in the terminal with its
        loop.say_text(text, hold_ns=JOURNAL_NOTICE_NS, screen=screen)   # path, on the screen without
    # this thread (the loop's) and every thread started from now on -- the buttons' readers,
    # lgpio's callback thread -- at the real-time priority ([process]); the processes started
    # (the web pages, the festival's outbox, a window opened again) go back to normal first thing
    raised = priority.Raised(cfg["process"]["realtime_priority"])
    try:
        return _play(args, cfg, loop, jr, clock, headless, command, raised, window, terminal)
    finally:
        raised.restore()


def _play(args, cfg: dict, loop: Loop, jr, clock: EngineClock, headless: bool, command: str | None,
          raised: priority.Raised, window: FrontEnd, terminal: FrontEnd) -> int:
    """:func:`_run` from the backend on: the parts started, the front end run, everything closed."""
    lang = cfg["language"]
    try:
        backend = make_backend(cfg, clock, loop.enqueue)
    except NoPinFactory as exc:   # buttons = "gpio" off a Pi: said in the host's language
        raise BackendUnavailable(t("gpio_no_pin_factory", lang, problem=exc.cause)) from None
    loop.use(backend=backend)
    audio = None
    try:
        audio = Audio(cfg)
    except ImportError:  # no pygame: the game runs without sound
        pass
    loop.use(audio=audio)
    keypad = _start_keypad(cfg, loop)
    try:
        attach_web(loop)   # the live pages ([web]), a part of the loop; not when off or the port is taken
    except WebUnavailable:
        # a team on phones only could never press: the game does not start (one line, exit
        # code 2); a resumed game's journal stays for the next start, a new game's (its header
        # alone) goes, as if it never started: the next start has nothing to archive or say
        backend.close()
        if keypad is not None:
            keypad.close()
        loop.stop_parts()
        jr.close()
        try:
            if empty(journal_mod.read(jr.path)):
                jr.path.unlink()
        except (BuzzerError, OSError):
            pass
        loop.close_wake()
        raise
    attach_festival(loop, cfg)   # the festival's link, a part of the loop
    if raised.problem is not None and backend.wired:
        print("buzzer: " + t("normal_priority", lang, problem=raised.problem), file=sys.stderr)
    elif raised.problem is not None:
        logging.getLogger(__name__).info("normal priority: %s", raised.problem)
    backend.start()
    restore = _stop_on_signals(loop)
    try:
        if headless:
            if not args.headless:
                print(t("no_display", lang))
            terminal(loop, args.seconds)
        else:
            window(loop, args.seconds)
    finally:
        restore()
        backend.close()
        if keypad is not None:
            keypad.close()
        loop.stop_parts()   # the festival's outbox, the web pages, a package's media
        _finish(loop, loop.journal, cfg, command)
        loop.close_wake()
    return 0


STOP_SIGNALS = stopping.STOP_SIGNALS


def _stop_on_signals(loop: Loop) -> Callable[[], None]:
    """SIGTERM (``systemctl stop``, ``timeout``), SIGINT (Ctrl-C) and SIGHUP end the front end's
    loop like the quit key: the journal is closed and the line naming the command that
    continues the game is printed (:func:`_finish`). SDL would otherwise take SIGTERM and
    turn it into a quit event only the window reads (``SDL_NO_SIGNAL_HANDLERS`` is set before
    pygame starts, and these handlers replace any it installed). A signal that came during the
    start, before these (controller/app/stopping.py), stops the loop at once. Returns what puts
    the old handlers back."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        return lambda: None   # (a test running the loop on a thread of its own)

    def stop(signum, frame) -> None:
        loop.stop()

    old = {}
    for name in STOP_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is not None:
            old[sig] = signal.signal(sig, stop)
    if stopping.pending() is not None:
        loop.stop()   # one came during the start (controller/app/stopping.py): the same tidy end, at once

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    return restore


def attach_festival(loop: Loop, cfg: dict):
    """:func:`controller.festival.hall.attach`, loaded only when ``[festival] broker`` is set
    (the MQTT client and the outbox's process are start-up time a plain game does not need)."""
    if not (cfg.get("festival") or {}).get("broker"):
        return None
    from controller.festival.hall import attach

    return attach(loop, cfg)


def _start_keypad(cfg: dict, loop: Loop):
    if not cfg.get("keypad", {}).get("device"):
        return None
    from controller.inputs.keypad import Keypad   # evdev: only with a keypad configured

    try:
        kp = Keypad.from_config(cfg, loop.enqueue)   # the sink every input uses
        kp.digits_wanted = loop.wants_digits   # a line-up being typed
        kp.start()
        return kp
    except BuzzerError as exc:
        lang = cfg["language"]
        problem = t("keypad_needs_evdev", lang) if isinstance(exc, BackendUnavailable) else str(exc)
        print("buzzer: " + t("keypad_unavailable", lang, problem=problem), file=sys.stderr)
        return None


def _finish(loop: Loop, jr, cfg: dict, command: str | None = None) -> None:
    """Close the journal; a finished game's goes to the archive, an unfinished game gets the
    line naming ``command``, the command that continues it (:func:`resume_command`)."""
    lang = cfg["language"]
    seen = loop.backend.edges_seen() if loop.backend is not None else {}
    still = [b for b, n in seen.items() if n == 0]
    if still and engine.finished(loop.state) and loop.game.buttons_play:
        # by the team's name (a host reads «C» as a key), with the button to check
        print(t("buttons_never_changed", lang, buttons=teams_words(still, loop.team_names(), lang, with_button=True)))
    if engine.finished(loop.state):
        jr.finish()
        jr.close()
        dest = journal_mod.archive(cfg["journal"]["dir"])
        print(t("game_over_archived", lang, path=dest))
    else:
        jr.close()
        try:
            nothing = empty(journal_mod.read(jr.path))
        except (BuzzerError, OSError):
            nothing = False
        if nothing:   # the next start archives it without a question (prepare_game): say that
            print(t("game_not_started", lang, command=command or f"{command_name()} run"))
        else:
            print(t("game_not_finished", lang, command=command or f"{command_name()} run"))
