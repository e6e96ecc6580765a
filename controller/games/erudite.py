"""Эрудит-квартет: the core buzzer game [seed §4, rules.md].

A pure state machine.  :func:`initial` builds the state from a validated
config; :func:`step` takes one event and returns the new state plus effects;
:func:`wakeup` says when the next deadline falls so the shell can send a
:class:`~controller.core.events.Tick`; :func:`view` is what the screen shows and
:func:`summary` what ``buzzer simulate`` prints.

Rules in short (the numbers come from config):

* up to 4 teams, one button each; announcing a question (theme + nominal)
  arms the buttons, also while it is read [§4.6];
* the earliest eligible edge wins after the settle window (:mod:`controller.core.arbiter`);
* right: +nominal, the question closes; wrong: −nominal, that button is locked
  for the question and a new *wave* is armed at the ruling: the 2nd, 3rd, 4th
  may signal only from then on; presses before it are *early*: ignored, shown,
  optionally blocked for ``early_block_s`` [§4.6];
* thinking countdown (7 s) from the host's end-of-reading mark; after a wrong
  ruling it restarts at once if reading was finished, otherwise at the next
  mark; expiry with nobody pressing closes the question with no score [§4.7];
* withdraw undoes every score change of the question, undo reverts the last
  ruling; both are logged [§4.9];
* 3 fights × 4 rounds × 5 questions, fight types with captain timers, a team
  of N < 4 players skips rounds, disqualification until the end of the fight
  or of the tournament [§4.1–4.2, §4.13];
* placement by total, then points won by right answers [§4.10], and an extra
  one-round fight for the tied teams [§4.11].
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from controller.core import arbiter as arb
from controller.core import countdown as cdn
from controller.core.effects import Flash, Lamp, Notice, Sound
from controller.core.errors import ConfigError, GameError
from controller.i18n import Text
from controller.core.events import Host, Press, Release, seconds_to_ns
from controller.games import lineup as lu_rules
from controller.games import race as b
from controller.games.actions import Param, Spec, declare
from controller.games.race import (LATE, ANSWER, BLOCKED, DISABLED, EARLY, LOCKED, PENDING, Answer,
                                       PressRecord)
from controller.core.values import replace
from controller.core.schema import Key, Section, nominals, positive, warn_marks
from controller.games import event_plan
from controller.games.base import Game
from controller.core.plugins import Plugin

MODE = "erudite"


def _fight_types(v):
    bad = [t for t in v if t not in ("light", "half-dark", "dark")]
    if bad:
        return f"unknown fight type {bad[0]!r}; use light, half-dark or dark"
    return None


SECTION = Section("erudite", "Эрудит-квартет [seed §4].", (
    Key("think_time_s", "float", 7.0, "Thinking time per question after the end of reading.",
        check=positive, source="seed §4.7"),
    Key("after_wrong", "str", "restart", "After a wrong answer the countdown restarts in full "
        "(restart) or continues from where the press stopped it (resume).",
        choices=("restart", "resume")),
    Key("nominals", "list", [10, 20, 30, 40, 50], "Nominals of a round's questions, in reading order.",
        items="int", check=nominals, source="seed §4.3"),
    Key("fights", "int", 3, "Fights in a game.", minimum=1, source="seed §4.2"),
    Key("rounds_per_fight", "int", 4, "Rounds in a fight.", minimum=1, source="seed §4.2"),
    Key("fight_types", "list", ["light", "half-dark", "dark"], "Type of each fight, in order "
        "(the list repeats if shorter than the number of fights).", items="str",
        check=_fight_types, source="seed §4.2"),
    Key("captain_light_s", "float", 60.0, "Captain's time to assign players in a «светлый» fight.",
        check=positive, source="seed §4.2"),
    Key("captain_half_dark_s", "float", 20.0, "Captain's time to pick the round's player in a "
        "«полутёмный» fight.", check=positive, source="seed §4.2"),
    Key("captain_dark_s", "float", 60.0, "Captain's time to assign players before the themes of "
        "a «тёмный» fight.", check=positive, source="seed §4.2"),
    Key("early_block_s", "float", 0.0, "A press before the button may signal (before the host's "
        "'wrong') is ignored and shown as early; > 0 also blocks that button for this long.",
        minimum=0.0),
    Key("max_teams", "int", 4, "Most teams at one table.", minimum=1, maximum=16, source="seed §4.1"),
    Key("min_players", "int", 2, "Fewest players a team may have.", minimum=1, source="seed §4.1"),
    Key("warn_at_s", "list", [], "Seconds left at which a warning beep sounds during the "
        "thinking countdown (empty: none).", items="number", check=warn_marks),
))
"""Эрудит-квартет's settings: the ``[erudite]`` section of the config."""

# Kinds of press records (what happened to a press) are shared with the other
# button modes (controller/games/race.py); DISABLED here also covers a team
# skipping this round or not in the tie-break.  One kind is Эрудит-квартет's own:
STUCK = "stuck"          # the button was held down when buttons were armed


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    button: str
    color: str
    players: int
    roster: tuple[str, ...] = ()     # the players' names on the entry (event file), if known


@dataclass(frozen=True, slots=True)
class Rules:
    """The rule numbers of one game, from config (all times in ns)."""

    arbiter: arb.ArbiterRules
    think: int
    after_wrong: str
    nominals: tuple[int, ...]
    fights: int
    rounds: int
    fight_types: tuple[str, ...]
    captain: dict = field(hash=False, compare=True)
    early_block: int = 0
    warn_marks: tuple[int, ...] = ()
    planned: tuple[tuple[str, ...], ...] = ()   # each fight's themes from the event file
    texts: tuple = ()   # ((fight, round, nominal), (text, answer, extras)) from the event file

    def fight_type(self, fight: int) -> str:
        return self.fight_types[fight % len(self.fight_types)]


@dataclass(frozen=True, slots=True)
class Question:
    number: int                  # 1-based place in the game; a replacement keeps the withdrawn one's [§4.9]
    index: int                   # 1-based place in its round (the same slot rule)
    seq: int                     # 1-based, counts every announcement (tie draws, undo)
    fight: int                   # 0-based; -1 for the tie-break fight
    round: int                   # 0-based
    nominal: int
    theme: str
    announced_at: int
    armed_at: int                # edges at or after this may signal in this wave
    wave: int = 0
    reading_done: bool = False
    countdown: cdn.Countdown | None = None
    arbiter: arb.Arbiter = arb.Arbiter()
    holder: int | None = None
    presses: tuple[PressRecord, ...] = ()
    answers: tuple[Answer, ...] = ()
    answered: frozenset = frozenset()
    closed: str | None = None    # None while open; right | time | exhausted | withdrawn

    @property
    def open(self) -> bool:
        return self.closed is None


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    teams: tuple[Team, ...]
    now: int = 0
    stage: str = "play"          # play | tiebreak | finished
    fight: int = 0
    round: int = 0
    question: Question | None = None
    history: tuple[Question, ...] = ()
    scores: tuple[int, ...] = ()
    won: tuple[int, ...] = ()
    tb_scores: tuple[int, ...] = ()
    tb_won: tuple[int, ...] = ()
    tb_teams: tuple[int, ...] = ()
    themes: tuple[tuple[tuple[int, int], str], ...] = ()
    block_until: tuple[int, ...] = ()
    disq_level: tuple[int, ...] = ()     # 0 none, 1 until the end of the fight, 2 tournament
    disq_fight: tuple[int, ...] = ()
    skips: frozenset = frozenset()       # {(team, fight, round)}
    captain: cdn.Countdown | None = None
    paused: bool = False
    held: frozenset = frozenset()
    stuck: frozenset = frozenset()
    undo: tuple = ()                     # states before the last rulings
    line: lu_rules.Lineups = lu_rules.Lineups()   # who plays which round [§4.1–4.2]

    # -- derived helpers -------------------------------------------------
    def team_of(self, button: str) -> int | None:
        return b.index_of(self.teams, button)

    @property
    def button_order(self) -> tuple[str, ...]:
        return tuple(t.button for t in self.teams)


# ---------------------------------------------------------------------------
# construction

def rules_from_config(config: dict, seed: int) -> Rules:
    e = config["erudite"]
    planned, texts, fight_types = _event_plan(config)
    return Rules(
        arbiter=arb.ArbiterRules.from_config(config, seed),
        think=seconds_to_ns(e["think_time_s"]),
        after_wrong=e["after_wrong"],
        nominals=tuple(e["nominals"]),
        fights=e["fights"],
        rounds=e["rounds_per_fight"],
        fight_types=fight_types or tuple(e["fight_types"]),
        captain={"light": seconds_to_ns(e["captain_light_s"]),
                 "half-dark": seconds_to_ns(e["captain_half_dark_s"]),
                 "dark": seconds_to_ns(e["captain_dark_s"])},
        early_block=seconds_to_ns(e["early_block_s"]),
        warn_marks=tuple(seconds_to_ns(m) for m in e["warn_at_s"]),
        planned=planned, texts=texts,
    )


def _event_plan(config: dict) -> tuple[tuple, tuple, tuple]:
    """Themes, question texts and fight types of the event file's game (docs/event-file.md):
    empty without one.  A fight without a ``type`` takes ``erudite.fight_types``."""
    game = (config.get("event") or {}).get("game") or {}
    fights = game.get("fights") or []
    if not fights:
        return (), (), ()
    defaults = config["erudite"]["fight_types"]
    n = max(config["erudite"]["fights"], len(fights))
    types = tuple(fights[i].get("type") if i < len(fights) and fights[i].get("type")
                  else defaults[i % len(defaults)] for i in range(n))
    planned = tuple(tuple(f.get("themes", ())) for f in fights)
    texts = tuple(((i, q["round"] - 1, q["nominal"]), (q["text"], q["answer"], event_plan.host_extras(q)))
                  for i, f in enumerate(fights) for q in f.get("questions", ()))
    return planned, texts, types


def initial(config: dict, seed: int) -> State:
    """A new game from a validated config; ``seed`` drives the tie draw."""
    teams = tuple(Team(t["name"], t["button"], t["color"], t["players"], tuple(t.get("roster", ())))
                  for t in config["teams"])
    n = len(teams)
    zeros = (0,) * n
    return State(rules=rules_from_config(config, seed), teams=teams, scores=zeros, won=zeros,
                 tb_scores=zeros, tb_won=zeros, block_until=zeros, disq_level=zeros,
                 disq_fight=(-1,) * n)


# ---------------------------------------------------------------------------
# small pure helpers


def _disabled(s: State, team: int, q: Question | None = None) -> str | None:
    """Why a team's button may not signal now (None if it may)."""
    fight = q.fight if q is not None else (-1 if s.stage == "tiebreak" else s.fight)
    rnd = q.round if q is not None else s.round
    if s.disq_level[team] == 2 or (s.disq_level[team] == 1 and s.disq_fight[team] == fight):
        return "disqualified"
    if s.stage == "tiebreak" or (q is not None and q.fight == -1):
        return None if team in s.tb_teams else "not_in_tiebreak"
    if (team, fight, rnd) in s.skips:
        return "skipped"
    if s.line.used and lu_rules.sits_out(s.line, team, _entry_size(s, team), fight, rnd, s.rules.rounds):
        return "skipped"
    return None


def _played_in_round(s: State, fight: int, rnd: int) -> list[Question]:
    qs = [q for q in s.history if q.fight == fight and q.round == rnd and q.closed != "withdrawn"]
    if s.question is not None and s.question.fight == fight and s.question.round == rnd \
            and s.question.closed != "withdrawn":
        qs.append(s.question)
    return qs


def _theme(s: State, fight: int, rnd: int) -> str:
    for key, text in s.themes:
        if key == (fight, rnd):
            return text
    return ""


def _planned_theme(s: State, fight: int, rnd: int) -> str:
    """The event file's theme of that round ("" when it names none)."""
    if 0 <= fight < len(s.rules.planned) and 0 <= rnd < len(s.rules.planned[fight]):
        return s.rules.planned[fight][rnd]
    return ""


def _start_think(s: State, q: Question, now: int, fx: list) -> Question:
    cd = cdn.start("think", s.rules.think, now, s.rules.warn_marks)
    if s.paused:
        cd = cdn.pause(cd, now)
    b.log(fx, now, "countdown_start", countdown="think", seconds=s.rules.think / 1e9)
    return replace(q, countdown=cd)


# ---------------------------------------------------------------------------
# §4.6 the answer rights: the first to signal answers; after a wrong answer the
# next right (2nd, 3rd, 4th) goes to the first of the others to signal *after*
# the ruling; each team answers a question at most once.  In the code a right is
# a *wave* (``Question.wave``, the press records' ``wave``); the race within a
# wave is controller/games/race.py (:func:`~controller.games.race.race_kind`) and
# the arbiter.

def _eligible_left(s: State, q: Question) -> list[int]:
    """The teams that may still answer the question: not answered it yet, not disabled [§4.6]."""
    return [i for i in range(len(s.teams)) if i not in q.answered and _disabled(s, i, q) is None]


def _arm_wave(s: State, q: Question, now: int, fx: list) -> tuple[State, Question]:
    """Arm buttons from ``now``: held buttons are reported stuck and ignored until released."""
    stuck_now = sorted(btn for btn in s.held if s.team_of(btn) is not None)
    if stuck_now:
        s = replace(s, stuck=s.stuck | frozenset(stuck_now))
        for btn in stuck_now:
            fx.append(Notice("button_stuck", {"button": btn, "team": s.teams[s.team_of(btn)].name}))
            b.log(fx, now, "stuck", button=btn)
    return s, replace(q, armed_at=now)


def _next_wave_countdown(s: State, q: Question, now: int, fx: list) -> Question:
    """The countdown of a new wave: restarted (or resumed) at once if reading
    was finished, otherwise started at the next end-of-reading mark."""
    if q.reading_done:
        if s.rules.after_wrong == "resume" and q.countdown is not None and q.countdown.left > 0:
            q = replace(q, countdown=cdn.resume(q.countdown, now) if not s.paused else q.countdown)
            b.log(fx, now, "countdown_resume", left_s=q.countdown.left / 1e9)
        else:
            q = _start_think(s, q, now, fx)
    else:
        q = replace(q, countdown=None)
    return q


def _next_answer_right(s: State, q: Question, now: int, fx: list) -> State:
    """The next answer right [§4.6]: the remaining buttons may signal from ``now`` on
    (a press before it is early), with the countdown of :func:`_next_wave_countdown`."""
    q = replace(q, wave=q.wave + 1)
    s, q = _arm_wave(s, q, now, fx)
    return replace(s, question=_next_wave_countdown(s, q, now, fx))


# ---------------------------------------------------------------------------
# deadlines

def _deadlines(s: State) -> list[tuple[int, int, str]]:
    """(time, priority, what) of every pending deadline."""
    out = []
    q = s.question
    if q is not None and q.open:
        t = q.arbiter.decide_at(s.rules.arbiter.settle_ns)
        if t is not None:
            out.append((t, 0, "decide"))
        out += b.countdown_deadlines(q.countdown, "warn", "expire", grace=s.rules.arbiter.settle_ns)
    out += b.countdown_deadlines(s.captain, "captain_warn", "captain_expire")
    out += b.block_deadlines(s.block_until)
    return out


def wakeup(s: State) -> int | None:
    """The engine time of the next deadline (the shell sends a Tick then)."""
    return b.earliest(_deadlines(s))


def _advance(s: State, now: int, fx: list, press_at: int | None = None) -> State:
    """Fire every deadline up to ``now`` in time order."""
    return b.fire_due(s, now, fx, _deadlines, _fire, press_at=press_at)


def _fire(s: State, t: int, what: str, fx: list) -> State:
    """Carry out one deadline (settle window, countdown, captain's timer, block) at ``t``."""
    if what == "decide":
        s = _decide(s, t, fx)
    elif what == "warn":
        q = s.question
        cd, n = cdn.take_warnings(q.countdown, t)
        s = replace(s, question=replace(q, countdown=cd))
        fx.append(Sound("warning"))
        b.log(fx, t, "warning", countdown="think", left_s=round(cdn.remaining(cd, t) / 1e9, 3))
    elif what == "expire":
        s = _expire(s, t, fx)
    elif what == "captain_warn":
        cd, n = cdn.take_warnings(s.captain, t)
        s = replace(s, captain=cd)
        fx.append(Sound("warning"))
        b.log(fx, t, "warning", countdown="captain", left_s=round(cdn.remaining(cd, t) / 1e9, 3))
    elif what == "captain_expire":
        s = replace(s, captain=None)
        fx += [Sound("time_up"), Flash("captain_time_up")]
        b.log(fx, t, "captain_time_up")
    elif what.startswith("unblock:"):
        s = b.unblock(s, what, t, fx)
    return s


def _decide(s: State, t: int, fx: list) -> State:
    q = s.question
    # a team disqualified (or otherwise disabled) while its press waited in
    # the settle window drops out; the rest wait for their own window
    gone = {p.button for p in q.arbiter.candidates if _disabled(s, s.team_of(p.button), q) is not None}
    if gone:
        presses = tuple(replace(r, kind=DISABLED) if r.kind == PENDING and r.wave == q.wave
                        and r.button in gone else r for r in q.presses)
        q = replace(q, presses=presses, arbiter=arb.Arbiter(
            tuple(p for p in q.arbiter.candidates if p.button not in gone)))
        s = replace(s, question=q)
        if not q.arbiter.pending or q.arbiter.decide_at(s.rules.arbiter.settle_ns) > t:
            return s
    ordered, presses = b.decide(q.arbiter, q.presses, q.wave, s.rules.arbiter,
                                f"{q.seq}/{q.wave}", s.button_order)
    if b.rearms(ordered, s.rules.arbiter):   # a tie within the stamps' uncertainty: press again
        return replace(s, question=b.rearm(q, ordered, t, {tm.button: tm.name for tm in s.teams}, fx))
    fx += b.tie_notice(ordered, s.rules.arbiter, {tm.button: tm.name for tm in s.teams})
    winner = ordered[0]
    team = s.team_of(winner.button)
    # the winner's edge stopped the clock, not the end of the settle window:
    # what is left is what after_wrong = "resume" continues from (never more
    # than the countdown had when it last started, for an edge before that)
    cd = q.countdown
    if cd is not None:
        stop = min(winner.at, t)
        if cd.deadline is not None:
            stop = max(stop, cd.deadline - cd.left)
        cd = cdn.pause(cd, stop)
    q = replace(q, arbiter=arb.Arbiter(), holder=team, presses=presses, countdown=cd)
    s = replace(s, question=q)
    fx += [Lamp(winner.button, "on"), Sound("press", winner.button)]
    b.log(fx, t, "answer_right", team=s.teams[team].name, button=winner.button, **b.decision_log(ordered))
    return s


def _expire(s: State, t: int, fx: list) -> State:
    q = replace(s.question, closed="time", countdown=replace(s.question.countdown, deadline=None, left=0))
    fx += [Sound("time_up"), Flash("time_up")]
    b.log(fx, t, "time_up", question=q.number)
    return _finish_question(replace(s, question=q), t, fx)


def _finish_question(s: State, t: int, fx: list) -> State:
    """After a question closes: end the game when it was the last one."""
    q = s.question
    if q.fight == -1:
        if len(_played_in_round(s, -1, 0)) >= len(s.rules.nominals):
            s = replace(s, stage="finished")
            b.log(fx, t, "game_over", standings=[r["team"] for r in standings(s)])
        return s
    last = (s.fight == s.rules.fights - 1 and s.round == s.rules.rounds - 1)
    if last and len(_played_in_round(s, s.fight, s.round)) >= len(s.rules.nominals):
        s = replace(s, stage="finished")
        fx.append(Flash("standings"))
        b.log(fx, t, "game_over", standings=[r["team"] for r in standings(s)])
    return s


# ---------------------------------------------------------------------------
# presses

def _press(s: State, p: Press, fx: list) -> State:
    held = s.held | {p.button}
    team = s.team_of(p.button)
    if team is None:
        b.log(fx, p.delivered, "unknown_button", button=p.button)
        fx.append(Notice("unknown_button", {"button": p.button}))
        return replace(s, held=held)
    q = s.question
    if q is None or not q.open:
        b.log(fx, p.delivered, "idle_press", button=p.button, at=p.at / 1e9)
        return replace(s, held=held)
    kind = None
    if p.button in s.stuck:
        kind = STUCK
    elif _disabled(s, team, q):
        kind = DISABLED
    elif team in q.answered:
        kind = LOCKED
    elif s.block_until[team] and p.at < s.block_until[team]:
        kind = BLOCKED
    elif p.at < q.armed_at:
        kind = EARLY
    else:
        kind = b.race_kind(q, p, s.rules.arbiter.settle_ns, s.rules.arbiter.late_ns)
        if kind is None:
            return replace(s, held=held)  # a second edge of a button already in the window
    wave = q.wave
    q = b.record_press(q, team, p, kind)
    s = replace(s, held=held, question=q)
    b.log(fx, p.delivered, "press", button=p.button, team=s.teams[team].name, at=p.at / 1e9,
         delivered=p.delivered / 1e9, press_kind=kind, wave=wave)
    if kind == LATE and q.holder is not None:   # lost the race, by more than the settle window
        fx.append(b.late_notice(q, p, s.teams[team].name, {tm.button: tm.name for tm in s.teams}))
    if kind == EARLY:
        fx.append(Notice("early_press", {"button": p.button, "team": s.teams[team].name}))
        if s.rules.early_block:
            s = replace(s, block_until=b.set_at(s.block_until, team, p.at + s.rules.early_block))
            fx.append(Lamp(p.button, "blink"))
    elif kind == STUCK:
        fx.append(Notice("button_stuck", {"button": p.button, "team": s.teams[team].name}))
    return s


def _release(s: State, r: Release, fx: list) -> State:
    if r.button in s.stuck:
        b.log(fx, r.delivered, "unstuck", button=r.button)
    return replace(s, held=s.held - {r.button}, stuck=s.stuck - {r.button})


# ---------------------------------------------------------------------------
# host actions


def _h_question(s: State, h: Host, fx: list) -> State:
    now = h.at
    if s.stage == "finished":
        b.refuse(fx, now, "game_over")
        return s
    if s.question is not None and s.question.open:
        b.refuse(fx, now, "question_open")
        return s
    if s.stage == "tiebreak":
        fight, rnd = -1, 0
    else:
        if len(_played_in_round(s, s.fight, s.round)) >= len(s.rules.nominals):
            s = _next_round(s, now, fx)
            if s.stage == "finished":
                return s
        fight, rnd = s.fight, s.round
    played = len(_played_in_round(s, fight, rnd))
    nominal = h.params.get("nominal")
    if nominal is None:
        nominal = s.rules.nominals[min(played, len(s.rules.nominals) - 1)]
    if not isinstance(nominal, int) or isinstance(nominal, bool) or nominal <= 0:
        raise GameError(f"nominal must be a whole number > 0, got {nominal!r}")
    theme = h.params.get("theme")
    if theme is None and not _theme(s, fight, rnd) and _planned_theme(s, fight, rnd):
        theme = _planned_theme(s, fight, rnd)   # the event file's: announced with the question [§4.6]
    if theme is not None:
        s = replace(s, themes=tuple(x for x in s.themes if x[0] != (fight, rnd)) + (((fight, rnd), str(theme)),))
    else:
        theme = _theme(s, fight, rnd)
    history = s.history + ((s.question,) if s.question is not None else ())
    # a question withdrawn is replaced by another [§4.9]: the replacement takes its place
    number = sum(1 for x in history if x.closed != "withdrawn") + 1
    q = Question(number=number, index=played + 1, seq=len(history) + 1, fight=fight, round=rnd,
                 nominal=nominal, theme=theme, announced_at=now, armed_at=now)
    s = replace(s, history=history, question=None, undo=())
    s, q = _arm_wave(s, q, now, fx)
    s = replace(s, question=q)
    for t in s.teams:
        if s.block_until[s.team_of(t.button)] == 0:
            fx.append(Lamp(t.button, "off"))
    b.log(fx, now, "question", number=number, nominal=nominal, theme=theme, fight=fight + 1 if fight >= 0 else 0,
         round=rnd + 1)
    return s


def _h_theme(s: State, h: Host, fx: list) -> State:
    theme = str(h.params.get("theme", ""))
    rnd = h.params.get("round")
    rnd = s.round if rnd is None else int(rnd) - 1
    fight = -1 if s.stage == "tiebreak" else s.fight
    s = replace(s, themes=tuple(x for x in s.themes if x[0] != (fight, rnd)) + (((fight, rnd), theme),))
    if s.question is not None and s.question.fight == fight and s.question.round == rnd and s.question.open:
        s = replace(s, question=replace(s.question, theme=theme))
    b.log(fx, h.at, "theme", theme=theme, round=rnd + 1)
    return s


def _h_reading_done(s: State, h: Host, fx: list) -> State:
    q = s.question
    if q is None or not q.open:
        b.refuse(fx, h.at, "no_question")
        return s
    cd = q.countdown
    # a second mark while the countdown is paused must not give a fresh 7 s [§4.7]
    if cd is not None and (cd.running or (q.reading_done and q.holder is None and cd.left > 0)):
        b.refuse(fx, h.at, "countdown_running")
        return s
    q = replace(q, reading_done=True)
    b.log(fx, h.at, "reading_done", question=q.number)
    if q.holder is None and not q.arbiter.pending:
        q = _start_think(s, q, h.at, fx)
    return replace(s, question=q)


def _h_right(s: State, h: Host, fx: list) -> State:
    q = b.holder_question(s, h, fx)
    if q is None:
        return s
    before = s
    team = q.holder
    delta = q.nominal
    answer = Answer(team, "right", delta, h.at, q.wave)
    q = replace(q, answers=q.answers + (answer,), answered=q.answered | {team}, holder=None,
                closed="right")
    s = _score(s, q, team, delta)
    s = replace(s, question=q, undo=(before,) + s.undo[:9])
    fx += [Lamp(s.teams[team].button, "off"), Sound("right"), Flash("right", s.teams[team].name)]
    b.log(fx, h.at, "ruling", result="right", team=s.teams[team].name, delta=delta,
         score=s.tb_scores[team] if q.fight == -1 else s.scores[team])
    return _finish_question(s, h.at, fx)


def _score(s: State, q: Question, team: int, delta: int, won: int | None = None) -> State:
    """Add ``delta`` to a team's points and ``won`` (default: a right answer's
    ``delta``, 0 for a wrong one) to its points won by right answers [§4.10]."""
    won = max(delta, 0) if won is None else won
    if q.fight == -1:
        return replace(s, tb_scores=b.set_at(s.tb_scores, team, s.tb_scores[team] + delta),
                       tb_won=b.set_at(s.tb_won, team, s.tb_won[team] + won))
    return replace(s, scores=b.set_at(s.scores, team, s.scores[team] + delta),
                   won=b.set_at(s.won, team, s.won[team] + won))


def _h_wrong(s: State, h: Host, fx: list) -> State:
    q = b.holder_question(s, h, fx)
    if q is None:
        return s
    before = s
    team = q.holder
    delta = -q.nominal
    answer = Answer(team, "wrong", delta, h.at, q.wave)
    q = replace(q, answers=q.answers + (answer,), answered=q.answered | {team}, holder=None)
    s = _score(s, q, team, delta)
    s = replace(s, undo=(before,) + s.undo[:9])
    fx += [Lamp(s.teams[team].button, "off"), Sound("wrong"), Flash("wrong", s.teams[team].name)]
    b.log(fx, h.at, "ruling", result="wrong", team=s.teams[team].name, delta=delta,
         score=s.tb_scores[team] if q.fight == -1 else s.scores[team])
    if not _eligible_left(s, q):
        q = replace(q, closed="exhausted")
        b.log(fx, h.at, "question_closed", reason="exhausted", question=q.number)
        return _finish_question(replace(s, question=q), h.at, fx)
    return _next_answer_right(s, q, h.at, fx)


def _h_withdraw(s: State, h: Host, fx: list) -> State:
    q = s.question
    if q is None or q.closed == "withdrawn":
        b.refuse(fx, h.at, "no_question")
        return s
    undone = []
    for a in q.answers:
        # a right answer's points leave the won points too; a wrong one never added any
        s = _score(s, q, a.team, -a.delta, won=-a.delta if a.result == "right" else 0)
        undone.append({"team": s.teams[a.team].name, "delta": -a.delta})
    if q.holder is not None:
        fx.append(Lamp(s.teams[q.holder].button, "off"))
    q = replace(q, closed="withdrawn", holder=None, arbiter=arb.Arbiter(),
                countdown=cdn.pause(q.countdown, h.at) if q.countdown else None)
    s = replace(s, question=q, undo=())
    if s.stage == "finished" and q.fight != -1:
        s = replace(s, stage="play")
    elif s.stage == "finished":
        s = replace(s, stage="tiebreak")
    fx.append(Flash("withdrawn"))
    b.log(fx, h.at, "withdraw", question=q.number, nominal=q.nominal, undone=undone)
    return s


def _h_undo(s: State, h: Host, fx: list) -> State:
    if not s.undo:
        b.refuse(fx, h.at, "nothing_to_undo")
        return s
    prev = s.undo[0]
    if prev.question is None or s.question is None or prev.question.seq != s.question.seq:
        b.refuse(fx, h.at, "nothing_to_undo")
        return s
    q = prev.question
    # undo takes back a ruling only: a disqualification, a skipped round, a
    # theme set or a team renamed since then stays
    restored = replace(prev, now=s.now, held=s.held, stuck=s.stuck, paused=s.paused,
                       captain=s.captain, undo=s.undo[1:], disq_level=s.disq_level, teams=s.teams,
                       disq_fight=s.disq_fight, skips=s.skips, themes=s.themes, line=s.line,
                       question=replace(q, theme=s.question.theme))
    if q.holder is not None:
        fx.append(Lamp(s.teams[q.holder].button, "on"))
    last = s.question.answers[-1] if s.question.answers else None
    fx.append(Flash("undo"))
    b.log(fx, h.at, "undo", question=q.number,
         ruling=None if last is None else {"team": s.teams[last.team].name, "result": last.result,
                                           "delta": last.delta})
    return _drop_disabled(restored, h.at, fx)


def _h_pause(s: State, h: Host, fx: list) -> State:
    if s.paused:
        return _h_resume(s, h, fx)
    q = s.question
    if q is not None and q.countdown is not None:
        q = replace(q, countdown=cdn.pause(q.countdown, h.at))
    cap = cdn.pause(s.captain, h.at) if s.captain else None
    b.log(fx, h.at, "pause")
    return replace(s, paused=True, question=q, captain=cap)


def _h_resume(s: State, h: Host, fx: list) -> State:
    if not s.paused:
        return s
    q = s.question
    if q is not None and q.open and q.countdown is not None and q.holder is None and not q.arbiter.pending \
            and q.countdown.left > 0:
        q = replace(q, countdown=cdn.resume(q.countdown, h.at))
    cap = cdn.resume(s.captain, h.at) if s.captain else None
    b.log(fx, h.at, "resume")
    return replace(s, paused=False, question=q, captain=cap)


def _next_round(s: State, now: int, fx: list) -> State:
    fight, rnd = s.fight, s.round + 1
    if rnd >= s.rules.rounds:
        fight, rnd = fight + 1, 0
    if fight >= s.rules.fights:
        s = replace(s, stage="finished")
        fx.append(Flash("standings"))
        b.log(fx, now, "game_over", standings=[r["team"] for r in standings(s)])
        return s
    if fight != s.fight:
        b.log(fx, now, "fight", fight=fight + 1, type=s.rules.fight_type(fight))
    b.log(fx, now, "round", fight=fight + 1, round=rnd + 1)
    return replace(s, fight=fight, round=rnd, captain=None)


def _may_move_on(s: State, h: Host, fx: list) -> bool:
    """Rounds and fights change only between questions of the main game."""
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return False
    if s.stage != "play":
        b.refuse(fx, h.at, "game_over")
        return False
    return True


def _h_next_round(s: State, h: Host, fx: list) -> State:
    return _next_round(s, h.at, fx) if _may_move_on(s, h, fx) else s


def _h_next_fight(s: State, h: Host, fx: list) -> State:
    return _next_round(replace(s, round=s.rules.rounds - 1), h.at, fx) if _may_move_on(s, h, fx) else s


def _h_captain(s: State, h: Host, fx: list) -> State:
    kind = "light" if s.stage == "tiebreak" else s.rules.fight_type(s.fight)
    total = s.rules.captain[kind]
    if "seconds" in h.params:
        total = seconds_to_ns(float(h.params["seconds"]))
    cd = cdn.start("captain", total, h.at, (seconds_to_ns(10),) if total > seconds_to_ns(15) else ())
    if s.paused:
        cd = cdn.pause(cd, h.at)
    fx.append(Sound("start"))
    b.log(fx, h.at, "captain_start", fight_type=kind, seconds=total / 1e9)
    s = replace(s, captain=cd)
    if s.rules.planned and kind != "dark":
        s = _announce_themes(s, h.at, fx)   # light: all four first; half-dark: this round's [§4.2]
    return s


def _h_disqualify(s: State, h: Host, fx: list) -> State:
    team = b.team_ref(s.teams, h.params)
    level = 2 if s.disq_level[team] >= 1 else 1
    # the tie-break is a fight of its own (-1): "until the end of the fight" is until its end
    in_tiebreak = s.stage == "tiebreak" or (s.question is not None and s.question.fight == -1)
    fight = -1 if in_tiebreak else s.fight
    s = replace(s, disq_level=b.set_at(s.disq_level, team, level), disq_fight=b.set_at(s.disq_fight, team, fight))
    fx += [Lamp(s.teams[team].button, "off"), Notice("team_disqualified", {"team": s.teams[team].name})]
    b.log(fx, h.at, "disqualify", team=s.teams[team].name, until="tournament" if level == 2 else "fight",
         fight=fight + 1)
    return _drop_disabled(s, h.at, fx)


def _drop_disabled(s: State, now: int, fx: list) -> State:
    """After a disqualification: a disqualified holder loses the answer right (the
    others may signal from now on); with nobody left the question closes."""
    q = s.question
    if q is None or not q.open:
        return s
    if q.holder is not None and _disabled(s, q.holder, q) is not None:
        fx.append(Lamp(s.teams[q.holder].button, "off"))
        s = _next_answer_right(s, replace(q, holder=None), now, fx)
    q = s.question
    if not _eligible_left(s, q):
        s = replace(s, question=replace(q, closed="exhausted", arbiter=arb.Arbiter()))
        b.log(fx, now, "question_closed", reason="exhausted", question=q.number)
        s = _finish_question(s, now, fx)
    return s


def _h_reinstate(s: State, h: Host, fx: list) -> State:
    team = b.team_ref(s.teams, h.params)
    level = s.disq_level[team]
    s = replace(s, disq_level=b.set_at(s.disq_level, team, max(level - 1, 0)))
    b.log(fx, h.at, "reinstate", team=s.teams[team].name)
    return s


def _h_skip_round(s: State, h: Host, fx: list) -> State:
    team = b.team_ref(s.teams, h.params)
    rnd = h.params.get("round")
    rnd = s.round if rnd is None else int(rnd) - 1
    if not 0 <= rnd < s.rules.rounds:
        raise GameError(f"round must be 1..{s.rules.rounds}")
    t = s.teams[team]
    if s.line.used and lu_rules.player_at(s.line, team, s.fight, rnd) is not None:
        b.refuse(fx, h.at, "lineup_round_has_player", team=t.name, round=rnd + 1,
                 player=_player_name(s, team, lu_rules.player_at(s.line, team, s.fight, rnd)))
        return s
    players = lu_rules.players_in_fight(s.line, team, _entry_size(s, team), s.fight) if s.line.used else t.players
    may_skip = max(s.rules.rounds - players, 0)
    skipped = [k for k in s.skips if k[0] == team and k[1] == s.fight]
    if (team, s.fight, rnd) in s.skips:
        return s
    if len(skipped) >= may_skip:
        b.refuse(fx, h.at, "skip_not_allowed", team=t.name, players=players, skipped=len(skipped))
        return s
    # a round that is over, or one in which this team already took the answer
    # right, was played: the skip must be another round [§4.1]
    played = _played_in_round(s, s.fight, rnd)
    if rnd < s.round or (rnd == s.round and len(played) >= len(s.rules.nominals)) \
            or any(r.team == team and r.kind == ANSWER for q in played for r in q.presses):
        b.refuse(fx, h.at, "skip_not_allowed", team=t.name, players=players, skipped=len(skipped),
                round=rnd + 1, why="round_played")
        return s
    s = replace(s, skips=s.skips | {(team, s.fight, rnd)})
    b.log(fx, h.at, "skip_round", team=t.name, fight=s.fight + 1, round=rnd + 1)
    return _drop_disabled(s, h.at, fx)


def _h_tiebreak(s: State, h: Host, fx: list) -> State:
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return s
    refs = h.params.get("teams")
    if refs:
        teams = tuple(sorted(b.team_ref(s.teams, {"team": r}) for r in refs))
    else:
        teams = ()
        for group in tied_groups(s):
            teams = tuple(sorted(group))
            break
    if len(teams) < 2:
        b.refuse(fx, h.at, "no_tie")
        return s
    s = replace(s, stage="tiebreak", tb_teams=teams, captain=None)
    b.log(fx, h.at, "tiebreak", teams=[s.teams[i].name for i in teams])
    return s


def _h_rename(s: State, h: Host, fx: list) -> State:
    """A team's new name (``team``, ``name``); see :func:`controller.games.race.rename`."""
    return b.rename(s, h, fx)[0]


def _h_end_game(s: State, h: Host, fx: list) -> State:
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return s
    fx.append(Flash("standings"))
    b.log(fx, h.at, "game_over", standings=[r["team"] for r in standings(s)])
    return replace(s, stage="finished")


HOST_ACTIONS: dict[str, Callable[[State, Host, list], State]] = {
    "question": _h_question,
    "theme": _h_theme,
    "reading_done": _h_reading_done,
    "right": _h_right,
    "wrong": _h_wrong,
    "withdraw": _h_withdraw,
    "undo": _h_undo,
    "pause": _h_pause,
    "resume": _h_resume,
    "next_round": _h_next_round,
    "next_fight": _h_next_fight,
    "captain": _h_captain,
    "disqualify": _h_disqualify,
    "reinstate": _h_reinstate,
    "skip_round": _h_skip_round,
    "tiebreak": _h_tiebreak,
    "rename": _h_rename,
    "end_game": _h_end_game,
    "themes": lambda s, h, fx: _h_themes(s, h, fx),
    "lineup": lambda s, h, fx: _h_lineup(s, h, fx),
    "absent": lambda s, h, fx: _h_absent(s, h, fx),
    "arrive": lambda s, h, fx: _h_arrive(s, h, fx),
}
"""Every host action this mode accepts (documented in docs/modes.md)."""

_PLAYER = Param("player", "player", required=True, form=True)
_ROUND = Param("round", "number", minimum=1)
ACTIONS = declare(HOST_ACTIONS, {
    "question": Spec(params=(Param("nominal", "number"), Param("theme", "text"))),
    "theme": Spec(params=(Param("theme", "text"), _ROUND)),
    "captain": Spec(params=(Param("seconds", "real", minimum=0),)),
    "next_round": b.ENDS_STAGE,
    "next_fight": b.ENDS_STAGE,
    "disqualify": Spec(params=(b.PICK_TEAM, b.BUTTON)),
    "reinstate": Spec(params=(b.TEAM, b.BUTTON)),
    "skip_round": Spec(params=(b.TEAM, b.BUTTON, _ROUND), destructive=True),
    "tiebreak": Spec(params=(Param("teams", "list"),)),
    "rename": b.RENAME,
    "end_game": b.ENDS_STAGE,
    "themes": Spec(params=(Param("round", "number", form=True, minimum=1),)),
    "lineup": Spec(params=(b.PICK_TEAM, Param("round", "number", required=True, form=True, minimum=1), _PLAYER,
                           b.BUTTON), dialogue="lineup"),   # the keypad's entry: team, round, player
    "absent": Spec(params=(b.PICK_TEAM, _PLAYER, b.BUTTON)),
    "arrive": Spec(params=(b.PICK_TEAM, _PLAYER, b.BUTTON)),
})
"""The declarations of :data:`HOST_ACTIONS` (controller/games/actions.py)."""


def step(s: State, event) -> tuple[State, list]:
    """Apply one event; return the new state and the effects to carry out."""
    return b.dispatch(s, event, actions=HOST_ACTIONS, advance=_advance, mode_name="Эрудит-квартет",
                      on_press=_press, on_release=_release)


# ---------------------------------------------------------------------------
# standings, view, summary

def _rank_key(s: State, i: int) -> tuple:
    return (-s.scores[i], -s.won[i], -s.tb_scores[i], -s.tb_won[i])


def standings(s: State) -> list[dict]:
    """Teams best first by §4.10 (total, then points won by right answers),
    then by the extra fight of §4.11; equal on everything = shared place."""
    order = sorted(range(len(s.teams)), key=lambda i: (_rank_key(s, i), i))
    out = []
    for pos, i in enumerate(order):
        place = pos + 1
        if pos and _rank_key(s, order[pos - 1]) == _rank_key(s, i):
            place = out[-1]["place"]
        tied = any(_rank_key(s, j) == _rank_key(s, i) for j in order if j != i)
        row = {"place": place, "team": s.teams[i].name, "points": s.scores[i], "won_points": s.won[i],
               "tied": tied}
        if i in s.tb_teams:
            row["tiebreak_points"] = s.tb_scores[i]
        out.append(row)
    return out


def tied_groups(s: State) -> list[list[int]]:
    """Groups of teams equal on every placement criterion, best group first."""
    groups: dict[tuple, list[int]] = {}
    for i in range(len(s.teams)):
        groups.setdefault(_rank_key(s, i), []).append(i)
    return [g for k, g in sorted(groups.items()) if len(g) > 1]


def question_summary(s: State, q: Question) -> dict:
    return {"number": q.number, "fight": q.fight + 1 if q.fight >= 0 else 0, "round": q.round + 1,
            "tiebreak": q.fight == -1, "nominal": q.nominal, "theme": q.theme,
            "presses": b.press_rows(s.teams, q.presses),
            "answers": b.answer_rows(s.teams, q.answers),
            "closed": q.closed, "withdrawn": q.closed == "withdrawn"}


def view(s: State, now: int | None = None) -> dict:
    """Everything the audience screen shows, as plain data (the screen decides nothing)."""
    now = s.now if now is None else now
    q = s.question
    places = {r["team"]: r["place"] for r in standings(s)}
    teams = []
    for i, t in enumerate(s.teams):
        early = bool(q and q.open and any(r.team == i and r.kind == EARLY and r.wave == q.wave
                                          for r in q.presses))
        teams.append({
            "name": t.name, "button": t.button, "color": t.color,
            "score": s.scores[i], "won": s.won[i], "place": places[t.name],
            "tiebreak_score": s.tb_scores[i] if i in s.tb_teams else None,
            "holder": bool(q and q.open and q.holder == i),
            "locked": bool(q and q.open and i in q.answered),
            "disabled": _disabled(s, i, q),
            "early": early,
            "blocked": bool(s.block_until[i] and s.block_until[i] > now),
            "stuck": t.button in s.stuck,
        })
    question = None
    if q is not None:
        question = {"number": q.number, "nominal": q.nominal, "theme": q.theme,
                    "index": q.index,
                    "of": len(s.rules.nominals), "open": q.open, "closed": q.closed,
                    "reading_done": q.reading_done, "wave": q.wave,
                    "presses": b.press_rows(s.teams, q.presses),
                    "answers": b.answer_rows(s.teams, q.answers)}
    fight_type = "light" if s.stage == "tiebreak" else s.rules.fight_type(s.fight)
    out = {
        "mode": MODE, "stage": s.stage, "paused": s.paused,
        "fight": s.fight + 1, "fights": s.rules.fights, "round": s.round + 1, "rounds": s.rules.rounds,
        "fight_type": fight_type, "tiebreak": s.stage == "tiebreak" or bool(q and q.fight == -1),
        "theme": _theme(s, -1 if s.stage == "tiebreak" else s.fight, 0 if s.stage == "tiebreak" else s.round),
        "teams": teams, "question": question,
        "countdown": b.countdown_view(q.countdown if q is not None and q.open else None, now),
        "captain": b.countdown_view(s.captain, now),
        "standings": standings(s),
    }
    out = _players_view(s, out) if (s.rules.planned or _players_used(s)) else out
    return b.with_race(out, s.teams, s.question, s.rules.arbiter)


def summary(s: State) -> dict:
    """What ``buzzer simulate`` prints (plus the shell's ``events`` log)."""
    questions = list(s.history) + ([s.question] if s.question is not None else [])
    out = {
        "mode": MODE,
        "seed": s.rules.arbiter.seed,
        "stage": s.stage,
        "scores": {t.name: s.scores[i] for i, t in enumerate(s.teams)},
        "won_points": {t.name: s.won[i] for i, t in enumerate(s.teams)},
        "standings": standings(s),
        "questions": [question_summary(s, q) for q in questions],
    }
    if _players_used(s):
        # only a game that knows its players (docs/scripted-sessions.md): each answer's
        # player, and every player's points [§4.3]
        for row, q in zip(out["questions"], questions):
            for a_row, a in zip(row["answers"], q.answers):
                a_row["player"] = _player_name(s, a.team, lu_rules.player_at(s.line, a.team, q.fight, q.round))
        out["players"] = players_summary(s)
    return out


# ---------------------------------------------------------------------------
# line-ups, themes and players' points [§4.1–4.3]; the rules themselves are in
# controller/games/lineup.py

def _entry_size(s: State, team: int) -> int:
    """Players on the team's entry: its names from the event file, else ``players``."""
    t = s.teams[team]
    return len(t.roster) or t.players


def _player_name(s: State, team: int, player: int | None) -> str | None:
    return None if player is None else lu_rules.player_name(s.teams[team].roster, player)


def _upcoming(s: State) -> tuple[int, int]:
    """(fight, round) the next question belongs to: the current round, or the next one
    once all its questions are played (-1, 0 in the extra fight)."""
    if s.stage == "tiebreak":
        return -1, 0
    q = s.question
    if q is not None and q.open:
        return q.fight, q.round
    fight, rnd = s.fight, s.round
    if len(_played_in_round(s, fight, rnd)) >= len(s.rules.nominals):
        rnd += 1
        if rnd >= s.rules.rounds:
            fight, rnd = fight + 1, 0
        if fight >= s.rules.fights:
            return s.fight, s.round
    return fight, rnd


def _started(s: State, fight: int, rnd: int | None = None) -> bool:
    """Whether a question of that fight (round) was announced (a withdrawn one too)."""
    qs = s.history + ((s.question,) if s.question is not None else ())
    return any(q.fight == fight and (rnd is None or q.round == rnd) for q in qs)


def _announce_themes(s: State, now: int, fx: list, rnd: int | None = None) -> State:
    """Announce the event file's themes of the fight coming: all of them before a
    «светлый» fight, the next round's before a «полутёмный» round, and in a «тёмный»
    fight the next round's (its line-up is closed from then on) [§4.2]."""
    fight, nxt = _upcoming(s)
    if fight < 0 or fight >= len(s.rules.planned):
        return s
    kind = s.rules.fight_type(fight)
    rounds = range(len(s.rules.planned[fight])) if kind == "light" and rnd is None else \
        [nxt if rnd is None else rnd]
    said = []
    themes = s.themes
    for r in rounds:
        text = _planned_theme(s, fight, r)
        if text and (fight, r) not in dict(themes):
            themes = themes + (((fight, r), text),)
            said.append({"round": r + 1, "theme": text})
    if said:
        b.log(fx, now, "themes", fight=fight + 1, fight_type=kind, themes=said)
    return replace(s, themes=themes)


def _h_themes(s: State, h: Host, fx: list) -> State:
    """Announce the themes the fight type allows now (the event file's; ``round``: that
    round's only) [§4.2]."""
    rnd = h.params.get("round")
    if rnd is not None and (not isinstance(rnd, int) or isinstance(rnd, bool) or not 1 <= rnd <= s.rules.rounds):
        raise GameError(f"round must be 1..{s.rules.rounds}")
    if not s.rules.planned:
        b.refuse(fx, h.at, "themes_none")
        return s
    return _announce_themes(s, h.at, fx, None if rnd is None else rnd - 1)


def _player_ref(s: State, team: int, h: Host) -> int:
    """The ``player`` of a host action: his number on the entry (1-based) or his name."""
    ref = h.params.get("player")
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref
    if isinstance(ref, str):
        names = s.teams[team].roster
        for i, n in enumerate(names):
            if n.casefold() == ref.strip().casefold():
                return i + 1
        if ref.strip().isdigit():
            return int(ref.strip())
        raise GameError(f"no player {ref!r} in team {s.teams[team].name!r}")
    raise GameError("this action needs \"player\" (a number on the entry or a name)")


def _h_lineup(s: State, h: Host, fx: list) -> State:
    """``team`` plays round ``round`` of the coming fight with ``player`` (the host's
    entry of the captain's choice); refused with a notice where §4.1–4.2 and §2.7
    do not allow it (:func:`controller.games.lineup.check_entry`)."""
    team = b.team_ref(s.teams, h.params)
    player = _player_ref(s, team, h)
    fight, nxt = _upcoming(s)
    rnd = h.params.get("round")
    if rnd is None:
        rnd = nxt + 1
    if not isinstance(rnd, int) or isinstance(rnd, bool):
        raise GameError(f"round must be a whole number, got {rnd!r}")
    rnd -= 1
    if s.stage == "finished":
        b.refuse(fx, h.at, "game_over")
        return s
    kind = "light" if fight < 0 else s.rules.fight_type(fight)
    skipped = (team, fight, rnd) in s.skips
    problem = lu_rules.check_entry(
        s.line, team=team, fight=fight, rnd=rnd, player=player, entry_size=_entry_size(s, team),
        rounds=1 if fight < 0 else s.rules.rounds, fight_type=kind, fight_started=_started(s, fight),
        round_started=_started(s, fight, rnd),
        themes_announced=any(k[0] == fight for k, _ in s.themes), skipped=skipped)
    name = s.teams[team].name
    if problem is not None:
        key, params = problem
        b.refuse(fx, h.at, key, team=name, **params)
        return s
    s = replace(s, line=lu_rules.assign(s.line, team, fight, rnd, player))
    b.log(fx, h.at, "lineup", team=name, fight=fight + 1 if fight >= 0 else 0, round=rnd + 1, player=player,
          name=_player_name(s, team, player))
    return _drop_disabled(s, h.at, fx)


def _h_absent(s: State, h: Host, fx: list) -> State:
    """An entered player is not here: he cannot be given a round until he comes [§4.1]."""
    team = b.team_ref(s.teams, h.params)
    player = _player_ref(s, team, h)
    if not 1 <= player <= _entry_size(s, team):
        b.refuse(fx, h.at, "lineup_no_player", team=s.teams[team].name, player=player,
                 players=_entry_size(s, team))
        return s
    s = replace(s, line=lu_rules.mark_absent(s.line, team, player))
    b.log(fx, h.at, "absent", team=s.teams[team].name, player=player, name=_player_name(s, team, player))
    return s


def _h_arrive(s: State, h: Host, fx: list) -> State:
    """A latecomer came: he plays from the next fight, or from the coming one when it
    has not begun [§4.1]."""
    team = b.team_ref(s.teams, h.params)
    player = _player_ref(s, team, h)
    if not 1 <= player <= _entry_size(s, team):
        b.refuse(fx, h.at, "lineup_no_player", team=s.teams[team].name, player=player,
                 players=_entry_size(s, team))
        return s
    fight, _ = _upcoming(s)
    fight = max(fight, 0)
    s = replace(s, line=lu_rules.arrive(s.line, team, player, fight, _started(s, fight)))
    first = lu_rules.first_fight(s.line, team, player)
    b.log(fx, h.at, "arrive", team=s.teams[team].name, player=player, name=_player_name(s, team, player),
          from_fight=first + 1)
    return s


def _players_used(s: State) -> bool:
    """Whether this game knows its players (an event file's names, or line-ups entered):
    only then do the view and the summary carry players' points."""
    return s.line.used or any(t.roster for t in s.teams)


def player_points(s: State, fight: int | None = None) -> list[dict]:
    """Each player's points [§4.3], best first: ``team``, ``player`` (number on the entry),
    ``name``, ``points``, ``won_points``; of one fight (0-based) or of the whole game."""
    questions = s.history + ((s.question,) if s.question is not None else ())
    answers = [(a.team, q.fight, q.round, a.delta, a.result == "right")
               for q in questions if q.closed != "withdrawn" and (fight is None or q.fight == fight)
               for a in q.answers]
    tallied = lu_rules.tally(answers, None, lambda t, f, r: lu_rules.player_at(s.line, t, f, r))
    rows = []
    for i, t in enumerate(s.teams):
        seen = set(tallied.get(i, {}))
        if fight is None:
            seen |= {p for (tm, _, _), p in s.line.entries if tm == i}
            seen |= set(range(1, len(t.roster) + 1))
        else:
            seen |= {p for (tm, f, _), p in s.line.entries if tm == i and f == fight}
        for p in sorted(seen):
            pts, won = tallied.get(i, {}).get(p, (0, 0))
            rows.append({"team": t.name, "player": p, "name": lu_rules.player_name(t.roster, p),
                         "points": pts, "won_points": won})
    rows.sort(key=lambda r: (-r["points"], -r["won_points"]))
    return rows


def players_summary(s: State) -> dict:
    """team -> player name -> {points, won_points} (``buzzer simulate``'s ``players``)."""
    out: dict[str, dict] = {t.name: {} for t in s.teams}
    for r in sorted(player_points(s), key=lambda r: (r["team"], r["player"])):
        out[r["team"]][r["name"]] = {"points": r["points"], "won_points": r["won_points"]}
    return {t.name: out[t.name] for t in s.teams}


def _players_view(s: State, view: dict) -> dict:
    """Add to the view what the screen shows of the players (only in a game that knows
    them): the player at each team's button this round, the announced themes of the
    fight, each player's points and the best players of the fight and of the game;
    under ``host`` what only the host sees (the question's text and answer)."""
    fight, rnd = _upcoming(s)
    if s.rules.planned or s.line.used:
        shown = fight if fight >= 0 else -1
        n = 1 if fight < 0 else s.rules.rounds
        view["themes"] = [{"round": r + 1, "theme": _theme(s, shown, r) or None, "current": r == rnd}
                          for r in range(n)]
    q = s.question
    if s.rules.texts and q is not None and q.fight >= 0:
        text = dict(s.rules.texts).get((q.fight, q.round, q.nominal))
        if text is not None:
            view["host"] = event_plan.host_view(*text)
    if not _players_used(s):
        return view
    cur_fight, cur_round = (q.fight, q.round) if q is not None and q.open else (fight, rnd)
    for i, card in enumerate(view["teams"]):
        p = lu_rules.player_at(s.line, i, cur_fight, cur_round)
        card["player"] = _player_name(s, i, p)
    fight_rows = player_points(s, cur_fight if cur_fight >= 0 else None)
    view["player_points"] = player_points(s)
    view["best_players"] = {"fight": lu_rules.best(fight_rows), "game": lu_rules.best(view["player_points"]),
                            "fight_number": cur_fight + 1 if cur_fight >= 0 else 0}
    return view


# ---------------------------------------------------------------------------
# the game object

def _event_fit(cfg: dict, game: dict, number: int) -> None:
    """The event's fights must fit the config's rules: at most ``rounds_per_fight`` themes
    a fight, questions only in those rounds and of the configured nominals."""
    e = cfg["erudite"]
    for k, f in enumerate(game.get("fights", [])):
        path = f"games[{number - 1}].fights[{k}]"
        if len(f["themes"]) > e["rounds_per_fight"]:
            raise ConfigError(f"{path}.themes", Text("erudite.event_themes", themes=len(f["themes"]),
                                                        rounds=e["rounds_per_fight"]))
        for j, q in enumerate(f["questions"]):
            if q["round"] > e["rounds_per_fight"]:
                raise ConfigError(f"{path}.questions[{j}].round", Text("erudite.event_round", rounds=e["rounds_per_fight"],
                                                                         got=q["round"]))
            if q["nominal"] not in e["nominals"]:
                raise ConfigError(f"{path}.questions[{j}].nominal", Text(
                    "erudite.event_nominal", nominals=", ".join(map(str, e["nominals"])), got=q["nominal"]))


class Erudite(Game):
    """Эрудит-квартет: four teams, one button each, the 2nd–4th answer rights (§4.6)."""

    name = MODE
    title_key = "mode_erudite"
    sections = (SECTION,)
    host_actions = HOST_ACTIONS
    actions = ACTIONS
    notices = {**b.NOTICES, "skip_not_allowed": "question"}
    in_programme = True
    event_file = replace(event_plan.FIGHTS, fit=_event_fit)
    initial = staticmethod(initial)
    step = staticmethod(step)
    wakeup = staticmethod(wakeup)
    view = staticmethod(view)
    summary = staticmethod(summary)

    def check_config(self, cfg: dict) -> None:
        """§4.1: at most ``max_teams`` teams at a table, each of at least ``min_players``."""
        limits = cfg["erudite"]
        for i, team in enumerate(cfg["teams"]):
            if team["players"] < limits["min_players"]:
                raise ConfigError(f"teams[{i}].players", f"a team needs at least {limits['min_players']} "
                                  f"players (seed §4.1), got {team['players']}")
        if len(cfg["teams"]) > limits["max_teams"]:
            raise ConfigError("teams", Text("config.too_many_teams", most=limits["max_teams"],
                                            got=len(cfg["teams"]), key="erudite.max_teams"))


GAME = Erudite()

PLUGIN = Plugin(MODE, "controller.games.erudite:GAME", "controller.games.erudite:GAME.sections")
"""Эрудит-квартет in the registry of games (controller/games/__init__.py)."""
