"""Fairness sweep: how often does the true first presser win?

Two buttons are pressed a known *gap* apart; each press reaches the program
after its own delivery delay, drawn uniformly from ``0..jitter`` (independently
per press, the way GPIO callbacks or USB transport delay edges).  Which button
presses first is drawn at random too.  Each pair is judged by

* **ours** -- the real engine (:func:`controller.games.engine.step`): a
  ``Host("question")`` arms the buttons, the two ``Press`` events are stepped
  in *delivery* order, and ``Tick`` events are sent whenever the engine's
  wakeup time (the settle deadline) comes before the next delivery, as the
  loop does.  The winner is the button the engine names in its
  ``answer_right`` log;
* **first_delivered** -- the press that reached the program first wins
  (what a callback-order design does);
* **poll_1ms / poll_10ms** -- a poller that every P ms scans the pins in index
  order and credits the first pin it finds down.  Delivery jitter does not
  matter to it, but the phase of its poll is random: two presses seen in the
  same scan go to the lower index whatever their true order.

The result is the fraction of pairs won by the true first presser, per
(gap, jitter) cell.  Everything is seeded, so a run is reproducible.
"""

from __future__ import annotations

import random
from typing import Any, Iterable

from controller.app import config as config_mod
from controller.games import engine
from controller.core.effects import Log
from controller.core.events import NS_PER_MS, NS_PER_US, Host, Press, Tick

GAPS_US = (1, 10, 100, 500, 1_000, 2_000, 5_000, 10_000, 50_000)
"""True gaps between the two presses (µs), 1 µs .. 50 ms."""

JITTERS_MS = (0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
"""Largest delivery delay of a press (ms); each press draws 0..J."""

METHODS = ("ours", "first_delivered", "poll_1ms", "poll_10ms")

BUTTONS = ("A", "B")  # A has the lower index: it wins a poller's tie

_PRESS_AT = 1_000 * NS_PER_MS  # presses happen 1 s after the question is announced


def game_config(settle_ms: float | None = None) -> dict:
    """The default config (two teams), optionally with another settle window."""
    cfg = config_mod.load(None)
    cfg["teams"] = cfg["teams"][:2]
    if settle_ms is not None:
        cfg["arbiter"]["settle_ms"] = float(settle_ms)
    return cfg


def armed_state(cfg: dict, seed: int = 1):
    """A game with a question announced at engine time 0 (buttons armed)."""
    state = engine.new_game(cfg, seed)
    state, _ = engine.step(state, Host("question", 0))
    return state


def engine_winner(armed, presses: Iterable[Press]) -> str | None:
    """Step ``presses`` (sorted by delivery) through the engine from ``armed``;
    tick at every wakeup due before the next delivery and at the end.  Return
    the button the engine named, or None."""
    state = armed
    winner = None

    def run(event):
        nonlocal state, winner
        state, fx = engine.step(state, event)
        for f in fx:
            if isinstance(f, Log) and f.kind == "answer_right" and winner is None:
                winner = f.data["button"]

    for p in sorted(presses, key=lambda p: p.delivered):
        due = engine.wakeup(state)
        while due is not None and due <= p.delivered and winner is None:
            run(Tick(due))
            due = engine.wakeup(state)
        run(p)
    due = engine.wakeup(state)
    while due is not None and winner is None:
        run(Tick(due))
        due = engine.wakeup(state)
    return winner


def poll_winner(at: dict[str, int], period_ns: int, phase_ns: int) -> str:
    """Index-order polling: the first scan at or after a press sees it; one
    scan credits the lowest-index button it finds down."""
    def scan_of(t: int) -> int:
        return -((phase_ns - t) // period_ns)  # index of the first scan at phase + k*P >= t

    return min(at, key=lambda b: (scan_of(at[b]), BUTTONS.index(b)))


def sweep(gaps_us: Iterable[float] = GAPS_US, jitters_ms: Iterable[float] = JITTERS_MS,
          pairs: int = 400, seed: int = 2024, settle_ms: float | None = None) -> list[dict[str, Any]]:
    """Run the sweep; return one row per (gap, jitter) with each method's win fraction."""
    cfg = game_config(settle_ms)
    armed = armed_state(cfg)
    rng = random.Random(seed)
    rows = []
    for gap_us in gaps_us:
        gap = int(round(gap_us * NS_PER_US))
        for jitter_ms in jitters_ms:
            jitter = int(round(jitter_ms * NS_PER_MS))
            wins = dict.fromkeys(METHODS, 0)
            for _ in range(pairs):
                first, second = BUTTONS if rng.random() < 0.5 else BUTTONS[::-1]
                t0 = _PRESS_AT + rng.randrange(NS_PER_MS)
                at = {first: t0, second: t0 + gap}
                delivered = {b: at[b] + rng.randint(0, jitter) for b in BUTTONS}
                presses = [Press(b, at[b], delivered[b]) for b in BUTTONS]
                wins["ours"] += engine_winner(armed, presses) == first
                # first delivered; an exact tie in delivery goes either way
                d = sorted(BUTTONS, key=lambda b: (delivered[b], rng.random()))
                wins["first_delivered"] += d[0] == first
                for name, period_ms in (("poll_1ms", 1), ("poll_10ms", 10)):
                    period = period_ms * NS_PER_MS
                    wins[name] += poll_winner(at, period, rng.randrange(period)) == first
            rows.append({"gap_us": gap_us, "jitter_ms": jitter_ms,
                         **{m: round(wins[m] / pairs, 4) for m in METHODS}, "pairs": pairs})
    return rows


def settle_ms_of(settle_ms: float | None = None) -> float:
    return float(game_config(settle_ms)["arbiter"]["settle_ms"])


def where_it_breaks(rows: list[dict], method: str) -> dict | None:
    """The (jitter, largest gap) at which ``method`` first drops below 1.0, by jitter; None if never."""
    broken = [r for r in rows if r[method] < 1.0]
    if not broken:
        return None
    return {"max_gap_us_lost": max(r["gap_us"] for r in broken),
            "min_jitter_ms_lost": min(r["jitter_ms"] for r in broken),
            "worst": min(r[method] for r in broken)}
