"""«Что? Где? Когда?»: the timer and the score sheet [seed §3, rules.md].

No buttons: presses only move the clock on.  The same pure interface as
:mod:`controller.games.erudite`.  Rules (every number from ``[chgk]``):

* a tournament is ``tours`` × ``questions_per_tour`` (4 × 12) questions [§3.2];
  ``question`` moves to the next one (or a named one);
* ``start_clock`` («Время!») gives the start signal and runs ``discussion_s``
  (60 s; ``seconds`` param for another length, ``blitz`` for ``blitz_s`` = 20 s)
  with a warning at ``warn_at_s`` (10 s left), an end signal, then ``answer_s``
  (10 s) to hand in the answer; ``start_clock`` after a question's clock has
  run moves to the next question by itself;
* the host enters results (``result``: team + value; ``results``: a list of
  the teams that answered right, a team -> value table, or rows
  ``{team, question, result}`` as :mod:`controller.games.chgk.results` makes them from
  a CSV file); teams rank by right answers;
* equal results for places 1–3 (``prize_places``): ``shootout`` starts extra
  questions; after each one a team that answered right ranks above one that
  did not, until places 1–3 are settled [§3.4]; equal results below share
  places, shown as "4–6" [§3.5];
* ``appeal`` (team, question, accepted) is logged; an accepted appeal gives the
  team the question [§3.6–3.8]; no appeals on shoot-out questions [§3.7].
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable

from controller.core import countdown as cdn
from controller.games.chgk.results import parse_result
from controller.core.effects import Flash, Notice, Sound
from controller.core.errors import GameError
from controller.core.events import Host, seconds_to_ns
from controller.games import race as b
from controller.games.actions import Param, Spec, declare
from controller.games.race import Player
from controller.games.chgk.results import parse_question
from controller.core.schema import Key, Section, action_keys, positive, warn_marks
from controller.games import event_plan
from controller.games.base import Game

MODE = "chgk"

SECTION = Section("chgk", "«Что? Где? Когда?»: the controller is the timer and the score sheet [seed §3].", (
    Key("tours", "int", 4, "Tours in a tournament.", minimum=1, source="seed §3.2"),
    Key("questions_per_tour", "int", 12, "Questions in a tour.", minimum=1, source="seed §3.2"),
    Key("discussion_s", "float", 60.0, "Discussion time after the start signal.", check=positive,
        source="practice"),
    Key("warn_at_s", "list", [10], "Seconds left at which a warning signal sounds.",
        items="number", check=warn_marks, source="practice"),
    Key("answer_s", "float", 10.0, "Time to write and hand in the answer after the end signal "
        "(0: none).", minimum=0.0, source="practice"),
    Key("blitz_s", "float", 20.0, "Discussion time of a blitz question.", check=positive,
        source="practice"),
    Key("prize_places", "int", 3, "Places settled by a shoot-out when teams tie; ties below share "
        "places (\"4–6\").", minimum=1, source="seed §3.4–3.5"),
    Key("results_csv", "str", "results.csv", "CSV file (team,question,result) the host's "
        "import_results key reads into the game (e.g. the jury's sheet); a .xlsx file in the rating site's "
        "layout (Team ID | Название | Город | 1 … N, docs/exports.md) is read as well."),
    Key("keys", "dict", {"mark_right": ["[+]", "="], "mark_wrong": ["[-]", "-"],
                         "clear": ["backspace", "delete"], "question": ["n"],
                         "start_clock": ["space", "[0]", "t"], "blitz": ["b"],
                         "shootout": ["o"], "import_results": ["i"],
                         **{f"digit_{d}": [f"[{d}]", str(d)] for d in range(1, 10)},
                         "digit_0": ["0"]},
        "The host's keys in ЧГК on top of [keys]: type a team's number, then mark_right or "
        "mark_wrong for the current question.", check=action_keys),
))
"""ЧГК's settings: the ``[chgk]`` section of the config."""

MAIN = "main"
SHOOTOUT = "shootout"


@dataclass(frozen=True, slots=True)
class Rules:
    tours: int
    per_tour: int
    discussion: int
    warn_marks: tuple[int, ...]
    answer: int
    blitz: int
    prize_places: int
    plan: tuple = ()     # the event file's tours: ((title, ((text, answer), …)), …) [docs/event-file.md]

    @property
    def total(self) -> int:
        return self.tours * self.per_tour


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    teams: tuple[Player, ...]
    now: int = 0
    stage: str = "play"                  # play | shootout | finished
    current: tuple[str, int] | None = None   # (MAIN, n) or (SHOOTOUT, k)
    phase: str = "idle"                  # idle | discussion | answers | done
    countdown: cdn.Countdown | None = None
    last_main: int = 0
    shootout_count: int = 0
    shootout_teams: tuple[int, ...] = ()
    results: dict = field(default_factory=dict)   # {((kind, n), team): bool}; copied, never mutated
    appeals: tuple[dict, ...] = ()
    blitz: bool = False
    paused: bool = False
    entry: str = ""                      # a team number being typed on the keypad
    undo: tuple = ()                     # the states before the question's last result entries, newest first


def initial(config: dict, seed: int) -> State:
    c = config["chgk"]
    rules = Rules(tours=c["tours"], per_tour=c["questions_per_tour"], discussion=seconds_to_ns(c["discussion_s"]),
                  warn_marks=tuple(seconds_to_ns(m) for m in c["warn_at_s"]), answer=seconds_to_ns(c["answer_s"]),
                  blitz=seconds_to_ns(c["blitz_s"]), prize_places=c["prize_places"], plan=_event_tours(config))
    return State(rules=rules, teams=b.players_from_config(config))


def _event_tours(config: dict) -> tuple:
    """The tours of the event file's game (their titles, the questions' texts and answers); empty
    without one."""
    tours = ((config.get("event") or {}).get("game") or {}).get("tours") or ()
    return tuple((t.get("title", ""), tuple((q["text"], q["answer"], event_plan.host_extras(q))
                                            for q in t.get("questions", ())))
                 for t in tours)


def planned(rules: Rules, key: tuple[str, int] | None) -> tuple[str, str, str]:
    """(tour title, question text, answer) the event file gives for question ``key``; empty
    strings where it gives none (a shoot-out question never has one)."""
    if key is None or key[0] != MAIN or not rules.plan:
        return "", "", ""
    tour, k = divmod(key[1] - 1, rules.per_tour)
    if tour >= len(rules.plan):
        return "", "", ""
    title, questions = rules.plan[tour]
    text, answer = questions[k][:2] if k < len(questions) else ("", "")
    return title, text, answer


def _planned_extras(rules: Rules, key: tuple[str, int] | None) -> tuple:
    """The optional texts (accepted answers, comment …) the event file gives question ``key``."""
    if key is None or key[0] != MAIN or not rules.plan:
        return ()
    tour, k = divmod(key[1] - 1, rules.per_tour)
    questions = rules.plan[tour][1] if tour < len(rules.plan) else ()
    return questions[k][2] if k < len(questions) else ()


# ---------------------------------------------------------------------------
# questions and results

def label(rules: Rules, key: tuple[str, int]) -> str:
    kind, n = key
    if kind == SHOOTOUT:
        return f"s{n}"
    return f"{(n - 1) // rules.per_tour + 1}.{(n - 1) % rules.per_tour + 1}"


def _question_key(s: State, ref: Any) -> tuple[str, int]:
    """A question reference: None (the current one), a number, "tour.question" or "s2" (shoot-out)."""
    if ref is None:
        if s.current is None:
            raise GameError("no current question: name one with \"question\"")
        return s.current
    if isinstance(ref, str) and ref.strip().lower().startswith("s") and ref.strip()[1:].isdigit():
        k = int(ref.strip()[1:])
        if not 1 <= k <= max(s.shootout_count, 1) or not s.shootout_count:
            raise GameError(f"no shoot-out question {ref!r}")
        return (SHOOTOUT, k)
    try:
        return (MAIN, parse_question(ref, s.rules.tours, s.rules.per_tour))
    except ValueError as exc:
        raise GameError(str(exc)) from None


def right_answers(s: State, team: int) -> int:
    return sum(1 for (key, t), v in s.results.items() if t == team and v and key[0] == MAIN)


def _key(s: State, i: int, upto: int) -> tuple:
    so = tuple(0 if s.results.get(((SHOOTOUT, k), i)) else 1 for k in range(1, upto + 1))
    if i not in s.shootout_teams:
        so = (1,) * upto
    return (-right_answers(s, i), so)


def _groups(s: State, upto: int) -> list[tuple[int, list[int]]]:
    """(first place, teams) of every group equal on the ranking key, best first."""
    out: list[tuple[int, list[int]]] = []
    for place, i in b.ranked(s.teams, lambda i: _key(s, i, upto)):
        if out and out[-1][0] == place:
            out[-1][1].append(i)
        else:
            out.append((place, [i]))
    return out


def contested(s: State, upto: int | None = None) -> list[int]:
    """Teams tied for a place in 1..prize_places (these play the shoot-out)."""
    upto = s.shootout_count if upto is None else upto
    return sorted(i for place, g in _groups(s, upto) if len(g) > 1 and place <= s.rules.prize_places for i in g)


def shared_places(s: State) -> str:
    """The places in 1..prize_places that equal results leave shared, as the standings name them
    («1–2»; several: «1–2, 3–4»): a shoot-out decides them.  "" when there are none."""
    return ", ".join(f"{place}–{place + len(g) - 1}" for place, g in _groups(s, s.shootout_count)
                     if len(g) > 1 and place <= s.rules.prize_places)


def standings(s: State) -> list[dict]:
    """Teams best first by right answers (then the shoot-out); shared places as "4–6"."""
    rows = []
    for place, group in _groups(s, s.shootout_count):
        lab = str(place) if len(group) == 1 else f"{place}–{place + len(group) - 1}"
        for i in group:
            row = {"place": place, "place_label": lab, "team": s.teams[i].name,
                   "right": right_answers(s, i), "points": right_answers(s, i), "tied": len(group) > 1}
            if i in s.shootout_teams:
                row["shootout"] = [s.results.get(((SHOOTOUT, k), i)) for k in range(1, s.shootout_count + 1)]
            rows.append(row)
    return rows


def _set_result(s: State, key: tuple[str, int], team: int, value: bool, t: int, fx: list, **extra) -> State:
    results = dict(s.results)
    previous = results.get((key, team))
    results[(key, team)] = value
    b.log(fx, t, "result", question=label(s.rules, key), team=s.teams[team].name, result=value,
          previous=previous, **extra)
    return replace(s, results=results)


UNDO_DEPTH = 10
"""How many result entries of a question ``undo`` takes back, newest first."""


def _undoable(before: State, after: State) -> State:
    """``after`` with ``before`` (the state before a result entry) on its undo history."""
    return replace(after, undo=(replace(before, undo=()),) + before.undo[:UNDO_DEPTH - 1])


def _after_results(s: State, keys: set, t: int, fx: list) -> State:
    """A shoot-out question whose results are all in may settle places 1..prize_places."""
    if s.stage != SHOOTOUT or (SHOOTOUT, s.shootout_count) not in keys:
        return s
    k = s.shootout_count
    need = [i for i in contested(s, k - 1) if i in s.shootout_teams]
    if any(((SHOOTOUT, k), i) not in s.results for i in need):
        return s
    if contested(s, k):
        b.log(fx, t, "shootout_continues", teams=[s.teams[i].name for i in contested(s, k)])
        return s
    fx.append(Flash("standings"))
    b.log(fx, t, "shootout_over", standings=[r["team"] for r in standings(s)])
    return replace(s, stage="finished")


# ---------------------------------------------------------------------------
# deadlines

def _deadlines(s: State) -> list[tuple[int, int, str]]:
    return b.countdown_deadlines(s.countdown, "warn", "end")


def wakeup(s: State) -> int | None:
    """The engine time of the next deadline (the shell sends a Tick then)."""
    return b.earliest(_deadlines(s))


def _advance(s: State, now: int, fx: list, press_at: int | None = None) -> State:
    """Fire every deadline up to ``now`` in time order."""
    return b.fire_due(s, now, fx, _deadlines, _fire, press_at=press_at)


def _fire(s: State, t: int, what: str, fx: list) -> State:
    """Carry out one deadline (warning, end of discussion, end of hand-in) at ``t``."""
    if what == "warn":
        cd, _n = cdn.take_warnings(s.countdown, t)
        s = replace(s, countdown=cd)
        fx.append(Sound("warning"))
        b.log(fx, t, "warning", left_s=round(cdn.remaining(cd, t) / 1e9, 3))
    elif s.phase == "discussion":
        fx += [Sound("time_up"), Flash("time_up")]
        b.log(fx, t, "time_up", question=label(s.rules, s.current))
        if s.rules.answer:
            s = replace(s, phase="answers", countdown=cdn.start("answers", s.rules.answer, t))
            b.log(fx, t, "hand_in", seconds=s.rules.answer / 1e9)
        else:
            s = replace(s, phase="done", countdown=None)
    else:
        fx += [Sound("time_up"), Flash("answers_closed")]
        b.log(fx, t, "answers_closed", question=label(s.rules, s.current))
        s = replace(s, phase="done", countdown=None)
    return s


# ---------------------------------------------------------------------------
# host actions

def _clock_running(fx: list, at: int) -> None:
    """The next question (or another start) while the clock runs: refused, and the host is told
    how to go on: wait for its end, or pause it, then the next question."""
    fx.append(Notice("chgk.clock_running", {"pause_key": "pause", "question_key": "question"}))
    b.log(fx, at, "refused", reason="clock_running")


def _h_question(s: State, h: Host, fx: list) -> State:
    if s.stage == "finished":
        b.refuse(fx, h.at, "game_over")
        return s
    if s.countdown is not None and s.countdown.running:
        _clock_running(fx, h.at)
        return s
    if s.stage == SHOOTOUT:
        key = (SHOOTOUT, s.shootout_count + 1)
        s = replace(s, shootout_count=key[1])
    else:
        ref = h.params.get("question")
        key = _question_key(s, ref) if ref is not None else (MAIN, s.last_main + 1)
        if key[0] != MAIN or key[1] > s.rules.total:
            b.refuse(fx, h.at, "no_more_questions", total=s.rules.total)
            return s
        s = replace(s, last_main=max(s.last_main, key[1]))
    # a team number typed for the last question is forgotten with it
    s = replace(s, current=key, phase="idle", countdown=None, blitz=False, entry="", undo=())
    b.log(fx, h.at, "question", question=label(s.rules, key), number=key[1], shootout=key[0] == SHOOTOUT)
    return s


def _start(s: State, h: Host, fx: list, seconds: Any, blitz: bool) -> State:
    if s.countdown is not None and s.countdown.running:
        _clock_running(fx, h.at)
        return s
    if s.current is None or s.phase != "idle":
        before = s.current
        s = _h_question(s, replace(h, params={}), fx)
        if s.current == before:
            return s
    total = s.rules.blitz if blitz else s.rules.discussion
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
            raise GameError(f"\"seconds\" must be a number > 0, got {seconds!r}")
        total = seconds_to_ns(seconds)
    cd = cdn.start("discussion", total, h.at, s.rules.warn_marks)
    if s.paused:
        cd = cdn.pause(cd, h.at)
    fx.append(Sound("start"))
    b.log(fx, h.at, "start", question=label(s.rules, s.current), seconds=total / 1e9, blitz=blitz)
    return replace(s, phase="discussion", countdown=cd, blitz=blitz)


def _h_start_clock(s: State, h: Host, fx: list) -> State:
    return _start(s, h, fx, h.params.get("seconds"), False)


def _h_blitz(s: State, h: Host, fx: list) -> State:
    return _start(s, h, fx, h.params.get("seconds"), True)


def _value(v: Any) -> bool:
    try:
        return parse_result(v)
    except ValueError as exc:
        raise GameError(str(exc)) from None


def _h_result(s: State, h: Host, fx: list) -> State:
    team = b.team_ref(s.teams, h.params)
    key = _question_key(s, h.params.get("question"))
    if "value" not in h.params and "result" not in h.params:
        raise GameError("\"result\" needs \"value\": true (right) or false")
    before = s
    s = _set_result(s, key, team, _value(h.params.get("value", h.params.get("result"))), h.at, fx)
    return _undoable(before, _after_results(s, {key}, h.at, fx))


def _h_results(s: State, h: Host, fx: list) -> State:
    data = h.params.get("results")
    keys = set()
    before = s
    if isinstance(data, dict):
        key = _question_key(s, h.params.get("question"))
        for ref, v in data.items():
            s = _set_result(s, key, b.resolve(s.teams, ref), _value(v), h.at, fx)
        keys.add(key)
    elif isinstance(data, list) and all(isinstance(x, dict) for x in data) and data:
        for row in data:
            key = _question_key(s, row.get("question", h.params.get("question")))
            s = _set_result(s, key, b.resolve(s.teams, row.get("team")),
                            _value(row.get("result", row.get("value"))), h.at, fx)
            keys.add(key)
    elif isinstance(data, list):
        # the teams that answered right; every other team in play did not
        key = _question_key(s, h.params.get("question"))
        right = {b.resolve(s.teams, ref) for ref in data}
        playing = range(len(s.teams)) if key[0] == MAIN else contested(s, key[1] - 1)
        for i in sorted(set(playing) | right):
            s = _set_result(s, key, i, i in right, h.at, fx)
        keys.add(key)
    else:
        raise GameError("\"results\" must be a list of teams that answered right, a team -> result "
                        "table, or rows {team, question, result}")
    return _undoable(before, _after_results(s, keys, h.at, fx))


def _h_appeal(s: State, h: Host, fx: list) -> State:
    team = b.team_ref(s.teams, h.params)
    if h.params.get("question") is None:
        raise GameError("\"appeal\" needs \"question\"")
    key = _question_key(s, h.params.get("question"))
    if "accepted" not in h.params:
        raise GameError("\"appeal\" needs \"accepted\": true or false")
    accepted = _value(h.params["accepted"])
    if key[0] == SHOOTOUT:
        b.refuse(fx, h.at, "appeal_not_allowed", question=label(s.rules, key))
        return s
    entry = {"team": s.teams[team].name, "question": label(s.rules, key), "accepted": accepted,
             "at": h.at / 1e9, "before": s.results.get((key, team))}
    b.log(fx, h.at, "appeal", team=entry["team"], question=entry["question"], accepted=accepted,
          before=entry["before"])
    s = replace(s, appeals=s.appeals + (entry,), undo=())   # the jury's decision: no undo past it
    if accepted:
        s = _set_result(s, key, team, True, h.at, fx, appeal=True)
    return s


def _h_shootout(s: State, h: Host, fx: list) -> State:
    if s.stage == SHOOTOUT:
        b.refuse(fx, h.at, "shootout_running")
        return s
    refs = h.params.get("teams")
    teams = tuple(sorted({b.resolve(s.teams, r) for r in refs})) if refs else tuple(contested(s))
    if len(teams) < 2:
        b.refuse(fx, h.at, "no_tie")
        return s
    if s.stage == "finished":
        # the host ended the game on a tie (F4 said so): the shoot-out opens it again, said aloud
        fx.append(Notice("chgk.reopened", {"places": shared_places(s)}))
    # a new tie after a finished shoot-out (an appeal accepted later): the
    # earlier shoot-out questions keep deciding what they decided, the new
    # questions follow them (s2, s3 ...)
    s = replace(s, stage=SHOOTOUT, shootout_teams=tuple(sorted(set(s.shootout_teams) | set(teams))),
                current=None, phase="idle", countdown=None, entry="", undo=())
    b.log(fx, h.at, "shootout", teams=[s.teams[i].name for i in teams])
    return s


def _h_pause(s: State, h: Host, fx: list) -> State:
    if s.paused:
        return _h_resume(s, h, fx)
    b.log(fx, h.at, "pause")
    return replace(s, paused=True, countdown=cdn.pause(s.countdown, h.at) if s.countdown else None)


def _h_resume(s: State, h: Host, fx: list) -> State:
    if not s.paused:
        return s
    b.log(fx, h.at, "resume")
    return replace(s, paused=False, countdown=cdn.resume(s.countdown, h.at) if s.countdown else None)


def _h_end_game(s: State, h: Host, fx: list) -> State:
    fx.append(Flash("standings"))
    if contested(s):   # the end screen says it too (the view's standings_note)
        fx.append(Notice("chgk.shootout_due", {"places": shared_places(s)}))
    b.log(fx, h.at, "game_over", standings=[r["team"] for r in standings(s)],
          shootout_needed=bool(contested(s)))
    return replace(s, stage="finished", countdown=None, phase="done" if s.current else "idle", entry="",
                   undo=())


def _h_digit(s: State, h: Host, fx: list) -> State:
    """One digit of a team number typed on the keypad (the last three are kept)."""
    d = str(h.params.get("digit", ""))
    if len(d) != 1 or not d.isdigit():
        raise GameError(f"\"digit\" needs one digit, got {h.params.get('digit')!r}")
    return replace(s, entry=(s.entry + d)[-3:])


def _digit_action(d: int):
    return lambda s, h, fx: _h_digit(s, replace(h, params={"digit": str(d)}), fx)


def _h_clear(s: State, h: Host, fx: list) -> State:
    return replace(s, entry="")


def _mark(value: bool):
    def mark(s: State, h: Host, fx: list) -> State:
        """The typed team (1-based number) answered the current question right / wrong; a host
        page names the team it picked (``team``: its number, name or button) instead."""
        if h.params.get("team") is not None:
            n = b.team_ref(s.teams, h.params) + 1
        else:
            n = int(s.entry) if s.entry else 0
        s = replace(s, entry="")
        if not 1 <= n <= len(s.teams):
            fx.append(Notice("chgk.no_such_team", {"number": n}))
            b.log(fx, h.at, "refused", reason="chgk.no_such_team", number=n)
            return s
        if s.current is None:
            fx.append(Notice("no_question", {}))
            return s
        before = s
        s = _set_result(s, s.current, n - 1, value, h.at, fx)
        fx.append(Notice("chgk.marked_right" if value else "chgk.marked_wrong", {"team": s.teams[n - 1].name}))
        return _undoable(before, _after_results(s, {s.current}, h.at, fx))
    return mark


def _h_undo(s: State, h: Host, fx: list) -> State:
    """Take back the last result entry of the question (a mark, a ``result``, the jury's sheet):
    the results it changed are as before, and a shoot-out it settled is open again."""
    if not s.undo:
        b.refuse(fx, h.at, "nothing_to_undo")
        return s
    prev = s.undo[0]
    changed = sorted({cell for cell in set(s.results) | set(prev.results)
                      if s.results.get(cell) != prev.results.get(cell)}, key=lambda c: (c[0][0] == SHOOTOUT, c[0][1], c[1]))
    fx += [Flash("undo"), Notice("undone", {})]   # the mark's «ответ засчитан» is over
    b.log(fx, h.at, "undo", changes=[{"question": label(s.rules, key), "team": s.teams[team].name,
                                      "result": prev.results.get((key, team))} for key, team in changed])
    return replace(s, results=prev.results, stage=prev.stage, undo=s.undo[1:])


def _h_rename(s: State, h: Host, fx: list) -> State:
    """A team's new name (``team``, ``name``); results are kept by team, not by name."""
    return b.rename(s, h, fx)[0]


HOST_ACTIONS: dict[str, Callable[[State, Host, list], State]] = {
    **{f"digit_{d}": _digit_action(d) for d in range(10)},
    "clear": _h_clear,
    "mark_right": _mark(True),
    "mark_wrong": _mark(False),
    "question": _h_question,
    "start_clock": _h_start_clock,
    "blitz": _h_blitz,
    "result": _h_result,
    "results": _h_results,
    "appeal": _h_appeal,
    "shootout": _h_shootout,
    "pause": _h_pause,
    "resume": _h_resume,
    "rename": _h_rename,
    "undo": _h_undo,
    "end_game": _h_end_game,
}
"""Every host action of ЧГК (documented in docs/modes.md)."""

_QUESTION = Param("question", "question")   # a number, "tour.question" or "s2" (a shoot-out's)
_CLOCK = Spec(params=(_QUESTION, Param("seconds", "real", minimum=0)))
_PICKED = Spec(params=(Param("team", "member", form=True),))   # else the typed team: a host page has no digits
ACTIONS = declare(HOST_ACTIONS, {
    "mark_right": _PICKED,
    "mark_wrong": _PICKED,
    "question": Spec(params=(_QUESTION,)),
    "start_clock": _CLOCK,
    "blitz": _CLOCK,
    "result": Spec(params=(b.TEAM, b.BUTTON, _QUESTION, Param("value", "result"), Param("result", "result"))),
    "results": Spec(params=(_QUESTION, Param("results", "table"))),
    "appeal": Spec(params=(b.TEAM, b.BUTTON, _QUESTION, Param("accepted", "result"))),
    "shootout": Spec(params=(Param("teams", "list"),)),
    "rename": b.RENAME,
    "end_game": b.ENDS_STAGE,
})
"""The declarations of :data:`HOST_ACTIONS` (controller/games/actions.py)."""


def step(s: State, event) -> tuple[State, list]:
    """Apply one event; return the new state and the effects to carry out (presses are ignored)."""
    return b.dispatch(s, event, actions=HOST_ACTIONS, advance=_advance, mode_name="ЧГК")


# ---------------------------------------------------------------------------
# view, summary

def _asked(s: State) -> list[tuple[str, int]]:
    keys = {(MAIN, n) for n in range(1, s.last_main + 1)} | {(SHOOTOUT, k) for k in range(1, s.shootout_count + 1)}
    keys |= {key for key, _t in s.results}
    return sorted(keys, key=lambda k: (k[0] == SHOOTOUT, k[1]))


def question_summary(s: State, key: tuple[str, int]) -> dict:
    kind, n = key
    res = {s.teams[t].name: v for (k, t), v in sorted(s.results.items(), key=lambda x: x[0][1]) if k == key}
    return {"number": n, "label": label(s.rules, key), "shootout": kind == SHOOTOUT,
            "tour": None if kind == SHOOTOUT else (n - 1) // s.rules.per_tour + 1,
            "in_tour": None if kind == SHOOTOUT else (n - 1) % s.rules.per_tour + 1,
            "presses": [],
            "answers": [{"team": name, "result": "right" if v else "wrong"} for name, v in res.items()],
            "results": res,
            "appeals": [a for a in s.appeals if a["question"] == label(s.rules, key)]}


def view(s: State, now: int | None = None) -> dict:
    now = s.now if now is None else now
    rows = {r["team"]: r for r in standings(s)}
    # ``number``: the host types a team's number to mark it, so each card shows its own
    teams = [{"name": t.name, "button": t.button, "color": t.color, "score": rows[t.name]["right"],
              "number": i + 1,
              "place": rows[t.name]["place"], "place_label": rows[t.name]["place_label"],
              "holder": False, "locked": False, "disabled": None, "early": False, "blocked": False,
              "in_shootout": i in s.shootout_teams and s.stage == SHOOTOUT}
             for i, t in enumerate(s.teams)]
    question = None
    if s.current is not None:
        question = dict(question_summary(s, s.current), nominal=None, phase=s.phase, blitz=s.blitz)
    tied = contested(s)
    return {
        "mode": MODE, "stage": s.stage, "paused": s.paused,
        "press_order": False,             # no race for the buttons: the screens show no press order
        "tour": None if s.current is None or s.current[0] == SHOOTOUT else (s.current[1] - 1) // s.rules.per_tour + 1,
        "tours": s.rules.tours, "questions_per_tour": s.rules.per_tour,
        "teams": teams, "question": question, "phase": s.phase, "entry": s.entry,
        "countdown": b.countdown_view(s.countdown, now),
        "standings": standings(s),
        "shootout": {"needed": bool(tied), "teams": [s.teams[i].name for i in (s.shootout_teams or tied)],
                     "questions": s.shootout_count, "running": s.stage == SHOOTOUT},
        # the final table with prize places still shared: the screens say a shoot-out decides them
        **({"standings_note": {"key": "chgk.shootout_due", "params": {"places": shared_places(s)}}}
           if s.stage == "finished" and tied else {}),
        **_planned_view(s),
    }


def _planned_view(s: State) -> dict:
    """The event file's tour title for everyone; the question's text and answer for the host only
    (under ``host``: the view model keeps it off the audience's screens)."""
    title, text, answer = planned(s.rules, s.current)
    out: dict = {"tour_title": title} if title else {}
    if text or answer:
        # the shape Эрудит-квартет's view has
        out["host"] = event_plan.host_view(text, answer, _planned_extras(s.rules, s.current))
    return out


def summary(s: State) -> dict:
    return {
        "mode": MODE, "stage": s.stage,
        "scores": {t.name: right_answers(s, i) for i, t in enumerate(s.teams)},
        "standings": standings(s),
        "shootout_needed": bool(contested(s)),
        "questions": [question_summary(s, k) for k in _asked(s)],
        "appeals": list(s.appeals),
    }


# ---------------------------------------------------------------------------
# the game object

class Chgk(Game):
    """«Что? Где? Когда?»: the controller is the timer and the score sheet; the host types
    team numbers and marks answers (no buttons).  Its extras read the jury's CSV."""

    name = MODE
    title_key = "mode_chgk"
    sections = (SECTION,)
    host_actions = HOST_ACTIONS
    actions = ACTIONS
    notices = {**b.NOTICES, "no_more_questions": "question", "appeal_not_allowed": "question",
               "shootout_running": "clock", "refused": "question", "chgk.no_such_team": "entry",
               "chgk.clock_running": "clock", "undone": "question",
               "chgk.shootout_due": "stage", "chgk.reopened": "stage"}
    buttons_play = False
    in_programme = True
    event_file = event_plan.TOURS
    initial = staticmethod(initial)
    step = staticmethod(step)
    wakeup = staticmethod(wakeup)
    view = staticmethod(view)
    summary = staticmethod(summary)

    def key_layers(self, cfg, program_keys):
        return [cfg["keys"], cfg["chgk"]["keys"]]   # team numbers and results on top of [keys]

    def confirm(self, state: State, action: str) -> tuple[str, dict] | None:
        """Ending the game while prize places are shared: the key's question says a shoot-out
        would decide them (a second press ends the game all the same)."""
        if action == "end_game" and state.stage != "finished" and contested(state):
            return "chgk.confirm_end_tied", {"places": shared_places(state)}
        return super().confirm(state, action)


GAME = Chgk()
