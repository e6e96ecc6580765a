"""Брейн-ринг: teams race for the answer after «Время!» [rules.md, practice].

The same pure interface as :mod:`controller.games.erudite`.  Rules (every
number from ``[brain_ring]``):

* ``question`` announces a question worth ``question_value`` plus what earlier
  unanswered questions carried over (1, then 2, 3 ...);
* ``start_clock`` («Время!») starts the clock: at once, or after a random pause
  of ``start_delay_min_s``..``start_delay_max_s`` drawn from the game seed, the
  fight and how many questions were announced (a replay draws the same pause); the start
  signal is ``Sound("start")`` and ``main_time_s`` (60 s) run;
* a press whose edge is before the start signal is a false start:
  ``Sound("false_start")``, ``Flash("false_start", team)``, the lamp blinks
  and the team may not answer this question; the others play on (if every team
  is out, the question closes unanswered);
* the earliest eligible edge after the start stops the clock (settle-window
  arbiter, :mod:`controller.core.arbiter`);
* right: the team scores the question's value; a team reaching
  ``fight_points`` wins the fight (``Flash("fight_over", winner)``, log
  ``fight_over``); wrong: the other team(s) get ``after_wrong_s`` (fixed), the
  time left (remaining) or the larger (max), armed at the ruling; a press
  during an answer is early (ignored, shown), not a false start;
* signals: start, ``warn_at_s`` (10 s left and each of the last 5 s:
  ``Sound("warning")``), end (``Sound("time_up")``); an unanswered question
  carries its value over;
* ``next_fight`` starts a new fight (optionally between other ``teams``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Callable

from controller.core import arbiter as arb
from controller.core import countdown as cdn
from controller.core.effects import Flash, Lamp, Notice, Sound
from controller.core.errors import ConfigError, GameError
from controller.i18n import Text
from controller.core.events import NS_PER_MS, Host, Press, seconds_to_ns
from controller.games import race as b
from controller.games.actions import Param, Spec, declare
from controller.games.race import (LATE, DISABLED, EARLY, FALSE_START, LOCKED, OUT, Answer, Player, PressRecord)
from controller.core.schema import Key, Section, positive, warn_marks
from controller.games import event_plan
from controller.games.base import Game
from controller.core.plugins import Plugin

MODE = "brain-ring"


SECTION = Section("brain_ring", "Брейн-ринг: teams race for the answer after the host's «Время!».", (
    Key("main_time_s", "float", 60.0, "The clock after the start signal.", check=positive,
        source="practice"),
    Key("after_wrong", "str", "fixed", "After a wrong answer the other team(s) get after_wrong_s "
        "(fixed), what was left on the clock (remaining), or the larger of the two (max).",
        choices=("fixed", "remaining", "max"), source="practice"),
    Key("after_wrong_s", "float", 20.0, "Time of the other team(s) after a wrong answer.",
        check=positive, source="practice"),
    Key("start_delay", "bool", False, "A random pause between the host's key and the start signal "
        "(drawn from the game seed and question number, so a replay repeats it).", source="practice"),
    Key("start_delay_min_s", "float", 1.0, "Shortest random pause.", minimum=0.0, source="practice"),
    Key("start_delay_max_s", "float", 4.0, "Longest random pause.", minimum=0.0, source="practice"),
    Key("question_value", "int", 1, "Points of a question.", minimum=1, source="practice"),
    Key("carry_over", "bool", True, "A question nobody answers adds its value to the next one "
        "(worth 2, then 3 ...).", source="practice"),
    Key("fight_points", "int", 3, "A fight ends when a team has this many points (3 or 5).",
        minimum=1, source="practice"),
    Key("warn_at_s", "list", [10, 5, 4, 3, 2, 1], "Seconds left at which a warning signal sounds.",
        items="number", check=warn_marks, source="practice"),
    Key("default_teams", "int", 2, "Teams in a fight when the config names no [[teams]] (the first "
        "of the built-in list).", minimum=2, source="practice"),
    Key("max_teams", "int", 10, "Most teams (tables) in one fight.", minimum=2, maximum=64,
        source="practice"),
))
"""Брейн-ринг's settings: the ``[brain_ring]`` section of the config."""


@dataclass(frozen=True, slots=True)
class Rules:
    arbiter: arb.ArbiterRules
    main: int
    after_wrong: str
    after_wrong_time: int
    delay: bool
    delay_min: int
    delay_max: int
    value: int
    carry_over: bool
    fight_points: int
    warn_marks: tuple[int, ...]
    plan: tuple = ()     # the event file's questions: ((text, answer, extras), …) [docs/event-file.md]


@dataclass(frozen=True, slots=True)
class Question:
    number: int                      # 1-based place in the game; a replacement keeps the withdrawn one's
    seq: int                         # 1-based, counts every announcement (the start-signal draw)
    fight: int
    value: int
    carry_before: int
    announced_at: int
    clock_at: int | None = None      # when the host gave «Время!» (None: not yet)
    start_at: int | None = None      # when the start signal sounds (after the optional random pause)
    start_left: int | None = None    # the rest of that pause while the game is paused (no signal then)
    armed_at: int | None = None      # edges at or after this may signal in this wave
    wave: int = 0
    countdown: cdn.Countdown | None = None
    arbiter: arb.Arbiter = arb.Arbiter()
    holder: int | None = None
    presses: tuple[PressRecord, ...] = ()
    answers: tuple[Answer, ...] = ()
    answered: frozenset = frozenset()
    out: frozenset = frozenset()     # teams that false-started
    closed: str | None = None        # right | time | exhausted | false_starts | withdrawn

    @property
    def open(self) -> bool:
        return self.closed is None

    @property
    def started(self) -> bool:
        return self.armed_at is not None


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    teams: tuple[Player, ...]
    active: tuple[int, ...]
    now: int = 0
    stage: str = "play"              # play | fight_over | finished
    fight: int = 1
    question: Question | None = None
    history: tuple[Question, ...] = ()
    scores: tuple[int, ...] = ()     # this fight
    totals: tuple[int, ...] = ()     # every fight
    wins: tuple[int, ...] = ()       # fights won
    carry: int = 0
    fights: tuple[dict, ...] = ()    # finished fights: {fight, teams, scores, winner}
    paused: bool = False

    @property
    def button_order(self) -> tuple[str, ...]:
        return tuple(t.button for t in self.teams)


def initial(config: dict, seed: int) -> State:
    r = config["brain_ring"]
    rules = Rules(arbiter=arb.ArbiterRules.from_config(config, seed),
                  main=seconds_to_ns(r["main_time_s"]), after_wrong=r["after_wrong"],
                  after_wrong_time=seconds_to_ns(r["after_wrong_s"]), delay=r["start_delay"],
                  delay_min=seconds_to_ns(r["start_delay_min_s"]),
                  delay_max=seconds_to_ns(r["start_delay_max_s"]), value=r["question_value"],
                  carry_over=r["carry_over"], fight_points=r["fight_points"],
                  warn_marks=tuple(seconds_to_ns(m) for m in r["warn_at_s"]),
                  plan=tuple((q["text"], q["answer"], event_plan.host_extras(q)) for q in
                             ((config.get("event") or {}).get("game") or {}).get("questions") or ()))
    teams = b.players_from_config(config)
    active = tuple(range(len(teams)))
    zeros = (0,) * len(teams)
    return State(rules=rules, teams=teams, active=active, scores=zeros, totals=zeros, wins=zeros)


def start_delay(rules: Rules, fight: int, seq: int) -> int:
    """The random pause before the start signal, in ns (whole ms): a pure function of the
    game seed, the fight and the question's announcement count (``Question.seq``), so a
    replay repeats it."""
    if not rules.delay:
        return 0
    rng = random.Random(f"{rules.arbiter.seed}/brain-ring/{fight}/{seq}")
    ms = rng.randint(rules.delay_min // NS_PER_MS, rules.delay_max // NS_PER_MS)
    return ms * NS_PER_MS


# ---------------------------------------------------------------------------
# deadlines

def _deadlines(s: State) -> list[tuple[int, int, str]]:
    out = []
    q = s.question
    if q is not None and q.open:
        if q.start_at is not None and not q.started and q.start_left is None:
            out.append((q.start_at, 0, "start"))
        t = q.arbiter.decide_at(s.rules.arbiter.settle_ns)
        if t is not None:
            out.append((t, 0, "decide"))
        out += b.countdown_deadlines(q.countdown, "warn", "expire", grace=s.rules.arbiter.settle_ns)
    return out


def wakeup(s: State) -> int | None:
    """The engine time of the next deadline (the shell sends a Tick then)."""
    return b.earliest(_deadlines(s))


def _advance(s: State, now: int, fx: list, press_at: int | None = None) -> State:
    """Fire every deadline up to ``now`` in time order."""
    return b.fire_due(s, now, fx, _deadlines, _fire, press_at=press_at)


def _fire(s: State, t: int, what: str, fx: list) -> State:
    """Carry out one deadline (start signal, settle window, warning, clock) at ``t``."""
    q = s.question
    if what == "start":
        s = _start(s, q.start_at, fx)
    elif what == "decide":
        s = _decide(s, t, fx)
    elif what == "warn":
        cd, _n = cdn.take_warnings(q.countdown, t)
        s = replace(s, question=replace(q, countdown=cd))
        fx.append(Sound("warning"))
        b.log(fx, t, "warning", left_s=round(cdn.remaining(cd, t) / 1e9, 3))
    else:
        q = replace(q, countdown=replace(q.countdown, deadline=None, left=0))
        fx += [Sound("time_up"), Flash("time_up")]
        b.log(fx, t, "time_up", question=q.number)
        s = _unanswered(replace(s, question=q), "time", t, fx)
    return s


def _clock(s: State, kind: str, total: int, now: int) -> cdn.Countdown:
    cd = cdn.start(kind, total, now, s.rules.warn_marks)
    return cdn.pause(cd, now) if s.paused else cd


def _start(s: State, t: int, fx: list) -> State:
    q = replace(s.question, armed_at=t, countdown=_clock(s, "main", s.rules.main, t))
    fx.append(Sound("start"))
    b.log(fx, t, "start", question=q.number, seconds=s.rules.main / 1e9)
    return replace(s, question=q)


def _decide(s: State, t: int, fx: list) -> State:
    q = s.question
    ordered, presses = b.decide(q.arbiter, q.presses, q.wave, s.rules.arbiter,
                                f"{q.fight}/{q.seq}/{q.wave}", s.button_order)
    if b.rearms(ordered, s.rules.arbiter):   # a tie within the stamps' uncertainty: press again
        return replace(s, question=b.rearm(q, ordered, t, {tm.button: tm.name for tm in s.teams}, fx))
    fx += b.tie_notice(ordered, s.rules.arbiter, {tm.button: tm.name for tm in s.teams})
    winner = ordered[0]
    team = b.index_of(s.teams, winner.button)
    q = replace(q, arbiter=arb.Arbiter(), holder=team, presses=presses, countdown=cdn.pause(q.countdown, t))
    fx += [Lamp(winner.button, "on"), Sound("press", winner.button)]
    b.log(fx, t, "answer_right", team=s.teams[team].name, button=winner.button,
          left_s=round(q.countdown.left / 1e9, 3), **b.decision_log(ordered))
    return replace(s, question=q)


def _eligible(s: State, q: Question) -> list[int]:
    return [i for i in s.active if i not in q.answered and i not in q.out]


def _unanswered(s: State, reason: str, t: int, fx: list) -> State:
    """Close the question with nobody scoring; its value carries over."""
    q = replace(s.question, closed=reason, arbiter=arb.Arbiter(), holder=None)
    carry = q.value if s.rules.carry_over else 0
    b.log(fx, t, "question_closed", reason=reason, question=q.number, carry=carry)
    return replace(s, question=q, carry=carry)


# ---------------------------------------------------------------------------
# presses

def _press(s: State, p: Press, fx: list) -> State:
    team = b.index_of(s.teams, p.button)
    if team is None:
        b.log(fx, p.delivered, "unknown_button", button=p.button)
        fx.append(Notice("unknown_button", {"button": p.button}))
        return s
    q = s.question
    if team not in s.active:
        kind = DISABLED
    elif q is None or not q.open:
        b.log(fx, p.delivered, "idle_press", button=p.button, at=p.at / 1e9)
        return s
    elif team in q.out:
        kind = OUT
    elif team in q.answered:
        kind = LOCKED
    elif q.armed_at is None or (q.wave == 0 and p.at < q.armed_at):
        kind = FALSE_START
    elif p.at < q.armed_at:
        kind = EARLY
    else:
        kind = b.race_kind(q, p, s.rules.arbiter.settle_ns, s.rules.arbiter.late_ns)
        if kind is None:
            return s
    name = s.teams[team].name
    if q is None or not q.open:
        b.log(fx, p.delivered, "press", button=p.button, team=name, at=p.at / 1e9, press_kind=kind)
        return s
    q = b.record_press(q, team, p, kind)
    if kind == FALSE_START:
        q = replace(q, out=q.out | {team})
    s = replace(s, question=q)
    b.log(fx, p.delivered, "press", button=p.button, team=name, at=p.at / 1e9,
          delivered=p.delivered / 1e9, press_kind=kind, wave=q.wave)
    if kind == FALSE_START:
        fx += [Sound("false_start"), Flash("false_start", name), Lamp(p.button, "blink")]
        b.log(fx, p.delivered, "false_start", team=name, question=q.number)
        if not _eligible(s, q):
            s = _unanswered(s, "false_starts", p.delivered, fx)
    elif kind == EARLY:
        fx.append(Notice("early_press", {"button": p.button, "team": name}))
    elif kind == LATE and q.holder is not None:   # lost the race, by more than the settle window
        fx.append(b.late_notice(q, p, name, {tm.button: tm.name for tm in s.teams}))
    return s


# ---------------------------------------------------------------------------
# host actions

def _h_question(s: State, h: Host, fx: list) -> State:
    if s.stage != "play":
        b.refuse(fx, h.at, "fight_over" if s.stage == "fight_over" else "game_over")
        return s
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return s
    value = h.params.get("nominal", s.rules.value + s.carry)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise GameError(f"nominal must be a whole number > 0, got {value!r}")
    history = s.history + ((s.question,) if s.question is not None else ())
    q = Question(number=sum(1 for x in history if x.closed != "withdrawn") + 1, seq=len(history) + 1,
                 fight=s.fight, value=value, carry_before=s.carry, announced_at=h.at)
    fx += [Lamp(s.teams[i].button, "off") for i in s.active]
    b.log(fx, h.at, "question", number=q.number, fight=s.fight, value=value, carried=s.carry)
    return replace(s, history=history, question=q)


def _h_start_clock(s: State, h: Host, fx: list) -> State:
    q = s.question
    if q is None or not q.open:
        b.refuse(fx, h.at, "no_question")
        return s
    if q.start_at is not None:
        b.refuse(fx, h.at, "clock_running")
        return s
    delay = start_delay(s.rules, q.fight, q.seq)
    q = replace(q, clock_at=h.at, start_at=h.at + delay)
    if s.paused:   # the signal waits for the resume
        q = replace(q, start_left=delay)
    s = replace(s, question=q)
    b.log(fx, h.at, "start_clock", question=q.number, delay_s=delay / 1e9)
    if delay == 0 and not s.paused:
        s = _start(s, h.at, fx)
    return s


def _h_right(s: State, h: Host, fx: list) -> State:
    q = b.holder_question(s, h, fx)
    if q is None:
        return s
    team = q.holder
    q = replace(q, answers=q.answers + (Answer(team, "right", q.value, h.at, q.wave),),
                answered=q.answered | {team}, holder=None, closed="right")
    s = replace(s, question=q, carry=0, scores=b.set_at(s.scores, team, s.scores[team] + q.value),
                totals=b.set_at(s.totals, team, s.totals[team] + q.value))
    name = s.teams[team].name
    fx += [Lamp(s.teams[team].button, "off"), Sound("right"), Flash("right", name)]
    b.log(fx, h.at, "ruling", result="right", team=name, delta=q.value, score=s.scores[team])
    if s.scores[team] >= s.rules.fight_points:
        s = _end_fight(s, team, h.at, fx)
    return s


def _end_fight(s: State, winner: int | None, t: int, fx: list) -> State:
    record = {"fight": s.fight, "teams": [s.teams[i].name for i in s.active],
              "scores": {s.teams[i].name: s.scores[i] for i in s.active},
              "winner": None if winner is None else s.teams[winner].name}
    wins = s.wins if winner is None else b.set_at(s.wins, winner, s.wins[winner] + 1)
    fx.append(Flash("fight_over", record["winner"]))
    b.log(fx, t, "fight_over", **record)
    return replace(s, stage="fight_over", fights=s.fights + (record,), wins=wins)


def _h_wrong(s: State, h: Host, fx: list) -> State:
    q = b.holder_question(s, h, fx)
    if q is None:
        return s
    team = q.holder
    q = replace(q, answers=q.answers + (Answer(team, "wrong", 0, h.at, q.wave),),
                answered=q.answered | {team}, holder=None)
    s = replace(s, question=q)
    name = s.teams[team].name
    fx += [Lamp(s.teams[team].button, "off"), Sound("wrong"), Flash("wrong", name)]
    b.log(fx, h.at, "ruling", result="wrong", team=name, delta=0, score=s.scores[team])
    if not _eligible(s, q):
        return _unanswered(s, "exhausted", h.at, fx)
    left = q.countdown.left if q.countdown is not None else 0
    total = {"fixed": s.rules.after_wrong_time, "remaining": left,
             "max": max(s.rules.after_wrong_time, left)}[s.rules.after_wrong]
    if total <= 0:
        return _unanswered(s, "time", h.at, fx)
    q = replace(q, wave=q.wave + 1, armed_at=h.at, countdown=_clock(s, "after_wrong", total, h.at))
    b.log(fx, h.at, "armed", question=q.number, wave=q.wave, seconds=total / 1e9,
          teams=[s.teams[i].name for i in _eligible(s, q)])
    return replace(s, question=q)


def _h_withdraw(s: State, h: Host, fx: list) -> State:
    q = s.question
    if q is None or q.closed == "withdrawn":
        b.refuse(fx, h.at, "no_question")
        return s
    undone = []
    for a in q.answers:
        if a.delta:
            s = replace(s, scores=b.set_at(s.scores, a.team, s.scores[a.team] - a.delta),
                        totals=b.set_at(s.totals, a.team, s.totals[a.team] - a.delta))
            undone.append({"team": s.teams[a.team].name, "delta": -a.delta})
    # the fight the question decided (or the game ended on) is open again: its record goes, and
    # after the end of the game the game goes on (the host ends it again: its totals are then
    # the corrected ones), as Эрудит-квартет does
    closing = s.stage == "finished" or (s.stage == "fight_over" and q.closed == "right")
    if closing and s.fights and s.fights[-1]["fight"] == q.fight:
        last = s.fights[-1]
        w = next((i for i, t in enumerate(s.teams) if t.name == last["winner"]), None)
        wins = s.wins if w is None else b.set_at(s.wins, w, s.wins[w] - 1)
        s = replace(s, stage="play", fights=s.fights[:-1], wins=wins)
    elif s.stage == "finished":
        s = replace(s, stage="play")
    if q.holder is not None:
        fx.append(Lamp(s.teams[q.holder].button, "off"))
    q = replace(q, closed="withdrawn", holder=None, arbiter=arb.Arbiter(),
                countdown=cdn.pause(q.countdown, h.at) if q.countdown else None)
    fx.append(Flash("withdrawn"))
    b.log(fx, h.at, "withdraw", question=q.number, undone=undone, carry=q.carry_before)
    return replace(s, question=q, carry=q.carry_before)


def _h_pause(s: State, h: Host, fx: list) -> State:
    if s.paused:
        return _h_resume(s, h, fx)
    q = s.question
    if q is not None and q.countdown is not None:
        q = replace(q, countdown=cdn.pause(q.countdown, h.at))
    if q is not None and q.open and q.start_at is not None and not q.started:
        # paused during the random pause before the start signal: the signal waits too
        q = replace(q, start_left=max(q.start_at - h.at, 0))
    b.log(fx, h.at, "pause")
    return replace(s, paused=True, question=q)


def _h_resume(s: State, h: Host, fx: list) -> State:
    if not s.paused:
        return s
    q = s.question
    if q is not None and q.open and q.countdown is not None and q.holder is None \
            and not q.arbiter.pending and q.countdown.left > 0:
        q = replace(q, countdown=cdn.resume(q.countdown, h.at))
    b.log(fx, h.at, "resume")
    if q is not None and q.open and q.start_left is not None:
        left = q.start_left
        s = replace(s, paused=False, question=replace(q, start_at=h.at + left, start_left=None))
        return _start(s, h.at, fx) if left == 0 else s
    return replace(s, paused=False, question=q)


def _h_next_fight(s: State, h: Host, fx: list) -> State:
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return s
    if s.stage == "finished":
        b.refuse(fx, h.at, "game_over")
        return s
    before = s.fight
    played = _fight_played(s)
    if s.stage == "play" and played:
        s = _end_fight(s, None, h.at, fx)   # stopped before anyone reached the fight's points
    # what happened to the fight on, said: won (the next starts), stopped with no winner, or
    # skipped with nothing played in it
    said = "fight_started" if s.stage == "fight_over" and s.fights and s.fights[-1]["winner"] is not None \
        else "fight_stopped" if played else "fight_skipped"
    active = s.active
    refs = h.params.get("teams")
    if refs:
        active = tuple(sorted({b.resolve(s.teams, r) for r in refs}))
        if len(active) < 2:
            raise GameError("a fight needs at least two teams")
    history = s.history + ((s.question,) if s.question is not None else ())
    s = replace(s, stage="play", fight=s.fight + 1, active=active, scores=(0,) * len(s.teams), carry=0,
                question=None, history=history)
    fx += [Lamp(t.button, "off") for t in s.teams]
    fx.append(Notice(said, {"fight": before, "next": s.fight}))
    b.log(fx, h.at, "fight", fight=s.fight, teams=[s.teams[i].name for i in active])
    return s


def _fight_played(s: State) -> bool:
    """A question was announced in the current fight (the next fight then ends it)."""
    return any(q.fight == s.fight for q in s.history + ((s.question,) if s.question is not None else ()))


def _h_end_game(s: State, h: Host, fx: list) -> State:
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return s
    if s.stage == "play" and any(q.fight == s.fight for q in s.history + ((s.question,) if s.question else ())):
        s = _end_fight(s, None, h.at, fx)
    fx.append(Flash("standings"))
    b.log(fx, h.at, "game_over", totals={t.name: s.totals[i] for i, t in enumerate(s.teams)})
    return replace(s, stage="finished")


def _h_rename(s: State, h: Host, fx: list) -> State:
    """A team's new name (``team``, ``name``), also in the records of finished fights
    (the summary's ``fights`` and the withdrawal of a fight's last question use them)."""
    before = s.teams
    s, i = b.rename(s, h, fx)
    if i is None:
        return s
    old, new = before[i].name, s.teams[i].name
    swap = lambda n: new if n == old else n  # noqa: E731
    fights = tuple({**f, "teams": [swap(n) for n in f["teams"]],
                    "scores": {swap(n): v for n, v in f["scores"].items()},
                    "winner": None if f["winner"] is None else swap(f["winner"])} for f in s.fights)
    return replace(s, fights=fights)


HOST_ACTIONS: dict[str, Callable[[State, Host, list], State]] = {
    "question": _h_question,
    "start_clock": _h_start_clock,
    "right": _h_right,
    "wrong": _h_wrong,
    "withdraw": _h_withdraw,
    "pause": _h_pause,
    "resume": _h_resume,
    "next_fight": _h_next_fight,
    "rename": _h_rename,
    "end_game": _h_end_game,
}
"""Every host action of Брейн-ринг (documented in docs/modes.md)."""

ACTIONS = declare(HOST_ACTIONS, {
    "question": Spec(params=(Param("nominal", "number"),)),
    "next_fight": Spec(params=(Param("teams", "list"),), destructive=True),
    "rename": b.RENAME,
    "end_game": b.ENDS_STAGE,
})
"""The declarations of :data:`HOST_ACTIONS` (controller/games/actions.py)."""


def step(s: State, event) -> tuple[State, list]:
    """Apply one event; return the new state and the effects to carry out."""
    return b.dispatch(s, event, actions=HOST_ACTIONS, advance=_advance, mode_name="Брейн-ринг",
                      on_press=_press)


# ---------------------------------------------------------------------------
# standings, view, summary

def standings(s: State) -> list[dict]:
    """During the game: the teams of the current fight by its points.  Once the game is over:
    the whole game's table, every team that played by fights won, then by the points of every
    fight (the last fight alone would name the wrong winner).  Equal keys share a place."""
    if s.stage == "finished":
        teams = sorted(_played(s))
        key = lambda i: (-s.wins[i], -s.totals[i])  # noqa: E731
    else:
        teams = list(s.active)
        key = lambda i: -s.scores[i]  # noqa: E731
    rows = []
    for place, k in b.ranked([s.teams[i] for i in teams], lambda k: key(teams[k])):
        i = teams[k]
        rows.append({"place": place, "team": s.teams[i].name, "points": s.scores[i],
                     "total": s.totals[i], "fights_won": s.wins[i],
                     "tied": sum(1 for j in teams if key(j) == key(i)) > 1})
    return rows


FINAL_COLUMNS = {"points": "fights_won", "won": "total"}
"""The final table's columns (the view's ``standings_columns``): fights won, then the points
of every fight."""


def question_summary(s: State, q: Question) -> dict:
    return {"number": q.number, "fight": q.fight, "nominal": q.value, "carried": q.carry_before,
            "start_delay_s": None if q.clock_at is None else (q.start_at - q.clock_at) / 1e9,
            "presses": b.press_rows(s.teams, q.presses), "answers": b.answer_rows(s.teams, q.answers),
            "false_starts": [s.teams[i].name for i in sorted(q.out)],
            "closed": q.closed, "withdrawn": q.closed == "withdrawn"}


def view(s: State, now: int | None = None) -> dict:
    now = s.now if now is None else now
    q = s.question
    live = q is not None and q.open
    places = {r["team"]: r["place"] for r in standings(s)}
    teams = [{
        "name": t.name, "button": t.button, "color": t.color, "score": s.scores[i], "total": s.totals[i],
        "fights_won": s.wins[i], "place": places.get(t.name),
        "holder": bool(live and q.holder == i),
        "locked": bool(live and i in q.answered),
        "disabled": None if i in s.active else "not_in_fight",
        "early": bool(live and any(r.team == i and r.kind == EARLY and r.wave == q.wave for r in q.presses)),
        "blocked": False,
        "false_start": bool(live and i in q.out),
    } for i, t in enumerate(s.teams)]
    question = None
    if q is not None:
        question = {"number": q.number, "nominal": q.value, "carried": q.carry_before, "open": q.open,
                    "closed": q.closed, "started": q.started,
                    "waiting_start": bool(live and q.start_at is not None and not q.started),
                    "wave": q.wave, "presses": b.press_rows(s.teams, q.presses),
                    "answers": b.answer_rows(s.teams, q.answers)}
    out = {
        "mode": MODE, "stage": s.stage, "paused": s.paused,
        "fight": s.fight, "fight_points": s.rules.fight_points, "carry": s.carry,
        "teams": teams, "question": question,
        "countdown": b.countdown_view(q.countdown if live else None, now),
        "standings": standings(s),
        "fight_result": _fight_result(s),
    }
    if s.stage == "finished":
        out["standings_columns"] = dict(FINAL_COLUMNS)
    if q is not None and 1 <= q.number <= len(s.rules.plan):
        out["host"] = event_plan.host_view(*s.rules.plan[q.number - 1])   # the question's text: the host's only
    return b.with_race(out, s.teams, q, s.rules.arbiter)


def _fight_result(s: State) -> dict | None:
    """The fight just over (stage ``fight_over``): its number, winner (None: stopped with no
    winner) and points, for the screen's «Бой окончен» panel."""
    if s.stage != "fight_over" or not s.fights:
        return None
    last = s.fights[-1]
    return {"fight": last["fight"], "winner": last["winner"], "scores": dict(last["scores"])}


def _played(s: State) -> set[int]:
    """Teams that took part in any fight (a team of the config that never played is left out)."""
    names = {n for f in s.fights for n in f["teams"]}
    return {i for i, t in enumerate(s.teams) if i in s.active or t.name in names}


def summary(s: State) -> dict:
    questions = list(s.history) + ([s.question] if s.question is not None else [])
    return {
        "mode": MODE, "seed": s.rules.arbiter.seed, "stage": s.stage,
        "scores": {t.name: s.totals[i] for i, t in enumerate(s.teams) if i in _played(s)},
        "fight_scores": {s.teams[i].name: s.scores[i] for i in s.active},
        "fights_won": {t.name: s.wins[i] for i, t in enumerate(s.teams) if i in _played(s)},
        "fights": list(s.fights),
        "standings": standings(s),
        "questions": [question_summary(s, q) for q in questions],
        **({"standings_columns": dict(FINAL_COLUMNS)} if s.stage == "finished" else {}),
    }


# ---------------------------------------------------------------------------
# the game object

class BrainRing(Game):
    """Брейн-ринг: teams race for the answer after the host's «Время!»."""

    name = MODE
    title_key = "mode_brain_ring"
    sections = (SECTION,)
    host_actions = HOST_ACTIONS
    actions = ACTIONS
    notices = {**b.NOTICES, "fight_over": "stage", "fight_started": "question", "fight_stopped": "question",
               "fight_skipped": "question"}
    in_programme = True
    event_file = event_plan.QUESTIONS
    initial = staticmethod(initial)
    step = staticmethod(step)
    wakeup = staticmethod(wakeup)
    view = staticmethod(view)
    summary = staticmethod(summary)

    def confirm(self, state: State, action: str) -> tuple[str, dict] | None:
        """The next fight in the middle of one ends it with no winner, and in a fight nobody
        played yet skips it: either way the key asks twice, saying which."""
        q = state.question
        if action == "next_fight" and state.stage == "play" and (q is None or not q.open):
            fights = {"fight": state.fight, "next": state.fight + 1}
            return ("confirm_fight_end" if _fight_played(state) else "confirm_fight_skip"), fights
        return super().confirm(state, action)

    def key_layers(self, cfg: dict, program_keys) -> list:
        """The next-round key (R) starts the next fight: Брейн-ринг has fights, not rounds."""
        return [cfg["keys"], {"next_fight": list(cfg["keys"].get("next_round", []))}]

    def default_teams(self, cfg: dict, built_in: bool) -> list[dict]:
        """With no [[teams]] named, a fight of ``default_teams`` (two) of the built-in teams."""
        return cfg["teams"][:cfg["brain_ring"]["default_teams"]] if built_in else cfg["teams"]

    def check_config(self, cfg: dict) -> None:
        b_ = cfg["brain_ring"]
        if len(cfg["teams"]) > b_["max_teams"]:
            raise ConfigError("teams", Text("config.too_many_teams", most=b_["max_teams"], got=len(cfg["teams"]),
                                            key="brain_ring.max_teams"))
        if b_["start_delay_max_s"] < b_["start_delay_min_s"]:
            raise ConfigError("brain_ring.start_delay_max_s", "must be >= start_delay_min_s")


GAME = BrainRing()

PLUGIN = Plugin(MODE, "controller.games.brain_ring:GAME", "controller.games.brain_ring:GAME.sections")
"""Брейн-ринг in the registry of games (controller/games/__init__.py)."""
