"""Своя игра: individual players, one button each [rules.md, practice].

The same pure interface as :mod:`controller.games.erudite` (``initial``,
``step``, ``wakeup``, ``view``, ``summary``, ``HOST_ACTIONS``).  Rules (every
number from ``[own_game]``):

* ``question`` opens a question (``nominal`` param, default from
  ``own_game.nominals``); buttons are *not* armed yet;
* ``reading_done`` (the host's end-of-reading mark) arms the buttons and starts
  the press window (5 s);
* a press whose edge is before arming is *early*: that button is blocked for
  ``early_block_s`` (1 s) from the edge; every early press restarts its block;
  the lamp blinks while blocked (and the false-start sound plays if
  ``early_sound``); a press after arming but inside a block is refused
  (``blocked``) and does not extend it;
* the earliest eligible edge wins after the settle window (:mod:`controller.core.arbiter`);
  an optional answer countdown (``answer_time_s``) runs while the player answers
  (its end only signals: the host still rules);
* right: +nominal, the question ends; wrong: −nominal (nothing without
  ``wrong_penalty``), that player is locked for
  the question and a new wave is armed at the ruling with a fresh press window;
  presses during someone's answer are early presses of the next wave;
* the press window running out closes the question with no score (``time_up``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from controller.core import arbiter as arb
from controller.core import countdown as cdn
from controller.core.effects import Flash, Lamp, Notice, Sound
from controller.core.errors import ConfigError, GameError
from controller.i18n import Text
from controller.core.events import Host, Press, seconds_to_ns
from controller.games import own_game_pack as pk
from controller.games import race as b
from controller.games.actions import Param, Spec, declare
from controller.games.race import (LATE, BLOCKED, EARLY, LOCKED, Answer,
                                      Player, PressRecord)
from controller.core.schema import Key, Section, nominals, positive
from controller.games.base import Game
from controller.games import event_plan
from controller.core.plugins import Plugin

MODE = "own-game"


SECTION = Section("own_game", "Своя игра: individual players, one button each ([[teams]] entries are players).", (
    Key("nominals", "list", [100, 200, 300, 400, 500], "Default nominals of a theme's questions, in "
        "order (a \"question\" action may name its own).", items="int", check=nominals,
        source="practice"),
    Key("early_block_s", "float", 1.0, "A press before the host's end-of-reading mark blocks that "
        "button for this long; every early press restarts the block (TV: 2 s, SIGame: 3 s, "
        "Jeopardy!: 0.25 s).", minimum=0.0),
    Key("early_sound", "bool", False, "Also play the false-start sound on an early press (the lamp "
        "blinks and the host sees it either way)."),
    Key("press_window_s", "float", 5.0, "Press window after the buttons are armed (and after each "
        "wrong answer); nobody pressing closes the question with no score.", check=positive),
    Key("answer_time_s", "float", 0.0, "Answer countdown after a press; 0 = none.", minimum=0.0),
    Key("max_players", "int", 16, "Most players (buttons) in one game.", minimum=1, maximum=64,
        source="practice"),
    Key("pack", "str", "", "A SIGame question package (.siq) to play: the board of themes and "
        "prices, the host picks a cell (docs/packages.md); \"\" = questions announced by the host "
        "as before. `.venv/bin/buzzer run --pack FILE` sets it too."),
    Key("pack_max_total_mb", "float", 1024.0, "Largest package accepted, unpacked, in MB (a bigger "
        "one, or a zip bomb, is refused).", minimum=1.0),
    Key("pack_max_file_mb", "float", 300.0, "Largest single file of a package, unpacked, in MB.",
        minimum=1.0),
    # SIGame's rules of a package's question types (its game settings' names and defaults)
    Key("no_risk_factor", "int", 2, "«Без риска» (noRisk): the chooser answers for this many times the "
        "price (SIGame: QuestionForYourselfFactor, 2).", minimum=1, maximum=10, source="SIGame"),
    Key("wrong_penalty", "bool", True, "A question the buttons race for (every question of a plain "
        "Своя игра; a package's ordinary ones): a wrong answer costs the price; false: it costs nothing "
        "and the others may still press (SIGame: QuestionWithButtonPenalty, subtract). «Кот в мешке» "
        "and the auction always cost it; «без риска» and for all have their own keys.", source="SIGame"),
    Key("no_risk_penalty", "bool", False, "«Без риска»: a wrong answer costs the price (SIGame: "
        "QuestionForYourselfPenalty, none).", source="SIGame"),
    Key("for_all_penalty", "bool", True, "A question for all (forAll): a wrong answer costs the price "
        "(SIGame: QuestionForAllPenalty, subtract).", source="SIGame"),
    Key("everyone_plays_hidden_stakes", "bool", True, "Hidden stakes (the final, stakeAll): players "
        "with no points above zero play too, for a stake of 1 (SIGame: AllowEveryoneToPlayHiddenStakes).",
        source="SIGame"),
    Key("solo_answer_time_s", "float", 25.0, "Answer countdown of a question only one player answers "
        "(«кот в мешке», auction, «без риска»); only a signal, the host rules; 0 = none; a package's "
        "answer time wins (SIGame: SoloAnswering, 25 s).", minimum=0.0, source="SIGame"),
    Key("hidden_answer_time_s", "float", 45.0, "Answer countdown when every player answers (the final, "
        "stakeAll, forAll); only a signal; 0 = none; a package's answer time wins (SIGame: "
        "HiddenAnswering, 45 s).", minimum=0.0, source="SIGame"),
    Key("pack_image_s", "float", 5.0, "A question with several pictures shows them in turn, each this "
        "long (the last one stays); SIGame's `Image` time.", minimum=0.5, maximum=600.0, source="SIGame"),
    Key("pack_answer_show_s", "float", 2.0, "After the ruling (or when nobody answers) the projector and "
        "the pages show the right answer and the package's answer content this long, then the board "
        "(longer when the answer has several pictures: `pack_image_s` each); SIGame's `RightAnswer` time.",
        minimum=0.5, maximum=600.0, source="SIGame"),
    Key("pack_picture_cache_mb", "float", 48.0, "Memory for a package's pictures decoded and scaled for "
        "the projector (least recently shown dropped first; a 1080p picture takes about 4-8 MB). Bounds "
        "a 500-picture package on a Pi.", minimum=4.0, maximum=2048.0, source="practice"),
))
"""Своя игра's settings: the ``[own_game]`` section of the config."""


@dataclass(frozen=True, slots=True)
class Rules:
    arbiter: arb.ArbiterRules
    nominals: tuple[int, ...]
    early_block: int
    early_sound: bool
    window: int
    answer_time: int
    no_risk_factor: int = 2
    no_risk_penalty: bool = False
    for_all_penalty: bool = True
    wrong_penalty: bool = True
    everyone_hidden: bool = True
    solo_time: int = 0
    hidden_time: int = 0


@dataclass(frozen=True, slots=True)
class Question:
    number: int                      # 1-based place in the game; a replacement keeps the withdrawn one's
    seq: int                         # 1-based, counts every announcement (tie draws, undo)
    nominal: int
    theme: str
    announced_at: int
    armed_at: int | None = None      # None until the end-of-reading mark
    wave: int = 0
    countdown: cdn.Countdown | None = None   # the press window
    answer_cd: cdn.Countdown | None = None   # the optional answer countdown
    arbiter: arb.Arbiter = arb.Arbiter()
    holder: int | None = None
    presses: tuple[PressRecord, ...] = ()
    answers: tuple[Answer, ...] = ()
    answered: frozenset = frozenset()
    closed: str | None = None        # right | time | exhausted | withdrawn

    @property
    def open(self) -> bool:
        return self.closed is None


pk.use_question_type(Question)


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    teams: tuple[Player, ...]
    now: int = 0
    stage: str = "play"              # play | finished
    question: Question | None = None
    history: tuple[Question, ...] = ()
    scores: tuple[int, ...] = ()
    won: tuple[int, ...] = ()
    block_until: tuple[int, ...] = ()
    theme: str = ""
    theme_count: int = 0             # questions asked in the current theme
    paused: bool = False
    undo: tuple = ()
    pack: pk.Pack | None = None      # a SIGame package being played (controller/games/own_game_pack.py)

    @property
    def entry(self) -> str:
        """What the host's number keys typed, echoed to the host (a package only): «2-» a theme
        picked, «2-3» the cell opened, a stake being typed."""
        return pk.entry_text(self) if self.pack is not None else ""

    @property
    def entry_label(self) -> tuple[str, dict] | None:
        """What the number keys are typing, as a notice (i18n key, params), a package only."""
        return pk.entry_label(self) if self.pack is not None else None

    @property
    def button_order(self) -> tuple[str, ...]:
        return tuple(t.button for t in self.teams)


def initial(config: dict, seed: int) -> State:
    o = config["own_game"]
    rules = Rules(arbiter=arb.ArbiterRules.from_config(config, seed),
                  nominals=tuple(o["nominals"]), early_block=seconds_to_ns(o["early_block_s"]),
                  early_sound=o["early_sound"], window=seconds_to_ns(o["press_window_s"]),
                  answer_time=seconds_to_ns(o["answer_time_s"]), no_risk_factor=o["no_risk_factor"],
                  no_risk_penalty=o["no_risk_penalty"], for_all_penalty=o["for_all_penalty"],
                  wrong_penalty=o["wrong_penalty"],
                  everyone_hidden=o["everyone_plays_hidden_stakes"],
                  solo_time=seconds_to_ns(o["solo_answer_time_s"]),
                  hidden_time=seconds_to_ns(o["hidden_answer_time_s"]))
    teams = b.players_from_config(config)
    zeros = (0,) * len(teams)
    return State(rules=rules, teams=teams, scores=zeros, won=zeros, block_until=zeros,
                 pack=pk.new(config, len(teams)))


# ---------------------------------------------------------------------------
# deadlines

def _deadlines(s: State) -> list[tuple[int, int, str]]:
    out = []
    q = s.question
    if q is not None and q.open:
        t = q.arbiter.decide_at(s.rules.arbiter.settle_ns)
        if t is not None:
            out.append((t, 0, "decide"))
        out += b.countdown_deadlines(q.countdown, "warn", "expire", grace=s.rules.arbiter.settle_ns)
        out += b.countdown_deadlines(q.answer_cd, "answer_warn", "answer_time_up")
    out += b.block_deadlines(s.block_until)
    out += pk.deadlines(s)
    return out


def wakeup(s: State) -> int | None:
    """The engine time of the next deadline (the shell sends a Tick then)."""
    return b.earliest(_deadlines(s))


def _advance(s: State, now: int, fx: list, press_at: int | None = None) -> State:
    """Fire every deadline up to ``now`` in time order."""
    return b.fire_due(s, now, fx, _deadlines, _fire, press_at=press_at)


def _fire(s: State, t: int, what: str, fx: list) -> State:
    """Carry out one deadline (settle window, press window, answer time, block) at ``t``."""
    q = s.question
    if what == "decide":
        s = _decide(s, t, fx)
    elif what == "expire":
        q = replace(q, closed="time", countdown=replace(q.countdown, deadline=None, left=0))
        fx += [Sound("time_up"), Flash("time_up")]
        b.log(fx, t, "time_up", question=q.number)
        s = pk.closed(replace(s, question=q), t, fx)
    elif what == "answer_time_up":
        q = replace(q, answer_cd=replace(q.answer_cd, deadline=None, left=0))
        fx += [Sound("time_up"), Flash("answer_time_up", s.teams[q.holder].name)]
        b.log(fx, t, "answer_time_up", team=s.teams[q.holder].name)
        s = replace(s, question=q)
    elif what.startswith("unblock:"):
        s = b.unblock(s, what, t, fx)
    elif what.startswith("think_"):
        s = pk.fire(s, t, what, fx)
    elif what == "pack_answer":
        s = pk.answer_over(s, t, fx)

    return s


def _decide(s: State, t: int, fx: list) -> State:
    q = s.question
    ordered, presses = b.decide(q.arbiter, q.presses, q.wave, s.rules.arbiter,
                                f"{q.seq}/{q.wave}", s.button_order)
    if b.rearms(ordered, s.rules.arbiter):   # a tie within the stamps' uncertainty: press again
        return replace(s, question=b.rearm(q, ordered, t, {tm.button: tm.name for tm in s.teams}, fx))
    fx += b.tie_notice(ordered, s.rules.arbiter, {tm.button: tm.name for tm in s.teams})
    winner = ordered[0]
    team = b.index_of(s.teams, winner.button)
    answer_cd = None
    if s.rules.answer_time:
        answer_cd = cdn.start("answer", s.rules.answer_time, t)
        if s.paused:
            answer_cd = cdn.pause(answer_cd, t)
    q = replace(q, arbiter=arb.Arbiter(), holder=team, presses=presses,
                countdown=cdn.pause(q.countdown, t), answer_cd=answer_cd)
    fx += [Lamp(winner.button, "on"), Sound("press", winner.button)]
    b.log(fx, t, "answer_right", team=s.teams[team].name, button=winner.button, **b.decision_log(ordered))
    return replace(s, question=q)


# ---------------------------------------------------------------------------
# presses

def _press(s: State, p: Press, fx: list) -> State:
    team = b.index_of(s.teams, p.button)
    if team is None:
        b.log(fx, p.delivered, "unknown_button", button=p.button)
        fx.append(Notice("unknown_button", {"button": p.button}))
        return s
    q = s.question
    if q is None or not q.open:
        b.log(fx, p.delivered, "idle_press", button=p.button, at=p.at / 1e9)
        return s
    if team in q.answered:
        kind = LOCKED
    elif q.armed_at is None or p.at < q.armed_at:
        kind = EARLY
    elif q.holder is None and s.block_until[team] and p.at < s.block_until[team]:
        kind = BLOCKED
    else:
        kind = b.race_kind(q, p, s.rules.arbiter.settle_ns, s.rules.arbiter.late_ns)
        if kind is None:
            return s
    q = b.record_press(q, team, p, kind)
    s = replace(s, question=q)
    name = s.teams[team].name
    b.log(fx, p.delivered, "press", button=p.button, team=name, at=p.at / 1e9,
          delivered=p.delivered / 1e9, press_kind=kind, wave=q.wave)
    if kind == LATE and q.holder is not None:   # lost the race, by more than the settle window
        fx.append(b.late_notice(q, p, name, {tm.button: tm.name for tm in s.teams}))
    if kind == EARLY and s.rules.early_block:
        # every early press restarts the block, from its own edge time
        s = replace(s, block_until=b.set_at(s.block_until, team, p.at + s.rules.early_block))
        fx += [Lamp(p.button, "blink"), Notice("early_press", {"button": p.button, "team": name})]
        if s.rules.early_sound:
            fx.append(Sound("false_start"))
    elif kind == EARLY:
        fx.append(Notice("early_press", {"button": p.button, "team": name}))
    return s


# ---------------------------------------------------------------------------
# host actions

def _h_question(s: State, h: Host, fx: list) -> State:
    if s.stage == "finished":
        b.refuse(fx, h.at, "game_over")
        return s
    if s.pack is not None:   # a package's questions are picked on its board (own_game_pack.pick)
        b.refuse(fx, h.at, "pack.pick_a_cell")
        return s
    if s.question is not None and s.question.open:
        b.refuse(fx, h.at, "question_open")
        return s
    theme = h.params.get("theme")
    if theme is not None and str(theme) != s.theme:
        s = replace(s, theme=str(theme), theme_count=0)
    nominal = h.params.get("nominal")
    if nominal is None:
        nominal = s.rules.nominals[s.theme_count % len(s.rules.nominals)]
    if not isinstance(nominal, int) or isinstance(nominal, bool) or nominal <= 0:
        raise GameError(f"nominal must be a whole number > 0, got {nominal!r}")
    history = s.history + ((s.question,) if s.question is not None else ())
    q = Question(number=sum(1 for x in history if x.closed != "withdrawn") + 1, seq=len(history) + 1,
                 nominal=nominal, theme=s.theme, announced_at=h.at)
    s = replace(s, history=history, question=q, theme_count=s.theme_count + 1, undo=())
    b.log(fx, h.at, "question", number=q.number, nominal=nominal, theme=s.theme)
    return s


def _h_theme(s: State, h: Host, fx: list) -> State:
    s = replace(s, theme=str(h.params.get("theme", "")), theme_count=0)
    b.log(fx, h.at, "theme", theme=s.theme)
    return s


def _arm(s: State, q: Question, now: int) -> Question:
    cd = cdn.start("press_window", pk.press_window(s, s.rules.window), now)
    if s.paused:
        cd = cdn.pause(cd, now)
    return replace(q, armed_at=now, countdown=cd, answer_cd=None)


def _h_reading_done(s: State, h: Host, fx: list) -> State:
    if s.pack is not None and s.pack.phase in ("bids", "final_stakes", "secret_price"):
        return pk.digit(s, h, fx, 0)    # keypad 0 types a zero of the stake
    q = s.question
    if q is None or not q.open:
        b.refuse(fx, h.at, "no_question")
        return s
    if q.armed_at is not None:
        b.refuse(fx, h.at, "already_armed")
        return s
    q = _arm(s, q, h.at)
    b.log(fx, h.at, "armed", question=q.number, wave=q.wave, window_s=s.rules.window / 1e9)
    return replace(s, question=q)


def _wrong_delta(s: State, q: Question) -> int:
    """What a wrong answer costs: the nominal; nothing in a question the buttons race for without
    ``wrong_penalty`` (SIGame's QuestionWithButtonPenalty); a package's question only one player
    answers by its type's rule (``no_risk_penalty``; a cat's, an auction's: the price)."""
    if s.pack is not None and pk.single_player(s):
        return pk.wrong_delta(s, -q.nominal)
    return -q.nominal if s.rules.wrong_penalty else 0


def _ruling(s: State, h: Host, fx: list, result: str) -> State:
    q = b.holder_question(s, h, fx)
    if q is None:
        return s
    before = s
    team = q.holder
    delta = q.nominal if result == "right" else _wrong_delta(s, q)
    q = replace(q, answers=q.answers + (Answer(team, result, delta, h.at, q.wave),),
                answered=q.answered | {team}, holder=None, answer_cd=None)
    s = replace(s, scores=b.set_at(s.scores, team, s.scores[team] + delta),
                won=b.set_at(s.won, team, s.won[team] + max(delta, 0)), undo=(before,) + s.undo[:9])
    name = s.teams[team].name
    fx += [Lamp(s.teams[team].button, "off"), Sound(result), Flash(result, name)]
    b.log(fx, h.at, "ruling", result=result, team=name, delta=delta, score=s.scores[team])
    s = pk.after_ruling(s, team, result)
    if result == "right":
        return pk.closed(replace(s, question=replace(q, closed="right")), h.at, fx)
    if len(q.answered) >= len(s.teams) or pk.single_player(s):
        b.log(fx, h.at, "question_closed", reason="exhausted", question=q.number)
        return pk.closed(replace(s, question=replace(q, closed="exhausted")), h.at, fx)
    q = _arm(s, replace(q, wave=q.wave + 1), h.at)
    b.log(fx, h.at, "armed", question=q.number, wave=q.wave, window_s=s.rules.window / 1e9)
    return replace(s, question=q)


def _h_right(s: State, h: Host, fx: list) -> State:
    if s.pack is not None:
        if pk.typing(s):
            done = pk.enter(s, h, fx)     # Enter completes the number being typed
            if done is not None:
                return done
        if s.pack.phase == "final_rulings":
            return pk.final_ruling(s, h, fx, "right")
    return _ruling(s, h, fx, "right")


def _h_wrong(s: State, h: Host, fx: list) -> State:
    if s.pack is not None:
        if pk.typing(s):
            done = pk.erase(s)            # Backspace erases the last digit typed
            if done is not None:
                return done
        if s.pack.phase == "final_rulings":
            return pk.final_ruling(s, h, fx, "wrong")
    return _ruling(s, h, fx, "wrong")


def _h_withdraw(s: State, h: Host, fx: list) -> State:
    cancelled = pk.cancel(s, h, fx)
    if cancelled is None:
        cancelled = pk.withdraw_multi(s, h, fx)   # everyone's question: not the game's own
    if cancelled is not None:
        return cancelled
    q = s.question
    if q is None or q.closed == "withdrawn":
        b.refuse(fx, h.at, "no_question")
        return s
    undone = []
    for a in q.answers:
        s = replace(s, scores=b.set_at(s.scores, a.team, s.scores[a.team] - a.delta),
                    won=b.set_at(s.won, a.team, s.won[a.team] - max(a.delta, 0)))
        undone.append({"team": s.teams[a.team].name, "delta": -a.delta})
    if q.holder is not None:
        fx.append(Lamp(s.teams[q.holder].button, "off"))
    q = replace(q, closed="withdrawn", holder=None, arbiter=arb.Arbiter(), answer_cd=None,
                countdown=cdn.pause(q.countdown, h.at) if q.countdown else None)
    fx.append(Flash("withdrawn"))
    b.log(fx, h.at, "withdraw", question=q.number, nominal=q.nominal, undone=undone)
    return pk.withdrawn(replace(s, question=q, undo=()), fx)


def _h_undo(s: State, h: Host, fx: list) -> State:
    if s.pack is not None and pk.undoes_ruling(s):
        return pk.undo_ruling(s, h, fx)
    if not s.undo or s.question is None or s.undo[0].question is None \
            or s.undo[0].question.seq != s.question.seq:
        b.refuse(fx, h.at, "nothing_to_undo")
        return s
    prev = s.undo[0]
    q = prev.question
    if q.holder is not None:
        fx.append(Lamp(s.teams[q.holder].button, "on"))
    last = s.question.answers[-1]
    fx.append(Flash("undo"))
    b.log(fx, h.at, "undo", question=q.number,
          ruling={"team": s.teams[last.team].name, "result": last.result, "delta": last.delta})
    # a rename made since the ruling stays
    return replace(prev, now=s.now, paused=s.paused, block_until=s.block_until, undo=s.undo[1:], teams=s.teams)


def _h_pause(s: State, h: Host, fx: list) -> State:
    if s.paused:
        return _h_resume(s, h, fx)
    q = s.question
    if q is not None:
        q = replace(q, countdown=cdn.pause(q.countdown, h.at) if q.countdown else None,
                    answer_cd=cdn.pause(q.answer_cd, h.at) if q.answer_cd else None)
    b.log(fx, h.at, "pause")
    return pk.pause(replace(s, paused=True, question=q), h.at, True)


def _h_resume(s: State, h: Host, fx: list) -> State:
    if not s.paused:
        return s
    q = s.question
    if q is not None and q.open:
        if q.countdown is not None and q.holder is None and not q.arbiter.pending and q.countdown.left > 0:
            q = replace(q, countdown=cdn.resume(q.countdown, h.at))
        if q.answer_cd is not None and q.answer_cd.left > 0:
            q = replace(q, answer_cd=cdn.resume(q.answer_cd, h.at))
    b.log(fx, h.at, "resume")
    return pk.pause(replace(s, paused=False, question=q), h.at, False)


def _h_adjust(s: State, h: Host, fx: list) -> State:
    """A manual score correction by the host: ``team`` and ``points`` (+/-)."""
    team = b.team_ref(s.teams, h.params)
    points = h.params.get("points")
    if not isinstance(points, int) or isinstance(points, bool):
        raise GameError(f"\"points\" must be a whole number, got {points!r}")
    s = replace(s, scores=b.set_at(s.scores, team, s.scores[team] + points),
                # an undo of an earlier ruling keeps this correction
                undo=tuple(replace(u, scores=b.set_at(u.scores, team, u.scores[team] + points)) for u in s.undo))
    b.log(fx, h.at, "adjust", team=s.teams[team].name, points=points, score=s.scores[team])
    return s


def _h_rename(s: State, h: Host, fx: list) -> State:
    """A player's new name (``team``, ``name``); see :func:`controller.games.race.rename`."""
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
    "adjust": _h_adjust,
    "rename": _h_rename,
    "end_game": _h_end_game,
    # a SIGame package (controller/games/own_game_pack.py; docs/packages.md)
    "pick": pk.pick,
    "player": pk.choose_player,
    "next_player": pk.choose_next,
    "stake": pk.set_stake,
    "pass": pk.pass_bid,
    "pack_round": pk.next_round,
    **{f"digit_{d}": (lambda s, h, fx, d=d: pk.digit(s, h, fx, d)) for d in range(10)},
}
"""Every host action of Своя игра (documented in docs/modes.md and docs/packages.md)."""

def _with_pack(s: State) -> bool:
    """A SIGame package is played: its actions apply."""
    return s.pack is not None


_RULED = (b.TEAM, b.BUTTON)   # a package's final: the player ruled on (else the next one)
ACTIONS = declare(HOST_ACTIONS, {
    "question": Spec(params=(Param("theme", "text"), Param("nominal", "number"))),
    "theme": Spec(params=(Param("theme", "text"), Param("round", "number", minimum=1))),
    "right": Spec(params=_RULED),
    "wrong": Spec(params=_RULED),
    "adjust": Spec(params=(Param("team", "member", required=True), Param("points", "real", required=True),
                           b.BUTTON)),
    "rename": b.RENAME,
    "end_game": b.ENDS_STAGE,
    # a package's cell (by its theme's and its own number), the player of «кот в мешке», a stake
    "pick": Spec(params=(Param("theme", "number", required=True, form=True, minimum=1),
                         Param("cell", "number", required=True, form=True, minimum=1), Param("price", "real")),
                 applies=_with_pack),
    "player": Spec(params=(b.PICK_TEAM, b.BUTTON), applies=_with_pack),
    # of players with equal points, who removes a final theme / bids next (SIGame asks the showman)
    "next_player": Spec(params=(b.PICK_TEAM, b.BUTTON), applies=_with_pack),
    "stake": Spec(params=(Param("points", "number", required=True, form=True),
                          Param("team", "member", form=True), b.BUTTON), applies=_with_pack),
    "pass": Spec(applies=_with_pack),
    "pack_round": Spec(destructive=True, applies=_with_pack),
    **{f"digit_{d}": Spec(applies=_with_pack) for d in range(10)},
})
"""The declarations of :data:`HOST_ACTIONS`: the package's apply only while one is played."""


def step(s: State, event) -> tuple[State, list]:
    """Apply one event; return the new state and the effects to carry out."""
    return b.dispatch(s, event, actions=HOST_ACTIONS, advance=_advance, mode_name="Своя игра",
                      on_press=_press)


# ---------------------------------------------------------------------------
# standings, view, summary

def standings(s: State) -> list[dict]:
    """Players best first by score, then points won by right answers; equal = shared place."""
    key = lambda i: (-s.scores[i], -s.won[i])  # noqa: E731
    return [{"place": place, "team": s.teams[i].name, "points": s.scores[i], "won_points": s.won[i],
             "tied": sum(1 for j in range(len(s.teams)) if key(j) == key(i)) > 1}
            for place, i in b.ranked(s.teams, key)]


def question_summary(s: State, q: Question) -> dict:
    return {"number": q.number, "nominal": q.nominal, "theme": q.theme,
            "presses": b.press_rows(s.teams, q.presses), "answers": b.answer_rows(s.teams, q.answers),
            "closed": q.closed, "withdrawn": q.closed == "withdrawn"}


def view(s: State, now: int | None = None) -> dict:
    now = s.now if now is None else now
    q = s.question
    if pk.hides_question(s):   # a package's cell picked, its question not on yet: not the last one's
        q = None
    live = q is not None and q.open
    places = {r["team"]: r["place"] for r in standings(s)}
    numbers = s.pack is not None and pk.view_numbers(s)
    teams = [{
        "name": t.name, "button": t.button, "color": t.color, "score": s.scores[i], "won": s.won[i],
        "place": None if numbers else places[t.name],
        # the host types a player's number: each card shows it instead of the place
        **({"number": i + 1} if numbers else {}),
        "holder": bool(live and q.holder == i),
        "locked": bool(live and i in q.answered),
        "disabled": None,
        "early": bool(live and any(r.team == i and r.kind == EARLY and r.wave == q.wave for r in q.presses)),
        "blocked": bool(s.block_until[i] and s.block_until[i] > now),
    } for i, t in enumerate(s.teams)]
    question = None
    if q is not None:
        question = {"number": q.number, "nominal": q.nominal, "theme": q.theme, "open": q.open,
                    "closed": q.closed, "armed": q.armed_at is not None, "wave": q.wave,
                    "presses": b.press_rows(s.teams, q.presses), "answers": b.answer_rows(s.teams, q.answers)}
    return b.with_race({
        "mode": MODE, "stage": s.stage, "paused": s.paused, "theme": pk.header_theme(s) if s.pack else s.theme,
        "teams": teams, "question": question,
        # everyone's answers to a package's question (the final, stakeAll, forAll): their countdown
        "countdown": b.countdown_view(q.countdown if live else s.pack.think if s.pack else None, now),
        "answer_countdown": b.countdown_view(q.answer_cd if live else None, now),
        "standings": standings(s),
        # a package's question only one player answers, or not on yet: no race, no press order
        **({"press_order": False} if s.pack is not None and (pk.hides_question(s) or pk.single_player(s)) else {}),
        **_pack_view(s, now),
    }, s.teams, q, s.rules.arbiter)


def _pack_view(s: State, now: int) -> dict:
    """The package's board and question (``pack``) and the host's part (``host``: the
    answer, what is being typed), only while a package is played."""
    if s.pack is None:
        return {}
    audience, host = pk.view(s, now)
    return {"pack": audience, "host": {"pack": host}}


def summary(s: State) -> dict:
    questions = list(s.history) + ([s.question] if s.question is not None else [])
    return {
        "mode": MODE, "seed": s.rules.arbiter.seed, "stage": s.stage,
        "scores": {t.name: s.scores[i] for i, t in enumerate(s.teams)},
        "won_points": {t.name: s.won[i] for i, t in enumerate(s.teams)},
        "standings": standings(s),
        "questions": [question_summary(s, q) for q in questions],
        **({"pack": pk.summary(s)} if s.pack is not None else {}),
    }


# ---------------------------------------------------------------------------
# the game object

class OwnGame(Game):
    """Своя игра: individual players, one button each; a wrong answer costs the nominal."""

    name = MODE
    title_key = "mode_jeopardy"
    sections = (SECTION,)
    host_actions = HOST_ACTIONS
    actions = ACTIONS
    notices = {**b.NOTICES, **{f"pack.entry.{k}": "pack_entry" for k in ("player", "price", "bid", "stake", "cell",
                                                                          "theme", "next")}}
    in_programme = True
    plays_packages = True   # a SIGame package (controller/content/packs.py, own_game_pack.py)
    package_section = SECTION.name
    event_file = event_plan.PACK
    digit_action = "pack_digits"   # the number keys (a package's layer): a cell, a player, a price, a bid, a stake
    initial = staticmethod(initial)
    step = staticmethod(step)
    wakeup = staticmethod(wakeup)
    view = staticmethod(view)
    summary = staticmethod(summary)

    def check_config(self, cfg: dict) -> None:
        n, most = len(cfg["teams"]), cfg["own_game"]["max_players"]
        if n > most:
            raise ConfigError("teams", Text("config.too_many_players", most=most, got=n, key="own_game.max_players"))

    def describe(self, cfg: dict) -> list[tuple[str, int]]:
        return [("check.players_n", len(cfg["teams"]))]

    def key_layers(self, cfg: dict, program_keys) -> list:
        """With a SIGame package the number keys pick the cell and type stakes (a key the host
        map already uses, keypad 0 the end-of-reading key, keeps its action: it types a 0 while
        a stake is typed) and the next-round key moves to the package's next round."""
        layers = [cfg["keys"]]
        if (cfg.get("own_game") or {}).get("package"):
            taken = {n.lower() for names in cfg["keys"].values() for n in names}
            layers.append({**{f"digit_{d}": [n for n in (str(d), f"[{d}]") if n not in taken] for d in range(10)},
                           "pack_round": list(cfg["keys"].get("next_round", []))})
        return layers

    def known_actions(self, cfg: dict) -> set[str]:
        return set(self.host_actions)


GAME = OwnGame()

PLUGIN = Plugin(MODE, "controller.games.own_game:GAME", "controller.games.own_game:GAME.sections")
"""Своя игра in the registry of games (controller/games/__init__.py)."""
