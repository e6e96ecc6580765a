"""The «Мафия» table: a pure engine for the judge's speech timer and fouls.

The judge (the host) drives the table from the keypad; players' buttons are
not used.  The engine keeps, for every seat, the player's name, foul count and
status, runs one speech countdown at a time (a player's minute, a defence
speech, a last word) and enforces the foul rules of the regulations
(appendix 1.2 §3.1–3.2, see ``docs/mafia.md``):

* at ``silence_fouls`` fouls (3) the player's next minute is skipped: the timer
  refuses to start it, ``next_speaker`` passes over it and so uses the silence
  up; nominating is not the timer's business, so it stays allowed;
* at ``remove_fouls`` fouls (4) or a disqualifying foul the player leaves the
  table at once with no last word.

Like every engine module this one does no I/O and reads no clock: each event
carries its engine time, :func:`step` returns the new state and the effects,
and :func:`wakeup` tells the shell when the next :class:`~controller.core.events.Tick`
is due.  Countdowns are stored as deadlines, not as counted ticks, so a late or
missing tick never makes them drift: the 10 s warning and the end fire on the
first event at or after their instant.

Button presses (:class:`~controller.core.events.Press`/``Release``) only move the
engine's time on; they never start or stop a speech, so a player leaning on a
button cannot change the table.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from controller.core.effects import Effect, Flash, Log, Notice, Sound
from controller.core.screen import Words
from controller.core.errors import ConfigError, GameError
from controller.i18n import Text
from controller.core.events import NS_PER_MS, Host, Press, Release, Tick, seconds_to_ns
from controller.games.actions import Param, Spec, declare
from controller.games.race import NAME_MAX, clean_name, name_problem
from controller.core.schema import Key, Section, check_value, positive
from controller.games.base import Game
from controller.games.mafia import screen as table_screen

# --------------------------------------------------------------------------
# Settings: the [mafia] config section.

# the judge's keys in mafia mode (pygame key names, as in [keys])
_DEFAULT_KEYS = {
    "start": ["enter", "return"], "next_role": ["r"], "foul": ["[+]", "f"], "stop": ["[-]", "s"], "undo": ["[*]", "u"],
    "pause": ["[.]", "p"], "kind": ["[/]", "k"], "clear": ["backspace", "c"],
    **{f"digit_{d}": [f"[{d}]", str(d)] for d in range(10)},
    "disqualify": ["d"], "out": ["o"], "killed": ["x"], "skip": ["i"], "day": ["n"],
    "town_wins": ["t"], "mafia_wins": ["m"],
    "nominate": ["a"], "candidate": ["g"], "vote": ["y"], "revote": ["e"], "lift": ["l"],
    "miss": ["w"], "don_check": ["z"], "sheriff_check": ["j"], "guess": ["q"], "extra": ["b"],
}

SECTION = Section("mafia", "«Мафия»: the judge's speech timer and fouls, the game protocol and the "
                  "tournament table [seed 000]. See docs/mafia.md.", (
    Key("seats", "int", 10, "Seats at the table.", minimum=2, maximum=30, source="practice"),
    Key("players", "list", [], "Players' names in seat order (may be fewer than the seats; the "
        "judge can name seats during the game).", items="str"),
    Key("minute_s", "number", 60, "A player's minute.", check=positive, source="seed app. 1.2 §3.1"),
    Key("defence_s", "number", 30, "A defence speech.", check=positive, source="practice"),
    Key("last_word_s", "number", 60, "A last word.", check=positive, source="practice"),
    Key("warn_s", "number", 10, "Warning signal this many seconds before a speech ends (0: none).",
        minimum=0, source="practice"),
    Key("silence_fouls", "int", 3, "At this many fouls the player's next minute is skipped "
        "(nominating stays allowed).", minimum=1, source="seed app. 1.2 §3.1"),
    Key("remove_fouls", "int", 4, "At this many fouls the player leaves the table with no last word.",
        minimum=2, source="seed app. 1.2 §3.2"),
    Key("silence_kinds", "list", ["minute"], "Speeches a silenced player loses (minute, defence, "
        "last_word); only the first one due is lost.", items="str"),
    Key("removal_disqualifies", "bool", True, "A removal for fouls counts as a disqualification "
        "(the disqualification points) in the protocol, like a disqualifying foul."),
    Key("protest_window_min", "number", 10, "A protest is accepted at most this many minutes after "
        "the end of the game.", minimum=0, source="seed §4.5.1"),
    Key("town_win_points", "number", 3, "Points of each town player when the town wins.",
        source="seed §4.2.1"),
    Key("mafia_win_points", "number", 4, "Points of each mafia player (Don included) when the "
        "mafia wins.", source="seed §4.2.2"),
    Key("disqualification_points", "number", -1, "Points of a player disqualified from the table.",
        source="seed §4.2.4"),
    Key("disqualified_keeps_win_points", "bool", True, "A disqualified player still gets the team's "
        "win points (and the disqualification points on top)."),
    Key("final_multiplier", "number", 1.5, "Multiplier of every point of the final game.",
        check=positive, source="seed §4.7"),
    Key("extra_max_players", "int", 3, "Players of one game who may get extra points.",
        minimum=0, source="seed §4.3.1"),
    Key("extra_max_total", "number", 2, "Extra points of one game, in total.", minimum=0,
        source="seed §4.3.3"),
    Key("extra_allowed", "list", [1, 0.5], "Extra points one player may get.", items="number",
        check=lambda v: None if v and all(x > 0 for x in v) else "needs values > 0",
        source="seed §4.3.2"),
    Key("finalists", "int", 10, "Players who go to the final game (the top of the ranking).",
        minimum=1, source="seed §4.6"),
    Key("tournament", "str", "Турнир по игре «Мафия»", "Tournament name written into the game protocol [seed §3.3.2]."),
    Key("stage", "str", "отборочный тур", "Stage of the tournament, for the protocol."),
    Key("game_number", "int", 1, "Game number, for the protocol.", minimum=1),
    Key("table_number", "int", 1, "Table number, for the protocol.", minimum=1),
    Key("final", "bool", False, "This is the final game (its points count ×final_multiplier)."),
    Key("protocol_dir", "str", "protocols", "Where `buzzer run` saves the game protocol (JSON and "
        "printable HTML) when the judge ends the game; `buzzer tournament` reads this folder."),
    Key("keys", "dict", _DEFAULT_KEYS, "The judge's keys in mafia mode: host action -> "
        "pygame key names (a seat number is typed with the digits, then the action key; Enter "
        "with no number starts the next speaker). A table given here replaces the whole map; it takes "
        "none of the program's own keys ([keys] help, mute, quit, new_game, new_token, host_link, rename)."),
))
"""The ``[mafia]`` config section: the one source of every key's default and limits.
:mod:`controller.app.config` puts it into its schema (so ``config/default.toml`` and
``docs/config.md`` show it) and :func:`validate_settings` checks against it."""

SHELL_KEYS = frozenset({"tournament", "stage", "game_number", "table_number", "final", "protocol_dir"})
"""``[mafia]`` keys the shell uses for the protocol; the table engine ignores them."""

_KEYS = {k.name: k for k in SECTION.keys}

DEFAULTS: dict[str, Any] = {k.name: k.default for k in SECTION.keys if k.name not in SHELL_KEYS}
"""Defaults of every table ``[mafia]`` key (from :data:`SECTION`); ``docs/mafia.md`` explains each one."""

SPEECH_KINDS = ("minute", "defence", "last_word")


def validate_settings(raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the complete, checked table ``[mafia]`` settings (without :data:`SHELL_KEYS`).

    Each key is checked against :data:`SECTION` (the same check a config file
    gets), then the rules between keys.  Missing keys take their defaults; an
    unknown key or a bad value raises :class:`~controller.core.errors.ConfigError`
    naming ``mafia.<key>``.
    """
    raw = dict(raw or {})
    unknown = sorted(set(raw) - set(_KEYS))
    if unknown:
        raise ConfigError(f"mafia.{unknown[0]}", f"unknown key; known keys: {', '.join(DEFAULTS)}")
    s = copy.deepcopy(DEFAULTS)
    for name, value in raw.items():
        value = check_value(_KEYS[name], value, f"mafia.{name}")
        if name not in SHELL_KEYS:
            s[name] = value
    players = s["players"]
    if len(players) > s["seats"]:
        raise ConfigError("mafia.players", f"{len(players)} player names for {s['seats']} seats")
    s["players"] = list(players)
    if s["remove_fouls"] <= s["silence_fouls"]:
        raise ConfigError("mafia.remove_fouls",
                          f"must be greater than silence_fouls ({s['silence_fouls']}), got {s['remove_fouls']}")
    kinds = s["silence_kinds"]
    if any(k not in SPEECH_KINDS for k in kinds):
        raise ConfigError("mafia.silence_kinds", f"expected a list of {', '.join(SPEECH_KINDS)}, got {kinds!r}")
    s["silence_kinds"] = list(kinds)
    s["extra_allowed"] = list(s["extra_allowed"])
    for action, names in s["keys"].items():
        if action not in _ACTIONS:
            raise ConfigError(f"mafia.keys.{action}", f"unknown action; known: {', '.join(_ACTIONS)}")
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise ConfigError(f"mafia.keys.{action}", f"expected a list of key names, got {names!r}")
    s["keys"] = {a: list(n) for a, n in s["keys"].items()}
    return s


@dataclass(frozen=True, slots=True)
class TableSettings:
    """The engine's part of the settings, durations in ns."""

    seats: int
    durations: Mapping[str, int]
    warn_ns: int
    silence_fouls: int
    remove_fouls: int
    silence_kinds: tuple[str, ...]
    removal_disqualifies: bool
    extra_allowed: tuple[float, ...] = (1, 0.5)
    """The extra points the ``extra`` key steps through (after 0)."""

    @classmethod
    def from_settings(cls, raw: Mapping[str, Any] | None) -> "TableSettings":
        s = validate_settings(raw)
        return cls(
            seats=s["seats"],
            durations={"minute": seconds_to_ns(s["minute_s"]), "defence": seconds_to_ns(s["defence_s"]),
                       "last_word": seconds_to_ns(s["last_word_s"])},
            warn_ns=seconds_to_ns(s["warn_s"]),
            silence_fouls=s["silence_fouls"],
            remove_fouls=s["remove_fouls"],
            silence_kinds=tuple(s["silence_kinds"]),
            removal_disqualifies=s["removal_disqualifies"],
            extra_allowed=tuple(s["extra_allowed"]),
        )


# --------------------------------------------------------------------------
# State.

IN_GAME = "in_game"
SILENCED = "silenced"
REMOVED = "removed"
OUT = "out"
STATUSES = (IN_GAME, SILENCED, REMOVED, OUT)

ROLES = ("civilian", "mafia", "don", "commissar", "doctor")
ROLE_ALIASES = {"sheriff": "commissar"}


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat at the table.

    ``status``: ``in_game``; ``silenced`` (reached the silence foul count, the
    next minute is skipped); ``removed`` (4th foul or disqualifying foul, left
    with no last word; ``reason`` is ``fouls`` or ``disqualified``); ``out``
    (left by the game itself, ``reason`` ``voted`` or ``killed``).
    ``role`` is secret: it is never part of :func:`view`.
    """

    seat: int
    name: str = ""
    fouls: int = 0
    status: str = IN_GAME
    reason: str | None = None
    role: str | None = None

    @property
    def playing(self) -> bool:
        return self.status in (IN_GAME, SILENCED)


@dataclass(frozen=True, slots=True)
class Timer:
    """The speech countdown.  ``state``: idle, running, paused, done (ran out)
    or stopped (ended early).  While running the truth is ``deadline``; in
    every other state it is ``remaining_ns``."""

    state: str = "idle"
    kind: str | None = None
    seat: int | None = None
    total_ns: int = 0
    deadline: int = 0
    remaining_ns: int = 0
    warned: bool = False
    speech_id: int = 0

    def remaining(self, now: int) -> int:
        if self.state == "running":
            return max(0, self.deadline - now)
        return self.remaining_ns


@dataclass(frozen=True, slots=True)
class Mark:
    """One entry of the table's record, for the protocol (docs/mafia.md, "The record").

    ``kind``: ``nomination`` (``by`` put ``seat`` up), ``vote`` (``by`` voted for ``seat``
    in voting ``round``), ``lift`` (``by`` voted to remove every tied candidate),
    ``shot`` (the night's shot at ``seat``; ``by`` the shooter, None: the mafia together;
    ``seat`` None: a miss), ``check`` (``by`` = ``don`` or ``commissar`` checked ``seat``),
    ``foul`` (``seat`` got a foul during ``stage`` of ``speaker``), ``left`` (``seat`` left
    the table, ``by`` = the reason), ``guess`` (``by``, the first killed, named ``seat`` as
    mafia), ``extra`` (``seat`` gets ``points`` extra points).  ``day`` is the day, a night's
    entries carry the day before it (night 1 follows day 1); ``at`` the engine time."""

    kind: str
    day: int
    at: int
    seat: int | None = None
    by: int | str | None = None
    round: int | None = None
    stage: str | None = None
    speaker: int | None = None
    points: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__ if getattr(self, k) is not None}


@dataclass(frozen=True, slots=True)
class UndoEntry:
    """What an undoable action changed, so that ``undo`` can put it back.

    Seat names and roles are not restored (a rename made later survives)."""

    action: str
    seats: tuple[tuple[int, str, str | None], ...]
    cursor: int | None
    spoken: frozenset[int]
    day: int
    opener: int
    phase: str
    winner: str | None
    ended_at: int | None
    speech_id: int | None = None
    seat: int | None = None
    record: tuple[Mark, ...] = ()
    candidate: int | None = None
    vote_round: int = 1


UNDO_DEPTH = 100


@dataclass(frozen=True, slots=True)
class MafiaState:
    settings: TableSettings
    seats: tuple[Seat, ...]
    timer: Timer = Timer()
    now: int = 0
    phase: str = "play"
    day: int = 1
    opener: int = 1
    cursor: int | None = None
    spoken: frozenset[int] = frozenset()
    winner: str | None = None
    ended_at: int | None = None
    undo: tuple[UndoEntry, ...] = ()
    speeches: int = 0
    entry: str = ""
    """Seat number typed on the keypad, used by the next seat action."""
    pending_kind: str = "minute"
    """Speech kind the ``start`` key gives the typed seat (``kind`` cycles it)."""
    record: tuple[Mark, ...] = ()
    """Nominations, votes, shots, checks, fouls, departures, the guess, extra points (:class:`Mark`)."""
    candidate: int | None = None
    """The candidate the ``vote`` key gives a typed voter to."""
    vote_round: int = 1
    """Today's voting round (``revote``: the next one, among the tied)."""
    started: int | None = None
    """Engine time of the judge's first action: when the game started, for the protocol."""

    def seat(self, number: int) -> Seat:
        return self.seats[number - 1]

    @property
    def paused(self) -> bool:
        return self.timer.state == "paused"


def initial(settings: Mapping[str, Any] | None, seats: Sequence[str] | int = ()) -> MafiaState:
    """A fresh table.

    ``settings`` is the ``[mafia]`` section (defaults for missing keys) or a
    whole config holding one (as :func:`controller.games.engine.new_game` passes
    it).  ``seats`` is the players' names in seat order; it may be shorter
    than the number of seats (names can be set later with ``name``).  An int
    in its place is the engine's random seed, which this mode does not need:
    the names then come from ``mafia.players``.
    """
    if settings is not None and "mode" in settings and isinstance(settings.get("mafia"), Mapping):
        settings = settings["mafia"]
    table = TableSettings.from_settings(settings)
    if isinstance(seats, int) and not isinstance(seats, bool):
        seats = (settings or {}).get("players", [])
    names = list(seats)
    if len(names) > table.seats:
        raise ConfigError("mafia.seats", f"{len(names)} player names for {table.seats} seats")
    names += [""] * (table.seats - len(names))
    return MafiaState(settings=table,
                      seats=tuple(Seat(seat=i + 1, name=str(n).strip()) for i, n in enumerate(names)))


# --------------------------------------------------------------------------
# Time.


def wakeup(state: MafiaState) -> int | None:
    """The next engine time at which a Tick is needed, or None."""
    t = state.timer
    if t.state != "running":
        return None
    if not t.warned and state.settings.warn_ns > 0:
        return t.deadline - state.settings.warn_ns
    return t.deadline


def _advance(state: MafiaState, now: int) -> tuple[MafiaState, list[Effect]]:
    """Move the clock to ``now`` and fire the warning and the end if due."""
    now = max(now, state.now)
    state = replace(state, now=now)
    t = state.timer
    if t.state != "running":
        return state, []
    effects: list[Effect] = []
    if now >= t.deadline:
        # A late tick that jumps past both instants only sounds the end.
        state = replace(state, timer=replace(t, state="done", remaining_ns=0, warned=True))
        effects += [Sound("time_up"),
                    Log(t.deadline, "mafia.speech_end",
                        {"seat": t.seat, "speech": t.kind, "reason": "time_up", "used_ms": t.total_ns // NS_PER_MS})]
    elif not t.warned and state.settings.warn_ns > 0 and now >= t.deadline - state.settings.warn_ns:
        state = replace(state, timer=replace(t, warned=True))
        effects += [Sound("warning"), Log(t.deadline - state.settings.warn_ns, "mafia.warning",
                                          {"seat": t.seat, "speech": t.kind})]
    return state, effects


# --------------------------------------------------------------------------
# Steps.


def step(state: MafiaState, event) -> tuple[MafiaState, list[Effect]]:
    """Apply one event; return the new state and the effects."""
    if isinstance(event, (Tick, Press, Release)):
        return _advance(state, event.now)
    if not isinstance(event, Host):
        raise GameError(f"mafia: cannot handle event {event!r}")
    handler = _ACTIONS.get(event.action)
    if handler is None:
        raise GameError(Text("script.unknown_action_of", action=repr(event.action), mode="mafia",
                              known=", ".join(sorted(_ACTIONS))))
    state, effects = _advance(state, event.at)
    if state.started is None:
        state = replace(state, started=state.now)
    params = dict(event.params or {})
    if event.action in _SEAT_ACTIONS and "seat" not in params and state.entry:
        # keypad style: the typed seat number, then the action key (a ``seat`` given wins)
        params["seat"] = state.entry
        state = replace(state, entry="")
    elif event.action in _ENDS_ENTRY and state.entry:
        # a seat typed for the day (or the game) that is over now: forgotten, never used the next day
        state = replace(state, entry="")
        effects = effects + [Log(state.now, "mafia.entry", {"entry": ""})]
    if state.phase == "ended" and event.action not in _AFTER_END:
        return state, effects + _refuse(state, event.action, "mafia.game_over", {})
    new_state, more = handler(state, params)
    return new_state, effects + more


def _refuse(state: MafiaState, action: str, key: str, params: Mapping[str, Any]) -> list[Effect]:
    return [Notice(key, dict(params)),
            Log(state.now, "mafia.refused", {"action": action, "reason": key, **params})]


def _seat_param(state: MafiaState, params: Mapping[str, Any], action: str) -> int | list[Effect]:
    """The ``seat`` parameter as a seat number, or refusal effects."""
    if "seat" not in params:
        return _refuse(state, action, "mafia.enter_seat", {})
    raw = params["seat"]
    try:
        number = int(str(raw).strip())
    except ValueError:
        raise GameError(f"mafia.{action}: seat must be a number, got {raw!r}") from None
    if not 1 <= number <= len(state.seats):
        return _refuse(state, action, "mafia.bad_seat", {"seat": number, "seats": len(state.seats)})
    return number


def _checkpoint(state: MafiaState, action: str, *, speech_id: int | None = None,
                seat: int | None = None) -> MafiaState:
    entry = UndoEntry(action=action, seats=tuple((s.fouls, s.status, s.reason) for s in state.seats),
                      cursor=state.cursor, spoken=state.spoken, day=state.day, opener=state.opener,
                      phase=state.phase, winner=state.winner, ended_at=state.ended_at,
                      speech_id=speech_id, seat=seat, record=state.record, candidate=state.candidate,
                      vote_round=state.vote_round)
    return replace(state, undo=(state.undo + (entry,))[-UNDO_DEPTH:])


def _set_seat(state: MafiaState, seat: Seat) -> MafiaState:
    seats = list(state.seats)
    seats[seat.seat - 1] = seat
    return replace(state, seats=tuple(seats))


def _end_speech(state: MafiaState, reason: str) -> tuple[MafiaState, list[Effect]]:
    """Stop the running or paused speech early (if there is one)."""
    t = state.timer
    if t.state not in ("running", "paused"):
        return state, []
    remaining = t.remaining(state.now)
    state = replace(state, timer=replace(t, state="stopped", remaining_ns=remaining))
    return state, [Log(state.now, "mafia.speech_end",
                       {"seat": t.seat, "speech": t.kind, "reason": reason,
                        "used_ms": (t.total_ns - remaining) // NS_PER_MS})]


def _start_speech(state: MafiaState, seat: int, kind: str, action: str,
                  checkpoint: MafiaState | None = None) -> tuple[MafiaState, list[Effect]]:
    """Start ``kind`` for ``seat``; ``checkpoint`` is the state to return to on undo."""
    state, effects = _end_speech(state, "replaced")
    total = state.settings.durations[kind]
    speech_id = state.speeches + 1
    base = checkpoint if checkpoint is not None else state
    undo = _checkpoint(base, action, speech_id=speech_id, seat=seat).undo
    timer = Timer(state="running", kind=kind, seat=seat, total_ns=total, deadline=state.now + total,
                  remaining_ns=total, warned=total <= state.settings.warn_ns, speech_id=speech_id)
    if kind == "minute":
        state = replace(state, cursor=seat, spoken=state.spoken | {seat})
    state = replace(state, timer=timer, speeches=speech_id, undo=undo)
    effects.append(Log(state.now, "mafia.speech_start",
                       {"seat": seat, "speech": kind, "total_ms": total // NS_PER_MS, "day": state.day}))
    return state, effects


def _speech(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    seat = _seat_param(state, params, "speech")
    if isinstance(seat, list):
        return state, seat
    kind = str(params.get("kind", "minute"))
    if kind not in SPEECH_KINDS:
        raise GameError(f"mafia.speech: kind must be one of {', '.join(SPEECH_KINDS)}, got {kind!r}")
    s = state.seat(seat)
    if s.status == REMOVED:
        key = "mafia.no_last_word" if kind == "last_word" else "mafia.removed"
        return state, _refuse(state, "speech", key, {"seat": seat, "kind": kind})
    if s.status == OUT and kind != "last_word":
        return state, _refuse(state, "speech", "mafia.not_in_game", {"seat": seat, "kind": kind})
    if s.status == SILENCED and kind in state.settings.silence_kinds:
        return state, _refuse(state, "speech", "mafia.silenced", {"seat": seat, "kind": kind})
    return _start_speech(state, seat, kind, "speech")


def _next_speaker(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    before = state
    n = len(state.seats)
    start = state.opener if state.cursor is None else state.cursor % n + 1
    effects: list[Effect] = []
    for offset in range(n):
        number = (start - 1 + offset) % n + 1
        s = state.seat(number)
        if not s.playing or number in state.spoken:
            continue
        if s.status == SILENCED and "minute" in state.settings.silence_kinds:
            state = _set_seat(state, replace(s, status=IN_GAME))
            state = replace(state, cursor=number, spoken=state.spoken | {number})
            effects += [Notice("mafia.silenced_skipped", {"seat": number}),
                        Log(state.now, "mafia.minute_skipped", {"seat": number, "fouls": s.fouls})]
            continue
        state, more = _start_speech(state, number, "minute", "next_speaker", checkpoint=before)
        return state, effects + more
    # Nobody left to speak today: a skipped silence is still undoable.
    if state is not before:
        state = replace(state, undo=_checkpoint(before, "next_speaker").undo)
    return state, effects + _refuse(state, "next_speaker", "mafia.everyone_spoke", {"day": state.day})


def _skip(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The judge passes over a silenced seat's minute by hand."""
    seat = _seat_param(state, params, "skip")
    if isinstance(seat, list):
        return state, seat
    s = state.seat(seat)
    if s.status != SILENCED:
        return state, _refuse(state, "skip", "mafia.not_silenced", {"seat": seat})
    new = _checkpoint(state, "skip", seat=seat)
    new = _set_seat(new, replace(s, status=IN_GAME))
    new = replace(new, cursor=seat, spoken=new.spoken | {seat})
    return new, [Notice("mafia.silenced_skipped", {"seat": seat}),
                 Log(new.now, "mafia.minute_skipped", {"seat": seat, "fouls": s.fouls})]


def _stop(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    if state.timer.state not in ("running", "paused"):
        return state, _refuse(state, "stop", "mafia.no_speech", {})
    return _end_speech(state, "stopped")


def _pause(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    t = state.timer
    if t.state == "paused":  # the pause key toggles
        return _resume(state, params)
    if t.state != "running":
        return state, _refuse(state, "pause", "mafia.no_speech", {})
    timer = replace(t, state="paused", remaining_ns=t.remaining(state.now))
    return replace(state, timer=timer), [Log(state.now, "mafia.pause",
                                             {"seat": t.seat, "remaining_ms": timer.remaining_ns // NS_PER_MS})]


def _resume(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    t = state.timer
    if t.state != "paused":
        return state, _refuse(state, "resume", "mafia.not_paused", {})
    timer = replace(t, state="running", deadline=state.now + t.remaining_ns)
    return replace(state, timer=timer), [Log(state.now, "mafia.resume",
                                              {"seat": t.seat, "remaining_ms": t.remaining_ns // NS_PER_MS})]


def _mark(state: MafiaState, kind: str, **fields: Any) -> MafiaState:
    return replace(state, record=state.record + (Mark(kind, state.day, state.now, **fields),))


def _stage(state: MafiaState) -> dict[str, Any]:
    """What the table is doing now, for a foul's record: a speech (``speech``: a minute,
    ``defence``, ``last_word``) and its seat, else ``night`` once tonight's shot or a check is
    entered, else ``voting`` once today's votes are, else ``day``."""
    t = state.timer
    if t.state in ("running", "paused"):
        return {"stage": t.kind if t.kind != "minute" else "speech", "speaker": t.seat,
                "round": state.vote_round if t.kind == "defence" else None}
    today = [m.kind for m in state.record if m.day == state.day]
    if "shot" in today or "check" in today:
        return {"stage": "night"}
    if "vote" in today or "lift" in today:
        return {"stage": "voting", "round": state.vote_round}
    return {"stage": "day", "speaker": t.seat}


def _remove(state: MafiaState, seat: Seat, reason: str) -> tuple[MafiaState, list[Effect]]:
    state = _mark(_set_seat(state, replace(seat, status=REMOVED, reason=reason)), "left", seat=seat.seat,
                  by=reason, **_stage(state))
    effects: list[Effect] = []
    if state.timer.seat == seat.seat:
        state, effects = _end_speech(state, "removed")
    return state, effects + [Flash("mafia.removed", str(seat.seat), text=Words("removed"),
                                   line=Words.of("player_n", n=str(seat.seat)), tone="bad"),
                             Notice("mafia.removed", {"seat": seat.seat, "reason": reason}),
                             Log(state.now, "mafia.removed", {"seat": seat.seat, "reason": reason,
                                                              "fouls": seat.fouls})]


def _foul(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    seat = _seat_param(state, params, "foul")
    if isinstance(seat, list):
        return state, seat
    s = state.seat(seat)
    if not s.playing:
        return state, _refuse(state, "foul", "mafia.not_in_game", {"seat": seat})
    state = _checkpoint(state, "foul", seat=seat)
    state = _mark(state, "foul", seat=seat, **_stage(state))
    fouls = s.fouls + 1
    s = replace(s, fouls=fouls)
    effects: list[Effect] = [Notice("mafia.foul", {"seat": seat, "fouls": fouls}),
                             Log(state.now, "mafia.foul", {"seat": seat, "fouls": fouls})]
    if fouls >= state.settings.remove_fouls:
        state, more = _remove(state, s, "fouls")
        return state, effects + more
    if fouls == state.settings.silence_fouls:
        s = replace(s, status=SILENCED)
        effects += [Notice("mafia.silenced", {"seat": seat}), Log(state.now, "mafia.silenced", {"seat": seat})]
    return _set_seat(state, s), effects


def _disqualify(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    seat = _seat_param(state, params, "disqualify")
    if isinstance(seat, list):
        return state, seat
    s = state.seat(seat)
    if not s.playing:
        return state, _refuse(state, "disqualify", "mafia.not_in_game", {"seat": seat})
    return _remove(_checkpoint(state, "disqualify", seat=seat), s, "disqualified")


def _out(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """A player leaves by the game: voted out by day or killed by night."""
    seat = _seat_param(state, params, "out")
    if isinstance(seat, list):
        return state, seat
    reason = str(params.get("reason", "voted"))
    if reason not in ("voted", "killed"):
        raise GameError(f"mafia.out: reason must be voted or killed, got {reason!r}")
    s = state.seat(seat)
    if not s.playing:
        return state, _refuse(state, "out", "mafia.not_in_game", {"seat": seat})
    state = _set_seat(_checkpoint(state, "out", seat=seat), replace(s, status=OUT, reason=reason))
    if reason == "killed":   # the night's kill is the mafia's shot at the seat
        state = _mark(state, "shot", seat=seat)
    state = _mark(state, "left", seat=seat, by=reason, stage="night" if reason == "killed" else "voting")
    effects: list[Effect] = []
    if state.timer.seat == seat and state.timer.kind != "last_word":
        state, effects = _end_speech(state, "out")
    return state, effects + [Log(state.now, "mafia.out", {"seat": seat, "reason": reason})]


def _day(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """A new day: the discussion opens one seat further round the table."""
    n = len(state.seats)
    opener = state.opener
    for offset in range(1, n + 1):
        candidate = (state.opener - 1 + offset) % n + 1
        if state.seat(candidate).playing:
            opener = candidate
            break
    new = _checkpoint(state, "day")
    new, effects = _end_speech(new, "stopped")
    new = replace(new, day=state.day + 1, opener=opener, cursor=None, spoken=frozenset(), candidate=None,
                  vote_round=1)
    return new, effects + [Log(new.now, "mafia.day", {"day": new.day, "opener": opener})]


def _name(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    seat = _seat_param(state, params, "name")
    if isinstance(seat, list):
        return state, seat
    name = str(params.get("name", "")).strip()
    state = _set_seat(state, replace(state.seat(seat), name=name))
    return state, [Log(state.now, "mafia.name", {"seat": seat, "name": name})]


def _rename(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The player at a seat (``seat``, or ``team`` as in the other modes) gets a new
    ``name``, checked like a team's new name: not empty, at most 40 characters, not
    another seat's name (``name`` is the unchecked entry of the names before the game)."""
    if "seat" not in params and "team" in params:
        params = {**params, "seat": params["team"]}
    seat = _seat_param(state, params, "rename")
    if isinstance(seat, list):
        return state, seat
    name = clean_name(params.get("name"))
    old = state.seat(seat).name
    why = name_problem(name, [s.name for s in state.seats if s.seat != seat])
    if why is None and name == old:
        why = "rename_unchanged"
    if why is not None:
        return state, _refuse(state, "rename", why, {"seat": seat, "team": old or seat, "name": name,
                                                     "max": NAME_MAX})
    state = _set_seat(state, replace(state.seat(seat), name=name))
    return state, [Notice("mafia.renamed", {"seat": seat, "old": old, "name": name}),
                   Log(state.now, "mafia.rename", {"seat": seat, "old": old, "name": name})]


def _role(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    seat = _seat_param(state, params, "role")
    if isinstance(seat, list):
        return state, seat
    role = str(params.get("role", "")).strip().lower()
    role = ROLE_ALIASES.get(role, role)
    if role not in ROLES:
        raise GameError(f"mafia.role: role must be one of {', '.join(ROLES)}, got {params.get('role')!r}")
    state = _set_seat(state, replace(state.seat(seat), role=role))
    return state, [Log(state.now, "mafia.role", {"seat": seat, "role": role})]


def _next_role(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The ``seat``'s (else the typed seat's) role, one step further round ROLES (the judge's key for the protocol)."""
    seat = _seat_param(state, params, "next_role")
    if isinstance(seat, list):
        return state, seat
    current = state.seat(seat).role
    role = ROLES[(ROLES.index(current) + 1) % len(ROLES)] if current in ROLES else ROLES[0]
    state, effects = _role(state, {"seat": seat, "role": role})
    return state, effects + [Notice("mafia.role", {"seat": seat, "role": role}, host_only=True)]


def _end_game(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    winner = str(params.get("winner", ""))
    if winner not in ("town", "mafia"):
        raise GameError(f"mafia.end_game: winner must be town or mafia, got {params.get('winner')!r}")
    new = _checkpoint(state, "end_game")
    new, effects = _end_speech(new, "stopped")
    new = replace(new, phase="ended", winner=winner, ended_at=new.now)
    return new, effects + [Flash("mafia.winner", winner, text=Words("town_wins" if winner == "town" else "mafia_wins"),
                                    tone="warn"), Log(new.now, "mafia.game_end", {"winner": winner})]


def _undo(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    if not state.undo:
        return state, _refuse(state, "undo", "mafia.nothing_to_undo", {})
    entry = state.undo[-1]
    seats = tuple(replace(s, fouls=f, status=st, reason=r) for s, (f, st, r) in zip(state.seats, entry.seats))
    new = replace(state, seats=seats, cursor=entry.cursor, spoken=entry.spoken, day=entry.day,
                  opener=entry.opener, phase=entry.phase, winner=entry.winner, ended_at=entry.ended_at,
                  undo=state.undo[:-1], record=entry.record, candidate=entry.candidate,
                  vote_round=entry.vote_round)
    effects: list[Effect] = []
    if entry.speech_id is not None and new.timer.speech_id == entry.speech_id:
        # The speech this action started is cancelled, not resumed or counted.
        t = new.timer
        effects.append(Log(new.now, "mafia.speech_end", {"seat": t.seat, "speech": t.kind, "reason": "undone",
                                                         "used_ms": (t.total_ns - t.remaining(new.now)) // NS_PER_MS}))
        new = replace(new, timer=Timer())
    data = {"undone": entry.action}
    if entry.seat is not None:
        data["seat"] = entry.seat
    return new, effects + [Notice("mafia.undone", data), Log(new.now, "mafia.undo", data)]


def _digit(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """One digit of a seat number ("1", "0" makes seat 10); keeps the last two."""
    digit = str(params.get("digit", ""))
    if len(digit) != 1 or not digit.isdigit():
        raise GameError(f"mafia.digit: expected one digit, got {params.get('digit')!r}")
    entry = (state.entry + digit)[-2:].lstrip("0") or ("0" if digit == "0" else "")
    if entry and int(entry) > len(state.seats):
        entry = digit.lstrip("0")  # "2", "3" on a 10-seat table means seat 3
    if entry in ("0", "") and digit == "0" and len(state.seats) >= 10:
        entry = "10"  # a lone 0 is seat 10, as on the table's number cards
    state = replace(state, entry=entry)
    return state, [Log(state.now, "mafia.entry", {"entry": entry})]


def _digit_action(d: int):
    def handler(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
        return _digit(state, {"digit": d})
    handler.__doc__ = f"The keypad's {d}."
    return handler


def _clear(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    state = replace(state, entry="", pending_kind="minute")
    return state, [Log(state.now, "mafia.entry", {"entry": ""})]


def _kind(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """Cycle the kind of speech ``start`` gives a typed seat."""
    kind = SPEECH_KINDS[(SPEECH_KINDS.index(state.pending_kind) + 1) % len(SPEECH_KINDS)]
    state = replace(state, pending_kind=kind)
    return state, [Notice("mafia.kind", {"kind": kind}), Log(state.now, "mafia.kind", {"speech": kind})]


def _start(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The Enter key: the ``seat``'s (else the typed seat's) speech (of the pending kind), else the next speaker."""
    kind = state.pending_kind
    state = replace(state, pending_kind="minute")
    if "seat" in params:
        return _speech(state, {"seat": params["seat"], "kind": params.get("kind", kind)})
    return _next_speaker(state, params)


# --------------------------------------------------------------------------
# The record: nominations, votes, the night, the guess, extra points.


def _other_seat(state: MafiaState, params: Mapping[str, Any], key: str, action: str) -> int | None | list[Effect]:
    """An optional second seat parameter (``by``, ``candidate``, ``shooter``): its number,
    None when not given, or refusal effects."""
    if params.get(key) is None:
        return None
    return _seat_param(state, {"seat": params[key]}, action)


def _seat_and(state: MafiaState, params: Mapping[str, Any], key: str, action: str
              ) -> tuple[int, int | None] | list[Effect]:
    """The ``seat`` parameter and the optional second seat ``key``, or refusal effects."""
    seat = _seat_param(state, params, action)
    if isinstance(seat, list):
        return seat
    other = _other_seat(state, params, key, action)
    return other if isinstance(other, list) else (seat, other)


def _today(state: MafiaState, kind: str) -> list[Mark]:
    return [m for m in state.record if m.kind == kind and m.day == state.day]


def _nominate(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The ``seat`` (else the typed seat) is put up for the vote by ``by``, by default the seat whose minute
    is (or was last) on the timer today."""
    got = _seat_and(state, params, "by", "nominate")
    if isinstance(got, list):
        return state, got
    seat, by = got
    t = state.timer
    if by is None and t.kind == "minute" and t.seat in state.spoken:
        by = t.seat
    if by is None:
        return state, _refuse(state, "nominate", "mafia.who_nominates", {"seat": seat})
    for who in (seat, by):
        if not state.seat(who).playing:
            return state, _refuse(state, "nominate", "mafia.not_in_game", {"seat": who})
    done = _today(state, "nomination")
    if any(m.seat == seat for m in done):
        return state, _refuse(state, "nominate", "mafia.already_nominated", {"seat": seat})
    if any(m.by == by for m in done):
        return state, _refuse(state, "nominate", "mafia.nominated_once", {"seat": by})
    state = _mark(_checkpoint(state, "nominate", seat=seat), "nomination", seat=seat, by=by)
    return state, [Notice("mafia.nominated", {"seat": seat, "by": by}),
                   Log(state.now, "mafia.nominate", {"seat": seat, "by": by, "day": state.day})]


def _candidate(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The ``seat`` (else the typed seat) is the candidate the next votes go to (one nominated today)."""
    seat = _seat_param(state, params, "candidate")
    if isinstance(seat, list):
        return state, seat
    if not any(m.seat == seat for m in _today(state, "nomination")):
        return state, _refuse(state, "candidate", "mafia.not_nominated", {"seat": seat})
    state = replace(state, candidate=seat)
    return state, [Notice("mafia.candidate", {"seat": seat, "round": state.vote_round}),
                   Log(state.now, "mafia.candidate", {"seat": seat, "round": state.vote_round})]


def _vote(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """Votes of today's round: ``voters`` (seats) for ``candidate``, or ``seat`` (else the typed seat) for
    the candidate chosen with ``candidate``.  Each seat votes once a round."""
    if "candidate" in params:
        candidate = _seat_param(state, {"seat": params["candidate"]}, "vote")
        if isinstance(candidate, list):
            return state, candidate
        if not any(m.seat == candidate for m in _today(state, "nomination")):
            return state, _refuse(state, "vote", "mafia.not_nominated", {"seat": candidate})
        state = replace(state, candidate=candidate)
    voters = params.get("voters")
    if voters is None:
        voters = [params["seat"]] if "seat" in params else []
    if not isinstance(voters, list):
        raise GameError(f"mafia.vote: voters must be a list of seats, got {voters!r}")
    if not voters:
        return state, _refuse(state, "vote", "mafia.enter_seat", {})
    if state.candidate is None:
        return state, _refuse(state, "vote", "mafia.no_candidate", {})
    numbers = []
    for raw in voters:
        voter = _seat_param(state, {"seat": raw}, "vote")
        if isinstance(voter, list):
            return state, voter
        numbers.append(voter)
    cast = {m.by for m in _today(state, "vote") if m.round == state.vote_round}
    for voter in numbers:
        if not state.seat(voter).playing:
            return state, _refuse(state, "vote", "mafia.not_in_game", {"seat": voter})
        if voter in cast or numbers.count(voter) > 1:
            return state, _refuse(state, "vote", "mafia.voted_twice", {"seat": voter, "round": state.vote_round})
    new = _checkpoint(state, "vote", seat=state.candidate)
    for voter in numbers:
        new = _mark(new, "vote", seat=state.candidate, by=voter, round=state.vote_round)
    votes = sum(1 for m in _today(new, "vote") if m.round == new.vote_round and m.seat == new.candidate)
    data = {"seat": new.candidate, "voters": numbers, "votes": votes, "round": new.vote_round}
    return new, [Notice("mafia.votes", {"seat": new.candidate, "votes": votes}), Log(new.now, "mafia.vote", data)]


def _revote(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """Today's next round of voting (among the tied, after their defence speeches)."""
    if not any(m.round == state.vote_round for m in _today(state, "vote")):
        return state, _refuse(state, "revote", "mafia.no_votes", {"round": state.vote_round})
    new = replace(_checkpoint(state, "revote"), vote_round=state.vote_round + 1, candidate=None)
    return new, [Notice("mafia.round", {"round": new.vote_round}),
                 Log(new.now, "mafia.revote", {"round": new.vote_round, "day": new.day})]


def _lift(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The ``seat`` (else the typed seat; or ``voters``) votes to remove every tied candidate at once."""
    voters = params.get("voters", [params["seat"]] if "seat" in params else [])
    if not isinstance(voters, list):
        raise GameError(f"mafia.lift: voters must be a list of seats, got {voters!r}")
    if not voters:
        return state, _refuse(state, "lift", "mafia.enter_seat", {})
    done = {m.by for m in _today(state, "lift")}
    numbers = []
    for raw in voters:
        voter = _seat_param(state, {"seat": raw}, "lift")
        if isinstance(voter, list):
            return state, voter
        if not state.seat(voter).playing:
            return state, _refuse(state, "lift", "mafia.not_in_game", {"seat": voter})
        if voter in done or voter in numbers:
            return state, _refuse(state, "lift", "mafia.voted_twice", {"seat": voter, "round": 0})
        numbers.append(voter)
    new = _checkpoint(state, "lift")
    for voter in numbers:
        new = _mark(new, "lift", by=voter)
    votes = len(_today(new, "lift"))
    return new, [Notice("mafia.lift", {"votes": votes}),
                 Log(new.now, "mafia.lift", {"voters": numbers, "votes": votes, "day": new.day})]


def _shot(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """One mafia player's shot tonight (``shooter`` at ``seat``), for a night the shots
    disagree; a kill is ``killed`` (the mafia's shot together), a miss ``miss``."""
    got = _seat_and(state, params, "shooter", "shot")
    if isinstance(got, list):
        return state, got
    seat, shooter = got
    if shooter is None:
        return state, _refuse(state, "shot", "mafia.who_shoots", {"seat": seat})
    if not state.seat(shooter).playing:
        return state, _refuse(state, "shot", "mafia.not_in_game", {"seat": shooter})
    if any(m.by == shooter for m in _today(state, "shot")):
        return state, _refuse(state, "shot", "mafia.shot_twice", {"seat": shooter})
    state = _mark(_checkpoint(state, "shot", seat=seat), "shot", seat=seat, by=shooter)
    return state, [Notice("mafia.shot", {"seat": seat, "by": shooter}, host_only=True),   # the shooter: a mafia
                   Log(state.now, "mafia.shot", {"seat": seat, "shooter": shooter, "night": state.day})]


def _miss(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """Tonight's shot missed: nobody is killed."""
    if any(m.by is None for m in _today(state, "shot")):
        return state, _refuse(state, "miss", "mafia.night_done", {"night": state.day})
    state = _mark(_checkpoint(state, "miss"), "shot")
    return state, [Notice("mafia.miss", {"night": state.day}), Log(state.now, "mafia.miss", {"night": state.day})]


def _check(role: str):
    def handler(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
        seat = _seat_param(state, params, f"{role}_check")
        if isinstance(seat, list):
            return state, seat
        if any(m.by == role for m in _today(state, "check")):
            return state, _refuse(state, f"{role}_check", "mafia.checked_tonight", {"role": role})
        state = _mark(_checkpoint(state, "check", seat=seat), "check", seat=seat, by=role)
        return state, [Notice("mafia.checked", {"seat": seat, "role": role}, host_only=True),
                       Log(state.now, "mafia.check", {"seat": seat, "role": role, "night": state.day})]
    handler.__doc__ = f"Tonight's check of the ``seat`` (else the typed seat) by the {role}."
    return handler


GUESS_MAX = 3
"""Seats the first player killed may name as mafia (the «лучший ход»)."""


def _guess(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The ``seat`` (else the typed seat; or ``seats``) named as mafia by ``by``, by default the first seat
    killed at night (its last word's «лучший ход»)."""
    seats = params.get("seats", [params["seat"]] if "seat" in params else [])
    if not isinstance(seats, list):
        raise GameError(f"mafia.guess: seats must be a list of seats, got {seats!r}")
    if not seats:
        return state, _refuse(state, "guess", "mafia.enter_seat", {})
    by = _other_seat(state, params, "by", "guess")
    if isinstance(by, list):
        return state, by
    if by is None:
        first = next((m.seat for m in state.record if m.kind == "shot" and m.by is None and m.seat), None)
        if first is None:
            return state, _refuse(state, "guess", "mafia.nobody_killed", {})
        by = first
    named = [m.seat for m in state.record if m.kind == "guess"]
    if named and any(m.by != by for m in state.record if m.kind == "guess"):
        return state, _refuse(state, "guess", "mafia.guess_taken", {"seat": by})
    numbers = []
    for raw in seats:
        seat = _seat_param(state, {"seat": raw}, "guess")
        if isinstance(seat, list):
            return state, seat
        if seat == by or seat in named or seat in numbers:
            return state, _refuse(state, "guess", "mafia.bad_guess", {"seat": seat})
        numbers.append(seat)
    if len(named) + len(numbers) > GUESS_MAX:
        return state, _refuse(state, "guess", "mafia.guess_full", {"seat": by, "max": GUESS_MAX})
    new = _checkpoint(state, "guess", seat=by)
    for seat in numbers:
        new = _mark(new, "guess", seat=seat, by=by)
    named += numbers
    return new, [Notice("mafia.guess", {"seat": by, "seats": ", ".join(map(str, named))}),
                 Log(new.now, "mafia.guess", {"by": by, "seats": named})]


def _extra(state: MafiaState, params: Mapping[str, Any]) -> tuple[MafiaState, list[Effect]]:
    """The judges' extra points of the ``seat`` (else the typed seat; §4.3): ``points``, or with the key the
    next of 0 and ``mafia.extra_allowed``; the protocol checks the game's limits."""
    seat = _seat_param(state, params, "extra")
    if isinstance(seat, list):
        return state, seat
    current = extra_points(state).get(seat, 0)
    steps = (0, *state.settings.extra_allowed)
    if "points" in params:
        points = params["points"]
        if isinstance(points, bool) or not isinstance(points, (int, float)) or points not in steps:
            raise GameError(f"mafia.extra: points must be one of {', '.join(f'{x:g}' for x in steps)}, "
                            f"got {points!r}")
    else:
        points = steps[(steps.index(current) + 1) % len(steps)] if current in steps else 0
    state = _mark(_checkpoint(state, "extra", seat=seat), "extra", seat=seat, points=points)
    return state, [Notice("mafia.extra", {"seat": seat, "points": f"{points:g}"}),
                   Log(state.now, "mafia.extra", {"seat": seat, "points": points})]


def extra_points(state: MafiaState) -> dict[int, float]:
    """Seat -> the extra points entered last for it (0s left out)."""
    points = {m.seat: m.points for m in state.record if m.kind == "extra"}
    return {seat: p for seat, p in points.items() if p}


_ACTIONS = {
    "start": _start,
    **{f"digit_{d}": _digit_action(d) for d in range(10)},
    "digit": _digit,
    "clear": _clear,
    "kind": _kind,
    "killed": lambda state, params: _out(state, {**params, "reason": "killed"}),
    "town_wins": lambda state, params: _end_game(state, {"winner": "town"}),
    "mafia_wins": lambda state, params: _end_game(state, {"winner": "mafia"}),
    "speech": _speech,
    "next_speaker": _next_speaker,
    "skip": _skip,
    "stop": _stop,
    "pause": _pause,
    "resume": _resume,
    "foul": _foul,
    "disqualify": _disqualify,
    "out": _out,
    "day": _day,
    "name": _name,
    "rename": _rename,
    "role": _role,
    "next_role": _next_role,
    "end_game": _end_game,
    "undo": _undo,
    "nominate": _nominate,
    "candidate": _candidate,
    "vote": _vote,
    "revote": _revote,
    "lift": _lift,
    "shot": _shot,
    "miss": _miss,
    "don_check": _check("don"),
    "sheriff_check": _check("commissar"),
    "guess": _guess,
    "extra": _extra,
}

HOST_ACTIONS = _ACTIONS
"""Host action name -> handler (``docs/mafia.md`` describes each)."""

_SEAT = Param("seat", "member")   # else the typed seat number (_SEAT_ACTIONS)
_PICK = Param("seat", "member", form=True)   # the same, picked on a host page (no digits there)
_OTHER = {key: Param(key, "member", form=True) for key in ("by", "candidate", "shooter")}
_PICKED = Spec(params=(_PICK,))
ACTIONS = declare(HOST_ACTIONS, {
    "start": Spec(params=(_PICK, Param("kind", "text"))),
    "digit": Spec(params=(Param("digit", "digit"),)),
    "killed": _PICKED,
    "town_wins": Spec(destructive=True, ask="mafia.confirm_town_wins"),   # one key ends the game: it asks
    "mafia_wins": Spec(destructive=True, ask="mafia.confirm_mafia_wins"),
    "speech": Spec(params=(_SEAT, Param("kind", "text"))),
    "skip": _PICKED,
    "foul": _PICKED,
    "disqualify": _PICKED,
    "out": Spec(params=(_PICK, Param("reason", "text"))),
    "name": Spec(params=(_SEAT, Param("name", "text"))),
    "rename": Spec(params=(Param("seat", "member", required=True, form=True),
                           Param("name", "text", required=True, form=True, max_len=NAME_MAX),
                           Param("team", "member")),
                   label="action_rename_player"),   # a player at a seat, not a team
    "role": Spec(params=(_SEAT, Param("role", "text"))),
    "next_role": _PICKED,
    "end_game": Spec(params=(Param("winner", "text"),), destructive=True),
    "nominate": Spec(params=(_PICK, _OTHER["by"])),
    "candidate": _PICKED,
    "vote": Spec(params=(_PICK, _OTHER["candidate"], Param("voters", "list"))),
    "lift": Spec(params=(_PICK, Param("voters", "list"))),
    "shot": Spec(params=(_PICK, _OTHER["shooter"])),
    "don_check": _PICKED,
    "sheriff_check": _PICKED,
    "guess": Spec(params=(_PICK, Param("seats", "list"), _OTHER["by"])),
    "extra": Spec(params=(_PICK, Param("points", "real", form=True))),
})
"""The declarations of :data:`HOST_ACTIONS` (controller/games/actions.py)."""

_SEAT_ACTIONS = frozenset({"start", "speech", "skip", "foul", "disqualify", "out", "killed", "name", "rename",
                           "role", "next_role", "nominate", "candidate", "vote", "lift", "shot", "don_check",
                           "sheriff_check", "guess", "extra"})
"""Actions that take the typed seat number when no ``seat`` parameter is given."""

_ENDS_ENTRY = frozenset({"day", "town_wins", "mafia_wins", "end_game"})
"""Actions after which a typed seat number is forgotten: what it was typed for is over."""

_AFTER_END = frozenset({"name", "rename", "role", "next_role", "undo", "stop", "pause", "clear", "guess", "extra"} | {f"digit_{d}" for d in range(10)}
                       | {"digit"})
"""Actions still accepted after ``end_game`` (to fix the record or undo it)."""


# --------------------------------------------------------------------------
# View.


def view(state: MafiaState, now: int | None = None) -> dict[str, Any]:
    """Plain JSON-able data for the audience screen and the host.

    ``now`` (engine ns) lets a display refresh the countdown between events;
    it defaults to the time of the last event.  ``timer.ends_at_ns`` is the
    engine time at which a running speech ends.  Roles are never included.
    """
    at = state.now if now is None else max(now, state.now)
    t = state.timer
    speaking = t.seat if t.state in ("running", "paused") else None
    remaining = t.remaining(at)
    notices = []
    for s in state.seats:
        if s.status == SILENCED:
            notices.append({"key": "mafia.silenced", "params": {"seat": s.seat}})
    if state.phase == "ended":
        notices.append({"key": "mafia.game_over", "params": {"winner": state.winner}})
    return {
        "mode": "mafia",
        "phase": state.phase,
        "day": state.day,
        "winner": state.winner,
        "seats": [{"seat": s.seat, "name": s.name, "fouls": s.fouls, "status": s.status,
                   "reason": s.reason, "speaking": s.seat == speaking} for s in state.seats],
        "timer": {
            "kind": t.kind,
            "seat": t.seat,
            "state": t.state,
            "running": t.state == "running",
            "remaining_ms": -(-remaining // NS_PER_MS),  # round up: 0 only when it is over
            "total_ms": t.total_ns // NS_PER_MS,
            "warning": t.state in ("running", "paused") and remaining <= state.settings.warn_ns,
            "ends_at_ns": t.deadline if t.state == "running" else None,
        },
        "notices": notices,
        "entry": state.entry,
        "pending_kind": state.pending_kind,
        "can_undo": bool(state.undo),
        "undo": state.undo[-1].action if state.undo else None,
    }


def summary(state: MafiaState) -> dict[str, Any]:
    """The finished table as the protocol needs it (roles included)."""
    return {
        "mode": "mafia",
        "phase": state.phase,
        "winner": state.winner,
        "ended_at": state.ended_at,
        "day": state.day,
        "seats": [{"seat": s.seat, "name": s.name, "role": s.role, "fouls": s.fouls, "status": s.status,
                   "reason": s.reason,
                   "disqualified": s.status == REMOVED and (s.reason == "disqualified"
                                                            or state.settings.removal_disqualifies)}
                  for s in state.seats],
    }


def protocol_summary(state: MafiaState) -> dict[str, Any]:
    """:func:`summary` with the table's record (docs/mafia.md, "The record"): each seat's
    extra points, the record's entries and the engine time the game started.  What the
    protocol is made of; ``buzzer simulate`` prints :func:`summary`."""
    out = summary(state)
    extra = extra_points(state)
    for seat in out["seats"]:
        seat["extra"] = extra.get(seat["seat"], 0)
    out["record"] = [m.as_dict() for m in state.record]
    out["started_at"] = state.started
    return out


# --------------------------------------------------------------------------
# The game object.


class Mafia(Game):
    """The «Мафия» table: the judge's speech timer, fouls and the protocol (its extras
    write the protocol file).  Seats, not buttons: the judge types seat numbers."""

    name = "mafia"
    title_key = "mode_mafia"
    sections = (SECTION,)
    host_actions = HOST_ACTIONS
    actions = ACTIONS
    notices = {"mafia.enter_seat": "entry", "mafia.bad_seat": "entry", "mafia.no_speech": "speech",
               "mafia.not_paused": "speech", "mafia.everyone_spoke": "speech", "mafia.game_over": "stage",
               "mafia.nothing_to_undo": "undo"}
    buttons_play = False
    digit_action = "seat_number"
    members = "seat"
    initial = staticmethod(initial)
    step = staticmethod(step)
    wakeup = staticmethod(wakeup)
    view = staticmethod(view)
    summary = staticmethod(summary)

    def screen(self, view):
        """The table: the speaker's timer, the winner, every seat by number (not a game of buttons)."""
        return table_screen.screen_of(view, self.title_key)

    def check_settings(self, cfg: dict) -> None:
        """[mafia]: rules between keys (remove_fouls > silence_fouls, names fit the seats ...)."""
        validate_settings(cfg["mafia"])

    def key_layers(self, cfg, program_keys):
        return [{**program_keys, **cfg["mafia"]["keys"]}]   # the judge's own map; digits type seat numbers

    def describe(self, cfg: dict) -> list[tuple[str, int]]:
        seats, names = cfg["mafia"]["seats"], len(cfg["mafia"]["players"])
        return [("check.seats_n", seats)] + ([("check.player_names_n", names)] if names else [])


GAME = Mafia()
