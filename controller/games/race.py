"""Shared pieces of the button modes (Своя игра, Брейн-ринг).

Plain values and pure helpers only: the records a question keeps of each
press and ruling, the arbiter decision (:mod:`controller.core.arbiter`, exactly as
Эрудит-квартет uses it), team lookup and the view/summary rows.  Each mode
keeps its own state machine; what differs between them (what an early press
costs, what happens after a wrong answer) stays in the mode.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.values import replace
from typing import Any, Mapping, Sequence

from controller.core import arbiter as arb
from controller.core import countdown as cdn
from controller.core.effects import Lamp, Log, Notice
from controller.core.errors import GameError
from controller.i18n import Text
from controller.core.events import NS_PER_MS, Host, Press, Release, Tick
from controller.games.actions import Param, Spec

# Kinds of press records (what happened to a press), shared with Эрудит-квартет's names:
ANSWER = "answer"            # took the answer right
LOCKOUT = "lockout"          # lost the race inside the settle window
EARLY = "early"              # before the button may signal
LOCKED = "locked"            # this button already answered the question
BLOCKED = "blocked"          # inside an early-press block
DISABLED = "disabled"        # not playing (not in this fight)
LATE = "late"                # after the countdown ran out
PENDING = "pending"          # in the settle window, not decided yet
FALSE_START = "false_start"  # Брейн-ринг: before the start signal; the team is out of the question
OUT = "out"                  # Брейн-ринг: a team already out of the question pressed again
REARMED = "rearmed"          # tied within the presses' uncertainty, [phones] uncertain_tie = "rearm": press again

COUNTED = (ANSWER, LOCKOUT, PENDING)


@dataclass(frozen=True, slots=True)
class Player:
    """One button: a player (Своя игра) or a team (Брейн-ринг)."""

    name: str
    button: str
    color: str


@dataclass(frozen=True, slots=True)
class PressRecord:
    button: str
    team: int
    at: int
    delivered: int
    wave: int
    kind: str
    quiet: int = 0       # what the press's input path declared (Press.quiet, .stream, .tie): the race record
    stream: bool = False
    tie: int = 0
    salt: str = ""       # the decided presses: the tie draw's salt (arbiter.order), for the race record
    unc: int = 0         # the stamp's uncertainty (Press.unc: a phone's press), ns


@dataclass(frozen=True, slots=True)
class Answer:
    team: int
    result: str          # "right" | "wrong"
    delta: int
    at: int
    wave: int


def players_from_config(config: Mapping[str, Any]) -> tuple[Player, ...]:
    return tuple(Player(t["name"], t["button"], t["color"]) for t in config["teams"])


def set_at(t: tuple, i: int, v) -> tuple:
    return t[:i] + (v,) + t[i + 1:]


def log(fx: list, when: int, kind: str, /, **data) -> None:
    fx.append(Log(when, kind, data))


def refuse(fx: list, when: int, key: str, /, **params) -> None:
    """A host action that does not apply now: tell the host, log it, change nothing."""
    fx.append(Notice(key, params))
    log(fx, when, "refused", reason=key, **params)


def index_of(players: Sequence[Player], button: str) -> int | None:
    for i, p in enumerate(players):
        if p.button == button:
            return i
    return None


def team_ref(players: Sequence[Player], params: Mapping[str, Any], key: str = "team") -> int:
    """A team named by name, button id or 1-based number in ``params[key]`` (or ``button``)."""
    ref = params.get(key, params.get("button") if key == "team" else None)
    if ref is None:
        raise GameError(f"this action needs \"{key}\" (a name or button)")
    return resolve(players, ref)


def resolve(players: Sequence[Player], ref: Any) -> int:
    for i, p in enumerate(players):
        if ref in (p.name, p.button) or (isinstance(ref, int) and not isinstance(ref, bool) and ref == i + 1):
            return i
    raise GameError(f"unknown team {ref!r}")


NAME_MAX = 40
"""The longest team (player) name a rename accepts, in characters."""


def clean_name(raw: Any) -> str:
    """A typed name as it is kept: whitespace runs made one space, the ends trimmed,
    characters that cannot be shown (control characters) dropped."""
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise GameError(f"\"name\" must be text, got {raw!r}")
    return " ".join("".join(ch for ch in part if ch.isprintable()) for part in raw.split()).strip()


def name_problem(name: str, others: Sequence[str]) -> str | None:
    """Why ``name`` may not be a team's new name (a notice key), or None.

    ``others`` are the names (and button ids) of every other team; a name equal to
    one of them, ignoring case, would make two teams look alike on the screen and
    in the standings."""
    if not name:
        return "rename_empty"
    if len(name) > NAME_MAX:
        return "rename_too_long"
    if name.casefold() in {o.casefold() for o in others if o}:
        return "rename_taken"
    return None


def rename(s: Any, h: Host, fx: list) -> tuple[Any, int | None]:
    """The host action ``rename``: ``team`` (name, button or 1-based number) gets ``name``.

    Only the shown name changes: every record keeps the team by its index, so the
    scores, the standings order, the tie draws (by button) and the arbiter are the
    same as without the rename.  A name that is empty, longer than
    :data:`NAME_MAX` or another team's is refused with a notice.  Returns the new
    state and the team's index (None when refused)."""
    i = team_ref(s.teams, h.params)
    old = s.teams[i].name
    name = clean_name(h.params.get("name"))
    others = [t.name for j, t in enumerate(s.teams) if j != i] + [t.button for j, t in enumerate(s.teams) if j != i]
    why = name_problem(name, others)
    if why is None and name == old:
        why = "rename_unchanged"
    if why is not None:
        refuse(fx, h.at, why, team=old, name=name, max=NAME_MAX)
        return s, None
    s = replace(s, teams=set_at(s.teams, i, replace(s.teams[i], name=name)))
    fx.append(Notice("renamed", {"old": old, "name": name}))
    log(fx, h.at, "rename", number=i + 1, button=s.teams[i].button, old=old, name=name)
    return s, i


# -- what the button games declare alike (controller/games/actions.py) ---------------

TEAM = Param("team", "member")
"""A team: its 1-based number (a host page), its name or its button (:func:`team_ref`)."""
BUTTON = Param("button", "text")
"""A team by its button id (a scripted session's or the keypad's way of naming it)."""
PICK_TEAM = Param("team", "member", required=True, form=True)
"""A team a host page's form picks."""

RENAME = Spec(params=(PICK_TEAM, Param("name", "text", required=True, form=True, max_len=NAME_MAX), BUTTON))
"""``rename`` (:func:`rename`): the team, its new name (the host page's form asks for both)."""

ENDS_STAGE = Spec(destructive=True)
"""An action that ends a round, a fight or the game: a host page asks for a second tap."""

NOTICES: dict[str, str] = {
    # a refused action: leaves when the reason for the refusal is gone
    "question_open": "question", "no_question": "question", "nothing_to_undo": "undo", "no_tie": "question",
    "no_answer_holder": "holder", "countdown_running": "clock", "clock_running": "clock",
    "already_armed": "clock", "game_over": "stage",
    # what happened in this wave of presses
    "early_press": "wave", "late_press": "wave", "tie_drawn": "wave", "tie_by_order": "wave",
    "race_tie_within_draw": "wave", "race_tie_within_order": "wave", "race_tie_rearm": "wave",
    "already_answered": "wave", "unknown_button": "wave",
    "button_stuck": "stuck",
}
"""What the button games' common notices describe (``Game.notices``)."""


def holder_question(s: Any, h: Host, fx: list) -> Any:
    """The open question of ``s`` whose answer the host can rule on, or None (refused, told)."""
    q = s.question
    if q is None or not q.open or q.holder is None:
        refuse(fx, h.at, "no_answer_holder")
        return None
    return q


def winner_at(presses: Sequence[PressRecord], wave: int) -> int | None:
    return min((r.at for r in presses if r.wave == wave and r.kind == ANSWER), default=None)


def has_pending(presses: Sequence[PressRecord], button: str, wave: int) -> bool:
    return any(r.button == button and r.wave == wave and r.kind == PENDING for r in presses)


def race_kind(q: Any, p: Press, settle_ns: int, late_ns: int = 0) -> str | None:
    """What a press that may take part in the race for the answer is (the games check
    first whether the button may signal at all: locked, early, blocked …).

    * someone holds the answer: a press inside the winner's settle window lost the race
      (LOCKOUT), one within ``late_ns`` of the winner's edge lost it too, by more (LATE), a
      later one came too soon for the next wave (EARLY);
    * the countdown is over: LATE;
    * the button already waits in the settle window: None (a second edge, ignored);
    * otherwise it races: PENDING.

    ``q`` is the question: ``holder``, ``presses``, ``wave`` and ``countdown``."""
    if q.holder is not None:
        first = winner_at(q.presses, q.wave)
        if first is not None and p.at < first + settle_ns:
            return LOCKOUT
        return LATE if first is not None and p.at < first + max(late_ns, settle_ns) else EARLY
    if q.countdown is not None and q.countdown.deadline is not None and p.at >= q.countdown.deadline:
        return LATE
    if has_pending(q.presses, p.button, q.wave):
        return None
    if q.arbiter.rearmed is not None and p.at <= q.arbiter.rearmed:
        return REARMED   # stamped inside the race that was re-armed: it belongs to that race
    return PENDING


def record_press(q: Any, team: int, p: Press, kind: str) -> Any:
    """The question with the press recorded; a PENDING press joins the arbiter's window."""
    q = replace(q, presses=q.presses + (PressRecord(p.button, team, p.at, p.delivered, q.wave, kind,
                                                    p.quiet, p.stream, p.tie, "", p.unc),))
    return replace(q, arbiter=arb.offer(q.arbiter, p)) if kind == PENDING else q


def decide(arbiter: arb.Arbiter, presses: tuple[PressRecord, ...], wave: int, rules: arb.ArbiterRules,
           salt: str, button_order: Sequence[str]) -> tuple[list[Press], tuple[PressRecord, ...]]:
    """Name the winner of a settled window: the presses in edge order, and the
    records with the winner marked ANSWER and the others LOCKOUT."""
    ordered = arb.order(arbiter.candidates, rules.tie_rule, rules.seed, salt, button_order)
    kinds = {p.button: LOCKOUT for p in ordered[1:]}
    kinds[ordered[0].button] = ANSWER
    records = tuple(replace(r, kind=kinds[r.button], salt=salt) if r.kind == PENDING and r.wave == wave
                    and r.button in kinds else r for r in presses)
    return ordered, records


def rearms(ordered: Sequence[Press], rules: arb.ArbiterRules) -> bool:
    """Whether this decision names nobody: a tie within the presses' uncertainty under
    ``[phones] uncertain_tie = "rearm"``."""
    return rules.uncertain_tie == "rearm" and bool(arb.uncertain(ordered))


def rearm(q: Any, ordered: Sequence[Press], t: int, names: Mapping[str, str], fx: list) -> Any:
    """The question after a tie within uncertainty re-armed the race: the wave's waiting presses
    are REARMED (shown as a tie), nobody holds the answer, the buttons may be pressed again (a
    press stamped inside the old race still belongs to it: :func:`race_kind`)."""
    tied = arb.uncertain(ordered)
    gone = {p.button for p in ordered}
    presses = tuple(replace(r, kind=REARMED) if r.kind == PENDING and r.wave == q.wave and r.button in gone else r
                    for r in q.presses)
    teams = ", ".join(names.get(p.button, p.button) for p in tied)
    ms = within_ms(arb.within_ns(tied))
    fx.append(Notice("race_tie_rearm", {"teams": teams, "ms": ms}))
    log(fx, t, "tie_rearm", order=[p.button for p in ordered], within_ms=ms,
        gaps_ms=[(p.at - tied[0].at) / NS_PER_MS for p in ordered])
    return replace(q, presses=presses, arbiter=arb.Arbiter((), max(p.at for p in ordered)))


def within_ms(ns: int) -> int:
    """The ±N ms of a tie within uncertainty, as said: whole milliseconds, rounded up, ≥ 1."""
    return max(1, -(-ns // NS_PER_MS))


def late_notice(q: Any, p: Press, name: str, names: Mapping[str, str]) -> Notice:
    """«Поздно: Дельта (+0.050 с после Беты)»: a press that lost the race after the settle window."""
    first = winner_at(q.presses, q.wave)
    winner = next((r.button for r in q.presses if r.wave == q.wave and r.kind == ANSWER), None)
    return Notice("late_press", {"button": p.button, "team": name, "winner": names.get(winner, winner or ""),
                                 "gap_s": (p.at - first) / 1e9 if first is not None else 0.0})


def tie_notice(ordered: Sequence[Press], rules: arb.ArbiterRules, names: Mapping[str, str]) -> list[Notice]:
    """A tie, told to the host with the published rule that chose who answers
    (``[arbiter] tie_rule``): the same edge time («Ничья (одно и то же мгновение)»), or stamps
    closer than their path can tell apart (``Press.tie``, e.g. ``[gpio] tie_us``: «разница
    меньше N мкс»)."""
    if not arb.is_tie(ordered):
        return []
    tied = arb.uncertain(ordered)
    if tied:   # within the stamps' uncertainty (a phone's press): «ничья в пределах ±N мс»
        return [Notice("race_tie_within_draw" if rules.tie_rule == "random" else "race_tie_within_order",
                       {"teams": ", ".join(names.get(p.button, p.button) for p in tied),
                        "ms": within_ms(arb.within_ns(tied)),
                        "winner": names.get(ordered[0].button, ordered[0].button)})]
    first = min(p.at for p in ordered)
    near = max(1, max(p.tie for p in ordered))
    tied = [p for p in ordered if p.at - first < near]
    teams = ", ".join(names.get(p.button, p.button) for p in tied)
    winner = names.get(ordered[0].button, ordered[0].button)
    if all(p.at == first for p in tied):
        return [Notice("tie_by_order" if rules.tie_rule == "order" else "tie_drawn", {"team": winner, "teams": teams})]
    spread_us = (max(p.at for p in tied) - first) / 1000
    return [Notice("race_tie_draw" if rules.tie_rule == "random" else "race_tie_order",
                   {"teams": teams, "us": f"{spread_us:.1f}", "winner": winner})]


def decision_log(ordered: Sequence[Press]) -> dict:
    first = ordered[0]
    out = {"order": [p.button for p in ordered], "tie": arb.is_tie(ordered),
           "gaps_ms": [(p.at - first.at) / NS_PER_MS for p in ordered]}
    tied = arb.uncertain(ordered) if any(p.unc for p in ordered) else []
    if tied:
        out["within_ms"] = within_ms(arb.within_ns(tied))
    return out


def _uncertain_records(recs: Sequence[PressRecord]) -> list[PressRecord]:
    """The records tied within their uncertainty, as the arbiter ties presses
    (:func:`controller.core.arbiter.tied_within`)."""
    return arb.tied_within(recs)


def press_rows(players: Sequence[Player], presses: Sequence[PressRecord]) -> list[dict]:
    """Presses per wave in edge order, with the gap to the wave's winning (or first counted) press."""
    rows = []
    for wave in sorted({r.wave for r in presses}):
        # an exact tie lists the press the lot (or the team order) picked first
        recs = sorted((r for r in presses if r.wave == wave), key=lambda r: (r.at, r.kind != ANSWER, r.delivered))
        counted = [r for r in recs if r.kind in COUNTED]
        # ties within the stamps' uncertainty (phones): the race decided (the lot's winner listed
        # first), and a race that was re-armed
        within = {}   # id(record) -> (the tie's earliest stamp, its widest uncertainty)
        for g in (_uncertain_records(counted), _uncertain_records([r for r in recs if r.kind == REARMED])):
            for r in g:
                within[id(r)] = (min(x.at for x in g), max(x.unc for x in g))
        if within:
            start = within
            recs = sorted(recs, key=lambda r: (start[id(r)][0] if id(r) in start else r.at, r.kind != ANSWER,
                                               r.at, r.delivered))
        first = next((r for r in counted if r.kind == ANSWER), counted[0] if counted else None)
        ref = first.at if first is not None else recs[0].at
        tie = first is not None and first.kind == ANSWER and sum(r.at == first.at for r in counted) > 1
        for r in recs:
            row = {"button": r.button, "team": players[r.team].name, "wave": wave, "kind": r.kind,
                   "gap_ms": round((r.at - ref) / NS_PER_MS, 6), "at": r.at / 1e9}
            if tie and r.kind in COUNTED and r.at == first.at:
                row["tie"] = True    # the same edge time as the winner's: the lot (or team order) decided
            if id(r) in within:
                row["tie"] = True    # within the stamps' uncertainty: «ничья ±N мс»
                row["tie_ms"] = within_ms(within[id(r)][1])
            if r.unc:
                row["unc_ms"] = round(r.unc / NS_PER_MS, 3)
            rows.append(row)
    return rows


RACE_RULES = {ANSWER: "first", LOCKOUT: "lost", EARLY: "early", LATE: "late", LOCKED: "locked",
              BLOCKED: "blocked", DISABLED: "disabled", PENDING: "pending", FALSE_START: "false_start", OUT: "out",
              REARMED: "rearmed"}
"""The rule that decided each press of a race (docs/exports.md, «The race record»); a winner
whose edge tied with another's is ``tie_lot`` (the seeded draw) or ``tie_order`` (the team order)."""


def race_record(players: Sequence[Player], q: Any, rules: arb.ArbiterRules) -> dict | None:
    """The latest race of question ``q`` (its latest wave with a press) as the race record has
    it: every press in edge order with its stamps, what its input path declared and the rule
    that decided it; None before the question's first press."""
    if q is None or not q.presses:
        return None
    wave = max(r.wave for r in q.presses)
    recs = sorted((r for r in q.presses if r.wave == wave), key=lambda r: (r.at, r.kind != ANSWER, r.delivered))
    winner = next((r for r in recs if r.kind == ANSWER), None)
    ref = winner.at if winner is not None else recs[0].at
    tied = [r for r in recs if r.kind in (ANSWER, LOCKOUT) and winner is not None
            and abs(r.at - winner.at) < max(1, r.tie, winner.tie)]
    within = _uncertain_records([r for r in recs if r.kind in (ANSWER, LOCKOUT)])
    if winner is not None and len(within) > 1:
        tied = within
    presses = []
    for r in recs:
        rule = RACE_RULES.get(r.kind, r.kind)
        if r is winner and len(tied) > 1:
            rule = "tie_lot" if rules.tie_rule == "random" else "tie_order"
        presses.append({"team": players[r.team].name, "button": r.button, "at_ns": r.at, "delivered_ns": r.delivered,
                        "gap_ms": round((r.at - ref) / NS_PER_MS, 6), "stream": r.stream,
                        "resolution_us": r.tie / 1000, "reorder_ms": r.quiet / NS_PER_MS,
                        "kind": r.kind, "rule": rule, **({"uncertainty_ms": r.unc / NS_PER_MS} if r.unc else {})})
    out = {"question": q.number, "seq": q.seq, "wave": wave, "settle_ms": rules.settle_ns / NS_PER_MS,
           "late_ms": rules.late_ns / NS_PER_MS, "tie_rule": rules.tie_rule,
           "winner": players[winner.team].name if winner is not None else None, "presses": presses}
    if len(tied) > 1:
        out["tie"] = {"teams": [players[r.team].name for r in tied], "rule": rules.tie_rule, "seed": rules.seed,
                      "salt": winner.salt}
        if within:
            out["tie"]["within_ms"] = within_ms(max(r.unc for r in within))
    return out


def with_race(view: dict, players: Sequence[Player], q: Any, rules: arb.ArbiterRules) -> dict:
    """``view`` with the latest race's record under ``host`` (the host's page shows it)."""
    race = race_record(players, q, rules)
    if race is not None:
        view["host"] = {**(view.get("host") or {}), "race": race}
    return view


def answer_rows(players: Sequence[Player], answers: Sequence[Answer]) -> list[dict]:
    return [{"team": players[a.team].name, "result": a.result, "delta": a.delta, "at": a.at / 1e9}
            for a in answers]


def countdown_view(cd: cdn.Countdown | None, now: int) -> dict | None:
    if cd is None:
        return None
    return {"kind": cd.kind, "remaining_ms": cdn.remaining(cd, now) / NS_PER_MS,
            "total_ms": cd.total / NS_PER_MS, "running": cd.running}


def ranked(players: Sequence[Player], key) -> list[tuple[int, int]]:
    """(place, index) best first by ``key(i)`` (smaller is better); equal keys share a place."""
    order = sorted(range(len(players)), key=lambda i: (key(i), i))
    out: list[tuple[int, int]] = []
    for pos, i in enumerate(order):
        place = out[-1][0] if pos and key(order[pos - 1]) == key(i) else pos + 1
        out.append((place, i))
    return out


def dispatch(s: Any, event: Any, *, actions: Mapping[str, Any], advance: Any, mode_name: str,
             on_press: Any = None, on_release: Any = None) -> tuple[Any, list]:
    """The common shape of every mode's ``step``.

    Refuse an unknown host action (a :class:`GameError` naming the mode and
    its actions), fire the deadlines up to the event's time with
    ``advance(state, now, fx)``, then hand the event to ``on_press`` /
    ``on_release`` / the host action.  A host action stamped before the
    state's clock (possible after a late delivery) is applied at the state's
    time.
    """
    if isinstance(event, Host) and event.action not in actions:
        raise GameError(Text("script.unknown_action", action=repr(event.action), mode=mode_name,
                              known=", ".join(actions)))
    if not isinstance(event, (Press, Release, Host, Tick)):
        raise GameError(f"not an event: {event!r}")
    fx: list = []
    # a press stamped before a race's decision is due never fires it: delivered after the
    # deadline but before the Tick that carries the decision out, it joins the race
    s = advance(s, max(s.now, event.now), fx, press_at=event.at if isinstance(event, Press) else None)
    if isinstance(event, Press):
        if on_press is not None:
            s = on_press(s, event, fx)
    elif isinstance(event, Release):
        if on_release is not None:
            s = on_release(s, event, fx)
    elif isinstance(event, Host):
        ev = event if event.at >= s.now else replace(event, at=s.now)
        s = actions[event.action](s, ev, fx)
    return s, fx


def countdown_deadlines(cd: cdn.Countdown | None, warn: str, end: str, grace: int = 0) -> list:
    """The deadlines of a running countdown: its next warning, then its end (``grace``
    later: a settle window lets an edge just before the end, delivered late, still count)."""
    if cd is None or not cd.running:
        return []
    w = cdn.next_warning(cd)
    out = [] if w is None else [(w, 1, warn)]
    out.append((cd.deadline + grace, 2, end))
    return out


def block_deadlines(block_until: Sequence[int]) -> list:
    """The ends of the early-press blocks, one ``unblock:<team>`` per blocked button."""
    return [(until, 3, f"unblock:{i}") for i, until in enumerate(block_until) if until]


def unblock(s: Any, what: str, t: int, fx: list) -> Any:
    """Fire an ``unblock:<team>`` deadline: the button may signal again, its lamp goes off."""
    i = int(what.split(":")[1])
    fx.append(Lamp(s.teams[i].button, "off"))
    log(fx, t, "unblock", team=s.teams[i].name)
    return replace(s, block_until=set_at(s.block_until, i, 0))


def earliest(deadlines: list[tuple[int, int, str]]) -> int | None:
    """The time of the first of a mode's deadlines ``(time, priority, what)``, or None."""
    return min(deadlines)[0] if deadlines else None


def fire_due(s: Any, now: int, fx: list, deadlines: Any, fire: Any, press_at: int | None = None) -> Any:
    """Fire a mode's deadlines up to ``now`` in time order, then move its clock to ``now``.

    ``deadlines(state)`` lists ``(time, priority, what)``; ``fire(state, t, what, fx)``
    carries one out at time ``t`` (never before the state's clock) and returns the new
    state.  Each is fired at its own time, not at ``now``: a late tick changes nothing.

    ``press_at``: a press with this edge time is being applied.  Firing stops at a race's
    ``decide`` due after that edge: the press may be the earliest, and the decision
    waits for the shell's Tick, which may come later than the deadline when the input
    thread was kept from running (``controller.inputs.stall``); every press delivered before
    that Tick takes part.  The deadlines after it wait too: a press is judged by its edge
    time against them (a countdown's end, an early-press block), not by whether they have
    fired.  A press stamped at or after the deadline could not win (the settle window ends
    there): the decision fires first, as a Tick at the deadline would have fired it.
    """
    while True:
        d = deadlines(s)
        if not d:
            break
        t, _, what = min(d)
        if t > now or (what == "decide" and press_at is not None and press_at < t):
            break
        s = fire(s, max(t, s.now), what, fx)
    return s if s.now >= now else replace(s, now=now)

